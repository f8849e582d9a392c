"""The streaming core equals the in-memory tools with their limits lifted, on texts dense in what
is hard, cut into pieces at generated places (one character at a time, inside a CRLF, inside a
delimiter or a marker, inside an astral character's UTF-8), with windows small enough that every
chunk crosses several of them."""

import codecs
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import texttools.streaming
from tests import reference
from texttools.errors import InvalidInput, UnclosedStartMarker
from texttools.lines import line_view
from texttools.streaming import Stream, Windows, decode_pieces
from texttools.tools.text_delimiter_chunk import delimiter_chunk, stream_delimiter_chunk
from texttools.tools.text_extract_between import extract_between, stream_extract_between
from texttools.tools.text_paragraphs_split import paragraphs_split, stream_paragraphs_split

PIECES = ["\r", "\n", "\r\n", " ", "\t", "a", "b", "é", "😀", "\x0b", "\u2028", "ab", "\n\n", "[", "]", "[["]
pieces = st.sampled_from(PIECES)
texts = st.lists(pieces, max_size=60).map("".join)
needles = st.lists(pieces, min_size=1, max_size=3).map("".join)
window_sizes = st.integers(1, 12)
STREAM = settings(max_examples=400, deadline=None)


@st.composite
def cut_text(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at generated places: one character at a time, or pieces of 0 to 6 characters."""
    if draw(st.booleans()):
        return list(text)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=len(text) + 2)))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


@st.composite
def text_with_needle(draw: st.DrawFn) -> tuple[str, str]:
    needle = draw(needles)
    fragments = [needle, needle[:1], needle[-1:], needle[: len(needle) // 2 or 1]]
    parts = draw(st.lists(st.one_of(pieces, st.sampled_from(fragments)), max_size=40))
    return "".join(parts), needle


@contextmanager
def windows_of(size: int) -> Iterator[None]:
    """Windows that add ``size`` characters at least, instead of a megabyte."""
    saved = texttools.streaming.WINDOW_CHARS
    texttools.streaming.WINDOW_CHARS = size
    try:
        yield
    finally:
        texttools.streaming.WINDOW_CHARS = saved


def drained(stream: Stream) -> tuple[list[Any], dict[str, Any] | None]:
    chunks = list(stream)
    return chunks, stream.summary


@STREAM
@given(text_with_needle(), st.integers(-1, 5), window_sizes, st.data())
@example(("a\r\nb", "\r"), -1, 1, None)
@example(("x\r\n\r\ny", "\n"), -1, 2, None)
def test_delimiter_chunk_streamed_equals_in_memory(
    case: tuple[str, str], max_splits: int, size: int, data: st.DataObject | None
) -> None:
    text, delimiter = case
    cut = data.draw(cut_text(text)) if data else list(text)
    expected = delimiter_chunk(text, delimiter, max_splits, max_chunks=None)
    with windows_of(size):
        chunks, summary = drained(stream_delimiter_chunk(cut, delimiter, max_splits))
    assert chunks == expected["chunks"]
    assert summary == {"chunk_count": expected["chunk_count"], "delimiter_count": expected["delimiter_count"]}
    assert chunks == reference.delimiter_chunk(text, delimiter, max_splits)["chunks"]


@STREAM
@given(st.lists(st.sampled_from([*PIECES, "  ", " \t ", "x\n \n", "\r\n\t\r\n"]), max_size=50).map("".join),
       window_sizes, st.data())  # fmt: skip
@example("a\r\n\r\nb", 1, None)
@example("p\r\n \r\nq\r", 3, None)
def test_paragraphs_split_streamed_equals_in_memory(text: str, size: int, data: st.DataObject | None) -> None:
    cut = data.draw(cut_text(text)) if data else list(text)
    expected = paragraphs_split(text, max_paragraphs=None)
    with windows_of(size):
        paragraphs, summary = drained(stream_paragraphs_split(cut))
    assert paragraphs == expected["paragraphs"] == reference.paragraphs_split(text)["paragraphs"]
    assert summary == {"paragraph_count": expected["paragraph_count"], "line_count_total": expected["line_count_total"]}


@STREAM
@given(st.data(), window_sizes, st.integers(1, 4))
def test_extract_between_streamed_equals_in_memory(data: st.DataObject, size: int, max_matches: int) -> None:
    start, end = data.draw(needles), data.draw(needles)
    for closing in (end, start):  # start == end is its own rule
        fragments = [start, closing, start[:1], closing[-1:]]
        text = "".join(data.draw(st.lists(st.one_of(pieces, st.sampled_from(fragments)), max_size=40)))
        cut = data.draw(cut_text(text))
        with windows_of(size):
            try:
                expected = extract_between(text, start, closing, max_matches)
            except UnclosedStartMarker as error:
                # The same error, at the same code point of the whole text.
                with pytest.raises(UnclosedStartMarker, match=f"^{re.escape(error.message)}$"):
                    drained(stream_extract_between(cut, start, closing, max_matches))
                continue
            matches, summary = drained(stream_extract_between(cut, start, closing, max_matches))
        assert [match["text"] for match in matches] == expected["matches"]
        assert [match["index"] for match in matches] == list(range(len(expected["matches"])))
        assert summary == {"match_count": len(expected["matches"]), "truncated": expected["truncated"]}


def test_extract_between_reads_but_does_not_scan_after_truncation() -> None:
    """API.md: a start marker after the stopping point is never looked at, even far into the text."""
    text = "[a][b]" + "x" * 50 + "[unclosed"
    with windows_of(4):
        matches, summary = drained(stream_extract_between(list(text), "[", "]", 1))
    assert matches == [{"index": 0, "text": "a"}]
    assert summary == {"match_count": 1, "truncated": True}


@STREAM
@given(texts, window_sizes, st.data())
def test_a_window_sees_every_line_ending_as_the_whole_text_does(text: str, size: int, data: st.DataObject) -> None:
    """A window never ends with a CR whose next character it cannot see: each of its CRs is a line
    ending, or half of a CRLF, in the window as in the whole text."""

    def endings(view: str) -> str:  # a CR a view keeps is a CRLF's first half, as a space is
        return view.replace("\r", " ")

    cut = data.draw(cut_text(text))
    whole = endings(line_view(text))
    with windows_of(size):
        windows = Windows(cut)
        seen = []
        for window in windows:
            offset = window.at.offset
            assert endings(line_view(window.text)) == whole[offset : offset + len(window.text)]
            seen.append(window.text)
            windows.advance(len(window.text), 0)
    assert "".join(seen) == text


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=60), st.integers(1, 9), st.integers(1, 8))
def test_memory_grows_with_the_largest_chunk_never_with_the_text(lengths: list[int], size: int, piece: int) -> None:
    """No window is longer than about twice the larger of the window size and the largest
    unfinished paragraph, plus a read, however long the text."""
    text = "\n\n".join("x" * length for length in lengths)
    windows, seen = Windows.__iter__, []

    def recording(self: Windows) -> Iterator[Any]:
        for window in windows(self):
            seen.append(len(window.text))
            yield window

    with windows_of(size), patch.object(Windows, "__iter__", recording):
        paragraphs = list(stream_paragraphs_split([text[i : i + piece] for i in range(0, len(text), piece)]))
    assert [p["text"] for p in paragraphs] == text.split("\n\n")
    assert max(seen) <= 2 * max(size, max(lengths) + 2) + piece + 2


def test_a_window_adds_its_size_and_a_window_not_advanced_comes_again_whole() -> None:
    """Read a character at a time, each window adds exactly the window size (a long carry: as much
    as it holds); a window of which nothing was finished is the start of the next one."""
    text = "abcdefghijklmnopqrstuvwxyz0123"
    with windows_of(4):
        windows, seen = Windows(list(text)), []
        for window in windows:
            seen.append((window.text, window.final))
            if len(window.text) > 12:
                windows.advance(len(window.text), 0)
    assert seen == [("abcd", False), ("abcdefgh", False), ("abcdefghijklmnop", False), ("qrst", False),
                    ("qrstuvwx", False), ("qrstuvwxyz0123", True)]  # fmt: skip


# --- UTF-8 in pieces --------------------------------------------------------------------------------


@st.composite
def cut_bytes(draw: st.DrawFn, data: bytes) -> list[bytes]:
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=len(data) + 2)))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "é", "€", "😀", "\ufeff", "\r", "\n"]), max_size=30), st.data())
def test_decoding_pieces_cut_anywhere_gives_the_text(text: str, data: st.DataObject) -> None:
    encoded = text.encode()
    assert "".join(decode_pieces(data.draw(cut_bytes(encoded)))) == text.removeprefix("\ufeff")
    assert "".join(decode_pieces(data.draw(cut_bytes(codecs.BOM_UTF8 + encoded)))) == text


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=30), st.data())
def test_invalid_utf8_anywhere_is_invalid_input(data_bytes: bytes, data: st.DataObject) -> None:
    pieces_of = data.draw(cut_bytes(data_bytes))
    try:
        expected = data_bytes.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:  # where the whole document's decoding finds it
        with pytest.raises(InvalidInput, match=rf"^The document is not valid UTF-8 \(at byte {error.start}\)\.$"):
            list(decode_pieces(pieces_of))
    else:
        assert "".join(decode_pieces(pieces_of)) == expected


@pytest.mark.parametrize("ending", [b"\xf0\x9f\x98", b"\xe2\x82", b"\xc3", b"\xed\xa0\x80", b"\xff"])
def test_a_truncated_or_invalid_sequence_at_the_end_is_invalid_input(ending: bytes) -> None:
    with pytest.raises(InvalidInput):
        list(decode_pieces([b"ok ", ending]))


@pytest.mark.parametrize("document", [[b"\xef"], [b"\xef\xbb"], [b"\xef", b"\xbb"], [b"\xef\xbb\xbf\xef"]])
def test_a_document_cut_short_inside_a_bom_is_invalid_input(document: list[bytes]) -> None:
    """Where CPython's utf-8-sig decoder would give an empty text and no error."""
    with pytest.raises(InvalidInput):
        list(decode_pieces(document))


def test_only_a_leading_bom_is_dropped() -> None:
    assert "".join(decode_pieces([b"\xef", b"\xbb", b"\xbfa\xef\xbb\xbf"])) == "a\ufeff"
