"""text-extract-between: literal start/end markers, left to right, non-overlapping, capped."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import InvalidInput, UnclosedStartMarker
from .limits import EXTRACT_BETWEEN

if TYPE_CHECKING:
    from .models import ExtractBetweenOutput


def extract_between(
    text: str, start: str, end: str, max_matches: int = EXTRACT_BETWEEN.default_max_matches
) -> ExtractBetweenOutput:
    """Collect what lies between each start marker and the next end marker after it.

    The scan is lazy (API.md): after ``max_matches`` matches it looks for one more complete
    match only to set ``truncated``, and a start marker past that point is never examined.
    """
    for field, marker in (("start", start), ("end", end)):
        if not marker:
            raise InvalidInput(
                f"The {field} marker must not be empty.", [{"field": field, "problem": "must not be empty"}]
            )
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
