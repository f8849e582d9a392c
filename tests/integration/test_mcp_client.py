"""The official MCP SDK's client (the ``mcp`` package's Streamable HTTP transport and session)
against ``make serve``'s ``/mcp``: the handshake, the tool list with its schemas, and a call of
every descriptor example, with the SDK checking each result against the tool's outputSchema."""

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from scripts.template import ROOT
from tests.conftest import TEST_API_KEY, descriptor
from texttools.registry import TOOL_IDS


def session_run(base_url: str, steps: Any, api_key: str = TEST_API_KEY) -> Any:
    """Run ``steps(session)`` in an initialised client session and return what it returns."""

    async def main() -> Any:
        async with (
            httpx2.AsyncClient(headers={"x-api-key": api_key}, timeout=30) as http,
            streamable_http_client(f"{base_url}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            initialized = await session.initialize()
            return initialized, await steps(session)

    return anyio.run(main)


def test_the_sdk_client_initialises_lists_and_calls_every_descriptor_example(base_url: str) -> None:
    async def steps(session: ClientSession) -> Any:
        listed = await session.list_tools()
        calls = {}
        for tool_id in TOOL_IDS:
            for number, example in enumerate(descriptor(tool_id)["examples"]):
                calls[tool_id, number] = await session.call_tool(tool_id, example["input"])
        return listed, calls

    initialized, (listed, calls) = session_run(base_url, steps)
    assert initialized.protocol_version == "2025-11-25"
    assert initialized.server_info.name == "text-tools"
    tools = {tool.name: tool for tool in listed.tools}
    assert sorted(tools) == sorted(TOOL_IDS)
    for tool_id, tool in tools.items():
        assert (tool.input_schema, tool.output_schema) == (
            descriptor(tool_id)["input_schema"],
            descriptor(tool_id)["output_schema"],
        )
    for (tool_id, number), result in calls.items():
        assert result.is_error is False
        assert result.structured_content == descriptor(tool_id)["examples"][number]["output"]


def test_the_sdk_client_sees_a_tool_error_as_an_is_error_result(base_url: str) -> None:
    async def steps(session: ClientSession) -> Any:
        return await session.call_tool("text-extract-between", {"text": "a [b", "start": "[", "end": "]"})

    _, result = session_run(base_url, steps)
    assert result.is_error is True
    assert result.structured_content == {
        "error": {"code": "unclosed_start_marker", "message": result.structured_content["error"]["message"]}
    }


def test_the_sdk_client_gets_invalid_params_for_an_unknown_tool(base_url: str) -> None:
    async def steps(session: ClientSession) -> Any:
        with pytest.raises(MCPError) as raised:
            await session.call_tool("no-such-tool", {})
        return raised.value.error.code

    assert session_run(base_url, steps)[1] == -32602


def test_without_the_api_key_the_gateway_refuses_before_mcp(base_url: str) -> None:
    """API Gateway's 403 in the error shape (the SDK only reports that the server answered an error)."""
    request = urllib.request.Request(  # noqa: S310 (the test's own loopback URL)
        f"{base_url}/mcp", b'{"jsonrpc":"2.0","id":1,"method":"ping"}', {"Content-Type": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)  # noqa: S310
    assert (refused.value.code, json.loads(refused.value.read())["error"]["code"]) == (403, "invalid_api_key")
    with pytest.raises(ExceptionGroup) as failed:
        session_run(base_url, lambda session: anyio.sleep(0), api_key="wrong")
    assert failed.group_contains(MCPError, match="error response", depth=2)


def test_the_python_example_of_docs_mcp_md_runs_as_written_and_prints_what_it_shows(base_url: str) -> None:
    """docs/mcp.md, "Connecting a client": the block as it is, ``make serve``'s URL and key made
    this test's; what it prints is what the comments under it show (``...``: the rest)."""
    page = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"^```python\n(.*?)^```$", page, flags=re.MULTILINE | re.DOTALL)
    assert '"x-api-key": "local-key"' in block
    assert '"http://127.0.0.1:3000/mcp"' in block
    code = block.replace("local-key", TEST_API_KEY).replace("http://127.0.0.1:3000", base_url)
    shown = [line.removeprefix("# ") for line in block.splitlines() if line.startswith("# ")]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60)
    assert result.returncode == 0, result.stderr
    printed = result.stdout.splitlines()
    assert len(printed) == len(shown) == 2
    for line, expected in zip(printed, shown, strict=True):
        pattern = ".*?".join(map(re.escape, expected.split("...")))
        assert re.fullmatch(pattern, line), (expected, line)
