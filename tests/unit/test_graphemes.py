"""The cluster library the core uses (unicode-segmentation-rs) against an independent one (pyuegc,
pure Python, Unicode 16.0.0), and the two facts of the Unicode data that ``texttools.graphemes``
uses to skip asking it, checked against every code point they cover."""

from itertools import accumulate

import pyuegc
from hypothesis import given, settings
from hypothesis import strategies as st

from texttools.graphemes import NEVER_JOINS_AFTER, NEVER_JOINS_BEFORE, cluster_starts, joined

HARD = [
    "\u0300", "\u0301", "\u094d", "\u0915", "\u0937", "\u200d", "\u200c", "\U0001f469", "\U0001f466", "\U0001f1eb",
    "\U0001f1f7", "\u0600", "\u1100", "\u1161", "\u11a8", "\uac00", "\u00a9", "\U0001f3fb", "\u0e33", "\u0903",
    "\r", "\n", "\t", " ", "a", "\u0897", "\U0001611e", "\u3002", "\ufe0f",
]  # fmt: skip
"""Characters that each rule of UAX #29 turns on, Unicode 16.0.0's new marks among them."""


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(HARD), st.characters(exclude_categories=["Cs"])), max_size=24).map("".join))
def test_the_library_and_an_independent_implementation_agree(text: str) -> None:
    assert list(cluster_starts(text)) == list(accumulate(map(len, pyuegc.EGC(text)), initial=0))


def separate(pairs: list[str]) -> bool:
    """Whether every two-character string of ``pairs`` is two clusters, asked in one call: a tab
    between them is a boundary on both sides (GB4, GB5)."""
    return len(cluster_starts("\t".join(pairs))) - 1 == 3 * len(pairs) - 1


def test_nothing_below_u0300_joins_what_is_below_u0600_before_it() -> None:
    for after in map(chr, range(ord(NEVER_JOINS_BEFORE))):
        before_all = [chr(b) + after for b in range(ord(NEVER_JOINS_AFTER)) if (chr(b), after) != ("\r", "\n")]
        assert separate(before_all), f"U+{ord(after):04X}"


def test_nothing_joins_a_tab_cr_or_lf_after_it_but_cr_before_lf() -> None:
    everything = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for control in "\t\r\n":
        for start in range(0, len(everything), 65536):
            pairs = [b + control for b in everything[start : start + 65536] if (b, control) != ("\r", "\n")]
            assert separate(pairs), repr(control)
    assert joined("\r", "\n")


def test_joined_asks_the_library_past_the_facts() -> None:
    assert all(map(joined, "a\u0600 ", "\u0301 \u0301"))
    assert not any(map(joined, "a\u3002 ", "b\u4e00a"))
