"""markdown-sections-chunk: a Markdown document cut at its top-level headings, as a CommonMark
0.31.2 block parser finds them, with heading paths, spans and line numbers.

The parser is markdown-it-py's (a port of markdown-it 14.1.0, which follows CommonMark 0.31.2),
its block rules alone: which lines are headings, their levels and whether they are top-level
blocks is all this tool asks of it, and inline parsing would cost ten times the block parse. It
reads a normalised copy of the text (line endings as LF, U+0000 as U+FFFD, as CommonMark
parses); that copy has the same lines as the text, so everything the answer holds (offsets,
lines, heading contents) is read from the text itself by line number, with the line rules of
the other tools.
"""

import re
from typing import NamedTuple, TypedDict

from markdown_it import MarkdownIt

from ..descriptor import load_descriptor
from ..errors import OutputTooLarge, TooManyChunks
from ..fields import input_fields
from ..lines import line_count, line_view
from ..spans import running_sum
from ..tool import Params, Tool

DESCRIPTOR = load_descriptor("markdown-sections-chunk")
MAX_SECTIONS = DESCRIPTOR.limits["max_sections"]
DEEPEST = DESCRIPTOR.input_schema["properties"]["max_level"]["maximum"]
"""The deepest heading level, and ``max_level``'s default (the descriptor: "defaults to 6")."""

_PARSER = MarkdownIt("commonmark")
_BLANK = " \t\r\n"
"""What blank lines and line endings are made of (only U+0020 and U+0009 make a line blank)."""
_ENDING = re.compile(r"[\r\n]")
_SETEXT_MARKUP = frozenset("=-")


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
    starts = line_starts(view)
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
    normalised = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    tokens: list = []  # type: ignore[type-arg]  # markdown-it-py's Token
    _PARSER.block.parse(normalised, _PARSER, {}, tokens)
    return [
        Heading(token.map[0], token.map[1] - token.map[0], int(token.tag[1]), token.markup[0] in _SETEXT_MARKUP)
        for token in tokens
        if token.type == "heading_open" and token.level == 0
    ]


def line_starts(view: str) -> list[int]:
    """Where each line starts (one more entry, one past the end of the text)."""
    return running_sum((len(line) + 1 for line in view.split("\n")), 0)


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
