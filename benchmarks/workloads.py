"""The requests ``make bench`` times, made for every registered tool from its input fields (never
from a list of tool names): the largest realistic request, size and chunk-count ladders, and the
pathological inputs a quadratic path would choke on."""

import itertools
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from texttools.registry import tools
from texttools.tool import Tool

WORDS = ["lorem", "ipsum", "dolor", "sit", "amet", "café", "naïve", "über", "señor", "façade", "😀", "🚀", "text",
         "chunk", "line", "exact", "span", "ß", "Ωmega", "東京"]  # fmt: skip
MARKERS = ("[[", "]]")
"""The start and end markers of a tool that takes them, wrapped around a word every few words."""
DELIMITER = "\n\n"


def joined_up_to(limit_bytes: int, blocks: Iterator[str]) -> str:
    """``blocks`` joined by blank lines, as many as fit in ``limit_bytes`` of UTF-8."""
    taken: list[str] = []
    size = 0
    for block in blocks:
        cost = len(block.encode()) + 2
        if size + cost > limit_bytes:
            break
        taken.append(block)
        size += cost
    return "\n\n".join(taken)


def mixed_text(limit_bytes: int, seed: int = 7, markers: tuple[str, str] | None = None) -> str:
    """Paragraphs of ASCII, accented letters and emoji, some with CRLF lines, up to ``limit_bytes``.

    With ``markers``, every few words are wrapped in them (for extract-between).
    """
    rng = random.Random(seed)

    def paragraphs() -> Iterator[str]:
        while True:
            ending = "\r\n" if rng.random() < 0.3 else "\n"
            lines = []
            for _ in range(rng.randint(1, 4)):
                words = [rng.choice(WORDS) for _ in range(rng.randint(4, 12))]
                if markers:
                    k = rng.randrange(len(words))
                    words[k] = f"{markers[0]}{words[k]}{markers[1]}"
                lines.append(" ".join(words))
            yield ending.join(lines)

    return joined_up_to(limit_bytes, paragraphs())


MANUAL = Path(__file__).parent / "data" / "nodejs-fs.md"
"""The bench's real Markdown: Node.js's fs.md (benchmarks/data/SOURCE.md)."""


def manual_document(size_bytes: int) -> bytes:
    """Real Markdown of ``size_bytes`` (at most): the manual repeated, whole copies joined by a blank
    line (its headings, fenced code blocks, lists, tables and HTML comments, again and again)."""
    block = MANUAL.read_bytes().rstrip(b"\n") + b"\n\n"
    return (block * max(1, size_bytes // len(block)))[:size_bytes]


def mixed_document(size_bytes: int, seed: int = 11, markers: tuple[str, str] | None = None) -> bytes:
    """A document of ``size_bytes`` (at most) in UTF-8 with paragraphs of a few KB: the lines of
    ``mixed_text`` (ASCII, accents, emoji, CRLF) in paragraphs of 24 to 96 lines, a 1 MiB block
    repeated, cut at a paragraph's end."""
    rng = random.Random(seed)
    lines = mixed_text(1 << 20, seed, markers).replace("\r\n", "\n").replace("\n\n", "\n").split("\n")
    paragraphs, size, at = [], 0, 0
    while size < 1 << 20:
        count = rng.randint(24, 96)
        ending = "\r\n" if rng.random() < 0.3 else "\n"
        paragraph = ending.join(lines[at : at + count])
        at = (at + count) % max(1, len(lines) - 40)
        paragraphs.append(paragraph)
        size += len(paragraph.encode()) + 2
    block = ("\n\n".join(paragraphs) + "\n\n").encode()
    document = block * (size_bytes // len(block) + 1)
    return document[: document.rfind(b"\n\n", 0, size_bytes)]


def markdown_text(limit_bytes: int, seed: int = 13) -> str:
    """Markdown up to ``limit_bytes``: sections under ATX headings of every level and setext
    headings, with paragraphs, fenced and indented code holding ``#`` lines, block quotes and
    lists, some lines ending in CRLF."""
    rng = random.Random(seed)

    def blocks() -> Iterator[str]:
        while True:
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8)))
            kind = rng.choice(["atx"] * 4 + ["setext"] * 2 + ["paragraph"] * 3 + ["fence", "indented", "quote", "list"])
            block = {
                "atx": "#" * rng.randint(1, 6) + " " + words,
                "setext": words + "\n" + rng.choice("=-") * rng.randint(3, 12),
                "paragraph": words + "\n" + " ".join(rng.choice(WORDS) for _ in range(8)),
                "fence": "```python\n# not a heading\nprint('" + words + "')\n```",
                "indented": "    # code, not a heading\n    " + words,
                "quote": "> # quoted, not a section\n> " + words,
                "list": "- " + words + "\n- # a heading in a list item",
            }[kind]
            yield block.replace("\n", "\r\n") if rng.random() < 0.3 else block

    return joined_up_to(limit_bytes, blocks())


def heading_count_text(headings: int, size: int = 64 * 1024) -> str:
    """About ``size`` bytes of Markdown with exactly ``headings`` ATX headings, evenly spread."""
    body = mixed_text(size - 8 * headings).replace("\n\n", " ").replace("\r", " ").replace("\n", " ")
    width = len(body) // headings
    return "\n\n".join(f"## h{i}\n{body[i * width : (i + 1) * width].strip() or 'x'}" for i in range(headings))


def takes_markers(tool: Tool) -> bool:
    return "start" in tool.byte_limits


def reads_markdown(tool: Tool) -> bool:
    """A tool that cuts at headings (its input has ``max_level``): its texts are Markdown."""
    return "max_level" in tool.descriptor.input_schema["properties"]


SIZES = {"max_chars": 1000, "overlap_chars": 200}
"""A size tool's sizes: what a retrieval pipeline asks first (issue 42's setting)."""


def cuts_to_size(tool: Tool) -> bool:
    return "max_chars" in tool.descriptor.input_schema["properties"]


def parameters(tool: Tool) -> dict[str, Any]:
    """Every input field but ``text``, by name: a blank-line delimiter, the markers, the largest
    match count the schema allows, a size tool's ``SIZES``; fields with defaults keep them."""
    schema = tool.descriptor.input_schema["properties"]
    chosen: dict[str, Any] = {}
    for name in schema:
        if name == "delimiter":
            chosen[name] = DELIMITER
        elif name in ("start", "end"):
            chosen[name] = MARKERS[name == "end"]
        elif name == "max_matches":
            chosen[name] = schema[name]["maximum"]
        elif name in SIZES:
            chosen[name] = SIZES[name]
    return chosen


def request_of(tool: Tool, text: str) -> dict[str, Any]:
    return {"text": text, **parameters(tool)}


def text_for(tool: Tool, limit_bytes: int) -> str:
    if reads_markdown(tool):
        return markdown_text(limit_bytes)
    if cuts_to_size(tool):
        return prose_text(limit_bytes)
    return mixed_text(limit_bytes, markers=MARKERS if takes_markers(tool) else None)


def largest_requests() -> dict[str, dict[str, Any]]:
    """Each tool's request of a text as large as its limit allows."""
    return {tool.id: request_of(tool, text_for(tool, tool.byte_limits["text"])) for tool in tools().values()}


def small_requests() -> dict[str, dict[str, Any]]:
    """Each tool's descriptor's first example: the request a cold start answers."""
    return {tool.id: tool.descriptor.data["examples"][0]["input"] for tool in tools().values()}


def count_ladder_text(tool: Tool, chunks: int) -> str:
    """A text of about 64 KiB that ``tool`` cuts into exactly ``chunks`` chunks."""
    return heading_count_text(chunks) if reads_markdown(tool) else chunk_count_text(chunks)


def chunk_count_text(chunks: int, size: int = 64 * 1024) -> str:
    """About ``size`` bytes split into exactly ``chunks`` paragraphs."""
    body = mixed_text(size - 2 * chunks).replace("\n\n", " ")
    width = len(body) // chunks
    pieces = [
        body[i * width : (i + 1) * width].replace("\n", " ").replace("\r", " ").strip() or "x" for i in range(chunks)
    ]
    return "\n\n".join(pieces)


def greedy_cuts(text: str, max_chars: int) -> int:
    """The least work a size chunker does: the text's lines (one split: a paragraph or line end is
    found nowhere else) and one ``rfind`` of a space per chunk (no kinds, no line numbers, no
    clusters, no objects); how many lines and chunks that makes."""
    count, start, length = len(text.split("\n")), 0, len(text)
    while start < length:
        cut = text.rfind(" ", start + 1, start + max_chars + 1)
        start = (cut if cut > start else start + max_chars) + 1
        count += 1
    return count


def repeated_up_to(limit_bytes: int, piece: str, head: str = "", tail: str = "") -> str:
    """``head``, ``piece`` as many times as fits, then ``tail``, within ``limit_bytes`` of UTF-8."""
    room = limit_bytes - len((head + tail).encode())
    return head + piece * (room // len(piece.encode())) + tail


def hostile_markdown(limit_bytes: int) -> dict[str, str]:
    """Markdown that a parser with a quadratic (or worse) path chokes on, each at the size limit:
    cmark's own pathological tests (test/pathological_tests.py), the inputs that held markdown-it-py
    for seconds (issue 41), and deep nesting, tabs and line endings."""

    def half(piece: str) -> int:
        return (limit_bytes - 1) // 2 // len(piece.encode())

    n = half("*a **a ")
    return {
        "nested strong emphasis": "*a **a " * n + "b" + " a** a*" * n,
        "many emphasis closers": repeated_up_to(limit_bytes, "a**"),
        "many emphasis openers": repeated_up_to(limit_bytes, "**a"),
        "many link closers": repeated_up_to(limit_bytes, "a]"),
        "many link openers": repeated_up_to(limit_bytes, "[a"),
        "mismatched openers and closers": repeated_up_to(limit_bytes, "*a_ "),
        "openers and closers, multiple of 3": repeated_up_to(limit_bytes, "c* ", head="a**b"),
        "link openers and emphasis closers": repeated_up_to(limit_bytes, "[ a_"),
        "pattern [ (](": repeated_up_to(limit_bytes, "[ (]("),
        "nested brackets": "[" * half("[") + "a" + "]" * half("]"),
        "nested block quotes": repeated_up_to(limit_bytes, "> ", tail="a\n# h\n"),
        "deeply nested lists": "".join("  " * i + "* a\n" for i in range(300)),
        "unclosed links A": repeated_up_to(limit_bytes, "[a](<b"),
        "unclosed links B": repeated_up_to(limit_bytes, "[a](b"),
        "many references": joined_up_to(limit_bytes, (f"[{i}]: u\n" for i in range(limit_bytes))),
        "backticks": "".join("e" + "`" * i for i in range(1, 700)),
        "U+0000 and text": repeated_up_to(limit_bytes, "abc\u0000de\u0000"),
        "indented code in block quotes": repeated_up_to(limit_bytes, "    x\n>     y\n"),
        "tab and space soup with headings": repeated_up_to(limit_bytes, " \t \t\n\t # h\t\n  \t> \t- \t x\n"),
        "setext underlines and reference definitions": repeated_up_to(limit_bytes, "[o]:l\n<g>\n=\n"),
        "unclosed HTML blocks of type 1": repeated_up_to(limit_bytes, "<pre\n</style>\n"),
        "CR only": "\r" * limit_bytes,
        "fences that never close": repeated_up_to(limit_bytes, "```\n> ~~~\n"),
        "tables in quotes with lazy lines": repeated_up_to(limit_bytes, "> | a | b |\n> |---|---|\n> | c |\nlazy\n"),
        "tables in list items cut by items": repeated_up_to(
            limit_bytes, "- | a | b |\n  |---|---|\n  | c |\n  2. x | y\n"
        ),
        "one table of one-cell rows": repeated_up_to(limit_bytes, "|a|\n", head="| h |\n|---|\n"),
        "a table of wide rows": repeated_up_to(
            limit_bytes, "|" + "a|" * 500 + "\n", head="|h" * 500 + "|\n" + "|-" * 500 + "|\n"
        ),
        "escaped pipes in a table": repeated_up_to(limit_bytes, "\\|", head="| h | i |\n|---|---|\n| "),
        "delimiter rows that never match": repeated_up_to(limit_bytes, "| a | b |\n|---|\n"),
        "tables in nested quotes": repeated_up_to(limit_bytes, "> ", tail="| a |\n|---|\n| b |\n"),
    }


def pathological() -> dict[str, tuple[str, dict[str, Any]]]:
    """For every tool: a text of CRs only and one blank line of spaces; with a delimiter, a long run
    of CRs split on CRs and a delimiter that nearly matches everywhere; with markers, equal start
    and end markers and a start marker that nearly matches everywhere."""
    cases: dict[str, tuple[str, dict[str, Any]]] = {}
    for tool in tools().values():
        limit = tool.byte_limits["text"]
        base = request_of(tool, "")
        cases[f"{limit} CR, {tool.id}"] = (tool.id, base | {"text": "\r" * limit})
        cases[f"blank line of spaces, {tool.id}"] = (tool.id, base | {"text": " " * (limit - 1) + "x"})
        if "delimiter" in base:
            cases[f"{limit} CR, delimiter of CRs"] = (tool.id, base | {"text": "\r" * limit, "delimiter": "\r" * 27})
            near = "a" * (tool.byte_limits["delimiter"] - 1) + "b"
            cases["near-miss delimiter"] = (tool.id, base | {"text": "a" * limit, "delimiter": near})
        if takes_markers(tool):
            cases["start == end markers"] = (
                tool.id,
                base | {"text": "|" * (limit - 1) + "x", "start": "|", "end": "|"},
            )
            near = "a" * (tool.byte_limits["start"] - 1) + "b"
            cases["near-miss start marker"] = (tool.id, base | {"text": "a" * limit, "start": near, "end": "]"})
    return cases


PROSE_WORDS = ["the", "a", "of", "and", "to", "in", "chunk", "model", "retrieval", "document", "embedding", "exact",
               "offset", "line", "sentence", "paragraph", "café", "naïve", "résumé", "über", "year", "people", "way",
               "day", "system", "between", "because", "without", "through", "information", "😀", "🚀"]  # fmt: skip


def prose_text(limit_bytes: int, seed: int = 17) -> str:
    """English-like prose up to ``limit_bytes``: paragraphs of two to six sentences of four to
    twenty words (capitalised, ending in a stop, some with a comma or a quotation), some accents
    and emoji: the text a size-bounded chunker is asked to cut."""
    rng = random.Random(seed)

    def sentence() -> str:
        words = [rng.choice(PROSE_WORDS) for _ in range(rng.randint(4, 20))]
        if len(words) > 8 and rng.random() < 0.4:
            words[rng.randrange(2, len(words) - 2)] += ","
        text = " ".join(words)
        text = text[0].upper() + text[1:] + rng.choice(".....?!")
        return f'"{text}"' if rng.random() < 0.05 else text

    def paragraphs() -> Iterator[str]:
        while True:
            yield " ".join(sentence() for _ in range(rng.randint(2, 6)))

    return joined_up_to(limit_bytes, paragraphs())


def setext_part(heading_bytes: int = 250_000, body_bytes: int = 50_000) -> bytes:
    """A section of converted text whose heading is a whole paragraph (issue 60): ``heading_bytes``
    of prose lines with ``---`` right under them (no blank line: a setext heading of level 2 that
    every chunk of its section carries in ``headings``), then ``body_bytes`` of paragraphs."""
    heading = prose_text(heading_bytes, seed=23).replace("\n\n", "\n")
    return (heading + "\n---\n\n" + prose_text(body_bytes, seed=29) + "\n\n").encode()


SEGMENTS = ["Europe", "North America", "Asia-Pacific", "Latin America", "Retail", "Wholesale", "Services",
            "Österreich GmbH", "東京支店", "Corporate \\| other", "`net|gross`", ""]  # fmt: skip
MEASURES = ["Revenue", "Operating profit", "Margin (%)", "Headcount", "Capex", "Change", "Budget", "Q4"]


def report_table(rng: random.Random) -> str:
    """A pipe table of a converted annual report: 25 to 45 body rows of 4 to 7 columns (a segment,
    then figures), alignments on the delimiter row, some empty cells, escaped pipes and pipes in
    code spans, accents and CJK, and now and then a row with a cell more or less than the header."""
    columns = rng.randint(3, 6)
    header = "| Segment | " + " | ".join(rng.sample(MEASURES, columns)) + " |"
    delimiter = "|:--|" + "".join(rng.choice(["--:|", ":-:|", "---|"]) for _ in range(columns))
    rows = []
    for _ in range(rng.randint(25, 45)):
        figures = [f"{rng.uniform(-500, 25_000):,.1f}" if rng.random() > 0.05 else "" for _ in range(columns)]
        extra = rng.choice([0] * 18 + [-1, 1])
        figures = figures[:extra] if extra < 0 else figures + ["n/a"] * extra
        rows.append(f"| {rng.choice(SEGMENTS)} | " + " | ".join(figures) + " |")
    return "\n".join([header, delimiter, *rows])


def table_report(limit_bytes: int, seed: int = 37) -> str:
    """A converted annual report up to ``limit_bytes``: sections under ATX headings, each with
    prose and, most of them, a pipe table of 25 to 45 rows and a note under it (issue 60's
    table-heavy workload: a 26 KB report of this kind has six tables)."""
    rng = random.Random(seed)

    def blocks() -> Iterator[str]:
        for number in itertools.count(1):
            yield f"{'#' * rng.randint(1, 3)} {number}. {rng.choice(MEASURES)} by segment"
            yield prose_text(rng.randint(200, 1200), seed=rng.randrange(1 << 30))
            if rng.random() < 0.8:
                yield report_table(rng)
                yield f"Figures in millions of euros; {rng.choice(PROSE_WORDS)} restated."

    return joined_up_to(limit_bytes, blocks())


def hostile_tokens(limit_bytes: int, seed: int = 19) -> dict[str, str]:
    """Texts in which an encoding's pre-tokenizer finds nowhere to end a piece for long stretches,
    each at most ``limit_bytes`` of UTF-8: the inputs that held a token budget for its whole timeout
    (issue 53: each candidate end was encoded alone from the top of the reach), and one long run in
    prose."""
    rng = random.Random(seed)

    def drawn(alphabet: str, piece_bytes: int = 1) -> str:
        return "".join(rng.choice(alphabet) for _ in range(limit_bytes // piece_bytes))

    han = "".join(chr(code) for code in range(0x4E00, 0x9FA6))
    thai = "".join(chr(code) for code in range(0x0E01, 0x0E2F)) + "\u0e31\u0e34\u0e35\u0e48\u0e49"
    camel = ["get", "Value", "For", "HTTP", "Request", "Id", "X", "url", "Parser"]
    return {
        "random lowercase letters": drawn("abcdefghijklmnopqrstuvwxyz"),
        "DNA (ACGT)": drawn("ACGT"),
        "one letter repeated": "a" * limit_bytes,
        "Han without punctuation": drawn(han, 3),
        "Thai without spaces": drawn(thai, 3),
        "one letter and combining marks": "a" + "\u0301" * ((limit_bytes - 1) // 2),
        "'!' repeated": "!" * limit_bytes,
        "punctuation runs": drawn("!?.,;:-=*/#"),
        "emoji ZWJ sequences": repeated_up_to(limit_bytes, "\U0001f468\u200d\U0001f469\u200d\U0001f467"),
        "camel-case identifiers": "".join(rng.choice(camel) for _ in range(limit_bytes // 3))[:limit_bytes],
        "prose with a 100 KiB run": prose_text(limit_bytes // 3) + " " + drawn("abcdefghijklmnopqrstuvwxyz", 3)[
            : 100 * 1024] + " " + prose_text(limit_bytes // 4),
    }  # fmt: skip


HOSTILE_TOKEN_BUDGETS = (4, 32, 512, 8191)
"""The ``max_tokens`` each hostile text is asked with (the least, common, model-sized, the largest
of OpenAI's embedding models)."""
