"""template.yaml says what API.md and the descriptors say: routes, runtime, layer, gateway answers."""

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest

from scripts.lambda_events import LOCAL_REGION
from scripts.template import ROOT, SOURCE_PYTHONPATH, functions, load_template
from tests.cfn import deployed
from tests.conftest import descriptor
from texttools.errors import ERROR_TABLE, GATEWAY_RESPONSES
from texttools.registry import TOOL_IDS, tools

TOOLS = tools()

TEMPLATE = load_template()
RESOURCES = TEMPLATE["Resources"]
API_FUNCTIONS = {logical_id: spec for logical_id, spec in functions(TEMPLATE).items() if spec.routes}
SHARED_FUNCTIONS = ("DiscoveryFunction", "McpFunction")
"""The API functions that serve no single tool: discovery and MCP."""
TOOL_FUNCTIONS = {logical_id: spec for logical_id, spec in API_FUNCTIONS.items() if logical_id not in SHARED_FUNCTIONS}


def test_each_descriptor_route_is_served_by_one_function_for_post_and_any_other_method() -> None:
    served = {}
    for spec in TOOL_FUNCTIONS.values():
        paths = {route.path for route in spec.routes}
        assert len(paths) == 1
        assert {route.method for route in spec.routes} == {"POST", "ANY"}
        served[paths.pop()] = spec.logical_id
    assert sorted(served) == sorted(descriptor(t)["execute_url"] for t in TOOL_IDS)


def routes_of(logical_id: str) -> set[tuple[str, str, bool]]:
    return {(route.method, route.path, route.open_to_all) for route in API_FUNCTIONS[logical_id].routes}


def test_discovery_serves_its_routes_each_with_any_other_method() -> None:
    """API.md's four GET paths and ``/openapi.json``, plus each descriptor's own path: API Gateway
    sends a path matching a literal resource (the execute route's parents) there and never to the
    ``{id}`` resource beside it. Health, the OpenAPI document and the playground page need no key or
    signature."""
    published = [f"/v1/tools/{tool.id}/versions/{tool.version}" for tool in TOOLS.values()]
    paths = {"/v1/tools": False, "/v1/tools/{id}/versions/{version}": False, "/v1/tokenizers": False,
             "/v1/health": True, "/openapi.json": True, "/v1/playground": True}  # fmt: skip
    paths |= dict.fromkeys(published, False)
    expected = {(method, path, open_) for path, open_ in paths.items() for method in ("GET", "ANY")}
    assert routes_of("DiscoveryFunction") == expected


def test_mcp_is_one_post_route_behind_the_api_s_auth() -> None:
    assert routes_of("McpFunction") == {("POST", "/mcp", False), ("ANY", "/mcp", False)}


@pytest.mark.parametrize("auth_mode", ["API_KEY", "IAM", "NONE"])
def test_deployed_auth_opens_health_openapi_and_the_playground_only(auth_mode: str) -> None:
    """As CloudFormation deploys the API: the open routes carry no key or authorizer in any mode;
    every other method of the API has the mode's own."""
    (api,) = [r for r in deployed(AuthMode=auth_mode)["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi"]
    security: dict[str, tuple[Any, Any]] = {  # (every other route, the open ones), as SAM writes them
        "API_KEY": ([{"api_key": []}], []),
        "IAM": ([{"AWS_IAM": []}], [{"NONE": []}]),
        "NONE": (None, None),
    }
    guarded, opened = security[auth_mode]
    for path, methods in api["Properties"]["Body"]["paths"].items():
        for method, operation in methods.items():
            expected = opened if path in ("/v1/health", "/openapi.json", "/v1/playground") else guarded
            assert (path, method, operation.get("security")) == (path, method, expected)


@pytest.mark.parametrize("logical_id", sorted(TOOL_FUNCTIONS))
def test_function_handler_runs_the_tool_of_its_route(logical_id: str) -> None:
    spec = TOOL_FUNCTIONS[logical_id]
    path = spec.routes[0].path
    event_path = path.replace("/versions/1.0.0/", "/versions/9.9.9/")
    from scripts.lambda_events import LocalContext, api_event

    handler = spec.load()
    assert handler(api_event("GET", path), LocalContext(logical_id))["statusCode"] == 405
    assert handler(api_event("POST", event_path, "{}"), LocalContext(logical_id))["statusCode"] == 404


def test_the_api_functions_and_log_groups_are_declared_alike_but_for_their_tool() -> None:
    """The template spells out each API function (and each function's log group) instead of one
    ``Fn::ForEach``, which SAM CLI before 1.160 cannot build and checkov does not expand; so the
    copies may differ only in the names of their tool, function and module."""

    def generic(logical_id: str, *names: str) -> str:
        # A resource created only where a feature is on (its Condition) is declared alike otherwise.
        declaration = json.dumps({k: v for k, v in RESOURCES[logical_id].items() if k != "Condition"}, sort_keys=True)
        for index, name in enumerate(names):
            declaration = declaration.replace(name, f"{{name {index}}}")
        return declaration

    function_shapes = set()
    for logical_id, spec in TOOL_FUNCTIONS.items():
        (tool_id,) = [tool.id for tool in TOOLS.values() if tool.execute_url == spec.routes[0].path]
        function_shapes.add(generic(logical_id, tool_id, spec.module))
    log_group_shapes = {
        generic(logical_id.removesuffix("Function") + "LogGroup", logical_id) for logical_id in functions(TEMPLATE)
    }
    assert (len(function_shapes), len(log_group_shapes)) == (1, 1)


def test_runtime_architecture_and_layer() -> None:
    globals_ = TEMPLATE["Globals"]["Function"]
    assert globals_["Runtime"] == "python3.13"
    assert globals_["Architectures"] == [{"Ref": "Architecture"}]
    assert TEMPLATE["Parameters"]["Architecture"]["Default"] == "arm64"
    assert set(TEMPLATE["Parameters"]["Architecture"]["AllowedValues"]) == {"arm64", "x86_64"}
    assert TEMPLATE["Parameters"]["StageName"]["Default"] == "prod"
    layer = RESOURCES["CoreLayer"]
    assert layer["Type"] == "AWS::Serverless::LayerVersion"
    assert layer["Properties"]["ContentUri"] == "src/core/"
    # src/core/Makefile puts the package one level under /opt/python (test_packaging checks the build).
    assert layer["Metadata"] == {"BuildMethod": "makefile", "BuildArchitecture": {"Ref": "Architecture"}}
    assert (ROOT / "src/core/Makefile").is_file()
    assert globals_["Layers"] == [{"Ref": "CoreLayer"}]


def test_every_function_gets_the_same_powertools_settings() -> None:
    """The handlers leave service and metric namespace to Powertools, which reads them from the
    environment (a metric flush without a namespace fails); one set lets the tests share a process."""
    settings = {
        frozenset((k, v) for k, v in spec.environment.items() if k.startswith("POWERTOOLS_"))
        for spec in functions(TEMPLATE).values()
    }
    (shared,) = settings
    assert {"POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_LOG_LEVEL"} <= dict(shared).keys()


def test_every_function_has_a_log_group_with_retention() -> None:
    groups = {
        r["Properties"]["LogGroupName"]["Fn::Sub"]: r["Properties"]
        for r in RESOURCES.values()
        if r["Type"] == "AWS::Logs::LogGroup"
    }
    for logical_id in functions(TEMPLATE):
        assert groups[f"/aws/lambda/${{{logical_id}}}"]["RetentionInDays"] == {"Ref": "LogRetentionInDays"}


EXPECTED_GATEWAY = {
    "MISSING_AUTHENTICATION_TOKEN": ("404", "not_found"),
    "RESOURCE_NOT_FOUND": ("404", "not_found"),
    "REQUEST_TOO_LARGE": ("413", "input_too_large"),
    "UNSUPPORTED_MEDIA_TYPE": ("415", "unsupported_media_type"),
    "THROTTLED": ("429", "too_many_requests"),
    "QUOTA_EXCEEDED": ("429", "quota_exceeded"),
    "INVALID_API_KEY": ("403", "invalid_api_key"),
    "ACCESS_DENIED": ("403", "forbidden"),
    "INVALID_SIGNATURE": ("403", "forbidden"),
    "EXPIRED_TOKEN": ("403", "forbidden"),
    "DEFAULT_4XX": (None, "request_rejected"),
    "DEFAULT_5XX": (None, "internal_error"),
}


def test_gateway_responses_are_the_error_tables() -> None:
    """The template's gateway responses answer exactly as ``texttools.errors`` says: each response type,
    its status, its code and its message (issue: one error table)."""
    configured = RESOURCES["TextToolsApi"]["Properties"]["GatewayResponses"]
    assert sorted(configured) == sorted(GATEWAY_RESPONSES)
    for response_type, response in GATEWAY_RESPONSES.items():
        expected_status = None if response.status is None else str(response.status)
        assert configured[response_type].get("StatusCode") == expected_status, response_type
        body = json.loads(configured[response_type]["ResponseTemplates"]["application/json"])
        assert body == {"error": {"code": response.error.code, "message": response.message,
                                  "request_id": "$context.requestId"}}, response_type  # fmt: skip
        assert response.error in ERROR_TABLE


@pytest.mark.parametrize("response_type", sorted(EXPECTED_GATEWAY))
def test_gateway_responses_use_the_error_shape(response_type: str) -> None:
    configured = RESOURCES["TextToolsApi"]["Properties"]["GatewayResponses"][response_type]
    status, code = EXPECTED_GATEWAY[response_type]
    assert configured.get("StatusCode") == status
    body = json.loads(configured["ResponseTemplates"]["application/json"].replace("$context.requestId", "r-1"))
    assert body == {"error": {"code": code, "message": body["error"]["message"], "request_id": "r-1"}}
    assert body["error"]["message"].endswith(".")


def test_outputs_name_the_base_url_and_each_execute_url() -> None:
    outputs = TEMPLATE["Outputs"]
    for tool_id in TOOL_IDS:
        url = "${StageName}" + descriptor(tool_id)["execute_url"]
        assert any(o["Value"]["Fn::Sub"].endswith(url) for o in outputs.values() if "Fn::Sub" in o["Value"])
    assert outputs["ApiBaseUrl"]["Value"]["Fn::Sub"].endswith("/${StageName}")


def fresh_import(module: str, report: str) -> str:
    """What ``report`` prints in a new interpreter that has just imported ``module`` from the source tree."""
    env = {**os.environ, "PYTHONPATH": SOURCE_PYTHONPATH, "AWS_DEFAULT_REGION": LOCAL_REGION}
    code = f"import gc, sys, {module}; {report}"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout


@pytest.mark.parametrize("module", sorted({spec.module for spec in API_FUNCTIONS.values()}))
def test_api_functions_do_not_import_an_aws_sdk(module: str) -> None:
    """boto3 and botocore cost cold-start time; the API functions never touch AWS services.

    Powertools itself imports the bare ``botocore`` package (to hook its user agent), nothing under it.
    """
    report = "print(sorted(m for m in sys.modules if m.split('.')[0] in ('boto3', 'botocore')))"
    assert fresh_import(module, report).strip() in ("[]", "['botocore']")


@pytest.mark.parametrize("module", sorted({spec.module for spec in functions(TEMPLATE).values()}))
def test_each_function_freezes_what_its_init_made(module: str) -> None:
    """Import-time objects live as long as the process: a full collection in a warm function must not
    walk them again (``make bench``: 4 to 8 ms each time in an API function, 25 to 50 ms in the chunker)."""
    frozen, still_tracked = map(
        int, fresh_import(module, "print(gc.get_freeze_count(), len(gc.get_objects()))").split()
    )
    assert frozen > 10_000
    assert still_tracked < frozen / 100


ALLOCATOR_CHURN = """
import resource
def churn():
    blocks = [b"x" * (1 << 20) for _ in range(4)]  # a large request's strings, freed on return
churn()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    churn()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


@pytest.mark.parametrize("logical_id", sorted(functions(TEMPLATE)))
def test_each_function_keeps_the_memory_a_request_freed_for_the_next(logical_id: str) -> None:
    """glibc reads ``GLIBC_TUNABLES`` only at start and ignores a name it does not know, so this runs a
    process in the function's environment: 4 MiB freed and taken again must not be faulted back in
    (about 1 000 pages each time with glibc's defaults; ``make bench`` measures the requests)."""
    env = {name: value for name, value in os.environ.items() if name != "GLIBC_TUNABLES"}
    env |= functions(TEMPLATE)[logical_id].environment
    churn = subprocess.run([sys.executable, "-c", ALLOCATOR_CHURN], capture_output=True, text=True, check=True, env=env)
    assert float(churn.stdout) < 16


def test_every_function_gets_the_memory_parameter() -> None:
    """docs/performance.md "Memory": 256 MB by default for CPU, 128 MB allowed (peak RSS is far below
    it); the document chunker has its own (docs/documents.md, "Sizing")."""
    parameter = TEMPLATE["Parameters"]["FunctionMemorySize"]
    assert (parameter["Default"], parameter["MinValue"]) == (256, 128)
    chunker = TEMPLATE["Parameters"]["ChunkerMemorySize"]
    assert (chunker["Default"], chunker["MinValue"]) == (1024, 128)
    stack = deployed(EnableKnowledgeBase="true", KnowledgeBaseBucket="kb-bucket")["Resources"]  # every function
    sizes = {k: r["Properties"]["MemorySize"] for k, r in stack.items() if r["Type"] == "AWS::Lambda::Function"}
    for document_function in ("ChunkDocumentFunction", "BackfillFunction", "KnowledgeBaseChunkFunction"):
        assert sizes.pop(document_function) == "1024"  # AWS::LanguageExtensions resolves the Ref there
        assert RESOURCES[document_function]["Properties"]["MemorySize"] == {"Ref": "ChunkerMemorySize"}
    assert sizes == {logical_id: {"Ref": "FunctionMemorySize"} for logical_id in API_FUNCTIONS}


# --- the S3 document flow ---------------------------------------------------------------------------


def test_chunks_format_and_max_document_bytes_are_parameters_sized_for_the_timeout() -> None:
    """API.md "Documents of any size": json by default, jsonl the other; MaxDocumentBytes set so that
    a document of that size finishes well within the chunker's timeout (docs/documents.md, "Sizing")."""
    parameters = TEMPLATE["Parameters"]
    chunks_format = parameters["ChunksFormat"]
    assert (chunks_format["Default"], chunks_format["AllowedValues"]) == ("json", ["json", "jsonl"])
    assert parameters["MaxDocumentBytes"]["Default"] == 4 << 30
    assert CHUNKER["Timeout"] == 900  # Lambda's longest


def lifecycle_rules(**parameters: str) -> dict[str, dict[str, Any]]:
    """The documents bucket's lifecycle rules as deployed with these parameters, by Id."""
    bucket = deployed(**parameters)["Resources"]["DocumentsBucket"]["Properties"]
    rules = bucket["LifecycleConfiguration"]["Rules"]
    assert len({rule["Id"] for rule in rules}) == len(rules)
    return {rule["Id"]: rule for rule in rules}


def noncurrent_expiry(prefix: str, days: int) -> dict[str, Any]:
    return {"Status": "Enabled", "Prefix": prefix, "NoncurrentVersionExpiration": {"NoncurrentDays": str(days)}}


@pytest.mark.parametrize(
    ("outputs", "documents"), [(None, None), ("1", "1"), ("3", "forever"), ("9999", "9999"), ("14", "365")]
)
def test_old_versions_expire_and_current_objects_stay(outputs: str | None, documents: str | None) -> None:
    """issue 46: old outputs (and reports) expire after OutputVersionsRetentionDays (7 by default),
    old documents after DocumentVersionsRetentionDays (30; ``forever`` keeps them), expired delete
    markers go, unfinished uploads are aborted after a day; no rule ever expires a current object."""
    given = {name: value for name, value in (("OutputVersionsRetentionDays", outputs),
             ("DocumentVersionsRetentionDays", documents)) if value is not None}  # fmt: skip
    rules = lifecycle_rules(**given)
    output_days, document_days = int(outputs or 7), documents or "30"
    expected = {
        "AbortIncompleteMultipartUploads": {
            "Status": "Enabled", "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}
        },
        "ExpireOldChunks": noncurrent_expiry("chunks/", output_days),
        "ExpireOldErrors": noncurrent_expiry("errors/", output_days),
        "ExpireOldBackfillReports": noncurrent_expiry("backfill-reports/", output_days),
        "RemoveExpiredDeleteMarkers": {"Status": "Enabled", "ExpiredObjectDeleteMarker": True},
    }  # fmt: skip
    if document_days != "forever":
        expected["ExpireOldDocuments"] = noncurrent_expiry("incoming/", int(document_days))
    assert rules == {rule_id: {"Id": rule_id, **rule} for rule_id, rule in expected.items()}
    assert not any("Expiration" in rule or "ExpirationInDays" in rule for rule in rules.values())


RETENTION_PARAMETERS = {"OutputVersionsRetentionDays": "7", "DocumentVersionsRetentionDays": "30"}


@pytest.mark.parametrize("name", RETENTION_PARAMETERS)
@pytest.mark.parametrize("value", ["0", "-1", "1.5", "", " 7", "007", "10000", "never", "Forever", "1e3"])
def test_a_retention_that_would_make_an_invalid_rule_is_refused_by_the_parameter(name: str, value: str) -> None:
    """S3 takes a whole number of days from 1 up: CloudFormation refuses anything else before it
    touches the bucket (AllowedPattern is matched whole)."""
    parameter = TEMPLATE["Parameters"][name]
    assert parameter["Default"] == RETENTION_PARAMETERS[name]
    assert re.fullmatch(parameter["AllowedPattern"], parameter["Default"])
    assert re.fullmatch(parameter["AllowedPattern"], "1")
    assert re.fullmatch(parameter["AllowedPattern"], "9999")
    assert not re.fullmatch(parameter["AllowedPattern"], value)
    assert bool(re.fullmatch(parameter["AllowedPattern"], "forever")) == (name == "DocumentVersionsRetentionDays")


CHUNKER = RESOURCES["ChunkDocumentFunction"]["Properties"]
BUCKET = RESOURCES["DocumentsBucket"]["Properties"]


def test_trigger_prefix_and_output_prefixes_cannot_overlap() -> None:
    """Writing chunks/ or errors/ must never retrigger the chunker."""
    from texttools.documents import CHUNKS, ERRORS, INCOMING

    (trigger,) = [e for e in CHUNKER["Events"].values() if e["Type"] == "S3"]
    assert trigger["Properties"]["Bucket"] == {"Ref": "DocumentsBucket"}
    assert trigger["Properties"]["Events"] == "s3:ObjectCreated:*"
    rules = trigger["Properties"]["Filter"]["S3Key"]["Rules"]
    assert rules == [{"Name": "prefix", "Value": INCOMING}]
    for output in (CHUNKS, ERRORS):
        assert not output.startswith(INCOMING)
        assert not INCOMING.startswith(output)


def test_bucket_is_encrypted_private_versioned_and_tls_only() -> None:
    assert BUCKET["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"]
    assert all(BUCKET["PublicAccessBlockConfiguration"].values())
    assert len(BUCKET["PublicAccessBlockConfiguration"]) == 4
    assert BUCKET["OwnershipControls"] == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}  # ACLs off
    assert BUCKET["VersioningConfiguration"] == {"Status": "Enabled"}
    # Users' documents outlive the stack (docs/operations.md, "Remove the stack").
    assert (
        RESOURCES["DocumentsBucket"]["DeletionPolicy"]
        == RESOURCES["DocumentsBucket"]["UpdateReplacePolicy"]
        == "Retain"
    )
    (statement,) = RESOURCES["DocumentsBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Effect"] == "Deny"
    assert statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_chunker_policy_is_scoped_to_the_bucket_prefixes() -> None:
    bucket_arn = "arn:${AWS::Partition}:s3:::" + BUCKET["BucketName"]["Fn::Sub"]
    statements = {s["Sid"]: s for s in CHUNKER["Policies"][0]["Statement"]}
    assert statements["ReadDocuments"]["Resource"] == {"Fn::Sub": bucket_arn + "/incoming/*"}
    assert statements["WriteResults"]["Action"] == "s3:PutObject"
    assert statements["WriteResults"]["Resource"] == [{"Fn::Sub": bucket_arn + p} for p in ("/chunks/*", "/errors/*")]
    assert statements["TellMissingFromForbidden"] == {
        "Sid": "TellMissingFromForbidden", "Effect": "Allow", "Action": "s3:ListBucket",
        "Resource": {"Fn::Sub": bucket_arn},
    }  # fmt: skip
    assert all("*" not in str(s["Action"]) for s in statements.values())
    assert len(CHUNKER["Policies"]) == 1  # SAM adds sqs:SendMessage for the OnFailure destination


def test_failed_events_are_retried_then_kept_on_an_encrypted_queue() -> None:
    config = CHUNKER["EventInvokeConfig"]
    assert config["MaximumRetryAttempts"] == {"Ref": "ChunkRetryAttempts"}
    assert TEMPLATE["Parameters"]["ChunkRetryAttempts"]["MaxValue"] == 2
    assert config["DestinationConfig"]["OnFailure"] == {
        "Type": "SQS", "Destination": {"Fn::GetAtt": "ChunkFailureQueue.Arn"}
    }  # fmt: skip
    queue = RESOURCES["ChunkFailureQueue"]["Properties"]
    assert queue["SqsManagedSseEnabled"] is True
    assert queue["MessageRetentionPeriod"] == 1_209_600


def test_chunker_defaults_are_template_parameters() -> None:
    variables = CHUNKER["Environment"]["Variables"]
    assert variables == {"DEFAULT_TOOL": {"Ref": "DefaultTool"}, "DEFAULT_PARAMETERS": {"Ref": "DefaultParameters"},
                         "CHUNKS_FORMAT": {"Ref": "ChunksFormat"},
                         "MAX_DOCUMENT_BYTES": {"Ref": "MaxDocumentBytes"}}  # fmt: skip
    assert TEMPLATE["Parameters"]["DefaultTool"]["Default"] == "text-paragraphs-split"
    assert set(TEMPLATE["Parameters"]["DefaultTool"]["AllowedValues"]) == set(TOOLS)
    # API.md: the default keeps the earlier DefaultDelimiter's behaviour.
    assert json.loads(TEMPLATE["Parameters"]["DefaultParameters"]["Default"]) == {"delimiter": "\n\n"}
    assert "DefaultDelimiter" not in TEMPLATE["Parameters"]
    assert "DefaultMaxSplits" not in TEMPLATE["Parameters"]


def test_s3_outputs() -> None:
    assert TEMPLATE["Outputs"]["DocumentsBucketName"]["Value"] == {"Ref": "DocumentsBucket"}
    assert TEMPLATE["Outputs"]["ChunkFailureQueueUrl"]["Value"] == {"Ref": "ChunkFailureQueue"}


def test_snapstart_is_an_option_off_by_default() -> None:
    assert TEMPLATE["Parameters"]["EnableSnapStart"]["Default"] == "false"
    assert TEMPLATE["Conditions"]["UseSnapStart"] == {"Fn::Equals": [{"Ref": "EnableSnapStart"}, "true"]}
    for spec in API_FUNCTIONS.values():
        assert spec.properties["AutoPublishAlias"] == "live"
        assert spec.properties["SnapStart"] == {
            "Fn::If": ["UseSnapStart", {"ApplyOn": "PublishedVersions"}, {"Ref": "AWS::NoValue"}]
        }


def test_responses_of_1_kib_or_more_are_compressed_for_callers_that_ask() -> None:
    # A literal, which docs/performance.md's "Response compression" states; make serve reads it from here.
    assert TEMPLATE["Resources"]["TextToolsApi"]["Properties"]["MinimumCompressionSize"] == 1024
    api = next(r for r in deployed()["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi")
    assert api["Properties"]["MinimumCompressionSize"] == 1024  # through both transforms unchanged
