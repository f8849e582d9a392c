"""``make serve``, started on free ports inside the test and driven over real HTTP and S3."""

import contextlib
import gzip
import http.client
import io
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable, Iterator
from email.message import Message
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

import boto3
import pytest

from benchmarks.workloads import mixed_document
from scripts.local_functions import FunctionWorker, InvocationError
from scripts.local_gateway.api import (
    API_GATEWAY_MAX_BODY,
    IDLE_TIMEOUT,
    SWAGGER_ASSETS,
    LocalApi,
    LocalRequest,
    content_coding,
    make_server,
)
from scripts.local_gateway.http_body import read_body
from scripts.local_s3 import LocalS3Flow
from scripts.serve import LOCAL_API_KEY
from scripts.template import ROOT, FunctionSpec, documents_bucket, functions, load_template, parameter_defaults
from tests.conftest import SCRIPTS_PYTHONPATH, TEST_API_KEY, descriptor
from texttools.registry import TOOL_IDS
from texttools.tools.text_paragraphs_split import paragraphs_split

JSON = "application/json"
EXTRACT = descriptor("text-extract-between")["execute_url"]
PARAGRAPHS = descriptor("text-paragraphs-split")["execute_url"]


def call(
    url: str,
    body: bytes | None = None,
    method: str = "POST",
    content_type: str | None = JSON,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, method=method)  # noqa: S310 (the test's own loopback URL)
    for name, value in ({"x-api-key": TEST_API_KEY} if headers is None else headers).items():
        request.add_header(name, value)
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (the test's own loopback URL)
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_each_route_answers_its_descriptor_examples(base_url: str, tool_id: str) -> None:
    seed = descriptor(tool_id)
    for example in seed["examples"]:
        status, headers, body = call(base_url + seed["execute_url"], json.dumps(example["input"]).encode())
        assert status == 200
        assert headers["Content-Type"] == JSON
        assert json.loads(body) == example["output"]


def test_readme_quick_start_uses_the_local_key() -> None:
    assert f"curl -H 'x-api-key: {LOCAL_API_KEY}'" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_quick_start_request(base_url: str) -> None:
    status, _, body = call(base_url + PARAGRAPHS, b'{"text":"a\\n\\nb"}')
    assert status == 200
    assert json.loads(body)["paragraph_count"] == 2


@pytest.mark.parametrize(
    ("path", "method", "content_type", "body", "expected"),
    [
        ("/nope", "POST", JSON, b"{}", (404, "not_found")),
        (EXTRACT, "GET", None, None, (405, "method_not_allowed")),
        (EXTRACT, "POST", "text/plain", b"{}", (415, "unsupported_media_type")),
        (EXTRACT, "POST", JSON, b'{"text": 1}', (400, "invalid_input")),
        (EXTRACT, "POST", JSON, b'{"text":"[a","start":"[","end":"]"}', (422, "unclosed_start_marker")),
        (EXTRACT, "POST", JSON, b'{"text":"a","start":"' + b"[" * 4097 + b'","end":"]"}', (413, "input_too_large")),
        (PARAGRAPHS, "POST", JSON, b" " * (API_GATEWAY_MAX_BODY + 1), (413, "input_too_large")),
    ],
)
def test_errors_in_the_api_shape(
    base_url: str, path: str, method: str, content_type: str | None, body: bytes | None, expected: tuple[int, str]
) -> None:
    status, headers, raw = call(base_url + path, body, method, content_type)
    assert headers["Content-Type"] == JSON
    error = json.loads(raw)["error"]
    assert (status, error["code"]) == expected
    assert error["request_id"]


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        ("application/octet-stream", b'{"text":"a"}', (415, "unsupported_media_type")),
        (JSON, b"\xff", (400, "invalid_input")),
    ],
)
def test_binary_bodies_travel_base64_encoded(
    base_url: str, content_type: str, body: bytes, expected: tuple[int, str]
) -> None:
    status, _, raw = call(base_url + PARAGRAPHS, body, content_type=content_type)
    assert (status, json.loads(raw)["error"]["code"]) == expected


@pytest.mark.parametrize(
    ("content_type", "body", "event_body"),
    [
        (None, '{"text": "é"}'.encode(), '{"text": "é"}'),
        ("application/json; charset=utf-8", b"{}", "{}"),
        ("Text/Plain", b"x", "x"),
        ("application/octet-stream", b"x", b"x"),  # sent base64-encoded
        (JSON, b'{"text": "\xff"}', b'{"text": "\xff"}'),  # not UTF-8: its exact bytes, base64-encoded
        (JSON, b"", None),
    ],
)
def test_text_media_types_arrive_as_text_and_other_bodies_as_bytes(
    content_type: str | None, body: bytes, event_body: str | bytes | None
) -> None:
    headers = {"Content-Type": [content_type]} if content_type else {}
    assert LocalRequest("POST", PARAGRAPHS, headers, body).event_body() == event_body


def test_the_gateway_refuses_a_body_over_10_mib_before_routing() -> None:
    quota = 10 * 1024 * 1024  # API Gateway's payload quota
    api = LocalApi(auth_mode="NONE")
    try:
        for size, status in ((quota, 404), (quota + 1, 413)):
            assert api.handle(LocalRequest("POST", "/nope", {}, b" " * size))[0] == status
    finally:
        api.stop()


def address(base_url: str) -> tuple[str, int]:
    host, port = base_url.removeprefix("http://").split(":")
    return host, int(port)


def connect(base_url: str) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(*address(base_url), timeout=10)


def until_closed(client: socket.socket) -> tuple[bytes, float]:
    """Everything the server sends before it closes the connection, and how long that took."""
    started = time.perf_counter()
    received = b"".join(iter(lambda: client.recv(65536), b""))
    return received, time.perf_counter() - started


def read_response(client: socket.socket) -> http.client.HTTPResponse:
    """One whole response read off the connection, however many segments the server sent it in."""
    response = http.client.HTTPResponse(client)
    response.begin()
    response.read()
    return response


def wait_while(condition: Callable[[], object]) -> None:
    """Polls until ``condition()`` is false, for at most 10 s; the caller asserts how it ended."""
    deadline = time.monotonic() + 10
    while condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def logged(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The lines a server printed so far, without the time each request took and its request id
    (the last two words)."""
    return [line.rsplit(" ", 2)[0] for line in capsys.readouterr().out.splitlines()]


def hang_up(client: socket.socket) -> None:
    """Closes the connection with a reset, as a client that goes away does."""
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()


def test_a_chunked_body_is_decoded_and_the_connection_kept(base_url: str) -> None:
    connection = connect(base_url)
    headers = {"x-api-key": TEST_API_KEY, "Content-Type": JSON}
    connection.request("POST", PARAGRAPHS, iter([b'{"text":', b'"a\\n\\nb"}']), headers, encode_chunked=True)
    response = connection.getresponse()
    assert (response.status, json.loads(response.read())["paragraph_count"]) == (200, 2)
    connection.request("POST", PARAGRAPHS, b'{"text":"c"}', headers)  # the same connection: framing held
    response = connection.getresponse()
    assert (response.status, json.loads(response.read())["paragraph_count"]) == (200, 1)


def test_an_oversized_chunked_body_is_refused_and_the_connection_kept(base_url: str) -> None:
    connection = connect(base_url)
    headers = {"x-api-key": TEST_API_KEY, "Content-Type": JSON}
    pieces = [b" " * (1024 * 1024)] * 10 + [b" "]  # 10 MiB + 1 byte, in eleven chunks
    connection.request("POST", PARAGRAPHS, iter(pieces), headers, encode_chunked=True)
    response = connection.getresponse()
    assert (response.status, json.loads(response.read())["error"]["code"]) == (413, "input_too_large")
    connection.request("POST", PARAGRAPHS, b'{"text":"c"}', headers)
    assert connection.getresponse().status == 200


HEAD = f"POST {PARAGRAPHS} HTTP/1.1\r\nHost: x\r\nx-api-key: {TEST_API_KEY}\r\nContent-Type: {JSON}\r\n".encode()


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (HEAD + b"Content-Length: abc\r\n\r\n{}", 400),
        (HEAD + b"Content-Length: -1\r\n\r\n{}", 400),
        (HEAD + b"Content-Length: +2\r\n\r\n{}", 400),
        (HEAD + "Content-Length: \u0662\r\n\r\n{}".encode(), 400),  # ARABIC-INDIC DIGIT TWO: not ASCII
        (HEAD + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{} ", 400),
        (HEAD + b"Content-Length: 9\r\n\r\n{}", 400),  # the body ends (the client stops sending) early
        (HEAD + b"Transfer-Encoding: gzip\r\n\r\n{}", 400),
        (HEAD + b"Transfer-Encoding: chunked\r\nContent-Length: 7\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 400),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", 400),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n0x2\r\n{}\r\n0\r\n\r\n", 400),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}!!\r\n0\r\n\r\n", 400),  # data over its size
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n", 400),  # no last chunk
        # refused by http.server itself, before any body
        (b"POST\r\n\r\n", 400),
        (b"POST / HTTP/x.y\r\n\r\n", 400),
        (b"POST / HTTP/9.9\r\n\r\n", 505),
        (b"POST /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),
        (HEAD + b"X-Long: " + b"a" * 70_000 + b"\r\n\r\n", 431),
    ],
)
def test_a_request_that_cannot_be_parsed_or_delimited_is_refused_and_the_connection_closed(
    base_url: str, request_bytes: bytes, status: int
) -> None:
    with socket.create_connection(address(base_url), timeout=10) as client:
        client.sendall(request_bytes)
        client.shutdown(socket.SHUT_WR)  # what a client that stops sending does
        answer, _ = until_closed(client)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} ".encode())
    assert b"\r\nConnection: close" in head
    assert b"\r\nContent-Type: application/json" in head
    error = json.loads(body)["error"]
    assert (error["code"], error["message"]) == ("request_rejected", "The API gateway rejected the request.")
    assert error["request_id"]


@pytest.fixture(scope="module")
def patient_api() -> Iterator[LocalApi]:
    api = LocalApi(auth_mode="NONE")
    yield api
    api.stop()


@contextlib.contextmanager
def serving(api: LocalApi, idle_timeout: float, errors: list[BaseException | None]) -> Iterator[tuple[str, int]]:
    """A server of its own, whose connections' threads are all ended when it is left; the errors
    ``socketserver`` would print a traceback for are put in ``errors``."""
    server = make_server("127.0.0.1", 0, api, idle_timeout=idle_timeout)
    server.daemon_threads = False  # so that server_close waits for every connection's thread
    server.handle_error = lambda *_: errors.append(sys.exc_info()[1])  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield "127.0.0.1", server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


SMALL_REQUEST = f"POST {PARAGRAPHS} HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n".encode()


def with_header(head: bytes, line: bytes) -> bytes:
    """``head`` (a request line and headers) with one more header line."""
    return head.removesuffix(b"\r\n\r\n") + b"\r\n" + line + b"\r\n\r\n"


def test_a_client_that_hangs_up_leaves_no_traceback(patient_api: LocalApi) -> None:
    errors: list[BaseException | None] = []
    with serving(patient_api, IDLE_TIMEOUT, errors) as server:
        for sent, answered in (
            (SMALL_REQUEST.replace(b"Content-Length: 12", b"Content-Length: 1000") + b"{}", False),
            (SMALL_REQUEST + b'{"text":"a"}', True),
        ):
            with socket.create_connection(server, timeout=10) as client:
                client.sendall(sent)
                if answered:  # then hang up while the server waits for the next request
                    assert read_response(client).status == 200
                else:
                    time.sleep(0.2)  # hang up while the server reads the body
                hang_up(client)
    assert errors == []


def test_each_request_line_prints_the_request_id_that_the_answer_carries(
    patient_api: LocalApi, capsys: pytest.CaptureFixture[str]
) -> None:
    """As deployed: API Gateway's x-amzn-RequestId on every answer, the function's X-Request-Id
    (the same id) on its own answers, and the id in make serve's request line."""
    errors: list[BaseException | None] = []
    with serving(patient_api, IDLE_TIMEOUT, errors) as (host, port):
        base = f"http://{host}:{port}"
        answers = [call(base + PARAGRAPHS, b'{"text": "a"}', headers={}), call(base + "/nowhere", b"{}", headers={})]
    printed = capsys.readouterr().out.splitlines()
    (_, function_headers, _), (_, gateway_headers, _) = answers
    assert function_headers["X-Request-Id"] == function_headers["x-amzn-RequestId"]
    assert printed[0].endswith(" " + function_headers["X-Request-Id"])
    assert "X-Request-Id" not in gateway_headers  # API Gateway's own answer (a 403 here): its id only
    assert printed[1].endswith(" " + gateway_headers["x-amzn-RequestId"])
    assert errors == []


def test_a_client_that_hangs_up_before_its_answer_still_leaves_its_log_line(
    patient_api: LocalApi, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    worker = patient_api.workers["ParagraphsSplitFunction"]
    invoke = worker.invoke
    invoked, hung_up = threading.Event(), threading.Event()

    def slowly(event: dict[str, Any]) -> Any:
        invoked.set()
        hung_up.wait(10)
        return invoke(event)

    monkeypatch.setattr(worker, "invoke", slowly)
    errors: list[BaseException | None] = []
    with serving(patient_api, IDLE_TIMEOUT, errors) as server, socket.create_connection(server, timeout=10) as client:
        client.sendall(SMALL_REQUEST + b'{"text":"a"}')
        assert invoked.wait(10)  # the server has the request and waits on the function
        hang_up(client)
        hung_up.set()
    # leaving serving waited for the connection's thread: its answer met the reset
    assert errors == []
    assert logged(capsys) == [f"POST {PARAGRAPHS} 200"]


@pytest.mark.parametrize(
    ("sent", "lines"),
    [
        (SMALL_REQUEST + b'{"te', [f"POST {PARAGRAPHS} timed out"]),  # a body that stops coming
        (SMALL_REQUEST[:40], []),  # a request line and headers that stop coming
        (b"", []),  # a connection that never sends a request
    ],
    ids=["body", "head", "nothing"],
)
def test_a_connection_that_waits_on_its_client_too_long_is_closed_without_an_answer(
    patient_api: LocalApi, capsys: pytest.CaptureFixture[str], sent: bytes, lines: list[str]
) -> None:
    errors: list[BaseException | None] = []
    with serving(patient_api, 0.5, errors) as server, socket.create_connection(server, timeout=10) as client:
        client.sendall(sent)
        received, waited = until_closed(client)
    assert (received, errors) == (b"", [])
    assert 0.4 < waited < 5
    assert logged(capsys) == lines


def test_the_idle_timeout_is_per_wait_so_a_slow_body_that_keeps_coming_is_answered(patient_api: LocalApi) -> None:
    errors: list[BaseException | None] = []
    with serving(patient_api, 1.0, errors) as server, socket.create_connection(server, timeout=10) as client:
        client.sendall(SMALL_REQUEST)
        for piece in (b'{"te', b'xt":', b'"a"}'):  # 1.2 s in all, more than the timeout
            time.sleep(0.4)
            client.sendall(piece)
        assert read_response(client).status == 200
        received, waited = until_closed(client)  # kept alive for the next request, then closed when idle
    assert (received, errors) == (b"", [])
    assert 0.8 < waited < 5


def test_a_client_that_expects_100_continue_gets_it_before_it_sends_its_body(patient_api: LocalApi) -> None:
    """curl sends ``Expect: 100-continue`` before a large body, and waits a second for the interim
    answer before it sends the body anyway."""
    errors: list[BaseException | None] = []
    with serving(patient_api, IDLE_TIMEOUT, errors) as server, socket.create_connection(server, timeout=10) as client:
        client.sendall(with_header(SMALL_REQUEST, b"Expect: 100-continue"))
        with client.makefile("rb") as interim:  # nothing else can come before the body is sent
            assert (interim.readline(), interim.readline()) == (b"HTTP/1.1 100 Continue\r\n", b"\r\n")
        client.sendall(b'{"text":"a"}')
        assert read_response(client).status == 200
    assert errors == []


def test_answers_are_sent_without_nagle_s_delay(patient_api: LocalApi) -> None:
    """Nagle's algorithm held a keep-alive answer's body, a second small write after its head,
    until the client's delayed ACK: about 40 ms a request, where the function takes 2."""
    with (
        make_server("127.0.0.1", 0, patient_api) as server,
        socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10) as client,
    ):
        client.sendall(with_header(SMALL_REQUEST, b"Connection: close") + b'{"text":"a"}')
        connection, client_address = server.socket.accept()
        with connection:
            server.finish_request(connection, client_address)  # here, not on a thread: read, answered, ended
            assert connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        assert read_response(client).status == 200


@pytest.mark.parametrize(
    ("framing", "body"),
    [
        ("Content-Length", b"x" * 100),
        ("Transfer-Encoding", b"3\r\nabc\r\n61;ext=1\r\n" + b"x" * 97 + b"\r\n0\r\nTrailer: t\r\n\r\n"),
    ],
)
def test_a_body_over_the_limit_is_consumed_but_only_limit_plus_one_bytes_kept(framing: str, body: bytes) -> None:
    headers = Message()
    headers[framing] = "100" if framing == "Content-Length" else "chunked"
    stream = io.BytesIO(body + b"NEXT")
    assert read_body(headers, stream, limit=10) == (b"x" * 11 if framing == "Content-Length" else b"abc" + b"x" * 8)
    assert stream.read() == b"NEXT"  # the next request starts where this body ended


def test_a_body_within_the_limit_is_read_whole() -> None:
    headers = Message()
    headers["Transfer-Encoding"] = "Chunked"
    stream = io.BytesIO(b"1\r\n{\n1\r\n}\r\n0\r\n\r\n")  # bare LF after data is tolerated
    assert read_body(headers, stream, limit=2) == b"{}"
    assert read_body(Message(), io.BytesIO(b"ignored"), limit=2) == b""  # no framing: no body


@pytest.mark.parametrize(
    ("accept_encoding", "coding"),
    [
        ("gzip", "gzip"),
        ("GZip", "gzip"),
        ("deflate", "deflate"),
        ("gzip, deflate, br", "gzip"),  # a tie: gzip
        ("br, deflate", "deflate"),
        ("deflate;q=0.9, gzip;q=0.8", "deflate"),
        ("gzip ; q=1.0", "gzip"),
        ("br;q=1, gzip;q=0.5", None),  # the highest-ranked coding is not API Gateway's
        ("identity", None),
        ("*", None),
        ("", None),  # no header: no compression
        ("gzip;q=0", None),
        ("gzip;q=x", None),
        (" , ,gzip", "gzip"),
    ],
)
def test_the_coding_api_gateway_compresses_with(accept_encoding: str, coding: str | None) -> None:
    assert content_coding(accept_encoding) == coding


def test_responses_are_compressed_as_the_templates_minimum_compression_size_says(base_url: str) -> None:
    minimum = load_template()["Resources"]["TextToolsApi"]["Properties"]["MinimumCompressionSize"]
    body = json.dumps({"text": "a\n\n" * 200}).encode()
    plain = call(base_url + PARAGRAPHS, body)
    assert plain[0] == 200
    assert "Content-Encoding" not in plain[1]
    assert len(plain[2]) >= minimum
    for coding, decompress in (("gzip", gzip.decompress), ("deflate", zlib.decompress)):
        status, headers, raw = call(
            base_url + PARAGRAPHS, body, headers={"x-api-key": TEST_API_KEY, "Accept-Encoding": coding}
        )
        assert (status, headers["Content-Encoding"], int(headers["Content-Length"])) == (200, coding, len(raw))
        assert decompress(raw) == plain[2]
    small = call(base_url + PARAGRAPHS, b'{"text":"a"}', headers={"x-api-key": TEST_API_KEY, "Accept-Encoding": "gzip"})
    assert len(small[2]) < minimum
    assert "Content-Encoding" not in small[1]
    assert json.loads(small[2])["paragraph_count"] == 1
    gzipped = {"x-api-key": TEST_API_KEY, "Content-Encoding": "gzip"}  # passed on as it came (docs/local.md)
    status, _, raw = call(base_url + PARAGRAPHS, gzip.compress(body), headers=gzipped)
    assert (status, json.loads(raw)["error"]["code"]) == (400, "invalid_input")


def test_compression_starts_at_the_minimum_size_and_leaves_an_encoded_answer_alone() -> None:
    api = LocalApi(auth_mode="NONE")
    try:
        request = LocalRequest("POST", PARAGRAPHS, {"Accept-Encoding": ["gzip"]}, b"")
        answer = (200, {"Content-Type": JSON}, b"x" * 1024)
        api.minimum_compression_size = 1024
        assert api.compressed(request, answer)[1]["Content-Encoding"] == "gzip"
        assert api.compressed(request, (200, {"content-encoding": "br"}, b"x" * 1024))[2] == b"x" * 1024
        api.minimum_compression_size = 1025
        assert api.compressed(request, answer) == answer
        api.minimum_compression_size = None  # no MinimumCompressionSize: API Gateway never compresses
        assert api.compressed(request, answer) == answer
    finally:
        api.stop()


@pytest.mark.parametrize(
    ("key", "expected"), [(TEST_API_KEY, (405, "method_not_allowed")), ("", (403, "invalid_api_key"))]
)
def test_a_cors_preflight_is_refused_like_any_other_method(base_url: str, key: str, expected: tuple[int, str]) -> None:
    preflight = {"x-api-key": key, "Origin": "https://example.com", "Access-Control-Request-Method": "POST"}
    status, headers, raw = call(base_url + PARAGRAPHS, method="OPTIONS", content_type=None, headers=preflight)
    assert (status, json.loads(raw)["error"]["code"]) == expected
    assert not [name for name in headers if name.lower().startswith("access-control-")]  # docs/decisions.md: no CORS


@pytest.mark.parametrize("headers", [{}, {"x-api-key": "wrong"}, {"X-Api-Key": TEST_API_KEY + "x"}])
def test_api_key_mode_refuses_a_missing_or_wrong_key(base_url: str, headers: dict[str, str]) -> None:
    status, _, raw = call(base_url + PARAGRAPHS, b'{"text":"a"}', headers=headers)
    assert (status, json.loads(raw)["error"]["code"]) == (403, "invalid_api_key")


def test_header_names_are_case_insensitive(base_url: str) -> None:
    assert call(base_url + PARAGRAPHS, b'{"text":"a"}', headers={"X-API-KEY": TEST_API_KEY})[0] == 200


@pytest.mark.parametrize(
    ("mode", "headers", "status"),
    [
        ("NONE", {}, 200),
        ("IAM", {}, 404),
        ("IAM", {"Authorization": "AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/execute-api/aws4_request"}, 200),
    ],
)
def test_other_auth_modes(mode: str, headers: dict[str, str], status: int) -> None:
    api = LocalApi(auth_mode=mode)
    try:
        request = LocalRequest("POST", PARAGRAPHS, {k: [v] for k, v in headers.items()}, b'{"text":"a"}')
        assert api.handle(request)[0] == status
    finally:
        api.stop()


def test_a_failing_function_is_api_gateways_502_in_the_error_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    api = LocalApi(auth_mode="NONE")
    try:

        def fail(_event: dict[str, Any]) -> Any:
            raise InvocationError("ParagraphsSplitFunction raised RuntimeError")

        monkeypatch.setattr(api.workers["ParagraphsSplitFunction"], "invoke", fail)
        request = LocalRequest("POST", PARAGRAPHS, {}, b'{"text":"a"}', request_id="r-1")
        status, headers, raw = api.handle(request)
        assert (status, headers["Content-Type"]) == (502, JSON)
        assert json.loads(raw) == {
            "error": {"code": "internal_error", "message": "The service failed unexpectedly.", "request_id": "r-1"}
        }
    finally:
        api.stop()


def test_each_function_keeps_its_own_module_state() -> None:
    api = LocalApi()
    try:
        pids = {worker._process.pid for worker in api.workers.values()}
        assert len(pids) == len(api.workers) == len([spec for spec in functions().values() if spec.routes])
    finally:
        api.stop()


def test_openapi_and_docs_are_served_offline(base_url: str) -> None:
    status, headers, raw = call(base_url + "/openapi.json", method="GET", content_type=None, headers={})
    assert status == 200  # no key needed, as deployed
    assert raw == (ROOT / "openapi.json").read_bytes()  # no stage in make serve's URLs: servers stays "/"
    status, headers, page = call(base_url + "/docs", method="GET", content_type=None, headers={})
    assert status == 200
    assert headers["Content-Type"].startswith("text/html")
    assert b'preauthorizeApiKey("api_key", key)' in page
    assert json.dumps(TEST_API_KEY).encode() in page
    for asset in ("/docs/swagger-ui.css", "/docs/swagger-ui-bundle.js"):
        assert asset.encode() in page
        assert call(base_url + asset, method="GET", content_type=None)[0] == 200
    assert b"http" not in page  # nothing fetched from elsewhere


@pytest.mark.parametrize(
    ("path", "outside"),
    [
        ("/docs/" + "../" * 32 + "etc/passwd", "/etc/passwd"),
        ("/docs/../../__init__.py", "swagger_ui_bundle's own module, beside the assets"),
        ("/docs/..%2F..%2Fpyvenv.cfg", None),
        ("/docs/index.j2x", None),
    ],
)
def test_docs_serve_no_file_outside_the_swagger_assets(base_url: str, path: str, outside: str | None) -> None:
    if outside:  # the file is there to be served if the path were followed
        assert (SWAGGER_ASSETS / path.removeprefix("/docs/")).is_file(), outside
    connection = connect(base_url)
    connection.request("GET", path)  # sent as is: no client-side normalisation of ".."
    response = connection.getresponse()
    assert (response.status, json.loads(response.read())["error"]["code"]) == (404, "not_found")


def wait_for(s3: Any, bucket: str, key: str) -> dict[str, Any]:
    """The JSON object at ``key`` once the flow has written it (``NoSuchKey`` if not within 10 s)."""
    wait_while(lambda: s3.list_objects_v2(Bucket=bucket, Prefix=key)["KeyCount"] == 0)
    return json.loads(s3.get_object(Bucket=bucket, Key=key)["Body"].read())  # type: ignore[no-any-return]


@pytest.fixture
def delivered(flow: LocalS3Flow, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The object keys of the events the flow hands to the chunker's worker, one per attempt."""
    keys: list[str] = []
    invoke = flow.worker.invoke

    def recording(event: dict[str, Any]) -> Any:
        keys.extend(record["s3"]["object"]["key"] for record in event["Records"])
        return invoke(event)

    monkeypatch.setattr(flow.worker, "invoke", recording)
    return keys


def test_s3_flow_end_to_end(flow: LocalS3Flow, delivered: list[str]) -> None:
    s3 = flow.client("s3")
    put = s3.put_object(Bucket=flow.bucket, Key="incoming/my doc é.md", Body=b"one\n\ntwo")
    started = time.monotonic()
    written = wait_for(s3, flow.bucket, "chunks/my doc é.md.json")
    assert time.monotonic() - started < 5
    assert written["source"]["key"] == "incoming/my doc é.md"
    # moto's events carry no version: the chunker records the version it read (docs/local.md)
    assert written["source"]["version_id"] == put["VersionId"]
    assert s3.get_bucket_versioning(Bucket=flow.bucket)["Status"] == "Enabled"  # as deployed
    assert written["result"] == paragraphs_split("one\n\ntwo")

    s3.put_object(Bucket=flow.bucket, Key="incoming/bad.txt", Body=b"\xff")
    assert wait_for(s3, flow.bucket, "errors/bad.txt.json")["error"]["code"] == "invalid_input"

    s3.put_object(Bucket=flow.bucket, Key="elsewhere/x.txt", Body=b"x")  # outside the trigger's prefix
    s3.put_object(Bucket=flow.bucket, Key="incoming/last.txt", Body=b"x")  # delivered after any event for it
    wait_for(s3, flow.bucket, "chunks/last.txt.json")
    listed = [o["Key"] for o in s3.list_objects_v2(Bucket=flow.bucket).get("Contents", [])]
    assert sorted(k for k in listed if not k.startswith("incoming/")) == [
        "chunks/last.txt.json", "chunks/my doc é.md.json", "elsewhere/x.txt", "errors/bad.txt.json",
    ]  # fmt: skip
    assert list(map(unquote_plus, delivered)) == ["incoming/my doc é.md", "incoming/bad.txt", "incoming/last.txt"]


def test_s3_flow_keeps_an_event_that_keeps_failing(flow: LocalS3Flow, delivered: list[str]) -> None:
    """A transient failure on every attempt (the first and the template's retries) ends on the
    failure queue, not nowhere."""
    event = {"Records": [{"s3": {"bucket": {"name": "no-such-bucket"}, "object": {"key": "incoming/x", "size": 1,
                                                                                   "eTag": "e"}}}]}  # fmt: skip
    flow._invoke_with_retries(event)
    assert len(delivered) == 1 + int(parameter_defaults(load_template())["ChunkRetryAttempts"])
    messages = flow.sqs.receive_message(QueueUrl=flow.failure_queue, WaitTimeSeconds=1)["Messages"]
    assert json.loads(messages[0]["Body"])["requestPayload"] == event


Serve = Callable[..., "subprocess.Popen[str]"]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    """Starts the real entry point (``make serve``) with the given arguments in a process group of
    its own (its moto too); whatever a test leaves running, after a failed assertion too, is killed.
    Its bucket is kept in the test's own folder unless the test names one, never in the checkout's."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str, stderr: int = subprocess.STDOUT) -> "subprocess.Popen[str]":
        kept = () if "--keep-in" in args else ("--keep-in", str(tmp_path / f"kept-{len(started)}"))
        process = subprocess.Popen(
            [sys.executable, "-m", "scripts.serve", *args, *kept],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True,
            env={**os.environ, "PYTHONPATH": SCRIPTS_PYTHONPATH},
        )  # fmt: skip
        started.append(process)
        return process

    yield start
    for process in started:
        with contextlib.suppress(ProcessLookupError):  # the group has ended, as it should
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


def banner(process: "subprocess.Popen[str]") -> str:
    """What ``make serve`` prints once it listens, up to the blank line that ends it."""
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line)
        if line == "\n" and lines[-2].startswith("Playground"):
            break
    return "".join(lines)


def stopped_on_ctrl_c(process: "subprocess.Popen[str]") -> str:
    """What ``make serve`` prints from Ctrl-C (SIGINT to the group) until it exits, which must be cleanly."""
    assert process.stdout is not None
    os.killpg(process.pid, signal.SIGINT)
    assert process.wait(timeout=30) == 0
    return process.stdout.read()


def test_make_serve_starts_and_stops_cleanly_on_ctrl_c(serve: Serve) -> None:
    process = serve("--port", "0", "--s3-port", "5200")
    text = banner(process)
    assert f"API key:   {LOCAL_API_KEY}" in text
    assert "/docs" in text
    assert "Bucket       text-tools-documents-" in text
    assert text.splitlines()[-2].startswith("Playground   http://127.0.0.1:")  # the last line: the page
    assert stopped_on_ctrl_c(process) == "stopped\n"  # nothing else: no worker's KeyboardInterrupt


def test_the_aws_cli_lines_make_serve_prints_work_as_pasted(serve: Serve, tmp_path: Path) -> None:
    """In a shell with no AWS credentials or configuration at all: the "try" line uploads, the
    "then" line prints the chunks once they are there."""
    process = serve("--port", "0", "--s3-port", "5200")
    text = banner(process)
    upload, download = (text.split(f"  {word}:", 1)[1].split("\n", 1)[0].strip() for word in ("try", "then"))
    (tmp_path / "doc.md").write_text("# Title\n\nOne.\n\nTwo.\n", encoding="utf-8")
    bare = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}

    def run(line: str) -> "subprocess.CompletedProcess[str]":
        # a shell, as pasted: the line sets the variables in front of the command itself
        shell = ["/bin/sh", "-c", line]
        return subprocess.run(shell, cwd=tmp_path, env=bare, capture_output=True, text=True, timeout=60, check=False)

    assert run(upload).returncode == 0
    deadline = time.monotonic() + 30
    while (result := run(download)).returncode != 0:
        assert time.monotonic() < deadline, result.stderr
        time.sleep(0.5)
    assert json.loads(result.stdout)["result"]["paragraph_count"] == 3
    # One line a document, as for a request (issue 43): key, outcome, what was written, how long.
    line, stopped = stopped_on_ctrl_c(process).splitlines()
    assert re.fullmatch(r"S3 incoming/doc\.md ok -> chunks/doc\.md\.json \d+\.\dms", line), line
    assert stopped == "stopped"


def test_every_documented_aws_cli_line_for_make_serve_carries_the_same_credentials() -> None:
    """The README's and the docs' lines against make serve's S3 give the AWS CLI what the banner's
    lines (run as pasted above) give it."""
    prefix = "AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1"
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = 0
    for page in pages:
        for command in page.read_text(encoding="utf-8").replace("\\\n", " ").splitlines():
            if "aws " in command and "--endpoint-url http://127.0.0.1" in command:
                found += 1
                assert prefix in command, (page.name, command)
    assert found >= 2


def test_make_serve_chunks_a_20_mb_document_as_json_lines_when_asked(serve: Serve) -> None:
    """``make serve CHUNKS_FORMAT=jsonl``: the S3 flow follows it (docs/local.md)."""
    process = serve("--port", "0", "--s3-port", "5200", "--chunks-format", "jsonl")
    text = banner(process)
    assert "(ChunksFormat jsonl; CHUNKS_FORMAT= chooses)" in text
    assert "chunks/doc.md.jsonl" in text
    endpoint = text.split("S3 endpoint", 1)[1].split()[0]
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="local",
                      aws_secret_access_key="local")  # fmt: skip
    document = mixed_document(20 * 1024 * 1024)
    bucket = documents_bucket()
    s3.put_object(Bucket=bucket, Key="incoming/big.md", Body=document)
    deadline = time.monotonic() + 60
    while "Contents" not in s3.list_objects_v2(Bucket=bucket, Prefix="chunks/"):
        assert time.monotonic() < deadline, "no chunks/ object within 60 s"
        time.sleep(0.2)
    written = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="chunks/")["Contents"]]
    assert written == ["chunks/big.md.jsonl"]
    _, *paragraphs, last, end = s3.get_object(Bucket=bucket, Key=written[0])["Body"].read().split(b"\n")
    expected = paragraphs_split(document.decode(), max_paragraphs=None)
    assert (len(paragraphs), json.loads(last), end) == (
        expected["paragraph_count"],
        {"paragraph_count": expected["paragraph_count"], "line_count_total": expected["line_count_total"]},
        b"",
    )
    assert json.loads(paragraphs[-1]) == expected["paragraphs"][-1]
    line, stopped = stopped_on_ctrl_c(process).splitlines()
    assert re.fullmatch(r"S3 incoming/big\.md ok -> chunks/big\.md\.jsonl \d+\.\dms", line), line
    assert stopped == "stopped"


def test_the_readme_json_lines_lines_work_as_pasted(serve: Serve, tmp_path: Path) -> None:
    """issue 43: the README's ``make serve CHUNKS_FORMAT=jsonl`` lines upload the document they then
    read back, and print without a broken pipe (its port is this test's)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("Documents of any size:", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0].replace("\\\n", " ")
    upload, download, show = [line.split("   #", 1)[0] for line in block.splitlines()]
    assert "incoming/manual.md" in upload
    assert "chunks/manual.md.jsonl" in download
    process = serve("--port", "0", "--s3-port", "5200", "--chunks-format", "jsonl")
    endpoint = banner(process).split("S3 endpoint", 1)[1].split()[0]
    (tmp_path / "manual.md").write_text("# Manual\n\nOne.\n\nTwo.\n", encoding="utf-8")
    bare = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}

    def run(line: str) -> "subprocess.CompletedProcess[str]":
        line = line.replace("http://127.0.0.1:5000", endpoint)
        return subprocess.run(["/bin/sh", "-c", line], cwd=tmp_path, env=bare, capture_output=True, text=True,
                              timeout=60, check=False)  # fmt: skip

    assert run(upload).returncode == 0
    deadline = time.monotonic() + 30
    while (result := run(download)).returncode != 0:
        assert time.monotonic() < deadline, result.stderr
        time.sleep(0.5)
    shown = run(show)
    assert (shown.returncode, shown.stderr) == (0, "")
    assert shown.stdout.startswith('{"source":{"bucket":"text-tools-documents-')
    assert '"key":"incoming/manual.md"' in shown.stdout
    # issue 62: the metadata picks markdown-size-chunk at a token budget, as the prose says (a
    # manual uploaded without it was cut into paragraphs, "parameters":{})
    assert '"tool":{"id":"markdown-size-chunk",' in shown.stdout
    assert '"parameters":{"max_tokens":512,"tokenizer":"cl100k_base"}' in shown.stdout
    assert "chunks of at most 512 tokens" in " ".join(section.split("```sh", 1)[0].split())
    stopped_on_ctrl_c(process)


def test_make_serve_says_so_when_its_moto_is_reset(serve: Serve) -> None:
    """moto's reset forgets the bucket and the events queue, possibly between two calls of the S3
    flow's thread: the flow says so once, its thread ends without a traceback, Ctrl-C still stops all."""
    process = serve("--port", "0", "--s3-port", "5200")
    assert process.stdout is not None
    endpoint = banner(process).split("S3 endpoint", 1)[1].split()[0]
    urllib.request.urlopen(urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST"), timeout=30).close()  # noqa: S310 (loopback)
    said = "S3 events: moto was reset, so documents are no longer chunked; restart make serve\n"
    assert process.stdout.readline() == said
    assert stopped_on_ctrl_c(process) == "stopped\n"


def test_make_serve_on_a_port_in_use_says_so_and_leaves_nothing_running(serve: Serve) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = serve("--port", str(port), "--s3-port", "5400", stderr=subprocess.PIPE)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port} (Address already in use); choose a port: make serve PORT=" in stderr
    assert "Traceback" not in stderr
    wait_while(lambda: running_in_group(process.pid))  # the functions' workers stop too
    assert running_in_group(process.pid) == []


def run_python(
    code: str, *args: str, check: bool = False, new_session: bool = False
) -> "subprocess.CompletedProcess[str]":
    """``code`` (given ``args`` as ``sys.argv[1:]``) in a fresh interpreter with the scripts on its
    path, as ``make serve`` has them; its output captured."""
    return subprocess.run(
        [sys.executable, "-c", code, *args], check=check, cwd=ROOT, capture_output=True, text=True, timeout=60,
        start_new_session=new_session, env={**os.environ, "PYTHONPATH": SCRIPTS_PYTHONPATH},
    )  # fmt: skip


WORKER_UNDER_CTRL_C = """
import os, signal, sys
from scripts.lambda_events import api_event
from scripts.template import functions
from scripts.local_functions import FunctionWorker

signal.signal(signal.SIGINT, lambda *_: None)  # the parent handles Ctrl-C itself, as make serve does
quiet = {"POWERTOOLS_LOG_LEVEL": "ERROR", "POWERTOOLS_METRICS_DISABLED": "true"}
worker = FunctionWorker(functions()["ParagraphsSplitFunction"], quiet)
os.killpg(0, signal.SIGINT)  # Ctrl-C while the worker is still starting
event = api_event("POST", sys.argv[1], '{"text": "a"}', {"Content-Type": "application/json"})
print(worker.invoke(event)["statusCode"])
worker.stop()
"""


def test_a_function_worker_outlives_a_ctrl_c_during_its_start_up() -> None:
    """Ctrl-C reaches the whole process group, and ``make serve`` stops its workers itself: a
    worker still starting up must neither die of it nor print a KeyboardInterrupt traceback."""
    result = run_python(WORKER_UNDER_CTRL_C, descriptor("text-paragraphs-split")["execute_url"], new_session=True)
    assert (result.returncode, result.stdout, result.stderr) == (0, "200\n", "")


WORKER_OF_A_KILLED_PARENT = """
import os, signal
from scripts.template import functions
from scripts.local_functions import FunctionWorker

worker = FunctionWorker(functions()["ParagraphsSplitFunction"])
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_function_worker_ends_quietly_when_make_serve_is_killed() -> None:
    """``kill -9`` of ``make serve`` leaves its workers no one to answer: they end, without a
    traceback (the run ends when the worker, which shares its stderr, has ended too)."""
    result = run_python(WORKER_OF_A_KILLED_PARENT)
    assert (result.returncode, result.stderr) == (-signal.SIGKILL, "")


ENDING_HANDLER = """
import os, threading

def handler(event, context):
    if event["then"] == "end now":
        os._exit(1)
    if event["then"] == "end after answering":
        threading.Timer(0.05, os._exit, (0,)).start()
    return os.getpid()
"""


def test_a_function_worker_that_ends_is_replaced_as_lambda_replaces_an_instance(tmp_path: Path) -> None:
    """A process that ends during an invocation fails that one invocation (502, or a retry of an S3
    event); one that has ended is replaced by a new cold start before the next invocation."""
    (tmp_path / "ending.py").write_text(ENDING_HANDLER)
    worker = FunctionWorker(FunctionSpec("EndingFunction", tmp_path, "ending.handler", routes=()))
    try:
        with pytest.raises(InvocationError, match=r"^EndingFunction exited$"):
            worker.invoke({"then": "end now"})
        ending = worker.invoke({"then": "end after answering"})
        wait_while(lambda: ending in running())  # it ends 0.05 s after answering
        assert ending not in running()
        assert worker.invoke({"then": "answer"}) not in (ending, None)  # answered, by a new process
    finally:
        worker.stop()


def test_importing_make_serve_s_module_loads_no_aws_fake() -> None:
    """Each function's worker is spawned, and imports ``scripts.serve`` again (multiprocessing's
    ``__mp_main__``): it must not get moto, boto3 or the local servers, which a Lambda lacks."""
    code = "import sys, scripts.serve; print(sorted(m for m in sys.modules if m.split('.')[0] in sys.argv[1:]))"
    result = run_python(code, "moto", "boto3", "botocore", "werkzeug", "scripts", check=True)
    assert result.stdout == "['scripts', 'scripts.serve']\n"


def running() -> dict[int, int]:
    """The process group of each process still running (a zombie has ended, only not been reaped)."""
    groups = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _parent, process_group = stat.read_text().rpartition(")")[2].split()[:3]
        except (OSError, ValueError):  # ended while listed
            continue
        if state != "Z":
            groups[int(stat.parent.name)] = int(process_group)
    return groups


def running_in_group(group: int) -> list[int]:
    return [process for process, process_group in running().items() if process_group == group]


def test_docs_fill_in_no_key_when_the_api_takes_none() -> None:
    api = LocalApi(auth_mode="NONE")
    try:
        status, _, page = api.handle(LocalRequest("GET", "/docs", {}, b""))
    finally:
        api.stop()
    assert status == 200
    assert b"const key = null;" in page


def test_discovery_health_and_mcp_answer_through_make_serve(base_url: str) -> None:
    """The routes with a path parameter, without a key, and the MCP route, as routed by the template."""
    assert call(base_url + "/v1/health", method="GET", content_type=None, headers={})[:1] == (200,)
    status, headers, body = call(base_url + "/v1/health", method="HEAD", content_type=None, headers={})
    assert (status, body, headers["Content-Length"]) == (200, b"", "0")  # API.md: HEAD for load balancers' probes
    status, _, body = call(base_url + "/v1/tools/no-such/versions/9", method="GET", content_type=None)
    assert (status, json.loads(body)["error"]["code"]) == (404, "not_found")
    status, _, body = call(base_url + "/v1/tools", method="GET", content_type=None, headers={})
    assert (status, json.loads(body)["error"]["code"]) == (403, "invalid_api_key")
    for tool_id in TOOL_IDS:
        status, headers, body = call(f"{base_url}/v1/tools/{tool_id}/versions/1.0.0", method="GET", content_type=None)
        assert (status, body) == (200, (ROOT / "spec" / "seeds" / f"{tool_id}.json").read_bytes())
        assert headers["X-Request-Id"] == headers["x-amzn-RequestId"]
    status, _, body = call(base_url + "/v1/tokenizers", method="GET", content_type=None)
    assert (status, [entry["name"] for entry in json.loads(body)["tokenizers"]]) == (200, ["cl100k_base", "o200k_base"])
    status, headers, _ = call(base_url + "/mcp", method="GET", content_type=None)
    assert (status, headers["Allow"]) == (405, "POST")
    status, _, body = call(base_url + "/mcp", b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
    assert (status, json.loads(body)) == (200, {"jsonrpc": "2.0", "id": 1, "result": {}})
