"""The CommonMark 0.31.2 block structure that the Markdown tools read: top-level headings (with
their content and heading paths) and literal blocks (code and HTML blocks, at any depth).

One parse serves both Markdown tools, so a heading that one finds, the other finds. The parser is
pulldown-cmark's (Rust, linear in time, through pyromark), with one correction where it parts from
the CommonMark reference implementations (cmark, commonmark.js): an HTML block opened by ``<pre``,
``<script``, ``<style`` or ``<textarea`` ends at the first line holding any of their four end
tags, in any case (spec 4.6), where pulldown-cmark waits for the one that matches, in lower case
(docs/markdown.md). The parser reads a normalised copy of the text (line endings as LF, U+0000 as
U+FFFD, as CommonMark parses); that copy has the same lines as the text, so what the tools answer
(offsets, lines, heading contents) is read from the text itself by line number, with the line
rules of the other tools. Only the Markdown tools import this module (and pyromark with it).
"""

import re
from typing import Any, NamedTuple

import pyromark

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
_CORRECTION_ROUNDS = 4
"""Parses at most, so that no input costs more than a few linear parses (a corrected block can
bring to light one that it had swallowed; the chained corrections below take most at once)."""

ByteRange = tuple[int, int]


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


class Outlined(NamedTuple):
    """A heading in its document: its first line (0-based) and where it starts, its level, its
    raw content, and the contents of the headings still open before it (its path)."""

    line: int
    start: int
    level: int
    content: str
    path: list[str]


def block_structure(text: str) -> Blocks:
    """The top-level headings and the literal blocks of ``text``, from the block parse of the
    normalised text (lines as in ``text``; U+0000 replaced, for parsing only)."""
    source = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd").encode()
    for _ in range(_CORRECTION_ROUNDS):
        headings, raw_blocks, code_blocks = parsed(source)
        corrected = with_raw_blocks_closed(source, raw_blocks)
        if corrected == source:
            break
        source = corrected
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
    return Blocks(found, literals)


def parsed(source: bytes) -> tuple[list[tuple[ByteRange, int]], list[ByteRange], list[ByteRange]]:
    """pulldown-cmark's top-level headings ``((start, end), level)``, HTML blocks and code blocks,
    as UTF-8 byte ranges of ``source``.

    Only the events that open a block are read. A heading is top-level when no block quote or list
    that opened before it is still open, which their ranges tell (events come in document order,
    and a container's range spans its content).
    """
    headings, raw_blocks, code_blocks = [], [], []
    open_until = 0  # where the block quotes and lists opened so far end
    events: Any = pyromark.events_with_range(source.decode(), merge_text=True)  # (an event, its range)
    for event, where in events:  # read as they come: keeping them costs more than the parse
        if "Start" not in event:  # most are inline text; SoftBreak is a str, without "Start" in it
            continue
        opened = event["Start"]
        if type(opened) is not dict:  # Paragraph, Item, HtmlBlock, ...
            if opened == "HtmlBlock":
                raw_blocks.append((where["start"], where["end"]))
        elif "Heading" in opened:
            if where["start"] >= open_until:
                headings.append(((where["start"], where["end"]), int(opened["Heading"]["level"][1])))
        elif "CodeBlock" in opened:
            code_blocks.append((where["start"], where["end"]))
        elif not _CONTAINERS.isdisjoint(opened):
            open_until = max(open_until, where["end"])
    return headings, raw_blocks, code_blocks


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


def line_end(text: str, starts: list[int], line: int) -> int:
    """Where a line's content ends, before its line ending (``starts``: ``texttools.lines.line_starts``)."""
    end = starts[line + 1] - 1  # where the view has the ending's LF (a lone CR, or a CRLF's LF), or the text ends
    return end - text.startswith("\r\n", end - 1)


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


def outline(text: str, starts: list[int], headings: list[Heading]) -> list[Outlined]:
    """Each heading with its start, content and heading path: the contents of the headings before
    it that are still open (a heading closes every open heading of its level or deeper)."""
    found = []
    open_headings: list[tuple[int, str]] = []  # (level, content) of the headings still open
    for heading in headings:
        content = heading_content(text, starts, heading)
        while open_headings and open_headings[-1][0] >= heading.level:
            open_headings.pop()
        path = [opened for _, opened in open_headings]
        found.append(Outlined(heading.line, starts[heading.line], heading.level, content, path))
        open_headings.append((heading.level, content))
    return found
