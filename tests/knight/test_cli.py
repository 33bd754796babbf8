"""`plpuzzle knight ...`: output, exit codes and messages, in process.

Engines still run in their worker processes; fake engines stand in where
an engine must misbehave.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from plpuzzle.cli import main
from plpuzzle.knight.domain.model import Board, Square
from plpuzzle.knight.domain.results import CountResult, Status, TourResult
from plpuzzle.knight.domain.validator import check_tour
from plpuzzle.knight.presentation.commands import count as count_command
from plpuzzle.knight.presentation.commands import tour as tour_command


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["knight", *args])


def grid_tour(text: str) -> list[Square]:
    """The tour a printed numbered grid shows, as squares in move order."""
    rows = [[int(n) for n in line.split()] for line in text.splitlines()]
    where = {n: (x, y) for y, row in enumerate(rows) for x, n in enumerate(row)}
    return [where[n] for n in sorted(where)]


# --- tour ---------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["python", "prolog"])
def test_tour_prints_a_valid_numbered_board(engine: str) -> None:
    result = run("tour", "--engine", engine)
    assert result.exit_code == 0, result.output
    tour = grid_tour(result.stdout)
    assert check_tour(Board(8, 8), tour, (0, 7)) == []
    assert result.stdout.splitlines()[-1].split()[0] == "1"  # a1 is bottom-left


def test_tour_default_engine_is_prolog() -> None:
    result = run("tour", "--size", "5", "--stats")
    assert result.exit_code == 0, result.output
    assert "engine: prolog" in result.stderr


@pytest.mark.parametrize("engine", ["python", "prolog"])
def test_closed_tour_on_a_rectangle_as_json(engine: str) -> None:
    result = run("tour", "--board", "5x6", "--start", "2,3", "--closed", "--format", "json",
                 "--engine", engine)  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    tour = [tuple(s) for s in document["squares"]]
    assert check_tour(Board(5, 6), tour, (2, 3), closed=True) == []
    assert (document["width"], document["height"], document["closed"]) == (5, 6, True)
    assert document["engine"] == engine


def test_tour_as_path_and_ascii() -> None:
    path = run("tour", "--engine", "python", "--format", "path", "--start", "h8")
    assert path.exit_code == 0
    lines = path.stdout.splitlines()
    assert len(lines) == 8 and lines[0].startswith("h8->")
    ascii_ = run("tour", "--engine", "python", "--format", "ascii", "--size", "6")
    assert ascii_.exit_code == 0
    assert ascii_.stdout.startswith("+--+--+--+--+--+--+\n|")


def test_tour_stats_go_to_stderr() -> None:
    result = run("tour", "--engine", "python", "--stats")
    assert result.exit_code == 0
    assert "engine: python, CPU: " in result.stderr and "moves: 63" in result.stderr
    assert "engine" not in result.stdout


@pytest.mark.parametrize("engine", ["python", "prolog"])
@pytest.mark.parametrize(
    ("args", "words"),
    [(("--size", "4"), "no open knight's tour of the 4x4 board starts at a1 (0,3)"),
     (("--size", "5", "--start", "b1"), "no open knight's tour of the 5x5 board starts at b1"),
     (("--size", "5", "--closed"), "no closed knight's tour of the 5x5 board"),
     (("--size", "3", "--start", "b2"), "no open knight's tour of the 3x3 board starts at b2")],
)  # fmt: skip
def test_no_tour_is_exit_1_with_a_clear_message(
    engine: str, args: tuple[str, ...], words: str
) -> None:
    result = run("tour", "--engine", engine, *args)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert words in result.stderr


class FakeEngine:
    """An engine that answers what it is told to."""

    def __init__(self, name: str, tour: TourResult | None = None, count: int | None = None):
        self.name = name
        self.tour_result = tour
        self.count_value = count

    def tour(self, board: Board, start: Square, closed: bool, time_limit: float) -> TourResult:
        assert self.tour_result is not None
        return self.tour_result

    def count(
        self, board: Board, start: Square | None, closed: bool, time_limit: float
    ) -> CountResult:
        if self.count_value is None:
            return CountResult(self.name, Status.TIMEOUT)
        return CountResult(self.name, Status.OK, self.count_value)

    def close(self) -> None:
        pass


def use_engines(monkeypatch: pytest.MonkeyPatch, **engines: FakeEngine) -> None:
    for module in (tour_command, count_command):
        monkeypatch.setattr(module, "make_engine", lambda name: engines[name])


def test_an_invalid_tour_is_an_engine_error_never_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    bogus = [(x, y) for y in range(5) for x in range(5)]  # row by row: not knight's moves
    bogus = [(0, 4), *[s for s in bogus if s != (0, 4)]]
    answer = TourResult("prolog", Status.OK, bogus, 24)
    use_engines(monkeypatch, prolog=FakeEngine("prolog", answer))
    result = run("tour", "--size", "5")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "the prolog engine gave an invalid open tour" in result.stderr
    assert "is not a knight's move" in result.stderr
    assert "and " in result.stderr and "more" in result.stderr  # the list is cut short


@pytest.mark.parametrize(
    ("answer", "words"),
    [(TourResult("python", Status.TIMEOUT), "stopped at the CPU-time limit of 3 s"),
     (TourResult("python", Status.ERROR, message="the worker was killed by SIGKILL"),
      "the python engine raised an error:\nthe worker was killed by SIGKILL")],
)  # fmt: skip
def test_time_out_and_failure_are_exit_1(
    monkeypatch: pytest.MonkeyPatch, answer: TourResult, words: str
) -> None:
    use_engines(monkeypatch, python=FakeEngine("python", answer))
    result = run("tour", "--engine", "python", "--time-limit", "3")
    assert result.exit_code == 1
    assert words in result.stderr


def test_a_real_time_out() -> None:
    result = run("count", "--engines", "python", "--size", "8", "--time-limit", "0.5")
    assert result.exit_code == 1
    assert "the python engine stopped at the CPU-time limit of 0.5 s" in result.stderr


# --- bad input ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [(("tour", "--size", "0"), "--size 0"),
     (("tour", "--size", "-3"), "--size -3"),
     (("tour", "--size", "x"), "'--size'"),
     (("tour", "--board", "7y4"), "--board"),
     (("tour", "--board", "0x4"), "--board"),
     (("tour", "--size", "8", "--board", "7x4"), "--size and --board"),
     (("tour", "--start", "i1"), "--start: square 'i1' is off the 8x8 board"),
     (("tour", "--start", "a9"), "--start"),
     (("tour", "--start", "8,0"), "--start"),
     (("tour", "--start", "1;2"), "--start: square '1;2': expected"),
     (("tour", "--start", "e2", "--board", "4x4"), "off the 4x4 board"),
     (("tour", "--format", "svg"), "'--format'"),
     (("tour", "--engine", "java"), "'--engine'"),
     (("tour", "--time-limit", "0"), "'--time-limit'"),
     (("count", "--start", "a1", "--all-starts"), "--start and --all-starts"),
     (("count", "--start", "f1"), "--start"),
     (("count", "--size", "0"), "--size 0"),
     (("survey", "--size", "0"), "--size 0"),
     (("survey", "--size", "3", "--board", "3x3"), "--size and --board")],
)  # fmt: skip
def test_bad_input_is_exit_2_naming_the_option(args: tuple[str, ...], words: str) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert words in result.stderr
    assert result.stdout == ""


def test_help_explains() -> None:
    result = run("--help")
    assert result.exit_code == 0
    assert "visits every" in result.stdout and "a1 is the bottom-left" in result.stdout
    for command in ("tour", "count", "survey"):
        helped = run(command, "--help")
        assert helped.exit_code == 0
        assert "--size" in helped.stdout and "--board" in helped.stdout
    assert "Exit code 0 when a valid tour" in run("tour", "--help").stdout


# --- count --------------------------------------------------------------------


def test_count_by_python_from_a_corner_and_everywhere() -> None:
    corner = run("count", "--engines", "python")
    assert corner.exit_code == 0, corner.output
    assert "304" in corner.stdout and "5x5" in corner.stdout
    everywhere = run("count", "--engines", "python", "--all-starts")
    assert everywhere.exit_code == 0
    assert "1728" in everywhere.stdout


def test_count_by_both_engines_agrees() -> None:
    result = run("count", "--size", "5")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("304") == 2
    assert "The engines agree." in result.stdout


def test_count_by_prolog_closed() -> None:
    result = run("count", "--engines", "prolog", "--board", "5x6", "--closed", "--all-starts")
    assert result.exit_code == 0, result.output
    assert "480" in result.stdout


def test_count_disagreement_is_exit_1(monkeypatch: pytest.MonkeyPatch) -> None:
    use_engines(monkeypatch, prolog=FakeEngine("prolog", count=300),
                python=FakeEngine("python", count=304))  # fmt: skip
    result = run("count")
    assert result.exit_code == 1
    assert "the engines disagree: prolog 300, python 304" in result.stderr


def test_count_with_an_engine_that_times_out_is_exit_1(monkeypatch: pytest.MonkeyPatch) -> None:
    use_engines(monkeypatch, prolog=FakeEngine("prolog"), python=FakeEngine("python", count=304))
    result = run("count")
    assert result.exit_code == 1
    assert "the prolog engine stopped at the CPU-time limit" in result.stderr


# --- survey -------------------------------------------------------------------


def test_survey_prints_moves_per_square_and_saves_a_heat_map(tmp_path: Path) -> None:
    png = tmp_path / "survey.png"
    result = run("survey", "--size", "5", "--png", str(png))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["5", "24", "-", "24", "-", "24"]
    assert lines[5].split() == ["a", "b", "c", "d", "e"]
    assert "a tour from 13 of 25 squares" in result.stdout
    assert png.read_bytes().startswith(b"\x89PNG")


def test_survey_of_8x8_by_default_with_the_prolog_engine() -> None:
    result = run("survey")
    assert result.exit_code == 0, result.output
    assert "prolog engine, 8x8 board: a tour from 64 of 64 squares" in result.stdout


def test_survey_by_python() -> None:
    result = run("survey", "--engine", "python", "--size", "5")
    assert result.exit_code == 0, result.output
    assert "a tour from 13 of 25 squares" in result.stdout


def test_survey_png_to_a_missing_folder_is_exit_2(tmp_path: Path) -> None:
    result = run("survey", "--size", "3", "--png", str(tmp_path / "no" / "such.png"))
    assert result.exit_code == 2
    assert "--png" in result.stderr
