"""Every curl line of the README works as written against ``make serve``'s API."""

import json
import re
import shlex
import subprocess

import pytest

from scripts.serve import LOCAL_API_KEY
from scripts.template import ROOT
from tests.conftest import TEST_API_KEY

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```sh\n(.*?)```", README, flags=re.DOTALL)
CURLS = [
    line for block in BLOCKS for line in block.replace("\\\n", " ").splitlines() if line.lstrip().startswith("curl ")
]


def test_the_readme_has_curl_lines() -> None:
    assert len(CURLS) >= 4


@pytest.mark.parametrize("command", CURLS)
def test_each_readme_curl_line_answers_200_with_json(command: str, base_url: str) -> None:
    # The README's base is make serve's (localhost:3000 or $BASE) and its key local-key ($KEY).
    line = command.split(" #", maxsplit=1)[0].replace("$BASE", base_url).replace("localhost:3000", base_url)
    line = line.replace("$KEY", LOCAL_API_KEY).replace(LOCAL_API_KEY, TEST_API_KEY)
    result = subprocess.run([*shlex.split(line), "-s", "-w", "\n%{http_code}"], capture_output=True, text=True,
                            check=True, timeout=30)  # fmt: skip
    body, status = result.stdout.rsplit("\n", 1)
    assert status == "200", body
    assert "error" not in json.loads(body)
