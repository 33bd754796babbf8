"""Grading a class: the fixture class of varied submissions, end to end."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from once_per_run import once_per_run
from run_plpuzzle import plpuzzle

from plpuzzle.runtime import sicstus_gaps
from plpuzzle.sudoku.grading.intake import find_submissions
from plpuzzle.sudoku.grading.model import GradingError
from plpuzzle.sudoku.runs.suite import SuiteError
from plpuzzle.sudoku.runs.suite_config import Points, load_points

# The grader's sandbox throughout; the tests that grade a whole class are also slow.
pytestmark = [pytest.mark.sandbox]

REPO = Path(__file__).resolve().parents[2]
CLASS = REPO / "tests" / "fixtures" / "class"
SUITE = REPO / "tests" / "fixtures" / "grading_suite"
TESTS = ["test001", "test002", "test003", "test004", "test005", "test008"]

#: What each submission was written to do, test by test.
EXPECTED = {
    "alice": {t: "correct" for t in TESTS},  # SICStus style: between, domain/3, delete/4
    "bob": {**{t: "correct" for t in TESTS}, "test008": "timeout"},  # correct but slow
    "carol": {**{t: "correct" for t in TESTS}, "test004": "wrong", "test008": "wrong"},
    "dave": {
        **{t: "correct" for t in TESTS},
        "test002": "wrong",
        "test004": "wrong",
        "test008": "wrong",
    },
    "erin": {
        **{t: "correct" for t in TESTS},
        "test001": "wrong",
        "test004": "wrong",
        "test008": "timeout",
    },
    "frank": {
        **{t: "correct" for t in TESTS},
        "test002": "wrong",
        "test004": "wrong",
        "test008": "wrong",
    },
    "grace": {t: "timeout" for t in TESTS},
    "heidi": {t: "memory limit" for t in TESTS},
    "ivan": {t: "crashed" for t in TESTS},
    "judy": {t: "not loadable" for t in TESTS},  # a syntax error: judy.pl:7:28
    "mallory": {t: "load error" for t in TESTS},
    "oscar": {t: "correct" for t in TESTS},  # tries to write outside its folder
    "trent": {t: "correct" for t in TESTS},  # leaves a background process
    "victor": {t: "error" for t in TESTS},  # floods its output
}

#: oscar.pl writes these files and deletes VICTIM. The graded copy of the
#: class points the /tmp ones into the test's own tmp path; the others are
#: only looked at (a file there must not appear or change), never written.
OSCAR_TMP_ESCAPE = "/tmp/plpuzzle-escape.txt"
OSCAR_VICTIM = "/tmp/plpuzzle-victim.txt"
OUTSIDE = [Path("/root/plpuzzle-escape.txt"), Path("/work/plpuzzle-escape.txt")]


def grade_args(submissions: Path, report: Path, time_limit: int = 10,
               memory_limit: int = 1024) -> list[str | Path]:  # fmt: skip
    return ["sudoku", "grade", submissions, "--suite", SUITE, "--time-limit", str(time_limit),
            "--memory-limit", str(memory_limit), "--jobs", "2", "--out", report]  # fmt: skip


#: The fixture class's limits: its correct runs take at most 0.4 s of CPU a
#: test, so 2 s keeps them correct and still times out bob, erin and grace
#: (eight timeouts: 16 s of CPU, not 80 at 10 s); heidi hits the stack limit
#: of 512 MB as surely as of 1 GB, in half the time.
CLASS_LIMITS = {"time_limit": 2, "memory_limit": 512}


def tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        h.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


#: Runs a command as a child subreaper, so that every process the command
#: leaves behind (however it was orphaned) is reparented to us and can be
#: found after it exits: our own run's leftovers, not other suites' on the
#: same machine. Writes their command lines as JSON to argv[1], kills them.
REAPER = r"""
import ctypes, json, os, signal, subprocess, sys, time
from pathlib import Path
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
code = subprocess.call(sys.argv[2:])

def descendants():
    parent = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    found, frontier = {}, {os.getpid()}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier and p not in found}
        for pid in frontier:
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                found[pid] = [c.decode(errors="replace") for c in cmd if c]
            except OSError:
                found[pid] = []
    return found

left = descendants()
for _ in range(50):  # what is already ending (killed, not yet reaped) gets 5 s
    if not left:
        break
    time.sleep(0.1)
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    left = {p: c for p, c in descendants().items() if p in left}
Path(sys.argv[1]).write_text(json.dumps(sorted(left.values())))
for pid in left:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
sys.exit(code)
"""


def plpuzzle_reaped(
    leftovers: Path, *args: str | Path, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """`plpuzzle(*args)` under REAPER; the processes it left behind go to `leftovers`."""
    return subprocess.run(
        [sys.executable, "-c", REAPER, leftovers, sys.executable, "-m", "plpuzzle",
         *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )  # fmt: skip


def test_the_reaper_finds_what_a_command_leaves_behind(tmp_path: Path) -> None:
    """The leftover check below can fail: a detached `sleep` is found (and killed)."""
    leftovers = tmp_path / "left.json"
    run = subprocess.run(
        [sys.executable, "-c", REAPER, leftovers, "sh", "-c", "setsid sleep 300 & exit 3"],
        timeout=60,
    )
    assert run.returncode == 3
    assert json.loads(leftovers.read_text()) == [["sleep", "300"]]


def stat_of(path: Path) -> tuple[int, int, int] | None:
    """What tells whether a file appeared or changed (inode, mtime, size)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    return info.st_ino, info.st_mtime_ns, info.st_size


@pytest.fixture(scope="module")
def graded(request: pytest.FixtureRequest) -> tuple[dict, Path, str]:
    """The fixture class graded once in the whole run, whichever worker asks
    first (once_per_run); the tests below only read the result."""
    return once_per_run(request, grade_the_class)


def grade_the_class(work: Path) -> tuple[dict, Path, str]:
    """Grade a copy of the fixture class in `work`.

    In the copy, oscar's targets in /tmp are files in our tmp path, so that
    the test writes nowhere else. Returns (grades.json, the report folder,
    the digest of the class before grading); the report folder's parent
    holds the class, the victim and the escape target.
    """
    victim, escape = work / "plpuzzle-victim.txt", work / "plpuzzle-escape.txt"
    victim.write_text("must survive grading\n")
    shutil.copytree(CLASS, work / "class")
    oscar = work / "class" / "oscar.pl"
    text = oscar.read_text()
    assert f"'{OSCAR_TMP_ESCAPE}'" in text and f"'{OSCAR_VICTIM}'" in text
    oscar.write_text(text.replace(OSCAR_TMP_ESCAPE, str(escape)).replace(OSCAR_VICTIM, str(victim)))
    (work / "outside.json").write_text(json.dumps([stat_of(p) for p in OUTSIDE]))
    report = work / "report"
    before = tree_digest(work / "class")
    run = plpuzzle_reaped(work / "leftovers.json",
                          *grade_args(work / "class", report, **CLASS_LIMITS))  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads((report / "grades.json").read_text())
    return data, report, before


@pytest.mark.slow
def test_every_submission_gets_its_expected_verdicts(graded: tuple[dict, Path, str]) -> None:
    data, _, _ = graded
    got = {s["id"]: {r["test"]: r["grade"] for r in s["results"]} for s in data["students"]}
    assert got == EXPECTED


@pytest.mark.slow
def test_evidence_is_recorded(graded: tuple[dict, Path, str]) -> None:
    data, _, _ = graded
    results = {(s["id"], r["test"]): r for s in data["students"] for r in s["results"]}
    assert results["dave", "test008"]["detail"] == "missing 35"
    # Drawn as a board (K=3: three boxes of three a row), not a nested list.
    missed = results["dave", "test008"]["evidence"]
    assert missed.startswith("first missing solution (a solution not given):\n")
    assert re.search(r"^ +\d \d \d  \d \d \d  \d \d \d$", missed, re.MULTILINE)
    assert "[[" not in missed
    assert "duplicate" in results["erin", "test001"]["detail"]
    assert "non-ground" in results["frank", "test002"]["detail"]
    notes = {s["id"]: s["notes"] for s in data["students"]}
    # What loading printed is shown once, in the notes, named as the student named it.
    assert any(n.startswith("while loading: error: judy.pl:7:") for n in notes["judy"])
    assert any("Syntax error" in n for n in notes["judy"])
    assert "Syntax error" not in results["judy", "test001"]["evidence"]
    # ...and the first error, with its file and line, is the verdict's detail.
    # judy.pl, loaded as sudoku.pl, is named as she named it.
    assert results["judy", "test001"]["detail"].startswith("judy.pl:7:28: Syntax error")
    assert notes["alice"] == []
    assert "does not define sudoku/2" in results["mallory", "test001"]["evidence"]
    assert "halt" in results["ivan", "test001"]["detail"]
    assert "Stack limit" in results["heidi", "test001"]["evidence"]
    assert "xfsz" in results["victor", "test001"]["evidence"]


@pytest.mark.slow
def test_scores_and_csv(graded: tuple[dict, Path, str]) -> None:
    data, report, _ = graded
    scores = {s["id"]: s["score"] for s in data["students"]}
    assert scores == {sid: sum(v == "correct" for v in e.values()) for sid, e in EXPECTED.items()}
    rows = (report / "grades.csv").read_text().splitlines()
    assert rows[0].startswith("id,score,max_score,correct,wrong,timeout")
    assert rows[1].startswith("alice,6,6,6,0,")
    assert len(rows) == 1 + len(EXPECTED)


@pytest.mark.slow
def test_nothing_outside_the_sandbox_changed(graded: tuple[dict, Path, str]) -> None:
    _, report, before = graded
    work = report.parent
    assert tree_digest(work / "class") == before
    assert not (work / "plpuzzle-escape.txt").exists()
    assert (work / "plpuzzle-victim.txt").read_text() == "must survive grading\n"
    assert [stat_of(p) for p in OUTSIDE] == [
        None if s is None else tuple(s) for s in json.loads((work / "outside.json").read_text())
    ]
    # Nothing the run started outlives it: trent's `sleep 300 &` included.
    assert json.loads((work / "leftovers.json").read_text()) == []


def test_submission_layouts(tmp_path: Path) -> None:
    """Folders and ID.pl files mix; the rest of intake is in test_intake."""
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "sudoku.pl").write_text("sudoku(_, _).\n")
    (tmp_path / "ben.pl").write_text("sudoku(_, _).\n")
    (tmp_path / "cid").mkdir()  # graded 0 with a note, not returned here
    assert [s.student for s in find_submissions(tmp_path)] == ["ann", "ben"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(GradingError, match="no submissions"):
        find_submissions(tmp_path / "empty")


def test_points_files(tmp_path: Path) -> None:
    good = tmp_path / "points.toml"
    good.write_text('default = 2\nonly = ["test001", "test004"]\n[points]\ntest004 = 5\n')
    points = load_points(good)
    assert points == Points(2.0, {"test004": 5.0}, ("test001", "test004"))
    assert (points.of("test001"), points.of("test004")) == (2.0, 5.0)
    assert points.counts("test004") and not points.counts("test002")
    for text, words in [
        ("default = 'x'\n", "must be a number"),
        ("bonus = 1\n", "unknown key"),
        ("only = 3\n", "list of test names"),
        ("[points\n", "points.toml"),
    ]:
        good.write_text(text)
        with pytest.raises(SuiteError, match=words):
            load_points(good)


def test_points_subset_through_the_cli(tmp_path: Path) -> None:
    sub = tmp_path / "class"
    sub.mkdir()
    shutil.copy(CLASS / "dave.pl", sub / "dave.pl")
    points = tmp_path / "points.toml"
    points.write_text('only = ["test001", "test008"]\n[points]\ntest001 = 3\n')
    run = plpuzzle(*grade_args(sub, tmp_path / "r"), "--points", points)
    assert run.returncode == 0, run.stderr
    data = json.loads((tmp_path / "r" / "grades.json").read_text())
    assert [t["name"] for t in data["tests"]] == ["test001", "test008"]
    assert (data["students"][0]["score"], data["max_score"]) == (3, 4)
    points.write_text('only = ["test999"]\n')
    bad = plpuzzle(*grade_args(sub, tmp_path / "r"), "--points", points)
    assert bad.returncode == 2 and "'only' names test999, which is not in the suite" in bad.stderr


@pytest.mark.slow
def test_killed_grading_resumes_without_regrading(tmp_path: Path) -> None:
    """Kill the grader midway, run it again: nothing graded twice, and a
    third run reproduces the reports byte for byte."""
    sub = tmp_path / "class"
    sub.mkdir()
    # bob's last test takes the full time limit (the class's: 2 s, not 10).
    shutil.copytree(CLASS / "bob", sub / "bob")
    for name in ("dave.pl", "judy.pl", "oscar.pl"):
        shutil.copy(CLASS / name, sub / name)
    report = tmp_path / "report"
    db = report / "grades.sqlite"
    # No feedback: the reports compared are grades.json, .csv and .html, and
    # its search for dave's smallest failing puzzle would run in every run.
    args = [*grade_args(sub, report, **CLASS_LIMITS), "--no-feedback"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "plpuzzle", *map(str, args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    before_kill = 0
    while time.monotonic() < deadline and before_kill < 6:
        time.sleep(0.3)
        if db.exists():
            with contextlib.suppress(sqlite3.OperationalError), sqlite3.connect(db) as con:
                # The grader may not have created its table yet.
                before_kill = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 6 <= before_kill < 24
    assert not (report / "grades.json").exists()

    second = plpuzzle(*args)
    assert second.returncode == 0, second.stderr
    with sqlite3.connect(db) as con:
        stored = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert stored == 24
    graded_now = int(second.stdout.split(" test run(s) graded now")[0].split()[-1])
    assert graded_now <= 24 - before_kill
    first_reports = {n: (report / n).read_bytes() for n in ("grades.json", "grades.csv",
                                                           "grades.html")}  # fmt: skip

    third = plpuzzle(*args)
    assert "0 test run(s) graded now, 24 taken from the gradebook" in third.stdout
    for name, content in first_reports.items():
        assert (report / name).read_bytes() == content, name
    data = json.loads(first_reports["grades.json"])
    got = {s["id"]: {r["test"]: r["grade"] for r in s["results"]} for s in data["students"]}
    assert got == {k: EXPECTED[k] for k in ("bob", "dave", "judy", "oscar")}

    fixed = (CLASS / "oscar.pl").read_text() + "% fixed at last\n"
    (sub / "dave.pl").write_text(fixed)  # dave fixes his bug
    fourth = plpuzzle(*args)
    assert "6 test run(s) graded now, 18 taken from the gradebook" in fourth.stdout
    data = json.loads((report / "grades.json").read_text())
    assert {s["id"]: s["score"] for s in data["students"]}["dave"] == 6


def test_a_submission_cannot_see_files_outside_its_sandbox(tmp_path: Path) -> None:
    """Expected solutions and other students' work are out of sight."""
    secret = tmp_path / "secret" / "test005s.txt"
    secret.parent.mkdir()
    secret.write_text("[[[1]]].\n")
    sub = tmp_path / "class"
    sub.mkdir()
    (sub / "peeker.pl").write_text(
        f"% Answers only when it cannot see {secret}.\n"
        "sudoku(_, [[1]]) :-\n"
        f"    \\+ exists_file('{secret}'),\n"
        f"    \\+ exists_file('{SUITE / 'test005s.txt'}'),\n"
        f"    \\+ exists_file('{CLASS / 'alice.pl'}').\n"
    )
    points = tmp_path / "points.toml"
    points.write_text('only = ["test005"]\n')
    run = plpuzzle(*grade_args(sub, tmp_path / "r"), "--points", points)
    assert run.returncode == 0, run.stderr
    data = json.loads((tmp_path / "r" / "grades.json").read_text())
    assert data["students"][0]["results"][0]["grade"] == "correct"


@pytest.mark.slow
def test_two_graders_sharing_a_gradebook_grade_each_run_once(tmp_path: Path) -> None:
    sub = tmp_path / "class"
    sub.mkdir()
    for name in ("alice.pl", "carol.pl", "dave.pl", "oscar.pl"):
        shutil.copy(CLASS / name, sub / name)
    db = tmp_path / "shared.sqlite"
    graders = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "plpuzzle",
                *map(str, grade_args(sub, tmp_path / f"r{i}")),
                "--db",
                str(db),
                "--jobs",
                "1",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    outputs = [g.communicate(timeout=600) for g in graders]
    assert [g.returncode for g in graders] == [0, 0], outputs
    graded_now = [int(out.split(" test run(s) graded now")[0].split()[-1]) for out, _ in outputs]
    assert sum(graded_now) == 4 * len(TESTS)
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 4 * len(TESTS)
    reports = [json.loads((tmp_path / f"r{i}" / "grades.json").read_text()) for i in range(2)]
    assert reports[0]["students"] == reports[1]["students"]
    assert {s["id"]: s["score"] for s in reports[0]["students"]} == {
        sid: sum(v == "correct" for v in EXPECTED[sid].values())
        for sid in ("alice", "carol", "dave", "oscar")
    }


@pytest.mark.parametrize(
    ("exception", "documented", "gap"),
    [
        ("catch/3: Unknown procedure: lists:somechk/2", {}, "lists:somechk/2"),
        ("Unknown procedure: somechk/2", {("somechk", 2): "lists"}, "lists:somechk/2"),
        ("Unknown procedure: lists:somchk/2", {("somechk", 2): "lists"}, None),
        ("Unknown procedure: my_helper/3", {("somechk", 2): "lists"}, None),
        ("Type error: `integer' expected", {}, None),
    ],
)
def test_the_tools_gaps_are_named(
    exception: str, documented: dict, gap: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run stopped by a SICStus library predicate we lack is our fault,
    and says so; a typo or the student's own missing predicate is not."""
    monkeypatch.setattr(sicstus_gaps, "documented_sicstus_predicates", lambda: documented)
    assert sicstus_gaps.not_emulated(exception) == gap


def test_the_documented_predicates_come_from_the_sicstus_layer() -> None:
    documented = sicstus_gaps.documented_sicstus_predicates()
    for name, arity, library in [("somechk", 2, "lists"), ("subtract", 3, "sets"),
                                 ("avl_store", 4, "avl"), ("between", 3, "between")]:  # fmt: skip
        assert documented[(name, arity)] == library
    assert ("sudoku", 2) not in documented


def test_a_gap_in_the_sicstus_layer_is_reported_as_ours(tmp_path: Path) -> None:
    """A solver stopped by a SICStus predicate we lack is not failed silently:
    the verdict, the report and the warning name the predicate."""
    sub = tmp_path / "class"
    sub.mkdir()
    (sub / "zoe.pl").write_text(
        ":- use_module(library(clpfd)).\n"
        "sudoku(_, [[1]]) :- X in 1..2, geost([object(1, 1, [X])], []).\n"
    )
    points = tmp_path / "points.toml"
    points.write_text('only = ["test005"]\n')
    run = plpuzzle(*grade_args(sub, tmp_path / "r"), "--points", points)
    assert run.returncode == 0, run.stderr
    data = json.loads((tmp_path / "r" / "grades.json").read_text())
    result = data["students"][0]["results"][0]
    assert result["grade"] == "error"
    assert result["detail"].startswith("not emulated: SICStus library predicate clpfd:geost/2")
    assert data["not_emulated"] == ["clpfd:geost/2"]
    assert "clpfd:geost/2" in " ".join(run.stderr.split())


@pytest.mark.slow
def test_off_a_terminal_a_progress_line_comes_at_least_every_ten_seconds(tmp_path: Path) -> None:
    """One test that waits 25 s (the wall-clock backstop stops it): the
    plain progress lines do not wait for a grade to come in."""
    klass = tmp_path / "class"
    klass.mkdir()
    (klass / "waits.pl").write_text("sudoku(_, _) :- sleep(60).\n")
    suite = tmp_path / "suite"
    suite.mkdir()
    for kind in "ds":
        shutil.copy(SUITE / f"test001{kind}.txt", suite)
    run = plpuzzle(
        "sudoku", "grade", klass, "--suite", suite, "--out", tmp_path / "out", "--time-limit",
        "5", "--wall-limit", "25", "--no-feedback", "--no-similarity",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    seconds = [int(s) for s in re.findall(r"graded \d+/1 \(\d+%\), (\d+) s", run.stderr)]
    # At 10 s and at 20 s while the one test waits, and at the end (a busy
    # machine only makes the run, and the list, longer).
    assert len(seconds) >= 3, run.stderr
    assert seconds == sorted(seconds)
