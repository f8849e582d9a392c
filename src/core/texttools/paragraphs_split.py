"""text-paragraphs-split: runs of non-blank CommonMark lines, with spans and line numbers."""

from __future__ import annotations

import re
from itertools import accumulate, repeat
from operator import add, sub
from typing import TYPE_CHECKING

from .errors import TooManyChunks
from .limits import PARAGRAPHS_SPLIT
from .lines import line_view

if TYPE_CHECKING:
    from .models import Paragraph, ParagraphsSplitOutput

_SEPARATOR = re.compile(r"(\n[ \t\r\n]*(?:\n|\Z))")
"""In the line view (every ending's last character is its only LF): a line ending and the blank
lines after it, the last one possibly unended. Only space and tab make a line blank; a CR left
in the view is always the first half of the CRLF that ends its line. The literal LF prefix lets
the scan skip from LF to LF; from each LF the whitespace run is scanned once and given back only
to its last LF, so the scan stays linear.
"""


def paragraphs_split(text: str) -> ParagraphsSplitOutput:
    """Split ``text`` into paragraphs separated by blank lines.

    One regex split of the view (after an added LF, so that blank lines at the very start are a
    separator too) gives paragraphs and separators alternately, as strings and in C. Offsets
    and line numbers are running sums of their lengths and LF counts. A paragraph's last line
    may end in a CRLF's CR, which is cut off.
    """
    view = line_view(text)
    pieces = _SEPARATOR.split("\n" + view)
    # The added LF opens the first paragraph, or (if the text starts blank) the first separator.
    opened = 0 if pieces[0] else 1
    pieces[opened] = pieces[opened][1:]
    line_at = list(accumulate(map(str.count, pieces, repeat("\n")), initial=1))
    offsets = list(accumulate(map(len, pieces), initial=0))
    # Pieces alternate paragraph, separator, ...; only the first and last paragraph can be empty.
    first = 0 if pieces[0] else 2
    stop = len(pieces) if pieces[-1] else len(pieces) - 2
    count = len(range(first, stop, 2))
    if count > PARAGRAPHS_SPLIT.max_paragraphs:
        raise TooManyChunks(f"The text has more than {PARAGRAPHS_SPLIT.max_paragraphs} paragraphs.")
    starts = offsets[first:stop:2]
    found = pieces[first:stop:2]
    if view is text:  # a last line ending in CRLF ends before the CR
        texts = list(map(str.rstrip, found, repeat("\r"))) if "\r" in text else found
        ends = list(map(add, starts, map(len, texts)))
    else:  # the copied view's LFs for lone CRs and spaces for CRLF's CRs: cut from the text itself
        ends = list(map(add, starts, map(len, found)))
        ends = list(map(sub, ends, map(text.startswith, repeat("\r"), map(sub, ends, repeat(1)))))
        texts = list(map(text.__getitem__, map(slice, starts, ends)))
    paragraphs: list[Paragraph] = [
        {
            "index": index,
            "start": start,
            "end": end,
            "start_line": first_line,
            "end_line": last_line,
            "line_count": last_line - first_line + 1,
            "text": paragraph,
        }
        for index, start, end, first_line, last_line, paragraph in zip(
            range(count), starts, ends, line_at[first:stop:2], line_at[first + 1 : stop + 1 : 2], texts, strict=True
        )
    ]
    line_count_total = line_at[-1] - 1 + (1 if text and text[-1] not in "\r\n" else 0)
    return {"paragraph_count": count, "line_count_total": line_count_total, "paragraphs": paragraphs}
