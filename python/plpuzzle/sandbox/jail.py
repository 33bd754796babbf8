"""The sandbox itself: bubblewrap, an unprivileged uid, and resource limits.

Inside a sandbox a submission sees the system's /usr (SWI-Prolog and its
libraries), its own files read-only at /submission, the loader and the
SICStus layer read-only at /sandbox, an empty private /tmp, and nothing
else: no /etc, no /home, no project source, no expected solution, no
network, no other process. It runs under a uid of its own, never root,
so whatever it can reach it can only read if the world may.

The limits come from the kernel, set before the sandbox starts: a memory
cap and a process cap on the sandbox's control group (see cgroups),
and per-process rlimits for CPU, file size and open files as a backstop.
"""

from __future__ import annotations

import ctypes
import functools
import os
import resource
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sandbox.cgroups import Group

#: Where things appear inside the sandbox.
SUBMISSION_MOUNT = "/submission"
LOADER_MOUNT = "/sandbox"

#: The uids sandboxes run under when the grader is root: one per slot, far
#: above any real account, so rlimits and file ownership never mix slots.
SANDBOX_UID_BASE = 2_146_400_000

_PR_SET_PDEATHSIG = 1
_SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


@dataclass(frozen=True)
class Limits:
    """What one sandbox may use; CPU and wall limits are per test."""

    cpu_seconds: float = 60.0
    wall_seconds: float = 125.0
    memory_mb: int = 2048
    max_processes: int = 64
    file_size_mb: int = 16
    open_files: int = 256
    #: Bounds on the replies of one run: in total, and for one line.
    reply_mb: int = 64
    line_kb: int = 2048


def own_paths(*extra: Path) -> list[Path]:
    """plpuzzle's own files (and `extra`), which a sandbox must not see even
    when they lie inside /usr."""
    import plpuzzle
    from plpuzzle.engine import prolog_dir

    return [Path(plpuzzle.__file__).resolve().parent, prolog_dir(), *extra]


def sandbox_uid(slot: int) -> int | None:
    """The uid for a sandbox in `slot`, or None when we cannot change uid."""
    return SANDBOX_UID_BASE + slot if os.geteuid() == 0 else None


@functools.cache
def _bwrap_works(uid: int | None) -> tuple[str | None, bool]:
    """(bwrap path if it builds a sandbox here, whether --disable-userns works)."""
    path = shutil.which("bwrap")
    if path is None:
        return None, False

    def attempt(extra: list[str]) -> bool:
        argv = [path, "--ro-bind", "/", "/", "--unshare-all", *extra, "--die-with-parent", "true"]
        try:
            done = subprocess.run(
                argv, capture_output=True, timeout=20, preexec_fn=lambda: _drop_to(uid)
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0

    if not attempt([]):
        return None, False
    return path, attempt(["--unshare-user", "--disable-userns"])


def bubblewrap(uid: int | None = None) -> str | None:
    """The bwrap binary if it can build a sandbox here (as `uid`), else None."""
    return _bwrap_works(uid)[0]


def _drop_to(uid: int | None) -> None:
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


def command(
    argv: list[str],
    submission: Path,
    loader: Path,
    hidden: list[Path],
    uid: int | None,
) -> list[str]:
    """`argv` wrapped in bubblewrap with the views described above.

    `hidden` are paths of ours (the package, the suite, the reports) that
    must not be seen even when they lie inside /usr.
    """
    bwrap, no_userns = _bwrap_works(uid)
    if bwrap is None:
        raise OSError("bubblewrap cannot build a sandbox on this machine")
    out = [
        bwrap,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--ro-bind", "/usr", "/usr",
        "--proc", "/proc",
        "--dev", "/dev",
        "--tmpfs", "/tmp",
    ]  # fmt: skip
    if no_userns:
        out += ["--unshare-user", "--disable-userns"]
    for link in _SYSTEM_LINKS:  # merged /usr: /lib -> usr/lib, ...
        if os.path.islink(link):
            out += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            out += ["--ro-bind", link, link]
    for path in hidden:
        resolved = path.resolve()
        if resolved.is_relative_to("/usr") and resolved.exists():
            out += ["--tmpfs", str(resolved)] if resolved.is_dir() else [
                "--ro-bind", "/dev/null", str(resolved)]  # fmt: skip
    out += [
        "--ro-bind", str(loader), LOADER_MOUNT,
        "--ro-bind", str(submission), SUBMISSION_MOUNT,
        "--chdir", SUBMISSION_MOUNT,
        "--clearenv",
        "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
        "--setenv", "HOME", "/tmp",
        "--setenv", "TMPDIR", "/tmp",
        "--setenv", "LANG", "C.UTF-8",
        "--",
        *argv,
    ]  # fmt: skip
    return out


def child_setup(limits: Limits, group: Group | None, uid: int | None) -> None:
    """Runs in the child between fork and exec: group, limits, uid, death.

    The order matters: joining the group needs our privileges, and the
    parent-death signal must be set after the uid changes, which clears it.
    """
    if group is not None:
        group.join_self()
    mem = limits.memory_mb * 1024 * 1024
    # The parent stops a run at its CPU limit; this per-process limit is a
    # backstop (each forked child starts its own count).
    cpu = int(limits.cpu_seconds) + 6
    rlimits = [
        (resource.RLIMIT_CPU, (cpu, cpu + 5)),
        (resource.RLIMIT_FSIZE, (limits.file_size_mb << 20,) * 2),
        (resource.RLIMIT_NOFILE, (limits.open_files,) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
        # Address space: the group caps real memory; without one this is all there is.
        (resource.RLIMIT_AS, (mem * 4 if group else mem,) * 2),
    ]
    if group is None:  # no pids controller: the per-uid process limit instead
        rlimits.append((resource.RLIMIT_NPROC, (limits.max_processes,) * 2))
    for which, value in rlimits:
        resource.setrlimit(which, value)
    _drop_to(uid)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
