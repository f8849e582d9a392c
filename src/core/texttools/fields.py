"""The tools' input fields, declared once, and the validation every request goes through.

Validation here is a few type and range checks per field, with no import cost: a cold start does
not build pydantic models (``make bench`` measured that at a third of the function's own start-up).
``texttools.models`` builds the pydantic models (schemas, OpenAPI) from these same declarations,
and a test checks that both accept and refuse alike.
"""

from collections.abc import Mapping
from typing import Any, Final

from .errors import InputTooLarge, InvalidInput, Problem
from .limits import DELIMITER_CHUNK, EXTRACT_BETWEEN, MAX_SAFE_INTEGER, PARAGRAPHS_SPLIT

REQUIRED: Final = None
"""The default of a field that must be given."""
MAX_PROBLEMS = 20
"""At most this many ``details``: a body with 10 000 unknown keys must not get a 600 KB answer."""
FIELD_NAME_SHOWN = 64
"""An unknown key is echoed cut to this many characters: it tells the caller which key is wrong."""


class InputField:
    """One field of a tool's input object: JSON string or integer, and its bounds."""

    __slots__ = ("default", "description", "doc_max_length", "document_default", "kind", "max_bytes",
                 "maximum", "min_length", "minimum", "name")  # fmt: skip

    def __init__(
        self,
        name: str,
        kind: type[str] | type[int],
        *,
        default: Any = REQUIRED,
        min_length: int = 0,
        minimum: int | None = None,
        maximum: int | None = None,
        max_bytes: int | None = None,
        doc_max_length: int | None = None,
        document_default: bool = True,
        description: str | None = None,
    ) -> None:
        self.name, self.kind, self.default, self.description = name, kind, default, description
        self.min_length, self.minimum, self.maximum = min_length, minimum, maximum
        self.max_bytes, self.doc_max_length, self.document_default = max_bytes, doc_max_length, document_default

    def problem(self, value: object) -> str | None:
        """What is wrong with a value given for this field, if anything (the byte limit aside)."""
        if self.kind is str:
            if type(value) is not str:
                return "must be a string"
            return "must not be empty" if len(value) < self.min_length else None
        if type(value) is not int:  # JSON true, 1.0, 1e2 and "3" are not integers
            return "must be an integer"
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {self.minimum}"
        if self.maximum is not None and value > self.maximum:
            return f"must be at most {self.maximum}"
        return None


DELIMITER_CHUNK_INPUT = (
    InputField("text", str, max_bytes=DELIMITER_CHUNK.max_input_bytes,
               description="The text to split (UTF-8, at most max_input_bytes)."),
    InputField("delimiter", str, min_length=1, max_bytes=DELIMITER_CHUNK.max_delimiter_bytes,
               description="The literal separator string (at most max_delimiter_bytes)."),
    # Omitted is Python's maxsplit=-1; the published schema shows no default, only the bounds.
    InputField("max_splits", int, default=-1, minimum=0, maximum=MAX_SAFE_INTEGER, document_default=False,
               description="At most this many splits; omit for no limit."),
)  # fmt: skip
EXTRACT_BETWEEN_INPUT = (
    # The descriptor's maxLength (code points) is documented; the byte limit is the stricter rule (413).
    InputField("text", str, max_bytes=EXTRACT_BETWEEN.max_text_bytes, doc_max_length=EXTRACT_BETWEEN.max_text_bytes),
    InputField("start", str, min_length=1, max_bytes=EXTRACT_BETWEEN.max_marker_bytes,
               doc_max_length=EXTRACT_BETWEEN.max_marker_bytes),
    InputField("end", str, min_length=1, max_bytes=EXTRACT_BETWEEN.max_marker_bytes,
               doc_max_length=EXTRACT_BETWEEN.max_marker_bytes),
    InputField("max_matches", int, default=EXTRACT_BETWEEN.default_max_matches, minimum=1,
               maximum=EXTRACT_BETWEEN.max_matches),
)  # fmt: skip
PARAGRAPHS_SPLIT_INPUT = (
    InputField("text", str, max_bytes=PARAGRAPHS_SPLIT.max_input_bytes,
               description="The text to split (UTF-8, at most max_input_bytes)."),
)  # fmt: skip


def validate(fields: tuple[InputField, ...], data: object) -> dict[str, Any]:
    """The input object with defaults filled in, or ``InvalidInput`` (400) / ``InputTooLarge`` (413).

    Problems are listed in field order, then unknown keys, as a caller reads the schema.
    """
    if not isinstance(data, dict):
        raise InvalidInput("The request body must be a JSON object.")
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for field in fields:
        if field.name not in data:
            if field.default is REQUIRED:
                problems.append({"field": field.name, "problem": "is required"})
            else:
                values[field.name] = field.default
            continue
        value = data[field.name]
        if (problem := field.problem(value)) is not None:
            problems.append({"field": field.name, "problem": problem})
        values[field.name] = value
    known = {field.name for field in fields}
    unknown = (key for key in data if key not in known)
    problems += [{"field": _shown(key), "problem": "is not a field of this tool"} for key in unknown]
    if problems:
        raise InvalidInput("The request does not match this tool's input schema.", problems[:MAX_PROBLEMS])
    for field in fields:
        if field.max_bytes is not None and utf8_length(field.name, values[field.name]) > field.max_bytes:
            raise InputTooLarge(
                f"The {field.name} field is larger than {field.max_bytes} UTF-8 bytes.",
                [{"field": field.name, "problem": f"must be at most {field.max_bytes} UTF-8 bytes"}],
            )
    return values


def byte_limits(fields: tuple[InputField, ...]) -> Mapping[str, int]:
    return {field.name: field.max_bytes for field in fields if field.max_bytes is not None}


def utf8_length(field: str, value: str) -> int:
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


def _shown(key: str) -> str:
    return key[:FIELD_NAME_SHOWN].encode("utf-8", "replace").decode()  # a key may hold a lone surrogate
