"""``sam build`` as the tests and the benchmark run it, and the built files as Lambda extracts them."""

import os
import shutil
import subprocess
from pathlib import Path

from scripts.template import ROOT

DOS_EPOCH = 315_532_800
"""1980-01-01: SAM zips every file without a date, so this is each file's date on Lambda."""


def host_architecture() -> str:
    """The template's ``Architecture`` value that this machine can run (``make`` exports it)."""
    return os.environ.get("HOST_ARCH") or ("arm64" if os.uname().machine in ("aarch64", "arm64") else "x86_64")


def sam_build(target: Path, tokenizers: Path | None = None) -> Path:
    """The template built into ``target`` for this machine, without Docker; returns ``target``.
    ``tokenizers``: the deployed tokenizers' folder instead of the project's ``tokenizers/`` (then
    nothing is taken from SAM's build cache, which does not know of the other folder)."""
    sam = shutil.which("sam")
    assert sam, "sam is installed by make install"
    env = {**os.environ, "SAM_CLI_TELEMETRY": "0"}
    uncached = []
    if tokenizers is not None:
        env["TEXT_TOOLS_TOKENIZERS"] = str(tokenizers)
        uncached = ["--no-cached"]
    subprocess.run(
        [sam, "build", "--template-file", str(ROOT / "template.yaml"), "--build-dir", str(target),
         "--parameter-overrides", f"Architecture={host_architecture()}", *uncached],
        cwd=ROOT, check=True, capture_output=True, env=env,
    )  # fmt: skip
    return target


def as_lambda_extracts(tree: Path) -> None:
    """Date every file and directory under ``tree`` as Lambda's copy of SAM's zip has them."""
    for path in (tree, *tree.rglob("*")):
        os.utime(path, (DOS_EPOCH, DOS_EPOCH), follow_symlinks=False)
