"""Small C-speed steps shared by the chunkers: running sums, interleaving, slicing and counting
over whole lists at once (``map`` and ``accumulate`` run their loops in C), each named for what it
gives, so that an algorithm reads as a sequence of steps."""

from collections.abc import Iterable
from itertools import accumulate, repeat
from operator import add, sub


def running_sum(values: Iterable[int], first: int) -> list[int]:
    """``[first, first + v0, first + v0 + v1, ...]``: where each piece starts, and where the last ends."""
    return list(accumulate(values, initial=first))


def alternate(evens: list[int], odds: list[int] | int) -> list[int]:
    """``evens[0], odds[0], evens[1], odds[1], ..., evens[-1]`` (a single ``odds`` value repeats)."""
    merged = [0] * (2 * len(evens) - 1)
    merged[0::2] = evens
    merged[1::2] = odds if isinstance(odds, list) else [odds] * (len(evens) - 1)
    return merged


def lf_counts(strings: Iterable[str]) -> list[int]:
    """How many LF each string holds."""
    return list(map(str.count, strings, repeat("\n")))


def ends_with_lf(strings: Iterable[str]) -> Iterable[bool]:
    return map(str.endswith, strings, repeat("\n"))


def cut(text: str, starts: Iterable[int], ends: Iterable[int]) -> list[str]:
    """``text[start:end]`` for each pair."""
    return list(map(text.__getitem__, map(slice, starts, ends)))


def plus(values: Iterable[int], amounts: Iterable[int]) -> list[int]:
    return list(map(add, values, amounts))


def minus(values: Iterable[int], amounts: Iterable[int]) -> list[int]:
    return list(map(sub, values, amounts))


def ends_before_final_cr(text: str, starts: list[int], lengths: Iterable[int]) -> list[int]:
    """The end of each piece ``text[start:start + length]``, one earlier where the piece ends in CR.

    A line's content excludes its ending; where a piece's last line ends in CRLF and only the LF
    was left out of the piece, the CR is cut off here.
    """
    ends = plus(starts, lengths)
    return minus(ends, map(text.startswith, repeat("\r"), minus(ends, repeat(1))))


def shifted(values: list[int], amount: int) -> list[int]:
    """``values`` counted from ``amount`` instead of 0 (a window of a longer text)."""
    return plus(values, repeat(amount)) if amount else values
