"""Untrusted puzzle and solution files: every outcome is a parse or a FormatError.

Teachers and students write these files, so the parsers and the CLI must
turn anything at all into a result or one clear error line, never a
traceback. Property tests feed arbitrary and near-valid text; the explicit
examples are the faults a fuzzing session found.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from run_plpuzzle import plpuzzle

from plpuzzle.sudoku.domain.model import Puzzle
from plpuzzle.sudoku.domain.textformat import (
    FormatError,
    load_puzzle,
    load_solutions,
    parse_puzzle,
    parse_solutions,
    solutions_to_text,
)
from plpuzzle.sudoku.runs.suite import SuiteCase, discover, load_case

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "puzzles" / "sudoku" / "consecutive"
#: Small tests (K <= 2) so the CLI examples stay fast whatever the mutation.
SMALL = ["test001", "test002", "test003", "test004", "test005", "test007"]
PUZZLES = [(BUNDLED / f"{t}d.txt").read_text() for t in SMALL]
SOLUTIONS = [(BUNDLED / f"{t}s.txt").read_text() for t in SMALL]
HUGE = "9" * 5000

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(parse: object, text: str) -> object:
    """Parse `text`; a FormatError must be one short line with a real position."""
    try:
        return parse(text, "f.txt")  # type: ignore[operator]
    except FormatError as e:
        message = str(e)
        assert message.startswith(f"f.txt:{e.line}:{e.col}: ")
        assert e.line >= 1 and e.col >= 1
        assert "\n" not in message and len(message) < 300, message
        return e


# --- near-valid mutations of real files ---------------------------------------

PIECES = st.sampled_from(
    ["", "\r", "\n", "\r\n", "\ufeff", " ", "\t", "[", "]", ",", ".", "-", "0", "7", "12",
     "e", "s", "w", "o", "x", "\x00", "é", HUGE, "[" * 1200, "]" * 50, "1" * 4301]
)  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn, sources: list[str]) -> str:
    """A real file with a few pieces inserted, deleted or replaced."""
    text = draw(st.sampled_from(sources))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 3))
        text = text[:at] + draw(PIECES) + text[at + cut :]
    return text


# --- property tests: the library --------------------------------------------


@FUZZ
@given(st.text())
def test_any_text_is_a_puzzle_or_a_format_error(text: str) -> None:
    result = outcome(parse_puzzle, text)
    assert isinstance(result, Puzzle | FormatError)


@FUZZ
@given(st.text())
def test_any_text_is_solutions_or_a_format_error(text: str) -> None:
    result = outcome(parse_solutions, text)
    assert isinstance(result, list | FormatError)


@settings(max_examples=60, deadline=None)
@given(st.binary(), st.booleans())
def test_any_bytes_in_a_file_load_or_fail_cleanly(data: bytes, as_puzzle: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "test001d.txt"
        path.write_bytes(data)
        try:
            (load_puzzle if as_puzzle else load_solutions)(path)
        except FormatError as e:
            assert str(e).startswith(f"{path}:") and "\n" not in str(e)


@FUZZ
@given(mutated(PUZZLES))
def test_mutated_puzzles_parse_or_fail_cleanly(text: str) -> None:
    outcome(parse_puzzle, text)


@FUZZ
@given(mutated(SOLUTIONS))
def test_mutated_solutions_parse_or_fail_cleanly(text: str) -> None:
    result = outcome(parse_solutions, text)
    if isinstance(result, list):
        # Whatever was accepted must be what the term really says.
        plain = text.removeprefix("\ufeff").strip(" \t\r\n\f\v")[:-1]
        try:
            expected = json.loads(plain)
        except ValueError:
            return  # Prolog syntax JSON lacks (leading zeros, \f); not comparable
        assert [[list(row) for row in grid] for grid in result] == expected


GRIDS = st.integers(1, 2).flatmap(
    lambda k: st.lists(
        st.lists(st.lists(st.integers(-5, 200), min_size=k * k, max_size=k * k),
                 min_size=k * k, max_size=k * k),
        max_size=4,
    )
)  # fmt: skip


@FUZZ
@given(GRIDS, st.sampled_from(["", "\ufeff"]), st.sampled_from(["\n", "\r", "\r\n", " \f"]))
def test_both_solution_readers_agree_on_valid_files(
    grids: list[list[list[int]]], bom: str, gap: str
) -> None:
    """The fast json path and the positional reader give the same grids."""
    text = json.dumps(grids).replace(",", "," + gap) + "."
    expected = [tuple(tuple(row) for row in grid) for grid in grids]
    assert parse_solutions(bom + text) == expected
    # \f is Prolog layout but not JSON whitespace, so this takes the reader.
    assert parse_solutions(bom + "\f" + text) == expected


# --- regression examples: one per fault the fuzzing found --------------------


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        (f"{HUGE}\n-\n", 1, 1),  # K
        (f"\n 1\n  {HUGE}\n", 3, 3),  # a cell value
        (f"1\nes{HUGE}w\n", 2, 3),  # a value after infos
        (f"00000{HUGE}\n", 1, 1),  # leading zeros do not hide it
    ],
)
def test_puzzle_numbers_too_long_are_reported_where_they_are(
    text: str, line: int, col: int
) -> None:
    with pytest.raises(FormatError, match="number too long") as caught:
        parse_puzzle(text, "d.txt")
    assert (caught.value.line, caught.value.col) == (line, col)
    assert len(str(caught.value)) < 120


def test_solution_numbers_too_long_are_reported_where_they_are() -> None:
    text = f"[[[1]],\n [[{HUGE}]]]."
    with pytest.raises(FormatError, match="number too long") as caught:
        parse_solutions(text, "s.txt")
    assert (caught.value.line, caught.value.col) == (2, 4)
    assert len(str(caught.value)) < 120


@pytest.mark.parametrize("depth", [4, 1000, 100_000])
def test_deeply_nested_solutions_are_rejected(depth: int) -> None:
    text = "[" * depth + "]" * depth + "."
    with pytest.raises(FormatError, match="exactly 3 levels") as caught:
        parse_solutions(text, "s.txt")
    assert (caught.value.line, caught.value.col) == (1, 4)


PUZZLE = "2\new2s w e -\n- esw - o\n- - 1 -\nw s - -\n"
SOLUTION = "[[[2,1,4,3],[3,4,2,1],[4,3,1,2],[1,2,3,4]]].\n"


@pytest.mark.parametrize(
    "change",
    [
        lambda t: "\ufeff" + t,
        lambda t: t.replace("\n", "\r"),
        lambda t: "\ufeff" + t.replace("\n", "\r"),
        lambda t: t.replace("\n", "\r\n"),
    ],
    ids=["bom", "cr", "bom-cr", "crlf"],
)
def test_byte_order_mark_and_cr_line_endings_are_accepted(change: object) -> None:
    assert parse_puzzle(change(PUZZLE)) == parse_puzzle(PUZZLE)  # type: ignore[operator]
    assert parse_solutions(change(SOLUTION)) == parse_solutions(SOLUTION)  # type: ignore[operator]


def test_cr_only_line_endings_give_true_positions() -> None:
    with pytest.raises(FormatError) as caught:
        parse_puzzle("\ufeff2\r- - - -\r- - x -\r- - - -\r- - - -\r", "d.txt")
    assert (caught.value.line, caught.value.col) == (3, 5)
    with pytest.raises(FormatError) as caught:
        parse_solutions("\ufeff[[[1]],\r[[x]]].", "s.txt")
    assert (caught.value.line, caught.value.col) == (2, 3)


@pytest.mark.parametrize(
    ("text", "line", "col", "words"),
    [
        ("[[[1]],\n  [[1,2],[3,4]]].", 2, 3, "solution 2 has 2 rows, expected 1"),
        ("[[[1]],[[2]],\n[[3]], [[4],[5]]].", 2, 8, "solution 4 has 2 rows"),
        (
            "[[[1,2,3,4],[3,4,1,2],[2,1,4,3],[4,3,2,1]],\n"
            " [[1,2,3,4],[3,4,1,2],[2,1,4],[4,3,2,1]]].",
            2,
            23,
            "solution 2: row 3 has 3 values, expected 4",
        ),
        ("[[[1]],\n\n   [[x]]].", 3, 6, "solution 2: row 1 holds 'x'"),
    ],
)
def test_errors_in_later_solutions_point_at_them(
    text: str, line: int, col: int, words: str
) -> None:
    with pytest.raises(FormatError, match=words) as caught:
        parse_solutions(text, "s.txt")
    assert (caught.value.line, caught.value.col) == (line, col)


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        (parse_puzzle, "k" * 5000 + "\n"),
        (parse_puzzle, "1\n" + "x" * 5000 + "\n"),
        (parse_puzzle, "1\n" + "ee" + "x" * 5000 + "\n"),
        (parse_puzzle, "4\n" + "1" * 5000 + "\n"),
        (parse_solutions, "[[[" + "a" * 5000 + "]]]."),
        (parse_solutions, "[[[1]]]." + "z" * 5000),
        (parse_solutions, "[[" + "q" * 5000 + "]]."),
        (parse_solutions, "b" * 5000 + "."),
    ],
)
def test_error_messages_cap_the_echoed_token(parse: object, text: str) -> None:
    with pytest.raises(FormatError) as caught:
        parse(text, "f.txt")  # type: ignore[operator]
    assert len(str(caught.value)) < 200, str(caught.value)[:300]


def write_case(folder: Path, name: str = "test001") -> SuiteCase:
    (folder / f"{name}d.txt").write_text(PUZZLE)
    (folder / f"{name}s.txt").write_text(SOLUTION)
    return SuiteCase(name, folder / f"{name}d.txt", folder / f"{name}s.txt")


@pytest.mark.parametrize("kind", ["directory", "dangling symlink"])
def test_discovery_reports_puzzle_paths_that_are_not_files(tmp_path: Path, kind: str) -> None:
    write_case(tmp_path)
    odd = tmp_path / "test002d.txt"
    if kind == "directory":
        odd.mkdir()
    else:
        odd.symlink_to(tmp_path / "nowhere.txt")
    cases = discover(tmp_path)
    assert [c.name for c in cases] == ["test001", "test002"]
    with pytest.raises(FormatError, match=f"cannot read: .*{kind.split()[0]}") as caught:
        load_case(cases[1])
    assert str(caught.value).startswith(str(odd))


@pytest.mark.parametrize("kind", ["directory", "dangling symlink"])
def test_a_solution_path_that_is_not_a_file_is_unreadable_not_missing(
    tmp_path: Path, kind: str
) -> None:
    case = write_case(tmp_path)
    case.expected_path.unlink()
    if kind == "directory":
        case.expected_path.mkdir()
    else:
        case.expected_path.symlink_to(tmp_path / "nowhere.txt")
    with pytest.raises(FormatError, match="cannot read") as caught:
        load_case(case)
    assert str(caught.value).startswith(str(case.expected_path))
    case.expected_path.rmdir() if kind == "directory" else case.expected_path.unlink()
    assert load_case(case)[1] is None  # truly absent is still just "no expected"


# --- the CLI ------------------------------------------------------------------


def assert_clean(run: subprocess.CompletedProcess[str]) -> None:
    """Exit 0/1 with no traceback, or exit 2 with one `plpuzzle: error:` line."""
    assert "Traceback" not in run.stderr + run.stdout, run.stderr[-2000:]
    assert run.returncode in (0, 1, 2), run.stderr[-2000:]
    if run.returncode == 2:
        assert run.stderr.startswith("plpuzzle: error: "), run.stderr[:500]
        assert run.stderr.count("\n") == 1 and len(run.stderr) < 400, run.stderr[:500]


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated(PUZZLES), mutated(SOLUTIONS))
@pytest.mark.slow
def test_cli_solve_and_check_never_show_a_traceback(puzzle: str, solution: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "test001d.txt"
        path.write_bytes(puzzle.encode("utf-8", "surrogatepass"))
        (Path(folder) / "test001s.txt").write_bytes(solution.encode("utf-8", "surrogatepass"))
        assert_clean(plpuzzle("sudoku", "solve", path, "--engine", "python", "--time-limit", "5"))
        assert_clean(plpuzzle("sudoku", "check", path, "--time-limit", "5"))


@pytest.mark.parametrize(
    ("puzzle", "solution", "words"),
    [
        (f"{HUGE}\n", SOLUTION, "test001d.txt:1:1: cell size K: number too long"),
        (PUZZLE, "[" * 1000 + "]" * 1000 + ".", "test001s.txt:1:4: "),
        (PUZZLE, f"[[[{HUGE}]]].", "test001s.txt:1:4: solution 1: row 1: number too long"),
    ],
)
def test_cli_reports_fuzzing_finds_as_one_line(
    tmp_path: Path, puzzle: str, solution: str, words: str
) -> None:
    (tmp_path / "test001d.txt").write_text(puzzle)
    (tmp_path / "test001s.txt").write_text(solution)
    run = plpuzzle("sudoku", "check", tmp_path / "test001d.txt")
    assert_clean(run)
    assert run.returncode == 2 and words in run.stderr


def test_cli_solves_a_bom_and_cr_puzzle(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_bytes(b"\xef\xbb\xbf" + PUZZLE.replace("\n", "\r").encode())
    run = plpuzzle("sudoku", "solve", path, "--engine", "python", "-q")
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout.count("-----") == 2


def test_cli_check_names_a_solution_directory_as_unreadable(tmp_path: Path) -> None:
    case = write_case(tmp_path)
    case.expected_path.unlink()
    case.expected_path.mkdir()
    run = plpuzzle("sudoku", "check", case.puzzle_path)
    assert_clean(run)
    assert run.returncode == 2 and f"{case.expected_path}: cannot read" in run.stderr


def test_cli_suite_run_reports_a_puzzle_directory_as_bad_input(tmp_path: Path) -> None:
    write_case(tmp_path)
    (tmp_path / "test002d.txt").mkdir()
    (tmp_path / "test003d.txt").symlink_to(tmp_path / "gone.txt")
    run = plpuzzle("sudoku", "test", tmp_path, "--engines", "python", "--out", tmp_path / "o")
    assert_clean(run)
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert any("test002" in line and "bad input" in line for line in lines), run.stdout
    assert any("test003" in line and "dangling" in line for line in lines), run.stdout
    assert any("test001" in line and "correct" in line for line in lines), run.stdout


def test_solutions_round_trip_through_the_writer() -> None:
    grids = parse_solutions(SOLUTION)
    assert len(grids) == 1 and parse_solutions(solutions_to_text(grids)) == grids
