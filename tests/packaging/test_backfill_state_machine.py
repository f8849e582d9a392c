"""The backfill's state machine, read: Step Functions Local has no Distributed Map, so its ASL is
checked against the template parameters it uses, against the document flows' rules, and by
cfn-lint's state machine schema."""

import json
import re
from typing import Any

import pytest
from cfnlint.api import ManualArgs, lint

import s3_documents
from scripts.backfill import STATE_MACHINE, state_machine_definition
from scripts.template import ROOT, functions, load_template, parameter_defaults
from tests.cfn import deployed
from texttools.documents import INCOMING

TEMPLATE = load_template()
PROPERTIES = TEMPLATE["Resources"][STATE_MACHINE]["Properties"]
RAW = (ROOT / PROPERTIES["DefinitionUri"]).read_text(encoding="utf-8")
STAND_INS = {"DocumentsBucket": "documents-bucket", "BackfillFunctionArn": "arn:aws:lambda:us-east-1:1:function:f"}
SENTINELS = {name: str(1001 + index) for index, name in enumerate(PROPERTIES["DefinitionSubstitutions"])} | STAND_INS
"""A value of its own for each substitution, so that each place in the ASL shows which one it holds."""
DEFINITION = state_machine_definition(TEMPLATE, SENTINELS)
STATES = DEFINITION["States"]
MAP = STATES["ChunkDocuments"]
(TASK,) = MAP["ItemProcessor"]["States"].values()


def placeholder(value: Any) -> str:
    """Which substitution a value of the ASL is."""
    (name,) = [name for name, sentinel in SENTINELS.items() if str(value) == sentinel]
    return str(name)


def test_every_placeholder_of_the_asl_is_a_substitution_and_every_substitution_is_used() -> None:
    assert set(re.findall(r"\$\{(\w+)\}", RAW)) == set(PROPERTIES["DefinitionSubstitutions"])


def test_substitutions_are_the_template_parameters_and_resources() -> None:
    assert PROPERTIES["DefinitionSubstitutions"] == {
        "DocumentsBucket": {"Ref": "DocumentsBucket"},
        "BackfillFunctionArn": {"Fn::GetAtt": "BackfillFunction.Arn"},
        "BatchKeys": {"Ref": "BackfillBatchKeys"},
        "BatchBytes": {"Ref": "BackfillBatchBytes"},
        "MaxConcurrency": {"Ref": "BackfillMaxConcurrency"},
        "ToleratedFailurePercentage": {"Ref": "BackfillToleratedFailurePercentage"},
    }


def test_a_prefix_outside_incoming_fails_before_anything_is_listed() -> None:
    check = STATES[DEFINITION["StartAt"]]
    assert check["Type"] == "Choice"
    absent, inside = check["Choices"]
    assert absent == {"Variable": "$.prefix", "IsPresent": False, "Next": "WholeIncoming"}
    assert STATES["WholeIncoming"] == {"Type": "Pass", "Result": {"prefix": INCOMING}, "Next": "ChunkDocuments"}
    rules = [{"Variable": "$.prefix", "IsString": True}, {"Variable": "$.prefix", "StringMatches": f"{INCOMING}*"}]
    assert inside == {"And": rules, "Next": "ChunkDocuments"}
    fail = STATES[check["Default"]]
    assert (fail["Type"], fail["Error"]) == ("Fail", "PrefixOutsideIncoming")
    assert INCOMING in fail["Cause"]


def test_the_reader_lists_the_bucket_under_the_prefix() -> None:
    assert MAP["ItemProcessor"]["ProcessorConfig"] == {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}
    reader = {"Bucket": STAND_INS["DocumentsBucket"], "Prefix.$": "$.prefix"}
    assert MAP["ItemReader"] == {"Resource": "arn:aws:states:::s3:listObjectsV2", "Parameters": reader}


def test_the_batcher_concurrency_and_tolerance_are_the_parameters() -> None:
    batcher = MAP["ItemBatcher"]
    assert placeholder(batcher["MaxItemsPerBatch"]) == "BatchKeys"
    assert placeholder(batcher["MaxInputBytesPerBatch"]) == "BatchBytes"
    assert batcher["BatchInput"] == {"bucket": STAND_INS["DocumentsBucket"]}  # the function's BatchInput.bucket
    assert placeholder(MAP["MaxConcurrency"]) == "MaxConcurrency"
    assert placeholder(MAP["ToleratedFailurePercentage"]) == "ToleratedFailurePercentage"
    # Numbers in the raw file, not strings: CloudFormation substitutes them as they stand.
    for name in ("BatchKeys", "BatchBytes", "MaxConcurrency", "ToleratedFailurePercentage"):
        assert re.search(rf":\s*\$\{{{name}\}}", RAW), name


def test_parameter_bounds_fit_step_functions() -> None:
    parameters = TEMPLATE["Parameters"]
    assert parameters["BackfillBatchBytes"]["MaxValue"] == 262_144  # ItemBatcher's MaxInputBytesPerBatch limit
    assert parameters["BackfillMaxConcurrency"]["MaxValue"] == 10_000  # a Distributed Map's most children
    assert (parameters["BackfillToleratedFailurePercentage"]["MinValue"],
            parameters["BackfillToleratedFailurePercentage"]["MaxValue"]) == (0, 100)  # fmt: skip
    assert parameter_defaults(TEMPLATE)["BackfillMaxConcurrency"] == "100"  # docs/documents.md: a tenth of 1 000


def test_each_batch_runs_the_backfill_function_and_is_retried_on_throttling_and_s3_faults() -> None:
    assert TASK["Resource"] == "arn:aws:states:::lambda:invoke"
    assert TASK["Parameters"] == {"FunctionName": STAND_INS["BackfillFunctionArn"], "Payload.$": "$"}
    assert TASK["ResultSelector"] == {"documents.$": "$.Payload.documents", "outcomes.$": "$.Payload.outcomes"}
    retried = {error: rule for rule in TASK["Retry"] for error in rule["ErrorEquals"]}
    assert {"Lambda.TooManyRequestsException", "Lambda.ServiceException"} <= set(retried)
    # What the function raises for a problem of S3, by the name Lambda reports as the error's type.
    assert s3_documents.TransientFailure.__name__ in retried
    for rule in TASK["Retry"]:
        assert rule["MaxAttempts"] >= 3
        assert rule["BackoffRate"] >= 2
        assert rule["JitterStrategy"] == "FULL"


def test_the_report_is_written_under_backfill_reports_and_only_there() -> None:
    assert MAP["ResultWriter"] == {"Resource": "arn:aws:states:::s3:putObject",
                                   "Parameters": {"Bucket": STAND_INS["DocumentsBucket"],
                                                  "Prefix": "backfill-reports"}}  # fmt: skip
    statements = {s["Sid"]: s for s in PROPERTIES["Policies"][1]["Statement"]}
    assert statements["WriteReports"]["Resource"] == {"Fn::Sub": "${DocumentsBucket.Arn}/backfill-reports/*"}
    assert statements["ListDocuments"]["Action"] == "s3:ListBucket"
    assert statements["ListDocuments"]["Condition"] == {"StringLike": {"s3:prefix": f"{INCOMING}*"}}


def test_the_state_machine_may_run_its_own_batches_and_nothing_else() -> None:
    name = PROPERTIES["Name"]["Fn::Sub"]
    statements = {s["Sid"]: s for s in PROPERTIES["Policies"][1]["Statement"]}
    assert statements["RunBatches"]["Resource"]["Fn::Sub"].endswith(f":stateMachine:{name}")
    assert statements["WatchAndRedriveBatches"]["Resource"]["Fn::Sub"].endswith(f":execution:{name}/*")
    assert PROPERTIES["Policies"][0] == {"LambdaInvokePolicy": {"FunctionName": {"Ref": "BackfillFunction"}}}


def test_the_backfill_function_writes_what_the_event_flow_writes() -> None:
    """The same environment (defaults, format, size limit), memory, timeout and S3 rights."""
    specs = functions(TEMPLATE)
    backfill, chunker = specs["BackfillFunction"].properties, specs["ChunkDocumentFunction"].properties
    assert specs["BackfillFunction"].environment == specs["ChunkDocumentFunction"].environment
    for key in ("MemorySize", "Timeout", "Policies"):
        assert backfill[key] == chunker[key], key


def test_cfn_lint_finds_the_definition_well_formed() -> None:
    """With the parameters' defaults, as a stack deployed with them gets it."""
    definition = state_machine_definition(TEMPLATE, STAND_INS)
    stand_in = {"AWSTemplateFormatVersion": "2010-09-09", "Resources": {"Backfill": {
        "Type": "AWS::StepFunctions::StateMachine",
        "Properties": {"RoleArn": "arn:aws:iam::123456789012:role/backfill", "Definition": definition}}}}  # fmt: skip
    assert lint(json.dumps(stand_in), config=ManualArgs(regions=["us-east-1"])) == []


@pytest.mark.parametrize("prefix", ["incoming/", "incoming/2026/", "incoming/a b/"])
def test_the_asl_pattern_admits_what_the_documents_flow_reads(prefix: str) -> None:
    """Step Functions' StringMatches has one wildcard, ``*``: ``incoming/*`` is every prefix that starts so."""
    pattern = STATES[DEFINITION["StartAt"]]["Choices"][1]["And"][1]["StringMatches"]
    assert prefix.startswith(pattern.removesuffix("*"))


def test_the_deployed_stack_has_the_state_machine_and_its_output() -> None:
    stack = deployed()
    machines = [r for r in stack["Resources"].values() if r["Type"] == "AWS::StepFunctions::StateMachine"]
    assert len(machines) == 1
    assert TEMPLATE["Outputs"]["BackfillStateMachineArn"]["Value"] == {"Ref": STATE_MACHINE}
