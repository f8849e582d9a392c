"""``make backfill`` end to end against ``make serve``'s S3: every document ends with exactly one
result object, and a document that both paths handle ends identical."""

import os
import re
import subprocess
import sys
import time
from typing import Any

from scripts.local_s3 import LocalS3Flow
from scripts.s3_target import CHUNKS_FORMAT_TAG, CREDENTIALS
from scripts.template import ROOT
from tests.conftest import SCRIPTS_PYTHONPATH

DOCUMENTS = 120
SHELL = {name: value for name, value in os.environ.items() if name != "CHUNKS_FORMAT"}
"""A user's shell: without the template's CHUNKS_FORMAT that tests/conftest.py sets for in-process handlers."""


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
        env={**SHELL, **CREDENTIALS, "PYTHONPATH": SCRIPTS_PYTHONPATH, "AWS_ENDPOINT_URL": flow.endpoint},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"Backfill of s3://{bucket}/incoming/batch/ in ChunksFormat json (make serve's; ")
    summary = result.stdout.splitlines()[-1]
    assert summary.startswith(f"done: {DOCUMENTS + 3} documents (invalid_input 1, ok {DOCUMENTS + 1}, skipped 1)")
    assert summary.endswith("0 batches failed after their retries")
    documented = re.findall(r"^# (done: .*)$", (ROOT / "docs" / "documents.md").read_text(encoding="utf-8"), re.M)
    assert [re.sub(r"\d+(?:\.\d+)?", "N", line) for line in documented] == [re.sub(r"\d+(?:\.\d+)?", "N", summary)]
    # Each document was handled once by its event and once by the backfill: two versions, the same bytes.
    after = settled(s3, bucket, DOCUMENTS + 2, versions=2)
    assert sorted(after) == sorted([*by_events, "chunks/batch/both paths.txt.json"])
    assert [key for key, bodies in after.items() if len(set(bodies)) != 1] == []
    assert time.monotonic() - started < 120


def test_make_backfill_refuses_a_prefix_outside_incoming(flow: LocalS3Flow) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "scripts.backfill", "--prefix", "chunks/"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=60,
        env={**SHELL, **CREDENTIALS, "PYTHONPATH": SCRIPTS_PYTHONPATH, "AWS_ENDPOINT_URL": flow.endpoint},
    )  # fmt: skip
    assert result.returncode == 2
    assert "the prefix must start with incoming/" in result.stderr


def backfill(flow: LocalS3Flow, prefix: str, **environment: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [sys.executable, "-m", "scripts.backfill", "--prefix", prefix, "--concurrency", "1"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=300,
        env={**SHELL, **CREDENTIALS, "PYTHONPATH": SCRIPTS_PYTHONPATH, "AWS_ENDPOINT_URL": flow.endpoint,
             **environment},
    )  # fmt: skip


def test_make_backfill_writes_the_format_make_serve_runs_with(flow: LocalS3Flow) -> None:
    """issue 43: ``make serve CHUNKS_FORMAT=jsonl`` then ``make backfill`` left a ``.json`` beside
    each ``.jsonl``. make serve tags its bucket with its ChunksFormat; make backfill follows it
    unless CHUNKS_FORMAT says otherwise, and its first line says which."""
    s3, bucket = flow.client("s3"), flow.bucket
    tag = {"Key": CHUNKS_FORMAT_TAG, "Value": flow.chunks_format}
    assert s3.get_bucket_tagging(Bucket=bucket)["TagSet"] == [tag]
    s3.put_object(Bucket=bucket, Key="incoming/format/manual.md", Body=b"# Manual\n\nOne.\n")

    def settled_keys() -> list[str]:
        return [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="chunks/format/").get("Contents", [])]

    deadline = time.monotonic() + 30
    while settled_keys() != ["chunks/format/manual.md.json"]:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    try:
        s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": [{**tag, "Value": "jsonl"}]})  # as with jsonl
        result = backfill(flow, "incoming/format/")
        assert result.returncode == 0, result.stdout + result.stderr
        assert " in ChunksFormat jsonl (make serve's; CHUNKS_FORMAT= chooses) " in result.stdout.splitlines()[0]
        assert settled_keys() == ["chunks/format/manual.md.jsonl"]  # one output: the json one deleted
        chosen = backfill(flow, "incoming/format/", CHUNKS_FORMAT="json")
        assert " in ChunksFormat json (CHUNKS_FORMAT) " in chosen.stdout.splitlines()[0]
        assert settled_keys() == ["chunks/format/manual.md.json"]
    finally:
        s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": [tag]})
