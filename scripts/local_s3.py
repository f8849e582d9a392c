"""The document flow of ``make serve``: an embedded S3 (moto's server) whose ``incoming/`` events
reach the real chunking handler, as the deployed bucket's notifications do.

The bucket, its trigger filter and the retry count are read from ``template.yaml``. S3 itself
builds each event (URL-encoded key, size, ETag) and delivers it through an SQS queue that a thread
drains into the chunker's worker process; an event that still fails after the retries goes to a
local failure queue, as the deployed OnFailure destination does. Each object version written
sends one event, named for how it was written (``ObjectCreated:Put``, ``:Post``, ``:Copy``,
``:CompleteMultipartUpload``), as S3 sends it: see ``one_event_per_version``.
"""

import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
from moto.s3.models import S3Backend
from moto.server import ThreadedMotoServer

from scripts.lambda_events import LOCAL_REGION
from scripts.local_bucket_store import BucketStore
from scripts.local_functions import FunctionWorker, InvocationError
from scripts.s3_target import CHUNKS_FORMAT_TAG, CREDENTIALS
from scripts.template import documents_bucket, functions, load_template, parameter_defaults


def bindable(host: str, port: int) -> bool:
    """Whether a server can bind ``port``, asked as the server will: bind with ``SO_REUSEADDR``.
    Asking by connecting is not enough: a port that nothing listens on can still be bound by another
    socket (the local end of a connection, a socket bound without ``listen``)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
        return True


class MotoServer(ThreadedMotoServer):
    """moto's threaded server, whose ``start`` waited forever when its thread could not bind: the
    server (werkzeug's) then prints why and exits its thread. That hang cost a whole CI run. Here
    ``start`` raises ``OSError`` instead; ``bindable`` makes that rare (another socket binding the
    port in between)."""

    def _server_entry(self) -> None:
        try:
            super()._server_entry()
        except SystemExit:
            self.bind_failed = True
            self._server_ready_event.set()

    def start(self) -> None:
        self.bind_failed = False
        super().start()
        if self.bind_failed:
            raise OSError(f"cannot bind {self._ip_address}:{self._port}")


def started_server(host: str, preferred: int) -> MotoServer:
    """A moto server on ``preferred`` if it can bind it, else on the next port it can bind (0: any)."""
    for port in range(preferred, preferred + 100) if preferred else (0,):
        if not bindable(host, port):
            continue
        server = MotoServer(ip_address=host, port=port, verbose=False)
        try:
            server.start()
        except OSError:
            continue
        return server
    raise OSError(f"no port from {preferred} to {preferred + 99} can be bound")


_completing = threading.local()


def one_event_per_version() -> None:
    """moto stores a completed multipart upload with its ``put_object``, which sends
    ``ObjectCreated:Put``, then sends ``ObjectCreated:CompleteMultipartUpload``: two events for one
    object version, so every large upload was chunked twice. S3 sends the second only. Here the
    inner ``put_object`` of a completion sends none (moto's copy already asks it for none).
    Idempotent; moto's state is the process's, so this is too."""
    if getattr(S3Backend.put_object, "one_event_per_version", False):
        return
    complete, put = S3Backend.complete_multipart_upload, S3Backend.put_object

    def completing(self: S3Backend, *args: Any, **kwargs: Any) -> Any:
        _completing.active = True
        try:
            return complete(self, *args, **kwargs)
        finally:
            _completing.active = False

    def putting(self: S3Backend, *args: Any, **kwargs: Any) -> Any:
        if getattr(_completing, "active", False):
            kwargs["disable_notification"] = True
        return put(self, *args, **kwargs)

    marked: Callable[..., Any] = putting
    marked.one_event_per_version = True  # type: ignore[attr-defined]
    S3Backend.complete_multipart_upload = completing  # type: ignore[method-assign]
    S3Backend.put_object = marked  # type: ignore[method-assign]


class LocalS3Flow:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 5000,
        environment: dict[str, str] | None = None,
        keep_in: Path | None = None,
    ) -> None:
        """``keep_in``: the folder that keeps the bucket's objects across restarts (none: they live
        as long as this flow)."""
        template = load_template()
        parameters = parameter_defaults(template)
        ((chunker, trigger),) = [
            (spec, event["Properties"])
            for spec in functions(template).values()
            for event in spec.properties.get("Events", {}).values()
            if event["Type"] == "S3"
        ]
        self.attempts = 1 + int(parameters["ChunkRetryAttempts"])
        self.bucket = documents_bucket(template)

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no access log line per S3 or SQS call
        one_event_per_version()
        self._server = started_server(host, port)
        host, self.port = self._server.get_host_and_port()
        self.endpoint = f"http://{host}:{self.port}"
        self.s3 = self.client("s3")
        self.sqs = self.client("sqs")
        self.s3.create_bucket(Bucket=self.bucket)
        self.store = BucketStore(keep_in, self.bucket) if keep_in else None
        # Before the notifications: a restored object sends no event, so it is not chunked again.
        try:
            self.restored = self.store.restore() if self.store else 0
        except Exception:
            self._server.stop()
            raise
        self.s3.put_bucket_versioning(Bucket=self.bucket, VersioningConfiguration={"Status": "Enabled"})
        self.events_queue = self.sqs.create_queue(QueueName="document-events")["QueueUrl"]
        self.failure_queue = self.sqs.create_queue(QueueName="ChunkFailureQueue")["QueueUrl"]
        events_arn = self.sqs.get_queue_attributes(QueueUrl=self.events_queue, AttributeNames=["QueueArn"])
        rules = [{"Name": r["Name"], "Value": r["Value"]} for r in trigger["Filter"]["S3Key"]["Rules"]]
        self.s3.put_bucket_notification_configuration(
            Bucket=self.bucket,
            NotificationConfiguration={
                "QueueConfigurations": [
                    {
                        "QueueArn": events_arn["Attributes"]["QueueArn"],
                        "Events": [trigger["Events"]],
                        "Filter": {"Key": {"FilterRules": rules}},
                    }
                ]
            },
        )
        self.worker = FunctionWorker(chunker, {**(environment or {}), **CREDENTIALS, "AWS_ENDPOINT_URL": self.endpoint})
        self.chunks_format = self.worker.environment["CHUNKS_FORMAT"]
        # make backfill reads it here, so that it writes what this flow writes (one output a document).
        tags = [{"Key": CHUNKS_FORMAT_TAG, "Value": self.chunks_format}]
        self.s3.put_bucket_tagging(Bucket=self.bucket, Tagging={"TagSet": tags})
        self._stopping = threading.Event()
        self._poller = threading.Thread(target=self._deliver, daemon=True, name="s3-events")
        self._poller.start()
        self._keeper = threading.Thread(target=self._keep, daemon=True, name="s3-keep")
        if self.store:
            self._keeper.start()

    def client(self, service: str) -> Any:
        return boto3.client(
            service,  # type: ignore[call-overload]
            endpoint_url=self.endpoint,
            region_name=LOCAL_REGION,
            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )

    def _deliver(self) -> None:
        try:
            while not self._stopping.is_set():
                received = self.sqs.receive_message(
                    QueueUrl=self.events_queue, MaxNumberOfMessages=10, WaitTimeSeconds=1
                )
                for message in received.get("Messages", []):
                    event = json.loads(message["Body"])
                    if "Records" in event:  # S3 also sends a test event when notifications are configured
                        self._invoke_with_retries(event)
                    self.sqs.delete_message(QueueUrl=self.events_queue, ReceiptHandle=message["ReceiptHandle"])
        except self.sqs.exceptions.QueueDoesNotExist:
            # A reset of moto (its /moto-api/reset) forgets the bucket and its notifications too.
            print("S3 events: moto was reset, so documents are no longer chunked; restart make serve", flush=True)

    def _keep(self) -> None:
        """Writes the bucket to its folder each second it has changed, so that even a ``kill -9``
        loses at most the last second."""
        assert self.store is not None
        while not self._stopping.wait(1):
            self.store.save_if_changed()

    def _invoke_with_retries(self, event: dict[str, Any]) -> None:
        for attempt in range(1, self.attempts + 1):
            started = time.perf_counter()
            try:
                answer = self.worker.invoke(event)
                elapsed = (time.perf_counter() - started) * 1000
                for document in answer["documents"]:  # one line a document, as the API's a request
                    written = document["output"] or "nothing written"
                    print(f"S3 {document['key']} {document['outcome']} -> {written} {elapsed:.1f}ms", flush=True)
                return
            except InvocationError:
                print(f"S3 event: attempt {attempt} of {self.attempts} failed", flush=True)
                time.sleep(0.2 * attempt)
        record = {"requestPayload": event, "responseContext": {"functionError": "Unhandled"}}
        self.sqs.send_message(QueueUrl=self.failure_queue, MessageBody=json.dumps(record))

    def stop(self) -> None:
        self._stopping.set()
        self._poller.join(timeout=5)
        self.worker.stop()
        self._server.stop()
        if self.store:
            self._keeper.join(timeout=30)
            self.store.save_if_changed()
