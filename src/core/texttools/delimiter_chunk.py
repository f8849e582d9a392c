"""text-delimiter-chunk: ``str.split(sep, maxsplit)`` with code point spans and line numbers."""

from __future__ import annotations

from itertools import accumulate
from typing import TYPE_CHECKING

from .errors import InvalidInput, TooManyChunks
from .limits import DELIMITER_CHUNK
from .lines import line_numbers, newline_view

if TYPE_CHECKING:
    from .models import Chunk, DelimiterChunkOutput


def delimiter_chunk(text: str, delimiter: str, max_splits: int = -1) -> DelimiterChunkOutput:
    """Split ``text`` on every (or the first ``max_splits``) occurrence of ``delimiter``; -1 is no limit.

    Matching code points equals matching UTF-16 code units here, because neither string holds a
    lone surrogate, so ``str.split`` is the descriptor's rule exactly. The chunk count is known
    from ``str.count`` before anything is built, so an oversplit input costs one scan.
    """
    if not delimiter:
        raise InvalidInput("The delimiter must not be empty.", [{"field": "delimiter", "problem": "must not be empty"}])
    occurrences = text.count(delimiter)
    splits = occurrences if max_splits < 0 else min(occurrences, max_splits)
    if splits + 1 > DELIMITER_CHUNK.max_chunks:
        raise TooManyChunks(f"The text would split into more than {DELIMITER_CHUNK.max_chunks} chunks.")

    parts = text.split(delimiter, max_splits)
    step = len(delimiter)
    # Each chunk starts one delimiter after the previous chunk's end.
    ends = list(accumulate((len(part) + step for part in parts), initial=-step))[1:]
    starts = [end - len(part) for end, part in zip(ends, parts, strict=True)]
    # An empty chunk's end line is its start line: ask for its start twice.
    lines = line_numbers(newline_view(text), [p for s, e in zip(starts, ends, strict=True) for p in (s, max(s, e - 1))])
    chunks: list[Chunk] = [
        {"index": index, "start": start, "end": end, "start_line": first, "end_line": last, "text": part}
        for index, start, end, first, last, part in zip(
            range(len(parts)), starts, ends, lines[::2], lines[1::2], parts, strict=True
        )
    ]
    return {"chunk_count": len(chunks), "delimiter_count": len(chunks) - 1, "chunks": chunks}
