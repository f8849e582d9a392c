"""markdown-sections-chunk: every sentence of its descriptor, and a property test against
tests/reference.py on generated Markdown whose headings the generator knows."""

import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests import reference
from tests.conftest import descriptor
from texttools.errors import InputTooLarge, InvalidInput, OutputTooLarge, TooManyChunks
from texttools.registry import tool

TOOL = tool("markdown-sections-chunk")
LIMITS = descriptor("markdown-sections-chunk")["limits"]


def run(text: str, **params: Any) -> dict[str, Any]:
    return dict(TOOL.run(TOOL.parse({"text": text, **params})))


def outline(text: str, **params: Any) -> list[tuple[int, str | None, list[str], str]]:
    """Each section's level, heading, path and text."""
    return [(s["level"], s["heading"], s["path"], s["text"]) for s in run(text, **params)["sections"]]


def spans(text: str, **params: Any) -> list[tuple[int, int, int, int, int]]:
    return [
        (s["start"], s["end"], s["start_line"], s["end_line"], s["line_count"]) for s in run(text, **params)["sections"]
    ]


# --- lines ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lines"),
    [("", 0), ("a", 1), ("a\n", 1), ("a\n\n", 2), ("a\r\nb", 2), ("a\rb\r", 2), ("\r\n\r\n", 2), ("a\n\rb", 3),
     ("a\u2028b\x0bc\x0cd\x85e", 1)],
)  # fmt: skip
def test_line_count_total_counts_every_commonmark_line(text: str, lines: int) -> None:
    assert run(text)["line_count_total"] == lines


def test_a_blank_line_holds_only_spaces_and_tabs() -> None:
    assert outline("# A\nx\n \t\n") == [(1, "A", [], "# A\nx")]
    assert outline("# A\nx\n\u00a0\n") == [(1, "A", [], "# A\nx\n\u00a0")]  # NBSP: not blank


# --- headings -------------------------------------------------------------------------------------


def test_atx_and_setext_headings_start_sections() -> None:
    assert outline("# One\ntext\nTwo\n===\nthree\n---\n") == [
        (1, "One", [], "# One"),
        (1, "text\nTwo", [], "text\nTwo\n==="),  # a paragraph's lines, then its underline
        (2, "three", ["text\nTwo"], "three\n---"),
    ]


def test_a_dashed_line_under_a_paragraph_makes_it_a_level_2_heading() -> None:
    assert outline("para\n---\n") == [(2, "para", [], "para\n---")]
    assert outline("para\n\n---\n") == [(0, None, [], "para\n\n---")]  # after a blank line: a thematic break


@pytest.mark.parametrize(
    "text",
    [
        "```\n# fenced\n```",
        "~~~~\n# fenced\nTitle\n---\n~~~~",
        "    # indented code",
        "<div>\n# in an HTML block\n</div>",
        "<!--\n# in a comment\n-->",
        "> # in a block quote",
        "- # in a list item",
        "1. # in an ordered list item",
        "#5 no space",
        "####### seven",
        "\\# escaped",
    ],
)
def test_hash_lines_that_are_not_top_level_headings_start_no_section(text: str) -> None:
    assert outline(text) == [(0, None, [], text)]


def test_a_heading_after_deeply_nested_blocks_is_found() -> None:
    assert outline(">" * 30 + " a\n\n# after") == [(0, None, [], ">" * 30 + " a"), (1, "after", [], "# after")]
    assert outline(">" * 50_000 + " a\n\n# after")[-1] == (1, "after", [], "# after")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A link reference definition does not end its paragraph: the lines after it are that
        # paragraph's (cmark and commonmark.js; markdown-it-py closed the definition as a block).
        ("[o]:l\n<g>\n=", [(0, None, [], "[o]:l"), (1, "<g>", [], "<g>\n=")]),
        # Spec example 215: the descriptor starts the heading after the definitions (line 2).
        ("[foo]: /url\nbar\n===\n[foo]\n", [(0, None, [], "[foo]: /url"), (1, "bar", [], "bar\n===\n[foo]")]),
        ("[o]:'\n\tz\n=", [(0, None, [], "[o]:'"), (1, "z", [], "\tz\n=")]),
        ("1. [o]:'\n=\n-", [(0, None, [], "1. [o]:'\n=\n-")]),
        # An HTML block of type 1 ends at the first line holding any of the four end tags (spec
        # 4.6, "need not match"), where pulldown-cmark waits for the matching one.
        ("<style </textarea>\n#", [(0, None, [], "<style </textarea>"), (1, "", [], "#")]),
        ("<pre>\n</script>\n# h", [(0, None, [], "<pre>\n</script>"), (1, "h", [], "# h")]),
        ("<PRE x>\n<textarea\n</STYLE>\n# h", [(0, None, [], "<PRE x>\n<textarea\n</STYLE>"), (1, "h", [], "# h")]),
        ("<pre>\n</PRE>\n# h", [(0, None, [], "<pre>\n</PRE>"), (1, "h", [], "# h")]),
        ("<pre\n</style>\n<script\n</pre>\n# h\n<style\n</script>\n## i",
         [(0, None, [], "<pre\n</style>\n<script\n</pre>"), (1, "h", [], "# h\n<style\n</script>"),
          (2, "i", ["h"], "## i")]),
        ("<script>\n# not\n</script>\n# h", [(0, None, [], "<script>\n# not\n</script>"), (1, "h", [], "# h")]),
    ],
)  # fmt: skip
def test_headings_as_the_commonmark_reference_implementations_find_them(text: str, expected: Any) -> None:
    """issue 41's minimal cases, each as cmark and commonmark.js read it."""
    assert outline(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # VT and FF are no spaces for CommonMark: not after the #s, not in a blank line, not after
        # a setext underline or a list marker (issue 55; pulldown-cmark took them for spaces).
        ("##\vvt\n", [(0, None, [], "##\vvt")]),
        ("#\fb\n", [(0, None, [], "#\fb")]),
        ("a\n=\v\n# h", [(0, None, [], "a\n=\v"), (1, "h", [], "# h")]),
        ("\f\n=\n", [(1, "\f", [], "\f\n=")]),
        ("<div>\n\f\n# h", [(0, None, [], "<div>\n\f\n# h")]),
        ("    \f\n# h", [(0, None, [], "    \f"), (1, "h", [], "# h")]),
        ("- \v\nb\n===", [(0, None, [], "- \v\nb\n===")]),
        ("[o]:\v/u\n===", [(1, "[o]:\v/u", [], "[o]:\v/u\n===")]),
        ("[\v]: /u\n===", [(0, None, [], "[\v]: /u\n===")]),
        ("<pre\v\n# h", [(0, None, [], "<pre\v"), (1, "h", [], "# h")]),
        # DEL is an ASCII control character, which no link destination holds.
        ("[o]: \x7f/u\n===", [(1, "[o]: \x7f/u", [], "[o]: \x7f/u\n===")]),
        # Tabs: after a closing fence, in an HTML tag, before a block quote marker.
        ("```\n# x\n```\t\n# h", [(0, None, [], "```\n# x\n```\t"), (1, "h", [], "# h")]),
        ("<g x=a\t\x85y>\n# h", [(0, None, [], "<g x=a\t\x85y>"), (1, "h", [], "# h")]),
        ("> # q\n\t>\n# h", [(0, None, [], "> # q\n\t>"), (1, "h", [], "# h")]),
    ],
)  # fmt: skip
def test_control_characters_and_tabs_are_read_as_commonmark_reads_them(text: str, expected: Any) -> None:
    """Each divergence that the fuzz test on every character found (docs/markdown.md lists them)."""
    assert outline(text) == expected


def test_a_setext_heading_after_link_reference_definitions_starts_after_them() -> None:
    """Spec example 215, pinned: the section starts on the heading's first content line (line 2),
    not on the definitions' first line, where commonmark.js's source position puts it."""
    assert spans("[foo]: /url\nbar\n===\n[foo]\n") == [(0, 11, 1, 1, 1), (12, 25, 2, 4, 3)]


def test_a_closing_pre_tag_starts_an_html_block_as_the_reference_parsers_do() -> None:
    """The spec's text excludes </pre> from HTML block starts; cmark, commonmark.js and markdown-it
    do not, and no setext heading is found under it (docs/markdown.md)."""
    assert outline("</pre>\n---") == [(0, None, [], "</pre>\n---")]


def test_only_headings_up_to_max_level_start_sections_and_deeper_ones_are_text() -> None:
    text = "# A\n## B\n### C\n## D\n"
    assert outline(text, max_level=2) == [(1, "A", [], "# A"), (2, "B", ["A"], "## B\n### C"), (2, "D", ["A"], "## D")]
    assert outline(text, max_level=1) == [(1, "A", [], text.rstrip("\n"))]
    assert outline(text) == outline(text, max_level=6)  # the default


@pytest.mark.parametrize("value", [0, 7, -1, "3", 3.0, True, None])
def test_max_level_is_a_json_integer_from_1_to_6(value: Any) -> None:
    with pytest.raises(InvalidInput):
        run("# A", max_level=value)


# --- spans ----------------------------------------------------------------------------------------


def test_a_section_runs_from_its_heading_s_first_character_to_the_next_heading() -> None:
    text = "   # Indented heading\n  body  \n\n\n## Next\n"
    assert spans(text) == [(0, 30, 1, 2, 2), (33, 40, 5, 5, 1)]
    assert run(text)["sections"][0]["text"] == "   # Indented heading\n  body  "  # inner indentation and blanks kept


def test_trailing_blank_lines_and_the_last_line_ending_are_left_out() -> None:
    assert outline("# A\r\n\r\n text \t\r\n \r\n\t\r\n") == [(1, "A", [], "# A\r\n\r\n text \t")]
    assert outline("# A\r\rb\r\r") == [(1, "A", [], "# A\r\rb")]


def test_a_heading_with_nothing_after_it_is_its_heading_s_lines() -> None:
    assert outline("# A\n\n\n# B") == [(1, "A", [], "# A"), (1, "B", [], "# B")]
    assert outline("Multi\nline\n===\n\n") == [(1, "Multi\nline", [], "Multi\nline\n===")]


def test_link_reference_definitions_opening_a_setext_paragraph_stay_with_the_text_before() -> None:
    text = "# A\n\n[ref]: /url\nTitle\n=====\nbody"
    assert outline(text) == [(1, "A", [], "# A\n\n[ref]: /url"), (1, "Title", [], "Title\n=====\nbody")]


def test_text_before_the_first_heading_is_a_preamble_from_its_first_non_blank_line() -> None:
    assert run(" \n\t\n  intro\n\n# A")["sections"][0] == {
        "index": 0, "level": 0, "heading": None, "path": [], "start": 4, "end": 11, "start_line": 3,
        "end_line": 3, "line_count": 1, "text": "  intro",
    }  # fmt: skip
    assert outline("\n \n# A") == [(1, "A", [], "# A")]  # only blank lines: no preamble


@pytest.mark.parametrize("text", ["", "\n", " \t\r\n\r\n  ", "\r"])
def test_empty_or_blank_text_gives_no_sections(text: str) -> None:
    assert run(text)["sections"] == []
    assert run(text)["section_count"] == 0


def test_offsets_count_code_points_and_lines_use_commonmark_endings() -> None:
    text = "😀\r\n# 😀 A\r\nb😀\rc"
    (preamble, section) = run(text)["sections"]
    assert (preamble["start"], preamble["end"], preamble["end_line"]) == (0, 1, 1)
    assert (section["start"], section["end"], section["start_line"], section["end_line"]) == (3, 14, 2, 4)
    assert text[section["start"] : section["end"]] == section["text"] == "# 😀 A\r\nb😀\rc"


def test_sections_are_numbered_in_order() -> None:
    assert [s["index"] for s in run("p\n# a\n# b\n# c")["sections"]] == [0, 1, 2, 3]


# --- heading content ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("# foo", "foo"),
        ("#\tfoo\t", "foo"),
        ("# foo ##", "foo"),
        ("# foo ##   ", "foo"),
        ("### foo ### b", "foo ### b"),
        ("# foo#", "foo#"),
        ("### foo \\###", "foo \\###"),  # an escaped # opens no closing sequence: kept verbatim
        ("## ", ""),
        ("#", ""),
        ("### ###", ""),
        ("# *em* `code`", "*em* `code`"),
        ("# \u00a0nbsp\u00a0 ", "\u00a0nbsp\u00a0"),  # only spaces and tabs are removed
        ("# \u00a0nbsp\u00a0 #", "\u00a0nbsp\u00a0"),  # before a closing sequence too
        ("# \x0bvt\x0c #", "\x0bvt\x0c"),
        ("# X marks X", "X marks X"),
        ("# Title X#", "Title X#"),  # a # after another character opens no closing sequence
        ("# Title X #", "Title X"),
        ("   # three spaces", "three spaces"),
        ("# a\0b", "a\0b"),  # U+0000 stays as it is
    ],
)
def test_atx_heading_content(line: str, heading: str) -> None:
    (section,) = run(line)["sections"]
    assert (section["heading"], section["text"]) == (heading, line)  # the line's own trailing blanks kept


@pytest.mark.parametrize(
    ("text", "heading"),
    [
        ("  Foo *bar\nbaz*\t\n====", "Foo *bar\nbaz*"),
        ("a  \n  b  \n---", "a  \nb"),  # each line's indentation off; the inner line's trailing blanks stay
        ("x\0\n===", "x\0"),
        ("X1X\nX2X\t\n---", "X1X\nX2X"),
        ("\u00a0a\u00a0\nb\u00a0\t\n---", "\u00a0a\u00a0\nb\u00a0"),  # only spaces and tabs are removed
    ],
)
def test_setext_heading_content(text: str, heading: str) -> None:
    (section,) = run(text)["sections"]
    assert (section["level"], section["heading"], section["text"]) == (1 if "=" in text else 2, heading, text)


def test_a_tab_indented_line_is_code_not_a_setext_heading() -> None:
    assert outline("\tnot a heading\n===") == [(0, None, [], "\tnot a heading\n===")]


def test_path_is_the_stack_of_open_headings() -> None:
    text = "# A\n### C\n## B\n#### D\n## E\n# F\n## G"
    assert [(s["heading"], s["path"]) for s in run(text)["sections"]] == [
        ("A", []), ("C", ["A"]), ("B", ["A"]), ("D", ["A", "B"]), ("E", ["A"]), ("F", []), ("G", ["F"])
    ]  # fmt: skip


def test_a_leading_bom_is_an_ordinary_character_and_u0000_stays_everywhere() -> None:
    assert outline("\ufeff# A") == [(0, None, [], "\ufeff# A")]
    assert outline("# \0\n## b\0") == [(1, "\0", [], "# \0"), (2, "b\0", ["\0"], "## b\0")]


# --- errors and limits ----------------------------------------------------------------------------


def test_lone_surrogates_are_invalid_input() -> None:
    with pytest.raises(InvalidInput):
        TOOL.execute('{"text": "# \\ud800"}')


def test_more_sections_than_the_limit_is_too_many_chunks() -> None:
    limit = LIMITS["max_sections"]
    assert run("# h\n" * limit)["section_count"] == limit
    assert run("p\n" + "# h\n" * (limit - 1))["section_count"] == limit  # the preamble counts
    with pytest.raises(TooManyChunks):
        run("p\n" + "# h\n" * limit)


def test_the_output_limit_holds() -> None:
    (body,) = [example for error, example in TOOL.error_examples().items() if error is OutputTooLarge]
    with pytest.raises(OutputTooLarge):
        TOOL.execute(json.dumps(body))


def test_the_text_limit_is_in_utf8_bytes() -> None:
    limit = LIMITS["max_input_bytes"]
    assert run("é" * (limit // 2))["section_count"] == 1
    with pytest.raises(InputTooLarge):
        run("é" * (limit // 2) + "x")


# --- the property: sections are what the headings make them --------------------------------------

WORDS = st.sampled_from(["a", "word", "é", "😀", "*em*", "`c`", "\0", "x\u00a0y", "\\#", "[l]"])
line_endings = st.sampled_from(["\n", "\r\n", "\r"])
indents = st.sampled_from(["", " ", "  ", "   "])
trailing = st.sampled_from(["", " ", "\t", "  \t"])


@st.composite
def words(draw: st.DrawFn) -> str:
    return " ".join(draw(st.lists(WORDS, min_size=1, max_size=4)))


BLOCK_KINDS = ["atx", "setext", "paragraph", "fence", "indented", "quote", "list", "html"]


@st.composite
def block(draw: st.DrawFn, kind: str) -> tuple[list[str], tuple[int, bool] | None]:
    """A block's lines and, if it is a top-level heading, its level and kind."""
    if kind == "atx":
        level = draw(st.integers(1, 6))
        closing = draw(st.sampled_from(["", " #", " ###", " " + "#" * 9]))
        return [draw(indents) + "#" * level + " " + draw(words()) + closing + draw(trailing)], (level, False)
    if kind == "setext":
        content = [draw(indents) + draw(words()) + draw(trailing) for _ in range(draw(st.integers(1, 2)))]
        underline = draw(st.sampled_from(["=", "-"])) * draw(st.integers(1, 5))
        return [*content, draw(indents) + underline + draw(trailing)], (1 if underline[0] == "=" else 2, True)
    not_headings = {
        "paragraph": [draw(words()) for _ in range(draw(st.integers(1, 3)))],
        "fence": [fence := draw(st.sampled_from(["```", "~~~", "````", "~~~~~"])), "# not", "Title", "---", fence],
        "indented": ["    # code", "\t## code"],
        "quote": ["> # quoted", "> text"],
        "list": [draw(st.sampled_from(["- ", "* ", "1. "])) + "# item"],
        "html": ["<div>", "# inside", "</div>"],
    }
    return not_headings[kind], None


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[tuple[int, int, int, bool]]]:
    """Blocks separated by blank lines (spaces and tabs in them), with mixed line endings, and the
    top-level headings as ``(first line, lines, level, setext)``, their lines counted in the text."""
    lines: list[str] = []
    heading_at: dict[int, tuple[int, int, bool]] = {}  # first line in ``lines``: (lines, level, setext)
    list_open = False  # a list item, and the indented code blocks after it, which it takes in
    for number, kind in enumerate(draw(st.lists(st.sampled_from(BLOCK_KINDS), max_size=8))):
        block_lines, heading = draw(block(kind))
        if list_open and heading is not None:  # indented, it would belong to the list item
            block_lines = [line.lstrip(" ") for line in block_lines]
        list_open = kind == "list" or (list_open and kind == "indented")
        if number or draw(st.booleans()):
            lines += [draw(st.sampled_from(["", " ", "\t", "  "])) for _ in range(draw(st.integers(1, 2)))]
        if heading is not None:
            heading_at[len(lines)] = (len(block_lines), *heading)
        lines += block_lines
    text, offsets = "", []
    for line in lines:
        offsets.append(len(text))
        text += line + draw(line_endings)
    unended: bool = draw(st.booleans())
    if lines and unended:
        text = text.rstrip("\r\n")  # no final line ending (the last line is a block's: never blank)
    starts = [start for start, _ in reference.commonmark_lines(text)]
    # A CR ending, an empty line and an LF ending make one CRLF: such a document has fewer lines.
    assume(len(starts) == len(lines))
    return text, [(starts.index(offsets[first]), *shape) for first, shape in heading_at.items()]


@settings(max_examples=400, deadline=None)
@given(documents(), st.integers(1, 6))
def test_the_sections_are_the_reference_s_for_the_generated_headings(
    document: tuple[str, list[tuple[int, int, int, bool]]], max_level: int
) -> None:
    text, headings = document
    assert run(text, max_level=max_level) == reference.markdown_sections(text, headings, max_level)
