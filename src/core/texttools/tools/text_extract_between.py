"""text-extract-between: literal start/end markers, left to right, non-overlapping, capped."""

from collections.abc import Iterable, Iterator
from typing import TypedDict

from ..descriptor import load_descriptor
from ..errors import InvalidInput, UnclosedStartMarker
from ..fields import MAX_SAFE_INTEGER, input_fields
from ..streaming import Batches, Stream, Windows
from ..tool import Params, Tool

DESCRIPTOR = load_descriptor("text-extract-between")
DEFAULT_MAX_MATCHES = DESCRIPTOR.limits["default_max_matches"]


class ExtractBetweenOutput(TypedDict):
    matches: list[str]
    truncated: bool


class Match(TypedDict):
    """A match as the document flows write it, one per line (API.md)."""

    index: int
    text: str


def extract_between(text: str, start: str, end: str, max_matches: int = DEFAULT_MAX_MATCHES) -> ExtractBetweenOutput:
    """Collect what lies between each start marker and the next end marker after it.

    The scan is lazy (API.md): after ``max_matches`` matches it looks for one more complete
    match only to set ``truncated``, and a start marker past that point is never examined.
    """
    check_markers(start, end)
    matches: list[str] = []
    truncated = False
    for found, content, closing in scan(text, start, end):
        if closing < 0:
            raise unclosed(found)
        if len(matches) == max_matches:
            truncated = True
            break
        matches.append(text[content:closing])
    return {"matches": matches, "truncated": truncated}


def scan(text: str, start: str, end: str) -> Iterator[tuple[int, int, int]]:
    """Where each start marker is, where its content starts and where its end marker is, left to
    right, each search resuming after the previous end marker; a start marker with no end marker
    after it comes with ``-1`` for the end, and is the last."""
    pos = 0
    while (found := text.find(start, pos)) >= 0:
        content = found + len(start)
        closing = text.find(end, content)
        yield found, content, closing
        if closing < 0:
            return
        pos = closing + len(end)


def unclosed(found: int) -> UnclosedStartMarker:
    return UnclosedStartMarker(f"The start marker at code point {found} has no end marker after it.")


def stream_extract_between(pieces: Iterable[str], start: str, end: str, max_matches: int) -> Stream:
    """``extract_between`` of the joined ``pieces``, a window at a time, each match as a ``Match``.

    After the match that sets ``truncated`` the rest of the text is still read (the document
    flows must find invalid UTF-8 anywhere in it) but not scanned, as API.md's lazy scan says.
    """
    check_markers(start, end)
    return Stream(_match_batches(pieces, start, end, max_matches))


def _match_batches(pieces: Iterable[str], start: str, end: str, max_matches: int) -> Batches:
    windows = Windows(pieces, lines=False)
    count, truncated = 0, False
    for window in windows:
        text, batch = window.text, []
        # Unless a start marker waits for its end, a start marker cut by the window's end may begin
        # in its last len(start) - 1 characters: those start the next window.
        finished = len(text) - (len(start) - 1)
        for found, content, closing in [] if truncated else scan(text, start, end):
            if closing < 0:
                if window.final:
                    raise unclosed(window.at.offset + found)
                finished = found
                break
            if count == max_matches:
                truncated = True
                break
            batch.append(Match(index=count, text=text[content:closing]))
            count += 1
            finished = max(finished, closing + len(end))
        windows.advance(len(text) if truncated else max(finished, 0), len(batch))
        yield batch
    return {"match_count": count, "truncated": truncated}


def check_markers(start: str, end: str) -> None:
    for field, marker in (("start", start), ("end", end)):
        if not marker:
            raise InvalidInput(
                f"The {field} marker must not be empty.", [{"field": field, "problem": "must not be empty"}]
            )


def _run(params: Params) -> ExtractBetweenOutput:
    return extract_between(params["text"], params["start"], params["end"], params["max_matches"])


def _stream(pieces: Iterable[str], params: Params) -> Stream:
    return stream_extract_between(pieces, params["start"], params["end"], params["max_matches"])


TOOL = Tool(
    descriptor=DESCRIPTOR,
    fields=input_fields(
        DESCRIPTOR,
        {"text": "max_text_bytes", "start": "max_marker_bytes", "end": "max_marker_bytes"},
        {"max_matches": DEFAULT_MAX_MATCHES},
    ),
    run=_run,
    errors=(UnclosedStartMarker,),
    error_examples=lambda: {UnclosedStartMarker: {"text": "pre[one]mid[two", "start": "[", "end": "]"}},
    stream=_stream,
    run_lifted=_run,  # no limit of its own but max_matches, which the parameters lift
    document_maxima={"max_matches": MAX_SAFE_INTEGER},  # API.md: any count in the document flows
)
