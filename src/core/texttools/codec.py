"""JSON in and out with orjson: compact, UTF-8, non-ASCII written as itself (API.md).

orjson also refuses what API.md calls invalid: NaN and Infinity, lone surrogate escapes,
invalid UTF-8 and nesting deeper than 1024.
"""

from typing import Any

import orjson

from .errors import InvalidInput


def decode_json(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        # The decoder's message quotes the input; only its position would be safe, and is not needed.
        raise InvalidInput("The request body is not valid UTF-8 JSON.") from None


def encode_json(value: Any) -> bytes:
    return orjson.dumps(value)
