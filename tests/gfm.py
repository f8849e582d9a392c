"""The judges of which lines form a table: cmark-gfm (GitHub's parser, through cmarkgfm: the
descriptor's reference) and markdown-it-py with its ``table`` rule, each keeping the tables whose
lines are all lines of paragraphs of the plain CommonMark parse (the descriptor's rule), as
markdown-it-py's plain parse finds them. Test only.

cmark-gfm's HTML gives each body row's line (``data-sourcepos``); its table's own first line is
off by the lines of a paragraph the table interrupts, so a table's lines are read from its rows:
the header two lines above the first body row, or, without body rows, the table's last line and
the one before.
"""

import re
from typing import Any

import cmarkgfm
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt

from texttools import markdown

_PLAIN = MarkdownIt("commonmark")
_WITH_TABLES = MarkdownIt("commonmark").enable("table")
_SOURCEPOS = re.compile(r'<(table|tbody|tr|/table)(?: [^>]*?data-sourcepos="(\d+):\d+-(\d+):\d+")?')

Lines = tuple[int, int]
"""A table's or a paragraph's first and last line, 0-based."""


def plain_paragraphs(text: str) -> list[Lines]:
    """markdown-it-py's paragraphs (those of tight list items too), in order."""
    tokens = _PLAIN.parse(text)
    return sorted((token.map[0], token.map[1] - 1) for token in tokens if token.type == "paragraph_open" and token.map)


def tool_paragraphs(text: str) -> list[Lines]:
    """The paragraphs of the tool's own plain parse (pulldown-cmark's, corrected), in order."""
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    source = markdown.with_spec_whitespace(normal.replace("\0", "\ufffd").encode())
    every_line = [0, *(at + 1 for at in range(len(source)) if source[at] == 10)]
    found: list[markdown.ParagraphRange] = []
    markdown.parsed(source, None, found, every_line)
    return sorted(
        (source.count(b"\n", 0, start), source.count(b"\n", 0, max(start, end - 1)))
        for start, end, _, heading in found
        if not heading
    )


def plain_parsers_agree(text: str) -> bool:
    """Whether cmark-gfm's plain parse (its HTML), markdown-it-py's and the tool's find the same
    paragraphs: where they part, CommonMark's answer is the plain judges' business (commonmark.js,
    tests/integration/test_fuzz.py), and the table judges would judge another document."""
    if cmarkgfm.markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE) != _PLAIN.render(text):
        return False
    return plain_paragraphs(text) == tool_paragraphs(text)


def _in_paragraphs(text: str, tables: list[Lines]) -> list[Lines]:
    lines = {line for first, last in plain_paragraphs(text) for line in range(first, last + 1)}
    return [(first, last) for first, last in tables if all(line in lines for line in range(first, last + 1))]


def cmark_gfm_tables(text: str) -> list[Lines]:
    """cmark-gfm's tables whose lines are all paragraph lines of the plain parse."""
    html = cmarkgfm.markdown_to_html_with_extensions(text, options=Options.CMARK_OPT_SOURCEPOS, extensions=["table"])
    tables: list[Lines] = []
    body: list[int] = []
    end, in_body = 0, False  # raw HTML is left out of the HTML: each tag matched is cmark-gfm's
    for found in _SOURCEPOS.finditer(html):
        if found[1] == "table":
            end, body, in_body = int(found[3]), [], False
        elif found[1] == "tbody":
            in_body = True
        elif found[1] == "tr" and in_body:
            body.append(int(found[2]))
        elif found[1] == "/table":
            tables.append((body[0] - 3, body[-1] - 1) if body else (end - 2, end - 1))
    return _in_paragraphs(text, tables)


def markdown_it_tables(text: str) -> list[Lines]:
    """markdown-it-py's tables whose lines are all paragraph lines of the plain parse."""
    tokens = _WITH_TABLES.parse(text)
    found = [(token.map[0], token.map[1] - 1) for token in tokens if token.type == "table_open" and token.map]
    return _in_paragraphs(text, found)


def pulldown_cmark_tables(text: str) -> list[Lines]:
    """pulldown-cmark's tables (pyromark with ``Options.ENABLE_TABLES``, on the text as it is): the
    parse the tool does not use for tables (docs/markdown.md says where it parts from cmark-gfm)."""
    import pyromark

    source = text.replace("\r\n", "\n").replace("\r", "\n").encode()
    found = []
    events: Any = pyromark.events_with_range(source.decode(), options=pyromark.Options.ENABLE_TABLES)
    for event, where in events:
        if type(event) is dict and type(event.get("Start")) is dict and "Table" in event["Start"]:
            end = max(where["start"], where["end"] - 1)
            found.append((source.count(b"\n", 0, where["start"]), source.count(b"\n", 0, end)))
    return found
