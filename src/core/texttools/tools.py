"""The tool table and the one pipeline every caller runs: measure, parse, validate, run, encode."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from .codec import decode_json, encode_json
from .delimiter_chunk import delimiter_chunk
from .errors import InputTooLarge, OutputTooLarge, ToolError, TooManyChunks, UnclosedStartMarker
from .extract_between import extract_between
from .fields import DELIMITER_CHUNK_INPUT, EXTRACT_BETWEEN_INPUT, PARAGRAPHS_SPLIT_INPUT, InputField, validate
from .fields import byte_limits as field_byte_limits
from .limits import DELIMITER_CHUNK, PARAGRAPHS_SPLIT, max_body_bytes
from .paragraphs_split import paragraphs_split

Params = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Tool:
    """One published tool: its identity, its input fields, its limits and its algorithm."""

    id: str
    version: str
    model_name: str
    """``<model_name>Input`` and ``<model_name>Output`` in ``texttools.models``."""
    fields: tuple[InputField, ...]
    max_output_bytes: int | None
    run: Callable[[Params], Mapping[str, Any]]
    errors: tuple[type[ToolError], ...]
    """What the tool itself can fail with, beyond invalid or too large input (for the API docs)."""
    max_body_bytes: int = field(init=False)
    """The largest body a valid request can need (``limits.max_body_bytes``): every request reads it
    twice (the adapter's base64 bound and ``execute``), so it is worked out once, from ``fields``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_body_bytes", max_body_bytes(*self.byte_limits.values()))  # frozen

    @property
    def execute_url(self) -> str:
        return f"/v1/tools/{self.id}/versions/{self.version}/execute"

    @property
    def byte_limits(self) -> Mapping[str, int]:
        return field_byte_limits(self.fields)

    @property
    def input_model(self) -> Any:
        """The pydantic input model (imports pydantic's model machinery: docs and tests only)."""
        return getattr(import_module(".models", __package__), f"{self.model_name}Input")

    @property
    def output_model(self) -> Any:
        return getattr(import_module(".models", __package__), f"{self.model_name}Output")

    def parse(self, data: object) -> Params:
        """Validate decoded JSON (or the S3 flow's parameters) into the tool's input."""
        return validate(self.fields, data)

    def encode(self, result: Mapping[str, Any]) -> bytes:
        """The response bytes; ``max_output_bytes`` is measured on exactly these."""
        body = encode_json(result)
        if self.max_output_bytes is not None and len(body) > self.max_output_bytes:
            raise OutputTooLarge(f"The result would be larger than {self.max_output_bytes} bytes.")
        return body

    def execute(self, body: str | bytes) -> bytes:
        """Answer one JSON request body with the JSON output body, or raise a ``ToolError``.

        The size check comes first, so a body no valid request could need is never parsed. A
        ``str`` body is measured in code points: never more than its UTF-8 bytes, so nothing valid
        is refused, and anything larger than the limit in bytes but not in code points is bounded
        (at most four times the limit) and still refused by the field limits after parsing.
        """
        if len(body) > self.max_body_bytes:
            raise InputTooLarge("The request body is larger than any valid request for this tool.")
        return self.encode(self.run(self.parse(decode_json(body))))


def _run_delimiter_chunk(params: Params) -> Mapping[str, Any]:
    return delimiter_chunk(params["text"], params["delimiter"], params["max_splits"])


def _run_extract_between(params: Params) -> Mapping[str, Any]:
    return extract_between(params["text"], params["start"], params["end"], params["max_matches"])


def _run_paragraphs_split(params: Params) -> Mapping[str, Any]:
    return paragraphs_split(params["text"])


DELIMITER_CHUNK_TOOL = Tool(
    id="text-delimiter-chunk",
    version="1.0.0",
    model_name="DelimiterChunk",
    fields=DELIMITER_CHUNK_INPUT,
    max_output_bytes=DELIMITER_CHUNK.max_output_bytes,
    run=_run_delimiter_chunk,
    errors=(TooManyChunks, OutputTooLarge),
)
EXTRACT_BETWEEN_TOOL = Tool(
    id="text-extract-between",
    version="1.0.0",
    model_name="ExtractBetween",
    fields=EXTRACT_BETWEEN_INPUT,
    max_output_bytes=None,
    run=_run_extract_between,
    errors=(UnclosedStartMarker,),
)
PARAGRAPHS_SPLIT_TOOL = Tool(
    id="text-paragraphs-split",
    version="1.0.0",
    model_name="ParagraphsSplit",
    fields=PARAGRAPHS_SPLIT_INPUT,
    max_output_bytes=PARAGRAPHS_SPLIT.max_output_bytes,
    run=_run_paragraphs_split,
    errors=(TooManyChunks, OutputTooLarge),
)
TOOLS: Mapping[str, Tool] = {
    tool.id: tool for tool in (DELIMITER_CHUNK_TOOL, EXTRACT_BETWEEN_TOOL, PARAGRAPHS_SPLIT_TOOL)
}
