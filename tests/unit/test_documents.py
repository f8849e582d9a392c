"""The document flows' pure rules (``texttools.documents``) that the S3 tests reach only with the
tools of today: a tool that parses a document whole (no streaming form) in ``jsonl``."""

import json
from dataclasses import replace

import pytest

import texttools.documents
from texttools.documents import BOM_BYTES, Defaults, Source, document_lines
from texttools.errors import InputTooLarge, OutputTooLarge
from texttools.registry import tool

PARAGRAPHS = tool("text-paragraphs-split")
LIMIT = PARAGRAPHS.byte_limits["text"]


@pytest.fixture
def whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """text-paragraphs-split as if it had no streaming form (as markdown-sections-chunk will not)."""
    stand_in = replace(PARAGRAPHS, stream=None)
    monkeypatch.setattr(texttools.documents, "tool", lambda _: stand_in)


def lines(size: int, pieces: list[bytes]) -> list[object]:
    source = Source("bucket", "incoming/d.md", None, "etag", size)
    return [
        json.loads(line)
        for line in b"".join(document_lines(source, pieces, {"tool": PARAGRAPHS.id}, Defaults())).splitlines()
    ]


@pytest.mark.usefixtures("whole")
def test_a_whole_document_in_pieces_is_joined_and_cut_into_lines_as_its_output() -> None:
    text = "a\r\n\r\nb😀\n\nc"
    _, *chunks, last = lines(len(text.encode()), [bytes([byte]) for byte in text.encode()])
    expected = PARAGRAPHS.run({"text": text})
    assert chunks == expected["paragraphs"]
    assert last == {"paragraph_count": 3, "line_count_total": 5}


@pytest.mark.usefixtures("whole")
def test_a_whole_document_is_refused_by_size_beyond_its_limit_and_a_bom() -> None:
    assert lines(LIMIT + BOM_BYTES, [b"a"])[1:] == [lines(1, [b"a"])[1], {"paragraph_count": 1, "line_count_total": 1}]
    with pytest.raises(InputTooLarge) as refused:
        lines(LIMIT + BOM_BYTES + 1, [b"a"])
    assert (
        refused.value.message
        == f"The document is larger than {LIMIT} bytes, the most text-paragraphs-split parses whole."
    )
    assert refused.value.details == [
        {"field": "text", "problem": f"must be at most {LIMIT} UTF-8 bytes for text-paragraphs-split"}
    ]


@pytest.mark.usefixtures("whole")
def test_a_whole_document_keeps_its_output_limit() -> None:
    with pytest.raises(OutputTooLarge):
        lines(200_000, [b"\x01" * 200_000])


def test_an_unknown_tool_is_not_looked_up() -> None:
    with pytest.raises(KeyError, match="no-such-tool"):
        tool("no-such-tool")


@pytest.mark.parametrize("whole_document", [False, True])
def test_what_is_held_of_the_lines_is_bounded_in_bytes_not_in_lines(
    monkeypatch: pytest.MonkeyPatch, whole_document: bool
) -> None:
    """Issue 60: the lines are handed on in groups that end with the line reaching ``LINES_BYTES``,
    a window's worth of long lines included (here: paragraphs of 1 to 300 bytes, the bound 1 000,
    all of them in one window and, the tool parsing whole, in one list)."""
    if whole_document:
        monkeypatch.setattr(texttools.documents, "tool", lambda _: replace(PARAGRAPHS, stream=None))
    monkeypatch.setattr(texttools.documents, "LINES_BYTES", 1000)
    text = "\n\n".join("é" * (n % 150 + 1) for n in range(400))
    source = Source("bucket", "incoming/d.md", None, "etag", len(text.encode()))
    head, *groups, last = document_lines(source, [text.encode()], {"tool": PARAGRAPHS.id}, Defaults())
    assert len(groups) > 20
    for group in groups:
        final = group.splitlines(keepends=True)[-1]
        assert len(group) - len(final) < 1000  # it ends with the line that reaches the bound
        assert group is groups[-1] or len(group) >= 1000
    chunks = [json.loads(line) for group in groups for line in group.splitlines()]
    assert chunks == PARAGRAPHS.run({"text": text})["paragraphs"]
    assert [json.loads(head)["tool"]["id"], json.loads(last)] == [PARAGRAPHS.id, {"paragraph_count": 400,
                                                                  "line_count_total": 799}]  # fmt: skip
