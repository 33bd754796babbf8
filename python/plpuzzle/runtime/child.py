"""The worker process's side: `python -m plpuzzle.runtime.child`.

Reads one JSON request a line from stdin and writes one JSON reply a line
(see worker.py for the protocol). Kept apart from worker.py so that the
child runs a module nothing else imports, and the parent's side never
carries code that only a child may run.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import resource
import sys
import time
import traceback
from dataclasses import astuple
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plpuzzle.runtime.prolog import PrologEngine

#: Names further modules (comma-separated) whose functions a call request
#: may run besides this package's: the tests' own hooks, for instance.
EXTRA_MODULES_VARIABLE = "PLPUZZLE_WORKER_MODULES"


def callable_module(module_name: str) -> bool:
    """Whether a call request may run a function of `module_name`: only
    this package's, and those of modules the environment names."""
    extra = [m for m in os.environ.get(EXTRA_MODULES_VARIABLE, "").split(",") if m]
    return any(module_name == m or module_name.startswith(f"{m}.") for m in ("plpuzzle", *extra))


def _handle(request: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    if request["op"] in ("prolog", "load"):
        from plpuzzle.runtime.prolog import PrologUnavailable, SolverLoadError

        try:
            engine = state.get("engine") or state.setdefault("engine", _engine())
        except PrologUnavailable as e:
            return {"status": "unavailable", "message": str(e), "cpu": 0.0}
        start = time.process_time()
        try:
            module = engine.load_solver(
                Path(request["solver"]), request["predicate"], request["dialect"]
            )
        except SolverLoadError as e:
            return {
                "status": "load_error",
                "message": str(e),
                "cpu": time.process_time() - start,
                "problems": [astuple(p) for p in e.problems],
            }
        if request["op"] == "load":
            problems = engine.problems.get(module, [])
            return {
                "status": "ok",
                "cpu": time.process_time() - start,
                "problems": [astuple(p) for p in problems],
            }
        got = engine.collect(
            module,
            request["goal"],
            request["template"],
            request["time_limit"],
            request.get("progress", ""),
            request.get("wall_limit"),
        )
        return {
            "status": got.status,
            "cpu": got.cpu_seconds,
            "answers": got.answers,
            "message": got.message,
        }
    if request["op"] == "call":
        module_name, _, name = request["function"].partition(":")
        if not callable_module(module_name):
            raise ValueError(f"not a plpuzzle function: {request['function']}")
        function = getattr(importlib.import_module(module_name), name)
        start = time.process_time()
        result = function(**request.get("kwargs", {}))
        return {"status": "ok", "cpu": time.process_time() - start, "result": result}
    raise ValueError(f"unknown request {request['op']!r}")


def _engine() -> PrologEngine:
    """The worker's Prolog: a solver's halt ends the worker at once."""
    from plpuzzle.runtime.prolog import PrologEngine

    engine = PrologEngine()
    engine.exit_promptly_on_halt()
    return engine


def _reset_peak_rss() -> None:
    """Start the next request's peak-memory count at the current size.

    A worker serves many requests, and getrusage's ru_maxrss never goes
    down (it even counts the parent's memory copied by fork), so Linux's
    resettable high-water mark is used instead; elsewhere this does nothing.
    """
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _peak_rss_kb() -> int:
    """Peak resident memory (KiB) since the last reset, or since the start."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def serve() -> None:
    """Answer requests from stdin until it closes.

    The protocol gets a private copy of stdout; the real stdout (file
    descriptor 1, which Prolog writes to) is pointed at stderr, so nothing
    a solver prints can corrupt a reply.
    """
    reply_to = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    state: dict[str, Any] = {}
    for line in sys.stdin:
        _reset_peak_rss()
        try:
            reply = _handle(json.loads(line), state)
        except Exception as e:  # reported to the parent, never silent
            reply = {
                "status": "internal_error",
                "cpu": 0.0,
                "message": "".join(traceback.format_exception(e)),
            }
        reply["peak_rss_kb"] = _peak_rss_kb()
        reply_to.write(json.dumps(reply) + "\n")
        reply_to.flush()


if __name__ == "__main__":
    serve()
