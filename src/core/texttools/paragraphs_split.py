"""text-paragraphs-split: runs of non-blank CommonMark lines, with spans and line numbers."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .errors import TooManyChunks
from .limits import PARAGRAPHS_SPLIT
from .lines import count_line_endings, line_numbers, newline_view

if TYPE_CHECKING:
    from .models import Paragraph, ParagraphsSplitOutput

_NON_BLANK_LINE = r"[ \t]*+[^ \t\n][^\n]*+"
_PARAGRAPH = re.compile(rf"(?<![^\n]){_NON_BLANK_LINE}(?:\n{_NON_BLANK_LINE})*+")
"""In the newline view (every line ending is one ``\\n``): non-blank lines joined by single endings.

Only space and tab make a line blank. The possessive quantifiers and the line-start lookbehind
keep the scan linear: a blank line is tried once from its start and never backtracked into.
"""


def paragraphs_split(text: str) -> ParagraphsSplitOutput:
    """Split ``text`` into paragraphs separated by blank lines.

    The scan runs on the newline view, where a CRLF's CR is a space: a paragraph whose last line
    ends in CRLF matches one character too far, and is cut back to the CR.
    """
    view = newline_view(text)
    spans = [match.span() for match in _PARAGRAPH.finditer(view)]
    if len(spans) > PARAGRAPHS_SPLIT.max_paragraphs:
        raise TooManyChunks(f"The text has more than {PARAGRAPHS_SPLIT.max_paragraphs} paragraphs.")
    if view is not text:
        spans = [(start, end - 1 if text[end - 1] == "\r" else end) for start, end in spans]
    lines = line_numbers(view, [position for start, end in spans for position in (start, end - 1)])
    paragraphs: list[Paragraph] = [
        {
            "index": index,
            "start": start,
            "end": end,
            "start_line": first,
            "end_line": last,
            "line_count": last - first + 1,
            "text": text[start:end],
        }
        for index, (start, end), first, last in zip(range(len(spans)), spans, lines[::2], lines[1::2], strict=True)
    ]
    line_count_total = count_line_endings(view) + (1 if text and text[-1] not in "\r\n" else 0)
    return {"paragraph_count": len(paragraphs), "line_count_total": line_count_total, "paragraphs": paragraphs}
