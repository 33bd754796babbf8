"""The pytest plugin (`pytest --sudoku-suite DIR`), run in real pytest subprocesses.

Each test builds a small suite under pytester's folder and runs pytest on it
with real SWI-Prolog workers, as a student would from the command line.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from xml.etree import ElementTree

import pytest

from plpuzzle.sudoku.domain.textformat import format_board, load_solutions

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "puzzles" / "sudoku" / "consecutive"
SOLVERS = REPO / "tests" / "fixtures" / "solvers"
#: Three oddsum puzzles with their expected files (its README says how they were made).
ODDSUM = REPO / "tests" / "fixtures" / "oddsum_suite"
NAMES = [f"test{i:03d}" for i in range(1, 11)]


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Room for pytest's short summary to show a failure's first line untrimmed."""
    monkeypatch.setenv("COLUMNS", "200")


def make_suite(pytester: pytest.Pytester, names: list[str] = NAMES) -> Path:
    """A copy of bundled puzzles (with their expected solutions) in `suite/`."""
    suite = pytester.path / "suite"
    suite.mkdir()
    for name in names:
        for kind in "ds":
            shutil.copy(BUNDLED / f"{name}{kind}.txt", suite)
    return suite


def run(pytester: pytest.Pytester, *args: str | Path) -> pytest.RunResult:
    """pytest in a subprocess, without a cache: the official suite lies outside pytester's folder.

    Solvers are passed as `--sudoku-solver=FILE`: pytest picks its rootdir
    from every argument that names an existing path, option values included.
    """
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *map(str, args), timeout=120)


def shown_board(grid: tuple[tuple[int, ...], ...], k: int) -> str:
    """A board as the failure report indents it."""
    rows = format_board(grid, k).strip("\n").splitlines()
    return "\n".join(f"    {row}" if row else "" for row in rows)


def worker_pids(mark: str) -> list[int]:
    """Processes that inherited the environment variable PLPUZZLE_PLUGIN_TEST=mark."""
    needle = f"PLPUZZLE_PLUGIN_TEST={mark}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def test_bundled_suite_passes_and_leaves_no_worker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = make_suite(pytester)
    # Not among the arguments, so `pytest --sudoku-suite DIR` must not run it.
    pytester.makepyfile(test_other="def test_other():\n    assert False\n")
    mark = uuid.uuid4().hex
    monkeypatch.setenv("PLPUZZLE_PLUGIN_TEST", mark)
    result = run(pytester, "--sudoku-suite", suite, "-v")
    result.assert_outcomes(passed=10)
    result.stdout.fnmatch_lines(
        ["sudoku suite: *; solver: bundled sudoku.pl (swi), rules: consecutive; time limit 120 s"]
        + [f"suite/{name}d.txt::{name} PASSED*" for name in NAMES]
    )
    assert "test_other" not in result.stdout.str()
    if Path("/proc/self/environ").exists():
        assert worker_pids(mark) == []


@pytest.mark.slow
def test_explicit_paths_run_alongside_the_suite(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, ["test001"])
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    result = run(pytester, "test_other.py", "--sudoku-suite", suite, "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*test_other.py::test_other PASSED*", "*::test001 PASSED*"])


@pytest.mark.slow
def test_only_puzzles_in_natural_order(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, ["test001"])
    for name in ("test9", "test10", "test2"):
        shutil.copy(BUNDLED / "test001d.txt", suite / f"{name}d.txt")
    (suite / "notes.txt").write_text("not a puzzle\n")
    (suite / "test_helper.py").write_text("def test_x():\n    assert False\n")
    result = run(pytester, "--sudoku-suite", suite, "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    ids = [line for line in result.stdout.lines if "::" in line]
    assert ids == [f"suite/{name}d.txt::{name}" for name in ("test001", "test2", "test9", "test10")]


def test_k_selects_one_puzzle(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester)
    result = run(pytester, "--sudoku-suite", suite, "-k", "test004", "-v")
    result.assert_outcomes(passed=1, deselected=9)
    result.stdout.fnmatch_lines(["*::test004 PASSED*"])


@pytest.mark.slow
def test_a_node_id_inside_the_suite_selects_one_puzzle(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, ["test001", "test002"])
    result = run(pytester, "--sudoku-suite", suite, "suite/test002d.txt::test002", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["suite/test002d.txt::test002 PASSED*"])


def test_wrong_solver_names_the_missing_solutions(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester)
    solver = SOLVERS / "misses.pl"
    result = run(pytester, "--sudoku-suite", suite, f"--sudoku-solver={solver}", "-k", "test004")
    result.assert_outcomes(failed=1, deselected=9)
    out = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*_ sudoku test004 _*",
            "wrong: missing 4",
            "solutions: 1, CPU time: *",
            "missing (expected, not given): 4",
            "    ----- ... and 1 more",
            "FAILED suite/test004d.txt::test004 - wrong: missing 4",
        ]
    )
    expected = load_solutions(suite / "test004s.txt")
    assert sum(shown_board(grid, 2) in out for grid in expected) == 3
    assert "extra" not in out


@pytest.mark.slow
def test_exitfirst_stops_at_the_first_failure(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester)
    solver = SOLVERS / "misses.pl"
    result = run(pytester, "--sudoku-suite", suite, f"--sudoku-solver={solver}", "-x")
    # test001 has one solution; test002 (four) is the first that misses some.
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["FAILED suite/test002d.txt::test002 - wrong: missing 3"])


def test_duplicates_are_shown_with_their_count(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, ["test002"])
    result = run(pytester, "--sudoku-suite", suite, f"--sudoku-solver={SOLVERS / 'duplicates.pl'}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "wrong: duplicate 4",
            "solutions: 8, *",
            "given more than once: 4",
            "    ----- (given 2 times)",
        ]
    )


@pytest.mark.slow
def test_junitxml_names_testcases_after_puzzles(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester)
    report = pytester.path / "report.xml"
    result = run(pytester, "--sudoku-suite", suite, f"--junitxml={report}")
    result.assert_outcomes(passed=10)
    cases = ElementTree.parse(report).getroot().iter("testcase")
    by_name = {case.get("name"): case for case in cases}
    assert list(by_name) == NAMES
    properties = {p.get("name"): p.get("value") for p in by_name["test004"].iter("property")}
    assert properties["solutions"] == "5"
    assert properties["verdict"] == "correct"
    assert float(properties["cpu_seconds"]) >= 0


@pytest.mark.slow
def test_missing_and_wrong_expected_files_fail(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, ["test001", "test002", "test004"])
    (suite / "test001s.txt").unlink()
    (suite / "test002s.txt").write_text("[].\n")
    result = run(pytester, "--sudoku-suite", suite, "-ra")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "FAILED suite/test001d.txt::test001 - no expected: *file test001s.txt",
            "FAILED suite/test002d.txt::test002 - wrong: extra 4",
        ]
    )
    result.stdout.fnmatch_lines(["extra (given, not expected): 4"])


@pytest.mark.slow
def test_bad_files_fail_with_file_line_and_column(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, ["test001", "test002"])
    (suite / "test001d.txt").write_text("2\n-  -  -  -\n-  12 -  -\n-  -  -  -\n-  -  -  -\n")
    (suite / "test002s.txt").write_text("[[[1,2,3,4]]\n")
    result = run(pytester, "--sudoku-suite", suite)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            f"bad input: {suite / 'test001d.txt'}:3:4: value 12 is out of range 1..4",
            f"bad input: {suite / 'test002s.txt'}:1:13: the list of solutions must end with '.'",
        ]
    )
    assert "Traceback" not in result.stdout.str()


@pytest.mark.slow
def test_looping_solver_times_out(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, ["test001"])
    loops = SOLVERS / "loops.pl"
    result = run(
        pytester, "--sudoku-suite", suite, f"--sudoku-solver={loops}", "--sudoku-time-limit", "1"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "timeout: the prolog engine stopped at the CPU-time limit of 1 s",
            "solutions: 0, *time limit 1 s)",
        ]
    )


@pytest.mark.slow
def test_python_engine_passes_the_bundled_suite(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester)
    result = run(pytester, "--sudoku-suite", suite, "--sudoku-engine", "python")
    result.assert_outcomes(passed=10)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sudoku-suite", "nowhere"], "--sudoku-suite: nowhere does not exist"),
        (["--sudoku-suite", "suite/test001d.txt"], "*is not a directory"),
        (["--sudoku-suite", "suite", "--sudoku-solver", "x.pl"], "*-solver: x.pl: no such*"),
        (["--sudoku-suite", "suite", "--sudoku-time-limit", "0"], "*must be positive, not 0"),
        (
            ["--sudoku-suite", "suite", "--sudoku-engine", "python", "--sudoku-solver", "s.pl"],
            "--sudoku-solver needs --sudoku-engine prolog",
        ),
        (["--sudoku-solver", "s.pl"], "--sudoku-solver needs --sudoku-suite DIR"),
    ],
)
def test_usage_errors(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    make_suite(pytester, ["test001"])
    (pytester.path / "s.pl").write_text("sudoku(_, _) :- fail.\n")
    result = run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


@pytest.mark.slow
def test_official_suite_k2(pytester: pytest.Pytester, official_suite: Path) -> None:
    result = run(
        pytester,
        "--sudoku-suite",
        official_suite,
        "--sudoku-rules",
        "oddsum",
        "-k",
        "test00 or test01 or test02",
    )
    # test001..test024 are its K=2 puzzles; the filter also picks test025..test029 (K=3).
    result.assert_outcomes(passed=29, deselected=271 - 29)


def test_a_suite_of_the_other_rules_is_refused_with_the_plugins_own_option(
    pytester: pytest.Pytester,
) -> None:
    """Oddsum puzzles run under the default consecutive rules: no test can
    be right, and the hint names the plugin's option, not the command's."""
    suite = pytester.path / "suite"
    suite.mkdir()
    for name in ("test001d.txt", "test001s.txt", "test002d.txt", "test002s.txt"):
        shutil.copy(ODDSUM / name, suite / name)  # not its suite.toml, which names the rules
    result = run(pytester, "--sudoku-suite", suite, "--sudoku-solver=bundled")
    assert result.ret != 0
    text = result.stdout.str() + result.stderr.str()
    assert "pass --sudoku-rules oddsum" in text, text
    assert "pass --rules" not in text
