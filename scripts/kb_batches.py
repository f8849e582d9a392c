"""``make kb-batches``: the content batch files of the Knowledge Base sample events, written where
Bedrock would have written them (the events' ``bucketName``, ``make serve``'s bucket, or the same
bucket at ``AWS_ENDPOINT_URL``), so that ``make invoke`` can run each event. Prints the commands.
"""

import shlex
import sys

from scripts.s3_target import S3Target
from scripts.sample_events import KNOWLEDGE_BASE_FUNCTION, SAMPLE_BUCKET, knowledge_base_samples


def main() -> int:
    target = S3Target.from_environment()
    s3 = target.client()
    samples = knowledge_base_samples()
    for sample in samples:
        for key, body in sample.documents.items():
            s3.put_object(Bucket=SAMPLE_BUCKET, Key=key, Body=body, ContentType="application/json")
    count = sum(len(sample.documents) for sample in samples)
    print(f"wrote {count} content batch files to s3://{SAMPLE_BUCKET}/ at {target.endpoint}; now run, e.g.:\n")
    environment = " ".join(f"{name}={shlex.quote(value)}" for name, value in target.environment.items())
    for sample in samples:
        outcome = "" if sample.code == "ok" else f"  # fails: {sample.code}"
        print(f"  {environment} make invoke FN={KNOWLEDGE_BASE_FUNCTION} EVENT={sample.path}{outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
