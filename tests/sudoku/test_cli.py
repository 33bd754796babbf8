"""The `plpuzzle sudoku` command, run as a real process."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.etree import ElementTree

import pytest
from run_plpuzzle import plpuzzle
from terminal import plain_lines, run_on_pty, screen

from plpuzzle.sudoku.domain.model import Grid
from plpuzzle.sudoku.domain.textformat import format_board, load_solutions

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "puzzles" / "sudoku" / "consecutive"
EXAMPLE = BUNDLED / "test001d.txt"
SOLVERS = REPO / "tests" / "fixtures" / "solvers"
EXAMPLE_BYTES = "\n-----\n\n 2 1  4 3\n 3 4  2 1\n\n 4 3  1 2\n 1 2  3 4\n\n-----\n"


@pytest.mark.parametrize(
    ("engine", "first_line"),
    [
        ("prolog", "solver: bundled sudoku.pl (swi), rules: consecutive"),
        ("python", "engine: python, rules: consecutive"),
    ],
)
def test_solve_prints_the_spec_bytes(engine: str, first_line: str) -> None:
    """The solutions on stdout, byte for byte; stderr names what ran."""
    run = plpuzzle("sudoku", "solve", EXAMPLE, "--engine", engine)
    assert run.returncode == 0, run.stderr
    assert run.stdout == EXAMPLE_BYTES
    assert run.stderr == f"plpuzzle: {first_line}\n"
    assert plpuzzle("sudoku", "solve", EXAMPLE, "--engine", engine, "-q").stderr == ""


def test_solve_to_a_file_with_stats(tmp_path: Path) -> None:
    out = tmp_path / "test001t.txt"
    run = plpuzzle("sudoku", "solve", EXAMPLE, "--output", out, "--stats")
    assert run.returncode == 0, run.stderr
    assert out.read_text() == EXAMPLE_BYTES
    assert run.stdout == ""
    assert re.fullmatch(
        r"plpuzzle: solver: .*\n"
        r"Feladvány: \S+test001d\.txt, megoldásszám:   1, futási idő: {3}\d\.\d{3} s\n",
        run.stderr,
    )


def test_solve_with_another_solver_and_no_solution() -> None:
    run = plpuzzle("sudoku", "solve", BUNDLED / "test003d.txt", "--solver", SOLVERS / "misses.pl")
    assert (run.returncode, run.stdout) == (0, "\n-----\n")


@pytest.mark.parametrize(
    ("solver", "words"),
    [
        ("duplicates", "gave this solution 2 times"),
        ("malformed", "not a list of lists of integers"),
        ("raises", "raised an error"),
        ("halts", "crashed"),
    ],
)
def test_solver_faults_exit_1_with_a_reason(solver: str, words: str) -> None:
    run = plpuzzle("sudoku", "solve", EXAMPLE, "--solver", SOLVERS / f"{solver}.pl")
    assert run.returncode == 1
    assert words in run.stderr
    assert "Traceback" not in run.stderr


def test_solve_time_limit() -> None:
    run = plpuzzle(
        "sudoku", "solve", EXAMPLE, "--solver", SOLVERS / "loops.pl", "--time-limit", "0.3"
    )
    assert run.returncode == 1
    assert "stopped at the CPU-time limit of 0.3 s" in run.stderr
    assert run.stdout == ""


@pytest.mark.parametrize(
    ("content", "position"),
    [
        ("", "1:1"),
        ("two\n", "1:1"),
        ("2\n- - - -\n- - - -\n", "3:1"),
        ("2\n- - - -\n- - -\n- - - -\n- - - -\n", "3:6"),
        ("2\n- - - -\n- - ? -\n- - - -\n- - - -\n", "3:5"),
        ("2\n- - - -\n- - ee -\n- - - -\n- - - -\n", "3:6"),
        ("2\n- - - -\n- - 9 -\n- - - -\n- - - -\n", "3:5"),
    ],
)
@pytest.mark.parametrize("command", ["solve", "check"])
def test_bad_puzzle_is_one_line_and_exit_2(
    tmp_path: Path, content: str, position: str, command: str
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text(content)
    run = plpuzzle("sudoku", command, bad)
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"plpuzzle: error: {bad}:{position}: ")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("sudoku", "solve", "nowhere.txt"), "nowhere.txt: cannot read"),
        (("sudoku", "solve", EXAMPLE, "--solver", "nowhere.pl"), "nowhere.pl: no such solver"),
        (
            ("sudoku", "solve", EXAMPLE, "--engine", "python", "--solver", SOLVERS / "misses.pl"),
            "--solver needs --engine prolog",
        ),
        (("sudoku", "solve", EXAMPLE, "--rules", "sum"), "Invalid value for '--rules'"),
        (
            ("sudoku", "check", EXAMPLE, EXAMPLE, "--expected", BUNDLED / "test001s.txt"),
            "--expected goes with a single puzzle",
        ),
    ],
)
def test_usage_mistakes_exit_2(args: tuple[str | Path, ...], words: str) -> None:
    run = plpuzzle(*args)
    assert run.returncode == 2
    assert words in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.slow
def test_check_agrees_on_every_bundled_puzzle() -> None:
    puzzles = sorted(BUNDLED.glob("test*d.txt"))
    run = plpuzzle("sudoku", "check", *puzzles)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(puzzles)} of {len(puzzles)} puzzles: the engines agree" in run.stdout


def test_check_reports_what_a_wrong_solver_missed() -> None:
    run = plpuzzle("sudoku", "check", BUNDLED / "test004d.txt", "--solver", SOLVERS / "misses.pl")
    assert run.returncode == 1
    assert "DISAGREE" in run.stdout
    assert "prolog: misses 4 valid solution(s)" in run.stdout
    assert "python: no fault found" in run.stdout
    assert "cpsat: no fault found" in run.stdout
    assert run.stdout.count("valid solution, given by python, cpsat and expected:") == 4
    assert "prolog differs; python, cpsat and expected agree with each other" in run.stdout
    assert "0 of 1 puzzles: the engines agree and match the expected solutions" in run.stdout
    assert "(prolog differs on 1)." in run.stdout


def test_check_runs_all_three_engines_by_default() -> None:
    run = plpuzzle("sudoku", "check", EXAMPLE, "--format", "json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["engines"] == ["prolog", "python", "cpsat"]
    sides = report["puzzles"][0]["sides"]
    assert [s["engine"] for s in sides] == ["prolog", "python", "cpsat", "expected"]
    assert [s["count"] for s in sides] == [1, 1, 1, 1]
    assert report["puzzles"][0]["odd_one_out"] is None
    table = plpuzzle("sudoku", "check", EXAMPLE)
    assert table.returncode == 0, table.stderr
    heading = next(line for line in table.stdout.splitlines() if line.split()[:1] == ["puzzle"])
    assert heading.split()[3:] == ["prolog", "python", "cpsat", "expected", "verdict"]


def test_check_runs_the_engines_named_in_engines() -> None:
    run = plpuzzle("sudoku", "check", EXAMPLE, "--engines", "Prolog, python", "--format", "json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["engines"] == ["prolog", "python"]
    assert [s["engine"] for s in report["puzzles"][0]["sides"]] == ["prolog", "python", "expected"]


@pytest.mark.parametrize(
    ("engines", "words"),
    [
        ("prolog,z3", "--engines: unknown engine 'z3'; choose from prolog, python, cpsat"),
        ("cpsat", "--engines: name at least 2 of prolog, python, cpsat"),
        ("python,PYTHON", "--engines: python is named twice"),
    ],
)
def test_check_rejects_a_bad_engines_list_in_one_line(engines: str, words: str) -> None:
    run = plpuzzle("sudoku", "check", EXAMPLE, "--engines", engines)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.splitlines() == [run.stderr.strip()]
    assert run.stderr.startswith(f"plpuzzle: error: {words}")


def test_check_solver_needs_prolog_among_the_engines() -> None:
    run = plpuzzle(
        "sudoku", "check", EXAMPLE, "--engines", "python,cpsat", "--solver", SOLVERS / "misses.pl"
    )
    assert run.returncode == 2
    assert run.stderr == "plpuzzle: error: --solver needs prolog among --engines\n"


@pytest.mark.slow
def test_check_names_the_one_engine_that_differs_without_an_expected_file(tmp_path: Path) -> None:
    # No testNNNs.txt beside the puzzle: the three engines alone must find
    # the wrong one. The broken solver stops after one of the five
    # solutions; python and cpsat agree on all five.
    puzzle = tmp_path / "p.txt"
    puzzle.write_text((BUNDLED / "test004d.txt").read_text())
    solver = SOLVERS / "misses.pl"
    run = plpuzzle("sudoku", "check", puzzle, "--solver", solver, "--format", "json")
    assert run.returncode == 1, run.stderr
    outcome = json.loads(run.stdout)["puzzles"][0]
    assert outcome["odd_one_out"] == "prolog"
    faults = {s["engine"]: s["faults"] for s in outcome["sides"]}
    assert faults["python"] == faults["cpsat"] == []
    assert faults["prolog"] == ["misses 4 valid solution(s)"]
    text = plpuzzle("sudoku", "check", puzzle, "--solver", solver)
    assert text.returncode == 1
    assert "prolog differs; python and cpsat agree with each other" in text.stdout
    assert "(prolog differs on 1)." in text.stdout


def test_check_with_an_expected_file_that_is_wrong(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("[[[1,2,3,4],[3,4,1,2],[2,1,4,3],[4,3,2,1]]].\n")
    run = plpuzzle("sudoku", "check", EXAMPLE, "--expected", wrong)
    assert run.returncode == 1
    assert "expected: misses 1 valid solution(s), gives 1 invalid solution(s)" in run.stdout
    assert "INVALID solution, given by expected:" in run.stdout
    assert "row 3 holds" not in run.stdout  # the rows are a latin square; infos break
    assert "w:" in run.stdout or "s:" in run.stdout


def test_help_explains_the_commands() -> None:
    run = plpuzzle("sudoku", "--help")
    assert run.returncode == 0
    for word in ("solve", "check", "parity", "neighbour"):
        assert word in run.stdout


KSUDOKU_LINE = re.compile(
    r"Feladvány: (?P<path>\S+), "
    r"(megoldásszám:(?P<count>[ \d]{4}), futási idő:(?P<time>[ \d]{3}\d\.\d{3}) s "
    r"(?P<verdict>HELYES|NEM HELYES|NINCS MEGOLDÁS)"
    r"|túllépte az időkorlátot \(\d+ s\)"
    r"|hiba: .+)"
)


def test_suite_run_in_the_harness_format(tmp_path: Path, hand_made_suite: Path) -> None:
    folder = hand_made_suite
    (folder / "test005s.txt").unlink()
    (folder / "test006s.txt").write_text("[].\n")
    run = plpuzzle("sudoku", "test", "tests", "--format", "ksudoku", "--out", "out", cwd=tmp_path)
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert len(lines) == 10
    for line in lines:
        assert KSUDOKU_LINE.fullmatch(line), line
    assert lines[0].startswith("Feladvány: tests/test001d.txt, megoldásszám:   1, futási idő:")
    assert lines[0].endswith(" s HELYES")
    assert lines[4].endswith(" s NINCS MEGOLDÁS")
    assert lines[5].endswith(" s NEM HELYES")
    assert (tmp_path / "out" / "test001t.txt").read_text() == EXAMPLE_BYTES


@pytest.mark.slow
def test_the_time_limit_is_cpu_time_as_in_grading() -> None:
    """A solver that needs 0.6 s of CPU, on a core shared with a process
    that burns it too (so that 0.6 s of CPU take about 1.2 s of wall
    time, more on a busier core): a limit of 1 s is CPU time, as grading
    counts it, and it finishes; a limit of 0.3 s stops it, and says which
    clock."""
    if shutil.which("taskset") is None:
        pytest.skip("taskset (util-linux) is needed to share one core")
    core = str(min(os.sched_getaffinity(0)))
    hog = subprocess.Popen(["taskset", "-c", core, sys.executable, "-c", "while True: pass"])
    try:
        args = ("sudoku", "solve", EXAMPLE, "--solver", SOLVERS / "burns.pl")
        command = ["taskset", "-c", core, sys.executable, "-m", "plpuzzle", *map(str, args)]
        done = subprocess.run([*command, "--time-limit", "1"], capture_output=True, text=True)
        stopped = subprocess.run([*command, "--time-limit", "0.3"], capture_output=True, text=True)
    finally:
        hog.kill()
        hog.wait()
    assert done.returncode == 0, done.stderr
    assert done.stdout == EXAMPLE_BYTES
    assert stopped.returncode == 1
    assert "stopped at the CPU-time limit of 0.3 s" in stopped.stderr


def test_suite_timeout_line(tmp_path: Path, hand_made_suite: Path) -> None:
    run = plpuzzle(
        "sudoku", "test", "tests", "--format", "ksudoku", "--only", "test001",
        "--solver", SOLVERS / "loops.pl", "--time-limit", "0.3", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 1
    assert run.stdout == "Feladvány: tests/test001d.txt, túllépte az időkorlátot (0.3 s)\n"


def test_suite_table_summary_and_exit_0(hand_made_suite: Path) -> None:
    run = plpuzzle("sudoku", "test", hand_made_suite, "--out", Path(tempfile.mkdtemp()) / "o")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "10 tests: 10 correct" in run.stdout
    assert "slowest:" in run.stdout
    assert run.stdout.count(" correct") == 11


def test_suite_json_report(tmp_path: Path) -> None:
    run = plpuzzle("sudoku", "test", BUNDLED, "--format", "json", "--engines", "prolog,python",
                   "--out", tmp_path / "o", "--only", "test00[1-4]")  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert [t["name"] for t in report["tests"]] == ["test001", "test002", "test003", "test004"]
    assert report["summary"]["correct"] == 4 and report["all_correct"] is True
    assert [e["engine"] for e in report["tests"][1]["engines"]] == ["prolog", "python"]
    assert report["tests"][3]["solutions"] == 5


def test_suite_junit_report(tmp_path: Path, hand_made_suite: Path) -> None:
    run = plpuzzle("sudoku", "test", hand_made_suite, "--format", "junit", "--out", tmp_path / "o",
                   "--solver", SOLVERS / "misses.pl")  # fmt: skip
    assert run.returncode == 1
    root = ElementTree.fromstring(run.stdout)
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("tests") == "10"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert list(cases) == [f"test{i:03d}" for i in range(1, 11)]
    failure = cases["test004"].find("failure")
    assert failure is not None and failure.get("message") == "wrong: missing 4"
    assert cases["test001"].find("failure") is None
    assert suite.get("failures") == str(sum(c.find("failure") is not None for c in cases.values()))
    # The failure's text shows what is missing as boards, as pytest's report does.
    details = failure.text or ""
    assert "missing (expected, not given): 4" in details, details
    assert "Feladvány" not in details
    expected = load_solutions(hand_made_suite / "test004s.txt")
    assert sum(board_lines(grid, 2) in details for grid in expected) == 3, details  # 3 of 4


def board_lines(grid: Grid, k: int) -> str:
    """A board as a failure report draws it: the harness's rows, indented."""
    return "\n".join(
        f"    {row}" if row else "" for row in format_board(grid, k).strip("\n").split("\n")
    )


def test_suite_junit_failures_show_an_extra_board_and_the_rules_it_breaks(
    hand_made_suite: Path,
) -> None:
    buggy = REPO / "tests" / "fixtures" / "feedback" / "s_points_up.pl"
    run = plpuzzle("sudoku", "test", hand_made_suite, "--format", "junit", "--only", "test004",
                   "--solver", buggy)  # fmt: skip
    assert run.returncode == 1, run.stderr
    failure = ElementTree.fromstring(run.stdout).find("testsuite/testcase/failure")
    assert failure is not None
    details = failure.text or ""
    assert "extra (given, not expected): 2" in details, details
    assert "breaks: s: cell (2,2)=3 and the cell below (3,2)=1" in details, details


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("nowhere",), "nowhere: no such folder"),
        ((BUNDLED, "--only", "test999"), "no testNNNd.txt puzzles matching 'test999'"),
        ((BUNDLED, "--engines", "python", "--solver", SOLVERS / "misses.pl"), "--solver needs"),
        ((BUNDLED, "--jobs", "0"), "Invalid value for '--jobs'"),
    ],
)
def test_suite_usage_mistakes(args: tuple[str | Path, ...], words: str) -> None:
    run = plpuzzle("sudoku", "test", *args)
    assert run.returncode == 2
    assert words in run.stderr


def test_a_sicstus_gap_is_told_to_a_student_as_grade_tells_the_teacher(tmp_path: Path) -> None:
    """fd_statistics/0, which SWI-Prolog's emulation lacks: plpuzzle's gap,
    in test as in grade, not an unknown procedure of the student's."""
    (tmp_path / "sudoku.pl").write_text(
        ":- use_module(library(clpfd)).\nsudoku(_, _) :- fd_statistics.\n"
    )
    run = plpuzzle("sudoku", "test", BUNDLED, "--only", "test001", cwd=tmp_path)
    assert run.returncode == 1
    assert (
        "not emulated: SICStus library predicate clpfd:fd_statistics/0 "
        "(plpuzzle's gap: please report it)"
    ) in run.stdout, run.stdout


@pytest.mark.slow
def test_on_an_80_column_terminal_no_line_is_longer_and_none_ends_in_spaces(
    tmp_path: Path,
) -> None:
    """A long reason wraps under itself (or below, indented), and tables
    carry no padding at the ends of their lines; off a terminal a test's
    line stays one line, for grep."""
    (tmp_path / "sudoku.pl").write_text(
        "sudoku(_, _) :- throw(error(type_error(integer, "
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz), context(foo/2, _))).\n"
    )
    test = run_on_pty(["sudoku", "test", BUNDLED, "--only", "test00[12]"], tmp_path, columns=80)
    check = run_on_pty(["sudoku", "check", EXAMPLE], tmp_path, columns=80)
    for run in (test, check):
        # The first line names the run's setup on one line, for programs to
        # read; what follows the live display (it ends by showing the cursor
        # again) is what stays on the screen.
        after = run.text.split("\x1b[?25h")[-1]
        lines = [line for line in screen(after, columns=1000) if line]
        assert max(map(len, lines)) <= 80, run.text
        raw = [line for line in plain_lines(after) if line.strip()]
        assert [line for line in raw if line != line.rstrip()] == [], run.text
    assert "(an atom)" in test.text  # nothing of the reason is lost
    piped = plpuzzle("sudoku", "test", BUNDLED, "--only", "test001", cwd=tmp_path)
    assert re.search(r"^test001 .* error .*\(an atom\)$", piped.stdout, re.M), piped.stdout


def test_generates_help_says_which_suite_toml_gives_the_rules() -> None:
    """generate has no suite: its rules' default comes from a suite.toml in
    the --out folder, and its help says so."""
    text = " ".join(plpuzzle("sudoku", "generate", "--help").stdout.split())
    assert "what a suite.toml in the --out folder declares" in text
    assert "the suite's suite.toml" not in text
