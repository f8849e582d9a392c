"""The GitHub Flavored Markdown tables (GFM 0.29, section 4.10) of a Markdown text, derived from
the paragraphs of its plain CommonMark parse, as cmark-gfm (GitHub's parser, the reference) finds
them.

A table's lines are lines of one paragraph of the plain parse (the descriptor keeps only such
tables), so no second parse is made: each paragraph that holds a line that may be a delimiter row
(``candidate_lines``, a few C-speed searches of the text) is read again, line by line, as
cmark-gfm's table extension reads it (``paragraph_tables``). Each line is first matched against
the paragraph's containers (block quote markers, list item indentation, CommonMark's column
rules): a line that does not match them all is a lazy continuation line of the paragraph, which
continues no table. Then, in the order cmark-gfm decides:

- a header row is the paragraph's last line so far and the delimiter row the line after it, with
  as many cells (a table may interrupt a paragraph: the lines before stay a paragraph);
- a body row is any next line of the paragraph that is not lazy, starts no other block and has a
  cell: an indented line (four columns, indented code), an HTML block of type 7 or a list item
  that could not interrupt a paragraph ends the table, where the plain parse goes on with the
  paragraph (pulldown-cmark's table extension takes them for rows: docs/markdown.md);
- after such a block, an indented code block goes on over indented lines, and the next line that
  is not indented starts a paragraph again (where another table may start); after an HTML block,
  a list or a lazy line, the rest of the paragraph holds no table (it is in that block).

Cells are split at each ``|`` that no backslash comes right before (cmark-gfm's scanner: ``\\|``
is escaped too), a leading and a trailing ``|`` bounding the row.
"""

import re
from bisect import bisect_right
from itertools import repeat
from operator import add
from typing import NamedTuple

from .spans import running_sum

_SPACE = " \t\v\f"
"""cmark-gfm's ``table_spacechar``: what may surround a delimiter row's cells and end a row."""
_HINTS = (
    re.compile(r"\|[ \t\v\f]*[-:]"),  # a pipe before a cell of dashes
    re.compile(r"\|[ \t\v\f]*(?=[\r\n]|\Z)"),  # a row's last pipe (``---|``)
    re.compile(r":[ \t\v\f]*-"),  # ``:--`` without pipes
    re.compile(r"-:"),  # ``--:`` without pipes
)
"""Each delimiter row holds a match of one of these (they start with a literal: C-speed searches)."""
_DELIMITER_ROW = re.compile(r"\|?[ \t\v\f]*:?-+:?[ \t\v\f]*(?:\|[ \t\v\f]*:?-+:?[ \t\v\f]*)*\|?[ \t\v\f]*")
"""cmark-gfm's ``table_start``, from a line's first character that is not a space or a tab."""
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_BULLET_OR_ORDERED = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t]|$)")
"""A list item's marker, followed by a space, a tab or the line's end (CommonMark 5.2)."""
_ATTRIBUTE = r"""(?:[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \t]*=[ \t]*(?:[^ \t"'=<>`]+|'[^']*'|"[^"]*"))?)"""
_HTML_TYPE_7 = re.compile(rf"(?:<[A-Za-z][A-Za-z0-9-]*{_ATTRIBUTE}*[ \t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$")
"""An HTML block of type 7's start: a complete open or closing tag alone on its line (CommonMark 4.6)."""


class Table(NamedTuple):
    """A table: its first and last line (0-based; the delimiter row is ``first + 1``), and where
    its text starts on its first line (after the containers' markers and the indentation)."""

    first: int
    last: int
    column: int


class Paragraph(NamedTuple):
    """A paragraph of the plain parse: its first and last line (0-based) and its containers,
    outermost first: ``("quote", line)`` or ``("item", line)``, ``line`` where the block starts."""

    first: int
    last: int
    containers: tuple[tuple[str, int], ...]


def candidate_lines(text: str) -> list[int]:
    """The lines (0-based, in order) of ``text`` (line endings as LF) that may be a table's
    delimiter row: a superset, found with a few C-speed searches."""
    hits = [hit.start() for hint in _HINTS for hit in hint.finditer(text)]
    if not hits:
        return []
    starts = running_sum(map(add, map(len, text.split("\n")), repeat(1)), 0)
    return sorted({line - 1 for line in map(bisect_right, repeat(starts), hits)})


def cells(row: str) -> int:
    """How many cells cmark-gfm finds in a row (0: no row), from its first character that is not
    a space or a tab."""
    row = row.rstrip(_SPACE)
    if row.startswith("|"):
        row = row[1:].lstrip(_SPACE)
        if not row:
            return 0
    pieces = _UNESCAPED_PIPE.split(row)
    return len(pieces) - (len(pieces) > 1 and pieces[-1] == "")


def delimiter_cells(row: str) -> int:
    """How many cells a delimiter row has (0: it is none)."""
    if _DELIMITER_ROW.fullmatch(row) is None:
        return 0
    return cells(row)


class _Line(NamedTuple):
    matched: bool
    """Whether the line matches all of the paragraph's containers (else it is lazy)."""
    content: str
    """The line after its containers' markers and its indentation."""
    column: int
    """Where ``content`` starts in the line (a code point index)."""
    indent: int
    """The columns of indentation before ``content``, after the containers."""


def _columns(line: str, at: int) -> int:
    """The column of ``line[at]`` (tab stops of 4)."""
    return len(line[:at].expandtabs(4))


def _skip_indentation(line: str, at: int) -> int:
    while at < len(line) and line[at] in " \t":
        at += 1
    return at


def _item_width(line: str, at: int, column: int) -> tuple[int, int] | None:
    """On a list item's first line, from ``at`` (column ``column``): the columns its content is
    indented by from ``column``, and where its marker ends; ``None`` if no marker is there."""
    first = _skip_indentation(line, at)
    if _columns(line, first) - column > 3:
        return None
    marker = _BULLET_OR_ORDERED.match(line, first)
    if marker is None:
        return None
    marker_end = _columns(line, marker.end())
    content = _skip_indentation(line, marker.end())
    spaces = _columns(line, content) - marker_end
    width = marker_end + 1 - column if content == len(line) or spaces > 4 else marker_end + spaces - column
    return width, marker.end()


def _advance(line: str, at: int, column: int, columns: int) -> tuple[int, int]:
    """``columns`` columns on from (``at``, ``column``) through indentation (a tab may be
    consumed in part, then ``at`` stays on it)."""
    target = column + columns
    while at < len(line) and _columns(line, at + 1) <= target:
        at += 1
    return at, target


def _match(line: str, number: int, containers: tuple[tuple[str, int], ...], widths: list[int]) -> _Line:
    """Line ``number`` matched against ``containers`` as CommonMark matches them (``widths``: each
    list item's content indentation, ``_widths``)."""
    at = column = 0
    matched = True
    for (kind, first), width in zip(containers, widths, strict=True):
        start = _skip_indentation(line, at)
        indent = _columns(line, start) - column
        if kind == "quote":
            if indent > 3 or start == len(line) or line[start] != ">":
                matched = False
                break
            at, column = start + 1, _columns(line, start) + 1
            if at < len(line) and line[at] in " \t":
                at, column = _advance(line, at, column, 1)
        elif number != first and indent < width:
            matched = False
            break
        else:
            at, column = _advance(line, at, column, width)
    start = _skip_indentation(line, at)
    return _Line(matched, line[start:], start, _columns(line, start) - column)


def _widths(lines: list[str], containers: tuple[tuple[str, int], ...]) -> list[int]:
    """Each list item's content indentation (in columns, from its parent's content), read on its
    first line; 0 for a block quote."""
    widths: list[int] = []
    for index, (kind, first) in enumerate(containers):
        if kind == "quote":
            widths.append(0)
            continue
        line = lines[first]
        at = column = 0
        for (outer, _), width in zip(containers[:index], widths, strict=True):
            if outer == "quote":
                start = _skip_indentation(line, at)
                at, column = start + 1, _columns(line, start) + 1
                if at < len(line) and line[at] in " \t":
                    at, column = _advance(line, at, column, 1)
            else:
                at, column = _advance(line, at, column, width)
        item = _item_width(line, at, column)
        widths.append(item[0] if item is not None else 0)
    return widths


def paragraph_tables(lines: list[str], paragraph: Paragraph) -> list[Table]:
    """The tables that cmark-gfm finds in a paragraph of the plain parse (``lines``: the text's
    lines, without their endings)."""
    widths = _widths(lines, paragraph.containers)
    read = [_match(lines[number], number, paragraph.containers, widths)
            for number in range(paragraph.first, paragraph.last + 1)]  # fmt: skip
    tables: list[Table] = []
    mode = "paragraph"  # what the last line was in: a paragraph, a table, indented code, or any other block
    header = 0  # the table's first line, in ``read``
    for index in range(1, len(read)):
        line = read[index]
        opens = "none" if not line.matched or _starts_a_block(line.content) else "code" if line.indent >= 4 else ""
        if mode == "table":
            if not opens and cells(line.content):
                continue
            tables.append(_table(paragraph, read, header, index - 1))
            mode = opens or "paragraph"  # a line with no cell starts a paragraph
        elif mode == "code":
            mode = "code" if opens == "code" else opens or "paragraph"
        elif mode == "none":
            break
        elif line.matched and line.indent < 4 and 0 < delimiter_cells(line.content) == cells(read[index - 1].content):
            mode, header = "table", index - 1
    if mode == "table":
        tables.append(_table(paragraph, read, header, len(read) - 1))
    return tables


def _starts_a_block(content: str) -> bool:
    """Whether a line that continues a paragraph starts another block after a table's row: a list
    item or an HTML block of type 7 (those that cannot interrupt a paragraph)."""
    return _BULLET_OR_ORDERED.match(content) is not None or _HTML_TYPE_7.match(content) is not None


def _table(paragraph: Paragraph, read: list[_Line], header: int, last: int) -> Table:
    return Table(paragraph.first + header, paragraph.first + last, read[header].column)
