"""Differential testing: three engines referee each other on random puzzles.

Hypothesis draws small puzzles (K = 1..3, both rule variants) from random
solution grids: some infos true of the grid, some that may be false (so
contradictions, puzzles without solutions, come up too), and edge infos
that must be ignored. Failing puzzles shrink to few infos, since every
drawn choice shrinks towards "no info".

Three engines must give the same solutions, each once, every one accepted
by the validator: our Prolog search (the clpfd model with the staged
labeling of sudoku_labeling.pl), the Python engine (a search of its own on
bit masks) and a plain clpfd oracle (sudoku/3 with search(labeling): the
model of sudoku.pl labelled by labeling([ff]), with none of our search's
propagators, stages or lookahead). The validator cannot see a solution
that is missing; an engine that loses one is caught by the others, and
the oracle is the simplest of them.

The mutation check proves that this referee can fail:

- the mutants in tests/fixtures/solvers/mutants/*.pl give wrong or repeated
  solutions, which the validator catches;
- the mutants declared in lossy.toml there are our real solver with one
  rule made over-eager (the matching of distinct_values/1, box-line
  confinement, the lookahead and its trial-strength singles). They only
  lose solutions, never give a wrong one, and still solve many puzzles
  right; the oracle is what catches them.

Hypothesis finds a puzzle on which each is faulted, and shrinks it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from hypothesis import HealthCheck, Phase, assume, example, find, given, settings
from hypothesis import strategies as st
from mutants import REPO_ROOT, Mutant, MutantDrift, load_mutants

from plpuzzle.sudoku.domain.model import Field, Grid, Info, Puzzle, Rules
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import parse_puzzle, puzzle_to_text
from plpuzzle.sudoku.domain.validator import validate
from plpuzzle.sudoku.engines import Engine, make_engine
from plpuzzle.sudoku.engines.prolog_bridge import PrologSudokuEngine, Search, goal_text
from plpuzzle.sudoku.runs.crosscheck import compare
from plpuzzle.sudoku.runs.puzzle_maker import count_solutions_up_to, random_grid

MUTANTS = Path(__file__).resolve().parents[1] / "fixtures" / "solvers" / "mutants"
TIME_LIMIT = 60.0
#: At most this many solutions per drawn puzzle.
MAX_SOLUTIONS = 300

#: What each cell may say besides its value, all true of the drawn grid.
#: Hypothesis shrinks a choice towards the first entry, "none".
TRUTHS = ("none", "parity", "relations")
#: Infos that may be false (a contradiction: no solution), for a few cells.
NOISE = ("wrong parity", "wrong value", "s", "w")


def related_letters(grid: Grid, rules: Rules, r: int, c: int) -> list[Info]:
    """The s/w infos true of cell (r, c) of `grid`; on the bottom row and
    the left column they have no partner and are always 'true'."""
    n = len(grid)
    letters: list[Info] = []
    if r + 1 == n or rules.related(grid[r][c], grid[r + 1][c]):
        letters.append("s")
    if c == 0 or rules.related(grid[r][c], grid[r][c - 1]):
        letters.append("w")
    return letters


def cell_infos(grid: Grid, rules: Rules, r: int, c: int, given: bool, choice: str) -> list[Info]:
    """The infos of one cell: its value if given, then what `choice` says."""
    value = grid[r][c]
    infos: list[Info] = [value] if given else []
    if choice == "parity":
        infos.append("e" if value % 2 == 0 else "o")
    elif choice == "relations":
        infos += related_letters(grid, rules, r, c)
    elif choice == "wrong parity":
        infos.append("o" if value % 2 == 0 else "e")
    elif choice in ("s", "w"):  # true or not, by chance
        infos.append(choice)
    elif choice == "wrong value" and len(grid) > 1:
        infos = [value % len(grid) + 1]  # the format holds one value per field
    return infos


@st.composite
def puzzles(draw: st.DrawFn, max_k: int = 3, rules: Rules | None = None) -> tuple[Puzzle, Rules]:
    """A random puzzle and a rule variant (`rules`, if given): infos true
    of a random grid, and at most two cells with infos that may be false.

    K = 3 puzzles give most values (up to 50 holes), so that the number of
    solutions stays small enough to enumerate; K <= 2 ones give any subset.
    """
    k = draw(st.integers(1, max_k))
    rules = rules or draw(st.sampled_from(list(Rules)))
    grid = random_grid(k, random.Random(draw(st.integers(0, 2**32 - 1))))
    n = k * k
    cells = [(r, c) for r in range(n) for c in range(n)]
    if k == 3:
        size = draw(st.integers(0, 50))
        holes = draw(st.sets(st.sampled_from(cells), min_size=size, max_size=size))
        givens = set(cells) - holes
    else:
        givens = draw(st.sets(st.sampled_from(cells)))
    truths = st.sampled_from(TRUTHS) if draw(st.booleans()) else st.just("none")
    choices = draw(st.lists(truths, min_size=n * n, max_size=n * n))
    noise = draw(st.dictionaries(st.sampled_from(cells), st.sampled_from(NOISE), max_size=2))
    rows = [
        [
            cell_infos(grid, rules, r, c, (r, c) in givens, noise.get((r, c), choices[r * n + c]))
            for c in range(n)
        ]
        for r in range(n)
    ]
    puzzle = Puzzle.from_rows(k, rows)
    # Holes may cluster (a whole empty band): leave out puzzles with too
    # many solutions to enumerate quickly. The count stops at the cap.
    assume(k < 3 or count_solutions_up_to(puzzle, rules, cap=MAX_SOLUTIONS) < MAX_SOLUTIONS)
    return puzzle, rules


@dataclass
class Referees:
    """The three engines of the differential test, each in its own worker."""

    prolog: Engine
    python: Engine
    #: Our core relation labelled by labeling/2: no rule of our search.
    oracle: Engine

    @property
    def all(self) -> list[Engine]:
        return [self.prolog, self.python, self.oracle]


@pytest.fixture(scope="module")
def engines() -> Iterator[Referees]:
    oracle = PrologSudokuEngine(search="labeling")
    referees = Referees(make_engine("prolog"), make_engine("python"), oracle)
    yield referees
    for engine in referees.all:
        engine.close()


def test_the_oracle_runs_the_plain_labeling(engines: Referees) -> None:
    """The oracle asks our solver for search(labeling), by name; only our
    own solver (or a copy of it) has that option."""
    puzzle, rules = text_puzzle("oddsum\n1\n-\n")
    goal, predicate = goal_text(puzzle, rules, own=True, search="labeling")
    assert "search(labeling)" in goal and predicate == "sudoku/3"
    result = engines.oracle.solve(puzzle, rules, TIME_LIMIT)
    assert (result.engine, result.solutions) == ("labeling", [((1,),)])
    with pytest.raises(ValueError, match="our own solver only"):
        PrologSudokuEngine(MUTANTS / "ignores_w.pl", search="labeling")


def solve_all(engines: list[Engine], puzzle: Puzzle, rules: Rules) -> list[SolveResult]:
    return [e.solve(puzzle, rules, TIME_LIMIT) for e in engines]


def text_puzzle(text: str) -> tuple[Puzzle, Rules]:
    """A fixed example, in the course's text format, with its rules."""
    rules, _, body = text.partition("\n")
    return parse_puzzle(body), Rules(rules)


def engines_agree(engines: Referees, case: tuple[Puzzle, Rules]) -> None:
    """Our search, the Python engine and the oracle give the same
    solutions, each once, every one valid."""
    puzzle, rules = case
    results = solve_all(engines.all, puzzle, rules)
    context = f"{rules}\n{puzzle_to_text(puzzle)}"
    for result in results:
        assert result.status is Status.OK, f"{result.engine}: {result.message}\n{context}"
        assert not result.bad_answers, context
        assert not result.duplicates, f"{result.engine} repeats solutions\n{context}"
        for grid in result.solutions:
            assert validate(puzzle, [list(row) for row in grid], rules) == [], context
    prolog, python, oracle = (sorted(r.solutions) for r in results)
    assert prolog == oracle, f"our search and the oracle differ\n{context}"
    assert python == oracle, f"the Python engine and the oracle differ\n{context}"
    assert compare(puzzle, rules, results).agree


#: Drawn puzzles of the default run; the slow test draws MORE_EXAMPLES
#: more (300 in all in CI, as one test drew before).
EXAMPLES = 60
MORE_EXAMPLES = 240


# Regressions and corner cases kept as fixed examples: a K=1 puzzle with a
# wrong parity, edge infos only, a K=2 contradiction through s and w, and a
# K=2 puzzle whose only infos are parities.
@example(text_puzzle("consecutive\n1\n1e\n"))
@example(text_puzzle("oddsum\n1\nows\n"))
@example(text_puzzle("consecutive\n2\n1w - - -\n- - - -\n- - - -\n- - - 1s\n"))
@example(text_puzzle("consecutive\n2\n1s 3 - -\n- - - -\n- - - -\n- - - -\n"))
@example(text_puzzle("oddsum\n2\no e o e\n- - - -\ne - - -\n- - - -\n"))
@given(puzzles())
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_engines_give_the_same_valid_solutions_once(
    engines: Referees, case: tuple[Puzzle, Rules]
) -> None:
    """Our search, the Python engine and the oracle agree on every drawn
    puzzle. The oracle needs no restriction: the drawn puzzles are small
    enough (K = 3 ones have at most 50 holes and under 300 solutions) that
    it took 0.3 s of CPU at most in 300 examples, and about five times as
    long as our search in all."""
    engines_agree(engines, case)


@pytest.mark.slow
@given(puzzles())
@settings(max_examples=MORE_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
def test_engines_agree_on_more_drawn_puzzles(engines: Referees, case: tuple[Puzzle, Rules]) -> None:
    """The same referee on more drawn puzzles, for CI."""
    engines_agree(engines, case)


def test_the_puzzles_cover_contradictions_and_many_solutions(engines: Referees) -> None:
    """The strategy reaches what it must: puzzles with no solution, and
    puzzles with many, at every K. (find() fails when it cannot.)"""
    python = engines.python

    def count(case: tuple[Puzzle, Rules]) -> int:
        result = python.solve(*case, TIME_LIMIT)
        assert result.status is Status.OK
        return len(result.solutions)

    # Each example is a worker round trip: no per-example deadline. Only
    # that such puzzles exist matters here, so the first one found does:
    # shrinking it would cost hundreds of solves.
    # A fixed seed keeps the search the same from run to run.
    patient = settings(deadline=None, phases=[Phase.generate], database=None, max_examples=2000)
    seeded = {"settings": patient, "random": random.Random(2013)}
    for k in (1, 2, 3):
        found = find(puzzles(), lambda c, k=k: c[0].k == k and count(c) == 0, **seeded)
        assert found[0].k == k
    assert count(find(puzzles(max_k=2), lambda c: count(c) >= 100, **seeded)) >= 100
    many = find(puzzles(), lambda c: c[0].k == 3 and count(c) >= 5, **seeded)
    assert count(many) >= 5


# --- the mutation check -----------------------------------------------------


def infos_of(puzzle: Puzzle) -> list[Info]:
    return [info for row in puzzle.fields for field in row for info in field.infos]


def faults_of(mutant: Engine, referee: Engine, case: tuple[Puzzle, Rules]) -> list[str]:
    """What the cross-check holds against the mutant; the referee must
    come out clean."""
    puzzle, rules = case
    mine, theirs = mutant.solve(puzzle, rules, TIME_LIMIT), referee.solve(puzzle, rules, 60)
    mutant_finding, referee_finding = compare(puzzle, rules, [mine, theirs]).findings
    assert not referee_finding.faults, referee_finding.faults
    return mutant_finding.faults


def caught(mutant: Engine, referee: Engine, case: tuple[Puzzle, Rules]) -> bool:
    """Whether the cross-check finds fault with the mutant (and only it)."""
    return bool(faults_of(mutant, referee, case))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mutant", "fault", "sign"),
    [
        pytest.param("ignores_w.pl", "gives", lambda p: "w" in infos_of(p), id="ignores_w"),
        pytest.param("ignores_boxes.pl", "gives", lambda p: p.k >= 2, id="ignores_boxes"),
        pytest.param("returns_duplicates.pl", "duplicate", lambda p: True, id="duplicates"),
    ],
)
def test_each_wrong_solver_is_caught_on_a_shrunk_puzzle(
    engines: Referees, mutant: str, fault: str, sign: Callable[[Puzzle], bool]
) -> None:
    """Hypothesis searches the puzzle space for one on which the cross-check
    faults the mutant, and shrinks it; the shrunk puzzle shows the bug."""
    wrong = PrologSudokuEngine(MUTANTS / mutant)
    try:
        # These mutants implement sudoku/2, the assignment's consecutive rules.
        puzzle, rules = find(
            puzzles(max_k=2, rules=Rules.CONSECUTIVE),
            lambda c: caught(wrong, engines.python, c),
            settings=settings(max_examples=300, deadline=None),
        )
        faults = faults_of(wrong, engines.python, (puzzle, rules))
    finally:
        wrong.close()
    assert any(fault in f for f in faults), faults
    assert sign(puzzle), puzzle_to_text(puzzle)
    assert len(infos_of(puzzle)) <= 4, puzzle_to_text(puzzle)


#: The mutants of our own solver (tests/fixtures/solvers/mutants/lossy.toml).
LOSSY = load_mutants()


@pytest.fixture(scope="module")
def lossy_solvers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each lossy mutant built once: a copy of prolog/ with its one change."""
    folder = tmp_path_factory.mktemp("mutants")
    return {name: mutant.build(folder) for name, mutant in LOSSY.items()}


def misses_only(faults: list[str]) -> bool:
    """A fault list that says the side lost solutions, and nothing else."""
    return bool(faults) and all(f.startswith("misses ") for f in faults)


#: Each lossy mutant is hunted under both rules.
HUNTS = [
    pytest.param(name, rules, id=f"{name}-{rules.value}")
    for name in sorted(LOSSY)
    for rules in Rules
]


def lossy_engine(lossy_solvers: dict[str, Path], name: str) -> PrologSudokuEngine:
    """The mutant as an engine, run with the search that exercises its rule."""
    search = cast(Search, LOSSY[name].search)
    return PrologSudokuEngine(lossy_solvers[name], own=True, search=search)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "rules"), HUNTS)
def test_each_lossy_mutant_is_caught_by_the_oracle_on_a_shrunk_puzzle(
    engines: Referees, lossy_solvers: dict[str, Path], name: str, rules: Rules
) -> None:
    """Hypothesis searches for a puzzle on which our solver with one rule
    made over-eager misses solutions that the clpfd oracle finds, and
    shrinks it. The cross-check says "misses", and only that: every
    solution the mutant does give is valid."""
    wrong = lossy_engine(lossy_solvers, name)
    try:
        case = find(
            puzzles(rules=rules),
            lambda c: caught(wrong, engines.oracle, c),
            settings=settings(max_examples=1000, deadline=None, database=None),
            random=random.Random(17),
        )
        faults = faults_of(wrong, engines.oracle, case)
    finally:
        wrong.close()
    shown = f"{case[1]}\n{puzzle_to_text(case[0])}"
    assert misses_only(faults), f"{faults}\n{shown}"
    assert len(infos_of(case[0])) <= 4, shown
    print(f"{name}: {faults[0]} on\n{shown}")


@pytest.fixture(scope="module")
def sample(engines: Referees) -> list[tuple[str, Rules, Puzzle, SolveResult]]:
    """The hand-made part of the bundled suite (K = 1..3) under both rules,
    with the oracle's answers, computed once for every mutant. Under oddsum
    test008 has 1228 solutions, which take the oracle seconds: left out."""
    folder = REPO_ROOT / "puzzles" / "sudoku" / "consecutive"
    cases = []
    for rules in Rules:
        for test in (f"test{i:03d}" for i in range(1, 11)):
            if (test, rules) == ("test008", Rules.ODDSUM):
                continue
            puzzle = parse_puzzle((folder / f"{test}d.txt").read_text())
            cases.append((test, rules, puzzle, engines.oracle.solve(puzzle, rules, TIME_LIMIT)))
    return cases


@pytest.mark.parametrize("name", sorted(LOSSY))
def test_each_lossy_mutant_is_a_subtle_bug(
    lossy_solvers: dict[str, Path],
    sample: list[tuple[str, Rules, Puzzle, SolveResult]],
    name: str,
) -> None:
    """A mutant is not a broken build: on the hand-made puzzles, under both
    rules, it agrees with the oracle at least two times out of three, and
    whatever it gets wrong it gets wrong by missing solutions, never by
    giving a wrong one."""
    agreed = []
    with lossy_engine(lossy_solvers, name) as wrong:
        for test, rules, puzzle, oracle in sample:
            mine = wrong.solve(puzzle, rules, TIME_LIMIT)
            faults = compare(puzzle, rules, [mine, oracle]).findings[0].faults
            assert not faults or misses_only(faults), (test, rules, faults)
            if not faults:
                agreed.append((test, rules.value))
    print(f"{name}: agrees with the oracle on {len(agreed)} of {len(sample)}")
    assert len(agreed) * 3 >= len(sample) * 2, agreed


def test_a_mutant_whose_rule_has_changed_fails_to_build(tmp_path: Path) -> None:
    """The mutants cannot drift from the solver: a snippet that is not in
    its file exactly once stops the build, naming the mutant."""
    gone = Mutant("stale", "a rule", "a bug", "sudoku_labeling.pl", "no such code", "x")
    with pytest.raises(MutantDrift, match=r"mutant 'stale'.*0 times"):
        gone.build(tmp_path)
    twice = Mutant("vague", "a rule", "a bug", "sudoku_labeling.pl", ":- use_module", "x")
    with pytest.raises(MutantDrift, match="mutant 'vague'"):
        twice.build(tmp_path)


def test_each_lossy_mutant_changes_one_snippet_of_today_s_solver(
    lossy_solvers: dict[str, Path],
) -> None:
    """A built mutant is prolog/ with exactly its one replacement."""
    for name, solver in lossy_solvers.items():
        mutant = LOSSY[name]
        for path in (REPO_ROOT / "prolog").glob("*.pl"):
            copied = (solver.parent / path.name).read_text(encoding="utf-8")
            original = path.read_text(encoding="utf-8")
            if path.name == mutant.file:
                assert copied != original
                assert copied == original.replace(mutant.original, mutant.replacement)
            else:
                assert copied == original, (name, path.name)


def test_a_correct_solver_is_not_caught(engines: Referees) -> None:
    """The check is not trigger-happy: our own solver, loaded as a student's
    sudoku/2, is never faulted on a sample of consecutive puzzles."""
    student = PrologSudokuEngine(REPO_ROOT / "prolog" / "sudoku.pl")
    try:

        @given(puzzles(max_k=2, rules=Rules.CONSECUTIVE))
        @settings(max_examples=40, deadline=None)
        def never_caught(case: tuple[Puzzle, Rules]) -> None:
            assert not caught(student, engines.python, case)

        never_caught()
    finally:
        student.close()


@pytest.mark.slow
def test_fields_keep_their_infos_in_order() -> None:
    """The strategy's building block: a given value comes first, then the
    chosen infos, as in the course's format."""
    grid = ((1, 2, 3, 4), (3, 4, 1, 2), (2, 1, 4, 3), (4, 3, 2, 1))
    assert cell_infos(grid, Rules.CONSECUTIVE, 0, 0, True, "relations") == [1, "w"]
    assert cell_infos(grid, Rules.CONSECUTIVE, 2, 1, False, "relations") == ["w"]
    assert cell_infos(grid, Rules.CONSECUTIVE, 3, 1, False, "relations") == ["s", "w"]
    assert cell_infos(grid, Rules.ODDSUM, 0, 1, False, "relations") == ["w"]
    assert cell_infos(grid, Rules.ODDSUM, 1, 0, False, "s") == ["s"]
    assert cell_infos(grid, Rules.CONSECUTIVE, 1, 1, True, "wrong value") == [1]
    assert cell_infos(grid, Rules.CONSECUTIVE, 1, 1, False, "wrong value") == [1]
    assert Field(tuple(cell_infos(grid, Rules.ODDSUM, 2, 2, False, "wrong parity"))).odd
