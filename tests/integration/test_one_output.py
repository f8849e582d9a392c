"""API.md, "S3 document chunking": exactly one output per document. After a document's chunking
exactly one of ``chunks/<name>.json``, ``chunks/<name>.jsonl`` and ``errors/<name>.json`` exists,
the one this run wrote; the others are deleted after it is written; the same in the backfill."""

import importlib
from types import ModuleType
from typing import Any

import pytest
from botocore.exceptions import ClientError

from scripts.lambda_events import LocalContext, backfill_batch
from tests.integration.conftest import BUCKET, Upload, keys, read, run

JSON_OUT, JSONL_OUT, ERROR_OUT = "chunks/doc.txt.json", "chunks/doc.txt.jsonl", "errors/doc.txt.json"
GOOD = {"tool": "text-delimiter-chunk", "delimiter": '","'}
BAD = {"tool": "text-delimiter-chunk", "delimiter": ","}  # not a JSON literal: invalid_input


def outputs(s3: Any) -> list[str]:
    return keys(s3, "chunks/") + keys(s3, "errors/")


def delete_markers(s3: Any) -> list[str]:
    return sorted(marker["Key"] for marker in s3.list_object_versions(Bucket=BUCKET).get("DeleteMarkers", []))


@pytest.fixture
def chunks_format(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Switch the deployment's ChunksFormat between invocations (a stack update)."""

    def switch(value: str) -> None:
        monkeypatch.setenv("CHUNKS_FORMAT", value)
        monkeypatch.setenv("MAX_DOCUMENT_BYTES", str(1 << 20))

    return switch


def test_an_error_then_a_fixed_re_upload_leaves_the_success_alone(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    run(chunker, upload("incoming/doc.txt", b"a,b", BAD))
    assert outputs(s3) == [ERROR_OUT]
    run(chunker, upload("incoming/doc.txt", b"a,b", GOOD))
    assert outputs(s3) == [JSON_OUT]
    assert delete_markers(s3) == [ERROR_OUT]  # the old error stays as a noncurrent version, for its days


def test_a_success_then_a_bad_re_upload_leaves_the_error_alone(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    run(chunker, upload("incoming/doc.txt", b"a,b", GOOD))
    run(chunker, upload("incoming/doc.txt", b"caf\xe9", GOOD))
    assert outputs(s3) == [ERROR_OUT]
    assert read(s3, ERROR_OUT)["error"]["code"] == "invalid_input"


def test_json_to_jsonl_and_back(s3: Any, chunker: ModuleType, upload: Upload, chunks_format: Any) -> None:
    document = upload("incoming/doc.txt", b"a,b", GOOD)
    run(chunker, document)
    chunks_format("jsonl")
    run(chunker, document)  # the same version again, after ChunksFormat changed
    assert outputs(s3) == [JSONL_OUT]
    chunks_format("json")
    run(chunker, document)
    assert outputs(s3) == [JSON_OUT]
    assert delete_markers(s3) == [JSON_OUT, JSONL_OUT]


def test_an_error_in_jsonl_replaces_a_json_success(
    s3: Any, chunker: ModuleType, upload: Upload, chunks_format: Any
) -> None:
    run(chunker, upload("incoming/doc.txt", b"a,b", GOOD))
    chunks_format("jsonl")
    run(chunker, upload("incoming/doc.txt", b"a,b\xff", GOOD))
    assert outputs(s3) == [ERROR_OUT]


def test_a_retried_event_writes_the_same_bytes_and_adds_no_delete_marker(
    s3: Any, chunker: ModuleType, upload: Upload
) -> None:
    document = upload("incoming/doc.txt", b"a,b", GOOD)
    run(chunker, document)
    first = s3.get_object(Bucket=BUCKET, Key=JSON_OUT)["Body"].read()
    run(chunker, document)
    assert outputs(s3) == [JSON_OUT]
    assert s3.get_object(Bucket=BUCKET, Key=JSON_OUT)["Body"].read() == first
    assert delete_markers(s3) == []  # nothing is deleted where nothing is


def test_other_documents_outputs_are_left_alone(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    """Only this document's three keys: not a longer name that starts with it."""
    run(chunker, upload("incoming/doc.txt.json", b"x", BAD), upload("incoming/doc.tx", b"x", BAD))
    run(chunker, upload("incoming/doc.txt", b"a,b", GOOD))
    assert outputs(s3) == [JSON_OUT, "errors/doc.tx.json", "errors/doc.txt.json.json"]


def test_a_document_gone_before_its_event_deletes_nothing(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    run(chunker, upload("incoming/doc.txt", b"a,b", GOOD))
    replaced = upload("incoming/doc.txt", b"caf\xe9", GOOD)
    s3.delete_object(Bucket=BUCKET, Key="incoming/doc.txt", VersionId=replaced["version"])
    run(chunker, replaced)
    assert outputs(s3) == [JSON_OUT]


def test_a_fault_while_deleting_fails_the_invocation_and_the_retry_converges(
    s3: Any, chunker: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(chunker, upload("incoming/doc.txt", b"a,b", BAD))
    fixed = upload("incoming/doc.txt", b"a,b", GOOD)
    real_delete = chunker.s3.delete_object

    def failing(**kwargs: Any) -> Any:
        raise ClientError({"Error": {"Code": "SlowDown", "Message": "Reduce your request rate."}}, "DeleteObject")

    monkeypatch.setattr(chunker.s3, "delete_object", failing)
    with pytest.raises(chunker.TransientFailure):
        run(chunker, fixed)
    assert outputs(s3) == [JSON_OUT, ERROR_OUT]  # briefly two, never none
    monkeypatch.setattr(chunker.s3, "delete_object", real_delete)
    run(chunker, fixed)  # Lambda's retry of the same event
    assert outputs(s3) == [JSON_OUT]


def test_the_backfill_beside_the_event_flow_leaves_one_output(
    s3: Any, chunker: ModuleType, upload: Upload, chunks_format: Any
) -> None:
    """issue 43: ``make serve CHUNKS_FORMAT=jsonl`` and a backfill in json left both formats."""
    document = upload("incoming/doc.txt", b"a,b", GOOD)
    chunks_format("jsonl")
    run(chunker, document)
    chunks_format("json")
    import backfill_function

    backfill = importlib.reload(backfill_function)
    listed = [(o["Key"], o["Size"], o["ETag"].strip('"'), 0.0) for o in s3.list_objects_v2(Bucket=BUCKET)["Contents"]]
    backfill.lambda_handler(backfill_batch(BUCKET, listed), LocalContext("BackfillFunction"))
    assert outputs(s3) == [JSON_OUT]
