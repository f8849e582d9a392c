"""text-size-chunk: chunks of at most ``max_chars`` code points (and ``max_tokens`` tokens), each cut
at the best boundary in reach, with spans, line numbers and the kind of each cut.

The chunker itself is ``texttools.size_chunks``; this module validates the request, turns spans into
chunk objects and runs the chunker over a text given in pieces for the document flows.
"""

from collections.abc import Iterable
from typing import TypedDict

from ..descriptor import load_descriptor
from ..errors import OutputTooLarge, TooManyChunks
from ..fields import input_fields
from ..lines import ORIGIN
from ..size_chunks import (
    SIZE_DEFAULTS,
    SIZE_FORMS,
    Chunker,
    Settings,
    SizedChunk,
    settings_of,
    size_error_examples,
    size_rules,
    sized_chunk_objects,
)
from ..streaming import Batches, Stream, Windows
from ..tool import Params, Tool

DESCRIPTOR = load_descriptor("text-size-chunk")
MAX_CHUNKS = DESCRIPTOR.limits["max_chunks"]


class SizeChunkOutput(TypedDict):
    chunk_count: int
    chunks: list[SizedChunk]


def size_chunk(text: str, sizes: Settings, max_chunks: int | None = MAX_CHUNKS) -> SizeChunkOutput:
    """The chunks of ``text`` (at most ``max_chunks``; ``None``: no limit, as in the document flows)."""
    chunker = Chunker(text, sizes)
    first = chunker.first_start()
    spans = [] if first is None else list(chunker.spans(first, first, max_chunks))
    chunks = sized_chunk_objects(text, spans, ORIGIN, chunker.lines.starts_of_lines) if spans else []
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
        yield sized_chunk_objects(window.text, spans, window.at, chunker.lines.starts_of_lines) if spans else []
        if chunker.resume is None:
            break
        start, low = chunker.resume
        kept = chunker.context(start)  # what the next chunk's ends depend on starts the next window
        windows.advance(kept, len(spans))
        resume = (start - kept, low - kept)
    return {"chunk_count": count}


def _run(params: Params) -> SizeChunkOutput:
    return size_chunk(params["text"], settings_of(params))


def _stream(pieces: Iterable[str], params: Params) -> Stream:
    return stream_size_chunk(pieces, settings_of(params))


def _run_lifted(params: Params) -> SizeChunkOutput:
    return size_chunk(params["text"], settings_of(params), None)


TOOL = Tool(
    descriptor=DESCRIPTOR,
    fields=input_fields(
        DESCRIPTOR,
        {"text": "max_input_bytes"},
        SIZE_DEFAULTS,
        SIZE_FORMS,
    ),
    run=_run,
    errors=(TooManyChunks, OutputTooLarge),
    error_examples=lambda: size_error_examples(MAX_CHUNKS),
    stream=_stream,
    run_lifted=_run_lifted,
    rules=size_rules,
)
