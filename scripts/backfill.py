"""``make backfill``: the backfill state machine's work, driven from this machine.

Step Functions Local has no Distributed Map, so this does what the Map does, as the template and
the ASL say it: check the prefix (it must start with ``incoming/``), list the bucket under it
(``ListObjectsV2``), cut the listing into batches of the template's ``BackfillBatchKeys`` keys and
``BackfillBatchBytes`` bytes, and run ``BackfillFunction`` on each batch (in worker processes, as
Lambda instances, at most ``--concurrency`` at once), retrying a batch that fails as the ASL's
``Retry`` says; then print the counts per outcome. The S3 is ``make serve``'s, or whatever
``AWS_ENDPOINT_URL`` names (with the SDK's own credentials).
"""

import argparse
import json
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from scripts.s3_target import CHUNKS_FORMAT_TAG, S3Target
from scripts.template import ROOT, documents_bucket, functions, load_template, parameter_defaults

FUNCTION = "BackfillFunction"
STATE_MACHINE = "BackfillStateMachine"


@dataclass(frozen=True)
class Plan:
    """What the template and its ASL file set: the batches' sizes, the concurrency, the retries."""

    bucket: str
    batch_keys: int
    batch_bytes: int
    concurrency: int
    retries: list[dict[str, Any]]
    prefix_pattern: str

    @classmethod
    def from_template(cls) -> "Plan":
        template = load_template()
        defaults = parameter_defaults(template)
        definition = state_machine_definition(template)
        choice = definition["States"][definition["StartAt"]]
        (pattern,) = [rule["StringMatches"] for choice_rule in choice["Choices"] for rule in choice_rule.get("And", [])
                      if "StringMatches" in rule]  # fmt: skip
        map_state = next(state for state in definition["States"].values() if state["Type"] == "Map")
        (task,) = map_state["ItemProcessor"]["States"].values()
        return cls(documents_bucket(template), int(defaults["BackfillBatchKeys"]), int(defaults["BackfillBatchBytes"]),
                   int(defaults["BackfillMaxConcurrency"]), task["Retry"], pattern)  # fmt: skip


def state_machine_definition(template: dict[str, Any], values: dict[str, str] | None = None) -> dict[str, Any]:
    """The backfill's ASL with its ``DefinitionSubstitutions`` made (by default, each parameter's
    default, and a resource's logical id for a reference to it), as CloudFormation makes them."""
    properties = template["Resources"][STATE_MACHINE]["Properties"]
    text = (ROOT / properties["DefinitionUri"]).read_text(encoding="utf-8")
    defaults = parameter_defaults(template)
    for name, value in properties["DefinitionSubstitutions"].items():
        if values and name in values:
            resolved = values[name]
        elif "Ref" in value:
            resolved = defaults.get(value["Ref"], value["Ref"])
        else:
            resolved = str(value.get("Fn::GetAtt", value))
        text = text.replace("${" + name + "}", resolved)
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def listed(s3: Any, bucket: str, prefix: str) -> Iterator[dict[str, Any]]:
    """The objects under ``prefix`` as the Map's ItemReader hands them on: Key, Etag (quoted, as
    S3 lists it), Size, LastModified (epoch seconds) and StorageClass."""
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for item in page.get("Contents", []):
            modified = int(item["LastModified"].timestamp())
            yield {"Key": item["Key"], "Etag": item["ETag"], "Size": item["Size"], "LastModified": modified,
                   "StorageClass": item["StorageClass"]}  # fmt: skip


def batches(items: Iterator[dict[str, Any]], bucket: str, keys: int, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The Map's ItemBatcher: at most ``keys`` items and ``max_bytes`` bytes of JSON input a batch."""
    batch: list[dict[str, Any]] = []
    for item in items:
        candidate = {"Items": [*batch, item], "BatchInput": {"bucket": bucket}}
        if batch and (len(batch) == keys or len(json.dumps(candidate).encode()) > max_bytes):
            yield {"Items": batch, "BatchInput": {"bucket": bucket}}
            batch = []
        batch.append(item)
    if batch:
        yield {"Items": batch, "BatchInput": {"bucket": bucket}}


@dataclass
class Progress:
    started: float = field(default_factory=time.monotonic)
    outcomes: Counter[str] = field(default_factory=Counter)
    failed_batches: int = 0
    busy_seconds: float = 0.0
    """The sum of every batch's time in its function (for the share of time outside chunking)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def line(self) -> str:
        done = sum(self.outcomes.values())
        rate = done / max(time.monotonic() - self.started, 1e-9)
        counts = ", ".join(f"{code} {count}" for code, count in sorted(self.outcomes.items()))
        return f"{done} documents ({counts or 'none yet'}), {rate:.0f}/s"


def run(
    s3: Any, prefix: str, plan: Plan, concurrency: int, environment: dict[str, str], quiet: bool = False
) -> Progress:
    """The backfill of ``prefix``: every batch through ``BackfillFunction`` workers; returns the counts."""
    from scripts.local_functions import FunctionWorker, InvocationError  # noqa: PLC0415 (multiprocessing)

    spec = functions()[FUNCTION]
    workers = [FunctionWorker(spec, environment) for _ in range(concurrency)]
    free = list(workers)
    free_lock = threading.Lock()
    progress = Progress()
    retry = next(r for r in plan.retries if "TransientFailure" in r["ErrorEquals"])

    def invoke(batch: dict[str, Any]) -> None:
        with free_lock:
            worker = free.pop()
        try:
            for attempt in range(1 + retry["MaxAttempts"]):
                started = time.monotonic()
                try:
                    result = worker.invoke(batch)
                except InvocationError:
                    if attempt == retry["MaxAttempts"]:
                        with progress.lock:
                            progress.failed_batches += 1
                        return
                    time.sleep(0.2 * (attempt + 1))  # as many retries as the ASL's, but not its minutes of waiting
                    continue
                finally:
                    with progress.lock:
                        progress.busy_seconds += time.monotonic() - started
                with progress.lock:
                    progress.outcomes.update(result["outcomes"])
                return
        finally:
            with free_lock:
                free.append(worker)

    last_print = 0.0
    try:
        with ThreadPoolExecutor(concurrency) as pool:
            pending = [pool.submit(invoke, batch)
                       for batch in batches(listed(s3, plan.bucket, prefix), plan.bucket, plan.batch_keys,
                                            plan.batch_bytes)]  # fmt: skip
            for future in as_completed(pending):
                future.result()
                if not quiet and time.monotonic() - last_print > 1:
                    last_print = time.monotonic()
                    print(progress.line(), flush=True)
    finally:
        for worker in workers:
            worker.stop()
    return progress


def chunks_format_of(s3: Any, bucket: str, given: str | None) -> tuple[str, str]:
    """The ``ChunksFormat`` to write, and why: ``CHUNKS_FORMAT`` if the shell sets it, else the one
    ``make serve`` runs with (its bucket's tag), else the template's default. A backfill in another
    format than the event flow's would replace every output with the other format's."""
    if given:
        return given, "CHUNKS_FORMAT"
    try:
        tags = s3.get_bucket_tagging(Bucket=bucket)["TagSet"]
    except s3.exceptions.ClientError:  # no tags: not make serve's bucket
        tags = []
    served = [tag["Value"] for tag in tags if tag["Key"] == CHUNKS_FORMAT_TAG]
    if served:
        return served[0], "make serve's; CHUNKS_FORMAT= chooses"
    return functions()[FUNCTION].environment["CHUNKS_FORMAT"], "the template's default; CHUNKS_FORMAT= chooses"


def main() -> int:
    plan = Plan.from_template()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prefix", default="incoming/", help="where to start (default incoming/)")
    parser.add_argument("--concurrency", type=int, default=min(plan.concurrency, os.cpu_count() or 1),
                        help="batches at once (default: the template's, at most this machine's cores)")  # fmt: skip
    args = parser.parse_args()
    required = plan.prefix_pattern.removesuffix("*")  # the ASL's StringMatches: incoming/*
    if not args.prefix.startswith(required):
        parser.error(f"the prefix must start with {required}, as the state machine's input must")
    target = S3Target.from_environment()
    s3 = target.client()
    # The function's template environment, with what this shell sets of it (CHUNKS_FORMAT=jsonl, ...).
    chosen = {name: os.environ[name] for name in functions()[FUNCTION].environment if name in os.environ}
    chunks_format, why = chunks_format_of(s3, plan.bucket, chosen.get("CHUNKS_FORMAT"))
    environment = {**chosen, **target.environment, "CHUNKS_FORMAT": chunks_format,
                   "POWERTOOLS_LOG_LEVEL": os.environ.get("POWERTOOLS_LOG_LEVEL", "WARNING"),
                   "POWERTOOLS_METRICS_DISABLED": "true"}  # fmt: skip
    print(f"Backfill of s3://{plan.bucket}/{args.prefix} in ChunksFormat {chunks_format} ({why}) at "
          f"{environment['AWS_ENDPOINT_URL']}: batches of {plan.batch_keys} keys, {args.concurrency} at once",
          flush=True)  # fmt: skip
    progress = run(s3, args.prefix, plan, args.concurrency, environment)
    print(f"done: {progress.line()} in {time.monotonic() - progress.started:.1f} s; "
          f"{progress.failed_batches} batches failed after their retries")  # fmt: skip
    return 1 if progress.failed_batches else 0


if __name__ == "__main__":
    sys.exit(main())
