"""Both size tools with a deployed Hugging Face tokenizer (``tokenizer`` ``hf:<name>``), against the
position-at-a-time reference (tests/reference.py) that encodes every candidate alone with the
library, truncation and padding off and the special tokens included: the three families embedding
models use, trained by the library itself and saved with truncation and padding on
(tests/hf_tokenizers.py), on prose, mixed scripts, emoji, Unicode whitespace and Markdown, with and
without overlap and ``max_chars``; then the refusals and how a tokenizer is found and loaded."""

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scripts.template import ROOT, SOURCE_PYTHONPATH
from tests import reference
from tests.conftest import CommonmarkBlocks, descriptor, forget_deployed_tokenizers
from tests.hf_tokenizers import FAMILIES, SPECIAL_TOKENS
from tests.unit.test_markdown_size_properties import chunks_of, joined, token_documents
from tests.unit.test_size_chunk_properties import HOSTILE_PIECES, TOKEN_PIECES, boundaries, check_invariants, sizes
from tests.unit.test_streaming import cut_text, drained, windows_of
from texttools import hf_tokens
from texttools.errors import InvalidInput
from texttools.markdown import block_structure
from texttools.registry import tool
from texttools.size_chunks import TOKENS_ONLY_MAX_CHARS, DeployedBudget, Settings, counter
from texttools.tools.text_size_chunk import size_chunk, stream_size_chunk

HF_SETTINGS = settings(
    max_examples=max(150, int(os.environ.get("TEXT_TOOLS_FUZZ_EXAMPLES", "0")) // 3),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
PROSE_PIECES = [" ", "\n", "\n\n", ". ", "The ", "tokenizer ", "counts ", "every ", "chunk", "alone", ", ", "3.14",
                "[CLS]", "<s>", "</s>", "\u2581", "##ing", "caf\u00e9", "e\u0301", "\U0001f600", "\U0001f680",
                "\u6771\u4eac", "\u7b2c\u4e00\u53e5\u3002", "\u0e20\u0e32\u0e29\u0e32",
                "\u041f\u0440\u0438\u0432\u0435\u0442", "# Heading\n", "```\ncode\n```\n", "- item\n", "**bold**",
                "`x`"]  # fmt: skip
hf_texts = st.lists(st.sampled_from(PROSE_PIECES + TOKEN_PIECES + HOSTILE_PIECES), max_size=30).map("".join)


class HfCounter:
    """The reference's count: the library's ids of a string alone (a fresh load of the file, with
    truncation and padding turned off here, not by the core), and the horizon as the docs word it."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.special_tokens = self.tokenizer.num_special_tokens_to_add(False)

    def __call__(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=True).ids)

    def token_ends(self, text: str) -> list[int]:
        return [end for _, end in self.tokenizer.encode(text, add_special_tokens=False).offsets]

    def horizon(self, text: str, s: int, high: int, max_tokens: int) -> int:
        return reference.hf_token_horizon(text, s, high, max_tokens, self.special_tokens, self.token_ends)


def hf(name: str) -> Any:
    return counter(f"hf:{name}")


def expected(text: str, size: tuple[int, int, int], max_tokens: int, count: HfCounter) -> Any:
    """The reference's chunks, or ``InvalidInput`` where no position fits a chunk."""
    try:
        return reference.size_chunk(text, boundaries(text), *size, max_tokens, count)
    except ValueError:  # max() of no position: one cluster and the special tokens take more
        return InvalidInput


def ours(text: str, sizes: Settings) -> Any:
    try:
        output = size_chunk(text, sizes, None)
    except InvalidInput as error:
        return InvalidInput if [d["field"] for d in error.details or []] == ["max_tokens"] else error
    return [(c["start"], c["end"], c["cut"], c.get("tokens")) for c in output["chunks"]]


@HF_SETTINGS
@given(hf_texts, sizes(60), st.integers(4, 24), st.sampled_from(FAMILIES))
@example("Hello world. \U0001f600 \u6771\u4eac", (60, 0, 0), 4, "bytelevel")
@example("[CLS] a b [SEP] c", (60, 5, 0), 4, "wordpiece")
@example("\u2581 x\u3000 y", (60, 0, 0), 4, "unigram")
@example("GATTACA" * 60, (420, 0, 0), 32, "wordpiece")  # over 100 characters, a word is one [UNK]
def test_text_size_chunk_with_a_deployed_tokenizer_matches_reference(
    deployed_tokenizers: Path, text: str, size: tuple[int, int, int], max_tokens: int, family: str
) -> None:
    count = HfCounter(deployed_tokenizers / f"{family}.json")
    wanted = expected(text, size, max_tokens, count)
    got = ours(text, Settings(*size, max_tokens, hf(family)))
    assert got == wanted
    if got is not InvalidInput:
        output = size_chunk(text, Settings(*size, max_tokens, hf(family)), None)
        check_invariants(text, dict(output), size[0], size[1])
        assert all(chunk["tokens"] == count(chunk["text"]) <= max_tokens for chunk in output["chunks"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(PROSE_PIECES), min_size=50, max_size=200).map("".join), st.integers(8, 80),
       st.sampled_from(FAMILIES), st.sampled_from([0, 12]))  # fmt: skip
def test_longer_prose_with_tokens_only_matches_reference(
    deployed_tokenizers: Path, text: str, max_tokens: int, family: str, overlap: int
) -> None:
    """Texts of hundreds of tokens with ``max_tokens`` alone (``max_chars`` 262144): windows that grow."""
    count = HfCounter(deployed_tokenizers / f"{family}.json")
    size = (TOKENS_ONLY_MAX_CHARS, overlap, 0)
    assert ours(text, Settings(*size, max_tokens, hf(family))) == expected(text, size, max_tokens, count)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(token_documents, sizes(40), st.integers(4, 16), st.sampled_from(FAMILIES))
def test_markdown_size_chunk_with_a_deployed_tokenizer_matches_reference(
    deployed_tokenizers: Path,
    commonmark_js: Callable[[str], CommonmarkBlocks],
    document: tuple[list[str], list[str]],
    size: tuple[int, int, int],
    max_tokens: int,
    family: str,
) -> None:
    text = joined(*document)
    count = HfCounter(deployed_tokenizers / f"{family}.json")
    judged = commonmark_js(text)
    parsed = block_structure(text).headings
    assert [(heading.level, heading.line + heading.lines) for heading in parsed] == judged.headings
    headings = [(heading.line, heading.lines, heading.level, heading.setext) for heading in parsed]
    last_line = len(reference.commonmark_lines(text)) - 1
    literals = [(first - 1, min(last - 1, last_line)) for first, last in judged.literals]
    try:
        wanted: Any = reference.markdown_size_chunk(
            text, boundaries(text), headings, literals, *size, max_level=6, max_tokens=max_tokens, count=count
        )
    except ValueError:
        wanted = InvalidInput
    try:
        got: Any = chunks_of(text, Settings(*size, max_tokens, hf(family)), 6)
    except InvalidInput:
        got = InvalidInput
    assert got == wanted


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hf_texts, sizes(40), st.integers(4, 12), st.sampled_from(FAMILIES), st.integers(1, 12), st.data())
def test_streamed_equals_in_memory_with_a_deployed_tokenizer(
    deployed_tokenizers: Path,
    text: str,
    size: tuple[int, int, int],
    max_tokens: int,
    family: str,
    window: int,
    data: st.DataObject,
) -> None:
    """The document flows' form: the chunks of a text read in pieces are those of the whole."""
    sized = Settings(*size, max_tokens, hf(family))
    try:
        wanted = size_chunk(text, sized, None)
    except InvalidInput:
        return
    with windows_of(window):
        chunks, summary = drained(stream_size_chunk(data.draw(cut_text(text)), sized))
    assert chunks == wanted["chunks"]
    assert summary == {"chunk_count": wanted["chunk_count"]}


@pytest.mark.parametrize("family", FAMILIES)
def test_counts_are_the_library_s_with_special_tokens_and_without_truncation_or_padding(
    deployed_tokenizers: Path, family: str
) -> None:
    """The files were saved with truncation at 16 and padding to 32: neither caps nor pads a count."""
    saved = json.loads((deployed_tokenizers / f"{family}.json").read_text(encoding="utf-8"))
    assert saved["truncation"]["max_length"] == 16
    assert saved["padding"]["strategy"] == {"Fixed": 32}
    text = "The tokenizer counts every chunk alone, special tokens included. " * 8
    output = tool("text-size-chunk").run(tool("text-size-chunk").parse({"text": text, "max_tokens": 60,
                                                                          "tokenizer": f"hf:{family}"}))  # fmt: skip
    count = HfCounter(deployed_tokenizers / f"{family}.json")
    assert [chunk["tokens"] for chunk in output["chunks"]] == [count(chunk["text"]) for chunk in output["chunks"]]
    assert max(chunk["tokens"] for chunk in output["chunks"]) > 32
    own = count.tokenizer.encode("word", add_special_tokens=False).ids
    assert count("word") == len(own) + SPECIAL_TOKENS[family]


@pytest.mark.parametrize("tool_id", ["text-size-chunk", "markdown-size-chunk"])
def test_one_character_and_the_special_tokens_over_the_budget_is_invalid_input_naming_max_tokens(
    deployed_tokenizers: Path, tool_id: str
) -> None:
    """An emoji the small byte-level vocabulary has never seen is 4 byte tokens, and <s> and </s>
    take 2 more: 4 tokens cannot hold it (the descriptors: invalid_input naming max_tokens)."""
    chosen = tool(tool_id)
    with pytest.raises(InvalidInput) as raised:
        chosen.run(chosen.parse({"text": "a \U0001f9ea b", "max_tokens": 4, "tokenizer": "hf:bytelevel"}))
    assert [detail["field"] for detail in raised.value.details or []] == ["max_tokens"]
    assert "hf:bytelevel" in raised.value.message


def test_a_tokenizer_that_is_not_deployed_is_invalid_input_naming_the_deployed_ones(deployed_tokenizers: Path) -> None:
    chosen = tool("text-size-chunk")
    with pytest.raises(InvalidInput) as raised:
        chosen.parse({"text": "x", "max_tokens": 8, "tokenizer": "hf:bge-small-en-v1.5"})
    assert raised.value.details == [
        {"field": "tokenizer", "problem": "is not a tokenizer of this deployment: cl100k_base, o200k_base, "
                                          "hf:bytelevel, hf:unigram or hf:wordpiece"}
    ]  # fmt: skip


def test_the_name_rule_is_the_descriptors_pattern() -> None:
    for tool_id in ("text-size-chunk", "markdown-size-chunk"):
        pattern = descriptor(tool_id)["input_schema"]["properties"]["tokenizer"]["pattern"]
        assert pattern == f"^(cl100k_base|o200k_base|hf:{hf_tokens.NAME.pattern})$"


def test_a_budget_tries_no_end_past_its_horizon(deployed_tokenizers: Path) -> None:
    text = "the " * 400
    count = HfCounter(deployed_tokenizers / "wordpiece.json")
    assert count("the the") == 4  # one token a word, and [CLS] [SEP]
    budget = DeployedBudget(text, 0, len(text), Settings(TOKENS_ONLY_MAX_CHARS, 0, 0, 12, hf("wordpiece")))
    assert budget.cutoff == 11 * 4  # 10 words fit with [CLS] [SEP]: the 11th word's end is the horizon, the last tried
    assert budget.cutoff == count.horizon(text, 0, len(text), 12) + 1
    assert budget.window_end < 200  # the window was sized from its own text, not the reach


def test_a_file_with_another_sha256_than_the_build_recorded_is_refused(
    deployed_tokenizers: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = tmp_path / "deployed_tokenizers.json"
    entries = hf_tokens.record(deployed_tokenizers, manifest)
    assert [entry["name"] for entry in entries] == sorted(FAMILIES)
    assert {entry["name"]: entry["special_tokens"] for entry in entries} == SPECIAL_TOKENS
    changed = json.loads(manifest.read_text(encoding="utf-8"))
    changed["tokenizers"][0]["sha256"] = "0" * 64
    manifest.write_text(json.dumps(changed), encoding="utf-8")
    monkeypatch.setattr(hf_tokens, "MANIFEST", manifest)
    forget_deployed_tokenizers()
    try:
        with pytest.raises(hf_tokens.TokenizerFileError, match="SHA-256"):
            hf_tokens.deployed_tokenizer(f"hf:{entries[0]['name']}")
        assert hf_tokens.deployed_tokenizer(f"hf:{entries[1]['name']}").special_tokens == entries[1]["special_tokens"]
    finally:
        monkeypatch.undo()
        forget_deployed_tokenizers()


@pytest.mark.parametrize(
    ("name", "contents", "says"),
    [
        ("broken", "{not json", "broken.json: the tokenizers library cannot load it"),
        ("_hidden", "{}", "_hidden.json: a tokenizer file's name must be"),
    ],
)
def test_a_file_the_library_cannot_load_fails_the_record_naming_it(
    tmp_path: Path, name: str, contents: str, says: str
) -> None:
    (tmp_path / f"{name}.json").write_text(contents, encoding="utf-8")
    with pytest.raises(hf_tokens.TokenizerFileError, match=says.replace(".", r"\.")):
        hf_tokens.record(tmp_path, tmp_path / "manifest.json")


def test_the_library_is_imported_only_when_a_request_names_a_deployed_tokenizer(deployed_tokenizers: Path) -> None:
    script = (
        "import sys\n"
        "from texttools.registry import tool\n"
        "t = tool('text-size-chunk')\n"
        "t.run(t.parse({'text': 'a b c', 'max_tokens': 8}))\n"
        "assert 'tokenizers' not in sys.modules\n"
        "t.run(t.parse({'text': 'a b c', 'max_tokens': 8, 'tokenizer': 'hf:unigram'}))\n"
        "assert 'tokenizers' in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": SOURCE_PYTHONPATH, hf_tokens.FOLDER_VARIABLE: str(deployed_tokenizers)}
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True)


def test_the_project_folder_ships_only_its_readme() -> None:
    assert sorted(path.name for path in (ROOT / "tokenizers").iterdir()) == ["README.md"]
    assert hf_tokens.SOURCE_FOLDER == ROOT / "tokenizers"
