"""Measuring a sandbox without control groups: its process tree in /proc.

A grader that is not root usually cannot make control groups. The
sandbox still lives in a PID namespace of its own, so every process it
starts, however it forks, detaches or double-forks, stays a descendant
of the sandbox's first process. The parent walks that tree in /proc:

- CPU time: the sum over the live tree of each process's own time plus
  the time of the children it has reaped (`utime+stime+cutime+cstime`).
  A finished process's time moves into its parent's count when it is
  reaped, so the sum only grows, and nothing the tree does can lower it;
- memory: the sum of the tree's resident sizes, sampled at each look,
  so its peak is the highest sample (short spikes can be missed; the
  per-process address-space limit still holds them).

It offers the part of cgroups.Group's interface that the sandbox uses.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _stat_fields(pid: str) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name (which may hold spaces)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()


class ProcessTree:
    """The processes descending from `root`, measured from /proc."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.name = f"process tree of {root}"
        self._peak = 0.0
        self._reaped = 0.0

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

    def sample(self) -> tuple[float, float]:
        """(CPU seconds so far, resident MB now) of the whole tree."""
        cpu = 0.0
        rss = 0.0
        for fields in self._members().values():
            # fields[11..14] = utime stime cutime cstime; fields[21] = rss (pages)
            cpu += sum(int(f) for f in fields[11:15]) / _TICKS
            rss += int(fields[21]) * _PAGE / (1024 * 1024)
        self._peak = max(self._peak, rss)
        return cpu, rss

    def cpu_seconds(self) -> float:
        return self.sample()[0]

    def memory_peak_mb(self) -> float:
        self.sample()
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
