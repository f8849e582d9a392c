"""Token counts of the deployed Hugging Face tokenizers (``tokenizer`` ``hf:<name>``), exactly as the
``tokenizers`` library gives them: the ids of ``Tokenizer.encode`` of a text alone, truncation and
padding off, the special tokens that the post-processor adds to a single sequence included.

The files are the deployer's: ``tokenizers/<name>.json`` at the project's root. ``sam build`` ships
them in the package of each function that counts tokens (``src/handlers/Makefile``) and records
each one's SHA-256 and special tokens in the layer (``deployed_tokenizers.json`` beside this module,
written by ``src/core/Makefile`` after loading each file with the layer's own library: a file it
cannot load fails the build, naming it). ``make serve`` and the tests read the folder itself.

A tokenizer is loaded on the first request that names it, checked against the recorded SHA-256,
and kept for the life of the process; the library is imported then too (about 30 ms), so no other
request and no other tool pays for it.
"""

import hashlib
import json
import os
import re
from functools import cache
from itertools import accumulate
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple, TypedDict

if TYPE_CHECKING:
    from tokenizers import Tokenizer

PREFIX: Final = "hf:"
"""``tokenizer`` ``hf:<name>`` names the deployed ``<name>.json``."""
NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""A deployed tokenizer's name: the descriptors' pattern after ``hf:`` (a test compares them)."""
FOLDER_VARIABLE: Final = "TEXT_TOOLS_TOKENIZERS"
"""Names another folder of tokenizer files (the tests' and the bench's trained ones)."""
MANIFEST: Final = Path(__file__).with_name("deployed_tokenizers.json")
"""Written by the layer's build: each shipped file's name, SHA-256 and special tokens."""
SOURCE_FOLDER: Final = Path(__file__).resolve().parents[3] / "tokenizers"
"""The project's ``tokenizers/``, read as it is where nothing was built (``make serve``, tests)."""


class TokenizerFileError(RuntimeError):
    """A deployed tokenizer file is missing, cannot be loaded, or is not the file the build recorded:
    the deployment is broken, not the request."""


class Deployed(TypedDict):
    """One deployed tokenizer as the build records it and ``GET /v1/tokenizers`` lists it."""

    name: str
    sha256: str
    special_tokens: int
    """How many ids the post-processor adds to a single sequence ([CLS] and [SEP]: 2)."""
    truncation_max_length: int | None
    """The ``max_length`` of the file's own truncation setting (``None``: it has none): ignored by
    the counts, listed because it is often the model's limit and may disagree with its card."""


def folder() -> Path:
    """Where the tokenizer files are: ``TEXT_TOOLS_TOKENIZERS``, else ``tokenizers/`` in the function's
    package on Lambda (``LAMBDA_TASK_ROOT``), else the project's own folder."""
    if named := os.environ.get(FOLDER_VARIABLE):
        return Path(named)
    if task_root := os.environ.get("LAMBDA_TASK_ROOT"):
        return Path(task_root, "tokenizers")
    return SOURCE_FOLDER


def file_names(source: Path) -> list[str]:
    """The names of the tokenizer files in ``source`` (``<name>.json``), sorted; a ``.json`` file whose
    name does not match ``NAME`` is ``TokenizerFileError`` (no request could name it)."""
    names = []
    for path in sorted(source.glob("*.json")) if source.is_dir() else []:
        if NAME.fullmatch(path.stem) is None:
            raise TokenizerFileError(
                f"{path.name}: a tokenizer file's name must be 1 to 64 letters, digits, '.', '_' or '-', "
                "the first a letter or digit (it is used as hf:<name>)."
            )
        names.append(path.stem)
    return names


class Loaded(NamedTuple):
    sha256: str
    tokenizer: "Tokenizer"


@cache
def load_file(path: Path) -> Loaded:
    """A tokenizer file read and loaded by the library, truncation and padding turned off (a
    published tokenizer.json often has both on, which would cap or pad every count)."""
    from tokenizers import Tokenizer  # noqa: PLC0415  (only a request that names hf:<name> pays the import)

    try:
        contents = path.read_bytes()
        tokenizer = Tokenizer.from_str(contents.decode("utf-8"))
    except Exception as error:  # the library raises plain Exception for a file it cannot read
        raise TokenizerFileError(f"{path.name}: the tokenizers library cannot load it: {error}") from None
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return Loaded(hashlib.sha256(contents).hexdigest(), tokenizer)


def describe(path: Path) -> Deployed:
    """A tokenizer file's entry: its name, SHA-256, special tokens (loading it) and the length its
    own truncation setting cuts at (read from the file as published, before the load turns it off)."""
    loaded = load_file(path)
    truncation = json.loads(path.read_bytes()).get("truncation")
    return {
        "name": path.stem,
        "sha256": loaded.sha256,
        "special_tokens": special_tokens(loaded.tokenizer),
        "truncation_max_length": truncation.get("max_length") if isinstance(truncation, dict) else None,
    }


def special_tokens(tokenizer: "Tokenizer") -> int:
    """How many ids the post-processor adds to a single sequence."""
    return tokenizer.num_special_tokens_to_add(False)


@cache
def deployed() -> dict[str, Deployed]:
    """The deployed tokenizers by name: the build's record, or (nothing built) the folder's files."""
    if MANIFEST.is_file():
        entries: list[Deployed] = json.loads(MANIFEST.read_text(encoding="utf-8"))["tokenizers"]
        return {entry["name"]: entry for entry in entries}
    source = folder()
    return {name: describe(source / f"{name}.json") for name in file_names(source)}


def is_deployed_name(tokenizer: str) -> bool:
    """Whether a ``tokenizer`` value names a deployed tokenizer (``hf:<name>``) rather than an encoding."""
    return tokenizer.startswith(PREFIX)


@cache
def deployed_tokenizer(tokenizer: str) -> "DeployedTokenizer":
    """``hf:<name>``'s tokenizer, loaded on first use and checked against the recorded SHA-256."""
    name = tokenizer.removeprefix(PREFIX)
    entry = deployed()[name]
    loaded = load_file(folder() / f"{name}.json")
    if loaded.sha256 != entry["sha256"]:
        raise TokenizerFileError(f"{name}.json does not have the SHA-256 that the build recorded.")
    return DeployedTokenizer(tokenizer, loaded.tokenizer, entry["special_tokens"])


class DeployedTokenizer:
    """A deployed tokenizer as the size tools count with it."""

    def __init__(self, name: str, tokenizer: "Tokenizer", special: int) -> None:
        self.name = name
        """``hf:<name>``."""
        self.tokenizer = tokenizer
        self.special_tokens = special

    def count(self, text: str) -> int:
        """``tokens(text)``: the ids of ``text`` alone, the special tokens of a single sequence included
        (``encode_batch_fast``: the same ids as ``encode``, without the offsets that a count does not
        read, 10 to 25 % less time here)."""
        return len(self.tokenizer.encode_batch_fast([text])[0])

    def content_ends(self, text: str) -> list[int]:
        """Where each of ``text``'s own tokens (no special tokens) ends, in code points, never before
        the one before (the library's offsets, in order)."""
        offsets = self.tokenizer.encode(text, add_special_tokens=False).offsets
        return list(accumulate(map(itemgetter(1), offsets), max))


def record(source: Path, manifest: Path) -> list[Deployed]:
    """The build's step: load every tokenizer file of ``source`` and write their entries to
    ``manifest`` (``TokenizerFileError`` names a file that cannot be used)."""
    entries = [describe(source / f"{name}.json") for name in file_names(source)]
    manifest.write_text(json.dumps({"tokenizers": entries}, indent=1) + "\n", encoding="utf-8")
    return entries
