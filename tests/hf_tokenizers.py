"""Small Hugging Face tokenizers of the three families embedding models use, trained here by the
``tokenizers`` library itself (no download), saved as tokenizer.json files as a model's hub page
ships them: truncation and padding on, so that a count that forgot to turn them off is caught.

- ``wordpiece``: WordPiece with the BERT normalizer and pre-tokenizer and the ``[CLS] $A [SEP]``
  template (BGE, E5, GTE, MiniLM, Nomic: 2 special tokens);
- ``bytelevel``: byte-level BPE with the RoBERTa processor (``<s> $A </s>``: 2 special tokens);
- ``unigram``: Unigram with NFKC and Metaspace, and a ``$A </s>`` template (T5 and multilingual
  models' SentencePiece: 1 special token).

``bench`` is a byte-level BPE with a large vocabulary, about 1 MB of JSON: the bench's first request.
"""

import json
import random
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.workloads import prose_text
from scripts.template import ROOT

if TYPE_CHECKING:
    from tokenizers import Tokenizer

FAMILIES = ("wordpiece", "bytelevel", "unigram")
SPECIAL_TOKENS = {"wordpiece": 2, "bytelevel": 2, "unigram": 1}
MIXED = (
    "café naïve über señor façade Ωmega ß 東京 日本語です 第一句。第二句\uff01 😀 🚀 👨‍👩‍👧 🇫🇷 क्ष ภาษาไทย "
    "Привет мир مرحبا 안녕하세요 e\u0301 https://example.com/a?b=c internationalization strawberry"
)


def corpus(repeat: int = 1) -> Iterator[str]:
    """Lines of English prose, a real manual (Markdown) and mixed scripts, emoji and marks."""
    manual = (ROOT / "benchmarks" / "data" / "nodejs-fs.md").read_text(encoding="utf-8")
    for _ in range(repeat):
        yield from prose_text(120_000).splitlines()
        yield from manual.splitlines()
        yield from [MIXED] * 50


def invented_words(count: int, seed: int = 5) -> Iterator[str]:
    """Lines of made-up words of two to five syllables: many distinct words, so that a large
    vocabulary has merges to learn (the bench's tokenizer of about 1 MB)."""
    rng = random.Random(seed)  # noqa: S311 (made-up words, not secrets)
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou", "er")]
    for _ in range(count // 12):
        yield " ".join("".join(rng.choices(syllables, k=rng.randint(2, 5))) for _ in range(12))


def _wordpiece(vocab: int) -> "Tokenizer":
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    tokenizer.train_from_iterator(corpus(), trainers.WordPieceTrainer(vocab_size=vocab, special_tokens=specials))
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[(name, tokenizer.token_to_id(name)) for name in ("[CLS]", "[SEP]")],
    )
    return tokenizer


def _id(tokenizer: "Tokenizer", token: str) -> int:
    found = tokenizer.token_to_id(token)
    assert found is not None, token
    return found


def _bytelevel(vocab: int) -> "Tokenizer":
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    lines = chain(corpus(), invented_words(100_000)) if vocab > 10_000 else corpus()
    tokenizer.train_from_iterator(lines, trainer)
    tokenizer.post_processor = processors.RobertaProcessing(
        ("</s>", _id(tokenizer, "</s>")), ("<s>", _id(tokenizer, "<s>"))
    )
    return tokenizer


def _unigram(vocab: int) -> "Tokenizer":
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.NFKC()
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=vocab, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>")
    tokenizer.train_from_iterator(corpus(), trainer)
    tokenizer.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", tokenizer.token_to_id("</s>"))]
    )
    return tokenizer


TRAINERS: dict[str, tuple[Callable[[int], "Tokenizer"], int]] = {
    "wordpiece": (_wordpiece, 3000),
    "bytelevel": (_bytelevel, 3000),
    "unigram": (_unigram, 3000),
    "bench": (_bytelevel, 16_000),
}


def train(folder: Path, names: tuple[str, ...] = FAMILIES) -> Path:
    """Each named tokenizer trained and saved as ``folder/<name>.json`` with truncation (16 tokens)
    and padding (32) on, as many published files have them; returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        make, vocab = TRAINERS[name]
        tokenizer = make(vocab)
        tokenizer.enable_truncation(16)
        tokenizer.enable_padding(length=32)
        tokenizer.save(str(folder / f"{name}.json"))
        assert json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))["truncation"] is not None
    return folder


if __name__ == "__main__":  # pragma: no cover
    import sys

    train(Path(sys.argv[1]), tuple(sys.argv[2:]) or FAMILIES)
