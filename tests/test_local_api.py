"""``make serve``'s server, started on a free port and driven over real HTTP."""

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from scripts.local_api import API_GATEWAY_MAX_BODY, LocalApi, make_server
from tests.conftest import TOOL_IDS, descriptor

JSON = "application/json"
EXTRACT = descriptor("text-extract-between")["execute_url"]
PARAGRAPHS = descriptor("text-paragraphs-split")["execute_url"]


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    server = make_server("127.0.0.1", 0, LocalApi())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def call(
    url: str, body: bytes | None = None, method: str = "POST", content_type: str | None = "application/json"
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, method=method)  # noqa: S310 (the test's own loopback URL)
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (the test's own loopback URL)
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_each_route_answers_its_descriptor_examples(base_url: str, tool_id: str) -> None:
    seed = descriptor(tool_id)
    for example in seed["examples"]:
        status, headers, body = call(base_url + seed["execute_url"], json.dumps(example["input"]).encode())
        assert status == 200
        assert headers["Content-Type"] == "application/json"
        assert json.loads(body) == example["output"]


def test_readme_quick_start_request(base_url: str) -> None:
    status, _, body = call(base_url + descriptor("text-paragraphs-split")["execute_url"], b'{"text":"a\\n\\nb"}')
    assert status == 200
    assert json.loads(body)["paragraph_count"] == 2


@pytest.mark.parametrize(
    ("path", "method", "content_type", "body", "expected"),
    [
        ("/nope", "POST", JSON, b"{}", (404, "not_found")),
        (EXTRACT, "GET", None, None, (405, "method_not_allowed")),
        (EXTRACT, "POST", "text/plain", b"{}", (415, "unsupported_media_type")),
        (EXTRACT, "POST", "application/octet-stream", b"\xff", (415, "unsupported_media_type")),
        (EXTRACT, "POST", JSON, b"\xff", (400, "invalid_input")),
        (EXTRACT, "POST", JSON, b'{"text":"[a","start":"[","end":"]"}', (422, "unclosed_start_marker")),
        (PARAGRAPHS, "POST", JSON, b" " * (API_GATEWAY_MAX_BODY + 1), (413, "input_too_large")),
    ],
)
def test_errors_in_the_api_shape(
    base_url: str, path: str, method: str, content_type: str | None, body: bytes | None, expected: tuple[int, str]
) -> None:
    status, headers, raw = call(base_url + path, body, method, content_type)
    assert headers["Content-Type"] == "application/json"
    error = json.loads(raw)["error"]
    assert (status, error["code"]) == expected
    assert error["request_id"]
