"""The project's commands (``python -m scripts.<name>``; the Makefile runs them).

The layer's and the functions' source go on ``sys.path`` here, as ``make`` puts them on
``PYTHONPATH``, so that ``.venv/bin/python -m scripts.serve`` works without ``make`` too.
"""

import sys
from pathlib import Path

SOURCE_DIRS = tuple(str(Path(__file__).resolve().parent.parent / part) for part in ("src/core", "src/handlers"))
"""The layer's and the functions' source, as ``make`` puts them on ``PYTHONPATH``."""

for _path in reversed(SOURCE_DIRS):
    if _path not in sys.path:
        sys.path.insert(0, _path)
