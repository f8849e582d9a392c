"""text-size-chunk against the position-at-a-time reference (tests/reference.py), with grapheme
clusters from pyuegc (pure Python, independent of the core's unicode-segmentation-rs), on
texts dense in what is hard: line endings of every kind, blank lines of spaces, terminators and
closers, full-width stops, combining marks, ZWJ emoji, flags, Indic conjuncts, Prepend and Hangul;
then the streaming form against the in-memory one, on texts cut at generated places."""

import os
from collections.abc import Mapping
from typing import Any

import pytest
import pyuegc
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests import reference
from tests.unit.test_streaming import cut_text, drained, windows_of
from texttools.size_chunks import REUSE_CHARS, TOKENS_ONLY_MAX_CHARS, Settings, TokenBudget
from texttools.tokens import encoding
from texttools.tools.text_size_chunk import size_chunk, stream_size_chunk

PIECES = [
    "\r", "\n", "\r\n", " ", "\t", "  ", "\n \n", "\r\n\t\r\n", "a", "b", "ab", "word", "é", "e\u0301",
    ".", "!", "?", "\u2026", "\u3002", "\uff01", "\uff1f", '"', "'", ")", "\u201d", "\u300d", "\uff09",
    "\u4e00", "\u8a9e", "\U0001f600", "\U0001f469\u200d\U0001f469\u200d\U0001f467", "\U0001f1eb\U0001f1f7",
    "\U0001f1eb", "\u0915\u094d\u0937", "\u094d", "\u0915", "\u0600", "\u1100\u1161", "\u200d", "x.y",
]  # fmt: skip
TOKEN_PIECES = [*PIECES, " strawberr", "y", "1234567", "https://example.com/a?b=c", "\u65e5\u672c\u8a9e\u3067\u3059",
                "internationalization", "   ", "\t\t", "'s", "'re", "ABCdef", "\u3001",
                "\u0e01\u0e35\u0e48"]  # fmt: skip
WHITE_SPACE = [chr(c) for c in (*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029,
                                 0x202F, 0x205F, 0x3000)]  # fmt: skip
"""Every Unicode ``White_Space`` character: the descriptor's whitespace is only four of them, the
encodings' pre-tokenizers take all of them for whitespace."""
HOSTILE_PIECES = [
    *WHITE_SPACE, *(chr(c) for c in range(0x20) if chr(c) not in WHITE_SPACE), "\x7f", "\u200b", "\u200c", "\u2060",
    "\ufeff", "\U0001f44d\U0001f3fd", "\U0001f3f3\ufe0f\u200d\U0001f308", "\u3001", "\u300c", "\uff0c", "\u30fb",
    "x\u3000", "\u3000 ", "a\u00a0 ", "\u2003\n",
]  # fmt: skip
"""Unicode whitespace, C0 controls, DEL, zero-width characters, BOM, emoji sequences and CJK
punctuation: the characters where a count taken in pieces can part from the encoding's own."""
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
token_texts = st.lists(st.sampled_from(TOKEN_PIECES + HOSTILE_PIECES), max_size=30).map("".join)
PROPERTY = settings(max_examples=max(400, int(os.environ.get("TEXT_TOOLS_FUZZ_EXAMPLES", "0"))), deadline=None)
"""Hundreds of examples in make test, thousands in make fuzz (TEXT_TOOLS_FUZZ_EXAMPLES)."""


def boundaries(text: str) -> set[int]:
    found, position = {0}, 0
    for cluster in pyuegc.EGC(text):
        position += len(cluster)
        found.add(position)
    return found


@st.composite
def sizes(draw: st.DrawFn, top: int = 24) -> tuple[int, int, int]:
    max_chars = draw(st.integers(1, top))
    overlap = draw(st.one_of(st.just(0), st.integers(0, max_chars - 1)))
    minimum = draw(st.one_of(st.just(0), st.integers(0, max_chars)))
    return max_chars, overlap, minimum


def spans(output: Mapping[str, Any]) -> list[tuple[int, int, str, int | None]]:
    return [(c["start"], c["end"], c["cut"], c.get("tokens")) for c in output["chunks"]]


def check_invariants(text: str, output: dict[str, Any], max_chars: int, overlap: int) -> None:
    clusters = boundaries(text)
    previous_end = 0
    for index, chunk in enumerate(output["chunks"]):
        start, end = chunk["start"], chunk["end"]
        assert chunk["index"] == index
        assert chunk["text"] == text[start:end]
        assert 0 < end - start <= max_chars
        assert chunk["text"][0] not in " \t\r\n"
        assert end > previous_end
        if not overlap and index:
            assert text[previous_end:start].strip(" \t\r\n") == ""
        if "\u0600 " in chunk["text"] + text[end : end + 1]:
            pass  # a Prepend character holds a space in its cluster: the descriptor's fallback may end there
        elif end in clusters:
            assert chunk["text"][-1] not in " \t\r\n"
        else:  # only where one cluster is longer than the room
            assert chunk["cut"] == "character"
        assert chunk["start_line"] == reference.line(text, start)
        assert chunk["end_line"] == reference.line(text, end - 1)
        previous_end = end
    assert output["chunk_count"] == len(output["chunks"])


@PROPERTY
@given(texts, sizes())
@example("a\u0600 b", (3, 0, 0))
@example("\u3002\u0301x y", (2, 0, 0))
@example("ab. cd\u3002\u300dxy z", (7, 5, 0))
def test_size_chunk_matches_reference(text: str, size: tuple[int, int, int]) -> None:
    max_chars, overlap, minimum = size
    output = size_chunk(text, Settings(max_chars, overlap, minimum), None)
    assert spans(output) == reference.size_chunk(text, boundaries(text), max_chars, overlap, minimum)
    check_invariants(text, dict(output), max_chars, overlap)


class TokenCounter:
    """tiktoken's count of a string, and its tokens' bytes (the reference's token horizon)."""

    def __init__(self, name: str) -> None:
        self.encoding = encoding(name)

    def __call__(self, text: str) -> int:
        return len(self.encoding.encode_ordinary(text))

    def token_bytes(self, text: str) -> list[bytes]:
        return list(map(self.encoding.decode_single_token_bytes, self.encoding.encode_ordinary(text)))


@PROPERTY
@given(token_texts, sizes(40), st.integers(4, 16), st.sampled_from(["cl100k_base", "o200k_base"]))
@example(" strawberry strawberr y", (40, 0, 0), 4, "cl100k_base")
@example("Part \U0001f468\u200d\U0001f469\u3000  \nxx", (5, 0, 0), 5, "o200k_base")  # U+3000 before a space
@example("a.\n\nb. c.\r\n\r\nd", (40, 3, 0), 4, "cl100k_base")
def test_size_chunk_with_tokens_matches_reference(
    text: str, size: tuple[int, int, int], max_tokens: int, tokenizer: str
) -> None:
    max_chars, overlap, minimum = size
    count = TokenCounter(tokenizer)
    output = size_chunk(text, Settings(max_chars, overlap, minimum, max_tokens, encoding(tokenizer)), None)
    assert spans(output) == reference.size_chunk(text, boundaries(text), max_chars, overlap, minimum, max_tokens, count)
    check_invariants(text, dict(output), max_chars, overlap)
    assert all(chunk["tokens"] == count(chunk["text"]) <= max_tokens for chunk in output["chunks"])


@PROPERTY
@given(texts, sizes(), st.integers(1, 12), st.data())
@example("a\r\nb c", (3, 0, 0), 1, None)
@example("x\u0915\u094d\u0937y z", (2, 1, 0), 2, None)
def test_size_chunk_streamed_equals_in_memory(
    text: str, size: tuple[int, int, int], window: int, data: st.DataObject | None
) -> None:
    max_chars, overlap, minimum = size
    cut = data.draw(cut_text(text)) if data else list(text)
    expected = size_chunk(text, Settings(max_chars, overlap, minimum), None)
    with windows_of(window):
        chunks, summary = drained(stream_size_chunk(cut, Settings(max_chars, overlap, minimum)))
    assert chunks == expected["chunks"]
    assert summary == {"chunk_count": expected["chunk_count"]}


@settings(max_examples=150, deadline=None)
@given(token_texts, st.one_of(sizes(40), st.just((TOKENS_ONLY_MAX_CHARS, 0, 0))), st.integers(4, 12),
       st.integers(1, 12), st.data())  # fmt: skip
def test_size_chunk_with_tokens_streamed_equals_in_memory(
    text: str, size: tuple[int, int, int], max_tokens: int, window: int, data: st.DataObject
) -> None:
    max_chars, overlap, minimum = size
    sized = Settings(max_chars, overlap, minimum, max_tokens, encoding("cl100k_base"))
    expected = size_chunk(text, sized, None)
    with windows_of(window):
        chunks, summary = drained(stream_size_chunk(data.draw(cut_text(text)), sized))
    assert chunks == expected["chunks"]
    assert summary == {"chunk_count": expected["chunk_count"]}


@pytest.mark.parametrize(
    ("text", "sizes"),
    [
        ("a " + "e" + "\u0301" * 40 + " b c", Settings(10, 4)),  # a cluster longer than the room and the windows
        ("x." + '"' * 30 + " y z " * 5, Settings(4, 3)),  # closers longer than the windows after a terminator
        ("w " * 20 + "\r\n" * 10 + "v", Settings(6, 2, 3)),  # a CRLF run cut between CR and LF
        ("\u4e00\u3002\u300d" * 12, Settings(5, 4)),  # full-width sentence starts in the overlap
    ],
)
def test_streaming_equals_in_memory_where_a_window_ends_inside_what_a_rule_reads(text: str, sizes: Settings) -> None:
    expected = size_chunk(text, sizes, None)
    for window in (1, 2, 3, 7):
        with windows_of(window):
            chunks, summary = drained(stream_size_chunk(list(text), sizes))
        assert chunks == expected["chunks"]
        assert summary == {"chunk_count": expected["chunk_count"]}


RUN_ALPHABETS = [
    "abcdefghijklmnopqrstuvwxyz", "ACGT", "a", "ab", "!", "!?.-=#", "\u0301\u0302", "xX", "aB1",
    "".join(map(chr, range(0x4E00, 0x4E40))), "\u0e01\u0e35\u0e48\u0e2a\u0e31", "\U0001f468\u200d\U0001f469",
]  # fmt: skip
"""Runs the pre-tokenizers cannot end early: letters, DNA, one letter, punctuation, marks, case
changes, Han, Thai, emoji sequences."""


@st.composite
def long_runs(draw: st.DrawFn) -> str:
    """Prose, then a run of 300 to 1 500 characters of one alphabet, then prose."""
    alphabet = draw(st.sampled_from(RUN_ALPHABETS))
    run = "".join(draw(st.lists(st.sampled_from(alphabet), min_size=300, max_size=1500)))
    return draw(st.sampled_from(["", "Word one. ", "x "])) + run + draw(st.sampled_from(["", " tail.", "."]))


@settings(max_examples=max(60, int(os.environ.get("TEXT_TOOLS_FUZZ_EXAMPLES", "0")) // 10), deadline=None)
@given(long_runs(), st.integers(4, 700), st.sampled_from(["cl100k_base", "o200k_base"]), st.data())
def test_counts_inside_a_long_piece_are_tiktoken_s(
    text: str, max_tokens: int, tokenizer: str, data: st.DataObject
) -> None:
    """Every count the budget gives from the window's own tokens of a long piece
    (``TokenBudget._count_in_piece``) is tiktoken's count of the chunk alone."""
    chosen = encoding(tokenizer)
    start = data.draw(st.integers(0, min(len(text) - 1, 40)))
    budget = TokenBudget(text, start, len(text), Settings(TOKENS_ONLY_MAX_CHARS, 0, 0, max_tokens, chosen))
    ends = range(start + 1, min(budget.cutoff, len(text) + 1))
    for end in data.draw(st.lists(st.sampled_from(ends), max_size=30)) if ends else []:
        assert budget.count(end) == len(chosen.encode_ordinary(text[start:end]))


@settings(max_examples=max(15, int(os.environ.get("TEXT_TOOLS_FUZZ_EXAMPLES", "0")) // 50), deadline=None)
@given(long_runs(), st.integers(4, 300), st.sampled_from(["cl100k_base", "o200k_base"]))
def test_size_chunk_in_long_runs_matches_reference(text: str, max_tokens: int, tokenizer: str) -> None:
    count = TokenCounter(tokenizer)
    output = size_chunk(text, Settings(TOKENS_ONLY_MAX_CHARS, 0, 0, max_tokens, encoding(tokenizer)), None)
    wanted = reference.size_chunk(text, boundaries(text), TOKENS_ONLY_MAX_CHARS, 0, 0, max_tokens, count)
    assert spans(output) == wanted


def test_a_window_with_no_more_tokens_than_the_budget_has_no_horizon_of_an_earlier_one() -> None:
    """37 letters a are 6 tokens of cl100k_base, 40 are 5: at max_tokens 5 the last chunk's first
    window holds more than 5 tokens, its next (reaching the end) does not, so no horizon bounds it
    and the chunk is the text's end (the window before's horizon had cut it 2 characters short)."""
    text = "a" * 1840
    output = size_chunk(text, Settings(2000, 10, 0, 5, encoding("cl100k_base")), None)
    wanted = reference.size_chunk(text, boundaries(text), 2000, 10, 0, 5, TokenCounter("cl100k_base"))
    assert spans(output) == wanted
    assert spans(output)[-1] == (1800, 1840, "end", 5)


WORDS = st.sampled_from(
    ["word", "the", "café", "e\u0301t\u00e9", "\U0001f600", "\u65e5\u672c", "1234", "it's", "x.y", "!!"]
)
SEPARATORS = st.sampled_from([" ", " ", " ", ", ", ". ", "\n", "\n\n", "\t", "  "])
prose_like = st.lists(st.tuples(WORDS, SEPARATORS), min_size=150, max_size=700).map(
    lambda pairs: "".join(word + separator for word, separator in pairs)
)


@settings(max_examples=max(40, int(os.environ.get("TEXT_TOOLS_FUZZ_EXAMPLES", "0")) // 10), deadline=None)
@given(prose_like, st.integers(48, 300), st.sampled_from(["cl100k_base", "o200k_base"]), st.data())
def test_a_budget_that_reuses_the_encoding_before_it_is_the_budget_made_afresh(
    text: str, max_tokens: int, tokenizer: str, data: st.DataObject
) -> None:
    """A budget started from the chunk before's encoding (``TokenBudget._reuse``) has the same
    window and cutoff as one that encodes afresh, and every count it gives is tiktoken's."""
    chosen = encoding(tokenizer)
    sizes = Settings(TOKENS_ONLY_MAX_CHARS, 0, 0, max_tokens, chosen)
    first = data.draw(st.integers(0, 40))
    before = TokenBudget(text, first, len(text), sizes)
    start = data.draw(st.integers(first + 1, max(first + 1, before.encoded_end - REUSE_CHARS - 1)))
    reused = TokenBudget(text, start, len(text), sizes, before)
    fresh = TokenBudget(text, start, len(text), sizes)
    assert (reused.cutoff, reused.window_end) == (fresh.cutoff, fresh.window_end)
    ends = range(start + 1, min(reused.cutoff, len(text) + 1))
    for end in data.draw(st.lists(st.sampled_from(ends), max_size=20)) if ends else []:
        assert reused.count(end) == len(chosen.encode_ordinary(text[start:end]))
