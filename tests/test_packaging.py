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
from scripts.sample_events import CHUNK_FUNCTION, SAMPLE_BUCKET, s3_samples, samples
from tests.conftest import outcomes

RUNTIME_SDK = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six")
"""What the Lambda Python runtime itself provides (the AWS SDK): never in the layer, given here."""

RUN_BUILT = """
import json, sys
function_dir, layer_dir, runtime_dir, module, attribute = sys.argv[1:6]
sys.path[:0] = [function_dir, layer_dir] + ([runtime_dir] if runtime_dir else [])
handler = getattr(__import__(module), attribute)

class Context:
    function_name = "built"; memory_limit_in_mb = 128; function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:built"; aws_request_id = "r"
    def get_remaining_time_in_millis(self): return 10000

outcomes = []
for path in json.loads(sys.stdin.read()):
    with open(path, encoding="utf-8") as stream:
        response = handler(json.load(stream), Context())
    if "statusCode" in response:
        body = json.loads(response["body"])
        outcomes.append([path, response["statusCode"], body["error"]["code"] if "error" in body else "ok"])
loaded = sorted({m.__file__.split("/site-packages/")[0] for m in sys.modules.values() if getattr(m, "__file__", None)
                 and "/site-packages/" in m.__file__})
print(json.dumps({"outcomes": outcomes, "site_packages": loaded}))
"""
"""Runs a built function on sample events with only its directory, the layer and (for the
chunker) the runtime's SDK on ``sys.path``; prints the API outcomes and any site-packages used."""


def run_built(build_dir: Path, logical_id: str, events: list[str], env: dict[str, str], runtime_dir: str = "") -> dict:  # type: ignore[type-arg]
    module, _, attribute = functions()[logical_id].handler.rpartition(".")
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", RUN_BUILT, str(build_dir / logical_id),
         str(build_dir / "CoreLayer" / "python"), runtime_dir, module, attribute],
        input=json.dumps(events), capture_output=True, text=True, check=True,
        env={"POWERTOOLS_SERVICE_NAME": "text-tools", "POWERTOOLS_METRICS_NAMESPACE": "TextTools", "PATH": "", **env},
    )  # fmt: skip
    return json.loads(result.stdout.splitlines()[-1])  # type: ignore[no-any-return]


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
    mine = [s for s in samples() if s.function == logical_id]
    report = run_built(build_dir, logical_id, [str(ROOT / s.path) for s in mine], {})
    assert report["outcomes"] == [[str(ROOT / s.path), s.status, s.code] for s in mine]
    assert report["site_packages"] == []  # -S: nothing from any site-packages, only the build


@pytest.fixture
def runtime_sdk(tmp_path: Path) -> Path:
    """A directory holding only the runtime's AWS SDK packages, as the Lambda runtime has them."""
    import importlib

    sdk = tmp_path / "runtime"
    sdk.mkdir()
    for name in RUNTIME_SDK:
        module_file = Path(importlib.import_module(name).__file__ or "")
        source = module_file.parent if module_file.name == "__init__.py" else module_file
        (sdk / source.name).symlink_to(source)
    return sdk


def test_built_chunker_handles_its_sample_events(build_dir: Path, runtime_sdk: Path) -> None:
    """The built S3 function, run against moto's S3 server through the real SDK endpoint setting."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    endpoint = "http://{}:{}".format(*server.get_host_and_port())
    try:
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
        s3.create_bucket(Bucket=SAMPLE_BUCKET)
        expected: dict[str, str] = {}
        for sample in s3_samples():
            for key, body in sample.documents.items():
                s3.put_object(Bucket=SAMPLE_BUCKET, Key=key, Body=body)
            expected.update(sample.outputs)
        env = {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
               "AWS_DEFAULT_REGION": "us-east-1"}  # fmt: skip
        report = run_built(build_dir, CHUNK_FUNCTION, [str(ROOT / s.path) for s in s3_samples()], env, str(runtime_sdk))
        assert report["site_packages"] == []
        written = outcomes(s3, SAMPLE_BUCKET)
    finally:
        server.stop()
    assert written == expected
