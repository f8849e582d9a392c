"""The tools' input and output models in pydantic v2, for schemas, documentation and type checks.

Inputs are built from the field declarations of ``texttools.fields`` (one source): strict
(``true``, ``1.0`` and ``"3"`` are not integers) and closed (``extra="forbid"``). Outputs are
TypedDicts: the algorithms build plain dicts with no per-chunk model objects, and pydantic derives
their JSON Schema. The functions never import this module on a request's path (it costs pydantic's
model machinery at cold start); ``texttools.fields`` validates, and a test keeps the two in step.
"""

from typing import Annotated, Any, TypedDict

from pydantic import BaseModel, ConfigDict, Field, create_model, with_config

from .fields import DELIMITER_CHUNK_INPUT, EXTRACT_BETWEEN_INPUT, PARAGRAPHS_SPLIT_INPUT, REQUIRED, InputField
from .limits import DELIMITER_CHUNK, EXTRACT_BETWEEN, PARAGRAPHS_SPLIT

NonNegative = Annotated[int, Field(ge=0)]
Positive = Annotated[int, Field(ge=1)]
_CLOSED = ConfigDict(extra="forbid")
_INPUT = ConfigDict(extra="forbid", strict=True, frozen=True)


def _undocumented_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def _model_field(field: InputField) -> tuple[Any, Any]:
    extra: dict[str, Any] | Any = {"maxLength": field.doc_max_length} if field.doc_max_length else None
    if not field.document_default:
        extra = _undocumented_default
    constraints = Field(
        default=... if field.default is REQUIRED else field.default,
        min_length=field.min_length or None,
        ge=field.minimum,
        le=field.maximum,
        description=field.description,
        json_schema_extra=extra,
    )
    return field.kind, constraints


def input_model(name: str, fields: tuple[InputField, ...]) -> type[BaseModel]:
    model: type[BaseModel] = create_model(
        name, __config__=_INPUT, **{field.name: _model_field(field) for field in fields}
    )  # type: ignore[call-overload]
    return model


DelimiterChunkInput = input_model("DelimiterChunkInput", DELIMITER_CHUNK_INPUT)
ExtractBetweenInput = input_model("ExtractBetweenInput", EXTRACT_BETWEEN_INPUT)
ParagraphsSplitInput = input_model("ParagraphsSplitInput", PARAGRAPHS_SPLIT_INPUT)


@with_config(_CLOSED)
class Chunk(TypedDict):
    index: NonNegative
    start: NonNegative
    end: NonNegative
    start_line: Positive
    end_line: Positive
    text: str


@with_config(_CLOSED)
class DelimiterChunkOutput(TypedDict):
    chunk_count: Positive
    delimiter_count: NonNegative
    chunks: Annotated[list[Chunk], Field(min_length=1, max_length=DELIMITER_CHUNK.max_chunks)]


@with_config(_CLOSED)
class ExtractBetweenOutput(TypedDict):
    matches: Annotated[list[str], Field(max_length=EXTRACT_BETWEEN.max_matches)]
    truncated: bool


@with_config(_CLOSED)
class Paragraph(TypedDict):
    index: NonNegative
    start: NonNegative
    end: NonNegative
    start_line: Positive
    end_line: Positive
    line_count: Positive
    text: str


@with_config(_CLOSED)
class ParagraphsSplitOutput(TypedDict):
    paragraph_count: NonNegative
    line_count_total: NonNegative
    paragraphs: Annotated[list[Paragraph], Field(max_length=PARAGRAPHS_SPLIT.max_paragraphs)]
