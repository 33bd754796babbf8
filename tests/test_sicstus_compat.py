"""SICStus 4 solvers in SWI-Prolog's emulation, with prolog/sicstus_compat.pl.

Everything runs through the real engine in worker processes: the full
solver through PrologSudokuEngine, the small probe programs of
tests/fixtures/sicstus/ through worker requests that run any goal.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from plpuzzle.runtime import Worker
from plpuzzle.sudoku.domain.model import Puzzle, Rules
from plpuzzle.sudoku.domain.results import Status
from plpuzzle.sudoku.domain.textformat import load_puzzle, load_solutions, parse_puzzle
from plpuzzle.sudoku.engines.prolog_bridge import PrologSudokuEngine

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "sicstus"
SOLVER = FIXTURES / "sudoku.pl"
BUNDLED = Path(__file__).resolve().parents[1] / "puzzles" / "sudoku" / "consecutive"
EXAMPLE = parse_puzzle("2\new2s  w  e  -\n-  esw  -  o\n-  -  1  -\nw  s  -  -\n")
EXAMPLE_SOLUTION = ((2, 1, 4, 3), (3, 4, 2, 1), (4, 3, 1, 2), (1, 2, 3, 4))
EMPTY_K2 = Puzzle.from_rows(2, [[[] for _ in range(4)] for _ in range(4)])
ALL_PAIRS = ["[1,2]", "[1,3]", "[1,4]", "[2,3]", "[2,4]", "[3,4]"]
PERMUTATIONS = ["[1,2,3]", "[1,3,2]", "[2,1,3]", "[2,3,1]", "[3,1,2]", "[3,2,1]"]


# --- the full solver ----------------------------------------------------------


@pytest.fixture(scope="module")
def sicstus() -> Iterator[PrologSudokuEngine]:
    engine = PrologSudokuEngine(SOLVER, dialect="sicstus4")
    yield engine
    engine.close()


def test_fixture_solver_is_latin1_and_uses_what_swi_lacks() -> None:
    data = SOLVER.read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    text = data.decode("latin-1")
    assert "Megold\u00e1s" in text
    for used in ("library(between)", "library(samsort)", "domain(", "delete(", " do "):
        assert used in text, used


def test_example_has_its_one_solution(sicstus: PrologSudokuEngine) -> None:
    result = sicstus.solve(EXAMPLE, Rules.CONSECUTIVE, 30)
    assert result.status is Status.OK, result.message
    assert result.solutions == [EXAMPLE_SOLUTION]


def test_every_k2_grid_exactly_once(sicstus: PrologSudokuEngine) -> None:
    result = sicstus.solve(EMPTY_K2, Rules.CONSECUTIVE, 60)
    assert result.clean, result.message
    assert len(result.solutions) == 288


# The hand-made puzzles: the generated ones include K=5 puzzles with
# hundreds of solutions, too slow for this plain clpfd student model.
@pytest.mark.parametrize("name", [f"test{i:03d}d.txt" for i in range(1, 11)])
def test_bundled_puzzles_match_their_expected_solutions(
    sicstus: PrologSudokuEngine, name: str
) -> None:
    path = BUNDLED / name
    expected = load_solutions(path.with_name(name.replace("d.txt", "s.txt")))
    result = sicstus.solve(load_puzzle(path), Rules.CONSECUTIVE, 60)
    assert result.clean, result.message
    assert sorted(result.solutions) == expected


def test_the_same_solver_does_not_load_as_swi_code() -> None:
    engine = PrologSudokuEngine(SOLVER, dialect="swi")
    try:
        result = engine.solve(EXAMPLE, Rules.CONSECUTIVE, 30)
    finally:
        engine.close()
    assert result.status is Status.LOAD_ERROR
    assert "library(between)" in result.message


# --- probes: one predicate at a time ------------------------------------------


@pytest.fixture(scope="module")
def worker() -> Iterator[Worker]:
    with Worker() as w:
        yield w


def ask(worker: Worker, probe: str, goal: str, template: str = "R") -> list[str]:
    """Every answer of `goal` in the sicstus4 probe file `probe`, as text."""
    reply = worker.request(
        {
            "op": "prolog",
            "solver": str(FIXTURES / probe),
            "dialect": "sicstus4",
            "predicate": PROBE_PREDICATES[probe],
            "goal": goal,
            "template": template,
            "time_limit": 30,
        },
        60,
    )
    assert reply["status"] == "ok", reply["message"]
    return [text for _ground, text in reply["answers"]]


#: A predicate each probe file defines (the loader insists on one).
PROBE_PREDICATES = {
    "lists_probe.pl": "delete_probe/4",
    "clpfd_probe.pl": "domain_probe/3",
    "labeling_probe.pl": "pair_probe/2",
    "loops_probe.pl": "sum_probe/2",
    "libraries_probe.pl": "between_probe/1",
    "module_probe.pl": "module_probe/2",
    "latin1_probe.pl": "felirat/1",
    "utf8_probe.pl": "felirat/1",
}


@pytest.mark.parametrize(
    ("kill", "count", "residue"),
    [
        ("a", 2, "[b,c,a]"),
        ("a", 0, "[a,b,a,c,a]"),
        ("a", 9, "[b,c]"),
        ("z", 1, "[a,b,a,c,a]"),
        ("_", 2, "[a,c,a]"),
    ],
)
def test_delete4_removes_the_first_count_matches(
    worker: Worker, kill: str, count: int, residue: str
) -> None:
    goal = f"delete_probe([a,b,a,c,a], {kill}, {count}, R)"
    assert ask(worker, "lists_probe.pl", goal) == [residue]


def test_delete4_binds_nothing(worker: Worker) -> None:
    answers = ask(worker, "lists_probe.pl", "delete_unbound(R, U)", "[R,U]")
    assert answers == ["[[b],yes]"]


def test_delete4_wants_a_non_negative_count(worker: Worker) -> None:
    goal = "catch(delete_probe([a], a, -1, _), error(R, _), true)"
    assert ask(worker, "lists_probe.pl", goal) == ["type_error(nonneg,-1)"]


def test_domain3(worker: Worker) -> None:
    assert ask(worker, "clpfd_probe.pl", "domain_probe(2, 4, R)") == ["2", "3", "4"]


@pytest.mark.parametrize(
    ("goal", "options"),
    [
        ("distinct_probe", "[]"),
        ("distinct_probe", "[consistency(local)]"),
        ("different_probe", "[on(val),consistency(global)]"),
        ("different_probe", "[]"),
    ],
)
def test_all_distinct2_and_all_different2(worker: Worker, goal: str, options: str) -> None:
    assert ask(worker, "clpfd_probe.pl", f"{goal}({options}, R)") == PERMUTATIONS


def test_all_distinct2_rejects_unknown_options(worker: Worker) -> None:
    goal = "catch(distinct_probe([bogus], _), error(R, _), true)"
    assert ask(worker, "clpfd_probe.pl", goal) == ["domain_error(all_different_option,bogus)"]


def test_count4(worker: Worker) -> None:
    two_ones = ask(worker, "clpfd_probe.pl", "count_probe(#=, 2, R)")
    assert two_ones == ["[1,1,2]", "[1,1,3]", "[1,2,1]", "[1,3,1]", "[2,1,1]", "[3,1,1]"]
    no_ones = ask(worker, "clpfd_probe.pl", "count_probe(#<, 1, R)")
    assert len(no_ones) == 8 and not any("1" in answer for answer in no_ones)


def test_relation3(worker: Worker) -> None:
    answers = ask(worker, "clpfd_probe.pl", "relation_probe(X, Y)", "[X,Y]")
    assert answers == ["[1,2]", "[2,1]", "[2,3]", "[3,2]", "[3,4]", "[4,3]"]


def test_minimum2_and_maximum2(worker: Worker) -> None:
    assert ask(worker, "clpfd_probe.pl", "extremes_probe(A, B)", "[A,B]") == ["[1,3]"]


def test_slash_is_truncated_division_in_clpfd(worker: Worker) -> None:
    assert ask(worker, "clpfd_probe.pl", "division_probe(A, B)", "[A,B]") == ["[3,-3]"]
    assert ask(worker, "clpfd_probe.pl", "division_domain_probe(R)") == ["6", "7", "8"]


def test_constraints_count_as_zero_or_one_in_arithmetic(worker: Worker) -> None:
    answers = ask(worker, "clpfd_probe.pl", "truth_value_probe(N, L)", "[N|L]")
    assert len(answers) == 8
    for answer in answers:
        count, *values = json.loads(answer)
        assert count == values.count(1)


@pytest.mark.parametrize(
    "options",
    [
        "[]",
        "[all]",
        "[leftmost,step,up]",
        "[ff,enum,down]",
        "[ff,ffc]",  # SWI rejects repeats; in SICStus the last one wins
        "[anti_first_fail]",
        "[occurrence,bisect]",
        "[max_regret,down]",
        "[median]",
        "[middle,down]",
        "[min,middle]",
    ],
)
def test_labeling_options_keep_every_solution(worker: Worker, options: str) -> None:
    answers = ask(worker, "labeling_probe.pl", f"pair_probe({options}, R)")
    assert sorted(answers) == ALL_PAIRS


@pytest.mark.parametrize(
    ("options", "order"),
    [
        ("[down]", ["[3,4]", "[2,4]", "[2,3]", "[1,4]", "[1,3]", "[1,2]"]),
        # X in 1..3 first: its median is 2; then {1,3} gives 1, and so on.
        ("[median]", ["[2,3]", "[2,4]", "[1,3]", "[1,2]", "[1,4]", "[3,4]"]),
        # The middle of 1..3 is 2; of {1,3} it is 2 too, so 3 comes next.
        ("[middle]", ["[2,3]", "[2,4]", "[3,4]", "[1,3]", "[1,4]", "[1,2]"]),
    ],
)
def test_labeling_order_follows_sicstus(worker: Worker, options: str, order: list[str]) -> None:
    assert ask(worker, "labeling_probe.pl", f"pair_probe({options}, R)") == order


def test_labeling_minimize_and_maximize_give_one_optimum(worker: Worker) -> None:
    assert ask(worker, "labeling_probe.pl", "minimize_probe(R)") == ["[3,1]"]
    assert ask(worker, "labeling_probe.pl", "maximize_probe(R)") == ["[3,6]"]


def test_labeling_value_calls_the_solvers_predicate(worker: Worker) -> None:
    # value(enum_values) calls enum_values/4, which the probe lacks.
    [answer] = ask(worker, "labeling_probe.pl", "bad_option_probe(R)")
    assert answer.startswith("existence_error(procedure,")
    assert answer.endswith("/(enum_values,4)))")


@pytest.mark.parametrize(
    ("goal", "template", "answer"),
    [
        ("sum_probe([1,2,3], R)", "R", "6"),
        ("sum_probe([], R)", "R", "0"),
        ("for_probe(1, 3, R)", "R", "[1,2,3]"),
        ("for_probe(3, 1, R)", "R", "[]"),
        ("count_probe(P, N)", "[P,N]", "[[[1,a],[2,b],[3,c]],3]"),
        ("arg_probe(R)", "R", "[[1,x],[2,y],[3,z]]"),
        ("param_probe(10, R)", "R", "[11,12,13]"),
        ("local_probe(R)", "R", "[2,4,6]"),
        ("nested_probe(R)", "R", "[3,7,0]"),
        ("runtime_probe(R)", "R", "6"),
    ],
)
def test_do_loops(worker: Worker, goal: str, template: str, answer: str) -> None:
    assert ask(worker, "loops_probe.pl", goal, template) == [answer]


@pytest.mark.parametrize(
    ("goal", "template", "answer"),
    [
        ("between_probe(R)", "R", "[1,2,3]"),
        ("numlist_probe(R)", "R", "[1,2,3,4]"),
        ("samsort_probe(S, V)", "[S,V]", "[[a,a,b,c],[y,x,z]]"),
        ("time_out_probe(R)", "R", "success"),
        ("lists_probe(R)", "R", "[6,3,3,[2,1]]"),
        # Double-quoted text is a code list, as in SICStus.
        ("codes_probe(C, A)", "[C,A]", "[[97,98],xy]"),
    ],
)
def test_sicstus_libraries(worker: Worker, goal: str, template: str, answer: str) -> None:
    assert ask(worker, "libraries_probe.pl", goal, template) == [answer]


def test_a_module_file_gets_the_additions_too(worker: Worker) -> None:
    answers = ask(worker, "module_probe.pl", "module_probe(T, P)", "[T,P]")
    assert answers == ["[[20,10],[1,2]]", "[[20,10],[1,3]]", "[[20,10],[2,3]]"]


@pytest.mark.parametrize("probe", ["latin1_probe.pl", "utf8_probe.pl"])
def test_text_is_read_in_the_file_encoding(worker: Worker, probe: str) -> None:
    assert ask(worker, probe, "felirat(R)") == ["'Megold\u00e1s: sz\u00e1mok'"]


def test_a_yall_lambda_loads_without_a_warning_about_yall(tmp_path: Path) -> None:
    """A lambda in maplist makes SWI use library(yall), whose imports were
    resolved against SICStus' library(lists) (no append/3) with a warning
    naming yall.pl: they are resolved beforehand, as plain SWI-Prolog."""
    solver = tmp_path / "sudoku.pl"
    solver.write_text(
        ":- use_module(library(clpfd)).\n"
        "sudoku(_, [[1]]) :- Vs = [X], maplist([Y]>>(Y #> 0), Vs), X = 1.\n"
    )
    with PrologSudokuEngine(solver, dialect="sicstus4") as engine:
        report = engine.check_load(30)
        assert report.clean and report.warnings == [], report.problems
        result = engine.solve(parse_puzzle("1\n-\n"), Rules.CONSECUTIVE, 30)
    assert result.status is Status.OK and result.solutions == [((1,),)]
