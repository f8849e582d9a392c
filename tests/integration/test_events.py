"""The committed sample events are current, and each gives the outcome it is named for."""

import importlib
import json

import boto3
import pytest
from moto import mock_aws

from scripts.lambda_events import LOCAL_REGION, LocalContext
from scripts.sample_events import EVENTS, SAMPLE_BUCKET, Sample, document_samples, render, samples
from scripts.template import ROOT, functions
from tests.conftest import outcomes

API_SAMPLES = samples()
S3_SAMPLES = document_samples()


def test_every_function_has_samples_and_no_file_is_stray() -> None:
    assert {s.function for s in API_SAMPLES + S3_SAMPLES} == set(functions())
    committed = sorted(str(p.relative_to(ROOT)) for p in EVENTS.glob("*/*.json"))
    assert committed == sorted(s.path for s in API_SAMPLES + S3_SAMPLES)


@pytest.mark.parametrize("sample", API_SAMPLES + S3_SAMPLES, ids=lambda s: s.path)
def test_committed_event_is_current(sample: Sample) -> None:
    assert (ROOT / sample.path).read_text(encoding="utf-8") == render(sample), "run: python -m scripts.sample_events"


@pytest.mark.parametrize("sample", API_SAMPLES, ids=lambda s: s.path)
def test_api_event_gives_its_outcome(sample: Sample) -> None:
    event = json.loads((ROOT / sample.path).read_text(encoding="utf-8"))
    response = functions()[sample.function].load()(event, LocalContext(sample.function))
    assert response["statusCode"] == sample.status
    json_body = "json" in response["headers"].get("Content-Type", "")  # not the playground's page, nor a 202
    body = json.loads(response["body"]) if json_body else {}
    assert (str(body["error"]["code"]) if "error" in body else "ok") == sample.code


@pytest.mark.parametrize("sample", S3_SAMPLES, ids=lambda s: s.path)
def test_s3_event_gives_its_outputs(sample: Sample) -> None:
    with mock_aws():
        s3 = boto3.client("s3", region_name=LOCAL_REGION)
        s3.create_bucket(Bucket=SAMPLE_BUCKET)
        for key, body in sample.documents.items():
            s3.put_object(Bucket=SAMPLE_BUCKET, Key=key, Body=body)
        # Imported inside the mock, so that the module's client is moto's.
        spec = functions()[sample.function]
        handler = getattr(importlib.reload(importlib.import_module(spec.module)), spec.attribute)
        event = json.loads((ROOT / sample.path).read_text(encoding="utf-8"))
        if sample.code == "ok":
            handler(event, LocalContext(sample.function))
        else:  # a Knowledge Base file that cannot be chunked fails the invocation, naming its code
            with pytest.raises(Exception, match=f": {sample.code}: "):
                handler(event, LocalContext(sample.function))
        assert outcomes(s3, SAMPLE_BUCKET) == sample.outputs
