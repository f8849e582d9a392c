"""markdown-size-chunk against the position-at-a-time reference (tests/reference.py), with the block
structure judged by commonmark.js (the CommonMark reference implementation in JavaScript: its
top-level headings must be the core's, and its code and HTML blocks are the reference's literal
blocks) and grapheme clusters from pyuegc, on generated Markdown dense in headings (ATX, setext,
skipped levels, empty, indented, deeper than ``max_level``), fences holding blank lines, indented
code, HTML blocks of every type, lists and quotes holding fences, prose with sentences, and every
line ending."""

import json
from collections.abc import Callable

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from scripts.template import ROOT
from tests import gfm, reference
from tests.conftest import CommonmarkBlocks
from tests.unit.test_size_chunk_properties import PROPERTY, TokenCounter, boundaries, sizes
from texttools.markdown import block_structure
from texttools.size_chunks import Settings
from texttools.tokens import encoding
from texttools.tools.markdown_size_chunk import markdown_size_chunk

LINES = [
    "", "", " ", "\t", "One two. Three four", "word", "a b c", "Tail text.", "\u00e9 \U0001f600!", "x",
    "# A", "## B b", "### C #", "#### D", "###### F", "####### seven", "  # indented", "#", "# ", "=", "===",
    "---", "- - -", "```", "```sh", "~~~", "````", "    code x", "\tcode y", "> quote", "> ```", "> # q", ">",
    "- item", "- ```", "  ```", "  in item", "1. x", "<div>", "</div>", "<!-- c", "-->", "<pre>", "</pre>",
    "<?p", "?>", "<!X", "<![CDATA[", "]]>", "<g>", "[ref]: /url", "Setext", "\\# escaped",
]  # fmt: skip
documents = st.tuples(
    st.lists(st.sampled_from(LINES), max_size=18),
    st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=18, max_size=18),
)
TOKEN_LINES = [
    *LINES, "x\u3000  ", "# T\u3000", "\u00a0 a", "\U0001f468\u200d\U0001f469\u3000  ", "\u200b\ufeffz",
    "\x01\x02 \x1f", "\u3001\u300c\u4e00\u3002", "a\u2003 \u205f b", "\x7f\u1680\u202f", "    \u3000code",
    "internationalization",
]  # fmt: skip
"""With Unicode whitespace, controls, zero-width characters and emoji where a token count taken in
pieces can part from the encoding's (not VT, FF, U+2028 or U+2029, which are the Markdown
judge's own business: tests/integration/test_fuzz.py)."""
token_documents = st.tuples(
    st.lists(st.sampled_from(TOKEN_LINES), max_size=18),
    st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=18, max_size=18),
)


def joined(lines: list[str], endings: list[str]) -> str:
    """The lines with their endings; a CR, an empty line, then an LF would be one CRLF (fewer lines
    than generated), so such a CR becomes an LF."""
    for number in range(1, len(lines)):
        if endings[number - 1] == "\r" and not lines[number] and endings[number] != "\r":
            endings[number - 1] = "\n"
    return "".join(line + ending for line, ending in zip(lines, endings, strict=False))


def chunks_of(text: str, sizes: Settings, max_level: int) -> list[tuple[int, int, str, int | None, list[str]]]:
    output = markdown_size_chunk(text, sizes, max_level, None)
    assert output["chunk_count"] == len(output["chunks"])
    for index, chunk in enumerate(output["chunks"]):
        assert chunk["index"] == index
        assert chunk["text"] == text[chunk["start"] : chunk["end"]]
        assert chunk["start_line"] == reference.line(text, chunk["start"])
        assert chunk["end_line"] == reference.line(text, chunk["end"] - 1)
    return [(c["start"], c["end"], c["cut"], c.get("tokens"), c["headings"]) for c in output["chunks"]]


def expected(
    commonmark_js: Callable[[str], CommonmarkBlocks],
    text: str,
    size: tuple[int, int, int],
    max_level: int,
    max_tokens: int | None = None,
    tokenizer: str = "cl100k_base",
    tables: list[tuple[int, int]] | None = None,
) -> list[tuple[int, int, str, int | None, list[str]]]:
    """The reference's chunks, with commonmark.js's block structure (its headings checked against
    the core's parse first: the setext headings' first lines, which commonmark.js puts on link
    reference definitions before them, come from the core, as in markdown-sections-chunk's fuzz)
    and cmark-gfm's tables (``tables``, else judged here: tests/gfm.py)."""
    judged = commonmark_js(text)
    ours = block_structure(text).headings
    assert [(heading.level, heading.line + heading.lines) for heading in ours] == judged.headings
    headings = [(heading.line, heading.lines, heading.level, heading.setext) for heading in ours]
    last_line = len(reference.commonmark_lines(text)) - 1  # commonmark.js may count a line after the last ending
    literals = [(first - 1, min(last - 1, last_line)) for first, last in judged.literals]
    count = TokenCounter(tokenizer) if max_tokens is not None else None
    return reference.markdown_size_chunk(
        text, boundaries(text), headings, literals, *size, max_level=max_level, max_tokens=max_tokens, count=count,
        tables=gfm.cmark_gfm_tables(text) if tables is None else tables,
    )  # fmt: skip


@PROPERTY
@given(documents, sizes(30), st.integers(1, 6))
@example((["# A", "", "```", "x", "", "y", "```", "Setext", "---", "z"], ["\n"] * 18), (9, 0, 0), 6)
@example((["a b", "# A", "c d. e f", "## B", "g"], ["\r\n"] * 18), (6, 3, 0), 6)
@example((["> ```", "> a b", "", "- ```", "  c d", "  ```"], ["\r"] * 18), (4, 0, 2), 6)
def test_markdown_size_chunk_matches_reference(
    commonmark_js: Callable[[str], CommonmarkBlocks],
    document: tuple[list[str], list[str]],
    size: tuple[int, int, int],
    max_level: int,
) -> None:
    text = joined(*document)
    assert chunks_of(text, Settings(*size), max_level) == expected(commonmark_js, text, size, max_level)


@PROPERTY
@given(
    token_documents, sizes(40), st.integers(1, 6), st.integers(4, 12), st.sampled_from(["cl100k_base", "o200k_base"])
)
def test_markdown_size_chunk_with_tokens_matches_reference(
    commonmark_js: Callable[[str], CommonmarkBlocks],
    document: tuple[list[str], list[str]],
    size: tuple[int, int, int],
    max_level: int,
    max_tokens: int,
    tokenizer: str,
) -> None:
    text = joined(*document)
    sizes = Settings(*size, max_tokens, encoding(tokenizer))
    wanted = expected(commonmark_js, text, size, max_level, max_tokens, tokenizer)
    assert chunks_of(text, sizes, max_level) == wanted


# --- real Markdown: the CommonMark specification's block examples, and a reference manual ---------

SPEC_EXAMPLES = json.loads((ROOT / "tests" / "data" / "commonmark-0.31.2" / "block-examples.json").read_text("utf-8"))
MANUAL = (ROOT / "benchmarks" / "data" / "nodejs-fs.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("size", [(8, 0, 0), (25, 6, 0), (60, 0, 20)])
def test_the_spec_s_block_examples_match_the_reference(
    commonmark_js: Callable[[str], CommonmarkBlocks], size: tuple[int, int, int]
) -> None:
    """All 296 examples of the CommonMark 0.31.2 spec's block sections: every construct, tabs,
    lazy lines, HTML blocks of each type, link reference definitions before setext headings."""
    for spec_example in SPEC_EXAMPLES:
        text = spec_example["markdown"]
        assert chunks_of(text, Settings(*size), 6) == expected(commonmark_js, text, size, 6), spec_example["example"]


@pytest.mark.parametrize("window", range(6))
def test_pieces_of_a_reference_manual_match_the_reference(
    commonmark_js: Callable[[str], CommonmarkBlocks], window: int
) -> None:
    """Node.js's fs.md (benchmarks/data), in pieces of 120 lines: its headings, fenced code, lists
    and HTML comments at sizes where every kind of cut happens."""
    lines = MANUAL.splitlines(keepends=True)
    text = "".join(lines[window * 1300 : window * 1300 + 120])
    for size in [(120, 0, 0), (400, 80, 0), (1000, 200, 300)]:
        assert chunks_of(text, Settings(*size), 6) == expected(commonmark_js, text, size, 6), size
