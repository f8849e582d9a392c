"""The docs' shell lines that touch AWS work as pasted, against moto's S3 server."""

import os
import re
import subprocess
import sys

from scripts.template import ROOT
from tests.conftest import SampleS3

OPERATIONS = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")


def section_commands(text: str, heading: str) -> list[str]:
    """The command lines of the first ``sh`` block under ``heading`` (continuations joined)."""
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)[:1]
    lines = block.replace("\\\n", " ").splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_removing_the_stack_empties_every_version_and_delete_marker_then_the_bucket(sample_s3: SampleS3) -> None:
    """The line after ``sam delete`` (which needs CloudFormation) runs as written, from the clone."""
    client, bucket = sample_s3.client, "text-tools-documents-to-remove"
    client.create_bucket(Bucket=bucket)
    client.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    for number in range(2_005):  # more than two pages of 1 000
        client.put_object(Bucket=bucket, Key=f"incoming/{number % 700}.md", Body=b"x")
    client.delete_object(Bucket=bucket, Key="incoming/7.md")  # a delete marker
    commands = section_commands(OPERATIONS, "Remove the stack")
    assert commands[0].startswith("BUCKET=$(.venv/bin/aws cloudformation describe-stacks")  # the project's CLI
    assert commands[1] == ".venv/bin/sam delete --stack-name text-tools --no-prompts"
    assert commands[2].startswith("make remove-bucket BUCKET=$BUCKET   # every version and delete marker")
    environment = {**os.environ, **sample_s3.environment, "BUCKET": bucket}
    line = commands[2]
    done = subprocess.run(
        ["bash", "-c", line], env=environment, cwd=ROOT, timeout=300, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    summary = f"deleted 2006 object versions and delete markers, then the bucket {bucket}"
    assert summary in done.stdout.splitlines()  # (under make test, make -w adds its directory lines)
    assert bucket not in [each["Name"] for each in client.list_buckets()["Buckets"]]


def test_remove_bucket_without_a_bucket_says_how_to_call_it() -> None:
    done = subprocess.run(
        ["make", "-s", "remove-bucket"], cwd=ROOT, timeout=120, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "usage: make remove-bucket BUCKET=<name>" in done.stderr


def test_an_earlier_version_of_a_document_comes_back_as_documented(sample_s3: SampleS3) -> None:
    """docs/operations.md, "Old versions": list the versions, copy one over the current one (with
    the project's AWS CLI, as pasted, ``<VersionId>`` filled in)."""
    client, bucket = sample_s3.client, "text-tools-documents-restore"
    client.create_bucket(Bucket=bucket)
    client.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    first = client.put_object(Bucket=bucket, Key="incoming/doc.md", Body=b"yesterday", Metadata={"tool": "x"})
    client.put_object(Bucket=bucket, Key="incoming/doc.md", Body=b"today, by mistake")
    listing, restore = section_commands(OPERATIONS, "Old versions: what the bucket keeps, and getting a document back")
    bin_dir = os.path.dirname(sys.executable)
    environment = {**os.environ, **sample_s3.environment, "BUCKET": bucket, "PATH": f"{bin_dir}:{os.environ['PATH']}"}

    def run(line: str) -> "subprocess.CompletedProcess[str]":
        return subprocess.run(["bash", "-c", line], env=environment, capture_output=True, text=True, check=False,
                              timeout=120)  # fmt: skip

    listed = run(listing)
    assert listed.returncode == 0, listed.stderr
    assert first["VersionId"] in listed.stdout
    copied = run(restore.replace("<VersionId>", first["VersionId"]))
    assert copied.returncode == 0, copied.stderr
    current = client.get_object(Bucket=bucket, Key="incoming/doc.md")
    assert (current["Body"].read(), current["Metadata"]) == (b"yesterday", {"tool": "x"})  # its metadata too
