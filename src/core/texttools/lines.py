"""CommonMark line numbers over code point offsets, counted at C speed.

A line ending is LF, CR not followed by LF, or CRLF (one ending, which ends after its LF).
``line(pos) = 1 + number of endings that end at or before pos``. U+000B, U+000C, U+0085,
U+2028 and U+2029 are not endings, which is why ``str.splitlines`` is not used.
"""


def count_line_endings(text: str) -> int:
    """How many line endings the whole text holds."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


class LineCounter:
    """Answers ``line(pos)`` for positions asked in non-decreasing order.

    Each query counts only the stretch since the previous one, so numbering every chunk of a
    text costs one pass over it however many chunks there are.
    """

    __slots__ = ("_has_cr", "_line", "_pos", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._has_cr = "\r" in text
        self._pos = 0
        self._line = 1

    def line_at(self, pos: int) -> int:
        """Line number of the character at ``pos`` (``pos`` never below the previous query)."""
        text, start = self._text, self._pos
        if pos > start:
            endings = text.count("\n", start, pos)
            if self._has_cr:
                endings += text.count("\r", start, pos) - text.count("\r\n", start, pos)
                # A CR just before pos whose LF is at pos ends after pos: not counted yet.
                if text[pos - 1] == "\r" and text.startswith("\n", pos):
                    endings -= 1
            self._line += endings
            self._pos = pos
        return self._line
