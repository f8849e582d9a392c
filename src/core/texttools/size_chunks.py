"""The size-bounded chunker: the size tools' semantics (their descriptors), as spans and cut kinds.

A chunk starting at ``s`` ends at the last end of the best kind in reach. Each kind is looked for
with one C-speed step, best kind first, and only in the chunk's reach: line and paragraph ends come
from one split of the text into lines (``LineEnds``, searched with ``bisect``), sentence and word
ends from one regex search of the reach reversed (so the first match is the last end), and grapheme
clusters are asked for, once per text, only when a cut must fall inside a word
(``texttools.graphemes``). With
``max_tokens``, an end counts only where the chunk up to it fits, which ``TokenBudget`` answers
from one encoding of the chunk's reach (see there). No step looks at the text one character at a
time; per chunk, a handful of searches.

What a chunk's ends depend on before its start is bounded by its *context start*
(``Chunker.context``): the sentence rule looks back over closers to a terminator, and the cluster
rules look back over the characters that continue a cluster (Extend, ZWJ, Regional_Indicator), so
the context starts before those. A window of a longer text may start at any context start (the
tools' streaming forms).

A chunker that ranks other kinds of ends (the Markdown size tool's, in its module) subclasses
``Chunker`` and overrides its three hooks: ``_usual_end`` (the common chunk's end, found without a
search), ``_ends_by_kind`` (the kinds, best first) and ``next_start``.
"""

import difflib
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from functools import cached_property
from heapq import merge
from itertools import accumulate, compress, count, islice, repeat
from operator import add, gt, mul, ne
from typing import TYPE_CHECKING, Final, NamedTuple, NotRequired, TypedDict

from .errors import InvalidInput, OutputTooLarge, Problem, ToolError, TooManyChunks
from .graphemes import NEVER_JOINS_AFTER, NEVER_JOINS_BEFORE, cluster_starts, joined
from .hf_tokens import PREFIX, DeployedTokenizer, deployed, deployed_tokenizer, is_deployed_name
from .lines import Position, line_view, starts_of
from .spans import cut as cut_texts
from .spans import minus, shifted
from .tokens import (
    DEFAULT_TOKENIZER,
    TABLES,
    boundaries,
    boundaries_reversed,
    encoding,
    gap_characters,
    pieces,
    token_lengths,
)
from .tool import Params

if TYPE_CHECKING:
    from tiktoken import Encoding

WHITESPACE: Final = " \t\n\r"
TERMINATORS: Final = ".!?\u2026\u3002\uff01\uff1f"
FULL_WIDTH_TERMINATORS: Final = "\u3002\uff01\uff1f"
CLOSERS: Final = "\"')]}\u201d\u2019\u00bb\u300d\u300f\uff09"

_SENTENCE_END_REVERSED = re.compile(
    f"[ \\t](?=[{re.escape(CLOSERS)}]*[{re.escape(TERMINATORS)}])"
    f"|(?P<wide>[^ \\t\\r\\n{re.escape(CLOSERS)}])(?=[{re.escape(CLOSERS)}]*[{FULL_WIDTH_TERMINATORS}])"
)
"""A sentence end read backwards from the character at it: a space or tab, then closers and a
terminator; or (``wide``) a character that is neither whitespace nor a closer, then closers and a
full-width terminator. Only that character is matched, so that no end hides inside another's match."""
_WORD_END_REVERSED = re.compile(r"[ \t\r\n](?=[^ \t\r\n])")
"""A whitespace character after one that is not, read backwards."""
_WHITESPACE_THEN_OTHER = re.compile(r"[ \t\r\n][^ \t\r\n]")
NOT_WHITESPACE = re.compile(r"[^ \t\r\n]")
"""A character that is not ``WHITESPACE``."""
_WIDE_SENTENCE_START = re.compile(
    f"[{FULL_WIDTH_TERMINATORS}][{re.escape(CLOSERS)}]*(?=[^ \\t\\r\\n{re.escape(CLOSERS)}])"
)
"""The character after a full-width terminator and its closers: a start (a sentence end)."""


class Settings(NamedTuple):
    """A validated request's sizes (the descriptor's fields)."""

    max_chars: int
    overlap_chars: int = 0
    min_chars: int = 0
    max_tokens: int | None = None
    tokenizer: "Encoding | DeployedTokenizer | None" = None
    """What counts ``max_tokens``: a tiktoken encoding, or a deployed Hugging Face tokenizer."""


class SizedChunk(TypedDict):
    """A size tool's chunk object (its descriptor's output schema)."""

    index: int
    start: int
    end: int
    start_line: int
    end_line: int
    cut: str
    headings: NotRequired[list[str]]
    tokens: NotRequired[int]
    text: str


SIZE_DEFAULTS: Final[Params] = {
    "max_chars": None,
    "overlap_chars": 0,
    "min_chars": 0,
    "max_tokens": None,
    "tokenizer": None,
}
"""The size tools' optional fields when omitted (``max_tokens`` absent: no token budget; ``max_chars``
absent: ``TOKENS_ONLY_MAX_CHARS`` when ``max_tokens`` is given, else refused by ``size_rules``)."""
TOKENS_ONLY_MAX_CHARS: Final = 262144
"""``max_chars`` when a request gives only ``max_tokens`` (both descriptors: its maximum)."""


def size_error_examples(max_chunks: int) -> dict[type[ToolError], Params]:
    """A small input for each error a size tool itself can fail with (its descriptor's limits)."""
    return {
        TooManyChunks: {"text": "a " * (max_chunks + 1), "max_chars": 1},
        # 6 000 chunks of about 200 characters, each 11 after the one before: over 1 MiB of JSON.
        OutputTooLarge: {"text": "abcdefghij " * 6000, "max_chars": 200, "overlap_chars": 190},
    }


def settings_of(params: Params) -> Settings:
    """The chunker's settings from a validated input; names the tokenizer's encoding, loading it on
    first use."""
    max_tokens = params["max_tokens"]
    tokenizer = counter(params["tokenizer"] or DEFAULT_TOKENIZER) if max_tokens is not None else None
    return Settings(_max_chars(params), params["overlap_chars"], params["min_chars"], max_tokens, tokenizer)


def counter(name: str) -> "Encoding | DeployedTokenizer":
    """The tokenizer a ``tokenizer`` value names (a valid one: ``size_rules``), loaded on first use."""
    return deployed_tokenizer(name) if is_deployed_name(name) else encoding(name)


def count_tokens(tokenizer: "Encoding | DeployedTokenizer", text: str) -> int:
    """``tokens(text)`` as the descriptors define it for ``tokenizer``."""
    if isinstance(tokenizer, DeployedTokenizer):
        return tokenizer.count(text)
    return len(tokenizer.encode_ordinary(text))


def _max_chars(params: Params) -> int:
    given: int | None = params["max_chars"]
    return TOKENS_ONLY_MAX_CHARS if given is None else given


def size_rules(params: Params) -> list[Problem]:
    """What a size tool's input schema cannot say: which sizes a request gives and how they relate."""
    problems: list[Problem] = []
    if params["max_chars"] is None and params["max_tokens"] is None:
        problems.append(
            {"field": "max_chars", "problem": "is missing, and so is max_tokens: give max_chars, max_tokens or both"}
        )
        return problems
    max_chars = _max_chars(params)
    if params["overlap_chars"] >= max_chars:
        problems.append({"field": "overlap_chars", "problem": "must be less than max_chars"})
    if params["min_chars"] > max_chars:
        problems.append({"field": "min_chars", "problem": "must be at most max_chars"})
    if params["tokenizer"] is not None and params["max_tokens"] is None:
        problems.append({"field": "tokenizer", "problem": "is allowed only with max_tokens"})
    elif params["tokenizer"] is not None and not _shipped(params["tokenizer"]):
        *names, last = tokenizer_names()
        problems.append(
            {
                "field": "tokenizer",
                "problem": f"is not a tokenizer of this deployment: {', '.join(names)} or {last}"
                + meant_tokenizer(params["tokenizer"]),
            }
        )
    return problems


def tokenizer_names() -> list[str]:
    """The ``tokenizer`` values this deployment takes: the encodings, then ``hf:<name>`` of each file."""
    return [*TABLES, *(f"{PREFIX}{name}" for name in deployed())]


def tokenizer_form(value: str) -> str:
    """The problem of a ``tokenizer`` value that is no tokenizer's form (the schema's pattern), in
    words: a deployed file's name without ``hf:`` is the usual slip."""
    return f"must be {', '.join(TABLES)} or hf:<name> (GET /v1/tokenizers lists them)" + meant_tokenizer(value)


def meant_tokenizer(value: str) -> str:
    """``; did you mean hf:<name>?`` naming the tokenizer of this deployment ``value`` probably
    meant (itself with ``hf:``, or the closest name), or nothing. Only our names are told, never
    the value; it is cut first, so a long one costs no more than a short one."""
    names = tokenizer_names()
    cut = value[: max(map(len, names))]
    meant = (
        f"{PREFIX}{cut}"
        if f"{PREFIX}{cut}" in names
        else next(iter(difflib.get_close_matches(cut, names, n=1, cutoff=0.6)), None)
    )
    return f"; did you mean {meant}?" if meant else ""


SIZE_FORMS: Final = {"tokenizer": tokenizer_form}
"""The size tools' fields with a pattern, and what a value that fails it is told (``InputField.form``)."""


def _shipped(tokenizer: str) -> bool:
    """Whether this deployment counts with ``tokenizer`` (an encoding, or a deployed ``hf:<name>``)."""
    if is_deployed_name(tokenizer):
        return tokenizer.removeprefix(PREFIX) in deployed()
    return tokenizer in TABLES


class Span(NamedTuple):
    start: int
    end: int
    cut: str
    """The kind of the end: end, paragraph, line, sentence, word or character (``Chunker``), or
    one of the kinds a chunker that ranks more adds."""
    tokens: int | None


def _held_open(text: str, end: int) -> bool:
    """Whether a space at ``end`` is held in one cluster with the character before it (Prepend)."""
    return text[end] == " " and text[end - 1] >= NEVER_JOINS_AFTER and joined(text[end - 1], " ")


class LineEnds:
    """Every line end of a text (a position whose character is not whitespace, before spaces or
    tabs and a line ending), and which of them are paragraph ends (a blank line follows).

    One split of the line view (``texttools.lines``) into lines, each stripped of its trailing
    spaces and tabs (and a CRLF's CR): a line that keeps something ends at a line end, a paragraph
    end when the line after it keeps nothing. Every step runs over all lines at once, in C.
    """

    def __init__(self, text: str) -> None:
        lines = line_view(text).split("\n")
        lengths = list(map(len, lines))
        kept = list(map(len, map(str.rstrip, lines, repeat(" \t\r"))))
        self.starts_of_lines = starts_of(lengths)
        """Where each line starts (``texttools.lines.line_starts``)."""
        ended_kept = kept[:-1]  # the last line has no ending
        line_ends = list(map(add, self.starts_of_lines, ended_kept))
        self.ends = list(compress(line_ends, ended_kept))
        blank_after = map(gt, ended_kept, map(mul, kept[1:], repeat(len(text) + 1)))  # kept, and the next line not
        self.paragraphs = list(compress(line_ends, blank_after))
        if kept == lengths:  # no line has trailing whitespace (a list comparison at C speed)
            return
        # A line with trailing whitespace may end where a Prepend character holds the space after it (rare).
        held = {end for end in compress(line_ends, map(ne, lengths, ended_kept)) if end and _held_open(text, end)}
        if held:
            self.ends = [end for end in self.ends if end not in held]
            self.paragraphs = [end for end in self.paragraphs if end not in held]

    @staticmethod
    def last(positions: list[int], low: int, high: int) -> Iterator[int]:
        """The positions in (low, high], last first."""
        index = bisect_right(positions, high) - 1
        while index >= 0 and positions[index] > low:
            yield positions[index]
            index -= 1


TOKEN_WINDOW_CHARS: Final = 32
"""A chunk's first token window holds ``max_tokens + TOKEN_WINDOW_CHARS`` code points; each next
one is sized from the one before (``next_window``)."""
TOKEN_HORIZON_CHARS: Final = 4
"""How far past the end of the window's ``max_tokens``-th token an end is still tried, at most
(docs/decisions.md, "The token horizon")."""
TOKEN_WINDOW_MARGIN: Final = 16
"""The token window holds at least this many code points past the horizon (or reaches ``high``)."""
LONG_PIECE_CHARS: Final = 256
"""A piece longer than this is counted from the window's own tokens (``TokenBudget._count_in_piece``)."""
TAIL_BYTES: Final = 64
"""How far before a chunk's end that count starts to encode afresh, at first."""
SHORT_CHUNK_CHARS: Final = 64
"""A chunk this short is counted by encoding it whole (``TokenBudget.count``)."""
REUSE_CHARS: Final = 256
"""Encoded text shorter than this is encoded again rather than searched for a gap to keep the tokens
before (``TokenBudget``): the regex module's search of the gaps costs more per character than
tiktoken's encoding where there are none (a run of punctuation at 4 tokens: 8 192 chunks)."""


def next_window(width: int, wanted: int, tokens: int) -> int:
    """The next token window's width after one of ``width`` code points that held ``tokens`` tokens
    where more than ``wanted`` were needed: 9/8 of what ``wanted + 1`` tokens take at its own code
    points per token, plus ``TOKEN_WINDOW_CHARS``, at least twice and at most eight times ``width``
    (a window sized from the text itself: prose at 512 tokens is encoded twice, not four times, and
    still a function of the text from the chunk's start alone)."""
    sized = -(-9 * width * (wanted + 1) // (8 * max(tokens, 1))) + TOKEN_WINDOW_CHARS
    return min(8 * width, max(2 * width, sized))


def _without_gaps(text: str, low: int, high: int) -> bool:
    """Whether ``(low, high]`` surely holds no gap, told by a search for one character class where
    the pre-tokenizer's own pattern would cost more than encoding the run (letters, punctuation,
    emoji): a gap is a space or tab or follows a letter, mark or digit, and a run of letters alone
    has none inside (``texttools.tokens.gap_characters``)."""
    may_end, not_letter = gap_characters()
    return may_end.search(text, low, high + 1) is None or not_letter.search(text, low, high + 1) is None


class Budget:
    """What the chunker asks of a token budget: ``cutoff`` (no end at or after it is tried),
    ``window_end``, ``count`` and ``fits``."""

    cutoff: int
    window_end: int
    limit: int

    def count(self, end: int) -> int:
        raise NotImplementedError

    def fits(self, end: int) -> int | None:
        """The chunk's count up to ``end`` if it is at most ``max_tokens``, else ``None``."""
        if end >= self.cutoff:
            return None
        tokens = self.count(end)
        return tokens if tokens <= self.limit else None


class TokenBudget(Budget):
    """Which ends of one chunk fit in ``max_tokens``, and the chunk's count, exactly and fast.

    A *gap* is a position where the encoding's pre-tokenizer always ends a piece, having looked no
    further than the character at it (``texttools.tokens.Table.boundaries``: after a word before a
    space or tab, at the end of a run of letters or of digits), so the pieces before it are the same
    in any text that goes past it. So, for any end ``e`` after a gap ``g``,
    ``tokens(text[s:e]) = tokens(text[s:g]) + tokens(text[g:e])``: exact with one short encoding,
    and, since the second term is not negative, at least the first.

    The budget holds one encoding of ``text[start:encoded_end]`` (``ids``), made once: a longer
    window adds to it from the last gap of what is encoded (``_extend``: the tokens before that gap
    stay), and the chunk before's encoding gives its tokens between the first gap after this
    chunk's start and its own last gap (``_reuse``). So on prose each character is handed to
    tiktoken about once, however many windows and chunks cover it. The gap an end needs is found
    with one backwards search from it (``_gap_before``), remembered, so ends asked last first in a
    run without gaps do not search it again.

    Where the pre-tokenizer has no gap (a run of letters without spaces, Han, DNA, a run of marks
    or punctuation), no gap bounds the ends to try, and each one tried costs an encoding of the run
    so far: the *horizon* bounds them instead. The window is the first of ``text[s:s + w]``,
    ``w = max_tokens + 32``, then ``next_window``'s, that holds more than ``max_tokens`` tokens and
    reaches ``TOKEN_WINDOW_MARGIN`` code points past the horizon (or reaches ``high``); the horizon
    is the end of its ``max_tokens + 1``-th token or ``TOKEN_HORIZON_CHARS`` code points past the
    end of its ``max_tokens``-th, whichever comes first (each rounded up to a code point), and no end
    past it is tried. A window's tokens are the encoding's before its last gap and those of the
    text after that gap alone (``_window``). A prefix's tokens grow with it but for a token or two
    where BPE merges differently at its end, so in prose the horizon lies past the cutoff and
    changes nothing (docs/decisions.md, "The token horizon"). The first gap before which the window
    holds more than ``max_tokens`` tokens is a cutoff too: no end after it fits. Every count stays
    tiktoken's own.
    """

    def __init__(
        self, text: str, start: int, high: int, settings: Settings, before: "TokenBudget | None" = None
    ) -> None:
        assert settings.tokenizer is not None
        assert not isinstance(settings.tokenizer, DeployedTokenizer)
        assert settings.max_tokens is not None
        self.text, self.start = text, start
        self.encoding, self.limit = settings.tokenizer, settings.max_tokens
        name = self.encoding.name
        self.boundaries, self._reversed = boundaries(name), boundaries_reversed(name)
        self.lengths = token_lengths(name)
        self.ids: list[int] = []
        """The tokens of ``text[start:encoded_end]``, as tiktoken encodes it alone."""
        self.token_ends: list[int] = []
        """Where each of them ends: a UTF-8 offset from ``start``."""
        self.encoded_end = start
        self.ascii = True
        """Whether ``text[start:encoded_end]`` is ASCII (then a UTF-8 offset is a code point offset)."""
        self.window_bytes = b""
        """``text[start:encoded_end]`` in UTF-8, unless it is ASCII."""
        self._known = (start, 0)
        """A position and its UTF-8 offset from ``start``: the last one asked (``_byte_offset``)."""
        self._decoded = (start, 0)
        """A position and its UTF-8 offset from ``start``: the last one ``_position_after`` found."""
        self._last_gap = (start, start)
        """A position asked of ``_gap_before`` and its answer: no gap lies between them."""
        self._window_piece = (-1, -1)
        """A gap and where the encoded text's pre-tokenizer piece from it ends (``_count_in_piece``)."""
        if (
            before is not None
            and before.start < start < before.encoded_end - REUSE_CHARS
            and before.encoding is self.encoding
        ):
            self._reuse(before)
        width = self.limit + TOKEN_WINDOW_CHARS
        while True:
            self.window_end = min(high, start + width)
            held, ends = self._window(self.window_end)
            horizon = over = None
            if ends is not None:  # the horizon: this window's, not an earlier one's
                over = self._position_after(ends[1])
                horizon = min(self._position_after(ends[0]) + TOKEN_HORIZON_CHARS, over)
            if self.window_end == high or (horizon is not None and horizon + TOKEN_WINDOW_MARGIN <= self.window_end):
                break
            width = next_window(width, self.limit, held)
        self.cutoff = high + 1 if horizon is None else min(high + 1, horizon + 1)
        """No end at or after this fits (or is tried: the horizon)."""
        if over is not None:  # the first gap after the window's (limit + 1)th token is a cutoff
            found = self.boundaries.search(text, over - 1, min(self.cutoff, self.window_end))
            if found is not None:
                self.cutoff = found.end()

    def _reuse(self, before: "TokenBudget") -> None:
        """Start the encoding with the tokens that ``before`` (the chunk before's budget, whose
        encoding covers this chunk's start) holds between the first gap after ``start`` and its
        own last gap, after an encoding of the text up to that first gap."""
        first = self.boundaries.search(self.text, self.start, before.encoded_end + 1)
        last = before._gap_before(before.encoded_end)
        if first is None or last <= first.end():
            return
        head = self.encoding.encode_ordinary(self.text[self.start : first.end()])
        low, high = before._window_tokens(first.end()), before._window_tokens(last)
        head_ends = list(accumulate(map(self.lengths.__getitem__, head)))
        shift = head_ends[-1] - before.token_ends[low - 1]
        self.ids = head + before.ids[low:high]
        self.token_ends = head_ends + list(map(add, before.token_ends[low:high], repeat(shift)))
        self._note_encoded(last)
        self._last_gap = (last, last)

    def _window(self, end: int) -> tuple[int, tuple[int, int] | None]:
        """The tokens of ``text[start:end]``, and where its ``limit``-th and ``limit + 1``-th end
        (UTF-8 offsets from ``start``) if it holds more: the encoding's up to ``end``, or its
        tokens before the last gap and those of the text after it."""
        if end > self.encoded_end:
            self._extend(end)
        limit = self.limit
        if end == self.encoded_end or (gap := self._gap_before(end)) == end:
            held = len(self.ids) if end == self.encoded_end else self._window_tokens(end)
            return held, (self.token_ends[limit - 1], self.token_ends[limit]) if held > limit else None
        kept = self._window_tokens(gap) if gap > self.start else 0
        tail = self.encoding.encode_ordinary(self.text[gap:end])
        if kept + len(tail) <= limit:
            return kept + len(tail), None
        ends = self.token_ends[:kept]
        ends += accumulate(map(self.lengths.__getitem__, tail), initial=ends[-1] if ends else 0)
        del ends[kept]  # the initial offset
        return len(ends), (ends[limit - 1], ends[limit])

    def _extend(self, end: int) -> None:
        """Encode ``text[start:end]``, ``end`` past ``encoded_end``: the tokens before the last gap
        of the text encoded so far stay, and the text from that gap is encoded alone."""
        gap = self._gap_before(self.encoded_end) if self.encoded_end - self.start >= REUSE_CHARS else self.start
        kept = self._window_tokens(gap) if gap > self.start else 0
        offset = self.token_ends[kept - 1] if kept else 0
        del self.ids[kept:], self.token_ends[kept:]
        added = self.encoding.encode_ordinary(self.text[gap:end])
        self.ids += added
        self.token_ends += islice(accumulate(map(self.lengths.__getitem__, added), initial=offset), 1, None)
        self._note_encoded(end)

    def _note_encoded(self, end: int) -> None:
        """``text[start:end]`` is now encoded (its bytes kept, unless it is ASCII)."""
        added = self.text[self.encoded_end : end]
        if self.ascii and not added.isascii():
            self.ascii = False
            self.window_bytes = self.text[self.start : self.encoded_end].encode()
        if not self.ascii:
            self.window_bytes += added.encode()
        self.encoded_end = end

    def _gap_before(self, position: int) -> int:
        """The last gap in ``(start, position]``, or ``start`` if none: a backwards search of the
        ``SHORT_CHUNK_CHARS`` before it, then (unless ``_without_gaps`` tells there is none) of the
        rest, from the position asked before when this one lies after it."""
        asked, gap = self._last_gap
        if gap <= position <= asked:
            return gap
        low = asked if position > asked else self.start
        if position < asked:
            gap = self.start
        middle = max(low, position - SHORT_CHUNK_CHARS)  # where prose has one, a gap lies close before
        found = self._reversed.search(self.text, middle, position + 1)
        if found is None and middle > low and not _without_gaps(self.text, low, middle):
            found = self._reversed.search(self.text, low, middle + 1)
        if found is not None:
            gap = found.end()
        self._last_gap = (position, gap)
        return gap

    def _position_after(self, offset: int) -> int:
        """The first position at or after UTF-8 ``offset`` of the encoded text (a token may end
        inside a character): the characters decoded from the last position found, if before."""
        if self.ascii:
            return self.start + offset
        data = self.window_bytes
        position, at = self._decoded if self._decoded[1] <= offset else (self.start, 0)
        boundary = offset
        while boundary < len(data) and data[boundary] & 0xC0 == 0x80:  # inside a character: back to its start
            boundary -= 1
        position += len(data[at:boundary].decode())
        self._decoded = (position, boundary)
        return position + (boundary < offset)

    def _window_tokens(self, gap: int) -> int:
        """The encoded text's tokens before ``gap``, a gap in it."""
        return bisect_right(self.token_ends, gap - self.start if self.ascii else self._byte_offset(gap))

    def _byte_offset(self, position: int) -> int:
        """``position``'s UTF-8 offset from ``start``, counted from the last one asked (the positions
        asked lie close together: gaps near the cutoff, the chunk's end)."""
        known, offset = self._known
        if position >= known:
            offset += len(self.text[known:position].encode())
        else:
            offset -= len(self.text[position:known].encode())
        self._known = (position, offset)
        return offset

    def count(self, end: int) -> int:
        """``tokens(text[start:end])``, exactly (a chunk of at most ``SHORT_CHUNK_CHARS`` encoded
        whole: cheaper than searching it for a gap)."""
        if end - self.start <= SHORT_CHUNK_CHARS:
            return len(self.encoding.encode_ordinary(self.text[self.start : end]))
        gap = self._gap_before(min(end, self.encoded_end))
        if gap == end:
            return self._window_tokens(end)
        if end - gap > LONG_PIECE_CHARS and (tokens := self._count_in_piece(gap, end)) is not None:
            return tokens
        before = self._window_tokens(gap) if gap > self.start else 0
        return before + len(self.encoding.encode_ordinary(self.text[gap:end]))

    def _count_in_piece(self, gap: int, end: int) -> int | None:
        """``tokens(text[start:end])`` when ``text[gap:end]`` is one long piece of the pre-tokenizer
        (a run of letters, say), from the window's own tokens of that piece and one short encoding:
        ``None`` when that cannot be had.

        BPE never merges across a boundary of its result, so the window's tokens of the piece up to
        any of them are that prefix's own (any run of a valid encoding is one), and two valid
        encodings that share a token join into the encoding of what they cover (GitHub's ``bpe``
        crate, README, corollaries II and III). So if the encoding of the text from the start of a
        window token ``k`` of the piece to ``end`` begins with token ``k``, the chunk's tokens are
        the window's before ``k`` and those. The piece is longer than any token, so tiktoken merges
        it byte pair by byte pair (no whole-piece lookup), as here."""
        pattern = pieces(self.encoding.name)
        if self._window_piece[0] != gap:  # the encoded text's piece from this gap, found once per gap
            found = pattern.match(self.text, gap, self.encoded_end)
            self._window_piece = (gap, found.end() if found else gap)
        if self._window_piece[1] < end:
            return None
        if (whole := pattern.match(self.text, gap, end)) is None or whole.end() != end:
            return None
        first = self._window_tokens(gap) if gap > self.start else 0
        end_offset = end - self.start if self.ascii else self._byte_offset(end)
        margin = TAIL_BYTES
        while (k := bisect_right(self.token_ends, end_offset - margin) - 1) > first:
            tail_from = self.token_ends[k - 1]
            if self.ascii:
                tail_bytes = self.text[self.start + tail_from : end].encode()
            else:
                tail_bytes = self.window_bytes[tail_from:end_offset]
            tail = self.encoding._encode_single_piece(tail_bytes)
            if tail[0] == self.ids[k]:
                return k + len(tail)
            margin *= 2
        return None


class DeployedBudget(Budget):
    """``TokenBudget`` for a deployed Hugging Face tokenizer: which ends of one chunk fit, each
    counted by encoding the chunk alone (``tokens`` as the descriptors define it for ``hf:<name>``).

    A tokenizer.json can normalize, pre-tokenize and merge in ways no table here describes, so
    there are no gaps: every end tried is encoded alone. What bounds the ends tried is the *horizon*,
    read from one encoding of a window of the reach without special tokens, whose offsets give each
    token's end in code points. With ``S`` the special tokens that the tokenizer adds to a single
    sequence and ``B = max_tokens - S`` the tokens left for the chunk's own (the special tokens count
    against the budget), the horizon is the end of the window's ``B + 1``-th token or
    ``TOKEN_HORIZON_CHARS`` code points past the end of its ``B``-th, whichever comes first (the end
    of the ``k``-th token, ``k <= 0``, is the chunk's start). The window is the first of
    ``text[s:s + w]`` that holds more than ``B`` tokens and reaches ``TOKEN_WINDOW_MARGIN`` code points
    past the horizon, or reaches ``high``: ``w`` is ``max_tokens + 32`` at first, then the larger of
    twice ``w`` and 9/8 of the ``B + 1`` tokens' length at the window's own code points per token,
    plus 32, at most eight times ``w`` (a window sized from the text itself: prose at 512 tokens is
    encoded twice, not four times). So the ends tried depend on the text from the chunk's start
    alone, as in ``TokenBudget``, and a window of a longer text decides the same chunk.
    """

    def __init__(self, text: str, start: int, high: int, settings: Settings) -> None:
        assert isinstance(settings.tokenizer, DeployedTokenizer)
        assert settings.max_tokens is not None
        self.text, self.start, self.tokenizer, self.limit = text, start, settings.tokenizer, settings.max_tokens
        own = self.limit - self.tokenizer.special_tokens
        width = self.limit + TOKEN_WINDOW_CHARS
        horizon = None
        while True:
            self.window_end = min(high, start + width)
            ends = self.tokenizer.content_ends(text[start : self.window_end])
            horizon = None  # this window's, not an earlier one's
            if len(ends) > own:
                last_fitting, first_over = (ends[k - 1] if k > 0 else 0 for k in (own, own + 1))
                horizon = start + min(last_fitting + TOKEN_HORIZON_CHARS, first_over)
            if self.window_end == high or (horizon is not None and horizon + TOKEN_WINDOW_MARGIN <= self.window_end):
                break
            width = next_window(width, own, len(ends))
        self.cutoff = high + 1 if horizon is None else min(high + 1, horizon + 1)
        """No end at or after this is tried (the horizon)."""

    def count(self, end: int) -> int:
        """``tokens(text[start:end])``: the chunk encoded alone."""
        return self.tokenizer.count(self.text[self.start : end])

    def too_small(self) -> InvalidInput:
        """No position fits: one grapheme cluster and the special tokens take more than ``max_tokens``."""
        return InvalidInput(
            f"The max_tokens field is too small for {self.tokenizer.name}: the next character and the "
            f"{self.tokenizer.special_tokens} special tokens it adds take more.",
            [{"field": "max_tokens", "problem": "is less than one character and the tokenizer's special tokens take"}],
        )


def token_budget(text: str, start: int, high: int, settings: Settings, before: Budget | None = None) -> Budget:
    """The budget of the chunk at ``start`` for the settings' tokenizer (one interface for both kinds);
    ``before``, the budget of the chunk made before it in ``text``, may lend it its encoding."""
    if isinstance(settings.tokenizer, DeployedTokenizer):
        return DeployedBudget(text, start, high, settings)
    return TokenBudget(text, start, high, settings, before if isinstance(before, TokenBudget) else None)


class _Scan:
    """One ``finditer`` over a reversed reach, its matches kept as they are read, so that searches
    from any position at or after ``origin`` share it. The patterns match one character each (what
    follows it is a lookahead), so the matches found from a position are those of a scan begun
    earlier that lie at or after it."""

    def __init__(self, matches: Iterator["re.Match[str]"], origin: int) -> None:
        self.origin, self._matches = origin, matches
        self._read: list[re.Match[str]] = []
        self._starts: list[int] = []

    def matches_from(self, position: int) -> Iterator["re.Match[str]"]:
        """The matches that start at or after ``position``, in order."""
        index = bisect_left(self._starts, position)
        while True:
            if index == len(self._read):
                match = next(self._matches, None)
                if match is None:
                    return
                self._read.append(match)
                self._starts.append(match.start())
                if match.start() < position:  # read on from an earlier search's last match
                    index += 1
                    continue
            yield self._read[index]
            index += 1


class Reach:
    """A chunk's reach reversed (``text[start..high]`` backwards, then the terminator before
    ``start`` if closers between follow one), so that a regex's first match is the last end; the
    searches may begin lower than ``high`` (``top``), to skip ends another kind claims."""

    def __init__(self, text: str, start: int, high: int, terminator: str) -> None:
        self.text, self.high = text, high
        self.reversed = text[high:start:-1] + text[start] + terminator  # the closers between are alike to the search
        self._scans: dict[re.Pattern[str], _Scan | None] = {}

    def _matches(self, pattern: "re.Pattern[str]", low: int, top: int) -> Iterator[tuple[int, "re.Match[str]"]]:
        """Each match of ``pattern`` with the end it reads, for the ends in (low, top], last first.
        The Markdown kinds ask for many such ranges of one reach (the gaps between heading spans,
        say), top down: they share one scan, which reads each character once. A scan for each, which
        went on past ``low`` to the next match, read the rest of the reach for each gap where there
        was none: quadratic (256 KiB of ``a\\n=\\n`` at 100 000 characters took 78 s). The first
        search of a pattern scans on its own, as most reaches have one (a chunk of a few characters
        costs no more for it); a scan is kept from the second on."""
        high = self.high
        origin = high - top
        matches: Iterator[re.Match[str]]
        if pattern not in self._scans:
            self._scans[pattern] = None
            matches = pattern.finditer(self.reversed, origin)
        else:
            scan = self._scans[pattern]
            if scan is None or origin < scan.origin:
                scan = self._scans[pattern] = _Scan(pattern.finditer(self.reversed, origin), origin)
            matches = scan.matches_from(origin)
        for match in matches:
            end = high - match.start()
            if end <= low:
                return
            yield end, match

    def sentence_ends(self, low: int, top: int) -> Iterator[int]:
        """Sentence ends in (low, top], last first; not after a mark that joins the terminator or
        closer (no cluster boundary there)."""
        text = self.text
        for end, match in self._matches(_SENTENCE_END_REVERSED, low, top):
            if match.start("wide") < 0 or not joined(text[end - 1], text[end]):
                yield end

    def word_ends(self, low: int, top: int) -> Iterator[int]:
        """Word ends (and line ends) in (low, top], last first."""
        text = self.text
        for end, _ in self._matches(_WORD_END_REVERSED, low, top):
            if not _held_open(text, end):
                yield end


def _continues_cluster(character: str) -> bool:
    """Whether a cluster rule may look back across ``character`` (Extend, ZWJ, SpacingMark or a
    regional indicator, asked as: does it join a letter before it)."""
    if character < NEVER_JOINS_BEFORE:
        return False
    return "\U0001f1e6" <= character <= "\U0001f1ff" or joined("a", character)


class Chunker:
    """Chunks of one text (or one window of a longer text), made left to right (``spans``)."""

    def __init__(self, text: str, settings: Settings, final: bool = True) -> None:
        self.text, self.settings = text, settings
        self.final = final
        """The text ends here (otherwise a window of a longer text, where ``C`` is not yet known)."""
        self.text_end = len(text.rstrip(WHITESPACE))
        """``C``: just after the last non-whitespace character (of this window, in a window)."""
        self.resume: tuple[int, int] | None = None
        """After ``spans``: the start and ``low`` of the chunk it stopped before (``None``: none)."""
        self._walked = {False: (0, 0), True: (0, 0)}
        """The last walk back (``_walk_back``) of each kind and where it ended: a walk that reaches
        the one before ends where it did, so a long run of closers or marks is walked once."""
        self._clusters: Sequence[int] | None = None
        """Every cluster boundary of the text, asked for once, when a cut needs one (``_boundaries``)."""
        self._budget: Budget | None = None
        """The token budget of the chunk made last, whose encoding the next one reuses."""

    @cached_property
    def lines(self) -> LineEnds:
        """The text's line and paragraph ends, found when the first chunk is made."""
        return LineEnds(self.text)

    def context(self, start: int) -> int:
        """Where the text that decides the chunk at ``start`` begins: before the closers and the
        terminator that a sentence end at or after ``start`` may need, and at a character that no
        cluster rule looks back across (below U+0300, or one that does not join a letter before it
        and is not a regional indicator). A window may start there."""
        return self._walk_back(start, clusters=True)

    def _walk_back(self, start: int, clusters: bool) -> int:
        """Back from ``start`` over closers (to the terminator before them), and with ``clusters``
        over characters that continue a cluster."""
        text = self.text
        asked, answer = self._walked[clusters]
        at = start
        while at > 0:
            if at == asked:
                at = answer
                break
            if text[at - 1] in TERMINATORS:
                at -= 1
                break
            if text[at - 1] in CLOSERS or (clusters and _continues_cluster(text[at])):
                at -= 1
                continue
            break
        self._walked[clusters] = (start, at)
        return at

    def _boundaries(self) -> Sequence[int]:
        """The text's cluster boundaries: one pass over it, however many cuts need them (the text
        starts at a context start, where no cluster rule looks back)."""
        if self._clusters is None:
            self._clusters = array("q", cluster_starts(self.text))
        return self._clusters

    def spans(self, start: int, low: int, limit: int | None) -> Iterator[Span]:
        """The chunks from the one starting at ``start`` (with ``low``), in order, while this text
        decides them; ``resume`` then says where the next one starts (``None``: the text ended).
        More than ``limit`` chunks is ``TooManyChunks``."""
        made = 0
        self.resume = (start, low)
        final, text_end = self.final, self.text_end
        while (span := self.chunk(start, low)) is not None:
            last = final and span.end == text_end
            following = None if last else self.next_start(span)
            if following is None and not last:
                return  # the next start is beyond this window: make this chunk again in the next
            made += 1
            if limit is not None and made > limit:
                raise TooManyChunks(f"The text has more than {limit} chunks.")
            yield span
            if following is None:
                self.resume = None
                return
            start, low = self.resume = following

    def first_start(self, after: int = 0) -> int | None:
        """The first chunk's start: the first non-whitespace character (from ``after``)."""
        match = NOT_WHITESPACE.search(self.text, after)
        return match.start() if match else None

    def chunk(self, start: int, low: int) -> Span | None:
        """The chunk starting at ``start`` (``low``: where its ends may begin, see the descriptor);
        ``None`` in a window of a longer text that does not decide it.

        A chunk is the same whatever text follows a window when its whole reach is followed by a
        non-whitespace character there (so ``C`` lies beyond it), or when its token window and
        cutoff lie before that character (``TokenBudget``: nothing after them is read)."""
        settings = self.settings
        reach = start + settings.max_chars
        high = min(reach, self.text_end)
        whole_reach = self.final or self.text_end > reach
        if settings.max_tokens is None:
            return self._end_in_reach(start, low, high, None) if whole_reach else None
        budget = self._budget = token_budget(self.text, start, high, settings, self._budget)
        if not whole_reach and (budget.cutoff > high or budget.window_end == self.text_end):
            return None
        return self._end_in_reach(start, low, high, budget)

    def _end_in_reach(self, start: int, low: int, high: int, budget: Budget | None) -> Span:
        """The chunk at ``start`` whose ends lie in (``low``, ``high``] (and fit ``budget``)."""
        reach = start + self.settings.max_chars
        if budget is not None and budget.cutoff <= high:
            high = budget.cutoff - 1  # no end at or after the cutoff fits
        elif high == self.text_end and self.final:
            tokens = budget.fits(high) if budget else None
            if budget is None or tokens is not None:
                return Span(start, high, "end", tokens)
            high -= 1  # the end of the text does not fit: look before it
        floor = max(low, start + self.settings.min_chars - 1)
        if budget is None and (usual := self._usual_end(start, floor, high)) is not None:
            return usual
        for bottom in (floor, low) if floor > low else (low,):
            found = self._best_end(start, bottom, high, budget)
            if found is not None:
                return found
        if budget is not None:
            return self._largest_fitting(start, low, min(reach, self.text_end), budget)
        return Span(start, reach, "character", None)

    def _usual_end(self, start: int, floor: int, high: int) -> Span | None:
        """The usual chunk of prose's end, a paragraph end in (floor, high], found with no search
        (``None``: none, ask ``_best_end``)."""
        paragraphs = self.lines.paragraphs
        index = bisect_right(paragraphs, high) - 1
        if index >= 0 and paragraphs[index] > floor:
            return Span(start, paragraphs[index], "paragraph", None)
        return None

    def _best_end(self, start: int, low: int, high: int, budget: Budget | None) -> Span | None:
        """The last end in (low, high] of the best kind that has one (that fits, with a budget)."""
        if low >= high:
            return None
        for cut, ends in self._ends_by_kind(start, low, high):
            for end in ends:
                if budget is None:
                    return Span(start, end, cut, None)
                if (tokens := budget.fits(end)) is not None:
                    return Span(start, end, cut, tokens)
        return None

    def _ends_by_kind(self, start: int, low: int, high: int) -> Iterator[tuple[str, Iterator[int]]]:
        """Each kind's ends in (low, high], best kind first, each last first; a kind's search is
        made only when the kinds before it had no end (that fits)."""
        yield "paragraph", LineEnds.last(self.lines.paragraphs, low, high)
        yield "line", LineEnds.last(self.lines.ends, low, high)
        reach = self.reach(start, high)
        yield "sentence", reach.sentence_ends(low, high)
        yield "word", reach.word_ends(low, high)
        yield "character", self.character_ends(low, high)

    def reach(self, start: int, high: int) -> "Reach":
        """The chunk's reach, ``text[start..high]``, made ready for the sentence and word searches."""
        before = self._walk_back(start, clusters=False)  # the terminator, if closers before start follow one
        terminator = self.text[before] if before < start and self.text[before] in TERMINATORS else ""
        return Reach(self.text, start, high, terminator)

    def character_ends(self, low: int, high: int) -> Iterator[int]:
        """Cluster boundaries in (low, high] after a non-whitespace character, last first."""
        text = self.text
        if text[high] < NEVER_JOINS_BEFORE and text[high - 1] < NEVER_JOINS_AFTER:
            if text[high - 1] not in WHITESPACE:
                yield high  # the common case, asked without the cluster data
            high -= 1
        boundaries = self._boundaries()
        index = bisect_right(boundaries, high) - 1
        while index >= 0 and (end := boundaries[index]) > low:
            if text[end - 1] not in WHITESPACE:
                yield end
            index -= 1

    def _largest_fitting(self, start: int, low: int, high: int, budget: Budget) -> Span:
        """No end fits: the largest position whose chunk fits, inside a cluster if need be; with a
        deployed tokenizer, possibly none (its special tokens and one character take more)."""
        for end in range(min(high, budget.cutoff - 1), low, -1):
            if (tokens := budget.fits(end)) is not None:
                return Span(start, end, "character", tokens)
        if isinstance(budget, DeployedBudget):
            raise budget.too_small()
        raise AssertionError("a code point is at most 4 tokens")  # pragma: no cover

    def next_start(self, previous: Span) -> tuple[int, int] | None:
        """Where the chunk after ``previous`` starts and its ``low`` (the descriptor's ``lo``);
        ``None`` when a window does not show enough of the text to tell."""
        start, end = previous.start, previous.end
        following = NOT_WHITESPACE.search(self.text, end)
        assert following is not None, "a chunk that is not the last has text after it"
        after = following.start()
        settings = self.settings
        if settings.overlap_chars:
            if settings.max_tokens is None and (found := self._plain_overlap_start(start, end, after)) is not None:
                return found, end
            first_end = None
            for candidate in self._overlap_starts(max(end - settings.overlap_chars, start + 1), end):
                if candidate + settings.max_chars <= after:
                    continue
                if settings.tokenizer is not None and settings.max_tokens is not None:
                    first_end = first_end or self._first_end_after(after)
                    if first_end is None:
                        return None
                    if count_tokens(settings.tokenizer, self.text[candidate:first_end]) > settings.max_tokens:
                        continue
                return candidate, end
        return after, after

    def _plain_overlap_start(self, start: int, end: int, after: int) -> int | None:
        """``next_start``'s usual answer, found with one search: the first character after
        whitespace in the overlap, when nothing before it can be a start (no closer or terminator
        just before the overlap, no full-width terminator in it) and it is plainly a cluster's
        start; ``None`` sends the question to the general search."""
        text, low = self.text, max(end - self.settings.overlap_chars, start + 1)
        match = _WHITESPACE_THEN_OTHER.search(text, low - 1, end)
        if match is None or text[low - 1] in CLOSERS or text[low - 1] in TERMINATORS:
            return None
        at = match.end() - 1
        if at + self.settings.max_chars <= after or (text[at] >= NEVER_JOINS_BEFORE and text[at - 1] == " "):
            return None
        if text.find("\u3002", low, at) >= 0 or text.find("\uff01", low, at) >= 0 or text.find("\uff1f", low, at) >= 0:
            return None
        return at

    def _overlap_starts(self, low: int, end: int) -> Iterator[int]:
        """Starts in [low, end), first first: a cluster boundary whose character is not whitespace,
        after whitespace or at a (full-width) sentence end, whose terminator and closers may lie
        before ``low``."""
        text = self.text
        starts: Iterator[int] = (match.end() - 1 for match in _WHITESPACE_THEN_OTHER.finditer(text, low - 1, end))
        sentence_from = self._walk_back(low, clusters=False)
        if any(text.find(stop, sentence_from, end) >= 0 for stop in FULL_WIDTH_TERMINATORS):  # rare outside CJK
            wide = (match.end() for match in _WIDE_SENTENCE_START.finditer(text, sentence_from, end))
            starts = merge(starts, wide)
        for at in starts:
            if at >= low and not joined(text[at - 1], text[at]):
                yield at

    def _first_end_after(self, after: int) -> int | None:
        """The first end after ``after``, the first non-whitespace character after a chunk (the
        end of the cluster it starts, unless that ends in whitespace); ``None`` if this window
        does not show where that cluster ends."""
        text = self.text
        if after + 1 < len(text) and text[after + 1] < NEVER_JOINS_BEFORE and text[after] < NEVER_JOINS_AFTER:
            return after + 1  # the common case, asked without the cluster data
        boundaries = self._boundaries()
        for index in range(bisect_right(boundaries, after), len(boundaries) - 1):  # the last is the text's end
            if text[boundaries[index] - 1] not in WHITESPACE:
                return boundaries[index]
        return len(text) if self.final else None


def sized_chunk_objects(
    text: str, spans: list[Span], at: Position, starts_of_lines: Sequence[int], headings: list[list[str]] | None = None
) -> list[SizedChunk]:
    """The chunk objects of ``spans`` of ``text``, a text that starts ``at`` and whose lines start
    at ``starts_of_lines`` (``LineEnds``), with each chunk's ``headings`` when given: each column
    made over all chunks at once, in C."""
    starts, ends, cuts, counts = zip(*spans, strict=True)
    last_characters = minus(ends, repeat(1))
    start_lines = map(add, map(bisect_right, repeat(starts_of_lines), starts), repeat(at.line - 1))
    end_lines = map(add, map(bisect_right, repeat(starts_of_lines), last_characters), repeat(at.line - 1))
    columns = zip(count(at.first_index), shifted(list(starts), at.offset), shifted(list(ends), at.offset),
                  start_lines, end_lines, cuts, cut_texts(text, starts, ends), strict=False)  # fmt: skip
    if counts[0] is None and headings is None:
        return [
            {"index": i, "start": s, "end": e, "start_line": a, "end_line": b, "cut": k, "text": t}
            for i, s, e, a, b, k, t in columns
        ]
    chunks: list[SizedChunk] = []
    for i, s, e, a, b, k, t in columns:  # the descriptors' examples' order: headings, tokens, then text
        chunks.append({"index": i, "start": s, "end": e, "start_line": a, "end_line": b, "cut": k})  # type: ignore[typeddict-item]
        if headings is not None:
            chunks[-1]["headings"] = headings[i - at.first_index]
        if counts[0] is not None:
            chunks[-1]["tokens"] = counts[i - at.first_index]
        chunks[-1]["text"] = t
    return chunks
