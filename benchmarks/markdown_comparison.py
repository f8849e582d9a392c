"""The comparison table of docs/markdown-size.md: small Markdown documents through each peer and
through markdown-size-chunk, each checked for what a retrieval pipeline needs of a Markdown chunk.

Run ``python -m benchmarks.markdown_comparison`` (the peers are bench-only dependencies,
requirements-dev.txt); it prints the table that docs/markdown-size.md shows, and a test keeps the
two equal. A cell is what the chunker did on that document: ``yes`` is what the check asks for.
"""

import re
from collections.abc import Callable

from texttools.registry import tool

DOCUMENTS = {
    "a heading stays with its text": "# Guide\n\nIntro text of the guide, long enough.\n\n## Install\n\nRun the installer.\n",
    "a code block that fits stays whole": "Intro.\n\n```python\nimport os\n\nprint(os.sep)\n```\n\nAfter the block.\n",
    "a setext heading starts a chunk": "Intro text here.\n\nSetext title\n---\n\nBody under it.\n",
    "skipped levels: the path under C": "# A\n\nIntro under A.\n\n### C\n\nText under C.\n",
}
SIZES = range(20, 101, 5)
"""Each document is cut at each of these sizes (characters)."""
HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)|^ {0,3}(?:=+|-+)[ \t]*$", re.MULTILINE)
Chunk = tuple[int, str, list[str] | None]
"""A chunk as a peer gives it: its start (code points), its text, its heading path if it has one."""


def ours(text: str, size: int) -> list[Chunk]:
    chosen = tool("markdown-size-chunk")
    output = chosen.run(chosen.parse({"text": text, "max_chars": size}))
    return [(c["start"], c["text"], c["headings"]) for c in output["chunks"]]


def semantic_text_splitter(text: str, size: int) -> list[Chunk]:
    from semantic_text_splitter import MarkdownSplitter  # noqa: PLC0415 (bench-only)

    return [(start, chunk, None) for start, chunk in MarkdownSplitter(size).chunk_indices(text)]


def langchain_markdown(text: str, size: int) -> list[Chunk]:
    from langchain_text_splitters import MarkdownTextSplitter  # noqa: PLC0415 (bench-only)

    splitter = MarkdownTextSplitter(chunk_size=size, chunk_overlap=0, add_start_index=True)
    return [(d.metadata["start_index"], d.page_content, None) for d in splitter.create_documents([text])]


def langchain_headers(text: str, size: int) -> list[Chunk]:
    """MarkdownHeaderTextSplitter (no size: ``size`` is ignored), headings kept in the text; its
    chunks carry no offsets, so each is looked for in the text."""
    from langchain_text_splitters import MarkdownHeaderTextSplitter  # noqa: PLC0415 (bench-only)

    levels = [("#" * n, f"h{n}") for n in range(1, 7)]
    splitter = MarkdownHeaderTextSplitter(levels, strip_headers=False)
    return [(text.find(d.page_content), d.page_content, list(d.metadata.values())) for d in splitter.split_text(text)]


PEERS: dict[str, Callable[[str, int], list[Chunk]]] = {
    "markdown-size-chunk": ours,
    "semantic-text-splitter MarkdownSplitter": semantic_text_splitter,
    "LangChain MarkdownTextSplitter": langchain_markdown,
    "LangChain MarkdownHeaderTextSplitter": langchain_headers,
}


def heading_at_an_end(text: str, size: int, chunks: list[Chunk]) -> str | None:
    last_lines = [chunk.rstrip().rsplit("\n", 1)[-1] for _, chunk, _ in chunks[:-1]]
    return "a heading ends a chunk" if any(HEADING.match(line) for line in last_lines) else None


def block_cut(text: str, size: int, chunks: list[Chunk]) -> str | None:
    if size < len(text[text.index("```") : text.rindex("```") + 3]):
        return None  # the block does not fit: it must be cut
    return "the block is cut" if any(chunk.count("```") % 2 for _, chunk, _ in chunks) else None


def setext_inside(text: str, size: int, chunks: list[Chunk]) -> str | None:
    section = text[text.index("Setext title") :].rstrip()
    if not len(section) <= size < len(text.rstrip()):
        return None  # all of it fits in one chunk, or the section does not
    return None if any(chunk.startswith("Setext title") for _, chunk, _ in chunks) else "it is inside a chunk"


def path_under_c(text: str, size: int, chunks: list[Chunk]) -> str | None:
    under = [path for start, _, path in chunks if start >= text.index("### C")]
    if not under or under[0] == ["A", "C"]:
        return None
    return "no heading path" if under[0] is None else f"path {under[0]}"


CHECKS = dict(zip(DOCUMENTS, (heading_at_an_end, block_cut, setext_inside, path_under_c), strict=True))
"""What each document checks, at one size: ``None`` when the chunks pass, or what is wrong."""


def fault(name: str, text: str, size: int, chunks: list[Chunk]) -> str | None:
    """What the chunker got wrong on one document at one size (``None``: nothing)."""
    if not all(start >= 0 and text[start : start + len(chunk)] == chunk for start, chunk, _ in chunks):
        return "a chunk is not the source at its offset"
    return CHECKS[name](text, size, chunks)


def verdict(name: str, text: str, chunker: Callable[[str, int], list[Chunk]]) -> str:
    """``yes`` at every size, or the first fault and at how many sizes the check failed."""
    faults = [found for size in SIZES if (found := fault(name, text, size, chunker(text, size))) is not None]
    return f"no, {len(faults)} of {len(SIZES)}: {faults[0]}" if faults else "yes"


def table() -> str:
    """The comparison as a Markdown table: a row per document, a column per chunker."""
    lines = ["| document | " + " | ".join(PEERS) + " |", "| --- |" + " --- |" * len(PEERS)]
    for name, text in DOCUMENTS.items():
        lines.append(f"| {name} | " + " | ".join(verdict(name, text, chunker) for chunker in PEERS.values()) + " |")
    return "\n".join(lines)


def main() -> None:
    print(table())


if __name__ == "__main__":
    main()
