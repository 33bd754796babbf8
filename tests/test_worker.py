"""Worker processes: requests, deadlines, crashes and cleanup."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plpuzzle.confined import ProcessLimits
from plpuzzle.runtime import Worker, WorkerCrashed, WorkerTimeout


def call(function: str, **kwargs: object) -> dict[str, object]:
    """A request to call a package function in the worker."""
    return {"op": "call", "function": function, "kwargs": kwargs}


BOX_0 = call("plpuzzle.sudoku.domain.model:box_cells", box=0, k=1)


def test_calls_a_package_function_and_reports_cpu() -> None:
    with Worker() as worker:
        reply = worker.request(call("plpuzzle.sudoku.domain.model:box_cells", box=3, k=2), 30)
    assert reply["status"] == "ok"
    assert reply["result"] == [[2, 2], [2, 3], [3, 2], [3, 3]]
    assert reply["cpu"] >= 0


def test_only_package_functions_can_be_called() -> None:
    with Worker() as worker:
        reply = worker.request(call("os:getcwd"), 30)
    assert reply["status"] == "internal_error"
    assert "not a plpuzzle function" in reply["message"]


def test_deadline_kills_the_whole_process_group() -> None:
    worker = Worker()
    try:
        worker.request(BOX_0, 30)
        proc = worker._proc
        assert proc is not None
        pgid = proc.pid
        with pytest.raises(WorkerTimeout):  # spin never ends: the deadline did it
            worker.request(call("worker_hooks:spin"), 0.5)
        with pytest.raises(ProcessLookupError):
            os.killpg(pgid, 0)
    finally:
        worker.close()


def test_a_worker_that_died_between_requests_is_replaced() -> None:
    worker = Worker()
    try:
        worker.request(BOX_0, 30)
        assert worker._proc is not None
        old_pid = worker._proc.pid
        os.kill(old_pid, signal.SIGKILL)
        worker._proc.wait()
        reply = worker.request(BOX_0, 30)
        assert reply["result"] == [[0, 0]]
        assert worker._proc.pid != old_pid
    finally:
        worker.close()


def test_a_worker_that_dies_during_a_request_is_a_crash() -> None:
    with Worker() as worker, pytest.raises(WorkerCrashed, match="SIGKILL"):
        worker.request(call("worker_hooks:allocate", megabytes=0, then_die=True), 30)


def test_memory_limit_applies_in_the_worker() -> None:
    with Worker(ProcessLimits(memory_mb=300, file_size_mb=256)) as worker:
        reply = worker.request(call("worker_hooks:allocate", megabytes=600), 30)
    assert reply["status"] == "internal_error"
    assert "MemoryError" in reply["message"]


def test_busy_workers_die_with_their_parent(tmp_path: Path) -> None:
    """A parent killed with SIGKILL leaves no worker behind, even a busy one
    (an idle worker would also end on the end of its input)."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import json, os, time\n"
        "from plpuzzle.runtime import Worker\n"
        "w = Worker()\n"
        "proc = w._start()\n"
        "request = {'op': 'call', 'function': 'worker_hooks:spin'}\n"
        "proc.stdin.write(json.dumps(request).encode() + b'\\n')\n"
        "proc.stdin.flush()\n"
        "time.sleep(1)\n"
        "print(proc.pid, flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    worker = Path(f"/proc/{int(run.stdout.split()[0])}")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.1)
    alive = _alive(worker)
    if alive:
        os.kill(int(worker.name), signal.SIGKILL)
    assert not alive


def _alive(proc: Path) -> bool:
    try:
        return "State:\tZ" not in (proc / "status").read_text()
    except OSError:
        return False
