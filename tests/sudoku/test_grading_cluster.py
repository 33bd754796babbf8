"""Grading on a real Dask cluster (distributed.LocalCluster, worker processes).

The tests that leave the cluster as they found it share one cluster of
the module (`shared_cluster`); those that kill a worker or add a plugin
start their own. Each grades with the real command line (`sudoku grade
--scheduler`), and compares with the local pool or looks at what the
cluster holds afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cluster_hooks import KillWorkerOnRun
from clusters import cluster, dask_command, stop
from distributed import Client
from run_plpuzzle import plpuzzle

from plpuzzle.cluster.worker_side import SLOT_BASE, running, sandboxes
from plpuzzle.sandbox.jail import SANDBOX_UID_BASE

pytestmark = [pytest.mark.sandbox]

REPO = Path(__file__).resolve().parents[2]
CLASS = REPO / "tests" / "fixtures" / "class"
SUITE = REPO / "tests" / "fixtures" / "grading_suite"


def make_class(tmp_path: Path, *students: str, copies: dict[str, str] | None = None) -> Path:
    """Some of the fixture class (and copies of its entries under new names)."""
    folder = tmp_path / "class"
    folder.mkdir()
    for name, source in {**{s: s for s in students}, **(copies or {})}.items():
        src = CLASS / (source if (CLASS / source).is_dir() else f"{source}.pl")
        if src.is_dir():
            shutil.copytree(src, folder / name)
        else:
            shutil.copy(src, folder / f"{name}.pl")
    return folder


def make_suite(tmp_path: Path, *tests: str) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    for test in tests:
        for kind in "ds":
            shutil.copy(SUITE / f"{test}{kind}.txt", folder)
    return folder


def grade_args(klass: Path, suite: Path, out: Path, *extra: str) -> list[str | Path]:
    """The same limits for both sides, test_grading.py's for the fixture
    class: its correct runs take at most 0.4 s of CPU a test, so 2 s keeps
    them correct and times out grace, who loops, in two thirds of the time
    3 s took; 512 MB of memory makes heidi, who hoards memory, meet the
    memory limit in a fraction of the CPU limit (with the default 2 GB she
    needed 3.07 s, a race with a 3 s limit)."""
    return [
        "sudoku", "grade", klass, "--suite", suite, "--out", out, "--no-feedback",
        "--time-limit", "2", "--memory-limit", "512", *extra,
    ]  # fmt: skip


def results(out: Path) -> dict[tuple[str, str], dict]:
    report = json.loads((out / "grades.json").read_text())
    return {(s["id"], r["test"]): r for s in report["students"] for r in s["results"]}


def stored_rows(out: Path) -> int:
    # Read-only: connecting must never create the file the grader is about to.
    uri = f"file:{out / 'grades.sqlite'}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
        return int(db.execute("SELECT count(*) FROM results").fetchone()[0])


def graded_now(stdout: str) -> int:
    line = next(ln for ln in stdout.splitlines() if "graded now" in ln)
    return int(line.split()[0])


def wait_until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.1)


def on_cluster(client: Client, function: Callable[[], int]) -> int:
    return sum(client.run(function).values())


@pytest.fixture(scope="module")
def shared_cluster() -> Iterator[tuple[str, Client]]:
    """One cluster of two workers for the tests that leave it as they found
    it (nothing running, no sandbox, every worker alive); each test that
    uses it checks, at its start, that it is so."""
    with cluster(2) as found:
        yield found


def as_found(found: tuple[str, Client]) -> tuple[str, Client]:
    """The shared cluster, checked to be idle with its two workers."""
    address, client = found
    assert len(client.scheduler_info()["workers"]) == 2
    wait_until(lambda: on_cluster(client, running) == 0, 60, "the shared cluster idle")
    assert on_cluster(client, sandboxes) == 0
    return address, client


def test_a_class_graded_on_the_cluster_gets_the_local_pools_grades(
    tmp_path: Path, shared_cluster: tuple[str, Client]
) -> None:
    # One student per grade, on the two tests that give every grade (dave
    # is wrong on test002 only): a third test showed nothing more.
    klass = make_class(tmp_path, "alice", "dave", "ivan", "judy", "victor", "heidi", "grace")
    suite = make_suite(tmp_path, "test001", "test002")
    local = plpuzzle(*grade_args(klass, suite, tmp_path / "local", "--jobs", "2"))
    assert local.returncode == 0, local.stderr
    address, client = as_found(shared_cluster)
    workers = set(client.scheduler_info()["workers"])
    remote = plpuzzle(*grade_args(klass, suite, tmp_path / "remote", "--scheduler", address))
    assert remote.returncode == 0, remote.stderr
    assert (tmp_path / "remote" / "grades.csv").read_text() == (
        tmp_path / "local" / "grades.csv"
    ).read_text()
    here, there = results(tmp_path / "local"), results(tmp_path / "remote")
    assert {k: r["grade"] for k, r in here.items()} == {k: r["grade"] for k, r in there.items()}
    assert {r["grade"] for r in there.values()} >= {
        "correct", "wrong", "crashed", "not loadable", "error", "timeout", "memory limit"
    }  # fmt: skip
    # Where each run ran: this machine, or one of the cluster's workers.
    host = socket.gethostname()
    assert {r["ran_on"] for r in here.values()} == {host}
    places = {r["ran_on"] for r in there.values()}
    assert places <= {f"{host} (dask worker {w})" for w in workers}, places
    # Every result recorded once; nothing left running or loaded.
    assert graded_now(remote.stdout) == stored_rows(tmp_path / "remote") == 14
    assert on_cluster(client, sandboxes) == 0
    # Resuming works as it does locally: everything comes from the gradebook.
    again = plpuzzle(*grade_args(klass, suite, tmp_path / "remote", "--scheduler", address))
    assert again.returncode == 0, again.stderr
    assert "0 test run(s) graded now, 14 taken from the gradebook" in again.stdout


@pytest.mark.slow
def test_the_whole_fixture_class_on_the_cluster_matches_the_local_pool(
    tmp_path: Path, shared_cluster: tuple[str, Client]
) -> None:
    # Every solver of the class, on the tests where none is near the limit
    # (a run near it may end either way, on the cluster as locally).
    klass = CLASS
    suite = make_suite(tmp_path, "test001", "test002", "test003", "test004", "test005")
    local = plpuzzle(*grade_args(klass, suite, tmp_path / "local", "--jobs", "2"))
    assert local.returncode == 0, local.stderr
    address, _ = as_found(shared_cluster)
    remote = plpuzzle(*grade_args(klass, suite, tmp_path / "remote", "--scheduler", address))
    assert remote.returncode == 0, remote.stderr
    assert (tmp_path / "remote" / "grades.csv").read_text() == (
        tmp_path / "local" / "grades.csv"
    ).read_text()
    assert (tmp_path / "remote" / "grades-wide.csv").read_text() == (
        tmp_path / "local" / "grades-wide.csv"
    ).read_text()


@pytest.mark.slow
def test_a_worker_killed_mid_grading_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    # grace loops until the CPU limit: a run is going on when the worker dies.
    klass = make_class(tmp_path, "alice", "grace", "carol")
    suite = make_suite(tmp_path, "test001", "test002", "test003", "test004")
    local = plpuzzle(*grade_args(klass, suite, tmp_path / "local", "--jobs", "2"))
    assert local.returncode == 0, local.stderr
    with cluster(2) as (address, client):
        args = grade_args(klass, suite, tmp_path / "remote", "--scheduler", address)
        proc = subprocess.Popen(
            [sys.executable, "-m", "plpuzzle", *map(str, args)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            wait_until(
                lambda: stored_rows_or_zero(tmp_path / "remote") >= 2 or proc.poll() is not None,
                120,
                "2 grades",
            )
            assert proc.poll() is None, proc.communicate()
            wait_until(lambda: any(client.run(running).values()), 60, "a run going on")
            busy = {a: n for a, n in client.run(running).items() if n}
            victim = sorted(busy)[0]
            pid = client.run(os.getpid)[victim]
            os.kill(pid, signal.SIGKILL)
            stdout, stderr = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert victim not in client.scheduler_info()["workers"]
    assert proc.returncode == 0, stderr
    assert (tmp_path / "remote" / "grades.csv").read_text() == (
        tmp_path / "local" / "grades.csv"
    ).read_text()
    assert {k: r["grade"] for k, r in results(tmp_path / "remote").items()} == {
        k: r["grade"] for k, r in results(tmp_path / "local").items()
    }
    assert graded_now(stdout) == stored_rows(tmp_path / "remote") == 12


def stored_rows_or_zero(out: Path) -> int:
    try:
        return stored_rows(out)
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_a_run_that_kills_its_worker_twice_is_crashed_and_not_retried_forever(
    tmp_path: Path,
) -> None:
    klass = make_class(tmp_path, "alice", copies={"killer": "alice"})
    with (klass / "killer.pl").open("a") as killer:  # a file of its own (grades go by content)
        killer.write("% killer\n")
    suite = make_suite(tmp_path, "test001", "test002")
    with cluster(2) as (address, client):
        client.register_plugin(KillWorkerOnRun("-killer-test001"))
        done = plpuzzle(
            *grade_args(klass, suite, tmp_path / "out", "--scheduler", address),
            timeout=400,
        )
    assert done.returncode == 0, done.stderr
    got = results(tmp_path / "out")
    assert got[("killer", "test001")]["grade"] == "crashed"
    assert "died under it" in got[("killer", "test001")]["detail"]
    # The runs that merely shared a dying worker are graded as usual.
    assert got[("killer", "test002")]["grade"] == "correct"
    assert got[("alice", "test001")]["grade"] == got[("alice", "test002")]["grade"] == "correct"
    assert graded_now(done.stdout) == stored_rows(tmp_path / "out") == 4


@pytest.mark.slow
def test_a_worker_that_cannot_sandbox_is_refused_by_name(tmp_path: Path) -> None:
    klass = make_class(tmp_path, "alice", "carol")
    suite = make_suite(tmp_path, "test001")
    # A worker whose PATH has SWI-Prolog but no bubblewrap.
    bin_without_bwrap = tmp_path / "bin"
    bin_without_bwrap.mkdir()
    (bin_without_bwrap / "swipl").symlink_to(shutil.which("swipl") or "/usr/bin/swipl")
    scheduler_file = tmp_path / "scheduler.json"
    scheduler = dask_command(
        "scheduler", "--port", "0", "--no-dashboard", "--scheduler-file", scheduler_file,
        env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"},
    )  # fmt: skip
    workers: list[subprocess.Popen] = []  # type: ignore[type-arg]
    try:
        wait_until(scheduler_file.exists, 60, "the scheduler's address")
        wait_until(lambda: "address" in scheduler_file.read_text(), 10, "the address")
        address = json.loads(scheduler_file.read_text())["address"]
        client = Client(address, set_as_default=False, timeout=60)
        no_bwrap = {"PATH": str(bin_without_bwrap)}
        workers.append(dask_command("worker", address, "--nthreads", "1", env=no_bwrap))
        client.wait_for_workers(1, timeout=60)
        (bad_address,) = client.scheduler_info()["workers"]
        alone = plpuzzle(*grade_args(klass, suite, tmp_path / "alone", "--scheduler", address))
        assert alone.returncode == 3, alone.stderr
        assert "no Dask worker can sandbox submissions" in alone.stderr
        assert bad_address in alone.stderr and "bubblewrap" in alone.stderr
        assert "Traceback" not in alone.stderr

        workers.append(dask_command("worker", address, "--nthreads", "1"))
        client.wait_for_workers(2, timeout=60)
        (good_address,) = set(client.scheduler_info()["workers"]) - {bad_address}
        mixed = plpuzzle(*grade_args(klass, suite, tmp_path / "mixed", "--scheduler", address))
        assert mixed.returncode == 0, mixed.stderr
        assert f"warning: Dask worker {bad_address} refused" in mixed.stderr
        places = {r["ran_on"] for r in results(tmp_path / "mixed").values()}
        assert places == {f"{socket.gethostname()} (dask worker {good_address})"}
        client.close()
    finally:
        for proc in [*workers, scheduler]:
            stop(proc)


def sandbox_processes(client: Client) -> list[int]:
    """Live processes under a sandbox uid that descend from the cluster's workers."""
    workers = set(client.run(os.getpid).values())
    first = SANDBOX_UID_BASE + SLOT_BASE
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError, StopIteration):
            fields = dict(ln.split(":", 1) for ln in status.read_text().splitlines() if ":" in ln)
            if int(fields["Uid"].split()[1]) < first or fields["State"].split()[0] == "Z":
                continue
            pid = int(status.parent.name)
            if workers & ancestors(pid):
                found.append(pid)
    return found


def ancestors(pid: int) -> set[int]:
    seen: set[int] = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return seen


@pytest.mark.slow
def test_ctrl_c_leaves_no_tasks_or_sandboxes_behind(
    tmp_path: Path, shared_cluster: tuple[str, Client]
) -> None:
    klass = make_class(tmp_path, "grace", copies={"grace2": "grace", "grace3": "grace"})
    suite = make_suite(tmp_path, "test001", "test002", "test003")
    address, client = as_found(shared_cluster)
    args = grade_args(klass, suite, tmp_path / "out", "--scheduler", address)
    args[args.index("--time-limit") + 1] = "100"
    proc = subprocess.Popen(
        [sys.executable, "-m", "plpuzzle", *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_until(lambda: on_cluster(client, running) == 2, 120, "both workers running")
        # A task runs a moment before its sandbox's first process starts.
        wait_until(lambda: len(sandbox_processes(client)) > 0, 60, "a sandboxed process")
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    # A lambda is sent by value: the scheduler's process cannot import tests.
    tasks = lambda dask_scheduler: [str(k) for k in dask_scheduler.tasks]  # noqa: E731
    wait_until(lambda: not client.run_on_scheduler(tasks), 30, "no task left")
    wait_until(
        lambda: on_cluster(client, sandboxes) == 0,
        30,
        f"no sandbox on any worker: {client.run(sandboxes)}, running {client.run(running)}",
    )
    wait_until(lambda: not sandbox_processes(client), 30, "no sandboxed process on the machine")
