"""What the service offers, as its discovery routes tell it (API.md, "Discovery, health and MCP"):
the list of tools and each descriptor as published, read from the descriptors alone, so that
answering them imports no tool's algorithm.
"""

import os
from functools import cache
from typing import Final, TypedDict

from .descriptor import SEEDS, Descriptor, descriptor_ids, load_descriptor
from .errors import NotFound

SERVICE_NAME: Final = "text-tools"
SERVICE_VERSION: Final = "1.5.0"
"""The release of the API as a whole (CHANGELOG.md): the OpenAPI document's and MCP's server version."""
LISTED_FIELDS = ("id", "version", "description", "supported_operations", "unsupported_operations", "execute_url")
"""The descriptor's values that each entry of ``GET /v1/tools`` copies, in this order."""


class ToolEntry(TypedDict):
    id: str
    version: str
    description: str
    supported_operations: list[str]
    unsupported_operations: list[str]
    execute_url: str
    descriptor_url: str


def descriptor_url(descriptor: Descriptor) -> str:
    """Where a descriptor is published: a path without the stage, as ``execute_url`` is."""
    return f"/v1/tools/{descriptor.id}/versions/{descriptor.version}"


@cache
def descriptors() -> dict[tuple[str, str], Descriptor]:
    """Every published descriptor by id and version: read once per process."""
    loaded = (load_descriptor(tool_id) for tool_id in descriptor_ids())
    return {(descriptor.id, descriptor.version): descriptor for descriptor in loaded}


def tool_list() -> dict[str, list[ToolEntry]]:
    """The answer of ``GET /v1/tools``: one entry per descriptor, ordered by id."""
    entries = [
        ToolEntry(**{name: descriptor.data[name] for name in LISTED_FIELDS}, descriptor_url=descriptor_url(descriptor))  # type: ignore[typeddict-item]
        for descriptor in descriptors().values()
    ]
    return {"tools": entries}


class TokenizerEntry(TypedDict, total=False):
    name: str
    kind: str
    sha256: str
    special_tokens: int
    truncation_max_length: int | None


def tokenizer_list() -> dict[str, list[TokenizerEntry]]:
    """The answer of ``GET /v1/tokenizers``: the encodings that ``max_tokens`` can count with, then
    each deployed Hugging Face tokenizer by the name a request gives it (``hf:<name>``), with its
    file's SHA-256, the special tokens it adds to a single sequence and the ``max_length`` of its
    own truncation setting, or ``None`` (API.md). Imported here: the
    other discovery routes' cold start does not pay for it."""
    from .hf_tokens import PREFIX, deployed  # noqa: PLC0415
    from .tokens import TABLES  # noqa: PLC0415

    encodings: list[TokenizerEntry] = [{"name": name, "kind": "tiktoken"} for name in TABLES]
    files: list[TokenizerEntry] = [
        {"name": f"{PREFIX}{name}", "kind": "huggingface", "sha256": entry["sha256"],
         "special_tokens": entry["special_tokens"], "truncation_max_length": entry["truncation_max_length"]}
        for name, entry in sorted(deployed().items())
    ]  # fmt: skip
    return {"tokenizers": encodings + files}


def published_descriptor(tool_id: str, version: str) -> bytes:
    """The descriptor's file as published, byte for byte; ``NotFound`` for an unknown id or version
    (the message does not repeat them: they are the caller's text)."""
    found = descriptors().get((tool_id, version))
    if found is None:
        raise NotFound("There is no published tool with this id and version.")
    return found.raw


def openapi_document() -> bytes:
    """The API's OpenAPI document (``make openapi`` writes it; ``openapi.json`` beside this package,
    a link to the project's in the source, a copy in the layer)."""
    with open(os.path.join(os.path.dirname(SEEDS), "openapi.json"), "rb") as stream:
        return stream.read()
