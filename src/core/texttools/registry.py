"""Which tools exist, and where each one lives: the only place the code learns of tools.

A tool is a descriptor (``seeds/<id>.json``) and a module (``texttools.tools.<id with
underscores>``) that defines ``TOOL``; every other part of the code (the API adapter, the document
flows, the OpenAPI document, the sample events, the local runner, the benchmark) asks here, so
adding a tool adds no name to them (docs/adding-a-tool.md).
"""

from importlib import import_module

from .descriptor import descriptor_ids
from .tool import Tool

TOOL_IDS: tuple[str, ...] = tuple(descriptor_ids())


def tool(tool_id: str) -> Tool:
    """One tool, importing only its own module: an API function loads its tool and no other."""
    if tool_id not in TOOL_IDS:
        raise KeyError(tool_id)
    found: Tool = import_module(f"{__package__}.tools.{tool_id.replace('-', '_')}").TOOL
    return found


def tools() -> dict[str, Tool]:
    """Every tool, by id."""
    return {tool_id: tool(tool_id) for tool_id in TOOL_IDS}
