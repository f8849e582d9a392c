"""Who may call the service, what each function may do, and what hostile input gets."""

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from scripts.template import ROOT, functions
from tests.cfn import deployed

CHECKOV = os.environ.get("CHECKOV", str(ROOT / ".venv-scan" / "bin" / "checkov"))
BASIC_EXECUTION = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
BUCKET_ARN = "arn:aws:s3:::text-tools-documents-123456789012-us-east-1"


@pytest.mark.parametrize("template", ["template.yaml", "examples/knowledge-base/template.yaml"])
def test_security_scanner_finds_nothing_unexplained(template: str) -> None:
    """checkov over each template: every finding fixed, or suppressed in the template with a reason."""
    assert Path(CHECKOV).exists(), "make install creates .venv-scan with checkov"
    result = subprocess.run(
        [CHECKOV, "-f", str(ROOT / template), "--framework", "cloudformation", "-o", "json", "--skip-download"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    report = json.loads(result.stdout)
    assert report["results"]["failed_checks"] == []
    assert report["summary"]["passed"] > 0, "the template's resources were scanned"
    skipped = report["results"]["skipped_checks"]
    assert bool(skipped) == ("checkov:" in (ROOT / template).read_text(encoding="utf-8")), "suppressions are read"
    for check in skipped:
        assert len(check["check_result"]["suppress_comment"]) > 40, check["check_id"]


@pytest.fixture(scope="module")
def default_stack() -> dict[str, Any]:
    return deployed()


def roles(stack: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: v["Properties"] for k, v in stack["Resources"].items() if v["Type"] == "AWS::IAM::Role"}


@pytest.mark.parametrize("function", [logical_id for logical_id, spec in functions().items() if spec.routes])
def test_api_functions_may_only_log(default_stack: dict[str, Any], function: str) -> None:
    """Logs, and metrics through the logs (EMF): nothing else, no AWS service call at all."""
    role = roles(default_stack)[f"{function}Role"]
    assert role["ManagedPolicyArns"] == [BASIC_EXECUTION]
    assert "Policies" not in role


@pytest.mark.parametrize("function", ["ChunkDocumentFunction", "BackfillFunction"])
def test_the_document_functions_may_read_incoming_and_write_and_replace_results(
    default_stack: dict[str, Any], function: str
) -> None:
    """Reading and writing outputs only under chunks/ and errors/: looking for a document's other
    outputs (HeadObject, s3:GetObject) and deleting them (exactly one output per document)."""
    role = roles(default_stack)[f"{function}Role"]
    assert role["ManagedPolicyArns"] == [BASIC_EXECUTION]
    statements = [s for policy in role["Policies"] for s in policy["PolicyDocument"]["Statement"]]
    allowed = sorted(
        (action, json.dumps(s["Resource"], sort_keys=True))
        for s in statements
        for action in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    )
    assert all(s["Effect"] == "Allow" for s in statements)
    assert allowed == sorted([
        ("s3:GetObject", json.dumps(f"{BUCKET_ARN}/incoming/*")),
        ("s3:GetObjectVersion", json.dumps(f"{BUCKET_ARN}/incoming/*")),
        ("s3:ListBucket", json.dumps(BUCKET_ARN)),
        ("s3:PutObject", json.dumps([f"{BUCKET_ARN}/chunks/*", f"{BUCKET_ARN}/errors/*"])),
        ("s3:GetObject", json.dumps([f"{BUCKET_ARN}/chunks/*", f"{BUCKET_ARN}/errors/*"])),
        ("s3:DeleteObject", json.dumps([f"{BUCKET_ARN}/chunks/*", f"{BUCKET_ARN}/errors/*"])),
        ("s3:AbortMultipartUpload", json.dumps(f"{BUCKET_ARN}/chunks/*")),
    ] + ([("sqs:SendMessage", json.dumps({"Fn::GetAtt": ["ChunkFailureQueue", "Arn"]}, sort_keys=True))]
         if function == "ChunkDocumentFunction" else []))  # fmt: skip


ROUTES = [
    "/v1/tools/text-delimiter-chunk/versions/1.0.0/execute",
    "/v1/tools/text-extract-between/versions/1.0.0/execute",
    "/v1/tools/text-paragraphs-split/versions/1.0.0/execute",
]


@pytest.mark.parametrize(
    ("mode", "security"), [("API_KEY", [{"api_key": []}]), ("IAM", [{"AWS_IAM": []}]), ("NONE", None)]
)
def test_auth_mode(mode: str, security: list[dict[str, list[str]]] | None) -> None:
    """Every method of every route (POST and the ANY that answers 405) is behind the chosen mode."""
    stack = deployed(AuthMode=mode)
    api = stack["Resources"]["TextToolsApi"]["Properties"]["Body"]
    for route in ROUTES:
        assert set(api["paths"][route]) == {"post", "x-amazon-apigateway-any-method"}
        for method in api["paths"][route].values():
            assert method.get("security") == security
    for name in ("ApiKey", "UsagePlan", "UsagePlanKey"):  # created only where UseApiKey holds
        assert stack["Resources"][name]["Condition"] == "UseApiKey"
    assert stack["Conditions"]["UseApiKey"] == {"Fn::Equals": [mode, "API_KEY"]}


@pytest.mark.parametrize("mode", ["API_KEY", "IAM", "NONE"])
def test_stage_is_throttled_whatever_the_mode(mode: str) -> None:
    stack = deployed(AuthMode=mode, ThrottleRateLimit="7", ThrottleBurstLimit="9")
    (stage,) = [r["Properties"] for r in stack["Resources"].values() if r["Type"] == "AWS::ApiGateway::Stage"]
    assert stage["MethodSettings"] == [
        {"ResourcePath": "/*", "HttpMethod": "*", "ThrottlingRateLimit": "7", "ThrottlingBurstLimit": "9"}
    ]


def test_usage_plan_has_throttling_and_a_daily_quota(default_stack: dict[str, Any]) -> None:
    plan = default_stack["Resources"]["UsagePlan"]["Properties"]
    assert plan["Quota"]["Period"] == "DAY"
    assert set(plan["Throttle"]) == {"RateLimit", "BurstLimit"}


def test_alarms_cover_api_5xx_chunker_errors_and_the_failure_queue(default_stack: dict[str, Any]) -> None:
    alarms = {
        k: v["Properties"] for k, v in default_stack["Resources"].items() if v["Type"] == "AWS::CloudWatch::Alarm"
    }
    metrics = sorted((a["Namespace"], a["MetricName"]) for a in alarms.values())
    assert metrics == [
        ("AWS/ApiGateway", "5XXError"),
        ("AWS/Lambda", "Errors"),
        ("AWS/SQS", "ApproximateNumberOfMessagesVisible"),
    ]
    assert all(a["TreatMissingData"] == "notBreaching" for a in alarms.values())


def test_alarm_topic_is_optional(default_stack: dict[str, Any]) -> None:
    topic = "arn:aws:sns:us-east-1:123456789012:ops"
    with_topic = deployed(AlarmTopicArn=topic)
    for name in ("ApiServerErrorsAlarm", "ChunkerErrorsAlarm", "ChunkFailureQueueAlarm"):
        assert with_topic["Resources"][name]["Properties"]["AlarmActions"] == [topic]
        assert with_topic["Resources"][name]["Properties"]["OKActions"] == [topic]
        assert "AlarmActions" not in default_stack["Resources"][name]["Properties"]
