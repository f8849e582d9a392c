"""Deliberately simple reference implementations, one character at a time.

They share no code with ``texttools`` and use no ``str.split``, ``str.find``, ``str.count`` or
regexes, so the property tests compare two independent readings of the descriptors.
"""

from collections.abc import Callable
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


def commonmark_lines(text: str) -> list[tuple[int, int]]:
    """Each CommonMark line as ``(start, content_end)``; a final line ending starts no other line."""
    lines = []
    start = 0
    for end in line_ending_ends(text):
        content_end = end - 2 if text[end - 2 : end] == "\r\n" else end - 1
        lines.append((start, content_end))
        start = end
    if start < len(text):
        lines.append((start, len(text)))
    return lines


def _is_blank(text: str, line: tuple[int, int]) -> bool:
    return all(text[k] in " \t" for k in range(line[0], line[1]))


def _trim(value: str, left: bool, right: bool) -> str:
    """Spaces and tabs (only those) off either end."""
    i, j = 0, len(value)
    while left and i < j and value[i] in " \t":
        i += 1
    while right and j > i and value[j - 1] in " \t":
        j -= 1
    return value[i:j]


def atx_content(line: str, level: int) -> str:
    i = 0
    while line[i] == " ":
        i += 1
    content = _trim(line[i + level :], True, True)
    j = len(content)
    while j > 0 and content[j - 1] == "#":
        j -= 1
    if j == 0:
        return ""
    if content[j - 1] in " \t":
        return _trim(content[:j], False, True)
    return content


def markdown_sections(text: str, headings: list[tuple[int, int, int, bool]], max_level: int = 6) -> dict[str, Any]:
    """The sections of ``text`` given its top-level headings, each ``(first line, lines, level,
    setext)`` with 0-based lines, as an independent source (a generator, a second parser) says."""
    lines = commonmark_lines(text)

    def content(first: int, count: int, level: int, setext: bool) -> str:
        if not setext:
            return atx_content(text[lines[first][0] : lines[first][1]], level)
        parts = [_trim(text[lines[n][0] : lines[n][1]], True, False) for n in range(first, first + count - 1)]
        return _trim("\n".join(parts), False, True)

    chosen = [h for h in headings if h[2] <= max_level]
    starts = [lines[h[0]][0] for h in chosen]
    pieces: list[tuple[int, int | None, str | None]] = []  # (first line, level or None, heading)
    first_heading_line = chosen[0][0] if chosen else len(lines)
    for number in range(first_heading_line):
        if not _is_blank(text, lines[number]):
            pieces.append((number, None, None))
            break
    for h in chosen:
        pieces.append((h[0], h[2], content(*h)))
    sections = []
    open_headings: list[tuple[int, str]] = []
    for k, (first, level, heading) in enumerate(pieces):
        next_line = pieces[k + 1][0] if k + 1 < len(pieces) else len(lines)
        last = first
        for number in range(first, next_line):
            if not _is_blank(text, lines[number]):
                last = number
        start, end = lines[first][0], lines[last][1]
        path: list[str] = []
        if level is not None:
            while open_headings and open_headings[-1][0] >= level:
                open_headings.pop()
            path = [h for _, h in open_headings]
            open_headings.append((level, heading or ""))
        sections.append({
            "index": k, "level": level or 0, "heading": heading, "path": path, "start": start, "end": end,
            "start_line": first + 1, "end_line": last + 1, "line_count": last - first + 1, "text": text[start:end],
        })  # fmt: skip
    assert starts == [s["start"] for s in sections if s["heading"] is not None]
    return {"section_count": len(sections), "line_count_total": len(lines), "sections": sections}


SIZE_WHITESPACE = " \t\n\r"
SIZE_TERMINATORS = ".!?\u2026\u3002\uff01\uff1f"
SIZE_FULL_WIDTH = "\u3002\uff01\uff1f"
SIZE_CLOSERS = "\"')]}\u201d\u2019\u00bb\u300d\u300f\uff09"
SIZE_KINDS = ["end", "paragraph", "line", "sentence", "word", "character"]


def _ending_at(text: str, i: int) -> int:
    """The length of the line ending at i (2 for CRLF, 1 for LF or a lone CR), or 0."""
    if text[i : i + 2] == "\r\n":
        return 2
    return 1 if text[i : i + 1] in ("\r", "\n") else 0


def _skip_blanks(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _sentence_end(text: str, e: int) -> bool:
    j = e - 1
    while j >= 0 and text[j] in SIZE_CLOSERS:
        j -= 1
    if j < 0 or text[j] not in SIZE_TERMINATORS or e >= len(text):
        return False
    if text[e] in " \t":
        return True
    return text[j] in SIZE_FULL_WIDTH and text[e] not in SIZE_WHITESPACE and text[e] not in SIZE_CLOSERS


def size_kind(text: str, e: int, c: int, boundaries: set[int]) -> str | None:
    """The kind of end e, or None when e is not an end (text-size-chunk's semantics, in order)."""
    if not (0 < e <= c) or text[e - 1] in SIZE_WHITESPACE:
        return None
    if e == c:  # even where a Prepend character before trailing whitespace holds a cluster open
        return "end"
    if e not in boundaries:
        return None
    i = _skip_blanks(text, e)
    first = _ending_at(text, i)
    if first:
        after = _skip_blanks(text, i + first)
        return "paragraph" if after == len(text) or _ending_at(text, after) else "line"
    if _sentence_end(text, e):
        return "sentence"
    return "word" if text[e] in " \t" else "character"


def size_chunk(
    text: str,
    boundaries: set[int],
    max_chars: int,
    overlap_chars: int = 0,
    min_chars: int = 0,
    max_tokens: int | None = None,
    count: Any = None,
    kinds: Any = None,
) -> list[tuple[int, int, str, int | None]]:
    """text-size-chunk as (start, end, cut, tokens) per chunk, one position at a time.

    ``boundaries``: the text's grapheme cluster boundaries (from an implementation other than the
    core's); ``count``: a function giving a string's tokens, with ``max_tokens``; ``kinds``: the
    kinds best first, the kind of an end, and the kinds after which the next chunk starts without
    overlap (markdown-size-chunk's), instead of text-size-chunk's."""
    c = len(text)
    while c > 0 and text[c - 1] in SIZE_WHITESPACE:
        c -= 1
    if c == 0:
        return []
    ranking: list[str]
    kind_of: Callable[[int], str | None]
    ranking, kind_of, no_overlap_after = kinds or (SIZE_KINDS, lambda e: size_kind(text, e, c, boundaries), ())

    horizons: dict[int, int] = {}

    def fits(s: int, e: int) -> bool:
        return max_tokens is None or count(text[s:e]) <= max_tokens

    def tried(s: int, e: int) -> bool:
        """An end that fits and is not past the chunk's token horizon."""
        if max_tokens is None:
            return True
        if s not in horizons:
            high = min(s + max_chars, c)
            horizons[s] = (
                count.horizon(text, s, high, max_tokens)
                if hasattr(count, "horizon")
                else token_horizon(text, s, high, max_tokens, count.token_bytes)
            )
        return e <= horizons[s] and fits(s, e)

    def tokens(s: int, e: int) -> int | None:
        return None if max_tokens is None else count(text[s:e])

    s = 0
    while text[s] in SIZE_WHITESPACE:
        s += 1
    lo = s
    chunks = []
    while True:
        found = None
        for low in (max(lo, s + min_chars - 1), lo):
            ends = [
                (e, kind_of(e)) for e in range(low + 1, s + max_chars + 1) if kind_of(e) is not None and tried(s, e)
            ]
            if ends:
                best = min(ranking.index(kind) for _, kind in ends)  # type: ignore[arg-type]
                found = max(e for e, kind in ends if kind == ranking[best]), ranking[best]
                break
        if found is None:
            if max_tokens is None:
                found = s + max_chars, "character"
            else:
                p = max(p for p in range(lo + 1, min(s + max_chars, c) + 1) if tried(s, p))
                found = p, "character"
        e, cut = found
        chunks.append((s, e, cut, tokens(s, e)))
        if e >= c:
            return chunks
        s, lo = _size_next_start(
            text, boundaries, c, (s, e), max_chars, 0 if cut in no_overlap_after else overlap_chars, fits
        )


TOKEN_HORIZON_CHARS, TOKEN_WINDOW_CHARS, TOKEN_WINDOW_MARGIN = 4, 32, 16
"""docs/decisions.md, "The token horizon"."""


def token_horizon(text: str, s: int, high: int, max_tokens: int, token_bytes: Callable[[str], list[bytes]]) -> int:
    """The last end tried for the chunk at ``s``, as docs/decisions.md words it: the first window
    ``text[s:s + w]``, ``w`` from ``max_tokens + 32``, then the larger of ``2w`` and
    ``ceil(9 w (max_tokens + 1) / (8 n)) + 32`` (``n`` the window's tokens, at least 1), at most
    ``8w``, that holds more than ``max_tokens`` tokens and 16 code points past the horizon (or ends
    at ``high``); the horizon is the end of its
    ``max_tokens + 1``-th token or 4 code points past the end of its ``max_tokens``-th, whichever is
    first (each rounded up to a code point); ``high`` without one."""
    reach = max_tokens + TOKEN_WINDOW_CHARS
    while True:
        w = min(high, s + reach)
        tokens = token_bytes(text[s:w])
        horizon = high
        if len(tokens) > max_tokens:
            horizon = min(
                s + _chars_in(tokens[:max_tokens]) + TOKEN_HORIZON_CHARS, s + _chars_in(tokens[: max_tokens + 1])
            )
            if horizon + TOKEN_WINDOW_MARGIN <= w:
                return horizon
        if w == high:
            return horizon
        reach = min(8 * reach, max(2 * reach, -(-9 * reach * (max_tokens + 1) // (8 * max(len(tokens), 1))) + 32))


def hf_token_horizon(
    text: str, s: int, high: int, max_tokens: int, special_tokens: int, token_ends: Callable[[str], list[int]]
) -> int:
    """The last end tried for the chunk at ``s`` with a deployed Hugging Face tokenizer, as
    docs/decisions.md words it: with ``b = max_tokens - special_tokens`` (the tokens left for the
    chunk's own), the first window ``text[s:s + w]`` that holds more than ``b`` tokens (encoded without
    special tokens) and 16 code points past the horizon, or ends at ``high``; ``w`` is
    ``max_tokens + 32``, then the larger of ``2w`` and ``ceil(9 w (b + 1) / (8 n)) + 32`` (``n`` the
    window's tokens, at least 1), at most ``8w``; the horizon is the end of its ``b + 1``-th token or 4
    code points past the end of its ``b``-th (the library's offsets, each end at least the one before;
    the end of the ``k``-th token, ``k <= 0``, is ``s``), whichever is first; ``high`` without one."""
    b = max_tokens - special_tokens
    w = max_tokens + TOKEN_WINDOW_CHARS
    while True:
        window_end = min(high, s + w)
        ends = token_ends(text[s:window_end])
        running = [max(ends[: k + 1]) for k in range(len(ends))]
        horizon = high
        if len(ends) > b:
            last_fitting = running[b - 1] if b > 0 else 0
            first_over = running[b] if b >= 0 else 0
            horizon = s + min(last_fitting + TOKEN_HORIZON_CHARS, first_over)
            if horizon + TOKEN_WINDOW_MARGIN <= window_end:
                return horizon
        if window_end == high:
            return horizon
        n = max(len(ends), 1)
        w = min(8 * w, max(2 * w, -(-9 * w * (b + 1) // (8 * n)) + TOKEN_WINDOW_CHARS))


def _chars_in(tokens: list[bytes]) -> int:
    """The code points that ``tokens`` cover, the last one counted if they end inside it."""
    joined = b"".join(tokens)
    whole = joined.decode("utf-8", "ignore")
    return len(whole) + (len(whole.encode()) < len(joined))


def _size_next_start(
    text: str, boundaries: set[int], c: int, chunk: tuple[int, int], max_chars: int, overlap_chars: int, fits: Any
) -> tuple[int, int]:
    """The next chunk's start and lo after ``chunk``."""
    s, e = chunk
    n = e
    while text[n] in SIZE_WHITESPACE:
        n += 1
    if overlap_chars:
        f = min(x for x in range(e + 1, c + 1) if size_kind(text, x, c, boundaries) is not None)
        for p in range(max(e - overlap_chars, s + 1), e):
            is_start = (
                p in boundaries
                and text[p] not in SIZE_WHITESPACE
                and (text[p - 1] in SIZE_WHITESPACE or _sentence_end(text, p))
            )
            if is_start and p + max_chars > n and fits(p, f):
                return p, e
    return n, n


MARKDOWN_SIZE_KINDS = [
    "end", *(f"section-{level}" for level in range(1, 7)), "paragraph", "line", "sentence", "word", "heading",
    "table-row", "table-cell", "table-word", "literal-line", "literal-word", "character",
]  # fmt: skip


def _before_a_cell_boundary(text: str, e: int) -> bool:
    """After e come zero or more spaces or tabs, then a | after an even run of backslashes."""
    i = _skip_blanks(text, e)
    if i >= len(text) or text[i] != "|":
        return False
    run = 0
    while i - run - 1 >= 0 and text[i - run - 1] == "\\":
        run += 1
    return run % 2 == 0


def _table_kind(text: str, e: int, kind: str) -> str:
    """The kind of an end inside a table whose text-size-chunk kind is ``kind``."""
    if kind in ("paragraph", "line"):
        return "table-row"
    if _before_a_cell_boundary(text, e):
        return "table-cell"
    return "table-word" if kind in ("sentence", "word") else kind


def _container_marker_end(text: str, i: int) -> int | None:
    """Where a block quote marker or a list item's marker (and the space or tab after it) at i,
    after spaces and tabs, ends; None if there is none."""
    i = _skip_blanks(text, i)
    if text[i : i + 1] == ">":
        return i + 1
    j = i
    while j < len(text) and "0" <= text[j] <= "9" and j - i < 9:
        j += 1
    is_marker = text[j : j + 1] in (".", ")") if j > i else text[i : i + 1] in ("-", "+", "*")
    end = j + 1 if j > i else i + 1
    return end + 1 if is_marker and text[end : end + 1] in (" ", "\t") else None


def table_header(text: str, table: tuple[int, int]) -> tuple[int, int]:
    """The span of a table's header and delimiter rows, from its first and second line (0-based):
    from its first line's first character that is not whitespace, past the container markers
    (block quote markers, and a list item's marker when the table starts the item), to the end of
    its second line's last character that is not whitespace."""
    lines = commonmark_lines(text)
    i = lines[table[0]][0]
    while (after := _container_marker_end(text, i)) is not None:
        i = after
    second_start, second_end = lines[table[0] + 1]
    return _skip_blanks(text, i), second_start + len(text[second_start:second_end].rstrip(SIZE_WHITESPACE))


def markdown_size_chunk(
    text: str,
    boundaries: set[int],
    headings: list[tuple[int, int, int, bool]],
    literals: list[tuple[int, int]],
    max_chars: int,
    overlap_chars: int = 0,
    min_chars: int = 0,
    max_level: int = 6,
    max_tokens: int | None = None,
    count: Any = None,
    tables: list[tuple[int, int]] = (),  # type: ignore[assignment]
) -> list[tuple[int, int, str, int | None, list[str]]]:
    """markdown-size-chunk as (start, end, cut, tokens, headings) per chunk, one position at a time,
    given the top-level headings ``(first line, lines, level, setext)``, the literal blocks and the
    tables ``(first line, last line)`` (0-based) that independent parsers find."""
    lines = commonmark_lines(text)
    chosen = [h for h in headings if h[2] <= max_level]
    spans = [(lines[first][0], lines[first + count_ - 1][1]) for first, count_, _, _ in chosen]
    starts = [(lines[first][0], level) for first, _, level, _ in chosen]
    insides = []
    for first, last in literals:
        visible = text[lines[first][0] : lines[last][1]].rstrip(SIZE_WHITESPACE)
        insides.append((lines[first][0], lines[first][0] + len(visible)))
    in_tables = []
    for first, last in tables:
        visible = text[lines[first][0] : lines[last][1]].rstrip(SIZE_WHITESPACE)
        in_tables.append((lines[first][0], lines[first][0] + len(visible)))
    c = len(text.rstrip(SIZE_WHITESPACE))

    def kind_of(e: int) -> str | None:
        kind = size_kind(text, e, c, boundaries)
        if kind is None or kind == "end":
            return kind
        if any(a < e <= b for a, b in spans):
            return "heading"
        for start, level in starts:
            if e <= start and not text[e:start].strip(SIZE_WHITESPACE):
                return f"section-{level}"
        if any(a < e < b for a, b in insides):
            literal = {"paragraph": "literal-line", "line": "literal-line", "sentence": "literal-word"}
            return literal.get(kind, "literal-word" if kind == "word" else kind)
        if any(a < e < b for a, b in in_tables):
            return _table_kind(text, e, kind)
        return kind

    sections = markdown_sections(text, headings, max_level)["sections"]

    def path_at(position: int) -> list[str]:
        holding = [s for s in sections if s["start"] <= position]
        if not holding or holding[-1]["heading"] is None:
            return []
        return [*holding[-1]["path"], holding[-1]["heading"]]

    kinds = (MARKDOWN_SIZE_KINDS, kind_of, {f"section-{level}" for level in range(1, 7)})
    chunks = size_chunk(text, boundaries, max_chars, overlap_chars, min_chars, max_tokens, count, kinds)
    return [(*chunk, path_at(chunk[0])) for chunk in chunks]
