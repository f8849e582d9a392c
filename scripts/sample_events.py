"""The sample events under ``events/<FunctionLogicalId>/``: for each API function a success per
descriptor example and one event per error class; for the document chunker an S3 put (a key with
spaces and non-ASCII), a multi-record event and an oversize object. ``python -m scripts.sample_events``
writes them; a test fails when the committed files differ from what this module makes, and
invokes each to check its outcome.
"""

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from scripts.lambda_runtime import ROOT, api_event, documents_bucket, function_serving, load_template, s3_event
from texttools import DELIMITER_CHUNK_TOOL, EXTRACT_BETWEEN_TOOL, PARAGRAPHS_SPLIT_TOOL, TOOLS, Tool
from texttools.limits import DELIMITER_CHUNK, EXTRACT_BETWEEN, PARAGRAPHS_SPLIT

EVENTS = ROOT / "events"
SEEDS = ROOT / "spec" / "seeds"
_TEMPLATE = load_template()
FUNCTION_OF = {tool.id: function_serving(tool.execute_url, _TEMPLATE).logical_id for tool in TOOLS.values()}
"""Each tool's API function (logical id), as the template routes it."""
JSON_HEADERS = {"Content-Type": "application/json"}


CHUNK_FUNCTION = "ChunkDocumentFunction"
SAMPLE_BUCKET = documents_bucket(_TEMPLATE)
"""The bucket ``make serve`` creates, so that ``make invoke`` can run these events against it."""
SAMPLE_DOCUMENTS = {
    "incoming/meeting notes/café menu.md": "# Café\r\n\r\nCroissant, 2 €\r\nEspresso ☕\r\n\r\nOpen daily.\n".encode(),
    "incoming/report.txt": b"Summary\n\nDetails line 1\nDetails line 2\n",
    "incoming/not-utf8.txt": b"caf\xe9",
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
    for tool in TOOLS.values():
        function = FUNCTION_OF[tool.id]
        seed = json.loads((SEEDS / f"{tool.id}.json").read_text(encoding="utf-8"))
        for number, example in enumerate(seed["examples"], start=1):
            case = f"success-example-{number}"
            found.append(Sample(function, case, _event(tool, case, _json(example["input"])), 200, "ok"))
        required = dict.fromkeys(seed["input_schema"]["required"], "x")
        common = [
            ("invalid-json", '{"text": "a", ', 400, "invalid_input"),
            ("schema-violation", _json({**required, "unknown_field": 1}), 400, "invalid_input"),
            (
                "lone-surrogate",
                '{"text": "\\ud800"' + "".join(f', "{k}": "x"' for k in required if k != "text") + "}",
                400,
                "invalid_input",
            ),
        ]
        for case, body, status, code in common:
            found.append(Sample(function, case, _event(tool, case, body), status, code))
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
    delimiter, extract, paragraphs = (
        FUNCTION_OF[tool.id] for tool in (DELIMITER_CHUNK_TOOL, EXTRACT_BETWEEN_TOOL, PARAGRAPHS_SPLIT_TOOL)
    )
    found += [
        Sample(
            delimiter,
            "oversize",
            _event(
                DELIMITER_CHUNK_TOOL,
                "oversize",
                _json({"text": "a", "delimiter": "x" * (DELIMITER_CHUNK.max_delimiter_bytes + 1)}),
            ),
            413,
            "input_too_large",
        ),
        Sample(
            delimiter,
            "too-many-chunks",
            _event(
                DELIMITER_CHUNK_TOOL,
                "too-many-chunks",
                _json({"text": "," * DELIMITER_CHUNK.max_chunks, "delimiter": ","}),
            ),
            422,
            "too_many_chunks",
        ),
        Sample(
            extract,
            "oversize",
            _event(
                EXTRACT_BETWEEN_TOOL,
                "oversize",
                _json({"text": "a", "start": "[" * (EXTRACT_BETWEEN.max_marker_bytes + 1), "end": "]"}),
            ),
            413,
            "input_too_large",
        ),
        Sample(
            extract,
            "unclosed-marker",
            _event(
                EXTRACT_BETWEEN_TOOL, "unclosed-marker", _json({"text": "pre[one]mid[two", "start": "[", "end": "]"})
            ),
            422,
            "unclosed_start_marker",
        ),
        Sample(
            paragraphs,
            "oversize",
            _event(PARAGRAPHS_SPLIT_TOOL, "oversize", _json({"text": "a" * (PARAGRAPHS_SPLIT.max_input_bytes + 1)})),
            413,
            "input_too_large",
        ),
        Sample(
            paragraphs,
            "too-many-chunks",
            _event(
                PARAGRAPHS_SPLIT_TOOL,
                "too-many-chunks",
                _json({"text": "p\n\n" * (PARAGRAPHS_SPLIT.max_paragraphs + 1)}),
            ),
            422,
            "too_many_chunks",
        ),
    ]
    return found


def _s3_sample(case: str, keys: list[str], outputs: dict[str, str], oversize: str | None = None) -> Sample:
    documents = {key: SAMPLE_DOCUMENTS[key] for key in keys}
    objects: list[tuple[str, int, str, str | None]] = [
        (key, len(body), hashlib.md5(body).hexdigest(), None)  # noqa: S324 (S3's ETag is an MD5)
        for key, body in documents.items()
    ]
    if oversize:
        objects.append((oversize, 8 * 1024 * 1024, "0" * 32, None))
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


def render(sample: Sample) -> str:
    return json.dumps(sample.event, ensure_ascii=False, indent=2) + "\n"


def main() -> None:
    for sample in samples() + s3_samples():
        target = ROOT / sample.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(sample), encoding="utf-8")
        print(f"wrote {sample.path}")


if __name__ == "__main__":
    main()
