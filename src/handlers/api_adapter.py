"""The one adaptation of API Gateway REST proxy events to the core, shared by the API functions.

Each API function serves one route or a few, so it reads its proxy event itself instead of through
Powertools' REST resolver: any import from ``aws_lambda_powertools.event_handler`` loads every
resolver it has (AppSync, Bedrock agents, ...) and asyncio, which was the largest share of a cold
start (docs/performance.md). Powertools still does the structured logs and the EMF metrics. This
module adds what API.md asks of every route: ``404`` for another path, ``405`` with ``Allow`` for
another method, the media type rule, base64 bodies, the body size check before parsing, the error
shape for every failure, one log line and one outcome metric per request.
"""

import base64
import binascii
import gc
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from failure_location import failure_location
from texttools.codec import encode_json
from texttools.errors import (
    InputTooLarge,
    InternalError,
    InvalidInput,
    MethodNotAllowed,
    NotFound,
    ToolError,
    UnsupportedMediaType,
)
from texttools.registry import tool as registered_tool

JSON = "application/json"
UTF8_CHARSETS = frozenset({"utf-8", "utf8"})
VARY = {"Vary": "Accept-Encoding"}
"""API Gateway compresses an answer of 1 KiB or more for a caller that accepts it: caches must
keep the encodings apart."""
SHOWN_VALUE = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~/=;: \"-]{1,100}")
"""A header value that may be echoed in a message or a log line: printable ASCII of a media type
or an id, short (anything else is described, not quoted)."""
LambdaHandler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Reply:
    """What a route answers: its body (``None``: no body, no ``Content-Type``), status, the outcome
    counted in the logs and metrics, and any headers of its own."""

    body: bytes | None
    status: int = 200
    outcome: str = "ok"
    headers: Mapping[str, str] = field(default_factory=dict)


Serve = Callable[[Mapping[str, Any]], Reply]


def make_handler(serve: Serve, dimension: tuple[str, str]) -> LambdaHandler:
    """The Lambda handler of one API function: ``serve`` answers an event or raises a
    ``ToolError``; this adds the request id, ``Vary``, the error shape, one log line and one outcome
    metric (with ``dimension``: name and value) per request."""
    logger = Logger()
    metrics = Metrics()  # namespace: POWERTOOLS_METRICS_NAMESPACE (the template's Globals)

    def respond(reply: Reply, event: Mapping[str, Any]) -> dict[str, Any]:
        # Per request, not a default dimension: Powertools shares metric state between the
        # Metrics instances of one process (the tests run every function in one).
        metrics.add_dimension(name=dimension[0], value=dimension[1])
        metrics.add_metric(name=reply.outcome, unit=MetricUnit.Count, value=1)
        body = reply.body or b""
        logger.info("request answered", status=reply.status, code=reply.outcome, response_bytes=len(body))
        request_id = {"X-Request-Id": rid} if (rid := request_id_of(event)) else {}
        content_type = {"Content-Type": JSON} if reply.body is not None else {}
        return {
            "statusCode": reply.status,
            "headers": {**content_type, **VARY, **request_id, **reply.headers},
            "body": body.decode(),
            "isBase64Encoded": False,
        }

    def error_response(error: ToolError, event: Mapping[str, Any]) -> dict[str, Any]:
        payload: dict[str, Any] = {"code": error.code, "message": error.message}
        if error.details:
            payload["details"] = error.details
        payload["request_id"] = request_id_of(event)
        headers = {"Allow": error.allow} if isinstance(error, MethodNotAllowed) else {}
        return respond(Reply(encode_json({"error": payload}), error.status, error.code, headers), event)

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
    @metrics.log_metrics
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        if (client_id := header(event, "x-request-id")) is not None:  # logged beside ours, never used as ours
            logger.append_keys(client_request_id=client_id if SHOWN_VALUE.fullmatch(client_id) else "(not shown)")
        logger.append_keys(request_size=len(event.get("body") or ""))
        try:
            return respond(serve(event), event)
        except ToolError as error:
            return error_response(error, event)
        except Exception:
            logger.error("unexpected failure", failed_at=failure_location())
            return error_response(InternalError(), event)

    # The end of the function's init: what the imports made lives as long as the process, so a
    # full garbage collection need not walk it again (docs/performance.md).
    gc.freeze()
    return lambda_handler


def make_api_handler(tool_id: str) -> LambdaHandler:
    """The Lambda handler of one tool's execute route (imports that tool only)."""
    tool = registered_tool(tool_id)

    def execute(event: Mapping[str, Any]) -> Reply:
        check_route(event, tool.execute_url, "POST")
        try:
            body = request_body(
                header(event, "content-type"),
                event.get("body"),
                bool(event.get("isBase64Encoded")),
                tool.max_body_bytes,
            )
            return Reply(tool.execute(body))
        except ToolError as error:
            raise tool.pointing_to_documents(error) from None

    return make_handler(execute, ("tool", tool.id))


def check_route(event: Mapping[str, Any], path: str | re.Pattern[str], *methods: str) -> re.Match[str] | None:
    """``NotFound`` unless the event's path is ``path`` (a pattern's full match), then
    ``MethodNotAllowed`` unless its method is one of ``methods``. API Gateway sends a route's path
    (with any trailing slashes) to its function by any method (each route also has an ANY method)."""
    requested = str(event.get("path") or "").rstrip("/") or "/"
    found = path.fullmatch(requested) if isinstance(path, re.Pattern) else None
    if found is None and requested != path:
        raise NotFound()
    if str(event.get("httpMethod") or "").upper() not in methods:
        raise MethodNotAllowed(", ".join(methods))
    return found


def request_id_of(event: Mapping[str, Any]) -> str | None:
    """API Gateway's id of the request: the logs' correlation id, sent back as ``X-Request-Id``."""
    request_id: str | None = (event.get("requestContext") or {}).get("requestId")
    return request_id


def header(event: Mapping[str, Any], name: str) -> str | None:
    """A request header's value whatever the case of its name (the last one, as API Gateway keeps)."""
    found = None
    for key, value in (event.get("headers") or {}).items():
        if key.lower() == name:
            found = value
    return found


def request_body(content_type: str | None, body: str | None, is_base64: bool, max_bytes: int) -> str | bytes:
    """The request body as sent: ``str`` as the event holds it, ``bytes`` once base64-decoded.

    A base64 body whose length alone proves it too large is refused before it is decoded.
    """
    check_media_type(content_type)
    if body is None:
        return ""  # the tool says what its body must be (``Tool.execute``)
    if not is_base64:
        return body
    if len(body) > (max_bytes + 2) // 3 * 4:
        raise InputTooLarge("The request body is larger than any valid request for this tool.")
    try:
        return base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput("The request body is not valid base64.") from None


def check_media_type(content_type: str | None) -> None:
    """Absent, or ``application/json`` whose charset parameter (if any) names UTF-8."""
    if content_type is None or not content_type.strip():
        return
    media_type, *parameters = content_type.split(";")
    charsets = [value.strip().strip('"').lower() for name, _, value in (p.partition("=") for p in parameters)
                if name.strip().lower() == "charset"]  # fmt: skip
    if media_type.strip().lower() != JSON or any(charset not in UTF8_CHARSETS for charset in charsets):
        shown = content_type.strip()
        received = shown if SHOWN_VALUE.fullmatch(shown) else "a Content-Type that cannot be shown"
        raise UnsupportedMediaType(f"The request body must be application/json in UTF-8; received {received}.")
