"""The sample events under ``events/<FunctionLogicalId>/``: for each tool's API function a success per
descriptor example and one event per error class; discovery's routes; an MCP session and the
protocol's refusals; for the document chunker an S3 put (a key with
spaces and non-ASCII), a multi-record event and an object over every size limit; a backfill batch;
Bedrock Knowledge Base events. ``python -m scripts.sample_events`` writes them; a test fails when
the committed files differ from what this module makes, and invokes each to check its outcome.
"""

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scripts.lambda_events import api_event, backfill_batch, s3_event
from scripts.template import ROOT, documents_bucket, function_serving, functions, load_template, parameter_defaults
from texttools.errors import InvalidInput, UnclosedStartMarker
from texttools.knowledge_base import InputFile, batch_folder
from texttools.registry import tools
from texttools.tool import Tool

EVENTS = ROOT / "events"
_TEMPLATE = load_template()
FUNCTION_OF = {tool.id: function_serving(tool.execute_url, _TEMPLATE).logical_id for tool in tools().values()}
"""Each tool's API function (logical id), as the template routes it."""
JSON_HEADERS = {"Content-Type": "application/json"}


CHUNK_FUNCTION = "ChunkDocumentFunction"
BACKFILL_FUNCTION = "BackfillFunction"
SAMPLE_BUCKET = documents_bucket(_TEMPLATE)
"""The bucket ``make serve`` creates, so that ``make invoke`` can run these events against it."""
SAMPLE_DOCUMENTS = {
    "incoming/meeting notes/café menu.md": "# Café\r\n\r\nCroissant, 2 €\r\nEspresso ☕\r\n\r\nOpen daily.\n".encode(),
    "incoming/report.txt": b"Summary\n\nDetails line 1\nDetails line 2\n",
    "incoming/not-utf8.txt": b"caf\xe9",
    "incoming/a+b 100% ünïcode.txt": b"one\n\ntwo",
    "incoming/folder/": b"",
    "elsewhere/outside.txt": b"not a document",
    "incoming/huge.txt": b"Stands in for a document over every size limit: its event and listing say so.\n",
}
OVERSIZE_KEY = "incoming/huge.txt"
"""Its event and listing give a size over every limit, so it is refused from that size, unread."""


@dataclass(frozen=True)
class Sample:
    """One sample event and its expected outcome.

    API samples expect a status and code. S3 samples expect, per output key, the outcome code,
    given that ``documents`` were uploaded first (their sizes and ETags are in the event).
    """

    function: str
    case: str
    event: dict[str, Any]
    status: int = 200
    code: str = "ok"
    documents: dict[str, bytes] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)

    @property
    def path(self) -> str:
        return f"events/{self.function}/{self.case}.json"


def _event(
    tool: Tool, case: str, body: str, headers: dict[str, str] | None = None, method: str = "POST"
) -> dict[str, Any]:
    return api_event(
        method,
        tool.execute_url,
        body,
        JSON_HEADERS if headers is None else headers,
        request_id=f"sample-{case}",
        now=1_767_225_600.0,
    )


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def samples() -> list[Sample]:
    """Every API function's samples: each tool's, then discovery's and MCP's."""
    found: list[Sample] = []
    for tool in tools().values():
        found += tool_samples(tool)
    return found + discovery_samples() + mcp_samples()


DISCOVERY_FUNCTION = "DiscoveryFunction"
MCP_FUNCTION = "McpFunction"


def _request(
    method: str, path: str, case: str, body: str | None = None, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    return api_event(method, path, body, headers, request_id=f"sample-{case}", now=1_767_225_600.0)


def discovery_samples() -> list[Sample]:
    """The tool list, a descriptor, the tokenizers, health, the OpenAPI document, the playground, an
    unknown version, a POST."""
    first = next(iter(tools().values()))
    cases = [
        ("tools", "GET", "/v1/tools", 200, "ok"),
        ("descriptor", "GET", f"/v1/tools/{first.id}/versions/{first.version}", 200, "ok"),
        ("tokenizers", "GET", "/v1/tokenizers", 200, "ok"),
        ("health", "GET", "/v1/health", 200, "ok"),
        ("openapi", "GET", "/openapi.json", 200, "ok"),
        ("playground", "GET", "/v1/playground", 200, "ok"),
        ("unknown-version", "GET", f"/v1/tools/{first.id}/versions/0.0.0", 404, "not_found"),
        ("method-not-allowed", "POST", "/v1/tools", 405, "method_not_allowed"),
    ]
    return [
        Sample(DISCOVERY_FUNCTION, case, _request(method, path, case), status, code)
        for case, method, path, status, code in cases
    ]


def mcp_samples() -> list[Sample]:
    """An MCP session as a client runs it (initialize, initialized, tools/list, a call of each tool's
    first descriptor example, a call the tool refuses), and the protocol's refusals."""
    first = next(iter(tools().values()))

    def rpc(case: str, method: str, params: dict[str, Any] | None = None, status: int = 200, code: str = "ok",
            version: str | None = None) -> Sample:  # fmt: skip
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": case, "method": method}
        if params is not None:
            message["params"] = params
        headers = JSON_HEADERS | ({"MCP-Protocol-Version": version} if version else {})
        return Sample(MCP_FUNCTION, case, _request("POST", "/mcp", case, _json(message), headers), status, code)

    def raw(case: str, body: str, status: int, code: str = "ok", method: str = "POST") -> Sample:
        return Sample(MCP_FUNCTION, case, _request(method, "/mcp", case, body or None, JSON_HEADERS), status, code)

    client = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "sample", "version": "1"}}
    found = [
        rpc("initialize", "initialize", client),
        raw("initialized", _json({"jsonrpc": "2.0", "method": "notifications/initialized"}), 202),
        rpc("tools-list", "tools/list", {}, version="2025-11-25"),
    ]
    for tool in tools().values():
        arguments = tool.descriptor.data["examples"][0]["input"]
        found.append(rpc(f"call-{tool.id}", "tools/call", {"name": tool.id, "arguments": arguments}))
    found += [
        rpc("call-refused-by-the-tool", "tools/call", {"name": first.id, "arguments": {}}),  # isError: invalid_input
        rpc("unknown-tool", "tools/call", {"name": "no-such-tool", "arguments": {}}, code="-32602"),
        rpc("unknown-method", "resources/list", code="-32601"),
        rpc("unsupported-protocol-version", "ping", status=400, code="-32600", version="2024-01-01"),
        raw("parse-error", "{", 400, "-32700"),
        raw("method-not-allowed", "", 405, "method_not_allowed", method="GET"),
    ]
    return found


def tool_samples(tool: Tool) -> list[Sample]:
    """A success per descriptor example, the errors every route can answer, and each of the tool's
    own errors from the input its module gives for it."""
    function = FUNCTION_OF[tool.id]
    seed = tool.descriptor.data
    required = dict.fromkeys(seed["input_schema"]["required"], "x")
    found = [
        Sample(
            function, f"success-example-{number}", _event(tool, f"success-example-{number}", _json(example["input"]))
        )
        for number, example in enumerate(seed["examples"], start=1)
    ]
    cases = [
        ("invalid-json", '{"text": "a", ', 400, "invalid_input"),
        ("schema-violation", _json({**required, "unknown_field": 1}), 400, "invalid_input"),
        (
            "lone-surrogate",
            '{"text": "\\ud800"' + "".join(f', "{k}": "x"' for k in required if k != "text") + "}",
            400,
            "invalid_input",
        ),
    ]
    found += [Sample(function, case, _event(tool, case, body), status, code) for case, body, status, code in cases]
    found.append(
        Sample(
            function,
            "unsupported-media-type",
            _event(tool, "unsupported-media-type", _json(required), {"Content-Type": "text/plain"}),
            415,
            "unsupported_media_type",
        )
    )
    found.append(
        Sample(
            function,
            "method-not-allowed",
            _event(tool, "method-not-allowed", "", method="GET"),
            405,
            "method_not_allowed",
        )
    )
    oversize = oversize_input(tool)
    found.append(Sample(function, "oversize", _event(tool, "oversize", _json(oversize)), 413, "input_too_large"))
    for error, example in tool.error_examples().items():
        case = error.code.replace("_", "-")
        found.append(Sample(function, case, _event(tool, case, _json(example)), error.status, error.code))
    return found


def oversize_input(tool: Tool) -> dict[str, Any]:
    """The tool's first descriptor example with its string of the smallest byte limit one byte over
    that limit: an input refused as ``input_too_large`` (the sample events and the OpenAPI document)."""
    field, limit = min(tool.byte_limits.items(), key=lambda item: item[1])
    return {**tool.descriptor.data["examples"][0]["input"], field: "x" * (limit + 1)}


def _s3_sample(case: str, keys: list[str], outputs: dict[str, str]) -> Sample:
    documents = {key: SAMPLE_DOCUMENTS[key] for key in keys}
    objects: list[tuple[str, int, str, str | None]] = [
        (key, listed_size(key), etag(body), None) for key, body in documents.items()
    ]
    return Sample(CHUNK_FUNCTION, case, s3_event(SAMPLE_BUCKET, objects), documents=documents, outputs=outputs)


def s3_samples() -> list[Sample]:
    return [
        _s3_sample("put", ["incoming/meeting notes/café menu.md"], {"chunks/meeting notes/café menu.md.json": "ok"}),
        _s3_sample(
            "multi-record",
            ["incoming/report.txt", "incoming/not-utf8.txt"],
            {"chunks/report.txt.json": "ok", "errors/not-utf8.txt.json": "invalid_input"},
        ),
        _s3_sample("oversize", [OVERSIZE_KEY], {"errors/huge.txt.json": "input_too_large"}),
    ]


def etag(body: bytes) -> str:
    return hashlib.md5(body).hexdigest()  # noqa: S324 (S3's ETag of a single-part upload is its MD5)


def listed_size(key: str) -> int:
    """A sample document's size as its event or listing gives it: the stand-in for an oversize one
    is larger than any tool takes (json) and than MaxDocumentBytes (jsonl), so refused in both."""
    if key == OVERSIZE_KEY:
        return int(parameter_defaults(_TEMPLATE)["MaxDocumentBytes"]) + 1
    return len(SAMPLE_DOCUMENTS[key])


def backfill_samples() -> list[Sample]:
    """A batch as the backfill's Map sends it: good documents (keys with spaces, ``+``, ``%`` and
    non-ASCII), a bad one among them, a folder placeholder, a key outside ``incoming/``, an
    object gone since the listing and one over every size limit."""
    keys = ["incoming/report.txt", "incoming/a+b 100% ünïcode.txt", "incoming/not-utf8.txt",
            "incoming/meeting notes/café menu.md", "incoming/folder/", "elsewhere/outside.txt",
            OVERSIZE_KEY]  # fmt: skip
    documents = {key: SAMPLE_DOCUMENTS[key] for key in keys}
    listed_at = 1_767_225_600.0
    listed = [(key, listed_size(key), etag(body), listed_at) for key, body in documents.items()]
    listed.insert(-1, ("incoming/gone.txt", 3, "0" * 32, listed_at))  # deleted since the listing
    outputs = {
        "chunks/report.txt.json": "ok",
        "chunks/a+b 100% ünïcode.txt.json": "ok",
        "errors/not-utf8.txt.json": "invalid_input",
        "chunks/meeting notes/café menu.md.json": "ok",
        "errors/huge.txt.json": "input_too_large",
    }
    event = backfill_batch(SAMPLE_BUCKET, listed)
    return [Sample(BACKFILL_FUNCTION, "batch", event, documents=documents, outputs=outputs)]


KNOWLEDGE_BASE_FUNCTION = "KnowledgeBaseChunkFunction"
SAMPLE_DATA_SOURCE = "s3://example-corpus"
PAGE = "x-amz-bedrock-kb-document-page-number"
"""A key of Bedrock's own in an item's ``contentMetadata`` (a parsed PDF's page)."""
"""Where the samples' documents would come from: only named in the events, never read."""


@dataclass(frozen=True)
class KnowledgeBaseFile:
    """An input file of a sample Bedrock event: its name in the corpus, its ``fileMetadata`` (if
    any) and its content batches, each a list of ``(contentBody, contentMetadata)`` items."""

    name: str
    batches: list[list[tuple[str, dict[str, Any]]]]
    metadata: dict[str, Any] | None = None
    output_batches: int = 1
    """How many output batch files its chunks fill."""


def _knowledge_base_sample(case: str, files: list[KnowledgeBaseFile], code: str = "ok", chunked: int = 0) -> Sample:
    """A Bedrock event over ``files``, their batch files as Bedrock writes them to the
    intermediate bucket (here ``make serve``'s), and the keys of the output batches that the first
    ``chunked`` files (all of them by default) leave; ``code`` is the failing file's error code."""
    job = f"sample-{case}"
    documents: dict[str, bytes] = {}
    inputs: list[dict[str, Any]] = []
    for number, file in enumerate(files, start=1):
        keys = [f"bedrock/{job}/file-{number}/batch-{batch}.JSON" for batch in range(1, len(file.batches) + 1)]
        for key, items in zip(keys, file.batches, strict=True):
            contents = [{"contentBody": body, "contentType": "TEXT", "contentMetadata": own} for body, own in items]
            documents[key] = json.dumps({"fileContents": contents}, ensure_ascii=False).encode()
        location = {"type": "S3", "s3_location": {"uri": f"{SAMPLE_DATA_SOURCE}/{file.name}"}}
        metadata = {} if file.metadata is None else {"fileMetadata": file.metadata}
        inputs.append({"originalFileLocation": location, **metadata, "contentBatches": [{"key": k} for k in keys]})
    event = {"version": "1.0", "knowledgeBaseId": "KBSAMPLE01", "dataSourceId": "DSSAMPLE01",
             "ingestionJobId": job, "bucketName": SAMPLE_BUCKET, "inputFiles": inputs}  # fmt: skip
    prefix = f"{functions(_TEMPLATE)[KNOWLEDGE_BASE_FUNCTION].environment['KNOWLEDGE_BASE_OUTPUT_PREFIX']}{job}/"
    outputs = {
        f"{prefix}{batch_folder(InputFile.model_validate(given))}/{number:05d}.json": "ok"
        for file, given in list(zip(files, inputs, strict=True))[: len(files) if code == "ok" else chunked]
        for number in range(file.output_batches)
    }
    return Sample(KNOWLEDGE_BASE_FUNCTION, case, event, code=code, documents=documents, outputs=outputs)


def _file_for(chosen: Tool, name: str, example: Mapping[str, Any], **changed: Any) -> KnowledgeBaseFile:
    """A file whose metadata runs ``chosen`` with an input of its (``changed`` over the input's
    parameters, as metadata keys); its one content item is the input's text."""
    keys = {field: key for key, field in chosen.metadata_keys.items()}
    metadata = {"tool": chosen.id, **{keys[field]: value for field, value in example.items() if field != "text"}}
    return KnowledgeBaseFile(name, [[(example["text"], {})]], {**metadata, **changed})


def knowledge_base_samples() -> list[Sample]:
    """Bedrock Knowledge Base events (API.md, "Amazon Bedrock Knowledge Bases"): one file with one
    batch, several files, several batches, file metadata choosing each tool (its descriptor's first
    example), a count given as a string, an unclosed marker, and a content body larger than any of
    the API's limits."""
    guide = "# Returns\n\nItems can be returned within 30 days.\n\nRefunds take 5 days.\n"
    faq = "Q: Do you ship abroad?\nA: Yes, to 40 countries.\n\n\nQ: Can I pay later?\nA: No.\n"
    page, last_page = {PAGE: 1}, "\ufeffLast page.\n\nThe end."  # a BOM Bedrock's parser left
    large = "\n\n".join(f"Paragraph {n}: " + "lorem ipsum dolor sit amet " * 8 for n in range(2500))
    examples = [(chosen, chosen.descriptor.data["examples"][0]["input"]) for chosen in tools().values()]
    counted, count, example = next((chosen, field.name, example) for chosen, example in examples
                                   for field in chosen.fields if field.kind is int)  # fmt: skip
    count_key = next(key for key, field in counted.metadata_keys.items() if field == count)
    unclosed = [(chosen, inputs[UnclosedStartMarker]) for chosen, _ in examples
                if UnclosedStartMarker in (inputs := chosen.error_examples())]  # fmt: skip
    return [
        _knowledge_base_sample("one-batch", [KnowledgeBaseFile("guide.md", [[(guide, page)]])]),
        _knowledge_base_sample("several-files", [
            KnowledgeBaseFile("guide.md", [[(guide, page)]], {"department": "support"}),
            KnowledgeBaseFile("faq.txt", [[(faq, {})]]),
        ]),
        _knowledge_base_sample("several-batches", [
            KnowledgeBaseFile("handbook.pdf", [[(guide, page)], [(faq, {PAGE: 2})], [(last_page, {PAGE: 3})]]),
        ]),
        _knowledge_base_sample("tool-per-file", [
            _file_for(chosen, f"example-of-{chosen.id}.txt", example) for chosen, example in examples
        ]),
        _knowledge_base_sample("bad-metadata", [
            KnowledgeBaseFile("guide.md", [[(guide, page)]]),
            _file_for(counted, "count-as-a-string.txt", example, **{count_key: "3"}),
        ], code=InvalidInput.code, chunked=1),
        _knowledge_base_sample("unclosed-marker", [
            _file_for(chosen, "unclosed.txt", inputs) for chosen, inputs in unclosed
        ], code=UnclosedStartMarker.code),
        _knowledge_base_sample("large-body", [KnowledgeBaseFile("book.txt", [[(large, {})]], output_batches=3)]),
    ]  # fmt: skip


def document_samples() -> list[Sample]:
    """The samples of the functions that read and write S3 (the S3 event flow, the backfill and
    the Knowledge Base transformation)."""
    return s3_samples() + backfill_samples() + knowledge_base_samples()


def render(sample: Sample) -> str:
    return json.dumps(sample.event, ensure_ascii=False, indent=2) + "\n"


def main() -> None:
    for sample in samples() + document_samples():
        target = ROOT / sample.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(sample), encoding="utf-8")
        print(f"wrote {sample.path}")


if __name__ == "__main__":
    main()
