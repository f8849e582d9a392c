"""Issue 60's documents at scale, each through the chunker's own path (``ChunksFormat=jsonl``,
``streaming.chunk_generated``) in a process of its own, so that its peak RSS is the chunker's:

- ``long-headings``: converted text whose every section has a whole paragraph for its heading (a
  300 KB part with a 250 KB setext heading, repeated), at (1 000, 200): every chunk carries that
  heading in ``headings``, so the output is some 300 times the input; what is held of it must be
  bounded in bytes.
- ``spreadsheet``: a spreadsheet exported to Markdown, one pipe table of a million rows per
  100 MB, at (1 000, 200): every chunk after the first starts inside the table and must carry its
  header, which the stand-in S3 checks line by line (the check's time left out of the rate).
"""

import itertools
import json
import random
import subprocess
import sys
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from benchmarks.streaming import chunk_generated
from benchmarks.workloads import setext_part
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


def spreadsheet_blocks(size: int) -> tuple[Callable[[], Iterable[bytes]], int]:
    """The spreadsheet of at most ``size`` bytes as blocks (its header, then a block of 10 000 rows
    again and again) and its size."""
    head = f"{HEADER}\n{DELIMITER_ROW}\n".encode()
    block = spreadsheet_rows(10_000).encode()
    count = (size - len(head)) // len(block)
    return lambda: itertools.chain([head], itertools.repeat(block, count)), len(head) + count * len(block)


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


def long_headings(size: int) -> dict[str, Any]:
    part = setext_part()
    count = size // len(part)
    metadata = {"tool": "markdown-size-chunk"} | SIZES
    seconds, written = chunk_generated(lambda: itertools.repeat(part, count), count * len(part), metadata)
    return {"mib": count * len(part) / (1 << 20), "seconds": seconds, "written": written}


def spreadsheet(size: int) -> dict[str, Any]:
    blocks, total = spreadsheet_blocks(size)
    check = TableHeaderCheck()
    metadata = {"tool": "markdown-size-chunk"} | SIZES
    seconds, written = chunk_generated(blocks, total, metadata, check)
    assert check.carry == b"", check.carry[:80]
    assert check.chunks > total // 1000, check.chunks
    return {"mib": total / (1 << 20), "seconds": seconds, "written": written, "chunks": check.chunks}


DOCUMENTS: dict[str, Callable[[int], dict[str, Any]]] = {"long-headings": long_headings, "spreadsheet": spreadsheet}

SCRIPT = """
import json, sys
from benchmarks.memory import peak_rss_mb
from benchmarks.at_scale import DOCUMENTS
result = DOCUMENTS[sys.argv[1]](int(sys.argv[2]))
print(json.dumps(result | {"peak_rss_mb": peak_rss_mb()}))
"""


def measured(name: str, size: int) -> dict[str, Any]:
    """``DOCUMENTS[name]`` on ``size`` bytes in a fresh process: its MiB, seconds, bytes written,
    peak RSS (MB) and rate (MiB/s)."""
    env = {"PYTHONPATH": f"{ROOT / 'src/core'}:{ROOT / 'src/handlers'}:{ROOT}", "PATH": ""}
    result = subprocess.run([sys.executable, "-c", SCRIPT, name, str(size)], capture_output=True, text=True,
                            check=True, env=env, cwd=ROOT)  # fmt: skip
    row: dict[str, Any] = json.loads(result.stdout)
    return row | {"mib_per_s": row["mib"] / row["seconds"]}


def at_scale_rows() -> list[dict[str, Any]]:
    """``make bench``'s rows: each document at the size issue 60 states."""
    sizes = {"long-headings": 16 << 20, "spreadsheet": 100_000_000}
    return [{"document": name} | measured(name, size) for name, size in sizes.items()]
