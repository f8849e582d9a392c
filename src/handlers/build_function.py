"""Not deployed: the packaging step of ``sam build`` for each function (this directory's Makefile).

Copies a function's handler module and every module of this directory it imports, directly or
not, into the function's package, with hash-checked bytecode (SAM's zip dates every file 1980,
so a timestamp-checked ``.pyc`` would never match its source on Lambda). Nothing else: no other
function's handler, no documentation code; but a function that counts tokens (one of its modules
says ``COUNTS_TOKENS = True``: it can run a tool that takes ``tokenizer``) also gets the deployed
tokenizer files, ``tokenizers/<name>.json`` (``./tokenizers`` links to the project's folder;
``TEXT_TOOLS_TOKENIZERS`` names another), which the layer's build checks and records. A module that
says ``SHIPS_FOLDER = "<name>"`` has that folder of this directory shipped beside it (the playground
page's source files, which the discovery function serves).
"""

import compileall
import os
import py_compile
import re
import shutil
import sys
from modulefinder import ModuleFinder
from pathlib import Path

HERE = Path(__file__).resolve().parent
COUNTS_TOKENS = re.compile(r"^COUNTS_TOKENS = True\b", re.MULTILINE)
SHIPS_FOLDER = re.compile(r'^SHIPS_FOLDER = "(?P<name>[A-Za-z0-9_-]+)"', re.MULTILINE)


def handler_module(logical_id: str) -> str:
    """``MyNewToolFunction`` is ``my_new_tool_function`` (the template's ``Handler`` too)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", logical_id).lower()


def local_modules(module: str) -> list[Path]:
    """The module's file and those of every module of this directory it imports (the layer's and
    the runtime's packages are not found here, and are not copied)."""
    finder = ModuleFinder(path=[str(HERE)])
    finder.run_script(str(HERE / f"{module}.py"))
    files = (getattr(imported, "__file__", None) for imported in finder.modules.values())
    found = {Path(file) for file in files if file and Path(file).parent == HERE}
    return sorted(found | {HERE / f"{module}.py"})


def counts_tokens(modules: list[Path]) -> bool:
    """Whether one of a function's modules declares that it can run a tool that takes ``tokenizer``."""
    return any(COUNTS_TOKENS.search(module.read_text(encoding="utf-8")) for module in modules)


def shipped_folders(modules: list[Path]) -> list[Path]:
    """The folders of this directory that a function's modules declare they read at run time."""
    names = {found["name"] for module in modules for found in SHIPS_FOLDER.finditer(module.read_text(encoding="utf-8"))}
    return [HERE / name for name in sorted(names)]


def tokenizer_files() -> list[Path]:
    """The deployed tokenizer files (their names and contents are checked by the layer's build)."""
    folder = Path(os.environ.get("TEXT_TOOLS_TOKENIZERS") or HERE / "tokenizers")
    return sorted(folder.glob("*.json"))


def main() -> None:
    logical_id, artifacts = sys.argv[1], Path(sys.argv[2])
    artifacts.mkdir(parents=True, exist_ok=True)
    modules = local_modules(handler_module(logical_id))
    for source in modules:
        shutil.copy2(source, artifacts / source.name)
    for folder in shipped_folders(modules):
        shutil.copytree(folder, artifacts / folder.name, dirs_exist_ok=True)
    if counts_tokens(modules) and (files := tokenizer_files()):
        (artifacts / "tokenizers").mkdir(exist_ok=True)
        for source in files:
            shutil.copyfile(source, artifacts / "tokenizers" / source.name)
    compileall.compile_dir(
        artifacts, quiet=1, force=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH
    )


if __name__ == "__main__":
    main()
