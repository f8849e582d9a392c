"""text-size-chunk beside its peers, side by side in one run (``make bench``'s size rows).

Characters: the core (text to chunk objects with spans, lines and cuts) on 256 KiB of prose against
semantic-text-splitter's ``TextSplitter.chunk_indices`` (Rust: code point offsets and texts only)
and LangChain's ``RecursiveCharacterTextSplitter.create_documents`` (``add_start_index``), at
(1 000, 200), (200, 50) and (4 000, 400). Tokens: at 512 tokens (``max_chars`` 16 000) and 8 191,
against semantic-text-splitter's ``from_tiktoken_model`` and LangChain's ``from_tiktoken_encoder``,
with one ``encode_ordinary`` of the whole text as the floor (for characters, ``greedy_cuts``: the
text's lines and one ``rfind`` per chunk). The peers are bench-only
dependencies (requirements-dev.txt), never in the layer.
"""

import contextlib
import io
from collections.abc import Callable
from typing import Any

from benchmarks.workloads import greedy_cuts, prose_text
from texttools.size_chunks import Settings
from texttools.tokens import encoding
from texttools.tools.text_size_chunk import size_chunk

PROSE_BYTES = 256 * 1024
CHARACTER_SIZES = ((1000, 200), (200, 50), (4000, 400))
TOKEN_SIZES = ((512, 16000), (8191, 65536))


def with_offline_tiktoken() -> None:
    """LangChain asks ``tiktoken.get_encoding``, which would download the table: hand it the one
    the layer ships (the registry caches encodings by name)."""
    import tiktoken.registry  # noqa: PLC0415 (bench-only)

    tiktoken.registry.ENCODINGS["cl100k_base"] = encoding("cl100k_base")


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
    with_offline_tiktoken()
    cl100k = encoding("cl100k_base")
    floor = median_ms(lambda: cl100k.encode_ordinary(text), runs=9, warmup=1)
    for max_tokens, max_chars in TOKEN_SIZES:
        rust = TextSplitter.from_tiktoken_model("text-embedding-3-small", max_tokens)
        langchain = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=max_tokens, chunk_overlap=0, add_start_index=True
        )
        sizes = Settings(max_chars, 0, 0, max_tokens, cl100k)
        ours = median_ms(lambda sizes=sizes: size_chunk(text, sizes, None), runs=9, warmup=1)
        theirs = median_ms(lambda rust=rust: rust.chunk_indices(text), runs=9, warmup=1)
        with contextlib.redirect_stderr(io.StringIO()):
            lang = median_ms(lambda langchain=langchain: langchain.create_documents([text]), runs=5, warmup=1)
        rows.append({"what": f"tokens {max_tokens} (max_chars {max_chars})", "ours_ms": ours, "rust_ms": theirs,
                     "langchain_ms": lang, "to_rust": ours / theirs, "to_langchain": ours / lang,
                     "floor_ms": floor, "to_floor": ours / floor})  # fmt: skip
    return rows
