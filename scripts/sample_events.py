"""The sample events under ``events/<FunctionLogicalId>/``: for each API function a success per
descriptor example and one event per error class; for the document chunker an S3 put (a key with
spaces and non-ASCII), a multi-record event and an object over every size limit. ``python -m scripts.sample_events``
writes them; a test fails when the committed files differ from what this module makes, and
invokes each to check its outcome.
"""

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from scripts.lambda_events import api_event, backfill_batch, s3_event
from scripts.template import ROOT, documents_bucket, function_serving, load_template, parameter_defaults
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
}


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
    found: list[Sample] = []
    for tool in tools().values():
        found += tool_samples(tool)
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
    # The string with the smallest byte limit, one byte over it (the others as small as they may be).
    field, limit = min(tool.byte_limits.items(), key=lambda item: item[1])
    oversize = {**seed["examples"][0]["input"], field: "x" * (limit + 1)}
    found.append(Sample(function, "oversize", _event(tool, "oversize", _json(oversize)), 413, "input_too_large"))
    for error, example in tool.error_examples().items():
        case = error.code.replace("_", "-")
        found.append(Sample(function, case, _event(tool, case, _json(example)), error.status, error.code))
    return found


def _s3_sample(case: str, keys: list[str], outputs: dict[str, str], oversize: str | None = None) -> Sample:
    documents = {key: SAMPLE_DOCUMENTS[key] for key in keys}
    objects: list[tuple[str, int, str, str | None]] = [
        (key, len(body), hashlib.md5(body).hexdigest(), None)  # noqa: S324 (S3's ETag is an MD5)
        for key, body in documents.items()
    ]
    if oversize:  # larger than any tool takes (json) and than MaxDocumentBytes (jsonl): refused in both
        objects.append((oversize, int(parameter_defaults(_TEMPLATE)["MaxDocumentBytes"]) + 1, "0" * 32, None))
    return Sample(CHUNK_FUNCTION, case, s3_event(SAMPLE_BUCKET, objects), documents=documents, outputs=outputs)


def s3_samples() -> list[Sample]:
    return [
        _s3_sample("put", ["incoming/meeting notes/café menu.md"], {"chunks/meeting notes/café menu.md.json": "ok"}),
        _s3_sample(
            "multi-record",
            ["incoming/report.txt", "incoming/not-utf8.txt"],
            {"chunks/report.txt.json": "ok", "errors/not-utf8.txt.json": "invalid_input"},
        ),
        _s3_sample("oversize", [], {"errors/huge.txt.json": "input_too_large"}, oversize="incoming/huge.txt"),
    ]


def backfill_samples() -> list[Sample]:
    """A batch as the backfill's Map sends it: good documents (keys with spaces, ``+``, ``%`` and
    non-ASCII), a bad one among them, a folder placeholder, a key outside ``incoming/``, an
    object gone since the listing and one over every size limit."""
    keys = ["incoming/report.txt", "incoming/a+b 100% ünïcode.txt", "incoming/not-utf8.txt",
            "incoming/meeting notes/café menu.md", "incoming/folder/", "elsewhere/outside.txt"]  # fmt: skip
    documents = {key: SAMPLE_DOCUMENTS[key] for key in keys}
    listed_at, oversize = 1_767_225_600.0, int(parameter_defaults(_TEMPLATE)["MaxDocumentBytes"]) + 1
    listed = [(key, len(body), hashlib.md5(body).hexdigest(), listed_at) for key, body in documents.items()]  # noqa: S324
    listed += [("incoming/gone.txt", 3, "0" * 32, listed_at)]  # deleted since the listing
    listed += [("incoming/huge.txt", oversize, "0" * 32, listed_at)]
    outputs = {
        "chunks/report.txt.json": "ok",
        "chunks/a+b 100% ünïcode.txt.json": "ok",
        "errors/not-utf8.txt.json": "invalid_input",
        "chunks/meeting notes/café menu.md.json": "ok",
        "errors/huge.txt.json": "input_too_large",
    }
    event = backfill_batch(SAMPLE_BUCKET, listed)
    return [Sample(BACKFILL_FUNCTION, "batch", event, documents=documents, outputs=outputs)]


def document_samples() -> list[Sample]:
    """The samples of the document flows' functions (the S3 event flow and the backfill)."""
    return s3_samples() + backfill_samples()


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
