"""What each size chunker returns, checked against its own text (``make bench``'s correctness rows;
``python -m benchmarks.size_peer_checks`` prints them alone).

For each chunker and setting, on the same texts: chunks whose reported start is not where their
text is (``text[start:start + len(chunk)] != chunk``), or is where an earlier copy of it is (a
start not after the chunk before's), chunks over the size asked for, chunks that
end inside a grapheme cluster (pyuegc's clusters), and, by tokens, chunks over ``max_tokens`` when
encoded alone. The texts are made to catch offsets found with ``text.find``: a paragraph repeated
(so an overlapping chunk's text occurs earlier too), emoji sequences and combining accents.
"""

import contextlib
import io
import random
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pyuegc

from benchmarks.workloads import prose_text
from texttools.size_chunks import Settings
from texttools.tokens import encoding
from texttools.tools.text_size_chunk import size_chunk

Chunks = list[tuple[int, str]]
"""Each chunk's reported start (code points) and its text."""


def tricky_text(seed: int = 5) -> str:
    """Prose with a repeated paragraph, ZWJ emoji and flags without spaces between, and accents
    written as a letter and a combining mark."""
    rng = random.Random(seed)
    repeated = "The same paragraph again, word for word, as documents repeat themselves. " * 3
    emoji = "\U0001f469\u200d\U0001f469\u200d\U0001f467\U0001f1eb\U0001f1f7" * 40
    accents = " ".join("cafe\u0301 nai\u0308ve re\u0301sume\u0301" for _ in range(30))
    parts = [prose_text(4096, seed), repeated, emoji, accents, repeated, prose_text(2048, seed + 1), repeated]
    rng.shuffle(parts)
    return "\n\n".join(parts)


def cluster_ends(text: str) -> set[int]:
    ends, position = {0}, 0
    for cluster in pyuegc.EGC(text):
        position += len(cluster)
        ends.add(position)
    return ends


def checked(text: str, chunks: Chunks, size: Callable[[str], int], limit: int) -> dict[str, int]:
    clusters = cluster_ends(text)
    return {
        "chunks": len(chunks),
        "wrong_start": sum(1 for start, chunk in chunks if text[start : start + len(chunk)] != chunk),
        # an earlier copy of the same text (found with ``find``): a start not after the one before
        "start_not_after_previous": sum(1 for (before, _), (start, _) in pairwise(chunks) if start <= before),
        "over_size": sum(1 for _, chunk in chunks if size(chunk) > limit),
        "inside_cluster": sum(1 for start, chunk in chunks if start + len(chunk) not in clusters),
    }


def ours(text: str, sizes: Settings) -> Chunks:
    return [(chunk["start"], chunk["text"]) for chunk in size_chunk(text, sizes, None)["chunks"]]


def langchain(text: str, max_chars: int, overlap: int) -> Chunks:
    from langchain_text_splitters import RecursiveCharacterTextSplitter  # noqa: PLC0415 (bench-only)

    splitter = RecursiveCharacterTextSplitter(chunk_size=max_chars, chunk_overlap=overlap, add_start_index=True)
    with contextlib.redirect_stderr(io.StringIO()):
        return [(doc.metadata["start_index"], doc.page_content) for doc in splitter.create_documents([text])]


def rust(text: str, max_chars: int, overlap: int) -> Chunks:
    from semantic_text_splitter import TextSplitter  # noqa: PLC0415 (bench-only)

    return list(TextSplitter((max_chars, max_chars), overlap=overlap).chunk_indices(text))


REPETITIVE = "- yes\n- no\n- yes, and no\n" * 40 + "Yes. No. Yes and no. " * 40
"""A list and sentences said again and again: an overlapping chunk's text occurs earlier too."""


def size_check_rows() -> list[dict[str, Any]]:
    text = tricky_text()
    rows = []
    for label, sample, max_chars, overlap in (
        ("mixed", text, 200, 50), ("mixed", text, 1000, 200), ("repetitive", REPETITIVE, 40, 20)
    ):  # fmt: skip
        for name, chunks in (
            ("texttools text-size-chunk", ours(sample, Settings(max_chars, overlap))),
            ("semantic-text-splitter TextSplitter", rust(sample, max_chars, overlap)),
            ("langchain RecursiveCharacterTextSplitter", langchain(sample, max_chars, overlap)),
        ):
            rows.append({"chunker": name, "setting": f"{label} ({max_chars}, {overlap})"}
                        | checked(sample, chunks, len, max_chars))  # fmt: skip
    return rows + token_check_rows(text)


def token_check_rows(text: str) -> list[dict[str, Any]]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter  # noqa: PLC0415 (bench-only)
    from semantic_text_splitter import TextSplitter  # noqa: PLC0415 (bench-only)

    from benchmarks.size_peers import with_offline_tiktoken  # noqa: PLC0415

    with_offline_tiktoken()
    cl100k = encoding("cl100k_base")

    def count(chunk: str) -> int:
        return len(cl100k.encode_ordinary(chunk))

    rows = []
    for max_tokens in (64, 256):
        splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=max_tokens, chunk_overlap=0, add_start_index=True
        )
        with contextlib.redirect_stderr(io.StringIO()):
            theirs = [(doc.metadata["start_index"], doc.page_content) for doc in splitter.create_documents([text])]
        rust_chunks = list(TextSplitter.from_tiktoken_model("text-embedding-3-small", max_tokens).chunk_indices(text))
        mine = ours(text, Settings(16 * max_tokens, 0, 0, max_tokens, cl100k))
        for name, chunks in (
            ("texttools text-size-chunk", mine),
            ("semantic-text-splitter from_tiktoken_model", rust_chunks),
            ("langchain from_tiktoken_encoder", theirs),
        ):
            row = checked(text, chunks, count, max_tokens)
            row["fill_percent"] = round(100 * sum(map(count, (c for _, c in chunks))) / (len(chunks) * max_tokens))
            rows.append({"chunker": name, "setting": f"{max_tokens} tokens"} | row)
    return rows


def main() -> None:
    for row in size_check_rows():
        print(row)


if __name__ == "__main__":
    main()
