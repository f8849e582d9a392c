"""API.md "Amazon Bedrock Knowledge Bases: custom chunking", the pure part: Bedrock's shapes, the
tool chosen by a file's metadata, and the output items made from the input items."""

from dataclasses import replace
from typing import Any
from unittest.mock import patch

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import texttools.knowledge_base as kb
from tests import reference
from texttools.documents import Defaults
from texttools.errors import InputTooLarge, InvalidInput, OutputTooLarge, TooManyChunks, UnclosedStartMarker
from texttools.knowledge_base import (
    Content,
    ContentFile,
    FileFailed,
    InputFile,
    TransformationEvent,
    TransformationResult,
    batch_files,
    batch_folder,
    chunk_contents,
    tool_and_parameters,
)
from texttools.registry import TOOL_IDS, tool
from texttools.tokens import encoding

DELIMITER, EXTRACT, PARAGRAPHS = "text-delimiter-chunk", "text-extract-between", "text-paragraphs-split"
DEFAULTS = Defaults(PARAGRAPHS, '{"delimiter": "\\n\\n"}')
"""As the template's defaults reach the function: DefaultTool, and DefaultParameters as JSON text."""

DOCUMENTED_EVENT: dict[str, Any] = {  # Bedrock's user guide, "Custom Lambda transformation input format"
    "version": "1.0",
    "knowledgeBaseId": "KB12345678",
    "dataSourceId": "DS12345678",
    "ingestionJobId": "JOB1234567",
    "bucketName": "intermediate-bucket",
    "priorTask": "CHUNKING",
    "inputFiles": [
        {
            "originalFileLocation": {"type": "S3", "s3_location": {"uri": "s3://corpus/guide.pdf"}},
            "fileMetadata": {"key1": "value1", "key2": "value2"},
            "contentBatches": [{"key": "aws/bedrock/JOB1234567/1.JSON"}, {"key": "aws/bedrock/JOB1234567/2.JSON"}],
        }
    ],
}


def items(tool_id: str, params: dict[str, Any], *bodies: str, metadata: dict[str, Any] | None = None) -> list[Any]:
    chosen = tool(tool_id)
    contents = [Content(contentBody=body, contentType="TEXT", contentMetadata=metadata) for body in bodies]
    return list(chunk_contents(chosen, chosen.parse_parameters(params), contents))


# --- Bedrock's shapes ------------------------------------------------------------------------------


def test_the_documented_event_is_read_field_by_field() -> None:
    event = TransformationEvent.model_validate(DOCUMENTED_EVENT)
    assert (event.ingestionJobId, event.bucketName) == ("JOB1234567", "intermediate-bucket")
    (file,) = event.inputFiles
    assert file.originalFileLocation.uri == "s3://corpus/guide.pdf"
    assert file.fileMetadata == {"key1": "value1", "key2": "value2"}
    assert [batch.key for batch in file.contentBatches] == [
        "aws/bedrock/JOB1234567/1.JSON",
        "aws/bedrock/JOB1234567/2.JSON",
    ]


def test_an_event_needs_only_what_the_function_uses() -> None:
    """The ids it does not use may be missing; the job id, the bucket and the files may not."""
    minimal = {key: DOCUMENTED_EVENT[key] for key in ("ingestionJobId", "bucketName", "inputFiles")}
    assert TransformationEvent.model_validate(minimal).inputFiles[0].originalFileLocation.uri == "s3://corpus/guide.pdf"
    for required in minimal:
        with pytest.raises(ValueError, match=required):
            TransformationEvent.model_validate({k: v for k, v in minimal.items() if k != required})


def test_the_answer_echoes_location_and_metadata_as_given_with_its_batches() -> None:
    """The documented output format: ``outputFiles[]`` of ``originalFileLocation`` (as it came, with
    any field Bedrock adds), ``fileMetadata`` (omitted when the input has none) and ``contentBatches``."""
    located = {"type": "S3", "s3_location": {"uri": "s3://corpus/a.txt", "versionId": "v1"}, "added": [1, None]}
    with_metadata = {"originalFileLocation": located, "fileMetadata": {"n": None, "tool": DELIMITER}}
    without = {"originalFileLocation": {"type": "S3", "s3_location": {"uri": "s3://corpus/b.txt"}}}
    files = [
        InputFile.model_validate({**given, "contentBatches": [{"key": "in/1"}]}) for given in (with_metadata, without)
    ]
    answer = TransformationResult(outputFiles=[
        files[0].answered([kb.ContentBatch(key="out/a/00000.json"), kb.ContentBatch(key="out/a/00001.json")]),
        files[1].answered([]),
    ]).answer()  # fmt: skip
    assert orjson.dumps(answer) == orjson.dumps({
        "outputFiles": [
            {"originalFileLocation": located, "fileMetadata": {"n": None, "tool": DELIMITER},
             "contentBatches": [{"key": "out/a/00000.json"}, {"key": "out/a/00001.json"}]},
            {"originalFileLocation": without["originalFileLocation"], "contentBatches": []},
        ]
    })  # fmt: skip  # (the bytes: names, order and nothing more)


def test_a_location_without_an_s3_uri_is_named_by_its_json() -> None:
    location = kb.FileLocation.model_validate({"type": "WEB", "webLocation": {"url": "https://example.com/a"}})
    assert location.uri == '{"type":"WEB","webLocation":{"url":"https://example.com/a"}}'


def test_a_failed_file_is_named_by_its_uri_and_error_code() -> None:
    location = kb.FileLocation.model_validate({"type": "S3", "s3_location": {"uri": "s3://corpus/x y.txt"}})
    failure = FileFailed(location, UnclosedStartMarker("A start marker has no end marker after it."))
    assert str(failure) == "s3://corpus/x y.txt: unclosed_start_marker: A start marker has no end marker after it."
    assert failure.error.code == "unclosed_start_marker"


def test_a_content_batch_file_is_read_with_or_without_metadata() -> None:
    batch = ContentFile.model_validate_json(
        b'{"fileContents": [{"contentBody": "a", "contentType": "PDF", "contentMetadata": {"p": 1}},'
        b' {"contentBody": "b", "contentType": "TEXT"}, {"contentBody": "c", "contentMetadata": null}]}'
    )
    assert [(c.contentBody, c.contentType, c.contentMetadata) for c in batch.fileContents] == [
        ("a", "PDF", {"p": 1}), ("b", "TEXT", None), ("c", "TEXT", None)
    ]  # fmt: skip


# --- the tool and its parameters ------------------------------------------------------------------


def test_without_file_metadata_the_defaults_choose() -> None:
    chosen, params = tool_and_parameters(None, DEFAULTS)
    assert (chosen.id, params) == (PARAGRAPHS, {})
    chosen, params = tool_and_parameters({}, Defaults(DELIMITER, '{"delimiter": "\\n---\\n", "max_splits": 2}'))
    assert (chosen.id, params) == (DELIMITER, {"delimiter": "\n---\n", "max_splits": 2})


def test_file_metadata_values_are_json_values_as_they_are() -> None:
    """Not JSON literals inside strings: this metadata is JSON already."""
    chosen, params = tool_and_parameters({"tool": DELIMITER, "delimiter": "\n", "max-splits": 3}, DEFAULTS)
    assert (chosen.id, params) == (DELIMITER, {"delimiter": "\n", "max_splits": 3})
    _, params = tool_and_parameters({"tool": DELIMITER, "delimiter": '"\\n"'}, DEFAULTS)
    assert params["delimiter"] == '"\\n"'  # four characters, quotes and all
    chosen, params = tool_and_parameters({"tool": EXTRACT, "start": "[[", "end": "]]", "max-matches": 7}, DEFAULTS)
    assert (chosen.id, params) == (EXTRACT, {"start": "[[", "end": "]]", "max_matches": 7})


def test_file_metadata_overrides_each_default_and_the_user_s_own_keys_are_ignored() -> None:
    defaults = Defaults(DELIMITER, '{"delimiter": "\\n\\n", "max_splits": 1}')
    chosen, params = tool_and_parameters({"delimiter": ";", "department": "support", "tool-x": 1}, defaults)
    assert (chosen.id, params) == (DELIMITER, {"delimiter": ";", "max_splits": 1})
    chosen, params = tool_and_parameters({"tool": PARAGRAPHS}, Defaults(DELIMITER, '{"delimiter": ";"}'))
    assert (chosen.id, params) == (PARAGRAPHS, {})  # the defaults' delimiter parameterises no paragraphs


@pytest.mark.parametrize("value", ["3", 3.0, True, None, [3]])
@pytest.mark.parametrize("key", ["max-splits", "max-matches"])
def test_counts_must_be_json_integers(key: str, value: Any) -> None:
    chosen = DELIMITER if key == "max-splits" else EXTRACT
    with pytest.raises(InvalidInput):
        tool_and_parameters({"tool": chosen, "delimiter": ",", "start": "<", "end": ">", key: value}, DEFAULTS)


@pytest.mark.parametrize("value", ["text-unknown", 3, None, [DELIMITER], " " + DELIMITER])
def test_an_unknown_tool_is_invalid_input(value: Any) -> None:
    with pytest.raises(InvalidInput, match="The tool metadata must be one of"):
        tool_and_parameters({"tool": value}, DEFAULTS)


@pytest.mark.parametrize("parameters", ['{"delimiter": ""}', '{"delimiter": 3}', '"\\n\\n"', "[]", "{", ""])
def test_a_bad_default_is_invalid_input_naming_default_parameters(parameters: str) -> None:
    with pytest.raises(InvalidInput, match=r"^The DefaultParameters setting ") as raised:
        tool_and_parameters(None, Defaults(DELIMITER, parameters or "{"))
    assert [problem["field"] for problem in raised.value.details] == ["DefaultParameters"]


@pytest.mark.parametrize(("metadata", "field", "problem"), [
    ({"tool": DELIMITER, "max-splits": "3"}, "max-splits", "must be an integer"),
    ({"tool": DELIMITER, "max-splits": -1}, "max-splits", "must be at least 0"),
    ({"tool": DELIMITER, "delimiter": ""}, "delimiter", "must not be empty"),
    ({"tool": EXTRACT, "start": "<"}, "end", "is required"),
    ({"tool": DELIMITER, "max_splits": 3}, "max_splits", "is spelled max-splits in metadata"),
    ({"tool": EXTRACT, "start": "<", "end": ">", "max_matches": 3}, "max_matches",
     "is spelled max-matches in metadata"),
])  # fmt: skip
def test_a_failure_names_the_metadata_key_at_fault(metadata: dict[str, Any], field: str, problem: str) -> None:
    """API.md: "The failure message names the metadata key at fault"."""
    with pytest.raises(InvalidInput) as raised:
        tool_and_parameters(metadata, DEFAULTS)
    assert raised.value.details == [{"field": field, "problem": problem}]
    assert raised.value.message == f"The {field} metadata {problem}."


def test_the_delimiter_and_marker_limits_stay() -> None:
    """256 bytes of delimiter, 4096 of marker (API.md: the jsonl limits)."""
    assert tool_and_parameters({"tool": DELIMITER, "delimiter": "é" * 128}, DEFAULTS)[1]["delimiter"] == "é" * 128
    with pytest.raises(InputTooLarge):
        tool_and_parameters({"tool": DELIMITER, "delimiter": "é" * 128 + "x"}, DEFAULTS)
    assert tool_and_parameters({"tool": EXTRACT, "start": "x" * 4096, "end": "y"}, DEFAULTS)
    with pytest.raises(InputTooLarge):
        tool_and_parameters({"tool": EXTRACT, "start": "x" * 4097, "end": "y"}, DEFAULTS)


# --- the output items -----------------------------------------------------------------------------


def test_each_item_is_chunked_on_its_own_with_its_metadata_and_the_chunk_s() -> None:
    own = {"x-amz-bedrock-kb-document-page-number": 4, "chunk_index": "theirs", "chunk_tool": "theirs"}
    assert items(PARAGRAPHS, {}, "a\n\nb", "😀c\r\n\r\nd", metadata=own) == [
        {"contentBody": "a", "contentType": "TEXT", "contentMetadata": {**own, "chunk_tool": PARAGRAPHS,
         "chunk_index": 0, "chunk_start": 0, "chunk_end": 1, "chunk_start_line": 1, "chunk_end_line": 1}},
        {"contentBody": "b", "contentType": "TEXT", "contentMetadata": {**own, "chunk_tool": PARAGRAPHS,
         "chunk_index": 1, "chunk_start": 3, "chunk_end": 4, "chunk_start_line": 3, "chunk_end_line": 3}},
        {"contentBody": "😀c", "contentType": "TEXT", "contentMetadata": {**own, "chunk_tool": PARAGRAPHS,
         "chunk_index": 0, "chunk_start": 0, "chunk_end": 2, "chunk_start_line": 1, "chunk_end_line": 1}},
        {"contentBody": "d", "contentType": "TEXT", "contentMetadata": {**own, "chunk_tool": PARAGRAPHS,
         "chunk_index": 1, "chunk_start": 6, "chunk_end": 7, "chunk_start_line": 3, "chunk_end_line": 3}},
    ]  # fmt: skip  # offsets in code points: the astral 😀 is one


def test_an_item_without_metadata_gets_the_chunk_keys_only() -> None:
    (item,) = items(DELIMITER, {"delimiter": ","}, "a")
    assert item["contentMetadata"] == {"chunk_tool": DELIMITER, "chunk_index": 0, "chunk_start": 0, "chunk_end": 1,
                                       "chunk_start_line": 1, "chunk_end_line": 1}  # fmt: skip


def test_empty_chunks_are_left_out_and_indexes_keep_their_numbering() -> None:
    chunked = items(DELIMITER, {"delimiter": ","}, ",a,,b,")
    assert [(i["contentBody"], i["contentMetadata"]["chunk_index"]) for i in chunked] == [("a", 1), ("b", 3)]
    assert items(DELIMITER, {"delimiter": ","}, "", ",,") == []
    assert items(PARAGRAPHS, {}, "\n \n\t\n") == []


def test_matches_carry_the_tool_and_their_index_only() -> None:
    chunked = items(EXTRACT, {"start": "[", "end": "]"}, "[a] [] [b]", metadata={"p": 1})
    assert chunked == [
        {
            "contentBody": body,
            "contentType": "TEXT",
            "contentMetadata": {"p": 1, "chunk_tool": EXTRACT, "chunk_index": n},
        }
        for body, n in (("a", 0), ("b", 2))
    ]


def test_max_matches_defaults_to_100_and_there_is_no_truncated_flag() -> None:
    chunked = items(EXTRACT, {"start": "<", "end": ">"}, "<m>" * 150)
    assert len(chunked) == 100
    assert all(set(item) == {"contentBody", "contentType", "contentMetadata"} for item in chunked)
    assert len(items(EXTRACT, {"start": "<", "end": ">", "max_matches": 120}, "<m>" * 150)) == 120


def test_an_unclosed_start_marker_is_its_error() -> None:
    with pytest.raises(UnclosedStartMarker):
        items(EXTRACT, {"start": "<", "end": ">"}, "<a> <b")


def test_a_leading_bom_is_dropped_and_every_content_type_is_chunked_as_text() -> None:
    chosen = tool(DELIMITER)
    contents = [Content(contentBody="\ufeffa,\ufeffb", contentType=kind) for kind in ("TEXT", "PDF", "WHATEVER")]
    chunked = list(chunk_contents(chosen, chosen.parse_parameters({"delimiter": ","}), contents))
    assert [(i["contentBody"], i["contentType"], i["contentMetadata"]["chunk_start"]) for i in chunked] == [
        ("a", "TEXT", 0), ("\ufeffb", "TEXT", 2)
    ] * 3  # fmt: skip  # only the leading one; offsets count from after it


def test_content_larger_than_any_api_limit_is_chunked() -> None:
    body = "\n\n".join(["p" * 1000] * 600)  # 600 KB, 600 paragraphs: over the API's text and count limits
    chunked = items(PARAGRAPHS, {}, body)
    assert len(chunked) == 600
    assert chunked[-1]["contentMetadata"]["chunk_end"] == len(body)


def test_a_tool_without_a_streaming_form_is_run_in_memory_within_its_limits() -> None:
    whole = replace(tool(PARAGRAPHS), stream=None)
    contents = [Content(contentBody="a\n\nb")]
    assert [i["contentBody"] for i in chunk_contents(whole, {}, contents)] == ["a", "b"]
    too_large = [Content(contentBody="x" * (whole.byte_limits["text"] + 1))]
    with pytest.raises(InputTooLarge):
        list(chunk_contents(whole, {}, too_large))


# --- the property: the chunks are the tool's ------------------------------------------------------

PIECES = ["\r", "\n", "\r\n", " ", "\t", "a", "é", "😀", ",", ",,", "[", "]", "\n\n", "\ufeff"]
texts = st.lists(st.sampled_from(PIECES), max_size=50).map("".join)


def expected_items(tool_id: str, text: str, params: dict[str, Any], metadata: dict[str, Any]) -> list[Any]:
    """What API.md says the items are, from the reference implementation (tests/reference.py)."""
    body = text.removeprefix("\ufeff")
    if tool_id == EXTRACT:
        found = reference.extract_between(body, params["start"], params["end"])["matches"]
        spans: list[dict[str, Any]] = [{"index": index, "text": match} for index, match in enumerate(found)]
    elif tool_id == DELIMITER:
        spans = reference.delimiter_chunk(body, params["delimiter"], params.get("max_splits", -1))["chunks"]
    else:
        spans = reference.paragraphs_split(body)["paragraphs"]
    names = ("index", "start", "end", "start_line", "end_line")
    return [
        {"contentBody": span["text"], "contentType": "TEXT", "contentMetadata": {
            **metadata, "chunk_tool": tool_id, **{f"chunk_{n}": span[n] for n in names if n in span}}}
        for span in spans if span["text"]
    ]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    bodies=st.lists(texts, min_size=1, max_size=3),
    tool_id=st.sampled_from([DELIMITER, EXTRACT, PARAGRAPHS]),
    max_splits=st.one_of(st.none(), st.integers(0, 4)),
    metadata=st.dictionaries(st.sampled_from(["p", "chunk_end", "chunk_start_line"]), st.integers(), max_size=2),
)
def test_the_chunks_are_the_tool_s_on_each_item(
    bodies: list[str], tool_id: str, max_splits: int | None, metadata: dict[str, Any]
) -> None:
    splits: dict[str, Any] = {} if max_splits is None else {"max_splits": max_splits}
    params: dict[str, Any] = {
        DELIMITER: {"delimiter": ",", **splits},
        EXTRACT: {"start": "[", "end": "]"},
        PARAGRAPHS: {},
    }[tool_id]
    try:
        expected = [item for body in bodies for item in expected_items(tool_id, body, params, metadata)]
    except reference.Unclosed:
        with pytest.raises(UnclosedStartMarker):
            items(tool_id, params, *bodies, metadata=metadata)
        return
    assert items(tool_id, params, *bodies, metadata=metadata) == expected


# --- output batch files ---------------------------------------------------------------------------


def test_batch_files_hold_at_most_1000_items() -> None:
    chunked = items(DELIMITER, {"delimiter": ","}, ",".join(map(str, range(2500))))
    files = list(batch_files(chunked))
    assert [count for _, count in files] == [1000, 1000, 500]
    read = [ContentFile.model_validate_json(body) for body, _ in files]
    assert [c.model_dump() for f in read for c in f.fileContents] == chunked  # in order, nothing lost or added
    assert all(orjson.loads(body).keys() == {"fileContents"} for body, _ in files)


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.integers(0, 40), max_size=30), max_items=st.integers(1, 5), max_bytes=st.integers(1, 300))
def test_a_batch_file_ends_at_the_item_that_reaches_either_bound(
    sizes: list[int], max_items: int, max_bytes: int
) -> None:
    chunked = [{"contentBody": "x" * size, "contentType": "TEXT", "contentMetadata": {}} for size in sizes]
    with patch.object(kb, "MAX_ITEMS_PER_BATCH", max_items), patch.object(kb, "MAX_BYTES_PER_BATCH", max_bytes):
        files = list(batch_files(chunked))  # type: ignore[arg-type]
    assert [item for body, _ in files for item in orjson.loads(body)["fileContents"]] == chunked
    for number, (body, count) in enumerate(files):
        assert count == len(orjson.loads(body)["fileContents"]) <= max_items
        without_last = len(b",".join(orjson.dumps(i) for i in orjson.loads(body)["fileContents"][:-1]))
        assert without_last < max_bytes  # a file goes over the bytes bound only by its last item
        if number < len(files) - 1:
            assert count == max_items or len(body) - len(b'{"fileContents":[]}') + 1 >= max_bytes


def test_the_batch_folder_is_the_same_for_a_retry_and_differs_between_files() -> None:
    file = InputFile.model_validate(DOCUMENTED_EVENT["inputFiles"][0])
    again = InputFile.model_validate(orjson.loads(orjson.dumps(DOCUMENTED_EVENT["inputFiles"][0])))
    assert batch_folder(file) == batch_folder(again)
    assert len(batch_folder(file)) == 32
    other_batches = file.model_copy(update={"contentBatches": file.contentBatches[:1]})
    other_location = InputFile.model_validate({**DOCUMENTED_EVENT["inputFiles"][0], "originalFileLocation": {
        "type": "S3", "s3_location": {"uri": "s3://corpus/other.pdf"}}})  # fmt: skip
    assert len({batch_folder(file), batch_folder(other_batches), batch_folder(other_location)}) == 3


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_the_chunk_keys_stay_small_for_vector_stores(tool_id: str) -> None:
    """Under 256 bytes with every number at its largest, besides a section's path of at most
    ``MAX_PATH_BYTES`` (S3 Vectors: about 2 KB of filterable metadata per vector)."""
    chosen = tool(tool_id)
    example = chosen.descriptor.data["examples"][0]["input"]
    params = chosen.parse_parameters({k: v for k, v in example.items() if k != "text"})
    (first, *_) = chunk_contents(chosen, params, [Content(contentBody=example["text"])])
    largest = {key: 9_007_199_254_740_991 if isinstance(value, int) else value
               for key, value in first["contentMetadata"].items() if key != "chunk_path"}  # fmt: skip
    assert len(orjson.dumps(largest)) < 256


def test_a_section_carries_its_heading_path_joined() -> None:
    chunked = items("markdown-sections-chunk", {}, "intro\n# A\n## B\n### C\ntext", metadata={"p": 1})
    assert [(i["contentBody"], i["contentMetadata"]["chunk_path"]) for i in chunked] == [
        ("intro", ""), ("# A", ""), ("## B", "A"), ("### C\ntext", "A > B")
    ]  # fmt: skip
    assert chunked[-1]["contentMetadata"] == {"p": 1, "chunk_tool": "markdown-sections-chunk", "chunk_index": 3,
                                              "chunk_start": 15, "chunk_end": 25, "chunk_start_line": 4,
                                              "chunk_end_line": 5, "chunk_path": "A > B"}  # fmt: skip


def test_a_markdown_size_chunk_carries_its_headings_as_its_path() -> None:
    """API.md: a markdown-size-chunk chunk's ``headings`` joined (its own section's heading last,
    unlike a section's ``path``), ``""`` before the first heading."""
    text = "intro\n\n# A\n\n## B\n\ntext under b"
    chunked = items("markdown-size-chunk", {"max_chars": 12}, text, metadata={"p": 1})
    assert [(i["contentBody"], i["contentMetadata"]["chunk_path"]) for i in chunked] == [
        ("intro", ""), ("# A\n\n## B", "A"), ("text under b", "A > B")
    ]  # fmt: skip
    assert chunked[1]["contentMetadata"] == {"p": 1, "chunk_tool": "markdown-size-chunk", "chunk_index": 1,
                                             "chunk_start": 7, "chunk_end": 16, "chunk_start_line": 3,
                                             "chunk_end_line": 5, "chunk_path": "A"}  # fmt: skip


def test_a_size_chunk_carries_its_tokens_only_with_max_tokens() -> None:
    text = "Alpha beta. Gamma delta.\n\nEpsilon zeta eta theta."
    counted = items("text-size-chunk", {"max_chars": 20, "max_tokens": 4}, text, metadata={"p": 1})
    assert [i["contentMetadata"]["chunk_tokens"] for i in counted] == [
        len(encoding("cl100k_base").encode_ordinary(i["contentBody"])) for i in counted
    ]
    assert counted[0]["contentMetadata"] == {"p": 1, "chunk_tool": "text-size-chunk", "chunk_index": 0,
                                             "chunk_start": 0, "chunk_end": 11, "chunk_start_line": 1,
                                             "chunk_end_line": 1, "chunk_tokens": 3}  # fmt: skip
    assert all("chunk_tokens" not in i["contentMetadata"] for i in items("text-size-chunk", {"max_chars": 20}, text))


@pytest.mark.parametrize("tool_id", ["text-size-chunk", "markdown-size-chunk"])
def test_max_tokens_alone_in_metadata_bounds_the_chunks(tool_id: str) -> None:
    """Both size descriptors: ``max_tokens`` without ``max_chars`` (262144) and a bare tokenizer
    name in a ``.metadata.json`` read as the API reads it."""
    text = "Alpha beta. Gamma delta.\n\nEpsilon zeta eta theta. " * 3
    counted = items(tool_id, {"max_tokens": 6, "tokenizer": "o200k_base"}, text)
    assert len(counted) > 1
    chosen = tool(tool_id)
    expected = chosen.run(chosen.parse({"text": text, "max_tokens": 6, "tokenizer": "o200k_base"}))["chunks"]
    assert [(i["contentBody"], i["contentMetadata"]["chunk_tokens"]) for i in counted] == [
        (chunk["text"], chunk["tokens"]) for chunk in expected
    ]
    assert max(chunk["tokens"] for chunk in expected) <= 6


@pytest.mark.parametrize("length", [kb.MAX_PATH_BYTES - 3, kb.MAX_PATH_BYTES - 2, kb.MAX_PATH_BYTES, 600])
def test_a_long_path_is_cut_to_its_byte_bound_at_a_character(length: int) -> None:
    path = ["😀" * (length // 8), "é" * (length // 4)]  # 4- and 2-byte characters
    joined = kb.joined_path(path)
    whole = " > ".join(path)
    assert len(joined.encode()) <= kb.MAX_PATH_BYTES
    if len(whole.encode()) <= kb.MAX_PATH_BYTES:
        assert joined == whole
    else:
        assert joined.endswith("\u2026")
        assert whole.startswith(joined.removesuffix("\u2026"))
        assert len(joined.encode()) > kb.MAX_PATH_BYTES - 4  # cut no earlier than a character needs


def test_a_tool_without_a_streaming_form_keeps_its_descriptor_s_limits() -> None:
    """A tool that parses a text whole keeps its limits in the document flows (the same tool as if
    it had no streaming form)."""
    chosen = replace(tool("markdown-sections-chunk"), stream=None)
    params = chosen.parse_parameters({})  # as the function reads a file without metadata
    with pytest.raises(InputTooLarge):
        list(chunk_contents(chosen, params, [Content(contentBody="x" * (chosen.byte_limits["text"] + 1))]))
    with pytest.raises(TooManyChunks):
        list(chunk_contents(chosen, params, [Content(contentBody="# h\n" * (chosen.limits["max_sections"] + 1))]))
    (body,) = [example["text"] for error, example in chosen.error_examples().items() if error is OutputTooLarge]
    with pytest.raises(OutputTooLarge):
        list(chunk_contents(chosen, params, [Content(contentBody=body)]))


@pytest.mark.parametrize("tool_id", ["markdown-sections-chunk", "markdown-size-chunk"])
def test_markdown_content_of_any_size_is_chunked_as_the_whole_text(tool_id: str) -> None:
    """Issue 54: Markdown content over the API's 256 KiB, chunked by the tool's streaming form,
    exactly as the whole text with the limits lifted."""
    chosen = tool(tool_id)
    text = "# Guide\n\n" + "".join(f"## Part {i}\n\nSome words here.\n\n```\n# no\n```\n\n" for i in range(9000))
    params = chosen.parse_parameters({"max_chars": 500} if "max_chars" in chosen.metadata_keys.values() else {})
    assert len(text.encode()) > chosen.byte_limits["text"]
    bodies = [i["contentBody"] for i in items(tool_id, {k: v for k, v in params.items() if v is not None}, text)]
    assert chosen.run_lifted is not None
    whole = chosen.run_lifted({**params, "text": text})
    assert bodies == [item["text"] for item in next(v for v in whole.values() if isinstance(v, list))]


def test_a_path_of_exactly_the_bound_is_kept_and_a_cut_inside_a_character_drops_that_character() -> None:
    exact = ["a" * (kb.MAX_PATH_BYTES - len(" > ") - 2), "é"]
    assert kb.joined_path(exact) == " > ".join(exact)
    assert len(" > ".join(exact).encode()) == kb.MAX_PATH_BYTES
    # 800 bytes of 4-byte characters: the cut at 512 - 3 (the ellipsis) falls inside the 128th
    assert kb.joined_path(["\U0001f600" * 200]) == "\U0001f600" * 127 + "\u2026"


def reference_capped(text: str) -> str:
    """API.md's cap, character by character: the text within 512 bytes, else its longest prefix of
    at most 509 bytes followed by U+2026."""
    if len(text.encode()) <= 512:
        return text
    prefix = ""
    for character in text:
        if len((prefix + character).encode()) > 509:
            break
        prefix += character
    return prefix + "\u2026"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "|", " ", "é", "€", "😀", "\u0301", "\r\n", "表"]), max_size=400).map("".join))
def test_the_cap_is_the_longest_prefix_that_fits_with_an_ellipsis(text: str) -> None:
    assert kb.capped(text) == reference_capped(text)
    assert kb.joined_path([text]) == reference_capped(text)


def table_header_chunks(headers: list[str]) -> list[dict[str, Any]]:
    """Chunks as markdown-size-chunk gives them: the first before any table, each next one starting
    after the delimiter row of a table whose header and delimiter rows are ``header``."""
    chunks: list[dict[str, Any]] = [{"index": 0, "start": 0, "end": 1, "start_line": 1, "end_line": 1,
                                     "text": "a", "headings": ["H"]}]  # fmt: skip
    for index, header in enumerate(headers, start=1):
        chunks.append({"index": index, "start": index, "end": index + 1, "start_line": 1, "end_line": 1,
                       "text": "| r |", "headings": ["H"],
                       "table_header": {"start": 0, "end": len(header), "text": header}})  # fmt: skip
    return chunks


def test_a_chunk_in_a_table_carries_its_header_s_text_capped_as_the_path_is() -> None:
    """API.md: a chunk with ``table_header`` adds ``chunk_table_header``, its ``text``, cut past 512
    bytes as ``chunk_path`` is; a chunk without one has no such key."""
    short = "| Region | 2024 |\n|---|---:|"
    long = "| " + " | ".join(f"Col😀{i}" for i in range(100)) + " |\n" + "|---" * 100 + "|"
    chosen = tool("markdown-size-chunk")
    with patch.object(kb, "chunks_of", lambda *_: iter(table_header_chunks([short, long]))):
        first, in_short, in_long = chunk_contents(chosen, {}, [Content(contentBody="", contentMetadata={"p": 1})])
    assert "chunk_table_header" not in first["contentMetadata"]
    assert in_short["contentMetadata"] == {"p": 1, "chunk_tool": "markdown-size-chunk", "chunk_index": 1,
                                           "chunk_start": 1, "chunk_end": 2, "chunk_start_line": 1,
                                           "chunk_end_line": 1, "chunk_path": "H",
                                           "chunk_table_header": short}  # fmt: skip
    assert in_long["contentMetadata"]["chunk_table_header"] == reference_capped(long) != long
    assert len(in_long["contentMetadata"]["chunk_table_header"].encode()) <= 512


def test_a_table_longer_than_a_window_is_chunked_as_the_whole_text_each_chunk_with_its_header() -> None:
    """Issue 60: content that is one long table (a spreadsheet's export, 2 MiB) streams as the whole
    text chunks, the windows restarting between its rows, and every item after the first carries
    the table's header as ``chunk_table_header``."""
    header = "| Region | Account | Amount |\n|:--|--:|--:|"
    text = header + "\n" + "".join(f"| Région {n % 7} 😀 | {4000 + n} | {n * 7.5:,.2f} |\n" for n in range(60_000))
    assert len(text.encode()) > 2 * 1024 * 1024
    chunked = items("markdown-size-chunk", {"max_chars": 1000, "overlap_chars": 200}, text)
    chosen = tool("markdown-size-chunk")
    assert chosen.run_lifted is not None
    whole = chosen.run_lifted({**chosen.parse_parameters({"max_chars": 1000, "overlap_chars": 200}), "text": text})
    assert [i["contentBody"] for i in chunked] == [c["text"] for c in whole["chunks"]]
    assert [i["contentMetadata"].get("chunk_table_header") for i in chunked] == [None] + [header] * (len(chunked) - 1)
