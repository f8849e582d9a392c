"""The shell lines of the README and docs/ work as pasted: every curl line against make serve's API,
answering what the page shows after it; those that touch AWS against moto's S3 server."""

import json
import os
import re
import shlex
import subprocess
import sys
from typing import NamedTuple

import pytest

from scripts.serve import LOCAL_API_KEY
from scripts.template import ROOT
from tests.conftest import TEST_API_KEY, SampleS3

OPERATIONS = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


class Curl(NamedTuple):
    page: str
    command: str
    shown: str | None
    """The answer the page shows for it (in a comment on its line or on the comment lines under
    it), ``...`` standing for what it leaves out; ``None`` where it shows none."""


def split_comment(line: str) -> tuple[str, str]:
    """A shell line and its comment (a ``#`` after a space, outside quotes)."""
    for at in (match.start() for match in re.finditer(r"\s#", line)):
        try:
            shlex.split(line[:at])
        except ValueError:  # inside quotes
            continue
        return line[:at].rstrip(), line[at:].strip().removeprefix("#").strip()
    return line, ""


def json_shown(comment: str) -> str | None:
    """The JSON a comment starts with, up to its last bracket (prose may follow it)."""
    if not comment.startswith(("{", "[")):
        return None
    depth, quoted, escaped = 0, False, False
    for at, character in enumerate(comment):
        if quoted:
            escaped, quoted = (not escaped and character == "\\"), quoted and (escaped or character != '"')
        elif character == '"':
            quoted = True
        elif character in "{[":
            depth += 1
        elif character in "}]":
            depth -= 1
            if depth == 0:
                return comment[: at + 1]
    raise AssertionError(f"unbalanced: {comment}")


def documented_curls() -> list[Curl]:
    found = []
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"^```sh\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL):
            lines = block.replace("\\\n", " ").splitlines()
            for number, line in enumerate(lines):
                if not line.lstrip().startswith("curl ") and " | curl " not in line:
                    continue
                command, comment = split_comment(line)
                under = []
                for following in lines[number + 1 :]:
                    if not following.startswith("#"):
                        break
                    under.append(following.removeprefix("#").strip())
                shown = json_shown(comment) or json_shown("".join(under))
                found.append(Curl(path.relative_to(ROOT).as_posix(), command, shown))
    return found


CURLS = documented_curls()


def matches(shown: str, answer: str) -> bool:
    """Whether ``answer`` is ``shown`` with each ``...`` standing for any text."""
    return re.fullmatch(".*?".join(map(re.escape, shown.split("..."))), answer, flags=re.DOTALL) is not None


def test_the_docs_have_curl_lines_and_show_their_answers() -> None:
    pages = {curl.page for curl in CURLS}
    assert {"README.md", "docs/mcp.md", "docs/size-chunking.md", "docs/markdown-size.md"} <= pages
    shown = [curl for curl in CURLS if curl.shown]
    assert {curl.page for curl in shown} >= {"README.md", "docs/mcp.md"}
    # issue 62: posting a raw file was refused as not JSON; the README shows how to send one's contents
    piped = [curl for curl in shown if curl.page == "README.md" and " | curl " in curl.command]
    assert [curl.command.split(" < ", 1)[0].split()[0] for curl in piped] == ["python3"]
    assert matches('{"a":1,...}', '{"a":1,"b":[2]}')
    assert not matches('{"a":1,...}', '{"a":2,"b":[2]}')


@pytest.mark.parametrize("curl", CURLS, ids=lambda curl: f"{curl.page}:{curl.command[-60:]}")
def test_each_documented_curl_line_answers_200_and_what_the_page_shows(curl: Curl, base_url: str) -> None:
    # The docs' base is make serve's (localhost:3000 or $BASE) and its key local-key ($KEY).
    line = curl.command.replace("$BASE", base_url).replace("localhost:3000", base_url)
    line = line.replace("$KEY", LOCAL_API_KEY).replace(LOCAL_API_KEY, TEST_API_KEY)
    if " | curl " in line:  # a pipe into curl (a file's contents sent), run by a shell from the checkout
        command = ["/bin/sh", "-c", f"{line} -s -w '\n%{{http_code}}'"]
    else:
        command = [*shlex.split(line), "-s", "-w", "\n%{http_code}"]
    result = subprocess.run(command, capture_output=True, text=True, check=True, timeout=30, cwd=ROOT)
    body, status = result.stdout.rsplit("\n", 1)
    assert status == "200", body
    assert "error" not in json.loads(body)
    if curl.shown is not None:
        assert matches(curl.shown, body), f"{curl.page} shows {curl.shown}\nthe answer is {body}"


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
