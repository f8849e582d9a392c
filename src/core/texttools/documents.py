"""API.md's document flows as pure functions: a document's bytes and metadata in, its output
object's key and bytes out. The S3 handlers only move bytes; every rule of the layout lives here.

Two output formats (the template's ``ChunksFormat``): ``json``, one object holding the tool's whole
output (the tool's limits apply), and ``jsonl``, JSON Lines written as the text is read in pieces,
for documents of any size (API.md, "Documents of any size").
"""

import io
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Final

import orjson

from .codec import BOM, encode_json
from .errors import InputTooLarge, InvalidInput, ToolError
from .registry import TOOL_IDS, tool, tools
from .streaming import decode_pieces
from .tool import Params, Tool

INCOMING, CHUNKS, ERRORS = "incoming/", "chunks/", "errors/"
JSON, JSONL = "json", "jsonl"
CHUNKS_FORMATS: Final = (JSON, JSONL)
BOM_BYTES = len(BOM.encode())
LARGEST_TEXT_BYTES = max(each.byte_limits["text"] for each in tools().values())
_line = partial(orjson.dumps, option=orjson.OPT_APPEND_NEWLINE)
METADATA_FORMS: Final = {
    str: 'a JSON string literal, such as "\\n\\n" with its quotes',
    int: "a JSON integer, such as 10",
}
"""How a metadata value of each kind of field is written (S3 user metadata is ASCII text)."""


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


def is_document_key(key: str) -> bool:
    """Objects under ``incoming/`` are documents; a folder placeholder (``…/``) is not."""
    return key.startswith(INCOMING) and not key.endswith("/")


def output_key(source_key: str, failed: bool, chunks_format: str = JSON) -> str:
    """``chunks/<name>.json`` (``.jsonl`` in that format) or ``errors/<name>.json``."""
    extension = ".jsonl" if chunks_format == JSONL and not failed else ".json"
    return f"{ERRORS if failed else CHUNKS}{source_key.removeprefix(INCOMING)}{extension}"


def error_output(source: Source, error: ToolError) -> Output:
    """``errors/<name>.json``: the source and the error's code and message (never its details)."""
    failure = {"source": asdict(source), "error": {"code": error.code, "message": error.message}}
    return Output(output_key(source.key, failed=True), encode_json(failure), error.code)


def refused_unread(source: Source, chunks_format: str, max_document_bytes: int) -> Output | None:
    """The error object of a document too large to chunk, known from its size alone (so it is
    never downloaded); ``None`` when it is to be read. In ``json`` no tool accepts more than its
    text limit (after a BOM); in ``jsonl`` the deployment's ``MaxDocumentBytes`` (a BOM included)."""
    if chunks_format == JSON and source.size > LARGEST_TEXT_BYTES + BOM_BYTES:
        return error_output(source, InputTooLarge(f"The document is larger than {LARGEST_TEXT_BYTES} bytes."))
    if chunks_format == JSONL and source.size > max_document_bytes:
        return error_output(source, InputTooLarge(f"The document is larger than {max_document_bytes} bytes."))
    return None


def chunk_document(source: Source, content: bytes, metadata: Mapping[str, str]) -> Output:
    """The ``json`` output object for one document: ``chunks/<name>.json`` or ``errors/<name>.json``.

    ``metadata`` is the object's user metadata over the deployment's defaults. The bytes depend
    only on these arguments, so a retried event writes the same object again.
    """
    try:
        chosen, parameters = tool_and_parameters(metadata)
        params = chosen.parse({"text": decode_document(content), **parameters})
        result = chosen.encode(chosen.run(params))
    except ToolError as error:
        return error_output(source, error)
    document = {**head(source, chosen, parameters), "result": orjson.Fragment(result)}
    return Output(output_key(source.key, failed=False), encode_json(document), "ok")


def document_lines(source: Source, pieces: Iterable[bytes], metadata: Mapping[str, str]) -> Iterator[bytes]:
    """The lines of the ``jsonl`` output object ``chunks/<name>.jsonl``, made as ``pieces`` (the
    document's bytes, cut anywhere) are read.

    Raises a ``ToolError`` wherever the document fails (its metadata before any line, invalid UTF-8
    or an unclosed start marker as far into it as that is found): then the document's result is
    ``error_output`` and nothing of these lines may be kept. A tool with no streaming form parses
    the document whole, within its limits; every other limit on the text's size and the number of
    chunks is lifted. Lines are compact JSON, non-ASCII characters as themselves, each ending in LF.
    """
    chosen, parameters = tool_and_parameters(metadata)
    params = chosen.parse_parameters(parameters)
    yield encode_json(head(source, chosen, parameters)) + b"\n"
    texts = decode_pieces(pieces)
    if chosen.stream is None:
        yield from whole_document_lines(chosen, source, texts, parameters)
        return
    stream = chosen.stream(texts, params)
    for batch in stream.batches():
        if batch:
            yield encode_lines(batch)
    yield encode_json(stream.summary) + b"\n"


def whole_document_lines(chosen: Tool, source: Source, texts: Iterable[str], parameters: Params) -> Iterator[bytes]:
    """A tool without a streaming form: its output object cut into API.md's lines (the items of its
    one list, then its other fields), refused by size before the body is read when it is larger
    than the tool's text limit."""
    limit = chosen.byte_limits["text"]
    if source.size > limit + BOM_BYTES:
        raise InputTooLarge(f"The document is larger than {limit} bytes.")
    items, rest = run_whole(chosen, "".join(texts), parameters)
    if items:
        yield encode_lines(items)
    yield encode_json(rest) + b"\n"


def run_whole(chosen: Tool, text: str, parameters: Params) -> tuple[list[Any], dict[str, Any]]:
    """A tool without a streaming form on a whole text, within every limit of its descriptor (the
    text's size, the number of chunks, the output's size: API.md), as ``output_lines`` gives it."""
    output = chosen.run(chosen.parse({"text": text, **parameters}))
    chosen.encode(output)
    return output_lines(output)


def encode_lines(items: Iterable[Any]) -> bytes:
    """One JSON line per item, each ending in LF. Written through a buffer, so that each line's
    bytes are freed as soon as they are copied: a list of 100 000 small ``bytes`` made first (as
    ``b"\\n".join`` does) took twelve times as long (benchmarks/README.md)."""
    buffer = io.BytesIO()
    buffer.writelines(map(_line, items))
    return buffer.getvalue()


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
    kinds = {field.name: field.kind for field in chosen.fields}
    for name, field in chosen.metadata_keys.items():
        if name in metadata:
            try:
                parameters[field] = orjson.loads(metadata[name])
            except orjson.JSONDecodeError:
                raise InvalidInput(f"The {name} metadata must be {METADATA_FORMS[kinds[field]]}.") from None
    return chosen, parameters
