"""``make bench-backfill``: ``make backfill``'s driver over 10 000 small documents and 100 of 1 MiB
in an embedded S3 (moto's server), with as many workers as this machine has cores.

It reports documents per second, per second and core, and the share of the functions' time spent
outside the chunking itself (reading, writing, S3's own work here, Lambda's plumbing): the same
documents chunked in one process with no S3 give the chunking's own time. docs/documents.md,
"Backfill", works out from these numbers what a backfill of a million documents takes and costs.
"""

import logging
import os
import time
from typing import Any

from moto.server import ThreadedMotoServer

from benchmarks.workloads import mixed_document, mixed_text
from scripts.backfill import Plan, run
from scripts.lambda_events import LOCAL_REGION
from scripts.s3_target import CREDENTIALS
from scripts.template import load_template, parameter_defaults
from texttools.documents import JSON, JSONL, Defaults, Source, chunk_document, document_lines

SMALL, LARGE = 10_000, 100


def corpus() -> dict[str, bytes]:
    """Small documents of 0.5 to 4 KB (paragraphs of mixed text) and documents of 1 MiB."""
    text = mixed_text(4 * 1024 * 1024).encode()
    small = {f"incoming/small/{n:05d}.txt": text[n * 97 % 3_000_000 :][: 512 + n % 3584] for n in range(SMALL)}
    large_body = mixed_document(1 << 20)
    large = {f"incoming/large/{n:03d}.md": large_body for n in range(LARGE)}
    return small | large


def chunking_seconds(documents: dict[str, bytes], chunks_format: str) -> float:
    """The chunking alone: each document's output made in this process, no S3."""
    template = parameter_defaults(load_template())
    defaults = Defaults(template["DefaultTool"], template["DefaultParameters"])
    started = time.perf_counter()
    for key, body in documents.items():
        source = Source("bucket", key, None, "etag", len(body))
        if chunks_format == JSON:
            chunk_document(source, body, {}, defaults)
        else:
            sum(map(len, document_lines(source, [body], {}, defaults)))
    return time.perf_counter() - started


def main() -> None:
    import boto3  # noqa: PLC0415

    plan = Plan.from_template()
    documents = corpus()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no access log line per S3 call
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    endpoint = "http://{}:{}".format(*server.get_host_and_port())
    try:
        s3: Any = boto3.client("s3", endpoint_url=endpoint, region_name=LOCAL_REGION,
                               aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
                               aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"])  # fmt: skip
        s3.create_bucket(Bucket=plan.bucket)
        s3.put_bucket_versioning(Bucket=plan.bucket, VersioningConfiguration={"Status": "Enabled"})
        for key, body in documents.items():
            s3.put_object(Bucket=plan.bucket, Key=key, Body=body)
        cores = os.cpu_count() or 1
        environment = {**CREDENTIALS, "AWS_ENDPOINT_URL": endpoint, "POWERTOOLS_LOG_LEVEL": "WARNING",
                       "POWERTOOLS_METRICS_DISABLED": "true"}  # fmt: skip
        # The small ones in the default format, the large ones in jsonl (json refuses over 256 KiB).
        for prefix, count, chunks_format in (("incoming/small/", SMALL, JSON), ("incoming/large/", LARGE, JSONL)):
            progress = run(s3, prefix, plan, cores, environment | {"CHUNKS_FORMAT": chunks_format}, quiet=True)
            wall = time.monotonic() - progress.started
            done = sum(progress.outcomes.values())
            assert done == count, progress.line()
            assert progress.failed_batches == 0, progress.line()
            mine = {key: body for key, body in documents.items() if key.startswith(prefix)}
            chunking = chunking_seconds(mine, chunks_format)
            print(f"{prefix:18s} {chunks_format:5s} {done:6d} documents in {wall:6.1f} s: {done / wall:7.1f}/s, "
                  f"{done / wall / cores:7.1f}/s a core ({cores} workers); chunking alone {chunking:5.1f} s, "
                  f"{1 - chunking / progress.busy_seconds:.1%} of the functions' time outside it")  # fmt: skip
    finally:
        server.stop()


if __name__ == "__main__":
    main()
