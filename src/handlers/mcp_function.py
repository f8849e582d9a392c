"""Lambda entry point of McpFunction: ``POST /mcp``, the tools over the Model Context Protocol
(Streamable HTTP, stateless, JSON responses; texttools.mcp is the protocol, docs/mcp.md the guide).
"""

from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools import Logger

from api_adapter import Reply, check_route, header, make_handler, request_body, request_id_of
from failure_location import failure_location
from texttools import mcp
from texttools.codec import encode_json

logger = Logger()
COUNTS_TOKENS = True
"""Its package holds the deployed tokenizers (src/handlers/Makefile): tools/call runs the size tools."""
mcp.max_body_bytes()  # every tool's module, imported during init rather than by the first call


def serve(event: Mapping[str, Any]) -> Reply:
    check_route(event, "/mcp", "POST")
    body = request_body(
        header(event, "content-type"), event.get("body"), bool(event.get("isBase64Encoded")), mcp.max_body_bytes()
    )
    request = mcp.read_request(body, header(event, "mcp-protocol-version"), request_id_of(event))
    if isinstance(request, mcp.McpRequest):
        try:
            answer = mcp.respond(request)
        except Exception:
            logger.error("unexpected failure", failed_at=failure_location())
            answer = mcp.internal_error(request)
    else:
        answer = request
    body_out = None if answer.message is None else encode_json(answer.message)
    return Reply(body_out, answer.status, answer.outcome)


lambda_handler = make_handler(serve, ("route", "mcp"))
