"""The OpenAPI 3.1 document of the API, made by Powertools from the handlers' own definitions.

Routes (``Tool.execute_url``), request and response models (``Tool.input_model`` and
``output_model``) and error statuses (the ``ToolError`` classes) come from the same objects the
handlers serve with, so the document cannot drift from them. The functions never import this
module: validation is off at run time (the handlers measure and parse the body themselves), and
it is on here only so Powertools reads the request model from the signature.
"""

import inspect
import json
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.event_handler.openapi.models import APIKey, APIKeyIn
from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from pydantic import BaseModel, ConfigDict, Field

from api_adapter import JSON, MethodNotAllowed, UnsupportedMediaType
from texttools import TOOLS, InputTooLarge, InternalError, InvalidInput, Tool, ToolError
from texttools.errors import Problem

COMMON_ERRORS: tuple[type[ToolError], ...] = (InvalidInput, InputTooLarge, UnsupportedMediaType, InternalError)
GATEWAY_ERRORS: dict[int, str] = {
    403: "Refused by API Gateway: `invalid_api_key` (API_KEY mode), `forbidden` (IAM mode)",
    429: "Refused by API Gateway: `too_many_requests` (throttling), `quota_exceeded` (daily quota of the key)",
}
"""Answers API Gateway itself gives (template GatewayResponses), in the same error shape."""


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(description="Machine-readable error code (see the route's responses).")
    message: str = Field(description="One human sentence; never contains the submitted text.")
    details: list[Problem] = Field(default_factory=list, description="Which fields are wrong (validation failures).")
    request_id: str = Field(description="API Gateway request id, also in the logs.")


class ErrorBody(BaseModel):
    """Every non-200 response of the API."""

    model_config = ConfigDict(extra="forbid")
    error: ErrorDetail


def error_responses(errors: tuple[type[ToolError], ...]) -> dict[int, OpenAPIResponse]:
    by_status: dict[int, list[str]] = {}
    for error in errors:
        by_status.setdefault(error.status, []).append(error.code)
    return {
        status: {
            "description": "Error: " + ", ".join(f"`{code}`" for code in codes),
            "content": {JSON: {"model": ErrorBody}},
        }
        for status, codes in sorted(by_status.items())
    }


def document_route(app: APIGatewayRestResolver, tool: Tool) -> None:
    def execute(body: Any) -> Any:
        raise NotImplementedError  # documentation only: never served

    execute.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("body", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                           annotation=Annotated[tool.input_model, Body(embed=False, media_type=JSON)])],
        return_annotation=tool.output_model,
    )  # fmt: skip
    responses: dict[int, OpenAPIResponse] = {
        200: {"description": "The tool's output object.", "content": {JSON: {"model": tool.output_model}}},
        **error_responses(COMMON_ERRORS + tool.errors),
        **{
            status: {"description": text, "content": {JSON: {"model": ErrorBody}}}
            for status, text in GATEWAY_ERRORS.items()
        },
    }
    app.post(
        tool.execute_url,
        summary=f"Run {tool.id} {tool.version}",
        operation_id=tool.id.replace("-", "_"),
        tags=[tool.id],
        responses=responses,
    )(execute)


def build_openapi() -> dict[str, Any]:
    app = APIGatewayRestResolver(enable_validation=True)
    for tool in TOOLS.values():
        document_route(app, tool)
    schema: dict[str, Any] = app.get_openapi_schema(
        title="Text tools",
        version="1.0.0",
        description="Exact, explainable text chunking. Every non-200 response has the ErrorBody shape. "
        f"Any other method on a route answers {MethodNotAllowed.status} `{MethodNotAllowed.code}`. "
        "In the default AuthMode (API_KEY) every request carries the x-api-key header.",
        security_schemes={"api_key": APIKey(name="x-api-key", **{"in": APIKeyIn.header})},
        security=[{"api_key": []}],
    ).model_dump(mode="json", by_alias=True, exclude_none=True)
    return _without_unused_components(_integral(schema))


def _integral(value: Any) -> Any:
    """Powertools types bounds as floats; the descriptors write ``0``, not ``0.0``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


def _without_unused_components(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop the validation-error schemas Powertools adds: this API answers them as ErrorBody."""
    components = schema["components"]["schemas"]
    text = json.dumps({key: value for key, value in schema.items() if key != "components"})
    used: set[str] = set()
    pending = [name for name in components if f'"#/components/schemas/{name}"' in text]
    while pending:
        name = pending.pop()
        if name not in used:
            used.add(name)
            body = json.dumps(components[name])
            pending += [other for other in components if f'"#/components/schemas/{other}"' in body]
    schema["components"]["schemas"] = {name: components[name] for name in sorted(used)}
    return schema
