"""The `plpuzzle flag` command: real processes for the happy paths, and
every kind of bad input."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from run_plpuzzle import plpuzzle

from plpuzzle.cli import main
from plpuzzle.flag.domain.model import FlagSequence
from plpuzzle.flag.domain.results import FlagResult, Status
from plpuzzle.flag.presentation import commands as flag_cli


def without_times(text: str) -> str:
    return re.sub(r"\d+\.\d{3} s CPU", "T s CPU", text)


def test_the_spec_example_with_both_engines() -> None:
    run = plpuzzle("flag", "rwbWRRB")
    assert (run.returncode, run.stderr) == (0, "")
    assert without_times(run.stdout) == (
        "sequence        RWBWRRB  (7 items: 3 red, 2 white, 2 blue)\n"
        "arranged        RRRWWBB\n"
        "minimum swaps   2\n"
        "Dijkstra swaps  4\n"
        "engines         prolog T s CPU, python T s CPU\n"
        "verdict         the engines agree and the validator accepts the answer\n"
    )


def test_a_long_random_sequence_is_shortened() -> None:
    run = plpuzzle("flag", "--random", "1000", "--seed", "3", "--engines", "prolog")
    assert (run.returncode, run.stderr) == (0, "")
    lines = run.stdout.splitlines()
    assert lines[0].startswith("sequence        ")
    assert lines[0].endswith(
        "(1,000 items: 337 red, 330 white, 333 blue; random, seed 3; shortened; --show prints all)"
    )
    assert lines[1] == (
        "arranged        " + "R" * 30 + "..." + "B" * 30 + "  (shortened; --show prints all)"
    )
    assert lines[2:4] == ["minimum swaps   335", "Dijkstra swaps  668"]
    assert lines[5] == "verdict         the validator accepts the answer"


def test_show_and_no_show() -> None:
    shown = plpuzzle("flag", "--random", "100", "--engines", "python", "--show")
    assert shown.returncode == 0, shown.stderr
    assert re.search(r"^arranged        R+W+B+$", shown.stdout, re.M)
    hidden = plpuzzle("flag", "--random", "100", "--engines", "python", "--no-show")
    assert hidden.returncode == 0, hidden.stderr
    assert hidden.stdout.splitlines()[0] == (
        "sequence        100 items: 22 red, 37 white, 41 blue; random, seed 0"
    )
    assert "arranged" not in hidden.stdout


def test_bad_input_in_a_real_process() -> None:
    run = plpuzzle("flag", "RWBX")
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == (
        "plpuzzle: error: bad character 'X' at column 4: use R, W and B (red, white, blue)\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["flag", ""], "the sequence is empty"),
        (["flag", "RW-B"], "bad character '-' at column 3"),
        (["flag", "--random", "-5"], "--random N needs a positive N, got -5"),
        (["flag", "--random", "0"], "--random N needs a positive N, got 0"),
        (["flag", "--random", "20000000"], "at most 10,000,000 items"),
        (["flag", "RWB", "--random", "3"], "give either a SEQUENCE or --random N, not both"),
        (["flag"], "give a SEQUENCE such as RWBWRRB, or --random N"),
        (["flag", "RWB", "--seed", "4"], "--seed only applies to --random N"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("plpuzzle: error: ")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_disagreement_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(items: FlagSequence, names: list[str], time_limit: float) -> list[FlagResult]:
        return [
            FlagResult("prolog", Status.OK, "RRRWWBB", 2, 4),
            FlagResult("python", Status.OK, "RRRWWBB", 3, 4),
        ]

    monkeypatch.setattr(flag_cli, "run_engines", fake)
    result = CliRunner().invoke(main, ["flag", "RWBWRRB"])
    assert result.exit_code == 1
    assert "prolog          RRRWWBB, minimum 2 swaps, Dijkstra 4 swaps" in result.stdout
    assert "python          RRRWWBB, minimum 3 swaps, Dijkstra 4 swaps" in result.stdout
    assert result.stderr == (
        "plpuzzle: the engines disagree on the minimum swaps: prolog says 2, python says 3\n"
        "plpuzzle: the python engine's answer is wrong: the minimum is 2 swaps "
        "(the validator arranges the items with that many), not 3\n"
    )


def test_a_failed_engine_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(items: FlagSequence, names: list[str], time_limit: float) -> list[FlagResult]:
        return [
            FlagResult("prolog", Status.TIMEOUT, message="stopped at the CPU-time limit of 1 s"),
            FlagResult("python", Status.OK, "RWB", 0, 1),
        ]

    monkeypatch.setattr(flag_cli, "run_engines", fake)
    result = CliRunner().invoke(main, ["flag", "RWB"])
    assert result.exit_code == 1
    assert "engines         prolog timeout, python " in result.stdout
    assert result.stderr == ("plpuzzle: the prolog engine stopped at the CPU-time limit of 1 s\n")
