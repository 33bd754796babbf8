"""A submission loaded once in a sandbox, run once per test, judged from outside.

`SandboxedProgram` starts SWI-Prolog in a sandbox (jail) on the loader
prolog/sandbox_loader.pl, which loads the submission and then forks a
fresh child from the loaded state for every test. Loading once and
forking per test keeps the tests independent at a few milliseconds each.

Nothing the sandbox says is believed beyond what it can only say about
itself. The parent decides everything else from what it observes:

- CPU time and peak memory of the whole process tree, from the
  sandbox's control group, read before and after each run;
- the end of a run: the CPU limit, the wall-clock backstop, the memory
  limit (the kernel's out-of-memory count), or the sandbox ending;
- the replies, read from a pipe under a hard cap per run and per line,
  through a strict grammar (see the loader); anything else ends the run
  as BROKEN_REPLY and the sandbox is thrown away.

So a submission that writes into the reply pipe, forges replies, floods
it, or kills its loader can only spoil its own runs.

Without control groups (a grader that is not root) the same figures come
from the sandbox's process tree in /proc (proctree), sampled as the run
goes on, and the memory limit is per process (address space).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import subprocess
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO

from plpuzzle.engine import prolog_file
from plpuzzle.sandbox import cgroups, jail
from plpuzzle.sandbox.proctree import ProcessTree
from plpuzzle.sandbox.workspace import RunFolder

#: The files the loader needs inside the sandbox, and nothing else of ours:
#: the loader, and the SICStus layer (a file and its folder of libraries).
LOADER_FILES = ("sandbox_loader.pl", "sicstus_compat.pl", "sicstus")

#: How often the parent looks at the CPU count while a run goes on.
POLL_SECONDS = 0.05

#: How much of what a run printed is kept as evidence.
OUTPUT_TAIL_BYTES = 4000


class RunEnd(StrEnum):
    """How one run ended, as the parent saw it."""

    FINISHED = "finished"  # `end`: every answer given
    RAISED = "raised"  # `x`: an exception ended it
    VANISHED = "vanished"  # its process ended without either (halt/0, a signal)
    CPU_LIMIT = "cpu limit"
    WALL_LIMIT = "wall limit"
    MEMORY_LIMIT = "memory limit"
    TOO_MUCH_REPLY = "too much reply"
    BROKEN_REPLY = "broken reply"  # bytes outside the reply grammar
    SANDBOX_DIED = "sandbox died"  # the loader itself ended in mid-run


@dataclass
class Observation:
    """What the parent saw of one run (or of the load)."""

    end: RunEnd
    answers: list[tuple[bool, str]] = field(default_factory=list)
    exception: str = ""
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    memory_mb: float = 0.0
    #: The tail of what the program printed during the run.
    output: str = ""
    #: What the parent saw, in words, for the report.
    detail: str = ""


@dataclass
class LoadReport:
    """Whether the submission loaded, and the messages printed meanwhile."""

    loaded: bool
    messages: list[str]
    reason: str
    observation: Observation


class SandboxSetupError(Exception):
    """bubblewrap could not build the sandbox: the machine's fault, not the submission's."""


class ReplyError(Exception):
    """The sandbox's replies broke the grammar or the size bounds."""

    def __init__(self, end: RunEnd, detail: str) -> None:
        super().__init__(detail)
        self.end = end


class ReplyReader:
    """Splits reply bytes into (tag, text) lines, within hard bounds.

    Bytes are buffered only up to one line's bound, and a run's replies
    only up to the total bound; past either, or on a tag not in `allowed`,
    ReplyError is raised at once.
    """

    def __init__(self, allowed: frozenset[str], max_bytes: int, max_line: int) -> None:
        self.allowed = allowed
        self.max_bytes = max_bytes
        self.max_line = max_line
        self.seen = 0
        self._partial = b""

    def pending(self) -> bool:
        """Whether bytes of an unfinished line are waiting."""
        return bool(self._partial)

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        self.seen += len(chunk)
        if self.seen > self.max_bytes:
            raise ReplyError(
                RunEnd.TOO_MUCH_REPLY, f"more than {self.max_bytes >> 20} MB of replies"
            )
        *lines, self._partial = (self._partial + chunk).split(b"\n")
        if len(self._partial) > self.max_line:
            raise ReplyError(
                RunEnd.TOO_MUCH_REPLY, f"a reply line longer than {self.max_line} bytes"
            )
        out = []
        for raw in lines:
            if len(raw) > self.max_line:
                raise ReplyError(
                    RunEnd.TOO_MUCH_REPLY, f"a reply line longer than {self.max_line} bytes"
                )
            text = raw.decode("utf-8", errors="replace")
            tag, _, rest = text.partition(" ")
            if tag not in self.allowed:
                raise ReplyError(RunEnd.BROKEN_REPLY, f"an unexpected reply line {text[:120]!r}")
            out.append((tag, rest))
        return out


_LOAD_TAGS = frozenset({"msg", "ready", "noload"})
_RUN_TAGS = frozenset({"a", "n", "x", "end", "done"})


def as_submitted(text: str) -> str:
    """Names inside the sandbox as the student wrote them: `sudoku.pl:7`,
    not `/submission/sudoku.pl:7`, and `foo/1`, not `submission:foo/1`
    (the module the loader puts the file in)."""
    return text.replace(f"{jail.SUBMISSION_MOUNT}/", "").replace("submission:", "")


def loader_folder(run: RunFolder) -> Path:
    """The run's copy of the loader files, shared read-only by its sandboxes."""
    folder = run.path / "loader"
    if not folder.is_dir():
        staging = run.folder(f"loader-{os.getpid()}-{time.monotonic_ns()}")
        for name in LOADER_FILES:
            source = prolog_file(name)
            if source.is_dir():
                for path in sorted(source.glob("*.pl")):
                    (staging / name).mkdir(mode=0o755, exist_ok=True)
                    (staging / name / path.name).write_bytes(path.read_bytes())
                    (staging / name / path.name).chmod(0o644)
            elif source.is_file():
                (staging / name).write_bytes(source.read_bytes())
                (staging / name).chmod(0o644)
        with contextlib.suppress(OSError):  # another thread may have won the race
            staging.rename(folder)
    return folder


class SandboxedProgram:
    """One sandbox with one submission loaded in it.

    `load()` first; then `run()` for each test while `alive`. A run that
    ends at a limit, breaks the reply grammar or kills the loader takes
    the sandbox with it: make a new one for the next test.
    """

    def __init__(
        self,
        run: RunFolder,
        files: Path,
        solver: str,
        predicate: str,
        dialect: str,
        limits: jail.Limits,
        slot: int = 0,
        hidden: list[Path] | None = None,
    ) -> None:
        self.run_folder = run
        self.files = files
        self.solver = solver
        self.predicate = predicate
        self.dialect = dialect
        self.limits = limits
        self.uid = jail.sandbox_uid(slot)
        self.hidden = hidden or []
        self.group: cgroups.Group | None = None
        #: What measures the sandbox: its control group, or its process tree.
        self.meter: cgroups.Group | ProcessTree | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: BinaryIO | None = None
        #: How many processes the sandbox holds once loaded, between runs.
        self._baseline = 0
        self.problems: list[str] = []

    # -- starting and stopping ------------------------------------------------

    def _start(self) -> subprocess.Popen[bytes]:
        stack_mb = max(32, self.limits.memory_mb * 3 // 4)
        argv = [
            "swipl", "-q", "-f", "none", "--no-packs",
            "-g", "sandbox_loader:main", "-t", "halt",
            f"{jail.LOADER_MOUNT}/sandbox_loader.pl", "--",
            f"{jail.SUBMISSION_MOUNT}/{self.solver}", self.dialect, str(stack_mb), self.predicate,
        ]  # fmt: skip
        wrapped = jail.command(
            argv, self.files, loader_folder(self.run_folder), self.hidden, self.uid
        )
        self.group = cgroups.make_group(
            self.run_folder.run_id, self.limits.memory_mb, self.limits.max_processes
        )
        log_path = self.run_folder.path / f"output-{os.getpid()}-{time.monotonic_ns()}"
        self._log = open(log_path, "a+b")  # noqa: SIM115 (closed in close())
        log_path.unlink()  # the open file is all we need
        group, limits, uid = self.group, self.limits, self.uid
        self._proc = subprocess.Popen(
            wrapped,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            start_new_session=True,
            preexec_fn=lambda: jail.child_setup(limits, group, uid),
            env={"PATH": "/usr/bin:/bin"},  # bwrap's own environment is readable inside
        )
        self.meter = self.group or ProcessTree(self._proc.pid)
        return self._proc

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    def close(self) -> None:
        """Kill everything in the sandbox, reap it, remove its group."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if self.meter is not None:
                self.meter.kill_all()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            self._reap(proc)
            for pipe in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError):
                    if pipe:
                        pipe.close()
        if self.group is not None:
            problem = self.group.remove()
            if problem:
                self.problems.append(f"control group {self.group.name}: {problem}")
            self.group = None
        self.meter = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def abort(self) -> None:
        """Kill the sandbox's processes from another thread (on Ctrl-C):
        the thread running it sees the sandbox end, and closes it."""
        proc = self._proc
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, 9)

    def _reap(self, proc: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)

    def __enter__(self) -> SandboxedProgram:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the protocol ---------------------------------------------------------

    def load(self) -> LoadReport:
        """Start the sandbox and load the submission."""
        proc = self._start()
        reader = ReplyReader(_LOAD_TAGS, self.limits.reply_mb << 20, self.limits.line_kb << 10)
        messages: list[str] = []
        outcome: list[tuple[str, str]] = []

        def take(tag: str, text: str) -> bool:
            if tag == "msg":
                messages.append(as_submitted(text))
                return False
            outcome.append((tag, text))
            return True

        obs = self._watch(proc, reader, take)
        if not outcome and not messages and obs.output.startswith("bwrap:"):
            self.close()
            raise SandboxSetupError(obs.output.strip())
        self._baseline = len(self.meter.pids()) if self.meter else 0
        if not outcome:
            if obs.end is RunEnd.SANDBOX_DIED:
                obs.detail = "the program ended while it was being loaded (halt/0 at load time?)"
            self.close()
            return LoadReport(False, messages, obs.detail, obs)
        tag, text = outcome[0]
        if tag == "noload":
            self.close()
            return LoadReport(False, messages, as_submitted(text), obs)
        return LoadReport(True, messages, "", obs)

    def run(self, goal: str, template: str) -> Observation:
        """Run `goal` (Prolog text) in a fresh child; collect `template`'s answers."""
        proc = self._proc
        if proc is None or proc.returncode is not None:
            raise RuntimeError("run() needs a loaded sandbox")
        # A number the submission cannot guess, so it cannot forge the
        # loader's `done` for this run.
        number = secrets.randbelow(1 << 62)
        reader = ReplyReader(_RUN_TAGS, self.limits.reply_mb << 20, self.limits.line_kb << 10)
        answers: list[tuple[bool, str]] = []
        exception: list[str] = []
        state = {"ended": "", "done": ""}

        def take(tag: str, text: str) -> bool:
            if tag == "done":
                got, _, status = text.partition(" ")
                if got != str(number):
                    raise ReplyError(RunEnd.BROKEN_REPLY, f"a reply for another run: done {got}")
                state["done"] = status
                return True
            if state["ended"] and tag != "x":
                raise ReplyError(RunEnd.BROKEN_REPLY, f"a {tag!r} reply after the run ended")
            if tag in ("a", "n"):
                answers.append((tag == "a", text))
            elif tag == "x":
                exception.append(text)
                state["ended"] = "x"
            else:  # end
                state["ended"] = "end"
            return False

        request = f"run({number}, {goal}, {template}).\n".encode()
        obs = self._watch(proc, reader, take, request)
        obs.answers, obs.exception = answers, as_submitted("\n".join(exception))
        if obs.end is RunEnd.FINISHED:  # the loader said `done`: how did the child end?
            if state["ended"] == "x":
                obs.end = RunEnd.RAISED
            elif state["ended"] != "end":
                obs.end = RunEnd.VANISHED
                obs.detail = (
                    "the run ended without finishing its answers (it called halt, or was "
                    f"killed; the sandbox reports {state['done'] or 'nothing'})"
                )
        return obs

    def _watch(self, proc, reader: ReplyReader, take, request: bytes | None = None) -> Observation:
        """Send `request`, then read replies until `take` says stop or a limit passes."""
        assert proc.stdout is not None and proc.stdin is not None
        meter, limits = self.meter, self.limits
        assert meter is not None
        if self._log is not None:
            os.ftruncate(self._log.fileno(), 0)
        oom0 = meter.oom_kills()
        meter.reset_peak()
        cpu0 = meter.cpu_seconds()
        start = time.monotonic()
        end: RunEnd | None = None
        detail = ""
        try:
            if request is not None:
                proc.stdin.write(request)
                proc.stdin.flush()
        except (BrokenPipeError, OSError):
            end, detail = RunEnd.SANDBOX_DIED, "the sandbox had ended before the run began"
        fd = proc.stdout.fileno()
        next_look = start
        while end is None:
            now = time.monotonic()
            wall = now - start
            if now >= next_look:  # at most every POLL_SECONDS: a look may scan /proc
                next_look = now + POLL_SECONDS
                used = meter.cpu_seconds() - cpu0
            if used > limits.cpu_seconds:
                end, detail = (
                    RunEnd.CPU_LIMIT,
                    f"stopped at the CPU limit of {limits.cpu_seconds:g} s",
                )
                break
            if wall > limits.wall_seconds:
                end, detail = (
                    RunEnd.WALL_LIMIT,
                    (
                        f"stopped at the wall-clock backstop of {limits.wall_seconds:g} s "
                        "(waiting, not computing)"
                    ),
                )
                break
            ready, _, _ = select.select([fd], [], [], min(POLL_SECONDS, limits.wall_seconds - wall))
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                end, detail = RunEnd.SANDBOX_DIED, "the sandbox ended in the middle of the run"
                break
            try:
                lines = reader.feed(chunk)
                for i, (tag, text) in enumerate(lines):
                    if take(tag, text):
                        if i + 1 < len(lines) or reader.pending():
                            raise ReplyError(RunEnd.BROKEN_REPLY, "replies after the run's end")
                        end = RunEnd.FINISHED
                        break
            except ReplyError as e:
                end, detail = e.end, f"the program wrote {e} on the grader's reply channel"
        wall = time.monotonic() - start
        obs = Observation(end, wall_seconds=wall, detail=detail)
        obs.cpu_seconds = max(0.0, meter.cpu_seconds() - cpu0)
        obs.memory_mb = meter.memory_peak_mb()
        if meter.oom_kills() > oom0:  # even if the loader said `done`: any kill counts
            obs.end = RunEnd.MEMORY_LIMIT
            obs.detail = f"the kernel stopped it at the memory limit of {limits.memory_mb} MB"
        obs.output = self._output_tail()
        if obs.end is not RunEnd.FINISHED or (
            request is not None and self.meter and len(self.meter.pids()) > self._baseline
        ):
            # A sandbox that broke off a run, or in which a run left processes
            # behind, is not used again: the next test starts from a fresh load.
            self.close()
        return obs

    def _output_tail(self) -> str:
        if self._log is None:
            return ""
        size = os.fstat(self._log.fileno()).st_size
        data = os.pread(self._log.fileno(), OUTPUT_TAIL_BYTES, max(0, size - OUTPUT_TAIL_BYTES))
        return as_submitted(data.decode("utf-8", errors="replace"))
