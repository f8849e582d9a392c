"""``make invoke FN=<FunctionLogicalId> EVENT=<file>``: one event through one handler, in-process.

The Docker-free stand-in for ``sam local invoke``, and like it: the function gets the template's
environment (a variable already set in the shell wins, so ``POWERTOOLS_LOG_LEVEL=DEBUG`` works),
its code directory and the core layer are on ``sys.path`` as ``/opt/python`` would be, its logs and
metrics go to stderr, and stdout holds only what the invocation returned: the handler's response,
or Lambda's error object (exit status 1) when the handler raised.
"""

import argparse
import contextlib
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from scripts.lambda_events import LocalContext
from scripts.sample_events import CHUNK_FUNCTION
from scripts.template import functions

OBJECT_MISSING = 3
"""The exit status when the document chunker found an event's object gone: nothing was written."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("function", help="logical id in template.yaml, e.g. DelimiterChunkFunction")
    parser.add_argument(
        "event", type=Path, help="event JSON file, e.g. events/DelimiterChunkFunction/success-example-1.json"
    )
    args = parser.parse_args()
    specs = functions()
    if args.function not in specs:
        parser.error(f"no function {args.function!r}; the template has: {', '.join(sorted(specs))}")
    try:
        event = json.loads(args.event.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # as sam local invoke: a usage error, not a traceback
        parser.error(f"cannot read the event {str(args.event)!r}: {error}")
    spec = specs[args.function]
    for name, value in spec.environment.items():
        os.environ.setdefault(name, value)
    sys.path.insert(0, str(spec.code_uri))
    context = LocalContext(args.function)
    status = 0
    # Powertools' log handler keeps the stream it is created with: redirect before the import.
    with contextlib.redirect_stdout(sys.stderr):
        try:
            result: Any = spec.load()(event, context)
        except Exception as error:  # what Lambda answers an invocation whose handler raised
            status, result = 1, lambda_error(error, context.aws_request_id)
    print(json.dumps(result, ensure_ascii=False, indent=2))
    if args.function == CHUNK_FUNCTION and status == 0 and result["outcomes"].get("gone"):
        print(f"{result['outcomes']['gone']} of the event's objects are not in the bucket (or no longer match its ETag "
              "or version), so nothing was written for them; `make sample-documents` puts the sample events' "
              "objects into make serve's S3.", file=sys.stderr)  # fmt: skip
        return OBJECT_MISSING
    return status


def lambda_error(error: Exception, request_id: str) -> dict[str, Any]:
    """The error object Lambda's Python runtime returns (and ``sam local invoke`` prints)."""
    return {
        "errorMessage": str(error),
        "errorType": type(error).__name__,
        "requestId": request_id,
        "stackTrace": traceback.format_list(traceback.extract_tb(error.__traceback__)[1:]),  # not main's frame
    }


if __name__ == "__main__":
    sys.exit(main())
