"""Errors that say the fix (issue 62): an unknown key close to a field gets "did you mean", a size
request with neither limit is told to give one, a body that is not the input object is told what
it must be, a tokenizer's pattern is said in words (and a deployed name without ``hf:`` found);
the same through the REST route, MCP and the S3 flows; user text never echoed but a short, safe key."""

import difflib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from texttools import fields, mcp
from texttools.documents import Defaults, tool_and_parameters
from texttools.errors import InvalidInput, ToolError
from texttools.fields import InputField
from texttools.registry import TOOL_IDS, tool

SEEDS = Path(__file__).resolve().parents[2] / "spec" / "seeds"


def refusal(tool_id: str, body: str | bytes) -> ToolError:
    with pytest.raises(ToolError) as raised:
        tool(tool_id).execute(body)
    return raised.value


@pytest.mark.parametrize(
    ("tool_id", "key", "meant"),
    [
        ("text-size-chunk", "max_token", "max_tokens"),
        ("text-size-chunk", "maxChars", "max_chars"),
        ("text-size-chunk", "MAX-TOKENS", "max_tokens"),
        ("text-size-chunk", "overlap", "overlap_chars"),
        ("text-size-chunk", "chunk_size", "max_chars"),  # LangChain's names for ours
        ("text-size-chunk", "chunk_overlap", "overlap_chars"),
        ("markdown-size-chunk", "chunkSize", "max_chars"),
        ("markdown-size-chunk", "maxLevel", "max_level"),
        ("markdown-size-chunk", "min_char", "min_chars"),
        ("text-delimiter-chunk", "separator", "delimiter"),  # the tool has a delimiter
        ("text-delimiter-chunk", "separators", "delimiter"),
        ("text-delimiter-chunk", "maxsplit", "max_splits"),  # Python's str.split
        ("text-extract-between", "max_match", "max_matches"),
        ("markdown-sections-chunk", "level", "max_level"),
        ("text-size-chunk", "separators", None),  # no delimiter here: nothing close
        ("text-size-chunk", "colour", None),
        ("text-paragraphs-split", "chunk_size", None),
    ],
)
def test_an_unknown_key_close_to_a_field_says_which_field_it_meant(tool_id: str, key: str, meant: str | None) -> None:
    body = {"text": "a", "max_chars": 5} if "size" in tool_id else {"text": "a"}
    body |= {"delimiter": ","} if tool_id == "text-delimiter-chunk" else {}
    body |= {"start": "[", "end": "]"} if tool_id == "text-extract-between" else {}
    error = refusal(tool_id, json.dumps(body | {key: 1}))
    problem = "is not a field of this tool" + (f"; did you mean {meant}?" if meant else "")
    assert error.details == [{"field": key, "problem": problem}]
    assert error.message == f"The request does not match this tool's input schema: {key} {problem}" + (
        "" if meant else "."
    )


@given(st.text(max_size=80))
def test_an_unknown_key_is_echoed_only_when_short_and_safe_and_a_suggestion_is_always_ours(key: str) -> None:
    chosen = tool("text-size-chunk")
    names = [field.name for field in chosen.fields]
    if key in names:
        return
    with pytest.raises(InvalidInput) as raised:
        chosen.parse({"text": "a", "max_chars": 5, key: 1})
    (detail,) = raised.value.details
    safe = re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", key) is not None
    assert detail["field"] == (key if safe else "(a key that cannot be shown)")
    meant = re.fullmatch(r"is not a field of this tool(?:; did you mean ([a-z_]+)\?)?", detail["problem"])
    assert meant is not None
    assert meant[1] is None or meant[1] in names
    end = "" if meant[1] else "."
    assert raised.value.message == f"The request does not match this tool's input schema: {detail['field']} " + (
        detail["problem"] + end
    )  # nothing of the key but the field shown above


def test_suggestions_cost_at_most_the_listed_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """10 000 unknown 1 KiB keys: ``difflib`` runs for the 20 listed ones only, each cut to 64 characters."""
    seen: list[str] = []
    close = difflib.get_close_matches

    def counting(word: str, *args: Any, **kwargs: Any) -> list[str]:
        seen.append(word)
        return close(word, *args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    keys = {f"{i:05d}" + "k" * 1024: 1 for i in range(10_000)}
    with pytest.raises(InvalidInput) as raised:
        tool("text-paragraphs-split").parse({"text": "a"} | keys)
    assert len(raised.value.details) == fields.MAX_PROBLEMS
    assert len(seen) == fields.MAX_PROBLEMS
    assert max(map(len, seen)) <= fields.FIELD_NAME_SHOWN


@pytest.mark.parametrize("tool_id", ["text-size-chunk", "markdown-size-chunk"])
def test_a_size_request_with_neither_limit_is_told_to_give_one(tool_id: str) -> None:
    error = refusal(tool_id, '{"text": "a"}')
    problem = "is missing, and so is max_tokens: give max_chars, max_tokens or both"
    assert error.details == [{"field": "max_chars", "problem": problem}]
    assert error.message == f"The request's fields do not fit together: max_chars {problem}."


@pytest.mark.parametrize("tool_id", TOOL_IDS)
@pytest.mark.parametrize("body", ["", "# My notes\n\nraw Markdown", "[1]", '"text"', "null"])
def test_a_body_that_is_not_the_input_object_says_what_it_must_be(tool_id: str, body: str) -> None:
    """Posting a file itself got "not valid JSON (at line 1, column 1)" and nothing more."""
    seed = json.loads((SEEDS / f"{tool_id}.json").read_text(encoding="utf-8"))
    message = refusal(tool_id, body).message
    *names, last = seed["input_schema"]["required"]
    required = f"the required fields {', '.join(names)} and {last}" if names else f"the required field {last}"
    assert f"must be this tool's input object, a JSON object with {required}, such as {{" in message
    example = json.loads(message.split(", such as ", 1)[1].removesuffix("."))
    assert example in [each["input"] for each in seed["examples"]]
    assert "\n" not in message  # one line
    assert "raw Markdown" not in message
    assert "notes" not in message


def test_a_tokenizer_s_pattern_is_said_in_words_never_as_a_regex() -> None:
    for tool_id in TOOL_IDS:
        for field in tool(tool_id).fields:
            if field.pattern is not None:
                problem = field.problem("not a tokenizer")
                assert problem is not None
                assert field.pattern.pattern not in problem
                assert "^" not in problem
                assert "$" not in problem
    with pytest.raises(ValueError, match="give its form in words"):
        InputField("x", str, pattern="^a$")


def test_a_deployed_tokenizer_named_without_hf_suggests_hf(deployed_tokenizers: Path) -> None:
    chosen = tool("text-size-chunk")
    form = "must be cl100k_base, o200k_base or hf:<name> (GET /v1/tokenizers lists them)"
    for given_name, problem in [
        ("wordpiece", f"{form}; did you mean hf:wordpiece?"),
        ("hf:wordpeice", "is not a tokenizer of this deployment: cl100k_base, o200k_base, hf:bytelevel, "
                         "hf:unigram or hf:wordpiece; did you mean hf:wordpiece?"),
        ("hf:bge-small-en-v1.5", "is not a tokenizer of this deployment: cl100k_base, o200k_base, hf:bytelevel, "
                                 "hf:unigram or hf:wordpiece"),
    ]:  # fmt: skip
        with pytest.raises(InvalidInput) as raised:
            chosen.parse({"text": "a", "max_tokens": 8, "tokenizer": given_name})
        assert raised.value.details == [{"field": "tokenizer", "problem": problem}]


def test_mcp_tells_what_the_rest_route_tells() -> None:
    arguments = {"text": "a", "max_token": 5, "tokenizer": "cl100k"}
    result, code = mcp.call_tool({"name": "text-size-chunk", "arguments": arguments})
    rest = refusal("text-size-chunk", json.dumps(arguments))
    assert (code, result["isError"]) == ("invalid_input", True)
    assert result["structuredContent"]["error"] == {"code": rest.code, "message": rest.message, "details": rest.details}
    assert "did you mean max_tokens?" in rest.message or "did you mean" in rest.details[1]["problem"]


def test_s3_metadata_is_told_the_fix_in_metadata_keys() -> None:
    """In metadata the fields are spelled with hyphens: so are the fields a problem names."""
    with pytest.raises(InvalidInput) as raised:
        tool_and_parameters({"tool": "text-size-chunk"}, Defaults("text-paragraphs-split", "{}"), literals=True,
                            lifted=False)  # fmt: skip
    problem = "is missing, and so is max-tokens: give max-chars, max-tokens or both"
    assert raised.value.details == [{"field": "max-chars", "problem": problem}]
    assert raised.value.message == f"The max-chars metadata {problem}."
    defaults = Defaults("text-size-chunk", '{"max_chars": 5, "overlap_chars": 5}')
    with pytest.raises(InvalidInput) as raised:
        tool_and_parameters({}, defaults, literals=True, lifted=False)
    problem = "overlap_chars must be less than max_chars"  # DefaultParameters is written in the API's names
    assert raised.value.details == [{"field": "DefaultParameters", "problem": problem}]


def test_mcp_arguments_that_are_not_an_object_are_told_what_they_must_be() -> None:
    result, code = mcp.call_tool({"name": "text-delimiter-chunk", "arguments": ["1,2"]})
    assert (code, result["isError"]) == ("invalid_input", True)
    assert result["structuredContent"]["error"]["message"] == (
        "The arguments must be this tool's input object, a JSON object with the required fields text and "
        'delimiter, such as {"text":"1,2,,3,","delimiter":","}.'
    )
