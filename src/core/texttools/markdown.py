"""The CommonMark 0.31.2 block structure that the Markdown tools read: top-level headings (with
their content and heading paths) and literal blocks (code and HTML blocks, at any depth).

One parse serves both Markdown tools, so a heading that one finds, the other finds. The parser is
pulldown-cmark's (Rust, linear in time, through pyromark), with corrections where it parts
from CommonMark 0.31.2 (docs/markdown.md lists them, each with the spec's rule and an example):

- an HTML block opened by ``<pre``, ``<script``, ``<style`` or ``<textarea`` ends at the first
  line holding any of their four end tags, in any case (spec 4.6), where pulldown-cmark waits for
  the one that matches, in lower case (``with_raw_blocks_closed``);
- a vertical tab or a form feed is an ordinary character, never the space or tab that a blank
  line, an ATX or setext heading, a list item, a link reference definition or an HTML tag asks
  for, where pulldown-cmark takes them for spaces, and DEL is no more allowed in a link
  destination than the other ASCII control characters (``with_spec_whitespace``);
- a closing code fence may be followed by tabs, where pulldown-cmark allows only spaces; a tab
  ends an unquoted HTML attribute value, which pulldown-cmark runs on; and a tab that takes a
  block quote marker's indentation to four columns makes it no marker (the same).

The parser reads a normalised copy of the text (line endings as LF, U+0000 as U+FFFD, as
CommonMark parses, and the corrections); that copy has the same lines as the text, so what the
tools answer (offsets, lines, heading contents) is read from the text itself by line number, with
the line rules of the other tools. Only the Markdown tools import this module (and pyromark with it).
"""

import re
from bisect import bisect_left, bisect_right
from itertools import accumulate, repeat
from operator import add, sub
from typing import Any, Final, NamedTuple

import pyromark

from .errors import InputTooLarge
from .lines import line_end, line_starts, line_view
from .spans import running_sum
from .tables import MAX_DEPTH, Lines, Paragraph, Table, candidates, find_tables

_CONTAINERS = frozenset({"BlockQuote", "List"})
"""The blocks a heading inside of is not top-level (pyromark's names; a list item is in a list)."""
_RAW_OPENING = re.compile(rb"<(pre|script|style|textarea)(?=[ \t\n>]|$)", re.IGNORECASE)
"""The start condition of an HTML block of type 1 (spec 4.6), at the block's first byte."""
_RAW_CLOSING = re.compile(rb"</(?:pre|script|style|textarea)>", re.IGNORECASE)
"""Its end condition: any of the four end tags, whichever opened it."""
_RAW_OPENING_LINE = re.compile(
    rb"^ {0,3}(?=<(?:pre|script|style|textarea)(?:[ \t\n>]|$))", re.IGNORECASE | re.MULTILINE
)
"""A line at the margin that opens an HTML block of type 1."""
_AS_SOH = bytes.maketrans(b"\v\f\x7f", b"\x01\x01\x01")
"""VT, FF and DEL as U+0001, an ASCII control character that pulldown-cmark reads as CommonMark
reads it and them (``with_spec_whitespace``)."""
_TAB_ENDING_A_LINE_OR_BEFORE_A_MARKER = re.compile(rb"\t[ \t]*(?:$|>)", re.MULTILINE)
"""A tab among the spaces and tabs that end a line or come before a ``>`` (one search for the two
corrections that need one; a tab first: searched at C speed)."""
_TAB_ENDING_A_LINE = re.compile(rb"\t[ \t]*$", re.MULTILINE)
"""A tab among the spaces and tabs that end a line."""
_FENCE_TRAILING_TABS = (
    re.compile(rb"```[ \t]*\t[ \t]*$", re.MULTILINE),
    re.compile(rb"~~~[ \t]*\t[ \t]*$", re.MULTILINE),
)
"""Three backticks or tildes, then spaces and tabs (a tab among them) to the line's end; two
patterns, so that each is searched for its literal start at C speed."""
_TAG_TABS = re.compile(rb"<[A-Za-z/][^<>\n\t]*\t[^<>\n]*")
"""An HTML tag's start (or any ``<`` then a letter or ``/``) with a tab, to the tag's end or the line's."""
_TAB_BEFORE_MARKER = re.compile(rb"\t[ \t]*>")
"""A tab, then maybe more spaces and tabs, then ``>`` (a tab first: searched at C speed)."""
_MARKER_INDENTATION = re.compile(rb"\n[ \t>*+\-0-9.)]*\t[ \t]*>")
"""A line's start up to such a ``>``, of indentation and container markers only (one column each),
after the newline before it (a literal first: searched at C speed)."""
_CORRECTION_ROUNDS = 4
"""Parses at most, so that no input costs more than a few linear parses (a corrected block can
bring to light one that it had swallowed; the chained corrections below take most at once)."""

ByteRange = tuple[int, int]
ParagraphRange = tuple[int, int, tuple[tuple[bool, int], ...], bool]
"""A paragraph's (or a heading's) UTF-8 byte range, its containers, and whether it is a heading
(``_parsed_with_paragraphs``)."""
BlockRange = tuple[int, int, bool]
"""A block's UTF-8 byte range and whether it is a list (``restart_lines``)."""
_BLANK_LINE = re.compile(b"^[ \t]*\n", re.MULTILINE)
_BOM = "\ufeff".encode()
_FFFD = "\ufffd".encode()
_EXCHANGED = ("\t", "\v", "\f", "\x7f")
"""What ``with_spec_whitespace`` may exchange: a text without them, it leaves as it is."""
_INLINE = frozenset({"Emphasis", "Strong", "Strikethrough", "Superscript", "Subscript", "Link", "Image"})
"""The Start events of pulldown-cmark that open no block (a dict's kind is its one key)."""


class Heading(NamedTuple):
    """A top-level heading as the parser found it: its first line (0-based), how many lines it
    takes (a setext heading's content lines and its underline), its level, and its kind."""

    line: int
    lines: int
    level: int
    setext: bool


class Blocks(NamedTuple):
    """What the Markdown tools ask of a document's block parse, by 0-based line."""

    headings: list[Heading]
    """The top-level ATX and setext headings, in order."""
    literals: list[tuple[int, int]]
    """The first and last line of each code block and HTML block, at any depth, in order."""
    restarts: list[int]
    """With ``restarts`` asked: the lines where a parse of the text from there finds the blocks of
    the whole parse from there on (``restart_lines``), in order; else empty."""
    tables: list[Table]
    """With ``tables`` asked: the tables (``texttools.tables``), in order; else empty."""


class Outlined(NamedTuple):
    """A heading in its document: its first line (0-based) and where it starts, its level, its
    raw content, and the contents of the headings still open before it (its path)."""

    line: int
    start: int
    level: int
    content: str
    path: list[str]


def block_structure(text: str, restarts: bool = False, tables: bool = False, starts: list[int] | None = None) -> Blocks:
    """The top-level headings and the literal blocks of ``text``, from the block parse of the
    normalised text (lines as in ``text``; U+0000 replaced, for parsing only), with ``restarts``
    the lines where a parse may start again (a document read in windows), and with ``tables``
    the tables. ``starts``: the text's line starts (``texttools.lines.line_starts``), when the
    caller has them (the tables' lines are read from them; else the text is split for them, if a
    line may be a delimiter row)."""
    normal = text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text  # one search, mostly
    # pyromark keeps the UTF-8 of a text it reads (in the str), and encoding that text is a copy then: a
    # text that is not ASCII (else encoding is a copy anyway) is read first where the exchanges below
    # cannot change it (U+0000 aside: rare, read again).
    plain = not normal.isascii() and not any(map(normal.__contains__, _EXCHANGED))
    events = _events(normal) if plain else None
    encoded = normal.encode()  # U+0000 replaced in the bytes, where it is searched for at C speed (memchr)
    source = with_spec_whitespace(encoded.replace(b"\0", _FFFD) if b"\0" in encoded else encoded)
    if source is not encoded:
        events = None
    for _ in range(_CORRECTION_ROUNDS):
        every_block: list[BlockRange] | None = [] if restarts else None
        hints = candidates(source) if tables else []
        paragraphs: list[ParagraphRange] | None = [] if hints else None
        if events is None:  # the text's own str while the bytes are its encoding: no decoding
            events = _events(normal if source is encoded else source.decode())
        headings, raw_blocks, code_blocks = parsed(source, every_block, paragraphs, hints, events)
        corrected = with_raw_blocks_closed(source, raw_blocks)
        if corrected == source:
            break
        source, events = corrected, None
    levels = dict(headings)
    ranges = sorted([*levels, *raw_blocks, *code_blocks])  # disjoint blocks, so in document order
    found, literals = [], []
    line = at = 0
    for start, end in ranges:  # each newline is counted once, at C speed
        line += source.count(b"\n", at, start)
        at = start
        last = line + source.count(b"\n", start, end - 1)  # a range ends after its last line's ending
        if (start, end) in levels:
            found.append(Heading(line, last - line + 1, levels[start, end], last > line))
        else:
            literals.append((line, last))
    restart = restart_lines(source, every_block) if every_block is not None else []
    read_on: list[tuple[int, int]] = []  # where cmark-gfm's blocks go on past the plain parse's: no restart
    found_tables = _tables(text, starts, source, paragraphs, hints, read_on) if paragraphs else []
    if read_on and restart:
        restart = _outside(restart, read_on)
    return Blocks(found, literals, restart, found_tables)


def _outside(lines: list[int], ranges: list[tuple[int, int]]) -> list[int]:
    """The ``lines`` in none of ``ranges`` (first and last line, ordered by first line, which may
    overlap): a bisection each, so that many ranges cost no more than a few."""
    firsts = [first for first, _ in ranges]
    reach = list(accumulate((last for _, last in ranges), max))  # the last line any range up to each reaches
    return [line for line in lines if (index := bisect_right(firsts, line) - 1) < 0 or line > reach[index]]


def _tables(
    text: str,
    starts: list[int] | None,
    source: bytes,
    paragraphs: list[ParagraphRange],
    hints: list[int],
    read_on: list[tuple[int, int]],
) -> list[Table]:
    """The tables of the paragraphs (``texttools.tables.find_tables``, which adds to ``read_on``),
    from their byte ranges
    (each offset's line counted from the one before, in one pass at C speed), each marked with
    whether it holds one of ``hints`` (offsets on the lines that may be delimiter rows:
    ``texttools.tables.candidates``; a bisection each); the lines read from ``text`` at ``starts``
    (``block_structure``'s)."""
    wanted = []
    for start, end, containers, _ in paragraphs:
        wanted += [start, max(start, end - 1), *(at for _, at in containers[: MAX_DEPTH + 1])]
    lines, line, before = {}, 0, 0
    for offset in sorted(set(wanted)):
        line += source.count(b"\n", before, offset)
        lines[offset], before = line, offset

    def chain(containers: tuple[tuple[bool, int], ...]) -> tuple[tuple[str, int], ...]:
        return tuple(("quote" if quote else "item", lines[at]) for quote, at in containers[: MAX_DEPTH + 1])

    def hinted(start: int, end: int) -> bool:
        return bisect_left(hints, start) < bisect_left(hints, end)

    read = [Paragraph(lines[start], lines[max(start, end - 1)], chain(containers), heading, hinted(start, end))
            for start, end, containers, heading in paragraphs]  # fmt: skip
    if starts is None:
        starts = line_starts(line_view(text).split("\n"))
    return find_tables(Lines(text, starts), sorted(read), read_on)


def restart_lines(source: bytes, every_block: list[BlockRange]) -> list[int]:
    """The lines ``R`` (0-based, not the first, not the last: a window's last line may go on) at
    which a block parse of ``source[R:]`` finds what the parse of the whole finds from ``R`` on.

    CommonMark decides a line's blocks from the blocks open after the line before it and the line
    itself. So ``R`` qualifies when no block that opened before ``R`` is open at ``R`` (its range
    does not reach past the line before), and the line before is blank or the last line of a block
    the parse reports (a list's range may hold such definitions after its last item): a line that
    no block holds may be a link reference definition, which a title or any line that cannot
    interrupt a paragraph (``<span>``) on the next line can continue. One kind of block may stay
    open: a top-level list, when a new item starts at ``R`` (no item, and so no block inside one,
    crosses); the parse from ``R`` starts a new list there, whose items hold the same blocks. A
    line that starts with U+FEFF is not taken either (a parse drops it as a byte order mark at its
    start)."""
    starts = running_sum(map(add, map(len, source.split(b"\n")), repeat(1)), 0)
    lines = len(starts) - 1
    if not every_block:
        return []
    block_starts, block_ends, lists = zip(*every_block, strict=True)
    firsts = list(map(bisect_right, repeat(starts), block_starts))  # each 1 + its first line
    lasts = list(map(bisect_right, repeat(starts), map(max, block_starts, map(sub, block_ends, repeat(1)))))
    # each 1 + a line that is some block's last; not a list's: its range may go on over link reference
    # definitions after its last item, which the next line may continue (its items' last lines count)
    last_lines = {last for last, is_list in zip(lasts, lists, strict=True) if not is_list}
    crossing = [0] * (lines + 2)  # +1 where a crossing block's later lines begin, -1 after them
    for first, last, is_list in zip(firsts, lasts, lists, strict=True):
        if last > first and not is_list:
            crossing[first] += 1
            crossing[last] -= 1
    blank_ends = {found.end() for found in _BLANK_LINE.finditer(source)}  # the line after a blank one starts there
    return [
        line
        for line, open_blocks in enumerate(accumulate(crossing[: lines - 1]))  # not the last: it may go on
        if line and not open_blocks and (line in last_lines or starts[line] in blank_ends)
        and not source.startswith(_BOM, starts[line])
    ]  # fmt: skip


def parsed(
    source: bytes,
    every_block: list[BlockRange] | None = None,
    paragraphs: list[ParagraphRange] | None = None,
    hints: list[int] | None = None,
    events: Any = None,
) -> tuple[list[tuple[ByteRange, int]], list[ByteRange], list[ByteRange]]:
    """pulldown-cmark's top-level headings ``((start, end), level)``, HTML blocks and code blocks,
    as UTF-8 byte ranges of ``source``; into ``every_block``, when given, every block's range
    and whether it is a list (``restart_lines``); and into ``paragraphs``, when given, the
    paragraphs and headings of each top-level block that holds one of ``hints`` (sorted byte
    offsets on the lines that may be a table's delimiter row) with their containers (``_read_block``).
    ``events``: the parser's events of ``source`` (``_events``), when the caller has them.

    Only the events that open a block are read, but in such a block. A heading is top-level when
    no block quote or list that opened before it is still open, which their ranges tell (events
    come in document order, and a container's range spans its content).
    """
    headings: list[tuple[ByteRange, int]] = []
    raw_blocks: list[ByteRange] = []
    code_blocks: list[ByteRange] = []
    found = headings, raw_blocks, code_blocks
    open_until = 0  # where the block quotes and lists opened so far end
    ahead = _Ahead(hints or [], paragraphs)
    events = _events(source.decode()) if events is None else events
    for event, where in events:  # read as they come: keeping them costs more than the parse
        if "Start" not in event:  # most are inline text; SoftBreak is a str, without "Start" in it
            if every_block is not None and event == "Rule":  # a thematic break: a block without content
                every_block.append((where["start"], where["end"], False))
            continue
        opened = event["Start"]
        if type(opened) is not dict:  # Paragraph, Item, HtmlBlock, Emphasis, ...
            if every_block is not None and opened not in _INLINE:
                every_block.append((where["start"], where["end"], False))
            if opened == "HtmlBlock":
                raw_blocks.append((where["start"], where["end"]))
            elif opened == "Paragraph" and where["end"] > ahead.next and ahead.within(where):
                ahead.paragraphs.append((where["start"], where["end"], (), False))  # a container holding it is read
            continue
        kind = next(iter(opened))
        if kind in _CONTAINERS and where["start"] >= open_until and where["end"] > ahead.next and ahead.within(where):
            _read_block(event, where, events, every_block, ahead.paragraphs, found)  # a top-level one, read whole
            open_until = where["end"]
            continue
        if every_block is not None and kind not in _INLINE:
            every_block.append((where["start"], where["end"], kind == "List"))
        if kind == "Heading" and where["start"] >= open_until:
            _top_level_heading(opened["Heading"], where, headings, ahead)
        elif kind == "CodeBlock":
            code_blocks.append((where["start"], where["end"]))
        elif kind in _CONTAINERS:
            open_until = max(open_until, where["end"])
    return found


def _top_level_heading(
    heading: dict[str, Any], where: dict[str, int], headings: list[tuple[ByteRange, int]], ahead: "_Ahead"
) -> None:
    """``parsed``'s step at a top-level heading: recorded, and among the paragraphs if it holds a hint."""
    headings.append(((where["start"], where["end"]), int(heading["level"][1])))
    if where["end"] > ahead.next and ahead.within(where):
        ahead.paragraphs.append((where["start"], where["end"], (), True))


def _events(text: str) -> Any:
    """pulldown-cmark's events of ``text`` with their ranges (UTF-8 byte offsets), as they come."""
    return iter(pyromark.events_with_range(text, merge_text=True))


class _Ahead:
    """Sorted offsets (``parsed``'s hints), asked about ranges in order: whether one lies in each;
    and the paragraphs of the ranges that hold one."""

    def __init__(self, offsets: list[int], paragraphs: list[ParagraphRange] | None) -> None:
        self.paragraphs: list[ParagraphRange] = paragraphs if paragraphs is not None else []
        """Where the hinted blocks' paragraphs go (none are hinted without it)."""
        offsets = offsets if paragraphs is not None else []
        self.offsets, self.at = offsets, 0
        self.next = offsets[0] if offsets else 1 << 62
        """The first offset not passed yet: no range that ends at or before it holds one."""

    def within(self, where: dict[str, int]) -> bool:
        """Whether an offset lies in the range ``where``, whose end lies past ``next``."""
        offsets = self.offsets
        self.at = bisect_left(offsets, where["start"], self.at)
        self.next = offsets[self.at] if self.at < len(offsets) else 1 << 62
        return self.next < where["end"]


def _read_block(
    event: Any,
    where: dict[str, int],
    events: Any,
    every_block: list[BlockRange] | None,
    paragraphs: list[ParagraphRange],
    found: tuple[list[tuple[ByteRange, int]], list[ByteRange], list[ByteRange]],
) -> None:
    """``parsed`` of one top-level block that starts with ``event``, reading all of its events
    (``events`` goes on after it): also each paragraph's range and containers and each heading's
    (into ``paragraphs``), which a table needs. A paragraph is a ``Paragraph`` block, or the text
    of a tight list item (pulldown-cmark gives it no block of its own: its inline events, between
    the item's blocks). Containers: ``(True, start)`` for a block quote, ``(False, start)`` for a
    list item, outermost first."""
    stack: list[tuple[str, int]] = []  # the blocks open, outermost first: kind, start
    run: list[int] = []  # the tight item text open: its start and end
    while True:
        edge, block, kind = _block_edge(event)
        if not edge:  # inline: in a tight item, its text
            if stack and stack[-1][0] == "Item":
                run[:] = [run[0] if run else where["start"], where["end"]]
        else:
            if run:  # a block opens or closes in a tight item: its text so far is a paragraph
                paragraphs.append((run[0], run[1], (*_containers(stack[:-1]), (False, stack[-1][1])), False))
                run.clear()
            if edge == "End":
                stack.pop()
            else:
                _opened(edge, block, kind, where, stack, every_block, paragraphs, found)
        if not stack:
            return
        event, where = next(events)


def _opened(
    edge: str,
    block: Any,
    kind: str,
    where: dict[str, int],
    stack: list[tuple[str, int]],
    every_block: list[BlockRange] | None,
    paragraphs: list[ParagraphRange],
    found: tuple[list[tuple[ByteRange, int]], list[ByteRange], list[ByteRange]],
) -> None:
    """``_read_block``'s step at a block that opens (or a thematic break)."""
    headings, raw_blocks, code_blocks = found
    start, end = where["start"], where["end"]
    if every_block is not None:
        every_block.append((start, end, kind == "List"))
    if kind == "HtmlBlock":
        raw_blocks.append((start, end))
    elif kind == "Heading":
        paragraphs.append((start, end, _containers(stack), True))
        if not stack:
            headings.append(((start, end), int(block["Heading"]["level"][1])))
    elif kind == "CodeBlock":
        code_blocks.append((start, end))
    elif kind == "Paragraph":
        paragraphs.append((start, end, _containers(stack), False))
    if edge == "Start":
        stack.append((kind, start))


def _block_edge(event: Any) -> tuple[str, Any, str]:
    """Whether an event opens a block (``Start``), closes one (``End``), is a block without
    content (``Rule``: opens none) or is inline (``""``); with the block and its kind."""
    if type(event) is not dict:
        return ("Rule", None, "Rule") if event == "Rule" else ("", None, "")
    edge = "Start" if "Start" in event else "End" if "End" in event else ""
    if not edge:
        return "", None, ""
    block = event[edge]
    kind: str = next(iter(block)) if type(block) is dict else block
    return ("", None, "") if kind in _INLINE else (edge, block, kind)


def _containers(stack: list[tuple[str, int]]) -> tuple[tuple[bool, int], ...]:
    """The block quotes and list items among the open blocks, outermost first."""
    return tuple((kind == "BlockQuote", start) for kind, start in stack if kind in ("BlockQuote", "Item"))


def with_spec_whitespace(source: bytes) -> bytes:
    r"""``source`` with the characters that pulldown-cmark reads otherwise than CommonMark 0.31.2
    exchanged for ones that it reads as CommonMark reads them; the same lines (only the tabs of a
    block quote marker's indentation change the length in bytes).

    - VT (U+000B), FF (U+000C) and DEL (U+007F) become U+0001. pulldown-cmark takes VT and FF for
      spaces wherever a space or a tab may stand (its ``is_ascii_whitespace_no_nl``), where the
      block structure knows only those two: "A line containing no characters, or a line
      containing only spaces (U+0020) or tabs (U+0009), is called a blank line", "The opening
      sequence of # characters must be followed by spaces or tabs, or by the end of line", a
      setext underline "may have trailing spaces or tabs", "at least one space or tab is needed
      between the list marker and any following content". So ``##\vvt`` and ``#\fb`` are paragraphs,
      ``    \f`` is an indented code block and ``=\v`` underlines nothing. It lets DEL into a link
      destination, which "does not include ASCII control characters" (U+0000-U+001F and U+007F),
      so ``[o]: \x7f/u`` defines nothing. The spec reads U+0001 as it reads these three (an ordinary
      character, but in a link destination), and so does pulldown-cmark. The layer follows the spec's
      text also where the reference implementations (cmark, commonmark.js, markdown-it) read VT
      and FF as whitespace: in an HTML tag (``<div\v``, which the descriptor leaves unspecified)
      and a link label (``[\v]: /u`` defines ``\v``), so that every position has one rule.
    - The tabs after a closing code fence become spaces: "The closing code fence ... may be
      followed only by spaces or tabs, which are ignored", where pulldown-cmark allows spaces only
      (`````\t`` closes nothing for it). Only the trailing tabs of a line that ends with three
      backticks or tildes before them change: where such a line is no closing fence, they end an
      opening fence, a paragraph or a literal block's line, where spaces and tabs are alike.
    - The tabs in an HTML tag become spaces: its whitespace is "spaces, tabs, and up to one line
      ending", and an unquoted attribute value holds no "spaces, tabs, line endings", where
      pulldown-cmark lets tabs into one (``<g x=a\t\x85y>`` is no tag, so no HTML block). Only
      tabs after a ``<`` and a letter or ``/`` change, none of them in a line's indentation, where
      a tab's width could count.
    - The indentation before a block quote marker becomes spaces when it holds a tab, to the same
      columns: "A block quote marker, optionally preceded by up to three spaces of indentation";
      tabs "behave as if they were replaced by spaces with a tab stop of 4 characters".
      pulldown-cmark takes three columns of the tab and the ``>`` after it for a block quote's
      continuation (``> # q`` then ``\t>``, which is indented code). Only a line's start of
      indentation and container markers up to such a marker changes (each of them one column
      wide, so every column stays where it was).
    """
    if b"\v" in source or b"\f" in source or b"\x7f" in source:  # most text has none: no copy then
        source = source.translate(_AS_SOH)
    if b"\t" not in source:  # the rest is about tabs
        return source
    source = _TAG_TABS.sub(lambda tag: tag[0].replace(b"\t", b" "), source)
    if _TAB_ENDING_A_LINE_OR_BEFORE_A_MARKER.search(source) is None:  # most text with tabs: no more searches
        return source
    if _TAB_ENDING_A_LINE.search(source) is not None:
        for fence_tabs in _FENCE_TRAILING_TABS:
            source = fence_tabs.sub(lambda fence: fence[0][:3] + fence[0][3:].replace(b"\t", b" "), source)
    if _TAB_BEFORE_MARKER.search(source) is None:  # no tab before a ">": no search from every line
        return source
    lines = _MARKER_INDENTATION.sub(lambda line: b"\n" + line[0][1:].expandtabs(4), b"\n" + source)
    return lines[1:]  # the first line's start found after a newline too


def with_raw_blocks_closed(source: bytes, raw_blocks: list[ByteRange]) -> bytes:
    """``source`` with each HTML block of type 1 that pulldown-cmark ran past its end (the first
    line holding any of the four end tags) closed there: that end tag becomes the one that opened
    the block, so pulldown-cmark ends it on the same line as the references do. Openings inside
    such a block's overrun are blocks of their own in the references: closed the same way, in the
    same pass. Same length in lines; nothing else changes."""
    pieces, done = [], 0
    for start, end in raw_blocks:
        opening = _RAW_OPENING.match(source, start)
        if opening is None or start < done:
            continue
        while opening is not None and opening.start() < end:
            closing = _RAW_CLOSING.search(source, opening.start(), end)
            closing_line_end = source.find(b"\n", closing.start()) if closing else -1
            if closing is None or closing_line_end == -1 or closing_line_end + 1 >= end:
                break  # no end tag inside the block, or the block ends on its line: as the references
            wanted = b"</" + opening[1].lower() + b">"  # pulldown-cmark matches end tags in lower case only
            pieces += [source[done : closing.start()], wanted]
            done = closing.end()
            opening = _next_raw_opening(source, closing_line_end + 1, end)
    return b"".join([*pieces, source[done:]]) if pieces else source


def _next_raw_opening(source: bytes, start: int, end: int) -> "re.Match[bytes] | None":
    """The next line in ``source[start:end]`` that opens an HTML block of type 1 (up to three
    spaces of indentation, as a block at the margin)."""
    at = _RAW_OPENING_LINE.search(source, start, end)
    return _RAW_OPENING.match(source, at.end()) if at else None


def line_content(text: str, starts: list[int], line: int) -> str:
    """A line without its line ending."""
    return text[starts[line] : line_end(text, starts, line)]


def heading_content(text: str, starts: list[int], heading: Heading) -> str:
    """The heading's raw content, as the Markdown tools' descriptors define it (inline markup kept
    verbatim)."""
    if heading.setext:  # its content lines, each without its indentation, then no trailing blanks
        underline = heading.line + heading.lines - 1
        content_lines = (line_content(text, starts, line).lstrip(" \t") for line in range(heading.line, underline))
        return "\n".join(content_lines).rstrip(" \t")
    # ATX: up to three spaces, the opening sequence, then the content and an optional closing
    # sequence (only #s, after a space or tab), each side's spaces and tabs removed.
    content = line_content(text, starts, heading.line).lstrip(" ")[heading.level :].strip(" \t")
    before_closing = content.rstrip("#")
    if not before_closing:
        return ""
    return before_closing.rstrip(" \t") if before_closing[-1] in " \t" else content


OpenHeadings = list[tuple[int, str]]
"""The level and content of each heading still open, outermost first (a heading path's source)."""


def outline(
    text: str, starts: list[int], headings: list[Heading], open_headings: OpenHeadings | None = None
) -> list[Outlined]:
    """Each heading with its start, content and heading path: the contents of the headings before
    it that are still open (a heading closes every open heading of its level or deeper).
    ``open_headings``: those open where ``text`` starts (a window of a longer text), updated."""
    found = []
    open_headings = [] if open_headings is None else open_headings
    for heading in headings:
        content = heading_content(text, starts, heading)
        while open_headings and open_headings[-1][0] >= heading.level:
            open_headings.pop()
        path = [opened for _, opened in open_headings]
        found.append(Outlined(heading.line, starts[heading.line], heading.level, content, path))
        open_headings.append((heading.level, content))
    return found


MAX_HELD_CHARS: Final = 1 << 23
"""The most text a Markdown tool holds at once in the document flows: a block that a parse must see
whole (no line inside it where a parse may start again: ``restart_lines``), or a section of
the sections tool, whose object gives its end before its text (8 Mi code points)."""


def held_too_long(line: int, what: str) -> InputTooLarge:
    """The refusal of a Markdown document whose block or section starting on ``line`` is longer
    than ``MAX_HELD_CHARS``: where to look, and the limit."""
    return InputTooLarge(
        f"The {what} starting on line {line} is longer than {MAX_HELD_CHARS} characters, the most a "
        "Markdown tool holds at once in the document flows.",
        [{"field": "text", "problem": f"must not hold a {what} longer than {MAX_HELD_CHARS} characters (line {line})"}],
    )


TABLE_HELD_CHARS: Final = 1 << 16
"""How much of a top-level table the document flows hold before a window may start again between
two of its rows, carrying its header and delimiter rows (64 Ki code points; docs/decisions.md,
"Tables in the document flows"): a shorter table is read whole, as any paragraph."""


def table_held_too_long(line: int) -> InputTooLarge:
    """The refusal of a document in which a table longer than ``TABLE_HELD_CHARS``, read in
    windows, turns out to be the content of a setext heading (an underline after its rows)."""
    return InputTooLarge(
        f"The setext heading starting on line {line} holds a table longer than {TABLE_HELD_CHARS} characters, the "
        "most a Markdown tool holds of a table in the document flows.",
        [{"field": "text", "problem": f"must not hold a setext heading over a table longer than {TABLE_HELD_CHARS} "
          f"characters (line {line})"}],
    )  # fmt: skip


def last_restart(restarts: list[int], position: int) -> int:
    """The last of ``restarts`` (offsets where a parse may start again, in order) at or before
    ``position``; 0, the window's own start, when there is none."""
    index = bisect_right(restarts, position) - 1
    return restarts[index] if index >= 0 else 0
