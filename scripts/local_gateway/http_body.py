"""A request's body as HTTP/1.1 frames it, for ``make serve``'s server.

``http.server`` leaves reading the body to its handler, and a plain ``rfile.read(Content-Length)``
trusts whatever the client declares: a chunked body reads as empty (and its chunks as the next
request), a malformed length raises, and a declared gigabyte is read into memory.
"""

import re
from email.message import Message
from io import BufferedIOBase

READ_PIECE = 1024 * 1024
CHUNK_SIZE_LINE = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n")
"""A chunk's size line (RFC 9112 section 7.1): hex digits, then extensions, which are ignored."""


class BadFraming(ValueError):
    """The request's body cannot be delimited: the gateway answers 400 and closes the connection."""


def read_body(headers: Message, stream: BufferedIOBase, limit: int) -> bytes:
    """The body as its ``Content-Length`` or chunked coding frames it, all of it consumed but at most
    ``limit + 1`` bytes kept: enough to refuse it, without holding what a client sends beyond.

    Anything else is a ``BadFraming``: a length that is not one decimal number, a transfer coding
    other than ``chunked``, both headers at once (RFC 9112 section 6.3 lets a server refuse that,
    and a proxy that reads the other one is how requests are smuggled), or a body that ends early.
    """
    codings = headers.get_all("Transfer-Encoding") or []
    lengths = {value.strip() for value in headers.get_all("Content-Length") or []}
    kept = bytearray()
    if codings:
        if lengths or ",".join(codings).strip().lower() != "chunked":
            raise BadFraming
        while size := chunk_size(stream):
            consume(stream, size, kept, limit)
            if stream.readline(3) not in (b"\r\n", b"\n"):
                raise BadFraming
        while stream.readline(READ_PIECE) not in (b"\r\n", b"\n", b""):
            pass  # trailer fields: nothing here reads them
    elif lengths:
        length = lengths.pop() if len(lengths) == 1 else ""
        if not (length.isascii() and length.isdigit()):
            raise BadFraming
        consume(stream, int(length), kept, limit)
    return bytes(kept)


def chunk_size(stream: BufferedIOBase) -> int:
    match = CHUNK_SIZE_LINE.fullmatch(stream.readline(READ_PIECE))
    if match is None:
        raise BadFraming
    return int(match[1], 16)


def consume(stream: BufferedIOBase, size: int, kept: bytearray, limit: int) -> None:
    """Reads ``size`` bytes in pieces, keeping them while ``kept`` holds at most ``limit + 1``."""
    while size:
        piece = stream.read(min(size, READ_PIECE))
        if not piece:
            raise BadFraming
        size -= len(piece)
        kept += piece[: limit + 1 - len(kept)]
