"""``make invoke``: one event through one function, as ``sam local invoke`` runs it, without Docker."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.invoke import OBJECT_MISSING
from scripts.lambda_events import LocalContext
from scripts.local_s3 import LocalS3Flow
from scripts.s3_target import CREDENTIALS
from scripts.sample_events import (
    BACKFILL_FUNCTION,
    CHUNK_FUNCTION,
    KNOWLEDGE_BASE_FUNCTION,
    SAMPLE_BUCKET,
    Sample,
    document_samples,
    s3_samples,
    samples,
)
from scripts.template import ROOT, functions
from tests.conftest import SCRIPTS_PYTHONPATH, SampleS3, outcomes

SHELL = {name: value for name, value in os.environ.items() if not name.startswith(("POWERTOOLS_", "AWS_", "MAKE"))}
"""The test process's environment without what conftest sets for in-process handlers (nor the
variables of the ``make test`` around it: ``make invoke`` is run as from a user's shell)."""


def make_invoke(function: str, event: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scripts.invoke", function, event],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=120,
        env={**SHELL, "PYTHONPATH": SCRIPTS_PYTHONPATH, **env},
    )  # fmt: skip


def first_success(function: str) -> Sample:
    return next(s for s in samples() if s.function == function and s.status == 200)


@pytest.mark.parametrize("function", [f for f, spec in functions().items() if spec.routes])
def test_stdout_is_the_response_and_the_logs_go_to_stderr(function: str) -> None:
    sample = first_success(function)
    result = make_invoke(function, sample.path)
    assert result.returncode == 0, result.stderr
    spec = functions()[function]
    event = json.loads((ROOT / sample.path).read_text(encoding="utf-8"))
    assert json.loads(result.stdout) == spec.load()(event, LocalContext(function))
    log, metric = map(json.loads, result.stderr.splitlines())
    # The template's environment, which this shell did not set:
    assert log["service"] == spec.environment["POWERTOOLS_SERVICE_NAME"]
    assert (log["message"], log["code"]) == ("request answered", "ok")
    assert metric["_aws"]["CloudWatchMetrics"][0]["Namespace"] == spec.environment["POWERTOOLS_METRICS_NAMESPACE"]
    assert metric["ok"] == [1.0]


def test_make_invoke_writes_only_the_result_to_stdout_so_that_it_pipes_into_jq() -> None:
    function = next(iter(functions()))
    sample = first_success(function)
    make = ["make", "invoke", f"FN={function}", f"EVENT={sample.path}"]
    result = subprocess.run(make, cwd=ROOT, capture_output=True, text=True, check=False, timeout=120, env=SHELL)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["statusCode"] == sample.status  # nothing but the JSON: no echoed command
    usage = subprocess.run(make[:2], cwd=ROOT, capture_output=True, text=True, check=False, timeout=120, env=SHELL)
    assert (usage.returncode, usage.stdout) == (2, "")
    assert "usage: make invoke FN=" in usage.stderr


def test_a_handler_that_raises_exits_1_and_make_reports_2_as_docs_local_md_says(tmp_path: Path) -> None:
    event = tmp_path / "not-a-batch.json"
    event.write_text("{}", encoding="utf-8")
    direct = make_invoke("BackfillFunction", str(event))
    through_make = subprocess.run(["make", "invoke", "FN=BackfillFunction", f"EVENT={event}"], cwd=ROOT,
                                  capture_output=True, text=True, check=False, timeout=120, env=SHELL)  # fmt: skip
    assert (direct.returncode, through_make.returncode) == (1, 2)
    assert json.loads(direct.stdout)["errorType"] == json.loads(through_make.stdout)["errorType"] == "KeyError"
    page = (ROOT / "docs" / "local.md").read_text(encoding="utf-8")
    assert "exits with status 1" in page
    assert "its own exit status, 2" in page


def test_a_variable_set_in_the_shell_wins_over_the_template() -> None:
    function = next(iter(functions()))
    result = make_invoke(function, first_success(function).path, POWERTOOLS_LOG_LEVEL="WARNING")
    assert result.returncode == 0
    assert [json.loads(line).get("message") for line in result.stderr.splitlines()] == [None]  # the metric only


@pytest.mark.parametrize("sample", document_samples(), ids=lambda s: s.path)
def test_the_document_functions_write_their_outputs_to_the_s3_the_sdk_points_at(
    sample: Sample, sample_s3: SampleS3
) -> None:
    result = make_invoke(sample.function, sample.path, **sample_s3.environment)
    assert result.returncode == (0 if sample.code == "ok" else 1), result.stdout + result.stderr
    answer = json.loads(result.stdout)
    if sample.function == KNOWLEDGE_BASE_FUNCTION and sample.code == "ok":
        assert len(answer["outputFiles"]) == len(sample.event["inputFiles"])
    elif sample.function == KNOWLEDGE_BASE_FUNCTION:
        assert f": {sample.code}: " in answer["errorMessage"]
    else:
        documents = len(sample.event.get("Records") or sample.event["Items"])
        assert answer["records" if sample.function == CHUNK_FUNCTION else "documents"] == documents
    assert outcomes(sample_s3.client, SAMPLE_BUCKET) == sample.outputs


def test_a_sample_s3_event_runs_against_make_serves_s3_after_make_sample_documents(flow: LocalS3Flow) -> None:
    """docs/local.md's loop: without its document the oversize sample writes nothing and exits 3,
    saying so; ``make sample-documents`` puts it in ``make serve``'s bucket, and the event then
    writes its error object."""
    (sample,) = [s for s in s3_samples() if s.case == "oversize"]
    missing = make_invoke(CHUNK_FUNCTION, sample.path, **CREDENTIALS, AWS_ENDPOINT_URL=flow.endpoint)
    assert missing.returncode == OBJECT_MISSING
    assert json.loads(missing.stdout)["outcomes"] == {"gone": 1}
    assert "1 of the event's objects are not in the bucket" in missing.stderr
    assert "`make sample-documents`" in missing.stderr
    assert "errors/huge.txt.json" not in outcomes(flow.s3, flow.bucket)
    shell = {**SHELL, **CREDENTIALS, "AWS_ENDPOINT_URL": flow.endpoint}
    written = subprocess.run(["make", "-s", "sample-documents"], cwd=ROOT, capture_output=True, text=True,
                             check=False, timeout=300, env=shell)  # fmt: skip
    assert written.returncode == 0, written.stdout + written.stderr
    result = make_invoke(CHUNK_FUNCTION, sample.path, **CREDENTIALS, AWS_ENDPOINT_URL=flow.endpoint)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["outcomes"] == {"input_too_large": 1}
    assert sample.outputs == {"errors/huge.txt.json": "input_too_large"}
    assert set(sample.outputs.items()) <= set(outcomes(flow.s3, flow.bucket).items())


def test_a_handler_that_raises_gives_lambdas_error_object_and_exit_status_1() -> None:
    """No S3 to reach: the chunker raises so that Lambda retries the event."""
    unreachable = {**CREDENTIALS, "AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_MAX_ATTEMPTS": "1"}
    result = make_invoke(CHUNK_FUNCTION, s3_samples()[0].path, **unreachable)
    assert result.returncode == 1
    error = json.loads(result.stdout)
    assert error["errorType"] == "TransientFailure"
    assert error["errorMessage"] == "1 of 1 documents failed and will be retried"
    assert error["stackTrace"][-1].startswith(f'  File "{ROOT / "src/handlers/s3_documents.py"}"')
    assert "scripts/invoke.py" not in error["stackTrace"][0]
    assert json.loads(result.stderr.splitlines()[0])["message"] == "S3 call failed; it will be retried"


def test_an_unknown_function_is_refused_with_the_template_s_names() -> None:
    result = make_invoke("NoSuchFunction", first_success(next(iter(functions()))).path)
    assert result.returncode == 2
    assert "the template has: " + ", ".join(sorted(functions())) in result.stderr


@pytest.mark.parametrize(
    ("event", "reason"), [("events/no-such-event.json", "No such file"), ("Makefile", "Expecting value")]
)
def test_an_event_that_cannot_be_read_is_a_usage_error(event: str, reason: str) -> None:
    result = make_invoke(next(iter(functions())), event)
    assert (result.returncode, result.stdout) == (2, "")
    assert f"cannot read the event '{event}': " in result.stderr
    assert reason in result.stderr
    assert "Traceback" not in result.stderr


def test_make_sample_documents_writes_what_each_printed_invoke_reads(flow: LocalS3Flow) -> None:
    """docs/local.md's loop: ``make sample-documents``, then the ``make invoke`` lines it prints for
    the document functions, each ending as its sample says (a failing file exits 1 and names its
    error code)."""
    shell = {**SHELL, **CREDENTIALS}
    written = subprocess.run(["make", "-s", "sample-documents"], cwd=ROOT, capture_output=True, text=True, check=False,
                             timeout=300, env={**shell, "AWS_ENDPOINT_URL": flow.endpoint})  # fmt: skip
    assert written.returncode == 0, written.stdout + written.stderr
    commands = [line.strip() for line in written.stdout.splitlines() if "make invoke" in line]
    expected = document_samples()
    assert {CHUNK_FUNCTION, BACKFILL_FUNCTION, KNOWLEDGE_BASE_FUNCTION} == {sample.function for sample in expected}
    assert [command.partition(" EVENT=")[2].split()[0] for command in commands] == [s.path for s in expected]
    for sample, command in zip(expected, commands, strict=True):
        assert command.startswith(f"AWS_ENDPOINT_URL={flow.endpoint} make invoke FN={sample.function} ")
        result = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, check=False,
                                timeout=300, env=shell)  # fmt: skip
        assert (result.returncode == 0) == (sample.code == "ok"), result.stdout + result.stderr  # make's own status: 2
        if sample.code != "ok":
            assert f": {sample.code}: " in json.loads(result.stdout)["errorMessage"]
    written_now = outcomes(flow.s3, flow.bucket)  # (the module's flow is shared: other tests' outputs too)
    assert {key: written_now.get(key) for sample in expected for key in sample.outputs} == {
        key: code for sample in expected for key, code in sample.outputs.items()
    }
