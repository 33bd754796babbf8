"""What the kernel tells of a process, as the limits use it: CPU time, and
the time waited for a core that moves the wall-clock backstop out."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from plpuzzle.procstat import WALL_STRETCH, backstop, process_cpu_seconds, run_queue_seconds

BUSY = "import time\nend = time.monotonic() + 3\nwhile time.monotonic() < end:\n    pass\n"


def pinned(code: str) -> subprocess.Popen[bytes]:
    """A Python process on core 0 only."""
    return subprocess.Popen([sys.executable, "-c", code],
                            preexec_fn=lambda: os.sched_setaffinity(0, {0}))  # fmt: skip


def test_the_backstop_moves_out_by_the_wait_within_its_stretch() -> None:
    assert backstop(4.0, 0.0) == 4.0
    assert backstop(4.0, 2.5) == 6.5
    assert backstop(4.0, -1.0) == 4.0  # a counter read twice never moves it in
    assert backstop(4.0, 1000.0) == 4.0 * WALL_STRETCH


def test_two_computing_processes_on_one_core_wait_for_it() -> None:
    first, second = pinned(BUSY), pinned(BUSY)
    try:
        time.sleep(2)
        waits = run_queue_seconds([first.pid, second.pid])
        cpu = process_cpu_seconds(first.pid) + process_cpu_seconds(second.pid)
    finally:
        for proc in (first, second):
            proc.kill()
            proc.wait()
    # One core for two busy processes: each waits while the other runs.
    assert waits[first.pid] + waits[second.pid] > 0.2, waits
    assert cpu > 0
    assert run_queue_seconds([first.pid]) == {}  # gone: left out
    assert process_cpu_seconds(first.pid) == 0.0
