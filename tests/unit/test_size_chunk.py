"""text-size-chunk, one descriptor sentence at a time (spec/seeds/text-size-chunk.json, "semantics"),
and API.md's points on it: what each rule makes of a small text chosen to show it."""

import subprocess
import sys
from typing import Any

import pytest

from texttools.errors import InvalidInput, OutputTooLarge, TooManyChunks
from texttools.registry import tool
from texttools.tokens import encoding

TOOL = tool("text-size-chunk")


def chunk(text: str, **fields: Any) -> list[tuple[str, str]]:
    """The chunks' texts and cut kinds, through the whole request path."""
    output = TOOL.run(TOOL.parse({"text": text, **fields}))
    return [(each["text"], each["cut"]) for each in output["chunks"]]


def spans(text: str, **fields: Any) -> list[dict[str, Any]]:
    return list(TOOL.run(TOOL.parse({"text": text, **fields}))["chunks"])


# Whitespace, lines and C


@pytest.mark.parametrize("other", ["\u00a0", "\u3000", "\x0b", "\x0c", "\x85", "\u2028"])
def test_only_space_tab_lf_and_cr_are_whitespace(other: str) -> None:
    assert chunk(f"ab{other}cd", max_chars=3) == [("ab" + other, "character"), ("cd", "end")]


@pytest.mark.parametrize("ending", ["\n", "\r", "\r\n"])
def test_each_line_ending_makes_a_line_end(ending: str) -> None:
    assert chunk(f"one{ending}two three", max_chars=8) == [("one", "line"), ("two", "word"), ("three", "end")]


@pytest.mark.parametrize("text", ["", " ", " \t\r\n ", "\n\n"])
def test_empty_or_whitespace_only_text_gives_no_chunks(text: str) -> None:
    assert TOOL.run(TOOL.parse({"text": text, "max_chars": 5})) == {"chunk_count": 0, "chunks": []}


def test_the_first_chunk_starts_at_the_first_non_whitespace_and_the_last_ends_at_c() -> None:
    assert spans("  \n\t alpha  \n ", max_chars=10)[0] | {"text": ""} == {
        "index": 0, "start": 5, "end": 10, "start_line": 2, "end_line": 2, "cut": "end", "text": ""
    }  # fmt: skip


# The kinds of ends, and their ranks


def test_a_blank_line_of_spaces_and_tabs_makes_a_paragraph_end() -> None:
    assert chunk("aa bb  \n \t \ncc dd", max_chars=14) == [("aa bb", "paragraph"), ("cc dd", "end")]


def test_a_line_that_is_not_blank_after_the_ending_makes_only_a_line_end() -> None:
    assert chunk("aa bb\n x\ncc dd", max_chars=10) == [("aa bb\n x", "line"), ("cc dd", "end")]


@pytest.mark.parametrize("terminator", [".", "!", "?", "\u2026", "\u3002", "\uff01", "\uff1f"])
def test_each_terminator_before_a_space_makes_a_sentence_end(terminator: str) -> None:
    assert chunk(f"Aa{terminator} bb cc", max_chars=7) == [(f"Aa{terminator}", "sentence"), ("bb cc", "end")]


@pytest.mark.parametrize(
    "closer", ['"', "'", ")", "]", "}", "\u201d", "\u2019", "\u00bb", "\u300d", "\u300f", "\uff09"]
)
def test_closers_after_a_terminator_stay_in_the_sentence(closer: str) -> None:
    assert chunk(f"Aa.{closer}{closer} bb cc", max_chars=9) == [(f"Aa.{closer}{closer}", "sentence"), ("bb cc", "end")]


def test_a_full_width_terminator_ends_a_sentence_before_any_character_but_whitespace_or_a_closer() -> None:
    assert chunk("\u4e00\u3002\u4e8c\u3002\u300d\u4e09", max_chars=4) == [
        ("\u4e00\u3002", "sentence"), ("\u4e8c\u3002\u300d\u4e09", "end")
    ]  # fmt: skip
    assert chunk("ab.cd ef", max_chars=6) == [("ab.cd", "word"), ("ef", "end")]  # a half-width stop needs a space


def test_abbreviations_and_numbers_end_sentences_too() -> None:
    assert chunk("See e.g. this one", max_chars=12) == [("See e.g.", "sentence"), ("this one", "end")]


def test_a_tab_makes_a_word_end_like_a_space() -> None:
    assert chunk("aaa\tbbb ccc", max_chars=9) == [("aaa\tbbb", "word"), ("ccc", "end")]


def test_the_best_kind_in_reach_wins_over_a_later_end_of_a_lesser_kind() -> None:
    text = "aa\n\nbb\ncc. dd ee"
    assert chunk(text, max_chars=15) == [("aa", "paragraph"), ("bb\ncc. dd ee", "end")]
    assert chunk("bb\ncc. dd ee ff", max_chars=13) == [("bb", "line"), ("cc. dd ee ff", "end")]
    assert chunk("cc. dd ee ff gg", max_chars=12) == [("cc.", "sentence"), ("dd ee ff gg", "end")]


def test_the_last_end_of_the_best_kind_is_taken() -> None:
    assert chunk("a b c d e f", max_chars=8) == [("a b c d", "word"), ("e f", "end")]


# Clusters


@pytest.mark.parametrize(
    "cluster",
    [
        "e\u0301",  # a combining accent
        "\U0001f469\u200d\U0001f469\u200d\U0001f467",  # a ZWJ family
        "\U0001f1eb\U0001f1f7",  # a flag
        "\u0915\u094d\u0937",  # an Indic conjunct (GB9c, which the regex module's \\X lacks)
        "\u1100\u1161\u11a8",  # a Hangul syllable of jamo
    ],
)
def test_a_character_cut_never_falls_inside_a_cluster(cluster: str) -> None:
    text = "ab" + cluster + "cd"
    room = len(cluster) + 1
    cuts = [end for end in (c["end"] for c in spans(text, max_chars=room)) if end < len(text)]
    assert all(not 2 < end < 2 + len(cluster) for end in cuts)


def test_one_cluster_longer_than_max_chars_is_cut_inside_at_max_chars() -> None:
    text = "e" + "\u0301" * 5
    assert [(c["start"], c["end"], c["cut"]) for c in spans(text, max_chars=4)] == [(0, 4, "character"), (4, 6, "end")]


def test_only_ends_after_non_whitespace_count() -> None:
    assert chunk("ab     cd", max_chars=4) == [("ab", "word"), ("cd", "end")]


# Min fill


def test_min_chars_prefers_a_lesser_kind_that_fills_the_chunk() -> None:
    text = "Aa.\n\nbb cc dd ee"
    assert chunk(text, max_chars=12) == [("Aa.", "paragraph"), ("bb cc dd ee", "end")]
    assert chunk(text, max_chars=12, min_chars=8) == [("Aa.\n\nbb cc", "word"), ("dd ee", "end")]


def test_without_an_end_past_min_chars_the_best_end_before_it_is_taken() -> None:
    assert chunk("Aa bbbbbbbbbb", max_chars=10, min_chars=5) == [("Aa bbbbbbb", "character"), ("bbb", "end")]
    assert chunk("Aa.\n\nbbbbbbbbbb", max_chars=10, min_chars=9) == [("Aa.\n\nbbbbb", "character"), ("bbbbb", "end")]
    assert chunk("Aa\n\n bbbbbbbbbbbb", max_chars=4, min_chars=3) == [("Aa", "paragraph"), ("bbbb", "character"),
                                                                    ("bbbb", "character"), ("bbbb", "end")]  # fmt: skip


# Overlap


def test_overlap_starts_at_the_first_word_start_within_it() -> None:
    output = spans("one two three four five", max_chars=13, overlap_chars=9)
    # "two" starts the second chunk, whose ends must lie after 13: within its 13 characters only
    # the inside of "four" (a character cut) is there.
    assert [(c["start"], c["end"], c["cut"]) for c in output] == [
        (0, 13, "word"), (4, 17, "character"), (8, 18, "word"), (14, 23, "end")
    ]  # fmt: skip


def test_an_overlap_that_would_not_reach_past_the_next_start_is_not_taken() -> None:
    # After "aaaa" the next start is 9 ("bbbb"); a start p with p + 5 <= 9 leaves no room for it.
    assert [(c["start"], c["end"]) for c in spans("aaaa     bbbb", max_chars=5, overlap_chars=4)] == [(0, 4), (9, 13)]


def test_overlap_without_a_word_start_in_it_starts_after_the_whitespace() -> None:
    assert [(c["start"], c["end"]) for c in spans("aaaaaaaa bb", max_chars=6, overlap_chars=3)] == [(0, 6), (6, 11)]


def test_an_overlapping_chunk_ends_after_the_one_before() -> None:
    ends = [c["end"] for c in spans("a b c d e f g h i j", max_chars=5, overlap_chars=4)]
    assert ends == sorted(set(ends))


def test_a_full_width_sentence_end_is_a_start_for_overlap() -> None:
    text = "\u4e00\u4e8c\u3002\u4e09\u56db\u4e94\u516d\u4e03\u516b"
    output = spans(text, max_chars=5, overlap_chars=3, min_chars=5)
    assert [(c["start"], c["end"]) for c in output] == [(0, 5), (3, 8), (8, 9)]


# Offsets and lines


def test_offsets_count_code_points_and_lines_count_every_ending() -> None:
    text = "\U0001f600 a\r\nb\rc\n\nd e"
    output = spans(text, max_chars=4)
    assert [(c["start"], c["end"], c["start_line"], c["end_line"], c["cut"]) for c in output] == [
        (0, 3, 1, 1, "line"), (5, 8, 2, 3, "paragraph"), (10, 13, 5, 5, "end")
    ]  # fmt: skip
    for c in output:
        assert c["text"] == text[c["start"] : c["end"]]


# Tokens


def test_max_tokens_counts_each_chunk_alone() -> None:
    count = encoding("cl100k_base").encode_ordinary
    for c in spans("Tokens are not characters: internationalization costs more. " * 6, max_chars=500, max_tokens=9):
        assert c["tokens"] == len(count(c["text"])) <= 9


def test_a_prefix_that_costs_more_than_the_whole_does_not_count() -> None:
    # " strawberr" is 3 tokens, " strawberry" 1: the longer chunk fits where the shorter does not.
    count = encoding("cl100k_base").encode_ordinary
    assert len(count("a strawberr")) > len(count("a strawberry"))
    text = "a strawberry"
    assert [(c["text"], c["tokens"]) for c in spans(text, max_chars=20, max_tokens=4)] == [("a strawberry", 2)]


def test_no_end_that_fits_cuts_at_the_largest_fitting_position() -> None:
    count = encoding("cl100k_base").encode_ordinary
    for c in spans("x" * 3 + "\u8a9e" * 30, max_chars=40, max_tokens=5):
        assert c["tokens"] == len(count(c["text"])) <= 5


def test_an_overlapping_start_must_leave_the_next_chunk_an_end_that_fits() -> None:
    """From 2, "strawberry x x" is 5 tokens: a chunk starting there would have no end after 14
    that fits, so the overlap starts at the last word instead."""
    count = encoding("cl100k_base").encode_ordinary
    assert len(count("strawberry x x")) > 4 >= len(count("x x"))
    output = spans("x strawberry x x", max_chars=15, overlap_chars=12, max_tokens=4)
    assert [(c["start"], c["end"], c["cut"], c["tokens"]) for c in output] == [(0, 14, "word", 3), (13, 16, "end", 2)]


def test_an_end_counts_only_where_the_chunk_up_to_it_fits() -> None:
    """The chunk takes the last end of the best kind among those that fit: a paragraph end that
    does not fit is passed over for a sentence end before it that does."""
    text = "Aa bb. Internationalization internationalization.\n\nCc"
    count = encoding("cl100k_base").encode_ordinary
    assert len(count("Aa bb. Internationalization internationalization.")) > 6 >= len(count("Aa bb."))
    first = spans(text, max_chars=60, max_tokens=6)[0]
    assert (first["text"], first["cut"]) == ("Aa bb.", "sentence")


def test_the_tokenizer_changes_the_counts() -> None:
    text = (
        "\uc548\ub155\ud558\uc138\uc694 \uc138\uacc4 \uc774\uac83\uc740 "
        "\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8\uc785\ub2c8\ub2e4 "
    ) * 3
    cl100k = spans(text, max_chars=200, max_tokens=10)
    o200k = spans(text, max_chars=200, max_tokens=10, tokenizer="o200k_base")
    assert [c["end"] for c in cl100k] == [8, 16, 29, 36, 47, 56, 64, 71]
    assert [c["end"] for c in o200k] == [16, 40, 64, 71]
    assert all(c["tokens"] == len(encoding("o200k_base").encode_ordinary(c["text"])) for c in o200k)


def test_without_max_tokens_no_chunk_has_tokens() -> None:
    assert all("tokens" not in c for c in spans("a b c", max_chars=2))


def test_tokens_come_before_text_as_in_the_descriptor() -> None:
    assert list(spans("a b", max_chars=5, max_tokens=4)[0]) == [
        "index", "start", "end", "start_line", "end_line", "cut", "tokens", "text"
    ]  # fmt: skip


# Validation and limits


TOKENIZER_FORM = "must be cl100k_base, o200k_base or hf:<name> (GET /v1/tokenizers lists them)"
NEITHER_LIMIT = "is missing, and so is max_tokens: give max_chars, max_tokens or both"


@pytest.mark.parametrize(
    ("fields", "field", "problem"),
    [
        ({"max_chars": 5, "overlap_chars": 5}, "overlap_chars", "must be less than max_chars"),
        ({"max_chars": 5, "min_chars": 6}, "min_chars", "must be at most max_chars"),
        ({"max_chars": 5, "tokenizer": "cl100k_base"}, "tokenizer", "is allowed only with max_tokens"),
        ({"max_chars": 5, "max_tokens": 8, "tokenizer": "p50k_base"}, "tokenizer",
         f"{TOKENIZER_FORM}; did you mean o200k_base?"),  # issue 62: said in words, never the regex
        ({"max_chars": 5, "max_tokens": 8, "tokenizer": "o200k_base\n"}, "tokenizer",
         f"{TOKENIZER_FORM}; did you mean o200k_base?"),
        ({"max_chars": 5, "max_tokens": 8, "tokenizer": "x" * 100}, "tokenizer", TOKENIZER_FORM),
        ({"max_chars": 5, "max_tokens": 8, "tokenizer": "hf:bge-small-en-v1.5"}, "tokenizer",
         "is not a tokenizer of this deployment: cl100k_base or o200k_base"),
        ({}, "max_chars", NEITHER_LIMIT),
        ({"overlap_chars": 3}, "max_chars", NEITHER_LIMIT),
        ({"max_chars": 0}, "max_chars", "must be at least 1"),
        ({"max_chars": 262145}, "max_chars", "must be at most 262144"),
        ({"max_chars": 5, "max_tokens": 3}, "max_tokens", "must be at least 4"),
        ({"max_chars": 5, "overlap_chars": -1}, "overlap_chars", "must be at least 0"),
        ({"max_chars": 5.0}, "max_chars", "must be an integer"),
    ],
)  # fmt: skip
def test_invalid_sizes_are_invalid_input_naming_the_field(fields: dict[str, Any], field: str, problem: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        TOOL.parse({"text": "a", **fields})
    assert refused.value.details == [{"field": field, "problem": problem}]


def test_min_chars_equal_to_max_chars_is_allowed() -> None:
    assert chunk("aa bb", max_chars=5, min_chars=5) == [("aa bb", "end")]


def test_more_than_max_chunks_is_too_many_chunks() -> None:
    with pytest.raises(TooManyChunks):
        TOOL.run(TOOL.parse({"text": "a " * 10001, "max_chars": 1}))
    assert TOOL.run(TOOL.parse({"text": "a " * 10000, "max_chars": 1}))["chunk_count"] == 10000


def test_an_output_over_max_output_bytes_is_output_too_large() -> None:
    with pytest.raises(OutputTooLarge):
        TOOL.execute(b'{"text": "' + b"abcdefghij " * 6000 + b'", "max_chars": 200, "overlap_chars": 190}')


# Loading: tables and clusters only when a request needs them


def after_a_request(fields: str, shown: str) -> str:
    """What ``shown`` (an expression) is in a fresh interpreter after one text-size-chunk request."""
    script = (
        "import sys\nfrom texttools.registry import tool\nt = tool('text-size-chunk')\n"
        f"t.run(t.parse({{{fields}}}))\nfrom texttools.tokens import encoding\nprint({shown})"
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.strip()


def test_neither_the_tokenizer_nor_the_cluster_library_is_imported_for_prose() -> None:
    prose = (
        "'text': 'Some prose. With words, sentences.\\n\\nAnd paragraphs.' * 50, 'max_chars': 60, 'overlap_chars': 10"
    )
    modules = "sorted(m for m in ('tiktoken', 'unicode_segmentation_rs', 'regex') if m in sys.modules)"
    assert after_a_request(prose, modules) == "[]"


def test_the_tables_are_the_ones_tiktoken_declares(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SHA-256 and pattern of each encoding are tiktoken's own (tiktoken_ext.openai_public)."""
    from tiktoken_ext import openai_public

    from texttools.tokens import TABLES

    declared: dict[str, str] = {}

    def load(url: str, expected_hash: str) -> dict[bytes, int]:
        declared[url.rsplit("/", 1)[1].removesuffix(".tiktoken")] = expected_hash
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", load)
    for name, table in TABLES.items():
        assert getattr(openai_public, name)()["pat_str"] == table.pattern
        assert declared[name] == table.sha256


def test_a_table_with_another_sha256_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    import gzip

    from texttools import tokens

    forged = tmp_path / "cl100k_base.tiktoken.gz"
    forged.write_bytes(gzip.compress(b"YQ== 0\n"))
    monkeypatch.setattr(tokens, "table_path", lambda name: forged)
    with pytest.raises(tokens.TableMismatch, match="SHA-256"):
        tokens.ranks.__wrapped__("cl100k_base")  # past the cache: read the file again


def test_an_encoding_is_loaded_only_when_a_request_names_it() -> None:
    loaded = "encoding.cache_info().currsize, 'tiktoken' in sys.modules"
    assert after_a_request("'text': 'a b c', 'max_chars': 3", loaded) == "0 False"
    assert after_a_request("'text': 'a b c', 'max_chars': 3, 'max_tokens': 8", loaded) == "1 True"
