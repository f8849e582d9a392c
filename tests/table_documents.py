"""Generated Markdown documents dense in GFM tables: tables with rows of as many cells as the
header or not, after a paragraph line or not, in a block quote or a list item or not (each
container line left lazy at times), and the lines that end a table or go on with it. Test only:
cmark-gfm judges which lines form a table on them (tests/integration/test_fuzz.py), and the
document flows read them in windows (tests/unit/test_markdown_streaming.py).

Drawn from a ``random.Random``: a seeded one for a fixed set of documents, or Hypothesis's
(``st.randoms``) for a property test that shrinks."""

from random import Random

TABLE_CELLS = ["a", " b ", "`x|y`", "c \\| d", "e \\\\| f", "", "  ", "\u4e2d\u6587", "\U0001f600", "e\u0301", "\tt\t",
               "**b**", "1,204.5", "\u200b", "\v", "x\u00a0y"]  # fmt: skip
TABLE_OTHER_LINES = ["text", "more text", "    indented", "\tindented", "2. x", "*", "1.", "<span>", "</a>", "# h",
                     "***", "---", "===", "```", "> q", "- x", "", "", "[a]: /u", "lazy | x", "   | r |", "  |-|",
                     "<div>", "~~~", "[b]:\n/u", "[b]: /u\n'title'", "[b]:\n  /u\n  \"t\"",
                     "===\n[c]:\n/v"]  # fmt: skip
"""Lines that end a table or go on with it; some are several lines: link reference definitions
over several lines, which after an ``===`` row are rows for cmark-gfm, and such a row before one."""


def table_row(random: Random, cells: int) -> str:
    body = "|".join(random.choice(TABLE_CELLS) for _ in range(cells))
    return random.choice([f"| {body} |", body, f"|{body}", f"{body}|", f"| {body} |"])


def table_block(random: Random) -> list[str]:
    """A table (its header and delimiter rows with as many cells, or one more or fewer), rows with
    more or fewer cells, and lines that end a table or not, in a block quote or a list item or not,
    each container line left lazy at times."""
    columns = random.randint(1, 3)
    delimiter = "|".join(random.choice([" - ", ":-", "-:", ":---:", "---", " -- ", "-\t"]) for _ in range(
        columns + random.choice([0, 0, 0, 0, 0, 1, -1])))  # fmt: skip
    lines = ["para line"] if random.random() < 0.3 else []
    lines += [
        table_row(random, columns),
        random.choice([f"|{delimiter}|", delimiter, f"|{delimiter}", f"{delimiter}|"]),
    ]
    for _ in range(random.randint(0, 4)):
        if random.random() < 0.7:
            lines.append(table_row(random, random.randint(1, 4)))
        else:
            lines += random.choice(TABLE_OTHER_LINES).split("\n")
    container = random.random()
    if container < 0.2:
        return [("> " if random.random() < 0.85 else "") + line for line in lines]
    if container < 0.4:
        marker, indent = random.choice([("- ", "  "), ("1. ", "   "), ("* ", "  ")])
        rest = [(indent if random.random() < 0.85 else random.choice(["", " ", "    "])) + line for line in lines[1:]]
        return [marker + lines[0], *rest]
    return lines


def table_document(random: Random) -> str:
    """One to three ``table_block``s, each followed by up to two other lines, with LF, CRLF or CR
    endings, and a final line ending or not."""
    lines: list[str] = []
    for _ in range(random.randint(1, 3)):
        lines += table_block(random)
        lines += [
            line for other in random.choices(TABLE_OTHER_LINES, k=random.randint(0, 2)) for line in other.split("\n")
        ]
    return random.choice(["\n", "\n", "\r\n", "\r"]).join(lines) + random.choice(["", "\n"])
