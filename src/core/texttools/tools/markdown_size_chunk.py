"""markdown-size-chunk: the size tools' chunks, with ends ranked by the Markdown around them (before
a heading first, inside a heading or a literal block last) and each chunk's heading path.

The chunker is the size tools' (``texttools.size_chunks``); what differs is the kind of an end,
which ``MarkdownChunker`` reads from the document's block structure (``texttools.markdown``, the
one parse of both Markdown tools), laid out once per text as sorted positions and ranges
(``MarkdownLayout``): each kind is still one bisect or one bounded search per chunk.
"""

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property
from heapq import merge
from itertools import chain, repeat
from typing import NamedTuple, TypedDict

from ..descriptor import load_descriptor
from ..errors import OutputTooLarge, TooManyChunks
from ..fields import input_fields
from ..graphemes import joined
from ..lines import ORIGIN, Position, line_end, line_starts, line_view
from ..markdown import (
    MAX_HELD_CHARS,
    TABLE_HELD_CHARS,
    Blocks,
    OpenHeadings,
    block_structure,
    held_too_long,
    last_restart,
    outline,
    table_held_too_long,
)
from ..size_chunks import (
    NOT_WHITESPACE,
    SIZE_DEFAULTS,
    SIZE_FORMS,
    WHITESPACE,
    Chunker,
    LineEnds,
    Settings,
    SizedChunk,
    Span,
    settings_of,
    size_error_examples,
    size_rules,
    sized_chunk_objects,
)
from ..streaming import Batches, Stream, Windows
from ..tool import Params, Tool

DESCRIPTOR = load_descriptor("markdown-size-chunk")
MAX_CHUNKS = DESCRIPTOR.limits["max_chunks"]
DEEPEST = DESCRIPTOR.input_schema["properties"]["max_level"]["maximum"]
"""The deepest heading level, and ``max_level``'s default (the descriptor: "defaults to 6")."""
SECTIONS = tuple(f"section-{level}" for level in range(1, DEEPEST + 1))
"""The kinds of an end before a heading, by level, best first."""

Ends = Callable[[int, int], Iterator[int]]
"""A kind's ends in (low, high], last first."""


class TableHeader(TypedDict):
    """A chunk's ``table_header``: the span and text of its table's header and delimiter rows."""

    start: int
    end: int
    text: str


class MarkdownSizeOutput(TypedDict):
    chunk_count: int
    chunks: list[SizedChunk]


class Ranges:
    """Disjoint ranges of positions, each ``(low, high]``, in order: which ends lie in them."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.lows = [low for low, _ in ranges]
        self.highs = [high for _, high in ranges]

    def holds(self, position: int) -> bool:
        index = bisect_left(self.lows, position) - 1  # the last range whose low is below position
        return index >= 0 and position <= self.highs[index]

    def keep(self, positions: list[int], inside: bool) -> list[int]:
        """The sorted ``positions`` inside the ranges (``inside``) or outside them: one slice of
        ``positions`` per range (or between two), found by bisection."""
        edges = list(map(bisect_right, repeat(positions), chain.from_iterable(zip(self.lows, self.highs, strict=True))))
        if not inside:
            edges = [0, *edges, len(positions)]
        return list(chain.from_iterable(map(positions.__getitem__, map(slice, edges[::2], edges[1::2]))))

    def joined_over_blanks(self, text: str) -> "Ranges":
        """These ranges, two joined wherever only whitespace lies between them. No sentence, word
        or character end (each after a character that is not whitespace) lies in such a gap, so
        ``outside`` finds the same of those ends around the joined ranges, without a search for
        each gap: 131 072 empty headings in 256 KiB are one gap each, and a chunk's reach holds
        hundreds."""
        lows, highs = self.lows[:1], self.highs[:1]
        for low, high in zip(self.lows[1:], self.highs[1:], strict=True):
            if NOT_WHITESPACE.search(text, highs[-1], low) is None:
                highs[-1] = high
            else:
                lows.append(low)
                highs.append(high)
        return Ranges(list(zip(lows, highs, strict=True)))

    def within(self, low: int, high: int, ends: Ends) -> Iterator[int]:
        """``ends`` in (low, high] that lie in the ranges, last first."""
        index = bisect_left(self.lows, high) - 1
        while index >= 0 and self.highs[index] > low:
            yield from ends(max(low, self.lows[index]), min(high, self.highs[index]))
            index -= 1

    def outside(self, low: int, high: int, ends: Ends) -> Iterator[int]:
        """``ends`` in (low, high] that lie in no range, last first: searched between the ranges."""
        index = bisect_left(self.lows, high) - 1
        top = high
        while index >= 0 and top > low:
            if self.highs[index] < top:
                yield from ends(max(low, self.highs[index]), top)
            top = self.lows[index]
            index -= 1
        if top > low:
            yield from ends(low, top)


class MarkdownLayout:
    """What the kinds of one document's ends need, laid out once: the ends before headings by
    level, the ranges of heading spans and literal insides, the line and paragraph ends sorted by
    which of them they lie in, and where each heading path begins."""

    def __init__(self, text: str, lines: LineEnds, max_level: int, blocks: Blocks, open_headings: OpenHeadings) -> None:
        self.text = text
        starts = lines.starts_of_lines
        in_text = bisect_left(starts, len(text))  # the lines that start in ``text`` (a window's blocks go on past it)
        headings = [heading for heading in blocks.headings if heading.level <= max_level and heading.line < in_text]
        self.path_before = [content for _, content in open_headings]
        """The heading path where ``text`` starts (a window of a longer text may start in a section)."""
        outlined = outline(text, starts, headings, list(open_headings))
        spans = [(at.start, line_end(text, starts, heading.line + heading.lines - 1))
                 for at, heading in zip(outlined, headings, strict=True)]  # fmt: skip
        insides = []
        for first, last in (literal for literal in blocks.literals if literal[0] < in_text):
            visible_end = starts[first] + len(text[starts[first] : line_end(text, starts, last)].rstrip(WHITESPACE))
            if visible_end > starts[first] + 1:
                insides.append((starts[first], visible_end - 1))
        table_insides, self.table_headers = [], []
        for table in (table for table in blocks.tables if table.first < in_text):
            visible_end = _visible_end(text, starts, table.last) if table.last < in_text else len(text) + 1  # goes on
            table_insides.append((starts[table.first], visible_end - 1))
            header = (starts[table.first] + table.column, _visible_end(text, starts, table.first + 1))
            self.table_headers.append((*header, visible_end))
        self.table_insides = Ranges(table_insides)
        """After a table's first line starts, before the end of its last character that is not
        whitespace: ``table-row``, ``table-cell`` and ``table-word`` ends."""
        self.heading_spans = Ranges(spans)
        """From a heading's start to the end of its last line's content: ``heading`` ends."""
        self.literal_insides = Ranges(insides)
        """After a literal block's first line starts, before the end of its last character that is
        not whitespace: ``literal-line`` and ``literal-word`` ends."""
        self.excluded = Ranges(sorted(spans + insides + table_insides))
        """Where an end is not of its plain-text kind (``Chunker``'s)."""
        self.paragraphs = self.excluded.keep(lines.paragraphs, inside=False)
        self._line_ends = lines.ends
        self.section_ends: list[list[int]] = [[] for _ in SECTIONS]
        """Each level's ends before a heading: the last line end before it, when only whitespace
        lies between and no heading holds it."""
        for heading in outlined:
            index = bisect_left(lines.ends, heading.start) - 1
            end = lines.ends[index] if index >= 0 else 0
            if end and not text[end : heading.start].strip(WHITESPACE) and not self.heading_spans.holds(end):
                self.section_ends[heading.level - 1].append(end)
        self.section_starts = [heading.start for heading in outlined]
        self.paths = [[*heading.path, heading.content] for heading in outlined]

    @cached_property
    def around_excluded(self) -> Ranges:
        """``excluded`` for the sentence and word ends outside it (``Ranges.joined_over_blanks``)."""
        return self.excluded.joined_over_blanks(self.text)

    @cached_property
    def around_headings(self) -> Ranges:
        """``heading_spans`` for the character ends outside them (``Ranges.joined_over_blanks``)."""
        return self.heading_spans.joined_over_blanks(self.text)

    @cached_property
    def lines(self) -> list[int]:
        """The line ends of ``line`` kind: asked only when no section or paragraph end is in reach."""
        return self.excluded.keep(self._line_ends, inside=False)

    @cached_property
    def literal_lines(self) -> list[int]:
        """The line ends of ``literal-line`` kind: asked only for a chunk that must cut a block."""
        return self.literal_insides.keep(self._line_ends, inside=True)

    @cached_property
    def table_lines(self) -> list[int]:
        """The line ends of ``table-row`` kind: asked only for a chunk that must cut a table."""
        return self.table_insides.keep(self._line_ends, inside=True)

    def table_headers_of(self, text: str, starts: list[int]) -> Iterator[tuple[int, TableHeader]]:
        """Each chunk (by its index, of those starting at ``starts``, in order) whose start lies in a
        table at or after the end of its delimiter row, with that table's header (offsets in
        ``text``): two bisections per table."""
        for start, end, visible_end in self.table_headers:
            for index in range(bisect_left(starts, end), bisect_left(starts, visible_end)):
                yield index, {"start": start, "end": end, "text": text[start:end]}

    def headings_at(self, position: int) -> list[str]:
        """The heading path of the section that holds ``position`` (``[]`` before the first heading)."""
        index = bisect_right(self.section_starts, position) - 1
        return self.paths[index] if index >= 0 else self.path_before


class MarkdownChunker(Chunker):
    """The size chunker with the Markdown kinds of ends (the descriptor's order) and no
    overlap across a heading."""

    def __init__(
        self,
        text: str,
        settings: Settings,
        max_level: int,
        final: bool = True,
        blocks: Blocks | None = None,
        open_headings: OpenHeadings | None = None,
    ) -> None:
        """``blocks``: the block parse of ``text`` or of a window that ``text`` begins (found here
        if not given); ``open_headings``: those open where ``text`` starts."""
        super().__init__(text, settings, final)
        self.max_level = max_level
        self._blocks = blocks
        self._open_headings = list(open_headings or [])  # its own: the caller's goes on to the next window

    @cached_property
    def layout(self) -> MarkdownLayout:
        blocks = self._blocks
        if blocks is None:  # the tables' lines are read at the chunker's line starts: the text is split once
            blocks = block_structure(self.text, tables=True, starts=self.lines.starts_of_lines)
        return MarkdownLayout(self.text, self.lines, self.max_level, blocks, self._open_headings)

    def _usual_end(self, start: int, floor: int, high: int) -> Span | None:
        """An end before a heading, best level first, else a paragraph end: one bisect each."""
        for cut, ends in (*zip(SECTIONS, self.layout.section_ends, strict=True), ("paragraph", self.layout.paragraphs)):
            index = bisect_right(ends, high) - 1
            if index >= 0 and ends[index] > floor:
                return Span(start, ends[index], cut, None)
        return None

    def _ends_by_kind(self, start: int, low: int, high: int) -> Iterator[tuple[str, Iterator[int]]]:
        layout = self.layout
        for cut, ends in zip(SECTIONS, layout.section_ends, strict=True):
            yield cut, LineEnds.last(ends, low, high)
        yield "paragraph", LineEnds.last(layout.paragraphs, low, high)
        yield "line", LineEnds.last(layout.lines, low, high)
        reach = self.reach(start, high)
        yield "sentence", layout.around_excluded.outside(low, high, reach.sentence_ends)
        yield "word", layout.around_excluded.outside(low, high, reach.word_ends)
        yield "heading", layout.heading_spans.within(low, high, self.character_ends)

        def words(low: int, high: int) -> Iterator[int]:
            return merge(reach.sentence_ends(low, high), reach.word_ends(low, high), reverse=True)

        yield "table-row", LineEnds.last(layout.table_lines, low, high)
        yield "table-cell", layout.table_insides.within(low, high, self._cell_ends)
        yield "table-word", layout.table_insides.within(low, high, words)
        yield "literal-line", LineEnds.last(layout.literal_lines, low, high)
        yield "literal-word", layout.literal_insides.within(low, high, words)
        yield "character", layout.around_headings.outside(low, high, self.character_ends)

    def _cell_ends(self, low: int, high: int) -> Iterator[int]:
        """Ends in (low, high] between two cells: after a character that is not whitespace, before
        spaces or tabs and a ``|`` that is not escaped (an even run of backslashes before it), at
        a cluster boundary; last first."""
        text = self.text
        after = _NOT_SPACE_OR_TAB.search(text, high)  # the pipe may lie past ``high``, after spaces or tabs
        found = [at.start() for at in _BEFORE_A_PIPE.finditer(text, low + 1, after.end() if after else len(text))]
        for end in reversed(found):
            if end > high:
                continue
            if joined(text[end - 1], text[end]) or (text[end] == "|" and _escaped(text, end)):
                continue
            yield end

    def next_start(self, previous: Span) -> tuple[int, int] | None:
        """After an end before a heading, the heading starts the next chunk, without overlap."""
        if previous.cut in SECTIONS:
            after = self.first_start(previous.end)
            assert after is not None, "a heading follows"
            return after, after
        return super().next_start(previous)


_BEFORE_A_PIPE = re.compile(r"(?<=[^ \t\r\n])(?=[ \t]*\|)")
"""A position after a character that is not whitespace, before spaces or tabs and a ``|``."""
_NOT_SPACE_OR_TAB = re.compile(r"[^ \t]")


def _escaped(text: str, pipe: int) -> bool:
    """Whether the ``|`` at ``pipe`` follows an odd run of backslashes."""
    run = 0
    while pipe - run > 0 and text[pipe - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def markdown_size_chunk(
    text: str, sizes: Settings, max_level: int = DEEPEST, max_chunks: int | None = MAX_CHUNKS
) -> MarkdownSizeOutput:
    """The chunks of ``text`` (at most ``max_chunks``), each with its heading path."""
    chunker = MarkdownChunker(text, sizes, max_level)
    first = chunker.first_start()
    spans = [] if first is None else list(chunker.spans(first, first, max_chunks))
    if not spans:
        return {"chunk_count": 0, "chunks": []}
    paths = list(map(chunker.layout.headings_at, [span.start for span in spans]))
    chunks = sized_chunk_objects(text, spans, ORIGIN, chunker.lines.starts_of_lines, paths)
    return {"chunk_count": len(chunks), "chunks": with_table_headers(chunks, spans, chunker, 0)}


def with_table_headers(
    chunks: list[SizedChunk],
    spans: list[Span],
    chunker: "MarkdownChunker",
    offset: int,
    carried: "Carried | None" = None,
) -> list[SizedChunk]:
    """``chunks`` (of ``spans``, of ``chunker``'s text, which starts at ``offset`` in the document),
    each that starts in a table after its delimiter row with its ``table_header``, placed before
    its text. ``carried``: the header and delimiter rows that a window's text starts with, not at
    ``offset`` but where they are in the document."""
    if not chunker.layout.table_headers:
        return chunks
    for index, header in chunker.layout.table_headers_of(chunker.text, [span.start for span in spans]):
        shift = carried.at if carried is not None and header["start"] < len(carried.rows) else offset
        chunk = chunks[index]
        text = chunk.pop("text")  # type: ignore[misc]
        header["start"] += shift
        header["end"] += shift
        chunk["table_header"] = header  # type: ignore[typeddict-unknown-key]
        chunk["text"] = text
    return chunks


class Carried(NamedTuple):
    """The header and delimiter rows of the table a window starts in (between two of its rows), as
    the text has them from the header row's first character that is not whitespace (line endings
    included), where that is in the document, and its line."""

    rows: str
    at: int
    line: int


def table_restarts(text: str, starts: list[int], blocks: Blocks, carried: Carried | None) -> dict[int, int]:
    """The lines where a window may start again inside a top-level table, carrying its header and
    delimiter rows (``Carried``, the header row without its indentation): each row after the
    delimiter row from ``TABLE_HELD_CHARS`` code points after the table's start on (any row of a
    table carried in), not the text's last line (it may go on); each with its table's first line.
    Only a table whose header row starts with ``|`` or a letter: carried first, any other could
    start another block than the paragraph it continues here (``2. a | b``, ``<b> | c``)."""
    found = {}
    for table in blocks.tables:
        header = text[starts[table.first] + table.column : starts[table.first] + table.column + 1]
        if not table.top_level or not (header == "|" or header.isalpha()):
            continue  # the header row must start a paragraph as it does here (not a list item, an HTML block...)
        from_here = starts[table.first] + (0 if carried is not None and table.first == 0 else TABLE_HELD_CHARS)
        for line in range(max(table.first + 2, bisect_left(starts, from_here)), min(table.last + 1, len(starts) - 2)):
            found[starts[line]] = table.first
    return found


def _carried(
    text: str, starts: list[int], blocks: Blocks, table_line: int | None, at: Position, carried: Carried | None
) -> Carried | None:
    """What the next window carries when it starts in the table whose first line is ``table_line``
    (``None``: in none), in a window ``text`` that starts at ``at`` and carried ``carried``."""
    if table_line is None:
        return None
    if table_line == 0 and carried is not None:
        return carried
    table = next(table for table in blocks.tables if table.first == table_line)
    first = starts[table.first] + table.column  # the header row without its indentation
    return Carried(text[first : starts[table.first + 2]], at.offset + first, at.line + table.first)


def _held(
    held: int | None, carried: Carried | None, table_line: int | None, decided: int, chunked: bool, at: Position
) -> int | None:
    """The first line (in the document) of the table whose rows must stay a table's in the next
    window: the one it carries in (the text before is gone), else the one whose row the text
    chunked (``chunked``) ended at (``table_line``, its first line in a window that starts at
    ``at``), else ``held`` (the last window's) while the text chunked ends on or before its first
    line (``decided``: where it ends, in the window; after it, it ends where a parse may start
    again, past the table's paragraph: what was chunked is final)."""
    if carried is not None:
        return carried.line
    if table_line is not None:  # not the table carried in: ``carried`` is None
        return at.line + table_line if chunked else held
    return held if held is not None and at.line + decided <= held else None


def _check_held(held: int, blocks: Blocks, read: int, carried: Carried | None, at: Position) -> None:
    """Refuses a document in which the table whose first line is ``held`` (``_held``), its rows
    chunked as a table's or dropped with a window's start, turns out to be (in ``blocks``, of a
    window that starts at ``at`` and carried ``carried``) the content of a setext heading whose
    underline is one of the window's first ``read`` lines (its last, if the text goes on, may go on
    as another block: ``- x``, where ``-`` was an underline)."""
    line = 0 if carried is not None and held == carried.line else held - at.line  # in the window's text
    if any(heading.line <= line < heading.line + heading.lines <= read for heading in blocks.headings):
        raise table_held_too_long(held)


def _visible_end(text: str, starts: list[int], line: int) -> int:
    """Where a line's last character that is not whitespace ends."""
    return starts[line] + len(text[starts[line] : line_end(text, starts, line)].rstrip(WHITESPACE))


def stream_markdown_size_chunk(pieces: Iterable[str], sizes: Settings, max_level: int = DEEPEST) -> Stream:
    """``markdown_size_chunk`` of the joined ``pieces`` with no chunk limit, a window at a time."""
    return Stream(_chunk_batches(pieces, sizes, max_level))


def _chunk_batches(pieces: Iterable[str], sizes: Settings, max_level: int) -> Batches:
    """As the plain size tool's windows (its module's ``_chunk_batches``), with three more rules: a
    window starts at a line where a parse may start again (``texttools.markdown.restart_lines``),
    the last such line at or before the next chunk's context; the chunker reads a window only up to
    its last such line, since the blocks after it may go on (a fence the next window closes); and
    a window may start between two rows of a long top-level table (``table_restarts``), its text then
    preceded by the table's header and delimiter rows (``Carried``), which the parse reads as the
    table's start and no chunk holds. Such a table, once chunked up to one of its rows, or carried,
    must stay one: an underline that makes its rows a setext heading's content is refused
    (``_held``, ``_check_held``)."""
    windows = Windows(pieces)
    resume: tuple[int, int] | None = None  # the next chunk's start and low, in the window's text
    open_headings: OpenHeadings = []  # those open where the window starts
    carried: Carried | None = None
    held: int | None = None  # the first line of a table chunked up to one of its rows, in the document
    count = 0
    for window in windows:
        prefix = carried.rows if carried is not None else ""
        text = prefix + window.text
        starts = line_starts(line_view(text).split("\n"))
        blocks = block_structure(text, restarts=not window.final, tables=True, starts=starts)
        carried_lines = line_view(prefix).count("\n")
        at = Position(window.at.offset - len(prefix), window.at.line - carried_lines, window.at.first_index)
        if held is not None:
            _check_held(held, blocks, len(starts) - 1 - (not window.final), carried, at)
        in_tables = {} if window.final else table_restarts(text, starts, blocks, carried)
        restarts = sorted({*(starts[line] for line in blocks.restarts), *in_tables})
        decided = text if window.final else text[: last_restart(restarts, len(text))]
        chunker = MarkdownChunker(decided, sizes, max_level, window.final, blocks, open_headings)
        if resume is None and (first := chunker.first_start()) is not None:
            resume = (first, first)
        spans = list(chunker.spans(*resume, None)) if resume is not None else []
        count += len(spans)
        if spans:
            paths = [chunker.layout.headings_at(span.start) for span in spans]
            chunks = sized_chunk_objects(decided, spans, at, chunker.lines.starts_of_lines, paths)
            yield with_table_headers(chunks, spans, chunker, at.offset, carried)
        if window.final:
            break
        if resume is None:  # whitespace only so far
            kept = len(decided)
        elif chunker.resume is None:
            break
        else:
            start = chunker.resume[0]
            reader = chunker if start <= len(decided) else Chunker(text, sizes, final=False)
            kept = max(len(prefix), last_restart(restarts, reader.context(start)))  # the context: read past the parse
        if len(text) - kept > MAX_HELD_CHARS:
            raise held_too_long(at.line + line_view(text).count("\n", 0, len(decided)), "block")
        opened = [h for h in blocks.headings if h.level <= max_level and starts[h.line + h.lines] <= kept]
        outline(text, starts, opened, open_headings)  # those that end before the next window (not a carried row's)
        if kept > len(prefix):  # a new table carried in, the same one further on, or none
            carried = _carried(text, starts, blocks, in_tables.get(kept), at, carried)
        decided_line = bisect_right(starts, len(decided)) - 1
        held = _held(held, carried, in_tables.get(len(decided)), decided_line, bool(spans), at)
        next_prefix = len(carried.rows) if carried is not None else 0
        if resume is not None and chunker.resume is not None:
            resume = (chunker.resume[0] - kept + next_prefix, chunker.resume[1] - kept + next_prefix)
        windows.advance(kept - len(prefix), len(spans))
    return {"chunk_count": count}


def _run(params: Params) -> MarkdownSizeOutput:
    return markdown_size_chunk(params["text"], settings_of(params), params["max_level"])


def _stream(pieces: Iterable[str], params: Params) -> Stream:
    return stream_markdown_size_chunk(pieces, settings_of(params), params["max_level"])


def _run_lifted(params: Params) -> MarkdownSizeOutput:
    return markdown_size_chunk(params["text"], settings_of(params), params["max_level"], None)


TOOL = Tool(
    descriptor=DESCRIPTOR,
    fields=input_fields(
        DESCRIPTOR,
        {"text": "max_input_bytes"},
        {**SIZE_DEFAULTS, "max_level": DEEPEST},
        SIZE_FORMS,
    ),
    run=_run,
    errors=(TooManyChunks, OutputTooLarge),
    stream=_stream,
    run_lifted=_run_lifted,
    error_examples=lambda: size_error_examples(MAX_CHUNKS),
    rules=size_rules,
)
