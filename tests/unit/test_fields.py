"""The request path's validation (``texttools.fields``) and the descriptors' input schemas agree."""

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from texttools.errors import InvalidInput
from texttools.registry import tools
from texttools.tool import Tool

TOOLS = tools()

values = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(), st.floats(allow_nan=False), st.text(max_size=3),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)  # fmt: skip


@st.composite
def inputs(draw: st.DrawFn, tool: Tool) -> dict[str, Any]:
    names = [field.name for field in tool.fields] + ["extra", "Text"]
    return draw(st.dictionaries(st.sampled_from(names), values, max_size=6))


def schema_refusals(tool: Tool, candidate: dict[str, Any]) -> list[str]:
    """The fields the descriptor's JSON Schema refuses (missing, unknown or invalid), with API.md's
    one stricter rule: a JSON number with a fraction part, even ``1.0``, is not an integer."""
    schema = tool.descriptor.input_schema
    refused = {str(error.path[0]) for error in Draft202012Validator(schema).iter_errors(candidate) if error.path}
    refused |= {name for name in schema["required"] if name not in candidate}
    refused |= {name for name in candidate if name not in schema["properties"]}
    refused |= {
        name for name, value in candidate.items()
        if schema["properties"].get(name, {}).get("type") == "integer" and isinstance(value, float)
    }  # fmt: skip
    return sorted(refused)


@pytest.mark.parametrize("tool", TOOLS.values(), ids=lambda t: t.id)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_fields_and_the_descriptor_schema_accept_and_refuse_alike(tool: Tool, data: st.DataObject) -> None:
    candidate = data.draw(inputs(tool))
    refused = schema_refusals(tool, candidate)
    if not refused:
        defaults = {field.name: field.default for field in tool.fields if field.name not in candidate}
        if problems := tool.rules(defaults | candidate):  # how fields relate, which a schema cannot say
            with pytest.raises(InvalidInput) as invalid:
                tool.parse(candidate)
            assert invalid.value.details == problems
        else:
            assert tool.parse(candidate) == defaults | candidate
    else:
        with pytest.raises(InvalidInput) as invalid:
            tool.parse(candidate)
        assert sorted(p["field"] for p in invalid.value.details) == refused
