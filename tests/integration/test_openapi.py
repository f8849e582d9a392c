"""openapi.json: current, equal to the descriptors' schemas, and honoured by the running API."""

import json
from typing import Any

import jsonschema
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from scripts.openapi import OPENAPI, render
from scripts.template import ROOT
from tests.conftest import TEST_API_KEY, descriptor
from texttools.errors import ERROR_TABLE
from texttools.fields import MAX_PROBLEMS
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
                    "code": {"type": "string", "enum": sorted({error.code for error in ERROR_TABLE})},
                    "message": {"type": "string"},
                    "request_id": {"type": "string"},
                    "details": {
                        "type": "array",
                        "maxItems": MAX_PROBLEMS,
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


def test_the_document_is_valid_openapi_3_1() -> None:
    validate(DOCUMENT)


def operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, item in DOCUMENT["paths"].items()
        for method, op in item.items()
        if method != "parameters"
    ]


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_every_descriptor_example_is_a_request_and_a_response_example(tool_id: str) -> None:
    operation = DOCUMENT["paths"][descriptor(tool_id)["execute_url"]]["post"]
    requests = operation["requestBody"]["content"]["application/json"]["examples"]
    answers = operation["responses"]["200"]["content"]["application/json"]["examples"]
    examples = descriptor(tool_id)["examples"]
    assert [entry["value"] for entry in requests.values()] == [example["input"] for example in examples]
    assert [entry["value"] for entry in answers.values()] == [example["output"] for example in examples]


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_the_operation_carries_the_descriptor_s_description_semantics_and_numeric_limits(tool_id: str) -> None:
    seed = descriptor(tool_id)
    operation = DOCUMENT["paths"][seed["execute_url"]]["post"]
    assert operation["description"].startswith(seed["description"])
    for name, value in seed["limits"].items():
        assert f"`{name}` = {value}" in operation["description"]
    assert len([line for line in operation["description"].splitlines() if line.startswith("- ")]) >= len(
        seed["semantics"]
    )
    for name, spec in DOCUMENT["components"]["schemas"][f"{tool_id}.input"]["properties"].items():
        assert spec["description"], name


def test_error_code_is_an_enum_of_the_error_table() -> None:
    codes = DOCUMENT["components"]["schemas"]["ErrorDetail"]["properties"]["code"]["enum"]
    assert sorted(codes) == sorted({error.code for error in ERROR_TABLE})


def test_every_error_response_has_an_example_per_code_that_validates() -> None:
    """Each error example is a body the API can send: valid against ErrorBody, with the status its
    code has in the error table."""
    status_of = {error.code: error.status for error in ERROR_TABLE}
    body_schema = {**DOCUMENT["components"]["schemas"]["ErrorBody"], "$defs": DOCUMENT["components"]["schemas"]}
    checker = jsonschema.Draft202012Validator(
        json.loads(json.dumps(body_schema).replace("#/components/schemas/", "#/$defs/"))
    )
    seen = set()
    for path, method, operation in operations():
        for status, response in operation["responses"].items():
            content = response.get("content", {}).get("application/json", {})
            if status.startswith(("4", "5")) and path != "/mcp":
                assert content["schema"] == {"$ref": "#/components/schemas/ErrorBody"}, (path, status)
            for name, example in content.get("examples", {}).items():
                if "error" in example["value"] and isinstance(example["value"]["error"]["code"], str):
                    checker.validate(example["value"])
                    assert status_of[example["value"]["error"]["code"]] == int(status), (path, method, name)
                    seen.add(example["value"]["error"]["code"])
    assert seen >= {error.code for error in ERROR_TABLE} - {"not_found", "method_not_allowed", "request_rejected"}


def test_answers_document_the_request_id_vary_and_compression_headers() -> None:
    for path, method, operation in operations():
        for status, response in operation["responses"].items():
            if status in ("403", "429"):  # API Gateway's own refusals: x-amzn-RequestId
                continue
            assert "X-Request-Id" in response["headers"], (path, method, status)
    assert set(DOCUMENT["components"]["headers"]) == {"X-Request-Id", "Vary", "Content-Encoding", "Allow"}
    assert "Allow" in DOCUMENT["components"]["responses"]["MethodNotAllowed"]["headers"]


def test_discovery_and_mcp_routes_are_documented_with_their_auth() -> None:
    assert {path: sorted(item) for path, item in DOCUMENT["paths"].items() if "execute" not in path} == {
        "/v1/tools": ["get"],
        "/v1/tools/{id}/versions/{version}": ["get", "parameters"],
        "/v1/tokenizers": ["get"],
        "/v1/health": ["get", "head"],
        "/v1/playground": ["get"],
        "/openapi.json": ["get"],
        "/mcp": ["post"],
    }
    assert (
        DOCUMENT["paths"]["/v1/health"]["get"]["security"] == DOCUMENT["paths"]["/v1/health"]["head"]["security"] == []
    )
    assert DOCUMENT["paths"]["/openapi.json"]["get"]["security"] == []
    assert DOCUMENT["paths"]["/v1/playground"]["get"]["security"] == []
    assert list(DOCUMENT["paths"]["/v1/playground"]["get"]["responses"]["200"]["content"]) == ["text/html"]
    assert "security" not in DOCUMENT["paths"]["/mcp"]["post"]


def test_the_mcp_examples_call_each_tool_with_its_first_descriptor_example() -> None:
    content = DOCUMENT["paths"]["/mcp"]["post"]
    requests = content["requestBody"]["content"]["application/json"]["examples"]
    answers = content["responses"]["200"]["content"]["application/json"]["examples"]
    for tool_id in TOOL_IDS:
        example = descriptor(tool_id)["examples"][0]
        assert requests[f"call {tool_id}"]["value"]["params"] == {"name": tool_id, "arguments": example["input"]}
        assert answers[f"call {tool_id}"]["value"]["result"]["structuredContent"] == example["output"]


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
