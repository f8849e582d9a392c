"""The README is a front door: short, linking every page of docs/, and its error table is the
error table of the code."""

import json
import re

from benchmarks.markdown_comparison import table
from scripts.template import ROOT
from texttools.catalog import SERVICE_VERSION
from texttools.errors import ERROR_TABLE, REQUEST_REJECTED

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
    (first,) = [
        heading for heading in re.findall(r"^## (\S+)", changelog, flags=re.MULTILINE) if heading != "Unreleased"
    ][:1]  # fmt: skip  (entries gathered for the next release)
    assert first == SERVICE_VERSION
    assert "(CHANGELOG.md)" in README


def test_the_markdown_size_comparison_is_what_its_script_measures() -> None:
    """docs/markdown-size.md's table of the peers is ``python -m benchmarks.markdown_comparison``'s."""
    page = (ROOT / "docs" / "markdown-size.md").read_text(encoding="utf-8")
    shown = page.split("<!-- comparison -->\n", 1)[1].split("\n<!-- /comparison -->", 1)[0]
    assert shown == table()
