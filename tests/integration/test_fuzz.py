"""Hostile input, generated and crafted: every answer is an API.md status with a well-formed body,
never an exception and never a 500; every document ends as exactly one output object.

``make fuzz`` runs the generated cases with many more examples (TEXT_TOOLS_FUZZ_EXAMPLES).
"""

import importlib
import json
import os
import time
from collections.abc import Callable, Iterator
from random import Random
from typing import Any

import boto3
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws

from scripts.lambda_events import LOCAL_REGION, LocalContext, api_event, s3_event
from tests.conftest import CommonmarkBlocks, api_handler, commonmark_js_batch, spec_faithful
from tests.table_documents import table_document
from tests.unit.test_size_chunk_properties import boundaries
from texttools.registry import TOOL_IDS, tools

EXAMPLES = int(os.environ.get("TEXT_TOOLS_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
API_STATUSES = {200, 400, 404, 405, 413, 415, 422}
CODES = {
    400: {"invalid_input"}, 404: {"not_found"}, 405: {"method_not_allowed"}, 413: {"input_too_large"},
    415: {"unsupported_media_type"}, 422: {"too_many_chunks", "output_too_large", "unclosed_start_marker"},
}  # fmt: skip
FIELDS = sorted({field.name for each in tools().values() for field in each.fields})

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
requests = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), json_values, max_size=6)
bodies = st.one_of(
    requests.map(json.dumps),
    requests.map(lambda r: json.dumps(r, ensure_ascii=False)),
    st.text(max_size=200),
    st.sampled_from(["", "{", "[]", "null", '{"text": NaN}', '{"text": "\\ud800"}', "\ufeff{}"]),
)
content_types = st.sampled_from(
    [None, "application/json", "application/json; charset=utf-8", "APPLICATION/JSON;CHARSET=UTF8", "text/plain",
     "application/json; charset=latin-1", "", ";", "application/json;;", "application/json; charset"]
)  # fmt: skip
methods = st.sampled_from(["POST", "POST", "POST", "GET", "PUT", "DELETE", "OPTIONS", "PATCH", "HEAD"])


def assert_well_formed(response: dict[str, Any]) -> None:
    assert set(response) >= {"statusCode", "body"}
    status = response["statusCode"]
    assert status in API_STATUSES
    body = json.loads(response["body"])
    if status != 200:
        assert set(body) == {"error"}
        error = body["error"]
        assert set(error) <= {"code", "message", "details", "request_id"}
        assert error["code"] in CODES[status]
        assert isinstance(error["message"], str)
        assert error["message"].endswith(".")


@FUZZ
@given(
    tool=st.sampled_from(TOOL_IDS),
    body=bodies,
    raw=st.binary(max_size=200),
    use_raw=st.booleans(),
    base64_body=st.booleans(),
    content_type=content_types,
    extra_headers=st.dictionaries(
        st.sampled_from(["X-Api-Key", "Accept", "content-TYPE", "Host"]), st.text(max_size=20)
    ),
    method=methods,
)
def test_any_request_gets_an_api_answer(
    tool: str, body: str, raw: bytes, use_raw: bool, base64_body: bool, content_type: str | None,
    extra_headers: dict[str, str], method: str,
) -> None:  # fmt: skip
    headers = dict(extra_headers)
    if content_type is not None:
        headers["Content-Type"] = content_type
    payload: str | bytes = raw if use_raw else body
    event = api_event(method, f"/v1/tools/{tool}/versions/1.0.0/execute", payload, headers, base64_body=base64_body)
    assert_well_formed(api_handler(tool)(event, LocalContext("fuzz")))


@FUZZ
@given(path=st.text(max_size=40), method=methods)
def test_any_path_gets_an_api_answer(path: str, method: str) -> None:
    event = api_event(method, "/" + path, "{}", {"Content-Type": "application/json"})
    assert_well_formed(api_handler("text-paragraphs-split")(event, LocalContext("fuzz")))


class Deadline:
    """A generous bound on work that must stay small: quadratic or unbounded work would take minutes."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        self.started = time.monotonic()

    def __exit__(self, *_: object) -> None:
        assert time.monotonic() - self.started < self.seconds


VALID = '"text": "a", "delimiter": ","'
CRAFTED = {
    "nesting 100 000 deep": ("[" * 100_000 + "]" * 100_000, 400, "invalid_input"),
    "object nesting 100 000 deep": ('{"a":' * 100_000 + "1" + "}" * 100_000, 400, "invalid_input"),
    "max_splits with 5 000 digits": ("{" + VALID + ', "max_splits": ' + "9" * 5000 + "}", 400, "invalid_input"),
    "1 MiB of lone surrogate escapes": (
        '{"text": "' + "\\ud800" * 174_762 + '", "delimiter": ","}',
        400,
        "invalid_input",
    ),
    "duplicate keys, last one invalid": ("{" + VALID + ', "delimiter": ""}', 400, "invalid_input"),
    "duplicate keys, last one valid": ('{"delimiter": "", ' + VALID + "}", 200, "ok"),
    "9.9 MB of whitespace around a valid request": (" " * 9_900_000 + "{" + VALID + "}", 413, "input_too_large"),
    "10 000 keys": ("{" + ",".join(f'"k{i}": 1' for i in range(10_000)) + "}", 400, "invalid_input"),
    "1 MiB key": ('{"' + "k" * 1_048_576 + '": 1}', 400, "invalid_input"),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_crafted_worst_cases_are_answered_quickly(case: str) -> None:
    body, status, code = CRAFTED[case]
    event = api_event("POST", "/v1/tools/text-delimiter-chunk/versions/1.0.0/execute", body, {})
    with Deadline(5):
        response = api_handler("text-delimiter-chunk")(event, LocalContext("crafted"))
    assert_well_formed(response)
    assert response["statusCode"] == status
    assert (json.loads(response["body"]).get("error") or {"code": "ok"})["code"] == code
    assert len(response["body"]) < 2_000  # nothing of the input is echoed back


# --- the S3 chunker ---------------------------------------------------------------------------------

BUCKET = "fuzz-bucket"
ascii_values = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=20)
metadata = st.dictionaries(
    st.sampled_from(["tool", "delimiter", "max-splits", "start", "end", "max-matches", "max-chars", "overlap-chars",
                     "min-chars", "max-tokens", "tokenizer", "other"]),
    st.one_of(
        ascii_values,
        st.sampled_from(["text-delimiter-chunk", "text-extract-between", "text-paragraphs-split", '"\\n"', '","',
                         '"["', '"]"', "1", "0", "-1", "1.5", "true", '""', "null", '"\\ud800"']),
    ),
    max_size=5,
)  # fmt: skip
documents = st.one_of(st.binary(max_size=300), st.text(max_size=200).map(str.encode))


@pytest.fixture(scope="module")
def chunker() -> Iterator[tuple[Any, Any]]:
    with mock_aws():
        s3 = boto3.client("s3", region_name=LOCAL_REGION)
        s3.create_bucket(Bucket=BUCKET)
        import chunk_document_function

        yield importlib.reload(chunk_document_function), s3


@FUZZ
@given(
    body=documents,
    meta=metadata,
    key=st.text(st.characters(codec="utf-8", exclude_characters="/\\"), min_size=1, max_size=20),
)
def test_any_document_ends_as_exactly_one_output(
    chunker: tuple[Any, Any], body: bytes, meta: dict[str, str], key: str
) -> None:
    handler, s3 = chunker
    source = f"incoming/{key}"
    response = s3.put_object(Bucket=BUCKET, Key=source, Body=body, Metadata=meta)
    event = s3_event(BUCKET, [(source, len(body), response["ETag"].strip('"'), None)])
    for prefix in ("chunks/", "errors/"):
        s3.delete_object(Bucket=BUCKET, Key=f"{prefix}{key}.json")
    handler.lambda_handler(event, LocalContext("fuzz"))
    written = [
        p for p in ("chunks/", "errors/") if "Contents" in s3.list_objects_v2(Bucket=BUCKET, Prefix=f"{p}{key}.json")
    ]
    assert len(written) == 1
    document = json.loads(s3.get_object(Bucket=BUCKET, Key=f"{written[0]}{key}.json")["Body"].read())
    assert document["source"]["key"] == source
    assert ("result" in document) == (written[0] == "chunks/")


# --- markdown-sections-chunk judged by a CommonMark reference implementation ------------------------

MARKDOWN_LINES = [
    "", " ", "\t", "text", "more text 😀", "lazy continuation", "# h", "## h ##", "###### six", "####### seven",
    "  # indented h", "    # code", "\t# tab code", "\t\tz", "===", "=", "---", "-", "  ==  ", "- - -", "***",
    "```", "````", "~~~", "~~~~", "``` info", "> quote", "> # quoted", ">", ">     y", "    x", "- item",
    "- # item", "1. item", "1. [o]:'", "  continued", "<div>", "</div>", "<div x", "<!--", "-->", "<?php", "?>",
    "<!X", "<![CDATA[", "]]>", "<g>", "<pre>", "</pre>", "<PRE x>", "</PRE>", "<pre", "<script>", "</script>",
    "<style", "</style>", "<textarea", "</textarea>", "<style </textarea>", "[ref]: /url", "[ref]:", "[o]:l",
    "[o]:'", "'", "- [a]: /b", "\\# escaped", "#\ttab",
]  # fmt: skip
markdown_lines = st.lists(st.sampled_from(MARKDOWN_LINES), max_size=25)


@settings(FUZZ, max_examples=max(EXAMPLES, 400))  # hundreds in make test (about a second), thousands in make fuzz
@given(lines=markdown_lines, endings=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=25, max_size=25))
def test_markdown_headings_are_commonmark_js_s_and_the_sections_the_reference_s(
    commonmark_js: Callable[[str], CommonmarkBlocks], lines: list[str], endings: list[str]
) -> None:
    """Every top-level heading that commonmark.js finds (level and last line; the descriptor sets a
    setext heading's first line after link reference definitions), and no other; the sections are
    the reference's for those headings (tests/reference.py)."""
    from tests import reference
    from texttools.markdown import block_structure
    from texttools.tools.markdown_sections_chunk import markdown_sections_chunk

    for number in range(1, len(lines)):  # a CR, an empty line, then an LF would be one CRLF
        if endings[number - 1] == "\r" and not lines[number] and endings[number] != "\r":
            endings[number - 1] = "\n"
    text = "".join(line + ending for line, ending in zip(lines, endings, strict=False))
    ours = block_structure(text).headings
    assert [(heading.level, heading.line + heading.lines) for heading in ours] == commonmark_js(text).headings
    found = [(heading.line, heading.lines, heading.level, heading.setext) for heading in ours]
    assert markdown_sections_chunk(text) == reference.markdown_sections(text, found)


# --- every character: both Markdown tools' block structure judged by commonmark.js -----------------

CONTROL_DOCUMENTS = max(2_000, 4 * EXAMPLES)
"""2 000 documents in make test, 20 000 in make fuzz (judged in one commonmark.js process)."""
ALPHABET = (
    "".join(map(chr, range(0x20))) + "\x7f"  # every C0 control (tab, LF, VT, FF and CR among them) and DEL
    + " \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"  # White_Space
    + "\u200b\u200c\u200d\u2060\u180e\ufeff"  # zero-width characters, U+180E (White_Space until Unicode 6.3), BOM
)  # fmt: skip
SLOT = "\u2022"
"""Where a template line takes one to three characters of the alphabet."""
TEMPLATES = [
    # after the opening #s, around the content and the closing sequence
    "#•", "#•x", "##•", "###### •", "#######•", "#•#", "# x•#", "# x #•", "•# x", " •# x",
    # in, around and after fence markers and info strings; closing fences
    "```•", "~~~•", "````•", "•```", "•~~~", "  •```", "``•`", "~~•~", "```•info", "``` info•", "```•`", "```x•`",
    "~~~ x•~", "```•\t", "~~~\t•",
    # setext underlines and thematic breaks, before and after
    "=•", "==•", "===•", "•===", "-•", "--•", "---•", "•---", "-•-", "=•=", "- -•-", "*•**", "***•", "_•__",
    # indentation and blank-looking lines
    "•", "••", " •", "•\t", "•    code", "•\tx", "\t•x", "    •", "   •", " •x", "• x", "x•", "a•b",
    # after list and block quote markers
    "-•item", "- •x", "-•", "- •", "1.•x", "1)•", "1. •", "*•", "+•x", "-•# x", "- •```", ">•x", "> •# q", ">•",
    "•> x", ">•```", "> - •", "- > •",
    # HTML block openers and end markers of every type
    "<div•", "<div•>", "</div•>", "<DIV•", "•<div>", "<pre•", "<pre•>", "</pre•>", "<script•>", "</script•>",
    "<style•", "</style•>", "<textarea•>", "</textarea•>", "<!--•", "•-->", "--•>", "-->•", "<?•", "•?>", "?•>",
    "<!•X", "<!X•", "•>", "<![CDATA[•", "]]•>", "•]]>", "<g•>", "<g •x>", "<g x=•y>", "<g x•=y>", "<g x='•'>",
    "<g>•", "<a•/>", "<g/•>", "<•div>", "</•pre>", "</g•>", "</g>•",
    # link reference definitions, which can make a setext underline a paragraph
    "[ref]:•/url", "[ref]: •/url", "[r•]: /u", "[•]: /u", "[ref]: /url•'t'", "[ref]: /url•", "[ref]: /url '•'",
    "•[ref]: /u", "[o]:•", "[o]:l•", "[o]:\t•",
]  # fmt: skip


def control_line(random: Random) -> str:
    if random.random() < 0.4:
        return random.choice(MARKDOWN_LINES)
    line = random.choice(TEMPLATES)
    while SLOT in line:
        line = line.replace(SLOT, "".join(random.choices(ALPHABET, k=random.choice((1, 1, 1, 2, 3)))), 1)
    return line


def control_document(random: Random) -> str:
    """One to twelve lines, each a template with characters of the alphabet in its slots or a line
    of the other fuzz test, with LF, CRLF or CR endings (the alphabet's own may add lines)."""
    lines = [control_line(random) for _ in range(random.randint(1, 12))]
    return "".join(line + random.choice(["\n", "\n", "\r\n", "\r"]) for line in lines)


def test_the_alphabet_holds_every_unicode_space() -> None:
    """Python's ``str.isspace`` holds every ``White_Space`` character (and U+001C-U+001F)."""
    assert {character for character in map(chr, range(0x110000)) if character.isspace()} <= set(ALPHABET)


def test_markdown_block_structure_is_commonmark_s_on_every_character() -> None:
    """On documents dense in control characters and Unicode whitespace, every top-level heading
    (level and last line) and every code and HTML block (first and last line, at any depth) is
    commonmark.js's (judging the spec-faithful copy), and no other; then both tools' answers are
    their references' for those blocks (tests/reference.py; the size tool's, the slower, on one
    document in ten, at a size that cuts)."""
    from tests import reference
    from texttools.markdown import block_structure
    from texttools.size_chunks import Settings
    from texttools.tools.markdown_sections_chunk import markdown_sections_chunk
    from texttools.tools.markdown_size_chunk import markdown_size_chunk

    drawn = Random(55)  # noqa: S311 (test documents, the same ones each run)
    texts = [control_document(drawn) for _ in range(CONTROL_DOCUMENTS)]
    judged = commonmark_js_batch([spec_faithful(text) for text in texts])
    differing = []
    for number, (text, blocks) in enumerate(zip(texts, judged, strict=True)):
        ours = block_structure(text)
        last_line = len(reference.commonmark_lines(text)) - 1  # commonmark.js may count a line after the last ending
        literals = [(first - 1, min(last - 1, last_line)) for first, last in blocks.literals]
        headings = [(heading.level, heading.line + heading.lines) for heading in ours.headings]
        if (headings, ours.literals) != (blocks.headings, literals):
            differing.append(text)
            continue
        found = [(heading.line, heading.lines, heading.level, heading.setext) for heading in ours.headings]
        assert markdown_sections_chunk(text) == reference.markdown_sections(text, found), text
        if number % 10 == 0:
            output = markdown_size_chunk(text, Settings(12, 0, 0), 6, None)
            chunks = [(c["start"], c["end"], c["cut"], c.get("tokens"), c["headings"]) for c in output["chunks"]]
            assert chunks == reference.markdown_size_chunk(text, boundaries(text), found, literals, 12), text
    assert not differing, f"{len(differing)} of {len(texts)} differ, shortest first: {sorted(differing, key=len)[:8]}"


# --- tables: which lines form one, judged by cmark-gfm ---------------------------------------------

TABLE_DOCUMENTS = max(3_000, 10 * EXAMPLES)
"""3 000 documents in make test, 50 000 in make fuzz (10 times TEXT_TOOLS_FUZZ_EXAMPLES)."""


def test_tables_are_cmark_gfm_s_on_generated_documents() -> None:
    """Which lines form a table, in tests/table_documents.py's documents: cmark-gfm's
    (tests/gfm.py). Skipped, as the descriptor leaves them open: documents where the plain parsers
    (cmark-gfm's, markdown-it-py's, the tool's) find other paragraphs, and those where cmark-gfm
    and markdown-it-py (a CommonMark parser with the table extension) find other tables."""
    from tests import gfm
    from texttools.markdown import block_structure

    drawn = Random(60)  # noqa: S311 (test documents, the same ones each run)
    skipped, differing = 0, []
    for _ in range(TABLE_DOCUMENTS):
        text = table_document(drawn)
        judged = gfm.cmark_gfm_tables(text) if gfm.plain_parsers_agree(text) else None
        if judged is None or judged != gfm.markdown_it_tables(text):
            skipped += 1
            continue
        found = block_structure(text, tables=True).tables
        if [(table.first, table.last) for table in found] == judged:
            continue
        differing.append(text)
    assert not differing, (
        f"{len(differing)} of {TABLE_DOCUMENTS} differ, shortest first: {sorted(differing, key=len)[:8]}"
    )
    assert skipped < TABLE_DOCUMENTS // 2
