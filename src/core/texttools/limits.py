"""The descriptors' limits, in one table.

Field names are the descriptors' own ``limits`` keys, so a test can compare this table with
``spec/seeds/*.json`` key for key; every check in the core reads its bound from here.
"""

from typing import Final

MAX_SAFE_INTEGER = 9_007_199_254_740_991
"""The input schema's ``maximum`` for ``max_splits`` (JSON's largest exactly representable integer)."""

JSON_ESCAPE_GROWTH = 6
"""The most bytes JSON can spend on one UTF-8 byte of a string (``\\u0001`` for ``\\x01``)."""

BODY_SLACK_BYTES = 64 * 1024
"""Room in a request body for keys, numbers and insignificant whitespace around the strings."""


# Plain classes of constants: dataclasses cost measurable cold-start time for no benefit here.
class DELIMITER_CHUNK:
    max_input_bytes: Final = 262_144
    max_delimiter_bytes: Final = 256
    max_chunks: Final = 10_000
    max_output_bytes: Final = 1_048_576


class EXTRACT_BETWEEN:
    max_text_bytes: Final = 256_000
    max_marker_bytes: Final = 4096
    default_max_matches: Final = 100
    max_matches: Final = 1000


class PARAGRAPHS_SPLIT:
    max_input_bytes: Final = 262_144
    max_paragraphs: Final = 10_000
    max_output_bytes: Final = 1_048_576


def as_table(limits: type) -> dict[str, int]:
    """One tool's limits by the descriptor's names."""
    return {name: value for name, value in vars(limits).items() if not name.startswith("_")}


def max_body_bytes(*string_limits: int) -> int:
    """Largest request body a valid request can need, given the byte limits of its strings.

    Anything larger is refused before parsing: even with every byte escaped as ``\\u00XX``
    no valid request reaches it.
    """
    return JSON_ESCAPE_GROWTH * sum(string_limits) + BODY_SLACK_BYTES
