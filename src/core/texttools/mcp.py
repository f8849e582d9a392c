"""The tools over the Model Context Protocol: JSON-RPC messages in, JSON-RPC answers out.

API.md ("Discovery, health and MCP") fixes the transport: Streamable HTTP, stateless (no
``Mcp-Session-Id``), JSON responses only, protocol versions 2025-06-18 and 2025-11-25. This module
is the protocol, with no HTTP in it beyond the status each answer needs (as the error table's
rows carry theirs): ``read_request`` turns a POSTed body into a request or an immediate answer,
``respond`` answers a request. ``tools/call`` runs a tool exactly as ``execute`` does (parse,
run, encode), so ``max_output_bytes`` is measured on the tool's output object.

A small typed adapter rather than the ``mcp`` package: its server side pulls in Starlette,
uvicorn, httpx and anyio, which the cold-start budget of a Lambda function does not have room for
(docs/mcp.md); the tests check this adapter against that package's own client.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, NamedTuple

from .catalog import SERVICE_NAME, SERVICE_VERSION, descriptors
from .codec import decode_json, encode_json
from .errors import InputTooLarge, InvalidInput, ToolError
from .registry import TOOL_IDS, tools
from .tool import BODY_SLACK_BYTES

PROTOCOL_VERSIONS: Final = ("2025-06-18", "2025-11-25")
"""The protocol versions this server speaks, oldest to newest."""
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
LARGEST_ID: Final = 2**53 - 1
"""A numeric request id must be an integer that every JSON reader holds exactly."""
TOOL_ANNOTATIONS: Final = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
"""What every tool is to a client deciding whether to ask its user first: a pure function of its
arguments that touches nothing."""

Message = dict[str, Any]
RequestId = str | int


class McpAnswer(NamedTuple):
    """One HTTP answer: its status, the JSON-RPC message (``None``: no body) and the outcome that
    the logs and metrics count (``ok``, a tool's error code, or ``jsonrpc_error``)."""

    status: int
    message: Message | None
    outcome: str


@dataclass(frozen=True, slots=True)
class McpRequest:
    id: RequestId
    method: str
    params: Mapping[str, Any]
    request_id: str | None
    """API Gateway's id of the HTTP request, carried by every JSON-RPC error as ``data.request_id``."""


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def rpc_error(code: int, message: str, request_id: str | None, rpc_id: RequestId | None = None) -> Message:
    error = {"code": code, "message": message, "data": {"request_id": request_id}}
    return {"jsonrpc": "2.0", "id": rpc_id, "error": error}


def refused(code: int, message: str, request_id: str | None) -> McpAnswer:
    """A message that cannot be answered as a request: HTTP 400, ``"id": null``."""
    return McpAnswer(400, rpc_error(code, message, request_id), "jsonrpc_error")


@cache
def max_body_bytes() -> int:
    """The largest POST any tool's valid call can need: its largest request body plus the envelope."""
    return max(tool.max_body_bytes for tool in tools().values()) + BODY_SLACK_BYTES


def read_request(body: str | bytes, protocol_version: str | None, request_id: str | None) -> McpRequest | McpAnswer:
    """The request a POSTed body holds, or the answer it gets at once: ``202`` with no body for a
    notification or a client's response, ``400`` for what is not one JSON-RPC request."""
    if protocol_version is not None and protocol_version not in PROTOCOL_VERSIONS:
        versions = " and ".join(PROTOCOL_VERSIONS)
        return refused(INVALID_REQUEST, f"Unsupported MCP-Protocol-Version: this server speaks {versions}.", request_id)
    if len(body) > max_body_bytes():
        raise InputTooLarge("The request body is larger than any valid request to these tools.")
    try:
        message = decode_json(body)
    except InvalidInput as error:
        return refused(PARSE_ERROR, error.message, request_id)
    kind = kind_of(message)
    if kind == ACCEPTED:
        return McpAnswer(202, None, "ok")
    if kind != REQUEST:
        return refused(INVALID_REQUEST, kind, request_id)
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        answer = rpc_error(INVALID_PARAMS, "params must be a JSON object.", request_id, message["id"])
        return McpAnswer(200, answer, "jsonrpc_error")
    return McpRequest(message["id"], message["method"], params or {}, request_id)


REQUEST: Final = "request"
ACCEPTED: Final = "accepted"


def kind_of(message: Any) -> str:
    """``REQUEST``, ``ACCEPTED`` (a notification, or a client's response: nothing to answer), or
    why the message is not one JSON-RPC 2.0 request."""
    if isinstance(message, list):
        return "JSON-RPC batches are not supported: send one message per request."
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return "The body must be one JSON-RPC 2.0 message."
    is_response = "method" not in message and ("result" in message or "error" in message)
    has_method = isinstance(message.get("method"), str)
    if is_response or (has_method and "id" not in message):
        return ACCEPTED
    if not has_method or not is_request_id(message["id"]):
        return "A JSON-RPC request needs a method name and an id that is a string or an integer."
    return REQUEST


def is_request_id(value: object) -> bool:
    if isinstance(value, str):
        try:
            value.encode()  # a lone surrogate could not be written back
        except UnicodeEncodeError:
            return False
        return True
    return type(value) is int and abs(value) <= LARGEST_ID


def respond(request: McpRequest) -> McpAnswer:
    """The answer to one request: its result, or a JSON-RPC error for a method or params it cannot
    take. A tool's own failure is a result (``isError``), as MCP asks."""
    method = METHODS.get(request.method)
    if method is None:
        answer = rpc_error(METHOD_NOT_FOUND, "Method not found.", request.request_id, request.id)
        return McpAnswer(200, answer, "jsonrpc_error")
    try:
        result, outcome = method(request.params)
    except RpcError as error:
        return McpAnswer(200, rpc_error(error.code, error.message, request.request_id, request.id), "jsonrpc_error")
    return McpAnswer(200, {"jsonrpc": "2.0", "id": request.id, "result": result}, outcome)


def internal_error(request: McpRequest) -> McpAnswer:
    """The answer when answering failed unexpectedly (logged by the caller with the request id)."""
    answer = rpc_error(INTERNAL_ERROR, "The service failed unexpectedly.", request.request_id, request.id)
    return McpAnswer(500, answer, "jsonrpc_error")


Result = tuple[Message, str]


def initialize(params: Mapping[str, Any]) -> Result:
    """The client's version when this server speaks it, else the newest it speaks (the client then
    decides whether it can go on)."""
    asked = params.get("protocolVersion")
    version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1]
    result = {
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": SERVICE_NAME, "version": SERVICE_VERSION},
        "instructions": "Exact text chunking: each tool returns every piece with its code point span "
        "(end exclusive) and 1-based line numbers. Call tools/list for their schemas.",
    }
    return result, "ok"


def ping(_: Mapping[str, Any]) -> Result:
    return {}, "ok"


def list_tools(_: Mapping[str, Any]) -> Result:
    """One tool per descriptor, in id order; no pagination (the list is short)."""
    listed = [
        {
            "name": descriptor.id,
            "description": descriptor.data["description"],
            "inputSchema": descriptor.input_schema,
            "outputSchema": descriptor.output_schema,
            "annotations": TOOL_ANNOTATIONS,
        }
        for descriptor in descriptors().values()
    ]
    return {"tools": listed}, "ok"


def call_tool(params: Mapping[str, Any]) -> Result:
    """The tool's output object as ``structuredContent`` and as one text item of compact JSON; a
    failure of the tool is an ``isError`` result carrying the API.md error code."""
    name = params.get("name")
    if not isinstance(name, str) or name not in TOOL_IDS:
        raise RpcError(INVALID_PARAMS, "Unknown tool: tools/list names the tools.")
    arguments = params.get("arguments")
    tool = tools()[name]
    try:
        output = tool.run(tool.parse({} if arguments is None else arguments, "The arguments"))
        body = tool.encode(output)
    except ToolError as raised:
        error = tool.pointing_to_documents(raised)  # as the REST route says it
        failure: Message = {"error": {"code": error.code, "message": error.message}}
        if error.details:  # which argument is wrong, as the REST route's error body says it
            failure["error"]["details"] = error.details
        result = {"content": [text_item(encode_json(failure))], "structuredContent": failure, "isError": True}
        return result, error.code
    return {"content": [text_item(body)], "structuredContent": output, "isError": False}, "ok"


def text_item(body: bytes) -> Message:
    return {"type": "text", "text": body.decode()}


METHODS: Final[dict[str, Callable[[Mapping[str, Any]], Result]]] = {
    "initialize": initialize,
    "ping": ping,
    "tools/list": list_tools,
    "tools/call": call_tool,
}
