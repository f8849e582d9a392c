"""text-size-chunk: chunks of at most ``max_chars`` code points (and ``max_tokens`` tokens), each cut
at the best boundary in reach, with spans, line numbers and the kind of each cut.

The chunker itself is ``texttools.size_chunks``; this module validates the request, turns spans into
chunk objects and runs the chunker over a text given in pieces for the document flows.
"""

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import count, repeat
from operator import add
from typing import NotRequired, TypedDict

from ..descriptor import load_descriptor
from ..errors import OutputTooLarge, Problem, TooManyChunks
from ..fields import input_fields
from ..lines import ORIGIN, Position
from ..size_chunks import Chunker, Cut, Settings, Span
from ..spans import cut, minus, shifted
from ..streaming import Batches, Stream, Windows
from ..tokens import DEFAULT_TOKENIZER, encoding
from ..tool import Params, Tool

DESCRIPTOR = load_descriptor("text-size-chunk")
MAX_CHUNKS = DESCRIPTOR.limits["max_chunks"]


class Chunk(TypedDict):
    index: int
    start: int
    end: int
    start_line: int
    end_line: int
    cut: Cut
    tokens: NotRequired[int]
    text: str


class SizeChunkOutput(TypedDict):
    chunk_count: int
    chunks: list[Chunk]


def settings(params: Params) -> Settings:
    """The chunker's settings from a validated input; names the tokenizer's encoding, loading it on
    first use."""
    max_tokens = params["max_tokens"]
    tokenizer = encoding(params["tokenizer"] or DEFAULT_TOKENIZER) if max_tokens is not None else None
    return Settings(params["max_chars"], params["overlap_chars"], params["min_chars"], max_tokens, tokenizer)


def size_chunk(text: str, sizes: Settings, max_chunks: int | None = MAX_CHUNKS) -> SizeChunkOutput:
    """The chunks of ``text`` (at most ``max_chunks``; ``None``: no limit, as in the document flows)."""
    chunker = Chunker(text, sizes)
    first = chunker.first_start()
    spans = [] if first is None else list(chunker.spans(first, first, max_chunks))
    chunks = chunk_objects(text, spans, ORIGIN, chunker.lines.starts_of_lines) if spans else []
    return {"chunk_count": len(chunks), "chunks": chunks}


def stream_size_chunk(pieces: Iterable[str], sizes: Settings) -> Stream:
    """``size_chunk`` of the joined ``pieces`` with no chunk limit, a window at a time."""
    return Stream(_chunk_batches(pieces, sizes))


def _chunk_batches(pieces: Iterable[str], sizes: Settings) -> Batches:
    """Each window holds the text from the next chunk's context (``Chunker.context``); the chunker
    makes every chunk the window decides (its reach and what follows are there) and says where the
    next one starts."""
    windows = Windows(pieces)
    resume: tuple[int, int] | None = None  # the next chunk's start and low, in the window
    count = 0
    for window in windows:
        chunker = Chunker(window.text, sizes, final=window.final)
        if resume is None:
            first = chunker.first_start()
            if first is None:  # whitespace only so far
                windows.advance(len(window.text), 0)
                continue
            resume = (first, first)
        spans = list(chunker.spans(*resume, None))
        count += len(spans)
        yield chunk_objects(window.text, spans, window.at, chunker.lines.starts_of_lines) if spans else []
        if chunker.resume is None:
            break
        start, low = chunker.resume
        kept = chunker.context(start)  # what the next chunk's ends depend on starts the next window
        windows.advance(kept, len(spans))
        resume = (start - kept, low - kept)
    return {"chunk_count": count}


def chunk_objects(text: str, spans: list[Span], at: Position, starts_of_lines: Sequence[int]) -> list[Chunk]:
    """The chunk objects of ``spans`` of ``text``, a text that starts ``at`` and whose lines start
    at ``starts_of_lines`` (``LineEnds``): each column made over all chunks at once, in C."""
    starts, ends, cuts, counts = zip(*spans, strict=True)
    last_characters = minus(ends, repeat(1))
    start_lines = map(add, map(bisect_right, repeat(starts_of_lines), starts), repeat(at.line - 1))
    end_lines = map(add, map(bisect_right, repeat(starts_of_lines), last_characters), repeat(at.line - 1))
    columns = zip(count(at.first_index), shifted(list(starts), at.offset), shifted(list(ends), at.offset),
                  start_lines, end_lines, cuts, cut(text, starts, ends), strict=False)  # fmt: skip
    if counts[0] is None:
        return [
            {"index": i, "start": s, "end": e, "start_line": a, "end_line": b, "cut": k, "text": t}
            for i, s, e, a, b, k, t in columns
        ]
    return [
        {"index": i, "start": s, "end": e, "start_line": a, "end_line": b, "cut": k, "tokens": n, "text": t}
        for (i, s, e, a, b, k, t), n in zip(columns, counts, strict=False)
    ]


def rules(params: Params) -> list[Problem]:
    """What the input schema cannot say: how the sizes relate."""
    problems: list[Problem] = []
    if params["overlap_chars"] >= params["max_chars"]:
        problems.append({"field": "overlap_chars", "problem": "must be less than max_chars"})
    if params["min_chars"] > params["max_chars"]:
        problems.append({"field": "min_chars", "problem": "must be at most max_chars"})
    if params["tokenizer"] is not None and params["max_tokens"] is None:
        problems.append({"field": "tokenizer", "problem": "is allowed only with max_tokens"})
    return problems


def _run(params: Params) -> SizeChunkOutput:
    return size_chunk(params["text"], settings(params))


def _stream(pieces: Iterable[str], params: Params) -> Stream:
    return stream_size_chunk(pieces, settings(params))


def _run_lifted(params: Params) -> SizeChunkOutput:
    return size_chunk(params["text"], settings(params), None)


def _error_examples() -> dict[type[Exception], Params]:
    return {
        TooManyChunks: {"text": "a " * (MAX_CHUNKS + 1), "max_chars": 1},
        # 6 000 chunks of about 200 characters, each 11 after the one before: over 1 MiB of JSON.
        OutputTooLarge: {"text": "abcdefghij " * 6000, "max_chars": 200, "overlap_chars": 190},
    }


TOOL = Tool(
    descriptor=DESCRIPTOR,
    fields=input_fields(
        DESCRIPTOR,
        {"text": "max_input_bytes"},
        {"overlap_chars": 0, "min_chars": 0, "max_tokens": None, "tokenizer": None},
    ),
    run=_run,
    errors=(TooManyChunks, OutputTooLarge),
    error_examples=_error_examples,  # type: ignore[arg-type]
    stream=_stream,
    run_lifted=_run_lifted,
    rules=rules,
)
