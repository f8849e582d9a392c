"""Each function of the template in a process of its own, as separate Lambdas would be.

A worker imports its handler once (its cold start), keeps its module state between invocations
(warm starts), runs one invocation at a time like one Lambda instance, and shares nothing with
the other functions: not Powertools' class-level state, not a module, not an environment variable.
"""

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Mapping
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from typing import Any

from scripts.lambda_events import LocalContext
from scripts.template import ROOT, FunctionSpec

LAYER = ROOT / "src" / "core"
"""The layer's source stands in for /opt/python (``make build`` and the packaging test use the built one)."""


class InvocationError(Exception):
    """The handler raised: Lambda would report a function error (and retry an asynchronous event)."""


def _serve(spec: FunctionSpec, environment: Mapping[str, str], connection: Connection) -> None:
    os.environ.update(environment)
    sys.path[:0] = [str(spec.code_uri), str(LAYER)]
    handler = spec.load()
    with contextlib.suppress(EOFError):  # the parent was killed: there is no one left to answer
        while (event := connection.recv()) is not None:
            try:
                connection.send(("ok", handler(event, LocalContext(spec.logical_id))))
            except Exception as error:
                connection.send(("error", type(error).__name__))


class FunctionWorker:
    def __init__(self, spec: FunctionSpec, environment: Mapping[str, str] | None = None) -> None:
        self.spec = spec
        self.environment = {**spec.environment, **(environment or {})}
        self._lock = threading.Lock()
        self._start()

    def _start(self) -> None:
        """A new process for the function, which imports its handler: a cold start."""
        context = multiprocessing.get_context("spawn")
        self._connection, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(self.spec, self.environment, child), daemon=True, name=self.spec.logical_id
        )
        # Ctrl-C reaches the whole process group, and the parent stops its workers itself. A worker
        # is born with SIGINT blocked, as multiprocessing starts its own resource tracker (a blocked
        # signal stays blocked through fork and exec), so not even its start-up, before any code of
        # ours runs, ends in a KeyboardInterrupt. The tracker goes first: starting it unblocks SIGINT.
        resource_tracker.ensure_running()
        unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self._process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)

    def invoke(self, event: dict[str, Any]) -> Any:
        """The handler's answer. As on Lambda, a process that has ended is replaced before the next
        invocation, and one that ends during an invocation fails that invocation only."""
        with self._lock:
            if not self._process.is_alive():
                self._start()
            try:
                self._connection.send(event)
                status, result = self._connection.recv()
            except (EOFError, OSError):  # the pipe is broken: whatever is left of the process goes
                self._process.kill()
                self._process.join()
                raise InvocationError(f"{self.spec.logical_id} exited") from None
        if status == "error":
            raise InvocationError(f"{self.spec.logical_id} raised {result}")
        return result

    def stop(self) -> None:
        try:
            with self._lock:
                self._connection.send(None)
        except (BrokenPipeError, OSError):
            pass
        self._process.join(timeout=5)
        if self._process.is_alive():
            self._process.kill()
