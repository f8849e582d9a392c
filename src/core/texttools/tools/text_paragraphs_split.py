"""text-paragraphs-split: runs of non-blank CommonMark lines, with spans and line numbers."""

import re
from collections.abc import Iterable
from itertools import repeat
from typing import TypedDict

from ..descriptor import load_descriptor
from ..errors import OutputTooLarge, TooManyChunks
from ..fields import input_fields
from ..lines import ORIGIN, Position, line_count, line_view
from ..spans import cut, ends_before_final_cr, lf_counts, plus, running_sum, shifted
from ..streaming import Batches, Stream, Windows
from ..tool import Params, Tool

DESCRIPTOR = load_descriptor("text-paragraphs-split")
MAX_PARAGRAPHS = DESCRIPTOR.limits["max_paragraphs"]

_SEPARATOR = re.compile(r"(\n[ \t\r\n]*(?:\n|\Z))")
"""In the line view (every ending's last character is its only LF): a line ending and the blank
lines after it, the last one possibly unended. Only space and tab make a line blank; a CR left
in the view is always the first half of the CRLF that ends its line. The literal LF prefix lets
the scan skip from LF to LF; from each LF the whitespace run is scanned once and given back only
to its last LF, so the scan stays linear.
"""


class Paragraph(TypedDict):
    index: int
    start: int
    end: int
    start_line: int
    end_line: int
    line_count: int
    text: str


class ParagraphsSplitOutput(TypedDict):
    paragraph_count: int
    line_count_total: int
    paragraphs: list[Paragraph]


def paragraphs_split(text: str, max_paragraphs: int | None = MAX_PARAGRAPHS) -> ParagraphsSplitOutput:
    """Split ``text`` into paragraphs separated by blank lines (at most ``max_paragraphs``; ``None``:
    no limit, as in the document flows)."""
    view = line_view(text)
    paragraphs = paragraph_objects(text, view, ORIGIN, max_paragraphs)
    return {"paragraph_count": len(paragraphs), "line_count_total": line_count(view), "paragraphs": paragraphs}


def stream_paragraphs_split(pieces: Iterable[str]) -> Stream:
    """``paragraphs_split`` of the joined ``pieces`` with no paragraph limit, a window at a time."""
    return Stream(_paragraph_batches(pieces))


def _paragraph_batches(pieces: Iterable[str]) -> Batches:
    windows = Windows(pieces)
    count = lines = 0
    for window in windows:
        view = line_view(window.text)
        paragraphs = paragraph_objects(window.text, view, window.at, None)
        if window.final:
            lines = window.at.line - 1 + line_count(view)
        else:  # the last paragraph, or the last line if there is none, may go on in the next window
            unfinished = paragraphs.pop()["start"] - window.at.offset if paragraphs else view.rfind("\n") + 1
            windows.advance(unfinished, len(paragraphs))
        count += len(paragraphs)
        yield paragraphs
    return {"paragraph_count": count, "line_count_total": lines}


def paragraph_objects(text: str, view: str, at: Position, limit: int | None) -> list[Paragraph]:
    """The paragraphs of ``text`` (whose line view is ``view``), for a text that starts ``at``.

    One regex split of the view gives paragraphs and separators alternately, as strings and in C;
    offsets and line numbers are running sums of their lengths and LF counts. More than ``limit``
    paragraphs (``None``: no limit) is ``TooManyChunks``.
    """
    # An added LF makes blank lines at the very start a separator too; it opens the first
    # paragraph or, if the text starts blank, the first separator, and is taken off again.
    pieces = _SEPARATOR.split("\n" + view)
    opened = 0 if pieces[0] else 1
    pieces[opened] = pieces[opened][1:]
    # Pieces alternate paragraph, separator, ...; only the first and last paragraph can be empty.
    first = 0 if pieces[0] else 2
    stop = len(pieces) if pieces[-1] else len(pieces) - 2
    count = len(range(first, stop, 2))
    if limit is not None and count > limit:
        raise TooManyChunks(f"The text has more than {limit} paragraphs.")
    offsets = running_sum(map(len, pieces), 0)  # where each piece starts in the text
    line_at = running_sum(lf_counts(pieces), at.line)  # the line on which each piece starts
    starts, found = offsets[first:stop:2], pieces[first:stop:2]
    if view is not text:  # lone CRs: the view has LFs and spaces where the text has CRs
        ends = ends_before_final_cr(text, starts, map(len, found))
        texts = cut(text, starts, ends)
    else:  # no lone CR: a last line ending in CRLF ends before its CR, the only CR it can end in
        texts = list(map(str.rstrip, found, repeat("\r"))) if "\r" in text else found
        ends = plus(starts, map(len, texts))
    return [
        {
            "index": index,
            "start": start,
            "end": end,
            "start_line": first_line,
            "end_line": last_line,
            "line_count": last_line - first_line + 1,
            "text": paragraph,
        }
        for index, start, end, first_line, last_line, paragraph in zip(
            range(at.first_index, at.first_index + count),
            shifted(starts, at.offset),
            shifted(ends, at.offset),
            line_at[first:stop:2],
            line_at[first + 1 : stop + 1 : 2],  # a paragraph ends on the line where its separator starts
            texts,
            strict=True,
        )
    ]


def _run(params: Params) -> ParagraphsSplitOutput:
    return paragraphs_split(params["text"])


def _stream(pieces: Iterable[str], _: Params) -> Stream:
    return stream_paragraphs_split(pieces)


def _run_lifted(params: Params) -> ParagraphsSplitOutput:
    return paragraphs_split(params["text"], None)


TOOL = Tool(
    descriptor=DESCRIPTOR,
    fields=input_fields(DESCRIPTOR, {"text": "max_input_bytes"}),
    run=_run,
    errors=(TooManyChunks, OutputTooLarge),
    error_examples=lambda: {TooManyChunks: {"text": "p\n\n" * (MAX_PARAGRAPHS + 1)}},
    stream=_stream,
    run_lifted=_run_lifted,
)
