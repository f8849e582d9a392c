"""text-extract-between: literal start/end markers, left to right, non-overlapping, capped."""

from typing import TypedDict

from ..descriptor import load_descriptor
from ..errors import InvalidInput, UnclosedStartMarker
from ..fields import input_fields
from ..tool import Params, Tool

DESCRIPTOR = load_descriptor("text-extract-between")
DEFAULT_MAX_MATCHES = DESCRIPTOR.limits["default_max_matches"]


class ExtractBetweenOutput(TypedDict):
    matches: list[str]
    truncated: bool


def extract_between(text: str, start: str, end: str, max_matches: int = DEFAULT_MAX_MATCHES) -> ExtractBetweenOutput:
    """Collect what lies between each start marker and the next end marker after it.

    The scan is lazy (API.md): after ``max_matches`` matches it looks for one more complete
    match only to set ``truncated``, and a start marker past that point is never examined.
    """
    check_markers(start, end)
    matches: list[str] = []
    truncated = False
    pos = 0
    start_len, end_len = len(start), len(end)
    while (found := text.find(start, pos)) >= 0:
        content = found + start_len
        closing = text.find(end, content)
        if closing < 0:
            raise UnclosedStartMarker(f"The start marker at code point {found} has no end marker after it.")
        if len(matches) == max_matches:
            truncated = True
            break
        matches.append(text[content:closing])
        pos = closing + end_len
    return {"matches": matches, "truncated": truncated}


def check_markers(start: str, end: str) -> None:
    for field, marker in (("start", start), ("end", end)):
        if not marker:
            raise InvalidInput(
                f"The {field} marker must not be empty.", [{"field": field, "problem": "must not be empty"}]
            )


def _run(params: Params) -> ExtractBetweenOutput:
    return extract_between(params["text"], params["start"], params["end"], params["max_matches"])


TOOL = Tool(
    descriptor=DESCRIPTOR,
    fields=input_fields(
        DESCRIPTOR,
        {"text": "max_text_bytes", "start": "max_marker_bytes", "end": "max_marker_bytes"},
        {"max_matches": DEFAULT_MAX_MATCHES},
    ),
    run=_run,
    errors=(UnclosedStartMarker,),
    error_examples=lambda: {UnclosedStartMarker: {"text": "pre[one]mid[two", "start": "[", "end": "]"}},
)
