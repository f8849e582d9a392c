"""Lambda entry point of the backfill: one batch of the ``BackfillStateMachine``'s Distributed Map
over S3 ``ListObjectsV2`` (API.md, "Backfill").

Each listed object goes through the document flows' one path, ``s3_documents.chunk_each``, and
ends as exactly the object the event flow writes for it. An item's ``Key`` is not URL-encoded and
its ``Etag`` is quoted as S3 lists it; the object is read only while that ETag still matches, and
the version read is recorded. The batch returns its counts per outcome (the Map's report keeps
them); a problem of S3 fails the batch after the others are done, and the Map retries it.
"""

import gc
from typing import Any

import boto3
from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.typing import LambdaContext

from s3_documents import Settings, chunk_each
from texttools.documents import Source

logger = Logger()
metrics = Metrics()  # namespace: POWERTOOLS_METRICS_NAMESPACE (the template's Globals)
s3 = boto3.client("s3")


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    bucket, items = event["BatchInput"]["bucket"], event["Items"]

    def listed_source(item: dict[str, Any]) -> Source:
        return Source(bucket, item["Key"], None, item["Etag"].strip('"'), int(item["Size"]))

    report = chunk_each(s3, items, listed_source, Settings.from_environment(), logger, metrics)
    return {"documents": len(items), "outcomes": report.counts}


# The end of the function's init: boto3's objects live as long as the process, so a full garbage
# collection need not walk them again.
gc.freeze()
