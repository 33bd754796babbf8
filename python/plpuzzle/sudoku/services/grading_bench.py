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
   grade`) on the class with --jobs J, timed by the wall clock.

    python -m plpuzzle.sudoku.services.grading_bench [--suite DIR] [--tests N]
        [--time-limit S] [--jobs J] [--before REV] OUT.md
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from plpuzzle.machine import load_average, load_text, machine_info, machine_markdown
from plpuzzle.sudoku.services.suite import discover

REPO = Path(__file__).resolve().parents[4]
DEFAULT_SUITE = REPO.parent / "shared" / "bme-2013-oddsum" / "tests"
CLASS = REPO / "tests" / "fixtures" / "class"
RULES = "oddsum"
DEFAULT_BEFORE = "96b44e0"
MEMORY_MB = 1024
#: Longest a single measurement may take before it is stopped.
RUN_TIMEOUT = 3600.0
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
from plpuzzle.sudoku.services import grading as g
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.services.suite import discover

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
    """Measurement b: one version's command line on the class, timed."""

    wall: float
    grades: dict[tuple[str, str], str]
    details: dict[tuple[str, str], str]

    @property
    def pairs(self) -> int:
        return len(self.grades)

    @property
    def runs_per_minute(self) -> float:
        return self.pairs / (self.wall / 60)


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
    version: Version, suite: Path, time_limit: float, jobs: int, work: Path, tag: str
) -> tuple[CliRun, float]:
    report = work / f"report-{tag}"  # fresh: its gradebook starts empty
    argv = [sys.executable, "-m", "plpuzzle", "sudoku", "grade", str(CLASS)]
    argv += ["--suite", str(suite), "--rules", RULES, "--time-limit", f"{time_limit:g}"]
    # --report, not --out: the grader of 96b44e0 runs this too, and knows only that name
    argv += ["--memory-limit", str(MEMORY_MB), "--jobs", str(jobs), "--report", str(report)]
    wall, _ = _run(argv, version.pythonpath, work / f"cli-{tag}.log")
    try:
        data = json.loads((report / "grades.json").read_text())
    except (OSError, ValueError) as e:
        raise MeasureFailed(f"no readable grades.json: {e}") from None
    grades, details = {}, {}
    for student in data["students"]:
        for r in student["results"]:
            grades[(student["id"], r["test"])] = r["grade"]
            details[(student["id"], r["test"])] = r.get("detail", "")
    return CliRun(wall, grades, details), wall


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


def _counts_table(versions: Sequence[Version]) -> list[str]:
    columns: list[tuple[str, Grades]] = []
    for v in versions:
        if v.cli:
            columns.append((f"{v.label}, command line", v.cli.grades))
        if v.driver:
            columns.append((f"{v.label}, one job", v.driver.grades))
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


def markdown(
    before: Version | None,
    before_missing: str,
    after: Version,
    setup: Setup,
    steps: Sequence[Step],
) -> str:
    """The whole report."""
    tests, suite, time_limit, jobs = setup.tests, setup.suite, setup.time_limit, setup.jobs
    students = sorted({p.student for p in after.driver.pairs}) if after.driver else []
    if not students and after.cli:
        students = sorted({s for s, _ in after.cli.grades})
    versions = [v for v in (before, after) if v is not None]
    slice_text = f"{tests[0]} to {tests[-1]}" if tests else "none"
    lines = [
        "# Grading a class: the grader before and after",
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
        "before a, after a, before b, after b.",
        "- a. Per-test overhead: a driver calls the version's `grade_class` with one job; "
        "every result is timestamped as `record` receives it (in the calling thread). The "
        "overhead of a pair is the time since the previous result (or since grading "
        "began) minus the run's own time as its TestGrade records it. Nothing is left out: "
        "loading a submission counts in its first pair's overhead, and the other pairs of a "
        "submission that does not load have almost none.",
        f"- b. Throughput: the version's command line, `plpuzzle sudoku grade "
        f"{CLASS.relative_to(REPO)} --suite SLICE --rules {RULES} --time-limit "
        f"{time_limit:g} --memory-limit {MEMORY_MB} --jobs {jobs} --report FRESH`, "
        "timed by the wall clock (interpreter start and reports included); runs per minute "
        "= pairs / minutes.",
        "",
        "### Machine",
        "",
        *machine_markdown(setup.machine),
        "",
        "## Results",
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
    lines += ["", "## Grades", "", *_counts_table(versions), ""]
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
        for v in versions:
            v.cli = _measure(
                v,
                f"b. throughput, command line, {args.jobs} jobs",
                steps,
                functools.partial(run_cli, v, suite, args.time_limit, args.jobs, work, v.label),
            )
    setup = Setup(tests, args.suite, args.time_limit, args.jobs, machine)
    text = markdown(before, missing, after, setup, steps)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n")
    print("\n".join(summary(before, after)))
    if before is None:
        print(f"before: not measured: {missing}")
    print(f"Wrote {args.out}")
    return 0 if all(v.driver and v.cli for v in versions) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
