"""The REST API of ``make serve``: HTTP in, API Gateway proxy events to the real handlers, HTTP out.

Routes, handlers and API Gateway's own error answers are all read from ``template.yaml``, so
there is no second route table. Each function runs in its own worker process
(``local_functions``); request bodies are framed by ``http_body``. ``/docs`` (Swagger UI from a
local package, nothing fetched at run time, over the API's own ``/openapi.json``) is served beside
the API.
"""

import base64
import contextlib
import gzip
import json
import secrets
import time
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import swagger_ui_bundle

from scripts.lambda_events import api_event
from scripts.local_functions import FunctionWorker
from scripts.local_gateway.http_body import BadFraming, read_body
from scripts.template import ApiRoute, functions, load_template, parameter_defaults

API_GATEWAY_MAX_BODY = 10 * 1024 * 1024
"""API Gateway refuses larger payloads itself (REQUEST_TOO_LARGE) before any function runs."""
IDLE_TIMEOUT = 60.0
"""Seconds a connection may wait on its client (for a request, or for more of one) before it is
closed without an answer: without a limit, a client that declares a body and never sends it holds
one of the server's threads for ever."""
COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": partial(gzip.compress, compresslevel=6),
    "deflate": partial(zlib.compress, level=6),
}
"""API Gateway's content codings besides ``identity`` (``deflate`` is the zlib format, as HTTP means
it), at zlib's default level: gzip's own default, 9, takes about twice as long for 2 % less."""

SWAGGER_ASSETS = Path(swagger_ui_bundle.swagger_ui_path)
DOCS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Text tools API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script>const ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui", onComplete: () => {
  const key = API_KEY; if (key) ui.preauthorizeApiKey("api_key", key); }});</script></body></html>
"""
Answer = tuple[int, dict[str, str], bytes]


@dataclass
class LocalRequest:
    method: str
    target: str
    headers: dict[str, list[str]]
    body: bytes
    request_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> str:
        return urlsplit(self.target).query

    def header_values(self, name: str) -> list[str]:
        """Every line of one header, whatever the case of its name, in the order they came."""
        return [value for key, values in self.headers.items() if key.lower() == name for value in values]

    def header(self, name: str) -> str:
        """One header's value: its last line, as a proxy event's ``headers`` keeps it ("" if none)."""
        return (self.header_values(name) or [""])[-1]

    def event_body(self) -> str | bytes | None:
        """Text media types arrive as text, others base64-encoded, as API Gateway does.

        Bytes that are not UTF-8 are sent base64-encoded too, so the handler sees them exactly.
        """
        if not self.body:
            return None
        content_type = self.header("content-type")
        if content_type == "" or content_type.lower().startswith(("application/json", "text/")):
            try:
                return self.body.decode()
            except UnicodeDecodeError:
                pass
        return self.body


class LocalApi:
    """Routes requests to the functions as the deployed REST API would, with its ``AuthMode``.

    API_KEY: the ``x-api-key`` header must carry ``api_key`` (generated unless given). IAM: a
    SigV4 ``Authorization`` header must be present; its signature is not verified locally. NONE:
    anyone. The mode defaults to the template's default.
    """

    def __init__(
        self,
        stage: str = "prod",
        auth_mode: str | None = None,
        api_key: str | None = None,
        environment: dict[str, str] | None = None,
    ) -> None:
        template = load_template()
        self.stage = stage
        self.auth_mode = auth_mode or parameter_defaults(template)["AuthMode"]
        self.api_key = api_key or secrets.token_urlsafe(24)
        api_properties = template["Resources"]["TextToolsApi"]["Properties"]
        self.gateway_responses: dict[str, Any] = api_properties["GatewayResponses"]
        self.minimum_compression_size: int | None = api_properties.get("MinimumCompressionSize")
        self.routes: list[ApiRoute] = []
        self.workers: dict[str, FunctionWorker] = {}
        for spec in functions(template).values():
            if spec.routes:  # a function told the AuthMode (the playground) is told this server's
                mode = {"AUTH_MODE": self.auth_mode} if "AUTH_MODE" in spec.environment else {}
                self.workers[spec.logical_id] = FunctionWorker(spec, {**(environment or {}), **mode})
            self.routes.extend(spec.routes)

    def stop(self) -> None:
        for worker in self.workers.values():
            worker.stop()

    def gateway_answer(self, response_type: str, request_id: str, status: int | None = None) -> Answer:
        """A gateway response of the template; one without a ``StatusCode`` keeps ``status``."""
        configured = self.gateway_responses[response_type]
        body = configured["ResponseTemplates"]["application/json"].replace("$context.requestId", request_id)
        return int(configured.get("StatusCode", status)), {"Content-Type": "application/json"}, body.encode()

    def handle(self, request: LocalRequest) -> Answer:
        return self.compressed(request, self.answer(request))

    def compressed(self, request: LocalRequest, answer: Answer) -> Answer:
        """The answer as API Gateway sends it with ``MinimumCompressionSize`` set: compressed when
        it is at least that size, has no ``Content-Encoding`` of its own, and the request's
        ``Accept-Encoding`` ranks gzip or deflate highest."""
        status, headers, raw = answer
        coding = content_coding(",".join(request.header_values("accept-encoding")))
        if (
            coding is None
            or self.minimum_compression_size is None
            or len(raw) < self.minimum_compression_size
            or any(name.lower() == "content-encoding" for name in headers)
        ):
            return answer
        return status, {**headers, "Content-Encoding": coding}, COMPRESSORS[coding](raw)

    def route(self, path: str, method: str) -> ApiRoute | None:
        """The route API Gateway sends a request to: a resource whose path is this one beats a
        path with parameters; then the method's own route, else the resource's ANY."""
        resources = [route for route in self.routes if route.path == path]
        by_method = {route.method: route for route in resources or [r for r in self.routes if r.matches(path)]}
        return by_method.get(method) or by_method.get("ANY")

    def answer(self, request: LocalRequest) -> Answer:
        route = self.route(request.path, request.method)
        if len(request.body) > API_GATEWAY_MAX_BODY:
            return self.gateway_answer("REQUEST_TOO_LARGE", request.request_id)
        if route is None:
            return self.docs(request) or self.gateway_answer("MISSING_AUTHENTICATION_TOKEN", request.request_id)
        refusal = None if route.open_to_all else self.refusal(request)
        if refusal:
            return self.gateway_answer(refusal, request.request_id)
        event = api_event(
            request.method,
            request.path,
            request.event_body(),
            request.headers,
            query=parse_qs(request.query) or None,
            stage=self.stage,
            request_id=request.request_id,
        )
        event["requestContext"]["path"] = request.path  # make serve's URLs have no stage in them
        try:
            response = self.workers[route.function].invoke(event)
        except Exception:
            return self.gateway_answer("DEFAULT_5XX", request.request_id, status=502)  # Lambda failed: 502
        payload = response.get("body") or ""
        raw = base64.b64decode(payload) if response.get("isBase64Encoded") else payload.encode()
        headers = dict(response.get("headers") or {})
        for name, values in (response.get("multiValueHeaders") or {}).items():
            headers[name] = ", ".join(values)
        return int(response["statusCode"]), headers, raw

    def refusal(self, request: LocalRequest) -> str | None:
        """The gateway response type API Gateway would refuse this request with, if any."""
        if self.auth_mode == "API_KEY" and not secrets.compare_digest(request.header("x-api-key"), self.api_key):
            return "INVALID_API_KEY"
        if self.auth_mode == "IAM" and not request.header("authorization").startswith("AWS4-HMAC-SHA256 "):
            return "MISSING_AUTHENTICATION_TOKEN"
        return None

    def docs(self, request: LocalRequest) -> Answer | None:
        """A Swagger UI page over the API's ``/openapi.json`` (local only, not deployed), with the
        local API key filled in for "Try it out"."""
        if request.method != "GET":
            return None
        if request.path in ("/docs", "/docs/"):
            key = json.dumps(self.api_key if self.auth_mode == "API_KEY" else None)
            return 200, {"Content-Type": "text/html; charset=utf-8"}, DOCS_PAGE.replace("API_KEY", key).encode()
        asset = SWAGGER_ASSETS / request.path.removeprefix("/docs/")
        if request.path.startswith("/docs/") and asset.is_file() and asset.resolve().parent == SWAGGER_ASSETS.resolve():
            kind = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}.get(asset.suffix, "text/plain")
            return 200, {"Content-Type": kind}, asset.read_bytes()
        return None


def content_coding(accept_encoding: str) -> str | None:
    """The coding an ``Accept-Encoding`` value gets from API Gateway: gzip or deflate when one of
    them has the highest weight of the codings listed (gzip on a tie), else none. An absent header,
    ``*``, ``identity`` or another coding ranked first mean no compression."""
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        name, *parameters = (part.strip() for part in item.split(";"))
        weight = 1.0
        for parameter in parameters:
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0  # a weight that cannot be read accepts nothing
        if name:
            weights[name.lower()] = weight
    best = max(weights.values(), default=0.0)
    return next((coding for coding in COMPRESSORS if best > 0 and weights.get(coding) == best), None)


def make_server(host: str, port: int, api: LocalApi, idle_timeout: float = IDLE_TIMEOUT) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = idle_timeout  # each read and write on the connection; http.server closes it on a timeout
        # TCP_NODELAY: the answer's head and body are two writes, and Nagle's algorithm held the
        # body of a keep-alive answer until the client's delayed ACK, about 40 ms each time
        disable_nagle_algorithm = True

        def handle(self) -> None:
            """A client that hangs up (a reset, a broken pipe) just ends its connection: there is
            no one left to answer, and ``socketserver`` would print a traceback for it."""
            with contextlib.suppress(ConnectionError):
                super().handle()

        def _serve(self) -> None:
            started = time.perf_counter()
            try:
                body = read_body(self.headers, self.rfile, API_GATEWAY_MAX_BODY)
            except BadFraming:
                self.send_error(400)
                return
            except TimeoutError:  # a body that stopped coming: no answer, but still its log line
                self._log("timed out", started, "-")
                raise
            headers: dict[str, list[str]] = {}
            for name, value in self.headers.items():
                headers.setdefault(name, []).append(value)
            request = LocalRequest(self.command, self.path, headers, body)
            self._reply(api.handle(request), started, request.request_id)

        def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
            """``http.server``'s own refusals (a request line or header it cannot parse) and a body
            that cannot be delimited, as the gateway's DEFAULT_4XX in the error shape instead of an
            HTML page. The connection ends: where the next request starts is unknown."""
            self.request_version = self.protocol_version  # a status line and headers, even for HTTP/0.9
            request_id = str(uuid.uuid4())
            status, headers, raw = api.gateway_answer("DEFAULT_4XX", request_id, status=code)
            self._reply((status, {**headers, "Connection": "close"}, raw), time.perf_counter(), request_id)

        def _reply(self, answer: Answer, started: float, request_id: str) -> None:
            """Logged, then sent: the log line is out before the client has its answer, and a
            client that hangs up or stops reading still leaves one. Every answer carries API
            Gateway's ``x-amzn-RequestId``; a function's also its ``X-Request-Id`` (the same id)."""
            status, headers, raw = answer
            self._log(str(status), started, request_id)
            self.send_response_only(status)
            self.send_header("x-amzn-RequestId", request_id)
            for name, value in headers.items():
                if name.lower() != "content-length":
                    self.send_header(name, value)  # a "Connection: close" also ends the connection here
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(raw)

        def _log(self, outcome: str, started: float, request_id: str) -> None:
            elapsed = (time.perf_counter() - started) * 1000
            path = urlsplit(getattr(self, "path", "")).path or "-"  # unset when the request line was not parsed
            print(f"{self.command or '-'} {path} {outcome} {elapsed:.1f}ms {request_id}", flush=True)

        def __getattr__(self, name: str) -> Any:
            """Every method (TRACE and unknown ones too) goes the same way: the API decides."""
            if name.startswith("do_"):
                return self._serve
            raise AttributeError(name)

        def log_message(self, format: str, *args: Any) -> None:
            """One line per request is printed by ``_log``; silence the stdlib's own (a timeout's among them)."""

    return ThreadingHTTPServer((host, port), Handler)
