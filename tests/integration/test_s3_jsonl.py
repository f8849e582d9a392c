"""The document chunker in ``ChunksFormat=jsonl`` against moto's S3: API.md's "Documents of any
size: JSON Lines", sentence by sentence."""

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest
from botocore.exceptions import ClientError, ReadTimeoutError

import s3_documents
import texttools.documents
from benchmarks.workloads import MARKERS, markdown_text, mixed_text, reads_markdown, table_report
from tests.integration.conftest import BUCKET, Upload, keys, read, run
from texttools.fields import MAX_SAFE_INTEGER
from texttools.registry import TOOL_IDS, tool

MIB = 1 << 20
MANUAL = (Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "nodejs-fs.md").read_text(encoding="utf-8")
BY_LINE = {"tool": "text-delimiter-chunk", "delimiter": '"\\n"'}
LINE = "a line of sixty characters, more or less, for a chunk each.\n"
"""Chunks of 60 characters: many megabytes of output from a few of input, without millions of chunks."""


@pytest.fixture
def jsonl(chunker: ModuleType, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("CHUNKS_FORMAT", "jsonl")
    monkeypatch.setenv("MAX_DOCUMENT_BYTES", str(64 * MIB))
    return chunker


def lines_of(s3: Any, key: str) -> list[Any]:
    raw = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    assert raw.endswith(b"\n")
    return [json.loads(line) for line in raw.split(b"\n")[:-1]]


def metadata_for(tool_id: str) -> dict[str, str]:
    """The tool, with markers and a match count beyond the API's 1 000 for the tool that takes them,
    and sizes for a tool that takes them (more than 10 000 chunks)."""
    parameters = {"tool": tool_id}
    if "start" in tool(tool_id).byte_limits:
        parameters |= {"start": json.dumps(MARKERS[0]), "end": json.dumps(MARKERS[1]), "max-matches": "1000000"}
    if "delimiter" in tool(tool_id).byte_limits:
        parameters |= {"delimiter": json.dumps("\n\n")}
    if "max_chars" in tool(tool_id).metadata_keys.values():
        parameters |= {"max-chars": "200", "overlap-chars": "40"}
    return parameters


def expected_lines(tool_id: str, text: str, metadata: dict[str, str]) -> tuple[list[Any], dict[str, Any]]:
    """What the tool returns for the whole text with its limits lifted: its chunk lines and its last line."""
    chosen = tool(tool_id)
    parameters = {field: json.loads(metadata[key]) for key, field in chosen.metadata_keys.items() if key in metadata}
    assert chosen.run_lifted is not None
    output = dict(chosen.run_lifted(chosen.parse_parameters(parameters) | {"text": text}))
    if "matches" in output:
        matches = output.pop("matches")
        return [{"index": i, "text": m} for i, m in enumerate(matches)], {"match_count": len(matches), **output}
    items = next(key for key, value in output.items() if isinstance(value, list))
    return output.pop(items), output


STREAMING = [tool_id for tool_id in TOOL_IDS if tool(tool_id).stream is not None]


@pytest.mark.parametrize("tool_id", STREAMING)
def test_a_multi_megabyte_document_in_each_tool(s3: Any, jsonl: ModuleType, upload: Upload, tool_id: str) -> None:
    """Far over every limit of the API (256 KiB, 10 000 chunks), chunked exactly as the whole text."""
    markers = MARKERS if "start" in tool(tool_id).byte_limits else None
    text = markdown_text(3 * MIB) if reads_markdown(tool(tool_id)) else mixed_text(3 * MIB, markers=markers)
    metadata = metadata_for(tool_id)
    doc = upload("incoming/big.txt", text.encode(), metadata)
    run(jsonl, doc)
    assert keys(s3, "errors/") == []
    assert keys(s3, "chunks/") == ["chunks/big.txt.jsonl"]
    first, *chunks, last = lines_of(s3, "chunks/big.txt.jsonl")
    parameters = {field: json.loads(metadata[key]) for key, field in tool(tool_id).metadata_keys.items()
                  if key in metadata}  # fmt: skip
    assert first == {
        "source": {"bucket": BUCKET, "key": "incoming/big.txt", "version_id": doc["version"], "etag": doc["etag"],
                   "size": doc["size"]},
        "tool": {"id": tool_id, "version": "1.0.0"},
        "parameters": parameters,
    }  # fmt: skip
    expected_chunks, expected_last = expected_lines(tool_id, text, metadata)
    assert len(chunks) > 10_000 or "start" in tool(tool_id).byte_limits
    assert chunks == expected_chunks
    assert last == expected_last


NODE_API = sorted(Path("/usr/share/doc/nodejs/api").glob("*.md"))
"""Node.js's API reference, Markdown from the Debian package on these machines (3.4 MB); fs.md,
vendored, eight times where it is not there."""


def real_markdown() -> str:
    files = [path.read_text(encoding="utf-8") for path in NODE_API] or [MANUAL] * 8
    return "\n".join(files)


@pytest.mark.parametrize("tool_id", ["markdown-sections-chunk", "markdown-size-chunk"])
def test_a_multi_megabyte_markdown_document_in_each_markdown_tool(
    s3: Any, jsonl: ModuleType, upload: Upload, tool_id: str
) -> None:
    """Issue 54: real Markdown far over the API's limit, through the S3 handler, exactly as the
    whole text parsed at once (headings, paths, code blocks, offsets, lines)."""
    text = real_markdown()
    assert len(text.encode()) > 2 * MIB
    metadata = {"tool": tool_id, "max-level": "3"} | ({"max-chars": "1000", "overlap-chars": "100"}
                                                       if tool_id == "markdown-size-chunk" else {})  # fmt: skip
    run(jsonl, upload("incoming/api.md", text.encode(), metadata))
    assert keys(s3, "errors/") == []
    _, *items, last = lines_of(s3, "chunks/api.md.jsonl")
    expected_items, expected_last = expected_lines(tool_id, text, metadata)
    assert items == expected_items
    assert last == expected_last
    assert s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []


@pytest.mark.parametrize("tool_id", ["markdown-sections-chunk", "markdown-size-chunk"])
@pytest.mark.parametrize(
    ("metadata", "code"),
    [({"max-level": "9"}, "invalid_input"), ({"max-level": "two"}, "invalid_input"), ({}, "input_too_large")],
)
def test_bad_metadata_or_a_markdown_document_over_max_document_bytes_is_one_error_object(
    s3: Any, jsonl: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch, tool_id: str,
    metadata: dict[str, str], code: str
) -> None:  # fmt: skip
    monkeypatch.setenv("MAX_DOCUMENT_BYTES", str(2 * MIB))
    sized = {"max-chars": "800"} if tool_id == "markdown-size-chunk" else {}
    body = real_markdown().encode()[: 3 * MIB if code == "input_too_large" else MIB]
    run(jsonl, upload("incoming/doc.md", body, {"tool": tool_id, **sized, **metadata}))
    assert keys(s3, "chunks/") == []
    assert keys(s3, "errors/") == ["errors/doc.md.json"]
    assert read(s3, "errors/doc.md.json")["error"]["code"] == code
    assert s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []


@pytest.mark.parametrize("tool_id", ["markdown-sections-chunk", "markdown-size-chunk"])
def test_an_invalid_byte_deep_inside_markdown_leaves_one_error_object_and_no_upload(
    s3: Any, jsonl: ModuleType, upload: Upload, tool_id: str
) -> None:
    body = (real_markdown() * 2).encode() + b"\n# After\n\xff\n"
    metadata = {"tool": tool_id} | ({"max-chars": "500"} if tool_id == "markdown-size-chunk" else {})
    run(jsonl, upload("incoming/bad.md", body, metadata))
    assert keys(s3, "chunks/") == []
    message = f"The document is not valid UTF-8 (at byte {body.index(b'\xff')})."
    assert read(s3, "errors/bad.md.json")["error"] == {"code": "invalid_input", "message": message}
    assert s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []


def test_lines_are_compact_utf8_json_with_non_ascii_as_itself(s3: Any, jsonl: ModuleType, upload: Upload) -> None:
    run(jsonl, upload("incoming/u.txt", "é😀\n\nb".encode()))
    raw = s3.get_object(Bucket=BUCKET, Key="chunks/u.txt.jsonl")["Body"].read()
    for line in raw.split(b"\n")[:-1]:
        assert line == orjson.dumps(json.loads(line))  # compact, keys in order, no \\u escapes
    assert "é😀".encode() in raw


def test_a_bom_is_dropped_and_offsets_count_code_points_of_the_whole_text(
    s3: Any, jsonl: ModuleType, upload: Upload
) -> None:
    run(jsonl, upload("incoming/b.txt", "\ufeff😀\r\n\r\nx".encode()))
    _, *paragraphs, last = lines_of(s3, "chunks/b.txt.jsonl")
    assert [(p["start"], p["end"], p["start_line"], p["text"]) for p in paragraphs] == [(0, 1, 1, "😀"), (5, 6, 3, "x")]
    assert last == {"paragraph_count": 2, "line_count_total": 3}


def test_a_large_output_is_one_multipart_upload_of_the_same_bytes_on_a_retry(
    s3: Any, jsonl: ModuleType, upload: Upload
) -> None:
    """Over two parts of output; a retried event (the same object version) writes the same bytes."""
    text = LINE * (8 * MIB // len(LINE))
    doc = upload("incoming/many.txt", text.encode(), BY_LINE)
    run(jsonl, doc)
    first = s3.get_object(Bucket=BUCKET, Key="chunks/many.txt.jsonl")
    assert first["ContentLength"] > 2 * s3_documents.PART_BYTES
    assert int(first["ETag"].strip('"').rpartition("-")[2]) >= 2  # a multipart upload's ETag counts its parts
    body = first["Body"].read()
    run(jsonl, doc)
    assert s3.get_object(Bucket=BUCKET, Key="chunks/many.txt.jsonl")["Body"].read() == body
    assert s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []
    lines = text.count("\n")
    assert json.loads(body.rsplit(b"\n", 2)[-2]) == {"chunk_count": lines + 1, "delimiter_count": lines}


def test_an_invalid_byte_deep_inside_leaves_an_error_object_and_no_upload(
    s3: Any, jsonl: ModuleType, upload: Upload
) -> None:
    body = (LINE * (20 * MIB // len(LINE))).encode() + b"\xff" + b"b\n\n" * 1000
    parts: list[str] = []
    jsonl.s3.meta.events.register("before-call.s3.UploadPart", lambda **_: parts.append("UploadPart"))
    run(jsonl, upload("incoming/bad.txt", body, BY_LINE))
    assert len(parts) > 2  # parts were written before the invalid byte was read
    assert keys(s3, "chunks/") == []
    message = f"The document is not valid UTF-8 (at byte {body.index(b'\xff')})."
    assert read(s3, "errors/bad.txt.json")["error"] == {"code": "invalid_input", "message": message}
    assert s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []


def test_a_truncated_sequence_at_the_end_is_invalid_input(s3: Any, jsonl: ModuleType, upload: Upload) -> None:
    run(jsonl, upload("incoming/cut.txt", "ok 😀".encode()[:-1]))
    assert read(s3, "errors/cut.txt.json")["error"]["code"] == "invalid_input"


def test_an_unclosed_start_marker_at_the_very_end(s3: Any, jsonl: ModuleType, upload: Upload) -> None:
    text = "[a]" * (MIB // 3) + LINE * (4 * MIB // len(LINE)) + "["
    metadata = {"tool": "text-extract-between", "start": '"["', "end": '"]"', "max-matches": "9007199254740991"}
    run(jsonl, upload("incoming/open.txt", text.encode(), metadata))
    assert keys(s3, "chunks/") == []
    assert read(s3, "errors/open.txt.json")["error"] == {
        "code": "unclosed_start_marker",
        "message": f"The start marker at code point {len(text) - 1} has no end marker after it.",
    }
    assert s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []


@pytest.mark.parametrize(
    ("value", "accepted"),
    [("1", True), (str(MAX_SAFE_INTEGER), True), ("0", False), (str(MAX_SAFE_INTEGER + 1), False), ('"3"', False),
     ("3.0", False)],
)  # fmt: skip
def test_max_matches_may_be_any_integer_from_1_to_2_53_minus_1(
    s3: Any, jsonl: ModuleType, upload: Upload, value: str, accepted: bool
) -> None:
    metadata = {"tool": "text-extract-between", "start": '"["', "end": '"]"', "max-matches": value}
    run(jsonl, upload("incoming/m.txt", b"[a][b]", metadata))
    assert keys(s3, "chunks/" if accepted else "errors/") == ["chunks/m.txt.jsonl" if accepted else "errors/m.txt.json"]


def test_max_splits_holds(s3: Any, jsonl: ModuleType, upload: Upload) -> None:
    run(jsonl, upload("incoming/s.txt", b"a,b,c,d", {"tool": "text-delimiter-chunk", "delimiter": '","',
                                                     "max-splits": "2"}))  # fmt: skip
    _, *chunks, last = lines_of(s3, "chunks/s.txt.jsonl")
    assert ([c["text"] for c in chunks], last) == (["a", "b", "c,d"], {"chunk_count": 3, "delimiter_count": 2})


def test_max_matches_defaults_to_100(s3: Any, jsonl: ModuleType, upload: Upload) -> None:
    run(jsonl, upload("incoming/h.txt", b"[a]" * 101, {"tool": "text-extract-between", "start": '"["', "end": '"]"'}))
    _, *matches, last = lines_of(s3, "chunks/h.txt.jsonl")
    assert (len(matches), last) == (100, {"match_count": 100, "truncated": True})


@pytest.mark.parametrize("metadata", [{"tool": "text-unknown"}, {"tool": "text-delimiter-chunk", "delimiter": ","}])
def test_bad_metadata_is_the_documents_error(
    s3: Any, jsonl: ModuleType, upload: Upload, metadata: dict[str, str]
) -> None:
    run(jsonl, upload("incoming/meta.txt", b"a,b", metadata))
    assert keys(s3, "chunks/") == []
    assert read(s3, "errors/meta.txt.json")["error"]["code"] == "invalid_input"


def test_the_marker_and_delimiter_limits_still_hold(s3: Any, jsonl: ModuleType, upload: Upload) -> None:
    metadata = {"tool": "text-delimiter-chunk", "delimiter": json.dumps("x" * 257)}
    run(jsonl, upload("incoming/d.txt", b"a", metadata))
    assert read(s3, "errors/d.txt.json")["error"]["code"] == "input_too_large"


def test_a_document_over_max_document_bytes_is_refused_from_the_event_without_a_download(
    s3: Any, jsonl: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAX_DOCUMENT_BYTES", "10")
    calls: list[str] = []
    jsonl.s3.meta.events.register("before-call.s3.GetObject", lambda **_: calls.append("GetObject"))
    run(jsonl, upload("incoming/at.txt", b"0123456789"), upload("incoming/over.txt", b"\xef\xbb\xbf0123456789"))
    assert calls == ["GetObject"]  # the one at the limit only
    assert keys(s3, "chunks/") == ["chunks/at.txt.jsonl"]
    refused = {
        "code": "input_too_large",
        "message": "The document is larger than 10 bytes, this deployment's MaxDocumentBytes.",
        "details": [{"field": "text", "problem": "must be at most 10 bytes (MaxDocumentBytes)"}],
    }
    assert read(s3, "errors/over.txt.json")["error"] == refused


def test_a_tool_without_a_streaming_form_keeps_its_limits(
    s3: Any, jsonl: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    """API.md: a tool that parses a document whole keeps its descriptor's limits; refused by size
    before the body is read."""
    chosen = tool("text-paragraphs-split")
    whole = replace(chosen, stream=None)  # the same tool as if it had no streaming form
    monkeypatch.setattr(texttools.documents, "tool", lambda _: whole)
    small = upload("incoming/small.txt", b"a\n\nb")
    large = upload("incoming/large.txt", b"a" * (chosen.byte_limits["text"] + 4))
    run(jsonl, small, large)
    assert lines_of(s3, "chunks/small.txt.jsonl")[1:] == [
        {"index": 0, "start": 0, "end": 1, "start_line": 1, "end_line": 1, "line_count": 1, "text": "a"},
        {"index": 1, "start": 3, "end": 4, "start_line": 3, "end_line": 3, "line_count": 1, "text": "b"},
        {"paragraph_count": 2, "line_count_total": 3},
    ]
    assert read(s3, "errors/large.txt.json")["error"]["code"] == "input_too_large"


def test_in_jsonl_no_json_object_is_written(s3: Any, jsonl: ModuleType, upload: Upload) -> None:
    run(jsonl, upload("incoming/n.txt", b"a"))
    assert keys(s3, "chunks/") == ["chunks/n.txt.jsonl"]


# --- faults of S3: not the document's problem ----------------------------------------------------


class BrokenBody:
    """A GetObject body whose connection drops after its first piece."""

    def __init__(self, body: Any) -> None:
        self._body = body

    def iter_chunks(self, size: int) -> Iterator[bytes]:
        yield self._body.read(size)
        raise ReadTimeoutError(endpoint_url="s3")


def test_a_read_that_fails_midway_aborts_and_is_retried_with_no_error_object(
    s3: Any, jsonl: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = upload("incoming/r.txt", (LINE * (20 * MIB // len(LINE))).encode(), BY_LINE)
    real_get = jsonl.s3.get_object

    def failing_get(**kwargs: Any) -> Any:
        response = real_get(**kwargs)
        return {**response, "Body": BrokenBody(response["Body"])}

    monkeypatch.setattr(jsonl.s3, "get_object", failing_get)
    with pytest.raises(jsonl.TransientFailure):
        run(jsonl, doc)
    assert keys(s3, "chunks/") == keys(s3, "errors/") == []
    assert s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []
    monkeypatch.setattr(jsonl.s3, "get_object", real_get)  # Lambda's retry
    run(jsonl, doc)
    assert keys(s3, "chunks/") == ["chunks/r.txt.jsonl"]


def test_a_part_that_fails_to_upload_aborts_the_upload(
    s3: Any, jsonl: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = upload("incoming/w.txt", (LINE * (20 * MIB // len(LINE))).encode(), BY_LINE)
    real_upload_part = jsonl.s3.upload_part

    def failing_second_part(**kwargs: Any) -> Any:
        if kwargs["PartNumber"] == 2:
            raise ClientError({"Error": {"Code": "InternalError", "Message": "x"}}, "UploadPart")
        return real_upload_part(**kwargs)

    monkeypatch.setattr(jsonl.s3, "upload_part", failing_second_part)
    with pytest.raises(jsonl.TransientFailure):
        run(jsonl, doc)
    assert keys(s3, "chunks/") == keys(s3, "errors/") == []
    assert s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []


def test_the_bench_s_stand_in_s3_serves_every_call_the_chunker_makes() -> None:
    """``make bench`` times the chunker over a stand-in S3 (benchmarks/streaming.py): a call the
    chunker adds (a HeadObject for the other outputs) must be there too, or the bench breaks."""
    from benchmarks.streaming import chunk_large_document

    seconds, written = chunk_large_document("text-delimiter-chunk", MIB)
    assert seconds > 0
    assert written > MIB


def test_tables_stream_as_the_whole_text_each_chunk_inside_one_with_its_header(
    s3: Any, jsonl: ModuleType, upload: Upload
) -> None:
    """Issue 60: a converted report of 3 MiB, tables of 25 to 45 rows across window edges, chunked
    as the whole text is, every chunk that starts inside a table carrying its header."""
    text = table_report(3 * MIB)
    metadata = {"tool": "markdown-size-chunk", "max-chars": "1000", "overlap-chars": "200"}
    run(jsonl, upload("incoming/report.md", text.encode(), metadata))
    assert keys(s3, "errors/") == []
    _, *items, last = lines_of(s3, "chunks/report.md.jsonl")
    expected_items, expected_last = expected_lines("markdown-size-chunk", text, metadata)
    assert items == expected_items
    assert last == expected_last
    headed = [item for item in items if "table_header" in item]
    assert len(headed) > 500
    assert all(item["table_header"]["text"] == text[item["table_header"]["start"] : item["table_header"]["end"]]
               for item in headed)  # fmt: skip


def test_one_table_longer_than_many_windows_streams_as_the_whole_text(
    s3: Any, jsonl: ModuleType, upload: Upload
) -> None:
    """Issue 60: a spreadsheet's export, one table of 3 MiB, its windows restarting between rows:
    the lines are the whole text's, every chunk after the first with the table's header."""
    header = "| Region | Account | Amount | Note |\n|:--|--:|--:|---|"
    rows = "".join(f"| 東京 {n % 9} | {4000 + n} | {n * 7.5:,.2f} | a \\| b `x|y` |\n" for n in range(70_000))
    text = f"{header}\n{rows}"
    assert len(text.encode()) > 3 * MIB
    metadata = {"tool": "markdown-size-chunk", "max-chars": "500", "overlap-chars": "100"}
    run(jsonl, upload("incoming/sheet.md", text.encode(), metadata))
    _, *items, last = lines_of(s3, "chunks/sheet.md.jsonl")
    expected_items, expected_last = expected_lines("markdown-size-chunk", text, metadata)
    assert items == expected_items
    assert last == expected_last
    table_header = {"start": 0, "end": len(header), "text": header}
    assert [item.get("table_header") for item in items] == [None] + [table_header] * (len(items) - 1)
