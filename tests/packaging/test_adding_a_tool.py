"""docs/adding-a-tool.md holds: every registered tool has each of the places the checklist names,
the checklist names them all, and a tool's id appears in the product code nowhere else."""

import importlib
import json
import re
import subprocess

import pytest

from scripts.template import ROOT, function_serving, load_template
from texttools.registry import TOOL_IDS, tool

CHECKLIST = (ROOT / "docs" / "adding-a-tool.md").read_text(encoding="utf-8")
TEMPLATE = load_template()
RESOURCES = TEMPLATE["Resources"]


def module_name(tool_id: str) -> str:
    return tool_id.replace("-", "_")


def snake(logical_id: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", logical_id).lower()


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_step_1_descriptor(tool_id: str) -> None:
    assert (ROOT / "spec" / "seeds" / f"{tool_id}.json").is_file()
    assert tool(tool_id).descriptor.raw == (ROOT / "spec" / "seeds" / f"{tool_id}.json").read_bytes()


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_step_2_core_module(tool_id: str) -> None:
    path = ROOT / "src" / "core" / "texttools" / "tools" / f"{module_name(tool_id)}.py"
    assert path.is_file()
    assert f'load_descriptor("{tool_id}")' in path.read_text(encoding="utf-8")
    assert tool(tool_id).id == tool_id


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_step_3_handler_entry(tool_id: str) -> None:
    spec = function_serving(tool(tool_id).execute_url, TEMPLATE)
    assert spec.handler == f"{snake(spec.logical_id)}.lambda_handler"
    entry = (ROOT / "src" / "handlers" / f"{spec.module}.py").read_text(encoding="utf-8")
    assert f'lambda_handler = make_api_handler("{tool_id}")' in entry


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_step_4_template_function_log_group_output_and_default_tool(tool_id: str) -> None:
    url = tool(tool_id).execute_url
    spec = function_serving(url, TEMPLATE)
    assert sorted((route.method, route.path) for route in spec.routes) == [("ANY", url), ("POST", url)]
    log_group = RESOURCES[spec.logical_id.removesuffix("Function") + "LogGroup"]
    assert log_group["Properties"]["LogGroupName"] == {"Fn::Sub": f"/aws/lambda/${{{spec.logical_id}}}"}
    outputs = [output["Value"].get("Fn::Sub", "") for output in TEMPLATE["Outputs"].values()]
    assert any(value.endswith(f"/${{StageName}}{url}") for value in outputs)
    assert tool_id in TEMPLATE["Parameters"]["DefaultTool"]["AllowedValues"]
    descriptor_path = f"/v1/tools/{tool_id}/versions/{tool(tool_id).version}"
    discovery = function_serving(descriptor_path, TEMPLATE)
    assert discovery.logical_id == "DiscoveryFunction"
    assert {route.method for route in discovery.routes if route.path == descriptor_path} == {"GET", "ANY"}


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_step_5_sample_events(tool_id: str) -> None:
    function = function_serving(tool(tool_id).execute_url, TEMPLATE).logical_id
    examples = tool(tool_id).descriptor.data["examples"]
    for number in range(1, len(examples) + 1):
        assert (ROOT / "events" / function / f"success-example-{number}.json").is_file()
    for error in tool(tool_id).error_examples():
        assert (ROOT / "events" / function / f"{error.code.replace('_', '-')}.json").is_file()


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_step_6_openapi_entry(tool_id: str) -> None:
    document = json.loads((ROOT / "openapi.json").read_text(encoding="utf-8"))
    assert "post" in document["paths"][tool(tool_id).execute_url]


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_step_7_readme_route(tool_id: str) -> None:
    assert f"`POST {tool(tool_id).execute_url}`" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_checklist_names_every_place() -> None:
    for place in (
        "spec/seeds/my-new-tool.json",
        "src/core/texttools/tools/my_new_tool.py",
        "src/core/texttools/errors.py",
        "src/handlers/my_new_tool_function.py",
        "MyNewToolFunction",
        "MyNewToolLogGroup",
        "MyNewToolUrl",
        "DefaultTool",
        "make events",
        "make openapi",
        "README.md",
        "tests/reference.py",
    ):
        assert place in CHECKLIST, place


def own_names(tool_id: str) -> set[str]:
    """The module-level names a tool's module defines and no other tool's module does."""

    def defined(other: str) -> set[str]:
        module = importlib.import_module(f"texttools.tools.{module_name(other)}")
        return {name for name, value in vars(module).items() if getattr(value, "__module__", None) == module.__name__}

    return defined(tool_id) - set().union(*(defined(other) for other in TOOL_IDS if other != tool_id))


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_a_tool_is_named_in_src_and_scripts_only_by_its_module_and_its_handler_entry(tool_id: str) -> None:
    """The rest of the code is driven by the registry and the descriptors, never by a tool's id or
    by a name its module defines."""
    spec = function_serving(tool(tool_id).execute_url, TEMPLATE)
    allowed = {f"src/core/texttools/tools/{module_name(tool_id)}.py", f"src/handlers/{spec.module}.py"}
    searches = [["-i", "-F", tool_id], ["-i", "-F", module_name(tool_id)]]
    # Names of one word (``Chunk``, ``Paragraph``) are English too, and are left out.
    searches += [["-w", "-F", name] for name in sorted(own_names(tool_id)) if re.search(r"_|[a-z][A-Z]", name)]
    for search in searches:
        found = subprocess.run(
            ["git", "grep", "--untracked", "-l", *search, "--", "src", "scripts", "pyproject.toml", "Makefile"],
            cwd=ROOT, capture_output=True, text=True, check=False,
        ).stdout.split()  # fmt: skip
        assert set(found) <= allowed, search
