"""markdown-size-chunk beside its peers, side by side in one run (``make bench``'s Markdown size rows).

The core (text to chunk objects with spans, lines, cuts and heading paths) on a real reference
manual (``benchmarks/data/nodejs-fs.md``, 256 KiB) against semantic-text-splitter's
``MarkdownSplitter.chunk_indices`` (Rust: code point offsets and texts only) and LangChain's
``RecursiveCharacterTextSplitter.from_language(Language.MARKDOWN)`` (``add_start_index``), at
(1 000, 200), (300, 0) and (4 000, 400). The floor is the work no implementation can skip: the
CommonMark block parse and the size floor (``floor_work``). The peers are
bench-only dependencies (requirements-dev.txt), never in the layer.
"""

from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.workloads import greedy_cuts, table_report
from texttools.registry import tool

DOCUMENT = Path(__file__).parent / "data" / "nodejs-fs.md"
SIZES = ((1000, 200), (300, 0), (4000, 400))


def floor_work(text: str, max_chars: int) -> int:
    """pulldown-cmark's events with their ranges, read and dropped (what any use of the parse
    costs), then ``greedy_cuts``: the number of cuts."""
    import pyromark  # noqa: PLC0415 (only these rows need it)

    deque(pyromark.events_with_range(text.replace("\r\n", "\n").replace("\r", "\n"), merge_text=True), maxlen=0)
    return greedy_cuts(text, max_chars)


def markdown_size_peer_rows(median_ms: Callable[..., float]) -> list[dict[str, Any]]:
    text = DOCUMENT.read_text(encoding="utf-8")
    return [peer_row(median_ms, text, "characters", max_chars, overlap) for max_chars, overlap in SIZES]


def table_report_peer_rows(median_ms: Callable[..., float]) -> list[dict[str, Any]]:
    """The same on issue 60's table-heavy workload: 256 KiB of a converted annual report, prose and
    pipe tables of 25 to 45 rows, at (1 000, 200)."""
    return [peer_row(median_ms, table_report(256 * 1024), "table report", 1000, 200)]


def peer_row(median_ms: Callable[..., float], text: str, what: str, max_chars: int, overlap: int) -> dict[str, Any]:
    """Each side's median ms on ``text`` at (``max_chars``, ``overlap``), and the ratios."""
    from langchain_text_splitters import Language, RecursiveCharacterTextSplitter  # noqa: PLC0415 (bench-only)
    from semantic_text_splitter import MarkdownSplitter  # noqa: PLC0415 (bench-only)

    chosen = tool("markdown-size-chunk")
    params = chosen.parse({"text": text, "max_chars": max_chars, "overlap_chars": overlap})
    rust = MarkdownSplitter((max_chars, max_chars), overlap=overlap)
    langchain = RecursiveCharacterTextSplitter.from_language(  # MarkdownTextSplitter's separators
        Language.MARKDOWN, chunk_size=max_chars, chunk_overlap=overlap, add_start_index=True
    )
    ours = median_ms(lambda: chosen.run(params))
    theirs = median_ms(lambda: rust.chunk_indices(text))
    lang = median_ms(lambda: langchain.create_documents([text]), runs=9, warmup=1)
    floor = median_ms(lambda: floor_work(text, max_chars))
    return {"what": f"{what} ({max_chars}, {overlap})", "ours_ms": ours, "rust_ms": theirs, "langchain_ms": lang,
            "to_rust": ours / theirs, "to_langchain": ours / lang, "floor_ms": floor, "floor_to_rust": floor / theirs,
            "to_floor": ours / floor}  # fmt: skip
