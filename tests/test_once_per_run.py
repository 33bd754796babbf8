"""once_per_run (tests/fixtures/python/once_per_run.py): a fixture's result
made by one process of a run while the others wait for it and read it,
its failure seen by all, and a maker that dies leaving no one hanging.

The processes here are real ones asking at once: each test waits until
one is making and the other is blocked on the lock (the kernel lists the
waiter in /proc/locks) before the maker may finish.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from once_per_run import slug

#: One process asking for "the class": `make` logs that it started, waits
#: for the test's go file, then returns or raises as the argument says. The
#: process prints what it got, or the exception's type and text.
ASK = textwrap.dedent(
    """
    import sys
    import time
    from pathlib import Path

    from once_per_run import made_once

    root, how = Path(sys.argv[1]), sys.argv[2]

    def make(folder):
        with open(root / "makes.log", "a") as log:
            log.write(f"{folder.name}\\n")
        while not (root / "go").exists():
            time.sleep(0.02)
        if how == "fail":
            raise ValueError("the grader wrote no report")
        if how == "skip":
            import pytest
            pytest.skip("no sandbox here")
        (folder / "grades.json").write_text("{}")
        return {"alice": 6, "report": folder / "grades.json"}

    try:
        got = made_once(root / "shared", "tests/x.py::graded", make, sys.argv[3])
    except BaseException as error:
        print(f"{type(error).__name__}: {error}")
    else:
        print(got["alice"], got["report"].is_file(), got["report"].parent.name)
    """
)


#: Start a process asking for the class: ask(root, how, who).
Ask = Callable[[Path, str, str], subprocess.Popen[str]]


@pytest.fixture
def ask() -> Iterator[Ask]:
    """Start a process asking; those still running at the end are killed."""
    started: list[subprocess.Popen[str]] = []

    def start(root: Path, how: str, who: str) -> subprocess.Popen[str]:
        started.append(
            subprocess.Popen(
                [sys.executable, "-c", ASK, root, how, who], stdout=subprocess.PIPE, text=True
            )
        )
        return started[-1]

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate()


def wait_for(what: str, ready: Callable[[], bool], deadline: float = 120) -> None:
    """Poll until `ready()`; a bound far above any load, to fail not hang."""
    end = time.monotonic() + deadline
    while not ready():
        assert time.monotonic() < end, f"never saw {what}"
        time.sleep(0.02)


def makes(root: Path) -> list[str]:
    log = root / "makes.log"
    return log.read_text().splitlines() if log.exists() else []


def blocked_on(lock: Path) -> bool:
    """Whether some process waits for `lock` (a `->` line of /proc/locks)."""
    inode = f":{os.stat(lock).st_ino} "
    return any(
        "->" in line and inode in line for line in Path("/proc/locks").read_text().splitlines()
    )


def both_asking(
    ask: Ask, root: Path, how: str
) -> tuple[subprocess.Popen[str], subprocess.Popen[str]]:
    """Two processes asking at once: one making, the other blocked on the lock."""
    first = ask(root, how, "gw0")
    wait_for("the first make", lambda: len(makes(root)) == 1)
    second = ask(root, how, "gw1")
    lock = root / "shared" / f"{slug('tests/x.py::graded')}.lock"
    wait_for("the second process waiting", lambda: blocked_on(lock) or len(makes(root)) > 1)
    assert len(makes(root)) == 1, "the second process made it too"
    return first, second


def test_two_processes_asking_at_once_get_one_make(ask: Ask, tmp_path: Path) -> None:
    first, second = both_asking(ask, tmp_path, "ok")
    (tmp_path / "go").touch()
    outs = [p.communicate(timeout=120)[0].strip() for p in (first, second)]
    assert len(makes(tmp_path)) == 1
    folder = makes(tmp_path)[0]
    assert outs == [f"6 True {folder}"] * 2
    # And a third, later, reads it too.
    third = ask(tmp_path, "ok", "gw2").communicate(timeout=120)[0].strip()
    assert third == outs[0]
    assert len(makes(tmp_path)) == 1


def test_a_failed_make_is_the_failure_of_everyone_who_asks(ask: Ask, tmp_path: Path) -> None:
    first, second = both_asking(ask, tmp_path, "fail")
    (tmp_path / "go").touch()
    made, waited = (p.communicate(timeout=120)[0] for p in (first, second))
    assert made.strip() == "ValueError: the grader wrote no report"
    assert waited.startswith("Failed: tests/x.py::graded was made by gw0 in this run and failed")
    assert "ValueError: the grader wrote no report" in waited
    assert "in make" in waited  # the maker's traceback
    assert len(makes(tmp_path)) == 1


def test_a_skipped_make_skips_everyone_who_asks(ask: Ask, tmp_path: Path) -> None:
    first, second = both_asking(ask, tmp_path, "skip")
    (tmp_path / "go").touch()
    outs = [p.communicate(timeout=120)[0].strip() for p in (first, second)]
    assert outs == ["Skipped: no sandbox here"] * 2
    assert len(makes(tmp_path)) == 1


def test_a_maker_that_dies_leaves_the_make_to_the_next(ask: Ask, tmp_path: Path) -> None:
    first, second = both_asking(ask, tmp_path, "ok")
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=60)
    wait_for("the second make", lambda: len(makes(tmp_path)) == 2)
    (tmp_path / "go").touch()
    out = second.communicate(timeout=120)[0].strip()
    assert out == f"6 True {makes(tmp_path)[1]}"


#: A module whose fixture every test asks for, run by every worker
#: (`--dist each`): the fixture says in makes.log whenever it is made.
MODULE = textwrap.dedent(
    """
    import os
    from pathlib import Path

    import pytest
    from once_per_run import once_per_run

    LOG = Path(os.environ["ONCE_LOG"])

    @pytest.fixture(scope="module")
    def graded(request):
        def make(folder):
            with LOG.open("a") as log:
                worker = getattr(request.config, "workerinput", {}).get("workerid")
                log.write(f"{worker or 'alone'}\\n")
            (folder / "grades.json").write_text('{"alice": 6}')
            return folder / "grades.json"
        return once_per_run(request, make)

    @pytest.mark.parametrize("n", range(3))
    def test_reads(graded, n):
        assert graded.read_text() == '{"alice": 6}'
    """
)


@pytest.mark.parametrize(
    ("workers", "passed", "maker"),
    [
        # Three pytest processes: 6.5 CPU-seconds.
        pytest.param(["-n", "2", "--dist", "each"], 6, "gw", marks=pytest.mark.slow),
        (["-p", "no:xdist"], 3, "alone"),
    ],
    ids=["two-workers", "no-xdist"],
)
def test_a_module_fixture_is_made_once_in_a_pytest_run(
    tmp_path: Path, workers: list[str], passed: int, maker: str
) -> None:
    """Under `--dist each` both workers run all three tests."""
    (tmp_path / "test_once.py").write_text(MODULE)
    log = tmp_path / "makes.log"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *workers,
         "--basetemp", tmp_path / "base", "test_once.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")},
             "ONCE_LOG": str(log)},
        timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{passed} passed" in run.stdout
    made = log.read_text().splitlines()
    assert len(made) == 1 and made[0].startswith(maker), made
