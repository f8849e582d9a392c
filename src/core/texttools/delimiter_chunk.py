"""text-delimiter-chunk: ``str.split(sep, maxsplit)`` with code point spans and line numbers."""

from .errors import InvalidInput, TooManyChunks
from .limits import DELIMITER_CHUNK
from .lines import LineCounter
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

    lines = LineCounter(text)
    step = len(delimiter)
    chunks: list[Chunk] = []
    start = 0
    for index, part in enumerate(text.split(delimiter, max_splits)):
        end = start + len(part)
        start_line = lines.line_at(start)
        end_line = lines.line_at(end - 1) if end > start else start_line
        chunks.append(
            {
                "index": index,
                "start": start,
                "end": end,
                "start_line": start_line,
                "end_line": end_line,
                "text": part,
            }
        )
        start = end + step
    return {"chunk_count": len(chunks), "delimiter_count": len(chunks) - 1, "chunks": chunks}
