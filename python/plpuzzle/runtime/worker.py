"""Worker processes: where solvers run, so that they can be killed.

A solver may loop, exhaust memory, call halt/0 or print to stdout. None of
that may touch the caller, so every engine run goes to a child process
(`python -m plpuzzle.runtime.child`, see child.py) that speaks JSON lines
over a private pipe.
The parent enforces a limit of CPU time (the worker's own, read from
/proc while it waits) and a wall-clock deadline, and kills the child's
whole process group when either passes; a dead child is replaced on the
next request. Every engine's `time_limit` is CPU seconds, as grading
counts them, with the same wall-clock backstop (settings.wall_limit).

Requests (one JSON object per line):

- `{"op": "prolog", "solver", "dialect", "predicate", "goal", "template",
  "time_limit", "wall_limit"}` loads the solver (once per worker) and
  collects every answer of the goal through pyswip (plpuzzle.runtime.prolog),
  within time_limit CPU seconds and wall_limit seconds of wall clock;
- `{"op": "call", "function": "package.module:name", "kwargs": {...}}`
  calls a Python function of this package (or of a module the environment
  variable PLPUZZLE_WORKER_MODULES names) and returns its JSON result.

Each reply carries `cpu`, the CPU seconds the work took in the worker, and
`peak_rss_kb`, the worker's peak resident memory during the request.
Engines build requests with call_request/prolog_request and send them with
Worker.run, which turns a killed or dead worker into an Outcome too, whose
Status comes from plpuzzle.runtime.status like every other.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from plpuzzle.confined import ProcessLimits, child_setup
from plpuzzle.procstat import backstop, process_cpu_seconds, run_queue_seconds
from plpuzzle.runtime.status import DIED, KILLED, Status, status_of
from plpuzzle.settings import DEFAULTS

R = TypeVar("R")

#: The course's time limit per test, in seconds: the default of every
#: command and library call that runs a solver.
DEFAULT_TIME_LIMIT = DEFAULTS.time_limit

#: Extra seconds the parent waits beyond a limit that the worker enforces
#: itself (the Prolog bridge's CPU limit and backstop), before killing.
GRACE_SECONDS = 10.0

#: How often the parent looks at the worker's CPU time while it waits.
CPU_POLL_SECONDS = 0.1

#: CPU seconds a Python engine's request may take past its limit before
#: the worker is killed: its first request also imports the engine's
#: modules (OR-tools takes about half a second).
IMPORT_GRACE_SECONDS = 1.0

#: How much of a dead worker's stderr to keep as evidence.
STDERR_TAIL_BYTES = 4000


class EngineUnavailable(Exception):
    """The engine cannot run on this machine (e.g. SWI-Prolog is missing)."""


class WorkerError(Exception):
    """The worker did not answer: it was killed or it died."""

    def __init__(self, message: str, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.stderr_tail = stderr_tail


class WorkerTimeout(WorkerError):
    """A limit (CPU time or the wall-clock deadline) passed and the worker
    was killed; the message says which."""


class WorkerCrashed(WorkerError):
    """The worker exited (or closed its pipe) in the middle of a request."""


@dataclass(frozen=True)
class Outcome:
    """How one request ended, answered or not, for an engine to read.

    `end` is the reply's own status, or KILLED or DIED when no reply came
    (then `cpu` is 0, `reply` empty and `message` the error with the
    worker's last stderr, which is all the evidence there is); `status`
    is what `end` means, the same for every puzzle.
    """

    end: str
    cpu: float
    wall: float
    message: str
    reply: dict[str, Any]

    @property
    def status(self) -> Status:
        """How the request ended, as every engine reports it."""
        return status_of(self.end)

    @property
    def answers(self) -> list[tuple[bool, str]]:
        """A Prolog request's answers (none when it gave none)."""
        return self.reply.get("answers", [])

    @property
    def result(self) -> Any:
        """A call request's result."""
        return self.reply.get("result")

    def unfinished(
        self,
        make: Callable[..., R],
        engine: str,
        status: Status | None = None,
        message: str | None = None,
    ) -> R:
        """The result `make` (a puzzle's result class) for a run that gave
        no answer: how it ended, what it cost and why, for every puzzle alike."""
        return make(
            engine,
            self.status if status is None else status,
            cpu_seconds=self.cpu,
            wall_seconds=self.wall,
            message=self.message if message is None else message,
        )


def call_request(function: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """A request to call `function` ("plpuzzle.module:name") in the worker."""
    return {"op": "call", "function": function, "kwargs": kwargs}


def prolog_request(
    solver: Path,
    predicate: str,
    goal: str,
    template: str,
    time_limit: float,
    dialect: str = "swi",
    progress: Path | None = None,
) -> dict[str, Any]:
    """A request for every answer of `goal` from the Prolog file `solver`,
    within `time_limit` CPU seconds and the wall-clock backstop that goes
    with it; `progress` is a file to keep the count of answers found so
    far in."""
    return {
        "op": "prolog",
        "solver": str(solver),
        "dialect": dialect,
        "predicate": predicate,
        "goal": goal,
        "template": template,
        "time_limit": time_limit,
        "wall_limit": DEFAULTS.wall_limit(time_limit),
        "progress": str(progress) if progress else "",
    }


def load_request(solver: Path, predicate: str, dialect: str = "swi") -> dict[str, Any]:
    """A request to load the Prolog file `solver` and report what loading
    raised (errors, warnings) and whether it defines `predicate`."""
    return {"op": "load", "solver": str(solver), "dialect": dialect, "predicate": predicate}


#: A worker's limits (the kernel's, see plpuzzle.confined): 4 GB of
#: address space, files of 256 MB.
WORKER_LIMITS = ProcessLimits(memory_mb=4096, file_size_mb=256)


class Worker:
    """A worker process, started on first use and restarted after a death.

    With `show_stderr` the solver's own output (stdout and stderr) reaches
    our stderr, which suits a user running their own solver; otherwise it
    is kept in a temporary file whose tail becomes evidence on a crash.
    """

    def __init__(
        self,
        limits: ProcessLimits | None = None,
        show_stderr: bool = False,
        env: dict[str, str] | None = None,
    ) -> None:
        self.limits = limits or WORKER_LIMITS
        self.show_stderr = show_stderr
        self.extra_env = env or {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        #: The last reply's peak memory (KiB); None when it gave none.
        self.peak_rss_kb: int | None = None

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> subprocess.Popen[bytes]:
        # Kept open across requests (evidence for a crash); close() closes it.
        self._stderr = None if self.show_stderr else tempfile.TemporaryFile()  # noqa: SIM115
        path = os.pathsep.join(filter(None, [_package_root(), os.environ.get("PYTHONPATH")]))
        argv = [sys.executable, "-m", "plpuzzle.runtime.child"]
        env = {**os.environ, "PYTHONPATH": path, **self.extra_env}
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            start_new_session=True,
            # Limits, and death with us: the kernel kills the worker when the
            # thread that started it ends, so even a parent killed with
            # SIGKILL leaves no worker behind (workers are therefore closed
            # before their starting thread ends).
            preexec_fn=child_setup(self.limits),
            env=env,
        )
        return self._proc

    def request(
        self,
        message: dict[str, Any],
        deadline_seconds: float,
        cpu_seconds: float | None = None,
        grace: float = 0.0,
    ) -> dict[str, Any]:
        """Send one request and wait for its reply, at most the deadline of
        wall-clock time and, when given, `cpu_seconds` of the worker's CPU,
        each with `grace` seconds more (for a worker that enforces the
        limits itself, and says so in its reply)."""
        proc = self._proc if self._proc and self._proc.poll() is None else self._start()
        assert proc.stdin and proc.stdout
        cpu0 = process_cpu_seconds(proc.pid)
        waited0 = run_queue_seconds([proc.pid]).get(proc.pid, 0.0)
        try:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()
        except BrokenPipeError:
            self._fail(WorkerCrashed, "the worker exited before taking the request")
        self.peak_rss_kb = None
        limits = _Limits(deadline_seconds, cpu_seconds, grace)
        line = self._read_line(proc, time.monotonic(), (cpu0, waited0), limits)
        reply = json.loads(line)
        self.peak_rss_kb = reply.get("peak_rss_kb")
        return reply

    def run(
        self,
        message: dict[str, Any],
        deadline_seconds: float,
        cpu_seconds: float | None = None,
        grace: float = 0.0,
    ) -> Outcome:
        """Send one request and say how it ended, within the wall-clock
        deadline and, when given, `cpu_seconds` of the worker's CPU time
        (each with `grace` more, see request).

        A killed or dead worker is an outcome, not an exception, since
        every engine reports it as a result; a missing SWI-Prolog is not
        the solver's fault, so it raises EngineUnavailable.
        """
        start = time.monotonic()
        try:
            reply = self.request(message, deadline_seconds, cpu_seconds, grace)
        except WorkerError as e:
            end = KILLED if isinstance(e, WorkerTimeout) else DIED
            text = f"{e}\n{e.stderr_tail}".strip()
            return Outcome(end, 0.0, time.monotonic() - start, text, {})
        wall = time.monotonic() - start
        if reply["status"] == "unavailable":
            raise EngineUnavailable(reply["message"])
        return Outcome(reply["status"], reply["cpu"], wall, reply.get("message") or "", reply)

    def _read_line(
        self,
        proc: subprocess.Popen[bytes],
        start: float,
        marks: tuple[float, float],
        limits: _Limits,
    ) -> bytes:
        """The reply's line, within the limits: the CPU time used and the
        time waited for a core are counted from `marks`, their values when
        the request was sent (the backstop moves out by that wait)."""
        cpu0, waited0 = marks
        assert proc.stdout
        fd = proc.stdout.fileno()
        chunks: list[bytes] = []
        while True:
            remaining = start + limits.wall + limits.grace - time.monotonic()
            if remaining <= 0:
                waited = run_queue_seconds([proc.pid]).get(proc.pid, waited0) - waited0
                remaining = start + backstop(limits.wall, waited) + limits.grace - time.monotonic()
            if remaining <= 0:
                self._fail(WorkerTimeout, limits.words("wall-clock backstop", limits.wall))
            if limits.cpu is not None:
                if process_cpu_seconds(proc.pid) - cpu0 > limits.cpu + limits.grace:
                    self._fail(WorkerTimeout, limits.words("CPU-time limit", limits.cpu))
                remaining = min(remaining, CPU_POLL_SECONDS)
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                proc.wait()
                self._fail(WorkerCrashed, _exit_text(proc.returncode))
            chunks.append(chunk)
            if chunk.endswith(b"\n"):
                return b"".join(chunks)

    def _fail(self, kind: type[WorkerError], message: str) -> None:
        tail = self.stderr_tail()
        self.close()
        raise kind(message, tail)

    def stderr_tail(self) -> str:
        """The last part of what the worker wrote to stderr (if kept)."""
        if self._stderr is None:
            return ""
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - STDERR_TAIL_BYTES))
        return self._stderr.read().decode("utf-8", errors="replace")

    def close(self) -> None:
        """Kill the worker and everything it started."""
        if self._proc is not None:
            if self._proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self._proc.pid, signal.SIGKILL)
            self._proc.wait()
            for pipe in (self._proc.stdin, self._proc.stdout):
                if pipe:
                    pipe.close()
            self._proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


@dataclass(frozen=True)
class _Limits:
    """A request's limits: wall-clock and CPU seconds, and the grace
    after them before the worker is killed."""

    wall: float
    cpu: float | None
    grace: float

    def words(self, which: str, limit: float) -> str:
        return f"stopped at the {which} of {limit:g} s: the worker was killed"


def _package_root() -> str:
    """The folder holding the plpuzzle package, for the child's sys.path."""
    import plpuzzle

    return str(Path(plpuzzle.__file__).resolve().parent.parent)


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the worker was killed by {name}"
    return f"the worker exited with status {code} (did the solver call halt/0?)"
