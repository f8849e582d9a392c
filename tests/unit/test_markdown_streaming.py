"""Both Markdown tools read in windows (issue 54) give exactly their output on the whole text with
the limits lifted: on generated Markdown dense in what crosses a window's edge (fences holding
headings and blank lines, unclosed fences, HTML blocks of every type, setext headings over long
paragraphs, lists and quotes holding fences, indented code, link reference definitions with their
titles on the next line, CR, LF and CRLF, a BOM), cut at generated places and read in windows of a
few characters, so that every construct crosses an edge; judged by commonmark.js's block structure
(the reference of tests/unit/test_markdown_size_properties.py), and on a real manual."""

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.conftest import CommonmarkBlocks
from tests.table_documents import table_document
from tests.unit.test_markdown_size_properties import LINES, expected, joined
from tests.unit.test_markdown_tables import table_blocks
from tests.unit.test_size_chunk_properties import sizes
from tests.unit.test_streaming import cut_text, drained, windows_of
from texttools.errors import InputTooLarge
from texttools.markdown import MAX_HELD_CHARS, TABLE_HELD_CHARS, block_structure
from texttools.size_chunks import TOKENS_ONLY_MAX_CHARS, Settings
from texttools.tokens import encoding
from texttools.tools import markdown_size_chunk as markdown_size_chunk_module
from texttools.tools.markdown_sections_chunk import markdown_sections_chunk, stream_markdown_sections
from texttools.tools.markdown_size_chunk import markdown_size_chunk, stream_markdown_size_chunk

ROOT = Path(__file__).resolve().parents[2]
MANUAL = (ROOT / "benchmarks" / "data" / "nodejs-fs.md").read_text(encoding="utf-8")
EDGE_LINES = [
    *LINES, "```", "# not a heading", "", "~~~~", "<pre>", "</pre>", "<script>", "</script>", "<!--", "-->",
    "<?x", "?>", "<!DOCTYPE html>", "<![CDATA[", "]]>", "<div>", "<custom-el>", "- ```", "  code in item", "  ```",
    "> ```", "> # quoted", "1. ~~~", '"title"', "[ref]: /url", "[ref2]:", "  /url2 'title'", "===", "---",
    "    indented", "\t# tab", "\ufeff# bom", "Para line", "- item", "  - nested", "* * *",
]  # fmt: skip
documents = st.tuples(
    st.lists(st.sampled_from(EDGE_LINES), max_size=40),
    st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=40, max_size=40),
)
PROPERTY = settings(max_examples=max(150, int(os.environ.get("TEXT_TOOLS_FUZZ_EXAMPLES", "0")) // 4), deadline=None)


def sections_in_windows(pieces: list[str], max_level: int) -> tuple[list[Any], dict[str, Any] | None]:
    return drained(stream_markdown_sections(pieces, max_level))


def whole_sections(text: str, max_level: int) -> tuple[list[Any], dict[str, Any]]:
    output = markdown_sections_chunk(text, max_level, None)
    return output["sections"], {
        "section_count": output["section_count"],
        "line_count_total": output["line_count_total"],
    }


@PROPERTY
@given(documents, st.integers(1, 6), st.integers(1, 24), st.data())
@example((["```", "# not a heading", "", "x", "```", "# H"], ["\n"] * 40), 6, 1, None)
@example((["Setext", "words", "===", "", "<pre>", "", "</pre>", "## B"], ["\r\n"] * 40), 6, 2, None)
@example((["[ref]: /url", '"title"', "===", "# A"], ["\r"] * 40), 6, 3, None)
def test_markdown_sections_in_windows_equal_the_whole_text(
    commonmark_js: Callable[[str], CommonmarkBlocks],
    document: tuple[list[str], list[str]],
    max_level: int,
    window: int,
    data: st.DataObject | None,
) -> None:
    text = joined(*document)
    pieces = data.draw(cut_text(text)) if data else list(text)
    with windows_of(window):
        streamed = sections_in_windows(pieces, max_level)
    assert streamed == whole_sections(text, max_level)
    judged = commonmark_js(text).headings  # the whole text's headings are commonmark.js's
    assert [(h.level, h.line + h.lines) for h in block_structure(text).headings] == judged


@PROPERTY
@given(documents, sizes(30), st.integers(1, 6), st.integers(1, 24), st.data())
@example((["- ```", "  # in item", "", "  ```", "# A", "text"], ["\n"] * 40), (8, 2, 0), 6, 1, None)
def test_markdown_size_chunks_in_windows_match_the_reference(
    commonmark_js: Callable[[str], CommonmarkBlocks],
    document: tuple[list[str], list[str]],
    size: tuple[int, int, int],
    max_level: int,
    window: int,
    data: st.DataObject | None,
) -> None:
    text = joined(*document)
    pieces = data.draw(cut_text(text)) if data else list(text)
    with windows_of(window):
        chunks, summary = drained(stream_markdown_size_chunk(pieces, Settings(*size), max_level))
    assert [(c["start"], c["end"], c["cut"], c.get("tokens"), c["headings"]) for c in chunks] == expected(
        commonmark_js, text, size, max_level
    )
    assert chunks == markdown_size_chunk(text, Settings(*size), max_level, None)["chunks"]
    assert summary == {"chunk_count": len(chunks)}


@settings(max_examples=60, deadline=None)
@given(documents, st.integers(4, 40), st.integers(1, 24), st.data())
def test_markdown_size_chunks_by_tokens_alone_in_windows_equal_the_whole_text(
    document: tuple[list[str], list[str]], max_tokens: int, window: int, data: st.DataObject
) -> None:
    text = joined(*document)
    sized = Settings(TOKENS_ONLY_MAX_CHARS, 0, 0, max_tokens, encoding("cl100k_base"))
    with windows_of(window):
        chunks, _ = drained(stream_markdown_size_chunk(data.draw(cut_text(text)), sized, 6))
    assert chunks == markdown_size_chunk(text, sized, 6, None)["chunks"]


def long_constructs() -> dict[str, str]:
    """Each construct longer than many windows: what no window may cut blindly."""
    return {
        "a fence holding headings and blank lines": "# A\n\n```\n"
        + "# not a heading\n\nx\n" * 300
        + "```\n\n## B\ntext\n",
        "a fence that never closes": "# A\n\n~~~\n" + "# no\n\n" * 400,
        "an HTML block of type 1 with blank lines": "<pre>\n" + "# no\n\n" * 300 + "</pre>\n# A\n",
        "an HTML block of type 2 (comment)": "<!--\n" + "# no\n\n" * 300 + "-->\n# A\n",
        "an HTML block of type 6 (ends at a blank line)": "<div>\n" + "# no\n" * 300 + "\n# A\n",
        "a setext heading over a long paragraph": "# A\n\n" + "words here\n" * 600 + "===\n\nafter\n",
        "a list whose items hold fences": "".join(f"- item {i}\n\n  ```\n  # no\n\n  ```\n\n" for i in range(120))
        + "# A\n",
        "a block quote holding a fence": "> ```\n" + "> # no\n>\n" * 200 + "> ```\n\n# A\n",
        "indented code with blank lines": "# A\n\n" + "    # code\n\n" * 300 + "# B\n",
        "reference definitions before an underline": "[a]: /u\n'title'\n===\n\n" * 100 + "# A\n",
        "CRLF and CR": ("# A\r\n\r\ntext\r\n```\r\n# no\r\n```\r" + "para\rline\r\r") * 60,
        "a BOM": "\ufeff# A\n\ntext\n" + "\ufeff# not first\n" * 50,
    }


@pytest.mark.parametrize("window", [1, 5, 64])
@pytest.mark.parametrize("case", sorted(long_constructs()))
def test_long_constructs_across_many_windows_equal_the_whole_text(case: str, window: int) -> None:
    text = long_constructs()[case]
    pieces = [text[at : at + 37] for at in range(0, len(text), 37)]
    with windows_of(window):
        assert sections_in_windows(pieces, 6) == whole_sections(text, 6)
        for sized in (Settings(120, 30), Settings(2000, 0, 500)):
            chunks, _ = drained(stream_markdown_size_chunk(pieces, sized, 6))
            assert chunks == markdown_size_chunk(text, sized, 6, None)["chunks"]


@pytest.mark.parametrize("window", [7, 1000, 1 << 18])
def test_a_real_manual_in_windows_equals_the_whole_text(window: int) -> None:
    pieces = [MANUAL[at : at + 4099] for at in range(0, len(MANUAL), 4099)]
    with windows_of(window):
        assert sections_in_windows(pieces, 6) == whole_sections(MANUAL, 6)
        for sized in (Settings(1000, 200), Settings(300, 0, 100)):
            chunks, _ = drained(stream_markdown_size_chunk(pieces, sized, 3))
            assert chunks == markdown_size_chunk(MANUAL, sized, 3, None)["chunks"]


@pytest.mark.parametrize("tool", ["sections", "size"])
def test_a_block_no_parse_may_start_inside_is_held_up_to_a_bound_then_refused(tool: str) -> None:
    """A fence that never closes holds the rest of the document in one block: beyond
    ``MAX_HELD_CHARS`` it is ``input_too_large`` naming its first line and the bound."""
    text = "# A\n\ntext\n\n```\n" + "x\n" * (MAX_HELD_CHARS // 2 + 10)
    pieces = [text[at : at + 1 << 20] for at in range(0, len(text), 1 << 20)]
    stream = (
        stream_markdown_sections(pieces, 6)
        if tool == "sections"
        else stream_markdown_size_chunk(pieces, Settings(100), 6)
    )
    with pytest.raises(InputTooLarge) as refused:
        drained(stream)
    assert refused.value.message == (
        f"The block starting on line 5 is longer than {MAX_HELD_CHARS} characters, the most a Markdown tool holds at "
        "once in the document flows."
    )


# --- tables: a window may start between two rows, carrying the table's header and delimiter rows --


@contextmanager
def tables_held(chars: int) -> Iterator[None]:
    """Tables held whole up to ``chars`` code points (instead of 64 Ki), so that small windows start
    between the rows of small tables."""
    namespace = vars(markdown_size_chunk_module)
    saved = namespace["TABLE_HELD_CHARS"]
    namespace["TABLE_HELD_CHARS"] = chars
    try:
        yield
    finally:
        namespace["TABLE_HELD_CHARS"] = saved


PROSE_LINES = ["", "", "# Results", "## Q1", "Some words here. More words.", "    code", "```", "> quote", "- item"]


@PROPERTY
@given(
    st.lists(st.one_of(table_blocks(), st.lists(st.sampled_from(PROSE_LINES), max_size=3)), max_size=6),
    st.sampled_from(["\n", "\r\n", "\r"]),
    sizes(40),
    st.integers(1, 24),
    st.integers(0, 40),
    st.data(),
)
@example(
    [["| a | b |", "|---|---|", "| one | two |", "| three | four |", "| five | six |"]], "\n", (12, 0, 0), 1, 0, None
)
@example([["> a|b", "> -|-", "lazy", "2. x", "c|d", "-|-", "| r1 |", "| r2 |"]], "\n", (6, 0, 0), 5, 0, None)
@example([["> a|b", "> -|-", "lazy", "2. x", "3. y", "c|d", "-|-", "|r|"]], "\n", (6, 0, 0), 1, 0, None)
def test_tables_in_windows_equal_the_whole_text(
    blocks: list[list[str]], ending: str, size: tuple[int, int, int], window: int, held: int, data: st.DataObject | None
) -> None:
    """Windows of 1 to 24 characters, tables held from 0 to 40 characters: every table crosses
    window edges between and inside its rows, and each chunk (its table_header too) is the whole
    text's; the tables themselves are cmark-gfm's (tests/unit/test_markdown_tables.py). No window
    starts where cmark-gfm's paragraph goes on past a table's lazy line (the examples)."""
    text = ending.join(line for block in blocks for line in block)
    pieces = data.draw(cut_text(text)) if data else list(text)
    with windows_of(window), tables_held(held):
        try:
            chunks, summary = drained(stream_markdown_size_chunk(pieces, Settings(*size), 6))
        except InputTooLarge:  # a setext underline under a table longer than it held: refused
            assert any(heading.setext for heading in block_structure(text).headings)
            return
    assert chunks == markdown_size_chunk(text, Settings(*size), 6, None)["chunks"]
    assert summary == {"chunk_count": len(chunks)}


generated_tables = st.randoms(use_true_random=False).map(table_document)


@PROPERTY
@given(generated_tables, sizes(40), st.integers(1, 24), st.integers(0, 40), st.data())
@example("para line\n| a | b |\n -- |-:\n| c | d |\n=", (1, 0, 0), 19, 0, None)
@example("| a | b |\n:-| - \n| c | d |\n   -", (1, 0, 0), 7, 0, None)
@example("a|\n:-|\n</a>\n# h\n| b | c |\n-:| - ", (1, 0, 0), 1, 0, None)
@example(
    "ara line\n| a |\n| - |\n===\npara line\n| a |\n| - |\n| a |\n> para line\n> | a |\n> | - |", (1, 0, 0), 5, 0, None
)
@example("> | a |\n> | - |\npara line\n| a |\n| - |\n| a |\n| a |\ntext\n---", (1, 0, 0), 7, 0, None)
@example("x\u00a0y\n| - \nb]:\n/u\n`x|y`\n||\n||\v\n- x", (1, 0, 0), 5, 0, None)
@example("- a\n  ***\n[b]:\n/u\n<span>\n- x\n<span>", (1, 0, 0), 1, 0, None)
@example(
    "ara line\n b | b |\n|:---:|:-|\nc \\| d\n| c \\| d|   |\n| |\u200b|\u200b |\n| e \\\\| f|a|\tt\t |\n===",
    (1, 0, 0),
    5,
    0,
    None,
)
def test_generated_table_documents_in_windows_equal_the_whole_text(
    text: str, size: tuple[int, int, int], window: int, held: int, data: st.DataObject | None
) -> None:
    """The table documents judged by cmark-gfm in tests/integration/test_fuzz.py (tables in block
    quotes and list items, lazy lines, setext underlines, HTML blocks and link reference
    definitions after rows), cut at generated places and read in windows of 1 to 24 characters,
    tables held from 0 to 40 characters: each chunk is the whole text's. Refused only where a
    setext underline comes under a table whose rows a window had chunked or started between (the
    examples, in order: under a table chunked up to a row, with or without a paragraph before it).
    No window starts in the HTML block that a row's next line opens (where the plain parse has a
    heading, then a table), nor in the paragraph after a table's ``===`` row (cmark-gfm's table
    goes on there); a table in lazy lines of a quote's paragraph is the quote's for a window; an
    underline on a window's last line (``-``, then ``- x``) opens no heading there, nor lets go of
    a table chunked up to a row (``===``, whole in the next window); and no window
    starts after link reference definitions that a list's range holds (``<span>`` continues them).
    """
    pieces = data.draw(cut_text(text)) if data else list(text)
    with windows_of(window), tables_held(held):
        try:
            chunks, summary = drained(stream_markdown_size_chunk(pieces, Settings(*size), 6))
        except InputTooLarge:
            assert any(heading.setext for heading in block_structure(text).headings)
            return
    assert chunks == markdown_size_chunk(text, Settings(*size), 6, None)["chunks"]
    assert summary == {"chunk_count": len(chunks)}


def long_table(rows: int) -> str:
    return (
        "# Report\n\nIntro.\n| Region | Q1 | Q2 |\n|:--|--:|--:|\n"
        + "".join(f"| Region {row} \\| west | {row * 7} | {row * 11} |\n" for row in range(rows))
        + "\nAfter the table.\n"
    )


@pytest.mark.parametrize("window", [1, 7, 64, 1 << 18])
def test_a_table_longer_than_many_windows_equals_the_whole_text(window: int) -> None:
    text = long_table(3000)
    pieces = [text[at : at + 37] for at in range(0, len(text), 37)]
    for held in (50, TABLE_HELD_CHARS):
        with windows_of(window), tables_held(held):
            chunks, _ = drained(stream_markdown_size_chunk(pieces, Settings(200, 40), 6))
        whole = markdown_size_chunk(text, Settings(200, 40), 6, None)["chunks"]
        assert chunks == whole
        assert sum("table_header" in chunk for chunk in chunks) == len(chunks) - 2


def test_a_table_is_never_held_whole_beyond_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table longer than the most a Markdown tool holds (here made 20 000 code points, and tables
    held up to 5 000 instead of 64 Ki, in the same proportion as 8 Mi and 64 Ki) streams: no table
    is input_too_large for its length."""
    monkeypatch.setattr(markdown_size_chunk_module, "MAX_HELD_CHARS", 20_000)
    monkeypatch.setattr(markdown_size_chunk_module, "TABLE_HELD_CHARS", 5_000)
    text = long_table(3000)
    pieces = [text[at : at + 4096] for at in range(0, len(text), 4096)]
    with windows_of(1000):
        chunks, _ = drained(stream_markdown_size_chunk(pieces, Settings(500), 6))
    assert chunks == markdown_size_chunk(text, Settings(500), 6, None)["chunks"]


def test_a_setext_underline_under_a_table_it_cut_is_refused() -> None:
    """The only retroactive change to a table: an underline under its rows makes them a setext
    heading's content. Under a table longer than TABLE_HELD_CHARS (here 2 000) whose rows a window
    started between, that is refused (naming the table's first line); under a shorter one, the
    answer is the whole text's."""
    text = long_table(3000).replace("\nAfter the table.", "===\nAfter the table.")
    pieces = [text[at : at + 4096] for at in range(0, len(text), 4096)]
    with windows_of(1000), tables_held(2000), pytest.raises(InputTooLarge) as refused:
        drained(stream_markdown_size_chunk(pieces, Settings(500), 6))
    assert refused.value.message.startswith("The setext heading starting on line 4 holds a table longer than")
    short = long_table(20).replace("\nAfter the table.", "===\nAfter the table.")
    with windows_of(7):
        chunks, _ = drained(stream_markdown_size_chunk(list(short), Settings(50), 6))
    assert chunks == markdown_size_chunk(short, Settings(50), 6, None)["chunks"]
