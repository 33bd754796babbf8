"""What a Dask worker does for plpuzzle: sandboxed runs of shipped programs.

A worker gets a submission as content (its files, addressed by their
digest), writes it once into a run folder of its own, loads it once in a
sandbox (plpuzzle.sandbox) and keeps it loaded for the next run of the
same submission, exactly as a job slot of the local pool does. It sends
back only what it observed of each run: the verdict is decided by the
client, which alone holds the expected solutions.

A worker takes plpuzzle's runs only once SandboxGate (gate.py) has found that it
can sandbox them: the gate gives it the resource RESOURCE, and every run
asks for one unit of it, so a worker without bubblewrap, control groups
or SWI-Prolog (or with another plpuzzle version) is never handed a run.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from plpuzzle import __version__
from plpuzzle.sandbox import cgroups, jail
from plpuzzle.sandbox.program import LoadReport, Observation, SandboxedProgram, SandboxSetupError
from plpuzzle.sandbox.workspace import RunFolder, SubmissionFiles

if TYPE_CHECKING:
    from distributed import Scheduler

logger = logging.getLogger(__name__)

#: The worker resource that admits plpuzzle's runs, per version: a worker
#: with another plpuzzle would load another loader and grade differently.
RESOURCE = "plpuzzle-sandbox-" + __version__

#: Sandbox slots (hence uids) of workers start here, above most local
#: pools', and are claimed machine-wide like theirs (jail.claim_slot):
#: several worker processes and graders share a machine.
SLOT_BASE = 1000

#: A loaded program left idle this long is closed (its client may be gone).
IDLE_SECONDS = 60.0


@dataclass(frozen=True)
class RunSpec:
    """How a client's runs are made: the same for every run of one grading."""

    #: The client's grading run: aborting or releasing goes by it.
    run_id: str
    solver: str
    predicate: str
    dialect: str
    limits: jail.Limits


@dataclass
class RemoteRun:
    """What a worker saw of one run, and where it ran."""

    ran_on: str
    #: The submission's load report (None when nothing was started).
    load: LoadReport | None = None
    observation: Observation | None = None
    #: The client's grading was aborted before this run started.
    stopped: bool = False
    #: bubblewrap failed to build the sandbox: the worker's fault.
    setup_error: str = ""


@functools.cache
def probe_sandbox() -> str | None:
    """Why this machine cannot run a submission in plpuzzle's sandbox, or None."""
    if shutil.which("swipl") is None:
        return "SWI-Prolog (swipl) is not installed (Debian package swi-prolog-nox)"
    if jail.bubblewrap(jail.sandbox_uid(SLOT_BASE)) is None:
        return (
            "bubblewrap cannot build a sandbox (install the Debian package bubblewrap; "
            "user namespaces must be allowed)"
        )
    if cgroups.layout() is None:
        return (
            "no writable control groups, so CPU time and memory cannot be counted over a "
            "submission's whole process tree (run the worker as root)"
        )
    return None


def where() -> str:
    """This worker, in words: its machine and its Dask address."""
    try:
        from distributed import get_worker

        return f"{socket.gethostname()} (dask worker {get_worker().address})"
    except (ImportError, ValueError):
        return socket.gethostname()


@dataclass
class _Loaded:
    program: SandboxedProgram
    slot_fd: int
    run_id: str
    report: LoadReport | None = None
    used: float = 0.0
    #: The Dask task using it now ("" when idle).
    task: str = ""


class _WorkerState:
    """The sandboxes, files and loads of this worker process."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.run_folder: RunFolder | None = None
        self.idle: dict[tuple[str, str], list[_Loaded]] = {}
        self.busy: list[_Loaded] = []
        self.failed: dict[tuple[str, str], LoadReport] = {}
        self.stopped: set[str] = set()
        #: Tasks cancelled while they ran (their keys name their grading run).
        self.cancelled: set[str] = set()
        self.reaper: threading.Thread | None = None

    def folder(self) -> RunFolder:
        with self.lock:
            if self.run_folder is None:
                self.run_folder = RunFolder()
            return self.run_folder

    def take(self, key: tuple[str, str], task: str) -> _Loaded | None:
        with self.lock:
            while self.idle.get(key):
                loaded = self.idle[key].pop()
                if loaded.program.alive:
                    loaded.task = task
                    self.busy.append(loaded)
                    return loaded
                _close(loaded)
            return None

    def load(self, spec: RunSpec, digest: str, files: SubmissionFiles, task: str) -> _Loaded:
        slot, fd = _claim_slot()
        # The submission names its file to load (files.main); spec.solver
        # is what a submission without that choice loads.
        program = SandboxedProgram(
            self.folder(), files, files.main or spec.solver, spec.predicate,
            spec.dialect, spec.limits, slot, jail.own_paths(),
        )  # fmt: skip
        loaded = _Loaded(program, fd, spec.run_id, task=task)
        with self.lock:
            self.busy.append(loaded)
        try:
            loaded.report = program.load()
        except BaseException:
            self.give_back((spec.run_id, digest), loaded, keep=False)
            raise
        return loaded

    def give_back(self, key: tuple[str, str], loaded: _Loaded, keep: bool = True) -> None:
        with self.lock:
            if loaded in self.busy:
                self.busy.remove(loaded)
            loaded.task = ""
            keep = keep and loaded.program.alive and key[0] not in self.stopped
            if keep:
                loaded.used = time.monotonic()
                self.idle.setdefault(key, []).append(loaded)
                self._start_reaper()
        if not keep:
            _close(loaded)

    def _start_reaper(self) -> None:
        if self.reaper is None:
            self.reaper = threading.Thread(target=self._reap, name="plpuzzle-reaper", daemon=True)
            self.reaper.start()

    def _reap(self) -> None:
        """Close loaded programs nobody used for IDLE_SECONDS."""
        while True:
            time.sleep(IDLE_SECONDS / 4)
            self._close_idle(lambda loaded: time.monotonic() - loaded.used > IDLE_SECONDS)

    def _close_idle(self, which: Callable[[_Loaded], bool]) -> int:
        with self.lock:
            doomed = [x for group in self.idle.values() for x in group if which(x)]
            for group in self.idle.values():
                group[:] = [x for x in group if x not in doomed]
        for loaded in doomed:
            _close(loaded)
        return len(doomed)

    def abort(self, run_id: str) -> int:
        """Stop a client's runs: none starts any more, the running ones are killed."""
        with self.lock:
            self.stopped.add(run_id)
            running = [x for x in self.busy if x.run_id == run_id]
        for loaded in running:
            loaded.program.abort()
        return len(running) + self.release(run_id)

    def wanted(self, run_id: str, task: str) -> bool:
        """Whether a run may still start: neither its grading nor its task stopped."""
        with self.lock:
            return run_id not in self.stopped and task not in self.cancelled

    def abort_task(self, task: str) -> None:
        with self.lock:
            self.cancelled.add(task)
            running = [x for x in self.busy if x.task == task]
        for loaded in running:
            loaded.program.abort()

    def release(self, run_id: str) -> int:
        """A client's grading is over: close its loaded programs."""
        with self.lock:
            for key in [k for k in self.failed if k[0] == run_id]:
                del self.failed[key]
            self.cancelled = {t for t in self.cancelled if run_id not in t}
        return self._close_idle(lambda loaded: loaded.run_id == run_id)

    def close_all(self) -> None:
        with self.lock:
            running = list(self.busy)
        for loaded in running:
            loaded.program.abort()
        self._close_idle(lambda loaded: True)
        with self.lock:
            folder, self.run_folder = self.run_folder, None
        if folder is not None:
            folder.close()

    def sandboxes(self) -> int:
        with self.lock:
            return len(self.busy) + sum(
                1 for group in self.idle.values() for x in group if x.program.alive
            )


def _close(loaded: _Loaded) -> None:
    loaded.program.close()
    with contextlib.suppress(OSError):
        os.close(loaded.slot_fd)


def _claim_slot() -> tuple[int, int]:
    """A sandbox slot no other process on this machine holds (jail.take_slot)."""
    try:
        return jail.take_slot(SLOT_BASE)
    except jail.SlotsExhausted as e:
        raise SandboxSetupError(str(e)) from None


_state = _WorkerState()


def run_goal(
    spec: RunSpec, digest: str, files: SubmissionFiles, goals: dict[str, str], test: str,
    template: str, max_answers: int | None = None,
) -> RemoteRun:  # fmt: skip
    """Run `goals[test]` on the submission, loaded (once) in a sandbox here;
    past `max_answers` answers the run is stopped (see SandboxedProgram.run)."""
    place = where()
    key = (spec.run_id, digest)
    if spec.run_id in _state.stopped:
        return RemoteRun(place, stopped=True)
    if key in _state.failed:
        return RemoteRun(place, load=_state.failed[key])
    task = _current_task()
    loaded = _state.take(key, task)
    try:
        if loaded is None:
            loaded = _state.load(spec, digest, files, task)
            assert loaded.report is not None
            if not _state.wanted(spec.run_id, task):  # stopped while loading
                return RemoteRun(place, stopped=True)
            if not loaded.report.loaded:
                with _state.lock:
                    _state.failed[key] = loaded.report
                return RemoteRun(place, load=loaded.report)
        # Registered as busy before this check: a stop from now on kills it.
        if not _state.wanted(spec.run_id, task):
            return RemoteRun(place, stopped=True)
        observation = loaded.program.run(goals[test], template, max_answers)
    except SandboxSetupError as e:
        return RemoteRun(place, setup_error=str(e))
    finally:
        if loaded is not None:
            _state.give_back(key, loaded)
    if not _state.wanted(spec.run_id, task):
        return RemoteRun(place, stopped=True)
    return RemoteRun(place, load=loaded.report, observation=observation)


def _current_task() -> str:
    """The key of the Dask task this thread runs ("" outside a worker)."""
    try:
        from distributed import get_worker

        return str(get_worker().get_current_task())
    except (ImportError, ValueError):
        return ""


def abort_run(run_id: str) -> int:
    """For client.run on Ctrl-C: how many sandboxes of the run were stopped."""
    return _state.abort(run_id)


def release_run(run_id: str) -> int:
    """For client.run at the end: how many loaded programs were closed."""
    return _state.release(run_id)


def sandboxes() -> int:
    """How many sandboxes this worker process holds now (for checks)."""
    return _state.sandboxes()


def running() -> int:
    """How many runs this worker process is making now (for checks)."""
    with _state.lock:
        return len(_state.busy)


def worker_status() -> dict[str, str | None]:
    """For client.run: this worker's plpuzzle version, and why it cannot sandbox."""
    return {"version": __version__, "problem": probe_sandbox(), "host": socket.gethostname()}


def allowed_failures(dask_scheduler: Scheduler) -> int:
    """For client.run_on_scheduler: how often a run that kills its worker is retried."""
    return int(dask_scheduler.allowed_failures)


def forget_task(key: str) -> None:
    """A run nobody wants any more (its client cancelled it or went away)
    keeps its thread until it ends: end it now, by killing its sandbox."""
    _state.abort_task(key)


def close_everything() -> None:
    """Close every sandbox this worker holds (the worker is going away)."""
    _state.close_all()
