"""The one adaptation of API Gateway REST proxy events to the core, shared by the API functions.

Powertools does the plumbing (routing, structured logs, EMF metrics); this module only adds what
API.md asks of every route: the media type rule, base64 bodies, the body size check before
parsing, the error shape for every failure (framework ones included), one log line and one
outcome metric per request.
"""

import base64
import binascii
import gc
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from failure_location import failure_location
from texttools import InputTooLarge, InternalError, InvalidInput, Tool, ToolError
from texttools.codec import encode_json

JSON = "application/json"
UTF8_CHARSETS = frozenset({"utf-8", "utf8"})
LambdaHandler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


class UnsupportedMediaType(ToolError):
    code = "unsupported_media_type"
    status = 415
    default_message = "The request body must be application/json in UTF-8."


class NotFound(ToolError):
    code = "not_found"
    status = 404
    default_message = "There is no such route."


class MethodNotAllowed(ToolError):
    code = "method_not_allowed"
    status = 405
    default_message = "This route only accepts POST."


def make_api_handler(tool: Tool) -> LambdaHandler:
    """The Lambda handler of one tool's API function, with its own logger, metrics and router."""
    logger = Logger()
    metrics = Metrics()  # namespace: POWERTOOLS_METRICS_NAMESPACE (the template's Globals)
    app = APIGatewayRestResolver()

    def respond(status: int, code: str, body: bytes, headers: dict[str, str] | None = None) -> Response[str]:
        # Per request, not a default dimension: Powertools shares metric state between the
        # Metrics instances of one process (the tests run the three functions in one).
        metrics.add_dimension(name="tool", value=tool.id)
        metrics.add_metric(name=code, unit=MetricUnit.Count, value=1)
        logger.info("request answered", status=status, code=code, response_bytes=len(body))
        return Response(status_code=status, content_type=JSON, body=body.decode(), headers=headers)

    def error_response(error: ToolError, headers: dict[str, str] | None = None) -> Response[str]:
        payload: dict[str, Any] = {"code": error.code, "message": error.message}
        if error.details:
            payload["details"] = error.details
        payload["request_id"] = app.current_event.request_context.request_id
        return respond(error.status, error.code, encode_json({"error": payload}), headers)

    @app.post(tool.execute_url)
    def execute() -> Response[str]:
        body = request_body(
            app.current_event.headers.get("content-type"),
            app.current_event.body,
            bool(app.current_event.is_base64_encoded),
            tool.max_body_bytes,
        )
        logger.append_keys(request_size=len(body))
        return respond(200, "ok", tool.execute(body))

    @app.exception_handler(ToolError)
    def known_error(error: ToolError) -> Response[str]:
        return error_response(error)

    @app.not_found
    def no_route(_: NotFoundError) -> Response[str]:
        if app.current_event.path == tool.execute_url:
            return error_response(MethodNotAllowed(), {"Allow": "POST"})
        return error_response(NotFound())

    @app.exception_handler(Exception)
    def unexpected_error(_: Exception) -> Response[str]:
        logger.error("unexpected failure", failed_at=failure_location())
        return error_response(InternalError())

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
    @metrics.log_metrics
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        return app.resolve(event, context)

    # The end of the function's init: what the imports made lives as long as the process, so a
    # full garbage collection need not walk it again (4 to 8 ms a full collection, ``make bench``).
    gc.freeze()
    return lambda_handler


def request_body(content_type: str | None, body: str | None, is_base64: bool, max_bytes: int) -> str | bytes:
    """The request body as sent: ``str`` as the event holds it, ``bytes`` once base64-decoded.

    A base64 body whose length alone proves it too large is refused before it is decoded.
    """
    check_media_type(content_type)
    if body is None:
        raise InvalidInput("The request body must be a JSON object.")
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
    if media_type.strip().lower() != JSON:
        raise UnsupportedMediaType()
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in UTF8_CHARSETS:
            raise UnsupportedMediaType()
