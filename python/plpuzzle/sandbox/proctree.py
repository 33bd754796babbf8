"""Measuring a sandbox without control groups: its process tree in /proc.

A grader that is not root, and has no control group delegated to it,
cannot have the kernel count its sandboxes' CPU time. Summing the CPU
time of the live process tree is not a count the submission cannot
escape: a process's time reaches its parent's count (`cutime`) only when
the parent waits for it, and a parent that ignores SIGCHLD has its
children reaped by the kernel, their time counted nowhere. So here the
sandbox is *charged* instead: wall time times the number of cores it may
run on, which no arrangement of processes can exceed.

The sandbox lives in a PID namespace of its own, so every process it
starts, however it forks, detaches or double-forks, stays a descendant
of the sandbox's first process. The parent walks that tree in /proc for
what else it needs:

- memory: the sum of the tree's resident sizes, sampled at each look,
  so its peak is the highest sample (short spikes can be missed; the
  per-process address-space limit still holds them);
- the processes to kill at the end.

It offers the part of cgroups.Group's interface that the sandbox uses.
The module also reads per-process figures that the sandbox uses with
either meter: resident sizes (run-queue delays are plpuzzle.procstat's).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _stat_fields(pid: str) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name (which may hold spaces)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()


def resident_mb(pids: Iterable[int]) -> float:
    """The summed resident memory of `pids` now, in MB (gone ones count 0)."""
    total = 0
    for pid in pids:
        fields = _stat_fields(str(pid))
        if fields is not None:
            total += int(fields[21])  # rss, in pages
    return total * _PAGE / (1024 * 1024)


def usable_cores() -> int:
    """The cores this process (and so a sandbox it starts) may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except OSError:
        return os.cpu_count() or 1


class ProcessTree:
    """The processes descending from `root`, charged and measured from /proc."""

    def __init__(self, root: int, cores: int | None = None) -> None:
        self.root = root
        self.name = f"process tree of {root}"
        self.cores = cores or usable_cores()
        self.controllers: frozenset[str] = frozenset()
        self._start = time.monotonic()
        self._peak = 0.0

    def _members(self) -> dict[int, list[str]]:
        stats: dict[int, list[str]] = {}
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit() and (fields := _stat_fields(entry)) is not None:
                pid = int(entry)
                stats[pid] = fields
                children.setdefault(int(fields[1]), []).append(pid)
        members: dict[int, list[str]] = {}
        todo = [self.root] if self.root in stats else []
        while todo:
            pid = todo.pop()
            members[pid] = stats[pid]
            todo.extend(children.get(pid, []))
        return members

    def look(self) -> float:
        """The CPU seconds charged so far; samples the tree's memory too."""
        rss = sum(int(f[21]) for f in self._members().values()) * _PAGE / (1024 * 1024)
        self._peak = max(self._peak, rss)
        return self.cpu_seconds()

    def cpu_seconds(self) -> float:
        """Wall time since the sandbox started, times the cores it may use."""
        return (time.monotonic() - self._start) * self.cores

    def memory_peak_mb(self) -> float:
        self.look()
        return self._peak

    def reset_peak(self) -> None:
        self._peak = 0.0

    def oom_kills(self) -> int:
        return 0

    def pids(self) -> list[int]:
        """The tree's processes that are not yet dead (zombies are)."""
        return [pid for pid, fields in self._members().items() if fields[0] != "Z"]

    def kill_all(self, patience: float = 10.0) -> bool:
        deadline = time.monotonic() + patience
        while pids := self.pids():
            if time.monotonic() > deadline:
                return False
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
        return True

    def remove(self) -> str | None:
        return None if self.kill_all() else "processes would not die"
