"""Which S3 the local commands (``make backfill``, ``make sample-documents``) talk to: ``make serve``'s
embedded one, or whatever endpoint ``AWS_ENDPOINT_URL`` names, with the SDK's own credentials."""

import os
from dataclasses import dataclass
from typing import Any

from scripts.lambda_events import LOCAL_REGION

MAKE_SERVE_S3 = "http://127.0.0.1:5000"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_DEFAULT_REGION": LOCAL_REGION}
"""What ``make serve``'s S3 takes (any value would do)."""
CHUNKS_FORMAT_TAG = "text-tools:chunks-format"
"""The bucket tag by which ``make serve`` tells ``make backfill`` the ``ChunksFormat`` it runs with."""


@dataclass(frozen=True)
class S3Target:
    endpoint: str
    credentials: dict[str, str]
    """Empty where the SDK's own are to be used."""

    @classmethod
    def from_environment(cls) -> "S3Target":
        endpoint = os.environ.get("AWS_ENDPOINT_URL")
        return cls(endpoint, {}) if endpoint else cls(MAKE_SERVE_S3, CREDENTIALS)

    @property
    def environment(self) -> dict[str, str]:
        """What a function's process needs to reach this S3."""
        return {**self.credentials, "AWS_ENDPOINT_URL": self.endpoint}

    def client(self) -> Any:
        import boto3  # noqa: PLC0415 (here: make backfill's worker processes import their caller's module)

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=LOCAL_REGION,
            aws_access_key_id=self.credentials.get("AWS_ACCESS_KEY_ID"),  # None: the SDK's own credentials
            aws_secret_access_key=self.credentials.get("AWS_SECRET_ACCESS_KEY"),
        )
