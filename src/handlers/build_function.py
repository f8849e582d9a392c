"""Not deployed: the packaging step of ``sam build`` for each function (this directory's Makefile).

Copies a function's handler module and every module of this directory it imports, directly or
not, into the function's package, with hash-checked bytecode (SAM's zip dates every file 1980,
so a timestamp-checked ``.pyc`` would never match its source on Lambda). Nothing else: no other
function's handler, no documentation code.
"""

import compileall
import py_compile
import re
import shutil
import sys
from modulefinder import ModuleFinder
from pathlib import Path

HERE = Path(__file__).resolve().parent


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


def main() -> None:
    logical_id, artifacts = sys.argv[1], Path(sys.argv[2])
    artifacts.mkdir(parents=True, exist_ok=True)
    for source in local_modules(handler_module(logical_id)):
        shutil.copy2(source, artifacts / source.name)
    compileall.compile_dir(
        artifacts, quiet=1, force=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH
    )


if __name__ == "__main__":
    main()
