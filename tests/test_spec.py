"""The published spec (descriptors in spec/seeds) and the code agree: limits, examples, schemas."""

import json
import os
from pathlib import Path

import jsonschema
import pytest

from scripts.lambda_runtime import ROOT
from tests.conftest import SEEDS, TOOL_IDS, descriptor, header
from texttools import TOOLS
from texttools.limits import DELIMITER_CHUNK, EXTRACT_BETWEEN, MAX_SAFE_INTEGER, PARAGRAPHS_SPLIT, as_table

SHARED = Path(os.environ.get("TEXT_TOOLS_SHARED", ROOT.parent / "shared"))


@pytest.mark.skipif(not SHARED.is_dir() and not os.environ.get("CI"), reason="no shared/ beside this clone")
@pytest.mark.parametrize("name", [*(f"seeds/{t}.json" for t in TOOL_IDS), "API.md"])
def test_vendored_spec_is_the_shared_one(name: str) -> None:
    """spec/ is a copy of the product contract; in CI, where shared/ is always there, it must match."""
    assert (ROOT / "spec" / name).read_bytes() == (SHARED / name).read_bytes()


def test_every_descriptor_has_a_tool() -> None:
    assert sorted(p.stem for p in SEEDS.glob("*.json")) == sorted(TOOLS)


@pytest.mark.parametrize(
    ("tool_id", "limits"),
    [
        ("text-delimiter-chunk", DELIMITER_CHUNK),
        ("text-extract-between", EXTRACT_BETWEEN),
        ("text-paragraphs-split", PARAGRAPHS_SPLIT),
    ],
)
def test_limits_table_is_the_descriptors(tool_id: str, limits: type) -> None:
    assert as_table(limits) == descriptor(tool_id)["limits"]


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
