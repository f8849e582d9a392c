"""DiscoveryFunction through its real handler: API.md, "Discovery, health and MCP"."""

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from scripts.lambda_events import api_event
from scripts.template import ROOT, functions
from tests.conftest import SEEDS, descriptor, forget_deployed_tokenizers, invoke
from tests.hf_tokenizers import FAMILIES, SPECIAL_TOKENS
from texttools import hf_tokens
from texttools.registry import TOOL_IDS

HANDLER = functions()["DiscoveryFunction"].load()
NO_SUCH_ROUTE = "There is no such route; GET /v1/tools lists the tools and their routes."
GET_PATHS = ["/v1/tools", "/v1/tokenizers", "/v1/health", "/openapi.json", "/v1/playground",
             *(f"/v1/tools/{t}/versions/1.0.0" for t in TOOL_IDS)]  # fmt: skip


def get(path: str, method: str = "GET", full_path: str | None = None) -> dict[str, Any]:
    """``full_path``: the path as the caller's URL has it (``requestContext.path``), base path included."""
    event = api_event(method, path, request_id="req-d")
    if full_path is not None:
        event["requestContext"]["path"] = full_path
    return invoke(HANDLER, event)


def test_the_list_has_one_entry_per_descriptor_with_its_values_and_urls() -> None:
    """Written out here from API.md's field list, not from the code's own list of fields."""
    response = get("/v1/tools")
    assert (response["statusCode"], response["headers"]["Content-Type"]) == (200, "application/json")
    expected = [
        {
            "id": seed["id"],
            "version": seed["version"],
            "description": seed["description"],
            "supported_operations": seed["supported_operations"],
            "unsupported_operations": seed["unsupported_operations"],
            "execute_url": seed["execute_url"],
            "descriptor_url": f"/v1/tools/{seed['id']}/versions/{seed['version']}",
        }
        for seed in map(descriptor, sorted(TOOL_IDS))
    ]
    assert json.loads(response["body"]) == {"tools": expected}
    assert len(expected) == len(list(SEEDS.glob("*.json")))


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_a_descriptor_is_served_byte_for_byte_as_published(tool_id: str) -> None:
    response = get(f"/v1/tools/{tool_id}/versions/1.0.0")
    assert response["statusCode"] == 200
    assert response["body"].encode() == (SEEDS / f"{tool_id}.json").read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/v1/tools/no-such-tool/versions/1.0.0",
        "/v1/tools/text-delimiter-chunk/versions/1.0.1",
        "/v1/tools/text-delimiter-chunk/versions/1.0.0/extra",
        "/v1/tools/TEXT-DELIMITER-CHUNK/versions/1.0.0",
        "/v1/tool",
    ],
)
def test_an_unknown_id_version_or_path_is_404_without_echoing_it(path: str) -> None:
    response = get(path)
    body = json.loads(response["body"])
    assert (response["statusCode"], body["error"]["code"], body["error"]["request_id"]) == (404, "not_found", "req-d")
    descriptor_path = path.count("/") == 5 and path.startswith("/v1/tools/")
    expected = "There is no published tool with this id and version." if descriptor_path else NO_SUCH_ROUTE
    assert body["error"]["message"] == expected
    assert "TEXT" not in response["body"]
    assert "1.0.1" not in response["body"]
    assert "no-such" not in response["body"]


def test_the_tokenizers_are_the_two_encodings_where_the_folder_has_no_file() -> None:
    """API.md: "cl100k_base and o200k_base (kind tiktoken), then each deployed one by name"."""
    response = get("/v1/tokenizers")
    assert (response["statusCode"], response["headers"]["Content-Type"]) == (200, "application/json")
    assert json.loads(response["body"]) == {
        "tokenizers": [{"name": "cl100k_base", "kind": "tiktoken"}, {"name": "o200k_base", "kind": "tiktoken"}]
    }


def test_the_deployed_tokenizers_follow_the_encodings_with_their_sha256_and_special_tokens(
    deployed_tokenizers: Path,
) -> None:
    listed = json.loads(get("/v1/tokenizers")["body"])["tokenizers"]
    assert listed[:2] == [{"name": "cl100k_base", "kind": "tiktoken"}, {"name": "o200k_base", "kind": "tiktoken"}]
    assert listed[2:] == [
        {"name": f"hf:{name}", "kind": "huggingface",
         "sha256": hashlib.sha256((deployed_tokenizers / f"{name}.json").read_bytes()).hexdigest(),
         "special_tokens": SPECIAL_TOKENS[name], "truncation_max_length": 16}  # the files' own setting
        for name in sorted(FAMILIES)
    ]  # fmt: skip


def test_each_deployed_tokenizer_lists_its_file_s_own_truncation_length_or_null(
    trained_tokenizers: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 62: all-MiniLM-L6-v2's tokenizer.json cuts at 128 while its model is listed among the
    512-token ones; the listing shows a deployer the file's own length (API.md), null for none."""
    published = json.loads((trained_tokenizers / "wordpiece.json").read_text(encoding="utf-8"))
    for name, truncation in [("cut-at-128", {**published["truncation"], "max_length": 128}), ("uncut", None)]:
        (tmp_path / f"{name}.json").write_text(json.dumps({**published, "truncation": truncation}), encoding="utf-8")
    monkeypatch.setenv(hf_tokens.FOLDER_VARIABLE, str(tmp_path))
    forget_deployed_tokenizers()
    try:
        listed = json.loads(get("/v1/tokenizers")["body"])["tokenizers"]
    finally:
        monkeypatch.undo()
        forget_deployed_tokenizers()
    assert [(entry["name"], entry["truncation_max_length"]) for entry in listed[2:]] == [
        ("hf:cut-at-128", 128), ("hf:uncut", None),
    ]  # fmt: skip
    assert {entry["special_tokens"] for entry in listed[2:]} == {SPECIAL_TOKENS["wordpiece"]}  # counts unchanged


def test_health_answers_ok() -> None:
    response = get("/v1/health")
    assert (response["statusCode"], response["body"]) == (200, '{"status":"ok"}')


def test_health_answers_head_for_load_balancers_probes_without_a_body() -> None:
    """API.md: GET /v1/health "(and HEAD, for load balancers' probes)"."""
    response = get("/v1/health", "HEAD")
    assert (response["statusCode"], response["body"]) == (200, "")
    assert response["headers"]["X-Request-Id"] == "req-d"


@pytest.mark.parametrize("path", GET_PATHS)
@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"])
def test_other_methods_are_405_allowing_get(path: str, method: str) -> None:
    allowed = "GET, HEAD" if path == "/v1/health" else "GET"
    if method in allowed:
        return
    response = get(path, method)
    assert (response["statusCode"], response["headers"]["Allow"]) == (405, allowed)
    error = json.loads(response["body"])["error"]
    assert (error["code"], error["message"]) == ("method_not_allowed", f"This route only accepts {allowed}.")


@pytest.mark.parametrize("path", GET_PATHS)
def test_every_answer_carries_the_request_id_as_x_request_id(path: str) -> None:
    assert get(path)["headers"]["X-Request-Id"] == "req-d"


def test_openapi_is_the_committed_document_when_served_without_a_base_path() -> None:
    """``make serve`` has no stage in its URLs: the document goes out as committed."""
    response = get("/openapi.json", full_path="/openapi.json")
    assert response["body"].encode() == (ROOT / "openapi.json").read_bytes()


@pytest.mark.parametrize(
    ("full_path", "server"), [("/prod/openapi.json", "/prod"), ("/api/v2/openapi.json", "/api/v2")]
)
def test_openapi_names_the_base_path_it_was_fetched_under(full_path: str, server: str) -> None:
    """On the API's own domain the stage, on a custom domain the base path mapping's path: a
    Swagger UI or Postman that loads the document by URL then calls this API."""
    served = json.loads(get("/openapi.json", full_path=full_path)["body"])
    committed = json.loads((ROOT / "openapi.json").read_text(encoding="utf-8"))
    assert [entry["url"] for entry in served.pop("servers")] == [server]
    committed.pop("servers")
    assert served == committed


def test_only_the_openapi_document_may_be_read_by_pages_of_other_origins() -> None:
    """So that a Swagger UI or editor elsewhere can load it by URL; nothing else is shared."""
    assert get("/openapi.json")["headers"]["Access-Control-Allow-Origin"] == "*"
    for path in GET_PATHS:
        if path != "/openapi.json":
            assert "Access-Control-Allow-Origin" not in get(path)["headers"]
