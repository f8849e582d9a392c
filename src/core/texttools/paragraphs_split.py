"""text-paragraphs-split: runs of non-blank CommonMark lines, with spans and line numbers."""

import re

from .errors import TooManyChunks
from .limits import PARAGRAPHS_SPLIT
from .lines import LineCounter, count_line_endings
from .models import Paragraph, ParagraphsSplitOutput

_NON_BLANK_LINE = r"[ \t]*+[^ \t\r\n][^\r\n]*+"
_PARAGRAPH = re.compile(rf"(?<![^\r\n]){_NON_BLANK_LINE}(?:(?:\r\n|\r|\n){_NON_BLANK_LINE})*+")
"""A paragraph starts at a line start and joins non-blank lines by single line endings.

Only space and tab make a line blank. The possessive quantifiers and the line-start lookbehind
keep the scan linear: a blank line is tried once from its start and never backtracked into.
"""


def paragraphs_split(text: str) -> ParagraphsSplitOutput:
    """Split ``text`` into paragraphs separated by blank lines."""
    lines = LineCounter(text)
    paragraphs: list[Paragraph] = []
    for index, match in enumerate(_PARAGRAPH.finditer(text)):
        if index == PARAGRAPHS_SPLIT.max_paragraphs:
            raise TooManyChunks(f"The text has more than {PARAGRAPHS_SPLIT.max_paragraphs} paragraphs.")
        start, end = match.span()
        start_line = lines.line_at(start)
        end_line = lines.line_at(end - 1)
        paragraphs.append(
            {
                "index": index,
                "start": start,
                "end": end,
                "start_line": start_line,
                "end_line": end_line,
                "line_count": end_line - start_line + 1,
                "text": match.group(),
            }
        )
    line_count_total = count_line_endings(text) + (1 if text and text[-1] not in "\r\n" else 0)
    return {"paragraph_count": len(paragraphs), "line_count_total": line_count_total, "paragraphs": paragraphs}
