"""``make remove-bucket BUCKET=<name>``: empty a versioned bucket (every version and delete marker)
and delete it, after ``sam delete`` left it (the template retains the documents bucket:
docs/operations.md, "Remove the stack"). Uses the SDK's own credentials, region and endpoint.

Each round lists the first 1 000 versions and delete markers left and deletes them, until none
are: listing from the start each time cannot skip a page that earlier deletions shifted.
"""

import sys
from typing import Any

PAGE = 1_000
"""S3's most keys in one ListObjectVersions answer and in one DeleteObjects request."""


def remove_bucket(s3: Any, bucket: str) -> int:
    """Delete every version and delete marker of ``bucket``, then the bucket; the count deleted."""
    deleted = 0
    while True:
        page = s3.list_object_versions(Bucket=bucket, MaxKeys=PAGE)  # at most PAGE of both kinds
        objects = [{"Key": each["Key"], "VersionId": each["VersionId"]}
                   for each in page.get("Versions", []) + page.get("DeleteMarkers", [])]  # fmt: skip
        if not objects:
            break
        answer = s3.delete_objects(Bucket=bucket, Delete={"Objects": objects, "Quiet": True})
        if answer.get("Errors"):
            raise SystemExit(f"could not delete {len(answer['Errors'])} versions: {answer['Errors'][0]}")
        deleted += len(objects)
    s3.delete_bucket(Bucket=bucket)
    return deleted


def main(arguments: list[str]) -> int:
    if len(arguments) != 1 or not arguments[0]:
        print("usage: make remove-bucket BUCKET=<name>", file=sys.stderr)
        return 2
    import boto3  # noqa: PLC0415 (only once the arguments are right)

    count = remove_bucket(boto3.client("s3"), arguments[0])
    print(f"deleted {count} object versions and delete markers, then the bucket {arguments[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
