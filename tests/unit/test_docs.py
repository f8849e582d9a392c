"""The README is a front door: short, linking every page of docs/, and its error table is the
error table of the code. What the README and docs/ say that the code decides (the service's
version, the modules and names they quote, the answers of their worked examples) is read from the
code, so that a change of the code cannot leave the docs behind. The project's facts around the
code (libraries, versions, make targets, files, the template's parameters) are checked in
tests/packaging/test_docs_facts.py; the docs' curl lines run against make serve in
tests/integration/test_docs_commands.py."""

import importlib
import importlib.util
import json
import re
import shlex
from typing import Any

import pytest

from benchmarks.markdown_comparison import table
from scripts.template import ROOT
from texttools.catalog import SERVICE_NAME, SERVICE_VERSION, TokenizerEntry
from texttools.documents import JSON, Defaults, Source, chunk_document, document_lines, oversize
from texttools.errors import ERROR_TABLE, REQUEST_REJECTED
from texttools.graphemes import cluster_starts
from texttools.registry import TOOL_IDS, tool

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_at_most_200_lines() -> None:
    assert len(README.splitlines()) <= 200


def test_the_readme_links_every_page_of_docs() -> None:
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in README, page.name


def test_the_readme_error_table_is_the_codes_error_table() -> None:
    rows = re.findall(r"^\| (\d{3}|4xx) \| `([a-z_]+)` \|", README, flags=re.MULTILINE)
    expected = {(str(row.status) if row is not REQUEST_REJECTED else "4xx", row.code) for row in ERROR_TABLE}
    assert sorted(rows) == sorted(expected)


def test_the_license_is_mit_and_the_readme_and_openapi_say_so() -> None:
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert "[MIT](LICENSE)" in README
    assert json.loads((ROOT / "openapi.json").read_text(encoding="utf-8"))["info"]["license"]["identifier"] == "MIT"


def test_the_changelog_starts_with_this_release() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    (first,) = re.findall(r"^## (\S+)", changelog, flags=re.MULTILINE)[:1]
    assert first == SERVICE_VERSION
    assert "(CHANGELOG.md)" in README


def test_the_markdown_size_comparison_is_what_its_script_measures() -> None:
    """docs/markdown-size.md's table of the peers is ``python -m benchmarks.markdown_comparison``'s."""
    page = (ROOT / "docs" / "markdown-size.md").read_text(encoding="utf-8")
    shown = page.split("<!-- comparison -->\n", 1)[1].split("\n<!-- /comparison -->", 1)[0]
    assert shown == table()


# Facts the docs state that the code decides (issue 56: the docs had MCP's serverInfo at 1.0.0 and
# grapheme clusters from ugrapheme, both long after the code had moved on).

PAGES = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8") for path in
         [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}  # fmt: skip


def page(name: str) -> str:
    return PAGES[f"docs/{name}"]


def test_every_version_the_docs_give_the_service_is_the_codes() -> None:
    """MCP's ``serverInfo``, OpenAPI's ``info.version``: the release the code answers with, which
    CHANGELOG.md's first heading also gives (above), and the project's own version."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.findall(r'^version = "(.+)"', pyproject, flags=re.MULTILINE) == [SERVICE_VERSION]
    quoted = []
    for path, text in PAGES.items():
        near = r"(?:serverInfo|info\.version|\bname\W+text-tools)\W[^\n|]{0,40}?\b(\d+\.\d+\.\d+)\b"
        quoted += [(path, version) for version in re.findall(near, text)]
    assert quoted
    assert {version for _, version in quoted} == {SERVICE_VERSION}, quoted
    assert f'"serverInfo":{{"name":"{SERVICE_NAME}","version":"{SERVICE_VERSION}"}}' in page("mcp.md")


def is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a name inside a module
        return False


def test_every_module_and_name_the_docs_quote_exists() -> None:
    """``texttools.size_chunks.TokenBudget``, ``s3_documents.chunk_each``: importable as written."""
    quoted = 0
    for path, text in PAGES.items():
        for dotted in re.findall(r"`((?:texttools|s3_documents|api_adapter|scripts|benchmarks)(?:\.\w+)+)`", text):
            parts = dotted.split(".")
            found = next(i for i in range(len(parts), 0, -1) if is_module(".".join(parts[:i])))
            value: object = importlib.import_module(".".join(parts[:found]))
            for attribute in parts[found:]:
                assert hasattr(value, attribute), f"{path}: {dotted}"
                value = getattr(value, attribute)
            quoted += 1
    assert quoted >= 10


# The answers the docs show, computed again (the curl lines themselves run against make serve in
# tests/integration/test_docs_commands.py).


def first_request(text: str) -> tuple[str, dict[str, Any]]:
    """The tool id and the input of the first curl line of a page."""
    block = re.search(r"^```sh\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)
    assert block is not None
    words = shlex.split(block[1].replace("\\\n", " "), comments=True)
    (tool_id,) = re.findall(r"/v1/tools/([a-z-]+)/versions/", words[-1])
    return tool_id, json.loads(words[words.index("-d") + 1])


def table_after(text: str, start: str) -> list[dict[str, str]]:
    """The rows of the first table after ``start``, by the header's names."""
    rows = text.split(start, 1)[1].split("\n| ", 1)[1].split("\n\n", 1)[0].splitlines()
    header = [name.strip() for name in rows[0].strip("| ").split(" | ")]
    return [dict(zip(header, row.strip()[2:-2].split(" | "), strict=True)) for row in rows[2:]]


def code(cell: str) -> str:
    """A code span's text (``\\n`` as written in the docs: a line feed)."""
    match = re.fullmatch(r"(`+) ?(.*?) ?\1", cell.strip())
    assert match is not None, cell
    return match[2].replace("\\n", "\n")


def chunk_row(chunk: dict[str, Any], header: list[str]) -> dict[str, str]:
    cells = {
        "index": str(chunk["index"]),
        "start": str(chunk["start"]),
        "end": str(chunk["end"]),
        "lines": f"{chunk['start_line']}\N{EN DASH}{chunk['end_line']}",
        "cut": chunk["cut"],
        "headings": json.dumps(chunk.get("headings"), ensure_ascii=False),
        "text": chunk["text"],
    }
    return {name: cells[name] for name in header}


def shown_row(row: dict[str, str]) -> dict[str, str]:
    return {name: code(value) if value.startswith("`") else value for name, value in row.items()}


@pytest.mark.parametrize("name", ["size-chunking.md", "markdown-size.md"])
def test_a_size_tools_worked_example_is_what_it_answers(name: str) -> None:
    tool_id, request = first_request(page(name))
    chosen = tool(tool_id)
    chunks = chosen.run(chosen.parse(request))["chunks"]
    rows = table_after(page(name), "/versions/1.0.0/execute\n```\n")
    assert [shown_row(row) for row in rows] == [chunk_row(chunk, list(rows[0])) for chunk in chunks]


def test_markdown_size_at_45_characters_is_as_the_page_says() -> None:
    tool_id, request = first_request(page("markdown-size.md"))
    chosen = tool(tool_id)
    texts = [c["text"] for c in chosen.run(chosen.parse({**request, "max_chars": 45}))["chunks"]]
    said = "At 45 characters the same document gives `# Guide\\n\\nSome words here. More words.` whole"
    assert said in page("markdown-size.md")
    block = request["text"].split("## Install\n\n", 1)[1].split("\n\nSetext", 1)[0]
    assert block.endswith("```\n\nDone.")  # "then the whole code block with `Done.`"
    assert texts[1:4] == ["# Guide\n\nSome words here. More words.", "## Install", block]


def test_min_fill_prefers_the_fuller_chunk_as_the_page_says() -> None:
    said = (
        'With\n`"max_chars": 40, "min_chars": 20`, `Intro\\n\\nThe first sentence is here. The second…` gives\n'
        "`Intro\\n\\nThe first sentence is here.` (cut `sentence`) instead of `Intro` (cut `paragraph`)."
    )
    assert said in page("size-chunking.md")
    chosen = tool("text-size-chunk")
    text = "Intro\n\nThe first sentence is here. The second one is longer than the room."
    first = [chosen.run(chosen.parse({"text": text, "max_chars": 40, **fill}))["chunks"][0] for fill in
             ({"min_chars": 20}, {})]  # fmt: skip
    assert [(c["text"], c["cut"]) for c in first] == [
        ("Intro\n\nThe first sentence is here.", "sentence"),
        ("Intro", "paragraph"),
    ]


def test_the_regex_modules_clusters_are_not_uaxs_as_the_page_says() -> None:
    """docs/size-chunking.md, "Grapheme clusters": why the ``regex`` module's ``\\X`` is not used."""
    import regex

    said = '(it joins a consonant to a linker that follows no consonant, `"\\u094d\\u0915"`'
    assert said in page("size-chunking.md")
    assert regex.findall(r"\X", "\u094d\u0915") == ["\u094d\u0915"]
    assert list(cluster_starts("\u094d\u0915")) == [0, 1, 2]


def test_a_bad_settings_error_object_is_what_documents_md_shows() -> None:
    text = page("documents.md")
    shown = text.split("every problem\nlisted in `details`, the first in the message:\n\n```json\n", 1)[1]
    expected = json.loads(shown.split("```", 1)[0].replace("{...}", "null"))
    source = Source("bucket", "incoming/data.txt", None, "etag", 1)
    metadata = {"tool": "text-delimiter-chunk", "delimiter": '","', "max-splits": "-1"}
    assert json.loads(chunk_document(source, b"a", metadata, Defaults()).body)["error"] == expected["error"]
    required = chunk_document(source, b"a", {"tool": "text-extract-between", "start": '"["'}, Defaults())
    defaults = Defaults("text-delimiter-chunk", '{"delimiter": ",", "max_splits": -1}')
    default = chunk_document(source, b"a,b", {}, defaults)
    for output in (required, default):
        message = json.loads(output.body)["error"]["message"]
        assert f'(`"{message}"`)' in " ".join(text.split()), message


def test_the_last_json_lines_line_of_each_tool_is_one_documents_md_lists() -> None:
    """docs/documents.md, "Documents of any size": the fields of each tool's last line."""
    listed = " ".join(page("documents.md").split("3. the last line holds", 1)[1].split("\n\n", 1)[0].split())
    for tool_id in TOOL_IDS:
        example = tool(tool_id).descriptor.data["examples"][0]["input"]
        metadata = {"tool": tool_id} | {name.replace("_", "-"): json.dumps(value) for name, value in
                                        example.items() if name != "text"}  # fmt: skip
        source = Source("bucket", "incoming/d.md", None, "etag", len(example["text"].encode()))
        lines = b"".join(document_lines(source, [example["text"].encode()], metadata, Defaults())).splitlines()
        fields = ", ".join(f'"{name}"' for name in json.loads(lines[-1]))
        assert f"`{{{fields}}}`" in listed, (tool_id, fields)


def test_the_cost_of_a_request_is_the_bench_tables_time_priced() -> None:
    """docs/costs.md, "Per million API requests": the handler's time from docs/performance.md's
    current table, times 7 at 256 MB, priced at arm64's GB-second, plus $4.00 a million (API
    Gateway $3.50, Lambda's requests $0.20, logs $0.30)."""
    current = page("performance.md").split("## The current table", 1)[1].split("\n\n| tool", 1)[1].split("\n\n")[0]
    handler_ms: dict[str, float] = {}
    for row in current.splitlines()[2:]:
        label, _, handler = row.strip("| ").split(" | ")[:3]
        handler_ms.setdefault(label.split()[0], float(handler))
    costs = page("costs.md").split("## Per million API requests", 1)[1].split("\n\n| tool", 1)[1].split("\n\n")[0]
    priced = 0
    for row in costs.splitlines()[2:]:
        label, took, billed, duration, total = row.strip("| ").split(" | ")
        if not took.endswith(" ms") or not took[0].isdigit():
            continue
        milliseconds, billed_ms = float(took.removesuffix(" ms")), float(billed.removesuffix(" ms").replace(" ", ""))
        cost = float(duration.removeprefix("$"))
        assert abs(billed_ms - 7 * milliseconds) <= 1, row
        assert abs(cost - billed_ms / 1000 * 0.25 * 0.0000133334 * 1_000_000) <= 0.006, row
        assert abs(float(total.removeprefix("$")) - (cost + 4.00)) < 0.001, row
        if "tokens" not in label:
            assert abs(milliseconds - handler_ms[label.split()[0]]) <= 0.5, row
            priced += 1
    assert priced == len(TOOL_IDS)


def test_the_readmes_count_limits_are_the_descriptors() -> None:
    """README, "Errors": ``too_many_chunks`` at each tool's count limit."""
    (row,) = [line for line in README.splitlines() if line.startswith("| 422 | `too_many_chunks` |")]
    shown = {int(number.replace(" ", "")) for number in re.findall(r"\d[\d ]*\d", row.split(" | ")[2])}
    counted = ("max_chunks", "max_paragraphs", "max_sections")
    limits = [tool(tool_id).descriptor.data["limits"] for tool_id in TOOL_IDS]
    assert shown == {value for each in limits for name, value in each.items() if name in counted}


def test_local_md_says_what_a_deploy_parameter_in_a_refusal_is_under_make_serve() -> None:
    """issue 62: ``make serve`` refuses a large document in json with "deploy with
    ChunksFormat=jsonl"; docs/local.md gives the variable that is locally, one ``make serve`` takes."""
    refusal = oversize(1 << 30, JSON, 1 << 31)
    assert refusal is not None
    named = re.findall(r"deploy with (\w+)=(\w+)", str(refusal))
    assert named == [("ChunksFormat", "jsonl")]
    local = " ".join((ROOT / "docs" / "local.md").read_text(encoding="utf-8").split())
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for parameter, value in named:
        variable = re.sub(r"(?<!^)(?=[A-Z])", "_", parameter).upper()  # ChunksFormat: CHUNKS_FORMAT
        assert f"`{parameter}={value}` is `{variable}={value}`" in local
        assert f"$(if $({variable})," in makefile.split("\nserve:", 1)[1].split("\n\n", 1)[0]


def test_the_tokenizers_readme_shows_every_field_a_deployed_tokenizer_is_listed_with() -> None:
    """issue 62: ``truncation_max_length`` (API.md) is in the listing the deployer is shown, and the
    step that says to check it."""
    page = (ROOT / "tokenizers" / "README.md").read_text(encoding="utf-8")
    shown = json.loads(page.split("```json\n", 1)[1].split("```", 1)[0].replace("…", ""))["tokenizers"][-1]
    assert set(shown) == set(TokenizerEntry.__annotations__)
    assert "`truncation_max_length`" in page.split("## Add one", 1)[1].split("\n## ", 1)[0]


def test_the_size_docs_list_all_minilm_l6_v2_by_its_file_s_length_not_among_the_512_token_models() -> None:
    page = (ROOT / "docs" / "size-chunking.md").read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| ") and "`[CLS] $A [SEP]`" in line]
    (minilm,) = [row for row in rows if "all-MiniLM-L6-v2" in row]
    assert "truncates at 128" in minilm
    assert "`truncation_max_length`" in minilm
    assert all("512 tokens" not in row for row in rows if row is minilm)
