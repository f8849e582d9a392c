"""A tool's input fields, read from its descriptor's input schema, and the validation every
request goes through.

Validation here is a few type and range checks per field, with no import cost: a cold start builds
no schema validator (a test checks that these checks and the descriptor's JSON Schema accept and
refuse alike). What the schema cannot say comes from the tool module: which limit bounds each
string in UTF-8 bytes, and the default of an optional field.
"""

import re
from collections.abc import Mapping
from typing import Any, Final

from .descriptor import Descriptor
from .errors import InputTooLarge, InvalidInput, Problem

REQUIRED: Final = object()
"""The default of a field that must be given (an optional field's default may be ``None``: absent)."""
MAX_PROBLEMS = 20
"""At most this many ``details``: a body with 10 000 unknown keys must not get a 600 KB answer."""
FIELD_NAME_SHOWN = 64
"""An unknown key is echoed cut to this many characters: it tells the caller which key is wrong."""
MAX_SAFE_INTEGER: Final = 9_007_199_254_740_991
"""JSON's largest exactly representable integer (the schemas' bound for counts without a limit)."""


class InputField:
    """One field of a tool's input object: JSON string or integer, and its bounds."""

    __slots__ = ("choices", "default", "kind", "max_bytes", "maximum", "min_length", "minimum", "name", "pattern")

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
        choices: tuple[str, ...] | None = None,
        pattern: str | None = None,
    ) -> None:
        self.name, self.kind, self.default = name, kind, default
        self.min_length, self.minimum, self.maximum, self.max_bytes = min_length, minimum, maximum, max_bytes
        self.choices = choices
        """A string field's allowed values (the schema's ``enum``), or ``None``: any string."""
        self.pattern = re.compile(pattern) if pattern is not None else None
        """A string field's form (the schema's ``pattern``, anchored at both ends), or ``None``."""

    def with_maximum(self, maximum: int) -> "InputField":
        """The same field with another upper bound (the document flows lift a count's limit)."""
        return InputField(self.name, self.kind, default=self.default, min_length=self.min_length, minimum=self.minimum,
                          maximum=maximum, max_bytes=self.max_bytes, choices=self.choices,
                          pattern=self.pattern.pattern if self.pattern else None)  # fmt: skip

    def problem(self, value: object) -> str | None:
        """What is wrong with a value given for this field, if anything (the byte limit aside)."""
        if self.kind is str:
            return self._string_problem(value)
        if type(value) is not int:  # JSON true, 1.0, 1e2 and "3" are not integers
            return "must be an integer"
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {self.minimum}"
        if self.maximum is not None and value > self.maximum:
            return f"must be at most {self.maximum}"
        return None

    def _string_problem(self, value: object) -> str | None:
        if type(value) is not str:
            return "must be a string"
        if self.choices is not None and value not in self.choices:
            return f"must be one of {', '.join(self.choices)}"
        if self.pattern is not None and not _matches(self.pattern, value):
            return f"must match {self.pattern.pattern}"
        return "must not be empty" if len(value) < self.min_length else None


KINDS: Final = {"string": str, "integer": int}


def input_fields(
    descriptor: Descriptor, byte_limits: Mapping[str, str], defaults: Mapping[str, Any] | None = None
) -> tuple[InputField, ...]:
    """The fields of ``descriptor``'s input schema, in its order.

    ``byte_limits`` names, for each string field, the descriptor limit that bounds its UTF-8 size;
    ``defaults`` gives each optional field's value when omitted. A string's ``maxLength`` (code
    points) is not checked: its byte limit is the stricter rule, and API.md makes that a 413.
    """
    schema = descriptor.input_schema
    fields = []
    for name, spec in schema["properties"].items():
        fields.append(
            InputField(
                name,
                KINDS[spec["type"]],
                default=REQUIRED if name in schema["required"] else (defaults or {})[name],
                min_length=spec.get("minLength", 0),
                minimum=spec.get("minimum"),
                maximum=spec.get("maximum"),
                max_bytes=descriptor.limits[byte_limits[name]] if name in byte_limits else None,
                choices=tuple(spec["enum"]) if "enum" in spec else None,
                pattern=spec.get("pattern"),
            )
        )
    return tuple(fields)


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


def _matches(pattern: "re.Pattern[str]", value: str) -> bool:
    """JSON Schema's ``pattern`` (ECMA-262): a search, where ``$`` is the end of the string only
    (Python's ``$`` also matches before a final newline)."""
    found = pattern.search(value)
    return found is not None and (found.end() == len(value) or not pattern.pattern.endswith("$"))


def _shown(key: str) -> str:
    return key[:FIELD_NAME_SHOWN].encode("utf-8", "replace").decode()  # a key may hold a lone surrogate
