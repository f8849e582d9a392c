"""The descriptors' limits, in one table.

Field names are the descriptors' own ``limits`` keys, so a test can compare this table with
``spec/seeds/*.json`` key for key; every check in the core reads its bound from here.
"""

from dataclasses import dataclass

MAX_SAFE_INTEGER = 9_007_199_254_740_991
"""The input schema's ``maximum`` for ``max_splits`` (JSON's largest exactly representable integer)."""

JSON_ESCAPE_GROWTH = 6
"""The most bytes JSON can spend on one UTF-8 byte of a string (``\\u0001`` for ``\\x01``)."""

BODY_SLACK_BYTES = 64 * 1024
"""Room in a request body for keys, numbers and insignificant whitespace around the strings."""


@dataclass(frozen=True, slots=True)
class DelimiterChunkLimits:
    max_input_bytes: int = 262_144
    max_delimiter_bytes: int = 256
    max_chunks: int = 10_000
    max_output_bytes: int = 1_048_576


@dataclass(frozen=True, slots=True)
class ExtractBetweenLimits:
    max_text_bytes: int = 256_000
    max_marker_bytes: int = 4096
    default_max_matches: int = 100
    max_matches: int = 1000


@dataclass(frozen=True, slots=True)
class ParagraphsSplitLimits:
    max_input_bytes: int = 262_144
    max_paragraphs: int = 10_000
    max_output_bytes: int = 1_048_576


DELIMITER_CHUNK = DelimiterChunkLimits()
EXTRACT_BETWEEN = ExtractBetweenLimits()
PARAGRAPHS_SPLIT = ParagraphsSplitLimits()


def max_body_bytes(*string_limits: int) -> int:
    """Largest request body a valid request can need, given the byte limits of its strings.

    Anything larger is refused before parsing: even with every byte escaped as ``\\u00XX``
    no valid request reaches it.
    """
    return JSON_ESCAPE_GROWTH * sum(string_limits) + BODY_SLACK_BYTES
