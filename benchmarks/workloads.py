"""The requests ``make bench`` times: the largest realistic request of each tool, size and chunk
count ladders, and the pathological inputs a quadratic path would choke on."""

import random

from texttools.limits import DELIMITER_CHUNK, EXTRACT_BETWEEN

WORDS = ["lorem", "ipsum", "dolor", "sit", "amet", "café", "naïve", "über", "señor", "façade", "😀", "🚀", "text",
         "chunk", "line", "exact", "span", "ß", "Ωmega", "東京"]  # fmt: skip


def mixed_text(limit_bytes: int, seed: int = 7, markers: tuple[str, str] | None = None) -> str:
    """Paragraphs of ASCII, accented letters and emoji, some with CRLF lines, up to ``limit_bytes``.

    With ``markers``, every few words are wrapped in them (for extract-between).
    """
    rng = random.Random(seed)
    paragraphs: list[str] = []
    size = 0
    while True:
        ending = "\r\n" if rng.random() < 0.3 else "\n"
        lines = []
        for _ in range(rng.randint(1, 4)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(4, 12))]
            if markers:
                k = rng.randrange(len(words))
                words[k] = f"{markers[0]}{words[k]}{markers[1]}"
            lines.append(" ".join(words))
        paragraph = ending.join(lines)
        cost = len(paragraph.encode()) + 2
        if size + cost > limit_bytes:
            break
        paragraphs.append(paragraph)
        size += cost
    return "\n\n".join(paragraphs)


def largest_requests() -> dict[str, dict[str, object]]:
    return {
        "text-delimiter-chunk": {"text": mixed_text(DELIMITER_CHUNK.max_input_bytes), "delimiter": "\n\n"},
        "text-extract-between": {
            "text": mixed_text(EXTRACT_BETWEEN.max_text_bytes, markers=("[[", "]]")),
            "start": "[[",
            "end": "]]",
            "max_matches": EXTRACT_BETWEEN.max_matches,
        },
        "text-paragraphs-split": {"text": mixed_text(DELIMITER_CHUNK.max_input_bytes)},
    }


def chunk_count_text(chunks: int, size: int = 64 * 1024) -> str:
    """About ``size`` bytes split into exactly ``chunks`` paragraphs."""
    body = mixed_text(size - 2 * chunks).replace("\n\n", " ")
    width = len(body) // chunks
    pieces = [
        body[i * width : (i + 1) * width].replace("\n", " ").replace("\r", " ").strip() or "x" for i in range(chunks)
    ]
    return "\n\n".join(pieces)


def pathological() -> dict[str, tuple[str, dict[str, object]]]:
    near = "a" * 255
    return {
        "262144 CR, paragraphs": ("text-paragraphs-split", {"text": "\r" * 262_144}),
        "262144 CR, delimiter CR": ("text-delimiter-chunk", {"text": "\r" * 262_144, "delimiter": "\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r"}),
        "256-byte near-miss delimiter": ("text-delimiter-chunk", {"text": "a" * 262_144, "delimiter": near + "b"}),
        "blank line of spaces": ("text-paragraphs-split", {"text": " " * 262_143 + "x"}),
        "start == end markers": ("text-extract-between", {"text": "|" * 255_999 + "x", "start": "|", "end": "|", "max_matches": 1000}),
        "4 KiB near-miss markers": ("text-extract-between", {"text": "a" * 256_000, "start": "a" * 4095 + "b", "end": "]"}),
    }  # fmt: skip
