"""``make backfill`` end to end against ``make serve``'s S3: every document ends with exactly one
result object, and a document that both paths handle ends identical."""

import os
import subprocess
import sys
import time
from typing import Any

from scripts.local_s3 import LocalS3Flow
from scripts.s3_target import CREDENTIALS
from scripts.template import ROOT
from tests.conftest import SCRIPTS_PYTHONPATH

DOCUMENTS = 120


def outputs(s3: Any, bucket: str) -> dict[str, list[bytes]]:
    """Every version's bytes of every result object, by key."""
    found: dict[str, list[bytes]] = {}
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket):
        for version in page.get("Versions", []):
            if version["Key"].startswith(("chunks/", "errors/")):
                body = s3.get_object(Bucket=bucket, Key=version["Key"], VersionId=version["VersionId"])["Body"].read()
                found.setdefault(version["Key"], []).append(body)
    return found


def settled(s3: Any, bucket: str, count: int, versions: int = 1) -> dict[str, list[bytes]]:
    """The outputs once ``count`` keys have ``versions`` versions each (the event flow runs beside the backfill)."""
    deadline = time.monotonic() + 60
    while True:
        found = outputs(s3, bucket)
        if len(found) == count and all(len(bodies) == versions for bodies in found.values()):
            return found
        assert time.monotonic() < deadline, f"{len(found)} of {count} documents have {versions} results"
        time.sleep(0.2)


def test_make_backfill_leaves_every_document_with_one_result(flow: LocalS3Flow) -> None:
    s3, bucket = flow.client("s3"), flow.bucket
    for number in range(DOCUMENTS):
        s3.put_object(Bucket=bucket, Key=f"incoming/batch/doc {number}.txt", Body=f"{number}\n\nsecond".encode())
    s3.put_object(Bucket=bucket, Key="incoming/batch/bad.txt", Body=b"\xff")
    s3.put_object(Bucket=bucket, Key="incoming/batch/folder/", Body=b"")
    by_events = settled(s3, bucket, DOCUMENTS + 1)
    assert all(len(versions) == 1 for versions in by_events.values())
    s3.put_object(Bucket=bucket, Key="incoming/batch/both paths.txt", Body=b"x\n\ny")  # its event and the listing
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "scripts.backfill", "--prefix", "incoming/batch/", "--concurrency", "2"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, **CREDENTIALS, "PYTHONPATH": SCRIPTS_PYTHONPATH, "AWS_ENDPOINT_URL": flow.endpoint},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    summary = result.stdout.splitlines()[-1]
    assert summary.startswith(f"done: {DOCUMENTS + 3} documents (invalid_input 1, ok {DOCUMENTS + 1}, skipped 1)")
    assert summary.endswith("0 batches failed after their retries")
    # Each document was handled once by its event and once by the backfill: two versions, the same bytes.
    after = settled(s3, bucket, DOCUMENTS + 2, versions=2)
    assert sorted(after) == sorted([*by_events, "chunks/batch/both paths.txt.json"])
    assert [key for key, bodies in after.items() if len(set(bodies)) != 1] == []
    assert time.monotonic() - started < 120


def test_make_backfill_refuses_a_prefix_outside_incoming(flow: LocalS3Flow) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "scripts.backfill", "--prefix", "chunks/"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=60,
        env={**os.environ, **CREDENTIALS, "PYTHONPATH": SCRIPTS_PYTHONPATH, "AWS_ENDPOINT_URL": flow.endpoint},
    )  # fmt: skip
    assert result.returncode == 2
    assert "the prefix must start with incoming/" in result.stderr
