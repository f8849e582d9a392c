"""``make serve``: the whole service on this machine, no Docker, no AWS account.

The REST API on http://127.0.0.1:3000 (the port of ``sam local start-api``), its OpenAPI document
and Swagger UI, and the S3 document flow on an embedded S3 endpoint (port 5000 or the next free),
whose bucket is kept in ``.local-bucket/`` across restarts (``make empty-local-bucket`` empties it).
"""

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scripts.local_gateway.api import LocalApi
    from scripts.local_s3 import LocalS3Flow

LOCAL_API_KEY = "local-key"
"""The local server's default key: the server listens on loopback only, and a fixed key keeps the
README's curl lines pasteable. Deployed stacks get a generated key."""

KEPT_BUCKET = Path(__file__).resolve().parent.parent / ".local-bucket"
"""Where the local bucket's objects outlive a restart: in the checkout, ignored by git."""


def main() -> None:
    # Imported here: every function's worker is a spawned process, which imports this module again
    # (as multiprocessing's ``__mp_main__``) and must not load moto, boto3 and the local servers,
    # which a Lambda does not have (0.3 s and 40 MB a worker).
    from scripts.local_bucket_store import StoredBucketError  # noqa: PLC0415
    from scripts.local_gateway.api import LocalApi, make_server  # noqa: PLC0415
    from scripts.local_s3 import LocalS3Flow  # noqa: PLC0415
    from texttools.documents import CHUNKS_FORMATS  # noqa: PLC0415

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3000)
    parser.add_argument("--s3-port", type=int, default=5000, help="the S3 endpoint's port, or the next free one")
    parser.add_argument("--keep-in", type=Path, default=KEPT_BUCKET, help="the folder keeping the bucket's objects")
    parser.add_argument("--log-level", default="WARNING", help="the functions' Powertools log level (default WARNING)")
    parser.add_argument("--auth-mode", choices=["API_KEY", "IAM", "NONE"], help="default: the template's AuthMode")
    parser.add_argument("--chunks-format", choices=CHUNKS_FORMATS, help="default: the template's ChunksFormat")
    args = parser.parse_args()

    quiet = {"POWERTOOLS_LOG_LEVEL": args.log_level, "POWERTOOLS_METRICS_DISABLED": "true"}
    api_key = os.environ.get("TEXT_TOOLS_API_KEY", LOCAL_API_KEY)
    api = LocalApi(auth_mode=args.auth_mode, api_key=api_key, environment=quiet)
    chosen_format = {"CHUNKS_FORMAT": args.chunks_format} if args.chunks_format else {}
    try:
        flow = LocalS3Flow(args.host, args.s3_port, environment=quiet | chosen_format, keep_in=args.keep_in)
    except StoredBucketError as error:
        api.stop()
        sys.exit(str(error))
    try:
        server = make_server(args.host, args.port, api)
    except OSError as error:  # the API's port is fixed (README's curl lines): say so, not a traceback
        flow.stop()
        api.stop()
        sys.exit(f"cannot listen on {args.host}:{args.port} ({error.strerror}); choose a port: make serve PORT=3001")
    base = f"http://{args.host}:{server.server_address[1]}"

    def stop(_signal: int, _frame: FrameType | None) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    # Set explicitly: a shell that starts a job in the background leaves SIGINT ignored.
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)  # a closed terminal: stop cleanly, so the bucket is written

    print_banner(base, api, flow, args)

    try:
        server.serve_forever()
    finally:
        server.server_close()
        flow.stop()
        api.stop()
        print("stopped")


def print_banner(base: str, api: "LocalApi", flow: "LocalS3Flow", args: argparse.Namespace) -> None:
    """Both endpoints first (and how to move each), then the routes, the key, the docs and the bucket."""
    from texttools.documents import JSONL  # noqa: PLC0415 (see main)

    moved = "" if flow.port == args.s3_port else f"; {args.s3_port} is in use"
    print(f"Text tools, local (Ctrl-C stops)\n\nAPI          {base}  (PORT= moves it)")
    print(f"S3 endpoint  {flow.endpoint}  (S3_PORT= moves it{moved})\n\nRoutes")
    for route in sorted(api.routes, key=lambda route: (route.path, route.method)):
        if route.method != "ANY" and "{" not in route.path:
            print(f"  {route.method:<10} {base}{route.path}")
    if api.auth_mode == "API_KEY":
        print(f"  API key:   {api.api_key}  (send it as the x-api-key header; set another with TEXT_TOOLS_API_KEY)")
    elif api.auth_mode == "IAM":
        print("  IAM mode:  send a SigV4 Authorization header (not verified locally)")
    print(f"Docs         {base}/docs  (OpenAPI: {base}/openapi.json)")
    aws = "AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1 aws --endpoint-url"
    extension = "jsonl" if flow.chunks_format == JSONL else "json"
    print(f"Bucket       {flow.bucket}  (ChunksFormat {flow.chunks_format}; CHUNKS_FORMAT= chooses)")
    print(f"  kept in:   {shown(args.keep_in)}  ({flow.restored} keys restored; make empty-local-bucket empties it)")
    print(f"  try:       {aws} {flow.endpoint} s3 cp doc.md s3://{flow.bucket}/incoming/doc.md")
    print(f"  then:      {aws} {flow.endpoint} s3 cp s3://{flow.bucket}/chunks/doc.md.{extension} -\n", flush=True)
    print(f"Playground   {base}/v1/playground  (open it in a browser: every tool on your own text)\n", flush=True)


def shown(folder: Path) -> str:
    """The folder as the user would type it: relative to the checkout when it is the default."""
    return f"{KEPT_BUCKET.name}/" if folder == KEPT_BUCKET else str(folder)


if __name__ == "__main__":
    main()
