"""The Makefile's commands do what the README and docs/local.md say, read from ``make -n``: the
options ``make serve`` takes, and ``make bench`` writing its results where git does not look."""

import os
import shutil
import subprocess
from pathlib import Path

from benchmarks.bench import RESULTS
from scripts.serve import KEPT_BUCKET
from scripts.template import ROOT

SERVE_OPTIONS = ("AUTH_MODE", "LOG_LEVEL", "PORT", "S3_PORT", "CHUNKS_FORMAT")


def dry_run(*arguments: str) -> str:
    """The commands ``make`` would run (the last one: the target's own, after any install step)."""
    # make reads its variables from the environment too (the tests set CHUNKS_FORMAT for the chunker)
    env = {name: value for name, value in os.environ.items() if name not in SERVE_OPTIONS}
    result = subprocess.run(
        ["make", "--no-print-directory", "-n", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.replace("\\\n", " ").replace("\t", " ")


def test_make_serve_passes_its_options_on() -> None:
    command = dry_run("serve", "AUTH_MODE=NONE", "LOG_LEVEL=INFO", "PORT=3001", "S3_PORT=5001", "CHUNKS_FORMAT=jsonl")
    (line,) = [line for line in command.splitlines() if "scripts.serve" in line]
    assert line.split() == ["python", "-m", "scripts.serve", "--port", "3001", "--s3-port", "5001", "--auth-mode",
                            "NONE", "--log-level", "INFO", "--chunks-format", "jsonl"]  # fmt: skip


def test_make_empty_local_bucket_removes_the_folder_make_serve_keeps_its_bucket_in() -> None:
    (line,) = dry_run("empty-local-bucket").splitlines()
    assert line.split() == ["rm", "-rf", KEPT_BUCKET.name]
    assert KEPT_BUCKET.parent == ROOT
    ignored = subprocess.run(["git", "check-ignore", "-q", f"{KEPT_BUCKET.name}/x"], cwd=ROOT, check=False)
    assert ignored.returncode == 0  # git ignores it: the user's documents are never committed


def test_make_serve_without_options_takes_the_defaults() -> None:
    (line,) = [line for line in dry_run("serve").splitlines() if "scripts.serve" in line]
    assert line.split() == ["python", "-m", "scripts.serve"]


def test_make_bench_writes_its_results_where_no_tracked_file_changes() -> None:
    relative = RESULTS.relative_to(ROOT).as_posix()
    ignored = subprocess.run(["git", "check-ignore", "-q", relative], cwd=ROOT, check=False)
    tracked = subprocess.run(
        ["git", "ls-files", "--error-unmatch", relative], cwd=ROOT, capture_output=True, check=False
    )
    assert (ignored.returncode, tracked.returncode) == (0, 1)


def fresh_clone(where: Path) -> Path:
    """The files the install steps read, in a directory of their own: nothing installed yet."""
    where.mkdir(exist_ok=True)
    for name in ("Makefile", "requirements-dev.txt", "constraints.txt"):
        shutil.copy(ROOT / name, where / name)
    (where / "src" / "core").mkdir(parents=True)
    for name in ("requirements.txt", "requirements-no-deps.txt", "constraints.txt"):
        shutil.copy(ROOT / "src" / "core" / name, where / "src" / "core" / name)
    return where


def test_without_python_3_13_make_says_what_to_install_or_name(tmp_path: Path) -> None:
    """docs/local.md, "Troubleshooting": not make's "Error 127" but what to do."""
    fresh_clone(tmp_path)
    result = subprocess.run(["make", "serve", "PYTHON=python3.13-not-here"], cwd=tmp_path, capture_output=True,
                            text=True, check=False, timeout=60)  # fmt: skip
    assert result.returncode == 2
    assert "python3.13-not-here not found: install Python 3.13" in result.stderr
    assert "make serve PYTHON=/path/to/python3.13" in result.stderr
    assert not (tmp_path / ".venv").exists()


def machine_without(tmp_path: Path, *missing: str) -> dict[str, str]:
    """An environment whose ``PATH`` holds what the Makefile calls on its own (``uname``, and
    ``node`` and ``npm`` but those ``missing``), and nothing else: no Python, no Node.js."""
    tools = tmp_path / "bin"
    tools.mkdir(parents=True)
    for name in ("uname", "node", "npm"):
        if name not in missing:
            (tools / name).symlink_to(shutil.which(name) or "/bin/true")
    return {"PATH": str(tools), "HOME": str(tmp_path)}


def test_without_node_or_npm_the_tests_say_what_to_install_before_anything_else(tmp_path: Path) -> None:
    """issue 56: commonmark.js, the Markdown tests' judge, runs on Node.js; without it make said
    nothing until a test failed late. Now each target that runs those tests says so at once, in
    one line, before installing anything, and docs/local.md's "Troubleshooting" has the line."""
    clone = fresh_clone(tmp_path / "clone")
    make = shutil.which("make") or "make"
    for missing, goals in (("node", ("test", "test-fast", "unit", "fuzz", "mutate")), ("npm", ("test",))):
        environment = machine_without(tmp_path / missing, missing)
        for goal in goals:
            result = subprocess.run([make, goal], cwd=clone, env=environment, capture_output=True, text=True,
                                    check=False, timeout=60)  # fmt: skip
            assert result.returncode == 2, result.stderr
            said = result.stderr.splitlines()[0]
            assert said.startswith(f"{missing} not found: install Node.js 20 or newer with npm ("), said
            assert said.endswith(f"): make {goal} runs the Markdown tests' reference, commonmark.js, on it")
    assert sorted(path.name for path in clone.iterdir()) == ["Makefile", "constraints.txt", "requirements-dev.txt",
                                                             "src"]  # fmt: skip
    troubleshooting = (ROOT / "docs" / "local.md").read_text(encoding="utf-8").split("## Troubleshooting", 1)[1]
    assert "| `node not found: install Node.js 20 or newer with npm ...`" in troubleshooting


def test_make_serve_needs_no_node(tmp_path: Path) -> None:
    """Without Node.js, make serve goes on to its own check, Python 3.13's."""
    clone = fresh_clone(tmp_path / "clone")
    result = subprocess.run([shutil.which("make") or "make", "serve", "PYTHON=python3.13-not-here"], cwd=clone,
                            env=machine_without(tmp_path, "node", "npm"), capture_output=True, text=True,
                            check=False, timeout=60)  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith("python3.13-not-here not found: install Python 3.13")
