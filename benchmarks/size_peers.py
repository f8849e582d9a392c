"""text-size-chunk beside its peers by characters, side by side in one run (``make bench``'s size
rows; by tokens, both size tools: ``benchmarks.token_peers``).

The core (text to chunk objects with spans, lines and cuts) on 256 KiB of prose against
semantic-text-splitter's ``TextSplitter.chunk_indices`` (Rust: code point offsets and texts only)
and LangChain's ``RecursiveCharacterTextSplitter.create_documents`` (``add_start_index``), at
(1 000, 200), (200, 50) and (4 000, 400), with ``greedy_cuts`` as the floor (the text's lines and
one ``rfind`` per chunk). The peers are bench-only dependencies (requirements-dev.txt), never in
the layer.
"""

from collections.abc import Callable
from typing import Any

from benchmarks.workloads import greedy_cuts, prose_text
from texttools.size_chunks import Settings
from texttools.tokens import encoding
from texttools.tools.text_size_chunk import size_chunk

PROSE_BYTES = 256 * 1024
CHARACTER_SIZES = ((1000, 200), (200, 50), (4000, 400))


def with_offline_tiktoken(name: str = "cl100k_base") -> None:
    """LangChain asks ``tiktoken.get_encoding``, which would download the table: hand it the one
    the layer ships (the registry caches encodings by name)."""
    import tiktoken.registry  # noqa: PLC0415 (bench-only)

    tiktoken.registry.ENCODINGS[name] = encoding(name)


def size_peer_rows(median_ms: Callable[..., float]) -> list[dict[str, Any]]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter  # noqa: PLC0415 (bench-only)
    from semantic_text_splitter import TextSplitter  # noqa: PLC0415 (bench-only)

    text = prose_text(PROSE_BYTES)
    rows = []
    for max_chars, overlap in CHARACTER_SIZES:
        rust = TextSplitter((max_chars, max_chars), overlap=overlap)
        langchain = RecursiveCharacterTextSplitter(chunk_size=max_chars, chunk_overlap=overlap, add_start_index=True)
        sizes = Settings(max_chars, overlap)
        ours = median_ms(lambda sizes=sizes: size_chunk(text, sizes, None))
        theirs = median_ms(lambda rust=rust: rust.chunk_indices(text))
        lang = median_ms(lambda langchain=langchain: langchain.create_documents([text]), runs=9, warmup=1)
        least = median_ms(lambda max_chars=max_chars: greedy_cuts(text, max_chars))
        rows.append({"what": f"characters ({max_chars}, {overlap})", "ours_ms": ours, "rust_ms": theirs,
                     "langchain_ms": lang, "to_rust": ours / theirs, "to_langchain": ours / lang,
                     "floor_ms": least, "to_floor": ours / least})  # fmt: skip
    return rows
