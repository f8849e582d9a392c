"""The document flows with ``tokenizer`` ``hf:<name>`` in a document's metadata: the S3 flow (both
formats, the name bare or quoted), the Knowledge Base transformation's ``.metadata.json``, and
MCP's ``tools/call``, each counting as the API does with the deployed tokenizer."""

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import texttools.registry
from scripts.lambda_events import LocalContext, api_event
from scripts.template import functions
from tests.integration.conftest import BUCKET, Upload, read, run
from tests.unit.test_knowledge_base import DEFAULTS
from texttools.hf_tokens import deployed_tokenizer
from texttools.knowledge_base import Content, chunk_contents, tool_and_parameters

TEXT = "The tokenizer counts every chunk alone, special tokens included.\n\n" * 6 + "第一句。第二句\uff01 😀"


def expected(tool_id: str, fields: dict[str, Any]) -> dict[str, Any]:
    chosen = texttools.registry.tool(tool_id)
    return dict(chosen.run(chosen.parse({"text": TEXT, **fields})))


@pytest.mark.parametrize("tokenizer", ["hf:wordpiece", '"hf:unigram"'])
def test_the_s3_flow_counts_with_the_deployed_tokenizer_its_metadata_names(
    deployed_tokenizers: Path, s3: Any, chunker: ModuleType, upload: Upload, tokenizer: str
) -> None:
    name = tokenizer.strip('"')
    metadata = {"tool": "markdown-size-chunk", "max-tokens": "12", "tokenizer": tokenizer}
    run(chunker, upload("incoming/t.md", TEXT.encode(), metadata))
    written = read(s3, "chunks/t.md.json")
    assert written["parameters"] == {"max_tokens": 12, "tokenizer": name}
    assert written["result"] == expected("markdown-size-chunk", {"max_tokens": 12, "tokenizer": name})
    counted = deployed_tokenizer(name)
    assert [chunk["tokens"] for chunk in written["result"]["chunks"]] == [
        counted.count(chunk["text"]) for chunk in written["result"]["chunks"]
    ]


def test_the_s3_flow_in_jsonl_counts_as_in_json(
    deployed_tokenizers: Path, s3: Any, chunker: ModuleType, upload: Upload, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNKS_FORMAT", "jsonl")
    metadata = {"tool": "text-size-chunk", "max-tokens": "9", "overlap-chars": "10", "max-chars": "80",
                "tokenizer": "hf:bytelevel"}  # fmt: skip
    run(chunker, upload("incoming/t.txt", TEXT.encode(), metadata))
    body = s3.get_object(Bucket=BUCKET, Key="chunks/t.txt.jsonl")["Body"].read().decode()
    chunks = [json.loads(line) for line in body.splitlines()[1:]]
    wanted = expected("text-size-chunk", {"max_tokens": 9, "overlap_chars": 10, "max_chars": 80,
                                          "tokenizer": "hf:bytelevel"})  # fmt: skip
    assert [chunk for chunk in chunks if "index" in chunk] == wanted["chunks"]


def test_a_tokenizer_the_deployment_lacks_is_an_error_object_naming_the_metadata_key(
    deployed_tokenizers: Path, s3: Any, chunker: ModuleType, upload: Upload
) -> None:
    metadata = {"tool": "text-size-chunk", "max-tokens": "8", "tokenizer": "hf:bge-small-en-v1.5"}
    run(chunker, upload("incoming/x.txt", b"some text", metadata))
    error = read(s3, "errors/x.txt.json")["error"]
    assert error["code"] == "invalid_input"
    assert error["details"][0]["field"] == "tokenizer"
    assert "hf:wordpiece" in error["details"][0]["problem"]


def test_the_knowledge_base_counts_with_the_tokenizer_of_a_file_s_metadata(deployed_tokenizers: Path) -> None:
    chosen, params = tool_and_parameters({"tool": "text-size-chunk", "max-tokens": 10, "tokenizer": "hf:unigram"},
                                         DEFAULTS)  # fmt: skip
    assert params["tokenizer"] == "hf:unigram"
    items = list(chunk_contents(chosen, params, [Content(contentBody=TEXT, contentType="TEXT", contentMetadata={})]))
    wanted = expected("text-size-chunk", {"max_tokens": 10, "tokenizer": "hf:unigram"})["chunks"]
    assert [(i["contentBody"], i["contentMetadata"]["chunk_tokens"]) for i in items] == [
        (chunk["text"], chunk["tokens"]) for chunk in wanted
    ]


def test_mcp_calls_a_size_tool_with_a_deployed_tokenizer(deployed_tokenizers: Path) -> None:
    handler = functions()["McpFunction"].load()
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "text-size-chunk", "arguments": {"text": TEXT, "max_tokens": 16,
                                                                  "tokenizer": "hf:wordpiece"}}}  # fmt: skip
    event = api_event("POST", "/mcp", json.dumps(call), {"Content-Type": "application/json"})
    answer = json.loads(handler(event, LocalContext("McpFunction"))["body"])
    assert answer["result"]["structuredContent"] == expected(
        "text-size-chunk", {"max_tokens": 16, "tokenizer": "hf:wordpiece"}
    )
