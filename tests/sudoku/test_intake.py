"""Grading a class: what goes in (submissions, suite, suite.toml, points,
roster, --student) is checked before anyone is graded, and a messy
submissions folder still gets everyone graded. Real grader, real sandbox."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from run_plpuzzle import plpuzzle

from plpuzzle.sandbox import archives
from plpuzzle.sudoku import api
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.textformat import load_puzzle, solutions_to_text
from plpuzzle.sudoku.grading.grader import GradingRequest, load_cases, resolve
from plpuzzle.sudoku.grading.intake import id_problem, read_class
from plpuzzle.sudoku.grading.model import GradeSettings, GradingError
from plpuzzle.sudoku.runs.suite import SuiteError
from plpuzzle.sudoku.runs.suite_config import Points, check_rules, load_manifest, load_points
from plpuzzle.untrusted import spreadsheet_cell

REPO = Path(__file__).resolve().parents[2]
CLASS = REPO / "tests" / "fixtures" / "class"
SUITE = REPO / "tests" / "fixtures" / "grading_suite"
SOLVER = "sudoku(_, _).\n"


def grade_args(submissions: Path, suite: Path, out: Path, *more: str | Path,
               time_limit: int = 10, memory_limit: int = 1024) -> list[str | Path]:  # fmt: skip
    return ["sudoku", "grade", submissions, "--suite", suite, "--time-limit", str(time_limit),
            "--memory-limit", str(memory_limit), "--jobs", "2", "--out", out, *more]  # fmt: skip


def copy_suite(tmp_path: Path, *tests: str) -> Path:
    """The fixture suite (or some of its tests) in tmp_path, to mutate."""
    suite = tmp_path / "suite"
    suite.mkdir()
    for path in sorted(SUITE.iterdir()):
        if not tests or path.name[:7] in tests:
            shutil.copy(path, suite / path.name)
    return suite


def one_student(tmp_path: Path, name: str = "dave.pl") -> Path:
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(CLASS / name, folder / name)
    return folder


# --- intake -------------------------------------------------------------------


def test_every_entry_is_a_student_and_a_messy_one_is_noted(tmp_path: Path) -> None:
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "sudoku.pl").write_text(SOLVER)
    (tmp_path / "ann.pl").write_text(SOLVER)  # a second entry for ann: the folder wins
    (tmp_path / "ben.pl").write_text(SOLVER)  # today's one-file-per-student form
    (tmp_path / "cid").mkdir()
    (tmp_path / "cid" / "Sudoku.pl").write_text(SOLVER)
    (tmp_path / "dan").mkdir()
    (tmp_path / "dan" / "solution.pl").write_text(SOLVER)
    (tmp_path / "dan" / "notes.md").write_text("hi\n")
    (tmp_path / "eve" / "src").mkdir(parents=True)
    (tmp_path / "eve" / "src" / "sudoku.pl").write_text(SOLVER)
    (tmp_path / "fay").mkdir()
    (tmp_path / "gus.zip").write_bytes(b"PK")
    (tmp_path / "hal").mkdir()
    (tmp_path / "hal" / "a.pl").write_text(SOLVER)
    (tmp_path / "hal" / "b.pl").write_text(SOLVER)
    (tmp_path / "ida.txt").write_text("my solver is in the mail\n")
    (tmp_path / "jon.rar").write_bytes(b"Rar!")
    (tmp_path / ".DS_Store").write_bytes(b"\0")
    (tmp_path / "__MACOSX" / "ann").mkdir(parents=True)
    (tmp_path / ".hidden").mkdir()

    intake = read_class(tmp_path)
    graded = {s.student: s for s in intake.submissions}
    assert sorted(graded) == ["ann", "ben", "cid", "dan", "eve"]
    # The only .pl file of a hand-in is graded, with a note that says so.
    assert graded["ann"].files.main == "sudoku.pl" and graded["ann"].files.notes == ()
    assert graded["cid"].files.main == "Sudoku.pl"
    assert "case-sensitive" in graded["cid"].notes()[0]
    assert graded["dan"].files.main == "solution.pl"
    assert graded["dan"].notes()[0].startswith("graded solution.pl: the only .pl file")
    assert graded["eve"].files.main == "src/sudoku.pl"
    assert "subfolder" in graded["eve"].notes()[0]
    notes = {u.student: (u.grade.value, u.note) for u in intake.ungradable}
    assert sorted(notes) == ["fay", "gus", "hal", "ida", "jon"]
    assert notes["fay"] == ("no submission", "no .pl file in the submission folder")
    assert notes["gus"][0] == "load error" and "cannot be opened" in notes["gus"][1]
    assert notes["hal"][0] == "load error" and "a.pl, b.pl" in notes["hal"][1]
    assert notes["ida"][0] == "no submission" and "ida.txt" in notes["ida"][1]
    assert notes["jon"][0] == "load error" and "does not open" in notes["jon"][1]
    assert len(intake.skipped) == 1 and "ann.pl" in intake.skipped[0]

    (tmp_path / "empty").mkdir()
    with pytest.raises(GradingError, match="no submissions"):
        read_class(tmp_path / "empty")
    with pytest.raises(GradingError, match="no such folder"):
        read_class(tmp_path / "nowhere")


def test_archives_are_unpacked_in_memory_and_safely(tmp_path: Path) -> None:
    """What course platforms download: a .zip of the student's folder, a
    .tar.gz; and what a hostile archive holds: paths outside, links, a bomb."""
    subs = tmp_path / "class"
    subs.mkdir()
    with zipfile.ZipFile(subs / "kim.zip", "w") as z:  # an archived folder, with litter
        z.writestr("kim/sudoku.pl", SOLVER)
        z.writestr("kim/lib/helper.pl", "h.\n")
        z.writestr("__MACOSX/kim/._sudoku.pl", "junk")
    with tarfile.open(subs / "lou.tar.gz", "w:gz") as t:
        add_tar(t, "solver.pl", SOLVER.encode())
        add_tar(t, "../escape.pl", b"x.\n")
        add_tar(t, "/etc/passwd.pl", b"x.\n")
        link = tarfile.TarInfo("sudoku_link.pl")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/shadow"
        t.addfile(link)
    with zipfile.ZipFile(subs / "mia.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("sudoku.pl", SOLVER)
        z.writestr("huge.bin", b"\0" * (40 << 20))  # 40 MB of zeros, 40 KB packed
        info = zipfile.ZipInfo("evil_link")
        info.external_attr = 0o120777 << 16
        z.writestr(info, "/etc/shadow")
    with tarfile.open(subs / "ned.tgz", "w:gz") as t:  # a tar bomb: unpacks past the bound
        add_tar(t, "sudoku.pl", SOLVER.encode())
        add_tar(t, "zeros.bin", b"\0" * (80 << 20))
    before = sorted(p.name for p in tmp_path.rglob("*"))

    intake = read_class(subs)
    graded = {s.student: s for s in intake.submissions}
    assert sorted(graded) == ["kim", "lou", "mia"]
    assert [n for n, _ in graded["kim"].files.files] == ["sudoku.pl", "lib/helper.pl"]
    assert graded["kim"].files.notes == ("unpacked from kim.zip (its folder kim left out)",)
    lou = graded["lou"].files
    assert [n for n, _ in lou.files] == ["solver.pl"] and lou.main == "solver.pl"
    assert sorted(r.split(":")[0] for r in lou.refused) == [
        "../escape.pl", "/etc/passwd.pl", "sudoku_link.pl",
    ]  # fmt: skip
    mia = graded["mia"].files
    assert [n for n, _ in mia.files] == ["sudoku.pl"]
    assert any("huge.bin: larger than" in r for r in mia.refused)
    assert any("evil_link: a symbolic link" in r for r in mia.refused)
    (ned,) = intake.ungradable
    assert ned.student == "ned" and ned.grade.value == "load error"
    assert "unpacks to more than" in ned.note
    # Nothing was written anywhere: the archives were read in memory.
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_ids_are_bounded_shown_safely_and_look_alikes_are_named(tmp_path: Path) -> None:
    """Ids come from names students chose: at most 64 characters, control
    characters and characters that pass for Latin ones escaped, and an id
    that mixes scripts, or looks like another, noted."""
    for name in ("alice", "\u0430lice", "x" * 65, "\x1b[2Jzed", "=SUM(A1)"):
        (tmp_path / f"{name}.pl").write_text(SOLVER)
    intake = read_class(tmp_path)
    assert [s.student for s in intake.submissions] == ["alice"]
    notes = {u.student: u.note for u in intake.ungradable}
    assert set(notes) == {"\\u0430lice", "x" * 65, "\\x1b[2Jzed", "=SUM(A1)"}, notes
    assert "mixes scripts (cyrillic, latin)" in notes["\\u0430lice"]
    assert "looks like another student's id" in notes["\\u0430lice"]
    assert any("\\u0430lice looks like alice" in w for w in intake.skipped), intake.skipped
    assert any("ids are at most 64 characters" in n for n in notes.values())
    assert all("\x1b" not in student for student in notes)
    assert id_problem("alice") is None and id_problem("a" * 65) and id_problem("j\u00f3zsef")
    assert spreadsheet_cell("=SUM(A1)") == "'=SUM(A1)" and spreadsheet_cell("alice") == "alice"


def test_file_names_are_decoded_bounded_and_laid_out(tmp_path: Path) -> None:
    """A Latin-1 name is read as Latin-1 (with a note); a name over 255
    bytes, and a file where another needs a folder, are refused with a
    note a line long; past the budget of bytes unpacked, nothing is read."""
    ann = tmp_path / "ann"
    ann.mkdir()
    (ann / "sudoku.pl").write_text(SOLVER)
    (ann / "megold\u00e1s.txt".encode("latin-1").decode("utf-8", "surrogateescape")).write_text(
        "doc"
    )
    with zipfile.ZipFile(tmp_path / "bea.zip", "w") as z:
        z.writestr("sudoku.pl", SOLVER)
        z.writestr("x.pl", "x.\n")
        z.writestr("x.pl/y.pl", "y.\n")
        z.writestr("n" * 300 + ".pl", "n.\n")
    with zipfile.ZipFile(tmp_path / "cyd.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("sudoku.pl", SOLVER)
        for i in range(12):  # 12 x 7 MB of zeros: past the 64 MB read in all
            z.writestr(f"z{i:02d}.bin", b"\0" * (7 << 20))
    intake = read_class(tmp_path, jobs=2)
    graded = {s.student: s.files for s in intake.submissions}
    assert [n for n, _ in graded["ann"].files] == ["megold\u00e1s.txt", "sudoku.pl"]
    assert "read as Latin-1: megold\u00e1s.txt" in graded["ann"].notes[-1]
    bea = graded["bea"].refused
    assert [n for n, _ in graded["bea"].files] == ["sudoku.pl", "x.pl"]
    assert "x.pl/y.pl: x.pl is a file of the hand-in, not a folder" in bea
    assert any("a name longer than 255 bytes" in r and len(r) < 250 for r in bea), bea
    cyd = graded["cyd"].refused
    assert any("not unpacked: the archive unpacks to more than 64 MB" in r for r in cyd), cyd


def test_an_archive_whose_unpacking_misbehaves_is_that_students_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unpacking process is the only one that parses an archive: when it
    is stopped at its limits, the hand-in is reported in words, and the
    rest of the class is read."""
    (tmp_path / "ann.pl").write_text(SOLVER)
    with zipfile.ZipFile(tmp_path / "bob.zip", "w") as z:
        z.writestr("sudoku.pl", SOLVER)
    monkeypatch.setattr(archives, "UNPACK_CPU_SECONDS", 0)  # no CPU time at all
    intake = read_class(tmp_path)
    assert [s.student for s in intake.submissions] == ["ann"]
    (bob,) = intake.ungradable
    assert "bob.zip: the archive cannot be opened: unpacking it was stopped by" in bob.note


def add_tar(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


@pytest.mark.sandbox
def test_a_class_with_misnamed_submissions_and_a_roster(tmp_path: Path) -> None:
    """A misnamed lone .pl file is graded with a note; an entry with nothing
    to run is graded 0 with its note, shown on the terminal too; the
    roster's missing student is reported as missing; a .zip is graded."""
    subs = one_student(tmp_path)
    shutil.copy(CLASS / "alice.pl", subs / "alice.pl")
    (subs / "zed").mkdir()
    shutil.copy(CLASS / "alice.pl", subs / "zed" / "Sudoku.pl")
    (subs / "yan").mkdir()
    shutil.copy(CLASS / "alice.pl", subs / "yan" / "solution.pl")
    shutil.copy(CLASS / "alice.pl", subs / "yan" / "backup.pl")
    with zipfile.ZipFile(subs / "xia.zip", "w") as z:
        z.write(CLASS / "alice.pl", "xia/sudoku.pl")
    shutil.copy(CLASS / "judy.pl", subs / "judy.pl")
    roster = tmp_path / "roster.txt"
    roster.write_text("# the course\nalice\ndave\nyan\nzed\nxia\njudy\nnobody\n")
    suite = copy_suite(tmp_path, "test001", "test002")
    out = tmp_path / "out"
    run = plpuzzle(*grade_args(subs, suite, out, "--roster", roster))
    assert run.returncode == 0, run.stderr
    data = json.loads((out / "grades.json").read_text())
    students = {s["id"]: s for s in data["students"]}
    assert sorted(students) == ["alice", "dave", "judy", "nobody", "xia", "yan", "zed"]
    assert {i: s["score"] for i, s in students.items()} == {
        "alice": 2, "dave": 1, "judy": 0, "nobody": 0, "xia": 2, "yan": 0, "zed": 2,
    }  # fmt: skip
    assert "graded Sudoku.pl" in students["zed"]["notes"][0]
    assert "unpacked from xia.zip" in students["xia"]["notes"][0]
    assert "solution.pl" in students["yan"]["notes"][0]
    assert [r["grade"] for r in students["yan"]["results"]] == ["load error"] * 2
    judy = students["judy"]["results"][0]
    assert judy["grade"] == "not loadable"
    assert judy["detail"].startswith("judy.pl:7:28: Syntax error")
    assert [r["grade"] for r in students["nobody"]["results"]] == ["missing", "missing"]
    assert (data["missing"], data["ungradable"]) == (["nobody"], ["yan"])
    assert "Missing (on the roster, no submission): nobody." in run.stdout
    assert "Graded 0, nothing ran:\n" in run.stdout
    assert f"  judy: not loadable: {judy['detail']}\n" in run.stdout
    assert "  yan: load error: no sudoku.pl at the top" in run.stdout
    # Not a terminal: plain progress lines on stderr, the last one at 100%.
    assert "plpuzzle: graded 10/10 (100%)" in run.stderr
    csv = (out / "grades.csv").read_text().splitlines()
    # After the grades, the course requirements' columns: empty for nobody.
    assert csv[0].endswith(
        ",missing,clpfd,head_comments,long_lines,documentation,deduction,feedback"
    )
    assert "nobody,0,2," + "0," * 9 + "2,,,,,,feedback/nobody.html" in csv
    assert any(line.startswith("alice,2,2,2,") and ",yes," in line for line in csv)


# --- the suite ----------------------------------------------------------------


def graded_nobody(run: subprocess.CompletedProcess[str], out: Path) -> None:
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert not out.exists()  # no gradebook, no report: the checks come first


@pytest.mark.sandbox
@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda s: (s / "test002s.txt").unlink(), "test002s.txt: missing"),
        (lambda s: [p.unlink() for p in s.glob("*s.txt")], "test008s.txt: missing"),
        (lambda s: (s / "test003s.txt").write_text("garbage\n"), "test003s.txt:1:1:"),
        (lambda s: (s / "test004d.txt").write_text("2\nxyz\n"), "test004d.txt:"),
        (lambda s: (s / "test005s.txt").chmod(0), "test005s.txt"),
    ],
    ids=["one-missing", "none", "garbage-expected", "garbage-puzzle", "unreadable"],
)
def test_a_broken_suite_stops_before_anyone_is_graded(
    tmp_path: Path, mutate: object, words: str
) -> None:
    suite = copy_suite(tmp_path)
    mutate(suite)  # type: ignore[operator]
    if os.geteuid() == 0 and words == "test005s.txt":
        (suite / "test005s.txt").write_bytes(b"\xff\xfe")  # root reads anything
    out = tmp_path / "out"
    run = plpuzzle(*grade_args(one_student(tmp_path), suite, out))
    graded_nobody(run, out)
    assert "nobody was graded" in run.stderr and words in run.stderr


def oddsum_suite(tmp_path: Path) -> Path:
    """test001 and test004 of the fixture suite with their oddsum solutions,
    found by our Python engine: a suite made for the other rules (test004
    has more solutions under them; test001 the same one)."""
    suite = copy_suite(tmp_path, "test001", "test004")
    for name in ("test001", "test004"):
        puzzle = load_puzzle(suite / f"{name}d.txt")
        result = api.solve(puzzle, rules="oddsum", engine="python")
        (suite / f"{name}s.txt").write_text(solutions_to_text(result.solutions))
    return suite


@pytest.mark.sandbox
@pytest.mark.slow
def test_forgotten_rules_are_named_and_a_manifest_declares_them(tmp_path: Path) -> None:
    suite = oddsum_suite(tmp_path)
    subs = one_student(tmp_path)
    out = tmp_path / "out"
    run = plpuzzle(*grade_args(subs, suite, out))
    graded_nobody(run, out)
    assert (
        "the expected solutions of test004 break the consecutive rules but satisfy oddsum: "
        "pass --rules oddsum" in run.stderr
    )
    (suite / "suite.toml").write_text('rules = "oddsum"\ntime_limit = 7\n[points]\ntest004 = 3\n')
    run = plpuzzle(*grade_args(subs, suite, out)[:5], "--out", out)  # no --time-limit
    assert run.returncode == 0, run.stderr
    data = json.loads((out / "grades.json").read_text())
    assert (data["settings"]["rules"], data["settings"]["time_limit"]) == ("oddsum", 7)
    assert data["max_score"] == 4
    # The command line wins over the manifest.
    again = plpuzzle(*grade_args(subs, suite, tmp_path / "o2"))
    assert json.loads((tmp_path / "o2" / "grades.json").read_text())["settings"]["time_limit"] == 10
    assert again.returncode == 0
    wrong = plpuzzle(*grade_args(subs, suite, tmp_path / "o3", "--rules", "consecutive"))
    graded_nobody(wrong, tmp_path / "o3")
    assert "pass --rules oddsum" in wrong.stderr


def test_an_oddsum_suite_that_keeps_the_consecutive_rules_gets_a_warning() -> None:
    cases = load_cases(SUITE, Points())
    assert check_rules(cases, Rules.CONSECUTIVE) == []
    assert "pass --rules consecutive" in check_rules(cases, Rules.ODDSUM)[0]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('rules = "oddsum"\ntime_limt = 3\n', "suite.toml:2: unknown key 'time_limt' (did you "
         "mean time_limit"),
        ('\nrules = "odd"\n', "suite.toml:2: rules must be one of 'consecutive', 'oddsum'"),
        ("time_limit = -1\n", "suite.toml:1: time_limit must be seconds > 0"),
        ("memory_limit = 1.5\n", "suite.toml:1: memory_limit must be MB >= 64"),
        ('[points]\ntest001 = "x"\n', "suite.toml:2: the points of test001 must be a number"),
        ("rules = \n", "suite.toml:1:9: Invalid value"),
    ],
)  # fmt: skip
def test_manifest_errors_name_the_file_and_line(tmp_path: Path, text: str, words: str) -> None:
    suite = copy_suite(tmp_path)
    (suite / "suite.toml").write_text(text)
    with pytest.raises(SuiteError) as caught:
        load_manifest(suite)
    assert str(caught.value).startswith(str(suite / "suite.toml"))
    assert words in str(caught.value)


def test_the_command_line_wins_over_the_manifest(tmp_path: Path) -> None:
    suite = copy_suite(tmp_path)
    (suite / "suite.toml").write_text(
        'rules = "oddsum"\ntime_limit = 7\nmemory_limit = 512\n[points]\ndefault = 2\n'
    )
    request = GradingRequest(tmp_path, suite, GradeSettings(), tmp_path, given=frozenset())
    settings, points, manifest = resolve(request)
    assert (settings.rules, settings.time_limit, settings.memory_mb) == (Rules.ODDSUM, 7, 512)
    assert points.default == 2 and manifest is not None
    request.given = frozenset({"rules", "time_limit"})
    settings, _, _ = resolve(request)
    assert (settings.rules, settings.time_limit, settings.memory_mb) == (
        Rules.CONSECUTIVE,
        120,
        512,
    )
    (tmp_path / "p.toml").write_text("default = 5\n")
    request.points_file = tmp_path / "p.toml"
    assert resolve(request)[1].default == 5  # --points replaces the manifest's [points]


# --- points -------------------------------------------------------------------


def test_a_points_file_naming_no_test_of_the_suite_is_an_error(tmp_path: Path) -> None:
    points = tmp_path / "points.toml"
    points.write_text("default = 1\n\n[points]\ntest001 = 2\ntest12 = 3\n")
    with pytest.raises(SuiteError) as caught:
        load_cases(SUITE, load_points(points))
    assert str(caught.value) == (
        f"{points}:5: no test test12 in the suite (did you mean test002 or test001 or test008?)"
    )
    points.write_text('only = ["test001", "tset004"]\n')
    with pytest.raises(SuiteError, match=r"points.toml:1: 'only' names tset004.*test004"):
        load_cases(SUITE, load_points(points))
    points.write_text("[points]\ntest001 = -1\n")
    with pytest.raises(SuiteError, match=r"points.toml:2: the points of test001"):
        load_points(points)


@pytest.mark.sandbox
def test_a_points_typo_through_the_cli(tmp_path: Path) -> None:
    points = tmp_path / "points.toml"
    points.write_text("[points]\ntest01 = 3\n")
    out = tmp_path / "out"
    run = plpuzzle(*grade_args(one_student(tmp_path), SUITE, out, "--points", points))
    graded_nobody(run, out)
    assert f"{points}:2: no test test01 in the suite (did you mean test001" in run.stderr


# --- --student ----------------------------------------------------------------


@pytest.mark.sandbox
@pytest.mark.slow
def test_regrading_one_student(tmp_path: Path) -> None:
    subs = one_student(tmp_path)
    shutil.copy(CLASS / "carol.pl", subs / "carol.pl")
    suite = copy_suite(tmp_path, "test001", "test004")
    out = tmp_path / "out"
    first = plpuzzle(*grade_args(subs, suite, out, "--student", "dave"))
    assert first.returncode == 2 and "grade the whole class first" in first.stderr
    assert plpuzzle(*grade_args(subs, suite, out)).returncode == 0
    before = (out / "grades.csv").read_text()
    again = plpuzzle(*grade_args(subs, suite, out, "--student", "dave"))
    assert again.returncode == 0, again.stderr
    assert "2 test run(s) graded now, 2 taken from the gradebook" in again.stdout
    assert (out / "grades.csv").read_text() == before  # the whole class, same grades
    typo = plpuzzle(*grade_args(subs, suite, out, "--student", "davd"))
    assert typo.returncode == 2
    assert "--student davd: no such student (did you mean dave?)" in typo.stderr


@pytest.mark.sandbox
@pytest.mark.slow
def test_identical_submissions_are_named_and_regraded_one_at_a_time(tmp_path: Path) -> None:
    """ann and bob hand in the same file: each test runs once for both, each
    keeps rows of their own, the reports say "identical to", and --student
    bob regrades bob alone."""
    subs = one_student(tmp_path)
    shutil.copy(CLASS / "alice.pl", subs / "ann.pl")
    shutil.copy(CLASS / "alice.pl", subs / "bob.pl")
    suite = copy_suite(tmp_path, "test001", "test004")
    out = tmp_path / "out"
    first = plpuzzle(*grade_args(subs, suite, out))
    assert first.returncode == 0, first.stderr
    assert "Identical hand-ins (each test run once): ann = bob" in first.stdout
    data = json.loads((out / "grades.json").read_text())
    twins = {s["id"]: s["identical_to"] for s in data["students"]}
    assert twins == {"ann": ["bob"], "bob": ["ann"], "dave": []}
    assert "identical to: bob" in (out / "grades.html").read_text()
    # Feedback is for one student: it names no other, unless the teacher says so.
    assert "ann" not in (out / "feedback" / "bob.md").read_text()
    told = plpuzzle(*grade_args(subs, suite, tmp_path / "told", "--tell-identical"))
    assert told.returncode == 0, told.stderr
    assert "Identical to: `ann`" in (tmp_path / "told" / "feedback" / "bob.md").read_text()
    db = out / "grades.sqlite"
    assert sorted(set(results_in(db))) == [
        ("ann", "correct"), ("bob", "correct"), ("dave", "correct"), ("dave", "wrong"),
    ]  # fmt: skip
    # A mark on ann's rows, which regrading bob must leave alone.
    with sqlite3.connect(db) as con:
        con.execute("UPDATE results SET detail='ann-untouched' WHERE student='ann'")
    again = plpuzzle(*grade_args(subs, suite, out, "--student", "bob", "--no-feedback"))
    assert again.returncode == 0, again.stderr
    assert "2 test run(s) graded now, 4 taken from the gradebook" in again.stdout
    with sqlite3.connect(db) as con:
        marks = con.execute("SELECT student, detail FROM results WHERE student<>'dave'")
        assert sorted(marks.fetchall()) == [
            ("ann", "ann-untouched"), ("ann", "ann-untouched"), ("bob", ""), ("bob", ""),
        ]  # fmt: skip


# --- interruption -------------------------------------------------------------


def results_in(db: Path) -> list[tuple[str, str]]:
    if not db.exists():
        return []
    with contextlib.suppress(sqlite3.OperationalError), sqlite3.connect(db) as con:
        return con.execute("SELECT student, grade FROM results").fetchall()
    return []


@pytest.mark.slow
@pytest.mark.sandbox
def test_ctrl_c_summarises_and_a_rerun_goes_on(tmp_path: Path) -> None:
    """SIGINT to the grader's process group (what Ctrl-C does): exit 130
    with what was done; the rerun grades only the rest, and its CSV is
    that of a run never interrupted."""
    subs = tmp_path / "class"
    subs.mkdir()
    shutil.copytree(CLASS / "bob", subs / "bob")  # its last test runs to the time limit
    for name in ("alice.pl", "dave.pl", "judy.pl", "erin.pl"):  # erin's last test times out
        shutil.copy(CLASS / name, subs / name)
    out = tmp_path / "out"
    # test_grading.py's limits for the fixture class: its correct runs take
    # at most 0.4 s a test, and bob's and erin's last tests still time out
    # (at 2 s, not 10, in each of the three runs). No feedback: only the
    # CSV is compared, and its search for dave's and erin's smallest
    # failing puzzle would run twice.
    limits = {"time_limit": 2, "memory_limit": 512}
    args = grade_args(subs, SUITE, out, "--no-feedback", **limits)
    proc = subprocess.Popen(
        [sys.executable, "-m", "plpuzzle", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while len(results_in(out / "grades.sqlite")) < 8 and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "plpuzzle: interrupted after" in stderr and "of 30 test run(s)" in stderr
    assert "run the same command again to go on" in stderr
    assert "Traceback" not in stderr and not (out / "grades.csv").exists()
    kept = results_in(out / "grades.sqlite")
    assert 8 <= len(kept) < 30
    # The tests killed by the interrupt are not graded as the student's fault.
    assert all(grade != "crashed" for _, grade in kept)

    rerun = plpuzzle(*args)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{30 - len(kept)} test run(s) graded now, {len(kept)} taken" in rerun.stdout
    fresh = plpuzzle(*grade_args(subs, SUITE, tmp_path / "fresh", "--no-feedback", **limits))
    assert fresh.returncode == 0, fresh.stderr
    assert (out / "grades.csv").read_text() == (tmp_path / "fresh" / "grades.csv").read_text()


@pytest.mark.sandbox
def test_what_is_known_before_grading_is_said_before_grading(tmp_path: Path) -> None:
    """A student not on the roster is warned of before the first test runs,
    not after a long run; a warning over several lines is one note; the
    runs made once for identical hand-ins are counted once where they ran."""
    subs = one_student(tmp_path, "alice.pl")
    shutil.copy(CLASS / "alice.pl", subs / "zed.pl")  # not on the roster, and alice's twin
    (subs / "sam.pl").write_text(
        ":- use_module(library(clpfd)).\nfoo(1).\nbar.\nfoo(2).\nsudoku(_, _) :- fail.\n"
    )
    roster = tmp_path / "roster.txt"
    roster.write_text("alice\nsam\n")
    suite = copy_suite(tmp_path, "test001", "test004")
    out = tmp_path / "out"
    run = plpuzzle(*grade_args(subs, suite, out, "--roster", roster))
    assert run.returncode == 0, run.stderr
    stray = run.stderr.index("not on the roster")
    assert stray < run.stderr.index("plpuzzle: graded "), run.stderr
    assert run.stderr.count("not on the roster") == 1
    data = json.loads((out / "grades.json").read_text())
    notes = next(s["notes"] for s in data["students"] if s["id"] == "sam")
    together = [n for n in notes if "not together" in n]
    assert len(together) == 1 and "discontiguous" in together[0], notes
    assert "sam.pl:2" in together[0]  # the place, as sam named the file
    # alice and zed ran each test once: 2 tests, alice's runs, sam's 2
    assert sum(p["runs"] for p in data["ran_on"]) == 4, data["ran_on"]
