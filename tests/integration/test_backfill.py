"""``BackfillFunction`` against moto's S3: API.md's "Backfill: documents already in the bucket"."""

import importlib
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from botocore.exceptions import ClientError

import s3_documents
from benchmarks.workloads import table_report
from scripts.lambda_events import LocalContext, backfill_batch, s3_event
from tests.integration.conftest import BUCKET, Upload, keys, read, run


@pytest.fixture
def backfill(chunker: ModuleType) -> ModuleType:
    """The backfill's handler module, imported inside the mock (after the chunker, whose environment it shares)."""
    import backfill_function

    return importlib.reload(backfill_function)


def listing(s3: Any, prefix: str = "") -> list[tuple[str, int, str, float]]:
    """What S3 ListObjectsV2 lists now, as the batch's items are made of."""
    contents = s3.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
    return [(o["Key"], o["Size"], o["ETag"].strip('"'), o["LastModified"].timestamp()) for o in contents]


def written(s3: Any) -> dict[str, bytes]:
    """Every output object's bytes, by key."""
    return {
        key: s3.get_object(Bucket=BUCKET, Key=key)["Body"].read() for key in keys(s3, "chunks/") + keys(s3, "errors/")
    }


def run_batch(backfill: ModuleType, objects: list[tuple[str, int, str, float]]) -> dict[str, Any]:
    result: dict[str, Any] = backfill.lambda_handler(backfill_batch(BUCKET, objects), LocalContext("BackfillFunction"))
    return result


def test_a_batch_as_the_map_sends_it(s3: Any, backfill: ModuleType, upload: Upload) -> None:
    names = ("incoming/a b.txt", "incoming/x+y.txt", "incoming/100%.txt", "incoming/ünï/cödé.txt")
    good = [upload(key, b"one\n\ntwo") for key in names]
    upload("incoming/bad.txt", b"\xff")
    upload("incoming/folder/", b"")
    upload("elsewhere/outside.txt", b"not a document")
    listed = listing(s3)
    huge = upload("incoming/huge.txt", b"listed as 5 GiB")  # refused from its listed Size: its body is not read
    items = [*listed, ("incoming/gone.txt", 3, "0" * 32, 0.0), ("incoming/huge.txt", 5 << 30, huge["etag"], 0.0)]
    assert run_batch(backfill, items) == {
        "documents": 9,
        "outcomes": {"ok": 4, "invalid_input": 1, "skipped": 2, "gone": 1, "input_too_large": 1},
    }
    assert keys(s3, "chunks/") == sorted(f"chunks/{doc['key'].removeprefix('incoming/')}.json" for doc in good)
    assert keys(s3, "errors/") == ["errors/bad.txt.json", "errors/huge.txt.json"]
    # The event flow's bytes: the version refused, which a HeadObject gives (issue 43).
    assert read(s3, "errors/huge.txt.json")["source"]["version_id"] == huge["version"]


def test_a_success_names_its_source_as_listed_and_the_version_read(
    s3: Any, backfill: ModuleType, upload: Upload
) -> None:
    doc = upload("incoming/n.txt", b"a\n\nb")
    ((key, size, etag, _),) = listing(s3)
    run_batch(backfill, [(key, size, etag, 0.0)])
    assert read(s3, "chunks/n.txt.json")["source"] == {"bucket": BUCKET, "key": "incoming/n.txt",
                                                       "version_id": doc["version"], "etag": doc["etag"],
                                                       "size": doc["size"]}  # fmt: skip


def test_an_object_replaced_since_the_listing_is_skipped(s3: Any, backfill: ModuleType, upload: Upload) -> None:
    upload("incoming/r.txt", b"listed")
    listed = listing(s3)
    upload("incoming/r.txt", b"replaced since")
    assert run_batch(backfill, listed)["outcomes"] == {"gone": 1}
    assert keys(s3, "chunks/") == keys(s3, "errors/") == []


@pytest.mark.parametrize("chunks_format", ["json", "jsonl"])
def test_the_backfill_writes_the_same_bytes_as_the_event_flow(
    s3: Any, chunker: ModuleType, backfill: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch,
    chunks_format: str,
) -> None:  # fmt: skip
    """Each document ends as exactly the object the event flow writes for it, in either format."""
    monkeypatch.setenv("CHUNKS_FORMAT", chunks_format)
    extract = {"tool": "text-extract-between", "start": '"["', "end": '"]"'}
    docs = [upload("incoming/é 1.md", "# T\r\n\r\nx 😀".encode()), upload("incoming/bad.txt", b"caf\xe9"),
            upload("incoming/m.txt", b"[a][b", extract)]  # fmt: skip
    run(chunker, *docs)
    by_event = written(s3)
    for key in by_event:
        s3.delete_object(Bucket=BUCKET, Key=key)
    run_batch(backfill, listing(s3, "incoming/"))
    assert written(s3) == by_event
    extension = ".jsonl" if chunks_format == "jsonl" else ".json"
    assert sorted(by_event) == [f"chunks/é 1.md{extension}", "errors/bad.txt.json", "errors/m.txt.json"]


def test_a_backfill_run_twice_changes_no_bytes(s3: Any, backfill: ModuleType, upload: Upload) -> None:
    upload("incoming/t.txt", b"a\n\nb")
    run_batch(backfill, listing(s3))
    first = s3.get_object(Bucket=BUCKET, Key="chunks/t.txt.json")["Body"].read()
    run_batch(backfill, listing(s3, "incoming/"))
    versions = s3.list_object_versions(Bucket=BUCKET, Prefix="chunks/t.txt.json")["Versions"]
    bodies = {s3.get_object(Bucket=BUCKET, Key=v["Key"], VersionId=v["VersionId"])["Body"].read() for v in versions}
    assert (len(versions), bodies) == (2, {first})


def test_an_s3_fault_fails_the_batch_after_the_others_and_its_retry_finishes_it(
    s3: Any, backfill: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    upload("incoming/1.txt", b"one")
    upload("incoming/2.txt", b"two")
    real_get = backfill.s3.get_object

    def flaky_get(**kwargs: Any) -> Any:
        if kwargs["Key"] == "incoming/1.txt":
            raise ClientError({"Error": {"Code": "SlowDown", "Message": "x"}}, "GetObject")
        return real_get(**kwargs)

    monkeypatch.setattr(backfill.s3, "get_object", flaky_get)
    listed = listing(s3)
    with pytest.raises(s3_documents.TransientFailure, match=r"^1 of 2 documents failed and will be retried$") as raised:
        run_batch(backfill, listed)
    assert type(raised.value).__name__ == "TransientFailure"  # the error name the state machine's Retry names
    assert keys(s3, "chunks/") == ["chunks/2.txt.json"]
    assert keys(s3, "errors/") == []  # a fault of S3 is never the document's error
    monkeypatch.setattr(backfill.s3, "get_object", real_get)  # the Map's retry of the batch
    assert run_batch(backfill, listed)["outcomes"] == {"ok": 2}


def test_in_an_unversioned_bucket_the_version_is_null(s3: Any, backfill: ModuleType) -> None:
    s3.create_bucket(Bucket="unversioned")
    s3.put_object(Bucket="unversioned", Key="incoming/u.txt", Body=b"u")
    (item,) = s3.list_objects_v2(Bucket="unversioned")["Contents"]
    event = backfill_batch("unversioned", [(item["Key"], item["Size"], item["ETag"].strip('"'), 0.0)])
    backfill.lambda_handler(event, LocalContext("BackfillFunction"))
    written = json.loads(s3.get_object(Bucket="unversioned", Key="chunks/u.txt.json")["Body"].read())
    assert written["source"]["version_id"] is None


def test_logs_carry_outcomes_never_document_text(
    s3: Any, backfill: ModuleType, upload: Upload, log_lines: Callable[[], list[str]]
) -> None:
    secret = "SECRET-DOCUMENT-TEXT"
    upload("incoming/s.txt", secret.encode())
    run_batch(backfill, listing(s3))
    lines = [json.loads(line) for line in log_lines()]
    assert [line["outcome"] for line in lines if line.get("message") == "document chunked"] == ["ok"]
    assert secret not in json.dumps(lines)


def test_an_event_for_the_same_object_writes_what_the_backfill_wrote(
    s3: Any, chunker: ModuleType, backfill: ModuleType, upload: Upload
) -> None:
    doc = upload("incoming/same.txt", b"x\n\ny")
    run_batch(backfill, listing(s3))
    by_backfill = s3.get_object(Bucket=BUCKET, Key="chunks/same.txt.json")["Body"].read()
    chunker.lambda_handler(s3_event(BUCKET, [(doc["key"], doc["size"], doc["etag"], doc["version"])]),
                           LocalContext("ChunkDocumentFunction"))  # fmt: skip
    assert s3.get_object(Bucket=BUCKET, Key="chunks/same.txt.json")["Body"].read() == by_backfill


@pytest.mark.parametrize("chunks_format", ["json", "jsonl"])
def test_the_backfill_gives_chunks_inside_tables_their_header_as_the_event_flow_does(
    s3: Any, chunker: ModuleType, backfill: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch,
    chunks_format: str,
) -> None:  # fmt: skip
    """Issue 60: a report with tables, backfilled, is the object the event flow writes, its chunks
    that start inside a table carrying ``table_header``."""
    monkeypatch.setenv("CHUNKS_FORMAT", chunks_format)
    run(chunker, upload("incoming/report.md", table_report(40_000).encode(), {"tool": "markdown-size-chunk",
                                                                              "max-chars": "400"}))  # fmt: skip
    by_event = written(s3)
    for key in by_event:
        s3.delete_object(Bucket=BUCKET, Key=key)
    run_batch(backfill, listing(s3, "incoming/"))
    assert written(s3) == by_event
    (body,) = by_event.values()
    assert body.count(b'"table_header":{"start":') > 10
