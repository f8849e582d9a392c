"""API.md's "S3 document chunking" as a pure function: document bytes and metadata in, the output
object's key and bytes out. The S3 handler only moves bytes; every rule of the layout lives here.
"""

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import orjson

from .codec import BOM, encode_json
from .errors import InputTooLarge, InvalidInput, ToolError
from .registry import TOOL_IDS, tool, tools
from .tool import Tool

INCOMING, CHUNKS, ERRORS = "incoming/", "chunks/", "errors/"
BOM_BYTES = len(BOM.encode())
LARGEST_TEXT_BYTES = max(each.byte_limits["text"] for each in tools().values())


@dataclass(frozen=True, slots=True)
class Source:
    """Which object (and which version of it) a result was made from."""

    bucket: str
    key: str
    version_id: str | None
    etag: str
    size: int


def is_document_key(key: str) -> bool:
    """Objects under ``incoming/`` are documents; a folder placeholder (``…/``) is not."""
    return key.startswith(INCOMING) and not key.endswith("/")


def output_key(source_key: str, failed: bool) -> str:
    return f"{ERRORS if failed else CHUNKS}{source_key.removeprefix(INCOMING)}.json"


def too_large_to_read(size: int) -> bool:
    """Refuse from the event's size alone: no tool accepts this many bytes, even after a BOM."""
    return size > LARGEST_TEXT_BYTES + BOM_BYTES


@dataclass(frozen=True, slots=True)
class Output:
    """The object to write, and the outcome code (``ok`` or the error code) for logs and metrics."""

    key: str
    body: bytes
    code: str


def chunk_document(source: Source, content: bytes | None, metadata: Mapping[str, str]) -> Output:
    """The output object for one document: ``chunks/<name>.json`` or ``errors/<name>.json``.

    ``content`` is ``None`` when ``too_large_to_read`` kept it from being downloaded. ``metadata`` is the
    object's user metadata over the deployment's defaults. The bytes depend only on these
    arguments, so a retried event writes the same object again.
    """
    try:
        if content is None:
            raise InputTooLarge(f"The document is larger than {LARGEST_TEXT_BYTES} bytes.")
        chosen, parameters = tool_and_parameters(metadata)
        params = chosen.parse({"text": decode_document(content), **parameters})
        result = chosen.encode(chosen.run(params))
    except ToolError as error:
        failure = {"source": asdict(source), "error": {"code": error.code, "message": error.message}}
        return Output(output_key(source.key, failed=True), encode_json(failure), error.code)
    document: dict[str, Any] = {
        "source": asdict(source),
        "tool": {"id": chosen.id, "version": chosen.version},
        "parameters": parameters,  # the inputs that were given (metadata or defaults), without the text
        "result": orjson.Fragment(result),
    }
    return Output(output_key(source.key, failed=False), encode_json(document), "ok")


def decode_document(content: bytes) -> str:
    try:
        return content.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError:
        raise InvalidInput("The document is not valid UTF-8.") from None


def tool_and_parameters(metadata: Mapping[str, str]) -> tuple[Tool, dict[str, object]]:
    """The tool named by ``tool`` (the deployment's default tool is among the defaults) and its parameters.

    Metadata keys (S3 user metadata is ASCII and case-insensitive; S3 hands it back lower-cased) are
    the tool's input fields but ``text``, hyphenated; string values are JSON string literals,
    numbers JSON integers. Keys that do not parameterise the chosen tool are ignored: users keep their own.
    """
    tool_id = metadata.get("tool")
    if tool_id not in TOOL_IDS:
        raise InvalidInput(f"The tool metadata must be one of {', '.join(TOOL_IDS)}.")
    chosen = tool(tool_id)
    parameters: dict[str, object] = {}
    for name, field in chosen.metadata_keys.items():
        if name in metadata:
            try:
                parameters[field] = orjson.loads(metadata[name])
            except orjson.JSONDecodeError:
                raise InvalidInput(f"The {name} metadata must be a JSON string literal or integer.") from None
    return chosen, parameters
