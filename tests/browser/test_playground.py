"""The playground page in Chromium against ``make serve``'s API (API.md, ``GET /v1/playground``;
docs/playground.md): the marks it draws are the API's chunks, read back from the DOM."""

import base64
import itertools
import json
import os
import subprocess
import urllib.request
import warnings
from typing import Any

import pytest
from playwright.sync_api import BrowserContext

from benchmarks.workloads import markdown_text, mixed_text, prose_text
from scripts.template import ROOT
from tests.browser.conftest import ARTIFACTS, Tab, new_tab
from tests.conftest import TEST_API_KEY, descriptor
from texttools.registry import TOOL_IDS

READ_MARKS = """() => {
  const view = document.getElementById("view");
  const walker = document.createTreeWalker(view, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  let position = 0;
  const text = [], starts = {}, ends = {}, segments = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType === Node.TEXT_NODE) {
      const length = [...node.data].length;
      const holder = node.parentElement;
      if (holder.dataset.chunks !== undefined)
        segments.push([position, position + length, holder.dataset.chunks.split(" ").map(Number)]);
      position += length;
      text.push(node.data);
    } else if (node.classList.contains("start")) {
      starts[node.dataset.index] = position;
    } else if (node.classList.contains("cut")) {
      ends[node.dataset.chunk] = [position, node.dataset.cut === undefined ? null : node.dataset.cut];
    }
  }
  const matches = [...view.querySelectorAll("ol.matches li")].map((item) => item.textContent);
  return {text: text.join(""), starts, ends, segments, matches};
}"""


def api(base_url: str, tool_id: str, request: dict[str, Any]) -> tuple[int, Any]:
    """The API's own answer to the request the page sends."""
    call = urllib.request.Request(  # noqa: S310 (the test's own loopback server)
        f"{base_url}{descriptor(tool_id)['execute_url']}",
        data=json.dumps(request).encode(),
        headers={"Content-Type": "application/json", "x-api-key": TEST_API_KEY},
    )
    try:
        with urllib.request.urlopen(call, timeout=30) as response:  # noqa: S310 (the test's own loopback server)
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def choose(tab: Tab, tool_id: str, example: int | None = None) -> None:
    tab.page.select_option("#tool", f"{tool_id}/1.0.0")
    if example is not None:
        tab.page.select_option("#example", str(example))


def run(tab: Tab) -> str:
    tab.page.click("#run")
    tab.page.wait_for_selector("body[data-state=done], body[data-state=error]")
    return str(tab.page.get_attribute("body", "data-state"))


def marks(tab: Tab) -> dict[str, Any]:
    return tab.page.evaluate(READ_MARKS)  # type: ignore[no-any-return]


def assert_marks_are_the_chunks(drawn: dict[str, Any], sent: str, output: dict[str, Any]) -> None:
    """Each chunk's start marker sits at its start, its end marker (with its cut) at its end, the
    text between is its text, and the coloured segments that name it cover exactly its span."""
    (items,) = [value for value in output.values() if isinstance(value, list)]
    if items and isinstance(items[0], str):
        assert drawn["matches"] == items
        return
    assert drawn["text"] == sent
    assert len(drawn["starts"]) == len(drawn["ends"]) == len(items)
    covered: dict[int, list[tuple[int, int]]] = {}
    for start, end, chunks in drawn["segments"]:
        for index in chunks:
            covered.setdefault(index, []).append((start, end))
    for item in items:
        index = str(item["index"])
        assert drawn["starts"][index] == item["start"], item
        assert drawn["ends"][index] == [item["end"], item.get("cut")], item
        assert sent[item["start"] : item["end"]] == item["text"]
        spans = covered.get(item["index"], [])
        assert (spans[0][0], spans[-1][1]) == (item["start"], item["end"]) if spans else item["start"] == item["end"]
        assert all(a[1] == b[0] for a, b in itertools.pairwise(spans)), "a chunk's band has no hole"


def examples() -> list[tuple[str, int]]:
    return [(tool_id, number) for tool_id in TOOL_IDS for number in range(len(descriptor(tool_id)["examples"]))]


@pytest.mark.parametrize(("tool_id", "number"), examples())
def test_every_descriptor_example_is_drawn_as_the_api_answers_it(tab: Tab, tool_id: str, number: int) -> None:
    tab.open()
    choose(tab, tool_id, number)
    example = descriptor(tool_id)["examples"][number]
    status, output = api(tab.base_url, tool_id, example["input"])
    assert (status, run(tab)) == (200, "done")
    assert_marks_are_the_chunks(marks(tab), example["input"]["text"], output)
    assert tab.console_errors == []
    if number == 0:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        tab.page.screenshot(path=ARTIFACTS / f"{tool_id}.png", full_page=True)


def fill_form(tab: Tab, request: dict[str, Any]) -> None:
    """The form as a user fills it: every field but text typed in (the others emptied)."""
    for control in tab.page.query_selector_all("#fields [name]"):
        name = str(control.get_attribute("name"))
        control.fill(str(request[name]) if name in request else "")


DROP = """([encoded, name]) => {
  const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], name, {type: "text/markdown"}));
  return transfer;
}"""


def drop(tab: Tab, content: str | bytes, name: str) -> None:
    """A file dropped on the text area, as a file manager drops it: its bytes exactly (a textarea
    would turn each CRLF into LF)."""
    raw = content.encode() if isinstance(content, str) else content
    transfer = tab.page.evaluate_handle(DROP, [base64.b64encode(raw).decode(), name])
    tab.page.dispatch_event("#drop", "drop", {"dataTransfer": transfer})


def run_file(tab: Tab, tool_id: str, request: dict[str, Any], name: str) -> str:
    """The page opened on ``tool_id``, the form filled with ``request``, its text dropped as the
    file ``name``, then Run: the page's state once it has answered."""
    tab.open()
    choose(tab, tool_id)
    fill_form(tab, request)
    drop(tab, request["text"], name)
    tab.page.wait_for_selector(f"body[data-file='{name}']")
    return run(tab)


def test_astral_characters_crlf_and_overlaps_are_drawn_where_the_api_puts_them(tab: Tab) -> None:
    """Offsets count code points, the page's strings UTF-16 units: emoji, CJK and CRLF lines, with
    chunks that overlap, land exactly; the token histogram draws max_tokens."""
    text = mixed_text(6000) + "\n\n𝄞 音楽 👩‍👩‍👧 e\u0301\u200b\ufeff end"
    request = {"text": text, "max_chars": 120, "overlap_chars": 40, "max_tokens": 40}
    assert run_file(tab, "text-size-chunk", request, "mixed.txt") == "done"
    status, output = api(tab.base_url, "text-size-chunk", request)
    assert status == 200
    drawn = marks(tab)
    assert_marks_are_the_chunks(drawn, text, output)
    assert any(len(chunks) > 1 for _, _, chunks in drawn["segments"]), "some chunks overlap"
    limits = tab.page.eval_on_selector_all("svg line.limit", "(lines) => lines.map((line) => line.dataset.limit)")
    assert limits == ["120", "40"]


def error_shown(tab: Tab) -> dict[str, Any]:
    """The error the page shows: its code and message, and each field it points at (the field's
    own control marked invalid, with the problem written under it)."""
    return tab.page.evaluate(  # type: ignore[no-any-return]
        """() => {
      const box = document.querySelector("#errors .error");
      const pointed = [...box.querySelectorAll("li[data-field]")].map((item) => item.dataset.field);
      const invalid = [...document.querySelectorAll("[aria-invalid=true]")].map((node) => node.name);
      const problems = pointed.map((name) => (document.getElementById(
        name === "text" ? "text-problem" : `field-${name}-problem`) || {}).textContent);
      return {code: box.dataset.code, message: box.querySelector(".message").textContent, pointed, invalid, problems};
    }"""
    )


ERRORS = [
    ("text-size-chunk", {"text": "Alpha beta gamma.", "max_chars": 10, "overlap_chars": 10}),
    ("markdown-size-chunk", {"text": "# A\n\nb", "max_chars": 50, "tokenizer": "o200k_base"}),
    ("text-delimiter-chunk", {"text": "a,b", "delimiter": "é" * 129}),
    ("text-delimiter-chunk", {"text": "," * 10_000, "delimiter": ","}),
    ("text-extract-between", {"text": "one [two", "start": "[", "end": "]"}),
]


@pytest.mark.parametrize(("tool_id", "request_"), ERRORS, ids=lambda value: str(value)[:24])
def test_each_kind_of_error_shows_its_code_and_points_at_its_field(
    tab: Tab, tool_id: str, request_: dict[str, Any]
) -> None:
    """invalid_input (two kinds), input_too_large (a delimiter over 256 bytes), too_many_chunks and
    unclosed_start_marker: the API's code and message as sent, each detail at its field."""
    status, answer = api(tab.base_url, tool_id, request_)
    error = answer["error"]
    tab.open()
    choose(tab, tool_id)
    fill_form(tab, request_)
    tab.page.evaluate("(text) => { const area = document.getElementById('field-text'); area.value = text; "
                      "area.dispatchEvent(new Event('input')); }", request_["text"])  # fmt: skip
    assert run(tab) == "error"
    shown = error_shown(tab)
    fields = [detail["field"] for detail in error.get("details", [])]
    assert (shown["code"], shown["message"], shown["pointed"]) == (error["code"], error["message"], fields)
    assert shown["invalid"] == fields
    assert shown["problems"] == [f"{error['code']}: {detail['problem']}" for detail in error.get("details", [])]
    assert status >= 400


def test_a_wrong_api_key_shows_the_gateway_s_error(tab: Tab) -> None:
    tab.page.goto(f"{tab.base_url}/v1/playground")
    tab.page.fill("#api-key", "not-the-key")
    tab.page.click("#use-key")
    tab.page.wait_for_selector("#errors .error")
    assert error_shown(tab)["code"] == "invalid_api_key"


def test_a_dropped_200_kb_markdown_file_is_chunked_and_drawn(tab: Tab) -> None:
    document = markdown_text(200_000).replace("\n", "\r\n", 50)  # some CRLF lines too
    request = {"text": document, "max_chars": 800, "overlap_chars": 100}
    assert run_file(tab, "markdown-size-chunk", request, "guide.md") == "done"
    assert "guide.md" in tab.page.inner_text("#text-size")
    status, output = api(tab.base_url, "markdown-size-chunk", request)
    assert status == 200
    assert output["chunk_count"] > 200
    assert_marks_are_the_chunks(marks(tab), document, output)


def test_a_file_over_the_tool_s_limit_is_refused_in_the_page_and_never_sent(tab: Tab) -> None:
    tab.open()
    choose(tab, "markdown-size-chunk")
    limit = descriptor("markdown-size-chunk")["limits"]["max_input_bytes"]
    drop(tab, b"a" * (limit + 1), "big.md")
    tab.page.wait_for_selector("#errors .error")
    shown = error_shown(tab)
    assert (shown["code"], shown["pointed"], shown["invalid"]) == ("input_too_large", ["text"], ["text"])
    assert str(limit + 1) in shown["message"]
    assert run(tab) == "done"  # the text is still the example's: the file was not read
    drop(tab, "é" * (limit // 2) + "a", "just-over.md")  # the limit counts UTF-8 bytes, not characters
    tab.page.wait_for_selector("#errors .error")
    assert error_shown(tab)["code"] == "input_too_large"
    posted = [url for method, url in tab.requests if method == "POST"]
    assert len(posted) == 1


def test_a_dropped_file_loses_its_bom_and_must_be_utf8(tab: Tab) -> None:
    """As the S3 flow reads a document: a leading BOM is not text; bytes that are not UTF-8 are
    refused in the page, pointing at the text."""
    tab.open()
    choose(tab, "text-paragraphs-split")
    drop(tab, b"\xef\xbb\xbfone\r\n\r\ntwo", "bom.txt")
    tab.page.wait_for_selector("body[data-file='bom.txt']")
    assert run(tab) == "done"
    assert marks(tab)["text"] == "one\r\n\r\ntwo"
    drop(tab, b"caf\xe9", "latin1.txt")
    tab.page.wait_for_selector("#errors .error")
    assert (error_shown(tab)["code"], error_shown(tab)["pointed"]) == ("invalid_input", ["text"])


def test_text_typed_over_the_limit_is_refused_before_it_is_sent(tab: Tab) -> None:
    tab.open()
    choose(tab, "text-paragraphs-split")
    limit = descriptor("text-paragraphs-split")["limits"]["max_input_bytes"]
    tab.page.evaluate("(text) => { const area = document.getElementById('field-text'); area.value = text; "
                      "area.dispatchEvent(new Event('input')); }", "€" * (limit // 3 + 1))  # fmt: skip
    tab.page.click("#run")
    tab.page.wait_for_selector("#errors .error")
    assert error_shown(tab)["code"] == "input_too_large"
    assert [url for method, url in tab.requests if method == "POST"] == []


def press_tab_until(tab: Tab, condition: str, most: int = 80) -> None:
    """Tab (keyboard only) until ``condition`` (a JavaScript expression) holds."""
    for _ in range(most):
        if tab.page.evaluate(f"() => Boolean({condition})"):
            return
        tab.page.keyboard.press("Tab")
    raise AssertionError(f"not reached with {most} presses of Tab: {condition}")


def fields_panel(tab: Tab) -> dict[str, str]:
    return tab.page.evaluate(  # type: ignore[no-any-return]
        """() => Object.fromEntries([...document.querySelectorAll("#fields-panel tr")]
      .map((row) => [row.dataset.field, row.querySelector("td").textContent]))"""
    )


def test_the_keyboard_alone_reaches_every_chunk_s_fields(tab: Tab) -> None:
    """From the page's top: Tab to the tool picker, arrow keys to choose, Tab to Run, Enter; Tab
    into the text, then the arrow keys walk every chunk and show its fields, table header included."""
    tab.page.goto(f"{tab.base_url}/v1/playground")
    press_tab_until(tab, "document.activeElement.id === 'api-key'")
    tab.page.keyboard.type(TEST_API_KEY)
    tab.page.keyboard.press("Enter")
    tab.page.wait_for_selector("body[data-ready=true]")
    examples = descriptor("markdown-size-chunk")["examples"]
    number = next(i for i, example in enumerate(examples) if "table_header" in json.dumps(example["output"]))
    press_tab_until(tab, "document.activeElement.id === 'example'")
    for _ in range(number):
        tab.page.keyboard.press("ArrowDown")
    press_tab_until(tab, "document.activeElement.id === 'run'")
    tab.page.keyboard.press("Enter")
    tab.page.wait_for_selector("body[data-state=done]")
    press_tab_until(tab, "document.activeElement.classList.contains('start')")
    chunks = api(tab.base_url, "markdown-size-chunk", examples[number]["input"])[1]["chunks"]
    for chunk in chunks:
        shown = fields_panel(tab)
        expected = {"index": str(chunk["index"]), "start": str(chunk["start"]), "end": str(chunk["end"]),
                    "cut": chunk["cut"], "headings": " > ".join(chunk["headings"]) or "(none)"}  # fmt: skip
        assert {key: shown.get(key) for key in expected} == expected
        assert shown["start_line"] == str(chunk["start_line"])
        if "table_header" in chunk:
            header = chunk["table_header"]
            assert shown["table_header"] == f"{header['start']}\u2013{header['end']}"
            assert shown["table header text"] == header["text"]
        else:
            assert "table_header" not in shown
        tab.page.keyboard.press("ArrowRight")
    assert fields_panel(tab)["index"] == str(len(chunks) - 1)  # the last stays
    tab.page.keyboard.press("Home")
    assert fields_panel(tab)["index"] == "0"
    tab.page.keyboard.press("j")
    assert fields_panel(tab)["index"] == "1"
    tab.page.keyboard.press("k")
    assert fields_panel(tab)["index"] == "0"
    tab.page.keyboard.press("PageDown")
    assert fields_panel(tab)["index"] == str(min(10, len(chunks) - 1))
    tab.page.keyboard.press("PageUp")
    assert fields_panel(tab)["index"] == "0"
    tab.page.keyboard.press("End")
    assert fields_panel(tab)["index"] == str(len(chunks) - 1)
    tab.page.keyboard.press("Tab")  # one tab stop for all the chunks: Tab leaves the text
    assert not tab.page.evaluate("document.activeElement.classList.contains('start')")


def test_hovering_a_chunk_shows_its_fields(tab: Tab) -> None:
    tab.open()
    choose(tab, "text-size-chunk", 0)
    assert run(tab) == "done"
    tab.page.hover("#view .band[data-chunks='2']")
    assert fields_panel(tab)["index"] == "2"


def test_the_page_requests_its_own_origin_only_under_its_policy(tab: Tab) -> None:
    """The browser's own request log, over loading, every tool and a run; the answer's CSP header,
    which the browser enforced without a single violation (it would log one as a console error)."""
    response = tab.open()
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy
    assert "script-src 'sha256-" in policy
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    for tool_id in TOOL_IDS:
        choose(tab, tool_id, 0)
        assert run(tab) == "done"
    assert tab.requests
    assert [url for _, url in tab.requests if not url.startswith(tab.base_url + "/")] == []
    assert tab.console_errors == []
    assert tab.page.evaluate("sessionStorage.getItem('text-tools-api-key')") == TEST_API_KEY
    assert tab.page.evaluate("localStorage.length + document.cookie.length") == 0  # the key is in the tab only
    tab.page.click("#forget-key")
    assert tab.page.evaluate("sessionStorage.getItem('text-tools-api-key')") is None


def run_in_shell(command: str, environment: dict[str, str]) -> Any:
    """The command as pasted into a shell; its standard output as JSON."""
    result = subprocess.run(["/bin/bash", "-c", command], env={"PATH": os.environ["PATH"], **environment},
                            capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    return json.loads(result.stdout)


def test_copy_as_curl_gives_a_command_that_answers_as_the_page_did(tab: Tab) -> None:
    """The command names the key by variable (the page never writes the key out) and sends the
    form's request exactly: run as pasted, it answers what the page drew."""
    tab.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    tab.open()
    choose(tab, "markdown-size-chunk", 0)
    drop(tab, "Tab\there, CRLF\r\nand 😀 \"quotes\" 'single' $HOME `cmd`\r\n\r\n# H\r\n\r\nend", "shell.md")
    tab.page.wait_for_selector("body[data-file='shell.md']")
    assert run(tab) == "done"
    tab.page.click("#copy-curl")
    tab.page.wait_for_selector("#curl-box:not([hidden])")
    command = tab.page.inner_text("#curl")
    assert TEST_API_KEY not in command
    assert tab.page.evaluate("navigator.clipboard.readText()") == command
    answered = run_in_shell(command, {"TEXT_TOOLS_API_KEY": TEST_API_KEY})
    drawn = marks(tab)
    assert_marks_are_the_chunks(drawn, drawn["text"], answered)


def test_under_iam_the_page_shows_the_curl_command_instead_of_running(
    context: BrowserContext, iam_base_url: str
) -> None:
    """It cannot sign requests: the form still comes from the descriptors (which the page carries),
    Run sends nothing and shows the command, signed by curl itself, which answers as the API does."""
    tab = new_tab(context, iam_base_url)
    tab.open(key=None)
    assert tab.page.is_hidden("#api-key")
    assert "IAM" in tab.page.inner_text("#auth-note")
    choose(tab, "text-size-chunk", 0)
    tab.page.click("#run")
    tab.page.wait_for_selector("#curl-box:not([hidden])")
    assert "cannot sign" in tab.page.inner_text("#curl-note")
    command = tab.page.inner_text("#curl")
    assert "--aws-sigv4 'aws:amz:" in command
    assert [method for method, _ in tab.requests] == ["GET"]  # the page only: nothing else was asked
    credentials = {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token"}
    assert run_in_shell(command, credentials) == descriptor("text-size-chunk")["examples"][0]["output"]
    assert tab.console_errors == []


def test_256_kib_in_2000_chunks_is_drawn_in_under_a_second(tab: Tab) -> None:
    text = prose_text(256 * 1024)
    request = {"text": text, "max_chars": 150, "overlap_chars": 20}
    assert run_file(tab, "text-size-chunk", request, "prose.txt") == "done"
    count = tab.page.locator("#view .start").count()
    milliseconds = float(str(tab.page.get_attribute("body", "data-render-ms")))
    print(f"{count} chunks of {len(text.encode())} bytes drawn in {milliseconds} ms")
    assert count >= 2000
    assert milliseconds < 1000


SCREENSHOT = ROOT / "docs" / "playground.png"
"""The README's picture of the playground, made here so that it shows the page as it is."""
README_DOCUMENT = """# Deploying

Run `make deploy` once; it asks for the stack's settings and keeps them in samconfig.toml.

## Settings

| Parameter | Default | What it does |
|:--|:--|:--|
| AuthMode | API_KEY | How callers prove who they are: API_KEY, IAM or NONE. |
| ChunksFormat | json | How the S3 flow writes chunks: one JSON document or JSON lines. |
| StageName | prod | The stage in every URL of the API. |

## Checking it

```sh
curl -s "$API/v1/health"
```

Each answer carries X-Request-Id; the logs carry it too, so one id finds a request's every line.
"""
CHANGED = """async ([before, after]) => {
  const pixels = async (encoded) => {
    const image = new Image();
    image.src = "data:image/png;base64," + encoded;
    await image.decode();
    const canvas = new OffscreenCanvas(image.width, image.height);
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    return [image.width, image.height, context.getImageData(0, 0, image.width, image.height).data];
  };
  const [w1, h1, a] = await pixels(before), [w2, h2, b] = await pixels(after);
  if (w1 !== w2 || h1 !== h2) return 1;
  let differing = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 48) differing++;
  }
  return differing / (w1 * h1);
}"""


def test_the_readme_screenshot_is_the_page_as_it_is(tab: Tab, context: BrowserContext) -> None:
    """Taken on every run; written over docs/playground.png when more than 1 % of its pixels changed
    (another machine's fonts move a few pixels: no reason to rewrite it, nor to fail)."""
    request = {"text": README_DOCUMENT, "max_chars": 160, "overlap_chars": 30, "max_tokens": 48}
    assert run_file(tab, "markdown-size-chunk", request, "deploying.md") == "done"
    tab.page.eval_on_selector("#view .band[data-chunks='3']",
                              "(band) => band.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}))")  # fmt: skip
    tab.page.evaluate("window.scrollTo(0, 0)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    taken = tab.page.screenshot(path=ARTIFACTS / "readme.png")
    assert "(docs/playground.png)" in (ROOT / "README.md").read_text(encoding="utf-8")
    blank = context.new_page()  # no policy of the playground's here: the images are data: URLs
    changed = 1.0 if not SCREENSHOT.is_file() else blank.evaluate(
        CHANGED, [base64.b64encode(SCREENSHOT.read_bytes()).decode(), base64.b64encode(taken).decode()])  # fmt: skip
    if changed > 0.01:
        SCREENSHOT.write_bytes(taken)
        warnings.warn(f"docs/playground.png rewritten ({changed:.1%} of its pixels changed): commit it", stacklevel=1)
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_chunk_s_table_header_is_shown_with_its_fields(tab: Tab) -> None:
    """The descriptor's own answer for its table example, drawn by the page's renderer (whatever the
    deployed chunker answers): each chunk that starts in a table shows its header's span and text."""
    examples = descriptor("markdown-size-chunk")["examples"]
    example = next(example for example in examples if "table_header" in json.dumps(example["output"]))
    tab.open()
    choose(tab, "markdown-size-chunk")
    tab.page.evaluate("([text, output, request]) => render(text, output, request)",
                      [example["input"]["text"], example["output"], example["input"]])  # fmt: skip
    assert_marks_are_the_chunks(marks(tab), example["input"]["text"], example["output"])
    with_header = [chunk for chunk in example["output"]["chunks"] if "table_header" in chunk]
    assert with_header
    for chunk in example["output"]["chunks"]:
        tab.page.eval_on_selector(f"#view .start[data-index='{chunk['index']}']", "(marker) => marker.focus()")
        shown = fields_panel(tab)
        header = chunk.get("table_header")
        expected = (f"{header['start']}\u2013{header['end']}", header["text"]) if header else (None, None)
        assert (shown.get("table_header"), shown.get("table header text")) == expected


def test_with_auth_mode_none_the_page_asks_for_no_key_and_runs(context: BrowserContext, open_base_url: str) -> None:
    tab = new_tab(context, open_base_url)
    tab.open(key=None)
    assert tab.page.is_hidden("#api-key")
    choose(tab, "text-paragraphs-split", 0)
    assert run(tab) == "done"
    example = descriptor("text-paragraphs-split")["examples"][0]
    assert_marks_are_the_chunks(marks(tab), example["input"]["text"], example["output"])
    assert tab.console_errors == []
