"""Child processes under the kernel's limits, killed with their parent.

Whatever plpuzzle runs on a submission's behalf (the sandbox, the
similarity reader, the archive unpacker, an engine's worker) may loop,
eat memory or write without end. The limits are the kernel's, set
between fork and exec, so nothing the child does can lift them, and the
parent-death signal makes the kernel kill the child when the thread that
started it ends, so even a parent killed with SIGKILL leaves none behind.

`run` adds what only the parent can do: a wall-clock deadline after which
the child's whole process group is killed, and a bound on what is kept of
its output, which goes to files whose size the kernel caps.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


@dataclass(frozen=True)
class ProcessLimits:
    """Per-process limits of the kernel (None: left as they are).

    `memory_mb` is the address space, `file_size_mb` the largest file
    the process may write (standard output included, when it is a file).
    """

    cpu_seconds: int | None = None
    memory_mb: int | None = None
    file_size_mb: int | None = None
    open_files: int | None = None
    processes: int | None = None

    def apply(self) -> None:
        """Set the limits in the current process (called in the child)."""
        settings = [(resource.RLIMIT_CORE, 0)]
        if self.cpu_seconds is not None:
            settings.append((resource.RLIMIT_CPU, self.cpu_seconds))
        if self.memory_mb is not None:
            settings.append((resource.RLIMIT_AS, self.memory_mb << 20))
        if self.file_size_mb is not None:
            settings.append((resource.RLIMIT_FSIZE, self.file_size_mb << 20))
        if self.open_files is not None:
            settings.append((resource.RLIMIT_NOFILE, self.open_files))
        if self.processes is not None:
            settings.append((resource.RLIMIT_NPROC, self.processes))
        for which, value in settings:
            # The hard CPU limit a little above the soft one: SIGXCPU first,
            # then SIGKILL for a child that catches it.
            hard = value + 5 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))


def die_with_parent() -> None:
    """Have the kernel kill this process when its parent's thread ends."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def drop_to(uid: int | None) -> None:
    """Become `uid` (and its gid), with no supplementary groups."""
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


def child_setup(
    limits: ProcessLimits, uid: int | None = None, first: Callable[[], None] | None = None
) -> Callable[[], None]:
    """What runs between fork and exec, in the order that works: `first`
    (e.g. joining a control group, which needs our privileges), the
    limits, the uid, then the parent-death signal, which a change of uid
    clears."""

    def setup() -> None:
        if first is not None:
            first()
        limits.apply()
        drop_to(uid)
        die_with_parent()

    return setup


@dataclass
class Finished:
    """How a child run by `run` ended, and what was kept of its output."""

    returncode: int
    stdout: bytes
    #: The last bytes it wrote to standard error.
    stderr: str
    #: It passed its wall-clock deadline and was killed.
    timed_out: bool = False

    def ended_by(self) -> str:
        """How it ended, in words: the limit that stopped it, if any."""
        if self.timed_out:
            return "its wall-clock limit"
        code = self.returncode
        if code >= 0:
            return f"status {code}"
        known = {
            signal.SIGXCPU: "its CPU-time limit",
            signal.SIGXFSZ: "its output-size limit",
            signal.SIGKILL: "SIGKILL (a limit or the parent)",
            signal.SIGSEGV: "a crash (SIGSEGV)",
        }
        return next((words for sig, words in known.items() if sig == -code), f"signal {-code}")


def run(
    argv: Sequence[str],
    *,
    stdin: int | None,
    limits: ProcessLimits,
    wall_seconds: float,
    env: dict[str, str] | None = None,
    stderr_tail: int = 2000,
) -> Finished:
    """Run `argv` to its end under `limits` and a wall-clock deadline.

    Its standard output goes to a file, so `limits.file_size_mb` bounds
    what is kept of it; standard error is kept in a file too, bounded the
    same way, and only its last `stderr_tail` bytes are read. Standard
    input is the descriptor `stdin` (None: nothing).
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            list(argv),
            stdin=stdin if stdin is not None else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            preexec_fn=child_setup(limits),
            env=env if env is not None else {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        )
        timed_out = False
        try:
            proc.wait(timeout=wall_seconds)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        out.seek(0)
        data = out.read()
        size = err.seek(0, os.SEEK_END)
        err.seek(max(0, size - stderr_tail))
        tail = err.read().decode("utf-8", errors="replace")
    return Finished(proc.returncode, data, tail, timed_out)
