"""The engine layer (plpuzzle.runtime) that the three puzzles share.

The same failure must give the same Status in the sudoku, the knight's
tour and the flag: each puzzle's real Prolog engine runs the broken
programs of tests/fixtures/engine/ (which define every puzzle's
predicate) in a real worker, and the Python-in-worker adapter that all
three Python engines are built on calls the tests' own worker hooks
(tests/fixtures/python/worker_hooks.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from plpuzzle.flag import engines as flag_engines
from plpuzzle.flag.domain.model import FlagSequence
from plpuzzle.flag.engines.prolog_bridge import PrologFlagEngine
from plpuzzle.knight import engines as knight_engines
from plpuzzle.knight.domain.model import Board
from plpuzzle.knight.engines.prolog_bridge import PrologKnightEngine
from plpuzzle.runtime import (
    DEFAULT_DIALECT,
    PythonInWorker,
    Status,
    UndecodableAnswer,
    decode_answer,
    decode_only_answer,
    status_label,
    status_of,
)
from plpuzzle.runtime.status import DIED, KILLED, default_message
from plpuzzle.sudoku import engines as sudoku_engines
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.textformat import parse_puzzle
from plpuzzle.sudoku.engines.prolog_bridge import PrologSudokuEngine
from plpuzzle.sudoku.presentation import commands as sudoku_cli

PROGRAMS = Path(__file__).resolve().parent / "fixtures" / "engine"

#: Seconds of Prolog time limit, and of grace before the worker is killed:
#: the grace covers starting the worker and Prolog too, so that only a
#: program that swallows the time limit outlives it.
LIMIT = 1.0
GRACE = 5.0

SUDOKU = parse_puzzle("1\n-\n")


def sudoku_status(program: Path) -> tuple[Status, str]:
    with PrologSudokuEngine(program, "swi", grace=GRACE) as engine:
        result = engine.solve(SUDOKU, Rules.CONSECUTIVE, LIMIT)
    return result.status, result.message


def knight_tour_status(program: Path) -> tuple[Status, str]:
    with PrologKnightEngine(grace=GRACE, program=program) as engine:
        result = engine.tour(Board(5, 5), (0, 0), False, LIMIT)
    return result.status, result.message


def knight_count_status(program: Path) -> tuple[Status, str]:
    with PrologKnightEngine(grace=GRACE, program=program) as engine:
        result = engine.count(Board(5, 5), None, False, LIMIT)
    return result.status, result.message


def flag_status(program: Path) -> tuple[Status, str]:
    with PrologFlagEngine(grace=GRACE, program=program) as engine:
        result = engine.solve(FlagSequence("RWB"), LIMIT)
    return result.status, result.message


PUZZLES: dict[str, Callable[[Path], tuple[Status, str]]] = {
    "sudoku": sudoku_status,
    "knight tour": knight_tour_status,
    "knight count": knight_count_status,
    "flag": flag_status,
}

#: Each broken program, the Status every puzzle must give it, and a piece
#: of the message that says why.
BROKEN = {
    "halts.pl": (Status.CRASHED, "halt(3)"),  # a halted solver, the worker lives
    "dies.pl": (Status.CRASHED, "status 4"),  # the worker itself died
    "raises.pl": (Status.ERROR, "atom_length/2"),
    "loops.pl": (Status.TIMEOUT, "stopped at the CPU-time limit of 1 s"),  # Prolog's own
    "stubborn.pl": (Status.TIMEOUT, "killed"),  # the worker killed at the deadline
    "no_predicates.pl": (Status.LOAD_ERROR, "does not define"),
}


@pytest.mark.parametrize(
    ("puzzle", "program"),
    [
        # A killed worker costs its whole grace period: one puzzle by default.
        pytest.param(
            puzzle,
            program,
            marks=[pytest.mark.slow] if program == "stubborn.pl" and puzzle != "sudoku" else [],
        )
        for puzzle in sorted(PUZZLES)
        for program in sorted(BROKEN)
    ],
)
def test_every_puzzle_gives_a_failure_the_same_status(puzzle: str, program: str) -> None:
    status, message = PUZZLES[puzzle](PROGRAMS / program)
    expected, why = BROKEN[program]
    assert status is expected, message
    assert why in message


def python_outcome(function: str, time_limit: float = 30, **kwargs: object) -> tuple[Status, str]:
    with PythonInWorker() as engine:
        run = engine.call(function, time_limit, **kwargs)
    return run.status, run.message


def test_python_in_worker_maps_a_death_a_raise_and_a_deadline_like_prolog() -> None:
    """The adapter under all three Python engines: the same ends as above."""
    assert python_outcome("worker_hooks:die")[0] is Status.CRASHED
    status, message = python_outcome("worker_hooks:fail", text="engine bug")
    assert status is Status.ERROR and "engine bug" in message
    status, message = python_outcome("worker_hooks:spin", time_limit=0.5)
    assert status is Status.TIMEOUT and "stopped at the CPU-time limit of 0.5 s" in message


def test_python_in_worker_answers() -> None:
    with PythonInWorker() as engine:
        run = engine.call("plpuzzle.sudoku.domain.model:box_cells", 30, box=0, k=1)
    assert run.status is Status.OK and run.result == [[0, 0]]


def test_every_end_has_one_status() -> None:
    assert {end: status_of(end) for end in ("ok", "time_limit", KILLED)} == {
        "ok": Status.OK,
        "time_limit": Status.TIMEOUT,
        KILLED: Status.TIMEOUT,
    }
    assert status_of("halted") is status_of(DIED) is Status.CRASHED
    assert status_of("error") is status_of("internal_error") is Status.ERROR
    assert status_of("load_error") is Status.LOAD_ERROR
    assert status_of("something new") is Status.ERROR


def test_only_a_timeout_says_the_time_limit_was_reached() -> None:
    assert (
        default_message(Status.TIMEOUT, "time_limit", 2) == "stopped at the CPU-time limit of 2 s"
    )
    for status in (Status.ERROR, Status.CRASHED, Status.LOAD_ERROR):
        message = default_message(status, "halted", 2)
        assert "time limit" not in message and "halted" in message


def test_every_status_has_a_label() -> None:
    labels = {status: status_label(status) for status in Status}
    assert len(set(labels.values())) == len(Status)
    assert labels[Status.TIMEOUT] == "ran out of time"


# --- engines are context managers ---------------------------------------------


ENGINE_MAKERS = {
    "sudoku": sudoku_engines.make_engine,
    "knight": knight_engines.make_engine,
    "flag": flag_engines.make_engine,
}

#: One quick run per puzzle, to start each engine's worker.
FIRST_RUN = {
    "sudoku": lambda e: e.solve(SUDOKU, Rules.CONSECUTIVE, 30),
    "knight": lambda e: e.tour(Board(5, 5), (0, 0), False, 30),
    "flag": lambda e: e.solve(FlagSequence("RWB"), 30),
}


@pytest.mark.parametrize("name", ["prolog", "python"])
@pytest.mark.parametrize("puzzle", sorted(ENGINE_MAKERS))
def test_leaving_a_with_block_kills_the_engines_worker(puzzle: str, name: str) -> None:
    with ENGINE_MAKERS[puzzle](name) as engine:
        result = FIRST_RUN[puzzle](engine)
        assert result.status is Status.OK, result.message
        proc = engine.worker._proc
        assert proc is not None and proc.poll() is None
        pid = proc.pid
    assert engine.worker._proc is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_make_engine_loads_a_solver_in_the_clis_default_dialect(tmp_path: Path) -> None:
    solver = tmp_path / "solver.pl"
    solver.write_text("sudoku(_, _).\n")
    with sudoku_engines.make_engine("prolog", solver) as engine:
        assert engine.dialect == DEFAULT_DIALECT  # type: ignore[attr-defined]
    defaults = {
        param.default
        for command in _commands(sudoku_cli.sudoku)
        for param in command.params
        if param.name == "dialect"
    }
    assert defaults == {DEFAULT_DIALECT}


def _commands(group: click.Command) -> list[click.Command]:
    """Every leaf command below `group`, the lazily loaded ones too."""
    if isinstance(group, click.Group):
        ctx = click.Context(group)
        subs = (group.get_command(ctx, name) for name in group.list_commands(ctx))
        return [c for sub in subs if sub is not None for c in _commands(sub)]
    return [group]


# --- the answer decoder --------------------------------------------------------


def test_the_decoder_reads_ground_json_answers() -> None:
    assert decode_answer((True, '[[1,2],"RW",3]')) == [[1, 2], "RW", 3]
    assert decode_only_answer([(True, "7")], "p/1") == 7


@pytest.mark.parametrize(
    ("answers", "why"),
    [
        ([(False, "[_A]")], "unbound"),
        ([(True, "[a-1]")], "not a list"),
        ([(True, "[" * 100_000)], "not a list"),
        ([], "gave 0 answers"),
        ([(True, "1"), (True, "2")], "gave 2 answers"),
    ],
)
def test_the_decoder_says_why_an_answer_is_bad(answers: list[tuple[bool, str]], why: str) -> None:
    with pytest.raises(UndecodableAnswer, match=why) as caught:
        decode_only_answer(answers, "p/1")
    assert "p/1" in str(caught.value)


def test_every_puzzle_lists_its_engines_in_one_shared_registry() -> None:
    """One registry kind for all puzzles: the names come from it, and an
    unknown name is refused with the list, before any worker starts."""
    from plpuzzle.flag import engines as flag
    from plpuzzle.knight import engines as knight
    from plpuzzle.runtime.registry import EngineRegistry
    from plpuzzle.sudoku import engines as sudoku

    expected = {sudoku: ("prolog", "python", "cpsat"), knight: ("prolog", "python")}
    expected[flag] = ("prolog", "python")
    for module, names in expected.items():
        assert isinstance(module.REGISTRY, EngineRegistry)
        assert module.ENGINES == module.REGISTRY.names == names
        with pytest.raises(
            ValueError, match=f"unknown engine 'lisp'; choose from {', '.join(names)}"
        ):
            module.make_engine("lisp")
