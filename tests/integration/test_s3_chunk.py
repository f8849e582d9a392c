"""The document chunker against moto's S3: every rule of API.md's "S3 document chunking"."""

import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from botocore.exceptions import ClientError

import s3_documents
import texttools.documents
import texttools.registry
import texttools.tokens
from benchmarks.workloads import table_report
from scripts.lambda_events import LocalContext, s3_event
from tests.integration.conftest import BUCKET, Upload, keys, read, run
from texttools.documents import LARGEST_TEXT_BYTES
from texttools.registry import TOOL_IDS
from texttools.tools.text_delimiter_chunk import delimiter_chunk
from texttools.tools.text_extract_between import extract_between
from texttools.tools.text_paragraphs_split import paragraphs_split


def test_default_tool_and_the_success_object(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    text = "Title\n\nFirst paragraph,\nstill first.\n\n😀 last"
    doc = upload("incoming/notes.md", text.encode())
    run(chunker, doc)
    assert read(s3, "chunks/notes.md.json") == {
        "source": {"bucket": BUCKET, "key": "incoming/notes.md", "version_id": doc["version"], "etag": doc["etag"],
                   "size": doc["size"]},
        "tool": {"id": "text-paragraphs-split", "version": "1.0.0"},
        "parameters": {},
        "result": paragraphs_split(text),
    }  # fmt: skip


def test_url_encoded_key_with_spaces_plus_and_non_ascii(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    doc = upload("incoming/my notes/café + más.md", b"a\n\nb")
    event = s3_event(BUCKET, [(doc["key"], doc["size"], doc["etag"], doc["version"])])
    assert event["Records"][0]["s3"]["object"]["key"] == "incoming/my+notes/caf%C3%A9+%2B+m%C3%A1s.md"
    chunker.lambda_handler(event, LocalContext("ChunkDocumentFunction"))
    assert keys(s3, "chunks/") == ["chunks/my notes/café + más.md.json"]
    assert read(s3, "chunks/my notes/café + más.md.json")["source"]["key"] == "incoming/my notes/café + más.md"


def test_metadata_selects_delimiter_chunk(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    text = "a\n---\nb\n---\nc"
    metadata = {"tool": "text-delimiter-chunk", "delimiter": '"\\n---\\n"', "max-splits": "1", "author": "me"}
    run(chunker, upload("incoming/d.txt", text.encode(), metadata))
    written = read(s3, "chunks/d.txt.json")
    assert written["tool"] == {"id": "text-delimiter-chunk", "version": "1.0.0"}
    assert written["parameters"] == {"delimiter": "\n---\n", "max_splits": 1}
    assert written["result"] == delimiter_chunk(text, "\n---\n", 1)


def test_metadata_selects_extract_between(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    text = "x<<one>>y<<two>>"
    metadata = {"Tool": "text-extract-between", "START": '"<<"', "end": '">>"', "Max-Matches": "1"}  # any case
    run(chunker, upload("incoming/e.txt", text.encode(), metadata))
    assert read(s3, "chunks/e.txt.json")["result"] == extract_between(text, "<<", ">>", 1)


@pytest.mark.parametrize("tokenizer", ["o200k_base", '"o200k_base"'])
def test_metadata_gives_max_tokens_alone_and_the_tokenizer_bare_or_quoted(
    s3: Any, chunker: ModuleType, upload: Upload, tokenizer: str
) -> None:
    """A token budget alone bounds the chunks (max_chars 262144); a name needs no JSON quotes."""
    o200k = texttools.tokens.encoding("o200k_base")
    text = "Tokens are not characters. Short words are cheap.\n\n\u7b2c\u4e00\u53e5\u3002"
    run(chunker, upload("incoming/t.txt", text.encode(), {"tool": "text-size-chunk", "max-tokens": "6",
                                                          "tokenizer": tokenizer}))  # fmt: skip
    written = read(s3, "chunks/t.txt.json")
    assert written["parameters"] == {"max_tokens": 6, "tokenizer": "o200k_base"}
    chosen = texttools.registry.tool("text-size-chunk")
    assert written["result"] == chosen.run(chosen.parse({"text": text, "max_tokens": 6, "tokenizer": "o200k_base"}))
    counts = [len(o200k.encode_ordinary(chunk["text"])) for chunk in written["result"]["chunks"]]
    assert [chunk["tokens"] for chunk in written["result"]["chunks"]] == counts
    assert len(counts) > 1
    assert max(counts) <= 6


def test_metadata_selects_text_size_chunk_with_tokens(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    text = "Tokens are not characters. Short words are cheap.\n\n\u7b2c\u4e00\u53e5\u3002"
    metadata = {"tool": "text-size-chunk", "max-chars": "40", "overlap-chars": "10", "min-chars": "5",
                "max-tokens": "8", "tokenizer": '"o200k_base"'}  # fmt: skip
    run(chunker, upload("incoming/s.txt", text.encode(), metadata))
    written = read(s3, "chunks/s.txt.json")
    fields = {"max_chars": 40, "overlap_chars": 10, "min_chars": 5, "max_tokens": 8, "tokenizer": "o200k_base"}
    assert written["parameters"] == fields
    chosen = texttools.registry.tool("text-size-chunk")
    assert written["result"] == chosen.run(chosen.parse({"text": text, **fields}))
    assert all(chunk["tokens"] <= 8 for chunk in written["result"]["chunks"])


TOKENIZER_FORM = "must be cl100k_base, o200k_base or hf:<name> (GET /v1/tokenizers lists them)"


@pytest.mark.parametrize(
    ("metadata", "fault"),
    [
        ({"max-chars": "10", "overlap-chars": "10"},
         {"field": "overlap-chars", "problem": "must be less than max-chars"}),
        ({"max-chars": "10", "tokenizer": '"cl100k_base"'},
         {"field": "tokenizer", "problem": "is allowed only with max-tokens"}),  # as metadata spells it
        ({"max-chars": "10", "max-tokens": "8", "tokenizer": '"gpt2"'},
         {"field": "tokenizer", "problem": TOKENIZER_FORM}),
        ({"max-chars": "10", "max-tokens": "8", "tokenizer": "cl100k"},
         {"field": "tokenizer", "problem": f"{TOKENIZER_FORM}; did you mean cl100k_base?"}),
        ({"max-chars": "10", "max-tokens": "8", "tokenizer": "hf:e5"},
         {"field": "tokenizer", "problem": "is not a tokenizer of this deployment: cl100k_base or o200k_base"}),
        ({"max-chars": "ten"}, {"field": "max-chars", "problem": "must be a JSON integer, such as 20"}),
        ({}, {"field": "max-chars", "problem": "is missing, and so is max-tokens: give max-chars, max-tokens or both"}),
    ],
)  # fmt: skip
def test_text_size_chunk_settings_errors_name_the_metadata_key(
    s3: Any, chunker: ModuleType, upload: Upload, metadata: dict[str, str], fault: dict[str, str]
) -> None:
    run(chunker, upload("incoming/s.txt", b"a b c", {"tool": "text-size-chunk", **metadata}))
    error = read(s3, "errors/s.txt.json")["error"]
    assert (error["code"], error["details"]) == ("invalid_input", [fault])


def test_default_parameters_size_a_document_without_metadata(
    s3: Any, chunker: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two parameters chunk a corpus whose documents carry no metadata at 20 characters with 5 of overlap."""
    monkeypatch.setenv("DEFAULT_TOOL", "text-size-chunk")
    monkeypatch.setenv("DEFAULT_PARAMETERS", '{"max_chars": 20, "overlap_chars": 5, "delimiter": ","}')
    run(chunker, upload("incoming/p.txt", b"Alpha beta. Gamma delta.\n\nEpsilon zeta eta theta."))
    written = read(s3, "chunks/p.txt.json")
    assert written["parameters"] == {"max_chars": 20, "overlap_chars": 5}
    assert [c["text"] for c in written["result"]["chunks"]] == [
        "Alpha beta.", "beta. Gamma delta.", "Epsilon zeta eta", "eta theta."
    ]  # fmt: skip


def test_default_parameters_chunk_markdown_by_size_with_heading_paths(
    s3: Any, chunker: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``DefaultTool`` may be markdown-size-chunk: a Markdown corpus without metadata is cut before
    its headings, each chunk with its heading path; a document's own metadata still wins."""
    monkeypatch.setenv("DEFAULT_TOOL", "markdown-size-chunk")
    monkeypatch.setenv("DEFAULT_PARAMETERS", '{"max_chars": 30, "max_level": 2}')
    text = b"# Guide\n\nSome words here.\n\n## Install\n\nRun it.\n\n### Deep\n\nMore."
    run(chunker, upload("incoming/g.md", text), upload("incoming/own.md", text, {"max-level": "3"}))
    written = read(s3, "chunks/g.md.json")
    assert written["parameters"] == {"max_chars": 30, "max_level": 2}
    assert [(c["text"], c["cut"], c["headings"]) for c in written["result"]["chunks"]] == [
        ("# Guide\n\nSome words here.", "section-2", ["Guide"]),
        ("## Install\n\nRun it.\n\n### Deep", "paragraph", ["Guide", "Install"]),
        ("More.", "end", ["Guide", "Install"]),
    ]  # fmt: skip
    own = read(s3, "chunks/own.md.json")["result"]["chunks"]
    assert [(c["text"], c["headings"]) for c in own][-1] == ("### Deep\n\nMore.", ["Guide", "Install", "Deep"])


def test_defaults_come_from_the_function_environment(
    s3: Any, chunker: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEFAULT_TOOL", "text-delimiter-chunk")
    monkeypatch.setenv("DEFAULT_PARAMETERS", '{"delimiter": ",", "max_chars": 10, "start": "x"}')  # others ignored
    run(chunker, upload("incoming/csv.txt", b"a,b,c"), upload("incoming/own.txt", b"a;b", {"delimiter": '";"'}))
    assert [c["text"] for c in read(s3, "chunks/csv.txt.json")["result"]["chunks"]] == ["a", "b", "c"]
    assert [c["text"] for c in read(s3, "chunks/own.txt.json")["result"]["chunks"]] == ["a", "b"]


def test_leading_bom_is_dropped(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    run(chunker, upload("incoming/bom.txt", "\ufeffa\n\nb".encode()))
    assert read(s3, "chunks/bom.txt.json")["result"] == paragraphs_split("a\n\nb")


def problem(key: str, what: str) -> dict[str, Any]:
    """A bad metadata key's error (API.md): the message and ``details`` name the key."""
    return {"message": f"The {key} metadata {what}.", "details": [{"field": key, "problem": what}]}


@pytest.mark.parametrize(
    ("body", "metadata", "code", "expected"),
    [
        (b"caf\xe9", {}, "invalid_input", {"message": "The document is not valid UTF-8 (at byte 3)."}),
        (b"\xef\xbb\xbfa\n\x80", {}, "invalid_input", {"message": "The document is not valid UTF-8 (at byte 5)."}),
        (b"a", {"tool": "text-unknown"}, "invalid_input", problem("tool", f"must be one of {', '.join(TOOL_IDS)}")),
        (b"a", {"tool": "text-delimiter-chunk", "delimiter": ","}, "invalid_input",
         problem("delimiter", 'must be a JSON string literal, such as "," with its quotes')),
        (b"a", {"tool": "text-extract-between", "start": '"["', "end": '"]"', "max-matches": "x"}, "invalid_input",
         problem("max-matches", "must be a JSON integer, such as 1")),
        (b"a", {"tool": "text-delimiter-chunk", "delimiter": '","', "max-splits": "1.0"}, "invalid_input",
         problem("max-splits", "must be an integer")),
        (b"a", {"tool": "text-delimiter-chunk", "delimiter": '","', "max-splits": "3.0"}, "invalid_input",
         problem("max-splits", "must be an integer")),
        (b"a", {"tool": "text-delimiter-chunk", "delimiter": '","', "max-splits": '"3"'}, "invalid_input",
         problem("max-splits", "must be an integer")),
        (b"a", {"tool": "text-delimiter-chunk", "delimiter": '","', "max-splits": "-1"}, "invalid_input",
         problem("max-splits", "must be at least 0")),
        (b"a", {"tool": "text-delimiter-chunk", "delimiter": '","', "max_splits": "1"}, "invalid_input",
         problem("max_splits", "is spelled max-splits in metadata")),
        (b"a", {"tool": "text-extract-between", "start": '"["'}, "invalid_input", problem("end", "is required")),
        (b",,,", {"tool": "text-delimiter-chunk", "delimiter": '""'}, "invalid_input",
         problem("delimiter", "must not be empty")),
        (b"a", {"tool": "text-delimiter-chunk", "delimiter": '"' + "x" * 257 + '"'}, "input_too_large",
         problem("delimiter", "must be at most 256 UTF-8 bytes")),
        (b"ok [open", {"tool": "text-extract-between", "start": '"["', "end": '"]"'}, "unclosed_start_marker",
         {"message": "The start marker at code point 3 has no end marker after it."}),
        (b"p\n\n" * 10_001, {}, "too_many_chunks", {"message": "The text has more than 10000 paragraphs."}),
        (b"a" * (LARGEST_TEXT_BYTES + 1), {}, "input_too_large",
         {"message": f"The text field is larger than {LARGEST_TEXT_BYTES} UTF-8 bytes.",
          "details": [{"field": "text", "problem": f"must be at most {LARGEST_TEXT_BYTES} UTF-8 bytes"}]}),
        (b"a" * 256_001, {"tool": "text-extract-between", "start": '"["', "end": '"]"'}, "input_too_large",
         {"message": "The text field is larger than 256000 UTF-8 bytes.",
          "details": [{"field": "text", "problem": "must be at most 256000 UTF-8 bytes"}]}),
    ],
)  # fmt: skip
def test_a_bad_document_becomes_its_error_object(
    s3: Any, chunker: ModuleType, upload: Upload, body: bytes, metadata: dict[str, str], code: str, expected: Any
) -> None:
    doc = upload("incoming/bad.txt", body, metadata)
    run(chunker, doc)
    assert keys(s3, "chunks/") == []
    written = read(s3, "errors/bad.txt.json")
    assert written["source"] == {"bucket": BUCKET, "key": "incoming/bad.txt", "version_id": doc["version"],
                                 "etag": doc["etag"], "size": doc["size"]}  # fmt: skip
    assert written["error"] == {"code": code, **expected}
    assert set(written) == {"source", "error"}


@pytest.mark.parametrize(
    ("parameters", "what"),
    [
        ('{"delimiter": ""}', "delimiter must not be empty"),
        ('{"delimiter": ",", "max_splits": -1}', "max_splits must be at least 0"),
        ('{"delimiter": 3}', "delimiter must be a string"),
        ('"\\n\\n"', "must be a JSON object of the API's field names and values"),
        ("{not json}", "must be a JSON object of the API's field names and values"),
    ],
)
def test_a_default_that_fails_the_tool_s_rules_names_default_parameters(
    s3: Any, chunker: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch, parameters: str, what: str
) -> None:
    """API.md: "A default that fails the tool's rules makes the document invalid_input with a
    message naming DefaultParameters"; a document's own metadata still wins over it."""
    monkeypatch.setenv("DEFAULT_TOOL", "text-delimiter-chunk")
    monkeypatch.setenv("DEFAULT_PARAMETERS", parameters)
    run(chunker, upload("incoming/d.txt", b"a,b"))
    assert read(s3, "errors/d.txt.json")["error"] == {
        "code": "invalid_input", "message": f"The DefaultParameters setting {what}.",
        "details": [{"field": "DefaultParameters", "problem": what}],
    }  # fmt: skip
    if parameters.startswith('{"'):
        run(chunker, upload("incoming/d.txt", b"a,b", {"delimiter": '","', "max-splits": "0"}))
        assert keys(s3, "errors/") == []
        assert read(s3, "chunks/d.txt.json")["result"]["chunk_count"] == 1


def test_bom_does_not_count_against_the_limit(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    run(chunker, upload("incoming/full.txt", "\ufeff".encode() + b"a" * LARGEST_TEXT_BYTES))
    assert read(s3, "chunks/full.txt.json")["result"]["paragraph_count"] == 1


def test_oversize_object_is_refused_from_the_event_without_a_download(
    s3: Any, chunker: ModuleType, upload: Upload
) -> None:
    calls: list[str] = []
    chunker.s3.meta.events.register("before-call.s3.GetObject", lambda **_: calls.append("GetObject"))
    doc = upload("incoming/huge.txt", b"a" * (LARGEST_TEXT_BYTES + 4))
    run(chunker, doc)
    assert calls == []
    assert read(s3, "errors/huge.txt.json")["error"] == {
        "code": "input_too_large",
        "message": f"The document is larger than {LARGEST_TEXT_BYTES} bytes, the most the json format takes: "
        "deploy with ChunksFormat=jsonl to chunk documents of up to MaxDocumentBytes.",
        "details": [
            {"field": "text", "problem": f"must be at most {LARGEST_TEXT_BYTES} UTF-8 bytes in the json format"}
        ],
    }


def test_one_bad_document_does_not_stop_the_others(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    docs = [upload("incoming/1.txt", b"one"), upload("incoming/2.txt", b"\xff"), upload("incoming/3.txt", b"three")]
    assert run(chunker, *docs) == {
        "records": 3, "outcomes": {"ok": 2, "invalid_input": 1},
        "documents": [{"key": "incoming/1.txt", "outcome": "ok", "output": "chunks/1.txt.json"},
                      {"key": "incoming/2.txt", "outcome": "invalid_input", "output": "errors/2.txt.json"},
                      {"key": "incoming/3.txt", "outcome": "ok", "output": "chunks/3.txt.json"}],
    }  # fmt: skip
    assert keys(s3, "chunks/") == ["chunks/1.txt.json", "chunks/3.txt.json"]
    assert keys(s3, "errors/") == ["errors/2.txt.json"]


def s3_fault(code: str, status: int, operation: str) -> ClientError:
    response: Any = {"Error": {"Code": code, "Message": "fault"}, "ResponseMetadata": {"HTTPStatusCode": status}}
    return ClientError(response, operation)


@pytest.mark.parametrize(("code", "status"), [("SlowDown", 503), ("InternalError", 500), ("ServiceUnavailable", 503)])
def test_transient_read_failure_raises_after_the_other_records(
    s3: Any, chunker: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch, code: str, status: int
) -> None:
    docs = [upload("incoming/1.txt", b"one"), upload("incoming/2.txt", b"two")]
    real_get = chunker.s3.get_object

    def flaky_get(**kwargs: Any) -> Any:
        if kwargs["Key"] == "incoming/1.txt":
            raise s3_fault(code, status, "GetObject")
        return real_get(**kwargs)

    monkeypatch.setattr(chunker.s3, "get_object", flaky_get)
    with pytest.raises(chunker.TransientFailure):
        run(chunker, *docs)
    assert keys(s3, "chunks/") == ["chunks/2.txt.json"]
    assert keys(s3, "errors/") == []  # a transient fault is never written as the document's error

    monkeypatch.setattr(chunker.s3, "get_object", real_get)  # Lambda's retry of the same event
    run(chunker, *docs)
    assert keys(s3, "chunks/") == ["chunks/1.txt.json", "chunks/2.txt.json"]


def test_write_that_fails_after_the_read_raises(
    s3: Any, chunker: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_put(**_: Any) -> Any:
        raise ClientError({"Error": {"Code": "InternalError", "Message": "x"}}, "PutObject")

    doc = upload("incoming/1.txt", b"one")
    monkeypatch.setattr(chunker.s3, "put_object", failing_put)
    with pytest.raises(chunker.TransientFailure):
        run(chunker, doc)


def test_a_bug_on_one_record_is_retried_after_the_others_and_leaks_nothing(
    s3: Any, chunker: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch, log_lines: Callable[[], list[str]]
) -> None:
    secret = "SECRET-DOCUMENT-TEXT"
    docs = [upload("incoming/1.txt", secret.encode()), upload("incoming/2.txt", b"two")]
    real_chunk_document = texttools.documents.chunk_document

    def buggy(source: Any, content: bytes, metadata: Any, defaults: Any) -> Any:
        if source.key == "incoming/1.txt":
            raise RuntimeError(secret)
        return real_chunk_document(source, content, metadata, defaults)

    monkeypatch.setattr(s3_documents, "chunk_document", buggy)
    with pytest.raises(chunker.TransientFailure):
        run(chunker, *docs)
    assert keys(s3, "chunks/") == ["chunks/2.txt.json"]
    assert keys(s3, "errors/") == []  # a bug is not the document's fault
    lines = [json.loads(line) for line in log_lines()]
    (failure,) = [line for line in lines if line.get("message") == "unexpected failure; it will be retried"]
    assert failure["failed_at"] == f"{__file__}:{buggy.__code__.co_firstlineno + 2}"
    metrics = [m["_aws"]["CloudWatchMetrics"][0]["Metrics"] for m in lines if "_aws" in m]
    assert sorted(metric["Name"] for metric in metrics[0]) == ["internal_error", "ok"]
    assert secret not in json.dumps(lines)
    assert "RuntimeError" not in json.dumps(lines)


def test_object_gone_before_the_event_is_skipped(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    doc = upload("incoming/gone.txt", b"a")
    s3.delete_object(Bucket=BUCKET, Key="incoming/gone.txt", VersionId=doc["version"])
    gone = [{"key": "incoming/gone.txt", "outcome": "gone", "output": None}]
    assert run(chunker, doc) == {"records": 1, "outcomes": {"gone": 1}, "documents": gone}
    assert keys(s3, "chunks/") == keys(s3, "errors/") == []


def test_the_event_version_is_chunked_even_after_an_overwrite(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    first = upload("incoming/v.txt", b"first\n\nversion")
    upload("incoming/v.txt", b"second")
    run(chunker, first)
    written = read(s3, "chunks/v.txt.json")
    assert written["source"]["version_id"] == first["version"]
    assert written["result"]["paragraph_count"] == 2


def test_unversioned_object_replaced_since_the_event_is_skipped(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    doc = upload("incoming/u.txt", b"old")
    upload("incoming/u.txt", b"new content")
    assert run(chunker, {**doc, "version": None})["outcomes"] == {"gone": 1}
    assert keys(s3, "chunks/") == []  # the newer object's own event chunks it


def test_same_event_twice_writes_the_same_bytes(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    docs = [upload("incoming/a.txt", "é\r\n\r\nb".encode()), upload("incoming/b.txt", b"\xff")]
    run(chunker, *docs)
    first = [s3.get_object(Bucket=BUCKET, Key=k)["Body"].read() for k in ("chunks/a.txt.json", "errors/b.txt.json")]
    run(chunker, *docs)
    again = [s3.get_object(Bucket=BUCKET, Key=k)["Body"].read() for k in ("chunks/a.txt.json", "errors/b.txt.json")]
    assert first == again


@pytest.mark.parametrize("key", ["chunks/x.txt.json", "errors/x.txt.json", "incoming/folder/", "other.txt"])
def test_only_documents_under_incoming_are_chunked(
    s3: Any, chunker: ModuleType, upload: Upload, log_lines: Callable[[], list[str]], key: str
) -> None:
    # the event names the object as it is
    assert run(chunker, upload(key, b"a"))["documents"] == [{"key": key, "outcome": "skipped", "output": None}]
    assert sorted(keys(s3, "")) == [key]
    messages = [message for line in log_lines() if (message := json.loads(line).get("message"))]
    assert messages == ["not a document: skipped"]


def test_output_is_compact_utf8_json(s3: Any, chunker: ModuleType, upload: Upload) -> None:
    run(chunker, upload("incoming/u.txt", "é😀".encode()))
    raw = s3.get_object(Bucket=BUCKET, Key="chunks/u.txt.json")
    assert raw["ContentType"] == "application/json"
    body = raw["Body"].read()
    assert "é😀".encode() in body
    assert b": " not in body
    assert b", " not in body


def test_logs_carry_sizes_and_codes_never_document_text(
    s3: Any, chunker: ModuleType, upload: Upload, log_lines: Callable[[], list[str]]
) -> None:
    secret = "SECRET-DOCUMENT-TEXT"
    run(chunker, upload("incoming/ok.txt", secret.encode()), upload("incoming/bad.txt", secret.encode(),
                                                                    {"tool": "text-extract-between"}))  # fmt: skip
    lines = [json.loads(line) for line in log_lines()]
    chunked = [line for line in lines if line.get("message") == "document chunked"]
    assert sorted(line["outcome"] for line in chunked) == ["invalid_input", "ok"]
    assert all(line["object_size"] == len(secret) and line["output_bytes"] > 0 for line in chunked)
    assert secret not in json.dumps(lines)


def test_markdown_size_chunk_gives_each_chunk_inside_a_table_its_header(
    s3: Any, chunker: ModuleType, upload: Upload
) -> None:
    """Issue 60 in the json format: a converted report's chunks as the API gives them, those that
    start inside a table after its delimiter row with that table's header and delimiter rows."""
    text = table_report(60_000)
    run(chunker, upload("incoming/report.md", text.encode(), {"tool": "markdown-size-chunk", "max-chars": "500"}))
    chunks = read(s3, "chunks/report.md.json")["result"]["chunks"]
    chosen = texttools.registry.tool("markdown-size-chunk")
    assert chunks == chosen.run(chosen.parse({"text": text, "max_chars": 500}))["chunks"]
    headed = [chunk for chunk in chunks if "table_header" in chunk]
    assert len(headed) > 10
    for chunk in headed:
        header = chunk["table_header"]
        assert header["text"] == text[header["start"] : header["end"]]
        assert header["text"].startswith("| Segment |")
        assert header["end"] <= chunk["start"]
