"""The document flows' fixtures: moto's S3 (in-process) with the documents bucket, the chunker
imported inside it, and helpers to upload, run an event and read what was written."""

import importlib
import json
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import boto3
import pytest
from moto import mock_aws

from scripts.lambda_events import LOCAL_REGION, LocalContext, s3_event
from scripts.template import documents_bucket, functions

BUCKET = documents_bucket()
Upload = Callable[..., dict[str, Any]]


@pytest.fixture
def s3() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("s3", region_name=LOCAL_REGION)
        client.create_bucket(Bucket=BUCKET)
        client.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
        yield client


@pytest.fixture
def chunker(s3: Any, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The handler module, imported inside the mock so its module-level client is moto's, with the
    template's default tool (API.md's) and no default parameters."""
    monkeypatch.setenv("DEFAULT_TOOL", functions()["ChunkDocumentFunction"].environment["DEFAULT_TOOL"])
    monkeypatch.delenv("DEFAULT_PARAMETERS", raising=False)
    import chunk_document_function

    return importlib.reload(chunk_document_function)


@pytest.fixture
def upload(s3: Any) -> Upload:
    """Put a document; returns the event record fields S3 would send for it."""

    def put(key: str, body: bytes, metadata: dict[str, str] | None = None) -> dict[str, Any]:
        response = s3.put_object(Bucket=BUCKET, Key=key, Body=body, Metadata=metadata or {})
        return {"key": key, "size": len(body), "etag": response["ETag"].strip('"'), "version": response["VersionId"]}

    return put


def run(chunker: ModuleType, *uploads: dict[str, Any]) -> dict[str, Any]:
    event = s3_event(BUCKET, [(u["key"], u["size"], u["etag"], u["version"]) for u in uploads])
    return chunker.lambda_handler(event, LocalContext("ChunkDocumentFunction"))  # type: ignore[no-any-return]


def read(s3: Any, key: str) -> dict[str, Any]:
    return json.loads(s3.get_object(Bucket=BUCKET, Key=key)["Body"].read())  # type: ignore[no-any-return]


def keys(s3: Any, prefix: str) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])]
