"""openapi.json: current, equal to the descriptors' schemas, and honoured by the running API."""

import json
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from scripts.openapi import OPENAPI, render
from scripts.template import ROOT
from tests.conftest import TEST_API_KEY, descriptor
from texttools.registry import TOOL_IDS

DOCUMENT = json.loads(OPENAPI.read_text(encoding="utf-8"))
ANNOTATIONS = {"title", "description", "default", "examples"}


def test_api_key_security_is_documented() -> None:
    assert DOCUMENT["components"]["securitySchemes"] == {
        "api_key": {"type": "apiKey", "in": "header", "name": "x-api-key"}
    }
    assert DOCUMENT["security"] == [{"api_key": []}]


def test_committed_openapi_is_current() -> None:
    assert OPENAPI.read_text(encoding="utf-8") == render(), "run: make openapi"


def resolved(schema: Any) -> Any:
    """The schema with ``$ref``s inlined and annotation keywords (no validation meaning) dropped."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return resolved(DOCUMENT["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]])
        return {key: resolved(value) for key, value in schema.items() if key not in ANNOTATIONS}
    if isinstance(schema, list):
        return [resolved(item) for item in schema]
    return schema


def without_annotations(schema: Any) -> Any:
    return resolved(schema)


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_request_and_response_schemas_are_the_descriptors(tool_id: str) -> None:
    operation = DOCUMENT["paths"][descriptor(tool_id)["execute_url"]]["post"]
    assert operation["requestBody"]["required"] is True
    request = operation["requestBody"]["content"]["application/json"]["schema"]
    response = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert resolved(request) == without_annotations(descriptor(tool_id)["input_schema"])
    assert resolved(response) == without_annotations(descriptor(tool_id)["output_schema"])


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_error_responses_document_the_api_error_shape(tool_id: str) -> None:
    responses = DOCUMENT["paths"][descriptor(tool_id)["execute_url"]]["post"]["responses"]
    expected = {"400", "403", "413", "415", "422", "429", "500"}
    assert set(responses) == {"200", *expected}
    error_body = {
        "type": "object",
        "additionalProperties": False,
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "additionalProperties": False,
                "required": ["code", "message", "request_id"],
                "properties": {
                    "code": {"type": "string"},
                    "message": {"type": "string"},
                    "request_id": {"type": "string"},
                    "details": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["field", "problem"],
                            "properties": {"field": {"type": "string"}, "problem": {"type": "string"}},
                        },
                    },
                },
            }
        },
    }
    for status in expected:
        assert resolved(responses[status]["content"]["application/json"]["schema"]) == error_body


schema = schemathesis.openapi.from_path(ROOT / "openapi.json")


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_honours_its_contract(case: schemathesis.Case[Any], base_url: str) -> None:
    """Generated requests, valid and invalid: never a 5xx, never a response outside the document."""
    case.call_and_validate(
        base_url=base_url,
        headers={"x-api-key": TEST_API_KEY},
        checks=[not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance],
    )
