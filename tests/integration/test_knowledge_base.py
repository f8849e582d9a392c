"""``KnowledgeBaseChunkFunction`` against moto's S3, field by field against Bedrock's documented
shapes (its user guide, "kb-custom-transformation"): API.md's "Amazon Bedrock Knowledge Bases"."""

import importlib
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from botocore.exceptions import ClientError

from scripts.lambda_events import LocalContext
from scripts.sample_events import knowledge_base_samples
from scripts.template import ROOT, functions
from tests.integration.conftest import BUCKET, keys
from texttools.errors import InvalidInput

FUNCTION = "KnowledgeBaseChunkFunction"
OUTPUTS = functions()[FUNCTION].environment["KNOWLEDGE_BASE_OUTPUT_PREFIX"]
JOB = "JOB1234567"
Batch = list[tuple[str, dict[str, Any] | None]]
"""A content batch file's items: ``(contentBody, contentMetadata)``."""
Invoke = Callable[..., dict[str, Any]]


@pytest.fixture
def transformation(s3: Any, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The handler module, imported inside the mock, with the template's defaults."""
    for name in ("DEFAULT_TOOL", "DEFAULT_PARAMETERS"):
        monkeypatch.setenv(name, functions()[FUNCTION].environment[name])
    import knowledge_base_chunk_function

    return importlib.reload(knowledge_base_chunk_function)


def input_file(s3: Any, name: str, batches: list[Batch], metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write ``batches`` where Bedrock writes them; the event's entry for the file."""
    keys = []
    for number, items in enumerate(batches, start=1):
        key = f"bedrock/{JOB}/{name}/{number}.JSON"
        contents = [{"contentBody": body, "contentType": "TEXT", "contentMetadata": own} for body, own in items]
        s3.put_object(Bucket=BUCKET, Key=key, Body=json.dumps({"fileContents": contents}).encode())
        keys.append(key)
    location = {"type": "S3", "s3_location": {"uri": f"s3://corpus/{name}"}}
    given = {} if metadata is None else {"fileMetadata": metadata}
    return {"originalFileLocation": location, **given, "contentBatches": [{"key": key} for key in keys]}


def event(*files: dict[str, Any]) -> dict[str, Any]:
    return {"version": "1.0", "knowledgeBaseId": "KB12345678", "dataSourceId": "DS12345678", "ingestionJobId": JOB,
            "bucketName": BUCKET, "priorTask": "CHUNKING", "inputFiles": list(files)}  # fmt: skip


@pytest.fixture
def invoke(transformation: ModuleType) -> Invoke:
    def call(*files: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = transformation.lambda_handler(event(*files), LocalContext(FUNCTION))
        return answer

    return call


def batch_file(s3: Any, key: str) -> dict[str, Any]:
    return json.loads(s3.get_object(Bucket=BUCKET, Key=key)["Body"].read())  # type: ignore[no-any-return]


def chunks(s3: Any, answered: dict[str, Any]) -> list[dict[str, Any]]:
    """The items of an output file's batches, in order."""
    return [item for batch in answered["contentBatches"] for item in batch_file(s3, batch["key"])["fileContents"]]


def test_the_answer_and_the_batch_files_field_by_field(s3: Any, invoke: Invoke) -> None:
    page = {"x-amz-bedrock-kb-document-page-number": 1}
    guide = input_file(s3, "guide.md", [[("# Returns\n\nWithin 30 days.", page)]], {"department": "support"})
    answer = invoke(guide)
    assert list(answer) == ["outputFiles"]
    (answered,) = answer["outputFiles"]
    assert list(answered) == ["originalFileLocation", "fileMetadata", "contentBatches"]
    assert answered["originalFileLocation"] == {"type": "S3", "s3_location": {"uri": "s3://corpus/guide.md"}}
    assert answered["fileMetadata"] == {"department": "support"}
    (batch,) = answered["contentBatches"]
    assert list(batch) == ["key"]
    written = batch_file(s3, batch["key"])
    assert written == {"fileContents": [
        {"contentBody": "# Returns", "contentType": "TEXT", "contentMetadata": {**page,
         "chunk_tool": "text-paragraphs-split", "chunk_index": 0, "chunk_start": 0, "chunk_end": 9,
         "chunk_start_line": 1, "chunk_end_line": 1}},
        {"contentBody": "Within 30 days.", "contentType": "TEXT", "contentMetadata": {**page,
         "chunk_tool": "text-paragraphs-split", "chunk_index": 1, "chunk_start": 11, "chunk_end": 26,
         "chunk_start_line": 3, "chunk_end_line": 3}},
    ]}  # fmt: skip  # the template's default tool: text-paragraphs-split
    assert s3.get_object(Bucket=BUCKET, Key=batch["key"])["ContentType"] == "application/json"


def test_one_output_file_per_input_file_in_order_and_file_metadata_omitted_when_absent(s3: Any, invoke: Invoke) -> None:
    names = ["b.txt", "a.txt", "c.txt"]
    files = [input_file(s3, name, [[(f"{name}\n\nmore", None)]]) for name in names]
    answer = invoke(*files)
    assert [f["originalFileLocation"]["s3_location"]["uri"] for f in answer["outputFiles"]] == [
        f"s3://corpus/{name}" for name in names
    ]
    assert all("fileMetadata" not in f for f in answer["outputFiles"])
    assert [chunks(s3, f)[0]["contentBody"] for f in answer["outputFiles"]] == names


def test_file_metadata_is_echoed_as_given_even_where_it_chose_the_tool(s3: Any, invoke: Invoke) -> None:
    metadata = {"tool": "text-delimiter-chunk", "delimiter": ";", "max-splits": 1, "team": None, "tags": ["a"]}
    (answered,) = invoke(input_file(s3, "a.csv", [[("x;y;z", {})]], metadata))["outputFiles"]
    assert answered["fileMetadata"] == metadata
    assert [c["contentBody"] for c in chunks(s3, answered)] == ["x", "y;z"]


def test_each_item_restarts_its_indexes_offsets_and_lines_across_batches(s3: Any, invoke: Invoke) -> None:
    file = input_file(s3, "book.pdf", [[("a\n\nb", {"page": 1})], [("c\n\nd", {"page": 2}), ("\n\ne", {"page": 3})]])
    (answered,) = invoke(file)["outputFiles"]
    names = ("page", "chunk_index", "chunk_start", "chunk_start_line")
    spans = [(c["contentBody"], *(c["contentMetadata"][n] for n in names)) for c in chunks(s3, answered)]
    assert spans == [("a", 1, 0, 0, 1), ("b", 1, 1, 3, 3), ("c", 2, 0, 0, 1), ("d", 2, 1, 3, 3), ("e", 3, 0, 2, 3)]


def test_chunk_keys_replace_the_item_s_keys_of_the_same_name(s3: Any, invoke: Invoke) -> None:
    own = {"chunk_index": "mine", "chunk_tool": "mine", "chunk_start": -1, "chunk_size": 9, "title": "T"}
    (answered,) = invoke(input_file(s3, "a.txt", [[("a", own)]]))["outputFiles"]
    (chunk,) = chunks(s3, answered)
    assert chunk["contentMetadata"] == {"chunk_index": 0, "chunk_tool": "text-paragraphs-split", "chunk_start": 0,
                                        "chunk_size": 9, "title": "T", "chunk_end": 1, "chunk_start_line": 1,
                                        "chunk_end_line": 1}  # fmt: skip


@pytest.mark.parametrize(
    ("metadata", "body", "expected"),
    [
        ({"tool": "text-delimiter-chunk", "delimiter": "\n---\n", "max-splits": 1}, "a\n---\nb\n---\nc",
         [("a", {"chunk_index": 0, "chunk_start": 0, "chunk_end": 1, "chunk_start_line": 1, "chunk_end_line": 1}),
          ("b\n---\nc", {"chunk_index": 1, "chunk_start": 6, "chunk_end": 13, "chunk_start_line": 3,
                         "chunk_end_line": 5})]),
        ({"tool": "text-extract-between", "start": "[[", "end": "]]", "max-matches": 2}, "[[a]] [[]] [[b]] [[c]]",
         [("a", {"chunk_index": 0})]),
        ({"tool": "text-paragraphs-split"}, "p\r\n\r\nq",
         [("p", {"chunk_index": 0, "chunk_start": 0, "chunk_end": 1, "chunk_start_line": 1, "chunk_end_line": 1}),
          ("q", {"chunk_index": 1, "chunk_start": 5, "chunk_end": 6, "chunk_start_line": 3, "chunk_end_line": 3})]),
    ],
)  # fmt: skip
def test_file_metadata_chooses_each_tool(
    s3: Any, invoke: Invoke, metadata: dict[str, Any], body: str, expected: list[tuple[str, dict[str, Any]]]
) -> None:
    (answered,) = invoke(input_file(s3, "doc.txt", [[(body, {})]], metadata))["outputFiles"]
    tool_id = metadata["tool"]
    assert [(c["contentBody"], c["contentMetadata"]) for c in chunks(s3, answered)] == [
        (text, {"chunk_tool": tool_id, **where}) for text, where in expected
    ]


def test_the_defaults_are_the_template_s(s3: Any, transformation: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """DefaultTool and DefaultParameters (a JSON object of the API's field names), as in the S3 flow."""
    monkeypatch.setenv("DEFAULT_TOOL", "text-delimiter-chunk")
    monkeypatch.setenv("DEFAULT_PARAMETERS", '{"delimiter": "|", "max_splits": 1}')
    answer = transformation.lambda_handler(event(input_file(s3, "a.txt", [[("x|y|z", {})]])), LocalContext(FUNCTION))
    assert [c["contentBody"] for c in chunks(s3, answer["outputFiles"][0])] == ["x", "y|z"]


def test_outputs_go_under_the_function_s_prefix_never_over_an_input(s3: Any, invoke: Invoke) -> None:
    files = [input_file(s3, name, [[("a\n\nb", {})], [("c", {})]]) for name in ("one.txt", "two.txt")]
    inputs = set(keys(s3, "bedrock/"))
    answer = invoke(*files)
    outputs = [batch["key"] for f in answer["outputFiles"] for batch in f["contentBatches"]]
    assert all(key.startswith(f"{OUTPUTS}{JOB}/") for key in outputs)
    assert len(set(outputs)) == len(outputs) == 2
    assert set(keys(s3, "bedrock/")) == inputs  # every input batch as it was
    assert sorted(keys(s3, OUTPUTS)) == sorted(outputs)


def test_a_retried_invocation_writes_the_same_keys_and_bytes(s3: Any, invoke: Invoke) -> None:
    file = input_file(s3, "a.txt", [[("a\n\nb", {"p": 1})]])
    first = invoke(file)
    written = {key: s3.get_object(Bucket=BUCKET, Key=key)["Body"].read() for key in keys(s3, OUTPUTS)}
    assert invoke(file) == first
    assert {key: s3.get_object(Bucket=BUCKET, Key=key)["Body"].read() for key in keys(s3, OUTPUTS)} == written


def test_a_file_with_no_chunks_has_no_batches(s3: Any, invoke: Invoke) -> None:
    empty = input_file(s3, "blank.txt", [[("\n \n", {})], [("", {})]])
    no_batches = input_file(s3, "none.txt", [])
    answer = invoke(empty, no_batches)
    assert [f["contentBatches"] for f in answer["outputFiles"]] == [[], []]
    assert keys(s3, OUTPUTS) == []


def test_a_large_content_body_fills_several_bounded_batches(s3: Any, invoke: Invoke) -> None:
    """Over every API limit (256 KiB of text, the chunk count): 2 500 chunks in 1 000-item batches."""
    body = "\n\n".join(f"paragraph {n} " + "x" * 200 for n in range(2500))
    (answered,) = invoke(input_file(s3, "book.txt", [[(body, {})]]))["outputFiles"]
    sizes = [len(batch_file(s3, b["key"])["fileContents"]) for b in answered["contentBatches"]]
    assert sizes == [1000, 1000, 500]
    assert [b["key"].rsplit("/", 1)[1] for b in answered["contentBatches"]] == [
        "00000.json",
        "00001.json",
        "00002.json",
    ]
    assert [c["contentMetadata"]["chunk_index"] for c in chunks(s3, answered)] == list(range(2500))


@pytest.mark.parametrize(
    ("metadata", "body", "code"),
    [
        ({"tool": "text-delimiter-chunk", "delimiter": ",", "max-splits": "3"}, "a,b", "invalid_input"),
        ({"tool": "text-delimiter-chunk", "delimiter": ",", "max-splits": 3.0}, "a,b", "invalid_input"),
        ({"tool": "text-unknown"}, "a", "invalid_input"),
        ({"tool": "text-delimiter-chunk", "delimiter": "x" * 257}, "a", "input_too_large"),
        ({"tool": "text-extract-between", "start": "<", "end": ">"}, "<a> <b", "unclosed_start_marker"),
    ],
)
def test_a_file_that_cannot_be_chunked_fails_the_invocation_naming_its_uri_and_code(
    s3: Any, invoke: Invoke, metadata: dict[str, Any], body: str, code: str
) -> None:
    """Earlier files' outputs may remain; none of the failed file's is written."""
    good = input_file(s3, "good.txt", [[("a\n\nb", {})]])
    bad = input_file(s3, "bad name.txt", [[(body, {})]], metadata)
    with pytest.raises(Exception, match=rf"^s3://corpus/bad name\.txt: {code}: "):
        invoke(good, bad)
    (remaining,) = keys(s3, OUTPUTS)  # the good file's one batch
    assert [item["contentBody"] for item in batch_file(s3, remaining)["fileContents"]] == ["a", "b"]


def test_batches_already_written_of_a_file_that_fails_later_are_deleted(s3: Any, invoke: Invoke) -> None:
    """An unclosed marker found after 1 500 matches, that is after a full batch was written."""
    metadata = {"tool": "text-extract-between", "start": "<", "end": ">", "max-matches": 5000}
    bad = input_file(s3, "late.txt", [[("<m>" * 1500, {})], [("<unclosed", {})]], metadata)
    with pytest.raises(Exception, match=r"^s3://corpus/late\.txt: unclosed_start_marker: "):
        invoke(bad)
    assert keys(s3, OUTPUTS) == []


def test_a_batch_file_that_is_not_bedrock_s_is_the_file_s_invalid_input(s3: Any, invoke: Invoke) -> None:
    s3.put_object(Bucket=BUCKET, Key="bedrock/odd.JSON", Body=b'{"contents": []}')
    odd = {"originalFileLocation": {"type": "S3", "s3_location": {"uri": "s3://corpus/odd"}},
           "contentBatches": [{"key": "bedrock/odd.JSON"}]}  # fmt: skip
    with pytest.raises(Exception, match=r"^s3://corpus/odd: invalid_input: A content batch file is not Bedrock's"):
        invoke(odd)


def test_an_event_that_is_not_bedrock_s_is_refused_without_echoing_it(transformation: ModuleType) -> None:
    with pytest.raises(InvalidInput) as refused:
        transformation.lambda_handler({"inputFiles": "secret text"}, LocalContext(FUNCTION))
    assert "secret" not in str(refused.value)


def test_a_fault_of_s3_fails_the_invocation_so_that_it_is_retried(s3: Any, invoke: Invoke) -> None:
    missing = {"originalFileLocation": {"type": "S3", "s3_location": {"uri": "s3://corpus/m"}},
               "contentBatches": [{"key": "bedrock/never-written.JSON"}]}  # fmt: skip
    with pytest.raises(ClientError):
        invoke(missing)


def test_logs_and_metrics_carry_codes_and_counts_never_text_or_locations(
    s3: Any, invoke: Invoke, log_lines: Callable[[], list[str]]
) -> None:
    good = input_file(s3, "secret-name.txt", [[("secret body\n\nmore", {"secret-key": "secret value"})]])
    bad = input_file(s3, "secret-bad.txt", [[("x", {})]], {"tool": "secret-tool"})
    with pytest.raises(Exception, match="invalid_input"):
        invoke(good, bad)
    lines = log_lines()
    assert lines
    assert not any("secret" in line for line in lines)
    logs = [json.loads(line) for line in lines]
    assert [(entry["message"], entry["outcome"]) for entry in logs if "outcome" in entry] == [
        ("file chunked", "ok"), ("file failed", "invalid_input")
    ]  # fmt: skip
    (metric,) = [entry for entry in logs if "_aws" in entry]
    assert (metric["ok"], metric["invalid_input"]) == ([1.0], [1.0])


def test_the_docs_chunk_is_what_the_one_batch_sample_writes(s3: Any, transformation: ModuleType) -> None:
    (sample,) = [s for s in knowledge_base_samples() if s.case == "one-batch"]
    for key, body in sample.documents.items():
        s3.put_object(Bucket=BUCKET, Key=key, Body=body)
    answer = transformation.lambda_handler(sample.event, LocalContext(FUNCTION))
    page = (ROOT / "docs" / "knowledge-base.md").read_text(encoding="utf-8")
    shown = page.split("A chunk as Bedrock indexes it", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    assert chunks(s3, answer["outputFiles"][0])[-1] == json.loads(shown)


def test_a_chunk_that_starts_inside_a_table_carries_its_header(s3: Any, invoke: Invoke) -> None:
    """API.md: a markdown-size-chunk chunk with ``table_header`` adds ``chunk_table_header``, its
    text, a header over 512 UTF-8 bytes cut as ``chunk_path`` is; every other chunk has none."""
    short = "| Region | Q1 |\n|:--|--:|"
    wide = "| " + " | ".join(f"Spalte {n} 😀" for n in range(40)) + " |\n|" + "---|" * 40
    rows = "".join(f"| Region {n} | {n},000 |\n" for n in range(30))
    wide_rows = "".join("| " + " | ".join(f"{row}.{n}" for n in range(40)) + " |\n" for row in range(3))
    report = f"# Results\n\n{short}\n{rows}\nAll figures in millions.\n\n{wide}\n{wide_rows}"
    (answered,) = invoke(input_file(s3, "report.md", [[(report, {"page": 1})]],
                                    {"tool": "markdown-size-chunk", "max-chars": 120}))["outputFiles"]  # fmt: skip
    items = chunks(s3, answered)
    headers = [item["contentMetadata"].get("chunk_table_header") for item in items]
    assert headers[0] is None  # the heading and the table's first rows
    assert headers.count(short) > 1
    (capped, *_) = [header for header in headers if header not in (None, short)]
    assert len(capped.encode()) <= 512 < len(wide.encode())
    assert capped.endswith("\u2026")
    assert wide.startswith(capped.removesuffix("\u2026"))
    assert all(header in (None, short, capped) for header in headers)
    for item, header in zip(items, headers, strict=True):
        start = item["contentMetadata"]["chunk_start"]
        inside = report.index(short) + len(short) <= start < report.index("All") or report.index(wide) + len(
            wide) <= start  # fmt: skip
        assert (header is not None) == inside, (start, header)
