"""Confinement for code we did not write: students' Prolog solvers.

A sandboxed worker runs under bubblewrap when the machine allows it: the
whole file system read-only, a private /tmp, one writable working folder
of its own, no network, its own PID namespace, a scrubbed environment.
Resource limits apply in every case: CPU time, memory, file size (which
also caps captured output), open files, and the number of processes
(through a pids cgroup where one is writable, RLIMIT_NPROC otherwise).
Where bubblewrap cannot run, the limits alone apply and `warnings()`
says so, for the caller to show.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import shutil
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

#: Environment variables a sandboxed worker keeps; everything else is dropped.
KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "SWI_HOME_DIR", "LIBSWIPL_PATH")

_PIDS_CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


@dataclass(frozen=True)
class Policy:
    """Limits for one sandboxed process tree."""

    memory_mb: int = 2048
    cpu_seconds: int = 130
    max_processes: int = 64
    file_size_mb: int = 16
    open_files: int = 256

    def apply_rlimits(self) -> None:
        """Set the resource limits in the current process (the child)."""
        mem = self.memory_mb * 1024 * 1024
        limits = [
            (resource.RLIMIT_AS, mem),
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_FSIZE, self.file_size_mb * 1024 * 1024),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_NPROC, self.max_processes),
            (resource.RLIMIT_CORE, 0),
        ]
        for which, value in limits:
            resource.setrlimit(which, (value, value))


@functools.cache
def bubblewrap() -> str | None:
    """The bwrap binary if it can actually build a sandbox here, else None."""
    path = shutil.which("bwrap")
    if path is None:
        return None
    probe = [path, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]
    try:
        ok = subprocess.run(probe, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return path if ok else None


@functools.cache
def _pids_cgroup_root() -> Path | None:
    """A cgroup folder with the pids controller that we may create groups in."""
    for root in _PIDS_CGROUP_ROOTS:
        if (root / "pids.max").exists() or (root / "cgroup.procs").exists():
            probe = root / f"plpuzzle-probe-{uuid.uuid4().hex[:8]}"
            try:
                probe.mkdir()
            except OSError:
                continue
            usable = (probe / "pids.max").exists()
            probe.rmdir()
            if usable:
                return root
    return None


#: System folders every sandbox sees, read-only, where they exist.
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


def _visible(readable: list[Path]) -> list[Path]:
    """The folders to bind read-only: system folders, then `readable`,
    without any that lies inside another (bwrap binds them in order)."""
    candidates = [Path(p) for p in SYSTEM_FOLDERS] + [Path(p).resolve() for p in readable]
    chosen: list[Path] = []
    for path in candidates:
        if not path.exists() or path.is_symlink():
            continue
        if any(path == c or c in path.parents for c in chosen):
            continue
        chosen.append(path)
    return chosen


class Sandbox:
    """One confined process tree: a working folder, limits, and maybe a cgroup.

    Call `prepare()`, start the process with `command()` and `env()` and
    `preexec()` as its preexec_fn, and call `cleanup()` once it has ended.
    """

    def __init__(self, policy: Policy, workdir: Path, use_bubblewrap: bool = True) -> None:
        self.policy = policy
        self.workdir = workdir
        self.bwrap = bubblewrap() if use_bubblewrap else None
        self.cgroup: Path | None = None

    def prepare(self) -> None:
        """Create the pids cgroup for the next process, where possible."""
        root = _pids_cgroup_root()
        if root is None or self.cgroup is not None:
            return
        group = root / f"plpuzzle-{uuid.uuid4().hex[:12]}"
        try:
            group.mkdir()
            (group / "pids.max").write_text(f"{self.policy.max_processes}\n")
        except OSError:
            return
        self.cgroup = group

    def warnings(self) -> list[str]:
        """What this machine could not provide, in words for the user."""
        out = []
        if self.bwrap is None:
            out.append(
                "bubblewrap is not usable here: submissions run with resource limits only "
                "(no read-only file system, no network isolation); install the Debian "
                "package bubblewrap for full isolation"
            )
        if _pids_cgroup_root() is None and os.geteuid() == 0:
            out.append("no writable pids cgroup: the number of processes is not limited for root")
        return out

    def command(
        self, argv: list[str], env: dict[str, str], readable: list[Path] | None = None
    ) -> list[str]:
        """`argv` wrapped so that it runs inside the sandbox with exactly `env`.

        Only the system folders, the `readable` paths (the interpreter, the
        package) and the working folder are visible, so a submission can
        read neither other submissions nor the expected solutions.
        """
        if self.bwrap is None:
            return argv
        work = str(self.workdir)
        wrapped = [
            self.bwrap,
            "--die-with-parent",
            "--new-session",
            "--unshare-all",
            "--dev", "/dev",
            "--proc", "/proc",
            "--tmpfs", "/tmp",
        ]  # fmt: skip
        for folder in SYSTEM_FOLDERS:  # e.g. /lib -> usr/lib on merged-/usr systems
            if os.path.islink(folder):
                wrapped += ["--symlink", os.readlink(folder), folder]
        for path in _visible(readable or []):
            wrapped += ["--ro-bind", str(path), str(path)]
        wrapped += ["--bind", work, work, "--chdir", work, "--clearenv"]
        for key, value in env.items():
            wrapped += ["--setenv", key, value]
        return [*wrapped, "--", *argv]

    def env(self) -> dict[str, str]:
        """The scrubbed environment: a few variables, HOME and TMPDIR in the workdir."""
        kept = {k: os.environ[k] for k in KEPT_ENVIRONMENT if k in os.environ}
        return {**kept, "HOME": str(self.workdir), "TMPDIR": str(self.workdir)}

    def preexec(self) -> None:
        """Runs in the child before exec: join the cgroup, set the limits."""
        if self.cgroup is not None:
            (self.cgroup / "cgroup.procs").write_text("0\n")
        self.policy.apply_rlimits()

    def cleanup(self) -> None:
        """Kill what is left in the cgroup, then remove it."""
        if self.cgroup is not None:
            for proc in (self.cgroup / "cgroup.procs").read_text().split():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(proc), 9)
            with contextlib.suppress(OSError):
                self.cgroup.rmdir()
            self.cgroup = None
