"""What the Lambda runtime and API Gateway hand a function, made locally: the Lambda context and
the events (API Gateway REST proxy, S3 notification), for the local server, ``make invoke``, the
sample events and the tests alike."""

import base64
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]
LOCAL_ACCOUNT_ID = "123456789012"
"""The account in every local ARN and name: moto's default one, so that the sample events, the
local contexts and ``make serve``'s S3 (moto's server) all name the same documents bucket."""
LOCAL_REGION = "us-east-1"


@dataclass
class LocalContext:
    """The attributes of the Lambda context object that Powertools reads."""

    function_name: str
    memory_limit_in_mb: int = 256
    timeout_ms: int = 10_000
    function_version: str = "$LATEST"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    log_group_name: str = ""
    log_stream_name: str = "local"
    _started: float = field(default_factory=time.monotonic)

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{LOCAL_REGION}:{LOCAL_ACCOUNT_ID}:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, self.timeout_ms - int((time.monotonic() - self._started) * 1000))


def api_event(
    method: str,
    path: str,
    body: str | bytes | None = None,
    headers: Mapping[str, str | list[str]] | None = None,
    *,
    resource: str | None = None,
    query: Mapping[str, list[str]] | None = None,
    stage: str = "prod",
    request_id: str | None = None,
    base64_body: bool | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """An API Gateway REST (v1) Lambda proxy event, as the deployed API would send it.

    Bytes bodies are base64-encoded, as API Gateway does for binary media types; pass
    ``base64_body=True`` with a ``str`` to encode a text body the same way.
    """
    multi_headers = {name: value if isinstance(value, list) else [value] for name, value in (headers or {}).items()}
    if isinstance(body, bytes) or (base64_body and body is not None):
        raw = body if isinstance(body, bytes) else body.encode()
        body, encoded = base64.b64encode(raw).decode(), True
    else:
        encoded = False
    request_id = request_id or str(uuid.uuid4())
    now = time.time() if now is None else now
    return {
        "resource": resource or path,
        "path": path,
        "httpMethod": method,
        "headers": {name: values[-1] for name, values in multi_headers.items()} or None,
        "multiValueHeaders": multi_headers or None,
        "queryStringParameters": {k: v[-1] for k, v in query.items()} if query else None,
        "multiValueQueryStringParameters": dict(query) if query else None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "resourceId": "local",
            "resourcePath": resource or path,
            "httpMethod": method,
            "extendedRequestId": request_id,
            "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "path": f"/{stage}{path}",
            "accountId": LOCAL_ACCOUNT_ID,
            "protocol": "HTTP/1.1",
            "stage": stage,
            "domainPrefix": "localhost",
            "requestTimeEpoch": int(now * 1000),
            "requestId": request_id,
            "identity": {"sourceIp": "127.0.0.1", "userAgent": None},
            "domainName": "localhost",
            "apiId": "local",
        },
        "body": body,
        "isBase64Encoded": encoded,
    }


def s3_event(
    bucket: str, objects: list[tuple[str, int, str, str | None]], *, event_name: str = "ObjectCreated:Put"
) -> dict[str, Any]:
    """An S3 notification event with one record per ``(key, size, etag, version_id)``.

    Keys are URL-encoded as S3 sends them: ``+`` for a space, UTF-8 percent-escapes for non-ASCII.
    """
    records = []
    for key, size, etag, version_id in objects:
        obj: dict[str, Any] = {"key": quote_plus(key, safe="/"), "size": size, "eTag": etag, "sequencer": "0"}
        if version_id is not None:
            obj["versionId"] = version_id
        records.append(
            {
                "eventVersion": "2.1",
                "eventSource": "aws:s3",
                "awsRegion": LOCAL_REGION,
                "eventTime": "2026-01-01T00:00:00.000Z",
                "eventName": event_name,
                "userIdentity": {"principalId": "local"},
                "requestParameters": {"sourceIPAddress": "127.0.0.1"},
                "responseElements": {"x-amz-request-id": "local", "x-amz-id-2": "local"},
                "s3": {
                    "s3SchemaVersion": "1.0",
                    "configurationId": "DocumentCreated",
                    "bucket": {
                        "name": bucket,
                        "ownerIdentity": {"principalId": "local"},
                        "arn": f"arn:aws:s3:::{bucket}",
                    },
                    "object": obj,
                },
            }
        )
    return {"Records": records}


def backfill_batch(bucket: str, objects: list[tuple[str, int, str, float]]) -> dict[str, Any]:
    """A batch of the backfill's Distributed Map, as its ItemBatcher hands it to ``BackfillFunction``:
    one item per ``(key, size, etag, last_modified)`` as S3 ``ListObjectsV2`` lists it (the key not
    URL-encoded, the ETag quoted, the time in epoch seconds), and the ``BatchInput`` of the ASL."""
    items = [
        {"Key": key, "Etag": f'"{etag}"', "Size": size, "LastModified": int(modified), "StorageClass": "STANDARD"}
        for key, size, etag, modified in objects
    ]
    return {"Items": items, "BatchInput": {"bucket": bucket}}
