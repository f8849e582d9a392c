"""The one error table: every code the API, the document flows or API Gateway can answer, with its
HTTP status and default message.

The functions raise the ``ToolError`` subclasses below (each bound to its row of the table); the
template's gateway responses answer with the rows in ``GATEWAY_RESPONSES`` (a test compares the
template with it); the OpenAPI document is written from both. The status is data here: the S3
flow writes only the code, and nothing in the core speaks HTTP.
"""

from typing import ClassVar, NamedTuple, TypedDict


class ErrorCode(NamedTuple):
    code: str
    status: int
    message: str
    """The default message: one human sentence that never quotes the input."""


INVALID_INPUT = ErrorCode("invalid_input", 400, "The request is not a valid input for this tool.")
INPUT_TOO_LARGE = ErrorCode("input_too_large", 413, "The input is larger than this tool accepts.")
UNSUPPORTED_MEDIA_TYPE = ErrorCode("unsupported_media_type", 415, "The request body must be application/json in UTF-8.")
TOO_MANY_CHUNKS = ErrorCode("too_many_chunks", 422, "The input would give more pieces than this tool returns.")
OUTPUT_TOO_LARGE = ErrorCode("output_too_large", 422, "The result would be larger than this tool returns.")
UNCLOSED_START_MARKER = ErrorCode("unclosed_start_marker", 422, "A start marker has no end marker after it.")
NOT_FOUND = ErrorCode("not_found", 404, "There is no such route; GET /v1/tools lists the tools and their routes.")
METHOD_NOT_ALLOWED = ErrorCode("method_not_allowed", 405, "This route does not accept this method.")
INTERNAL_ERROR = ErrorCode("internal_error", 500, "The service failed unexpectedly.")
# Answered by API Gateway only (the template's gateway responses), never by a function.
INVALID_API_KEY = ErrorCode("invalid_api_key", 403, "A valid x-api-key header is required.")
FORBIDDEN = ErrorCode("forbidden", 403, "The caller is not allowed to call this route.")
TOO_MANY_REQUESTS = ErrorCode("too_many_requests", 429, "Too many requests; retry after a short wait.")
QUOTA_EXCEEDED = ErrorCode("quota_exceeded", 429, "The daily quota of this API key is used up.")
REQUEST_REJECTED = ErrorCode("request_rejected", 400, "The API gateway rejected the request.")
"""API Gateway's other refusals: its own 4xx status is kept (400 is the one ``make serve`` uses)."""

ERROR_TABLE: tuple[ErrorCode, ...] = (
    INVALID_INPUT, INPUT_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, TOO_MANY_CHUNKS, OUTPUT_TOO_LARGE,
    UNCLOSED_START_MARKER, NOT_FOUND, METHOD_NOT_ALLOWED, INTERNAL_ERROR, INVALID_API_KEY, FORBIDDEN,
    TOO_MANY_REQUESTS, QUOTA_EXCEEDED, REQUEST_REJECTED,
)  # fmt: skip


class GatewayResponse(NamedTuple):
    """How one API Gateway response type answers: a row of the table, its message, and its status
    (``None``: API Gateway keeps the status of the refusal, as its DEFAULT_4XX and DEFAULT_5XX do)."""

    error: ErrorCode
    message: str
    status: int | None


def _gateway(error: ErrorCode, message: str | None = None, keeps_status: bool = False) -> GatewayResponse:
    return GatewayResponse(error, message or error.message, None if keeps_status else error.status)


GATEWAY_RESPONSES: dict[str, GatewayResponse] = {
    # API Gateway answers an unsigned request in IAM mode like an unknown route: the same 404.
    "MISSING_AUTHENTICATION_TOKEN": _gateway(NOT_FOUND),
    "RESOURCE_NOT_FOUND": _gateway(NOT_FOUND),
    "REQUEST_TOO_LARGE": _gateway(INPUT_TOO_LARGE, "The request body is larger than any valid request for this tool."),
    "UNSUPPORTED_MEDIA_TYPE": _gateway(UNSUPPORTED_MEDIA_TYPE),
    "INVALID_API_KEY": _gateway(INVALID_API_KEY),
    "ACCESS_DENIED": _gateway(FORBIDDEN),
    "INVALID_SIGNATURE": _gateway(FORBIDDEN, "The request signature is not valid."),
    "EXPIRED_TOKEN": _gateway(FORBIDDEN, "The request credentials have expired."),
    "QUOTA_EXCEEDED": _gateway(QUOTA_EXCEEDED),
    "THROTTLED": _gateway(TOO_MANY_REQUESTS),
    "DEFAULT_4XX": _gateway(REQUEST_REJECTED, keeps_status=True),
    "DEFAULT_5XX": _gateway(INTERNAL_ERROR, keeps_status=True),
}
"""The template's ``GatewayResponses``, response type by response type."""


class Problem(TypedDict):
    """One entry of an error's ``details``: which field and what is wrong with it."""

    field: str
    problem: str


class ToolError(Exception):
    """A failure the caller is told about in API.md's error shape; each subclass is one table row."""

    row: ClassVar[ErrorCode] = INTERNAL_ERROR
    code: ClassVar[str] = INTERNAL_ERROR.code
    status: ClassVar[int] = INTERNAL_ERROR.status
    default_message: ClassVar[str] = INTERNAL_ERROR.message

    def __init_subclass__(cls, row: ErrorCode = INTERNAL_ERROR) -> None:
        cls.row, cls.code, cls.status, cls.default_message = row, row.code, row.status, row.message

    def __init__(self, message: str | None = None, details: list[Problem] | None = None) -> None:
        self.message = message or self.default_message
        self.details = details or []
        super().__init__(self.message)


class InternalError(ToolError, row=INTERNAL_ERROR):
    pass


class InvalidInput(ToolError, row=INVALID_INPUT):
    pass


class InputTooLarge(ToolError, row=INPUT_TOO_LARGE):
    pass


class UnsupportedMediaType(ToolError, row=UNSUPPORTED_MEDIA_TYPE):
    pass


class TooManyChunks(ToolError, row=TOO_MANY_CHUNKS):
    pass


class OutputTooLarge(ToolError, row=OUTPUT_TOO_LARGE):
    pass


class UnclosedStartMarker(ToolError, row=UNCLOSED_START_MARKER):
    pass


class NotFound(ToolError, row=NOT_FOUND):
    pass


class MethodNotAllowed(ToolError, row=METHOD_NOT_ALLOWED):
    """Sent with an ``Allow`` header naming the one method the route takes."""

    def __init__(self, allow: str) -> None:
        self.allow = allow
        super().__init__(f"This route only accepts {allow}.")
