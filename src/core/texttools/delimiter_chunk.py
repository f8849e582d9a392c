"""text-delimiter-chunk: ``str.split(sep, maxsplit)`` with code point spans and line numbers."""

from __future__ import annotations

from itertools import accumulate, repeat
from operator import sub
from typing import TYPE_CHECKING

from .errors import InvalidInput, TooManyChunks
from .limits import DELIMITER_CHUNK
from .lines import line_view

if TYPE_CHECKING:
    from .models import Chunk, DelimiterChunkOutput


def delimiter_chunk(text: str, delimiter: str, max_splits: int = -1) -> DelimiterChunkOutput:
    """Split ``text`` on every (or the first ``max_splits``) occurrence of ``delimiter``; -1 is no limit.

    Matching code points equals matching UTF-16 code units here, because neither string holds a
    lone surrogate, so ``str.split`` is the descriptor's rule exactly. The split itself is capped
    at the chunk limit, so an oversplit input costs one bounded scan. Every per-chunk step below
    (lengths, offsets, newline counts) is a ``map`` or ``accumulate``: the loop runs in C.
    """
    if not delimiter:
        raise InvalidInput("The delimiter must not be empty.", [{"field": "delimiter", "problem": "must not be empty"}])
    limit = DELIMITER_CHUNK.max_chunks
    parts = text.split(delimiter, limit if max_splits < 0 else min(max_splits, limit))
    if len(parts) > limit:
        raise TooManyChunks(f"The text would split into more than {limit} chunks.")

    # Chunks and delimiters alternate, as paragraphs and separators do in paragraphs_split: one
    # running sum of their lengths gives every start and end, one of their LF counts every line.
    pieces = 2 * len(parts) - 1
    lengths = [len(delimiter)] * pieces
    lengths[0::2] = map(len, parts)
    offsets = list(accumulate(lengths, initial=0))
    starts, ends = offsets[0::2], offsets[1::2]
    view = line_view(text)
    newline = repeat("\n")
    if view is text:  # each delimiter occurrence holds the same line endings
        view_parts, newlines = parts, [delimiter.count("\n")] * pieces
    else:  # a lone CR may be the delimiter's, or a CR next to it may pair with its LF
        view_parts, newlines = list(map(view.__getitem__, map(slice, starts, ends))), [0] * pieces
        newlines[1::2] = map(view.count, newline, ends, starts[1:])
    newlines[0::2] = map(str.count, view_parts, newline)
    line_at = list(accumulate(newlines, initial=1))
    # A chunk ending in LF ends on the line that LF closes; an empty chunk ends where it starts.
    end_lines = map(sub, line_at[1::2], map(str.endswith, view_parts, newline))
    chunks: list[Chunk] = [
        {"index": index, "start": start, "end": end, "start_line": first, "end_line": last, "text": part}
        for index, start, end, first, last, part in zip(
            range(len(parts)), starts, ends, line_at[0::2], end_lines, parts, strict=True
        )
    ]
    return {"chunk_count": len(chunks), "delimiter_count": len(chunks) - 1, "chunks": chunks}
