"""Extended grapheme cluster boundaries (UAX #29, Unicode 16.0.0), asked only where a rule needs one.

The clusters come from unicode-segmentation-rs (Weblate's binding of Rust's unicode-segmentation
crate: Unicode 16.0.0 data, GB9c's Indic conjuncts included, wheels for x86_64 and aarch64; the
tests compare it with pyuegc, an independent implementation in Python). It is imported on first
use: prose cut at whitespace never needs it, so neither a cold start nor the common path pays for
it. Two facts of the Unicode data spare most questions (the tests check both against every code
point): no boundary is missing between two characters when the second is below U+0300 and the
first below U+0600 (CR then LF aside), nor before a tab, CR or LF (after a CR aside).
"""

from collections.abc import Sequence
from itertools import accumulate
from typing import Final

NEVER_JOINS_BEFORE: Final = "\u0300"
"""No code point below this is Extend, ZWJ, SpacingMark, Regional_Indicator, Hangul V or T, or an
Indic conjunct consonant; two below it (\u00a9 and \u00ae) are pictographs that join a ZWJ."""
NEVER_JOINS_AFTER: Final = "\u0600"
"""No code point below this is Prepend, ZWJ, Regional_Indicator, Hangul or an Indic linker."""


def cluster_starts(text: str) -> Sequence[int]:
    """The offsets in ``text`` where its clusters start, then ``len(text)``; ``text`` is taken as a
    whole (a boundary at 0), so it must start where the longer text has a boundary that no rule
    looks back across (after whitespace, a terminator or a closer, or at the text's start)."""
    from unicode_segmentation_rs import graphemes  # noqa: PLC0415  (only a cut that needs clusters pays the import)

    return list(accumulate(map(len, graphemes(text, True)), initial=0))


def joined(before: str, after: str) -> bool:
    """Whether no cluster boundary lies between the single characters ``before`` and ``after``,
    where no rule can look further back than ``before`` (the caller's case: ``before`` is
    whitespace, a terminator or a closer, or ``after`` is a space or tab)."""
    if after < NEVER_JOINS_BEFORE and (before < NEVER_JOINS_AFTER or after in "\t\r\n"):
        return before == "\r" and after == "\n"
    return len(cluster_starts(before + after)) == 2
