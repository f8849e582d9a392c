"""``make bench``'s rows for documents of any size (``ChunksFormat=jsonl``), side by side in one run.

For each tool with a streaming form, on a 64 MiB mixed document: the streaming path (bytes in 1 MiB
pieces to encoded lines: ``texttools.documents.document_lines``), the in-memory path on the same
document (``bytes.decode`` of the whole, the tool with its limits lifted, the same lines encoded),
and the bare floor (``bytes.decode``, one ``str.split`` or ``find`` loop, and the encoding of the
ready-made lines). Then the streaming path on 1, 16 and 64 MiB, and the document chunker's peak
memory and speed on 1 GiB, in a process of its own that imports what the deployed function does.
"""

import itertools
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from benchmarks.workloads import (
    MARKERS,
    cuts_to_size,
    greedy_cuts,
    manual_document,
    mixed_document,
    parameters,
    reads_markdown,
    takes_markers,
)
from scripts.template import ROOT
from texttools.documents import Defaults, Source, document_lines, encoded_lines, output_lines
from texttools.registry import tools
from texttools.tool import Tool

MIB = 1 << 20
PIECE = MIB
"""What the chunker reads from S3 at a time (``s3_documents.READ_PIECE_BYTES``)."""
RUNS = 5
SIZES_MIB = (1, 16, 64)
LARGE_DOCUMENT = 1 << 30
LARGE_MARKDOWN = 1 << 29


def streaming_tools() -> dict[str, Tool]:
    return {tool_id: tool for tool_id, tool in tools().items() if tool.stream is not None}


def document_for(tool: Tool, size: int) -> bytes:
    """The mixed document; real Markdown (the manual, repeated) for a tool that reads Markdown."""
    if reads_markdown(tool):
        return manual_document(size)
    return mixed_document(size, markers=MARKERS if takes_markers(tool) else None)


def document_parameters(tool: Tool) -> dict[str, Any]:
    """The workload's parameters, each count as large as the document flows allow (no cap on matches)."""
    maxima = tool.document_maxima
    return {name: maxima.get(name, value) for name, value in parameters(tool).items()}


def metadata_for(tool: Tool) -> dict[str, str]:
    """The S3 metadata that gives ``document_parameters``."""
    chosen = {name.replace("_", "-"): json.dumps(value) for name, value in document_parameters(tool).items()}
    return {"tool": tool.id} | chosen


def pieces(data: bytes) -> Iterator[bytes]:
    return (data[start : start + PIECE] for start in range(0, len(data), PIECE))


def streamed(tool: Tool, data: bytes) -> Callable[[], int]:
    source, metadata = Source("bucket", "incoming/bench", None, "etag", len(data)), metadata_for(tool)
    return lambda: sum(map(len, document_lines(source, pieces(data), metadata, Defaults())))


def in_memory(tool: Tool, data: bytes) -> Callable[[], int]:
    run, params = tool.run_lifted, tool.parse_parameters(document_parameters(tool))
    assert run is not None

    def work() -> int:
        items, _ = output_lines(run({**params, "text": data.decode()}))
        if items and isinstance(items[0], str):  # matches: the lines' objects, as the streaming form makes them
            items = [{"index": index, "text": match} for index, match in enumerate(items)]
        return sum(map(len, encoded_lines(items)))

    return work


def floor(tool: Tool, data: bytes) -> Callable[[], int]:
    """``bytes.decode``, one C-speed scan, and the lines' encoding, handed the objects ready-made."""
    params = parameters(tool)
    source = Source("bucket", "incoming/bench", None, "etag", len(data))
    lines = b"".join(document_lines(source, [data], metadata_for(tool), Defaults())).splitlines()
    ready = [json.loads(line) for line in lines[1:-1]]  # the chunk lines, between the first and the last

    def scan(text: str) -> int:
        if cuts_to_size(tool):
            return greedy_cuts(text, params["max_chars"])
        if not takes_markers(tool):
            return len(text.split(params.get("delimiter", "\n\n")))
        found, pos, start, end = 0, 0, params["start"], params["end"]
        while (at := text.find(start, pos)) >= 0:
            pos = text.find(end, at + len(start)) + len(end)
            found += 1
        return found

    return lambda: scan(data.decode()) + sum(map(len, encoded_lines(ready)))


def alternated(*works: Callable[[], int]) -> list[float]:
    """Median seconds of each, timed in turn so that drift hits them alike."""
    times: list[list[float]] = [[] for _ in works]
    for run in range(RUNS + 1):
        for work, acc in zip(works, times, strict=True):
            started = time.perf_counter()
            work()
            if run:  # the first round warms up
                acc.append(time.perf_counter() - started)
    return [statistics.median(t) for t in times]


def streaming_rows() -> list[dict[str, Any]]:
    rows = []
    for tool_id, tool in streaming_tools().items():
        data = document_for(tool, 64 * MIB)
        floor_s, memory_s, stream_s = alternated(floor(tool, data), in_memory(tool, data), streamed(tool, data))
        rows.append({"tool": tool_id, "mib": len(data) / MIB, "floor_s": floor_s, "in_memory_s": memory_s,
                     "stream_s": stream_s, "ratio": stream_s / memory_s, "to_floor": stream_s / floor_s,
                     "mib_per_s": len(data) / MIB / stream_s})  # fmt: skip
    return rows


def streaming_scaling_rows() -> list[dict[str, Any]]:
    rows = []
    for tool_id, tool in streaming_tools().items():
        for size in SIZES_MIB:
            data = document_for(tool, size * MIB)
            (seconds,) = alternated(streamed(tool, data))
            rows.append({"tool": tool_id, "mib": size, "stream_s": seconds, "ms_per_mib": seconds * 1000 / size})
    return rows


LARGE = """
import sys
from benchmarks.memory import peak_rss_mb
from benchmarks.streaming import chunk_large_document
seconds, output = chunk_large_document(sys.argv[1], int(sys.argv[2]))
print(seconds, output, peak_rss_mb())
"""
"""A fresh process, as a cold chunker: its peak RSS is the chunker's, boto3 included."""


def chunk_large_document(tool_id: str, size: int) -> tuple[float, int]:
    """The chunker's own path over a generated document of ``size`` bytes (``chunk_generated``): the
    workload's 1 MiB block repeated."""
    chosen = tools()[tool_id]
    block = document_for(chosen, MIB) + b"\n\n"  # a small source: its own memory is not the chunker's
    count = size // len(block)
    metadata = metadata_for(chosen)
    if reads_markdown(chosen) and cuts_to_size(chosen):
        metadata["overlap-chars"] = "100"  # issue 54's setting for its memory bound: (1 000, 100)
    return chunk_generated(lambda: itertools.repeat(block, count), count * len(block), metadata)


def chunk_generated(
    blocks: Callable[[], Iterable[bytes]],
    size: int,
    metadata: dict[str, str],
    check: Callable[[bytes], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, int]:
    """The chunker's own path (``s3_documents.chunk_object``) over the document that ``blocks``
    makes (``size`` bytes in all), read from a stand-in S3 that makes its body as it is read and
    discards what is written, after handing each written object or part to ``check``: the seconds
    by ``clock`` (``check``'s own left out) and the bytes written."""
    import boto3  # noqa: PLC0415, F401 (what the deployed chunker holds in memory)
    from botocore.exceptions import ClientError  # noqa: PLC0415

    import s3_documents  # noqa: PLC0415 (imported where the chunker imports it)
    from texttools.documents import JSONL  # noqa: PLC0415

    checking = [0.0]

    class Body:
        def iter_chunks(self, chunk_size: int) -> Iterator[bytes]:
            for block in blocks():
                yield from (block[start : start + chunk_size] for start in range(0, len(block), chunk_size))

    class StandInS3:
        written = 0

        def get_object(self, **_: Any) -> dict[str, Any]:
            return {"Body": Body(), "Metadata": metadata}

        def put_object(self, Body: bytes, **_: Any) -> None:
            self.wrote(Body)

        def create_multipart_upload(self, **_: Any) -> dict[str, str]:
            return {"UploadId": "bench"}

        def upload_part(self, Body: bytes, **_: Any) -> dict[str, str]:
            self.wrote(Body)
            return {"ETag": "part"}

        def wrote(self, body: bytes) -> None:
            self.written += len(body)
            if check is not None:
                started = clock()
                check(body)
                checking[0] += clock() - started

        def complete_multipart_upload(self, **_: Any) -> None:
            pass

        def head_object(self, **_: Any) -> None:  # the document's other outputs: none
            raise ClientError({"Error": {"Code": "404", "Message": "Not Found"}}, "HeadObject")

    s3 = StandInS3()
    source = Source("bucket", "incoming/large", "v1", "etag", size)
    settings = s3_documents.Settings(JSONL, max(size, 1) * 2)
    started = clock()
    outcome = s3_documents.chunk_object(s3, source, settings)
    assert outcome.code == "ok", outcome
    return clock() - started - checking[0], s3.written


def large_document_rows() -> list[dict[str, Any]]:
    """Each tool on 1 GiB; a Markdown tool on 512 MiB of the manual (issue 54's bound: 256 MB of
    peak RSS for markdown-size-chunk at 1 000 characters with 100 of overlap)."""
    rows = []
    env = {"PYTHONPATH": f"{ROOT / 'src/core'}:{ROOT / 'src/handlers'}:{ROOT}", "PATH": ""}
    for tool_id, tool in streaming_tools().items():
        size = LARGE_MARKDOWN if reads_markdown(tool) else LARGE_DOCUMENT
        result = subprocess.run([sys.executable, "-c", LARGE, tool_id, str(size)], capture_output=True,
                                text=True, check=True, env=env, cwd=ROOT)  # fmt: skip
        seconds, written, peak = result.stdout.split()
        rows.append({"tool": tool_id, "gib": size / (1 << 30), "seconds": float(seconds),
                     "mib_per_s": size / MIB / float(seconds), "output_mib": int(written) / MIB,
                     "peak_rss_mb": float(peak)})  # fmt: skip
    return rows
