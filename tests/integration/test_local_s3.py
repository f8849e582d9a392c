"""``make serve``'s S3 as S3 behaves: one event per object version written, named for how it was
written; and a bucket that outlives a restart (issue 62)."""

import os
import pickle
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

import boto3
import pytest
import requests
from boto3.s3.transfer import TransferConfig
from moto import mock_aws

from scripts.lambda_events import LOCAL_REGION
from scripts.local_bucket_store import BucketStore, StoredBucketError
from scripts.local_s3 import LocalS3Flow, MotoServer, started_server
from scripts.s3_target import CREDENTIALS
from scripts.template import documents_bucket
from tests.integration.test_local_api import Serve, banner, serve, stopped_on_ctrl_c, wait_for, wait_while

__all__ = ["serve"]  # the fixture, shared with test_local_api

MIB = 1024 * 1024
PART = 5 * MIB  # S3's (and the AWS CLI's) smallest part


@pytest.fixture
def deliveries(flow: LocalS3Flow, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Each record the flow hands to the chunker's worker: its event name and object key."""
    records: list[tuple[str, str]] = []
    invoke = flow.worker.invoke

    def recording(event: dict[str, Any]) -> Any:
        records.extend((r["eventName"], unquote_plus(r["s3"]["object"]["key"])) for r in event["Records"])
        return invoke(event)

    monkeypatch.setattr(flow.worker, "invoke", recording)
    return records


def test_each_way_of_writing_sends_one_event_named_as_s3_names_it(
    flow: LocalS3Flow, deliveries: list[tuple[str, str]], tmp_path: Path
) -> None:
    """moto sent ``ObjectCreated:Put`` and then ``ObjectCreated:CompleteMultipartUpload`` for one
    multipart upload, and make serve chunked every large upload twice; S3 sends the second only."""
    s3 = flow.client("s3")
    s3.put_object(Bucket=flow.bucket, Key="incoming/put.txt", Body=b"put")
    form = s3.generate_presigned_post(flow.bucket, "incoming/post.txt")
    posted = requests.post(form["url"], data=form["fields"], files={"file": b"post"}, timeout=30)
    assert posted.status_code == 204
    s3.put_object(Bucket=flow.bucket, Key="elsewhere/source.txt", Body=b"copy")
    s3.copy_object(Bucket=flow.bucket, Key="incoming/copy.txt", CopySource=f"{flow.bucket}/elsewhere/source.txt")
    large = tmp_path / "large.txt"
    large.write_bytes(b"line\n" * (PART // 5 + 1))  # two parts; over json's limit, so refused unread
    parts = TransferConfig(multipart_threshold=PART, multipart_chunksize=PART)
    s3.upload_file(str(large), flow.bucket, "incoming/sdk.txt", Config=parts)
    config = tmp_path / "aws-config"
    config.write_text("[default]\ns3 =\n  multipart_threshold = 5MB\n  multipart_chunksize = 5MB\n")
    cli = subprocess.run(
        ["aws", "--endpoint-url", flow.endpoint, "s3", "cp", str(large), f"s3://{flow.bucket}/incoming/cli.txt"],
        env={**CREDENTIALS, "AWS_DEFAULT_REGION": LOCAL_REGION, "AWS_CONFIG_FILE": str(config), "HOME": str(tmp_path),
             "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    uploads = s3.list_multipart_uploads(Bucket=flow.bucket).get("Uploads", [])
    assert uploads == []  # both were multipart uploads, and both completed
    s3.put_object(Bucket=flow.bucket, Key="incoming/last.txt", Body=b"x")  # delivered after any other event
    wait_for(s3, flow.bucket, "chunks/last.txt.json")
    assert deliveries == [
        ("ObjectCreated:Put", "incoming/put.txt"),
        ("ObjectCreated:Post", "incoming/post.txt"),
        ("ObjectCreated:Copy", "incoming/copy.txt"),
        ("ObjectCreated:CompleteMultipartUpload", "incoming/sdk.txt"),
        ("ObjectCreated:CompleteMultipartUpload", "incoming/cli.txt"),
        ("ObjectCreated:Put", "incoming/last.txt"),
    ]
    versions = s3.list_object_versions(Bucket=flow.bucket, Prefix="incoming/")["Versions"]
    assert len(versions) == len(deliveries)  # one event per version written, no more
    for key in ("sdk.txt", "cli.txt"):
        assert s3.head_object(Bucket=flow.bucket, Key=f"incoming/{key}")["ETag"].endswith('-2"')  # two parts


def stored_keys(folder: Path) -> set[str]:
    """The keys kept in ``folder`` (empty while make serve has not written it)."""
    files = list(folder.glob("*.pickle"))
    if not files:
        return set()
    with files[0].open("rb") as stored:
        return set(pickle.load(stored)[1].keys)  # noqa: S301 (the test's own file)


def objects(endpoint: str) -> tuple[Any, dict[str, tuple[str, bytes, dict[str, str]]]]:
    """A client of ``endpoint`` and every object in the bucket: version id, bytes and user metadata."""
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=LOCAL_REGION, aws_access_key_id="local",
                      aws_secret_access_key="local")  # fmt: skip
    bucket = documents_bucket()
    found = {}
    for item in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
        got = s3.get_object(Bucket=bucket, Key=item["Key"])
        found[item["Key"]] = (got["VersionId"], got["Body"].read(), got["Metadata"])
    return s3, found


def test_the_bucket_outlives_a_restart_and_a_kill(serve: Serve, tmp_path: Path) -> None:
    """Changing the tokenizers or the chunks format needs a restart, which lost every document and
    output silently. Kept objects come back as they were (version ids too) and are not chunked again."""
    kept = tmp_path / "kept"
    arguments = ("--port", "0", "--s3-port", "5200", "--keep-in", str(kept))
    process = serve(*arguments)
    text = banner(process)
    assert f"kept in:   {kept}  (0 keys restored; make empty-local-bucket empties it)" in text
    endpoint = text.split("S3 endpoint", 1)[1].split()[0]
    s3, _ = objects(endpoint)
    bucket = documents_bucket()
    for body in (b"# A\n\nOne.\n", b"# B\n\nTwo.\n"):
        s3.put_object(Bucket=bucket, Key="incoming/doc.md", Body=body, Metadata={"tool": "markdown-sections-chunk"})
    wait_while(lambda: len(s3.list_object_versions(Bucket=bucket, Prefix="chunks/").get("Versions", [])) < 2)
    _, before = objects(endpoint)
    assert set(before) == {"incoming/doc.md", "chunks/doc.md.json"}
    stopped_on_ctrl_c(process)  # written as it stops

    process = serve(*arguments)
    text = banner(process)
    assert "(2 keys restored;" in text
    endpoint = text.split("S3 endpoint", 1)[1].split()[0]
    s3, after = objects(endpoint)
    assert after == before
    assert len(s3.list_object_versions(Bucket=bucket, Prefix="incoming/")["Versions"]) == 2  # every version
    s3.put_object(Bucket=bucket, Key="incoming/more.md", Body=b"three")
    wait_while(lambda: "chunks/more.md.json" not in stored_keys(kept))  # written within a second of changing
    assert "chunks/more.md.json" in stored_keys(kept)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()

    process = serve(*arguments)
    text = banner(process)
    assert "(4 keys restored;" in text
    _, restored = objects(text.split("S3 endpoint", 1)[1].split()[0])
    assert set(restored) == {"incoming/doc.md", "chunks/doc.md.json", "incoming/more.md", "chunks/more.md.json"}
    assert stopped_on_ctrl_c(process) == "stopped\n"  # nothing delivered: no document chunked again


def test_a_bucket_kept_by_another_moto_is_refused_with_what_to_do(tmp_path: Path) -> None:
    """Starting empty would lose the kept objects as silently as before: make serve says what to do."""
    with mock_aws():
        boto3.client("s3", region_name=LOCAL_REGION).create_bucket(Bucket=documents_bucket())
        store = BucketStore(tmp_path, documents_bucket())
        store.path.write_bytes(pickle.dumps(("0.0.1", None)))
        with pytest.raises(StoredBucketError, match=r"was written with moto 0\.0\.1 \(this is 5\.[0-9.]+\): .*"
                                                    r"then make empty-local-bucket empties it$"):  # fmt: skip
            store.restore()
        store.path.write_bytes(b"not a pickle")
        with pytest.raises(StoredBucketError, match=r"cannot be read: make empty-local-bucket empties it$"):
            store.restore()


def test_make_serve_prints_both_endpoints_first_and_says_when_the_s3_port_was_taken(serve: Serve) -> None:
    """issue 62: ``S3_PORT=`` moves the S3 endpoint as ``PORT=`` moves the API; both come first."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = serve("--port", "0", "--s3-port", str(port))
        title, blank, api, s3, *_ = banner(process).splitlines()
    assert (title, blank) == ("Text tools, local (Ctrl-C stops)", "")
    assert re.fullmatch(r"API          http://127\.0\.0\.1:\d+  \(PORT= moves it\)", api), api
    moved = re.fullmatch(rf"S3 endpoint  http://127\.0\.0\.1:(\d+)  \(S3_PORT= moves it; {port} is in use\)", s3)
    assert moved is not None, s3
    assert int(moved[1]) > port
    assert stopped_on_ctrl_c(process) == "stopped\n"


@pytest.mark.timeout(60)
def test_a_port_bound_but_not_listening_is_passed_over_not_waited_on() -> None:
    """CI's run hung here: a connect is refused on such a port, so it looked free, and moto's
    server waited forever for its thread, which could not bind it."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))  # no listen(): nothing answers there, and nothing else can bind it
        port = bound.getsockname()[1]
        server = started_server("127.0.0.1", port)
        try:
            assert server.get_host_and_port()[1] > port
        finally:
            server.stop()
        with pytest.raises(OSError, match=rf"^cannot bind 127\.0\.0\.1:{port}$"):
            MotoServer(ip_address="127.0.0.1", port=port, verbose=False).start()
