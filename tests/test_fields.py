"""The request path's validation (``texttools.fields``) and the published pydantic models agree."""

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from texttools import TOOLS, InvalidInput, Tool

values = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(), st.floats(allow_nan=False), st.text(max_size=3),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)  # fmt: skip


@st.composite
def inputs(draw: st.DrawFn, tool: Tool) -> dict[str, Any]:
    names = [field.name for field in tool.fields] + ["extra", "Text"]
    return draw(st.dictionaries(st.sampled_from(names), values, max_size=6))


@pytest.mark.parametrize("tool", TOOLS.values(), ids=lambda t: t.id)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_fields_and_pydantic_model_accept_and_refuse_alike(tool: Tool, data: st.DataObject) -> None:
    candidate = data.draw(inputs(tool))
    refused: list[str] | None = None
    try:
        expected = tool.input_model.model_validate(candidate).model_dump()
    except ValidationError as error:
        refused = sorted(str(e["loc"][0]) for e in error.errors())
    if refused is None:
        assert tool.parse(candidate) == expected
    else:
        with pytest.raises(InvalidInput) as invalid:
            tool.parse(candidate)
        assert sorted(p["field"] for p in invalid.value.details) == refused
