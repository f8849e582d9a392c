"""The Markdown tools in linear time (issue 41): every hostile input at the size limit
(benchmarks/workloads.py, ``hostile_markdown``: cmark's pathological tests, the inputs that held
the earlier parser for seconds, deep nesting, tabs, line endings) is answered through each tool's
own handler within 0.5 s on this machine, where the function's timeout is 10 s (markdown-size-chunk
at ``make bench``'s sizes, 1 000 characters with 200 of overlap). ``make bench`` prints each one's
time."""

import json
import time

import pytest

from benchmarks.workloads import hostile_markdown
from scripts.lambda_events import LocalContext, api_event
from tests.conftest import api_handler
from tests.integration.test_local_api import call
from texttools.registry import tool

TOOL = tool("markdown-sections-chunk")
LIMIT = TOOL.byte_limits["text"]
BUDGET_SECONDS = 0.5
CASES = hostile_markdown(LIMIT)
SIZED = {"markdown-sections-chunk": {}, "markdown-size-chunk": {"max_chars": 1000, "overlap_chars": 200}}
"""Each Markdown tool and the fields beside ``text`` that it is asked with."""


@pytest.mark.parametrize("tool_id", sorted(SIZED))
@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_markdown_is_answered_within_the_budget(case: str, tool_id: str) -> None:
    text = CASES[case]
    assert len(text.encode()) <= tool(tool_id).byte_limits["text"] == LIMIT
    body = json.dumps({"text": text, **SIZED[tool_id]})
    event = api_event("POST", tool(tool_id).execute_url, body, {"Content-Type": "application/json"})
    handler = api_handler(tool_id)
    handler(event, LocalContext("MarkdownFunction"))  # warm: the budget is for a request
    times = []
    for _ in range(3):  # the best of three: the input's own cost, not another process's on this machine
        started = time.perf_counter()
        response = handler(event, LocalContext("MarkdownFunction"))
        times.append(time.perf_counter() - started)
    assert response["statusCode"] in {200, 413, 422}, response["body"][:200]
    assert min(times) < BUDGET_SECONDS, f"{case}: {min(times):.3f} s"


def test_hostile_markdown_through_make_serve_is_answered_within_the_budget(base_url: str) -> None:
    """The same corpus through ``make serve``'s API (HTTP, the worker process, the handler)."""
    slowest = {}
    for case, text in CASES.items():
        body = json.dumps({"text": text}).encode()
        times = []
        for _ in range(2):  # the first warms the worker
            started = time.perf_counter()
            status, _, _ = call(base_url + TOOL.execute_url, body)
            times.append(time.perf_counter() - started)
        assert status in {200, 413, 422}, case
        slowest[case] = min(times)
    assert max(slowest.values()) < BUDGET_SECONDS, slowest
