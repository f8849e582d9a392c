"""markdown-sections-chunk against the CommonMark 0.31.2 specification's own examples of block
structure (tests/data/commonmark-0.31.2/: tabs, headings, code blocks, HTML blocks, link
reference definitions, block quotes, lists, ...): the sections' levels and headings must be the
top-level headings of each example's expected HTML.

A heading's content is compared after inline rendering (markdown-it-py's, the CommonMark preset,
with the example's link reference definitions): the tool gives the raw content, the spec the
rendered one. All 296 examples agree (docs/markdown.md).
"""

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from texttools.registry import tool

DATA = Path(__file__).parent.parent / "data" / "commonmark-0.31.2"
EXAMPLES: list[dict[str, Any]] = json.loads((DATA / "block-examples.json").read_text(encoding="utf-8"))
TOOL = tool("markdown-sections-chunk")
INLINE = MarkdownIt("commonmark")
CONTAINERS = {"blockquote", "li"}


class TopLevelHeadings(HTMLParser):
    """The ``<hN>`` elements of an HTML fragment that are in no block quote or list item, with
    their inner HTML."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=False)
        self.source_lines = source.splitlines(keepends=True)
        self.depth = 0
        self.open: tuple[int, int] | None = None  # (level, where its content starts)
        self.found: list[tuple[int, str]] = []
        self.feed(source)
        self.close()

    def _offset(self) -> int:
        line, column = self.getpos()
        return sum(map(len, self.source_lines[: line - 1])) + column

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in CONTAINERS:
            self.depth += 1
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456" and self.depth == 0:
            self.open = (int(tag[1]), self._offset() + len(self.get_starttag_text() or ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in CONTAINERS:
            self.depth -= 1
        elif self.open is not None and tag == f"h{self.open[0]}":
            source = "".join(self.source_lines)
            self.found.append((self.open[0], source[self.open[1] : self._offset()]))
            self.open = None


def expected_headings(example: dict[str, Any]) -> list[tuple[int, str]]:
    return TopLevelHeadings(example["html"]).found


def actual_headings(example: dict[str, Any]) -> list[tuple[int, str]]:
    output = TOOL.run(TOOL.parse({"text": example["markdown"]}))
    references: dict[str, Any] = {}
    INLINE.parse(example["markdown"], references)  # the example's link reference definitions
    return [(s["level"], INLINE.renderInline(s["heading"], references)) for s in output["sections"] if s["level"]]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e['example']}-{e['section']}")
def test_the_sections_are_the_top_level_headings_of_the_spec_s_html(example: dict[str, Any]) -> None:
    assert actual_headings(example) == expected_headings(example)


def test_the_vendored_examples_are_the_spec_s_block_sections() -> None:
    assert len(EXAMPLES) == 296
    assert sum(1 for e in EXAMPLES if expected_headings(e)) == 33  # examples with top-level headings
    assert {e["section"] for e in EXAMPLES} >= {"ATX headings", "Setext headings", "Fenced code blocks",
                                               "Indented code blocks", "HTML blocks", "Block quotes",
                                               "List items", "Lists"}  # fmt: skip
