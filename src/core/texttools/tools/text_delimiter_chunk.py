"""text-delimiter-chunk: ``str.split(sep, maxsplit)`` with code point spans and line numbers."""

from collections.abc import Iterable
from typing import TypedDict

from ..descriptor import load_descriptor
from ..errors import InvalidInput, OutputTooLarge, TooManyChunks
from ..fields import input_fields
from ..lines import ORIGIN, Position, line_view
from ..spans import alternate, cut, ends_with_lf, lf_counts, minus, running_sum, shifted
from ..streaming import Batches, Stream, Windows
from ..tool import Params, Tool

DESCRIPTOR = load_descriptor("text-delimiter-chunk")
MAX_CHUNKS = DESCRIPTOR.limits["max_chunks"]


class Chunk(TypedDict):
    index: int
    start: int
    end: int
    start_line: int
    end_line: int
    text: str


class DelimiterChunkOutput(TypedDict):
    chunk_count: int
    delimiter_count: int
    chunks: list[Chunk]


def delimiter_chunk(
    text: str, delimiter: str, max_splits: int = -1, max_chunks: int | None = MAX_CHUNKS
) -> DelimiterChunkOutput:
    """Split ``text`` on every (or the first ``max_splits``) occurrence of ``delimiter``; -1 is no limit.

    Matching code points equals matching UTF-16 code units here, because neither string holds a
    lone surrogate, so ``str.split`` is the descriptor's rule exactly. The split itself is capped
    at the chunk limit (``None``: none, as in the document flows), so an oversplit input costs one
    bounded scan.
    """
    check_delimiter(delimiter)
    if max_chunks is None:
        parts = text.split(delimiter, max_splits)
    else:
        parts = text.split(delimiter, max_chunks if max_splits < 0 else min(max_splits, max_chunks))
        if len(parts) > max_chunks:
            raise TooManyChunks(f"The text would split into more than {max_chunks} chunks.")
    chunks = chunk_objects(text, parts, delimiter, ORIGIN)
    return {"chunk_count": len(chunks), "delimiter_count": len(chunks) - 1, "chunks": chunks}


def stream_delimiter_chunk(pieces: Iterable[str], delimiter: str, max_splits: int = -1) -> Stream:
    """``delimiter_chunk`` of the joined ``pieces`` with no chunk limit, a window at a time."""
    check_delimiter(delimiter)
    return Stream(_chunk_batches(pieces, delimiter, max_splits))


def _chunk_batches(pieces: Iterable[str], delimiter: str, max_splits: int) -> Batches:
    windows = Windows(pieces)
    splits_left, count = max_splits, 0
    for window in windows:
        parts = window.text.split(delimiter, splits_left)
        # A window's last part may go on in the next one (unless the text ends here): it waits.
        finished = parts if window.final else parts[:-1]
        chunks = chunk_objects(window.text, finished, delimiter, window.at) if finished else []
        windows.advance(len(window.text) - len(parts[-1]), len(chunks))
        count += len(chunks)
        splits_left -= len(chunks) if splits_left > 0 else 0
        yield chunks
    return {"chunk_count": count, "delimiter_count": count - 1}


def check_delimiter(delimiter: str) -> None:
    if not delimiter:
        raise InvalidInput("The delimiter must not be empty.", [{"field": "delimiter", "problem": "must not be empty"}])


def chunk_objects(text: str, parts: list[str], delimiter: str, at: Position) -> list[Chunk]:
    """The chunk objects of ``parts`` (``text.split(delimiter)``), for a ``text`` that starts ``at``."""
    # The text is chunk, delimiter, chunk, ..., chunk: each piece's length, then where each starts.
    lengths = alternate(list(map(len, parts)), len(delimiter))
    boundaries = running_sum(lengths, 0)
    starts, ends = boundaries[0::2], boundaries[1::2]  # chunk i is text[starts[i]:ends[i]]
    # The LF count of each piece in the line view, where every line ending is exactly one LF.
    view = line_view(text)
    if view is text:  # every delimiter occurrence holds the same line endings
        chunk_views = parts
        newlines = alternate(lf_counts(parts), delimiter.count("\n"))
    else:  # a lone CR may be the delimiter's, or a CR beside it may pair with its LF
        chunk_views = cut(view, starts, ends)
        delimiter_views = cut(view, ends, starts[1:])
        newlines = alternate(lf_counts(chunk_views), lf_counts(delimiter_views))
    line_at = running_sum(newlines, at.line)  # the line on which each piece starts
    # A chunk ending in LF ends on the line that LF closes; an empty chunk ends where it starts.
    end_lines = minus(line_at[1::2], ends_with_lf(chunk_views))
    return [
        {"index": index, "start": start, "end": end, "start_line": first, "end_line": last, "text": part}
        for index, start, end, first, last, part in zip(
            range(at.first_index, at.first_index + len(parts)),
            shifted(starts, at.offset),
            shifted(ends, at.offset),
            line_at[0::2],
            end_lines,
            parts,
            strict=True,
        )
    ]


def _run(params: Params) -> DelimiterChunkOutput:
    return delimiter_chunk(params["text"], params["delimiter"], params["max_splits"])


def _stream(pieces: Iterable[str], params: Params) -> Stream:
    return stream_delimiter_chunk(pieces, params["delimiter"], params["max_splits"])


def _run_lifted(params: Params) -> DelimiterChunkOutput:
    return delimiter_chunk(params["text"], params["delimiter"], params["max_splits"], None)


TOOL = Tool(
    descriptor=DESCRIPTOR,
    # Omitted max_splits is Python's maxsplit=-1; the published schema shows no default, only the bounds.
    fields=input_fields(
        DESCRIPTOR, {"text": "max_input_bytes", "delimiter": "max_delimiter_bytes"}, {"max_splits": -1}
    ),
    run=_run,
    errors=(TooManyChunks, OutputTooLarge),
    error_examples=lambda: {TooManyChunks: {"text": "," * MAX_CHUNKS, "delimiter": ","}},
    stream=_stream,
    run_lifted=_run_lifted,
)
