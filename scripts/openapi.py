"""``make openapi``: the API's OpenAPI 3.1 document (``openapi.json``), written from the objects the
functions serve with: routes and request and response schemas from the tools' descriptors (through
the registry), statuses and codes from the core's error table and each tool's own errors. A test
fails when the committed file is stale. Documentation only: no function imports this module.
"""

import json
from typing import Any

from scripts.template import ROOT
from texttools.errors import (
    GATEWAY_RESPONSES,
    NOT_FOUND,
    ErrorCode,
    InputTooLarge,
    InternalError,
    InvalidInput,
    MethodNotAllowed,
    ToolError,
    UnsupportedMediaType,
)
from texttools.registry import tools
from texttools.tool import Tool

OPENAPI = ROOT / "openapi.json"
JSON = "application/json"
REQUEST_ERRORS: tuple[type[ToolError], ...] = (InvalidInput, InputTooLarge, UnsupportedMediaType, InternalError)
"""What the API adapter answers on every route, whatever the tool."""

ERROR_BODY: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["error"],
    "properties": {"error": {"$ref": "#/components/schemas/ErrorDetail"}},
    "description": "Every non-200 response of the API.",
}
ERROR_DETAIL: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["code", "message", "request_id"],
    "properties": {
        "code": {"type": "string", "description": "Machine-readable error code (see the route's responses)."},
        "message": {"type": "string", "description": "One human sentence; never contains the submitted text."},
        "details": {
            "type": "array",
            "items": {"$ref": "#/components/schemas/Problem"},
            "description": "Which fields are wrong (validation failures).",
        },
        "request_id": {"type": "string", "description": "API Gateway request id, also in the logs."},
    },
}
PROBLEM: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["field", "problem"],
    "properties": {"field": {"type": "string"}, "problem": {"type": "string"}},
    "description": "One entry of an error's details: which field and what is wrong with it.",
}


def _codes(errors: list[ErrorCode]) -> str:
    return ", ".join(f"`{code}`" for code in dict.fromkeys(error.code for error in errors))


def error_responses(tool: Tool) -> dict[str, Any]:
    """One response per status: the adapter's and the tool's own errors, and the refusals API Gateway
    answers for an existing route (the table's gateway responses with a status of their own)."""
    answered: dict[int, list[ErrorCode]] = {}
    for error in (*REQUEST_ERRORS, *tool.errors):
        answered.setdefault(error.status, []).append(error.row)
    refused: dict[int, list[ErrorCode]] = {}
    for response in GATEWAY_RESPONSES.values():
        if response.status is not None and response.error is not NOT_FOUND and response.status not in answered:
            refused.setdefault(response.status, []).append(response.error)
    descriptions = {status: f"Error: {_codes(rows)}" for status, rows in answered.items()}
    descriptions |= {status: f"Refused by API Gateway: {_codes(rows)}" for status, rows in refused.items()}
    error_content = {JSON: {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    return {
        str(status): {"description": descriptions[status], "content": error_content} for status in sorted(descriptions)
    }


def operation(tool: Tool) -> dict[str, Any]:
    name = tool.id
    return {
        "tags": [name],
        "summary": f"Run {name} {tool.version}",
        "description": tool.descriptor.data["description"],
        "operationId": name.replace("-", "_"),
        "requestBody": {
            "required": True,
            "content": {JSON: {"schema": {"$ref": f"#/components/schemas/{name}.input"}}},
        },
        "responses": {
            "200": {
                "description": "The tool's output object.",
                "content": {JSON: {"schema": {"$ref": f"#/components/schemas/{name}.output"}}},
            },
            **error_responses(tool),
        },
    }


def build_openapi() -> dict[str, Any]:
    published = tools()
    schemas: dict[str, Any] = {"ErrorBody": ERROR_BODY, "ErrorDetail": ERROR_DETAIL, "Problem": PROBLEM}
    for name, tool in published.items():
        schemas[f"{name}.input"] = tool.descriptor.input_schema
        schemas[f"{name}.output"] = tool.descriptor.output_schema
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Text tools",
            "version": "1.0.0",
            "description": "Exact, explainable text chunking. Every non-200 response has the ErrorBody shape. "
            f"Any other method on a route answers {MethodNotAllowed.status} `{MethodNotAllowed.code}`. "
            "In the default AuthMode (API_KEY) every request carries the x-api-key header.",
        },
        "servers": [{"url": "/"}],
        "paths": {tool.execute_url: {"post": operation(tool)} for tool in published.values()},
        "components": {
            "schemas": dict(sorted(schemas.items())),
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
