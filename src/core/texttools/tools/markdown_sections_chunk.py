"""markdown-sections-chunk: a Markdown document cut at its top-level headings, as a CommonMark
0.31.2 block parser finds them, with heading paths, spans and line numbers.

The parser is pulldown-cmark's (Rust, linear in time, through pyromark), with one correction where
it parts from the CommonMark reference implementations (cmark, commonmark.js): an HTML block opened
by ``<pre``, ``<script``, ``<style`` or ``<textarea`` ends at the first line holding any of their
four end tags, in any case (spec 4.6), where pulldown-cmark waits for the one that matches, in
lower case (docs/markdown.md).
Which lines are headings, their levels and whether they are top-level blocks is all this tool asks
of it. It reads a normalised copy of the text (line endings as LF, U+0000 as U+FFFD, as CommonMark
parses); that copy has the same lines as the text, so everything the answer holds (offsets,
lines, heading contents) is read from the text itself by line number, with the line rules of
the other tools.
"""

import re
from typing import Any, NamedTuple, TypedDict

import pyromark

from ..descriptor import load_descriptor
from ..errors import OutputTooLarge, TooManyChunks
from ..fields import input_fields
from ..lines import line_count, line_starts, line_view
from ..tool import Params, Tool

DESCRIPTOR = load_descriptor("markdown-sections-chunk")
MAX_SECTIONS = DESCRIPTOR.limits["max_sections"]
DEEPEST = DESCRIPTOR.input_schema["properties"]["max_level"]["maximum"]
"""The deepest heading level, and ``max_level``'s default (the descriptor: "defaults to 6")."""

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
_BLANK = " \t\r\n"
"""What blank lines and line endings are made of (only U+0020 and U+0009 make a line blank)."""
_ENDING = re.compile(r"[\r\n]")


class Section(TypedDict):
    index: int
    level: int
    heading: str | None
    path: list[str]
    start: int
    end: int
    start_line: int
    end_line: int
    line_count: int
    text: str


class MarkdownSectionsOutput(TypedDict):
    section_count: int
    line_count_total: int
    sections: list[Section]


class Heading(NamedTuple):
    """A top-level heading as the parser found it: its first line (0-based), how many lines it
    takes (a setext heading's content lines and its underline), its level, and its kind."""

    line: int
    lines: int
    level: int
    setext: bool


def markdown_sections_chunk(text: str, max_level: int = DEEPEST) -> MarkdownSectionsOutput:
    """Cut ``text`` at its top-level headings of level ``max_level`` or less."""
    view = line_view(text)
    starts = line_starts(view.split("\n"))
    headings = [heading for heading in top_level_headings(text) if heading.level <= max_level]
    section_starts = [starts[heading.line] for heading in headings]
    preamble = preamble_start(text, section_starts[0] if headings else len(text))
    count = len(headings) + (preamble is not None)
    if count > MAX_SECTIONS:
        raise TooManyChunks(f"The text has more than {MAX_SECTIONS} sections.")
    sections: list[Section] = []
    if preamble is not None:
        stop = section_starts[0] if headings else len(text)
        first_line = 1 + view.count("\n", 0, preamble)
        sections.append(_section(text, view, 0, 0, None, [], preamble, stop, first_line))
    open_headings: list[tuple[int, str]] = []  # (level, heading) of the headings still open
    stops = [*section_starts[1:], len(text)] if headings else []
    for heading, start, stop in zip(headings, section_starts, stops, strict=True):
        content = heading_content(text, starts, heading)
        while open_headings and open_headings[-1][0] >= heading.level:
            open_headings.pop()
        path = [opened for _, opened in open_headings]
        open_headings.append((heading.level, content))
        index, line = len(sections), heading.line + 1
        sections.append(_section(text, view, index, heading.level, content, path, start, stop, line))
    return {"section_count": len(sections), "line_count_total": line_count(view), "sections": sections}


def top_level_headings(text: str) -> list[Heading]:
    """The ATX and setext headings that are top-level blocks, in order, from the block parse of
    the normalised text (lines as in ``text``; U+0000 replaced, for parsing only)."""
    source = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd").encode()
    for _ in range(_CORRECTION_ROUNDS):
        headings, raw_blocks = parsed(source)
        corrected = with_raw_blocks_closed(source, raw_blocks)
        if corrected == source:
            break
        source = corrected
    found = []
    line = at = 0
    for start, end, level in headings:  # in order: each newline is counted once, at C speed
        line += source.count(b"\n", at, start)
        at = start
        lines = 1 + source.count(b"\n", start, end - 1)  # the range ends after its last line's ending
        found.append(Heading(line, lines, level, lines > 1))
    return found


def parsed(source: bytes) -> tuple[list[tuple[int, int, int]], list[tuple[int, int]]]:
    """pulldown-cmark's top-level headings ``(start, end, level)`` and HTML blocks ``(start,
    end)``, as UTF-8 byte ranges of ``source``."""
    headings, raw_blocks = [], []
    depth = 0  # block quotes and lists open around the event (a list item is always in a list)
    events: Any = pyromark.events_with_range(source.decode(), merge_text=True)  # (an event, its range)
    for event, where in events:
        if type(event) is not dict:  # SoftBreak, HardBreak, Rule
            continue
        opened = event.get("Start")
        if opened is None:
            closed = event.get("End")
            depth -= type(closed) is dict and not _CONTAINERS.isdisjoint(closed)
        elif type(opened) is not dict:  # Paragraph, Item, HtmlBlock, ...
            if opened == "HtmlBlock":
                raw_blocks.append((where["start"], where["end"]))
        elif "Heading" in opened:
            if depth == 0:
                headings.append((where["start"], where["end"], int(opened["Heading"]["level"][1])))
        else:
            depth += not _CONTAINERS.isdisjoint(opened)
    return headings, raw_blocks


def with_raw_blocks_closed(source: bytes, raw_blocks: list[tuple[int, int]]) -> bytes:
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
            line_end = source.find(b"\n", closing.start()) if closing else -1
            if closing is None or line_end == -1 or line_end + 1 >= end:
                break  # no end tag inside the block, or the block ends on its line: as the references
            wanted = b"</" + opening[1].lower() + b">"  # pulldown-cmark matches end tags in lower case only
            pieces += [source[done : closing.start()], wanted]
            done = closing.end()
            opening = _next_raw_opening(source, line_end + 1, end)
    return b"".join([*pieces, source[done:]]) if pieces else source


def _next_raw_opening(source: bytes, start: int, end: int) -> "re.Match[bytes] | None":
    """The next line in ``source[start:end]`` that opens an HTML block of type 1 (up to three
    spaces of indentation, as a block at the margin)."""
    at = _RAW_OPENING_LINE.search(source, start, end)
    return _RAW_OPENING.match(source, at.end()) if at else None


def line_content(text: str, starts: list[int], line: int) -> str:
    """A line without its line ending."""
    end = starts[line + 1] - 1  # where the view has the ending's LF (a lone CR, or a CRLF's LF)
    return text[starts[line] : end - text.startswith("\r\n", end - 1)]


def heading_content(text: str, starts: list[int], heading: Heading) -> str:
    """The heading's raw content, as the descriptor defines it (inline markup kept verbatim)."""
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


def preamble_start(text: str, stop: int) -> int | None:
    """Where the first non-blank line before ``stop`` starts; ``None`` if there is none."""
    first = stop - len(text[:stop].lstrip(_BLANK))
    if first == stop:
        return None
    return max(text.rfind("\n", 0, first), text.rfind("\r", 0, first)) + 1


def content_end(text: str, start: int, stop: int) -> int:
    """The end of the content of the last non-blank line in ``text[start:stop]`` (which has one):
    trailing blank lines and the line ending after it left out, its own trailing blanks kept."""
    last = start + len(text[start:stop].rstrip(_BLANK))
    ending = _ENDING.search(text, last, stop)
    return ending.start() if ending else stop


def _section(
    text: str,
    view: str,
    index: int,
    level: int,
    heading: str | None,
    path: list[str],
    start: int,
    stop: int,
    first_line: int,
) -> Section:
    """The section ``text[start:stop]`` less its trailing blank lines; it starts on ``first_line``."""
    end = content_end(text, start, stop)
    last_line = first_line + view.count("\n", start, end - 1)
    return {
        "index": index,
        "level": level,
        "heading": heading,
        "path": path,
        "start": start,
        "end": end,
        "start_line": first_line,
        "end_line": last_line,
        "line_count": last_line - first_line + 1,
        "text": text[start:end],
    }


def _run(params: Params) -> MarkdownSectionsOutput:
    return markdown_sections_chunk(params["text"], params["max_level"])


TOOL = Tool(
    descriptor=DESCRIPTOR,
    fields=input_fields(DESCRIPTOR, {"text": "max_input_bytes"}, {"max_level": DEEPEST}),
    run=_run,
    errors=(TooManyChunks, OutputTooLarge),
    error_examples=lambda: {
        TooManyChunks: {"text": "# h\n" * (MAX_SECTIONS + 1)},
        OutputTooLarge: {"text": "# " + "h" * 100_000 + "\n" + "## s\n" * 20},  # each path repeats the long heading
    },
)
