"""``make sample-documents``: the objects that the document functions' sample events name (the S3
flow's and the backfill's documents, the Knowledge Base events' content batch files), written
where the events say they are (their ``bucketName``, ``make serve``'s bucket, or the same bucket at
``AWS_ENDPOINT_URL``), so that ``make invoke`` can run each event. Prints a command per event.

Documents under ``incoming/`` go through ``make serve``'s own S3 flow too (they are uploads): its
outputs are the bytes ``make invoke`` writes again.
"""

import shlex
import sys

from scripts.s3_target import S3Target
from scripts.sample_events import SAMPLE_BUCKET, document_samples


def main() -> int:
    target = S3Target.from_environment()
    s3 = target.client()
    samples = document_samples()
    written = {key: body for sample in samples for key, body in sample.documents.items()}
    for key, body in written.items():
        content_type = "application/json" if key.endswith(".json") else "text/plain; charset=utf-8"
        s3.put_object(Bucket=SAMPLE_BUCKET, Key=key, Body=body, ContentType=content_type)
    print(f"wrote {len(written)} sample objects to s3://{SAMPLE_BUCKET}/ at {target.endpoint}; now run:\n")
    environment = " ".join(f"{name}={shlex.quote(value)}" for name, value in target.environment.items())
    for sample in samples:
        outcome = "" if sample.code == "ok" else f"  # fails: {sample.code}"
        print(f"  {environment} make invoke FN={sample.function} EVENT={sample.path}{outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
