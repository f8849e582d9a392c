"""API.md's document flows as pure functions: a document's bytes and metadata in, its output
object's key and bytes out. The S3 handlers only move bytes; every rule of the layout lives here.

Two output formats (the template's ``ChunksFormat``): ``json``, one object holding the tool's whole
output (the tool's limits apply), and ``jsonl``, JSON Lines written as the text is read in pieces,
for documents of any size (API.md, "Documents of any size").
"""

import io
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Final

import orjson

from .codec import BOM, encode_json
from .errors import InputTooLarge, InvalidInput, Problem, ToolError
from .fields import InputField, validate
from .registry import TOOL_IDS, tool, tools
from .streaming import decode_pieces, not_utf8
from .tool import Params, Tool

INCOMING, CHUNKS, ERRORS = "incoming/", "chunks/", "errors/"
JSON, JSONL = "json", "jsonl"
CHUNKS_FORMATS: Final = (JSON, JSONL)
BOM_BYTES = len(BOM.encode())
LARGEST_TEXT_BYTES = max(each.byte_limits["text"] for each in tools().values())
_line = partial(orjson.dumps, option=orjson.OPT_APPEND_NEWLINE)
LINES_BYTES = 1 << 20
"""The bytes of JSON Lines after which ``encoded_lines`` hands on what it holds: a few lines of
even long chunks, small beside a window and an upload part (``s3_documents.PART_BYTES``)."""
DEFAULT_PARAMETERS: Final = "DefaultParameters"
"""The template parameter whose JSON object fills what a document's metadata leaves out."""


@dataclass(frozen=True, slots=True)
class Source:
    """Which object (and which version of it) a result was made from."""

    bucket: str
    key: str
    version_id: str | None
    etag: str
    size: int


@dataclass(frozen=True, slots=True)
class Output:
    """The object to write, and the outcome code (``ok`` or the error code) for logs and metrics."""

    key: str
    body: bytes
    code: str


@dataclass(frozen=True, slots=True)
class Defaults:
    """What the deployment gives a document whose metadata leaves a choice out: the template's
    ``DefaultTool`` and ``DefaultParameters`` (a JSON object in the API's own field names), as the
    function's environment holds them."""

    tool: str | None = None
    parameters: str = "{}"
    """The JSON text of ``DefaultParameters``, read per document so that a bad one is the
    document's ``invalid_input`` naming it, not a function that cannot start."""


def is_document_key(key: str) -> bool:
    """Objects under ``incoming/`` are documents; a folder placeholder (``…/``) is not."""
    return key.startswith(INCOMING) and not key.endswith("/")


def output_key(source_key: str, failed: bool, chunks_format: str = JSON) -> str:
    """``chunks/<name>.json`` (``.jsonl`` in that format) or ``errors/<name>.json``."""
    extension = ".jsonl" if chunks_format == JSONL and not failed else ".json"
    return f"{ERRORS if failed else CHUNKS}{source_key.removeprefix(INCOMING)}{extension}"


def output_keys(source_key: str) -> tuple[str, ...]:
    """Every output a document can have: after its chunking, exactly one of them exists (API.md)."""
    return (output_key(source_key, failed=False, chunks_format=JSON),
            output_key(source_key, failed=False, chunks_format=JSONL), output_key(source_key, failed=True))  # fmt: skip


def error_output(source: Source, error: ToolError) -> Output:
    """``errors/<name>.json``: the source and the error's code and message, and its ``details``
    where it has them (the metadata key at fault and what is wrong with it)."""
    reported: dict[str, object] = {"code": error.code, "message": error.message}
    if error.details:
        reported["details"] = error.details
    failure = {"source": asdict(source), "error": reported}
    return Output(output_key(source.key, failed=True), encode_json(failure), error.code)


def oversize(size: int, chunks_format: str, max_document_bytes: int) -> InputTooLarge | None:
    """The refusal of a document too large to chunk, known from its size alone (so it is never
    downloaded); ``None`` when it is to be read. In ``json`` no tool accepts more than its text
    limit (after a BOM); in ``jsonl`` the deployment's ``MaxDocumentBytes`` (a BOM included)."""
    if chunks_format == JSON and size > LARGEST_TEXT_BYTES + BOM_BYTES:
        return InputTooLarge(
            f"The document is larger than {LARGEST_TEXT_BYTES} bytes, the most the json format takes: "
            "deploy with ChunksFormat=jsonl to chunk documents of up to MaxDocumentBytes.",
            [{"field": "text", "problem": f"must be at most {LARGEST_TEXT_BYTES} UTF-8 bytes in the json format"}],
        )
    if chunks_format == JSONL and size > max_document_bytes:
        return InputTooLarge(
            f"The document is larger than {max_document_bytes} bytes, this deployment's MaxDocumentBytes.",
            [{"field": "text", "problem": f"must be at most {max_document_bytes} bytes (MaxDocumentBytes)"}],
        )
    return None


def chunk_document(source: Source, content: bytes, metadata: Mapping[str, str], defaults: Defaults) -> Output:
    """The ``json`` output object for one document: ``chunks/<name>.json`` or ``errors/<name>.json``.

    ``metadata`` is the object's user metadata (``tool_and_parameters``). The bytes depend only on
    these arguments, so a retried event writes the same object again.
    """
    try:
        chosen, parameters, _ = tool_and_parameters(metadata, defaults, literals=True, lifted=False)
        params = chosen.parse({"text": decode_document(content), **parameters})
        result = chosen.encode(chosen.run(params))
    except ToolError as error:
        return error_output(source, error)
    document = {**head(source, chosen, parameters), "result": orjson.Fragment(result)}
    return Output(output_key(source.key, failed=False), encode_json(document), "ok")


def document_lines(
    source: Source, pieces: Iterable[bytes], metadata: Mapping[str, str], defaults: Defaults
) -> Iterator[bytes]:
    """The lines of the ``jsonl`` output object ``chunks/<name>.jsonl``, made as ``pieces`` (the
    document's bytes, cut anywhere) are read.

    Raises a ``ToolError`` wherever the document fails (its metadata before any line, invalid UTF-8
    or an unclosed start marker as far into it as that is found): then the document's result is
    ``error_output`` and nothing of these lines may be kept. A tool with no streaming form parses
    the document whole, within its limits; every other limit on the text's size and the number of
    chunks is lifted. Lines are compact JSON, non-ASCII characters as themselves, each ending in LF.
    """
    chosen, parameters, params = tool_and_parameters(metadata, defaults, literals=True, lifted=True)
    yield encode_json(head(source, chosen, parameters)) + b"\n"
    texts = decode_pieces(pieces)
    if chosen.stream is None:
        yield from whole_document_lines(chosen, source, texts, params)
        return
    stream = chosen.stream(texts, params)
    for batch in stream.batches():
        yield from encoded_lines(batch)
    yield encode_json(stream.summary) + b"\n"


def whole_document_lines(chosen: Tool, source: Source, texts: Iterable[str], params: Params) -> Iterator[bytes]:
    """A tool without a streaming form: its output object cut into API.md's lines (the items of its
    one list, then its other fields), refused by size before the body is read when it is larger
    than the tool's text limit."""
    limit = chosen.byte_limits["text"]
    if source.size > limit + BOM_BYTES:
        raise InputTooLarge(
            f"The document is larger than {limit} bytes, the most {chosen.descriptor.id} parses whole.",
            [{"field": "text", "problem": f"must be at most {limit} UTF-8 bytes for {chosen.descriptor.id}"}],
        )
    items, rest = run_whole(chosen, "".join(texts), params)
    yield from encoded_lines(items)
    yield encode_json(rest) + b"\n"


def run_whole(chosen: Tool, text: str, params: Params) -> tuple[list[Any], dict[str, Any]]:
    """A tool without a streaming form on a whole text, within every limit of its descriptor (the
    text's size, the number of chunks, the output's size: API.md), as ``output_lines`` gives it.
    ``params`` are validated already, defaults filled in (``tool_and_parameters``,
    ``Tool.parse_parameters``): only the text is checked here."""
    text_field = tuple(field for field in chosen.fields if field.name == "text")
    output = chosen.run({**params, **validate(text_field, {"text": text})})
    chosen.encode(output)
    return output_lines(output)


def encoded_lines(items: Iterable[Any]) -> Iterator[bytes]:
    """One JSON line per item, each ending in LF, handed on in groups of lines that reach
    ``LINES_BYTES`` (the last group shorter): what is held is bounded in bytes, not in lines, since
    one window's chunks may each carry a long heading path (a setext heading over a paragraph of
    converted text: issue 60). Written through a buffer, so that each line's bytes are freed as soon
    as they are copied: a list of 100 000 small ``bytes`` made first (as ``b"\\n".join`` does) took
    twelve times as long (benchmarks/README.md)."""
    buffer = io.BytesIO()
    for line in map(_line, items):
        buffer.write(line)
        if buffer.tell() >= LINES_BYTES:
            yield buffer.getvalue()
            buffer = io.BytesIO()
    if buffer.tell():
        yield buffer.getvalue()


def output_lines(output: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """A tool's output object as API.md's JSON Lines hold it: the objects of its one list, and its
    other fields."""
    key = next(name for name, value in output.items() if isinstance(value, list))
    return output[key], {name: value for name, value in output.items() if name != key}


def head(source: Source, chosen: Tool, parameters: Params) -> dict[str, Any]:
    """What a success object says before the result: the source, the tool, and the parameters that
    were given (from metadata or the defaults), without the text."""
    return {"source": asdict(source), "tool": {"id": chosen.id, "version": chosen.version}, "parameters": parameters}


def decode_document(content: bytes) -> str:
    try:
        return content.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as error:
        raise not_utf8(error.start) from None


def tool_and_parameters(
    metadata: Mapping[str, object], defaults: Defaults, *, literals: bool, lifted: bool
) -> tuple[Tool, Params, Params]:
    """The tool, its parameters as given (the success object's ``parameters``) and as validated.

    ``metadata`` is the document's own, keys lower-cased: ``tool`` and the tool's input fields but
    ``text``, hyphenated. Its values are JSON literals in strings where ``literals`` (S3 user
    metadata is ASCII text), JSON values as they are otherwise (a Knowledge Base ``.metadata.json``).
    ``DefaultParameters`` gives each field the metadata does not; keys of neither that are not the
    chosen tool's fields are the user's own and ignored. ``lifted``: the bounds of the document
    flows' streaming forms (``Tool.document_fields``). Every refusal is ``invalid_input`` (or
    ``input_too_large`` for a parameter over its byte limit) whose ``details`` name the metadata
    key at fault, or ``DefaultParameters`` (API.md, "S3 document chunking").
    """
    chosen = chosen_tool(metadata.get("tool", defaults.tool))
    keys = chosen.metadata_keys
    for key, name in keys.items():
        if name != key and name in metadata:
            raise metadata_error(InvalidInput, name, f"is spelled {key} in metadata")
    given = {name: value for name, value in default_parameters(defaults.parameters).items() if name in keys.values()}
    origin = dict.fromkeys(given, DEFAULT_PARAMETERS)
    fields_by_name = {field.name: field for field in chosen.fields}
    for key, name in keys.items():
        if key in metadata:
            value = metadata[key]
            if literals and isinstance(value, str):
                given[name] = literal(key, value, fields_by_name[name], chosen.descriptor.example_value(name))
            else:
                given[name] = value
            origin[name] = key
    fields = chosen.document_fields if lifted else tuple(field for field in chosen.fields if field.name != "text")
    try:
        params = chosen.checked(validate(fields, given))
    except ToolError as error:
        faults = [at_fault(problem, origin.get(problem["field"]), keys) for problem in error.details]
        raise settings_error(type(error), faults) from None
    return chosen, given, params


def at_fault(problem: Problem, origin: str | None, keys: Mapping[str, str]) -> Problem:
    """A field's problem as the metadata key (or ``DefaultParameters``) that gave the field; in
    metadata, the fields its problem names (``give max_chars, max_tokens or both``) are named by
    their metadata keys (``keys``: key to field) too, as the user writes them there."""
    name = problem["field"]
    if origin == DEFAULT_PARAMETERS:
        return {"field": DEFAULT_PARAMETERS, "problem": f"{name} {problem['problem']}"}
    spelled = {field: key for key, field in keys.items() if key != field}
    told = re.sub(r"\b[a-z]+(?:_[a-z]+)+\b", lambda named: spelled.get(named[0], named[0]), problem["problem"])
    return {"field": origin or name.replace("_", "-"), "problem": told}


def chosen_tool(tool_id: object) -> Tool:
    if tool_id not in TOOL_IDS:
        raise metadata_error(InvalidInput, "tool", f"must be one of {', '.join(TOOL_IDS)}")
    return tool(str(tool_id))


def default_parameters(text: str) -> dict[str, object]:
    try:
        parameters = orjson.loads(text)
    except orjson.JSONDecodeError:
        parameters = None
    if not isinstance(parameters, dict):
        raise metadata_error(
            InvalidInput, DEFAULT_PARAMETERS, "must be a JSON object of the API's field names and values"
        )
    return parameters


def literal(key: str, value: str, field: InputField, example: object) -> object:
    """A metadata value as the JSON literal it must be; a field that takes only names (an enum or a
    pattern such as ``tokenizer``'s) also takes a name bare, which no JSON literal can be mistaken for."""
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        if field.kind is str and (field.choices is not None or field.pattern is not None):
            return value
        form = (
            f"a JSON integer, such as {example}"
            if field.kind is int
            else (f"a JSON string literal, such as {orjson.dumps(example).decode()} with its quotes")
        )
        raise metadata_error(InvalidInput, key, f"must be {form}") from None


def metadata_error(kind: type[ToolError], key: str, problem: str) -> ToolError:
    return settings_error(kind, [{"field": key, "problem": problem}])


def settings_error(kind: type[ToolError], faults: list[Problem]) -> ToolError:
    """A refusal of a document's settings: every fault in ``details``, the first in the message,
    naming the metadata key (or the deployment's setting) at fault."""
    first = faults[0]
    where = "setting" if first["field"] == DEFAULT_PARAMETERS else "metadata"
    return kind(f"The {first['field']} {where} {first['problem']}.", faults)
