"""CommonMark line numbers over code point offsets, counted at C speed.

A line ending is LF, CR not followed by LF, or CRLF (one ending, which ends after its LF).
``line(pos) = 1 + number of endings that end at or before pos``. U+000B, U+000C, U+0085,
U+2028 and U+2029 are not endings, which is why ``str.splitlines`` is not used.
"""

from itertools import accumulate, chain, repeat

CR_FILLER = " "
"""What a CRLF's CR becomes in the newline view: not an ending, and blank (a space)."""


def newline_view(text: str) -> str:
    """``text`` with each line ending's last character as ``\\n`` and nothing else as ``\\n``.

    Same length and offsets as ``text``: a CRLF becomes space + LF (one ending, ending after its
    LF, so a boundary between CR and LF is handled by plain counting), a lone CR becomes LF. Line
    numbers are then ``1 + view.count("\\n", 0, pos)``, one C-speed call, and blank lines stay blank.
    """
    if "\r" not in text:
        return text
    return text.replace("\r\n", CR_FILLER + "\n").replace("\r", "\n")


def count_line_endings(view: str) -> int:
    """How many line endings the text of this newline view holds."""
    return view.count("\n")


def line_numbers(view: str, positions: list[int]) -> list[int]:
    """``line(pos)`` for each of ``positions`` (non-decreasing), each stretch counted once.

    ``map`` over the bound ``str.count`` and ``accumulate`` keep the loop in C, which matters
    for thousands of chunks.
    """
    counts = map(view.count, repeat("\n"), chain((0,), positions), positions)
    return list(accumulate(counts, initial=1))[1:]
