"""One document's way from its S3 object to its output object, the only I/O of the document flows:
the S3 event flow and the backfill both hand each object to ``chunk_object``. Every layout rule is
``texttools.documents``'; this module reads and writes.

A document's own problem becomes its error object. A problem of S3 itself (throttling, a 5xx, a
failed read or write) raises, so that the caller's invocation fails and is retried; an object
deleted or replaced since it was listed or announced is skipped. A ``.jsonl`` output is written as
the document is read, with a multipart upload that is completed only after its last line and
aborted on any failure, so a reader never sees part of one (the bucket's lifecycle aborts the
uploads of a function that was stopped).
"""

import contextlib
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from botocore.exceptions import BotoCoreError, ClientError

from failure_location import failure_location
from texttools.documents import (
    JSON,
    JSONL,
    Defaults,
    Output,
    Source,
    chunk_document,
    document_lines,
    error_output,
    is_document_key,
    output_key,
    output_keys,
    oversize,
)
from texttools.errors import OutputTooLarge, ToolError

COUNTS_TOKENS = True
"""The document flows' packages hold the deployed tokenizers (src/handlers/Makefile): a document's
metadata may name any tool, the size tools with ``tokenizer`` ``hf:<name>`` among them."""
GONE = frozenset({"NoSuchKey", "NoSuchVersion", "404", "PreconditionFailed", "412"})
"""The object was deleted or replaced since the event or the listing: it is not this document."""
READ_PIECE_BYTES = 1 << 18
"""How much of a document is read at a time in ``jsonl``, as much as a window of text adds."""
PART_BYTES = 5 << 20
"""A multipart upload's part: S3's least (but for the last part), the least memory to hold one."""
MAX_PARTS = 10_000
"""S3's most parts in one upload: a ``jsonl`` output over 10 000 parts (48.8 GiB) is
``output_too_large``."""
JSON_TYPE, JSONL_TYPE = "application/json", "application/x-ndjson"


class TransientFailure(Exception):
    """Raised after the other documents are done, so that the invocation fails and is retried
    (Lambda's retries of an event, the backfill's Retry of a batch); says how many failed."""


@dataclass(frozen=True)
class Settings:
    """The deployment's choices (template parameters, through the function's environment)."""

    chunks_format: str = JSON
    max_document_bytes: int = 0
    defaults: Defaults = field(default_factory=Defaults)
    """What a document's own user metadata overrides: ``DefaultTool`` and ``DefaultParameters``."""

    @classmethod
    def from_environment(cls) -> "Settings":
        defaults = Defaults(os.environ.get("DEFAULT_TOOL") or None, os.environ.get("DEFAULT_PARAMETERS") or "{}")
        chunks_format = os.environ.get("CHUNKS_FORMAT") or JSON
        return cls(chunks_format, int(os.environ.get("MAX_DOCUMENT_BYTES") or 0), defaults)


@dataclass(frozen=True)
class Outcome:
    """What became of one object: ``ok``, the document's error code, ``skipped`` (not a document)
    or ``gone`` (deleted or replaced before it was read), and the object written for it."""

    code: str
    output_bytes: int = 0
    output_key: str | None = None

    def log(self, logger: Any) -> None:
        """The one log line of a document (sizes and codes, never its text)."""
        if self.code == "skipped":
            logger.info("not a document: skipped")
        elif self.code == "gone":
            logger.info("object gone before it was read: skipped")
        else:
            logger.info("document chunked", outcome=self.code, output_bytes=self.output_bytes)


@dataclass(frozen=True)
class Report:
    """What became of each item: its key, outcome code and output key (``None``: nothing written)."""

    documents: list[tuple[str, str, str | None]]

    @property
    def counts(self) -> dict[str, int]:
        return dict(Counter(code for _, code, _ in self.documents))


def chunk_each[Item](
    s3: Any, items: Sequence[Item], source_of: Callable[[Item], Source], settings: Settings, logger: Any, metrics: Any
) -> Report:
    """Every item's document through ``chunk_object``, reported by outcome (a log line each, and one
    metric per outcome with its count). A problem of S3 (or a bug) on one is logged and the others
    go on; then ``TransientFailure`` if there was any."""
    documents: list[tuple[str, str, str | None]] = []
    for item in items:
        source, written = None, None
        try:
            source = source_of(item)
            logger.append_keys(object_size=source.size, version_id=source.version_id)
            outcome = chunk_object(s3, source, settings)
            outcome.log(logger)
            code, written = outcome.code, outcome.output_key
        except (ClientError, BotoCoreError) as error:
            code = "transient_failure"
            aws_error = error.response["Error"].get("Code") if isinstance(error, ClientError) else "connection"
            logger.warning("S3 call failed; it will be retried", aws_error=aws_error)
        except Exception:  # a bug: retried too, and kept on the failure queue (or in the report) if it persists
            code = "internal_error"
            logger.error("unexpected failure; it will be retried", failed_at=failure_location())
        documents.append((source.key if source else "", code, written))
    report = Report(documents)
    counts = report.counts
    for code, count in counts.items():
        metrics.add_metric(name=code, unit=MetricUnit.Count, value=count)
    failed = counts.get("transient_failure", 0) + counts.get("internal_error", 0)
    if failed:
        raise TransientFailure(f"{failed} of {len(items)} documents failed and will be retried")
    return report


def chunk_object(s3: Any, source: Source, settings: Settings) -> Outcome:
    """Write the one output object of one object (a document under ``incoming/``, else skipped),
    then delete the document's other outputs (API.md: exactly one output per document). S3's own
    failures raise (``ClientError``, ``BotoCoreError``): a retry writes the same output again and
    finishes the deletions."""
    if not is_document_key(source.key):
        return Outcome("skipped")
    outcome = write_output(s3, source, settings)
    if outcome.output_key is not None:
        for key in output_keys(source.key):
            if key != outcome.output_key:
                delete_if_present(s3, source.bucket, key)
    return outcome


def write_output(s3: Any, source: Source, settings: Settings) -> Outcome:
    """The document's output written (none when the object is gone)."""
    try:
        too_large = oversize(source.size, settings.chunks_format, settings.max_document_bytes)
        if too_large is not None:
            if source.version_id is None:  # a listing: the version it refuses, as an event names it
                source = replace(source, version_id=head(s3, source).get("VersionId"))
            return put(s3, source.bucket, error_output(source, too_large))
        response = fetch(s3, source)
    except ClientError as error:
        if error.response["Error"].get("Code") in GONE:
            return Outcome("gone")
        raise
    if source.version_id is None:  # a listing, or an event of an unversioned bucket: the version read
        source = replace(source, version_id=response.get("VersionId"))
    metadata = response.get("Metadata", {})  # S3 hands user metadata keys lower-cased
    if settings.chunks_format == JSON:
        return put(s3, source.bucket, chunk_document(source, response["Body"].read(), metadata, settings.defaults))
    lines = document_lines(source, response["Body"].iter_chunks(READ_PIECE_BYTES), metadata, settings.defaults)
    key = output_key(source.key, failed=False, chunks_format=JSONL)
    try:
        written = upload(s3, source.bucket, key, lines)
    except ToolError as error:
        return put(s3, source.bucket, error_output(source, error))
    return Outcome("ok", written, key)


def fetch(s3: Any, source: Source) -> Any:
    """The exact object: its version if versioned, else only while its ETag still matches."""
    if source.version_id:
        return s3.get_object(Bucket=source.bucket, Key=source.key, VersionId=source.version_id)
    return s3.get_object(Bucket=source.bucket, Key=source.key, IfMatch=quoted(source.etag))


def head(s3: Any, source: Source) -> Any:
    """The listed object's metadata (its version) without its body, while its ETag still matches."""
    return s3.head_object(Bucket=source.bucket, Key=source.key, IfMatch=quoted(source.etag))


def quoted(etag: str) -> str:
    """An ETag as ``If-Match`` takes it (RFC 9110: an entity tag is quoted; events and our
    ``Source`` hold it bare)."""
    return f'"{etag}"'


def delete_if_present(s3: Any, bucket: str, key: str) -> None:
    """Delete an output left by an earlier run, if there is one: a plain delete (a delete marker
    in a versioned bucket, so that the old version stays for its retention days) only where the
    key exists, so that a document's run adds no delete marker over nothing."""
    try:
        s3.head_object(Bucket=bucket, Key=key)
    except ClientError as error:
        if error.response["Error"].get("Code") in GONE:
            return
        raise
    s3.delete_object(Bucket=bucket, Key=key)


def put(s3: Any, bucket: str, output: Output) -> Outcome:
    s3.put_object(Bucket=bucket, Key=output.key, Body=output.body, ContentType=JSON_TYPE)
    return Outcome(output.code, len(output.body), output.key)


def upload(s3: Any, bucket: str, key: str, lines: Iterable[bytes]) -> int:
    """Write ``lines`` as one object that appears whole or not at all, and return its size: a
    single PutObject when it is smaller than a part, else a multipart upload of ``PART_BYTES``
    parts that is completed after the last line and aborted when anything fails (``lines`` or S3),
    which then raises on."""
    parts = iter_parts(lines)
    first = next(parts)
    following = next(parts, None)
    if following is None:
        s3.put_object(Bucket=bucket, Key=key, Body=first, ContentType=JSONL_TYPE)
        return len(first)
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key=key, ContentType=JSONL_TYPE)["UploadId"]
    try:
        done, written = [], 0
        for number, part in enumerate(chain((first, following), parts), start=1):
            if number > MAX_PARTS:
                raise OutputTooLarge(f"The chunks would be more than {MAX_PARTS} parts of {PART_BYTES} bytes.")
            etag = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=part)["ETag"]
            done.append({"PartNumber": number, "ETag": etag})
            written += len(part)
        s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": done})
        return written
    except BaseException:
        with contextlib.suppress(ClientError, BotoCoreError):  # the lifecycle rule aborts it otherwise
            s3.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
        raise


def iter_parts(lines: Iterable[bytes]) -> Iterator[bytes]:
    """``lines`` regrouped into parts of at least ``PART_BYTES`` (a part ends with the line that
    reaches the size), the last one shorter but not empty unless it is the only one. Joined once
    each: at most a part and its lines are held."""
    pending: list[bytes] = []
    size = parts = 0
    for line in lines:
        pending.append(line)
        size += len(line)
        if size >= PART_BYTES:
            yield b"".join(pending)
            pending, size, parts = [], 0, parts + 1
    if pending or not parts:
        yield b"".join(pending)
