"""The playground (API.md, ``GET /v1/playground``): one self-contained HTML page, assembled from
its three source files (``playground/``: the page, its script, its styles) into one document whose
script and styles are inline, so that the page needs no other route and nothing from another origin.

The ``Content-Security-Policy`` allows exactly that script and those styles (their SHA-256), requests
to this origin only (``connect-src 'self'``), nothing else, and no framing. The page is built once
per process for the deployment's ``AuthMode``: under IAM it cannot sign requests, so it carries the
tool list and the descriptors itself (it could not fetch them) and shows ``curl`` commands instead.
"""

import base64
import hashlib
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import orjson

from texttools.catalog import descriptors, tool_list

SHIPS_FOLDER = "playground"
"""The folder beside this module that the function's package holds too (build_function.py)."""
SOURCES = Path(__file__).resolve().parent / SHIPS_FOLDER
PLACEHOLDER = re.compile(r"/\*(STYLE|CONFIG|SCRIPT)\*/")
"""Where the page's source takes its styles, its settings and its script."""
DEFAULT_AUTH_MODE = "API_KEY"
"""The template's default AuthMode, for a process whose environment does not name one."""


@dataclass(frozen=True)
class Page:
    body: bytes
    headers: dict[str, str]


def source(name: str) -> str:
    return (SOURCES / name).read_text(encoding="utf-8")


def digest(text: str) -> str:
    """A CSP hash source: the SHA-256 of an inline element's content, as the browser hashes it."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def config(auth_mode: str, region: str) -> str:
    """The page's settings as JSON that cannot end its ``<script type="application/json">``
    element (every ``<`` is written as ``\\u003c``)."""
    settings: dict[str, object] = {"auth_mode": auth_mode, "region": region}
    if auth_mode == "IAM":  # every route but the page needs a signature: the page carries what it shows
        settings["tools"] = tool_list()["tools"]
        settings["descriptors"] = {f"{d.id}/{d.version}": d.data for d in descriptors().values()}
    return orjson.dumps(settings).decode().replace("<", "\\u003c")


@cache
def playground(auth_mode: str | None = None, region: str | None = None) -> Page:
    """The page for this deployment (``AUTH_MODE`` and ``AWS_REGION`` from the environment unless given)."""
    mode = auth_mode or os.environ.get("AUTH_MODE") or DEFAULT_AUTH_MODE
    where = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    script, style = source("playground.js"), source("playground.css")
    parts = {"STYLE": style, "CONFIG": config(mode, where), "SCRIPT": script}
    page = PLACEHOLDER.sub(lambda found: parts[found[1]], source("playground.html"))  # one pass: no part is read twice
    policy = "; ".join(
        (
            "default-src 'none'",
            f"script-src {digest(script)}",
            f"style-src {digest(style)}",
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        )
    )
    headers = {
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-cache",
    }
    return Page(page.encode(), headers)
