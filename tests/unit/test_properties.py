"""The core against the character-by-character reference, on texts dense in what is hard."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests import reference
from tests.conftest import lines_of
from texttools.errors import UnclosedStartMarker
from texttools.lines import line_view
from texttools.tools.text_delimiter_chunk import delimiter_chunk
from texttools.tools.text_extract_between import extract_between
from texttools.tools.text_paragraphs_split import paragraphs_split

PIECES = ["\r", "\n", "\r\n", " ", "\t", "a", "b", "é", "😀", "\x0b", "\x0c", "\x85", "\u2028", "\u2029", "ab", "\n\n"]
pieces = st.sampled_from(PIECES)
texts = st.lists(pieces, max_size=40).map("".join)
needles = st.lists(pieces, min_size=1, max_size=3).map("".join)
settings.register_profile("default", max_examples=300, deadline=None)
settings.load_profile("default")


def fragments(needle: str) -> list[str]:
    return [needle, needle[:1], needle[-1:], needle[: len(needle) // 2 or 1]]


@st.composite
def text_with_needle(draw: st.DrawFn) -> tuple[str, str]:
    """A needle, and a text built from the pieces and the needle and its fragments."""
    needle = draw(needles)
    parts = draw(st.lists(st.one_of(pieces, st.sampled_from(fragments(needle))), max_size=30))
    return "".join(parts), needle


@st.composite
def text_with_markers(draw: st.DrawFn) -> tuple[str, str, str]:
    """Start and end markers, and a text built from the pieces and both markers and their fragments."""
    start, end = draw(needles), draw(needles)
    parts = draw(st.lists(st.one_of(pieces, st.sampled_from(fragments(start) + fragments(end))), max_size=30))
    return "".join(parts), start, end


@given(texts, st.lists(st.integers(0, 60), max_size=8))
def test_line_view_counts_line_numbers(text: str, positions: list[int]) -> None:
    assert len(line_view(text)) == len(text)
    queries = [p for p in positions if p <= len(text)]
    assert lines_of(text, *queries) == [reference.line(text, pos) for pos in queries]


@given(text_with_needle(), st.integers(-1, 6))
@example(("a\r\nb\r\nc", "\r"), -1)
@example(("a\r\r\n\nb", "\r\n"), 1)
def test_delimiter_chunk_matches_reference(case: tuple[str, str], max_splits: int) -> None:
    text, delimiter = case
    expected = reference.delimiter_chunk(text, delimiter, max_splits)
    assert delimiter_chunk(text, delimiter, max_splits) == expected


@given(text_with_needle())
def test_delimiter_chunk_agrees_with_str_split(case: tuple[str, str]) -> None:
    text, delimiter = case
    assert [c["text"] for c in delimiter_chunk(text, delimiter)["chunks"]] == text.split(delimiter)


@given(text_with_markers(), st.integers(1, 4))
def test_extract_between_matches_reference(case: tuple[str, str, str], max_matches: int) -> None:
    text, start, end = case
    for closing in (end, start):  # start == end is its own rule
        try:
            expected = reference.extract_between(text, start, closing, max_matches)
        except reference.Unclosed:
            with pytest.raises(UnclosedStartMarker):
                extract_between(text, start, closing, max_matches)
        else:
            assert extract_between(text, start, closing, max_matches) == expected


@given(st.lists(st.sampled_from([*PIECES, "  ", " \t ", "x\n \n", "\r\n\t\r\n"]), max_size=40).map("".join))
@example("שלום עולם\r\n \t \r\n😀 end")
def test_paragraphs_split_matches_reference(text: str) -> None:
    assert paragraphs_split(text) == reference.paragraphs_split(text)
