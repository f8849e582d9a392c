"""The tool table and the one pipeline every caller runs: measure, parse, validate, run, encode."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .codec import decode_json, encode_json
from .delimiter_chunk import delimiter_chunk
from .errors import InputTooLarge, InvalidInput, OutputTooLarge, ToolError, TooManyChunks, UnclosedStartMarker
from .extract_between import extract_between
from .limits import DELIMITER_CHUNK, EXTRACT_BETWEEN, PARAGRAPHS_SPLIT, max_body_bytes
from .models import (
    DelimiterChunkInput,
    DelimiterChunkOutput,
    ExtractBetweenInput,
    ExtractBetweenOutput,
    ParagraphsSplitInput,
    ParagraphsSplitOutput,
    ToolInput,
    validation_problems,
)
from .paragraphs_split import paragraphs_split


@dataclass(frozen=True, slots=True)
class Tool:
    """One published tool: its identity, its input model, its byte limits and its algorithm."""

    id: str
    version: str
    input_model: type[ToolInput]
    output_model: Any
    byte_limits: Mapping[str, int]
    max_output_bytes: int | None
    run: Callable[[Any], Mapping[str, Any]]
    errors: tuple[type[ToolError], ...]
    """What the tool itself can fail with, beyond invalid or too large input (for the API docs)."""

    @property
    def execute_url(self) -> str:
        return f"/v1/tools/{self.id}/versions/{self.version}/execute"

    @property
    def max_body_bytes(self) -> int:
        return max_body_bytes(*self.byte_limits.values())

    def parse(self, data: object) -> ToolInput:
        """Validate decoded JSON (or the S3 flow's parameters) into the tool's input model."""
        if not isinstance(data, dict):
            raise InvalidInput("The request body must be a JSON object.")
        try:
            params = self.input_model.model_validate(data)
        except ValidationError as error:
            raise InvalidInput(
                "The request does not match this tool's input schema.", validation_problems(error)
            ) from None
        for field, limit in self.byte_limits.items():
            if _utf8_length(field, getattr(params, field)) > limit:
                raise InputTooLarge(
                    f"The {field} field is larger than {limit} UTF-8 bytes.",
                    [{"field": field, "problem": f"must be at most {limit} UTF-8 bytes"}],
                )
        return params

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


def _utf8_length(field: str, value: str) -> int:
    """UTF-8 size; encoding also finds lone surrogates, which ``json.loads`` lets through."""
    if value.isascii():
        return len(value)
    try:
        return len(value.encode())
    except UnicodeEncodeError:
        raise InvalidInput(
            f"The {field} field holds a lone surrogate.",
            [{"field": field, "problem": "must not hold a lone surrogate"}],
        ) from None


def _run_delimiter_chunk(params: DelimiterChunkInput) -> Mapping[str, Any]:
    return delimiter_chunk(params.text, params.delimiter, params.max_splits)


def _run_extract_between(params: ExtractBetweenInput) -> Mapping[str, Any]:
    return extract_between(params.text, params.start, params.end, params.max_matches)


def _run_paragraphs_split(params: ParagraphsSplitInput) -> Mapping[str, Any]:
    return paragraphs_split(params.text)


DELIMITER_CHUNK_TOOL = Tool(
    id="text-delimiter-chunk",
    version="1.0.0",
    input_model=DelimiterChunkInput,
    output_model=DelimiterChunkOutput,
    byte_limits={"text": DELIMITER_CHUNK.max_input_bytes, "delimiter": DELIMITER_CHUNK.max_delimiter_bytes},
    max_output_bytes=DELIMITER_CHUNK.max_output_bytes,
    run=_run_delimiter_chunk,
    errors=(TooManyChunks, OutputTooLarge),
)
EXTRACT_BETWEEN_TOOL = Tool(
    id="text-extract-between",
    version="1.0.0",
    input_model=ExtractBetweenInput,
    output_model=ExtractBetweenOutput,
    byte_limits={
        "text": EXTRACT_BETWEEN.max_text_bytes,
        "start": EXTRACT_BETWEEN.max_marker_bytes,
        "end": EXTRACT_BETWEEN.max_marker_bytes,
    },
    max_output_bytes=None,
    run=_run_extract_between,
    errors=(UnclosedStartMarker,),
)
PARAGRAPHS_SPLIT_TOOL = Tool(
    id="text-paragraphs-split",
    version="1.0.0",
    input_model=ParagraphsSplitInput,
    output_model=ParagraphsSplitOutput,
    byte_limits={"text": PARAGRAPHS_SPLIT.max_input_bytes},
    max_output_bytes=PARAGRAPHS_SPLIT.max_output_bytes,
    run=_run_paragraphs_split,
    errors=(TooManyChunks, OutputTooLarge),
)
TOOLS: Mapping[str, Tool] = {
    tool.id: tool for tool in (DELIMITER_CHUNK_TOOL, EXTRACT_BETWEEN_TOOL, PARAGRAPHS_SPLIT_TOOL)
}
