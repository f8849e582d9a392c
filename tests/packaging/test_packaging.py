"""``sam build`` (no Docker), then each built function run as Lambda would run it.

The function directory and the layer's ``python/`` (standing in for ``/opt/python``) are the only
paths besides the standard library: nothing from the source tree or the dev environment leaks in.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.workloads import hostile_markdown
from scripts.lambda_events import LOCAL_REGION, api_event
from scripts.sam_build import as_lambda_extracts, sam_build
from scripts.sample_events import SAMPLE_BUCKET, document_samples, samples
from scripts.template import ROOT, function_serving, functions
from tests.conftest import SampleS3, outcomes
from tests.hf_tokenizers import FAMILIES, SPECIAL_TOKENS
from texttools.registry import TOOL_IDS
from texttools.registry import tool as registered_tool

RUNTIME_SDK = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six")
"""What the Lambda Python runtime itself provides (the AWS SDK): never in the layer, given here."""

RUN_BUILT = """
import json, sys, time
function_dir, layer_dir, runtime_dir, module, attribute = sys.argv[1:6]
sys.path[:0] = [function_dir, layer_dir] + ([runtime_dir] if runtime_dir else [])
handler = getattr(__import__(module), attribute)

class Context:
    function_name = "built"; memory_limit_in_mb = 128; function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:built"; aws_request_id = "r"
    def get_remaining_time_in_millis(self): return 10000

outcomes, seconds = [], {}
for path in json.loads(sys.stdin.read()):
    with open(path, encoding="utf-8") as stream:
        event = json.load(stream)
    started = time.perf_counter()
    try:
        response = handler(event, Context())
    except Exception as error:  # as Lambda: the invocation fails with the error's message
        outcomes.append([path, "raised", str(error)])
        continue
    finally:
        seconds[path] = time.perf_counter() - started
    if "statusCode" in response:
        json_body = "json" in response["headers"].get("Content-Type", "")  # not the playground's page, nor a 202
        body = json.loads(response["body"]) if json_body else {}
        outcomes.append([path, response["statusCode"], str(body["error"]["code"]) if "error" in body else "ok"])
loaded = sorted({m.__file__.split("/site-packages/")[0] for m in sys.modules.values() if getattr(m, "__file__", None)
                 and "/site-packages/" in m.__file__})
packaged = sorted(m.__file__.rpartition("/")[2] for m in list(sys.modules.values())
                  if (getattr(m, "__file__", None) or "").startswith(function_dir + "/"))
print(json.dumps({"outcomes": outcomes, "site_packages": loaded, "modules": sorted(sys.modules), "packaged": packaged,
                  "seconds": seconds}))
"""
"""Runs a built function on sample events with only its directory, the layer and (for the
chunker) the runtime's SDK on ``sys.path``, in the environment the template gives it; prints the
API outcomes, any site-packages used, every module loaded and the function's own files among them."""


def run_built(build_dir: Path, logical_id: str, events: list[str], env: dict[str, str], runtime_dir: str = "") -> dict:  # type: ignore[type-arg]
    spec = functions()[logical_id]
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", RUN_BUILT, str(build_dir / logical_id),
         str(build_dir / "CoreLayer" / "python"), runtime_dir, spec.module, spec.attribute],
        input=json.dumps(events), capture_output=True, text=True, check=True,
        env={**spec.environment, "PATH": "", "LAMBDA_TASK_ROOT": str(build_dir / logical_id), **env},
    )  # fmt: skip
    return json.loads(result.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory, trained_tokenizers: Path) -> Path:
    """The stack built with the trained tokenizers as its deployed ones (tests/hf_tokenizers.py)."""
    return sam_build(tmp_path_factory.mktemp("sam") / "build", trained_tokenizers)


def test_layer_holds_the_core_one_level_down_and_no_aws_sdk(build_dir: Path) -> None:
    layer = build_dir / "CoreLayer" / "python"
    assert (layer / "texttools" / "__init__.py").is_file()
    for package in ("aws_lambda_powertools", "pydantic", "pydantic_core", "orjson"):
        assert (layer / package).is_dir(), package
    assert not (layer / "boto3").exists()
    assert not (layer / "botocore").exists()


def test_the_layer_holds_both_architectures_extension_modules(build_dir: Path) -> None:
    """SAM does not tell the layer's makefile which architecture the template chose."""
    layer = build_dir / "CoreLayer" / "python"
    extensions = [path.relative_to(layer).as_posix() for path in layer.rglob("*.so")]
    per_arch = {arch: {name.removesuffix(f"-{arch}-linux-gnu.so") for name in extensions
                       if name.endswith(f"-{arch}-linux-gnu.so")} for arch in ("x86_64", "aarch64")}  # fmt: skip
    assert {"orjson/orjson.cpython-313", "pydantic_core/_pydantic_core.cpython-313"} <= per_arch["x86_64"]
    assert per_arch["x86_64"] == per_arch["aarch64"]
    assert len(extensions) == 2 * len(per_arch["x86_64"])  # none that only one architecture could load
    # docs/performance.md, "Bytecode": which packages they are, and what the second architecture costs
    said = " ".join((ROOT / "docs" / "performance.md").read_text(encoding="utf-8").split())
    said = said.split("the layer carries the extension modules of both (", 1)[1]
    assert set(re.findall(r"([\w-]+)'s", said.split(" as ", 1)[0])) == {
        name.split("/")[0].replace("_", "-") for name in per_arch["x86_64"]
    }
    total, second = map(int, re.findall(r"(\d+) MB unzipped, (\d+) MB of it the second architecture's", said)[0])
    sizes = [path.stat().st_size for path in layer.rglob("*") if path.is_file()]
    second_sizes = [path.stat().st_size for path in layer.rglob("*-aarch64-linux-gnu.so")]
    assert abs(sum(sizes) / 1e6 - total) <= 0.1 * total, sum(sizes)
    assert abs(sum(second_sizes) / 1e6 - second) <= 0.1 * second, sum(second_sizes)


COMPILED_FROM_SOURCE = """
import importlib.machinery, json, sys
function_dir, layer_dir, runtime_dir, module = sys.argv[1:5]
sys.path[:0] = [function_dir, layer_dir, runtime_dir]
compiled = []
source_to_code = importlib.machinery.SourceFileLoader.source_to_code
def counted(self, data, path, **options):
    compiled.append(path)
    return source_to_code(self, data, path, **options)
importlib.machinery.SourceFileLoader.source_to_code = counted
__import__(module)
print(json.dumps([path for path in compiled if path.startswith(layer_dir)]))
"""
"""Imports a built function and prints the layer modules that had to be compiled from source."""


def test_the_layer_runs_from_its_bytecode_as_lambda_extracts_it(
    build_dir: Path, runtime_sdk: Path, tmp_path: Path
) -> None:
    """On Lambda the layer is read-only and every file is dated 1980 (SAM's zip): only hash-checked
    bytecode is used there; any other module is compiled again on every cold start."""
    layer = shutil.copytree(build_dir / "CoreLayer" / "python", tmp_path / "python", symlinks=True)
    as_lambda_extracts(layer)
    for logical_id, spec in functions().items():
        result = subprocess.run(
            [sys.executable, "-I", "-S", "-B", "-c", COMPILED_FROM_SOURCE, str(build_dir / logical_id), str(layer),
             str(runtime_sdk), spec.module],
            capture_output=True, text=True, check=True,
            env={**spec.environment, "AWS_DEFAULT_REGION": LOCAL_REGION, "PATH": ""},
        )  # fmt: skip
        assert json.loads(result.stdout) == [], logical_id


@pytest.mark.parametrize("logical_id", list(dict.fromkeys(s.function for s in samples())))
def test_built_function_answers_its_sample_events(build_dir: Path, logical_id: str) -> None:
    mine = [s for s in samples() if s.function == logical_id]
    report = run_built(build_dir, logical_id, [str(ROOT / s.path) for s in mine], {})
    assert report["outcomes"] == [[str(ROOT / s.path), s.status, s.code] for s in mine]
    assert report["site_packages"] == []  # -S: nothing from any site-packages, only the build


def test_the_built_markdown_function_answers_hostile_input_within_the_budget(build_dir: Path, tmp_path: Path) -> None:
    """issue 41: the adversarial corpus through the built artifacts (pyromark's compiled parser in
    the layer), each request within 0.5 s."""
    tool = registered_tool("markdown-sections-chunk")
    logical_id = function_serving(tool.execute_url).logical_id
    events = []
    for number, text in enumerate(hostile_markdown(tool.byte_limits["text"]).values()):
        path = tmp_path / f"{number}.json"
        body = json.dumps({"text": text})
        path.write_text(json.dumps(api_event("POST", tool.execute_url, body, {"Content-Type": "application/json"})))
        events.append(str(path))
    report = run_built(build_dir, logical_id, events + events, {})  # twice: the second runs are warm
    assert {status for _, status, _ in report["outcomes"]} <= {200, 413, 422}
    assert max(report["seconds"].values()) < 0.5, report["seconds"]


HEAVY_MODULES = ("boto3", "botocore.client", "asyncio", "pydantic", "aws_lambda_powertools.event_handler")
"""What an API function must not import, on import or on a request (docs/performance.md): the AWS
SDK's clients, asyncio, pydantic's model machinery and Powertools' resolvers, which load asyncio."""


@pytest.mark.parametrize("logical_id", sorted(spec.logical_id for spec in functions().values() if spec.routes))
def test_api_functions_import_no_heavy_module(build_dir: Path, logical_id: str) -> None:
    mine = [str(ROOT / s.path) for s in samples() if s.function == logical_id]
    modules = run_built(build_dir, logical_id, mine, {})["modules"]
    assert [m for m in modules if any(m == heavy or m.startswith(f"{heavy}.") for heavy in HEAVY_MODULES)] == []


@pytest.mark.parametrize("logical_id", sorted(functions()))
def test_each_built_function_holds_only_what_its_handler_imports(
    build_dir: Path, runtime_sdk: Path, sample_s3: SampleS3, logical_id: str
) -> None:
    """A function's package is its handler and the modules it imports (src/handlers/Makefile); no
    other function's handler and no documentation code."""
    package = build_dir / logical_id
    files = sorted(path.relative_to(package).as_posix() for path in package.rglob("*") if path.is_file())
    shipped = [name for name in files if name.startswith("tokenizers/")]
    page = [name for name in files if name.startswith("playground/")]
    files = [name for name in files if name not in shipped and name not in page]
    assert shipped == (sorted(f"tokenizers/{name}.json" for name in FAMILIES) if counts_tokens(logical_id) else [])
    expected_page = sorted(f"playground/{path.name}" for path in (ROOT / "src" / "handlers" / "playground").iterdir())
    assert page == (expected_page if logical_id == "DiscoveryFunction" else [])  # the page's source, served
    sources = [name for name in files if "/" not in name]
    assert all(name.endswith(".py") for name in sources)
    assert [name for name in files if "/" in name] == sorted(
        f"__pycache__/{name.removesuffix('.py')}.cpython-313.pyc" for name in sources
    )  # hash-checked bytecode of each, and nothing else
    mine = [str(ROOT / s.path) for s in samples() + document_samples() if s.function == logical_id]
    report = run_built(build_dir, logical_id, mine, sample_s3.environment, str(runtime_sdk))
    assert report["packaged"] == sources


def counts_tokens(logical_id: str) -> bool:
    """Whether a function can run a tool that takes ``tokenizer``: the execute route of such a tool,
    MCP, and the document flows (any tool a document's metadata names)."""
    spec = functions()[logical_id]
    if spec.routes:
        tools = map(registered_tool, TOOL_IDS)
        takes = {tool.execute_url for tool in tools if "tokenizer" in {field.name for field in tool.fields}}
        return any(route.path in takes or route.path == "/mcp" for route in spec.routes)
    return True  # the S3 flow, the backfill and the Knowledge Base transformation


def test_the_layer_records_each_deployed_tokenizer_and_the_token_functions_ship_them(
    build_dir: Path, trained_tokenizers: Path
) -> None:
    recorded = json.loads((build_dir / "CoreLayer" / "python" / "texttools" / "deployed_tokenizers.json").read_text())
    assert recorded == {"tokenizers": [
        {"name": name, "sha256": hashlib.sha256((trained_tokenizers / f"{name}.json").read_bytes()).hexdigest(),
         "special_tokens": SPECIAL_TOKENS[name], "truncation_max_length": 16} for name in sorted(FAMILIES)
    ]}  # fmt: skip
    shipping = sorted(logical_id for logical_id in functions() if (build_dir / logical_id / "tokenizers").is_dir())
    assert shipping == sorted(logical_id for logical_id in functions() if counts_tokens(logical_id))
    assert {"SizeChunkFunction", "MarkdownSizeChunkFunction", "McpFunction", "ChunkDocumentFunction",
            "BackfillFunction", "KnowledgeBaseChunkFunction"} == set(shipping)  # fmt: skip


def test_the_built_functions_count_with_a_deployed_tokenizer_loaded_on_the_first_request_naming_it(
    build_dir: Path, trained_tokenizers: Path, tmp_path: Path
) -> None:
    """The size functions as Lambda runs them (the files in their package, the record in the
    layer): the library is imported and the file loaded by the request that names it, not before;
    the discovery function lists them from the record without loading any."""
    text = "The tokenizer counts every chunk alone, special tokens included. " * 20
    events = []
    requests: list[dict[str, object]] = [{"max_chars": 200}, {"max_tokens": 40, "tokenizer": "hf:wordpiece"}]
    for number, fields in enumerate(requests):
        path = tmp_path / f"{number}.json"
        body = json.dumps({"text": text, **fields})
        path.write_text(json.dumps(api_event("POST", registered_tool("text-size-chunk").execute_url, body,
                                             {"Content-Type": "application/json"})))  # fmt: skip
        events.append(str(path))
    report = run_built(build_dir, "SizeChunkFunction", events, {})
    assert [status for _, status, _ in report["outcomes"]] == [200, 200]
    assert "tokenizers" in report["modules"]
    first = run_built(build_dir, "SizeChunkFunction", events[:1], {})
    assert "tokenizers" not in first["modules"]
    listing = tmp_path / "tokenizers.json"
    listing.write_text(json.dumps(api_event("GET", "/v1/tokenizers")))
    listed = run_built(build_dir, "DiscoveryFunction", [str(listing)], {})
    assert listed["outcomes"] == [[str(listing), 200, "ok"]]
    assert "tokenizers" not in listed["modules"]


def test_a_tokenizer_file_the_library_cannot_load_fails_the_layer_s_build_naming_it(
    build_dir: Path, tmp_path: Path
) -> None:
    """The layer build's last step (src/core/Makefile, record-tokenizers), over a copy of the built layer."""
    layer = tmp_path / "artifacts" / "python"
    layer.mkdir(parents=True)
    for entry in (build_dir / "CoreLayer" / "python").iterdir():
        if entry.name == "texttools":
            shutil.copytree(entry, layer / entry.name)
        else:
            (layer / entry.name).symlink_to(entry)
    bad = tmp_path / "tokenizers"
    bad.mkdir()
    (bad / "good-name.json").write_text('{"version": "1.0", "model": {"type": "Nope"}}', encoding="utf-8")
    result = subprocess.run(
        ["make", "-s", "-f", str(ROOT / "src" / "core" / "Makefile"), "record-tokenizers"],
        env={**os.environ, "ARTIFACTS_DIR": str(layer.parent), "TEXT_TOOLS_TOKENIZERS": str(bad)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert "tokenizers/good-name.json: the tokenizers library cannot load it" in result.stderr


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


@pytest.mark.parametrize("function", sorted({s.function for s in document_samples()}))
def test_built_document_functions_handle_their_sample_events(
    build_dir: Path, runtime_sdk: Path, sample_s3: SampleS3, function: str
) -> None:
    """The built document functions (S3 events, backfill, Knowledge Base), run against moto's S3 server through
    the real SDK endpoint setting."""
    mine = [sample for sample in document_samples() if sample.function == function]
    report = run_built(build_dir, function, [str(ROOT / s.path) for s in mine], sample_s3.environment, str(runtime_sdk))
    assert report["site_packages"] == []
    expected = {key: code for sample in mine for key, code in sample.outputs.items()}
    assert outcomes(sample_s3.client, SAMPLE_BUCKET) == expected
    raised = {path: message for path, status, message in report["outcomes"] if status == "raised"}
    failing = {str(ROOT / sample.path): sample.code for sample in mine if sample.code != "ok"}
    assert set(raised) == set(failing)  # a Knowledge Base file that cannot be chunked fails the invocation
    assert all(f": {code}: " in raised[path] for path, code in failing.items())
