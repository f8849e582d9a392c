"""Issue 60's documents at scale, each through the chunker's own path (``ChunksFormat=jsonl``,
``streaming.chunk_generated``) in a process of its own, so that its peak RSS is the chunker's:

- ``long-headings``: converted text whose every section has a whole paragraph for its heading (a
  300 KB part with a 250 KB setext heading, repeated), at (1 000, 200): every chunk carries that
  heading in ``headings``, so the output is some 300 times the input; what is held of it must be
  bounded in bytes.
- ``spreadsheet``: a spreadsheet exported to Markdown, one pipe table of a million rows per
  100 MB, at (1 000, 200): every chunk after the first starts inside the table and must carry its
  header, which the stand-in S3 checks line by line (the check's time left out of the rate).
- ``manual``: the bench's Node.js manual (few tables), the rate the others are judged beside.

Rates are of CPU time, one core's: the chunker is one thread, and a busy machine leaves its CPU
time nearly as it is, where it stretches its wall time.
"""

import itertools
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from benchmarks.streaming import chunk_generated
from benchmarks.workloads import manual_document, setext_part
from scripts.template import ROOT

SIZES = {"max-chars": "1000", "overlap-chars": "200"}
"""Issue 42's setting, as S3 metadata."""
HEADER = "| Region | Entity | Account | Period | Amount | Budget | Variance | Comment |"
DELIMITER_ROW = "|:-------|--------|--------:|:------:|-------:|-------:|---------:|---------|"
TABLE_HEADER = {"start": 0, "end": len(HEADER) + 1 + len(DELIMITER_ROW), "text": f"{HEADER}\n{DELIMITER_ROW}"}
"""What every chunk of the spreadsheet but the first carries (API.md's ``table_header``)."""
REGIONS = ["Europe", "North America", "Asia-Pacific", "Latin America", "Middle East & Africa", "Österreich", "日本"]
COMMENTS = ["", "audited", "restated (see note 4)", "FX \\| hedged", "`code|span`", "über Plan", "—", "😀 target met"]


def spreadsheet_rows(count: int, seed: int = 31) -> str:
    """``count`` body rows of a ledger export (about 100 bytes each): text and figures, empty
    cells, escaped pipes and pipes in code spans, accents, CJK and emoji, each line ending in LF."""
    rng = random.Random(seed)
    rows = []
    for number in range(count):
        amount, budget = rng.uniform(-1e6, 1e7), rng.uniform(0, 1e7)
        rows.append(f"| {rng.choice(REGIONS)} | E{rng.randint(1, 99):02d} | {4000 + number % 5000} | "
                    f"2024-{rng.randint(1, 12):02d} | {amount:,.2f} | {budget:,.2f} | {amount - budget:,.2f} | "
                    f"{rng.choice(COMMENTS)} |\n")  # fmt: skip
    return "".join(rows)


class TableHeaderCheck:
    """Reads the written lines as they come and checks each chunk's ``table_header``: none for the
    chunk that starts at the table's first character, ``TABLE_HEADER`` for every other."""

    def __init__(self) -> None:
        self.carry = b""
        self.chunks = 0

    def __call__(self, body: bytes) -> None:
        *lines, self.carry = (self.carry + body).split(b"\n")
        for line in lines:
            chunk = orjson.loads(line)
            if "index" not in chunk:  # the first line (the source) and the last (the counts)
                continue
            expected = TABLE_HEADER if chunk["start"] > 0 else None
            assert chunk.get("table_header") == expected, (chunk["index"], chunk["start"], chunk.get("table_header"))
            self.chunks += 1


Document = tuple[Callable[[], Iterable[bytes]], int, TableHeaderCheck | None]
"""A document's blocks (made again for each read), its size, and the check of its lines if any."""


def long_headings(size: int) -> Document:
    part = setext_part()
    count = size // len(part)
    return lambda: itertools.repeat(part, count), count * len(part), None


def spreadsheet(size: int) -> Document:
    head = f"{HEADER}\n{DELIMITER_ROW}\n".encode()
    block = spreadsheet_rows(10_000).encode()
    count = (size - len(head)) // len(block)
    return (
        lambda: itertools.chain([head], itertools.repeat(block, count)),
        len(head) + count * len(block),
        TableHeaderCheck(),
    )


def manual(size: int) -> Document:
    """The bench's manual (few tables): the rate the others are judged beside."""
    block = manual_document(1 << 20) + b"\n\n"
    count = size // len(block)
    return lambda: itertools.repeat(block, count), count * len(block), None


DOCUMENTS: dict[str, Callable[[int], Document]] = {
    "long-headings": long_headings, "spreadsheet": spreadsheet, "manual": manual,
}  # fmt: skip


def chunked(name: str, size: int) -> dict[str, Any]:
    """``DOCUMENTS[name]`` of at most ``size`` bytes through the chunker at (1 000, 200): its MiB,
    the CPU seconds it took (the check's left out: a rate of one core's time, steady on a busy
    machine), the bytes written and, checked, the chunks."""
    blocks, total, check = DOCUMENTS[name](size)
    metadata = {"tool": "markdown-size-chunk"} | SIZES
    seconds, written = chunk_generated(blocks, total, metadata, check, clock=time.process_time)
    row = {"mib": total / (1 << 20), "cpu_s": seconds, "written": written}
    if check is not None:
        assert check.carry == b"", check.carry[:80]
        assert check.chunks > total // 1000, check.chunks
        row["chunks"] = check.chunks
    return row


SCRIPT = """
import json, sys
from benchmarks.memory import peak_rss_mb
from benchmarks.at_scale import chunked
result = chunked(sys.argv[1], int(sys.argv[2]))
print(json.dumps(result | {"peak_rss_mb": peak_rss_mb()}))
"""


def measured(name: str, size: int) -> dict[str, Any]:
    """``chunked`` in a fresh process, with its peak RSS (MB) and rate (MiB of one core's second)."""
    env = {"PYTHONPATH": f"{ROOT / 'src/core'}:{ROOT / 'src/handlers'}:{ROOT}", "PATH": ""}
    result = subprocess.run([sys.executable, "-c", SCRIPT, name, str(size)], capture_output=True, text=True,
                            check=False, env=env, cwd=ROOT)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    row: dict[str, Any] = json.loads(result.stdout)
    return row | {"mib_per_s": row["mib"] / row["cpu_s"]}


def at_scale_rows() -> list[dict[str, Any]]:
    """``make bench``'s rows: each document at the size issue 60 states."""
    sizes = {"long-headings": 16 << 20, "spreadsheet": 100_000_000}
    return [{"document": name} | measured(name, size) for name, size in sizes.items()]
