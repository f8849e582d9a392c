"""Lambda entry point of the document chunker: S3 ``ObjectCreated`` under ``incoming/``.

Only I/O lives here: read the event, fetch the exact object version, write the output object
that ``texttools.documents`` makes. A document's own problem becomes its error object; a problem
of S3 itself (throttling, 5xx, a failed write) raises after the other records are done, so
Lambda retries the event and, when retries run out, the OnFailure queue keeps it.
"""

import gc
import os
from urllib.parse import unquote_plus

import boto3
from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.data_classes import S3Event, event_source
from aws_lambda_powertools.utilities.data_classes.s3_event import S3EventRecord
from aws_lambda_powertools.utilities.typing import LambdaContext
from botocore.exceptions import BotoCoreError, ClientError

from failure_location import failure_location
from texttools.documents import Source, chunk_document, is_document_key, too_large_to_read

GONE = frozenset({"NoSuchKey", "NoSuchVersion", "404", "PreconditionFailed", "412"})
"""The object was deleted or replaced since the event: its own event (if any) covers it."""

DEFAULT_METADATA_ENV = {"tool": "DEFAULT_TOOL", "delimiter": "DEFAULT_DELIMITER", "max-splits": "DEFAULT_MAX_SPLITS"}

logger = Logger()
metrics = Metrics()  # namespace: POWERTOOLS_METRICS_NAMESPACE (the template's Globals)
s3 = boto3.client("s3")


class TransientFailure(Exception):
    """Raised so Lambda retries the event; says how many records could not be done."""


def default_metadata() -> dict[str, str]:
    """The deployment's defaults (template parameters), overridden per object by its metadata."""
    return {name: os.environ[var] for name, var in DEFAULT_METADATA_ENV.items() if os.environ.get(var)}


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
@event_source(data_class=S3Event)
def lambda_handler(event: S3Event, context: LambdaContext) -> dict[str, int]:
    records = list(event.records)
    failed = 0
    for record in records:
        try:
            outcome = chunk_record(record)
        except (ClientError, BotoCoreError) as error:
            failed += 1
            outcome = "transient_failure"
            code = error.response["Error"].get("Code") if isinstance(error, ClientError) else "connection"
            logger.warning("S3 call failed; the event will be retried", aws_error=code)
        except Exception:  # a bug: retried too, and kept on the failure queue if it persists
            failed += 1
            outcome = "internal_error"
            logger.error("unexpected failure; the event will be retried", failed_at=failure_location())
        metrics.add_metric(name=outcome, unit=MetricUnit.Count, value=1)
    if failed:
        raise TransientFailure(f"{failed} of {len(records)} records failed and will be retried")
    return {"records": len(records)}


def chunk_record(record: S3EventRecord) -> str:
    """Chunk one record's document; returns the outcome code for metrics and logs."""
    obj = record.s3.get_object
    source = Source(
        bucket=record.s3.bucket.name,
        key=unquote_plus(obj.key, errors="strict"),
        version_id=obj.version_id,
        etag=obj.etag,
        size=obj.size,
    )
    logger.append_keys(object_size=source.size, version_id=source.version_id)
    if not is_document_key(source.key):
        logger.info("not a document: skipped")
        return "skipped"
    content: bytes | None = None
    metadata = default_metadata()
    if not too_large_to_read(source.size):
        try:
            fetched = fetch(source)
        except ClientError as error:
            if error.response["Error"].get("Code") in GONE:
                logger.info("object gone before it was read: skipped")
                return "gone"
            raise
        content, user_metadata = fetched
        metadata.update(user_metadata)
    output = chunk_document(source, content, metadata)
    s3.put_object(Bucket=source.bucket, Key=output.key, Body=output.body, ContentType="application/json")
    logger.info("document chunked", outcome=output.code, output_bytes=len(output.body))
    return output.code


def fetch(source: Source) -> tuple[bytes, dict[str, str]]:
    """The exact object of the event: its version if versioned, else only while its ETag matches."""
    if source.version_id:
        response = s3.get_object(Bucket=source.bucket, Key=source.key, VersionId=source.version_id)
    else:
        response = s3.get_object(Bucket=source.bucket, Key=source.key, IfMatch=source.etag)
    return response["Body"].read(), response.get("Metadata", {})  # S3 returns user metadata keys lower-cased


# The end of the function's init: boto3's objects live as long as the process, so a full garbage
# collection need not walk them again (25 to 50 ms a full collection, ``make bench``).
gc.freeze()
