"""Lambda entry point of the Amazon Bedrock Knowledge Base custom transformation (``POST_CHUNKING``).

Reads each input file's content batches from the event's bucket, chunks each item with the tool
that the file's metadata (or the deployment's defaults) chooses (``texttools.knowledge_base``),
writes the chunks as new content batches under this function's own prefix, and answers Bedrock
with them, one output file per input file, in order. A file that cannot be chunked fails the
invocation with its location and error code (the ingestion job reports it), after its own output
batches, if any were written, are deleted.
"""

import gc
import os
from typing import Any

import boto3
from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from s3_documents import Settings
from texttools.documents import Defaults
from texttools.errors import InvalidInput, ToolError
from texttools.knowledge_base import (
    ContentBatch,
    ContentFile,
    FileFailed,
    InputFile,
    OutputFile,
    TransformationEvent,
    TransformationResult,
    batch_files,
    batch_folder,
    chunk_contents,
    tool_and_parameters,
)

logger = Logger()
metrics = Metrics()  # namespace: POWERTOOLS_METRICS_NAMESPACE (the template's Globals)
s3 = boto3.client("s3")


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        request = TransformationEvent.model_validate(event)
    except ValidationError:  # its message quotes the event's values: not for the logs or the answer
        raise InvalidInput("The event is not a Bedrock Knowledge Base transformation event.") from None
    logger.append_keys(ingestion_job_id=request.ingestionJobId, files=len(request.inputFiles))
    defaults = Settings.from_environment().defaults
    prefix = f"{os.environ['KNOWLEDGE_BASE_OUTPUT_PREFIX']}{request.ingestionJobId}/"
    answered = [chunk_file(request.bucketName, prefix, file, defaults) for file in request.inputFiles]
    return TransformationResult(outputFiles=answered).answer()


def chunk_file(bucket: str, prefix: str, file: InputFile, defaults: Defaults) -> OutputFile:
    """One input file's output batches, written under ``prefix`` in a folder of the file's own."""
    folder = f"{prefix}{batch_folder(file)}/"
    written: list[ContentBatch] = []
    try:
        chosen, params = tool_and_parameters(file.fileMetadata, defaults)
        contents = (item for batch in file.contentBatches for item in read(bucket, batch.key).fileContents)
        chunks = 0
        for number, (body, count) in enumerate(batch_files(chunk_contents(chosen, params, contents))):
            key = f"{folder}{number:05d}.json"
            s3.put_object(Bucket=bucket, Key=key, Body=body, ContentType="application/json")
            written.append(ContentBatch(key=key))
            chunks += count
    except ToolError as error:
        for batch in written:  # no output batch is left of a file that failed
            s3.delete_object(Bucket=bucket, Key=batch.key)
        metrics.add_metric(name=error.code, unit=MetricUnit.Count, value=1)
        logger.info("file failed", outcome=error.code)
        raise FileFailed(file.originalFileLocation, error) from None
    metrics.add_metric(name="ok", unit=MetricUnit.Count, value=1)
    logger.info("file chunked", outcome="ok", chunks=chunks, batches=len(written))
    return file.answered(written)


def read(bucket: str, key: str) -> ContentFile:
    """A content batch file Bedrock wrote."""
    body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    try:
        return ContentFile.model_validate_json(body)
    except ValidationError:
        raise InvalidInput("A content batch file is not Bedrock's fileContents JSON.") from None


# The end of the function's init: what the imports made lives as long as the process.
gc.freeze()
