"""Real API Gateway proxy events through each ``lambda_handler``: status, code and exact body."""

import json
from collections.abc import Callable
from typing import Any

import pytest

import paragraphs_split_function
import texttools.tool
from scripts.lambda_events import api_event
from tests.conftest import descriptor, header, invoke, limits
from texttools.fields import MAX_SAFE_INTEGER
from texttools.registry import TOOL_IDS
from texttools.tools.text_paragraphs_split import TOOL as PARAGRAPHS_SPLIT_TOOL

DELIMITER_CHUNK = limits("text-delimiter-chunk")

PARAGRAPHS_URL = "/v1/tools/text-paragraphs-split/versions/1.0.0/execute"
Post = Callable[..., dict[str, Any]]
VALID = {tool_id: descriptor(tool_id)["examples"][0]["input"] for tool_id in TOOL_IDS}
"""A valid request of each tool: its descriptor's first example."""


def error_of(response: dict[str, Any]) -> dict[str, Any]:
    assert header(response, "Content-Type") == "application/json"
    body = json.loads(response["body"])
    assert list(body) == ["error"]
    assert {"code", "message"} <= set(body["error"]) <= {"code", "message", "details", "request_id"}
    return body["error"]  # type: ignore[no-any-return]


def code_of(response: dict[str, Any]) -> tuple[int, str]:
    return response["statusCode"], error_of(response)["code"]


@pytest.mark.parametrize("tool_id", TOOL_IDS)
@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "application/json",
        "application/json; charset=utf-8",
        'Application/JSON;charset="UTF-8"',
        "application/json; charset=utf8",
        "",
    ],
)
def test_accepted_media_types(post: Post, tool_id: str, content_type: str | None) -> None:
    headers = {} if content_type is None else {"Content-Type": content_type}
    assert post(tool_id, json.dumps(VALID[tool_id]), headers)["statusCode"] == 200


@pytest.mark.parametrize("tool_id", TOOL_IDS)
@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/json; charset=latin-1", "application/jsonx", "multipart/form-data; boundary=x"],
)
def test_other_media_types_are_415(post: Post, tool_id: str, content_type: str) -> None:
    response = post(tool_id, json.dumps(VALID[tool_id]), {"content-type": content_type})
    assert code_of(response) == (415, "unsupported_media_type")
    assert error_of(response)["message"] == (
        f"The request body must be application/json in UTF-8; received {content_type}."
    )  # the usual curl -d mistake (application/x-www-form-urlencoded) says what it sent


@pytest.mark.parametrize("content_type", ["text/\u00e9", "text/plain\x00", "x/" + "y" * 200])
def test_a_media_type_that_cannot_be_shown_is_described_not_quoted(post: Post, content_type: str) -> None:
    response = post("text-paragraphs-split", '{"text": "a"}', {"Content-Type": content_type})
    assert error_of(response)["message"].endswith("; received a Content-Type that cannot be shown.")


@pytest.mark.parametrize(
    ("method", "body", "status"), [("POST", '{"text": "a"}', 200), ("POST", "{", 400), ("GET", None, 405)]
)
def test_every_answer_carries_the_request_id_and_vary(post: Post, method: str, body: str | None, status: int) -> None:
    """API.md: X-Request-Id is API Gateway's request id, never the caller's; compressed answers vary
    by Accept-Encoding."""
    response = post("text-paragraphs-split", body, {"X-Request-Id": "mine", "Content-Type": "application/json"},
                    method=method)  # fmt: skip
    assert response["statusCode"] == status
    assert header(response, "X-Request-Id") == "req-1"
    assert header(response, "Vary") == "Accept-Encoding"


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_base64_body_is_decoded_first(post: Post, tool_id: str) -> None:
    plain = post(tool_id, json.dumps(VALID[tool_id]))
    encoded = post(tool_id, json.dumps(VALID[tool_id]), base64_body=True)
    assert encoded["statusCode"] == 200
    assert encoded["body"] == plain["body"]


@pytest.mark.parametrize("tool_id", TOOL_IDS)
@pytest.mark.parametrize("base64_body", [False, True])
def test_a_leading_byte_order_mark_is_ignored(post: Post, tool_id: str, base64_body: bool) -> None:
    """RFC 8259 lets a parser ignore one, and Windows tools write one (README, Decisions); as text,
    API Gateway hands it over as U+FEFF, as binary, base64-encoded as its three UTF-8 bytes."""
    plain = post(tool_id, json.dumps(VALID[tool_id]))
    with_bom = post(tool_id, "\ufeff" + json.dumps(VALID[tool_id]), base64_body=base64_body)
    assert with_bom["statusCode"] == 200
    assert with_bom["body"] == plain["body"]


def test_response_is_compact_utf8_with_non_ascii_as_itself(post: Post) -> None:
    response = post("text-extract-between", json.dumps({"text": "«é😀\u2028»", "start": "«", "end": "»"}))
    assert response["body"] == '{"matches":["é😀\u2028"],"truncated":false}'


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('{"text": "a", ', "truncated JSON"),
        ("[]", "not an object"),
        ('"text"', "not an object"),
        ('{"text": "\\ud800", "delimiter": ","}', "lone surrogate in text"),
        ('{"text": "a", "delimiter": "\\udfff"}', "lone surrogate in delimiter"),
        ('{"delimiter": ","}', "missing field"),
        ('{"text": "a", "delimiter": ",", "extra": 1}', "unknown field"),
        ('{"text": 5, "delimiter": ","}', "wrong type"),
        ('{"text": "a", "delimiter": ""}', "empty delimiter"),
        ("", "empty body"),
        ('{"text": "a", "delimiter": ",", "\\ud800": 1}', "lone surrogate in an unknown key"),
        ("[" * 100_000 + "]" * 100_000, "nesting 100 000 deep"),
        ('{"text": "a", "delimiter": ",", "text": 1}', "duplicate key: the last one counts"),
        ('\ufeff\ufeff{"text": "a", "delimiter": ","}', "a second byte order mark"),
        (' \ufeff{"text": "a", "delimiter": ","}', "a byte order mark after whitespace"),
        ('{"text": "a", "delimiter": ","}\ufeff', "a byte order mark at the end"),
    ],
)
def test_invalid_bodies_are_400(post: Post, body: str, problem: str) -> None:
    assert code_of(post("text-delimiter-chunk", body)) == (400, "invalid_input"), problem


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_json_literals_are_invalid_json_not_a_wrong_type(post: Post, literal: str) -> None:
    response = post("text-delimiter-chunk", '{"text": "a", "delimiter": ",", "max_splits": ' + literal + "}")
    assert json.loads(response["body"])["error"] == {
        "code": "invalid_input",
        "message": "The request body is not valid JSON: NaN and Infinity are not JSON numbers.",
        "request_id": "req-1",
    }


def test_details_are_capped_at_20_and_only_short_safe_unknown_keys_are_echoed(post: Post) -> None:
    """docs/decisions.md "Validation details": 10 000 unknown keys do not make a 600 KB error body,
    and an unknown key is user text, echoed only when short and safe (issue 62)."""
    long_keys = [f"{i:02d}" + "k" * 63 for i in range(15)]  # 65 characters: one too many
    short_keys = [f"{i:02d}" + "k" * 62 for i in range(15)]  # 64
    odd_keys = ["a b", "é", "a\u2028", "<script>", ""]
    body = {"text": "a"} | dict.fromkeys(odd_keys + short_keys + long_keys, 1)
    details = json.loads(post("text-paragraphs-split", json.dumps(body))["body"])["error"]["details"]
    unshown = [{"field": "(a key that cannot be shown)", "problem": "is not a field of this tool"}]
    shown = [{"field": key, "problem": "is not a field of this tool"} for key in short_keys]
    assert details == (unshown * len(odd_keys) + shown)[:20]


@pytest.mark.parametrize("value", ["true", "1.0", "1e2", '"3"', "null", "-1", str(MAX_SAFE_INTEGER + 1), "1" * 5000])
def test_max_splits_must_be_a_json_integer_in_range(post: Post, value: str) -> None:
    response = post("text-delimiter-chunk", '{"text": "a,b", "delimiter": ",", "max_splits": ' + value + "}")
    assert code_of(response) == (400, "invalid_input")


@pytest.mark.parametrize("value", ["true", "1.0", '"3"', "null", "0", "1001"])
def test_max_matches_must_be_a_json_integer_in_range(post: Post, value: str) -> None:
    response = post("text-extract-between", '{"text": "[a]", "start": "[", "end": "]", "max_matches": ' + value + "}")
    assert code_of(response) == (400, "invalid_input")


def test_max_matches_bounds_are_accepted(post: Post) -> None:
    for value in (1, 1000):
        body = json.dumps({"text": "[a]", "start": "[", "end": "]", "max_matches": value})
        assert post("text-extract-between", body)["statusCode"] == 200


def first_problem(details: list[dict[str, str]]) -> str:
    """The first problem as the message tells it (issue 62: a client that shows only the message
    still shows the fix), and how many more ``details`` has."""
    first = f"{details[0]['field']} {details[0]['problem']}"
    if len(details) > 1:
        return f"{first} (and {len(details) - 1} more in details)."
    return first if first.endswith("?") else f"{first}."


@pytest.mark.parametrize(
    ("tool_id", "body", "details"),
    [
        (
            "text-size-chunk",
            '{"text": "a", "max_token": 5}',
            [{"field": "max_token", "problem": "is not a field of this tool; did you mean max_tokens?"}],
        ),
        (
            "text-delimiter-chunk",
            '{"text": 5, "max_splits": true, "colour": "red"}',
            [
                {"field": "text", "problem": "must be a string"},
                {"field": "delimiter", "problem": "is required"},
                {"field": "max_splits", "problem": "must be an integer"},
                {"field": "colour", "problem": "is not a field of this tool"},
            ],
        ),
        (
            "text-extract-between",
            '{"text": "a", "start": "", "end": "]", "max_matches": 1001}',
            [
                {"field": "start", "problem": "must not be empty"},
                {"field": "max_matches", "problem": "must be at most 1000"},
            ],
        ),
    ],
)
def test_validation_failure_exact_body(post: Post, tool_id: str, body: str, details: list[dict[str, str]]) -> None:
    response = post(tool_id, body)
    assert response["statusCode"] == 400
    assert json.loads(response["body"]) == {
        "error": {
            "code": "invalid_input",
            "message": f"The request does not match this tool's input schema: {first_problem(details)}",
            "details": details,
            "request_id": "req-1",
        }
    }


def test_byte_limit_exact_body(post: Post) -> None:
    response = post("text-delimiter-chunk", json.dumps({"text": "a", "delimiter": "é" * 129}))
    assert response["statusCode"] == 413
    assert json.loads(response["body"]) == {
        "error": {
            "code": "input_too_large",
            "message": "The delimiter field is larger than 256 UTF-8 bytes.",
            "details": [{"field": "delimiter", "problem": "must be at most 256 UTF-8 bytes"}],
            "request_id": "req-1",
        }
    }


@pytest.mark.parametrize("tool_id", TOOL_IDS)
@pytest.mark.parametrize("base64_body", [False, True])
def test_huge_body_is_413_without_being_parsed(
    post: Post, monkeypatch: pytest.MonkeyPatch, tool_id: str, base64_body: bool
) -> None:
    def never(_: bytes) -> object:
        raise AssertionError("parsed")

    monkeypatch.setattr(texttools.tool, "decode_json", never)
    response = post(tool_id, '{"text": "' + "a" * (8 * 1024 * 1024) + '"}', base64_body=base64_body)
    assert code_of(response) == (413, "input_too_large")


def test_escaped_body_of_1_5_mib_within_limits_succeeds(post: Post) -> None:
    body = '{"text": "' + "\\u0061" * DELIMITER_CHUNK.max_input_bytes + '", "delimiter": ","}'
    assert len(body) > 1.5 * 1024 * 1024
    response = post("text-delimiter-chunk", body)
    assert response["statusCode"] == 200
    assert json.loads(response["body"])["chunks"][0]["end"] == DELIMITER_CHUNK.max_input_bytes


VALID_PARAGRAPHS_BODY = '{"text": "a"}'


@pytest.mark.parametrize(
    "raw",
    [
        b'{"text": "\xff"}',
        b'{"text": "\xed\xa0\x80"}',
        b"\xfe\xff",
        *(VALID_PARAGRAPHS_BODY.encode(codec) for codec in ("utf-16", "utf-16-le", "utf-32")),
    ],
)
def test_invalid_utf8_is_400(post: Post, raw: bytes) -> None:
    """API.md: the body is UTF-8; a valid request in UTF-16 or UTF-32 (which ``json.loads`` of
    bytes would detect and accept) is refused."""
    assert code_of(post("text-paragraphs-split", raw)) == (400, "invalid_input")


def test_invalid_base64_is_400() -> None:
    event = api_event("POST", PARAGRAPHS_URL, "not base64!!", {})
    event["isBase64Encoded"] = True
    assert code_of(invoke(paragraphs_split_function.lambda_handler, event)) == (400, "invalid_input")


@pytest.mark.parametrize(("extra", "expected"), [(0, (400, "invalid_input")), (4, (413, "input_too_large"))])
def test_base64_body_is_refused_by_length_before_decoding(extra: int, expected: tuple[int, str]) -> None:
    """The longest base64 that can decode to a valid body's size is decoded (and found invalid
    here); one more group of four characters is refused by its length alone."""
    longest = (PARAGRAPHS_SPLIT_TOOL.max_body_bytes + 2) // 3 * 4
    event = api_event("POST", PARAGRAPHS_URL, "!" * (longest + extra), {})
    event["isBase64Encoded"] = True
    assert code_of(invoke(paragraphs_split_function.lambda_handler, event)) == expected


def test_missing_body_is_400(post: Post) -> None:
    assert code_of(post("text-paragraphs-split", None)) == (400, "invalid_input")


@pytest.mark.parametrize(
    ("tool_id", "body", "expected"),
    [
        (
            "text-delimiter-chunk",
            {"text": "," * DELIMITER_CHUNK.max_chunks, "delimiter": ","},
            (422, "too_many_chunks"),
        ),
        ("text-paragraphs-split", {"text": "p\n\n" * 10_001}, (422, "too_many_chunks")),
        ("text-extract-between", {"text": "[a", "start": "[", "end": "]"}, (422, "unclosed_start_marker")),
        ("text-paragraphs-split", {"text": "\x01" * 200_000}, (422, "output_too_large")),
    ],
)
def test_tool_errors_are_422(post: Post, tool_id: str, body: dict[str, Any], expected: tuple[int, str]) -> None:
    assert code_of(post(tool_id, json.dumps(body))) == expected


ANY_SIZE = " " + texttools.tool.ANY_SIZE


@pytest.mark.parametrize(
    ("tool_id", "body", "message"),
    [
        ("text-paragraphs-split", {"text": "p\n\n" * 10_001}, "The text has more than 10000 paragraphs."),
        ("text-paragraphs-split", {"text": "\x01" * 200_000}, "The result would be larger than 1048576 bytes."),
        ("text-delimiter-chunk", {"text": "a" * 262_145, "delimiter": ","},
         "The text field is larger than 262144 UTF-8 bytes."),
        ("markdown-sections-chunk", {"text": "# h\n" * 300_000}, "The text field is larger than 262144 UTF-8 bytes."),
        ("markdown-size-chunk", {"text": "# h\n" * 300_000, "max_chars": 100},
         "The text field is larger than 262144 UTF-8 bytes."),
    ],
)  # fmt: skip
def test_a_refusal_for_size_points_to_the_document_flow(
    post: Post, tool_id: str, body: dict[str, Any], message: str
) -> None:
    """issue 43: a 413 or 422 on size says where texts of any size are taken."""
    assert json.loads(post(tool_id, json.dumps(body))["body"])["error"]["message"] == message + ANY_SIZE


def test_a_refusal_the_document_flow_would_give_too_says_nothing_of_it(post: Post) -> None:
    """A delimiter over its limit: its limit holds in the document flows too."""
    delimiter = json.loads(post("text-delimiter-chunk", json.dumps({"text": "a", "delimiter": "x" * 257}))["body"])
    assert not delimiter["error"]["message"].endswith(ANY_SIZE)


def test_unknown_route_is_404(post: Post) -> None:
    response = post("text-paragraphs-split", "{}", path="/v1/tools/text-paragraphs-split/versions/2.0.0/execute")
    assert response["statusCode"] == 404
    assert json.loads(response["body"]) == {
        "error": {
            "code": "not_found",
            "message": "There is no such route; GET /v1/tools lists the tools and their routes.",
            "request_id": "req-1",
        }
    }


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH"])
def test_wrong_method_on_a_known_path_is_405(post: Post, method: str) -> None:
    response = post("text-extract-between", None, method=method)
    assert code_of(response) == (405, "method_not_allowed")
    assert header(response, "Allow") == "POST"


def test_unexpected_failure_is_500_and_leaks_nothing(
    post: Post, monkeypatch: pytest.MonkeyPatch, log_lines: Callable[[], list[str]]
) -> None:
    def broken(_: bytes) -> object:
        raise RuntimeError("SECRET-USER-TEXT")

    monkeypatch.setattr(texttools.tool, "decode_json", broken)
    response = post("text-paragraphs-split", json.dumps({"text": "SECRET-USER-TEXT"}))
    assert response["statusCode"] == 500
    assert json.loads(response["body"]) == {
        "error": {"code": "internal_error", "message": "The service failed unexpectedly.", "request_id": "req-1"}
    }
    lines = log_lines()
    (failure,) = [json.loads(line) for line in lines if '"unexpected failure"' in line]
    assert failure["correlation_id"] == "req-1"
    assert failure["failed_at"] == f"{__file__}:{broken.__code__.co_firstlineno + 1}"  # where, never what
    logs = "\n".join(lines)
    for leak in ("SECRET-USER-TEXT", "RuntimeError", "Traceback"):
        assert leak not in logs
        assert leak not in response["body"]


def test_a_failure_does_not_spoil_the_next_request(post: Post, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(texttools.tool, "decode_json", lambda _: 1 / 0)
        assert post("text-paragraphs-split", '{"text": "a"}')["statusCode"] == 500
    assert post("text-paragraphs-split", '{"text": "a"}')["statusCode"] == 200
    assert code_of(post("text-paragraphs-split", '{"text": 1}')) == (400, "invalid_input")
    assert post("text-paragraphs-split", '{"text": "a"}')["statusCode"] == 200


@pytest.mark.parametrize(
    ("sent", "logged"), [("client-abc.123", "client-abc.123"), ("\u00e9t\u00e9" * 3, "(not shown)")]
)
def test_a_caller_s_own_request_id_is_logged_beside_ours(
    post: Post, log_lines: Callable[[], list[str]], sent: str, logged: str
) -> None:
    post("text-paragraphs-split", '{"text": "a"}', {"X-Request-Id": sent, "Content-Type": "application/json"})
    (line,) = [json.loads(line) for line in log_lines() if "request answered" in line]
    assert (line["client_request_id"], line["correlation_id"]) == (logged, "req-1")


def test_logs_and_metrics_carry_ids_sizes_and_codes_never_text(post: Post, log_lines: Callable[[], list[str]]) -> None:
    secret = "DO-NOT-LOG-THIS"
    post("text-delimiter-chunk", json.dumps({"text": secret, "delimiter": "-"}))
    post("text-delimiter-chunk", json.dumps({"text": secret, "delimiter": "-", "max_splits": -1}))
    lines = [json.loads(line) for line in log_lines()]
    answered = [line for line in lines if line.get("message") == "request answered"]
    assert [(a["status"], a["code"], a["correlation_id"]) for a in answered] == [
        (200, "ok", "req-1"),
        (400, "invalid_input", "req-1"),
    ]
    assert all(a["request_size"] > 0 and a["response_bytes"] > 0 for a in answered)
    metrics = [line for line in lines if "_aws" in line]
    assert [m["_aws"]["CloudWatchMetrics"][0]["Metrics"][0]["Name"] for m in metrics] == ["ok", "invalid_input"]
    assert all(m["tool"] == "text-delimiter-chunk" for m in metrics)
    assert secret not in json.dumps(lines)
