"""The project's commands (``python -m scripts.<name>``; the Makefile runs them).

The layer's and the functions' source go on ``sys.path`` here, as ``make`` puts them on
``PYTHONPATH``, so that ``.venv/bin/python -m scripts.serve`` works without ``make`` too.
"""

import sys
from pathlib import Path

for _source in ("src/handlers", "src/core"):
    _path = str(Path(__file__).resolve().parent.parent / _source)
    if _path not in sys.path:
        sys.path.insert(0, _path)
