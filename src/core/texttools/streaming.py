"""A text of any size, read in pieces of any sizes, chunked exactly as if it were one string.

Each tool's streaming form runs its in-memory algorithm on *windows*: a window is the part of the
text the previous window left unfinished (a chunk that may go on, a delimiter or marker that may be
cut), then at least ``WINDOW_CHARS`` more characters. The tool keeps what it finished, tells the
windows how far that went (``Windows.advance``), and the rest comes again at the start of the next
window. Offsets, line numbers and chunk indexes are carried from window to window (``Position``),
so every chunk comes out with the values it has in the whole text. Memory grows with the largest
unfinished chunk, never with the text; the window grows with the carry, so that a chunk longer
than a window is scanned a bounded number of times, not once per piece.

Two rules make a window's line numbers those of the whole text: a window never ends with a CR whose
next character it has not seen (that may be the LF that makes a CRLF one line ending), and a tool
never finishes a part of a window that the text after it could change.
"""

import codecs
from collections.abc import Generator, Iterable, Iterator
from itertools import chain
from typing import Any, NamedTuple

from .codec import BOM
from .errors import InvalidInput
from .lines import ORIGIN, Position, line_view

WINDOW_CHARS = 1 << 18
"""The text a window adds at least: long enough that the C-speed steps run on long strings, short
enough that a window (1 MiB as UCS-4, when a text holds an emoji) and what a tool makes of it stay
small beside the rest of a function (docs/performance.md, "Documents of any size")."""


def decode_pieces(pieces: Iterable[bytes]) -> Iterator[str]:
    """UTF-8 byte pieces, cut anywhere, as text pieces; a leading BOM is dropped (API.md).

    Invalid UTF-8 anywhere, or a sequence cut short at the end, is ``InvalidInput``. The plain
    UTF-8 decoder, not ``utf-8-sig``: at the end of its input, CPython's ``utf-8-sig`` decoder
    gives nothing and no error for one or two bytes that begin a BOM (``b"\\xef"``).
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    started = False
    read = 0  # the bytes handed to the decoder before this piece
    for piece in chain(pieces, [None]):  # None: the end, where a cut-short sequence is an error
        held = len(decoder.getstate()[0])  # the start of a sequence the last piece cut, given again
        try:
            text = decoder.decode(b"", final=True) if piece is None else decoder.decode(piece)
        except UnicodeDecodeError as error:
            raise not_utf8(read - held + error.start) from None
        read += len(piece or b"")
        if text and not started:  # the first character decoded: a BOM there is dropped
            text, started = text.removeprefix(BOM), True
        if text:
            yield text


def not_utf8(offset: int) -> InvalidInput:
    """A document that is not UTF-8, and the byte (from the object's first, a BOM counted) where
    that is found: a user can look there (``head -c``), and no byte of the text is quoted."""
    return InvalidInput(f"The document is not valid UTF-8 (at byte {offset}).")


class Window(NamedTuple):
    text: str
    final: bool
    """The text ends with this window: nothing it holds can go on."""
    at: Position
    """Where the window starts in the whole text."""


class Windows:
    """The windows of a text given in pieces (see the module's docstring); iterate, and after each
    window that is not final call ``advance`` with what was finished of it."""

    def __init__(self, pieces: Iterable[str], lines: bool = True) -> None:
        self._pieces = pieces
        self._size = WINDOW_CHARS  # read here, so that a test may make windows small
        self._lines = lines
        """Whether the windows' line numbers are wanted (a tool with no line numbers saves the count)."""
        self._finished: tuple[int, int]
        """What ``advance`` said of the window last handed out."""

    def advance(self, consumed: int, chunks: int) -> None:
        """The first ``consumed`` characters of the window are done with, and ``chunks`` chunks were
        found in them; the rest of the window starts the next one. Not called: nothing was done."""
        self._finished = (consumed, chunks)

    def __iter__(self) -> Iterator[Window]:
        at, carry = ORIGIN, ""
        pending: list[str] = []
        pending_chars = 0
        for piece in self._pieces:
            if not piece:
                continue
            pending.append(piece)
            pending_chars += len(piece)
            if pending_chars < max(self._size, len(carry)):  # so a long carry at least doubles
                continue
            held = pending[-1][-1:] == "\r"  # a CR waits for what follows it
            if held:
                pending[-1] = pending[-1][:-1]
            text = carry + "".join(pending)
            pending, pending_chars = (["\r"], 1) if held else ([], 0)
            self._finished = (0, 0)
            yield Window(text, False, at)
            consumed, chunks = self._finished
            lines = line_view(text).count("\n", 0, consumed) if self._lines else 0
            at = Position(at.offset + consumed, at.line + lines, at.first_index + chunks)
            carry = text[consumed:]
        yield Window(carry + "".join(pending), True, at)


Batches = Generator[list[Any], None, dict[str, Any]]
"""A tool's streaming form: lists of chunk objects, window after window, returning the output's
other fields (its counts) once the text has ended."""


class Stream:
    """A tool's output over a text read in pieces: the chunk objects (one by one, or a window's
    worth at a time with ``batches``), then ``summary``, the output's other fields."""

    def __init__(self, batches: Batches) -> None:
        self._batches = batches
        self.summary: dict[str, Any] | None = None
        """Set once every chunk has been given."""

    def batches(self) -> Iterator[list[Any]]:
        self.summary = yield from self._batches

    def __iter__(self) -> Iterator[Any]:
        for batch in self.batches():
            yield from batch
