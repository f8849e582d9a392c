"""``make invoke FN=<FunctionLogicalId> EVENT=<file>``: one event through one handler, in-process.

The Docker-free stand-in for ``sam local invoke``: the function's code directory and the core
layer are on ``sys.path`` as ``/opt/python`` would be, and the response is printed as JSON.
"""

import argparse
import json
import os
import sys
from pathlib import Path

from scripts.lambda_runtime import LocalContext, functions


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
    os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "text-tools")
    os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "TextTools")
    spec = specs[args.function]
    sys.path.insert(0, str(spec.code_uri))
    event = json.loads(args.event.read_text(encoding="utf-8"))
    response = spec.load()(event, LocalContext(args.function))
    print(json.dumps(response, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
