"""``make openapi``: the API's OpenAPI 3.1 document (``openapi.json``), written from the objects the
functions serve with: routes, schemas, limits, semantics and worked examples from the tools'
descriptors (through the registry), error codes, statuses and messages from the core's error
table, error examples from what the core answers to each failing input, discovery and MCP from
their own modules. A test fails when the committed file is stale; another validates it. The
deployed stack serves it at ``GET /openapi.json`` (DiscoveryFunction, from the layer's copy).
"""

import json
import re
from collections.abc import Callable, Collection, Mapping
from functools import partial
from typing import Any

from api_adapter import check_media_type
from scripts.sample_events import oversize_input
from scripts.template import ROOT
from texttools.catalog import LISTED_FIELDS, SERVICE_VERSION, tool_list
from texttools.errors import (
    ERROR_TABLE,
    GATEWAY_RESPONSES,
    INTERNAL_ERROR,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    ErrorCode,
    InputTooLarge,
    InternalError,
    InvalidInput,
    ToolError,
    UnsupportedMediaType,
)
from texttools.mcp import PROTOCOL_VERSIONS, McpAnswer
from texttools.mcp import call_tool as mcp_call_tool
from texttools.mcp import initialize as mcp_initialize
from texttools.mcp import read_request as mcp_read_request
from texttools.registry import tools
from texttools.tool import Tool

OPENAPI = ROOT / "openapi.json"
JSON = "application/json"
SAMPLE_REQUEST_ID = "c2f1a7de-3b9e-4d8a-9f61-0a4e5b7c8d90"
REQUEST_ERRORS: tuple[type[ToolError], ...] = (InvalidInput, InputTooLarge, UnsupportedMediaType, InternalError)
"""What the API adapter answers on every execute route, whatever the tool."""
KEYED_REFUSALS = (403, 429)
"""API Gateway's refusals of a route that needs a key or a signature (``GATEWAY_RESPONSES``)."""

ERROR_BODY: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["error"],
    "properties": {"error": {"$ref": "#/components/schemas/ErrorDetail"}},
    "description": "Every non-200 answer of the API (the MCP route's protocol errors aside).",
}
ERROR_DETAIL: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["code", "message", "request_id"],
    "properties": {
        "code": {
            "type": "string",
            "enum": sorted({error.code for error in ERROR_TABLE}),
            "description": "Machine-readable error code; the status and meaning of each are in the API's description.",
        },
        "message": {"type": "string", "description": "One human sentence; never contains the submitted text."},
        "details": {
            "type": "array",
            "maxItems": 20,
            "items": {"$ref": "#/components/schemas/Problem"},
            "description": "Which fields are wrong (validation failures), at most 20.",
        },
        "request_id": {
            "type": "string",
            "description": "API Gateway's request id: the X-Request-Id header, and in the logs.",
        },
    },
}
PROBLEM: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["field", "problem"],
    "properties": {"field": {"type": "string"}, "problem": {"type": "string"}},
    "description": "One entry of an error's details: which field and what is wrong with it.",
}
FIELD_NOTES = {
    "index": "Position in the list, from 0.",
    "start": "Offset of the first character in the input text, in Unicode code points (not bytes, not UTF-16 units).",
    "end": "Offset just after the last character, in Unicode code points: end is exclusive, so the piece "
    "is text[start:end].",
    "start_line": "1-based line of start. Lines end at LF, CR or CRLF (CommonMark); no other character ends a line.",
    "end_line": "1-based line of the last character (end - 1); start_line for an empty piece.",
    "line_count": "end_line - start_line + 1.",
    "line_count_total": "Every CommonMark line of the input, blank or not.",
}
"""Descriptions the output fields get wherever the descriptors leave them without one."""
HEADERS: dict[str, Any] = {
    "X-Request-Id": {
        "description": "API Gateway's request id: the same as error.request_id and as the logs' correlation_id. "
        "Quote it when reporting a problem. A request's own X-Request-Id is logged beside it, never used as it.",
        "schema": {"type": "string"},
    },
    "Vary": {
        "description": "Accept-Encoding: the answer may be compressed for callers that ask.",
        "schema": {"type": "string", "const": "Accept-Encoding"},
    },
    "Content-Encoding": {
        "description": "gzip or deflate when the request's Accept-Encoding asks for one and the answer is 1 KiB "
        "or more.",
        "schema": {"type": "string", "enum": ["gzip", "deflate"]},
    },
    "Allow": {"description": "The one method the path takes.", "schema": {"type": "string"}},
}
FUNCTION_HEADERS = {
    name: {"$ref": f"#/components/headers/{name}"} for name in ("X-Request-Id", "Vary", "Content-Encoding")
}


def with_limits(text: str, limits: Mapping[str, int], fields: Collection[str] = ()) -> str:
    """A descriptor's sentence with each limit's number beside its name (not where the name is also
    an input field's, as ``max_matches`` is)."""

    def numbered(found: re.Match[str]) -> str:
        name = found[1]
        return f"{name} = {limits[name]}" if name in limits and name not in fields else name

    return re.sub(r"\b(max_\w+)\b", numbered, text)


def described(schema: Any, limits: Mapping[str, int]) -> Any:
    """An output schema with numbers for its limit names and descriptions where the descriptor has
    none. Annotations only: it validates exactly as the descriptor's (a test compares them)."""
    if isinstance(schema, list):
        return [described(item, limits) for item in schema]
    if not isinstance(schema, dict):
        return schema
    copy = {key: described(value, limits) for key, value in schema.items()}
    if "description" in copy:
        copy["description"] = with_limits(copy["description"], limits)
    for name, spec in copy.get("properties", {}).items():
        if "description" not in spec and name in FIELD_NOTES:
            spec["description"] = FIELD_NOTES[name]
    return copy


def described_input(tool: Tool) -> dict[str, Any]:
    """The input schema with each field's byte limit and default spelled out (the schema's
    ``maxLength`` counts code points; the API limits UTF-8 bytes, as API.md says)."""
    schema = dict(tool.descriptor.input_schema)
    names = [field.name for field in tool.fields]
    properties = {}
    for field in tool.fields:
        spec = dict(schema["properties"][field.name])
        notes = [with_limits(spec["description"], tool.limits, names)] if "description" in spec else []
        if field.max_bytes is not None:
            notes.append(f"At most {field.max_bytes} UTF-8 bytes (a larger value is 413 input_too_large).")
        if field.kind is int:
            notes.append('A JSON integer: 1.0, 1e2 and "3" are invalid_input.')
        if isinstance(field.default, int) and field.default >= spec.get("minimum", field.default):  # -1: "no limit"
            spec["default"] = field.default
        spec["description"] = " ".join(notes)
        properties[field.name] = spec
    schema["properties"] = properties
    return schema


def error_example(code: ErrorCode, message: str | None = None, details: list[Any] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code.code, "message": message or code.message}
    if details:
        error["details"] = details
    error["request_id"] = SAMPLE_REQUEST_ID
    return {"error": error}


def answered(call: Callable[[], object]) -> dict[str, Any]:
    """The error body the core answers when ``call`` fails: its real message and details."""
    try:
        call()
    except ToolError as error:
        return error_example(error.row, error.message, list(error.details))
    raise AssertionError("the example input did not fail")


def tool_error_examples(tool: Tool) -> dict[str, dict[str, Any]]:
    """One example body per error an execute route answers, by code, each from a failing input."""
    oversize = json.dumps(oversize_input(tool))
    examples = {
        "invalid_input": answered(lambda: tool.execute(json.dumps({"unknown_field": 1}))),
        "input_too_large": answered(lambda: tool.execute(oversize)),
        "unsupported_media_type": answered(lambda: check_media_type("text/plain")),
        "internal_error": error_example(INTERNAL_ERROR),
    }
    for error, arguments in tool.error_examples().items():
        examples[error.code] = answered(partial(tool.execute, json.dumps(arguments)))
    return examples


def gateway_examples(statuses: tuple[int, ...]) -> dict[int, dict[str, dict[str, Any]]]:
    """API Gateway's own answers with a status of their own, by status and code (its message)."""
    found: dict[int, dict[str, dict[str, Any]]] = {}
    for response in GATEWAY_RESPONSES.values():
        if response.status in statuses:
            found.setdefault(response.status, {}).setdefault(
                response.error.code, error_example(response.error, response.message)
            )
    return found


def error_responses(
    by_status: Mapping[int, Mapping[str, dict[str, Any]]], gateway: frozenset[int] = frozenset()
) -> dict[str, Any]:
    """One response per status, each with an example per code; ``gateway``: the statuses that only
    API Gateway answers (they carry its ``x-amzn-RequestId``, not ``X-Request-Id``)."""
    responses = {}
    for status in sorted(by_status):
        codes = ", ".join(f"`{code}`" for code in by_status[status])
        origin = "Refused by API Gateway" if status in gateway else "Error"
        examples = {code: {"summary": code, "value": body} for code, body in by_status[status].items()}
        responses[str(status)] = {
            "description": f"{origin}: {codes}",
            "headers": {} if status in gateway else dict(FUNCTION_HEADERS),
            "content": {JSON: {"schema": {"$ref": "#/components/schemas/ErrorBody"}, "examples": examples}},
        }
    return responses


def examples_of(tool: Tool, part: str) -> dict[str, Any]:
    """The descriptor's worked examples, as OpenAPI named examples (``input`` or ``output``)."""
    return {
        f"example-{number}": {"summary": f"Descriptor example {number}", "value": example[part]}
        for number, example in enumerate(tool.descriptor.data["examples"], start=1)
    }


def execute_operation(tool: Tool) -> dict[str, Any]:
    seed = tool.descriptor.data
    fields = [field.name for field in tool.fields]
    semantics = "\n".join(f"- {with_limits(rule, tool.limits, fields)}" for rule in seed["semantics"])
    limits = "\n".join(f"- `{name}` = {value}" for name, value in tool.limits.items())
    errors: dict[int, dict[str, Any]] = {}
    for code, body in tool_error_examples(tool).items():
        row = next(error for error in ERROR_TABLE if error.code == code)
        errors.setdefault(row.status, {})[code] = body
    refusals = gateway_examples(KEYED_REFUSALS)
    return {
        "tags": [tool.id],
        "summary": seed["description"],
        "description": f"{seed['description']}\n\n**Semantics**\n\n{semantics}\n\n**Limits**\n\n{limits}\n\n"
        f"Use it to: {'; '.join(seed['supported_operations'])}.\n\n"
        f"Not for: {'; '.join(seed['unsupported_operations'])}.",
        "operationId": tool.id.replace("-", "_"),
        "requestBody": {
            "required": True,
            "content": {
                JSON: {
                    "schema": {"$ref": f"#/components/schemas/{tool.id}.input"},
                    "examples": examples_of(tool, "input"),
                }
            },
        },
        "responses": {
            "200": {
                "description": "The tool's output object, exactly (no other fields).",
                "headers": dict(FUNCTION_HEADERS),
                "content": {
                    JSON: {
                        "schema": {"$ref": f"#/components/schemas/{tool.id}.output"},
                        "examples": examples_of(tool, "output"),
                    }
                },
            },
            **error_responses(errors | refusals, frozenset(refusals)),
        },
    }


def get_operation(
    operation_id: str,
    summary: str,
    schema: dict[str, Any],
    example: Any,
    *,
    open_to_all: bool = False,
    not_found: bool = False,
) -> dict[str, Any]:
    """A discovery route: its 200 and the errors it can answer (404 for an unknown descriptor)."""
    errors: dict[int, dict[str, Any]] = {500: {INTERNAL_ERROR.code: error_example(INTERNAL_ERROR)}}
    if not_found:
        errors[404] = {NOT_FOUND.code: error_example(NOT_FOUND, "There is no published tool with this id and version.")}
    refusals = {} if open_to_all else gateway_examples(KEYED_REFUSALS)
    operation = {
        "tags": ["discovery"],
        "summary": summary,
        "operationId": operation_id,
        "responses": {
            "200": {
                "description": summary,
                "headers": dict(FUNCTION_HEADERS),
                "content": {JSON: {"schema": schema, "example": example}},
            },
            **error_responses(errors | refusals, frozenset(refusals)),
        },
    }
    if open_to_all:
        operation["security"] = []
    return operation


DESCRIPTOR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "id",
        "version",
        "description",
        "semantics",
        "limits",
        "input_schema",
        "output_schema",
        "examples",
        "execute_url",
    ],
    "properties": {
        "id": {"type": "string"},
        "version": {"type": "string"},
        "description": {"type": "string"},
        "supported_operations": {"type": "array", "items": {"type": "string"}},
        "unsupported_operations": {"type": "array", "items": {"type": "string"}},
        "semantics": {"type": "array", "items": {"type": "string"}},
        "limits": {"type": "object", "additionalProperties": {"type": "integer"}},
        "input_schema": {"type": "object"},
        "output_schema": {"type": "object"},
        "examples": {"type": "array", "items": {"type": "object", "required": ["input", "output"]}},
        "execute_url": {"type": "string"},
    },
    "description": "A tool's descriptor as published: the specification of the tool.",
}
TOOL_LIST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["tools"],
    "properties": {
        "tools": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": [*LISTED_FIELDS, "descriptor_url"],
                "properties": {
                    "id": {"type": "string"},
                    "version": {"type": "string"},
                    "description": {"type": "string"},
                    "supported_operations": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "What to reach for it for.",
                    },
                    "unsupported_operations": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "What it does not do.",
                    },
                    "execute_url": {
                        "type": "string",
                        "description": "POST the input here (a path; prefix the stage's base URL).",
                    },
                    "descriptor_url": {"type": "string", "description": "GET the descriptor here (a path)."},
                },
            },
        }
    },
}
TOKENIZER_LIST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["tokenizers"],
    "properties": {
        "tokenizers": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "kind"],
                "properties": {
                    "name": {"type": "string", "description": "The value of a size tool's tokenizer field."},
                    "kind": {
                        "type": "string",
                        "enum": ["tiktoken", "huggingface"],
                        "description": "tiktoken: an OpenAI encoding that ships with the API; huggingface: a "
                        "tokenizer.json the deployment ships (tokenizers/<name>.json).",
                    },
                    "sha256": {"type": "string", "description": "huggingface: the SHA-256 of its file, in hex."},
                    "special_tokens": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "huggingface: the ids its post-processor adds to a single sequence, "
                        "counted in max_tokens ([CLS] and [SEP]: 2).",
                    },
                    "truncation_max_length": {
                        "type": ["integer", "null"],
                        "minimum": 1,
                        "description": "huggingface: the max_length of the file's own truncation setting, or null "
                        "when it has none. The tool ignores it; it is the length the file was published to cut "
                        "at, often the model's limit: compare it with the model card's before choosing max_tokens.",
                    },
                },
            },
        }
    },
}
TOKENIZER_LIST_EXAMPLE = {
    "tokenizers": [
        {"name": "cl100k_base", "kind": "tiktoken"},
        {"name": "o200k_base", "kind": "tiktoken"},
        {"name": "hf:bge-small-en-v1.5", "kind": "huggingface",
         "sha256": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66", "special_tokens": 2,
         "truncation_max_length": 512},
    ]
}  # fmt: skip
"""One deployed tokenizer beside the encodings (the project's own folder ships none)."""
HEALTH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["status"],
    "properties": {"status": {"type": "string", "const": "ok"}},
}
JSON_RPC_ID = {"type": ["string", "integer", "null"]}
JSON_RPC_REQUEST: dict[str, Any] = {
    "type": "object",
    "required": ["jsonrpc", "method"],
    "properties": {
        "jsonrpc": {"type": "string", "const": "2.0"},
        "id": {"type": ["string", "integer"], "description": "Absent for a notification (answered 202, no body)."},
        "method": {
            "type": "string",
            "enum": ["initialize", "ping", "tools/list", "tools/call", "notifications/initialized"],
        },
        "params": {"type": "object"},
    },
    "description": "One JSON-RPC 2.0 message (no batches).",
}
JSON_RPC_ANSWER: dict[str, Any] = {
    "type": "object",
    "required": ["jsonrpc", "id"],
    "properties": {
        "jsonrpc": {"type": "string", "const": "2.0"},
        "id": JSON_RPC_ID,
        "result": {"type": "object"},
        "error": {
            "type": "object",
            "required": ["code", "message", "data"],
            "properties": {
                "code": {
                    "type": "integer",
                    "description": "-32700 parse error, -32600 invalid request, "
                    "-32601 method not found, -32602 invalid params (an unknown tool), -32603 internal error.",
                },
                "message": {"type": "string"},
                "data": {"type": "object", "properties": {"request_id": {"type": ["string", "null"]}}},
            },
        },
    },
    "description": "A JSON-RPC 2.0 answer: result or error.",
}


def mcp_examples() -> tuple[dict[str, Any], dict[str, Any]]:
    """Requests and answers of a session: the handshake, and a call of each tool's first example
    (answered by the same code that answers ``tools/call``)."""
    client = {
        "protocolVersion": PROTOCOL_VERSIONS[-1],
        "capabilities": {},
        "clientInfo": {"name": "my-agent", "version": "1.0"},
    }
    requests: dict[str, Any] = {
        "initialize": {"value": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": client}}
    }
    answers: dict[str, Any] = {
        "initialize": {"value": {"jsonrpc": "2.0", "id": 1, "result": mcp_initialize(client)[0]}}
    }
    requests["tools/list"] = {"value": {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}}
    for tool in tools().values():
        params = {"name": tool.id, "arguments": tool.descriptor.data["examples"][0]["input"]}
        requests[f"call {tool.id}"] = {"value": {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}}
        answers[f"call {tool.id}"] = {"value": {"jsonrpc": "2.0", "id": 3, "result": mcp_call_tool(params)[0]}}
    return requests, answers


def mcp_operation() -> dict[str, Any]:
    requests, answers = mcp_examples()
    versions = " and ".join(PROTOCOL_VERSIONS)
    parse_error = mcp_read_request("{", None, SAMPLE_REQUEST_ID)
    assert isinstance(parse_error, McpAnswer)
    refusals = gateway_examples(KEYED_REFUSALS)
    errors = {
        413: {"input_too_large": error_example(InputTooLarge.row)},
        415: {"unsupported_media_type": answered(lambda: check_media_type("text/plain"))},
    }
    return {
        "tags": ["mcp"],
        "summary": "The tools over the Model Context Protocol",
        "description": f"MCP Streamable HTTP, stateless (no Mcp-Session-Id) and JSON only (no SSE), protocol "
        f"versions {versions}: initialize, ping, tools/list (one tool per descriptor, its input_schema and "
        "output_schema as inputSchema and outputSchema) and tools/call (the output object as structuredContent "
        "and one text item of its compact JSON; a tool's error is an isError result carrying the error code). "
        "An unsupported MCP-Protocol-Version header is 400. GET and DELETE are 405 (Allow: POST). "
        "Point any MCP client at this URL with the x-api-key header (docs/mcp.md).",
        "operationId": "mcp",
        "parameters": [
            {
                "name": "MCP-Protocol-Version",
                "in": "header",
                "required": False,
                "schema": {"type": "string", "enum": list(PROTOCOL_VERSIONS)},
            }
        ],
        "requestBody": {"required": True, "content": {JSON: {"schema": JSON_RPC_REQUEST, "examples": requests}}},
        "responses": {
            "200": {
                "description": "The JSON-RPC answer: a result, or an error for an unknown method or tool.",
                "headers": dict(FUNCTION_HEADERS),
                "content": {JSON: {"schema": JSON_RPC_ANSWER, "examples": answers}},
            },
            "202": {
                "description": "A notification or a client's response: accepted, no body.",
                "headers": {"X-Request-Id": FUNCTION_HEADERS["X-Request-Id"]},
            },
            "400": {
                "description": "Not one JSON-RPC request (malformed JSON, a batch, an unsupported "
                "MCP-Protocol-Version), "
                "as a JSON-RPC error with a null id; or a body that is not valid base64, in the API's error shape.",
                "headers": dict(FUNCTION_HEADERS),
                "content": {
                    JSON: {
                        "schema": {"anyOf": [JSON_RPC_ANSWER, {"$ref": "#/components/schemas/ErrorBody"}]},
                        "examples": {"parse error": {"value": parse_error.message}},
                    }
                },
            },
            **error_responses(errors | refusals, frozenset(refusals)),
            "500": {
                "description": "The service failed unexpectedly (JSON-RPC -32603, or the API's internal_error).",
                "headers": dict(FUNCTION_HEADERS),
                "content": {JSON: {"schema": {"anyOf": [JSON_RPC_ANSWER, {"$ref": "#/components/schemas/ErrorBody"}]}}},
            },
        },
    }


def playground_operation() -> dict[str, Any]:
    """The playground page: HTML, open to all (the page asks for the API key itself)."""
    errors: dict[int, dict[str, Any]] = {500: {INTERNAL_ERROR.code: error_example(INTERNAL_ERROR)}}
    return {
        "tags": ["discovery"],
        "summary": "The playground: a web page to try every tool on pasted or dropped text and see its chunks",
        "description": "One self-contained page (script and styles inline, allowed by its Content-Security-Policy "
        "by hash; requests to this origin only). It needs no API key; it asks for one, keeps it in the tab's "
        "sessionStorage and sends it as x-api-key (docs/playground.md).",
        "operationId": "playground",
        "responses": {
            "200": {
                "description": "The page",
                "headers": dict(FUNCTION_HEADERS),
                "content": {"text/html": {"schema": {"type": "string"}}},
            },
            **error_responses(errors, frozenset()),
        },
        "security": [],
    }


def api_description() -> str:
    rows = "\n".join(f"| {error.status} | `{error.code}` | {error.message} |" for error in ERROR_TABLE)
    return f"""Exact, explainable text chunking: every piece comes with its code point span (end exclusive) \
and 1-based line numbers. Each tool is specified by its descriptor (`GET /v1/tools` lists them).

**Authentication.** In the default AuthMode (API_KEY) every route but `/v1/health`, \
`/v1/playground` and `/openapi.json` needs the `x-api-key` header; with AuthMode IAM, a SigV4 signature instead.

**Errors.** Every non-200 answer has the ErrorBody shape. Codes, their status and default message:

| status | code | meaning |
| --- | --- | --- |
{rows}

Any other method on a route is {METHOD_NOT_ALLOWED.status} `{METHOD_NOT_ALLOWED.code}` with an `Allow` header; \
an unknown path is {NOT_FOUND.status} `{NOT_FOUND.code}`.

**Request ids.** Every answer from a function carries `X-Request-Id` (API Gateway's request id, also \
`error.request_id` and the logs' `correlation_id`); API Gateway's own refusals carry `x-amzn-RequestId`.

**Retries.** Retry 429 and 5xx only, with exponential backoff and jitter (for example 0.2 s, 0.4 s, \
0.8 s, ... up to 20 s); API Gateway's 429 carries no `Retry-After`. A 4xx other than 429 fails the \
same way again. Every route is a pure function of its request: retrying is always safe.

**Compression.** Answers of 1 KiB or more are gzip- or deflate-compressed for a caller whose \
`Accept-Encoding` asks for it (`Vary: Accept-Encoding`)."""


def build_openapi() -> dict[str, Any]:
    published = tools()
    schemas: dict[str, Any] = {"ErrorBody": ERROR_BODY, "ErrorDetail": ERROR_DETAIL, "Problem": PROBLEM}
    paths: dict[str, Any] = {}
    for name, tool in published.items():
        schemas[f"{name}.input"] = described_input(tool)
        schemas[f"{name}.output"] = described(tool.descriptor.output_schema, tool.limits)
        paths[tool.execute_url] = {"post": execute_operation(tool)}
    listed = tool_list()
    first = next(iter(published.values()))
    paths["/v1/tools"] = {"get": get_operation("list_tools", "The published tools", TOOL_LIST_SCHEMA, listed)}
    paths["/v1/tools/{id}/versions/{version}"] = {
        "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}, "example": first.id},
            {"name": "version", "in": "path", "required": True, "schema": {"type": "string"}, "example": first.version},
        ],
        "get": get_operation(
            "get_descriptor",
            "A tool's descriptor, byte for byte as published",
            DESCRIPTOR_SCHEMA,
            first.descriptor.data,
            not_found=True,
        ),
    }
    paths["/v1/tokenizers"] = {
        "get": get_operation(
            "list_tokenizers",
            "The tokenizers max_tokens can count with in this deployment",
            TOKENIZER_LIST_SCHEMA,
            TOKENIZER_LIST_EXAMPLE,
        )
    }
    paths["/v1/health"] = {
        "get": get_operation("health", "The API answers", HEALTH_SCHEMA, {"status": "ok"}, open_to_all=True),
        "head": {  # API.md: for load balancers' probes
            "tags": ["discovery"],
            "summary": "The API answers, without a body (for load balancers' probes)",
            "operationId": "health_probe",
            "responses": {"200": {"description": "The API answers", "headers": dict(FUNCTION_HEADERS)}},
            "security": [],
        },
    }
    paths["/v1/playground"] = {"get": playground_operation()}
    paths["/openapi.json"] = {
        "get": get_operation(
            "openapi",
            "This document (servers: the base path it was fetched under)",
            {"type": "object"},
            {"openapi": "3.1.0"},
            open_to_all=True,
        )
    }
    paths["/mcp"] = {"post": mcp_operation()}
    tags = [{"name": tool.id, "description": tool.descriptor.data["description"]} for tool in published.values()]
    tags += [
        {
            "name": "discovery",
            "description": "What the API offers: the tools, their descriptors, the tokenizers, health, the playground.",
        },
        {"name": "mcp", "description": "The tools for agents, over the Model Context Protocol."},
    ]
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Text tools",
            "version": SERVICE_VERSION,
            "description": api_description(),
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "servers": [
            {"url": "/", "description": "Where this document was fetched from (the deployed API names its stage)."}
        ],
        "tags": tags,
        "paths": paths,
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "headers": HEADERS,
            "responses": {
                "MethodNotAllowed": {
                    "description": "Another method on a known path (every route takes one method).",
                    "headers": {"Allow": {"$ref": "#/components/headers/Allow"}, **FUNCTION_HEADERS},
                    "content": {
                        JSON: {
                            "schema": {"$ref": "#/components/schemas/ErrorBody"},
                            "example": error_example(METHOD_NOT_ALLOWED, "This route only accepts POST."),
                        }
                    },
                },
                "NotFound": {
                    "description": "No such route (API Gateway's answer).",
                    "content": {
                        JSON: {
                            "schema": {"$ref": "#/components/schemas/ErrorBody"},
                            "example": error_example(NOT_FOUND),
                        }
                    },
                },
            },
            "securitySchemes": {"api_key": {"type": "apiKey", "in": "header", "name": "x-api-key"}},
        },
        "security": [{"api_key": []}],
    }


def render() -> str:
    return json.dumps(build_openapi(), indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    OPENAPI.write_text(render(), encoding="utf-8")
    print(f"wrote {OPENAPI.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
