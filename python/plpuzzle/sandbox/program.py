"""A submission loaded once in a sandbox, run once per test, judged from outside.

`SandboxedProgram` starts SWI-Prolog in a sandbox (jail) on the loader
prolog/sandbox_loader.pl, which loads the submission and then forks a
fresh child from the loaded state for every test. Loading once and
forking per test keeps the tests independent at a few milliseconds each.

Nothing the sandbox says is believed beyond what it can only say about
itself. The parent decides everything else from what it observes:

- CPU time and peak memory of the whole process tree, from the meter
  (the sandbox's control group, or its process tree; see meter);
- the end of a run: the CPU limit, the wall-clock backstop, the memory
  limit (the kernel's out-of-memory count), or the sandbox ending;
- the replies, read from a pipe through a strict grammar (see the
  loader), under a cap per run and per answer line; anything else ends
  the run as BROKEN_REPLY and the sandbox is thrown away.

No read or write can block the parent. The request goes to the sandbox
without blocking, a piece at a time, inside the loop that watches the
limits: a sandbox that stops reading it (or shrinks or fills its pipe)
is stopped at its limit like any other, and its run gets a verdict. What
the parent keeps is bounded while it reads, never after: the text of
messages and exceptions up to a budget (the rest is counted, "cut: N
bytes more"), answers up to the count the caller expects plus a margin
(TOO_MANY_ANSWERS), and the last few KB of what the program printed.

So a submission that writes into the reply pipe, forges replies, floods
any channel, stops reading, or kills its loader can only spoil its own runs.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import select
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO

from plpuzzle.procstat import backstop, run_queue_seconds
from plpuzzle.runtime import prolog_file
from plpuzzle.sandbox import cgroups, jail
from plpuzzle.sandbox.meter import Meter, accounting
from plpuzzle.sandbox.proctree import ProcessTree
from plpuzzle.sandbox.workspace import RunFolder, SubmissionFiles, read_regular_files
from plpuzzle.untrusted import cut_note, one_line

#: The files the loader needs inside the sandbox, and nothing else of ours:
#: the loader, and the SICStus layer (a file and its folder of libraries).
LOADER_FILES = ("sandbox_loader.pl", "sicstus_compat.pl", "sicstus")

#: How often the parent looks at the CPU count while a run goes on.
POLL_SECONDS = 0.05

#: How much of what a run printed is kept as evidence (its end).
OUTPUT_TAIL_BYTES = 4000

#: Bytes of text kept per run of each kind of reply that carries text:
#: an exception's lines, the messages printed while loading, and why
#: loading failed. The rest is counted, never kept.
TEXT_BUDGET = {"x": 4000, "msg": 4000, "noload": 2000}

#: Bytes written to the sandbox's request pipe at a time.
WRITE_CHUNK = 4096

#: At the wall-clock backstop: a run that computed for less than this
#: share of the wall time, without waiting for a core, was waiting.
WAITING_SHARE = 0.25
#: ...and the machine was busy when the sandbox waited for a free core
#: for at least this share of the wall time.
BUSY_SHARE = 0.2


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
    TOO_MANY_ANSWERS = "too many answers"  # more than the caller said it could use


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
    """The sandbox's replies broke the grammar or the size bounds, or the
    run gave more than the caller can use: the run ends as `end`."""

    def __init__(self, end: RunEnd, detail: str) -> None:
        super().__init__(detail)
        self.end = end


#: The longest tag of the reply grammar ("noload").
_MAX_TAG = 6


class ReplyReader:
    """Splits reply bytes into (tag, text) lines, within hard bounds.

    A tag must be one of `allowed`, known within its first few bytes. The
    text of a tag in `budgets` is kept up to that many bytes over the
    whole run and counted beyond (`cut`), however long its lines; any
    other line may hold at most `max_line` bytes. All replies of a run
    may hold at most `max_bytes`. Past a bound, or on a tag not allowed,
    ReplyError is raised at once: nothing is buffered beyond the bounds.
    """

    def __init__(
        self,
        allowed: frozenset[str],
        max_bytes: int,
        max_line: int,
        budgets: dict[str, int] | None = None,
    ) -> None:
        self.allowed = allowed
        self.max_bytes = max_bytes
        self.max_line = max_line
        self.budgets = dict(budgets or {})
        #: Bytes of text not kept, per tag.
        self.cut: dict[str, int] = {}
        self.seen = 0
        self._head = bytearray()  # the line's first bytes, until its tag is known
        self._tag: str | None = None
        self._text = bytearray()
        self._open = False  # bytes of an unfinished line were seen

    def pending(self) -> bool:
        """Whether bytes of an unfinished line are waiting."""
        return self._open

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        self.seen += len(chunk)
        if self.seen > self.max_bytes:
            raise ReplyError(
                RunEnd.TOO_MUCH_REPLY, f"more than {self.max_bytes >> 20} MB of replies"
            )
        out = []
        view = memoryview(chunk)
        start = 0
        while start < len(chunk):
            newline = chunk.find(b"\n", start)
            stop = len(chunk) if newline < 0 else newline
            self._add(view[start:stop])
            if newline < 0:
                break
            out.append(self._end_line())
            start = newline + 1
        return out

    def _broken(self, line: bytes | bytearray) -> ReplyError:
        text = bytes(line[:120]).decode("utf-8", errors="replace")
        return ReplyError(RunEnd.BROKEN_REPLY, f"an unexpected reply line {text!r}")

    def _add(self, piece: memoryview) -> None:
        if not piece:
            return
        self._open = True
        if self._tag is None:
            room = _MAX_TAG + 1 - len(self._head)
            self._head += piece[:room]
            space = self._head.find(b" ")
            if space < 0:
                if len(self._head) > _MAX_TAG:
                    raise self._broken(self._head + piece[room:])
                return
            tag = self._head[:space].decode("utf-8", errors="replace")
            if tag not in self.allowed:
                raise self._broken(self._head + piece[room:])
            self._tag = tag
            rest = bytes(self._head[space + 1 :]) + bytes(piece[room:])
            self._head = bytearray()
            piece = memoryview(rest)
        if self._tag in self.budgets:
            keep = min(len(piece), self.budgets[self._tag])
            self._text += piece[:keep]
            self.budgets[self._tag] -= keep
            if keep < len(piece):
                self.cut[self._tag] = self.cut.get(self._tag, 0) + len(piece) - keep
            return
        if len(self._text) + len(piece) > self.max_line:
            raise ReplyError(
                RunEnd.TOO_MUCH_REPLY, f"a reply line longer than {self.max_line} bytes"
            )
        self._text += piece

    def _end_line(self) -> tuple[str, str]:
        if self._tag is None:  # a line without a space is a bare tag ("end")
            tag = self._head.decode("utf-8", errors="replace")
            if tag not in self.allowed:
                raise self._broken(self._head)
            text = ""
        else:
            tag, text = self._tag, self._text.decode("utf-8", errors="replace")
        self._head, self._tag, self._text, self._open = bytearray(), None, bytearray(), False
        return tag, text


_LOAD_TAGS = frozenset({"up", "msg", "ready", "noload"})
_RUN_TAGS = frozenset({"a", "n", "x", "end", "done"})


def as_submitted(text: str) -> str:
    """Names inside the sandbox as the student wrote them: `sudoku.pl:7`,
    not `/submission/sudoku.pl:7`, and `foo/1`, not `submission:foo/1`
    (the module the loader puts the file in)."""
    return text.replace(f"{jail.SUBMISSION_MOUNT}/", "").replace("submission:", "")


@functools.cache
def loader_files() -> dict[str, bytes]:
    """The loader's files, by their path inside the sandbox."""
    out: dict[str, bytes] = {}
    for name in LOADER_FILES:
        source = prolog_file(name)
        if source.is_dir():
            for path in sorted(source.glob("*.pl")):
                out[f"{jail.LOADER_MOUNT}/{name}/{path.name}"] = path.read_bytes()
        elif source.is_file():
            out[f"{jail.LOADER_MOUNT}/{name}"] = source.read_bytes()
    return out


def _with_cut(lines: list[str], tag: str, reader: ReplyReader) -> list[str]:
    """`lines`, and a last one saying how much of their text was not kept."""
    more = reader.cut.get(tag, 0)
    return [*lines, cut_note(more)] if more else lines


class SandboxedProgram:
    """One sandbox with one submission loaded in it.

    `load()` first; then `run()` for each test while `alive`. A run that
    ends at a limit, breaks the reply grammar or kills the loader takes
    the sandbox with it: make a new one for the next test.

    `files` is the submission: its files (SubmissionFiles), or a folder
    of them; `solver` is the file to load, relative to it.
    """

    def __init__(
        self,
        run: RunFolder,
        files: Path | SubmissionFiles,
        solver: str,
        predicate: str,
        dialect: str,
        limits: jail.Limits,
        slot: int | None = None,
        hidden: list[Path] | None = None,
    ) -> None:
        self.run_folder = run
        self.files = files if isinstance(files, SubmissionFiles) else read_regular_files(files)
        self.solver = solver
        self.predicate = predicate
        self.dialect = dialect
        self.limits = limits
        #: The sandbox's uid is its slot's; without one given, it claims a
        #: free slot when it starts (held until close), so that no other
        #: sandbox shares its uid and with it the per-uid process limit.
        self.slot = slot if slot is not None else 0
        self.uid = jail.sandbox_uid(self.slot)
        self._claims_slot = slot is None
        self._slot_lock: int | None = None
        self.hidden = hidden or []
        self.group: cgroups.Group | None = None
        #: What measures the sandbox: its control group, or its process tree.
        self.meter: Meter | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: BinaryIO | None = None
        #: How many processes the sandbox holds once loaded, between runs.
        self._baseline = 0
        self.problems: list[str] = []

    # -- starting and stopping ------------------------------------------------

    def _start(self) -> subprocess.Popen[bytes]:
        if self._claims_slot and self._slot_lock is None:
            self.slot, self._slot_lock = jail.take_slot()
            self.uid = jail.sandbox_uid(self.slot)
        stack_mb = max(32, self.limits.memory_mb * 3 // 4)
        argv = [
            "swipl", "-q", "-f", "none", "--no-packs",
            "-g", "sandbox_loader:main", "-t", "halt",
            f"{jail.LOADER_MOUNT}/sandbox_loader.pl", "--",
            f"{jail.SUBMISSION_MOUNT}/{self.solver}", self.dialect, str(stack_mb), self.predicate,
        ]  # fmt: skip
        files = {f"{jail.SUBMISSION_MOUNT}/{name}": data for name, data in self.files.files}
        files.update(loader_files())
        try:
            wrapped = jail.command(argv, files, self.uid, self.limits.memory_mb, self.hidden)
        except jail.SystemViewError as e:
            raise SandboxSetupError(str(e)) from None
        self.group = cgroups.make_group(
            self.run_folder.run_id, self.limits.memory_mb, self.limits.max_processes
        )
        log_path = self.run_folder.path / f"output-{os.getpid()}-{time.monotonic_ns()}"
        self._log = open(log_path, "a+b")  # noqa: SIM115 (closed in close())
        log_path.unlink()  # the open file is all we need
        group, limits, uid = self.group, self.limits, self.uid
        try:
            self._proc = subprocess.Popen(
                wrapped.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._log,
                start_new_session=True,
                pass_fds=wrapped.fds,
                preexec_fn=jail.child_setup(limits, group, uid),
                env={"PATH": "/usr/bin:/bin"},  # bwrap's own environment is readable inside
            )
        finally:
            wrapped.close()
        for pipe in (self._proc.stdin, self._proc.stdout):
            assert pipe is not None
            os.set_blocking(pipe.fileno(), False)
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
        if self._slot_lock is not None:
            os.close(self._slot_lock)
            self._slot_lock = None

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
        """Start the sandbox and load the submission.

        That the sandbox started is known from the loader's first reply,
        `up`, which it writes before it reads the submission. A sandbox
        that never says it was not built, and whose fault that is, is told
        by building a control: the same sandbox with an empty hand-in. If
        the control starts, the hand-in's files are at fault (tried once
        more, for a passing hiccup) and loading fails, in words; if it does
        not, the machine is, and SandboxSetupError is raised. Nothing the
        hand-in prints decides it.
        """
        started, report = self._load()
        if started:
            return report
        control = self._control()
        if control is not None:
            raise SandboxSetupError(control)
        started, report = self._load()
        if started:
            return report
        said = one_line(report.observation.output.strip(), 300)
        reason = (
            "the sandbox could not be built with this hand-in's files (the same sandbox "
            "without them could)" + (f"; it said: {said}" if said else "")
        )
        return LoadReport(False, [], reason, report.observation)

    def _control(self) -> str | None:
        """Why a sandbox like this one, with an empty hand-in, does not
        start either (the machine's fault), or None when it starts."""
        control = SandboxedProgram(
            self.run_folder, SubmissionFiles((("sudoku.pl", b""),), ()), "sudoku.pl",
            self.predicate, self.dialect, self.limits, self.slot, self.hidden,
        )  # fmt: skip
        try:
            started, report = control._load()
        finally:
            control.close()
            self.problems.extend(control.problems)
        if started:
            return None
        obs = report.observation
        return (
            f"the sandbox does not start, even with an empty hand-in ({obs.detail or obs.end}): "
            + (obs.output.strip()[-500:] or "nothing was printed")
        )

    def _load(self) -> tuple[bool, LoadReport]:
        """One attempt: whether the loader started, and how loading went."""
        proc = self._start()
        budgets = {tag: TEXT_BUDGET[tag] for tag in ("msg", "noload")}
        reader = ReplyReader(
            _LOAD_TAGS, self.limits.reply_mb << 20, self.limits.line_kb << 10, budgets
        )
        messages: list[str] = []
        outcome: list[tuple[str, str]] = []
        started = False

        def take(tag: str, text: str) -> bool:
            nonlocal started
            if not started:  # the loader's own first line, before anything of the hand-in
                if tag != "up":
                    raise ReplyError(RunEnd.BROKEN_REPLY, f"{tag!r} before the loader started")
                started = True
                return False
            if tag == "msg":
                if text:
                    messages.append(as_submitted(text))
                return False
            if tag == "up":
                raise ReplyError(RunEnd.BROKEN_REPLY, "a second 'up'")
            outcome.append((tag, text))
            return True

        obs = self._watch(proc, reader, take, clock=self.limits.loading)
        messages = _with_cut(messages, "msg", reader)
        self._baseline = len(self.meter.pids()) if self.meter else 0
        if not started:
            self.close()
            return False, LoadReport(False, messages, obs.detail, obs)
        if not outcome:
            if obs.end is RunEnd.SANDBOX_DIED:
                obs.detail = "the program ended while it was being loaded (halt/0 at load time?)"
            self.close()
            return True, LoadReport(False, messages, obs.detail, obs)
        tag, text = outcome[0]
        if tag == "noload":
            self.close()
            reason = " ".join(_with_cut([as_submitted(text)], "noload", reader))
            return True, LoadReport(False, messages, reason, obs)
        return True, LoadReport(True, messages, "", obs)

    def run(self, goal: str, template: str, max_answers: int | None = None) -> Observation:
        """Run `goal` (Prolog text) in a fresh child; collect `template`'s answers.

        With `max_answers`, the run is stopped once it has given more
        answers than that (TOO_MANY_ANSWERS): the caller could not use
        them, and keeping them would let a run fill the grader's memory.
        """
        proc = self._proc
        if proc is None or proc.returncode is not None:
            raise RuntimeError("run() needs a loaded sandbox")
        # A number the submission cannot guess, so it cannot forge the
        # loader's `done` for this run.
        number = secrets.randbelow(1 << 62)
        reader = ReplyReader(
            _RUN_TAGS,
            self.limits.reply_mb << 20,
            self.limits.line_kb << 10,
            {"x": TEXT_BUDGET["x"]},
        )
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
                if max_answers is not None and len(answers) >= max_answers:
                    raise ReplyError(
                        RunEnd.TOO_MANY_ANSWERS, f"too many answers (at least {len(answers) + 1})"
                    )
                answers.append((tag == "a", text))
            elif tag == "x":
                if text:
                    exception.append(text)
                state["ended"] = "x"
            else:  # end
                state["ended"] = "end"
            return False

        request = f"run({number}, {goal}, {template}).\n".encode()
        obs = self._watch(proc, reader, take, request)
        obs.answers = answers
        obs.exception = as_submitted("\n".join(_with_cut(exception, "x", reader)))
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

    def _watch(
        self,
        proc: subprocess.Popen[bytes],
        reader: ReplyReader,
        take: Callable[[str, str], bool],
        request: bytes | None = None,
        clock: tuple[float, float] | None = None,
    ) -> Observation:
        """Send `request` and read replies until `take` says stop or a limit
        passes (`clock`: CPU and wall-clock seconds, a test's by default);
        neither the sending nor the reading ever blocks."""
        assert proc.stdout is not None and proc.stdin is not None and self.meter is not None
        if self._log is not None and request is not None:
            # A run's output starts with its request. Loading keeps all
            # since the start: bubblewrap may already have said why it
            # failed, and the log is new anyway.
            os.ftruncate(self._log.fileno(), 0)
        oom0 = self.meter.oom_kills()
        self.meter.reset_peak()
        watch = _Watch(self, clock or (self.limits.cpu_seconds, self.limits.wall_seconds))
        channel = _Channel(proc.stdout.fileno(), proc.stdin.fileno(), request or b"")
        ended: tuple[RunEnd, str] | None = None
        while ended is None:
            ended = watch.limit_passed(channel) or channel.exchange(reader, take)
        return self._observed(ended, watch, oom0, request is not None)

    def _observed(
        self, ended: tuple[RunEnd, str], watch: _Watch, oom0: int, requested: bool
    ) -> Observation:
        """What the parent saw of a run; a sandbox that broke off a run, or
        in which a run left processes behind, is closed, not used again."""
        assert self.meter is not None
        obs = Observation(ended[0], wall_seconds=time.monotonic() - watch.start, detail=ended[1])
        obs.cpu_seconds = max(0.0, self.meter.look() - watch.cpu0)
        obs.memory_mb = self.meter.memory_peak_mb()
        if self.meter.oom_kills() > oom0:  # even if the loader said `done`: any kill counts
            obs.end = RunEnd.MEMORY_LIMIT
            obs.detail = f"the kernel stopped it at the memory limit of {self.limits.memory_mb} MB"
        obs.output = self._output_tail()
        if obs.end is not RunEnd.FINISHED or (
            requested and self.meter and len(self.meter.pids()) > self._baseline
        ):
            self.close()  # the next test starts from a fresh load
        return obs

    def _starved(self, before: dict[int, float]) -> float | None:
        """The longest any of the sandbox's processes has waited for a free
        core during this run (seconds); None when the kernel does not say."""
        now = run_queue_seconds(self.meter.pids()) if self.meter is not None else {}
        if not now:
            return None
        return max(delay - before.get(pid, 0.0) for pid, delay in now.items())

    def _output_tail(self) -> str:
        if self._log is None:
            return ""
        size = os.fstat(self._log.fileno()).st_size
        data = os.pread(self._log.fileno(), OUTPUT_TAIL_BYTES, max(0, size - OUTPUT_TAIL_BYTES))
        return as_submitted(data.decode("utf-8", errors="replace"))


def _cpu_limit_words(limit: float, unsent: int, request: int) -> str:
    words = f"stopped at the CPU limit of {limit:g} s"
    how = accounting()
    if not how.by_kernel:
        words += f" (charged as wall time x {how.cores} core(s): {how.why_charged})"
    if unsent:
        words += f"; {_stopped_reading(unsent, request)}"
    return words


def _backstop_words(
    limit: float, cpu: float, wall: float, starved: float | None, unsent: int, request: int
) -> str:
    """Why a run met the wall-clock backstop, as far as the kernel can tell."""
    words = f"stopped at the wall-clock backstop of {limit:g} s"
    if unsent:
        return f"{words}: {_stopped_reading(unsent, request)}"
    if _loaded() if starved is None else starved >= BUSY_SHARE * wall:
        return f"{words}: the machine was busy"
    if cpu < WAITING_SHARE * wall:
        return f"{words}: waiting, not computing"
    return f"{words}: computing, below the CPU limit"


def _stopped_reading(unsent: int, request: int) -> str:
    return (
        f"the sandbox stopped reading its request (it took {request - unsent} of {request} bytes)"
    )


def _loaded() -> bool:
    """Whether the machine's load (over a minute) exceeds its cores."""
    try:
        return os.getloadavg()[0] > (os.cpu_count() or 1)
    except OSError:
        return False


class _Channel:
    """The request going in and the replies coming out of a sandbox, a
    chunk at a time, never blocking on either."""

    def __init__(self, rfd: int, wfd: int, request: bytes) -> None:
        self.rfd, self.wfd = rfd, wfd
        self.size = len(request)
        self.unsent = memoryview(request)

    def exchange(
        self, reader: ReplyReader, take: Callable[[str, str], bool]
    ) -> tuple[RunEnd, str] | None:
        """Send and read what can be, for at most POLL_SECONDS; how the run
        ended when it did."""
        writing = [self.wfd] if self.unsent else []
        try:
            readable, writable, _ = select.select([self.rfd], writing, [], POLL_SECONDS)
        except InterruptedError:
            return None
        if writable:
            try:
                self.unsent = self.unsent[os.write(self.wfd, self.unsent[:WRITE_CHUNK]) :]
            except BlockingIOError:
                pass
            except OSError:  # the sandbox closed its end: what it says next tells why
                self.unsent = memoryview(b"")
        if not readable:
            return None
        try:
            chunk = os.read(self.rfd, 1 << 16)
        except BlockingIOError:
            return None
        if not chunk:
            if self.unsent:
                return RunEnd.SANDBOX_DIED, "the sandbox had ended before it took its request"
            return RunEnd.SANDBOX_DIED, "the sandbox ended in the middle of the run"
        return self._replies(reader, take, chunk)

    @staticmethod
    def _replies(
        reader: ReplyReader, take: Callable[[str, str], bool], chunk: bytes
    ) -> tuple[RunEnd, str] | None:
        try:
            lines = reader.feed(chunk)
            for i, (tag, text) in enumerate(lines):
                if take(tag, text):
                    if i + 1 < len(lines) or reader.pending():
                        raise ReplyError(RunEnd.BROKEN_REPLY, "replies after the run's end")
                    return RunEnd.FINISHED, ""
        except ReplyError as e:
            if e.end is RunEnd.TOO_MANY_ANSWERS:
                return e.end, str(e)
            return e.end, f"the program wrote {e} on the grader's reply channel"
        return None


class _Watch:
    """A run's clocks: the CPU time of all the sandbox's processes, looked
    at every POLL_SECONDS, and the wall clock, stretched by the time the
    machine kept the sandbox waiting for a core."""

    def __init__(self, program: SandboxedProgram, clock: tuple[float, float]) -> None:
        assert program.meter is not None
        self.program, self.meter = program, program.meter
        self.cpu_limit, self.wall_limit = clock
        self.cpu0 = self.meter.look()
        self.delays0 = run_queue_seconds(self.meter.pids())
        self.start = self.next_look = time.monotonic()
        self.used = 0.0

    def limit_passed(self, channel: _Channel) -> tuple[RunEnd, str] | None:
        """How the run ended, when a limit has passed."""
        now = time.monotonic()
        wall = now - self.start
        if now >= self.next_look:  # at most every POLL_SECONDS: a look may scan /proc
            self.next_look = now + POLL_SECONDS
            self.used = self.meter.look() - self.cpu0
        sent = (len(channel.unsent), channel.size)
        if self.used > self.cpu_limit:
            return RunEnd.CPU_LIMIT, _cpu_limit_words(self.cpu_limit, *sent)
        if wall > self.wall_limit:
            starved = self.program._starved(self.delays0)
            if wall > backstop(self.wall_limit, starved or 0.0):
                words = _backstop_words(self.wall_limit, self.used, wall, starved, *sent)
                return RunEnd.WALL_LIMIT, words
        return None
