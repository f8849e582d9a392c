"""Least privilege, proven (issue 45): each function's flows run under its own role as the stack
deploys it, against one moto server that enforces IAM, with that role's credentials and nothing
else; each ends exactly as it does with every permission (the same objects and bytes, version ids
aside, and the same answers), and what a role must not do is refused.

The roles are template.yaml translated by the SAM translator as ``sam deploy`` would (the Knowledge
Base function on), their intrinsic functions resolved for one account, region and stack. moto
evaluates each identity policy's ``Action`` and ``Resource``; what it cannot tell is in
docs/operations.md, "Least privilege and scanning".
"""

import copy
import importlib
import json
import os
import re
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto.server import ThreadedMotoServer

from scripts.lambda_events import LOCAL_ACCOUNT_ID, LOCAL_REGION, LocalContext, backfill_batch, s3_event
from scripts.sample_events import knowledge_base_samples
from scripts.template import ROOT, documents_bucket, functions
from tests.cfn import deployed
from tests.conftest import reset_moto

BUCKET = documents_bucket()
KB_BUCKET, KB_PREFIX = "kb-intermediate-storage", "ingestion/"
OTHER_BUCKET = "someone-elses-bucket"
STACK_NAME = "text-tools"
STACK = deployed(EnableKnowledgeBase="true", KnowledgeBaseBucket=KB_BUCKET, KnowledgeBasePrefix=KB_PREFIX)
BASIC_EXECUTION = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
MANAGED = {
    BASIC_EXECUTION: {  # AWS's managed policy, as AWS publishes it
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["logs:CreateLogGroup", "logs:CreateLogStream",
                                                     "logs:PutLogEvents"], "Resource": "*"}],
    }
}  # fmt: skip
ADMIN = "tester"
API_FUNCTIONS = sorted(logical_id for logical_id, spec in functions().items() if spec.routes)


# --- the roles as deployed ------------------------------------------------------------------------


def physical_name(logical_id: str) -> str:
    return f"{STACK_NAME}-{logical_id}"


def arn_of(logical_id: str) -> str:
    """The ``Arn`` attribute of a resource the policies name."""
    kind = STACK["Resources"][logical_id]["Type"]
    if kind == "AWS::S3::Bucket":
        return f"arn:aws:s3:::{BUCKET}"
    if kind == "AWS::SQS::Queue":
        return f"arn:aws:sqs:{LOCAL_REGION}:{LOCAL_ACCOUNT_ID}:{physical_name(logical_id)}"
    if kind == "AWS::Lambda::Function":
        return f"arn:aws:lambda:{LOCAL_REGION}:{LOCAL_ACCOUNT_ID}:function:{physical_name(logical_id)}"
    raise AssertionError(f"no ARN known for {logical_id} ({kind})")


def ref_of(name: str) -> str:
    pseudo = {"AWS::Partition": "aws", "AWS::Region": LOCAL_REGION, "AWS::AccountId": LOCAL_ACCOUNT_ID,
              "AWS::StackName": STACK_NAME}  # fmt: skip
    if name in pseudo:
        return pseudo[name]
    return BUCKET if STACK["Resources"][name]["Type"] == "AWS::S3::Bucket" else physical_name(name)


def substituted(text: str, variables: dict[str, Any] | None = None) -> str:
    def one(match: re.Match[str]) -> str:
        name = match[1]
        if variables and name in variables:
            return str(resolved(variables[name]))
        if name.endswith(".Arn"):
            return arn_of(name.removesuffix(".Arn"))
        return ref_of(name)

    return re.sub(r"\$\{([^}]+)\}", one, text)


def resolved(value: Any) -> Any:
    """A policy's intrinsic functions as CloudFormation resolves them for this stack (the SAM CLI's
    processor leaves ``GetAtt`` and some ``${X.Arn}`` in place)."""
    if isinstance(value, str):
        return substituted(value)
    if isinstance(value, list):
        return [resolved(each) for each in value]
    if not isinstance(value, dict):
        return value
    if "Fn::GetAtt" in value:
        name, attribute = value["Fn::GetAtt"]
        assert attribute == "Arn"
        return arn_of(name)
    if "Fn::Sub" in value:
        text, variables = (value["Fn::Sub"], None) if isinstance(value["Fn::Sub"], str) else value["Fn::Sub"]
        return substituted(text, variables)
    return ref_of(value["Ref"]) if "Ref" in value else {key: resolved(each) for key, each in value.items()}


def role_documents(logical_id: str) -> list[dict[str, Any]]:
    """Every policy document of a role as deployed: its inline policies and its managed ones, each
    with a ``Version`` (IAM assumes one; moto refuses a document without it)."""
    role = STACK["Resources"][f"{logical_id}Role"]["Properties"]
    documents = [resolved(policy["PolicyDocument"]) for policy in role.get("Policies", [])]
    documents += [MANAGED[arn] for arn in role.get("ManagedPolicyArns", [])]
    return [{"Version": "2012-10-17", **document} for document in documents]


# --- one moto server that enforces IAM ----------------------------------------------------------


@dataclass
class Cloud:
    endpoint: str
    admin: dict[str, str]
    """The tester's credentials (every permission): for set-up, and for the flows' unrestricted runs."""
    roles: dict[str, dict[str, str]]

    def client(self, service: str, credentials: dict[str, str] | None = None) -> Any:
        given = credentials or self.admin
        return boto3.client(
            service,  # type: ignore[call-overload]
            endpoint_url=self.endpoint,
            region_name=LOCAL_REGION,
            aws_access_key_id=given["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=given["AWS_SECRET_ACCESS_KEY"],
            aws_session_token=given.get("AWS_SESSION_TOKEN"),
        )

    def credentials_of(self, function: str) -> dict[str, str]:
        """The function's role, created as deployed (once), assumed: its temporary credentials."""
        if function not in self.roles:
            iam = self.client("iam")
            trust = {"Version": "2012-10-17", "Statement": [{
                "Effect": "Allow", "Action": "sts:AssumeRole",
                "Principal": {"Service": "lambda.amazonaws.com",
                              "AWS": f"arn:aws:iam::{LOCAL_ACCOUNT_ID}:user/{ADMIN}"},  # the tests assume it
            }]}  # fmt: skip
            iam.create_role(RoleName=function, AssumeRolePolicyDocument=json.dumps(trust))
            for number, document in enumerate(role_documents(function)):
                iam.put_role_policy(RoleName=function, PolicyName=f"p{number}", PolicyDocument=json.dumps(document))
            arn = f"arn:aws:iam::{LOCAL_ACCOUNT_ID}:role/{function}"
            given = self.client("sts").assume_role(RoleArn=arn, RoleSessionName=function)["Credentials"]
            self.roles[function] = {"AWS_ACCESS_KEY_ID": given["AccessKeyId"],
                                    "AWS_SECRET_ACCESS_KEY": given["SecretAccessKey"],
                                    "AWS_SESSION_TOKEN": given["SessionToken"]}  # fmt: skip
        return self.roles[function]


def auth_after(endpoint: str, calls: str) -> None:
    """moto enforces IAM after ``calls`` more unauthenticated calls (``inf``: never)."""
    request = urllib.request.Request(  # noqa: S310 (the test's own loopback server)
        f"{endpoint}/moto-api/reset-auth", data=calls.encode(), method="POST", headers={"Content-Type": "text/plain"}
    )
    urllib.request.urlopen(request, timeout=30).close()  # noqa: S310 (the test's own loopback server)


@pytest.fixture(scope="module")
def cloud() -> Iterator[Cloud]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    endpoint = "http://{}:{}".format(*server.get_host_and_port())
    try:
        reset_moto(endpoint)
        auth_after(endpoint, "inf")
        anyone = {"AWS_ACCESS_KEY_ID": "setup", "AWS_SECRET_ACCESS_KEY": "setup"}
        iam = Cloud(endpoint, anyone, {}).client("iam")
        iam.create_user(UserName=ADMIN)
        everything = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
        iam.put_user_policy(UserName=ADMIN, PolicyName="everything", PolicyDocument=json.dumps(everything))
        key = iam.create_access_key(UserName=ADMIN)["AccessKey"]
        auth_after(endpoint, "0")  # from here on, every call is signed by someone IAM allows it
        cloud = Cloud(endpoint, {"AWS_ACCESS_KEY_ID": key["AccessKeyId"],
                                 "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"]}, {})  # fmt: skip
        s3 = cloud.client("s3")
        for name in (BUCKET, KB_BUCKET, OTHER_BUCKET):
            s3.create_bucket(Bucket=name)
        s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
        yield cloud
    finally:
        auth_after(endpoint, "inf")  # the moto servers of a process share their settings and state
        reset_moto(endpoint)
        server.stop()


@pytest.fixture
def as_role(cloud: Cloud, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str | None], ModuleType]:
    """The function's handler module imported afresh with ``credentials`` (a role's, or the
    tester's for ``None``) as its only AWS settings, as Lambda gives a function its role's."""

    def load(function: str, role: str | None) -> ModuleType:
        for name in [name for name in os.environ if name.startswith("AWS_")]:
            monkeypatch.delenv(name)
        given = cloud.credentials_of(role) if role else cloud.admin
        for name, value in {**given, "AWS_ENDPOINT_URL": cloud.endpoint, "AWS_DEFAULT_REGION": LOCAL_REGION}.items():
            monkeypatch.setenv(name, value)
        # boto3's default session keeps the credentials it first found: a new one reads these
        monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
        spec = functions()[function]
        return importlib.reload(importlib.import_module(spec.module))

    return load


# --- what the flows leave -------------------------------------------------------------------------


def emptied(cloud: Cloud, bucket: str) -> None:
    s3 = cloud.client("s3")
    versions = s3.list_object_versions(Bucket=bucket)
    for each in versions.get("Versions", []) + versions.get("DeleteMarkers", []):
        s3.delete_object(Bucket=bucket, Key=each["Key"], VersionId=each["VersionId"])


VERSION_ID = re.compile(rb'"version_id":"[^"]*"')


def written(cloud: Cloud, bucket: str, prefixes: tuple[str, ...]) -> dict[str, bytes]:
    """Every current object under ``prefixes``: its bytes with version ids blanked (they differ
    from run to run, as S3 makes them)."""
    s3 = cloud.client("s3")
    found = {}
    for item in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
        if item["Key"].startswith(prefixes):
            body = s3.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
            found[item["Key"]] = VERSION_ID.sub(b'"version_id":"-"', body)
    return found


def same_with_and_without_the_role(flow: Callable[[str | None], Any]) -> Any:
    """``flow`` under the function's role, then with every permission: the same answer and objects."""
    under_role = flow("role")
    unrestricted = flow(None)
    assert under_role == unrestricted
    return under_role


# --- the document functions' flows --------------------------------------------------------------

GOOD = {"tool": "text-delimiter-chunk", "delimiter": '","'}
MIB = 1 << 20


def chunker_flow(cloud: Cloud, as_role: Callable[[str, str | None], ModuleType], chunks_format: str,
                 monkeypatch: pytest.MonkeyPatch) -> Callable[[str | None], Any]:  # fmt: skip
    """API.md's S3 flow, each case of issue 45: a key with spaces and non-ASCII, bad metadata, bad
    UTF-8, a document over the limit (refused from its size), a re-upload that replaces an output
    (a deletion), a document deleted before its event; in ``jsonl`` an output over a part's size."""

    def flow(role: str | None) -> Any:
        emptied(cloud, BUCKET)
        monkeypatch.setenv("CHUNKS_FORMAT", chunks_format)
        monkeypatch.setenv("MAX_DOCUMENT_BYTES", str(64 * MIB))
        s3 = cloud.client("s3")
        chunker = as_role("ChunkDocumentFunction", role and "ChunkDocumentFunction")

        def put(key: str, body: bytes, metadata: dict[str, str] | None = None, size: int | None = None) -> Any:
            done = s3.put_object(Bucket=BUCKET, Key=key, Body=body, Metadata=metadata or {})
            return key, size or len(body), done["ETag"].strip('"'), done["VersionId"]

        lines = b"".join(b"line %d of a long document\n" % number for number in range(70_000))  # > 5 MiB out
        records = [
            put("incoming/meeting notes/café menü.txt", b"a,b,c", GOOD),
            put("incoming/bad-metadata.txt", b"a,b", {"tool": "text-delimiter-chunk", "max-splits": "-1"}),
            put("incoming/not-utf8.txt", b"caf\xe9"),
            put("incoming/huge.txt", b"small", size=5 << 30),
            put("incoming/lines.txt", lines, {"tool": "text-delimiter-chunk", "delimiter": '"\\n"'}),
            put("incoming/fixed.txt", b"a,b", {"tool": "text-delimiter-chunk", "delimiter": ","}),
        ]
        gone = put("incoming/gone.txt", b"a")
        s3.delete_object(Bucket=BUCKET, Key=gone[0], VersionId=gone[3])
        context = LocalContext("ChunkDocumentFunction")
        answers = [chunker.lambda_handler(s3_event(BUCKET, [*records, gone]), context)]
        answers.append(chunker.lambda_handler(s3_event(BUCKET, [put("incoming/fixed.txt", b"a,b", GOOD)]), context))
        return answers, written(cloud, BUCKET, ("chunks/", "errors/"))

    return flow


@pytest.mark.parametrize("chunks_format", ["json", "jsonl"])
def test_the_chunker_under_its_role(
    cloud: Cloud, as_role: Any, monkeypatch: pytest.MonkeyPatch, chunks_format: str
) -> None:
    answers, outputs = same_with_and_without_the_role(chunker_flow(cloud, as_role, chunks_format, monkeypatch))
    expected = {  # lines.txt is over every tool's limit in json, chunked in jsonl; huge.txt over both
        "json": {"ok": 1, "invalid_input": 3, "input_too_large": 2, "gone": 1},
        "jsonl": {"ok": 2, "invalid_input": 3, "input_too_large": 1, "gone": 1},
    }
    assert answers[0]["outcomes"] == expected[chunks_format]
    extension = "jsonl" if chunks_format == "jsonl" else "json"
    assert "errors/fixed.txt.json" not in outputs  # deleted when the fixed re-upload was chunked
    assert f"chunks/fixed.txt.{extension}" in outputs
    if chunks_format == "jsonl":
        assert len(outputs["chunks/lines.txt.jsonl"]) > 5 * MIB  # a multipart upload


def test_the_backfill_under_its_role(cloud: Cloud, as_role: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A listed batch: documents, a gone key, an oversize one (its version from a HeadObject)."""

    def flow(role: str | None) -> Any:
        emptied(cloud, BUCKET)
        monkeypatch.setenv("CHUNKS_FORMAT", "json")
        s3 = cloud.client("s3")
        for key, body in (("incoming/a b/ü.txt", b"one\n\ntwo"), ("incoming/bad.txt", b"\xff"),
                          ("incoming/huge.txt", b"listed as 5 GiB")):  # fmt: skip
            s3.put_object(Bucket=BUCKET, Key=key, Body=body)
        listed = [(o["Key"], o["Size"] if o["Key"] != "incoming/huge.txt" else 5 << 30, o["ETag"].strip('"'), 0.0)
                  for o in s3.list_objects_v2(Bucket=BUCKET)["Contents"]]  # fmt: skip
        listed.append(("incoming/gone.txt", 3, "0" * 32, 0.0))
        backfill = as_role("BackfillFunction", role and "BackfillFunction")
        answer = backfill.lambda_handler(backfill_batch(BUCKET, listed), LocalContext("BackfillFunction"))
        return answer, written(cloud, BUCKET, ("chunks/", "errors/"))

    answer, outputs = same_with_and_without_the_role(flow)
    assert answer["outcomes"] == {"ok": 1, "invalid_input": 1, "input_too_large": 1, "gone": 1}
    assert json.loads(outputs["errors/huge.txt.json"])["source"]["version_id"] == "-"  # named (then blanked)


def knowledge_base_events() -> list[tuple[dict[str, Any], dict[str, bytes], str]]:
    """The Knowledge Base sample events, moved into the intermediate storage's bucket and prefix."""
    moved = []
    for sample in knowledge_base_samples():
        event = copy.deepcopy(sample.event)
        event["bucketName"] = KB_BUCKET
        for file in event["inputFiles"]:
            for batch in file["contentBatches"]:
                batch["key"] = KB_PREFIX + batch["key"]
        moved.append((event, {KB_PREFIX + key: body for key, body in sample.documents.items()}, sample.code))
    return moved


def test_the_knowledge_base_function_under_its_role(
    cloud: Cloud, as_role: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every sample's content batches, under the function's prefix: written, and deleted for a
    file that fails."""
    monkeypatch.setenv("KNOWLEDGE_BASE_OUTPUT_PREFIX", f"{KB_PREFIX}text-tools-chunks/")

    def flow(role: str | None) -> Any:
        emptied(cloud, KB_BUCKET)
        s3 = cloud.client("s3")
        function = as_role("KnowledgeBaseChunkFunction", role and "KnowledgeBaseChunkFunction")
        answers = []
        for event, documents, code in knowledge_base_events():
            for key, body in documents.items():
                s3.put_object(Bucket=KB_BUCKET, Key=key, Body=body)
            try:
                answers.append(function.lambda_handler(event, LocalContext("KnowledgeBaseChunkFunction")))
            except Exception as error:
                answers.append({"failed": str(error), "expected": code})
        return answers, written(cloud, KB_BUCKET, (f"{KB_PREFIX}text-tools-chunks/",))

    answers, outputs = same_with_and_without_the_role(flow)
    assert [answer.get("expected", "ok") for answer in answers] == [code for *_, code in knowledge_base_events()]
    assert outputs, answers


@pytest.mark.parametrize("function", API_FUNCTIONS)
def test_an_api_function_answers_its_sample_events_under_its_role(cloud: Cloud, as_role: Any, function: str) -> None:
    events = sorted((ROOT / "events" / function).glob("*.json"))

    def flow(role: str | None) -> list[Any]:
        handler = as_role(function, role and function).lambda_handler
        return [handler(json.loads(path.read_text(encoding="utf-8")), LocalContext(function)) for path in events]

    assert len(same_with_and_without_the_role(flow)) == len(events) > 0


# --- what each role must not do -------------------------------------------------------------------


def refused(call: Callable[[], Any]) -> bool:
    try:
        call()
    except ClientError as error:
        return error.response["Error"]["Code"] in {"AccessDenied", "403"}
    return False


DOCUMENT_FUNCTIONS = ["ChunkDocumentFunction", "BackfillFunction"]


@pytest.mark.parametrize("function", [*DOCUMENT_FUNCTIONS, "KnowledgeBaseChunkFunction", *API_FUNCTIONS])
def test_no_role_reaches_beyond_its_function_s_own_objects(cloud: Cloud, function: str) -> None:
    """Nobody's bucket but the function's, no bucket policy, no listing of buckets, no IAM; no
    writing under incoming/ (it would trigger the chunker again), no deleting a document or any
    version of an object."""
    credentials = cloud.credentials_of(function)
    s3, iam = cloud.client("s3", credentials), cloud.client("iam", credentials)
    admin = cloud.client("s3")
    document = admin.put_object(Bucket=BUCKET, Key="incoming/kept.txt", Body=b"a")
    output = admin.put_object(Bucket=BUCKET, Key="chunks/kept.txt.json", Body=b"{}")
    admin.put_object(Bucket=OTHER_BUCKET, Key="chunks/x.json", Body=b"{}")
    denied = {
        "write incoming/": lambda: s3.put_object(Bucket=BUCKET, Key="incoming/new.txt", Body=b"a"),
        "delete a document": lambda: s3.delete_object(Bucket=BUCKET, Key="incoming/kept.txt"),
        "delete a document's version": lambda: s3.delete_object(
            Bucket=BUCKET, Key="incoming/kept.txt", VersionId=document["VersionId"]),
        "delete an output's version": lambda: s3.delete_object(
            Bucket=BUCKET, Key="chunks/kept.txt.json", VersionId=output["VersionId"]),
        "write outside its outputs": lambda: s3.put_object(Bucket=BUCKET, Key="elsewhere/x.json", Body=b"{}"),
        "write backfill reports": lambda: s3.put_object(Bucket=BUCKET, Key="backfill-reports/x.json", Body=b"{}"),
        "read another bucket": lambda: s3.get_object(Bucket=OTHER_BUCKET, Key="chunks/x.json"),
        "write another bucket": lambda: s3.put_object(Bucket=OTHER_BUCKET, Key="chunks/y.json", Body=b"{}"),
        "delete in another bucket": lambda: s3.delete_object(Bucket=OTHER_BUCKET, Key="chunks/x.json"),
        "change a bucket's policy": lambda: s3.put_bucket_policy(Bucket=BUCKET, Policy=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                                                      "Resource": f"arn:aws:s3:::{BUCKET}/*"}]})),
        "list every bucket": s3.list_buckets,
        "read IAM": lambda: iam.get_role(RoleName=function),
        "change its own role": lambda: iam.put_role_policy(RoleName=function, PolicyName="more",
                                                           PolicyDocument=json.dumps(MANAGED[BASIC_EXECUTION])),
    }  # fmt: skip
    if function not in DOCUMENT_FUNCTIONS:  # the others touch no documents at all
        denied |= {
            "read a document": lambda: s3.get_object(Bucket=BUCKET, Key="incoming/kept.txt"),
            "list the documents": lambda: s3.list_objects_v2(Bucket=BUCKET),
            "write an output": lambda: s3.put_object(Bucket=BUCKET, Key="chunks/y.json", Body=b"{}"),
            "delete an output": lambda: s3.delete_object(Bucket=BUCKET, Key="chunks/kept.txt.json"),
        }
    if function != "KnowledgeBaseChunkFunction":  # nobody else touches the intermediate storage
        denied["read the Knowledge Base's batches"] = lambda: s3.get_object(Bucket=KB_BUCKET, Key=f"{KB_PREFIX}x")
    assert [what for what, call in denied.items() if not refused(call)] == []


def test_the_knowledge_base_function_stays_under_its_prefix(cloud: Cloud) -> None:
    credentials = cloud.credentials_of("KnowledgeBaseChunkFunction")
    s3 = cloud.client("s3", credentials)
    admin = cloud.client("s3")
    admin.put_object(Bucket=KB_BUCKET, Key="elsewhere/batch.json", Body=b"{}")
    admin.put_object(Bucket=KB_BUCKET, Key=f"{KB_PREFIX}batch.json", Body=b"{}")
    denied = {
        "read outside the prefix": lambda: s3.get_object(Bucket=KB_BUCKET, Key="elsewhere/batch.json"),
        "write outside its output folder": lambda: s3.put_object(Bucket=KB_BUCKET, Key=f"{KB_PREFIX}x.json", Body=b""),
        "delete Bedrock's batches": lambda: s3.delete_object(Bucket=KB_BUCKET, Key=f"{KB_PREFIX}batch.json"),
        "write outside the prefix": lambda: s3.put_object(Bucket=KB_BUCKET, Key="text-tools-chunks/x", Body=b""),
    }  # fmt: skip
    assert [what for what, call in denied.items() if not refused(call)] == []
    assert s3.get_object(Bucket=KB_BUCKET, Key=f"{KB_PREFIX}batch.json")["Body"].read() == b"{}"


def actions(statement: dict[str, Any]) -> list[str]:
    return [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]


def test_the_state_machine_role_lists_incoming_and_writes_backfill_reports_only() -> None:
    """moto cannot run the Distributed Map: its role's statements are checked as deployed."""
    s3_statements = [statement for document in role_documents("BackfillStateMachine")
                     for statement in document["Statement"] if "s3:" in json.dumps(statement["Action"])]  # fmt: skip
    by_action = {action: (statement["Resource"], statement.get("Condition")) for statement in s3_statements
                 for action in actions(statement)}  # fmt: skip
    reports = f"arn:aws:s3:::{BUCKET}/backfill-reports/*"
    assert by_action == {
        "s3:ListBucket": (f"arn:aws:s3:::{BUCKET}", {"StringLike": {"s3:prefix": "incoming/*"}}),
        "s3:PutObject": (reports, None), "s3:GetObject": (reports, None),
        "s3:ListMultipartUploadParts": (reports, None), "s3:AbortMultipartUpload": (reports, None),
    }  # fmt: skip


def test_every_role_of_the_stack_is_run_or_checked_here() -> None:
    roles = sorted(logical_id.removesuffix("Role") for logical_id, resource in STACK["Resources"].items()
                   if resource["Type"] == "AWS::IAM::Role")  # fmt: skip
    checked = sorted([*DOCUMENT_FUNCTIONS, "KnowledgeBaseChunkFunction", *API_FUNCTIONS, "BackfillStateMachine"])
    assert roles == checked
