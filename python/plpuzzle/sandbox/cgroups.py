"""Control groups: how the grader measures and bounds a whole process tree.

A sandbox's processes all live in one control group that the grader
creates before the sandbox starts. The kernel then accounts their CPU
time and memory together, however many processes the submission forks,
and the grader reads those figures from outside: nothing the submission
does can change them. The same group caps memory and the number of
processes, and lets the grader kill everything at the end.

Both layouts are supported: cgroup v1 (one hierarchy per controller:
cpuacct, memory, pids) and v2 (one unified hierarchy). Groups are named
`plpuzzle-RUN-N`, so that a later run can remove the groups of a run that
was killed before it could clean up (see `remove_stale`).

A grader that is not root can still have the kernel count its sandboxes'
CPU time: in a cgroup v2 group delegated to its user (what `systemd-run
--user --scope -p Delegate=yes` gives, or a folder an administrator
chowned to the user), it makes the sandboxes' groups inside its own.
Every v2 group counts CPU time (`cpu.stat`), whether or not the memory
and pids controllers are enabled for it; a Group says which of those
it has (`controllers`), and the sandbox does the rest per process.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sandbox.proctree import resident_mb

PREFIX = "plpuzzle-"
_MOUNTS = Path("/proc/self/mounts")
_OWN = Path("/proc/self/cgroup")
_V1_CONTROLLERS = ("cpuacct", "memory", "pids")


#: What a group can do: count CPU time, cap memory, cap processes.
ALL_CONTROLLERS = frozenset({"cpu", "memory", "pids"})


@dataclass(frozen=True)
class Layout:
    """Where groups are made: one parent folder per v1 controller, or one for v2."""

    version: int
    #: v1: controller -> parent folder; v2: {"unified": parent folder}.
    parents: dict[str, Path]
    #: Of ALL_CONTROLLERS, what the groups made here have ("cpu" always).
    controllers: frozenset[str] = ALL_CONTROLLERS
    #: The parent is a group of our own (delegated to us), not a root.
    delegated: bool = False


def _mounts() -> list[tuple[str, str, list[str]]]:
    """(mount point, type, options) of every cgroup file system."""
    out = []
    with contextlib.suppress(OSError):
        for line in _MOUNTS.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
                point = fields[1].replace("\\040", " ")
                out.append((point, fields[2], fields[3].split(",")))
    return out


def _own_paths() -> dict[str, str]:
    """This process's group in each hierarchy: controller (or "") -> path."""
    own: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in _OWN.read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                own[name] = path
    return own


def _writable_parent(mount: Path, own: str | None) -> Path | None:
    """Our own group's folder if we may make groups in it, else the mount's root."""
    candidates = [mount / own.lstrip("/")] if own and own != "/" else []
    candidates.append(mount)
    for parent in candidates:
        probe = parent / f"{PREFIX}probe-{uuid.uuid4().hex[:8]}"
        try:
            probe.mkdir()
        except OSError:
            continue
        probe.rmdir()
        return parent
    return None


@functools.cache
def layout() -> Layout | None:
    """The cgroup layout we can use here, or None (not root, no cgroups)."""
    mounts = _mounts()
    own = _own_paths()
    v1: dict[str, Path] = {}
    for point, kind, options in mounts:
        if kind != "cgroup":
            continue
        for controller in _V1_CONTROLLERS:
            if controller in options and controller not in v1:
                parent = _writable_parent(Path(point), own.get(controller))
                if parent is not None:
                    v1[controller] = parent
    if set(v1) == set(_V1_CONTROLLERS):
        return Layout(1, v1)
    for point, kind, _ in mounts:
        if kind != "cgroup2":
            continue
        root = Path(point)
        found = _v2_parent(root, own.get(""))
        if found is not None:
            parent, delegated = found
            try:
                enabled = set((parent / "cgroup.subtree_control").read_text().split())
            except OSError:
                enabled = set()
            controllers = frozenset({"cpu"} | (enabled & {"memory", "pids"}))
            return Layout(2, {"unified": parent}, controllers, delegated)
    return None


def _v2_parent(root: Path, own: str | None) -> tuple[Path, bool] | None:
    """Where v2 groups can be made: the hierarchy's root (root only), or
    our own group when it is delegated to us; with whether it is ours.

    Our own group must also let us move our children out of it (its
    cgroup.procs writable), which is what delegation grants.
    """
    mine = root / own.lstrip("/") if own and own != "/" else None
    if mine is not None and os.access(mine / "cgroup.procs", os.W_OK):
        parent = _writable_parent(mine, None)
        if parent is not None:
            return parent, True
    parent = _writable_parent(root, None)
    return (parent, False) if parent is not None else None


class Group:
    """One control group for one sandbox, in every hierarchy it needs."""

    def __init__(self, where: Layout, name: str, memory_mb: int, max_processes: int) -> None:
        self.layout = where
        self.name = name
        self.folders = {key: parent / name for key, parent in where.parents.items()}
        self.memory_bytes = memory_mb * 1024 * 1024
        self.controllers = where.controllers
        #: Without the memory controller: the peak of sampled resident sizes.
        self._sampled_peak = 0.0
        for folder in self.folders.values():
            folder.mkdir()
        if where.version == 1:
            mem = self.folders["memory"]
            (mem / "memory.limit_in_bytes").write_text(str(self.memory_bytes))
            with contextlib.suppress(OSError):  # no swap accounting: the limit above holds
                (mem / "memory.memsw.limit_in_bytes").write_text(str(self.memory_bytes))
            (self.folders["pids"] / "pids.max").write_text(str(max_processes))
        else:
            unified = self.folders["unified"]
            if "memory" in self.controllers:
                (unified / "memory.max").write_text(str(self.memory_bytes))
                with contextlib.suppress(OSError):
                    (unified / "memory.swap.max").write_text("0")
            if "pids" in self.controllers:
                (unified / "pids.max").write_text(str(max_processes))

    def join_self(self) -> None:
        """Move the calling process into the group (called in the child)."""
        for folder in self.folders.values():
            (folder / "cgroup.procs").write_text("0\n")

    def _file(self, v1_controller: str, v1_name: str, v2_name: str) -> Path:
        if self.layout.version == 1:
            return self.folders[v1_controller] / v1_name
        return self.folders["unified"] / v2_name

    def cpu_seconds(self) -> float:
        """CPU time used so far by every process that ever ran in the group."""
        if self.layout.version == 1:
            return int(self._file("cpuacct", "cpuacct.usage", "").read_text()) / 1e9
        for line in self._file("", "", "cpu.stat").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
        return 0.0

    def look(self) -> float:
        """CPU seconds so far; without the memory controller, also a
        sample of the group's resident memory for `memory_peak_mb`."""
        if "memory" not in self.controllers:
            self._sampled_peak = max(self._sampled_peak, resident_mb(self.pids()))
        return self.cpu_seconds()

    def memory_peak_mb(self) -> float:
        """The group's peak memory since the last `reset_peak` (or its start)."""
        if "memory" not in self.controllers:
            self._sampled_peak = max(self._sampled_peak, resident_mb(self.pids()))
            return self._sampled_peak
        path = self._file("memory", "memory.max_usage_in_bytes", "memory.peak")
        with contextlib.suppress(OSError, ValueError):
            return int(path.read_text()) / (1024 * 1024)
        return 0.0

    def reset_peak(self) -> None:
        """Start a new peak-memory count (v1 and sampled; v2 keeps the group's peak)."""
        self._sampled_peak = 0.0
        if self.layout.version == 1:
            with contextlib.suppress(OSError):
                self._file("memory", "memory.max_usage_in_bytes", "").write_text("0")

    def oom_kills(self) -> int:
        """How often the kernel killed a process of the group for memory."""
        if "memory" not in self.controllers:
            return 0
        path = self._file("memory", "memory.oom_control", "memory.events")
        with contextlib.suppress(OSError):
            for line in path.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        if self.layout.version == 1:  # kernels before 4.13 have no oom_kill count
            with contextlib.suppress(OSError, ValueError):
                return int(self._file("memory", "memory.failcnt", "").read_text())
        return 0

    def pids(self) -> list[int]:
        key = "pids" if self.layout.version == 1 else "unified"
        try:
            return [int(p) for p in (self.folders[key] / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill_all(self, patience: float = 10.0) -> bool:
        """SIGKILL every process in the group until it is empty; True when it is."""
        deadline = time.monotonic() + patience
        while True:
            pids = self.pids()
            if not pids:
                return True
            if time.monotonic() > deadline:
                return False
            if self.layout.version == 2:
                with contextlib.suppress(OSError):
                    (self.folders["unified"] / "cgroup.kill").write_text("1")
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> str | None:
        """Kill what is left, wait until the group is empty, remove it.

        Returns None, or why the group could not be removed.
        """
        emptied = self.kill_all()
        problems = []
        for folder in self.folders.values():
            for _ in range(200):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as e:  # EBUSY while the last exits are accounted
                    error = e
                    time.sleep(0.01)
            else:
                problems.append(f"{folder}: {error.strerror}")
        if not emptied:
            problems.append("processes would not die")
        return "; ".join(problems) or None


def make_group(run_id: str, memory_mb: int, max_processes: int) -> Group | None:
    """A fresh group for one sandbox of run `run_id`, or None without cgroups."""
    where = layout()
    if where is None:
        return None
    return Group(where, f"{PREFIX}{run_id}-{uuid.uuid4().hex[:8]}", memory_mb, max_processes)


def remove_stale(is_alive: Callable[[str], bool | None]) -> int:
    """Remove the groups of runs that are gone; return how many were removed.

    `is_alive(run_id)` says whether the run that made a group still runs,
    or None for a name that is no run id: such a group (e.g. from an older
    plpuzzle) is removed only when no process is left in it.
    """
    where = layout()
    if where is None:
        return 0
    removed = 0
    names: set[str] = set()
    for parent in where.parents.values():
        with contextlib.suppress(OSError):
            names |= {p.name for p in parent.iterdir() if p.name.startswith(PREFIX)}
    for name in sorted(names):
        run_id = name[len(PREFIX) :].rpartition("-")[0]
        if run_id.startswith("probe"):
            continue
        alive = is_alive(run_id)
        if alive:
            continue
        group = Group.__new__(Group)
        group.layout, group.name, group.controllers = where, name, where.controllers
        group.folders = {key: parent / name for key, parent in where.parents.items()}
        if alive is None and group.pids():
            continue
        if group.remove() is None:
            removed += 1
    return removed
