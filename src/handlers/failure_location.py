"""Where an unexpected exception was raised, for the log: file and line, never what it said.

A traceback, an exception's type name or its message can carry user text; a location cannot.
"""

import sys


def failure_location() -> str:
    """``file:line`` of the innermost frame of the exception being handled."""
    frame = sys.exc_info()[2]
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    return f"{frame.tb_frame.f_code.co_filename}:{frame.tb_lineno}" if frame else "unknown"
