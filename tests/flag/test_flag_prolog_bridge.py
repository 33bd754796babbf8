"""prolog/flag.pl, through the real worker and SWI-Prolog, and on its own."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from plpuzzle.flag.domain.model import parse_sequence, random_sequence
from plpuzzle.flag.domain.results import Status
from plpuzzle.flag.engines import python_engine
from plpuzzle.flag.engines.prolog_bridge import PrologFlagEngine, decode_answers, flag_program


@pytest.fixture(scope="module")
def prolog() -> Iterator[PrologFlagEngine]:
    engine = PrologFlagEngine()
    yield engine
    engine.close()


@pytest.mark.parametrize(
    ("letters", "arranged", "least", "dijkstra"),
    [
        ("RWBWRRB", "RRRWWBB", 2, 4),  # SPEC 3's example input
        ("B", "B", 0, 0),
        ("WBR", "RWB", 2, 2),
        ("RRWWBB", "RRWWBB", 0, 1),
        ("BRWRBW", "RRWWBB", 2, 3),
    ],
)
def test_worked_examples(
    prolog: PrologFlagEngine, letters: str, arranged: str, least: int, dijkstra: int
) -> None:
    result = prolog.solve(parse_sequence(letters), 30)
    assert result.status is Status.OK, result.message
    assert result.answer() == (arranged, least, dijkstra)


def test_a_hundred_thousand_items(prolog: PrologFlagEngine) -> None:
    items = random_sequence(100_000, 11)
    result = prolog.solve(items, 60)
    assert result.status is Status.OK, result.message
    answer = python_engine.solve(items.letters)
    assert result.answer() == (answer.arrangement, answer.min_swaps, answer.dijkstra_swaps)
    assert result.cpu_seconds < 5


def test_the_time_limit_is_kept() -> None:
    engine = PrologFlagEngine(grace=5)
    try:
        result = engine.solve(random_sequence(300_000, 1), 0.01)
    finally:
        engine.close()
    assert result.status is Status.TIMEOUT
    assert result.arrangement is None


def test_pyswip_stays_out_of_the_calling_process() -> None:
    code = (
        "import sys\n"
        "from plpuzzle.flag.engines import make_engine\n"
        "from plpuzzle.flag.domain.model import parse_sequence\n"
        "engine = make_engine('prolog')\n"
        "result = engine.solve(parse_sequence('RWB'), 30)\n"
        "engine.close()\n"
        "print(result.status, 'pyswip' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.stdout.split() == ["ok", "False"], run.stderr


def swipl(goal: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["swipl", "-q", "-g", goal, "-t", "halt", str(flag_program())],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_loads_without_warnings() -> None:
    run = swipl("true")
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_list_predicates_standalone() -> None:
    run = swipl(
        "L = [r,w,b,w,r,r,b], arrange(L, A), zone_counts(L, Z), min_swaps(L, M), "
        'dijkstra_partition(L, D, S), solve_text("rWb", T, _, _), '
        "print([A, Z, M, D, S, T]), nl"
    )
    assert run.stdout.strip() == (
        '[[r,r,r,w,w,b,b],zones(c(1,1,1),c(1,1,0),c(1,0,1)),2,[r,r,r,w,w,b,b],4,"RWB"]'
    )


def test_the_empty_list() -> None:
    run = swipl("arrange([], A), min_swaps([], M), dijkstra_partition([], D, S), print([A,M,D,S])")
    assert run.stdout.strip() == "[[],0,[],0]"


@pytest.mark.parametrize(
    ("goal", "error"),
    [
        ("min_swaps([r,x,b], _)", "found `x'"),
        ("dijkstra_partition([r,w|_], _, _)", "not sufficiently instantiated"),
        ("arrange([r,_], _)", "not sufficiently instantiated"),
        ('solve_text("RW?", _, _, _)', "found `?'"),
    ],
)
def test_bad_items_raise_errors(goal: str, error: str) -> None:
    run = swipl(goal)
    assert run.returncode != 0
    assert error in run.stderr


@pytest.mark.parametrize(
    ("answers", "problem"),
    [
        ([], "gave 0 answers"),
        ([(True, '["RW",0,0]'), (True, '["RW",0,0]')], "gave 2 answers"),
        ([(False, '["RW",_A,0]')], "not a string and two integers"),
        ([(True, "[rw,0,0]")], "not a string and two integers"),
        ([(True, '["RW",0]')], "not a string and two integers"),
    ],
)
def test_malformed_answers_are_reported(answers: list[tuple[bool, str]], problem: str) -> None:
    decoded = decode_answers(answers)
    assert isinstance(decoded, str) and problem in decoded


def test_a_good_answer_decodes() -> None:
    assert decode_answers([(True, '["RWB",0,1]')]) == ("RWB", 0, 1)
