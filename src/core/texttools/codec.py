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
"""Dropped from the start of a request body or an S3 document, as text (API.md; docs/decisions.md)."""


class _NotJSONNumber(ValueError):
    pass


class NotJSON(InvalidInput):
    """A body that is not JSON at all (empty, or a syntax error): its caller may say what the body
    must be, which it alone knows (a tool's input object, a JSON-RPC message)."""


def _no_constants(_: str) -> NoReturn:
    raise _NotJSONNumber


def decode_json(body: str | bytes) -> Any:
    """The request body's JSON value, or ``InvalidInput`` saying where it went wrong: the byte
    where UTF-8 fails, or the line and column where JSON does (the decoders' own messages quote the
    input, so only positions are told)."""
    if isinstance(body, bytes):
        try:
            body = body.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InvalidInput(f"The request body is not valid UTF-8 (at byte {error.start}).") from None
    text = body.removeprefix(BOM)
    if not text.strip():
        raise NotJSON("The request body is empty.")
    try:
        return json.loads(text, parse_constant=_no_constants)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise NotJSON(f"The request body is not valid JSON (at {where}).") from None
    except _NotJSONNumber:
        raise InvalidInput("The request body is not valid JSON: NaN and Infinity are not JSON numbers.") from None
    except RecursionError:
        raise InvalidInput("The request body is not valid JSON: it is nested too deeply.") from None
    except ValueError:  # Python's limit on the digits of an integer (4 300)
        raise InvalidInput("The request body is not valid JSON: a number is too long to read.") from None


def encode_json(value: Any) -> bytes:
    return orjson.dumps(value)
