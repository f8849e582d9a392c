"""``make serve``: the API on http://127.0.0.1:3000 with no Docker and no AWS account.

Routes, handlers and API Gateway's own error answers are all read from ``template.yaml``, so
there is no second route table: each HTTP request becomes a REST proxy event for the real
handler, and its proxy response is sent back as the handler wrote it.
"""

import argparse
import base64
import os
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from scripts.lambda_runtime import FunctionSpec, Handler, LocalContext, api_event, functions, load_template

API_GATEWAY_MAX_BODY = 10 * 1024 * 1024
"""API Gateway refuses larger payloads itself (REQUEST_TOO_LARGE) before any function runs."""


@dataclass
class GatewayAnswer:
    status: int
    body: str


class LocalApi:
    """Routes requests to handlers as the deployed REST API would."""

    def __init__(self, stage: str = "prod") -> None:
        template = load_template()
        self.stage = stage
        self.gateway_responses: dict[str, Any] = template["Resources"]["TextToolsApi"]["Properties"]["GatewayResponses"]
        self.routes: dict[str, dict[str, FunctionSpec]] = {}
        self.handlers: dict[str, Handler] = {}
        for spec in functions(template).values():
            for route in spec.routes:
                self.routes.setdefault(route.path, {})[route.method] = spec
            if spec.routes:
                if str(spec.code_uri) not in sys.path:
                    sys.path.insert(0, str(spec.code_uri))
                self.handlers[spec.logical_id] = spec.load()
        # Powertools keeps the current event on its router class: one request at a time, as in Lambda.
        self._lock = threading.Lock()

    def gateway_answer(self, response_type: str, request_id: str) -> GatewayAnswer:
        configured = self.gateway_responses[response_type]
        body = configured["ResponseTemplates"]["application/json"].replace("$context.requestId", request_id)
        return GatewayAnswer(int(configured["StatusCode"]), body)

    def handle(self, request: "LocalRequest") -> tuple[int, dict[str, str], bytes]:
        by_method = self.routes.get(request.path, {})
        spec = by_method.get(request.method) or by_method.get("ANY")
        if len(request.body) > API_GATEWAY_MAX_BODY:
            answer = self.gateway_answer("REQUEST_TOO_LARGE", request.request_id)
        elif spec is None:
            answer = self.gateway_answer("MISSING_AUTHENTICATION_TOKEN", request.request_id)
        else:
            return self._invoke(spec, request)
        return answer.status, {"Content-Type": "application/json"}, answer.body.encode()

    def _invoke(self, spec: FunctionSpec, request: "LocalRequest") -> tuple[int, dict[str, str], bytes]:
        event = api_event(
            request.method,
            request.path,
            request.event_body(),
            request.headers,
            query=parse_qs(request.query) or None,
            stage=self.stage,
            request_id=request.request_id,
        )
        with self._lock:
            response = self.handlers[spec.logical_id](event, LocalContext(spec.logical_id))
        payload = response.get("body") or ""
        raw = base64.b64decode(payload) if response.get("isBase64Encoded") else payload.encode()
        out_headers = dict(response.get("headers") or {})
        for name, values in (response.get("multiValueHeaders") or {}).items():
            out_headers[name] = ", ".join(values)
        return int(response["statusCode"]), out_headers, raw


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

    def event_body(self) -> str | bytes | None:
        """Text media types arrive as text, others base64-encoded, as API Gateway does.

        Bytes that are not UTF-8 are sent base64-encoded too, so the handler sees them exactly.
        """
        if not self.body:
            return None
        content_type = next((v[-1] for k, v in self.headers.items() if k.lower() == "content-type"), "")
        if content_type == "" or content_type.lower().startswith(("application/json", "text/")):
            try:
                return self.body.decode()
            except UnicodeDecodeError:
                pass
        return self.body


def make_server(host: str, port: int, api: LocalApi) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            started = time.perf_counter()
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers: dict[str, list[str]] = {}
            for name, value in self.headers.items():
                headers.setdefault(name, []).append(value)
            status, out_headers, raw = api.handle(LocalRequest(self.command, self.path, headers, body))
            self.send_response_only(status)
            for name, value in out_headers.items():
                if name.lower() != "content-length":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
            elapsed = (time.perf_counter() - started) * 1000
            print(f"{self.command} {urlsplit(self.path).path} {status} {elapsed:.1f}ms", flush=True)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:
            """One line per request is printed by ``_serve``; silence the stdlib's own."""

    return ThreadingHTTPServer((host, port), Handler)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3000)
    args = parser.parse_args()
    os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "text-tools")
    os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "TextTools")
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    api = LocalApi()
    server = make_server(args.host, args.port, api)
    base = f"http://{args.host}:{server.server_address[1]}"
    print(f"Text tools API on {base} (Ctrl-C stops it)")
    for path, by_method in sorted(api.routes.items()):
        print(f"  {'/'.join(sorted(m for m in by_method if m != 'ANY'))} {base}{path}")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
