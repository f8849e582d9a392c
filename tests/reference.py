"""Deliberately simple reference implementations, one character at a time.

They share no code with ``texttools`` and use no ``str.split``, ``str.find``, ``str.count`` or
regexes, so the property tests compare two independent readings of the descriptors.
"""

from typing import Any


class Unclosed(Exception):
    pass


def line_ending_ends(text: str) -> list[int]:
    """End offsets of the CommonMark line endings: LF, CR not followed by LF, CRLF."""
    ends = []
    i = 0
    while i < len(text):
        if text[i] == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
            ends.append(i + 2)
            i += 2
        elif text[i] in "\r\n":
            ends.append(i + 1)
            i += 1
        else:
            i += 1
    return ends


def line(text: str, pos: int) -> int:
    return 1 + sum(1 for end in line_ending_ends(text) if end <= pos)


def matches_at(text: str, i: int, needle: str) -> bool:
    if i + len(needle) > len(text):
        return False
    return all(text[i + k] == needle[k] for k in range(len(needle)))


def delimiter_chunk(text: str, delimiter: str, max_splits: int = -1) -> dict[str, Any]:
    spans: list[tuple[int, int]] = []
    start = i = 0
    while i < len(text):
        if (max_splits < 0 or len(spans) < max_splits) and matches_at(text, i, delimiter):
            spans.append((start, i))
            i += len(delimiter)
            start = i
        else:
            i += 1
    spans.append((start, len(text)))
    chunks = []
    for index, (s, e) in enumerate(spans):
        first = line(text, s)
        chunks.append(
            {
                "index": index,
                "start": s,
                "end": e,
                "start_line": first,
                "end_line": line(text, e - 1) if e > s else first,
                "text": text[s:e],
            }
        )
    return {"chunk_count": len(chunks), "delimiter_count": len(chunks) - 1, "chunks": chunks}


def extract_between(text: str, start: str, end: str, max_matches: int = 100) -> dict[str, Any]:
    found: list[str] = []
    i = 0
    while i < len(text):
        if not matches_at(text, i, start):
            i += 1
            continue
        j = i + len(start)
        while j < len(text) and not matches_at(text, j, end):
            j += 1
        if not matches_at(text, j, end):
            raise Unclosed
        if len(found) == max_matches:
            return {"matches": found, "truncated": True}
        found.append(text[i + len(start) : j])
        i = j + len(end)
    return {"matches": found, "truncated": False}


def paragraphs_split(text: str) -> dict[str, Any]:
    # Lines as (start, content_end): a final line ending does not start another line.
    lines = []
    start = i = 0
    while i < len(text):
        if text[i] == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
            lines.append((start, i))
            i += 2
            start = i
        elif text[i] in "\r\n":
            lines.append((start, i))
            i += 1
            start = i
        else:
            i += 1
    if start < len(text):
        lines.append((start, len(text)))

    def blank(span: tuple[int, int]) -> bool:
        return all(text[k] in " \t" for k in range(span[0], span[1]))

    paragraphs: list[dict[str, Any]] = []
    run: list[int] = []
    for number in range(len(lines) + 1):
        if number < len(lines) and not blank(lines[number]):
            run.append(number)
            continue
        if run:
            s, e = lines[run[0]][0], lines[run[-1]][1]
            paragraphs.append(
                {
                    "index": len(paragraphs),
                    "start": s,
                    "end": e,
                    "start_line": run[0] + 1,
                    "end_line": run[-1] + 1,
                    "line_count": len(run),
                    "text": text[s:e],
                }
            )
            run = []
    return {"paragraph_count": len(paragraphs), "line_count_total": len(lines), "paragraphs": paragraphs}
