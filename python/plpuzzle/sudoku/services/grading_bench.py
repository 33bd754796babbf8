"""The grader before and after a change, side by side (`make bench-grade`).

"Before" is the grader as of a git revision (default 96b44e0, the last
one that ran every (submission, test) pair in a fresh sandboxed worker),
extracted with `git archive` into a temporary folder; "after" is the
working tree. Both run in subprocesses of the same interpreter, told
apart by PYTHONPATH, on the fixture class (tests/fixtures/class) and a
fixed slice of the official suite (its first tests in natural order).

Two measurements, each made for both versions, alternately (before,
after, before, after), so that noise from the machine hits both alike:

a. Per-test overhead: a small driver calls the version's `grade_class`
   with one job and timestamps every result as it is recorded. The
   overhead of a pair is the time since the previous result (or since
   the start) minus the run's own time as its TestGrade records it.
b. Throughput: the version's real command line (`plpuzzle sudoku
   grade`) on the class with --jobs J, timed by the wall clock; for
   "after" also with --scheduler on a LocalCluster of two workers
   (plpuzzle.cluster.local.local_cluster), which the bench starts and
   closes itself, its start-up timed apart.
c. Grading only ("after"): the command line with --no-feedback, on the
   local pool and on the cluster.

Then the per-run costs that decide how grading on a cluster scales: a
client process of its own pushes trivial tasks shaped like runs through
the cluster and scatters submission-sized payloads; the gradebook's calls
are timed on an SQLite file; what is shipped is weighed. From these
figures the report projects bigger classes on more machines, so the
projection stays true to whatever was measured.

    python -m plpuzzle.sudoku.services.grading_bench [--suite DIR] [--tests N]
        [--time-limit S] [--jobs J] [--before REV] OUT.md
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import pickle
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from plpuzzle.machine import load_average, load_text, machine_info, machine_markdown
from plpuzzle.sudoku.services.suite import discover

if TYPE_CHECKING:
    from distributed import Client, LocalCluster

    from plpuzzle.sudoku.services.grading import GradeSettings, Submission, TestGrade
    from plpuzzle.sudoku.services.suite import SuiteCase

REPO = Path(__file__).resolve().parents[4]
DEFAULT_SUITE = REPO.parent / "shared" / "bme-2013-oddsum" / "tests"
CLASS = REPO / "tests" / "fixtures" / "class"
RULES = "oddsum"
DEFAULT_BEFORE = "96b44e0"
MEMORY_MB = 1024
#: Longest a single measurement may take before it is stopped.
RUN_TIMEOUT = 3600.0
#: The cluster measured beside the local pool: local_cluster(CLUSTER_WORKERS).
CLUSTER_WORKERS = 2
#: Trivial tasks pushed through it, and submission-sized payloads scattered to it.
PROBE_TASKS = 2000
PROBE_PAYLOADS = 300
#: Gradebook calls of each kind timed on a real SQLite file.
BOOK_CALLS = 2000
#: The class the projection is for, the machines it is projected on, and the
#: workers per machine (like this one: 2 cores, 2 worker processes).
PROJECT_STUDENTS = 300
PROJECT_TESTS = 271
PROJECT_MACHINES = (1, 4, 16)
WORKERS_PER_MACHINE = 2
#: The class of the "many students" plan, on the largest of PROJECT_MACHINES.
PLAN_STUDENTS = 10_000
T = TypeVar("T")

#: Grades in report order; any other grade a version knows comes after them.
GRADE_ORDER = ("correct", "wrong", "timeout", "memory limit", "crashed", "load error", "error")

#: Run with `python -c` under either version's PYTHONPATH: grades the class
#: with one job and prints, as JSON on stdout, every result with the time
#: it was recorded at. Anything else written to stdout goes to stderr.
DRIVER = r"""
import inspect, json, os, sys, time
from pathlib import Path

out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
try:
    from plpuzzle.sudoku.services import grading as g
    from plpuzzle.sudoku.domain.model import Rules
    from plpuzzle.sudoku.services.suite import discover
except ImportError:  # a grader from before the package was split into layers
    from plpuzzle.sudoku import grading as g
    from plpuzzle.sudoku.model import Rules
    from plpuzzle.sudoku.suite import discover

class_dir, suite = Path(sys.argv[1]), Path(sys.argv[2])
subs = g.find_submissions(class_dir)
cases = discover(suite)
settings = g.GradeSettings(
    rules=Rules(sys.argv[3]), time_limit=float(sys.argv[4]), memory_mb=int(sys.argv[5])
)
results = []
start = 0.0


def record(sub, case, grade, fresh):
    results.append({
        "at": time.perf_counter() - start,
        "student": sub.student,
        "test": case.name,
        "grade": str(grade.grade.value),
        "wall": grade.wall_seconds,
        "cpu": grade.cpu_seconds,
        "detail": grade.detail[:200],
    })


if "hooks" in inspect.signature(g.grade_class).parameters:
    api = "grade_class(..., Hooks(stored, record), jobs=1)"
    hidden = g.hidden_paths(suite, class_dir) if hasattr(g, "hidden_paths") else None
    start = time.perf_counter()
    g.grade_class(subs, cases, settings, g.Hooks(lambda s, c: None, record), 1, hidden)
else:
    api = "grade_class(..., done, record, jobs=1)"
    start = time.perf_counter()
    g.grade_class(subs, cases, settings, lambda s, c: None, record, 1)
total = time.perf_counter() - start
json.dump({"api": api, "total": total, "results": results}, out)
out.write("\n")
out.flush()
"""


# --- the pure parts -------------------------------------------------------------


def overheads(times: Sequence[float], own: Sequence[float]) -> list[float]:
    """Per result: the time since the previous one (or since 0) minus its own time.

    `times` are when the results were recorded, in order, counted from
    the start; `own` is each run's own time as its grade records it.
    """
    if len(times) != len(own):
        raise ValueError("one own time per timestamp")
    out = []
    previous = 0.0
    for at, spent in zip(times, own, strict=True):
        out.append(at - previous - spent)
        previous = at
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), interpolating linearly between ranks."""
    if not values:
        raise ValueError("no values")
    if not 0 <= q <= 100:
        raise ValueError("q must be within 0..100")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def ratio_text(before: float | None, after: float | None) -> str:
    """after / before, or n/a when either is missing or before is zero."""
    if before is None or after is None or before == 0:
        return "n/a"
    return f"{after / before:.3g}"


def value_text(value: float | None, unit: str) -> str:
    """A measure for the table: seconds shown as ms or s, or a plain rate."""
    if value is None:
        return "n/a"
    if unit == "ms":
        return f"{value * 1000:.1f} ms"
    if unit == "s":
        return f"{value:.1f} s"
    return f"{value:.1f}"


@dataclass
class Measure:
    """One line of the comparison table; times in seconds."""

    label: str
    before: float | None
    after: float | None
    unit: str  # "ms" or "s" (value in seconds), or "" for a plain number


def comparison_table(measures: Sequence[Measure], with_before: bool = True) -> list[str]:
    """The measures as a Markdown table: before, after, after / before."""
    if not with_before:
        lines = ["| measure | after |", "|---|---:|"]
        return lines + [f"| {m.label} | {value_text(m.after, m.unit)} |" for m in measures]
    lines = ["| measure | before | after | after / before |", "|---|---:|---:|---:|"]
    for m in measures:
        lines.append(
            f"| {m.label} | {value_text(m.before, m.unit)} | {value_text(m.after, m.unit)} "
            f"| {ratio_text(m.before, m.after)} |"
        )
    return lines


#: (student, test) -> grade
Grades = Mapping[tuple[str, str], str]


def grade_names(*gradings: Grades) -> list[str]:
    """Every grade that occurs, in report order."""
    seen = {g for grades in gradings for g in grades.values()}
    return [g for g in GRADE_ORDER if g in seen] + sorted(seen - set(GRADE_ORDER))


def grade_differences(before: Grades, after: Grades) -> dict[str, list[tuple[str, str, str]]]:
    """Per student, the tests graded differently: (test, before, after)."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for key in sorted(set(before) | set(after)):
        b, a = before.get(key, "-"), after.get(key, "-")
        if b != a:
            out.setdefault(key[0], []).append((key[1], b, a))
    return out


# --- the projection (pure) -----------------------------------------------------------


def duration_text(seconds: float) -> str:
    """A duration in the unit that reads best: µs, ms, s, min or h."""

    def sig(x: float) -> str:
        return f"{x:.3g}" if x < 100 else f"{x:.0f}"

    if seconds < 1e-3:
        return f"{sig(seconds * 1e6)} µs"
    if seconds < 1:
        return f"{sig(seconds * 1e3)} ms"
    if seconds < 120:
        return f"{sig(seconds)} s"
    if seconds < 7200:
        return f"{sig(seconds / 60)} min"
    return f"{sig(seconds / 3600)} h"


def bytes_text(count: float) -> str:
    """A size in B, KiB, MiB or GiB."""
    for unit in ("B", "KiB", "MiB"):
        if count < 1024:
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GiB"


def filesystem_type(path: Path, mounts: str) -> str:
    """The type of the file system holding `path`, from /proc/mounts' text."""
    best, kind = "", "unknown"
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = str(path) == point or str(path).startswith(point.rstrip("/") + "/")
        if inside and len(point) > len(best):
            best, kind = point, fields[2]
    return kind


@dataclass
class RateRow:
    """One line of the throughput table: a grading of the whole class, timed."""

    version: str
    how: str
    pairs: int
    wall: float
    #: The cluster's start-up, kept out of the rate (None: no cluster).
    startup: float | None = None

    @property
    def runs_per_minute(self) -> float:
        return self.pairs / (self.wall / 60) if self.wall > 0 else 0.0


def rate_table(rows: Sequence[RateRow]) -> list[str]:
    """The gradings as a Markdown table, runs per minute on every line."""
    lines = [
        "| version | how and where | runs | wall | runs per minute | cluster start-up "
        "(not in the rate) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        startup = duration_text(r.startup) if r.startup is not None else ""
        lines.append(
            f"| {r.version} | {r.how} | {r.pairs} | {r.wall:.1f} s | {r.runs_per_minute:.1f} "
            f"| {startup} |"
        )
    return lines


@dataclass(frozen=True)
class Costs:
    """The measured costs the projection scales, in seconds."""

    run: float  # a slot's time per (submission, test) run on the local pool
    load: float  # loading a submission into a sandbox
    round_trip: float  # a worker's time per task besides the run (trivial tasks)
    scheduler: float  # the scheduler's CPU per task
    client: float  # the client's own Dask CPU per task (submit, receive)
    book: float  # the client's gradebook get + claim + put, per run
    batched: float  # gradebook rows written in one transaction, per row
    ship: float  # scattering one submission to the cluster
    startup: float  # starting the cluster until its workers are admitted

    def client_per_run(self, tests: int) -> float:
        """The client process's work per run: Dask, the gradebook, shipping."""
        return self.client + self.book + self.ship / tests

    def serial_parts(self, tests: int) -> list[tuple[str, float]]:
        """What the scheduler and the client do per run, which more machines do not
        share; largest first."""
        parts = [
            ("the scheduler's per-task work", self.scheduler),
            ("the client's SQLite gradebook writes", self.book),
            ("the client's own Dask work", self.client),
            ("shipping submissions", self.ship / tests),
        ]
        return sorted(parts, key=lambda part: -part[1])

    def pace(self, tests: int) -> float:
        """Seconds per run of the slower of the scheduler and the client process."""
        return max(self.scheduler, self.client_per_run(tests))


@dataclass(frozen=True)
class Projection:
    """Projected wall time of a class on `machines` machines, in seconds, by part."""

    machines: int
    workers: int
    runs: float  # the runs and each worker's round trip per task, spread over the workers
    loading: float  # each worker loading the submissions it runs tests of
    serial: float  # scheduler and client, one after the other
    paced: float  # the same, if the scheduler and the client overlapped each other
    startup: float

    @property
    def total(self) -> float:
        """Every part added: linear in the runs, plus the overheads."""
        return self.runs + self.loading + self.serial + self.startup

    @property
    def overlapped(self) -> float:
        """If the scheduler's and client's work hid entirely behind the runs."""
        return max(self.runs + self.loading, self.paced) + self.startup


def project(costs: Costs, students: int, tests: int, machines: int, per_machine: int) -> Projection:
    """The wall time of `students` x `tests` runs on `machines` machines.

    A submission's tests are queued together (one task each), so every
    worker free at the time takes one: each worker loads nearly every
    submission, and loading does not shrink with more machines.
    """
    workers = machines * per_machine
    pairs = students * tests
    return Projection(
        machines,
        workers,
        runs=pairs * (costs.run + costs.round_trip) / workers,
        loading=students * costs.load * min(workers, tests) / workers,
        serial=pairs * (costs.scheduler + costs.client_per_run(tests)),
        paced=pairs * costs.pace(tests),
        startup=costs.startup,
    )


def machines_kept_busy(costs: Costs, tests: int, per_machine: int) -> float:
    """How many machines the scheduler and client can keep fed; beyond, they set the pace."""
    return (costs.run + costs.round_trip) / (per_machine * costs.pace(tests))


def projection_lines(
    costs: Costs, students: int, tests: int, machines: Sequence[int], per_machine: int
) -> list[str]:
    """The projection as Markdown: what was assumed, a table, and what bottlenecks first."""
    d = duration_text
    lines = [
        f"{students} students x {tests} tests = {students * tests:,} runs. Assumed: each "
        f"machine is like this one, {per_machine} cores running {per_machine} worker "
        "processes of one run at a time, and the client (with its gradebook) and the "
        "scheduler on machines of their own. The projection is linear in the runs, plus "
        "overheads, every figure from the tables above: a run takes a worker "
        f"{d(costs.run)} (a slot's time per run on the local pool) plus {d(costs.round_trip)} "
        f"of round trip to the scheduler; each worker loads each submission once "
        f"({d(costs.load)} a load), as a submission's tests go to every free worker at once; "
        f"the scheduler spends {d(costs.scheduler)} of CPU per task, and the client "
        f"{d(costs.client)} of Dask work and {d(costs.book)} of gradebook writes per run and "
        f"{d(costs.ship)} per submission shipped, whatever the number of machines; the "
        f"cluster starts in {d(costs.startup)}. The run's cost is this fixture class's mix "
        "(its timeouts and memory-limit runs weigh heavily); a real class's mix scales the "
        "runs column.",
        "",
        "| machines | workers | runs | loading | scheduler + client | projected (all added) "
        "| if scheduler and client overlap the runs |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in machines:
        p = project(costs, students, tests, m, per_machine)
        lines.append(
            f"| {m} | {p.workers} | {d(p.runs)} | {d(p.loading)} | {d(p.serial)} "
            f"| **{d(p.total)}** | {d(p.overlapped)} |"
        )
    return [*lines, "", bottleneck_text(costs, students, tests, max(machines), per_machine)]


def bottleneck_text(
    costs: Costs, students: int, tests: int, machines: int, per_machine: int
) -> str:
    """Which per-run cost that more machines do not share is largest, and when it bites."""
    d = duration_text
    parts = costs.serial_parts(tests)
    named = "; ".join(f"{name} {d(cost)}" for name, cost in parts)
    busy = machines_kept_busy(costs, tests, per_machine)
    first = parts[0][0]
    slower = "scheduler" if costs.scheduler >= costs.client_per_run(tests) else "client"
    if busy >= machines:
        verdict = f"at {machines} machines they are not the limit yet; the runs are."
    else:
        verdict = (
            f"beyond that, more machines do not help: the {slower} sets the pace, "
            f"{d(students * tests * costs.pace(tests))} for the class whatever the machines."
        )
    return (
        f"What bottlenecks first: per run, besides the run itself, {named} (shipping is "
        f"{d(costs.ship)} per submission over its {tests} tests). The largest single part "
        f"is {first}. The scheduler and the client are separate processes: the scheduler "
        f"spends {d(costs.scheduler)} per run, the client {d(costs.client_per_run(tests))} "
        f"(Dask, SQLite, shipping), so the {slower} is the slower and hands out a run every "
        f"{d(costs.pace(tests))} at best; a machine finishes one every "
        f"{d((costs.run + costs.round_trip) / per_machine)}, so together they keep about "
        f"{busy:.3g} machines fed; {verdict} Loading stays {d(students * costs.load)} per "
        "worker however many machines there are (this errs high: the local pool's time "
        "per run already includes its one load per submission)."
    )


def scale_plan_lines(
    costs: Costs, students: int, tests: int, machines: int, per_machine: int, mean_bytes: float
) -> list[str]:
    """The 'at many students' plan, with the figures it rests on."""
    pairs = students * tests
    d = duration_text
    p = project(costs, students, tests, machines, per_machine)
    return [
        f"At {students:,} students ({pairs:,} runs) on {machines} machines, the runs alone "
        f"take {d(p.runs)} and loading {d(p.loading)}. As built, with one task per run, all "
        f"submitted at once, and one SQLite transaction per claim and per result, the "
        f"client would hold {pairs:,} futures and the scheduler as many tasks, past the "
        "million or so where Dask's documentation warns that a graph's overhead becomes "
        f"considerable (not measured here); the scheduler's CPU alone would be "
        f"{d(pairs * costs.scheduler)}, the client's Dask work {d(pairs * costs.client)} "
        f"and its gradebook writes {d(pairs * costs.book)}. What would change:",
        "",
        f"- Batch the tests: one task per submission (or per block of tests), its tests run "
        f"in the sandbox it loaded once: {students:,} tasks, "
        f"{d(students * (costs.scheduler + costs.client))} of scheduler and client work, "
        f"one load per submission ({d(students * costs.load)} of worker time in all, shared "
        f"by the workers, instead of {d(students * costs.load)} on each), and no per-run "
        "round trip "
        f"({d(pairs * costs.round_trip / (machines * per_machine))} saved on {machines} "
        "machines). The price: a run that kills its worker takes its batch along, to be "
        "retried as a whole, and long batches lengthen the tail.",
        f"- Write results in bulk: one transaction per batch measured {d(costs.batched)} a "
        f"row against {d(costs.book)} for get + claim + put one by one, so "
        f"{d(pairs * costs.batched)} of writes instead of {d(pairs * costs.book)}; claim a "
        "batch, not a run.",
        "- Keep a bounded window of tasks out (a few per worker) rather than every run at "
        "once, so that the client's and the scheduler's memory stays flat.",
        "- Shard the gradebook by student range, one file per client, merged for the "
        "reports: SQLite's WAL mode serves one host, and one writer is one core.",
        f"- Shipping stays small: {bytes_text(students * mean_bytes)} of submissions in "
        f"all, {d(students * costs.ship)} of scattering at the measured rate.",
    ]


# --- the measurements -------------------------------------------------------------


@dataclass
class Pair:
    """One result as the driver recorded it."""

    student: str
    test: str
    grade: str
    at: float  # seconds since grading started
    wall: float
    cpu: float
    detail: str = ""


@dataclass
class DriverRun:
    """Measurement a: one version's grade_class, one job, every result timed."""

    api: str
    total: float
    pairs: list[Pair]

    def overheads(self, own: Callable[[Pair], float]) -> list[float]:
        return overheads([p.at for p in self.pairs], [own(p) for p in self.pairs])

    def first_of_each(self) -> list[bool]:
        """Whether each pair is the first recorded of its submission."""
        seen: set[str] = set()
        out = []
        for p in self.pairs:
            out.append(p.student not in seen)
            seen.add(p.student)
        return out

    @property
    def grades(self) -> dict[tuple[str, str], str]:
        return {(p.student, p.test): p.grade for p in self.pairs}

    @property
    def details(self) -> dict[tuple[str, str], str]:
        return {(p.student, p.test): p.detail for p in self.pairs}


@dataclass
class CliRun:
    """Measurements b and c: a command line on the class, timed."""

    wall: float
    grades: dict[tuple[str, str], str]
    details: dict[tuple[str, str], str]
    #: Each run's own wall_seconds and where it ran, as grades.json has them.
    walls: dict[tuple[str, str], float] = field(default_factory=dict)
    places: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def pairs(self) -> int:
        return len(self.grades)

    @property
    def runs_per_minute(self) -> float:
        return self.pairs / (self.wall / 60)

    def slot_seconds(self, slots: int) -> float:
        """Wall time times the slots that ran it, per run: what a run costs a slot."""
        return self.wall * slots / self.pairs

    def mean_run_wall(self) -> float | None:
        """The mean of the runs' own wall_seconds (the sandboxed run alone)."""
        return sum(self.walls.values()) / len(self.walls) if self.walls else None


@dataclass
class Step:
    """One subprocess of the bench, for the report's list of runs."""

    version: str
    what: str
    wall: float
    load_before: tuple[float, ...] | None
    load_after: tuple[float, ...] | None
    note: str = ""


@dataclass
class Version:
    """A grader to measure: which code, and what it gave."""

    label: str
    source: str
    pythonpath: Path
    driver: DriverRun | None = None
    cli: CliRun | None = None
    #: Measurement c (after only): the command line without feedback, local pool.
    grading_only: CliRun | None = None
    problems: list[str] = field(default_factory=list)


@dataclass
class Setup:
    """What every measurement shares; `machine` as machine_info() gave it at the start."""

    tests: list[str]
    suite: Path
    time_limit: float
    jobs: int
    machine: list[tuple[str, str]]


class MeasureFailed(Exception):
    """A measurement subprocess failed; the message says how."""


def _run(argv: list[str], pythonpath: Path, log: Path) -> tuple[float, str]:
    """Run `argv` from the repository with PYTHONPATH; (wall seconds, stdout).

    stderr goes to `log`. Raises MeasureFailed on a non-zero exit or
    after RUN_TIMEOUT, killing the whole process group.
    """
    env = {**os.environ, "PYTHONPATH": str(pythonpath), "PYTHONDONTWRITEBYTECODE": "1"}
    with log.open("wb") as err, tempfile.TemporaryFile() as out:
        began = time.perf_counter()
        proc = subprocess.Popen(
            argv, stdout=out, stderr=err, env=env, cwd=REPO, start_new_session=True
        )
        try:
            code = proc.wait(RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise MeasureFailed(f"stopped after {RUN_TIMEOUT:g} s") from None
        wall = time.perf_counter() - began
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    if code != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-3:] if log.exists() else []
        raise MeasureFailed(f"exit status {code}: " + " / ".join(tail))
    return wall, text


def run_driver(
    version: Version, suite: Path, time_limit: float, work: Path, tag: str
) -> tuple[DriverRun, float]:
    argv = [sys.executable, "-c", DRIVER, str(CLASS), str(suite), RULES]
    argv += [f"{time_limit:g}", str(MEMORY_MB)]
    wall, out = _run(argv, version.pythonpath, work / f"driver-{tag}.log")
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        raise MeasureFailed("the driver printed no results")
    data = json.loads(lines[-1])
    pairs = [
        Pair(r["student"], r["test"], r["grade"], r["at"], r["wall"], r["cpu"], r["detail"])
        for r in data["results"]
    ]
    return DriverRun(data["api"], data["total"], pairs), wall


def run_cli(
    version: Version,
    suite: Path,
    time_limit: float,
    where: Sequence[str],
    work: Path,
    tag: str,
    feedback: bool = True,
) -> tuple[CliRun, float]:
    """The version's command line on the class; `where` says where the runs go
    (--jobs J for the local pool, --scheduler ADDRESS for a cluster)."""
    report = work / f"report-{tag}"  # fresh: its gradebook starts empty
    argv = [sys.executable, "-m", "plpuzzle", "sudoku", "grade", str(CLASS)]
    argv += ["--suite", str(suite), "--rules", RULES, "--time-limit", f"{time_limit:g}"]
    # --report, not --out: the grader of 96b44e0 runs this too, and knows only that name
    argv += ["--memory-limit", str(MEMORY_MB), *where, "--report", str(report)]
    if not feedback:
        argv.append("--no-feedback")
    wall, _ = _run(argv, version.pythonpath, work / f"cli-{tag}.log")
    try:
        data = json.loads((report / "grades.json").read_text())
    except (OSError, ValueError) as e:
        raise MeasureFailed(f"no readable grades.json: {e}") from None
    run = CliRun(wall, {}, {})
    for student in data["students"]:
        for r in student["results"]:
            key = (student["id"], r["test"])
            run.grades[key] = r["grade"]
            run.details[key] = r.get("detail", "")
            if "wall_seconds" in r:
                run.walls[key] = float(r["wall_seconds"])
            run.places[key] = r.get("ran_on", "")
    return run, wall


def make_slice(suite: Path, count: int, dest: Path) -> list[str]:
    """Copy the first `count` tests of `suite` (natural order) into `dest`."""
    cases = discover(suite)[:count]
    dest.mkdir(parents=True)
    for case in cases:
        shutil.copy2(case.puzzle_path, dest)
        if case.expected_path.is_file():
            shutil.copy2(case.expected_path, dest)
    return [c.name for c in cases]


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)


def extract_revision(rev: str, dest: Path) -> tuple[str | None, str]:
    """The grader of `rev` unpacked in `dest`: (its description, "") or (None, why not)."""
    if shutil.which("git") is None:
        return None, "git is not installed"
    found = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if found.returncode != 0:
        return None, f"revision {rev} is not in the repository at {REPO}"
    dest.mkdir(parents=True)
    archive = subprocess.Popen(
        ["git", "-C", str(REPO), "archive", rev, "python", "prolog"], stdout=subprocess.PIPE
    )
    unpacked = subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout)
    assert archive.stdout
    archive.stdout.close()
    if archive.wait() != 0 or unpacked.returncode != 0:
        return None, f"could not extract {rev} with git archive"
    described = _git("log", "-1", "--format=%h (%cs) %s", rev).stdout.strip()
    return described or rev, ""


def working_tree() -> str:
    """HEAD and the files under python/ and prolog/ that differ from it."""
    if shutil.which("git") is None:
        return "the working tree (git not available)"
    head = _git("log", "-1", "--format=%h (%cs) %s").stdout.strip()
    if not head:
        return "the working tree (not a git checkout)"
    changed = _git("status", "--porcelain", "--", "python", "prolog").stdout.splitlines()
    text = f"the working tree at {head}"
    if changed:
        names = ", ".join(line[3:] for line in changed[:12]) + (
            ", ..." if len(changed) > 12 else ""
        )
        text += f", with {len(changed)} uncommitted change(s) under python/ and prolog/: {names}"
    return text


# --- the cluster and the per-run costs -----------------------------------------------------


def trivial_run(
    spec: object, digest: str, files: object, goals: dict[str, str], test: str, template: str
) -> int:
    """A task shaped like a graded run (same arguments, shipped the same way) that does nothing."""
    return len(goals[test])


#: Run with `python -c` ADDRESS SUITE TASKS PAYLOADS TIME_LIMIT: a client of
#: its own, as the grader's is, measures the cluster; JSON on stdout.
PROBE = r"""
import json, os, sys
out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
from plpuzzle.sudoku.services.grading_bench import probe
a = sys.argv
json.dump(probe(a[1], a[2], int(a[3]), int(a[4]), float(a[5])), out)
out.write("\n")
out.flush()
"""


def process_seconds() -> float:
    """CPU seconds of this process (for run_on_scheduler: the scheduler's)."""
    return time.process_time()


def probe(address: str, suite: str, tasks: int, payloads: int, time_limit: float) -> dict:
    """Push trivial tasks through the cluster and scatter payloads; seconds."""
    from plpuzzle.cluster.client_side import admit, connect

    subs = _class()
    cases = discover(Path(suite))
    with connect(address) as client:
        admit(client)
        scheduler = client.run_on_scheduler(process_seconds)
        own = time.process_time()
        submit, through = push_trivial(client, subs, cases, tasks, time_limit)
        own = time.process_time() - own
        scheduler = client.run_on_scheduler(process_seconds) - scheduler
        scatter = scatter_payloads(client, subs, payloads)
    return {
        "tasks": tasks,
        "submit": submit,
        "through": through,
        "client_cpu": own,
        "scheduler_cpu": scheduler,
        "payloads": payloads,
        "scatter": scatter,
    }


def push_trivial(
    client: Client, subs: list[Submission], cases: list[SuiteCase], count: int, time_limit: float
) -> tuple[float, float]:
    """`count` trivial tasks with the grader's key, resources and priority pattern:
    (seconds to submit them all, seconds from the first submit to the last result)."""
    from distributed import as_completed

    from plpuzzle.cluster.client_side import ship
    from plpuzzle.cluster.worker_side import RESOURCE, RunSpec
    from plpuzzle.sandbox.workspace import new_run_id
    from plpuzzle.sudoku.services.grading import SOLVER_NAME, goal_for

    settings = _settings(time_limit)
    spec = RunSpec(new_run_id(), SOLVER_NAME, "sudoku/2", settings.dialect, settings.limits())
    goals = ship(client, "bench-goals", spec.run_id, {c.name: goal_for(c) for c in cases})
    files = {
        s.digest: ship(client, "bench-files", f"{spec.run_id}-{s.digest[:24]}", s.files)
        for s in subs
    }
    began = time.perf_counter()
    futures = []
    for i in range(count):
        sub, case = subs[i // len(cases) % len(subs)], cases[i % len(cases)]
        futures.append(
            client.submit(
                trivial_run,
                spec,
                sub.digest,
                files[sub.digest],
                goals,
                case.name,
                "Sol",
                key=f"plpuzzle-bench-{spec.run_id}-{i}",
                resources={RESOURCE: 1},
                pure=False,
                priority=-(i // len(cases)),
            )
        )
    submitted = time.perf_counter() - began
    for future in as_completed(futures, loop=client.loop):
        future.result()
    through = time.perf_counter() - began
    client.cancel([*futures, goals, *files.values()])
    return submitted, through


def scatter_payloads(client: Client, subs: list[Submission], count: int) -> float:
    """Seconds to ship `count` submissions' files, one ship() each, as the grader does."""
    from plpuzzle.cluster.client_side import ship

    began = time.perf_counter()
    shipped = [
        ship(client, "bench-payload", f"{os.getpid()}-{i:06d}", subs[i % len(subs)].files)
        for i in range(count)
    ]
    took = time.perf_counter() - began
    client.cancel(shipped)
    return took


@dataclass
class Probe:
    """What the probe client measured on the cluster, in seconds."""

    tasks: int
    submit: float  # the client's submit calls, wall
    through: float  # the first submit to the last result, wall
    client_cpu: float  # the probe client's CPU meanwhile
    scheduler_cpu: float  # the scheduler process's CPU meanwhile
    payloads: int
    scatter: float

    @property
    def per_task(self) -> float:
        return self.through / self.tasks

    def round_trip(self, workers: int) -> float:
        """A worker's time per trivial task: what a task costs it besides the run."""
        return self.through * workers / self.tasks

    @property
    def submit_per_task(self) -> float:
        return self.submit / self.tasks

    @property
    def per_payload(self) -> float:
        return self.scatter / self.payloads


def run_probe(address: str, suite: Path, time_limit: float, work: Path) -> tuple[Probe, float]:
    argv = [sys.executable, "-c", PROBE, address, str(suite), str(PROBE_TASKS)]
    argv += [str(PROBE_PAYLOADS), f"{time_limit:g}"]
    wall, out = _run(argv, REPO / "python", work / "probe.log")
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        raise MeasureFailed("the probe printed nothing")
    data = json.loads(lines[-1])
    return Probe(**data), wall


@dataclass
class ClusterSide:
    """The LocalCluster of the bench: its start-up, its graded runs, the probe."""

    workers: int
    started: float | None = None  # local_cluster() until it returned
    admitted: float | None = None  # then until every worker passed the sandbox gate
    closed: float | None = None
    cli: CliRun | None = None  # b., beside the local pool's
    grading_only: CliRun | None = None  # c.
    probe: Probe | None = None
    problem: str = ""

    @property
    def label(self) -> str:
        return f"LocalCluster({self.workers} workers)"

    @property
    def startup(self) -> float | None:
        if self.started is None or self.admitted is None:
            return None
        return self.started + self.admitted


def start_cluster(side: ClusterSide) -> LocalCluster | None:
    """Start local_cluster(workers) and admit its workers, timing both; None if it cannot."""
    try:
        from distributed import Client

        from plpuzzle.cluster.client_side import admit
        from plpuzzle.cluster.local import local_cluster

        began = time.perf_counter()
        cluster = local_cluster(side.workers)
        side.started = time.perf_counter() - began
    except Exception as e:  # no Dask, no free port, workers that do not start
        side.problem = f"could not start {side.label}: {type(e).__name__}: {e}"
        return None
    try:
        began = time.perf_counter()
        with Client(cluster, set_as_default=False) as client:
            admission = admit(client)
        side.admitted = time.perf_counter() - began
    except Exception as e:
        side.problem = f"{side.label} started, but its workers were not admitted: {e}"
        cluster.close()
        return None
    if admission.problems():
        side.problem = "; ".join(admission.problems())
    return cluster


def close_cluster(side: ClusterSide, cluster: LocalCluster) -> None:
    began = time.perf_counter()
    cluster.close()
    side.closed = time.perf_counter() - began


def loads_per_submission(places: Mapping[tuple[str, str], str]) -> float | None:
    """The mean number of distinct workers that ran a submission's tests."""
    workers: dict[str, set[str]] = {}
    for (student, _), place in places.items():
        if place:
            workers.setdefault(student, set()).add(place)
    return sum(map(len, workers.values())) / len(workers) if workers else None


@dataclass
class BookCosts:
    """Client-side gradebook costs, seconds per call, on a real SQLite file."""

    count: int
    get: float
    claim: float
    put: float
    batched: float  # per row, `count` rows in one transaction
    filesystem: str

    @property
    def per_run(self) -> float:
        """What the grader does per run: look it up, claim it, store its grade."""
        return self.get + self.claim + self.put


def sample_grade(student: str, test: str) -> TestGrade:
    """A grade of the usual size: a wrong answer with its grid as evidence."""
    from plpuzzle.sudoku.services.grading import Grade, TestGrade

    grid = "\n".join(
        " ".join(str((r * 3 + r // 3 + c) % 9 + 1) for c in range(9)) for r in range(9)
    )
    return TestGrade(
        student,
        test,
        Grade.WRONG,
        "the answer breaks the odd-sum rule in row 3",
        grid,
        1,
        0.12,
        0.15,
        "worker-host (dask worker tcp://10.0.0.7:40123)",
    )


def _per_call(
    call: Callable[[Submission, str], object], keys: Sequence[tuple[Submission, str]]
) -> float:
    began = time.perf_counter()
    for sub, test in keys:
        call(sub, test)
    return (time.perf_counter() - began) / len(keys)


def book_costs(folder: Path, count: int) -> BookCosts:
    """Time the gradebook calls the grader makes per run, `count` of each, in `folder`."""
    from plpuzzle.sudoku.services.gradebook import Gradebook

    subs = _class()
    keys = [(subs[i % len(subs)], f"test{i:05d}") for i in range(count)]
    test_key, settings_key = "t" * 16, "s" * 16
    with Gradebook(folder / "one-by-one.sqlite") as book:
        get = _per_call(lambda s, t: book.get(s, t, test_key, settings_key), keys)
        claim = _per_call(
            lambda s, t: book.claim(s.digest, t, test_key, settings_key, "bench", 600.0), keys
        )
        put = _per_call(
            lambda s, t: book.put(s, test_key, settings_key, sample_grade(s.student, t)), keys
        )
    batched = batched_puts(folder / "batched.sqlite", keys, test_key, settings_key) / count
    mounts = Path("/proc/mounts").read_text() if Path("/proc/mounts").exists() else ""
    return BookCosts(count, get, claim, put, batched, filesystem_type(folder.resolve(), mounts))


def batched_puts(
    path: Path, keys: Sequence[tuple[Submission, str]], test_key: str, settings_key: str
) -> float:
    """Seconds to write what `put` writes for every key, in one transaction."""
    from plpuzzle.sudoku.services.gradebook import Gradebook

    Gradebook(path).close()  # a gradebook file, tables and all
    rows, places = [], []
    for sub, test in keys:
        g = sample_grade(sub.student, test)
        key = (sub.digest, test, test_key, settings_key)
        rows.append(
            (
                *key,
                sub.student,
                g.grade.value,
                g.detail,
                g.evidence,
                g.solutions,
                g.cpu_seconds,
                g.wall_seconds,
            )
        )
        places.append((*key, g.ran_on, sub.student))
    db = sqlite3.connect(path, isolation_level=None)
    try:
        began = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        db.executemany(
            "INSERT OR REPLACE INTO results (submission_digest, test, test_digest, "
            "settings_digest, student, grade, detail, evidence, solutions, cpu_seconds, "
            "wall_seconds) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        db.executemany("INSERT OR REPLACE INTO placements VALUES (?,?,?,?,?,?)", places)
        db.executemany(
            "DELETE FROM claims WHERE submission_digest=? AND test=? AND test_digest=? "
            "AND settings_digest=?",
            [p[:4] for p in places],
        )
        db.execute("COMMIT")
        return time.perf_counter() - began
    finally:
        db.close()


@dataclass
class Sizes:
    """What grading ships, pickled as Dask sends it, in bytes."""

    submissions: list[int]
    goals_tests: int
    goals: int

    @property
    def mean_submission(self) -> float:
        return sum(self.submissions) / len(self.submissions)


def shipping_sizes(suite: Path) -> Sizes:
    """The class's submissions and the whole suite's goal dict, as the grader ships them."""
    from plpuzzle.sudoku.services.grading import goal_for

    goals = {case.name: goal_for(case) for case in discover(suite)}
    files = [len(pickle.dumps(sub.files, protocol=5)) for sub in _class()]
    return Sizes(files, len(goals), len(pickle.dumps(goals, protocol=5)))


def _class() -> list[Submission]:
    from plpuzzle.sudoku.services.grading import find_submissions

    return find_submissions(CLASS)


def _settings(time_limit: float) -> GradeSettings:
    from plpuzzle.sudoku.domain.model import Rules
    from plpuzzle.sudoku.services.grading import GradeSettings

    return GradeSettings(rules=Rules(RULES), time_limit=time_limit, memory_mb=MEMORY_MB)


# --- the report -------------------------------------------------------------------


def _stats(run: DriverRun | None, own: Callable[[Pair], float]) -> dict[str, float | None]:
    keys = ("median", "p95", "first", "rest", "interval")
    if run is None or not run.pairs:
        return dict.fromkeys(keys)
    over = run.overheads(own)
    first = run.first_of_each()
    intervals = run.overheads(lambda p: 0.0)
    firsts = [o for o, f in zip(over, first, strict=True) if f]
    rest = [o for o, f in zip(over, first, strict=True) if not f]
    return {
        "median": percentile(over, 50),
        "p95": percentile(over, 95),
        "first": percentile(firsts, 50) if firsts else None,
        "rest": percentile(rest, 50) if rest else None,
        "interval": percentile(intervals, 50),
    }


def measures(before: Version | None, after: Version) -> list[Measure]:
    """Every line of the comparison table."""

    def cli(v: Version | None, what: str) -> float | None:
        if v is None or v.cli is None:
            return None
        return v.cli.runs_per_minute if what == "rate" else v.cli.wall

    by_wall = [_stats(v.driver if v else None, lambda p: p.wall) for v in (before, after)]
    by_cpu = [_stats(v.driver if v else None, lambda p: p.cpu) for v in (before, after)]
    totals = [v.driver.total if v and v.driver else None for v in (before, after)]
    return [
        Measure("overhead per test, median (interval - recorded cpu_seconds)",
                by_cpu[0]["median"], by_cpu[1]["median"], "ms"),
        Measure("overhead per test, p95 (interval - recorded cpu_seconds)",
                by_cpu[0]["p95"], by_cpu[1]["p95"], "ms"),
        Measure("overhead per test, median (interval - recorded wall_seconds)",
                by_wall[0]["median"], by_wall[1]["median"], "ms"),
        Measure("overhead per test, p95 (interval - recorded wall_seconds)",
                by_wall[0]["p95"], by_wall[1]["p95"], "ms"),
        Measure("overhead of a submission's first test, median (wall_seconds)",
                by_wall[0]["first"], by_wall[1]["first"], "ms"),
        Measure("overhead of its other tests, median (wall_seconds)",
                by_wall[0]["rest"], by_wall[1]["rest"], "ms"),
        Measure("interval between results, median (nothing subtracted)",
                by_wall[0]["interval"], by_wall[1]["interval"], "ms"),
        Measure("class graded with one job (driver)", totals[0], totals[1], "s"),
        Measure("runs per minute (command line)", cli(before, "rate"), cli(after, "rate"), ""),
        Measure("class wall time (command line)", cli(before, "wall"), cli(after, "wall"), "s"),
    ]  # fmt: skip


@dataclass
class Extras:
    """The cluster and the per-run costs, beside the before/after measurements."""

    cluster: ClusterSide | None = None
    book: BookCosts | None = None
    sizes: Sizes | None = None


def rate_rows(
    before: Version | None, after: Version, cluster: ClusterSide | None, jobs: int
) -> list[RateRow]:
    """Every grading of the whole class the bench timed, in the report's order."""
    rows = []
    for v in (before, after):
        if v is not None and v.driver:
            rows.append(
                RateRow(
                    v.label,
                    "a. one job, grade_class only (driver)",
                    len(v.driver.pairs),
                    v.driver.total,
                )
            )
    pool = f"local pool, {jobs} jobs"
    for v in (before, after):
        if v is not None and v.cli:
            rows.append(RateRow(v.label, f"b. command line, {pool}", v.cli.pairs, v.cli.wall))
    if cluster and cluster.cli:
        rows.append(
            RateRow(
                after.label,
                f"b. command line, {cluster.label}",
                cluster.cli.pairs,
                cluster.cli.wall,
                cluster.startup,
            )
        )
    if after.grading_only:
        rows.append(
            RateRow(
                after.label,
                f"c. command line --no-feedback, {pool}",
                after.grading_only.pairs,
                after.grading_only.wall,
            )
        )
    if cluster and cluster.grading_only:
        run = cluster.grading_only
        rows.append(
            RateRow(
                after.label,
                f"c. command line --no-feedback, {cluster.label}",
                run.pairs,
                run.wall,
                cluster.startup,
            )
        )
    return rows


def costs_from(after: Version, extras: Extras, jobs: int) -> tuple[Costs | None, list[str]]:
    """The projection's inputs, or None and what is missing."""
    cluster, book = extras.cluster, extras.book
    load = _stats(after.driver, lambda p: p.wall)["first"]
    found = {
        "the local pool's grading-only run (c.)": after.grading_only,
        "a submission's load time (a.)": load,
        "the cluster's start-up": cluster.startup if cluster else None,
        "the probe of the cluster": cluster.probe if cluster else None,
        "the gradebook's costs": book,
    }
    missing = [name for name, value in found.items() if value is None]
    if missing:
        return None, missing
    assert after.grading_only and load is not None and cluster and cluster.probe and book
    assert cluster.startup is not None
    probe = cluster.probe
    return Costs(
        run=after.grading_only.slot_seconds(jobs),
        load=load,
        round_trip=probe.round_trip(cluster.workers),
        scheduler=probe.scheduler_cpu / probe.tasks,
        client=probe.client_cpu / probe.tasks,
        book=book.per_run,
        batched=book.batched,
        ship=probe.per_payload,
        startup=cluster.startup,
    ), []


#: A line of the costs table: what, the figure, how it was measured.
CostRow = tuple[str, str, str]


def _cluster_rows(cluster: ClusterSide) -> list[CostRow]:
    d = duration_text
    rows: list[CostRow] = []
    if cluster.started is not None and cluster.admitted is not None:
        how = (
            f"local_cluster({cluster.workers}) returned after {d(cluster.started)}; admitting "
            f"its workers (SandboxGate probes the sandbox) took {d(cluster.admitted)} more"
        )
        rows.append(("cluster start-up", d(cluster.started + cluster.admitted), how))
    if cluster.closed is not None:
        rows.append(("cluster shut-down", d(cluster.closed), "LocalCluster.close()"))
    if p := cluster.probe:
        n, w = p.tasks, cluster.workers
        rows += [
            ("scheduler: a task through the cluster", d(p.per_task),
             f"{n} trivial tasks shaped like runs (same arguments, shipped files and goals, "
             "resource, a priority per submission, unique keys) from a client process of "
             "its own: first submit to last result / tasks"),
            ("scheduler: its CPU per task", d(p.scheduler_cpu / n),
             "the scheduler process's CPU time over those tasks / tasks (the process also "
             "hosts the nannies); more machines do not share it"),
            ("client: its own Dask CPU per task", d(p.client_cpu / n),
             "the probe client's CPU time over those tasks / tasks (submit, receive)"),
            ("client: submit alone, wall", d(p.submit_per_task), f"client.submit x {n} / {n}"),
            ("worker: a task's round trip", d(p.round_trip(w)),
             f"wall x {w} workers / tasks: a worker's time per task besides the run; high "
             f"here, where the scheduler, the client and the workers share {os.cpu_count()} cores"),
        ]  # fmt: skip
    return rows


def _book_rows(book: BookCosts) -> list[CostRow]:
    d, n = duration_text, book.count
    return [
        ("gradebook: get (a miss)", d(book.get), f"{n} calls on a real SQLite file in a "
         f"temporary folder ({book.filesystem})"),
        ("gradebook: claim", d(book.claim), f"{n} calls, one transaction each"),
        ("gradebook: put (record a result)", d(book.put),
         f"{n} calls, one transaction each, a wrong answer with its grid"),
        ("gradebook: per run (get + claim + put)", d(book.per_run),
         "what the grader does for every run it grades"),
        ("gradebook: a result written in bulk", d(book.batched),
         f"the rows of {n} puts in one transaction, per row"),
    ]  # fmt: skip


def _shipping_rows(sizes: Sizes | None, probe: Probe | None) -> list[CostRow]:
    rows: list[CostRow] = []
    if sizes:
        how = (
            f"pickled files, mean of the class's {len(sizes.submissions)} (largest "
            f"{bytes_text(max(sizes.submissions))})"
        )
        rows.append(("shipping: a submission", bytes_text(sizes.mean_submission), how))
        per_test = bytes_text(sizes.goals / max(sizes.goals_tests, 1))
        how = (
            f"all {sizes.goals_tests} tests, pickled, shipped once per grading ({per_test} a test)"
        )
        rows.append(("shipping: the suite's goal dict", bytes_text(sizes.goals), how))
    if probe:
        how = f"{probe.payloads} submission payloads, one ship() each, per payload"
        rows.append(("shipping: scattering a submission", duration_text(probe.per_payload), how))
    return rows


def _sandbox_rows(after: Version, cluster: ClusterSide | None, jobs: int) -> list[CostRow]:
    d = duration_text
    rows: list[CostRow] = []
    if (c := after.grading_only) is not None:
        if (own := c.mean_run_wall()) is not None:
            how = "mean wall_seconds of the runs of c. on the local pool"
            rows.append(("sandbox: a run's own wall time", d(own), how))
        how = (
            f"c. on the local pool: wall x {jobs} jobs / {c.pairs} runs (loading, judging, "
            "gradebook, the command's start and reports included)"
        )
        rows.append(("sandbox: a slot's time per run, local pool", d(c.slot_seconds(jobs)), how))
    if cluster and (g := cluster.grading_only) is not None:
        how = f"c. on {cluster.label}: wall x {cluster.workers} / {g.pairs} runs"
        rows.append(("a worker's time per run, cluster", d(g.slot_seconds(cluster.workers)), how))
        if (spread := loads_per_submission(g.places)) is not None:
            how = "distinct workers that ran a submission's tests in c. (each loads it)"
            rows.append(("cluster: workers per submission", f"{spread:.2f}", how))
    if (load := _stats(after.driver, lambda p: p.wall)["first"]) is not None:
        how = "a., after: median overhead of a submission's first test"
        rows.append(("sandbox: loading a submission", d(load), how))
    if after.driver and after.driver.pairs:
        how = "a., after: the class graded with one job / runs"
        rows.append(
            ("one job's time per run", d(after.driver.total / len(after.driver.pairs)), how)
        )
    return rows


def cost_lines(after: Version, extras: Extras, jobs: int) -> list[str]:
    """The per-run costs as a Markdown table: cost, figure, how it was measured."""
    cluster = extras.cluster
    rows = _cluster_rows(cluster) if cluster else []
    rows += _book_rows(extras.book) if extras.book else []
    rows += _shipping_rows(extras.sizes, cluster.probe if cluster else None)
    rows += _sandbox_rows(after, cluster, jobs)
    lines = ["| cost | measured | how |", "|---|---:|---|"]
    return lines + [f"| {what} | {value} | {how} |" for what, value, how in rows]


def projection_section(after: Version, extras: Extras, jobs: int) -> list[str]:
    """The projection and the plan, written from the measured figures."""
    costs, missing = costs_from(after, extras, jobs)
    if costs is None:
        return [f"Not projected: not measured: {', '.join(missing)}."]
    lines = projection_lines(
        costs, PROJECT_STUDENTS, PROJECT_TESTS, PROJECT_MACHINES, WORKERS_PER_MACHINE
    )
    cluster = extras.cluster
    if cluster and cluster.grading_only:
        students = len({s for s, _ in cluster.grading_only.grades})
        tests = len({t for _, t in cluster.grading_only.grades})
        check = project(costs, students, tests, 1, cluster.workers)
        measured = cluster.grading_only.wall + costs.startup
        lines += [
            "",
            f"A check of the model on what was measured: for this class ({students} x "
            f"{tests}) on {cluster.label} it gives {duration_text(check.total)} (all added) "
            f"or {duration_text(check.overlapped)} (overlapped); c. on the cluster took "
            f"{duration_text(measured)}, start-up included.",
        ]
    mean_bytes = extras.sizes.mean_submission if extras.sizes else 0.0
    lines += [
        "",
        f"### At {PLAN_STUDENTS:,} students",
        "",
        *scale_plan_lines(
            costs,
            PLAN_STUDENTS,
            PROJECT_TESTS,
            max(PROJECT_MACHINES),
            WORKERS_PER_MACHINE,
            mean_bytes,
        ),
    ]
    return lines


def _counts_table(versions: Sequence[Version], cluster: ClusterSide | None = None) -> list[str]:
    columns: list[tuple[str, Grades]] = []
    for v in versions:
        if v.cli:
            columns.append((f"{v.label}, command line", v.cli.grades))
        if v.driver:
            columns.append((f"{v.label}, one job", v.driver.grades))
        if v.grading_only:
            columns.append((f"{v.label}, c. local pool", v.grading_only.grades))
    if cluster and cluster.cli:
        columns.append(("after, b. cluster", cluster.cli.grades))
    if cluster and cluster.grading_only:
        columns.append(("after, c. cluster", cluster.grading_only.grades))
    if not columns:
        return ["No grades: every measurement failed."]
    counts = [Counter(grades.values()) for _, grades in columns]
    lines = [
        "| grade | " + " | ".join(label for label, _ in columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    for name in grade_names(*(grades for _, grades in columns)):
        lines.append(f"| {name} | " + " | ".join(str(c[name]) for c in counts) + " |")
    return lines


def difference_lines(
    before: Grades,
    after: Grades,
    before_details: Mapping[tuple[str, str], str],
    after_details: Mapping[tuple[str, str], str],
) -> list[str]:
    """One bullet per student whose grades differ: test: before -> after."""

    def side(grade: str, detail: str) -> str:
        return f"{grade} ({detail[:90]})" if detail else grade

    lines = []
    for student, diffs in grade_differences(before, after).items():
        parts = [
            f"{test}: {side(b, before_details.get((student, test), ''))} -> "
            f"{side(a, after_details.get((student, test), ''))}"
            for test, b, a in diffs
        ]
        lines.append(f"- {student}: " + "; ".join(parts))
    return lines or ["- none"]


def _killed(v: Version) -> int:
    pairs = [(p.grade, p.detail) for p in v.driver.pairs] if v.driver else []
    if v.cli:
        pairs += [(g, v.cli.details.get(k, "")) for k, g in v.cli.grades.items()]
    return sum(1 for g, d in pairs if g == "crashed" and "SIGKILL" in d)


def _cluster_pairs(after: Version, cluster: ClusterSide | None) -> list[tuple[str, CliRun, CliRun]]:
    """The cluster's gradings with the local pool's they should equal."""
    if cluster is None:
        return []
    pairs = [
        ("b. command line", after.cli, cluster.cli),
        ("c. grading only", after.grading_only, cluster.grading_only),
    ]
    return [(what, local, remote) for what, local, remote in pairs if local and remote]


def markdown(
    before: Version | None,
    before_missing: str,
    after: Version,
    setup: Setup,
    steps: Sequence[Step],
    extras: Extras | None = None,
) -> str:
    """The whole report."""
    tests, suite, time_limit, jobs = setup.tests, setup.suite, setup.time_limit, setup.jobs
    extras = extras or Extras()
    cluster = extras.cluster
    students = sorted({p.student for p in after.driver.pairs}) if after.driver else []
    if not students and after.cli:
        students = sorted({s for s, _ in after.cli.grades})
    versions = [v for v in (before, after) if v is not None]
    slice_text = f"{tests[0]} to {tests[-1]}" if tests else "none"
    lines = [
        "# Grading a class: the grader before and after, and on a cluster",
        "",
        "Written by `make bench-grade` (`python -m plpuzzle.sudoku.services.grading_bench`).",
        "",
        "## What was measured",
        "",
        f"- Class: {CLASS.relative_to(REPO)} ({len(students)} students). They are written "
        "for the consecutive rules, so most answers are wrong on oddsum: this measures the "
        "grader, not the students.",
        f"- Tests: the first {len(tests)} of {suite} in natural order ({slice_text}), "
        f"rules {RULES}; {len(students) * len(tests)} (submission, test) pairs.",
        f"- Limits: {time_limit:g} s of CPU per test, {MEMORY_MB} MB of memory.",
    ]
    if before is not None:
        lines.append(
            f"- Before: {before.source}, extracted with git archive, run with PYTHONPATH set to it."
        )
    else:
        lines.append(f"- Before: not measured: {before_missing}.")
    lines += [
        f"- After: {after.source}.",
        "- Both with the same interpreter and packages, each in a subprocess, alternately: "
        "before a, after a, before b, after b; then, for after, b on the cluster, c on the "
        "local pool, c on the cluster, and the costs.",
        "- a. Per-test overhead: a driver calls the version's `grade_class` with one job; "
        "every result is timestamped as `record` receives it (in the calling thread). The "
        "overhead of a pair is the time since the previous result (or since grading "
        "began) minus the run's own time as its TestGrade records it. Nothing is left out: "
        "loading a submission counts in its first pair's overhead, and the other pairs of a "
        "submission that does not load have almost none.",
        f"- b. Throughput: the version's command line, `plpuzzle sudoku grade "
        f"{CLASS.relative_to(REPO)} --suite SLICE --rules {RULES} --time-limit "
        f"{time_limit:g} --memory-limit {MEMORY_MB} --jobs {jobs} --report FRESH`, "
        "timed by the wall clock (interpreter start, reports and the feedback's search "
        "for a smallest failing puzzle included); runs per minute = pairs / minutes. For "
        f"after, also with `--scheduler ADDRESS` instead of `--jobs {jobs}`, on a "
        f"LocalCluster of {CLUSTER_WORKERS} worker processes of one thread each "
        f"(`plpuzzle.cluster.local.local_cluster({CLUSTER_WORKERS})`) that the bench starts "
        "after the local runs, and closes at the end; its start-up (until every worker "
        "passed the sandbox gate) is timed apart, not in the rate.",
        "- c. Grading only (after): the same two command lines with --no-feedback, local "
        "pool then cluster, each with a fresh gradebook, while the cluster is up (idle "
        "during the local run).",
        f"- Costs: a client process of its own pushes {PROBE_TASKS} trivial tasks shaped "
        f"like runs through the cluster and scatters {PROBE_PAYLOADS} submission payloads "
        f"to it; the gradebook's get, claim and put are timed {BOOK_CALLS} times each on a "
        "real SQLite file, and the same rows once more in one transaction; the submissions "
        "and the whole suite's goals are pickled and weighed.",
        "- The machine has 2 cores, and other work may run on it meanwhile (the load "
        "averages of every step are below): the figures carry that noise.",
        "",
        "### Machine",
        "",
        *machine_markdown(setup.machine),
        "",
        "## Results",
        "",
        "### Throughput",
        "",
        *rate_table(rate_rows(before, after, cluster, jobs)),
        "",
        *([f"Cluster: {cluster.problem}", ""] if cluster and cluster.problem else []),
        "### Per-test overhead, before and after",
        "",
        *comparison_table(measures(before, after), before is not None),
        "",
        "After / before below 1 means less time; above 1 on runs per minute means more runs.",
        "",
        "Which own time to subtract matters. The old grader's `wall_seconds` is timed around "
        "the whole request to a freshly started sandboxed worker (starting Python and "
        "pyswip in bubblewrap, loading the file, solving), so subtracting it leaves almost "
        "none of the old per-test cost; its `cpu_seconds` is Prolog's CPU time of the goal "
        "alone. The new grader's `wall_seconds` and `cpu_seconds` both cover only the run "
        "forked from the loaded submission. The cpu_seconds lines are the fairer "
        "comparison for the old grader; runs that end abnormally (killed, crashed) record "
        "no CPU time, so their solving time counts as overhead there, which mostly shows "
        "in p95.",
        "",
        "### Per-run costs that matter for scaling",
        "",
        *cost_lines(after, extras, jobs),
        "",
        f"## Projection: {PROJECT_STUDENTS} students x {PROJECT_TESTS} tests",
        "",
        *projection_section(after, extras, jobs),
        "",
        "### Runs, in order",
        "",
        "| version | measurement | wall | load average before | load average after | note |",
        "|---|---|---:|---|---|---|",
    ]
    for s in steps:
        lines.append(
            f"| {s.version} | {s.what} | {s.wall:.1f} s | {load_text(s.load_before)} | "
            f"{load_text(s.load_after)} | {' '.join(s.note.split()).replace('|', '/')} |"
        )
    lines += ["", "## Grades", "", *_counts_table(versions, cluster), ""]
    for what, local, remote in _cluster_pairs(after, cluster):
        lines += [f"Where the cluster's grades differ from the local pool's ({what}):", ""]
        lines += difference_lines(local.grades, remote.grades, local.details, remote.details)
        lines.append("")
    if before is not None and before.cli and after.cli:
        lines += ["Where the command lines' grades differ (before -> after):", ""]
        lines += difference_lines(
            before.cli.grades, after.cli.grades, before.cli.details, after.cli.details
        )
        lines.append("")
    if before is not None and before.driver and after.driver:
        lines += ["Where the one-job runs' grades differ (before -> after):", ""]
        lines += difference_lines(
            before.driver.grades, after.driver.grades, before.driver.details, after.driver.details
        )
        lines.append("")
    for v in versions:
        if v.cli and v.driver and v.cli.grades != v.driver.grades:
            lines += [f"Where {v.label}'s two runs disagree (command line -> one job):", ""]
            lines += difference_lines(
                v.cli.grades, v.driver.grades, v.cli.details, v.driver.details
            )
            lines.append("")
    notes = [f"- {v.label}: {p}" for v in versions for p in v.problems]
    if before is not None and _killed(before):
        notes.append(
            f"- before: {_killed(before)} run(s) ended 'killed by SIGKILL'. A grader of the "
            "new design that starts meanwhile (another grading, the test suite) removes "
            "control groups named plpuzzle-HEX, the old grader's, as stale and kills what "
            "is in them; such runs say nothing about the old grader."
        )
    if notes:
        lines += ["## Notes", "", *notes, ""]
    return "\n".join(lines)


def summary(before: Version | None, after: Version) -> list[str]:
    """A few lines for the terminal."""
    out = []
    for m in measures(before, after):
        text = f"{m.label}: "
        if before is not None:
            text += f"before {value_text(m.before, m.unit)}, "
        text += f"after {value_text(m.after, m.unit)}"
        if before is not None:
            text += f" (after / before {ratio_text(m.before, m.after)})"
        out.append(text)
    return out


# --- the command ------------------------------------------------------------------


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m plpuzzle.sudoku.services.grading_bench",
        description="Time the grader before and after a revision; write a Markdown report.",
    )
    parser.add_argument("out", type=Path, metavar="OUT.md")
    parser.add_argument(
        "--suite",
        type=Path,
        default=DEFAULT_SUITE,
        help="the official suite (default: %(default)s)",
    )
    parser.add_argument(
        "--tests", type=int, default=12, help="how many of its first tests (default: %(default)s)"
    )
    parser.add_argument(
        "--time-limit", type=float, default=5.0, help="CPU seconds per test (default: %(default)s)"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="jobs of the command line (default: the cores, %(default)s)",
    )
    parser.add_argument(
        "--before",
        default=DEFAULT_BEFORE,
        help="the revision to compare with (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.tests < 1 or args.jobs < 1 or args.time_limit <= 0:
        parser.error("--tests and --jobs must be at least 1, --time-limit above 0")
    if not args.suite.is_dir():
        parser.error(f"{args.suite}: no such suite folder (--suite DIR)")
    return args


def _measure(
    version: Version,
    what: str,
    steps: list[Step],
    run: Callable[[], tuple[T, float]],
) -> T | None:
    """Run one measurement (once more if it fails), log it as a step."""
    print(f"grading bench: {version.label}, {what} ...", file=sys.stderr, flush=True)
    for attempt in (1, 2):
        load_before = load_average()
        began = time.perf_counter()
        try:
            result, wall = run()
        except MeasureFailed as e:
            wall = time.perf_counter() - began
            note = f"failed (attempt {attempt}): {e}"
            version.problems.append(f"{what}: {note}")
            steps.append(Step(version.label, what, wall, load_before, load_average(), note))
            continue
        steps.append(Step(version.label, what, wall, load_before, load_average()))
        return result
    return None


def _in_process(call: Callable[[], T]) -> tuple[T, float]:
    """Run a measurement made in this process; (its result, wall seconds)."""
    began = time.perf_counter()
    try:
        result = call()
    except Exception as e:
        raise MeasureFailed(f"{type(e).__name__}: {e}") from e
    return result, time.perf_counter() - began


def measure_cluster(
    after: Version, suite: Path, time_limit: float, jobs: int, work: Path, steps: list[Step]
) -> ClusterSide:
    """Start the cluster; grade on it (b., c.) beside the local pool (c.); probe it; close it."""
    side = ClusterSide(CLUSTER_WORKERS)
    print(f"grading bench: starting {side.label} ...", file=sys.stderr, flush=True)
    load_before = load_average()
    cluster = start_cluster(side)
    steps.append(
        Step(
            after.label,
            f"start {side.label}",
            side.startup or 0.0,
            load_before,
            load_average(),
            side.problem,
        )
    )
    if cluster is None:
        after.problems.append(side.problem)
        return side
    on_cluster = ["--scheduler", cluster.scheduler_address]
    on_pool = ["--jobs", str(jobs)]
    grade = functools.partial(run_cli, after, suite, time_limit)
    try:
        side.cli = _measure(
            after,
            f"b. throughput, command line, {side.label}",
            steps,
            functools.partial(grade, on_cluster, work, "after-cluster"),
        )
        after.grading_only = _measure(
            after,
            f"c. grading only (--no-feedback), {jobs} jobs",
            steps,
            functools.partial(grade, on_pool, work, "after-pool-only", feedback=False),
        )
        side.grading_only = _measure(
            after,
            f"c. grading only (--no-feedback), {side.label}",
            steps,
            functools.partial(grade, on_cluster, work, "after-cluster-only", feedback=False),
        )
        side.probe = _measure(
            after,
            f"costs: {PROBE_TASKS} trivial tasks, {PROBE_PAYLOADS} payloads scattered",
            steps,
            functools.partial(run_probe, cluster.scheduler_address, suite, time_limit, work),
        )
    finally:
        close_cluster(side, cluster)
    return side


def main(argv: list[str]) -> int:
    args = _parse(argv)
    machine = machine_info()
    # Not plpuzzle-grading-*: the new grader removes such folders as stale.
    with tempfile.TemporaryDirectory(prefix="plpuzzle-bench-grade-") as tmp:
        work = Path(tmp)
        suite = work / "slice"
        tests = make_slice(args.suite, args.tests, suite)
        if not tests:
            print(f"{args.suite}: no testNNNd.txt puzzles", file=sys.stderr)
            return 2
        described, missing = extract_revision(args.before, work / "before")
        before = (
            Version("before", described, work / "before" / "python")
            if described is not None
            else None
        )
        after = Version("after", working_tree(), REPO / "python")
        versions = [v for v in (before, after) if v is not None]
        steps: list[Step] = []
        for v in versions:
            v.driver = _measure(
                v,
                "a. overhead, one job (driver)",
                steps,
                functools.partial(run_driver, v, suite, args.time_limit, work, v.label),
            )
        pool = ["--jobs", str(args.jobs)]
        for v in versions:
            v.cli = _measure(
                v,
                f"b. throughput, command line, {args.jobs} jobs",
                steps,
                functools.partial(run_cli, v, suite, args.time_limit, pool, work, v.label),
            )
        extras = Extras(measure_cluster(after, suite, args.time_limit, args.jobs, work, steps))
        extras.book = _measure(
            after,
            f"costs: gradebook, {BOOK_CALLS} of get, claim, put, and in bulk",
            steps,
            functools.partial(
                _in_process, functools.partial(book_costs, work / "book", BOOK_CALLS)
            ),
        )
        extras.sizes = _measure(
            after,
            "costs: what is shipped, weighed",
            steps,
            functools.partial(_in_process, functools.partial(shipping_sizes, args.suite)),
        )
    setup = Setup(tests, args.suite, args.time_limit, args.jobs, machine)
    text = markdown(before, missing, after, setup, steps, extras)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n")
    print("\n".join(summary(before, after)))
    for row in rate_rows(before, after, extras.cluster, args.jobs):
        print(f"{row.version}, {row.how}: {row.runs_per_minute:.1f} runs per minute")
    if before is None:
        print(f"before: not measured: {missing}")
    print(f"Wrote {args.out}")
    cluster = extras.cluster
    complete = cluster is not None and cluster.cli and cluster.grading_only and cluster.probe
    measured = all(v.driver and v.cli for v in versions) and after.grading_only
    return 0 if measured and complete and extras.book and extras.sizes else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
