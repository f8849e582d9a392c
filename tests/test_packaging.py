"""``sam build`` (no Docker), then each built function run as Lambda would run it.

The function directory and the layer's ``python/`` (standing in for ``/opt/python``) are the only
paths besides the standard library: nothing from the source tree or the dev environment leaks in.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.lambda_runtime import ROOT, functions
from scripts.sample_events import samples

RUN_BUILT = """
import json, sys
function_dir, layer_dir, module, attribute = sys.argv[1:5]
sys.path[:0] = [function_dir, layer_dir]
handler = getattr(__import__(module), attribute)

class Context:
    function_name = "built"; memory_limit_in_mb = 128; function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:built"; aws_request_id = "r"
    def get_remaining_time_in_millis(self): return 10000

outcomes = []
for path in json.loads(sys.stdin.read()):
    with open(path, encoding="utf-8") as stream:
        response = handler(json.load(stream), Context())
    body = json.loads(response["body"])
    outcomes.append([path, response["statusCode"], body["error"]["code"] if "error" in body else "ok"])
loaded = sorted({m.__file__.split("/site-packages/")[0] for m in sys.modules.values() if getattr(m, "__file__", None)
                 and "/site-packages/" in m.__file__})
print(json.dumps({"outcomes": outcomes, "site_packages": loaded}))
"""


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sam = shutil.which("sam")
    assert sam, "sam is installed by make install"
    target = tmp_path_factory.mktemp("sam") / "build"
    arch = os.environ.get("HOST_ARCH") or ("arm64" if os.uname().machine in ("aarch64", "arm64") else "x86_64")
    subprocess.run(
        [sam, "build", "--template-file", str(ROOT / "template.yaml"), "--build-dir", str(target),
         "--parameter-overrides", f"Architecture={arch}"],
        cwd=ROOT, check=True, capture_output=True, env={**os.environ, "SAM_CLI_TELEMETRY": "0"},
    )  # fmt: skip
    return target


def test_layer_holds_the_core_one_level_down_and_no_aws_sdk(build_dir: Path) -> None:
    layer = build_dir / "CoreLayer" / "python"
    assert (layer / "texttools" / "__init__.py").is_file()
    for package in ("aws_lambda_powertools", "pydantic", "pydantic_core", "orjson"):
        assert (layer / package).is_dir(), package
    assert not (layer / "boto3").exists()
    assert not (layer / "botocore").exists()


@pytest.mark.parametrize("logical_id", list(dict.fromkeys(s.function for s in samples())))
def test_built_function_answers_its_sample_events(build_dir: Path, logical_id: str) -> None:
    spec = functions()[logical_id]
    module, _, attribute = spec.handler.rpartition(".")
    mine = [s for s in samples() if s.function == logical_id]
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", RUN_BUILT, str(build_dir / logical_id),
         str(build_dir / "CoreLayer" / "python"), module, attribute],
        input=json.dumps([str(ROOT / s.path) for s in mine]), capture_output=True, text=True, check=True,
        env={"POWERTOOLS_SERVICE_NAME": "text-tools", "POWERTOOLS_METRICS_NAMESPACE": "TextTools", "PATH": ""},
    )  # fmt: skip
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["outcomes"] == [[str(ROOT / s.path), s.status, s.code] for s in mine]
    assert report["site_packages"] == []  # -S: nothing from any site-packages, only the build
