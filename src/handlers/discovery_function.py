"""Lambda entry point of DiscoveryFunction: what the API offers, read from the descriptors in the
layer (API.md, "Discovery, health and MCP"). ``GET /v1/tools``, ``GET /v1/tools/{id}/versions/{version}``,
``GET /v1/tokenizers``, ``GET /v1/health``, ``GET /openapi.json`` and the playground page, ``GET
/v1/playground``; no tool's algorithm is imported, and no tokenizer is loaded (the deployed ones are
listed from the build's record in the layer).
"""

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import orjson

from api_adapter import Reply, check_route, make_handler
from playground_page import playground
from texttools.catalog import openapi_document, published_descriptor, tokenizer_list, tool_list
from texttools.codec import encode_json
from texttools.errors import NotFound

DESCRIPTOR_PATH = re.compile(r"/v1/tools/(?P<id>[^/]+)/versions/(?P<version>[^/]+)")
HEALTHY = encode_json({"status": "ok"})
ANY_ORIGIN = {"Access-Control-Allow-Origin": "*"}
"""The OpenAPI document may be read by a Swagger UI or editor on another origin (it is public and
holds no secret); no other answer is shared with pages of other origins."""


def serve(event: Mapping[str, Any]) -> Reply:
    path = str(event.get("path") or "").rstrip("/")
    if path == "/v1/tools":
        check_route(event, path, "GET")
        return Reply(encode_json(tool_list()))
    if path == "/v1/tokenizers":
        check_route(event, path, "GET")
        return Reply(encode_json(tokenizer_list()))
    if path == "/v1/health":  # HEAD too, for load balancers' probes (API.md): the same answer, no body
        check_route(event, path, "GET", "HEAD")
        return Reply(HEALTHY if str(event.get("httpMethod")).upper() == "GET" else b"")
    if path == "/v1/playground":
        check_route(event, path, "GET")
        page = playground()
        return Reply(page.body, headers=page.headers)
    if path == "/openapi.json":
        check_route(event, path, "GET")
        return Reply(openapi(base_path(event)), headers=ANY_ORIGIN)
    found = check_route(event, DESCRIPTOR_PATH, "GET")
    if found is None:
        raise NotFound()
    return Reply(published_descriptor(found["id"], found["version"]))


def base_path(event: Mapping[str, Any]) -> str:
    """The part of the caller's URL before the route: ``/<stage>`` on the API's own domain, a base
    path mapping's path on a custom domain, empty for ``make serve``."""
    full = str((event.get("requestContext") or {}).get("path") or "")
    path = str(event.get("path") or "")
    return full.removesuffix(path) if full.endswith(path) else ""


@lru_cache(maxsize=4)
def openapi(prefix: str) -> bytes:
    """The OpenAPI document, its ``servers`` naming the base path it was fetched under, so that a
    Swagger UI or Postman that loads it by URL sends requests to this stage."""
    raw = openapi_document()
    if not prefix:
        return raw
    document = orjson.loads(raw)
    document["servers"] = [{"url": prefix, "description": "The API this document was fetched from"}]
    return orjson.dumps(document)


lambda_handler = make_handler(serve, ("route", "discovery"))
