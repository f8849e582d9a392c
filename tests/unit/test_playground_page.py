"""The playground page as DiscoveryFunction serves it (API.md, ``GET /v1/playground``): one
self-contained HTML page whose inline script and styles are the only ones its
``Content-Security-Policy`` allows. What the page does in a browser: tests/browser."""

import base64
import hashlib
import json
from html.parser import HTMLParser
from typing import Any

import pytest

from playground_page import SOURCES, config, playground
from scripts.lambda_events import api_event
from scripts.template import functions
from tests.conftest import invoke
from texttools.registry import TOOL_IDS

HANDLER = functions()["DiscoveryFunction"].load()


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of each ``<script>`` and ``<style>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline: list[tuple[str, dict[str, str | None], str]] = []
        self._open: tuple[str, dict[str, str | None]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._open = (tag, dict(attrs))
            self.inline.append((tag, dict(attrs), ""))

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            tag, attrs, text = self.inline[-1]
            self.inline[-1] = (tag, attrs, text + data)

    def handle_endtag(self, tag: str) -> None:
        self._open = None


def parsed(body: str) -> Elements:
    elements = Elements()
    elements.feed(body)
    return elements


def served(method: str = "GET", path: str = "/v1/playground") -> dict[str, Any]:
    return invoke(HANDLER, api_event(method, path, request_id="req-p"))


def csp(response: dict[str, Any]) -> dict[str, list[str]]:
    policy = response["headers"]["Content-Security-Policy"]
    return {name: values for name, *values in (part.split() for part in policy.split(";"))}


def sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_page_is_html_in_utf8_without_a_key() -> None:
    """The event carries no x-api-key: the function serves the page (the gateway lets it through, tests/packaging)."""
    response = served()
    assert (response["statusCode"], response["headers"]["Content-Type"]) == (200, "text/html; charset=utf-8")
    assert response["body"].startswith("<!doctype html>")
    assert response["headers"]["X-Request-Id"] == "req-p"


def test_a_trailing_slash_serves_the_same_page() -> None:
    assert served(path="/v1/playground/")["body"] == served()["body"]


@pytest.mark.parametrize("method", ["HEAD", "POST", "PUT", "DELETE", "OPTIONS"])
def test_other_methods_are_405_allowing_get(method: str) -> None:
    response = served(method)
    assert (response["statusCode"], response["headers"]["Allow"]) == (405, "GET")
    assert json.loads(response["body"])["error"]["code"] == "method_not_allowed"


def test_the_policy_allows_the_inline_script_and_styles_by_hash_and_nothing_else() -> None:
    """Sources are 'self' and hashes only; no framing; every executable script and every style
    element of the page is one the policy names, and the page loads nothing by URL."""
    response = served()
    policy = csp(response)
    elements = parsed(response["body"])
    (script,) = [text for tag, attrs, text in elements.inline if tag == "script" and attrs.get("type") is None]
    (style,) = [text for tag, _, text in elements.inline if tag == "style"]
    assert policy["script-src"] == [sha256_source(script)]
    assert policy["style-src"] == [sha256_source(style)]
    assert policy["default-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["connect-src"] == ["'self'"]
    every_source = [source for values in policy.values() for source in values]
    assert all(source in ("'none'", "'self'") or source.startswith("'sha256-") for source in every_source)
    assert [(tag, attrs) for tag, attrs in elements.tags if {"src", "href", "action"} & set(attrs)] == []


def test_the_page_is_its_three_source_files() -> None:
    body = served()["body"]
    for name in ("playground.js", "playground.css"):
        assert (SOURCES / name).read_text(encoding="utf-8") in body


def test_the_settings_name_the_auth_mode_and_cannot_end_their_element() -> None:
    settings = json.loads(config("API_KEY", "eu-west-1"))
    assert settings == {"auth_mode": "API_KEY", "region": "eu-west-1"}  # the tools come from GET /v1/tools
    iam = config("IAM", "eu-west-1")
    assert "<" not in iam
    carried = json.loads(iam)
    assert sorted(entry["id"] for entry in carried["tools"]) == sorted(TOOL_IDS)
    assert sorted(carried["descriptors"]) == sorted(f"{tool_id}/1.0.0" for tool_id in TOOL_IDS)


@pytest.mark.parametrize("auth_mode", ["API_KEY", "IAM", "NONE"])
def test_the_page_for_each_auth_mode_carries_its_settings(auth_mode: str) -> None:
    page = playground(auth_mode, "eu-west-1").body.decode()
    (settings,) = [text for tag, attrs, text in parsed(page).inline if attrs.get("type") == "application/json"]
    assert json.loads(settings)["auth_mode"] == auth_mode
