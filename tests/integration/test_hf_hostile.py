"""Deployed tokenizers in bounded time (issue 57): the hostile token corpus (benchmarks/workloads.py,
``hostile_tokens``: runs no pre-tokenizer ends early) through each size tool's handler with each
trained family (tests/hf_tokenizers.py), as tests/integration/test_token_hostile.py does for the
OpenAI encodings: 3 KB within 0.5 s at every budget; at the size limit, the texts and budgets that
cost most within ``LARGE_BUDGET_SECONDS`` (the library encodes a long run without spaces in time that
grows with the run: WordPiece looks up every prefix of a word; docs/size-chunking.md, "Cost"); and
the characters handed to the library stay a bounded multiple of the text."""

import contextlib
import itertools
from pathlib import Path

import pytest

from benchmarks.workloads import HOSTILE_TOKEN_BUDGETS, hostile_tokens
from tests.hf_tokenizers import FAMILIES
from tests.integration.test_token_hostile import SIZE_TOOLS, answered_in
from texttools import hf_tokens
from texttools.errors import InvalidInput
from texttools.registry import tool

BUDGET_SECONDS = 0.5
LARGE_BUDGET_SECONDS = 5.0
LIMIT = tool("text-size-chunk").byte_limits["text"]
SMALL = hostile_tokens(3000)
LARGE_CASES = ("random lowercase letters", "prose with a 100 KiB run", "Han without punctuation")


@pytest.mark.parametrize("tool_id", SIZE_TOOLS)
@pytest.mark.parametrize("case", sorted(SMALL))
def test_3_kb_of_each_hostile_text_is_answered_within_the_budget_with_each_family(
    deployed_tokenizers: Path, case: str, tool_id: str
) -> None:
    for max_tokens, family in itertools.product(HOSTILE_TOKEN_BUDGETS, FAMILIES):
        request = {"text": SMALL[case], "max_tokens": max_tokens, "tokenizer": f"hf:{family}"}
        seconds, response = answered_in(tool_id, request, runs=1)
        assert response["statusCode"] in {200, 400}, response["body"][:200]  # 400: one character over max_tokens
        if response["statusCode"] == 400:
            assert '"field":"max_tokens"' in response["body"]
        assert seconds < BUDGET_SECONDS, f"{case}, {max_tokens} {family}: {seconds:.3f} s"


@pytest.mark.parametrize("case", LARGE_CASES)
def test_the_costliest_hostile_texts_at_the_size_limit_are_answered_within_their_budget(
    deployed_tokenizers: Path, case: str
) -> None:
    text = hostile_tokens(LIMIT)[case]
    for max_tokens, family in itertools.product((4, 512), FAMILIES):
        request = {"text": text, "max_tokens": max_tokens, "tokenizer": f"hf:{family}"}
        seconds, response = answered_in("text-size-chunk", request, runs=1)
        assert response["statusCode"] in {200, 400, 422}, response["body"][:200]  # 422: over 10 000 chunks
        assert seconds < LARGE_BUDGET_SECONDS, f"{case}, {max_tokens} {family}: {seconds:.3f} s"


@pytest.mark.parametrize("tool_id", SIZE_TOOLS)
def test_the_encoded_characters_are_a_bounded_multiple_of_the_text(
    deployed_tokenizers: Path, tool_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each chunk encodes its window (at least ``max_tokens + 32`` code points, then sized from the
    text) and each end it tries alone; the horizon stops the ends tried a few code points past the
    last that fits. The bound is the OpenAI encodings' (tests/integration/test_token_hostile.py)."""
    handed = [0]
    count, content_ends = hf_tokens.DeployedTokenizer.count, hf_tokens.DeployedTokenizer.content_ends

    def counted(self: hf_tokens.DeployedTokenizer, text: str) -> int:
        handed[0] += len(text)
        return count(self, text)

    def windowed(self: hf_tokens.DeployedTokenizer, text: str) -> list[int]:
        handed[0] += len(text)
        return content_ends(self, text)

    monkeypatch.setattr(hf_tokens.DeployedTokenizer, "count", counted)
    monkeypatch.setattr(hf_tokens.DeployedTokenizer, "content_ends", windowed)
    chosen = tool(tool_id)
    for (case, text), max_tokens, family in itertools.product(SMALL.items(), HOSTILE_TOKEN_BUDGETS, FAMILIES):
        handed[0] = 0
        with contextlib.suppress(InvalidInput):  # one character over max_tokens (checked above)
            chosen.run(chosen.parse({"text": text, "max_tokens": max_tokens, "tokenizer": f"hf:{family}"}))
        assert handed[0] <= 60 * len(text), f"{case}, {max_tokens} {family}: {handed[0]}"
