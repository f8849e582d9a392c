"""API.md's "Amazon Bedrock Knowledge Bases: custom chunking" as pure functions and typed models.

Bedrock calls a custom transformation function at the ``POST_CHUNKING`` step of a data source whose
chunking strategy is ``NONE``: its event names content batch files in an intermediate bucket, each
``{"fileContents": [{"contentBody", "contentType", "contentMetadata"}]}``, and the function answers
with new batch files of the same shape. The models below are Bedrock's event, files and answer
(field names as Bedrock writes them, ``s3_location`` among them); ``chunk_contents`` makes a file's
output items from its input items. The handler only reads and writes the files.
"""

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from . import documents
from .codec import BOM, encode_json
from .errors import ToolError
from .tool import Params, Tool

MAX_ITEMS_PER_BATCH = 1000
"""The most chunks in one output batch file."""
MAX_BYTES_PER_BATCH = 5 << 20
"""The most bytes of JSON in one output batch file (a batch ends with the item that reaches it)."""


class _Bedrock(BaseModel):
    """Bedrock's own shapes: extra fields it may add are kept and written back as they came."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class S3Location(_Bedrock):
    uri: str


class FileLocation(_Bedrock):
    """Where the ingested document is: echoed back to Bedrock exactly as it came."""

    type: str = "S3"
    s3_location: S3Location | None = None

    @property
    def uri(self) -> str:
        """The document's URI, or (a location of another kind) the location as compact JSON."""
        if self.s3_location is not None:
            return self.s3_location.uri
        return self.model_dump_json(exclude_unset=True)


class ContentBatch(_Bedrock):
    key: str


class InputFile(_Bedrock):
    originalFileLocation: FileLocation
    fileMetadata: dict[str, Any] | None = None
    contentBatches: list[ContentBatch] = Field(default_factory=list)

    def answered(self, batches: list[ContentBatch]) -> "OutputFile":
        """This file's output file: its location and metadata echoed as given (``fileMetadata``
        omitted when the input has none), and the chunks' batches."""
        echoed = self.model_dump(include={"originalFileLocation", "fileMetadata"}, exclude_unset=True)
        return OutputFile.model_validate({**echoed, "contentBatches": batches})


class TransformationEvent(_Bedrock):
    """What Bedrock invokes the function with. The ids it sends but this function does not use
    are optional, so that an event without one is still chunked."""

    version: str | None = None
    knowledgeBaseId: str | None = None
    dataSourceId: str | None = None
    ingestionJobId: str
    bucketName: str
    priorTask: str | None = None
    inputFiles: list[InputFile]


class Content(_Bedrock):
    contentBody: str
    contentType: str = "TEXT"
    contentMetadata: dict[str, Any] | None = None


class ContentFile(_Bedrock):
    """A content batch file, in and out."""

    fileContents: list[Content]


class OutputFile(_Bedrock):
    originalFileLocation: FileLocation
    fileMetadata: dict[str, Any] | None = None
    contentBatches: list[ContentBatch]


class TransformationResult(_Bedrock):
    """What the function answers Bedrock: one output file per input file, in order."""

    outputFiles: list[OutputFile]

    def answer(self) -> dict[str, Any]:
        """The JSON Bedrock reads, with only the fields that were set (nothing made up as null)."""
        return self.model_dump(mode="json", exclude_unset=True)


class FileFailed(Exception):
    """A file whose content cannot be chunked: the invocation fails and names it, so that the
    ingestion job reports it (API.md)."""

    def __init__(self, location: FileLocation, error: ToolError) -> None:
        super().__init__(f"{location.uri}: {error.code}: {error.message}")
        self.error = error


def tool_and_parameters(file_metadata: Mapping[str, Any] | None, defaults: documents.Defaults) -> tuple[Tool, Params]:
    """The tool and its validated parameters from the file's metadata over the function's defaults,
    by the S3 flow's rule (``documents.tool_and_parameters``), its values JSON strings or integers
    as they are, since this metadata is JSON already; the streaming forms' bounds (API.md)."""
    given = file_metadata or {}
    choice = {"tool": str(given["tool"])} if "tool" in given else {}
    chosen, _, params = documents.tool_and_parameters({**given, **choice}, defaults, literals=False, lifted=True)
    return chosen, params


class OutputContent(TypedDict):
    """An item of an output batch file (``Content``'s shape, made without a model: there may be
    millions)."""

    contentBody: str
    contentType: str
    contentMetadata: dict[str, Any]


SPAN = ("index", "start", "end", "start_line", "end_line", "tokens")
"""The fields of a chunk that its metadata carries, as ``chunk_<field>``, where the chunk has them (a
match has an index only; a size tool's chunk has tokens only with ``max_tokens``)."""
PATH_SEPARATOR = " > "
MAX_PATH_BYTES = 512
"""The most UTF-8 bytes of ``chunk_path`` and of ``chunk_table_header``: vector stores keep little
metadata per vector (S3 Vectors: about 2 KB that filters can use), and Bedrock's own keys take some
of it."""
ELLIPSIS = "\u2026"


def capped(text: str) -> str:
    """``text`` itself within ``MAX_PATH_BYTES`` of UTF-8, else its longest prefix that fits with an
    ellipsis for what was cut, the cut at a character's boundary (API.md's one rule for both
    ``chunk_path`` and ``chunk_table_header``)."""
    encoded = text.encode()
    if len(encoded) <= MAX_PATH_BYTES:
        return text
    room = MAX_PATH_BYTES - len(ELLIPSIS.encode())
    return encoded[:room].decode(errors="ignore") + ELLIPSIS


def joined_path(path: list[str]) -> str:
    """A heading path as one string (``Guide > Install``), capped."""
    return capped(PATH_SEPARATOR.join(path))


def chunk_contents(chosen: Tool, params: Params, contents: Iterable[Content]) -> Iterator[OutputContent]:
    """Each content item's chunks as output items, the item's own ``contentBody`` chunked on its own
    (indexes, offsets and lines start again for each), a leading BOM dropped, whatever its
    ``contentType``. An empty chunk is left out; indexes keep their numbering. Its metadata is the
    item's with the chunk's ``chunk_*`` keys over keys of the same names (a Markdown tool's heading
    path too, as ``chunk_path``, and the header of the table a chunk starts in, as
    ``chunk_table_header``)."""
    for content in contents:
        own = content.contentMetadata or {}
        for chunk in chunks_of(chosen, params, content.contentBody.removeprefix(BOM)):
            if chunk["text"]:
                where = {f"chunk_{name}": chunk[name] for name in SPAN if name in chunk}
                if "path" in chunk:  # a section's headings (those above its own)
                    where["chunk_path"] = joined_path(chunk["path"])
                elif "headings" in chunk:  # a Markdown size chunk's heading path (its section's own last)
                    where["chunk_path"] = joined_path(chunk["headings"])
                if "table_header" in chunk:  # the header and delimiter rows of the table it starts in
                    where["chunk_table_header"] = capped(chunk["table_header"]["text"])
                metadata = {**own, "chunk_tool": chosen.id, **where}
                yield {"contentBody": chunk["text"], "contentType": "TEXT", "contentMetadata": metadata}


def chunks_of(chosen: Tool, params: Params, text: str) -> Iterator[dict[str, Any]]:
    """The tool's chunk objects for the whole of ``text``, with the document flows' limits: its
    streaming form (no limit on the text's size or the number of chunks) or, for a tool that has
    none, its in-memory form within its descriptor's limits."""
    if chosen.stream is not None:
        yield from chosen.stream([text], params)
        return
    items, _ = documents.run_whole(chosen, text, params)
    yield from items


def batch_files(items: Iterable[OutputContent]) -> Iterator[tuple[bytes, int]]:
    """The output batch files' bytes (``{"fileContents": [...]}``) and how many items each holds:
    at most ``MAX_ITEMS_PER_BATCH``, a file ending once it holds ``MAX_BYTES_PER_BATCH`` bytes."""
    batch: list[bytes] = []
    size = 0
    for item in items:
        encoded = encode_json(item)
        batch.append(encoded)
        size += len(encoded) + 1
        if len(batch) == MAX_ITEMS_PER_BATCH or size >= MAX_BYTES_PER_BATCH:
            yield _file(batch), len(batch)
            batch, size = [], 0
    if batch:
        yield _file(batch), len(batch)


def _file(items: list[bytes]) -> bytes:
    return b'{"fileContents":[' + b",".join(items) + b"]}"


def batch_folder(file: InputFile) -> str:
    """The folder of a file's output batches under the function's prefix: a digest of its location
    and its input batches' keys, so that a retried invocation writes the same keys again and two
    invocations of one job never write over each other's."""
    names = [file.originalFileLocation.uri, *(batch.key for batch in file.contentBatches)]
    return hashlib.sha256("\n".join(names).encode()).hexdigest()[:32]
