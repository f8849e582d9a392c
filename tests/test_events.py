"""The committed sample events are current, and each gives the outcome it is named for."""

import json

import pytest

from scripts.lambda_runtime import ROOT, LocalContext, functions
from scripts.sample_events import EVENTS, FUNCTIONS, Sample, render, samples

SAMPLES = samples()


def test_every_api_function_has_samples_and_no_file_is_stray() -> None:
    api_functions = {logical_id for logical_id, spec in functions().items() if spec.routes}
    assert set(FUNCTIONS) == api_functions
    assert sorted(str(p.relative_to(ROOT)) for p in EVENTS.glob("*Function/*.json") if p.parent.name in FUNCTIONS) == (
        sorted(s.path for s in SAMPLES)
    )


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.path)
def test_committed_event_is_current(sample: Sample) -> None:
    assert (ROOT / sample.path).read_text(encoding="utf-8") == render(sample), "run: python -m scripts.sample_events"


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.path)
def test_event_gives_its_outcome(sample: Sample) -> None:
    event = json.loads((ROOT / sample.path).read_text(encoding="utf-8"))
    response = functions()[sample.function].load()(event, LocalContext(sample.function))
    assert response["statusCode"] == sample.status
    body = json.loads(response["body"])
    assert (body["error"]["code"] if sample.status != 200 else "ok") == sample.code
