"""``make openapi``: write ``openapi.json`` from the handlers' definitions (a test fails when stale)."""

import json

from api_docs import build_openapi
from scripts.lambda_runtime import ROOT

OPENAPI = ROOT / "openapi.json"


def render() -> str:
    return json.dumps(build_openapi(), indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    OPENAPI.write_text(render(), encoding="utf-8")
    print(f"wrote {OPENAPI.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
