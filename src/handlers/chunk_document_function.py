"""Lambda entry point of the document chunker: S3 ``ObjectCreated`` under ``incoming/``.

The event's records, each turned into the ``Source`` it names (its key URL-decoded) and handed to
the document flows' one path, ``s3_documents.chunk_object``. A document's own problem becomes its
error object; a problem of S3 itself (throttling, 5xx, a failed read or write) or a bug raises
after the other records are done, so Lambda retries the event and, when retries run out, the
OnFailure queue keeps it.
"""

import gc
from urllib.parse import unquote_plus

import boto3
from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.data_classes import S3Event, event_source
from aws_lambda_powertools.utilities.data_classes.s3_event import S3EventRecord
from aws_lambda_powertools.utilities.typing import LambdaContext
from botocore.exceptions import BotoCoreError, ClientError

from failure_location import failure_location
from s3_documents import Settings, chunk_object
from texttools.documents import Source

logger = Logger()
metrics = Metrics()  # namespace: POWERTOOLS_METRICS_NAMESPACE (the template's Globals)
s3 = boto3.client("s3")


class TransientFailure(Exception):
    """Raised so Lambda retries the event; says how many records could not be done."""


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
@event_source(data_class=S3Event)
def lambda_handler(event: S3Event, context: LambdaContext) -> dict[str, int]:
    settings = Settings.from_environment()
    records = list(event.records)
    failed = 0
    for record in records:
        try:
            outcome = chunk_record(record, settings)
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


def chunk_record(record: S3EventRecord, settings: Settings) -> str:
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
    outcome = chunk_object(s3, source, settings)
    outcome.log(logger)
    return outcome.code


# The end of the function's init: boto3's objects live as long as the process, so a full garbage
# collection need not walk them again (25 to 50 ms a full collection, ``make bench``).
gc.freeze()
