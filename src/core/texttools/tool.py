"""What a tool is to the rest of the code, and the one pipeline every caller runs: measure, parse,
validate, run, encode. Each tool's module (``texttools.tools.<id>``) makes one ``Tool``."""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .codec import NotJSON, decode_json, encode_json
from .descriptor import Descriptor
from .errors import InputTooLarge, InvalidInput, OutputTooLarge, Problem, ToolError, TooManyChunks
from .fields import InputField, first_problem, validate
from .streaming import Stream

Params = dict[str, Any]
JSON_ESCAPE_GROWTH: Final = 6
"""The most bytes JSON can spend on one UTF-8 byte of a string (``\\u0001`` for ``\\x01``)."""
BODY_SLACK_BYTES: Final = 64 * 1024
"""Room in a request body for keys, numbers and insignificant whitespace around the strings."""
ANY_SIZE: Final = "The S3 document flow (ChunksFormat jsonl) chunks documents of any size."


def no_rules(_: "Params") -> list[Problem]:
    return []


def input_object(descriptor: Descriptor) -> str:
    """``this tool's input object, a JSON object with the required fields text and delimiter, such
    as {"text":"1,2,,3,","delimiter":","}``: the shortest of the descriptor's example inputs (an
    ASCII one if any)."""
    *names, last = descriptor.input_schema["required"]
    required = f"fields {', '.join(names)} and {last}" if names else f"field {last}"
    examples = (encode_json(example["input"]).decode() for example in descriptor.data["examples"])
    shortest = min(examples, key=lambda example: (not example.isascii(), len(example)))  # one a terminal shows
    return f"this tool's input object, a JSON object with the required {required}, such as {shortest}"


@dataclass(frozen=True, slots=True)
class Tool:
    """One published tool: its descriptor, its input fields, its algorithm and its own errors."""

    descriptor: Descriptor
    fields: tuple[InputField, ...]
    run: Callable[[Params], Mapping[str, Any]]
    """The algorithm on validated input, returning the output object."""
    errors: tuple[type[ToolError], ...]
    """What the tool itself can fail with, beyond invalid or too large input (for the API docs)."""
    error_examples: Callable[[], Mapping[type[ToolError], Params]]
    """An input that fails with each of ``errors`` (sample events, docs), made only when asked."""
    stream: Callable[[Iterable[str], Params], Stream] | None = None
    """The algorithm on a text given in pieces (``Params`` without ``text``), with the limits on the
    text's size and on the number of chunks lifted, as the document flows run it (API.md,
    "Documents of any size"); ``None``: the tool parses a document whole, within its limits."""
    run_lifted: Callable[[Params], Mapping[str, Any]] | None = None
    """``run`` with the same limits lifted, on a text held whole: ``stream``'s in-memory twin."""
    document_maxima: Mapping[str, int] = field(default_factory=dict)
    """The bounds of the integer parameters that the document flows lift, by field name."""
    rules: Callable[[Params], list[Problem]] = no_rules
    """What the input schema cannot say (how fields relate), checked after it: each problem names
    the field at fault."""
    max_body_bytes: int = field(init=False)
    """The largest body a valid request can need: anything larger is refused before parsing, as even
    with every byte escaped as ``\\u00XX`` no valid request reaches it."""
    document_fields: tuple[InputField, ...] = field(init=False)
    """The parameters (every field but ``text``) as the document flows validate them."""
    input_object: str = field(init=False)
    """What a request body must be, in words and by the descriptor's shortest example: told to a
    caller whose body is not JSON or not an object."""

    def __post_init__(self) -> None:  # a frozen dataclass's derived fields are set this way
        largest = JSON_ESCAPE_GROWTH * sum(self.byte_limits.values()) + BODY_SLACK_BYTES
        object.__setattr__(self, "max_body_bytes", largest)
        parameters = (
            each.with_maximum(self.document_maxima[each.name]) if each.name in self.document_maxima else each
            for each in self.fields
            if each.name != "text"
        )
        object.__setattr__(self, "document_fields", tuple(parameters))
        object.__setattr__(self, "input_object", input_object(self.descriptor))

    @property
    def id(self) -> str:
        return self.descriptor.id

    @property
    def version(self) -> str:
        return self.descriptor.version

    @property
    def execute_url(self) -> str:
        return self.descriptor.execute_url

    @property
    def limits(self) -> Mapping[str, int]:
        return self.descriptor.limits

    @property
    def max_output_bytes(self) -> int | None:
        return self.descriptor.limits.get("max_output_bytes")

    @property
    def byte_limits(self) -> Mapping[str, int]:
        return {field.name: field.max_bytes for field in self.fields if field.max_bytes is not None}

    @property
    def metadata_keys(self) -> Mapping[str, str]:
        """S3 user metadata key of each parameter (every field but ``text``): its name with hyphens,
        since S3 metadata keys are conventionally hyphenated (API.md)."""
        return {field.name.replace("_", "-"): field.name for field in self.fields if field.name != "text"}

    def parse(self, data: object, called: str = "The request body") -> Params:
        """Validate decoded JSON (or the S3 flow's parameters) into the tool's input; ``called``:
        what the caller sent it as, named when it is not an object (MCP's ``arguments``)."""
        if not isinstance(data, dict):
            raise InvalidInput(f"{called} must be {self.input_object}.")
        return self.checked(validate(self.fields, data))

    def parse_parameters(self, data: Mapping[str, object]) -> Params:
        """Validate a document's parameters (no ``text``) as the document flows take them."""
        return self.checked(validate(self.document_fields, dict(data)))

    def checked(self, params: Params) -> Params:
        """``params`` (valid for the schema) if they keep the tool's ``rules``, else ``InvalidInput``."""
        if problems := self.rules(params):
            raise InvalidInput(first_problem("The request's fields do not fit together", problems), problems)
        return params

    def encode(self, result: Mapping[str, Any]) -> bytes:
        """The response bytes; ``max_output_bytes`` is measured on exactly these."""
        body = encode_json(result)
        limit = self.max_output_bytes
        if limit is not None and len(body) > limit:
            raise OutputTooLarge(f"The result would be larger than {limit} bytes.")
        return body

    def pointing_to_documents(self, error: ToolError) -> ToolError:
        """A refusal of one request for its text's size (too large, too many chunks, too large a
        result) with one more sentence saying where texts of any size go, when this tool has a
        streaming form (a tool without one keeps its limits in the document flows too: API.md).
        A parameter over its own limit (a delimiter) is left as it is."""
        if self.stream is None or not isinstance(error, (InputTooLarge, TooManyChunks, OutputTooLarge)):
            return error
        if error.details and error.details[0]["field"] != "text":
            return error
        return type(error)(f"{error.message} {ANY_SIZE}", error.details)

    def execute(self, body: str | bytes) -> bytes:
        """Answer one JSON request body with the JSON output body, or raise a ``ToolError``.

        The size check comes first, so a body no valid request could need is never parsed. A
        ``str`` body is measured in code points: never more than its UTF-8 bytes, so nothing valid
        is refused, and anything larger than the limit in bytes but not in code points is bounded
        (at most four times the limit) and still refused by the field limits after parsing.
        """
        if len(body) > self.max_body_bytes:
            raise InputTooLarge("The request body is larger than any valid request for this tool.")
        try:
            data = decode_json(body)
        except NotJSON as error:
            raise InvalidInput(f"{error.message.removesuffix('.')}: it must be {self.input_object}.") from None
        return self.encode(self.run(self.parse(data)))
