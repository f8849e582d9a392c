"""JSON in and out: compact UTF-8 out, non-ASCII written as itself (API.md).

Decoding uses the standard library on ``str``: a Lambda proxy event hands the body over as
``str``, and ``json.loads`` slices it directly, about twice as fast as orjson, which must first
transcode it to UTF-8 (measured by ``make bench``). What the standard library lets through and
API.md calls invalid is refused here: NaN and Infinity; lone surrogates are refused by the byte
limit check, which encodes every long string. A leading byte order mark is dropped: RFC 8259 lets
a parser ignore one, Windows tools write one, and the S3 flow drops it from documents (API.md).
Encoding uses orjson: about ten times faster than ``json.dumps`` and it writes the bytes whose
size ``max_output_bytes`` limits.
"""

import json
from typing import Any, NoReturn

import orjson

from .errors import InvalidInput

BOM = "\ufeff"
"""Dropped from the start of a request body or an S3 document, as text (API.md; README)."""


def _no_constants(_: str) -> NoReturn:
    raise ValueError("NaN and Infinity are not JSON")


def decode_json(body: str | bytes) -> Any:
    try:
        text = body if isinstance(body, str) else body.decode("utf-8")
        return json.loads(text.removeprefix(BOM), parse_constant=_no_constants)
    except (ValueError, RecursionError):
        # The decoder's message quotes the input; only its position would be safe, and is not needed.
        raise InvalidInput("The request body is not valid UTF-8 JSON.") from None


def encode_json(value: Any) -> bytes:
    return orjson.dumps(value)
