"""``make bench``: speed and start-up of the API functions, measured side by side in one run.

Ratios are what count (these machines are noisy): each handler is timed against the physical
floor of its work, measured in the same process, and each cold start against the bare stack it
is built on, measured in fresh interpreters in the same run. Results go to stdout and to
``build/bench/results.json`` (untracked: running it changes no file of the repository; the
tables in docs/performance.md and benchmarks/README.md are the record between commits).
"""

import contextlib
import io
import itertools
import json
import logging
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.at_scale import at_scale_rows
from benchmarks.hf_tokens import first_request_rows, hostile_rows, prose_rows
from benchmarks.markdown_size_peers import markdown_size_peer_rows, table_report_peer_rows
from benchmarks.size_peer_checks import size_check_rows
from benchmarks.size_peers import size_peer_rows
from benchmarks.streaming import large_document_rows, streaming_rows, streaming_scaling_rows
from benchmarks.token_peers import token_peer_rows
from benchmarks.workloads import (
    HOSTILE_TOKEN_BUDGETS,
    count_ladder_text,
    cuts_to_size,
    greedy_cuts,
    hostile_markdown,
    hostile_tokens,
    largest_requests,
    markdown_text,
    pathological,
    reads_markdown,
    request_of,
    small_requests,
    takes_markers,
    text_for,
)
from scripts.lambda_events import LOCAL_REGION, LocalContext, api_event
from scripts.sam_build import as_lambda_extracts, sam_build
from scripts.template import ROOT, SOURCE_PYTHONPATH, function_serving, functions
from texttools.codec import decode_json
from texttools.registry import tools

RESULTS = ROOT / "build" / "bench" / "results.json"
TOOLS = tools()
API_FUNCTIONS = {tool_id: function_serving(tool.execute_url) for tool_id, tool in TOOLS.items()}
"""Each tool's function, as the template declares it."""
(FUNCTION_ENVIRONMENT,) = {frozenset(spec.environment.items()) for spec in API_FUNCTIONS.values()}
"""The API functions' one environment (the template's Globals), which ``main`` runs the bench in."""
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPATH": SOURCE_PYTHONPATH,
}
"""Fresh interpreters use bytecode caches, as the dependencies in a layer built by pip have them."""
RUNS, WARMUP, COLD_RUNS = 31, 3, 21
NULL = open(os.devnull, "w")  # noqa: SIM115 (open for the whole run)


def median_ms(work: Callable[[], object], runs: int = RUNS, warmup: int = WARMUP) -> float:
    for _ in range(warmup):
        work()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def alternated_medians(*works: Callable[[], object]) -> list[float]:
    """Median ms of each, timed in turn so that drift on a noisy machine hits them alike."""
    for _ in range(WARMUP):
        for work in works:
            work()
    times: list[list[float]] = [[] for _ in works]
    for _ in range(RUNS):
        for work, acc in zip(works, times, strict=True):
            started = time.perf_counter()
            work()
            acc.append(time.perf_counter() - started)
    return [statistics.median(t) * 1000 for t in times]


def floor_scan(tool_id: str, request: dict[str, Any]) -> list[Any]:
    """The floor's one C-speed scan: ``str.split``, or the ``find`` loop of a tool that takes markers;
    for a tool that reads Markdown, the CommonMark parser's block parse of the text (its line
    endings normalised, as it needs), which no section boundary can be found without."""
    text: str = request["text"]
    if reads_markdown(TOOLS[tool_id]) and cuts_to_size(TOOLS[tool_id]):
        return [block_parse(text), greedy_cuts(text, request["max_chars"])]
    if reads_markdown(TOOLS[tool_id]):
        return block_parse(text)
    if cuts_to_size(TOOLS[tool_id]):
        return [greedy_cuts(text, request["max_chars"])]
    if not takes_markers(TOOLS[tool_id]):
        return text.split(request.get("delimiter", "\n\n"))
    found: list[str] = []
    pos, start, end = 0, request["start"], request["end"]
    while len(found) <= request["max_matches"] and (at := text.find(start, pos)) >= 0:
        close = text.find(end, at + len(start))
        found.append(text[at + len(start) : close])
        pos = close + len(end)
    return found


def block_parse(text: str) -> list[Any]:
    """The CommonMark parse the Markdown tool stands on: pulldown-cmark's events with their ranges
    (pyromark; a heading's place in the text is what any implementation needs of the parse)."""
    import pyromark  # noqa: PLC0415 (only the Markdown rows need it)

    return list(pyromark.events_with_range(text.replace("\r\n", "\n").replace("\r", "\n"), merge_text=True))


def floor_write(output: dict[str, Any]) -> str:
    return json.dumps(output, ensure_ascii=False, separators=(",", ":"))


def floor_work(tool_id: str, body: str, output: dict[str, Any]) -> Callable[[], object]:
    """What any implementation must do: parse the request (a ``str``, as the proxy event holds it),
    one C-speed scan, write the output (compact, non-ASCII as itself)."""

    def work() -> object:
        floor_scan(tool_id, json.loads(body))
        return floor_write(output)

    return work


def required_work(tool_id: str, body: str, output: dict[str, Any]) -> Callable[[], object]:
    """The floor plus what API.md and the stack add to any implementation, so that the gap the
    issue's ratio shows can be told apart from the gap this code leaves: the UTF-8 size of every
    string (API.md's byte limits, which also refuse lone surrogates: ``encode`` finds both), and
    Powertools' cost per request (the whole handler answering the tool's small request)."""
    per_request = handler_work(tool_id, json.dumps(SMALL[tool_id]).encode())

    def work() -> object:
        request = json.loads(body)
        sizes = [len(value.encode()) for value in request.values() if isinstance(value, str)]
        floor_scan(tool_id, request)
        per_request()
        return sizes, floor_write(output)

    return work


def handler_work(tool_id: str, body: bytes) -> Callable[[], dict[str, Any]]:
    handler = API_FUNCTIONS[tool_id].load()
    for log_handler in logging.getLogger(os.environ["POWERTOOLS_SERVICE_NAME"]).handlers:
        if isinstance(log_handler, logging.StreamHandler):  # log lines are still formatted and written
            log_handler.setStream(NULL)
    event = api_event("POST", TOOLS[tool_id].execute_url, body.decode(), {"Content-Type": "application/json"})
    context = LocalContext("bench")

    def work() -> dict[str, Any]:
        with contextlib.redirect_stdout(NULL):  # EMF metric lines: written, not shown
            response: dict[str, Any] = handler(event, context)
        return response

    return work


def warm_rows() -> list[dict[str, Any]]:
    rows = []
    for tool_id, request in largest_requests().items():
        body = json.dumps(request, ensure_ascii=False).encode()
        response = handler_work(tool_id, body)()
        assert response["statusCode"] == 200, response["body"][:200]
        output = json.loads(response["body"])
        as_event_holds_it = body.decode()
        floor, required, warm = alternated_medians(floor_work(tool_id, as_event_holds_it, output),
                                                   required_work(tool_id, as_event_holds_it, output),
                                                   handler_work(tool_id, body))  # fmt: skip
        pieces = len(next(value for value in output.values() if isinstance(value, list)))
        rows.append({"tool": tool_id, "request_bytes": len(body), "pieces": pieces, "floor_ms": floor,
                     "warm_ms": warm, "ratio": warm / floor, "required_ms": required,
                     "required_ratio": warm / required})  # fmt: skip
    return rows


Step = tuple[str, Callable[[Any], Any]]


def step_medians(chains: dict[str, tuple[list[Step], object]]) -> dict[str, dict[str, float]]:
    """Median ms of each step of each chain; every run starts each chain afresh from its first
    value, and the chains alternate, so drift on a noisy machine hits them alike."""
    times: dict[str, dict[str, list[float]]] = {
        side: {name: [] for name, _ in steps} for side, (steps, _) in chains.items()
    }
    for run in range(WARMUP + RUNS):
        for side, (steps, first) in chains.items():
            value = first
            for name, step in steps:
                started = time.perf_counter()
                value = step(value)  # the previous value is freed inside the step's time
                if run >= WARMUP:
                    times[side][name].append(time.perf_counter() - started)
            del value
    return {side: {name: statistics.median(t) * 1000 for name, t in steps.items()} for side, steps in times.items()}


def stage_rows() -> list[dict[str, Any]]:
    """Where the time goes on each side of the warm ratio, so the gap can be explained from here.

    The handler's remainder (Powertools routing, the log line, the metric, the proxy response)
    is its full median minus the sum of its steps' medians.
    """
    rows = []
    for tool_id, request in largest_requests().items():
        tool = TOOLS[tool_id]
        body = json.dumps(request, ensure_ascii=False)
        handler = handler_work(tool_id, body.encode())
        output = json.loads(handler()["body"])

        def write(_: object, output: dict[str, Any] = output) -> str:
            return floor_write(output)

        def call(_: object, handler: Callable[[], dict[str, Any]] = handler) -> dict[str, Any]:
            return handler()

        medians = step_medians({
            "floor": ([("json.loads", json.loads), ("scan", partial(floor_scan, tool_id)), ("json.dumps", write)], body),
            "handler": ([("parse JSON", decode_json), ("validate (UTF-8 size)", tool.parse), ("run", tool.run),
                         ("orjson encode", tool.encode), ("bytes to str", bytes.decode)], body),
            "full handler": ([("full handler", call)], None),
        })  # fmt: skip
        ours = medians["handler"]
        ours["Powertools and adapter"] = medians["full handler"]["full handler"] - sum(ours.values())
        for side in ("floor", "handler"):
            steps = medians[side]
            rows += [{"tool": tool_id, "side": side, "step": step, "ms": ms} for step, ms in steps.items()]
            rows.append({"tool": tool_id, "side": side, "step": "total", "ms": sum(steps.values())})
    return rows


COLD_HANDLER = """
import time; started = time.perf_counter()
import {module}
class Context:
    function_name = "cold"; memory_limit_in_mb = 128; function_version = "$LATEST"; aws_request_id = "r"
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:cold"
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    assert {module}.lambda_handler({event}, Context())["statusCode"] == 200
print((time.perf_counter() - started) * 1000)
"""
"""A fresh interpreter importing the handler and answering one small request; nothing else is
imported (the event is a literal), so the time is the function's own cold start."""
BARE_STACK = """
import time; started = time.perf_counter()
from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
import pydantic
print((time.perf_counter() - started) * 1000)
"""
SMALL = small_requests()


def fresh_output(code: str, env: dict[str, str] = ENV, stdin: str | None = None) -> list[str]:
    """The words of the last line that a fresh interpreter running ``code`` prints."""
    result = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, check=True,
                            env=env, cwd=ROOT)  # fmt: skip
    return result.stdout.strip().splitlines()[-1].split()


def fresh_ms(code: str, env: dict[str, str] = ENV) -> float:
    (ms,) = fresh_output(code, env)
    return float(ms)


def fresh_medians(first: tuple[str, dict[str, str]], second: tuple[str, dict[str, str]]) -> tuple[float, float]:
    """Median ms of two fresh-interpreter runs, alternated so that drift hits both alike."""
    fresh_ms(*first), fresh_ms(*second)  # warm the OS file cache for both, not timed
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(COLD_RUNS):
        times[0].append(fresh_ms(*first))
        times[1].append(fresh_ms(*second))
    return statistics.median(times[0]), statistics.median(times[1])


def cold_starts() -> dict[str, tuple[str, dict[str, Any]]]:
    """Each API function's cold start, by row name: its logical id and its first request (a tool's
    first descriptor example; the tool list; an MCP call of the first tool's example, as an agent's
    first call after its handshake)."""
    json_headers = {"Content-Type": "application/json"}
    found = {
        tool_id: (
            spec.logical_id,
            api_event("POST", TOOLS[tool_id].execute_url, json.dumps(SMALL[tool_id]), json_headers),
        )
        for tool_id, spec in API_FUNCTIONS.items()
    }
    first = next(iter(TOOLS))
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": first, "arguments": SMALL[first]}}
    found["discovery (GET /v1/tools)"] = ("DiscoveryFunction", api_event("GET", "/v1/tools"))
    found["mcp (tools/call)"] = ("McpFunction", api_event("POST", "/mcp", json.dumps(call), json_headers))
    return found


def cold_handler(name: str) -> str:
    logical_id, event = cold_starts()[name]
    return COLD_HANDLER.format(module=functions()[logical_id].module, event=repr(event))


def cold_rows() -> list[dict[str, Any]]:
    subprocess.run([sys.executable, "-m", "compileall", "-q", "src"], check=True, cwd=ROOT, env=ENV)
    rows = []
    for name in cold_starts():
        bare, cold = fresh_medians((BARE_STACK, ENV), (cold_handler(name), ENV))
        rows.append({"tool": name, "bare_stack_ms": bare, "cold_ms": cold, "ratio": cold / bare})
    return rows


def deployed_cold_rows() -> list[dict[str, Any]]:
    """The cold start as deployed: ``sam build``'s function and layer, read-only (no bytecode
    written) and dated as Lambda extracts SAM's zip; the layer as built (hash-checked bytecode)
    beside the same layer without its bytecode, which is what SAM's own python3.13 builder ships."""
    env = {**ENV, "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        build = sam_build(Path(tmp) / "build")
        layer = build / "CoreLayer" / "python"
        source_only = shutil.copytree(layer, Path(tmp) / "source-only", ignore=shutil.ignore_patterns("__pycache__"))
        as_lambda_extracts(Path(tmp))
        rows = []
        for name, (logical_id, _) in cold_starts().items():
            function_dir = build / logical_id
            source, built = fresh_medians(
                (cold_handler(name), {**env, "PYTHONPATH": f"{function_dir}{os.pathsep}{source_only}"}),
                (cold_handler(name), {**env, "PYTHONPATH": f"{function_dir}{os.pathsep}{layer}"}),
            )
            rows.append({"tool": name, "source_layer_ms": source, "built_layer_ms": built, "ratio": built / source})
    return rows


PEAK_RSS = """
import json, sys, contextlib, io
import {module}
from benchmarks.memory import peak_rss_mb
from scripts.lambda_events import LocalContext, api_event
body = sys.stdin.read()
event = api_event("POST", "{url}", body, {{"Content-Type": "application/json"}})
with contextlib.redirect_stdout(io.StringIO()):
    for _ in range(3):
        assert {module}.lambda_handler(event, LocalContext("rss"))["statusCode"] == 200
print(peak_rss_mb())
"""


def memory_rows() -> list[dict[str, Any]]:
    rows = []
    for tool_id, request in largest_requests().items():
        code = PEAK_RSS.format(module=API_FUNCTIONS[tool_id].module, url=TOOLS[tool_id].execute_url)
        (peak_mb,) = fresh_output(code, stdin=json.dumps(request, ensure_ascii=False))
        rows.append({"tool": tool_id, "peak_rss_mb": float(peak_mb)})
    return rows


GC_AFTER_INIT = """
import gc, time
import {module}
frozen = gc.get_freeze_count()
started = time.perf_counter(); gc.collect(); deployed = time.perf_counter() - started
gc.unfreeze()
gc.collect(); started = time.perf_counter(); gc.collect(); unfrozen = time.perf_counter() - started
print(frozen, deployed * 1000, unfrozen * 1000)
"""
"""A warm function's full garbage collection, as deployed (init frozen) and without the freeze."""


def gc_rows() -> list[dict[str, Any]]:
    rows = []
    for module in (spec.module for spec in functions().values()):
        frozen, deployed, unfrozen = fresh_output(GC_AFTER_INIT.format(module=module),
                                                  {**ENV, "AWS_DEFAULT_REGION": LOCAL_REGION})  # fmt: skip
        rows.append({"function": module, "frozen_objects": int(frozen), "full_gc_ms": float(deployed),
                     "unfrozen_full_gc_ms": float(unfrozen)})  # fmt: skip
    return rows


ALLOCATOR = """
import json, resource
from benchmarks.bench import handler_work, median_ms
from benchmarks.workloads import largest_requests
work = handler_work("{tool_id}", json.dumps(largest_requests()["{tool_id}"], ensure_ascii=False).encode())
ms = median_ms(work)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    work()
print(ms, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 10)
"""
"""One function's process serving its largest request warm: median ms and page faults a request."""
ALLOCATOR_RUNS = 5


def allocator_rows() -> list[dict[str, Any]]:
    """Each tool's function in a process of its own, as on Lambda, with the template's
    ``GLIBC_TUNABLES`` and with glibc's defaults, alternated so that drift hits both alike."""
    default_env = {name: value for name, value in ENV.items() if name != "GLIBC_TUNABLES"}
    rows = []
    for tool_id in API_FUNCTIONS:
        runs: dict[str, list[tuple[float, float]]] = {"default": [], "tuned": []}
        for _ in range(ALLOCATOR_RUNS):
            for side, env in (("default", default_env), ("tuned", ENV)):
                ms, faults = fresh_output(ALLOCATOR.format(tool_id=tool_id), env)
                runs[side].append((float(ms), float(faults)))
        default_ms, tuned_ms = (statistics.median(ms for ms, _ in runs[side]) for side in ("default", "tuned"))
        rows.append({"tool": tool_id, "default_ms": default_ms, "tuned_ms": tuned_ms, "ratio": tuned_ms / default_ms,
                     "default_faults": statistics.median(f for _, f in runs["default"]),
                     "tuned_faults": statistics.median(f for _, f in runs["tuned"])})  # fmt: skip
    return rows


def run_ms(tool_id: str, request: dict[str, Any]) -> tuple[float, int]:
    work = handler_work(tool_id, json.dumps(request, ensure_ascii=False).encode())
    return median_ms(work, runs=9, warmup=1), work()["statusCode"]


def scaling_rows() -> list[dict[str, Any]]:
    """Every tool on texts of 16, 64 and 256 KiB (at most its limit), and those without markers on
    64 KiB texts of 100, 1 000 and as many chunks as its limit allows (paragraphs, or headings);
    then the pathological inputs."""
    rows = []
    for tool_id, tool in TOOLS.items():
        texts = {f"{size // 1024} KiB": text_for(tool, min(size, tool.byte_limits["text"]))
                 for size in (16 * 1024, 64 * 1024, 256 * 1024)}  # fmt: skip
        if not takes_markers(tool):
            most = next(value for name, value in tool.limits.items() if not name.endswith("_bytes"))
            texts |= {f"{chunks} chunks": count_ladder_text(tool, chunks) for chunks in (100, 1000, most)}
        for case, text in texts.items():
            ms, status = run_ms(tool_id, request_of(tool, text))
            rows.append({"case": case, "tool": tool_id, "ms": ms, "status": status})
    for name, (tool_id, request) in pathological().items():
        ms, status = run_ms(tool_id, request)
        rows.append({"case": name, "tool": tool_id, "ms": ms, "status": status})
    return rows


def hostile_markdown_rows() -> list[dict[str, Any]]:
    """Each hostile Markdown input at the size limit through the full handler, slowest first (the
    budget, tested in tests/integration/test_markdown_hostile.py, is 0.5 s)."""
    rows = []
    for tool_id in [tool_id for tool_id, tool in TOOLS.items() if reads_markdown(tool)]:
        limit = TOOLS[tool_id].byte_limits["text"]
        for name, text in hostile_markdown(limit).items():
            ms, status = run_ms(tool_id, request_of(TOOLS[tool_id], text))
            rows.append({"case": name, "tool": tool_id, "ms": ms, "status": status})
    return sorted(rows, key=lambda row: -row["ms"])


def hostile_token_rows() -> list[dict[str, Any]]:
    """Each size tool on the hostile token corpus at 3 000 bytes and at the size limit, with every
    ``max_tokens`` of ``HOSTILE_TOKEN_BUDGETS`` and both encodings, through the full handler (best
    of two): the three slowest of each tool and size (the budget, tested in
    tests/integration/test_token_hostile.py, is 0.5 s)."""
    rows = []
    for tool_id in [tool_id for tool_id, tool in TOOLS.items() if cuts_to_size(tool)]:
        for size in (3000, TOOLS[tool_id].byte_limits["text"]):
            measured = []
            for name, text in hostile_tokens(size).items():
                for max_tokens, tokenizer in itertools.product(HOSTILE_TOKEN_BUDGETS, ("cl100k_base", "o200k_base")):
                    request = {"text": text, "max_tokens": max_tokens, "tokenizer": tokenizer}
                    work = handler_work(tool_id, json.dumps(request, ensure_ascii=False).encode())
                    ms = median_ms(work, runs=2, warmup=0) if size > 3000 else median_ms(work, runs=3, warmup=1)
                    measured.append({"case": f"{name}, {max_tokens} {tokenizer}", "tool": tool_id, "bytes": size,
                                     "ms": ms, "status": work()["statusCode"]})  # fmt: skip
            rows += sorted(measured, key=lambda row: -row["ms"])[:3]
    return rows


def peer_rows() -> list[dict[str, Any]]:
    """langchain-text-splitters' CharacterTextSplitter (start offsets only, no line numbers) beside ours."""
    from langchain_text_splitters import CharacterTextSplitter  # noqa: PLC0415 (bench-only dependency)

    text = largest_requests()["text-delimiter-chunk"]["text"]
    assert isinstance(text, str)
    splitter = CharacterTextSplitter(separator="\n\n", chunk_size=1, chunk_overlap=0, add_start_index=True,
                                     strip_whitespace=False)  # fmt: skip
    with contextlib.redirect_stderr(io.StringIO()):  # it warns about every chunk above chunk_size
        peer = median_ms(lambda: splitter.create_documents([text]), runs=9, warmup=1)
    from texttools.tools.text_delimiter_chunk import delimiter_chunk  # noqa: PLC0415
    from texttools.tools.text_paragraphs_split import paragraphs_split  # noqa: PLC0415

    ours = median_ms(lambda: delimiter_chunk(text, "\n\n"), runs=9, warmup=1)
    ours_paragraphs = median_ms(lambda: paragraphs_split(text), runs=9, warmup=1)
    handler = median_ms(handler_work("text-delimiter-chunk", json.dumps({"text": text, "delimiter": "\n\n"}).encode()))
    return [
        {"what": "langchain CharacterTextSplitter(add_start_index) on the 256 KiB text", "ms": peer},
        {"what": "texttools.delimiter_chunk (spans + line numbers)", "ms": ours},
        {"what": "texttools.paragraphs_split (spans + line numbers)", "ms": ours_paragraphs},
        {"what": "full delimiter-chunk Lambda handler (parse, validate, chunk, encode)", "ms": handler},
    ]


LANGCHAIN_HEADERS = [("#" * level, str(level)) for level in range(1, 7)]
COMMONMARK_EXAMPLES = ROOT / "tests" / "data" / "commonmark-0.31.2" / "block-examples.json"


def langchain_headings(splitter: Any, text: str) -> list[tuple[int, str]]:
    """The heading (level, text) that heads each of MarkdownHeaderTextSplitter's chunks: the
    deepest header in its metadata."""
    headings = []
    for document in splitter.split_text(text):
        if document.metadata:
            level = max(document.metadata, key=int)
            headings.append((int(level), document.metadata[level]))
    return headings


def differing(ours: list[tuple[int, str]], theirs: list[tuple[int, str]]) -> int:
    """Section boundaries that one side has and the other has not (in document order)."""
    import difflib  # noqa: PLC0415

    same = sum(block.size for block in difflib.SequenceMatcher(a=ours, b=theirs, autojunk=False).get_matching_blocks())
    return len(ours) + len(theirs) - 2 * same


def markdown_peer_rows() -> list[dict[str, Any]]:
    """langchain-text-splitters' MarkdownHeaderTextSplitter beside markdown-sections-chunk: time on
    the 256 KiB Markdown text, and on the CommonMark 0.31.2 block examples and a generated corpus,
    how many section boundaries (a section's heading level and text, in order) differ."""
    from langchain_text_splitters import MarkdownHeaderTextSplitter  # noqa: PLC0415 (bench-only dependency)

    (tool_id,) = [tool_id for tool_id, tool in TOOLS.items() if reads_markdown(tool) and not cuts_to_size(tool)]
    chosen = TOOLS[tool_id]
    splitter = MarkdownHeaderTextSplitter(LANGCHAIN_HEADERS, strip_headers=False)
    text = largest_requests()[tool_id]["text"]

    def ours(markdown: str) -> list[tuple[int, str]]:
        output = chosen.run(chosen.parse({"text": markdown}))
        return [(section["level"], section["heading"]) for section in output["sections"] if section["level"]]

    from semantic_text_splitter import MarkdownSplitter  # noqa: PLC0415 (bench-only dependency)

    rust = MarkdownSplitter(1000)  # chunks of at most 1 000 characters, cut at Markdown's structure
    peer = median_ms(lambda: splitter.split_text(text), runs=9, warmup=1)
    rust_peer = median_ms(lambda: rust.chunk_indices(text), runs=9, warmup=1)
    own = median_ms(lambda: ours(text), runs=9, warmup=1)
    handler = median_ms(handler_work(tool_id, json.dumps({"text": text}).encode()))
    rows = [
        {"what": "langchain MarkdownHeaderTextSplitter on the 256 KiB Markdown text (ms)", "value": peer},
        {
            "what": "semantic-text-splitter MarkdownSplitter(1000).chunk_indices on it (ms; another job)",
            "value": rust_peer,
        },
        {"what": "markdown-sections-chunk's core on it (ms)", "value": own},
        {"what": "markdown-sections-chunk's full Lambda handler on it (ms)", "value": handler},
    ]
    corpora = {
        "CommonMark 0.31.2 block examples": [e["markdown"] for e in json.loads(COMMONMARK_EXAMPLES.read_text())],
        "generated corpus (200 documents of 4 KiB)": [markdown_text(4096, seed) for seed in range(200)],
    }
    for name, texts in corpora.items():
        pairs = [(ours(markdown), langchain_headings(splitter, markdown)) for markdown in texts]
        boundaries = sum(len(mine) for mine, _ in pairs)
        rows += [
            {"what": f"{name}: documents", "value": len(texts)},
            {"what": f"{name}: CommonMark section boundaries", "value": boundaries},
            {"what": f"{name}: documents where langchain's boundaries differ", "value": sum(
                1 for mine, theirs in pairs if mine != theirs)},
            {"what": f"{name}: boundaries langchain misses or adds", "value": sum(
                differing(mine, theirs) for mine, theirs in pairs)},
        ]  # fmt: skip
    return rows


def in_function_environment() -> None:
    """Re-run in the functions' environment when this process lacks any of it: glibc reads
    ``GLIBC_TUNABLES`` only when a process starts."""
    if any(os.environ.get(name) != value for name, value in FUNCTION_ENVIRONMENT):
        environment = {**os.environ, **dict(FUNCTION_ENVIRONMENT)}
        os.execve(sys.executable, [sys.executable, "-m", "benchmarks.bench"], environment)  # noqa: S606 (this bench)


def main() -> None:
    in_function_environment()
    results: dict[str, Any] = {
        "machine": f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}"
    }
    print(f"Machine: {results['machine']}")
    sections: list[tuple[str, str, Callable[[], list[dict[str, Any]]], list[tuple[str, str]]]] = [
        ("warm", "Warm: full lambda_handler vs floor (json.loads + one scan + json.dumps) and vs required (floor + "
         "UTF-8 size of the strings + Powertools' cost for a small request)", warm_rows,
         [("tool", "<24"), ("request_bytes", ">13"), ("pieces", ">7"), ("floor_ms", ">9.2f"), ("warm_ms", ">8.2f"),
          ("ratio", ">6.2f"), ("required_ms", ">12.2f"), ("required_ratio", ">15.2f")]),
        ("stages", "Where the warm time goes (median ms of each step)", stage_rows,
         [("tool", "<24"), ("side", "<8"), ("step", "<24"), ("ms", ">8.2f")]),
        ("cold", "Cold: import handler + first small request vs bare stack import (fresh interpreters)", cold_rows,
         [("tool", "<26"), ("bare_stack_ms", ">14.1f"), ("cold_ms", ">8.1f"), ("ratio", ">6.2f")]),
        ("deployed", "Cold as deployed: sam build's layer without bytecode (SAM's python builder) vs as built",
         deployed_cold_rows, [("tool", "<26"), ("source_layer_ms", ">16.1f"), ("built_layer_ms", ">15.1f"),
                              ("ratio", ">6.2f")]),
        ("allocator", "Warm in a function's own process: glibc defaults vs the template's GLIBC_TUNABLES",
         allocator_rows, [("tool", "<24"), ("default_ms", ">10.2f"), ("tuned_ms", ">8.2f"), ("ratio", ">6.2f"),
                          ("default_faults", ">14.0f"), ("tuned_faults", ">12.0f")]),
        ("memory", "Peak RSS serving the largest request", memory_rows, [("tool", "<24"), ("peak_rss_mb", ">12.1f")]),
        ("gc", "Full garbage collection in a warm function: init frozen (as deployed) vs not", gc_rows,
         [("function", "<24"), ("frozen_objects", ">14"), ("full_gc_ms", ">10.2f"), ("unfrozen_full_gc_ms", ">19.2f")]),
        ("scaling", "Scaling (full handler, median ms)", scaling_rows,
         [("case", "<30"), ("tool", "<22"), ("ms", ">8.2f"), ("status", ">6")]),
        ("hostile_markdown", "Hostile Markdown at the size limit, full handler, slowest first (median ms)",
         hostile_markdown_rows, [("case", "<44"), ("tool", "<24"), ("ms", ">8.2f"), ("status", ">6")]),
        ("hostile_tokens", "Hostile token budgets (runs the pre-tokenizer cannot end), full handler, the three "
         "slowest of each tool and size (median ms)", hostile_token_rows,
         [("case", "<48"), ("tool", "<20"), ("bytes", ">7"), ("ms", ">8.2f"), ("status", ">6")]),
        ("hf_first_request", "Deployed tokenizer: a fresh interpreter's import of the size function and its first "
         "request, then the same request warm (median ms of 7)", partial(first_request_rows, fresh_output, ENV),
         [("tokenizer", "<36"), ("import_and_first_ms", ">20.1f"), ("warm_ms", ">8.2f")]),
        ("hf_prose", "Deployed tokenizer: 256 KiB of prose at 512 tokens, full handler, beside one encode of the "
         "whole text (goal: at most 3x the floor; limit 2 000 ms)", partial(prose_rows, handler_work),
         [("tokenizer", "<16"), ("handler_ms", ">11.1f"), ("floor_ms", ">9.1f"), ("to_floor", ">9.2f")]),
        ("hf_hostile", "Deployed tokenizers on the hostile token corpus, full handler, the three slowest of each "
         "size (ms)", partial(hostile_rows, median_ms, handler_work),
         [("case", "<56"), ("bytes", ">7"), ("ms", ">8.1f"), ("status", ">6")]),
        ("peer", "Peer comparison (median ms, same text)", peer_rows, [("what", "<72"), ("ms", ">8.2f")]),
        ("size_peer", "text-size-chunk's core beside semantic-text-splitter (Rust) and LangChain, 256 KiB of "
         "prose, by characters (median ms)", partial(size_peer_rows, median_ms),
         [("what", "<34"), ("ours_ms", ">8.2f"), ("rust_ms", ">8.2f"), ("langchain_ms", ">13.2f"),
          ("to_rust", ">8.2f"), ("to_langchain", ">13.2f"), ("floor_ms", ">9.2f"), ("to_floor", ">9.2f")]),
        ("markdown_size_peer", "markdown-size-chunk's core beside semantic-text-splitter's MarkdownSplitter (Rust) "
         "and LangChain's Markdown splitter, 256 KiB of Node.js's fs.md (median ms; floor: the block parse and the "
         "size floor)", partial(markdown_size_peer_rows, median_ms),
         [("what", "<24"), ("ours_ms", ">8.2f"), ("rust_ms", ">8.2f"), ("langchain_ms", ">13.2f"),
          ("to_rust", ">8.2f"), ("to_langchain", ">13.2f"), ("floor_ms", ">9.2f"), ("floor_to_rust", ">14.2f"),
          ("to_floor", ">9.2f")]),
        ("token_peer", "Both size tools by tokens beside semantic-text-splitter (Rust) and LangChain's "
         "from_tiktoken_encoder: 256 KiB of prose, Node.js's fs.md (median ms; floor: one encode_ordinary of the "
         "text; goals: to_rust at most 0.5, to_floor at most 2)", partial(token_peer_rows, alternated_medians,
                                                                           median_ms),
         [("tool", "<20"), ("what", "<17"), ("ours_ms", ">8.2f"), ("rust_ms", ">8.2f"), ("langchain_ms", ">13.2f"),
          ("to_rust", ">8.2f"), ("to_langchain", ">13.2f"), ("floor_ms", ">9.2f"), ("to_floor", ">9.2f")]),
        ("table_report_peer", "markdown-size-chunk's core beside the same peers on a table-heavy 256 KiB report "
         "(issue 60: at most 1.0 of MarkdownSplitter)", partial(table_report_peer_rows, median_ms),
         [("what", "<24"), ("ours_ms", ">8.2f"), ("rust_ms", ">8.2f"), ("langchain_ms", ">13.2f"),
          ("to_rust", ">8.2f"), ("to_langchain", ">13.2f"), ("floor_ms", ">9.2f"), ("floor_to_rust", ">14.2f"),
          ("to_floor", ">9.2f")]),
        ("size_checks", "Size chunkers' chunks checked against their own text (benchmarks/size_peer_checks.py)",
         size_check_rows, [("chunker", "<44"), ("setting", "<22"), ("chunks", ">7"), ("wrong_start", ">12"),
                           ("start_not_after_previous", ">25"), ("over_size", ">10"),
                           ("inside_cluster", ">15")]),
        ("markdown_peer", "Markdown: langchain's MarkdownHeaderTextSplitter beside markdown-sections-chunk",
         markdown_peer_rows, [("what", "<84"), ("value", ">10.2f")]),
        ("streaming", "Documents of any size (jsonl), 64 MiB: streaming vs in-memory (limits lifted) vs floor, "
         "median s", streaming_rows,
         [("tool", "<24"), ("mib", ">6.1f"), ("floor_s", ">8.2f"), ("in_memory_s", ">12.2f"), ("stream_s", ">9.2f"),
          ("ratio", ">6.2f"), ("to_floor", ">9.2f"), ("mib_per_s", ">10.1f")]),
        ("streaming_scaling", "Streaming scaling (median s)", streaming_scaling_rows,
         [("tool", "<24"), ("mib", ">4"), ("stream_s", ">9.3f"), ("ms_per_mib", ">11.1f")]),
        ("large_document", "The chunker on a 1 GiB document (its own process: peak RSS, speed)",
         large_document_rows, [("tool", "<24"), ("gib", ">4.1f"), ("seconds", ">8.1f"), ("mib_per_s", ">10.1f"),
                               ("output_mib", ">11.0f"), ("peak_rss_mb", ">12.1f")]),
        ("at_scale", "Issue 60's documents through the chunker (their own process): 16 MiB under 250 KB headings, "
         "a 100 MB one-table spreadsheet (bounds: 256 MB, 5 MiB/s of one core)", at_scale_rows,
         [("document", "<14"), ("mib", ">6.1f"), ("cpu_s", ">8.1f"), ("mib_per_s", ">10.1f"),
          ("peak_rss_mb", ">12.1f")]),
    ]  # fmt: skip
    for key, title, measure, columns in sections:
        results[key] = measure()
        print(f"\n{title}")
        print(" ".join(f"{name:{spec[0]}{spec[1:].split('.')[0]}}" for name, spec in columns))
        for row in results[key]:
            print(" ".join(f"{row[name]:{spec}}" for name, spec in columns))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
