"""markdown-sections-chunk: a Markdown document cut at its top-level headings, as a CommonMark
0.31.2 block parser finds them (``texttools.markdown``), with heading paths, spans and line numbers.
"""

import re
from typing import TypedDict

from ..descriptor import load_descriptor
from ..errors import OutputTooLarge, TooManyChunks
from ..fields import input_fields
from ..lines import line_count, line_starts, line_view
from ..markdown import block_structure, outline
from ..tool import Params, Tool

DESCRIPTOR = load_descriptor("markdown-sections-chunk")
MAX_SECTIONS = DESCRIPTOR.limits["max_sections"]
DEEPEST = DESCRIPTOR.input_schema["properties"]["max_level"]["maximum"]
"""The deepest heading level, and ``max_level``'s default (the descriptor: "defaults to 6")."""

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


def markdown_sections_chunk(text: str, max_level: int = DEEPEST) -> MarkdownSectionsOutput:
    """Cut ``text`` at its top-level headings of level ``max_level`` or less."""
    view = line_view(text)
    starts = line_starts(view.split("\n"))
    headings = outline(text, starts, [h for h in block_structure(text).headings if h.level <= max_level])
    section_starts = [heading.start for heading in headings]
    preamble = preamble_start(text, section_starts[0] if headings else len(text))
    count = len(headings) + (preamble is not None)
    if count > MAX_SECTIONS:
        raise TooManyChunks(f"The text has more than {MAX_SECTIONS} sections.")
    sections: list[Section] = []
    if preamble is not None:
        stop = section_starts[0] if headings else len(text)
        first_line = 1 + view.count("\n", 0, preamble)
        sections.append(_section(text, view, 0, 0, None, [], preamble, stop, first_line))
    stops = [*section_starts[1:], len(text)]
    for heading, stop in zip(headings, stops, strict=False):
        index, line = len(sections), heading.line + 1
        sections.append(
            _section(text, view, index, heading.level, heading.content, heading.path, heading.start, stop, line)
        )
    return {"section_count": len(sections), "line_count_total": line_count(view), "sections": sections}


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
