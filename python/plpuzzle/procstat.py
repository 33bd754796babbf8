"""What the kernel tells of a process (/proc): the CPU time it used and
the time it waited, runnable, for a free core.

Limits are CPU time; the wall clock is only a backstop for programs that
wait. On a loaded machine a computing program also waits (for a core),
so the backstop moves out by that measured wait, up to WALL_STRETCH times
its length: the engines' worker and the sandbox apply the same rule.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: The backstop moves out by the time a program waited for a free core,
#: to at most this many times its own length. Sleeping never moves it, so
#: a waiter is still stopped on time; 10 keeps a program whose share of a
#: core fell to a tenth (load 10 on two cores) judged by its CPU time.
WALL_STRETCH = 10.0

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float:
    """The CPU time (user and system, all its threads) process `pid` has
    used; 0 when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rfind(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def run_queue_seconds(pids: Iterable[int]) -> dict[int, float]:
    """How long each process has waited, runnable, for a free core.

    The kernel's scheduler statistics (/proc/PID/schedstat: time on a
    core, time waiting on a run queue, time slices). A process that
    sleeps does not wait on a run queue; one that computes on a machine
    busy with other work does. Processes without statistics are left out.
    """
    out: dict[int, float] = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/schedstat").read_text().split()
            out[pid] = int(fields[1]) / 1e9
        except (OSError, IndexError, ValueError):
            continue
    return out


def backstop(limit: float, waited: float) -> float:
    """The wall-clock backstop `limit` moved out by `waited` seconds of
    waiting for a core, within WALL_STRETCH times its length."""
    return min(limit + max(waited, 0.0), limit * WALL_STRETCH)
