"""Lambda entry point of the document chunker: S3 ``ObjectCreated`` under ``incoming/``.

The event's records, each turned into the ``Source`` it names (its key URL-decoded), go through
the document flows' one path, ``s3_documents.chunk_each``. A document's own problem becomes its
error object; a problem of S3 itself (throttling, 5xx, a failed read or write) or a bug raises
``TransientFailure`` after the other records are done, so Lambda retries the event and, when
retries run out, the OnFailure queue keeps it.
"""

import gc
from typing import Any
from urllib.parse import unquote_plus

import boto3
from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.data_classes import S3Event, event_source
from aws_lambda_powertools.utilities.data_classes.s3_event import S3EventRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from s3_documents import Settings, TransientFailure, chunk_each
from texttools.documents import Source

__all__ = ["TransientFailure", "lambda_handler"]
logger = Logger()
metrics = Metrics()  # namespace: POWERTOOLS_METRICS_NAMESPACE (the template's Globals)
s3 = boto3.client("s3")


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
@event_source(data_class=S3Event)
def lambda_handler(event: S3Event, context: LambdaContext) -> dict[str, Any]:
    """Lambda ignores what an S3 notification's invocation returns: what became of each document
    is for ``make invoke``, ``sam local invoke`` and ``make serve``'s log lines."""
    records = list(event.records)
    report = chunk_each(s3, records, announced_source, Settings.from_environment(), logger, metrics)
    documents = [{"key": key, "outcome": code, "output": output} for key, code, output in report.documents]
    return {"records": len(records), "outcomes": report.counts, "documents": documents}


def announced_source(record: S3EventRecord) -> Source:
    """The object an event record names: its key URL-decoded (``+`` for a space), its version."""
    obj = record.s3.get_object
    return Source(record.s3.bucket.name, unquote_plus(obj.key, errors="strict"), obj.version_id, obj.etag, obj.size)


# The end of the function's init: boto3's objects live as long as the process, so a full garbage
# collection need not walk them again (25 to 50 ms a full collection, ``make bench``).
gc.freeze()
