"""A student's first hour: their own ./sudoku.pl runs by default and the
first line says so; a solver that does not load is reported once, at its
place, before anything runs; the rules a suite was made for are named;
long runs show progress on a terminal."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from run_plpuzzle import plpuzzle
from terminal import run_on_pty

from plpuzzle.sudoku import api
from plpuzzle.sudoku.domain.textformat import load_puzzle, solutions_to_text

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "puzzles" / "sudoku" / "consecutive"
CLASS = REPO / "tests" / "fixtures" / "class"
SOLVERS = REPO / "tests" / "fixtures" / "solvers"


@pytest.fixture
def student(tmp_path: Path) -> Path:
    """A student's folder, holding nothing yet."""
    folder = tmp_path / "student"
    folder.mkdir()
    return folder


# --- their own solver, named -----------------------------------------------------


@pytest.mark.slow
def test_the_folders_sudoku_pl_is_judged_and_named_first(student: Path) -> None:
    shutil.copy(CLASS / "dave.pl", student / "sudoku.pl")  # stops after one solution
    run = plpuzzle("sudoku", "test", BUNDLED, "--only", "test00[1-4]", cwd=student)
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "solver: ./sudoku.pl (sicstus4), rules: consecutive"
    assert re.search(r"^test002 .* wrong +missing 3", run.stdout, re.MULTILINE)
    ours = plpuzzle("sudoku", "test", BUNDLED, "--only", "test00[1-4]", "--solver", "bundled",
                    cwd=student)  # fmt: skip
    assert ours.returncode == 0, ours.stdout
    assert ours.stdout.splitlines()[0] == "solver: bundled sudoku.pl (swi), rules: consecutive"


def test_solve_and_check_take_the_folders_solver_too(student: Path) -> None:
    shutil.copy(CLASS / "dave.pl", student / "sudoku.pl")
    puzzle = BUNDLED / "test002d.txt"  # four solutions; dave gives one
    solve = plpuzzle("sudoku", "solve", puzzle, cwd=student)
    assert solve.stderr.startswith("plpuzzle: solver: ./sudoku.pl (sicstus4), rules: consecutive\n")
    assert solve.stdout.count("-----") == 2  # one solution
    check = plpuzzle("sudoku", "check", puzzle, cwd=student)
    assert check.returncode == 1
    assert check.stdout.splitlines()[0] == (
        "solver: ./sudoku.pl (sicstus4), engines: prolog, python, cpsat, rules: consecutive"
    )
    assert "prolog differs" in check.stdout


def test_the_python_engine_ignores_the_folders_solver(student: Path) -> None:
    shutil.copy(CLASS / "judy.pl", student / "sudoku.pl")  # does not even load
    run = plpuzzle("sudoku", "solve", BUNDLED / "test001d.txt", "--engine", "python", cwd=student)
    assert run.returncode == 0, run.stderr
    assert run.stderr == "plpuzzle: engine: python, rules: consecutive\n"


# --- a solver that does not load -----------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("sudoku", "test", BUNDLED),
        ("sudoku", "solve", BUNDLED / "test001d.txt"),
        ("sudoku", "check", BUNDLED / "test001d.txt", BUNDLED / "test002d.txt"),
    ],
    ids=["test", "solve", "check"],
)
def test_a_syntax_error_is_told_once_at_its_place_and_nothing_runs(
    student: Path, args: tuple[str | Path, ...]
) -> None:
    shutil.copy(CLASS / "judy.pl", student / "sudoku.pl")  # a missing parenthesis, line 7
    run = plpuzzle(*args, "--out", student / "out", cwd=student) if args[1] == "test" else (
        plpuzzle(*args, cwd=student))  # fmt: skip
    assert run.returncode == 2, run.stdout + run.stderr
    errors = [line for line in run.stderr.splitlines() if "error:" in line]
    assert errors[0] == (
        "plpuzzle: error: ./sudoku.pl:7:28: Syntax error: Operator expected "
        "(in the clause starting at line 6)"
    )
    assert errors[-1] == ("plpuzzle: error: ./sudoku.pl does not define sudoku/2; nothing was run")
    assert run.stderr.count("Syntax error") == 1
    assert "test001 " not in run.stdout and "-----" not in run.stdout
    assert not (student / "out").exists()


def test_a_syntax_error_that_leaves_sudoku_2_defined_still_stops_the_run(
    student: Path,
) -> None:
    text = (CLASS / "alice.pl").read_bytes() + b"\nbroken(X :- true.\n"
    (student / "sudoku.pl").write_bytes(text)
    line = text.count(b"\n")
    run = plpuzzle("sudoku", "test", BUNDLED, "--only", "test001", cwd=student)
    assert run.returncode == 2
    assert f"./sudoku.pl:{line}:" in run.stderr
    assert run.stderr.splitlines()[-1] == (
        "plpuzzle: error: ./sudoku.pl does not load cleanly (1 error); nothing was run"
    )


@pytest.mark.slow
def test_pytest_reports_a_solver_that_does_not_load_as_one_collection_error(
    student: Path,
) -> None:
    shutil.copy(CLASS / "judy.pl", student / "sudoku.pl")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--sudoku-suite",
            BUNDLED,
            "-q",
            "-ra",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=student,
    )
    assert run.returncode == 2, run.stdout  # interrupted: errors during collection
    assert run.stdout.count("./sudoku.pl:7:28: Syntax error: Operator expected") == 1
    assert "1 error" in run.stdout and " failed" not in run.stdout and "passed" not in run.stdout


# --- the rules ----------------------------------------------------------------


def oddsum_suite(folder: Path) -> Path:
    """test004 of the bundled suite with its solutions under the oddsum
    rules (found by the Python engine): a suite made for the other rules."""
    suite = folder / "oddsum"
    suite.mkdir()
    shutil.copy(BUNDLED / "test004d.txt", suite)
    result = api.solve(load_puzzle(suite / "test004d.txt"), rules="oddsum", engine="python")
    (suite / "test004s.txt").write_text(solutions_to_text(result.solutions))
    return suite


def test_the_wrong_rules_are_named_by_check_and_test(student: Path) -> None:
    suite = oddsum_suite(student)
    check = plpuzzle("sudoku", "check", suite / "test004d.txt", "--engines", "python,cpsat",
                     cwd=student)  # fmt: skip
    assert "break the consecutive rules but satisfy oddsum: pass --rules oddsum" in check.stderr
    test = plpuzzle("sudoku", "test", suite, "--solver", "bundled", cwd=student)
    assert test.returncode == 2
    assert "satisfy oddsum: pass --rules oddsum" in test.stderr
    right = plpuzzle("sudoku", "test", suite, "--rules", "oddsum", "--solver", "bundled",
                     "--out", student / "o", cwd=student)  # fmt: skip
    assert right.returncode == 0, right.stdout + right.stderr


@pytest.mark.slow
def test_a_suite_toml_declares_the_rules_for_every_command(student: Path) -> None:
    suite = oddsum_suite(student)
    (suite / "suite.toml").write_text('rules = "oddsum"\n')
    test = plpuzzle("sudoku", "test", suite, "--solver", "bundled", "--out", student / "o",
                    cwd=student)  # fmt: skip
    assert test.returncode == 0, test.stdout + test.stderr
    assert test.stdout.splitlines()[0] == (
        f"solver: bundled sudoku.pl (swi), rules: oddsum (from {suite / 'suite.toml'})"
    )
    check = plpuzzle("sudoku", "check", suite / "test004d.txt", cwd=student)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "rules: oddsum (from" in check.stdout.splitlines()[0]
    solve = plpuzzle("sudoku", "solve", suite / "test004d.txt", "--engine", "python", cwd=student)
    assert "rules: oddsum" in solve.stderr.splitlines()[0]


# --- progress on a terminal ---------------------------------------------------


def test_a_long_solve_shows_time_and_solutions_so_far_on_a_terminal(student: Path) -> None:
    args = ["sudoku", "solve", BUNDLED / "test001d.txt", "--solver", SOLVERS / "slow.pl"]
    shown = run_on_pty([*args, "--time-limit", "60"], student).text
    counts = [int(n) for n in re.findall(r"solving test001d\.txt: \d+ s of 60 s, (\d+) sol", shown)]
    assert counts and counts[-1] > counts[0] >= 0, shown[-2000:]
    assert "gave this solution 10 times" in shown  # the run itself went on as usual
    quiet = plpuzzle(*args, cwd=student, timeout=120)
    assert "solving" not in quiet.stderr and "so far" not in quiet.stderr


def test_check_shows_which_puzzle_and_engine_run(student: Path) -> None:
    args = ["sudoku", "check", BUNDLED / "test001d.txt", "--solver", SOLVERS / "slow.pl",
            "--engines", "prolog,python"]  # fmt: skip
    shown = run_on_pty(args, student).text
    assert re.search(r"test001d\.txt \(1 of 1\), prolog: \d+ s of 120 s, \d+ sol", shown)


# --- tables that fit ----------------------------------------------------------


@pytest.mark.parametrize("columns", [80, 100])
def test_the_check_table_fits_the_terminal_without_cutting_a_word(
    student: Path, columns: int
) -> None:
    puzzles = [BUNDLED / "test001d.txt", REPO / "tests/fixtures/grading_suite/test002d.txt",
               BUNDLED / "test004d.txt"]  # fmt: skip
    run = plpuzzle("sudoku", "check", *puzzles, "--solver", SOLVERS / "misses.pl",
                   cwd=student, timeout=300, env={"COLUMNS": str(columns)})  # fmt: skip
    assert run.returncode == 1, run.stderr  # misses.pl misses solutions of test004
    table = run.stdout.split("\n\n")[0].splitlines()
    assert all(len(line) <= columns for line in table[2:])  # after the run and title lines
    assert "…" not in run.stdout
    heading = next(line for line in table if line.split()[:1] == ["puzzle"])
    assert heading.split() == [
        "puzzle", "K", "valid", "prolog", "python", "cpsat", "expected", "verdict"
    ]  # fmt: skip
    rows = [line.split() for line in table if re.search(r"\b(agree|DISAGREE)\s*$", line)]
    assert [row[-1] for row in rows] == ["agree", "DISAGREE", "DISAGREE"]
    assert all(row[1] in "23" for row in rows)  # the K column is there
