"""McpFunction through its real handler: API.md, "Discovery, health and MCP" (MCP over Streamable
HTTP, stateless, JSON responses). The official SDK's client is run against ``make serve`` in
tests/integration/test_mcp_client.py."""

import base64
import json
from typing import Any

import pytest

from scripts.lambda_events import api_event
from scripts.template import functions
from tests.conftest import Invoke, descriptor, invoke
from texttools import mcp
from texttools.registry import TOOL_IDS, tool

HANDLER = functions()["McpFunction"].load()
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def send(body: str | bytes, headers: dict[str, str] | None = None, method: str = "POST") -> dict[str, Any]:
    return invoke(
        HANDLER, api_event(method, "/mcp", body, JSON_HEADERS if headers is None else headers, request_id="req-m")
    )


def rpc(method: str, params: Any = None, rpc_id: Any = 7, **headers: str) -> tuple[int, dict[str, Any]]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id, "method": method}
    if params is not None:
        message["params"] = params
    response = send(json.dumps(message), {**JSON_HEADERS, **headers})
    return response["statusCode"], json.loads(response["body"])


def call(name: str, arguments: Any) -> dict[str, Any]:
    status, answer = rpc("tools/call", {"name": name, "arguments": arguments})
    assert (status, answer["id"], answer["jsonrpc"]) == (200, 7, "2.0")
    result: dict[str, Any] = answer["result"]
    return result


@pytest.mark.parametrize(
    ("asked", "answered"),
    [("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"), ("2024-11-05", "2025-11-25"), (None, "2025-11-25")],
)
def test_initialize_answers_the_client_s_version_when_spoken_else_the_newest(asked: str | None, answered: str) -> None:
    params = {"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    status, answer = rpc("initialize", params | ({"protocolVersion": asked} if asked else {}))
    assert status == 200
    assert answer["result"]["protocolVersion"] == answered
    assert answer["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert answer["result"]["serverInfo"]["name"] == "text-tools"


def test_no_session_is_kept() -> None:
    response = send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}))
    assert not any(name.lower() == "mcp-session-id" for name in response["headers"])


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}},
        {"jsonrpc": "2.0", "method": "no/such/notification"},
        {"jsonrpc": "2.0", "id": 4, "result": {}},
        {"jsonrpc": "2.0", "id": 4, "error": {"code": -1, "message": "no"}},
    ],
)
def test_notifications_and_responses_are_accepted_with_202_and_no_body(message: dict[str, Any]) -> None:
    response = send(json.dumps(message))
    assert (response["statusCode"], response["body"]) == (202, "")
    assert "Content-Type" not in response["headers"]


def test_tools_list_has_one_tool_per_descriptor_with_its_schemas() -> None:
    status, answer = rpc("tools/list", {})
    listed = {entry["name"]: entry for entry in answer["result"]["tools"]}
    assert status == 200
    assert sorted(listed) == sorted(TOOL_IDS)
    for tool_id, entry in listed.items():
        seed = descriptor(tool_id)
        assert entry["description"] == seed["description"]
        assert (entry["inputSchema"], entry["outputSchema"]) == (seed["input_schema"], seed["output_schema"])
        assert entry["annotations"]["readOnlyHint"] is True
    assert "nextCursor" not in answer["result"]


EXAMPLES = [(tool_id, number) for tool_id in TOOL_IDS for number in range(len(descriptor(tool_id)["examples"]))]


@pytest.mark.parametrize(("tool_id", "number"), EXAMPLES)
def test_a_call_answers_the_descriptor_example_as_structured_content_and_as_the_rest_body(
    post: Invoke, tool_id: str, number: int
) -> None:
    example = descriptor(tool_id)["examples"][number]
    result = call(tool_id, example["input"])
    assert (result["isError"], result["structuredContent"]) == (False, example["output"])
    (item,) = result["content"]
    assert item == {"type": "text", "text": post(tool_id, json.dumps(example["input"]))["body"]}


ERROR_CASES = [
    (tool_id, error.code, example) for tool_id in TOOL_IDS for error, example in tool(tool_id).error_examples().items()
]


@pytest.mark.parametrize(("tool_id", "code", "arguments"), ERROR_CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_a_tool_s_own_error_is_an_is_error_result_with_the_rest_code_and_message(
    post: Invoke, tool_id: str, code: str, arguments: dict[str, Any]
) -> None:
    result = call(tool_id, arguments)
    rest = json.loads(post(tool_id, json.dumps(arguments))["body"])["error"]
    expected = {"error": {"code": code, "message": rest["message"]}}
    assert (result["isError"], result["structuredContent"]) == (True, expected)
    assert json.loads(result["content"][0]["text"]) == expected


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({}, "invalid_input"),
        ({"text": "a", "delimiter": ""}, "invalid_input"),
        ({"text": "\ud800", "delimiter": ","}, "invalid_input"),
        ({"text": "a", "delimiter": ",", "max_splits": 1.0}, "invalid_input"),
        ({"text": "a", "delimiter": ",", "extra": 1}, "invalid_input"),
        ("not an object", "invalid_input"),
        ({"text": "a", "delimiter": "x" * 257}, "input_too_large"),
        ({"text": "é" * 131_073, "delimiter": ","}, "input_too_large"),
        ({"text": "," * 10_000, "delimiter": ","}, "too_many_chunks"),
    ],
)
def test_invalid_arguments_are_is_error_results_with_the_api_md_code(arguments: Any, code: str) -> None:
    result = call("text-delimiter-chunk", arguments)
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == code


def test_a_validation_error_says_which_argument_as_the_rest_details_do(post: Invoke) -> None:
    arguments = {"text": "a", "delimiter": ""}
    result = call("text-delimiter-chunk", arguments)
    rest = json.loads(post("text-delimiter-chunk", json.dumps(arguments))["body"])["error"]
    assert result["structuredContent"]["error"]["details"] == rest["details"]


def test_max_output_bytes_is_measured_on_the_tool_s_output_not_the_json_rpc_answer() -> None:
    """One chunk of U+0001s (six bytes each in JSON): the answer holds the output twice (structured,
    and as text where each ``\\`` is escaped again), well over the limit, while the output object
    itself is just within it; three characters more and the output is over it."""
    limit = tool("text-delimiter-chunk").max_output_bytes or 0

    def output_bytes(length: int) -> int:
        chunk = {"index": 0, "start": 0, "end": length, "start_line": 1, "end_line": 1, "text": "\x01" * length}
        output = {"chunk_count": 1, "delimiter_count": 0, "chunks": [chunk]}
        return len(json.dumps(output, separators=(",", ":")).encode())

    length = (limit - output_bytes(0)) // 6
    while output_bytes(length) > limit:
        length -= 1
    result = call("text-delimiter-chunk", {"text": "\x01" * length, "delimiter": ","})
    assert result["isError"] is False
    assert limit - 6 < output_bytes(length) <= limit
    assert len(json.dumps(result).encode()) > 2 * limit
    over = call("text-delimiter-chunk", {"text": "\x01" * (length + 3), "delimiter": ","})
    assert over["structuredContent"]["error"]["code"] == "output_too_large"


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"name": "no-such-tool", "arguments": {}}, -32602),
        ({"arguments": {}}, -32602),
        ({"name": 3}, -32602),
        ([1, 2], -32602),
        ("params", -32602),
    ],
)
def test_an_unknown_tool_or_malformed_params_is_json_rpc_invalid_params(params: Any, code: int) -> None:
    status, answer = rpc("tools/call", params)
    assert (status, answer["id"], answer["error"]["code"]) == (200, 7, code)
    assert answer["error"]["data"] == {"request_id": "req-m"}
    expected = "params must be a JSON object." if not isinstance(params, dict) else "Unknown tool"
    assert answer["error"]["message"].startswith(expected)


@pytest.mark.parametrize("method", ["resources/list", "prompts/get", "tools/delete", "server/discover", ""])
def test_an_unknown_method_is_method_not_found(method: str) -> None:
    status, answer = rpc(method, {})
    assert (status, answer["id"], answer["error"]["code"]) == (200, 7, -32601)
    assert answer["error"] | {"data": None} == {"code": -32601, "message": "Method not found.", "data": None}
    assert answer["error"]["data"] == {"request_id": "req-m"}


def test_ping_answers_an_empty_result() -> None:
    assert rpc("ping") == (200, {"jsonrpc": "2.0", "id": 7, "result": {}})


@pytest.mark.parametrize("rpc_id", ["a-string", 0, -5, 2**53 - 1, "é😀"])
def test_the_request_id_is_echoed_as_given(rpc_id: Any) -> None:
    assert rpc("ping", rpc_id=rpc_id)[1]["id"] == rpc_id


def refusal(response: dict[str, Any]) -> tuple[int, Any, int, Any]:
    answer = json.loads(response["body"])
    return response["statusCode"], answer["id"], answer["error"]["code"], answer["error"]["data"]["request_id"]


@pytest.mark.parametrize("body", ["{", '{"jsonrpc": "2.0", "id": 1, "method": "ping"', "NaN", b"\xff\xfe"])
def test_malformed_json_is_a_parse_error_with_400_and_a_null_id(body: str | bytes) -> None:
    raw = (
        send(body)
        if isinstance(body, str)
        else invoke(HANDLER, api_event("POST", "/mcp", body, JSON_HEADERS, request_id="req-m"))
    )
    assert refusal(raw) == (400, None, -32700, "req-m")
    assert json.loads(raw["body"])["error"]["message"].startswith("The request body is not valid")


@pytest.mark.parametrize(
    "message",
    [
        [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
        [],
        "ping",
        {"id": 1, "method": "ping"},
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": 1, "method": 5},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2**53, "method": "ping"},
        {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},
    ],
)
def test_what_is_not_one_json_rpc_request_is_invalid_request_with_400(message: Any) -> None:
    response = send(json.dumps(message))
    assert refusal(response) == (400, None, -32600, "req-m")
    said = json.loads(response["body"])["error"]["message"]
    assert ("batches are not supported" in said) == isinstance(message, list)
    assert "JSON-RPC" in said


def test_a_message_with_a_method_and_a_result_is_a_request_not_a_response() -> None:
    assert rpc("ping", rpc_id=3) == (200, {"jsonrpc": "2.0", "id": 3, "result": {}})
    response = send('{"jsonrpc": "2.0", "id": 3, "method": "ping", "result": {}}')
    assert json.loads(response["body"]) == {"jsonrpc": "2.0", "id": 3, "result": {}}


def test_an_id_holding_a_lone_surrogate_is_invalid_request() -> None:
    assert refusal(send('{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}'))[:3] == (400, None, -32600)


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_a_supported_protocol_version_header_is_accepted(version: str) -> None:
    assert rpc("ping", **{"MCP-Protocol-Version": version})[0] == 200


@pytest.mark.parametrize("version", ["2025-03-26", "2024-11-05", "2026-07-28", "latest", ""])
def test_an_unsupported_protocol_version_header_is_400(version: str) -> None:
    response = send('{"jsonrpc": "2.0", "id": 1, "method": "ping"}', {**JSON_HEADERS, "mcp-protocol-version": version})
    assert refusal(response) == (400, None, -32600, "req-m")
    assert "2025-06-18 and 2025-11-25" in json.loads(response["body"])["error"]["message"]


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT", "PATCH"])
def test_other_methods_are_405_allowing_post(method: str) -> None:
    response = send("", {}, method)
    assert (response["statusCode"], response["headers"]["Allow"]) == (405, "POST")
    assert json.loads(response["body"])["error"]["code"] == "method_not_allowed"


def test_other_media_types_are_415_as_on_every_route() -> None:
    response = send('{"jsonrpc": "2.0", "id": 1, "method": "ping"}', {"Content-Type": "text/plain"})
    assert response["statusCode"] == 415


def test_a_base64_body_is_decoded_first() -> None:
    body = base64.b64encode(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}').decode()
    event = api_event("POST", "/mcp", body, JSON_HEADERS)
    event["isBase64Encoded"] = True
    assert json.loads(invoke(HANDLER, event)["body"])["result"] == {}


def test_a_body_larger_than_any_valid_call_is_413_before_parsing() -> None:
    ping = '{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    at_limit = ping + " " * (mcp.max_body_bytes() - len(ping))
    assert json.loads(send(at_limit)["body"])["result"] == {}
    response = send(at_limit + " ")
    error = json.loads(response["body"])["error"]
    assert (response["statusCode"], error["code"]) == (413, "input_too_large")
    assert error["message"] == "The request body is larger than any valid request to these tools."


def test_an_unexpected_failure_is_internal_error_with_500_leaking_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_: Any) -> Any:
        raise RuntimeError("secret detail")

    monkeypatch.setitem(mcp.METHODS, "ping", broken)
    response = send('{"jsonrpc": "2.0", "id": 9, "method": "ping"}')
    assert refusal(response) == (500, 9, -32603, "req-m")
    assert json.loads(response["body"])["error"]["message"] == "The service failed unexpectedly."
    assert "secret" not in response["body"]
    assert "RuntimeError" not in response["body"]


def test_every_answer_carries_the_request_id() -> None:
    for response in (send('{"jsonrpc": "2.0", "id": 1, "method": "ping"}'), send("{"), send("", {}, "GET")):
        assert response["headers"]["X-Request-Id"] == "req-m"


def test_a_call_without_arguments_is_a_call_with_no_arguments() -> None:
    """Omitted ``arguments`` are ``{}``: the tool says which fields are missing."""
    status, answer = rpc("tools/call", {"name": "text-delimiter-chunk"})
    details = answer["result"]["structuredContent"]["error"]["details"]
    assert status == 200
    assert [d["field"] for d in details] == ["text", "delimiter"]


def test_each_answer_is_logged_and_counted_with_its_outcome(log_lines: Any) -> None:
    """``ok``, the tool's error code for an isError result, ``jsonrpc_error`` for the protocol's."""
    log_lines()
    rpc("initialize", {})
    rpc("ping")
    rpc("tools/list")
    send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    rpc("tools/call", {"name": "text-delimiter-chunk", "arguments": {"text": "a", "delimiter": ","}})
    rpc("tools/call", {"name": "text-delimiter-chunk", "arguments": {}})
    rpc("tools/call", {"name": "nope"})
    rpc("no/such")
    send("{")
    send("[]")
    send('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": 5}')
    lines = [json.loads(line) for line in log_lines() if line.startswith("{")]
    answered = [line["code"] for line in lines if line.get("message") == "request answered"]
    counted = [name for line in lines if "_aws" in line for name in line["_aws"]["CloudWatchMetrics"][0]["Metrics"]]
    expected = ["ok"] * 5 + ["invalid_input"] + ["jsonrpc_error"] * 5
    assert answered == expected
    assert [metric["Name"] for metric in counted] == expected
