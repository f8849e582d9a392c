"""Every rule of the descriptors and of API.md's "precise points", one test each, on the pure core."""

import json
import string

import pytest

from tests.conftest import limits, lines_of
from texttools.errors import InputTooLarge, InvalidInput, OutputTooLarge, TooManyChunks, UnclosedStartMarker
from texttools.fields import MAX_SAFE_INTEGER
from texttools.registry import tools
from texttools.tool import Tool
from texttools.tools.text_delimiter_chunk import TOOL as DELIMITER_CHUNK_TOOL
from texttools.tools.text_delimiter_chunk import DelimiterChunkOutput, delimiter_chunk
from texttools.tools.text_extract_between import TOOL as EXTRACT_BETWEEN_TOOL
from texttools.tools.text_extract_between import extract_between
from texttools.tools.text_paragraphs_split import TOOL as PARAGRAPHS_SPLIT_TOOL
from texttools.tools.text_paragraphs_split import paragraphs_split

TOOLS = tools()
DELIMITER_CHUNK = limits("text-delimiter-chunk")
EXTRACT_BETWEEN = limits("text-extract-between")
PARAGRAPHS_SPLIT = limits("text-paragraphs-split")


def spans(result: DelimiterChunkOutput) -> list[tuple[int, int, int, int, str]]:
    return [(c["start"], c["end"], c["start_line"], c["end_line"], c["text"]) for c in result["chunks"]]


# --- line numbers -------------------------------------------------------------------------------


@pytest.mark.parametrize("ending", ["\n", "\r", "\r\n"])
def test_each_commonmark_ending_is_one_line_ending(ending: str) -> None:
    text = f"a{ending}b"
    assert lines_of(text, 0, len(text) - 1) == [1, 2]


@pytest.mark.parametrize("char", ["\x0b", "\x0c", "\x85", "\u2028", "\u2029"])
def test_other_unicode_breaks_are_not_line_endings(char: str) -> None:
    text = f"a{char}b{char}c"
    assert lines_of(text, 0, 2, 4) == [1, 1, 1]
    assert paragraphs_split(text)["line_count_total"] == 1
    assert delimiter_chunk(text, "b")["chunks"][1]["start_line"] == 1


def test_crlf_is_one_ending_that_ends_after_its_lf() -> None:
    # Positions 0:a 1:CR 2:LF 3:b. The CRLF ends at 3, so positions 1 and 2 are still line 1.
    assert lines_of("a\r\nb", 0, 1, 2, 3) == [1, 1, 1, 2]


def test_chunk_boundary_between_cr_and_lf() -> None:
    """Splitting on LF leaves the CR in the first chunk; the CRLF still counts once, after the LF."""
    assert spans(delimiter_chunk("a\r\nb\r\nc", "\n")) == [(0, 2, 1, 1, "a\r"), (3, 5, 2, 2, "b\r"), (6, 7, 3, 3, "c")]
    # Splitting on CR leaves the LF at the start of the next chunk, still on the CR's line.
    assert spans(delimiter_chunk("a\r\nb", "\r")) == [(0, 1, 1, 1, "a"), (2, 4, 1, 2, "\nb")]


def test_lone_cr_and_cr_before_crlf() -> None:
    assert lines_of("a\r\r\nb", 1, 2, 3, 4) == [1, 2, 2, 3]


# --- text-delimiter-chunk -------------------------------------------------------------------------


def test_empty_text_gives_one_empty_chunk() -> None:
    assert delimiter_chunk("", ",") == {
        "chunk_count": 1,
        "delimiter_count": 0,
        "chunks": [{"index": 0, "start": 0, "end": 0, "start_line": 1, "end_line": 1, "text": ""}],
    }


def test_consecutive_delimiters_delimit_empty_chunks() -> None:
    assert [c["text"] for c in delimiter_chunk(",,a,", ",")["chunks"]] == ["", "", "a", ""]


def test_empty_chunk_end_line_is_its_start_line() -> None:
    assert spans(delimiter_chunk("a\n\n\nb", "\n"))[1:3] == [(2, 2, 2, 2, ""), (3, 3, 3, 3, "")]


def test_occurrences_do_not_overlap_and_resume_after_the_match() -> None:
    assert [c["text"] for c in delimiter_chunk("aaaaa", "aa")["chunks"]] == ["", "", "a"]


@pytest.mark.parametrize(
    ("max_splits", "texts"), [(0, ["a,b,c"]), (1, ["a", "b,c"]), (2, ["a", "b", "c"]), (9, ["a", "b", "c"])]
)
def test_max_splits_keeps_the_rest_including_delimiters(max_splits: int, texts: list[str]) -> None:
    result = delimiter_chunk("a,b,c", ",", max_splits)
    assert [c["text"] for c in result["chunks"]] == texts
    assert result["delimiter_count"] == result["chunk_count"] - 1 == len(texts) - 1


def test_max_splits_up_to_the_safe_integer() -> None:
    assert delimiter_chunk("a,b", ",", MAX_SAFE_INTEGER)["chunk_count"] == 2


def test_offsets_are_code_points_not_bytes_or_utf16_units() -> None:
    assert spans(delimiter_chunk("😀é,x", ",")) == [(0, 2, 1, 1, "😀é"), (3, 4, 1, 1, "x")]


@pytest.mark.parametrize(("text", "delimiter"), [("é", "e\u0301"), ("e\u0301", "é"), ("A", "a"), ("ß", "ss")])
def test_no_normalization_or_case_folding(text: str, delimiter: str) -> None:
    assert delimiter_chunk(text, delimiter)["chunk_count"] == 1


def test_empty_delimiter_is_invalid_input() -> None:
    """The core refuses it for its own callers too (the API's validation refuses it first)."""
    with pytest.raises(InvalidInput, match=r"^The delimiter must not be empty\.$") as raised:
        delimiter_chunk("abc", "")
    assert raised.value.details == [{"field": "delimiter", "problem": "must not be empty"}]


def test_exactly_max_chunks_is_accepted_and_one_more_is_refused() -> None:
    assert delimiter_chunk("," * (DELIMITER_CHUNK.max_chunks - 1), ",")["chunk_count"] == DELIMITER_CHUNK.max_chunks
    with pytest.raises(
        TooManyChunks, match=rf"^The text would split into more than {DELIMITER_CHUNK.max_chunks} chunks\.$"
    ):
        delimiter_chunk("," * DELIMITER_CHUNK.max_chunks, ",")


def test_max_splits_bounds_the_chunk_count() -> None:
    text = "," * (3 * DELIMITER_CHUNK.max_chunks)
    assert delimiter_chunk(text, ",", DELIMITER_CHUNK.max_chunks - 1)["chunk_count"] == DELIMITER_CHUNK.max_chunks
    with pytest.raises(TooManyChunks):
        delimiter_chunk(text, ",", DELIMITER_CHUNK.max_chunks)
    with pytest.raises(TooManyChunks):
        delimiter_chunk(text, ",", MAX_SAFE_INTEGER)
    assert delimiter_chunk("a,b", ",", MAX_SAFE_INTEGER)["chunk_count"] == 2


# --- text-extract-between -------------------------------------------------------------------------


def test_empty_text_has_no_matches() -> None:
    assert extract_between("", "[", "]") == {"matches": [], "truncated": False}


def test_text_without_start_marker_has_no_matches() -> None:
    assert extract_between("only ] ends ]", "[", "]") == {"matches": [], "truncated": False}


def test_nested_start_markers_inside_a_match_are_content() -> None:
    assert extract_between("[a[b]c]", "[", "]")["matches"] == ["a[b"]


def test_start_equal_to_end_pairs_consecutive_occurrences() -> None:
    assert extract_between("|a|b|c|", "|", "|")["matches"] == ["a", "c"]
    assert extract_between("||x", "|", "|")["matches"] == [""]


def test_multi_character_markers_and_empty_matches() -> None:
    assert extract_between("<<>><<x>>", "<<", ">>")["matches"] == ["", "x"]


def test_start_marker_without_end_marker_is_an_error_that_says_where() -> None:
    with pytest.raises(UnclosedStartMarker, match=r"^The start marker at code point 11 has no end marker after it\.$"):
        extract_between("ok[1] then [open", "[", "]")


def test_end_marker_must_follow_the_start_marker() -> None:
    with pytest.raises(UnclosedStartMarker, match=r" at code point 2 "):
        extract_between("]x[", "[", "]")


def test_cap_sets_truncated_only_when_a_further_complete_match_exists() -> None:
    assert extract_between("[a][b]", "[", "]", 2) == {"matches": ["a", "b"], "truncated": False}
    assert extract_between("[a][b][c]", "[", "]", 2) == {"matches": ["a", "b"], "truncated": True}


def test_scan_stops_at_the_first_complete_match_after_the_cap() -> None:
    """API.md: a start marker after the stopping point is never looked at."""
    assert extract_between("[a][b][", "[", "]", 1) == {"matches": ["a"], "truncated": True}


def test_unclosed_marker_reached_before_stopping_is_an_error() -> None:
    with pytest.raises(UnclosedStartMarker, match=r" at code point 3 "):
        extract_between("[a][", "[", "]", 1)


def test_default_cap_is_the_descriptors() -> None:
    result = extract_between("[x]" * (EXTRACT_BETWEEN.default_max_matches + 1), "[", "]")
    assert len(result["matches"]) == EXTRACT_BETWEEN.default_max_matches
    assert result["truncated"] is True


@pytest.mark.parametrize(("start", "end", "field"), [("", "]", "start"), ("[", "", "end")])
def test_empty_markers_are_invalid_input(start: str, end: str, field: str) -> None:
    with pytest.raises(InvalidInput, match=rf"^The {field} marker must not be empty\.$") as raised:
        extract_between("[a]", start, end)
    assert raised.value.details == [{"field": field, "problem": "must not be empty"}]


def test_astral_and_exact_code_unit_matching() -> None:
    assert extract_between("😀x😀", "😀", "😀")["matches"] == ["x"]
    assert extract_between("[É]", "[", "]")["matches"] == ["É"]


# --- text-paragraphs-split ------------------------------------------------------------------------


def test_only_spaces_and_tabs_make_a_line_blank() -> None:
    assert paragraphs_split("a\n \t \nb")["paragraph_count"] == 2
    for other in ("\u00a0", "\u3000", "\x0b", "\x0c", "\u2028"):
        result = paragraphs_split(f"a\n{other}\nb")
        assert result["paragraph_count"] == 1
        assert result["paragraphs"][0]["line_count"] == 3


def test_span_keeps_indentation_and_inner_endings_but_not_the_last_ending() -> None:
    result = paragraphs_split("\n  a  \r\n\tb \r\n\r\nc")
    assert [(p["start"], p["end"], p["text"], p["start_line"], p["end_line"]) for p in result["paragraphs"]] == [
        (1, 11, "  a  \r\n\tb ", 2, 3),
        (15, 16, "c", 5, 5),
    ]
    assert result["line_count_total"] == 5


def test_cr_only_line_endings() -> None:
    result = paragraphs_split("a\rb\r\rc\r")
    assert [p["text"] for p in result["paragraphs"]] == ["a\rb", "c"]
    assert result["line_count_total"] == 4


@pytest.mark.parametrize(("text", "total"), [("", 0), ("\n", 1), (" ", 1), (" \t\r\n\r\n", 2), ("\r\n", 1)])
def test_no_paragraphs_and_line_count_total(text: str, total: int) -> None:
    assert paragraphs_split(text) == {"paragraph_count": 0, "line_count_total": total, "paragraphs": []}


def test_a_final_line_ending_does_not_start_another_line() -> None:
    assert paragraphs_split("a\n")["line_count_total"] == 1
    assert paragraphs_split("a\n\n")["line_count_total"] == 2


def test_markdown_is_ordinary_text() -> None:
    result = paragraphs_split("# Title\n---\n    code\n- item")
    assert result["paragraph_count"] == 1
    assert result["paragraphs"][0]["line_count"] == 4


def test_exactly_max_paragraphs_is_accepted_and_one_more_is_refused() -> None:
    assert (
        paragraphs_split("p\n\n" * PARAGRAPHS_SPLIT.max_paragraphs)["paragraph_count"]
        == PARAGRAPHS_SPLIT.max_paragraphs
    )
    with pytest.raises(
        TooManyChunks, match=rf"^The text has more than {PARAGRAPHS_SPLIT.max_paragraphs} paragraphs\.$"
    ):
        paragraphs_split("p\n\n" * (PARAGRAPHS_SPLIT.max_paragraphs + 1))


@pytest.mark.parametrize("char", [c for c in string.printable if c not in "\r\n"])
def test_only_the_cr_of_a_crlf_is_cut_from_a_paragraph_and_only_endings_end_the_count(char: str) -> None:
    """Whatever else a paragraph's last line ends in stays in it, and a text ending in it has a
    last line that counts."""
    result = paragraphs_split(f"a{char}\r\n\r\nb{char}")
    assert [p["text"] for p in result["paragraphs"]] == [f"a{char}", f"b{char}"]
    assert result["line_count_total"] == 3


def test_long_blank_lines_are_linear_not_quadratic() -> None:
    """A blank line of 262 144 spaces would take minutes with a backtracking scan."""
    assert paragraphs_split(" " * 262_144 + "\nx")["paragraphs"][0]["start"] == 262_145


# --- byte limits (UTF-8 bytes of the decoded string; at the limit is accepted) --------------------


def execute(tool: Tool, **fields: object) -> dict:  # type: ignore[type-arg]
    return json.loads(tool.execute(json.dumps(fields).encode()))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("tool", "field", "limit", "others"),
    [
        (DELIMITER_CHUNK_TOOL, "text", DELIMITER_CHUNK.max_input_bytes, {"delimiter": "\x00"}),
        (DELIMITER_CHUNK_TOOL, "delimiter", DELIMITER_CHUNK.max_delimiter_bytes, {"text": "a"}),
        (EXTRACT_BETWEEN_TOOL, "text", EXTRACT_BETWEEN.max_text_bytes, {"start": "[", "end": "]"}),
        (EXTRACT_BETWEEN_TOOL, "start", EXTRACT_BETWEEN.max_marker_bytes, {"text": "a", "end": "]"}),
        (EXTRACT_BETWEEN_TOOL, "end", EXTRACT_BETWEEN.max_marker_bytes, {"text": "a", "start": "["}),
        (PARAGRAPHS_SPLIT_TOOL, "text", PARAGRAPHS_SPLIT.max_input_bytes, {}),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
@pytest.mark.parametrize("unit", ["a", "é", "😀"])
def test_byte_limit_at_and_one_past(tool: Tool, field: str, limit: int, others: dict, unit: str) -> None:  # type: ignore[type-arg]
    width = len(unit.encode())
    at_limit = unit * (limit // width) + "a" * (limit % width)
    assert len(at_limit.encode()) == limit
    execute(tool, **others, **{field: at_limit})
    with pytest.raises(InputTooLarge, match=rf"^The {field} field is larger than {limit} UTF-8 bytes\.$") as raised:
        execute(tool, **others, **{field: at_limit + "a"})
    assert raised.value.details == [{"field": field, "problem": f"must be at most {limit} UTF-8 bytes"}]


@pytest.mark.parametrize(
    ("tool", "field"),
    [(tool, field) for tool in TOOLS.values() for field in tool.byte_limits],
    ids=lambda v: v if isinstance(v, str) else v.id,
)
def test_a_lone_surrogate_is_invalid_input_that_names_its_field(tool: Tool, field: str) -> None:
    valid = {"text": "[a]", "delimiter": ",", "start": "[", "end": "]", "max_chars": 10}
    required = tool.descriptor.input_schema["required"]
    fields = {name: valid[name] for name in required} | {field: "a\ud800"}
    with pytest.raises(InvalidInput, match=rf"^The {field} field holds a lone surrogate\.$") as raised:
        tool.parse(fields)
    assert raised.value.details == [{"field": field, "problem": "must not hold a lone surrogate"}]


def test_limit_counts_decoded_bytes_not_json_escapes() -> None:
    """A text at the limit written as \\u0001 escapes makes a 1.5 MiB body, and is accepted."""
    body = json.dumps({"text": "\x01" * PARAGRAPHS_SPLIT.max_input_bytes}).encode()
    assert len(body) > 1_500_000
    with pytest.raises(OutputTooLarge):  # accepted as input; its escaped output is what is too large
        PARAGRAPHS_SPLIT_TOOL.execute(body)


def test_body_no_valid_request_could_need_is_refused_before_parsing() -> None:
    largest = PARAGRAPHS_SPLIT_TOOL.max_body_bytes
    with pytest.raises(InvalidInput, match=r"^The request body is not valid JSON"):  # parsed, not JSON
        PARAGRAPHS_SPLIT_TOOL.execute(b"{" * largest)
    with pytest.raises(InputTooLarge, match=r"^The request body is larger than any valid request for this tool\.$"):
        PARAGRAPHS_SPLIT_TOOL.execute(b"{" * (largest + 1))


@pytest.mark.parametrize(
    ("codec", "message"),
    [("utf-16", "not valid UTF-8 (at byte 0)"), ("utf-32", "not valid UTF-8 (at byte 0)"),
     ("utf-16-le", "not valid JSON (at line 1, column 2)")],  # its bytes are UTF-8, with NULs
)  # fmt: skip
def test_a_body_in_another_unicode_encoding_is_refused_saying_where(codec: str, message: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        PARAGRAPHS_SPLIT_TOOL.execute('{"text": "a"}'.encode(codec))
    shape = MUST_BE if "JSON" in message else "."  # not UTF-8: the fix is the encoding, not the shape
    assert raised.value.message == f"The request body is {message}{shape}"


MUST_BE = (
    ": it must be this tool's input object, a JSON object with the required field text, such as "
    '{"text":"aaa\\nbbb\\n\\nccc\\nddd\\n"}.'
)
"""What a body that is not JSON, or not an object, is told it must be (issue 62): text-paragraphs-split's
required field and its descriptor's shortest example, on one line."""


@pytest.mark.parametrize(
    ("body", "where"),
    [('{"text": "a",}', "line 1, column 13"), ('{\n  "text": "a"\n  "x": 1}', "line 3, column 3"),
     ("# Notes\n\nraw Markdown", "line 1, column 1"), ('{"text": "secret', "line 1, column 10")],
)  # fmt: skip
def test_invalid_json_says_the_line_and_column_and_what_the_body_must_be_never_the_text(body: str, where: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        PARAGRAPHS_SPLIT_TOOL.execute(body.encode())
    assert raised.value.message == f"The request body is not valid JSON (at {where}){MUST_BE}"


@pytest.mark.parametrize("body", ["", " \n", "\ufeff"])
def test_an_empty_body_says_so_and_what_the_body_must_be(body: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        PARAGRAPHS_SPLIT_TOOL.execute(body.encode())
    assert raised.value.message == f"The request body is empty{MUST_BE}"


@pytest.mark.parametrize(
    ("body", "problem"),
    [("[" * 100_000 + "]" * 100_000, "it is nested too deeply"),
     ('{"text": ' + "1" * 5_000 + "}", "a number is too long to read"),
     ('{"text": NaN}', "NaN and Infinity are not JSON numbers")],
)  # fmt: skip
def test_json_python_reads_but_api_md_refuses_says_why(body: str, problem: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        PARAGRAPHS_SPLIT_TOOL.execute(body)
    assert raised.value.message == f"The request body is not valid JSON: {problem}."


@pytest.mark.parametrize("body", ["[]", '"text"', "1", "null"])
def test_a_body_that_is_not_an_object_says_what_it_must_be(body: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        PARAGRAPHS_SPLIT_TOOL.execute(body.encode())
    assert raised.value.message == f"The request body must be{MUST_BE[len(': it must be') :]}"
    assert raised.value.details == []


# --- output limit (bytes of the exact response body; at the limit is accepted) --------------------


def sized_text(tool: Tool, target: int) -> str:
    """A one-piece text whose output body is exactly ``target`` bytes (\\x01 escapes to 6 bytes)."""
    escapes = (target - 300) // 6
    text = "\x01" * escapes
    for _ in range(3):  # the span digits can change the size once; settle it
        text += "a" * (target - len(tool.encode(tool.run(tool.parse({**base(tool), "text": text})))))
    return text


def base(tool: Tool) -> dict[str, str]:
    return {"delimiter": "\n\n"} if tool is DELIMITER_CHUNK_TOOL else {}


@pytest.mark.parametrize("tool", [DELIMITER_CHUNK_TOOL, PARAGRAPHS_SPLIT_TOOL], ids=lambda t: t.id)
def test_output_exactly_at_the_limit_is_returned_and_one_byte_more_is_refused(tool: Tool) -> None:
    limit = tool.max_output_bytes
    assert limit is not None
    text = sized_text(tool, limit)
    body = tool.execute(json.dumps({**base(tool), "text": text}).encode())
    assert len(body) == limit
    with pytest.raises(OutputTooLarge, match=rf"^The result would be larger than {limit} bytes\.$"):
        tool.execute(json.dumps({**base(tool), "text": text + "a"}).encode())
