"""The GitHub Flavored Markdown tables (GFM 0.29, section 4.10) of a Markdown text, derived from
the paragraphs of its plain CommonMark parse, as cmark-gfm (GitHub's parser, the reference) finds
them.

A table's lines are lines of one paragraph of the plain parse (the descriptor keeps only such
tables), so no second parse is made: each paragraph that holds a line that may be a delimiter row
(``candidates``, two C-speed searches of the text) is read again, line by line, as
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
  a list or a lazy line, the rest of the paragraph holds no table (it is in that block);
- where a lazy line ended a table and closed the containers, the paragraph that cmark-gfm has open
  outside them goes on over a list item that the plain parse opens on the next line and that
  cannot interrupt a paragraph (``_Reader.read_on``): that item's paragraph is read on with it.

Cells are split at each ``|`` that no backslash comes right before (cmark-gfm's scanner: ``\\|``
is escaped too), a leading and a trailing ``|`` bounding the row.
"""

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate, pairwise
from typing import NamedTuple

from .lines import line_end

MAX_DEPTH = 32
"""The most block quotes and list items a table is looked for in (docs/decisions.md): deeper, a
paragraph holds none, so that a paragraph under a hundred thousand markers costs no more to read
than the parse."""
_SPACE = " \t\v\f"
"""cmark-gfm's ``table_spacechar``: what may surround a delimiter row's cells and end a row."""
_HINTS = (
    re.compile(  # a pipe before a cell of dashes, or a row's last pipe after dashes (``---|``, ``-: |``)
        rb"\|(?:[ \t\x01]*[-:]|(?=[ \t\x01]*(?:\n|\Z))(?:(?<=[-:]\|)|(?<=[-:][ \t\x01]\|)|(?<=[-:][ \t\x01]{2}\|)"
        rb"|(?<=[-:][ \t\x01]{3}\|)|(?<=[ \t\x01]{4}\|)))"
    ),  # the line's end first: most pipes (``{string|Buffer}``) fail there, before five lookbehinds
    re.compile(rb":(?:[ \t\x01]*-|(?<=-:))"),  # ``:--`` or ``--:`` without pipes
)
"""Each delimiter row holds a match of one of these, in the parsed bytes (VT and FF there as
U+0001: ``texttools.markdown.with_spec_whitespace``); each starts with a literal, so that it is
searched for at C speed (a search of the text costs as much as a few hundred matches: two
searches, not one per form)."""
_DASH_OR_COLON_BEFORE = re.compile(rb"[-:][ \t\x01]*\Z")
_DELIMITER_ROW = re.compile(r"\|?[ \t\v\f]*:?-+:?[ \t\v\f]*(?:\|[ \t\v\f]*:?-+:?[ \t\v\f]*)*\|?[ \t\v\f]*")
"""cmark-gfm's ``table_start``, from a line's first character that is not a space or a tab."""
_INDENTATION = re.compile(r"[ \t]*")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_SETEXT_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*")
"""A setext heading's underline, from its first character (CommonMark 4.3): where a table's end
has closed the containers, one that the plain parse reads as a lazy line."""
_HTML_TYPE_6 = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt"
    "|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu"
    "|menuitem|nav|noframes|ol|optgroup|option|p|param|section|source|summary|table|tbody|td|tfoot|th|thead|title|tr"
    "|track|ul"
)
"""cmark-gfm's HTML block tag names of type 6 (CommonMark 0.29's: ``source`` among them, no ``search``)."""
_AFTER_A_ROW = re.compile(
    r"(?:>|#{1,6}(?:[ \t]|$)|`{3,}[^`]*$|~{3,}|(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|$)"
    r"|(?:\*[ \t]*){3,}$|(?:-[ \t]*){3,}$|(?:_[ \t]*){3,}$"
    r"|<(?:script|pre|style|textarea)(?:[ \t>]|$)|<!--|<\?|<![A-Za-z]|<!\[CDATA\["
    rf"|</?(?:{_HTML_TYPE_6})(?:[ \t]|/?>|$))",
    re.IGNORECASE,
)
"""The start of a block that a line opens after a table's row, from its first character that is
not a space or a tab (CommonMark 0.29, section 4 and 5; a table is no paragraph, so that any block
may start there), but for an HTML block of type 7 (``_HTML_TYPE_7``) and indented code."""
_BULLET_OR_ORDERED = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t]|$)")
"""A list item's marker, followed by a space, a tab or the line's end (CommonMark 5.2)."""
_ORDERED = re.compile(r"([0-9]{1,9})[.)](?=[ \t]|$)")
"""An ordered list item's marker (CommonMark 5.2), its number in group 1."""
_ATTRIBUTE = r"""(?:[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \t]*=[ \t]*(?:[^ \t"'=<>`]+|'[^']*'|"[^"]*"))?)"""
_HTML_TYPE_7 = re.compile(rf"(?:<[A-Za-z][A-Za-z0-9-]*{_ATTRIBUTE}*[ \t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$")
"""An HTML block of type 7's start: a complete open or closing tag alone on its line (CommonMark 4.6)."""


class Table(NamedTuple):
    """A table: its first and last line (0-based; the delimiter row is ``first + 1``), where its
    text starts on its first line (after the containers' markers and the indentation), and
    whether it is at the top level (in no block quote or list item, for cmark-gfm and for the plain
    parse: lazy lines of a quote's paragraph are in the quote for the plain parse, where a table
    ended by one of them closed it for cmark-gfm)."""

    first: int
    last: int
    column: int
    top_level: bool = True


class Lines:
    """A text's lines (without their endings, as the text normalised to LF endings has them), read
    from its line starts (``texttools.lines.line_starts``, which the chunker has found already): a
    line is sliced from the text only when it is asked for, and a table's lines are few."""

    def __init__(self, text: str, starts: list[int]) -> None:
        self._text, self._starts = text, starts

    def __getitem__(self, number: int) -> str:
        return self._text[self._starts[number] : line_end(self._text, self._starts, number)]

    def joined(self, first: int, last: int) -> str:
        """Lines ``first`` to ``last``, joined with LF."""
        text = self._text[self._starts[first] : line_end(self._text, self._starts, last)]
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

    def __len__(self) -> int:
        return len(self._starts) - 1

    def next_blank(self, start: int) -> int:
        """The first line from ``start`` on that holds nothing but spaces and tabs (the end of an
        HTML block, and of a paragraph), else ``len(self)``."""
        return next((number for number in range(start, len(self)) if not self[number].strip(" \t")), len(self))


class Paragraph(NamedTuple):
    """A paragraph (or a heading) of the plain parse: its first and last line (0-based), its
    containers, outermost first: ``("quote", line)`` or ``("item", line)``, ``line`` where the
    block starts; and whether it is a heading."""

    first: int
    last: int
    containers: tuple[tuple[str, int], ...]
    heading: bool = False
    hinted: bool = True
    """Whether a line of it may be a delimiter row (``candidates``)."""


def find_tables(lines: "Lines", paragraphs: list[Paragraph], read_on: list[tuple[int, int]]) -> list[Table]:
    """The tables of a text (``lines``, without their endings) whose lines are all lines of its
    paragraphs (``paragraphs``, with the headings at any depth, in order), looked for in those
    where a line may be a delimiter row (``Paragraph.hinted``).

    Two places where cmark-gfm's blocks go on past the plain parse's paragraph are followed: a
    table that reaches a setext heading's ``=`` underline takes it for a row (the plain parse
    ends the heading there) and goes on over the lines after it that are rows for it (link
    reference definitions, on a line each or over several: ``_rows``) into the next paragraph, so
    a setext heading, those lines and that paragraph are read as one; and an HTML block that a
    table's next line opens (type 7, which cannot interrupt a paragraph) runs to the next blank
    line, so no table starts before it. The lines where a parse from there would not know what
    cmark-gfm has open are added to ``read_on`` (first and last, ordered by their first lines), so
    that no parse starts again there (``texttools.markdown.block_structure``'s restarts): from
    such an underline to the next paragraph's first line, from such an HTML block's start to the
    next blank line, and, where cmark-gfm's paragraph may go on past the plain parse's
    (``_Reader.read_on``), from there to the next blank line (the paragraphs after it may not have
    been read here: only those of blocks with a line that may be a delimiter row are).
    """
    found: list[Table] = []
    closed: set[tuple[str, int]] = set()  # the containers cmark-gfm closed where the plain parse goes on
    blank_from = 0  # after an HTML block opened at a table's end: its end, the next blank line
    blank_at = 0  # the last blank line found for ``read_on`` (each line is looked at once)
    group: list[Paragraph] = []
    gaps: set[int] = set()  # lines read with the group that are no paragraph's (no table holds one)
    index = 0
    while index < len(paragraphs):
        paragraph = paragraphs[index]
        group.append(paragraph)
        index += 1
        following = paragraphs[index] if index < len(paragraphs) else None
        if (
            following is not None
            and following.containers == paragraph.containers
            and _underlined(lines, paragraph)
            and _rows(lines, paragraph, following.first)
        ):
            gaps.update(range(paragraph.last + 1, following.first))
            continue  # a setext heading with ``=`` (or ``--``), then a paragraph: one for cmark-gfm
        first, last = group[0].first, group[-1].last
        if any(part.hinted for part in group) and first >= blank_from:
            merged = Paragraph(first, last, group[0].containers)
            underlines = {part.last - first for part in group if part.heading}
            read_on += [(before.last + 1, after.first) for before, after in pairwise(group)]  # after underlines
            tables, html_open, reader = paragraph_tables(lines, merged, underlines, closed)
            if reader is not None and reader.may_read_on():
                blank_at = lines.next_blank(max(last + 1, blank_at))
                read_on.append((last + 1, blank_at))
            while reader is not None and index < len(paragraphs):
                following = paragraphs[index]  # cmark-gfm's block may go on into it: read on if it does
                if reader.mode == "html" and following.first == group[-1].last + 1:
                    start = following.first if following.containers == group[-1].containers else -1
                elif _may_go_on(lines, group[-1], following):
                    start = following.containers[-1][1]
                elif following.containers == group[-1].containers and reader.in_item(lines, group[-1].last, following):
                    read_on.append((group[-1].last + 1, following.first))  # a parse from there would not know the item
                    start = following.first
                else:
                    break
                if start < 0 or not reader.read_on(lines, start, following.last, following.heading):
                    break
                gaps.update(range(group[-1].last + 1, following.first))
                group.append(following)
                index += 1
            if reader is not None:
                tables, html_open, last = reader.finished(), reader.html_open, group[-1].last
            tables = _holding_none(tables, [(gap, gap) for gap in sorted(gaps)])
            found += _holding_none(tables, [(part.first, part.last) for part in group if part.heading])
            if html_open:
                blank_from = lines.next_blank(last + 1)
                read_on.append((last + 1, blank_from))  # a parse from a line it holds would not know it
        group, gaps = [], set()
    return found


def _holding_none(tables: list[Table], ranges: list[tuple[int, int]]) -> list[Table]:
    """The ``tables`` that hold no line of ``ranges`` (first and last lines, disjoint, in order): a
    bisection each, so that a group of many headings or gap lines and many tables costs no more
    than reading them."""
    if not ranges:
        return tables
    firsts = [first for first, _ in ranges]
    before = [bisect_right(firsts, table.last) - 1 for table in tables]  # the last range starting at or before its end
    return [table for table, at in zip(tables, before, strict=True) if at < 0 or ranges[at][1] < table.first]


def _may_go_on(lines: Lines, paragraph: Paragraph, following: Paragraph) -> bool:
    """Whether cmark-gfm's paragraph may go on into the next paragraph of the plain parse: on the
    line after ``paragraph``, a list item opened outside its containers (its paragraph there, or
    on the line after an empty marker) that may not interrupt a paragraph (``_Reader.read_on``
    decides: this is a superset). Where a table's end closed a container for cmark-gfm, a
    paragraph after the table is open outside it, and the item's line continues it."""
    if not following.containers or following.containers[:-1] == paragraph.containers:
        return False
    kind, start = following.containers[-1]
    if kind != "item" or start != paragraph.last + 1 or following.first > start + 1:
        return False
    line = lines[start]
    return line[:1] in (" ", "\t") or _cannot_interrupt(line.lstrip(" \t>"))


def _cannot_interrupt(content: str) -> bool:
    """Whether a line's content opens a list item that cannot interrupt a paragraph (CommonMark
    5.2): an ordered one not numbered 1, or an empty one (``-`` alone is a setext underline then)."""
    marker = _ORDERED.match(content) or _BULLET_OR_ORDERED.match(content)
    if marker is None:
        return False
    return not content[marker.end() :].strip(" \t") or (marker.re is _ORDERED and int(marker[1]) != 1)


def _rows(lines: Lines, paragraph: Paragraph, end: int) -> bool:
    """Whether cmark-gfm's table, gone on over the underline that ends ``paragraph`` (a setext
    heading), goes on over each line after it up to ``end`` (excluded; between two paragraphs of
    the plain parse: link reference definitions, on a line each or over several, or lines of
    other blocks), or up to a lazy line, which ends it and closes the containers (``_Reader``
    reads on from there; the lines after it must go on with the paragraph it starts): one that
    matches the containers, is indented less than four columns there, is not blank, starts no
    block (after a table's row any block may start: ``_AFTER_A_ROW``) and has a cell. Any other
    line ends the table, and the next paragraph is read on its own."""
    containers = paragraph.containers
    widths = _widths(lines, containers) if containers and end > paragraph.last + 1 else []
    lazy = False
    for number in range(paragraph.last + 1, end):
        line = _match(lines[number], number, containers, widths)
        lazy = lazy or line.matched < len(containers)
        here = _at(line, len(containers))  # a lazy line: read after the containers it matches
        if not here.content or _AFTER_A_ROW.match(here.content) is not None:
            return False
        if not lazy and (here.indent >= 4 or not has_cell(here.content)):
            return False
    return True


def _underlined(lines: Lines, paragraph: Paragraph) -> bool:
    """Whether a heading is a setext heading whose underline is ``=`` or ``--`` (a row for
    cmark-gfm's table; a longer ``-`` one is a thematic break, which ends it)."""
    if not paragraph.heading or paragraph.last == paragraph.first:
        return False
    underline = lines[paragraph.last]
    return "=" in underline or underline.strip(" \t>").rstrip(" \t") == "--"


def candidates(source: bytes) -> list[int]:
    """Offsets in ``source`` (the parsed bytes, line endings as LF), in order, on each line that
    may be a table's delimiter row (a superset), found with two C-speed searches."""
    return sorted(hit.start() for hint in _HINTS for hit in hint.finditer(source))


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


def has_cell(row: str) -> bool:
    """Whether cmark-gfm finds a cell in a body row (``cells(row) > 0``, without splitting it)."""
    return not row.startswith("|") or bool(row[1:].strip(_SPACE))


def delimiter_cells(row: str) -> int:
    """How many cells a delimiter row has (0: it is none)."""
    if _DELIMITER_ROW.fullmatch(row) is None:
        return 0
    return cells(row)


class _Line(NamedTuple):
    matched: int
    """How many of the paragraph's containers the line matches (fewer than all: it is lazy)."""
    after: list[tuple[int, int]]
    """Where the line is (code point index, column) after each number of matched containers."""
    text: str


class _At(NamedTuple):
    content: str
    """The line after the containers matched and its indentation."""
    column: int
    """Where ``content`` starts in the line (a code point index)."""
    indent: int
    """The columns of indentation before ``content``, after the containers."""


def _at(line: _Line, depth: int) -> _At:
    """The line read inside ``depth`` of its containers."""
    at, column = line.after[min(depth, line.matched)]
    start = _skip_indentation(line.text, at)
    return _At(line.text[start:], start, _columns(line.text, start) - column)


@lru_cache(maxsize=256)
def _tab_columns(line: str) -> list[int] | None:
    """The column of each position of a line that holds a tab (tab stops of 4), once per line;
    ``None`` without a tab (a position is its column)."""
    if "\t" not in line:
        return None
    return list(accumulate(line, lambda column, character: column + 4 - column % 4 if character == "\t" else column + 1,
                           initial=0))  # fmt: skip


def _columns(line: str, at: int) -> int:
    """The column of ``line[at]`` (tab stops of 4)."""
    columns = _tab_columns(line)
    return at if columns is None else columns[at]


def _indentation(line: str) -> int:
    """The columns of a line's indentation."""
    return _columns(line, len(line) - len(line.lstrip(" \t")))


def _skip_indentation(line: str, at: int) -> int:
    return _INDENTATION.match(line, at).end()  # type: ignore[union-attr]  # it matches the empty string


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
    tabs = _tab_columns(line)
    last = min(len(line), target) if tabs is None else bisect_right(tabs, target) - 1
    return max(at, min(last, len(line))), target


def _match(line: str, number: int, containers: tuple[tuple[str, int], ...], widths: list[int]) -> _Line:
    """Line ``number`` matched against ``containers`` as CommonMark matches them (``widths``: each
    list item's content indentation, ``_widths``)."""
    at = column = 0
    after = [(0, 0)]
    for (kind, first), width in zip(containers, widths, strict=True):
        start = _skip_indentation(line, at)
        indent = _columns(line, start) - column
        if kind == "quote":
            if indent > 3 or start == len(line) or line[start] != ">":
                break
            at, column = start + 1, _columns(line, start) + 1
            if at < len(line) and line[at] in " \t":
                at, column = _advance(line, at, column, 1)
        elif number != first and indent < width:
            break
        else:
            at, column = _advance(line, at, column, width)
        after.append((at, column))
    return _Line(len(after) - 1, after, line)


def _widths(lines: Lines, containers: tuple[tuple[str, int], ...]) -> list[int]:
    """Each list item's content indentation (in columns, from its parent's content), read on its
    first line; 0 for a block quote. Containers that start on one line are read on it once, from
    where the one before ended (a line of a hundred thousand list markers is read once)."""
    widths: list[int] = []
    line_number, at, column = -1, 0, 0
    for index, (kind, first) in enumerate(containers):
        line = lines[first]
        if first != line_number:  # the outer containers all start on earlier lines: matched as on any line
            line_number, at, column = first, 0, 0
            for (outer, _), width in zip(containers[:index], widths, strict=True):
                at, column = _quote_marker(line, at) if outer == "quote" else _advance(line, at, column, width)
        if kind == "quote":
            widths.append(0)
            at, column = _quote_marker(line, at)
            continue
        item = _item_width(line, at, column)
        widths.append(item[0] if item is not None else 0)
        at, column = _advance(line, at, column, widths[-1])
    return widths


def _quote_marker(line: str, at: int) -> tuple[int, int]:
    """Past a block quote marker from ``at`` (up to three columns of indentation, ``>`` and a space
    or a tab's first column); ``at`` and the column there."""
    start = _skip_indentation(line, at)
    at, column = start + 1, _columns(line, start) + 1
    if at < len(line) and line[at] in " \t":
        at, column = _advance(line, at, column, 1)
    return at, column


def paragraph_tables(
    lines: Lines, paragraph: Paragraph, underlines: set[int], closed: set[tuple[str, int]]
) -> tuple[list[Table], bool, "_Reader | None"]:
    """The tables that cmark-gfm finds in a paragraph of the plain parse (``lines``: the text's
    lines, without their endings), and whether its last line opened an HTML block after a table
    (``find_tables``); ``underlines``: the lines (in the paragraph) of setext underlines, which
    end a paragraph but not a table (``_Reader``); ``closed``: the containers that cmark-gfm
    closed before (updated): the paragraph is read outside them, and may be indented code there.
    The last value returned is the reader of a paragraph in containers, which may read on
    (``_Reader.read_on``): its tables are then ``_Reader.finished``'s."""
    if len(paragraph.containers) > MAX_DEPTH:
        return [], False, None
    contained = bool(paragraph.containers)  # for the plain parse, even where cmark-gfm closed them all
    paragraph = paragraph._replace(containers=tuple(each for each in paragraph.containers if each not in closed))
    top_level = not paragraph.containers and not underlines and _indentation(lines[paragraph.first]) < 4
    if top_level and (fast := _top_level_tables(lines, paragraph)) is not None:
        tables, html_open = fast
        return [table._replace(top_level=False) for table in tables] if contained else tables, html_open, None
    widths = _widths(lines, paragraph.containers)
    numbers = range(paragraph.first, paragraph.last + 1)
    reader = _Reader(paragraph, [_match(lines[number], number, paragraph.containers, widths) for number in numbers])
    reader.closed, reader.widths, reader.contained = closed, widths, contained
    if _at(reader.read[0], reader.depth).indent >= 4:
        reader.mode = "code"
    reader.read_lines(1, underlines)
    if reader.finished_early:
        return reader.tables, reader.html_open, None
    return reader.finished(), reader.html_open, reader


_DELIMITER_LINE = re.compile(rf"^ {{0,3}}{_DELIMITER_ROW.pattern}$", re.MULTILINE)
"""A delimiter row on a line of a top-level paragraph (indented less than four columns)."""
_ENDS_A_TABLE = re.compile(rf"^(?: {{0,3}}\t| {{4}}|[ \t]*\|[{_SPACE}]*$| {{0,3}}{_HTML_TYPE_7.pattern})", re.MULTILINE)
"""A line of a top-level paragraph that no table's row is: indented four columns or more, no cell,
or an HTML block's start (list items send the paragraph to ``_Reader``)."""
_NOT_INDENTED = re.compile(r"^ {0,3}[^ \t]", re.MULTILINE)
_LIST_ITEM_LINE = re.compile(rf"^ {{0,3}}{_BULLET_OR_ORDERED.pattern}", re.MULTILINE)


def _top_level_tables(lines: Lines, paragraph: Paragraph) -> tuple[list[Table], bool] | None:
    """``paragraph_tables`` of a paragraph in no container, read with a few regex searches of its
    text instead of line by line (a row per line is what a table-heavy document is made of):
    ``_Reader``'s rules, where no line is lazy. ``None`` when a line may start a list item."""
    first = paragraph.first
    text = lines.joined(first, paragraph.last)
    if _LIST_ITEM_LINE.search(text) is not None:
        return None
    counted = [0, 0]  # an offset in ``text`` and its line: lines are counted from the last one asked

    def line_of(offset: int) -> int:
        counted[1] += text.count("\n", counted[0], offset)
        counted[0] = offset
        return counted[1]

    tables: list[Table] = []
    opened = 0  # the line where the paragraph starts for cmark-gfm: the first, then after a table or code
    search_from = 0
    while (delimiter := _DELIMITER_LINE.search(text, search_from)) is not None:
        row = line_of(delimiter.start())
        search_from = delimiter.end() + 1
        line = lines[first + row]
        if row == opened or _indentation(line) >= 4:
            continue  # no header above it in the paragraph, or indented: no delimiter row
        header = lines[first + row - 1]
        content = header.lstrip(" \t")
        if cells(content) != delimiter_cells(line.lstrip(" \t")):
            return tables, False  # cmark-gfm tries no other delimiter row in this paragraph
        end = _ENDS_A_TABLE.search(text, search_from)
        stop = line_of(end.start()) if end is not None else paragraph.last - first + 1
        tables.append(Table(first + row - 1, first + stop - 1, len(header) - len(content)))
        if end is None:
            break
        ending = lines[first + stop]
        if _indentation(ending) >= 4:  # indented code, to a line that is not
            resumed = _NOT_INDENTED.search(text, end.start())
            if resumed is None:
                break
            opened, search_from = line_of(resumed.start()), resumed.start()
            if _HTML_TYPE_7.match(lines[first + opened].lstrip(" \t")) is not None:
                return tables, True  # an HTML block after the code: it runs to a blank line
        elif _HTML_TYPE_7.match(ending.lstrip(" \t")) is not None:
            return tables, True  # an HTML block: it runs to a blank line
        else:  # a line with no cell: a paragraph starts there
            opened, search_from = stop, end.start()
    return tables, False


class _Reader:
    """A paragraph's lines read as cmark-gfm reads them, with the depth of the containers still
    open for it: a lazy line ends a table (and closes the containers it does not match), a block
    quote marker after that opens a quote again, and a list item marker after a table opens a
    list item (``item``) that the plain parse does not have. In a paragraph, a delimiter row
    whose header row (the line before) has another number of cells leaves that paragraph without
    tables (cmark-gfm's ``CMARK_NODE__TABLE_VISITED``)."""

    def __init__(self, paragraph: Paragraph, read: list[_Line]) -> None:
        self.paragraph, self.read = paragraph, read
        self.containers = paragraph.containers
        self.depth = len(self.containers)
        """How many of the containers are open for cmark-gfm."""
        self.mode = "paragraph"
        """What the last line was in: ``paragraph``, ``table``, ``code`` (indented), ``""`` (a block
        that the next line does not continue)."""
        self.header = 0
        self.tried = False
        """Whether the paragraph had a delimiter row whose header row did not match it."""
        self.item: int | None = None
        """The content indentation of a list item that cmark-gfm opened after a table."""
        self.headers: dict[int, str] = {}
        """Header rows that are not the line's content at ``depth``: after a list item's marker,
        or a lazy line's own indentation (cmark-gfm keeps it)."""
        self.tables: list[Table] = []
        self.html_open = False
        self.stopped = False
        self.widths: list[int] = []
        """Each container's content indentation (``_widths``)."""
        self.finished_early = False
        """Whether a line left no table to follow (``step``)."""
        self.closed: set[tuple[str, int]] = set()
        """The containers that a line after a table closed for cmark-gfm (the plain parse goes on in them)."""
        self.item_goes_on = False
        """Whether ``in_item`` found the item open after blank lines: ``read_on`` reads on there."""
        self.contained = False
        """Whether the plain parse has the paragraph in a container (cmark-gfm may have closed them all)."""

    def table(self, last: int) -> Table:
        first = self.paragraph.first
        column = _at(self.read[self.header], self.depth).column
        top_level = self.depth == 0 and self.item is None and not self.contained
        return Table(first + self.header, first + last, column, top_level)

    def step(self, index: int, underline: bool) -> bool:
        """Reads one line; ``False``: no table follows in the paragraph."""
        placed = self._place(index)
        if placed is None:
            return not self.stopped
        here, closed, moved_to = placed
        if self.mode == "html" and not closed:
            return True  # in a container, it goes on to a blank line or the container's end
        opens = (
            ""
            if self.mode == "paragraph" and not closed
            else "code"
            if here.indent >= 4
            else _starts_a_block(here.content)
        )
        if self.mode == "table" and not closed and not opens and has_cell(here.content):
            return True
        if self.mode == "paragraph" and (underline or (here.indent < 4 and _SETEXT_UNDERLINE.fullmatch(here.content))):
            self.mode = ""  # the heading ends: the next line starts a paragraph
            return True
        if self.mode == "table":
            self.tables.append(self.table(index - 1))
        if closed:
            self.mode, self.item, self.depth = "", None, moved_to
        if self.mode != "paragraph":
            return self._opens(index, opens, here)
        if here.indent < 4 and (count := delimiter_cells(here.content)):
            header = self.headers.get(index - 1, _at(self.read[index - 1], self.depth).content)
            if not self.tried and count == cells(header):
                self.mode, self.header = "table", index - 1
            self.tried = True
        return True

    def read_lines(self, start: int, underlines: set[int]) -> None:
        """Reads the lines from ``start`` on (``underlines``: as ``paragraph_tables``'s)."""
        for index in range(start, len(self.read)):
            if not self.step(index, index in underlines):
                self.finished_early = True
                return

    def finished(self) -> list[Table]:
        """The tables, the last one ending on the last line read."""
        if self.mode == "table" and not self.finished_early:
            return [*self.tables, self.table(len(self.read) - 1)]
        return self.tables

    def may_read_on(self) -> bool:
        """Whether a paragraph that the plain parse does not have is open for cmark-gfm after the
        lines read: one outside containers that a table's lazy line closed."""
        return (
            not self.finished_early
            and self.mode == "paragraph"
            and self.item is None
            and self.depth < len(self.containers)
        )

    def in_item(self, lines: Lines, last: int, following: Paragraph) -> bool:
        """Whether a list item that cmark-gfm opened after a table (``item``) is still open at
        ``following`` (a paragraph in the same containers, after line ``last``, the last read):
        each line between (blank lines, and lines the plain parse reads as other blocks, indented
        code) is blank or indented into the item, and ``following``'s first line too, unless it
        continues a paragraph in the item (an item with no content yet closes at a blank line). If
        so, the lines between are read (a blank one ends the table or paragraph in it), and
        ``read_on`` reads on."""
        if self.finished_early or self.item is None or following.first == last + 1:
            return False
        between = [
            _match(lines[number], number, self.containers, self.widths) for number in range(last + 1, following.first)
        ]
        places = [_at(line, self.depth) for line in between]
        if any(
            line.matched < self.depth or (here.content and here.indent < self.item)
            for line, here in zip(between, places, strict=True)
        ):
            return False
        if self.mode == "" and not places[0].content:
            return False  # an empty item (or none that holds content) ends at a blank line
        first = _match(lines[following.first], following.first, self.containers, self.widths)
        in_paragraph = bool(places[-1].content) and places[-1].indent - self.item < 4
        if not in_paragraph and (first.matched < self.depth or _at(first, self.depth).indent < self.item):
            return False
        start = len(self.read)
        self.read += between
        for index, here in enumerate(places, start):
            if here.content:
                self.finished_early = self.finished_early or not self.step(index, False)
                continue
            if self.mode == "table":
                self.tables.append(self.table(index - 1))
            self.mode = ""
        self.item_goes_on = not self.finished_early
        return self.item_goes_on

    def read_on(self, lines: Lines, start: int, last: int, heading: bool) -> bool:
        """Reads on to line ``last`` if line ``start`` (after the lines read), where the plain parse
        opens a list item, continues cmark-gfm's paragraph: one is open (a table closed the
        containers that the item opened outside), the line matches the containers still open, and
        it is indented four columns there or its marker cannot interrupt a paragraph; or an HTML
        block in a container is open (it runs to a blank line, over the plain parse's next
        paragraph in that container); or a list item that cmark-gfm opened after a table goes on
        after blank lines (``in_item``). ``heading``: the lines end with a setext underline."""
        line = _match(lines[start], start, self.containers, self.widths)
        if self.finished_early or (self.mode == "html" and line.matched < self.depth):
            return False
        if self.mode != "html" and not self.item_goes_on:
            if not self.may_read_on():
                return False
            here = _at(line, self.depth)
            if line.matched < self.depth or not (here.indent >= 4 or _cannot_interrupt(here.content)):
                return False
        first, self.item_goes_on = len(self.read), False
        self.read.append(line)
        numbers = range(start + 1, last + 1)
        self.read += [_match(lines[number], number, self.containers, self.widths) for number in numbers]
        self.read_lines(first, {len(self.read) - 1} if heading else set())
        return True

    def _place(self, index: int) -> tuple[_At, bool, int] | None:
        """Where a line is for cmark-gfm: read at the depth of its block, whether it closes the
        last line's block (the containers it does not match, a block quote that opens again, a
        list item it is not indented into) and the depth after it; ``None``: a lazy continuation
        line of the paragraph, or a list item that opens again, not followed here (``stopped``)."""
        line, depth = self.read[index], self.depth
        here = _at(line, depth)
        sibling = self.item is not None and here.indent < 4 and _BULLET_OR_ORDERED.match(here.content) is not None
        lazy = line.matched < depth or (self.item is not None and here.indent < self.item and not sibling)
        if lazy and self.item is not None and line.matched >= depth and _HTML_TYPE_7.match(here.content):
            lazy = False  # outside the item, an HTML block opens (only a paragraph's line keeps it out)
        if lazy and self.mode == "paragraph":
            self.headers[index] = line.text[
                line.after[min(line.matched, depth)][0] :
            ]  # cmark-gfm keeps its indentation
            return None
        moved = line.matched < depth or (line.matched > depth and self.containers[depth][0] == "quote")
        if moved and any(kind != "quote" for kind, _ in self.containers[depth : line.matched]):
            self.stopped = True
            return None
        if line.matched < depth:
            self.closed.update(each for each in self.containers[line.matched : depth] if each[0] == "item")
        if moved:
            return _at(line, line.matched), True, line.matched
        if self.item is not None and here.indent >= self.item:
            return here._replace(indent=here.indent - self.item), False, depth
        return here, self.item is not None, depth  # not indented into the item (its list's next item, maybe)

    def _opens(self, index: int, opens: str, here: _At) -> bool:
        """The block a line opens where the last line's block does not go on."""
        self.tried = False
        if opens == "item":
            line = self.read[index]
            marker = _item_width(line.text, *line.after[self.depth])
            if self.item is not None or marker is None:
                return False  # a list in a list item: not followed here
            self.item = marker[0]
            content = line.text[_skip_indentation(line.text, marker[1]) :]
            self.mode = "paragraph" if content else ""
            self.headers[index] = content
            return True
        self.mode = opens or "paragraph"
        if self.mode == "html" and self.depth == 0 and self.item is None:
            self.html_open = True  # it runs past the paragraph, to a blank line
            return False
        return True


def _starts_a_block(content: str) -> str:
    """The block that a line that continues a paragraph starts after a table's row (those that
    cannot interrupt a paragraph): ``item`` for a list item, ``html`` for an HTML block of type 7
    (it runs to a blank line), else ``""``."""
    if _BULLET_OR_ORDERED.match(content) is not None:
        return "item"
    return "html" if _HTML_TYPE_7.match(content) is not None else ""


def _table(paragraph: Paragraph, read: list[_Line], header: int, last: int, depth: int) -> Table:
    return Table(paragraph.first + header, paragraph.first + last, _at(read[header], depth).column)
