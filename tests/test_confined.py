"""The one module that starts children under limits (plpuzzle.confined):
each guarantee once, on real processes. The sandbox, the similarity
reader, the archive unpacker and the engines' workers all rely on it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from plpuzzle.confined import ProcessLimits, run


def python(code: str) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", code]


def test_memory_is_capped_by_the_kernel() -> None:
    done = run(python("x = bytearray(600 << 20)"), stdin=None,
               limits=ProcessLimits(memory_mb=200), wall_seconds=60)  # fmt: skip
    assert done.returncode != 0 and "MemoryError" in done.stderr


def test_cpu_time_is_capped_by_the_kernel() -> None:
    done = run(python("while True: pass"), stdin=None,
               limits=ProcessLimits(cpu_seconds=1), wall_seconds=60)  # fmt: skip
    assert done.returncode == -signal.SIGXCPU
    assert done.ended_by() == "its CPU-time limit"


def test_output_is_capped_and_what_is_kept_is_bounded() -> None:
    code = "import sys\nwhile True: sys.stdout.write('x' * 65536)"
    done = run(python(code), stdin=None, limits=ProcessLimits(file_size_mb=1), wall_seconds=60)
    # Python ignores SIGXFSZ, so its write fails instead (a C program is killed).
    assert done.returncode != 0 and "File too large" in done.stderr
    assert len(done.stdout) <= 1 << 20


def test_a_child_that_waits_is_stopped_at_its_wall_clock_deadline() -> None:
    done = run(python("import time; time.sleep(60)"), stdin=None,
               limits=ProcessLimits(), wall_seconds=1)  # fmt: skip
    assert done.timed_out and done.ended_by() == "its wall-clock limit"


PARENT = """
import subprocess, sys, time
from plpuzzle.confined import ProcessLimits, child_setup
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                         preexec_fn=child_setup(ProcessLimits()))
print(child.pid, flush=True)
time.sleep(120)
"""


def test_a_child_dies_with_its_parent_even_one_killed_with_sigkill(tmp_path: Path) -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert Path(f"/proc/{child}").exists()
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 60  # the kernel acts at once; this only bounds a failure
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    if state == "Z":  # a zombie: dead, waiting for init to reap it
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
