"""The course's text formats: parsing, errors with positions, printing."""

from __future__ import annotations

from pathlib import Path

import pytest

from plpuzzle.sudoku.domain.model import Puzzle
from plpuzzle.sudoku.domain.textformat import (
    FormatError,
    format_solutions,
    load_puzzle,
    load_solutions,
    parse_puzzle,
    parse_solutions,
    puzzle_to_text,
    solutions_to_text,
)

EXAMPLE_TEXT = """2
ew2s  w     e     -
-     esw   -     o
-     -     1     -
w     s     -     -
"""
EXAMPLE_TERM = (
    "s(2,[[[e,w,v(2),s],[w],[e],[]],[[],[e,s,w],[],[o]],[[],[],[v(1)],[]],[[w],[s],[],[]]])"
)
EXAMPLE_SOLUTION = ((2, 1, 4, 3), (3, 4, 2, 1), (4, 3, 1, 2), (1, 2, 3, 4))
EXAMPLE_BYTES = "\n-----\n\n 2 1  4 3\n 3 4  2 1\n\n 4 3  1 2\n 1 2  3 4\n\n-----\n"


def test_example_parses_to_the_spec_term() -> None:
    assert parse_puzzle(EXAMPLE_TEXT).to_term() == EXAMPLE_TERM


def test_infos_keep_their_order_and_kinds() -> None:
    field = parse_puzzle(EXAMPLE_TEXT).field(0, 0)
    assert field.infos == ("e", "w", 2, "s")
    assert (field.value, field.even, field.odd, field.south, field.west) == (
        2,
        True,
        False,
        True,
        True,
    )


def test_layout_freedoms_are_accepted() -> None:
    text = "\n\n 2 \r\new2s\tw  e -  \r\n\n-  esw - o\n-  - 1 -\n\n w s - -\t\n\n"
    assert parse_puzzle(text).to_term() == EXAMPLE_TERM


def test_text_round_trip() -> None:
    puzzle = parse_puzzle(EXAMPLE_TEXT)
    assert parse_puzzle(puzzle_to_text(puzzle)) == puzzle


def test_multi_digit_values_and_any_letter_order() -> None:
    rows = [["-"] * 16 for _ in range(16)]
    rows[3][5] = "s16ow"
    text = "4\n" + "\n".join(" ".join(r) for r in rows)
    assert parse_puzzle(text).field(3, 5).infos == ("s", 16, "o", "w")


@pytest.mark.parametrize(
    ("text", "line", "col", "words"),
    [
        ("", 1, 1, "empty file"),
        ("\n  \n", 1, 1, "empty file"),
        ("x\n", 1, 1, "invalid cell size"),
        ("  0\n", 1, 3, "out of range"),
        ("11\n", 1, 1, "out of range"),
        ("2 2\n", 1, 3, "unexpected text"),
        ("2\n- - - -\n- - - -\n- - - -\n", 4, 1, "too few rows"),
        ("2\n- - - -\n- - - -\n- - - -\n- - - -\n- - - -\n", 6, 1, "too many rows"),
        ("2\n- - - -\n- - -\n- - - -\n- - - -\n", 3, 6, "expected 4 fields"),
        ("2\n- - - -\n- - - - -\n- - - -\n- - - -\n", 3, 9, "expected 4 fields"),
        ("2\n- - - -\n- - x -\n- - - -\n- - - -\n", 3, 5, "unknown character 'x'"),
        ("2\n- - - -\n- - E -\n- - - -\n- - - -\n", 3, 5, "unknown character 'E'"),
        ("2\n- - - -\n- - e- -\n- - - -\n- - - -\n", 3, 6, "unknown character '-'"),
        ("2\n- - - -\n- 2e3 - -\n- - - -\n- - - -\n", 3, 5, "value twice"),
        ("2\n- - - -\n- ee - -\n- - - -\n- - - -\n", 3, 4, "repeats the info 'e'"),
        ("2\n- - - -\n- sws - -\n- - - -\n- - - -\n", 3, 5, "repeats the info 's'"),
        ("2\n- - - -\n- 5 - -\n- - - -\n- - - -\n", 3, 3, "value 5 is out of range 1..4"),
        ("2\n- - - -\n- 0 - -\n- - - -\n- - - -\n", 3, 3, "value 0 is out of range"),
    ],
)
def test_bad_puzzles_name_line_and_column(text: str, line: int, col: int, words: str) -> None:
    with pytest.raises(FormatError) as caught:
        parse_puzzle(text, "bad.txt")
    error = caught.value
    assert (error.line, error.col) == (line, col)
    assert words in error.message
    assert str(error).startswith(f"bad.txt:{line}:{col}: ")
    assert "\n" not in str(error)


def test_even_and_odd_together_is_a_contradiction_not_an_error() -> None:
    field = parse_puzzle("1\neo\n").field(0, 0)
    assert field.even and field.odd


def test_unreadable_file_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="cannot read"):
        load_puzzle(tmp_path / "missing.txt")


def test_example_prints_the_spec_bytes() -> None:
    assert format_solutions([EXAMPLE_SOLUTION], 2) == EXAMPLE_BYTES


def test_no_solution_prints_one_separator() -> None:
    assert format_solutions([], 3) == "\n-----\n"


def test_k1_has_a_blank_line_before_every_row() -> None:
    assert format_solutions([((1,),)], 1) == "\n-----\n\n 1\n\n-----\n"


def test_solutions_are_printed_sorted() -> None:
    a = ((1, 2, 3, 4), (3, 4, 1, 2), (2, 1, 4, 3), (4, 3, 2, 1))
    b = ((1, 2, 3, 4), (3, 4, 1, 2), (2, 3, 4, 1), (4, 1, 2, 3))
    assert format_solutions([b, a], 2) == format_solutions([a, b], 2)
    assert format_solutions([b, a], 2).index("2 1") < format_solutions([b, a], 2).index("2 3")


def test_wide_values_are_right_aligned() -> None:
    puzzle_k = 4
    grid = tuple(tuple((r * 4 + r // 4 + c) % 16 + 1 for c in range(16)) for r in range(16))
    first_row = format_solutions([grid], puzzle_k).split("\n")[3]
    assert first_row == "  1  2  3  4   5  6  7  8   9 10 11 12  13 14 15 16"


def test_solution_files_round_trip() -> None:
    grids = [EXAMPLE_SOLUTION]
    assert parse_solutions(solutions_to_text(grids)) == grids
    assert parse_solutions("[].") == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty file"),
        ("[[[1]]]", "must end with '.'"),
        ("[[[1]],.", "not a list of solutions"),
        ("[[[1,2]]].", "row 1 has 2 values"),
        ("[[[1],[2]]].", "not a square"),
        ('[[["a"]]].', "not an integer"),
    ],
)
def test_bad_solution_files_are_errors(text: str, words: str) -> None:
    with pytest.raises(FormatError, match=words):
        parse_solutions(text, "s.txt")


def test_official_files_parse_and_golden_outputs_match(
    official_suite: Path, official_golden: Path
) -> None:
    goldens = sorted(official_golden.glob("test*t.txt"))
    assert goldens
    for golden in goldens:
        stem = golden.name[: -len("t.txt")]
        puzzle: Puzzle = load_puzzle(official_suite / f"{stem}d.txt")
        solutions = load_solutions(official_suite / f"{stem}s.txt", puzzle.n)
        assert solutions == sorted(solutions)
        assert format_solutions(solutions, puzzle.k) == golden.read_text(), golden.name
