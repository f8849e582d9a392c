"""Shared test set-up: the environment Lambda would give, the published spec, and invocation helpers."""

import json
import logging
import os
import re
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

from scripts.lambda_events import LOCAL_REGION, Handler, LocalContext, api_event
from scripts.sample_events import SAMPLE_BUCKET, document_samples
from scripts.template import ROOT, SOURCE_PYTHONPATH, function_serving, functions

# Every function's environment as the template gives it (the in-process tests run every function
# in one process, which test_template checks they can share), and fake credentials.
os.environ.update(
    {name: value for spec in functions().values() for name, value in spec.environment.items()},
    AWS_DEFAULT_REGION=LOCAL_REGION,
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
)  # fmt: skip
from texttools.lines import line_view
from texttools.registry import TOOL_IDS, tool

if TYPE_CHECKING:
    from scripts.local_s3 import LocalS3Flow  # imports boto3 and moto: only the fixtures that need them do

SEEDS = ROOT / "spec" / "seeds"
SCRIPTS_PYTHONPATH = os.pathsep.join((SOURCE_PYTHONPATH, str(ROOT)))
"""``PYTHONPATH`` for ``python -m scripts.<name>`` in a fresh interpreter, as the Makefile runs it."""


@cache
def descriptor(tool_id: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SEEDS / f"{tool_id}.json").read_text(encoding="utf-8"))
    return loaded


def limits(tool_id: str) -> Any:
    """A tool's descriptor limits as attributes (``limits("text-delimiter-chunk").max_chunks``)."""
    return SimpleNamespace(**tool(tool_id).limits)


Invoke = Callable[..., dict[str, Any]]


def invoke(handler: Callable[[dict[str, Any], Any], dict[str, Any]], event: dict[str, Any]) -> dict[str, Any]:
    return handler(event, LocalContext("test"))


def lines_of(text: str, *positions: int) -> list[int]:
    """Line numbers as ``texttools.lines.line_view`` promises them: one LF count up to each position."""
    view = line_view(text)
    return [1 + view.count("\n", 0, position) for position in positions]


@cache
def api_handler(tool_id: str) -> Handler:
    """A tool's real ``lambda_handler``: the function's handler that the template routes its URL to."""
    return function_serving(tool(tool_id).execute_url).load()


@pytest.fixture
def post() -> Callable[..., dict[str, Any]]:
    """POST a body through a tool's real ``lambda_handler`` and return the proxy response."""

    def send(
        tool_id: str,
        body: str | bytes | None,
        headers: dict[str, str] | None = None,
        method: str = "POST",
        path: str | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        event = api_event(
            method,
            path or f"/v1/tools/{tool_id}/versions/1.0.0/execute",
            body,
            {"Content-Type": "application/json"} if headers is None else headers,
            request_id="req-1",
            **options,
        )
        return invoke(api_handler(tool_id), event)

    return send


def header(response: dict[str, Any], name: str) -> str | None:
    """A response header, as Powertools writes them for REST proxies (multiValueHeaders)."""
    for key, values in (response.get("multiValueHeaders") or {}).items():
        if key.lower() == name.lower():
            return ", ".join(values)
    for key, value in (response.get("headers") or {}).items():
        if key.lower() == name.lower():
            return str(value)
    return None


class _CurrentStdout:
    """Writes to whatever ``sys.stdout`` is now, so each test's capture sees the log lines."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


@pytest.fixture
def log_lines(capsys: pytest.CaptureFixture[str]) -> Callable[[], list[str]]:
    """Everything the functions print this test: Powertools log lines and EMF metric lines.

    Powertools' handler keeps the stream it was created with; it is pointed at the current stdout.
    Assigned, not ``setStream``: that flushes the old stream, which an earlier pytest session in
    the same process (``make mutate`` runs several) has closed.
    """
    api_handler(TOOL_IDS[0])  # creates the functions' loggers (they share one: the service's)

    for handler in logging.getLogger(os.environ["POWERTOOLS_SERVICE_NAME"]).handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.stream = _CurrentStdout()

    def read() -> list[str]:
        return capsys.readouterr().out.splitlines()

    return read


TEST_API_KEY = "local-test-key"


def local_api(auth_mode: str) -> Iterator[str]:
    """The local API (``make serve``'s, in ``auth_mode``, its key ``TEST_API_KEY``) on a free port."""
    import threading

    from scripts.local_gateway.api import LocalApi, make_server

    api = LocalApi(auth_mode=auth_mode, api_key=TEST_API_KEY)
    server = make_server("127.0.0.1", 0, api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    api.stop()


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """The local API in API_KEY mode (``make serve``'s default) on a free port."""
    yield from local_api("API_KEY")


@pytest.fixture(scope="module")
def flow() -> Iterator["LocalS3Flow"]:
    """``make serve``'s S3 flow as it starts: its bucket, queue and chunker, on a free port."""
    from scripts.local_s3 import LocalS3Flow

    local = LocalS3Flow(port=5100)
    try:
        yield local
    finally:
        reset_moto(local.endpoint)
        local.stop()


@dataclass(frozen=True)
class SampleS3:
    client: Any
    environment: dict[str, str]
    """What a process needs to reach this S3 through the SDK's own endpoint setting."""


@pytest.fixture
def sample_s3() -> Iterator[SampleS3]:
    """moto's S3 server holding the sample events' bucket and every S3 sample's documents."""
    import boto3
    from moto.server import ThreadedMotoServer

    from scripts.s3_target import CREDENTIALS

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    endpoint = "http://{}:{}".format(*server.get_host_and_port())
    try:
        reset_moto(endpoint)
        client = boto3.client("s3", endpoint_url=endpoint, region_name=LOCAL_REGION)
        client.create_bucket(Bucket=SAMPLE_BUCKET)
        for sample in document_samples():
            for key, body in sample.documents.items():
                client.put_object(Bucket=SAMPLE_BUCKET, Key=key, Body=body)
        yield SampleS3(client, {**CREDENTIALS, "AWS_ENDPOINT_URL": endpoint})  # as make serve's S3 flow
    finally:
        reset_moto(endpoint)
        server.stop()


def reset_moto(endpoint: str) -> None:
    """Forget every bucket, object and queue. The moto servers of one process share one state,
    and the sample events' bucket is ``make serve``'s too: each test that uses a server starts
    from none and leaves none behind."""
    reset = urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST")  # noqa: S310 (loopback)
    urllib.request.urlopen(reset, timeout=30).close()  # noqa: S310 (the test's own loopback URL)


def outcomes(s3: Any, bucket: str) -> dict[str, str]:
    """Each object the document functions wrote, with its outcome: ``ok`` or the error code (an
    output batch of the Knowledge Base function is ``ok``)."""
    written = {}
    knowledge_base = functions()["KnowledgeBaseChunkFunction"].environment["KNOWLEDGE_BASE_OUTPUT_PREFIX"]
    for item in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
        if item["Key"].startswith(("chunks/", "errors/", knowledge_base)):
            body = json.loads(s3.get_object(Bucket=bucket, Key=item["Key"])["Body"].read())
            written[item["Key"]] = body["error"]["code"] if "error" in body else "ok"
    return written


NODE_MODULES = ROOT / ".node" / "node_modules"
"""commonmark.js, installed by make (test-only: nothing of it ships)."""


class CommonmarkBlocks(NamedTuple):
    """What commonmark.js finds in a document (lines 1-based)."""

    headings: list[tuple[int, int]]
    """Each top-level heading's level and last line."""
    literals: list[tuple[int, int]]
    """Each code or HTML block's first and last line, at any depth."""


_BEYOND_ASCII_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")
_FROM_A_TAG = re.compile("<[^\n\r]*")
_LABEL = re.compile(r"\[[^\[\]\n\r]*\]")
_LIST_ITEM_OF_VT_FF = re.compile(r"(?<![^\n\r])(?:[ \t]*(?:>|[-+*]|\d{1,9}[.)]))+[ \t]+[ \t\v\f]*(?![^\n\r])")
_AFTER_LABEL = re.compile(r"(?<=\]:)[^\n\r]*")
_DESTINATION_LINE = re.compile(r"(?<=\]:)[ \t]*(?:\r\n|\n|\r)[^\n\r]*")
_CONTROLS_BUT_WHITESPACE = re.compile("[\x01-\x08\x0e-\x1f\x7f]")
_VT_FF_AS_SOH = str.maketrans("\v\f", "\x01\x01")
_UNQUOTED_VALUE = re.compile("(?<==)[ \t]*[^ \t\n\r\"'=<>`]+")


def _tags_spec_faithful(from_a_tag: "re.Match[str]") -> str:
    with_vt_ff_as_soh = from_a_tag[0].translate(_VT_FF_AS_SOH)
    return _UNQUOTED_VALUE.sub(lambda value: _CONTROLS_BUT_WHITESPACE.sub("\u00e9", value[0]), with_vt_ff_as_soh)


def spec_faithful(text: str) -> str:
    """The copy of ``text`` that commonmark.js judges: where its JavaScript parts from the spec's
    text, characters that the spec reads alike and it does not are exchanged (the spec's block
    structure is the same for both texts; docs/markdown.md, "How it is checked").

    - A non-ASCII space (U+00A0, U+1680, U+2000-U+200A, U+202F, U+205F, U+3000), U+FEFF, U+2028
      and U+2029 become ``é``. For CommonMark's block structure they are ordinary characters, like
      a letter (its whitespace there is the space and the tab; its line endings LF and CR).
      JavaScript's ``\\s`` and ``trim()`` take them for whitespace (commonmark.js's HTML block
      openers and tags, link labels: ``<div\\u00a0`` opens an HTML block for it, not for cmark or
      pulldown-cmark), and its ``.`` stops at U+2028 and U+2029, which it takes for line ends (a
      backtick after one in a fence's info string goes unseen). markdown-it-py and pulldown-cmark
      read U+2028 and U+2029 as the spec does (tests/unit/test_markdown_corrections.py).
    - VT and FF become U+0001, an ASCII control character that the spec reads as it reads them,
      where commonmark.js takes them for whitespace: from a ``<`` to the end of its line (``\\s`` in
      its HTML block openers and tags, where the spec's whitespace is "spaces, tabs, and up to one
      line ending"), in a link label (``trim()``; a label needs "at least one character that is not
      a space, tab, or line ending"), and on a list item's first line that holds nothing else (its
      ``reNonSpace`` makes ``- \\v`` a blank item, which cannot interrupt a paragraph). cmark and
      markdown-it-py take them for whitespace in tags and labels too; the spec's text decides, as
      the layer does (texttools.markdown.with_spec_whitespace). In those places the test judges
      VT and FF by the layer's own reading of the spec, not by commonmark.js's.
    - After a link label's ``]:``, tabs become spaces (commonmark.js skips only spaces before a
      destination or a title and at the line's end; the spec: "optional spaces or tabs"), and
      ASCII control characters but tab, LF and CR become VT (a link destination "does not include
      ASCII control characters", where commonmark.js, like cmark, ends one only at whitespace: VT
      is a control character that it ends a destination at and skips nowhere; markdown-it-py and
      pulldown-cmark read the spec's rule).
    """
    text = _BEYOND_ASCII_SPACES.sub("\u00e9", text)
    text = _DESTINATION_LINE.sub(lambda found: _CONTROLS_BUT_WHITESPACE.sub("\v", found[0]), text)
    text = _AFTER_LABEL.sub(lambda found: _CONTROLS_BUT_WHITESPACE.sub("\v", found[0]).replace("\t", " "), text)
    text = _FROM_A_TAG.sub(_tags_spec_faithful, text)
    for where in (_LABEL, _LIST_ITEM_OF_VT_FF):
        text = where.sub(lambda found: found[0].translate(_VT_FF_AS_SOH), text)
    return text


def commonmark_blocks(found: dict[str, Any]) -> CommonmarkBlocks:
    """A line of tests/commonmark_blocks.js's output as ``CommonmarkBlocks``."""
    return CommonmarkBlocks(
        [(level, last) for level, _, last in found["headings"]], [(first, last) for first, last in found["literals"]]
    )


def commonmark_js_batch(texts: list[str]) -> list[CommonmarkBlocks]:
    """commonmark.js's block structure of many documents, in one node process (a few seconds for
    tens of thousands of short documents, where a round trip each would take most of a minute)."""
    assert NODE_MODULES.joinpath("commonmark").is_dir(), "make installs commonmark.js into .node/"
    answered = subprocess.run(
        ["node", str(ROOT / "tests" / "commonmark_blocks.js")], input="".join(json.dumps(t) + "\n" for t in texts),
        capture_output=True, text=True, encoding="utf-8", env={**os.environ, "NODE_PATH": str(NODE_MODULES)},
        check=True, timeout=600,
    )  # fmt: skip
    found = [commonmark_blocks(json.loads(line)) for line in answered.stdout.splitlines()]
    assert len(found) == len(texts)
    return found


@pytest.fixture(scope="module")
def commonmark_js() -> Iterator[Callable[[str], CommonmarkBlocks]]:
    """commonmark.js's block structure of a document (tests/commonmark_blocks.js): one node process
    for the module, a document a line."""
    assert NODE_MODULES.joinpath("commonmark").is_dir(), "make installs commonmark.js into .node/"
    process = subprocess.Popen(
        ["node", str(ROOT / "tests" / "commonmark_blocks.js")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True, encoding="utf-8", env={**os.environ, "NODE_PATH": str(NODE_MODULES)},
    )  # fmt: skip
    assert process.stdin is not None
    assert process.stdout is not None

    def blocks(text: str) -> CommonmarkBlocks:
        process.stdin.write(json.dumps(text) + "\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        return commonmark_blocks(json.loads(process.stdout.readline()))  # type: ignore[union-attr]

    yield blocks
    process.stdin.close()
    process.wait(timeout=30)


@pytest.fixture(scope="session")
def trained_tokenizers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``tokenizers/`` folder holding the three families trained by the library itself
    (tests/hf_tokenizers.py), once a session."""
    from tests.hf_tokenizers import train

    return train(tmp_path_factory.mktemp("tokenizers"))


@pytest.fixture(scope="module")
def deployed_tokenizers(trained_tokenizers: Path) -> Iterator[Path]:
    """The trained tokenizers as a deployment's, read as ``make serve`` reads the folder
    (``TEXT_TOOLS_TOKENIZERS``) for the module's tests: each tool counts with them as
    ``hf:wordpiece``, ``hf:bytelevel`` and ``hf:unigram``; other modules see the project's folder."""
    from texttools import hf_tokens

    previous = os.environ.get(hf_tokens.FOLDER_VARIABLE)
    os.environ[hf_tokens.FOLDER_VARIABLE] = str(trained_tokenizers)
    forget_deployed_tokenizers()
    yield trained_tokenizers
    if previous is None:
        del os.environ[hf_tokens.FOLDER_VARIABLE]
    else:
        os.environ[hf_tokens.FOLDER_VARIABLE] = previous
    forget_deployed_tokenizers()


def forget_deployed_tokenizers() -> None:
    """Drop what the process has read of the deployed tokenizers (another folder is named now)."""
    from texttools import hf_tokens

    for cached in (hf_tokens.deployed, hf_tokens.deployed_tokenizer, hf_tokens.load_file):
        cached.cache_clear()
