"""Both size tools by tokens beside their peers, side by side in one run (``make bench``'s token rows,
issue 61).

text-size-chunk on 256 KiB of prose and markdown-size-chunk on the Node.js manual (256 KiB), each at
512 tokens (``max_chars`` 16 000) and 8 191 (``max_chars`` 65 536), with cl100k_base and o200k_base,
against semantic-text-splitter's ``TextSplitter`` / ``MarkdownSplitter.from_tiktoken_model`` (Rust,
its own copy of the tables) and LangChain's ``RecursiveCharacterTextSplitter.from_tiktoken_encoder``
(with its Markdown separators for the Markdown rows), with one ``encode_ordinary`` of the whole text
as the floor: an exact count hands every character to the encoder once. Ours, the Rust peer and
the floor are timed in turn (``alternated``); LangChain, about a hundred times slower, on its own.
The goals: at most 0.5x the Rust peer and 2x the floor.
"""

import contextlib
import io
from collections.abc import Callable
from typing import Any

from benchmarks.size_peers import PROSE_BYTES, with_offline_tiktoken
from benchmarks.workloads import MANUAL, prose_text
from texttools.registry import tool
from texttools.tokens import encoding

TOKEN_SIZES = ((512, 16000), (8191, 65536))
MODELS = {"cl100k_base": "text-embedding-3-small", "o200k_base": "gpt-4o"}
"""A model that semantic-text-splitter maps to each encoding."""


def token_peer_rows(alternated: Callable[..., list[float]], median_ms: Callable[..., float]) -> list[dict[str, Any]]:
    from langchain_text_splitters import Language, RecursiveCharacterTextSplitter  # noqa: PLC0415 (bench-only)
    from semantic_text_splitter import MarkdownSplitter, TextSplitter  # noqa: PLC0415 (bench-only)

    markdown = RecursiveCharacterTextSplitter.get_separators_for_language(Language.MARKDOWN)
    cases: list[tuple[str, str, Any, list[str] | None]] = [
        ("text-size-chunk", prose_text(PROSE_BYTES), TextSplitter, None),
        ("markdown-size-chunk", MANUAL.read_text(encoding="utf-8"), MarkdownSplitter, markdown),
    ]
    rows = []
    for tool_id, text, peer, separators in cases:
        chosen = tool(tool_id)
        for name, model in MODELS.items():
            with_offline_tiktoken(name)
            floor = encoding(name).encode_ordinary
            for max_tokens, max_chars in TOKEN_SIZES:
                params = chosen.parse(
                    {"text": text, "max_tokens": max_tokens, "max_chars": max_chars, "tokenizer": name}
                )
                rust = peer.from_tiktoken_model(model, max_tokens)
                langchain = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                    encoding_name=name, chunk_size=max_tokens, chunk_overlap=0, add_start_index=True,
                    separators=separators,
                )  # fmt: skip
                ours, theirs, least = alternated(
                    lambda chosen=chosen, params=params: chosen.run(params),
                    lambda rust=rust, text=text: rust.chunk_indices(text),
                    lambda floor=floor, text=text: floor(text),
                )
                with contextlib.redirect_stderr(io.StringIO()):
                    lang = median_ms(lambda langchain=langchain, text=text: langchain.create_documents([text]),
                                     runs=3, warmup=1)  # fmt: skip
                rows.append({"tool": tool_id, "what": f"{name} {max_tokens}", "ours_ms": ours, "rust_ms": theirs,
                             "langchain_ms": lang, "to_rust": ours / theirs, "to_langchain": ours / lang,
                             "floor_ms": least, "to_floor": ours / least})  # fmt: skip
    return rows


def main() -> None:
    """``python -m benchmarks.token_peers``: these rows alone."""
    from benchmarks.bench import alternated_medians, median_ms  # noqa: PLC0415

    for row in token_peer_rows(alternated_medians, median_ms):
        print({key: round(value, 2) if isinstance(value, float) else value for key, value in row.items()})


if __name__ == "__main__":
    main()
