"""Typed inputs and outputs of the three tools.

Inputs are pydantic models: strict (``true``, ``1.0`` and ``"3"`` are not integers), closed
(``extra="forbid"``). Outputs are TypedDicts: the hot path builds plain dicts with no per-chunk
model objects, yet pydantic can still derive their JSON Schema (``TypeAdapter``) for docs and tests.
"""

from typing import Annotated, Any, ClassVar, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError, with_config

from .errors import Problem
from .limits import DELIMITER_CHUNK, EXTRACT_BETWEEN, MAX_SAFE_INTEGER, PARAGRAPHS_SPLIT

NonNegative = Annotated[int, Field(ge=0)]
Positive = Annotated[int, Field(ge=1)]
_CLOSED = ConfigDict(extra="forbid")


NO_SPLIT_LIMIT = -1
"""Omitted ``max_splits``: Python's ``maxsplit=-1``. Only the default may be negative (not validated)."""


def _undocumented_default(schema: dict[str, Any]) -> None:
    """The published schema has no default for max_splits: omission means no limit."""
    schema.pop("default", None)


class ToolInput(BaseModel):
    """Base of the input models; ``byte_limits`` names the string fields the core measures in UTF-8."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)
    byte_limits: ClassVar[dict[str, int]]


class DelimiterChunkInput(ToolInput):
    text: str = Field(description="The text to split (UTF-8, at most max_input_bytes).")
    delimiter: str = Field(min_length=1, description="The literal separator string (at most max_delimiter_bytes).")
    max_splits: int = Field(
        default=NO_SPLIT_LIMIT,
        ge=0,
        le=MAX_SAFE_INTEGER,
        description="At most this many splits; omit for no limit.",
        json_schema_extra=_undocumented_default,
    )


class ExtractBetweenInput(ToolInput):
    # The descriptor's maxLength is documented, not validated here: the byte limit (413) is the
    # stricter rule, and answering 400 for the same oversize string would split one rule in two.
    text: str = Field(json_schema_extra={"maxLength": EXTRACT_BETWEEN.max_text_bytes})
    start: str = Field(min_length=1, json_schema_extra={"maxLength": EXTRACT_BETWEEN.max_marker_bytes})
    end: str = Field(min_length=1, json_schema_extra={"maxLength": EXTRACT_BETWEEN.max_marker_bytes})
    max_matches: int = Field(default=EXTRACT_BETWEEN.default_max_matches, ge=1, le=EXTRACT_BETWEEN.max_matches)


class ParagraphsSplitInput(ToolInput):
    text: str = Field(description="The text to split (UTF-8, at most max_input_bytes).")


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


_PROBLEMS = {
    "missing": "is required",
    "extra_forbidden": "is not a field of this tool",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "string_too_short": "must not be empty",
    "model_type": "must be a JSON object",
}
_FIELD_NAME_SHOWN = 64
MAX_PROBLEMS = 20
"""At most this many ``details``: a body with 10 000 unknown keys must not get a 600 KB answer."""


def validation_problems(error: ValidationError) -> list[Problem]:
    """pydantic's errors as API.md ``details``, worded here so no input value is ever echoed.

    A field name is echoed (cut to 64 characters) because it tells the caller which key is wrong;
    only the first ``MAX_PROBLEMS`` problems are listed.
    """
    problems: list[Problem] = []
    for item in error.errors(include_url=False, include_input=False)[:MAX_PROBLEMS]:
        field = ".".join(str(part) for part in item["loc"])[:_FIELD_NAME_SHOWN]
        field = field.encode("utf-8", "replace").decode()  # a key may hold a lone surrogate
        kind, context = item["type"], item.get("ctx") or {}
        if kind in _PROBLEMS:
            problem = _PROBLEMS[kind]
        elif kind == "greater_than_equal":
            problem = f"must be at least {context['ge']}"
        elif kind == "less_than_equal":
            problem = f"must be at most {context['le']}"
        else:
            problem = "is not valid"
        problems.append({"field": field, "problem": problem})
    return problems


def json_schema(model: Any) -> dict[str, Any]:
    """JSON Schema of an input model or output TypedDict, as the descriptors publish them."""
    from pydantic import TypeAdapter  # noqa: PLC0415 (only docs and tests need it: off the cold path)

    return TypeAdapter(model).json_schema()
