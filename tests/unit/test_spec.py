"""The published spec (descriptors in spec/seeds) and the code agree: limits, examples, schemas."""

import json
import os
from pathlib import Path

import jsonschema
import pytest

from scripts.template import ROOT
from tests.conftest import SEEDS, descriptor, header
from texttools.descriptor import SEEDS as SHIPPED_SEEDS
from texttools.fields import MAX_SAFE_INTEGER
from texttools.registry import TOOL_IDS, tools

SHARED = Path(os.environ.get("TEXT_TOOLS_SHARED", ROOT.parent / "shared"))
SPEC_FILES = sorted(str(path.relative_to(ROOT / "spec")) for path in (ROOT / "spec").rglob("*") if path.is_file())
TOOLS = tools()


@pytest.mark.skipif(
    not SHARED.is_dir() and not os.environ.get("CI"),
    reason="no ../shared beside this clone to compare spec/ with (docs/development.md)",
)
@pytest.mark.parametrize("name", SPEC_FILES)
def test_vendored_spec_is_the_shared_one(name: str) -> None:
    """spec/ is a copy of the product contract; in CI, where shared/ is always there, it must match."""
    assert (ROOT / "spec" / name).read_bytes() == (SHARED / name).read_bytes()


def test_every_descriptor_has_a_tool() -> None:
    """Each tool is registered by its descriptor and its module (texttools.registry)."""
    assert sorted(p.stem for p in SEEDS.glob("*.json")) == sorted(TOOLS)
    for path in SEEDS.glob("*.json"):  # the core reads the spec's own files
        assert (Path(SHIPPED_SEEDS) / path.name).read_bytes() == path.read_bytes()


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_every_string_field_is_bounded_by_a_descriptor_limit(tool_id: str) -> None:
    """The tool module names the limit of each string; a field left without one would be unbounded
    (a string of an ``enum`` or a ``pattern`` is bounded by its form)."""
    schema = descriptor(tool_id)["input_schema"]["properties"]
    strings = sorted(
        name
        for name, field in schema.items()
        if field["type"] == "string" and "enum" not in field and "pattern" not in field
    )
    assert sorted(TOOLS[tool_id].byte_limits) == strings
    assert set(TOOLS[tool_id].byte_limits.values()) <= set(descriptor(tool_id)["limits"].values())


def test_max_splits_bound_is_the_schemas() -> None:
    schema = descriptor("text-delimiter-chunk")["input_schema"]["properties"]["max_splits"]
    assert (schema["minimum"], schema["maximum"]) == (0, MAX_SAFE_INTEGER)


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_identity_and_route(tool_id: str) -> None:
    seed, tool = descriptor(tool_id), TOOLS[tool_id]
    assert (tool.id, tool.version, tool.execute_url) == (seed["id"], seed["version"], seed["execute_url"])


EXAMPLES = [(t, n, ex) for t in TOOL_IDS for n, ex in enumerate(descriptor(t)["examples"])]


@pytest.mark.parametrize(("tool_id", "number", "example"), EXAMPLES, ids=[f"{t}-{n}" for t, n, _ in EXAMPLES])
def test_descriptor_example_through_core(tool_id: str, number: int, example: dict[str, object]) -> None:
    body = TOOLS[tool_id].execute(json.dumps(example["input"]).encode())
    assert json.loads(body) == example["output"]
    jsonschema.validate(json.loads(body), descriptor(tool_id)["output_schema"])


@pytest.mark.parametrize(("tool_id", "number", "example"), EXAMPLES, ids=[f"{t}-{n}" for t, n, _ in EXAMPLES])
def test_descriptor_example_through_handler(post, tool_id: str, number: int, example: dict[str, object]) -> None:  # type: ignore[no-untyped-def]
    response = post(tool_id, json.dumps(example["input"], ensure_ascii=False))
    assert response["statusCode"] == 200
    assert header(response, "Content-Type") == "application/json"
    assert response["body"] == json.dumps(example["output"], ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_examples_satisfy_input_schema(tool_id: str) -> None:
    """Guards the descriptors themselves: every example input is valid under its own schema."""
    for example in descriptor(tool_id)["examples"]:
        jsonschema.validate(example["input"], descriptor(tool_id)["input_schema"])
