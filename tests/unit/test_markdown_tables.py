"""markdown-size-chunk's tables (spec/seeds/markdown-size-chunk.json, "Tables", the kinds table-row,
table-cell and table-word, and table_header), one rule at a time, then against the judges: cmark-gfm
for which lines form a table (tests/gfm.py) and the position-at-a-time reference for the chunks."""

import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from tests import gfm, reference
from tests.conftest import CommonmarkBlocks
from tests.unit.test_markdown_size_properties import chunks_of, expected
from texttools.lines import line_starts, line_view
from texttools.markdown import block_structure
from texttools.registry import tool
from texttools.size_chunks import Settings
from texttools.tables import Lines, cells, delimiter_cells
from texttools.tools.markdown_size_chunk import markdown_size_chunk

TOOL = tool("markdown-size-chunk")
SECTIONS = tool("markdown-sections-chunk")
HEADER = "| Item | Value |\n|---|---:|"
TABLE = f"{HEADER}\n| alpha beta gamma | 1 |\n| delta \\| epsilon | 2 |\n"


def chunks(text: str, **fields: Any) -> list[tuple[str, str, str | None]]:
    """Each chunk's text, cut and table header's text, through the whole request path."""
    found = TOOL.run(TOOL.parse({"text": text, **fields}))["chunks"]
    return [(each["text"], each["cut"], each.get("table_header", {}).get("text")) for each in found]


def tables(text: str) -> list[tuple[int, int]]:
    return [(table.first, table.last) for table in block_structure(text, tables=True).tables]


# Which lines form a table


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("| a |\n|---|\n| r |", [(0, 2)]),
        ("a | b\n--|--", [(0, 1)]),  # no outer pipes
        ("a\n:-", [(0, 1)]),  # one column, no pipe: cmark-gfm's delimiter row
        ("| a | b |\n|---|", []),  # the header and the delimiter row differ in cells
        ("| a \\| b |\n|---|---|", []),  # an escaped pipe is in a cell
        ("| a \\\\| b |\n|---|---|", []),  # cmark-gfm: any pipe after a backslash is escaped
        ("| `a|b` |\n|---|---|", [(0, 1)]),  # a pipe in a code span splits cells
        ("| h |\n|---|\n| r |\n    code?", [(0, 2)]),  # the example: an indented line ends it
        ("Intro\nmore\n| h |\n|---|\n| r |", [(2, 4)]),  # a table interrupts a paragraph
        ("| h |\n|---|\nlazy row, no pipe\n\nafter", [(0, 2)]),
        ("| h |\n|---|\n|\n|---|", [(0, 1)]),  # a row with no cell ends the table
        ("| h |\n|---|\n| r |\n===", []),  # a setext heading for the plain parse: not a paragraph
        ("a\n|---|---|\nb\n|---|", []),  # a delimiter row without its header: no table after it
        ("| h |\n    |---|", []),  # an indented delimiter row is none
        ("> | h |\n> |---|\n> | r |\n| lazy |", [(0, 2)]),  # a lazy line ends a table in a quote
        ("> | h |\n> |---|\nlazy\n> | x |\n> |---|", [(0, 1), (3, 4)]),  # the quote opens again
        ("- | h |\n  |---|\n  | r |\n- next", [(0, 2)]),
        ("- x\n\n  | h |\n  |---|\n| lazy |", [(2, 3)]),
        ("> a\n| h |\n> |---|", [(1, 2)]),  # a lazy header row
        ("> a\n  | h |\n> |---|", []),  # cmark-gfm keeps a lazy line's indentation: two cells
        # a table's lazy line closes the quote for cmark-gfm; an item not numbered 1 cannot interrupt
        # its paragraph there, where the plain parse opens a list (its lazy lines hold the table)
        ("> a|b\n> -|-\nlazy\n2. x\nc|d\n-|-", [(0, 1), (4, 5)]),
        ("> a|b\n> -|-\nlazy\n2. x\n3. y\nc|d\n-|-", [(0, 1), (5, 6)]),
        ("> > a|b\n> > -|-\n> lazy\n> 2. x\n> c|d\n> -|-", [(0, 1), (4, 5)]),
        ("> a|b\n> -|-\nlazy\n1. x\nc|d\n-|-", [(0, 1)]),  # one numbered 1 interrupts it
        ("> a|b\n> -|-\nlazy\n1.\n   c|d\n-|-", [(0, 1), (4, 5)]),  # nor can an empty item
        # a list item that cmark-gfm opened after a table ends at a lazy line opening an HTML block
        ("x|b\n:-|-\n2. x\n<span>\n> p\n| 1 | 2 |\n> :---:|-:", [(0, 1)]),
        # an HTML block after a row in a container runs on over the plain parse's next paragraph there
        ("- a|b\n  -|-\n  <span>\n  ---\n\tc\n  |-|", []),
        ("> a|b\n> -|-\n> <span>\n> ---\nc|d\n-|-", [(4, 5)]),  # not over a lazy line
        ("a|b\n-|-\nc\n--\nd|e\n-|-", []),  # ``--`` is a row (a setext underline for the plain parse)
        ("| a |\n|-:|\n===\n[a]: /u\n b \n|-:", []),  # so is a link reference definition after ``===``
        ("| a |\n|---|\n===\n[x]:\n/u\nh|i\n-|-", []),  # and each line of one over several lines
        ("| a |\n|---|\n===\n[x]: /u\n'title'\nh|i\n-|-", []),
        ("> | a |\n> |---|\n> ===\n> [x]:\n> /u\n> h|i\n> -|-", []),
        ("| a |\n|---|\n===\npara\n===\nh|i\n-|-", []),  # and a setext heading's lines
        ("| a |\n|---|\n===\n[x]:\n    /u\nh|i\n-|-", [(5, 6)]),  # not an indented line: code
        ("| a |\n|---|\n===\n[x]:\n/u\n***\nh|i\n-|-", [(6, 7)]),  # nor a block's start
        ("> | a |\n> |---|\n> ===\n> [x]:\n/u\n> h|i\n> -|-", [(5, 6)]),  # nor a lazy line
        ("* |5\n  -:\n  =\n  [c]:\nv\n  *||a\n-|-|-", [(5, 6)]),  # which closes the item: read outside it
        ("| h |\n|---|\n2. item\n| x |\n|---|", [(0, 1)]),  # a list item ends a table
        ("|d\n|-\n2. x\n\n   r\n-|", [(0, 1)]),  # and stays open over a blank line: r is in it, -| lazy
        ("|d\n|-\n2. x\n\n   r|s\n   -|-", [(0, 1), (4, 5)]),  # a table in it
        ("|d\n|-\n2. x\n\n  r\n-|", [(0, 1), (4, 5)]),  # a line not indented into it closes it
        ("||\n-:\n2. x\n\n\td\nx|`\n-|-", [(0, 1)]),  # indented code for the plain parse: in it
        ("| a |\n| - |\n| a |\n - \n    indented\n| a |\n| - |", []),  # an empty item's content on the next line
        ("| h |\n|---|\n*\n| x |\n|---|", [(0, 1), (3, 4)]),  # an empty one closes at once
        ("| h |\n|---|\n<span>\n| x |\n|---|", [(0, 1)]),  # an HTML block runs to a blank line
        ("| h |\n|---|\n    code\n| x |\n|---|", [(0, 1), (3, 4)]),  # indented code, then a paragraph
        ("| h |\r\n|---|\r\n| r |\r\n", [(0, 2)]),
        ("| h |\r|---|\r| r |\r", [(0, 2)]),
        ("```\n| h |\n|---|\n```", []),
        ("| \u4e2d\u6587 | e\u0301 |\n| --- | :-: |\n| \U0001f600 |\t|", [(0, 2)]),
    ],
)
def test_which_lines_form_a_table_is_cmark_gfm_s(text: str, found: list[tuple[int, int]]) -> None:
    assert tables(text) == found
    assert gfm.cmark_gfm_tables(text) == found


@pytest.mark.parametrize(
    "opener",
    ["# h", "```\n```", "~~~\n~~~", "***", "- - -", "___", "<!-- c -->", "<?x ?>", "<!X >", "<![CDATA[ ]]>",
     "<script></script>", "<PRE></pre>", "[x]: /u\n# h"],
)  # fmt: skip
def test_a_block_after_a_table_s_underline_row_ends_it(opener: str) -> None:
    """After a table's ``===`` row, cmark-gfm's table goes on over the lines that are rows for it,
    into the next paragraph; a line that opens any other block ends it, and the next paragraph
    holds a table of its own."""
    text = f"| a |\n|---|\n===\n{opener}\nh|i\n-|-"
    last = text.count("\n")
    assert tables(text) == gfm.cmark_gfm_tables(text) == [(last - 1, last)]


@pytest.mark.parametrize(
    ("row", "count"),
    [("| a |", 1), ("a", 1), ("|a|b", 2), ("a|b|", 2), ("||", 1), ("|", 0), ("| a \\| b |", 1), ("a \\\\| b", 1),
     ("| `a|b` |", 2), ("|  |  |", 2), ("a | b \t", 2)],
)  # fmt: skip
def test_cells_are_cmark_gfm_s(row: str, count: int) -> None:
    assert cells(row) == count


@pytest.mark.parametrize(
    ("row", "count"),
    [("|---|", 1), ("---|---", 2), (":-", 1), ("-:", 1), ("| :-: | - |", 2), ("---", 1), ("|-- -|", 0),
     ("|---|x|", 0), ("|-\v|", 1), ("", 0)],
)  # fmt: skip
def test_delimiter_rows_are_cmark_gfm_s(row: str, count: int) -> None:
    assert delimiter_cells(row) == count


@given(st.text(alphabet="a|-\r\n \t\0\u00e9", max_size=40))
@example("a\r\r\nb\r")
def test_a_table_s_lines_are_those_of_the_normalised_text_read_at_the_line_starts(text: str) -> None:
    """The tables read the lines at the chunker's line starts (no second split), as the text with
    its line endings as LF has them."""
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = Lines(text, line_starts(line_view(text).split("\n")))
    assert [lines[number] for number in range(len(lines))] == normal.split("\n")
    assert lines.joined(0, len(lines) - 1) == normal


def test_the_headings_of_both_tools_stay_those_of_the_plain_parse() -> None:
    """A table is kept only when all of its lines are paragraph lines: a setext underline under a
    table's rows makes a heading, as the plain parse reads it, and a heading after a table starts
    a section."""
    text = "| a |\n|---|\n| r |\n===\n\n| b |\n|---|\n# After\n"
    assert [each["heading"] for each in SECTIONS.run(SECTIONS.parse({"text": text}))["sections"]] == [
        "| a |\n|---|\n| r |",
        "After",
    ]
    assert tables(text) == [(5, 6)]


# The kinds of ends


def test_a_table_that_fits_is_never_cut() -> None:
    text = f"Intro words here.\n\n{TABLE}\nAfter."
    assert chunks(text, max_chars=100)[0] == ("Intro words here.\n\n" + TABLE.strip(), "paragraph", None)
    assert chunks(text, max_chars=len(TABLE.strip()))[1] == (TABLE.strip(), "paragraph", None)


def test_a_longer_table_is_cut_between_rows() -> None:
    assert chunks(TABLE, max_chars=60) == [
        (f"{HEADER}\n| alpha beta gamma | 1 |", "table-row", None),
        ("| delta \\| epsilon | 2 |", "end", HEADER),
    ]


def test_a_row_longer_than_the_chunk_is_cut_between_cells_not_at_an_escaped_pipe() -> None:
    assert chunks(TABLE, max_chars=20)[2:] == [
        ("| alpha beta gamma", "table-cell", HEADER),
        ("| 1 |", "table-row", HEADER),
        ("| delta \\| epsilon", "table-cell", HEADER),  # not before "\\|"
        ("| 2 |", "end", HEADER),
    ]


def test_a_cell_longer_than_the_chunk_is_cut_between_words() -> None:
    assert chunks(TABLE, max_chars=12)[3:5] == [
        ("| alpha beta", "table-word", HEADER),
        ("gamma | 1 |", "table-row", HEADER),
    ]


@pytest.mark.parametrize(
    ("row", "first"),
    [
        ("| ab\\\\| cd |", ("| ab\\\\", "table-cell")),  # an even run of backslashes: not escaped
        ("| ab\\| cd |", ("| ab\\|", "table-word")),  # an odd one: escaped
        ("| `a|b` cd |", ("| `a", "table-cell")),  # in a code span, a pipe is still a cell boundary
        ("| ab\t| cd |", ("| ab", "table-cell")),  # spaces or tabs before the pipe
    ],
)
def test_a_cell_boundary_is_before_an_unescaped_pipe(row: str, first: tuple[str, str]) -> None:
    text = f"| h | i |\n|---|---|\n{row}\n"
    found = chunks(text, max_chars=len(row) - 4)
    assert next(each[:2] for each in found if each[0].startswith(row[:3])) == first


def test_table_kinds_rank_after_heading_and_before_literal_line() -> None:
    """A chunk that can reach a heading's end or a table's row ends at the heading; a table's row
    is taken before a code block's line."""
    from tests.reference import MARKDOWN_SIZE_KINDS

    assert MARKDOWN_SIZE_KINDS.index("heading") + 1 == MARKDOWN_SIZE_KINDS.index("table-row")
    assert MARKDOWN_SIZE_KINDS.index("table-word") + 1 == MARKDOWN_SIZE_KINDS.index("literal-line")
    assert TOOL.descriptor.output_schema["properties"]["chunks"]["items"]["properties"]["cut"]["enum"] == [
        *MARKDOWN_SIZE_KINDS[:1],
        *MARKDOWN_SIZE_KINDS[1:],
    ]
    text = "| h |\n|---|\n| r |\n```\ncode line\n```"
    assert chunks(text, max_chars=len(text) - 5)[0] == ("| h |\n|---|\n| r |", "line", None)


# table_header


def test_table_header_is_given_from_the_end_of_the_delimiter_row_on_and_only_inside_the_table() -> None:
    found = TOOL.run(TOOL.parse({"text": f"Intro.\n\n{TABLE}\nAfter the table.", "max_chars": 30}))["chunks"]
    header_start = len("Intro.\n\n")
    assert [each.get("table_header") for each in found] == [
        None,
        None,  # starts at the header row
        *[{"start": header_start, "end": header_start + len(HEADER), "text": HEADER}] * 2,
        None,  # after the table
    ]
    keys = ["index", "start", "end", "start_line", "end_line", "cut", "headings", "table_header", "text"]
    assert list(found[2]) == keys


def test_a_chunk_starting_in_the_delimiter_row_has_no_table_header() -> None:
    found = chunks("| a | b |\n|---|---|\n| r | s |", max_chars=13)
    assert [(text, header) for text, _, header in found] == [
        ("| a | b |", None),
        ("|---|---|", None),
        ("| r | s |", "| a | b |\n|---|---|"),
    ]


def test_overlap_starting_inside_the_table_carries_its_header_after_the_delimiter_row() -> None:
    found = TOOL.run(TOOL.parse({"text": TABLE, "max_chars": 40, "overlap_chars": 25}))["chunks"]
    assert [each["start"] for each in found] == [0, 2, 15, 28, 41]
    assert [each.get("table_header", {}).get("text") for each in found] == [None, None, None, HEADER, HEADER]


@pytest.mark.parametrize(
    ("text", "header"),
    [
        ("> | a | b |\n> |---|---|\n> | one | two |\n> | three | four |", "| a | b |\n> |---|---|"),
        ("- | a | b |\n  |---|---|\n  | one | two |\n  | three | four |", "| a | b |\n  |---|---|"),
        ("Before\n  | a | b |\n|---|---|\n| one | two |\n| three | four |", "| a | b |\n|---|---|"),
    ],
)
def test_in_a_quote_or_list_item_the_header_holds_the_second_line_s_markers(text: str, header: str) -> None:
    assert chunks(text, max_chars=18)[-1][2] == header


# Against the judges

CELL_TEXTS = ["a", " b ", "`x|y`", "c \\| d", "e \\\\| f", "", "  ", "\u4e2d\u6587", "\U0001f600", "e\u0301", "\tt\t",
              "**b**", "one two. Three"]  # fmt: skip
cell_texts = st.lists(st.sampled_from(CELL_TEXTS), min_size=1, max_size=4)


@st.composite
def rows(draw: st.DrawFn, count: int | None = None) -> str:
    cells_ = draw(cell_texts) if count is None else [draw(st.sampled_from(CELL_TEXTS)) for _ in range(count)]
    body = "|".join(cells_)
    return draw(st.sampled_from([f"| {body} |", body, f"|{body}", f"{body}|"]))


@st.composite
def delimiter_rows(draw: st.DrawFn, count: int) -> str:
    body = "|".join(draw(st.sampled_from([" - ", ":-", "-:", ":---:", "---", " -- "])) for _ in range(count))
    return draw(st.sampled_from([f"|{body}|", body, f"|{body}", f"{body}|"]))


OTHER_LINES = ["text", "more text", "    indented", "\tindented", "2. x", "*", "1.", "<span>", "</a>", "# h", "***",
               "---", "===", "```", "> q", "- x", "", "", "[a]: /u", "lazy | x", "   | r |", "  |-|"]  # fmt: skip


@st.composite
def table_blocks(draw: st.DrawFn) -> list[str]:
    columns = draw(st.integers(1, 3))
    lines = ["para line"] if draw(st.booleans()) else []
    lines += [draw(rows(columns)), draw(delimiter_rows(columns + draw(st.sampled_from([0, 0, 0, 0, 1, -1]))))]
    for _ in range(draw(st.integers(0, 4))):
        lines.append(draw(rows()) if draw(st.integers(0, 9)) < 7 else draw(st.sampled_from(OTHER_LINES)))
    container = draw(st.sampled_from(["", "", "", "quote", "item", "ordered"]))
    if container == "quote":
        return [("> " if draw(st.integers(0, 9)) else "") + line for line in lines]
    if container:
        marker, indent = ("- ", "  ") if container == "item" else ("1. ", "   ")
        return [marker + lines[0], *((indent if draw(st.integers(0, 9)) else "") + line for line in lines[1:])]
    return lines


@st.composite
def table_documents(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        lines += draw(table_blocks())
        lines += draw(st.lists(st.sampled_from(OTHER_LINES), max_size=2))
    return draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines) + draw(st.sampled_from(["", "\n"]))


def judged(text: str) -> list[tuple[int, int]]:
    """cmark-gfm's tables, where the descriptor says which lines form a table: the plain parsers
    agree on the paragraphs, and cmark-gfm and markdown-it-py (a CommonMark parser with the table
    extension) on the tables; elsewhere the answer is unspecified and the example is skipped."""
    assume(gfm.plain_parsers_agree(text))
    found = gfm.cmark_gfm_tables(text)
    assume(found == gfm.markdown_it_tables(text))
    return found


@settings(max_examples=300, deadline=None)
@given(table_documents())
@example("| h |\n|---|\n| r |\n    code?")
def test_the_tables_are_cmark_gfm_s(text: str) -> None:
    assert tables(text) == judged(text)


@settings(max_examples=150, deadline=None)
@given(table_documents(), st.integers(6, 60), st.integers(0, 30), st.integers(0, 10))
def test_chunks_and_headers_are_the_reference_s(
    commonmark_js: Callable[[str], CommonmarkBlocks], text: str, max_chars: int, overlap: int, minimum: int
) -> None:
    """The chunks (kinds included) of the position-at-a-time reference given commonmark.js's
    headings and literal blocks and cmark-gfm's tables, and each chunk's table_header by the
    descriptor's sentence."""
    found = judged(text)
    size = (max_chars, min(overlap, max_chars - 1), min(minimum, max_chars))
    output = markdown_size_chunk(text, Settings(*size), 6, None)["chunks"]
    assert chunks_of(text, Settings(*size), 6) == expected(commonmark_js, text, size, 6, tables=found)
    lines = reference.commonmark_lines(text)
    for chunk in output:
        header = None
        for first, last in found:
            start, end = reference.table_header(text, (first, last))
            visible_end = lines[first][0] + len(text[lines[first][0] : lines[last][1]].rstrip(" \t\r\n"))
            if end <= chunk["start"] < visible_end:
                header = {"start": start, "end": end, "text": text[start:end]}
        assert chunk.get("table_header") == header


def test_tables_under_many_setext_underlines_are_found_in_linear_time() -> None:
    """Setext headings with ``=`` each holding tables read as one group (cmark-gfm's table goes on
    over the underlines): each table is checked against the group's headings and gap lines by a
    bisection, not against each of them (quadratic before: 256 KiB of them took 6 s). Eight times
    the text costs at most fourteen times the CPU time (eight measured; 25 before, 64 at length)."""
    unit = "a|b\n-|-\n|\nc|d\n-|-\n===\n[x]: /u\n"
    small, large = unit * 500, unit * 4000

    def cpu(text: str) -> float:
        times = []
        for _ in range(3):
            started = time.process_time()
            block_structure(text, tables=True)
            times.append(time.process_time() - started)
        return min(times)

    cpu(small)  # warm
    assert cpu(large) <= 14 * cpu(small)
