"""The pinned environments agree: ``make mutate`` tests the code with the libraries CI tests it with."""

import re

from scripts.template import ROOT

ONLY_IN_MUTATE = {"click"}
"""mutmut needs a newer click than aws-sam-cli pins (the reason .venv-mutate is a venv of its own)."""


def pins(name: str) -> dict[str, str]:
    """``package: version`` of a constraints file, following its ``-c`` includes."""
    found: dict[str, str] = {}
    path = ROOT / name
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("-c "):
            found |= pins(str((path.parent / line[3:]).relative_to(ROOT)))
        elif match := re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+)", line):
            found[re.sub(r"[-_.]+", "-", match[1]).lower()] = match[2]
    return found


def test_the_mutation_venv_pins_what_ci_tests_with() -> None:
    dev, mutate = pins("constraints.txt"), pins("constraints-mutate.txt")
    assert pins("src/core/constraints.txt").items() <= dev.items()
    shared = dev.keys() & mutate.keys()
    assert {"aws-lambda-powertools", "pydantic", "orjson", "pytest", "hypothesis", "moto"} <= shared
    assert {name for name in shared if dev[name] != mutate[name]} == ONLY_IN_MUTATE
