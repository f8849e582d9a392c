"""markdown-size-chunk, one descriptor sentence at a time (spec/seeds/markdown-size-chunk.json,
"semantics"), and API.md's points on it: what each rule makes of a small document chosen to show it."""

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.unit.test_size_chunk_properties import texts
from texttools.errors import InvalidInput, OutputTooLarge, TooManyChunks
from texttools.registry import tool
from texttools.tokens import encoding
from texttools.tools.markdown_size_chunk import Ranges

TOOL = tool("markdown-size-chunk")
TEXT_TOOL = tool("text-size-chunk")
SECTIONS = tool("markdown-sections-chunk")


def output(text: str, **fields: Any) -> Any:
    return TOOL.run(TOOL.parse({"text": text, **fields}))


def chunk(text: str, **fields: Any) -> list[tuple[str, str]]:
    """The chunks' texts and cut kinds, through the whole request path."""
    return [(each["text"], each["cut"]) for each in output(text, **fields)["chunks"]]


def paths(text: str, **fields: Any) -> list[tuple[str, list[str]]]:
    return [(each["text"], each["headings"]) for each in output(text, **fields)["chunks"]]


# Everything text-size-chunk defines holds


@pytest.mark.parametrize("opening", ["##\v", "#\f"])
def test_a_vt_or_ff_after_the_opening_sequence_makes_no_heading(opening: str) -> None:
    """CommonMark asks for a space, a tab or the line's end after the #s; pulldown-cmark took VT
    and FF for spaces, so the chunk before them was cut at section-2 with a path (issue 55)."""
    text = f"Intro line.\n\n{opening}vt\n\nSome text."
    assert paths(text, max_chars=14) == [("Intro line.", []), (f"{opening}vt", []), ("Some text.", [])]
    assert [cut for _, cut in chunk(text, max_chars=14)] == ["paragraph", "paragraph", "end"]
    assert paths(text.replace(opening, "## "), max_chars=14)[1] == ("## vt\n\nSome", ["vt"])  # with a space: one


@settings(max_examples=200, deadline=None)
@given(texts, st.integers(1, 20), st.integers(0, 19), st.integers(0, 20))
def test_text_with_no_markdown_block_is_chunked_as_text_size_chunk_does(
    text: str, max_chars: int, overlap: int, minimum: int
) -> None:
    """Generated text of words, line endings and clusters has no heading and no literal block
    (no line starts with #, four spaces, a tab, <, -, = or a fence): every end keeps its kind."""
    assume(re.search(r"(^|[\r\n]) {0,3}(\t| )", text) is None)  # no indented code
    fields = {
        "max_chars": max_chars,
        "overlap_chars": min(overlap, max_chars - 1),
        "min_chars": min(minimum, max_chars),
    }
    ours = TOOL.run(TOOL.parse({"text": text, **fields}))
    theirs = TEXT_TOOL.run(TEXT_TOOL.parse({"text": text, **fields}))
    assert [{k: v for k, v in c.items() if k != "headings"} for c in ours["chunks"]] == theirs["chunks"]
    assert all(c["headings"] == [] for c in ours["chunks"])


def test_chunk_objects_have_the_fields_in_the_order_of_the_descriptor_s_examples() -> None:
    (first,) = output("# A\n\nb", max_chars=10, max_tokens=8)["chunks"]
    assert list(first) == ["index", "start", "end", "start_line", "end_line", "cut", "headings", "tokens", "text"]
    assert first == {"index": 0, "start": 0, "end": 6, "start_line": 1, "end_line": 3, "cut": "end",
                     "headings": ["A"], "tokens": 4, "text": "# A\n\nb"}  # fmt: skip


# Headings: markdown-sections-chunk's, with the same max_level


@pytest.mark.parametrize(
    "text",
    [
        "intro\n\n```\n# fenced\n```\n\nrest of it",
        "intro\n\n    # indented code\n\nrest of it",
        "intro\n\n> # quoted\n\nrest of it",
        "intro\n\n- # listed\n\nrest of it",
        "intro\n\n<div>\n# html\n</div>\n\nrest of it",
        "intro\n\n####### seven\n\nrest of it",
    ],
)
def test_only_top_level_atx_and_setext_headings_are_headings(text: str) -> None:
    assert all(cut != "heading" and not cut.startswith("section") for _, cut in chunk(text, max_chars=12))
    assert SECTIONS.run(SECTIONS.parse({"text": text}))["section_count"] == 1  # the same parse, no heading


def test_a_heading_is_the_same_one_markdown_sections_chunk_finds() -> None:
    text = "Intro\n\nTitle\n=====\n\ntext\n\n## Sub #\n\nmore"
    sections = SECTIONS.run(SECTIONS.parse({"text": text}))["sections"]
    ours = output(text, max_chars=200, min_chars=0, max_level=6)["chunks"]
    assert ours[0]["text"] == text  # it all fits
    # at 8, the chunks start exactly where markdown-sections-chunk's sections do
    starts = [c["start"] for c in output(text, max_chars=8)["chunks"] if c["headings"] != []]
    assert {s["start"] for s in sections if s["heading"]} <= set(starts)


def test_a_setext_heading_s_span_runs_to_the_end_of_its_underline() -> None:
    """Ends after a setext heading's content lines, inside its underline and at its end are all in
    its span (the paragraph end after the underline too)."""
    text = "Two lines\nof title\n---\n\nbody"
    assert chunk(text, max_chars=19) == [("Two lines\nof title", "heading"), ("---\n\nbody", "end")]
    assert chunk(text, max_chars=20)[0] == ("Two lines\nof title\n-", "heading")
    assert chunk(text, max_chars=22)[0] == ("Two lines\nof title\n---", "heading")


def test_max_level_makes_deeper_headings_ordinary_text() -> None:
    text = "# A\n\naaa\n\n### C\n\nccc"
    assert chunk(text, max_chars=14) == [("# A\n\naaa", "section-3"), ("### C\n\nccc", "end")]
    assert chunk(text, max_chars=14, max_level=2) == [("# A\n\naaa", "paragraph"), ("### C\n\nccc", "end")]
    assert paths(text, max_chars=14, max_level=2)[1] == ("### C\n\nccc", ["A"])


@pytest.mark.parametrize("value", [0, 7, "2", 2.0, True, None])
def test_max_level_is_a_json_integer_from_1_to_6(value: Any) -> None:
    with pytest.raises(InvalidInput):
        TOOL.parse({"text": "x", "max_chars": 5, "max_level": value})


def test_max_level_defaults_to_6() -> None:
    text = "a\n\n###### F\n\nb"
    expected = [("a", "section-6"), ("###### F", "heading"), ("b", "end")]
    assert chunk(text, max_chars=8) == chunk(text, max_chars=8, max_level=6) == expected


# Literal blocks, at any depth


@pytest.mark.parametrize(
    ("text", "inside"),
    [
        ("```\naaa\n\nbbb\n```", "```\naaa"),
        ("~~~~ py\naaa\n\nbbb\n~~~~", "~~~~ py\naaa"),
        ("    aaa\n\n    bbb", "aaa"),
        ("<div>\naaa\nbbb\n</div>", "<div>\naaa"),
        ("<!--\naaa\nbbb\n-->", "<!--\naaa"),
        ("> ```\n> aaa\n>\n> bbb\n> ```", "> ```\n> aaa"),
        ("- ```\n  aaa\n\n  bbb\n  ```", "- ```\n  aaa"),
        ("- > ```\n  > aaa\n  > bbb\n  > ```", "- > ```\n  > aaa"),
    ],
)
def test_ends_inside_a_literal_block_at_any_depth_are_literal_line_ends(text: str, inside: str) -> None:
    assert chunk(text, max_chars=len(inside) + 1)[0] == (inside.lstrip(), "literal-line")


def test_a_literal_block_s_inside_ends_before_its_last_visible_character() -> None:
    """After the closing fence is outside the block: a paragraph end, not literal-line."""
    assert chunk("```\naaa\n```\n\nafter it", max_chars=14) == [("```\naaa\n```", "paragraph"), ("after it", "end")]


def test_a_literal_block_s_inside_starts_after_its_first_line_starts() -> None:
    """The end before a fence's first line is outside it (a paragraph end here)."""
    assert chunk("aa\n\n```\nb c\n```", max_chars=9)[0] == ("aa", "paragraph")


def test_literal_word_ends_are_sentence_and_word_ends_inside_a_literal_block() -> None:
    """A fence's first line ends in a line end inside the block; then the words of its content."""
    assert chunk("```\nab cd. ef gh ij\n```", max_chars=10)[:2] == [
        ("```", "literal-line"),
        ("ab cd. ef", "literal-word"),
    ]


def test_a_character_end_inside_a_literal_block_is_a_character_end() -> None:
    assert chunk("```\nabcdefghij\n```", max_chars=6)[1] == ("abcdef", "character")


# The kinds of ends, best first


def test_end_is_best_even_inside_a_heading() -> None:
    assert chunk("text\n\n# Last", max_chars=20) == [("text\n\n# Last", "end")]


def test_a_higher_section_level_wins_over_a_later_lower_one() -> None:
    assert chunk("aa\n\n# B\n\nbb\n\n## C\n\ncc", max_chars=18)[0] == ("aa", "section-1")
    assert chunk("aa\n\n## B\n\nbb\n\n# C\n\ncc", max_chars=18)[0] == ("aa\n\n## B\n\nbb", "section-1")


def test_a_section_end_wins_over_a_later_paragraph_end() -> None:
    assert chunk("aa\n\n### B\n\nbb\n\ncc dd", max_chars=16)[0] == ("aa", "section-3")


def test_a_section_end_needs_only_whitespace_before_the_heading() -> None:
    """Blank lines of spaces and tabs, and CRLF, between the end and the heading."""
    assert chunk("aa  \r\n \t\r\n\r\n  ## B\r\nbb", max_chars=15)[0] == ("aa", "section-2")


def test_an_end_right_after_a_heading_is_a_heading_end_even_before_another_heading() -> None:
    assert chunk("# A\n\n## B\n\nb", max_chars=5)[0] == ("# A", "heading")


def test_a_heading_end_ranks_below_a_word_end() -> None:
    assert chunk("# Heading\n\nsome words here", max_chars=20) == [("# Heading\n\nsome", "word"), ("words here", "end")]


def test_an_end_inside_a_heading_is_a_heading_end() -> None:
    expected = [("# Averyver", "heading"), ("ylongheadi", "heading"), ("ng", "end")]
    assert chunk("# Averyverylongheading", max_chars=10) == expected
    assert chunk("# Long heading words\n\nx", max_chars=13)[0] == ("# Long headin", "heading")
    assert chunk("# Long heading words\n\nx", max_chars=14)[0] == ("# Long heading", "heading")


def test_every_end_in_or_at_the_end_of_a_heading_is_one_kind_so_the_last_wins() -> None:
    """The end after ``# A`` and the one inside ``### C`` are both ``heading`` ends."""
    assert chunk("# A\n\n### C\n\ntext", max_chars=8)[0] == ("# A\n\n###", "heading")


def test_a_heading_end_ranks_above_a_literal_end() -> None:
    assert chunk("# Title\n\n```\nab cd\nef\n```", max_chars=18)[0] == ("# Title", "heading")


def test_literal_line_ranks_above_literal_word_and_that_above_character() -> None:
    assert chunk("```\nab cd\nef gh ij\n```", max_chars=15)[0] == ("```\nab cd", "literal-line")
    assert chunk("```\nab cd ef gh\n```", max_chars=8)[1] == ("ab cd ef", "literal-word")
    assert chunk("```\nabcdefgh\n```", max_chars=6)[1] == ("abcdef", "character")


def test_a_literal_block_that_fits_is_never_cut() -> None:
    block = "```\nprint(1)\n\nprint(2)\n```"
    text = "Some text here. More.\n\n" + block + "\n\nAfter."
    chunks = chunk(text, max_chars=len(block) + 3)
    assert (block, "paragraph") in chunks


# After a section end: no overlap across a heading


def test_after_a_section_end_the_next_chunk_starts_at_the_heading_without_overlap() -> None:
    expected = [("aa bb cc", "section-1"), ("# H\n\ndd", "end")]
    assert chunk("aa bb cc\n\n# H\n\ndd", max_chars=12, overlap_chars=5) == expected


def test_overlap_repeats_text_within_a_section() -> None:
    assert chunk("# H\n\naa bb cc dd", max_chars=11, overlap_chars=5) == [
        ("# H\n\naa bb", "word"), ("aa bb cc dd", "end")
    ]  # fmt: skip


# headings: the heading path at the chunk's start


def test_headings_is_empty_before_the_first_heading() -> None:
    assert paths("intro text\n\n# A\n\nbody", max_chars=12) == [("intro text", []), ("# A\n\nbody", ["A"])]


def test_headings_is_the_section_s_path_then_its_heading_with_skipped_levels() -> None:
    text = "# A\n\naaa\n\n### C\n\nccc\n\n## B\n\nbbb\n\n# D\n\nddd"
    assert paths(text, max_chars=10) == [
        ("# A\n\naaa", ["A"]), ("### C\n\nccc", ["A", "C"]), ("## B\n\nbbb", ["A", "B"]), ("# D\n\nddd", ["D"])
    ]  # fmt: skip
    # a chunk holding a heading keeps the path at its start (and a level-2 end wins over a level-3 one)
    assert paths(text, max_chars=21)[0] == ("# A\n\naaa\n\n### C\n\nccc", ["A"])


def test_headings_follow_the_chunk_s_start_not_its_end() -> None:
    assert paths("# A\n\naaaa bbbb cccc dddd", max_chars=12)[1] == ("bbbb cccc", ["A"])


def test_an_empty_heading_has_an_empty_content_in_the_path() -> None:
    assert paths("#\n\ntext", max_chars=4) == [("#", [""]), ("text", [""])]


def test_a_heading_path_keeps_inline_markup_verbatim() -> None:
    assert paths("# *A* `b`\n\ntext", max_chars=20) == [("# *A* `b`\n\ntext", ["*A* `b`"])]


# Limits and errors, as text-size-chunk's


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"max_chars": 5, "overlap_chars": 5}, "overlap_chars"),
        ({"max_chars": 5, "min_chars": 6}, "min_chars"),
        ({"max_chars": 5, "tokenizer": "o200k_base"}, "tokenizer"),
        ({"max_chars": 0}, "max_chars"),
        ({"max_chars": 5, "max_tokens": 3}, "max_tokens"),
        ({"max_chars": 5, "tokenizer": "p50k_base", "max_tokens": 8}, "tokenizer"),
    ],
)
def test_invalid_sizes_are_invalid_input_naming_the_field(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        TOOL.parse({"text": "# x", **fields})
    assert [problem["field"] for problem in raised.value.details] == [field]


def test_a_lone_surrogate_is_invalid_input() -> None:
    with pytest.raises(InvalidInput):
        TOOL.parse({"text": "# a\ud800", "max_chars": 5})


def test_more_than_max_chunks_is_too_many_chunks() -> None:
    with pytest.raises(TooManyChunks):
        output("# h\n\n" * 10001, max_chars=3)
    assert output("# h\n\n" * 10000, max_chars=3)["chunk_count"] == 10000


def test_an_output_over_max_output_bytes_is_output_too_large() -> None:
    """Each chunk's heading path counts too: 1 800 chunks of 420 characters and a 400-character path."""
    text = "# " + "h" * 400 + "\n\n" + "ab " * 2000
    with pytest.raises(OutputTooLarge):
        TOOL.execute(orjson.dumps({"text": text, "max_chars": 420, "overlap_chars": 418}))


def test_tokens_count_each_chunk_alone_and_bound_it() -> None:
    chunks = output("# Guide\n\nSome words here. More words and more.", max_chars=400, max_tokens=6)["chunks"]
    counted = encoding("cl100k_base")
    assert all(c["tokens"] == len(counted.encode_ordinary(c["text"])) <= 6 for c in chunks)


def test_the_markdown_parser_is_not_imported_by_the_other_size_tool() -> None:
    """pyromark stays out of text-size-chunk's cold start (it is imported with this tool only)."""
    program = (
        "import sys; from texttools.registry import tool; t = tool('text-size-chunk');"
        "t.run(t.parse({'text': '# a', 'max_chars': 3})); print('pyromark' in sys.modules)"
    )
    found = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"


def test_the_gaps_between_many_headings_are_searched_in_linear_time() -> None:
    """Sentence and word ends are searched in each gap between the heading spans of a chunk's reach;
    each search read on to the reach's end where its gap had none, so a reach holding many headings
    was read once for each of them (256 KiB of ``a\\n=\\n`` at 100 000 characters took 78 s). Eight
    times the text and the reach costs at most sixteen times the CPU time (64 before)."""
    run = tool("markdown-size-chunk").run

    def cpu(headings: int) -> float:
        parsed = tool("markdown-size-chunk").parse({"text": "a\n=\n" * headings, "max_chars": headings})
        times = []
        for _ in range(3):
            started = time.process_time()
            run(parsed)
            times.append(time.process_time() - started)
        return min(times)

    cpu(1000)  # warm
    assert cpu(8000) <= 16 * cpu(1000)


def test_ranges_are_joined_over_whitespace_only_and_the_ends_around_them_are_the_same() -> None:
    """``outside`` searched each gap between two heading spans: 131 072 empty headings in 256 KiB
    are a search per gap for every chunk. A gap of whitespace alone (`` \\t\\r\\n``) holds no end
    after a character that is not whitespace, so joining over it changes none of those ends."""
    text = "#\n#\r\n \t#\n\u3000#x y\n#"
    spans = Ranges([(0, 1), (2, 3), (7, 8), (10, 11), (15, 16)])
    joined = spans.joined_over_blanks(text)
    assert list(zip(joined.lows, joined.highs, strict=True)) == [(0, 8), (10, 11), (15, 16)]  # U+3000 is no blank
    blank = " \t\r\n"
    word_ends = [e for e in range(1, len(text) + 1) if text[e - 1] not in blank and text[e : e + 1] in ("", *blank)]

    def ends(low: int, high: int) -> Iterator[int]:
        return reversed([end for end in word_ends if low < end <= high])

    assert list(joined.outside(0, len(text), ends)) == list(spans.outside(0, len(text), ends)) == [14, 12]
