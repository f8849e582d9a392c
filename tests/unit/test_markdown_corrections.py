"""The two tables of docs/markdown.md, re-run: where the layer corrects pulldown-cmark (each
example's blocks through the tool, through pulldown-cmark without the corrections, and through
commonmark.js), and where the fuzz tests' judge, commonmark.js, parts from the spec's text (the
tool, commonmark.js on the text and on its spec-faithful copy, and markdown-it-py).

After a pyromark upgrade, a failure of ``test_pulldown_cmark_alone_still_parts_from_the_spec``
names a correction that the new version may no longer need.
"""

import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from markdown_it import MarkdownIt

from scripts.template import ROOT
from tests import gfm, reference
from tests.conftest import CommonmarkBlocks, spec_faithful
from texttools import markdown
from texttools.markdown import Blocks, block_structure

DOCS = (ROOT / "docs" / "markdown.md").read_text(encoding="utf-8")
CORRECTIONS_HEADER = "| where | the spec's rule (CommonMark 0.31.2) | example |"
JUDGE_HEADER = "| commonmark.js reads | example |"
TABLES_HEADER = "| where | GFM 0.29's rule (section 4.10) | example |"
_ITEM = re.compile(r"(h([1-6])|literal) (\d+)(?:\u2013(\d+))?")
"""``h2 1``, ``literal 1\u20133``: a heading's level, or a literal block, and its lines (an en dash)."""

Described = tuple[list[tuple[int, int, int]], list[tuple[int, int]]]
"""Headings (level, first line, last line) and literal blocks (first line, last line), 1-based."""


class Row(NamedTuple):
    name: str
    example: str
    columns: list[Any]
    """Each column's blocks: ``Described``, or a table's lines (``tables_in``)."""


def table(header: str) -> list[Row]:
    """The rows of the table under ``header``: the first cell, the example (a JSON string in a code
    span) and each column of blocks after it."""
    lines = DOCS[DOCS.index(header) :].splitlines()
    rows = []
    for line in lines[2:]:
        if not line.lstrip().startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        at = 1 if header == JUDGE_HEADER else 2
        example = json.loads(cells[at].strip("`").strip().replace("\\|", "|"))  # a pipe is escaped in a table
        columns = cells[at + 1 : at + 4]
        rows.append(
            Row(
                cells[0], example, [tables_in(cell) if header == TABLES_HEADER else described(cell) for cell in columns]
            )
        )
    return rows


def described(cell: str) -> Described:
    """``h1 1\u20132, literal 3`` (before any parenthesis) as headings and literal blocks; ``none``."""
    headings, literals = [], []
    for item in cell.split(" (", maxsplit=1)[0].split(", "):
        if item == "none":
            continue
        found = _ITEM.fullmatch(item)
        assert found, item
        first = int(found[3])
        last = int(found[4] or first)
        if found[2]:
            headings.append((int(found[2]), first, last))
        else:
            literals.append((first, last))
    return headings, literals


def tables_in(cell: str) -> list[tuple[int, int]]:
    """``table 1\u20133`` as ``[(1, 3)]``; ``none`` as ``[]``."""
    found = []
    for item in cell.split(", "):
        if item != "none":
            first, _, last = item.removeprefix("table ").partition("\u2013")
            found.append((int(first), int(last or first)))
    return found


def of_blocks(blocks: Blocks) -> Described:
    return (
        [(h.level, h.line + 1, h.line + h.lines) for h in blocks.headings],
        [(first + 1, last + 1) for first, last in blocks.literals],
    )


def of_commonmark_js(blocks: CommonmarkBlocks, text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """commonmark.js's headings as (level, last line), its literal blocks within the text's lines."""
    lines = len(reference.commonmark_lines(text))  # commonmark.js may count a line after the last ending
    return blocks.headings, [(first, min(last, lines)) for first, last in blocks.literals]


def as_commonmark_js_compares(wanted: Described) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    return [(level, last) for level, _, last in wanted[0]], wanted[1]


INLINE = MarkdownIt("commonmark")


def of_markdown_it(text: str) -> Described:
    headings, literals = [], []
    for token in INLINE.parse(text):
        if token.type == "heading_open" and token.level == 0 and token.map:
            headings.append((int(token.tag[1]), token.map[0] + 1, token.map[1]))
        elif token.type in {"code_block", "fence", "html_block"} and token.map:
            literals.append((token.map[0] + 1, token.map[1]))
    return headings, literals


CORRECTIONS = table(CORRECTIONS_HEADER)
JUDGE = table(JUDGE_HEADER)
TABLE_ROWS = table(TABLES_HEADER)


def test_the_tables_hold_every_correction_and_every_judge_rule() -> None:
    assert len(CORRECTIONS) == 15
    assert len(JUDGE) == 8
    assert len(TABLE_ROWS) == 6


@pytest.mark.parametrize("row", TABLE_ROWS, ids=lambda row: row.name)
def test_where_pulldown_cmark_s_table_extension_parts_from_cmark_gfm_the_tool_answers_as_cmark_gfm(row: Row) -> None:
    """The tool, pulldown-cmark's table extension alone (a failure after a pyromark upgrade names a
    row to look at again), cmark-gfm and markdown-it-py, each as the table of docs/markdown.md says."""
    tool, pulldown_cmark, markdown_it = row.columns
    assert [(found.first + 1, found.last + 1) for found in block_structure(row.example, tables=True).tables] == tool
    assert [(first + 1, last + 1) for first, last in gfm.pulldown_cmark_tables(row.example)] == pulldown_cmark != tool
    assert [(first + 1, last + 1) for first, last in gfm.cmark_gfm_tables(row.example)] == tool
    assert [(first + 1, last + 1) for first, last in gfm.markdown_it_tables(row.example)] == markdown_it


@pytest.mark.parametrize("row", CORRECTIONS, ids=lambda row: row.name)
def test_each_correction_s_example_is_answered_as_commonmark_reads_it(row: Row) -> None:
    assert of_blocks(block_structure(row.example)) == row.columns[0]


@pytest.mark.parametrize("row", CORRECTIONS, ids=lambda row: row.name)
def test_pulldown_cmark_alone_still_parts_from_the_spec(row: Row, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the corrections, pulldown-cmark answers as the table says: a failure here after a
    pyromark upgrade names a correction to re-examine (and to remove once not needed)."""
    monkeypatch.setattr(markdown, "with_spec_whitespace", lambda source: source)
    monkeypatch.setattr(markdown, "with_raw_blocks_closed", lambda source, _: source)
    assert of_blocks(block_structure(row.example)) == row.columns[1]
    assert row.columns[1] != row.columns[0]


@pytest.mark.parametrize("row", CORRECTIONS, ids=lambda row: row.name)
def test_commonmark_js_answers_each_correction_s_example_as_the_table_says(
    commonmark_js: Callable[[str], CommonmarkBlocks], row: Row
) -> None:
    assert of_commonmark_js(commonmark_js(row.example), row.example) == as_commonmark_js_compares(row.columns[2])


@pytest.mark.parametrize("row", JUDGE, ids=lambda row: row.name)
def test_where_commonmark_js_parts_from_the_spec_its_spec_faithful_copy_does_not(
    commonmark_js: Callable[[str], CommonmarkBlocks], row: Row
) -> None:
    spec, judge, markdown_it = row.columns
    assert of_blocks(block_structure(row.example)) == spec
    judged = of_commonmark_js(commonmark_js(row.example), row.example)
    assert judged == as_commonmark_js_compares(judge) != as_commonmark_js_compares(spec)
    assert of_commonmark_js(commonmark_js(spec_faithful(row.example)), row.example) == as_commonmark_js_compares(spec)
    assert of_markdown_it(row.example) == markdown_it
