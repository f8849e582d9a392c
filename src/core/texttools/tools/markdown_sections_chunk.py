"""markdown-sections-chunk: a Markdown document cut at its top-level headings, as a CommonMark
0.31.2 block parser finds them (``texttools.markdown``), with heading paths, spans and line numbers.
"""

import re
from collections.abc import Iterable
from typing import NamedTuple, TypedDict

from ..descriptor import load_descriptor
from ..errors import OutputTooLarge, TooManyChunks
from ..fields import input_fields
from ..lines import line_count, line_starts, line_view
from ..markdown import MAX_HELD_CHARS, OpenHeadings, block_structure, held_too_long, last_restart, outline
from ..streaming import Batches, Stream, Windows
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


def markdown_sections_chunk(
    text: str, max_level: int = DEEPEST, max_sections: int | None = MAX_SECTIONS
) -> MarkdownSectionsOutput:
    """Cut ``text`` at its top-level headings of level ``max_level`` or less (at most
    ``max_sections``; ``None``: no limit, as in the document flows)."""
    view = line_view(text)
    starts = line_starts(view.split("\n"))
    headings = outline(text, starts, [h for h in block_structure(text).headings if h.level <= max_level])
    section_starts = [heading.start for heading in headings]
    preamble = preamble_start(text, section_starts[0] if headings else len(text))
    count = len(headings) + (preamble is not None)
    if max_sections is not None and count > max_sections:
        raise TooManyChunks(f"The text has more than {max_sections} sections.")
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
    base: int = 0,
) -> Section:
    """The section ``text[start:stop]`` less its trailing blank lines; it starts on ``first_line``,
    and ``text`` at ``base`` in the whole text."""
    end = content_end(text, start, stop)
    last_line = first_line + view.count("\n", start, end - 1)
    return {
        "index": index,
        "level": level,
        "heading": heading,
        "path": path,
        "start": base + start,
        "end": base + end,
        "start_line": first_line,
        "end_line": last_line,
        "line_count": last_line - first_line + 1,
        "text": text[start:end],
    }


def stream_markdown_sections(pieces: Iterable[str], max_level: int = DEEPEST) -> Stream:
    """``markdown_sections_chunk`` of the joined ``pieces`` with no section limit, a window at a
    time: each window is parsed from a line where a parse may start again
    (``texttools.markdown.restart_lines``) and finishes the lines before its last such line; a
    section is written once the next heading (or the end) is read, so its text is held until then
    (at most ``MAX_HELD_CHARS``)."""
    return Stream(_section_batches(pieces, max_level))


class _Open(NamedTuple):
    """A section whose end is not read yet: its fields but the end, and its text so far."""

    level: int
    heading: str | None
    path: list[str]
    offset: int
    line: int
    parts: list[str]


def _section_batches(pieces: Iterable[str], max_level: int) -> Batches:
    windows = Windows(pieces)
    open_headings: OpenHeadings = []
    pending = _Open(0, None, [], 0, 1, [])  # what precedes the first heading: the preamble, if not blank
    count = 0
    for window in windows:
        text, at = window.text, window.at
        view = line_view(text)
        starts = line_starts(view.split("\n"))
        blocks = block_structure(text, restarts=not window.final)
        cut = len(text) if window.final else last_restart([starts[line] for line in blocks.restarts], len(text))
        wanted = [h for h in blocks.headings if h.level <= max_level and starts[h.line] < cut]
        batch: list[Section] = []
        done = 0
        for heading in outline(text, starts, wanted, open_headings):
            pending.parts.append(text[done : heading.start])
            if (closed := _closed(pending, count)) is not None:
                batch.append(closed)
                count += 1
            pending = _Open(heading.level, heading.content, heading.path, at.offset + heading.start,
                            at.line + heading.line, [])  # fmt: skip
            done = heading.start
        pending.parts.append(text[done:cut])
        yield batch
        if window.final:
            if (closed := _closed(pending, count)) is not None:
                yield [closed]
                count += 1
            return {"section_count": count, "line_count_total": at.line - 1 + line_count(view)}
        held, carried = sum(map(len, pending.parts)), len(text) - cut
        if held + carried > MAX_HELD_CHARS:  # a section, or a block no parse may start inside
            raise held_too_long(pending.line, "section") if held >= carried else held_too_long(
                at.line + view.count("\n", 0, cut), "block")  # fmt: skip
        windows.advance(cut, len(batch))
    raise AssertionError("the last window is final")  # pragma: no cover


def _closed(section: _Open, index: int) -> Section | None:
    """The object of a section whose text is read whole; ``None`` for a preamble of blank lines."""
    text = "".join(section.parts)
    view = line_view(text)
    if section.heading is None and section.level == 0:  # the preamble: from its first line that is not blank
        start = preamble_start(text, len(text))
        if start is None:
            return None
        line = section.line + view.count("\n", 0, start)
        return _section(text, view, index, 0, None, [], start, len(text), line, section.offset)
    return _section(text, view, index, section.level, section.heading, section.path, 0, len(text), section.line,
                    section.offset)  # fmt: skip


def _run(params: Params) -> MarkdownSectionsOutput:
    return markdown_sections_chunk(params["text"], params["max_level"])


def _stream(pieces: Iterable[str], params: Params) -> Stream:
    return stream_markdown_sections(pieces, params["max_level"])


def _run_lifted(params: Params) -> MarkdownSectionsOutput:
    return markdown_sections_chunk(params["text"], params["max_level"], None)


TOOL = Tool(
    descriptor=DESCRIPTOR,
    fields=input_fields(DESCRIPTOR, {"text": "max_input_bytes"}, {"max_level": DEEPEST}),
    run=_run,
    errors=(TooManyChunks, OutputTooLarge),
    stream=_stream,
    run_lifted=_run_lifted,
    error_examples=lambda: {
        TooManyChunks: {"text": "# h\n" * (MAX_SECTIONS + 1)},
        OutputTooLarge: {"text": "# " + "h" * 100_000 + "\n" + "## s\n" * 20},  # each path repeats the long heading
    },
)
