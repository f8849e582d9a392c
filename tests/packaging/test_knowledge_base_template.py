"""The Knowledge Base transformation in the template (off by default; least privilege; invoked
only by Bedrock from this account) and the example data source template that uses it."""

import json
from typing import Any

import pytest
from cfnlint.api import ManualArgs, lint

from scripts.lambda_events import LOCAL_ACCOUNT_ID, LOCAL_REGION
from scripts.template import ROOT, load_template
from tests.cfn import deployed

TEMPLATE = load_template()
EXAMPLE_PATH = ROOT / "examples" / "knowledge-base" / "template.yaml"
EXAMPLE = load_template(EXAMPLE_PATH)
KNOWLEDGE_BASE_RESOURCES = ["KnowledgeBaseChunkFunction", "KnowledgeBaseChunkLogGroup", "KnowledgeBaseInvokePermission"]
BASIC_EXECUTION = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"


@pytest.fixture(scope="module")
def enabled() -> dict[str, Any]:
    return deployed(EnableKnowledgeBase="true", KnowledgeBaseBucket="kb-bucket", KnowledgeBasePrefix="kb/")


def test_it_is_off_by_default_and_needs_its_bucket_when_on() -> None:
    parameters = TEMPLATE["Parameters"]
    assert (parameters["EnableKnowledgeBase"]["Default"], parameters["KnowledgeBaseBucket"]["Default"]) == ("false", "")
    assert TEMPLATE["Conditions"]["UseKnowledgeBase"] == {"Fn::Equals": [{"Ref": "EnableKnowledgeBase"}, "true"]}
    for logical_id in KNOWLEDGE_BASE_RESOURCES:
        assert TEMPLATE["Resources"][logical_id]["Condition"] == "UseKnowledgeBase"
    output = TEMPLATE["Outputs"]["KnowledgeBaseChunkFunctionArn"]
    assert (output["Condition"], output["Value"]) == (
        "UseKnowledgeBase",
        {"Fn::GetAtt": "KnowledgeBaseChunkFunction.Arn"},
    )
    rule = TEMPLATE["Rules"]["KnowledgeBaseNeedsItsBucket"]
    assert rule["RuleCondition"] == {"Fn::Equals": [{"Ref": "EnableKnowledgeBase"}, "true"]}
    assert rule["Assertions"][0]["Assert"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "KnowledgeBaseBucket"}, ""]}]}


def test_the_role_reads_the_intermediate_prefix_and_writes_only_its_own(enabled: dict[str, Any]) -> None:
    role = enabled["Resources"]["KnowledgeBaseChunkFunctionRole"]["Properties"]
    assert role["ManagedPolicyArns"] == [BASIC_EXECUTION]
    statements = [s for policy in role["Policies"] for s in policy["PolicyDocument"]["Statement"]]
    assert all(s["Effect"] == "Allow" for s in statements)
    allowed = sorted(
        (action, s["Resource"]) for s in statements for action in ([s["Action"]] if isinstance(s["Action"], str)
                                                                    else s["Action"])
    )  # fmt: skip
    assert allowed == [
        ("s3:DeleteObject", "arn:aws:s3:::kb-bucket/kb/text-tools-chunks/*"),
        ("s3:GetObject", "arn:aws:s3:::kb-bucket/kb/*"),
        ("s3:PutObject", "arn:aws:s3:::kb-bucket/kb/text-tools-chunks/*"),
    ]
    variables = enabled["Resources"]["KnowledgeBaseChunkFunction"]["Properties"]["Environment"]["Variables"]
    assert variables["KNOWLEDGE_BASE_OUTPUT_PREFIX"] == "kb/text-tools-chunks/"  # where it may write


def test_the_defaults_are_the_s3_flow_s(enabled: dict[str, Any]) -> None:
    variables = TEMPLATE["Resources"]["KnowledgeBaseChunkFunction"]["Properties"]["Environment"]["Variables"]
    chunker = TEMPLATE["Resources"]["ChunkDocumentFunction"]["Properties"]["Environment"]["Variables"]
    defaults = ("DEFAULT_TOOL", "DEFAULT_PARAMETERS")
    assert {name: variables[name] for name in defaults} == {name: chunker[name] for name in defaults}


def test_only_bedrock_of_this_account_may_invoke_it(enabled: dict[str, Any]) -> None:
    permission = enabled["Resources"]["KnowledgeBaseInvokePermission"]["Properties"]
    assert permission == {
        "Action": "lambda:InvokeFunction",
        "FunctionName": {"Fn::GetAtt": ["KnowledgeBaseChunkFunction", "Arn"]},
        "Principal": "bedrock.amazonaws.com",
        "SourceAccount": LOCAL_ACCOUNT_ID,
        "SourceArn": f"arn:aws:bedrock:{LOCAL_REGION}:{LOCAL_ACCOUNT_ID}:knowledge-base/*",
    }


def test_it_has_the_document_functions_timeout() -> None:
    properties = TEMPLATE["Resources"]["KnowledgeBaseChunkFunction"]["Properties"]
    assert properties["Timeout"] == TEMPLATE["Resources"]["ChunkDocumentFunction"]["Properties"]["Timeout"] == 900


# --- the example data source -----------------------------------------------------------------------


def test_the_example_is_well_formed_for_cfn_lint() -> None:
    assert lint(EXAMPLE_PATH.read_text(encoding="utf-8"), config=ManualArgs(regions=["us-east-1"])) == []


def test_the_example_data_source_hands_whole_documents_to_the_function() -> None:
    source = EXAMPLE["Resources"]["ExactChunksDataSource"]
    assert source["Type"] == "AWS::Bedrock::DataSource"
    ingestion = source["Properties"]["VectorIngestionConfiguration"]
    assert ingestion["ChunkingConfiguration"] == {"ChunkingStrategy": "NONE"}
    custom = ingestion["CustomTransformationConfiguration"]
    assert custom["IntermediateStorage"] == {
        "S3Location": {"URI": {"Fn::Sub": "s3://${IntermediateBucketName}/${IntermediatePrefix}"}}
    }
    lambda_arn = {"LambdaArn": {"Ref": "TransformationFunctionArn"}}
    assert custom["Transformations"] == [
        {"StepToApply": "POST_CHUNKING", "TransformationFunction": {"TransformationLambdaConfiguration": lambda_arn}}
    ]


def test_the_example_s_storage_parameters_are_the_stack_s() -> None:
    """The same bucket and prefix rules as the stack's KnowledgeBaseBucket and KnowledgeBasePrefix."""
    mine, stack = EXAMPLE["Parameters"], TEMPLATE["Parameters"]
    assert mine["IntermediatePrefix"]["AllowedPattern"] == stack["KnowledgeBasePrefix"]["AllowedPattern"]
    assert mine["IntermediatePrefix"]["Default"] == stack["KnowledgeBasePrefix"]["Default"]
    assert "^$|" + mine["IntermediateBucketName"]["AllowedPattern"] == stack["KnowledgeBaseBucket"]["AllowedPattern"]


def test_the_example_lets_the_knowledge_base_role_invoke_the_function_and_use_the_storage() -> None:
    policy = EXAMPLE["Resources"]["KnowledgeBaseRoleCanTransform"]["Properties"]
    assert policy["Roles"] == [{"Ref": "KnowledgeBaseRoleName"}]
    statements = {s["Sid"]: (s["Action"], s["Resource"]) for s in policy["PolicyDocument"]["Statement"]}
    assert statements == {
        "InvokeTheTransformation": (
            "lambda:InvokeFunction",
            [{"Ref": "TransformationFunctionArn"}, {"Fn::Sub": "${TransformationFunctionArn}:*"}],
        ),
        "UseTheIntermediateStorage": (
            ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
            {"Fn::Sub": "arn:${AWS::Partition}:s3:::${IntermediateBucketName}/${IntermediatePrefix}*"},
        ),
        "ListTheIntermediateStorage": (
            "s3:ListBucket",
            {"Fn::Sub": "arn:${AWS::Partition}:s3:::${IntermediateBucketName}"},
        ),
    }
    assert json.dumps(EXAMPLE).count('"Effect": "Allow"') == 3
