"""A tool's input fields, read from its descriptor's input schema, and the validation every
request goes through.

Validation here is a few type and range checks per field, with no import cost: a cold start builds
no schema validator (a test checks that these checks and the descriptor's JSON Schema accept and
refuse alike). What the schema cannot say comes from the tool module: which limit bounds each
string in UTF-8 bytes, and the default of an optional field.
"""

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from itertools import islice
from typing import Any, Final

from .descriptor import Descriptor
from .errors import InputTooLarge, InvalidInput, Problem

REQUIRED: Final = object()
"""The default of a field that must be given (an optional field's default may be ``None``: absent)."""
MAX_PROBLEMS = 20
"""At most this many ``details``: a body with 10 000 unknown keys must not get a 600 KB answer."""
FIELD_NAME_SHOWN = 64
"""An unknown key is echoed only when it is this short and made of letters, digits, ``_``, ``-`` and
``.`` (``SHOWN_KEY``): it tells the caller which key is wrong, and is never other user text."""
SHOWN_KEY: Final = re.compile(rf"[A-Za-z0-9_.-]{{1,{FIELD_NAME_SHOWN}}}")
UNSHOWN_KEY: Final = "(a key that cannot be shown)"
"""The ``field`` of an unknown key that is not short and safe enough to echo."""
OTHER_CHUNKERS_NAMES: Final = {
    "chunk_size": "max_chars",
    "chunk_overlap": "overlap_chars",
    "separators": "delimiter",
    "separator": "delimiter",
    "sep": "delimiter",
}
"""Other chunkers' names (LangChain's, LlamaIndex's) for our fields: suggested where the tool has
the field. A name close to one of ours (``max_token``, ``maxChars``, ``overlap``) is found by
``difflib``."""
CLOSE_ENOUGH: Final = 0.6
"""``difflib``'s similarity from which a field is suggested (``overlap`` and ``overlap_chars``: 0.7)."""
MAX_SAFE_INTEGER: Final = 9_007_199_254_740_991
"""JSON's largest exactly representable integer (the schemas' bound for counts without a limit)."""


class InputField:
    """One field of a tool's input object: JSON string or integer, and its bounds."""

    __slots__ = (
        "choices", "default", "form", "kind", "max_bytes", "maximum", "min_length", "minimum", "name", "pattern",
    )  # fmt: skip

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
        form: Callable[[str], str] | None = None,
    ) -> None:
        self.name, self.kind, self.default = name, kind, default
        self.min_length, self.minimum, self.maximum, self.max_bytes = min_length, minimum, maximum, max_bytes
        self.choices = choices
        """A string field's allowed values (the schema's ``enum``), or ``None``: any string."""
        self.pattern = re.compile(pattern) if pattern is not None else None
        """A string field's form (the schema's ``pattern``, anchored at both ends), or ``None``."""
        if pattern is not None and form is None:
            raise ValueError(f"{name} has a pattern: give its form in words, never shown as a regex")
        self.form = form
        """What a string that fails ``pattern`` is told, in words (it may suggest the value meant)."""

    def with_maximum(self, maximum: int) -> "InputField":
        """The same field with another upper bound (the document flows lift a count's limit)."""
        return InputField(self.name, self.kind, default=self.default, min_length=self.min_length, minimum=self.minimum,
                          maximum=maximum, max_bytes=self.max_bytes, choices=self.choices,
                          pattern=self.pattern.pattern if self.pattern else None, form=self.form)  # fmt: skip

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
        if self.pattern is not None and self.form is not None and not _matches(self.pattern, value):
            return self.form(value)
        return "must not be empty" if len(value) < self.min_length else None


KINDS: Final = {"string": str, "integer": int}


def input_fields(
    descriptor: Descriptor,
    byte_limits: Mapping[str, str],
    defaults: Mapping[str, Any] | None = None,
    forms: Mapping[str, Callable[[str], str]] | None = None,
) -> tuple[InputField, ...]:
    """The fields of ``descriptor``'s input schema, in its order.

    ``byte_limits`` names, for each string field, the descriptor limit that bounds its UTF-8 size;
    ``defaults`` gives each optional field's value when omitted; ``forms``, for each field with a
    ``pattern``, the problem a value that fails it gets, in words. A string's ``maxLength`` (code
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
                form=(forms or {}).get(name),
            )
        )
    return tuple(fields)


def validate(fields: tuple[InputField, ...], data: Mapping[str, Any]) -> dict[str, Any]:
    """The input object with defaults filled in, or ``InvalidInput`` (400) / ``InputTooLarge`` (413).

    Problems are listed in field order, then unknown keys, as a caller reads the schema.
    """
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
    known = [field.name for field in fields]
    unknown = islice((key for key in data if key not in known), max(0, MAX_PROBLEMS - len(problems)))
    problems += [unknown_key(key, known) for key in unknown]
    if problems:
        listed = problems[:MAX_PROBLEMS]
        raise InvalidInput(first_problem("The request does not match this tool's input schema", listed), listed)
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


def first_problem(refusal: str, problems: list[Problem]) -> str:
    """A validation failure's message: what failed, and its first problem (the rest are in
    ``details``), so that a caller who reads only the message still reads the fix."""
    first = problems[0]
    more = f" (and {len(problems) - 1} more in details)" if len(problems) > 1 else ""
    end = "" if first["problem"].endswith("?") and not more else "."
    return f"{refusal}: {first['field']} {first['problem']}{more}{end}"


def unknown_key(key: str, known: Iterable[str]) -> Problem:
    """An unknown key's problem: the key itself only when short and safe, and the field of ours it
    probably meant, if any."""
    shown = key if SHOWN_KEY.fullmatch(key) else UNSHOWN_KEY
    meant = suggested(key, known)
    return {"field": shown, "problem": "is not a field of this tool" + (f"; did you mean {meant}?" if meant else "")}


def suggested(key: str, known: Iterable[str]) -> str | None:
    """The field of ours ``key`` probably meant: the same name in snake case, another chunker's name
    for it, or the closest name (``difflib``); ``None`` when none is close. Bounded: the key is cut
    to ``FIELD_NAME_SHOWN`` characters first."""
    names = list(known)
    normal = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key[:FIELD_NAME_SHOWN]).lower().replace("-", "_").strip()
    normal = re.sub(r"[\s_]+", "_", normal)
    if normal in names:
        return normal
    if OTHER_CHUNKERS_NAMES.get(normal) in names:
        return OTHER_CHUNKERS_NAMES[normal]
    close = difflib.get_close_matches(normal, names, n=1, cutoff=CLOSE_ENOUGH)
    return close[0] if close else None
