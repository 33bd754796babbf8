"""The puzzle generator: grids, infos, solution counts, and `plpuzzle sudoku generate`.

Counts are confirmed by enumerating every solution, independently of the
generator's capped counting, and with the Prolog engine where it matters.
"""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from run_plpuzzle import plpuzzle

from plpuzzle.sudoku.domain.model import Puzzle, Rules
from plpuzzle.sudoku.domain.results import Status
from plpuzzle.sudoku.domain.textformat import load_puzzle, load_solutions
from plpuzzle.sudoku.domain.validator import validate
from plpuzzle.sudoku.engines import cpsat_engine, make_engine, python_engine
from plpuzzle.sudoku.runs.generation import GenerateRequest, generate_all, plan
from plpuzzle.sudoku.runs.puzzle_maker import (
    Counter,
    Generated,
    GenerationError,
    Kind,
    Placed,
    build_puzzle,
    count_after_removal,
    count_solutions_up_to,
    count_with_cpsat,
    false_infos,
    generate,
    placed_infos,
    random_grid,
    reduce_infos,
    removal_order,
    true_infos,
)


def empty(k: int) -> Puzzle:
    return build_puzzle(k, [])


def edge_count(puzzle: Puzzle) -> int:
    """The s infos in the bottom row plus the w infos in the leftmost column."""
    n = puzzle.n
    return sum(f.south for f in puzzle.fields[n - 1]) + sum(row[0].west for row in puzzle.fields)


def inner_infos(puzzle: Puzzle) -> list[Placed]:
    """The infos of a puzzle without the ignored edge infos."""
    n = puzzle.n
    return [
        p
        for p in placed_infos(puzzle)
        if not (p.info == "s" and p.row == n - 1) and not (p.info == "w" and p.col == 0)
    ]


def all_solutions(puzzle: Puzzle, rules: Rules) -> list:
    return list(python_engine.solve_all(puzzle, rules))


# --- grids and infos -------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_random_grids_are_valid(k: int) -> None:
    rng = random.Random(k)
    for _ in range(5):
        grid = random_grid(k, rng)
        assert validate(empty(k), [list(row) for row in grid], Rules.CONSECUTIVE) == []


def test_random_grid_follows_the_seed() -> None:
    assert random_grid(3, random.Random(5)) == random_grid(3, random.Random(5))
    grids = {random_grid(3, random.Random(seed)) for seed in range(20)}
    assert len(grids) == 20


def test_random_grid_mixes_the_first_row() -> None:
    rows = {random_grid(3, random.Random(seed))[0] for seed in range(20)}
    assert len(rows) > 10  # values are relabelled, not just rows moved


@pytest.mark.parametrize("rules", list(Rules))
def test_true_infos_hold_and_false_infos_break(rules: Rules) -> None:
    grid = random_grid(3, random.Random(1))
    values = [list(row) for row in grid]
    infos = true_infos(grid, rules)
    assert validate(build_puzzle(3, infos), values, rules) == []
    assert {p.info for p in infos} >= {"e", "o", "s", "w"}
    for p in false_infos(grid, rules):
        assert validate(build_puzzle(3, [p]), values, rules), p


def test_classic_infos_are_values_only() -> None:
    infos = true_infos(random_grid(2, random.Random(0)), Rules.CONSECUTIVE, Kind.CLASSIC)
    assert len(infos) == 16
    assert all(isinstance(p.info, int) for p in infos)


def test_a_cell_cannot_get_two_infos_of_a_kind() -> None:
    with pytest.raises(ValueError, match="two 'v'"):
        build_puzzle(2, [Placed(0, 0, 1), Placed(0, 0, 2)])


def test_reduction_leaves_no_info_to_spare() -> None:
    rules = Rules.CONSECUTIVE
    grid = random_grid(2, random.Random(3))
    infos = true_infos(grid, rules)
    kept, count = reduce_infos(
        2, rules, infos, removal_order(infos, Kind.MIXED, random.Random(3)), 2
    )
    assert count == len(all_solutions(build_puzzle(2, kept), rules)) <= 2
    for p in kept:
        rest = [q for q in kept if q != p]
        assert len(all_solutions(build_puzzle(2, rest), rules)) > 2, p


# --- counting ----------------------------------------------------------------------


@pytest.mark.parametrize("rules", list(Rules))
def test_cpsat_counts_up_to_the_cap(rules: Rules) -> None:
    assert count_with_cpsat(empty(2), rules, 1000) == 288  # every K=2 grid
    assert count_with_cpsat(empty(2), rules, 10) == 10
    assert count_with_cpsat(empty(2), rules, 1) == 1
    assert count_with_cpsat(empty(2), rules, 0) == 0
    grid = random_grid(2, random.Random(1))
    others = [p for p in true_infos(grid, rules, Kind.CLASSIC) if (p.row, p.col) != (0, 0)]
    wrong = grid[0][0] % 4 + 1
    broken = build_puzzle(2, [*others, Placed(0, 0, wrong)])
    assert count_with_cpsat(broken, rules, 5) == 0


SHARES = (0.4, 0.25, 0.2)


@pytest.mark.parametrize("rules", list(Rules))
def test_both_counters_agree_with_full_enumeration(rules: Rules) -> None:
    """Thinned K=3 puzzles with a few to hundreds of solutions, counted
    in full by both engines' plain enumeration."""
    rng = random.Random(8)
    totals = []
    for share in SHARES:
        grid = random_grid(3, rng)
        order = removal_order(true_infos(grid, rules), Kind.MIXED, rng)
        puzzle = build_puzzle(3, order[: round(share * len(order))])
        every = cpsat_engine.solve_all(puzzle, rules)
        assert every is not None
        total = len(every)
        assert total == len(all_solutions(puzzle, rules))
        totals.append(total)
        for cap in (1, 50, total, total + 1):
            expected = min(total, cap)
            assert count_solutions_up_to(puzzle, rules, cap, Counter.CPSAT) == expected
            assert count_solutions_up_to(puzzle, rules, cap, Counter.PYTHON) == expected
    assert max(totals) > 50  # the cap of 50 stopped a count


def test_the_counter_is_the_engine_that_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real engines count; the wrappers only note which one was asked."""
    calls = {"cpsat": 0, "python": 0}
    real_cpsat, real_python = cpsat_engine.build_model, python_engine.solve_all

    def cpsat(*args: object) -> object:
        calls["cpsat"] += 1
        return real_cpsat(*args)  # type: ignore[arg-type]

    def python(*args: object) -> object:
        calls["python"] += 1
        return real_python(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(cpsat_engine, "build_model", cpsat)
    monkeypatch.setattr(python_engine, "solve_all", python)
    made = {}
    for counter in Counter:
        before = dict(calls)
        made[counter] = generate(
            3, Rules.ODDSUM, random.Random(2), (5, 40), keep=0.2, counter=counter
        )
        used = {name: calls[name] - before[name] for name in calls}
        assert used[counter.value] > 10, used
        assert sum(used.values()) == used[counter.value], used
    # counts are facts about the puzzle: the engine changes the time, not the output
    assert made[Counter.CPSAT] == made[Counter.PYTHON]
    assert 5 <= made[Counter.CPSAT].solutions <= 40


@pytest.mark.parametrize("rules", list(Rules))
def test_counting_after_a_removal_counts_the_new_solutions_once(rules: Rules) -> None:
    """The count of the thinner puzzle, from the known count and the
    solutions that break a removed info, equals a count from scratch; with
    several infos removed a grid breaking more than one still counts once."""
    rng = random.Random(5)
    checked = 0
    for trial in range(16):
        k = 2 + trial % 2
        grid = random_grid(k, rng)
        order = removal_order(true_infos(grid, rules), Kind.MIXED, rng)
        share = rng.uniform(0.25, 0.45) if k == 3 else rng.uniform(0.05, 0.4)
        kept = order[: round(share * len(order))]
        removed, rest = kept[: 1 + trial % 4], kept[1 + trial % 4 :]
        known = count_with_cpsat(build_puzzle(k, kept), rules, 10**6)
        full = count_with_cpsat(build_puzzle(k, rest), rules, 10**6)
        assert full >= known
        for cap in sorted({known, full, full + 1, known + 3}):
            got = count_after_removal(k, rules, rest, removed, known, cap)
            assert got == min(full, cap), (removed, known, full, cap)
            assert count_after_removal(k, rules, rest, removed, known, cap, Counter.PYTHON) == got
            checked += 1
    assert checked > 40


def test_cpsat_is_the_default_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_python(*_args: object) -> object:
        raise AssertionError("the Python engine was asked to count")

    monkeypatch.setattr(python_engine, "solve_all", no_python)
    made = generate(2, Rules.CONSECUTIVE, random.Random(3), (2, 6))
    assert 2 <= made.solutions <= 6
    request = generation_request(Path("unused"))
    assert request.counter is Counter.CPSAT


# --- generated puzzles ------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "rules", "least", "most", "kind", "keep"),
    [
        (1, Rules.CONSECUTIVE, 1, 1, Kind.MIXED, None),
        (2, Rules.CONSECUTIVE, 1, 1, Kind.MIXED, None),
        (2, Rules.ODDSUM, 3, 6, Kind.LEAN, None),
        (2, Rules.CONSECUTIVE, 20, 40, Kind.CLASSIC, None),
        # K=3 with a floor of infos, which keeps counting quick
        (3, Rules.CONSECUTIVE, 1, 1, Kind.MIXED, 0.3),
        (3, Rules.ODDSUM, 2, 8, Kind.LEAN, 0.5),
    ],
)
def test_counts_are_in_the_requested_range(
    k: int, rules: Rules, least: int, most: int, kind: Kind, keep: float | None
) -> None:
    for seed in range(2):
        made = generate(k, rules, random.Random(seed), (least, most), kind, keep=keep)
        solutions = all_solutions(made.puzzle, rules)
        assert len(solutions) == made.solutions
        assert least <= made.solutions <= most
        assert made.grid in solutions
        if kind is Kind.CLASSIC:
            assert all(isinstance(p.info, int) for p in inner_infos(made.puzzle))


def test_the_floor_keeps_infos() -> None:
    grid_infos = len(true_infos(random_grid(3, random.Random(0)), Rules.CONSECUTIVE))
    made = generate(3, Rules.CONSECUTIVE, random.Random(0), (1, 1), keep=0.5, edges=0)
    assert made.info_count == math.ceil(grid_infos / 2)


@pytest.mark.parametrize(("k", "keep"), [(1, None), (2, None), (3, 0.4)])
def test_contradictory_puzzles_have_no_solution(k: int, keep: float | None) -> None:
    for seed in range(3):
        made = generate(k, Rules.CONSECUTIVE, random.Random(seed), (0, 0), keep=keep)
        assert made.solutions == 0
        assert all_solutions(made.puzzle, Rules.CONSECUTIVE) == []
        # one info too many: the grid it was made from breaks exactly one
        broken = validate(made.puzzle, [list(r) for r in made.grid], Rules.CONSECUTIVE)
        assert len(broken) == 1


def test_every_engine_confirms_the_counts() -> None:
    rules = Rules.CONSECUTIVE
    made = [
        generate(2, rules, random.Random(11), (1, 1)),
        generate(2, rules, random.Random(12), (3, 9)),
        generate(2, rules, random.Random(13), (0, 0)),
        generate(3, rules, random.Random(14), (1, 1), keep=0.4),
        generate(3, rules, random.Random(15), (0, 0), keep=0.4),
    ]
    assert [m.solutions for m in made] == [1, made[1].solutions, 0, 1, 0]
    for name in ("prolog", "python", "cpsat"):
        engine = make_engine(name)
        try:
            for m in made:
                result = engine.solve(m.puzzle, rules, 60)
                assert result.status is Status.OK, result.message
                assert len(result.distinct) == len(result.solutions) == m.solutions, name
        finally:
            engine.close()


def test_edge_infos_are_sprinkled_in_and_ignored() -> None:
    rules = Rules.CONSECUTIVE
    made = generate(2, rules, random.Random(4), (1, 1), edges=3)
    assert edge_count(made.puzzle) >= 3
    inner = build_puzzle(2, inner_infos(made.puzzle))
    assert all_solutions(inner, rules) == all_solutions(made.puzzle, rules)
    by_default = [generate(2, rules, random.Random(s), (1, 1)) for s in range(10)]
    assert any(edge_count(m.puzzle) for m in by_default)


def test_same_seed_same_puzzle() -> None:
    def make(seed: int) -> Generated:
        return generate(3, Rules.CONSECUTIVE, random.Random(seed), (1, 4), keep=0.4)

    assert make(21) == make(21)
    assert make(21).puzzle != make(22).puzzle


def test_impossible_requests_are_refused() -> None:
    with pytest.raises(GenerationError, match="at most 1 solutions"):
        generate(1, Rules.CONSECUTIVE, random.Random(0), (2, 3))
    with pytest.raises(GenerationError, match="K must be"):
        generate(11, Rules.CONSECUTIVE, random.Random(0), (1, 1))
    with pytest.raises(GenerationError, match="after 2 attempts"):
        generate(2, Rules.CONSECUTIVE, random.Random(0), (287, 287), attempts=2)


# --- the command ------------------------------------------------------------------


def generate_command(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return plpuzzle("sudoku", "generate", *args, timeout=300)


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.slow
def test_command_writes_confirmed_pairs_repeatably(tmp_path: Path) -> None:
    args = ("--k", "2", "--count", "2", "--solutions", "2..5", "--seed", "9")
    run = generate_command(*args, "--out", tmp_path / "a")
    assert run.returncode == 0, run.stderr
    again = generate_command(*args, "--out", tmp_path / "b")
    other = generate_command(*args[:-1], "10", "--out", tmp_path / "c")
    assert (again.returncode, other.returncode) == (0, 0)
    made = files(tmp_path / "a")
    assert sorted(made) == [f"test00{i}{s}.txt" for i in (1, 2) for s in "ds"]
    assert files(tmp_path / "b") == made
    assert files(tmp_path / "c") != made
    for i in (1, 2):
        puzzle = load_puzzle(tmp_path / "a" / f"test00{i}d.txt")
        expected = load_solutions(tmp_path / "a" / f"test00{i}s.txt")
        assert sorted(all_solutions(puzzle, Rules.CONSECUTIVE)) == expected
        assert 2 <= len(expected) <= 5
        assert f"test00{i}d.txt  K=2" in run.stdout
    assert "2 of 2 puzzles confirmed" in run.stdout


@pytest.mark.slow
def test_command_counter_changes_nothing_in_the_files(tmp_path: Path) -> None:
    args = ("--k", "3", "--keep", "0.25", "--solutions", "3..30", "--seed", "4", "--format", "json")
    runs = {
        counter: generate_command(*args, "--counter", counter, "--out", tmp_path / counter)
        for counter in ("cpsat", "python")
    }
    for counter, run in runs.items():
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["counter"] == counter
    assert files(tmp_path / "cpsat") == files(tmp_path / "python")
    assert "--counter [cpsat|python]" in generate_command("--help").stdout


def test_command_numbers_on_and_makes_contradictions(tmp_path: Path) -> None:
    (tmp_path / "test007d.txt").write_text("1\n-\n")
    run = generate_command("--k", "2", "--solutions", "0..0", "--seed", "1", "--out", tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "test008s.txt").read_text() == "[].\n"
    puzzle = load_puzzle(tmp_path / "test008d.txt")
    assert all_solutions(puzzle, Rules.CONSECUTIVE) == []
    assert re.search(r"test008d\.txt +K=2 +0 solution", run.stdout)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--k", "0"), "--k 0: the generator makes puzzles for K in 1..10"),
        (("--k", "11"), "--k 11"),
        (("--k", "7", "--keep", "0.5"), "share of given values"),
        (("--k", "2", "--solutions", "1-3"), "expected MIN..MAX"),
        (("--k", "2", "--solutions", "4..2"), "MIN is greater than MAX"),
        (("--k", "1", "--solutions", "2..2"), "at most 1 solutions"),
        (("--k", "2", "--start", "5"), "test005s.txt: exists; use --force"),
        (("--k", "2", "--keep", "1.5"), "--keep"),
        (("--k", "2", "--counter", "clpfd"), "--counter"),
    ],
)
def test_command_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    (tmp_path / "test005s.txt").write_text("[].\n")
    run = generate_command(*args, "--out", tmp_path)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test005s.txt"]


@pytest.mark.slow
def test_command_overwrites_with_force(tmp_path: Path) -> None:
    (tmp_path / "test001s.txt").write_text("stale\n")
    (tmp_path / "test002s.txt").write_text("stale\n")
    run = generate_command("--k", "1", "--start", "1", "--seed", "3", "--force", "--out", tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "test001s.txt").read_text() == "[[[1]]].\n"
    # Unconfirmed (here: no engine can finish in time): no solutions file,
    # not even the stale one, and exit code 1.
    args = ("--k", "2", "--start", "2", "--force", "--time-limit", "0.001", "--out", tmp_path)
    run = generate_command(*args)
    assert run.returncode == 1
    assert "NOT CONFIRMED" in run.stdout
    assert "stopped at the CPU-time limit" in run.stdout
    assert (tmp_path / "test002d.txt").is_file()
    assert not (tmp_path / "test002s.txt").exists()


def test_a_source_grid_missing_from_every_side_is_caught() -> None:
    """Engines that share a pruning bug agree with each other and with the
    generator's count; the grid the puzzle was made from still shows it."""
    from plpuzzle.sudoku.runs.crosscheck import compare
    from plpuzzle.sudoku.runs.generation import generated_problem

    made = generate(2, Rules.CONSECUTIVE, random.Random(7), (2, 6))
    with make_engine("python") as engine:
        honest = engine.solve(made.puzzle, Rules.CONSECUTIVE, 60)
    assert made.grid in honest.solutions
    outcome = compare(made.puzzle, Rules.CONSECUTIVE, [honest])
    assert generated_problem(made, outcome, [honest], 60) is None
    lost = replace(honest, solutions=[g for g in honest.solutions if g != made.grid])
    undercounted = replace(made, solutions=made.solutions - 1)
    outcome = compare(made.puzzle, Rules.CONSECUTIVE, [lost, lost])
    assert outcome.agree
    problem = generated_problem(undercounted, outcome, [lost, lost], 60)
    assert problem == "the grid the puzzle was made from is not among the solutions found"


# --- the three-way confirmation ----------------------------------------------------

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "solvers"


def generation_request(out_dir: Path, **changes: object) -> GenerateRequest:
    """A small K=2 request with several solutions, `changes` applied."""
    base = GenerateRequest(
        k=2,
        rules=Rules.CONSECUTIVE,
        count=1,
        solutions=(3, 8),
        seed=5,
        kind=Kind.MIXED,
        keep=None,
        out_dir=out_dir,
        start=None,
        force=False,
        time_limit=60,
    )
    return replace(base, **changes)


def test_every_puzzle_is_confirmed_by_all_three_engines(tmp_path: Path) -> None:
    request = generation_request(tmp_path)
    [made] = generate_all(request, plan(request))
    assert [r.engine for r in made.results] == ["prolog", "python", "cpsat"]
    assert [f.engine for f in made.outcome.findings] == ["prolog", "python", "cpsat"]
    assert made.confirmed, made.problem
    assert set(made.to_json()["cpu_seconds"]) == {"prolog", "python", "cpsat"}  # type: ignore[arg-type]
    assert len(load_solutions(made.solutions_path)) == made.made.solutions >= 3


def test_an_engine_that_loses_solutions_leaves_the_puzzle_unconfirmed(tmp_path: Path) -> None:
    """A real solver that stops after its first answer, in the Prolog engine's
    seat: CP-SAT and Python outvote it, and no solutions file is written."""
    request = generation_request(tmp_path)
    names = plan(request)
    (tmp_path / f"{names[0]}s.txt").write_text("stale\n")
    engines = [make_engine("prolog", FIXTURES / "misses.pl"), make_engine("python")]
    engines.append(make_engine("cpsat"))
    try:
        [made] = generate_all(request, names, engines=engines)
    finally:
        for each in engines:
            each.close()
    assert made.made.solutions >= 3
    assert not made.confirmed
    assert made.problem is not None
    assert made.problem.startswith("the engines disagree: prolog misses")
    assert "python" not in made.problem and "cpsat" not in made.problem
    assert made.outcome.odd_one_out == "prolog"
    assert made.puzzle_path.is_file()
    assert not made.solutions_path.exists()


# --- big K: a share of given values -------------------------------------------------


def values_given(puzzle: Puzzle) -> int:
    return sum(isinstance(p.info, int) for p in placed_infos(puzzle))


@pytest.mark.parametrize(
    ("rules", "kind", "given", "least", "most"),
    [
        (Rules.CONSECUTIVE, Kind.CLASSIC, 0.5, 1, 4),
        (Rules.ODDSUM, Kind.MIXED, 0.4, 2, 12),
        (Rules.CONSECUTIVE, Kind.LEAN, 0.3, 1, 1),
    ],
)
def test_a_share_of_values_is_given(
    rules: Rules, kind: Kind, given: float, least: int, most: int
) -> None:
    for seed in range(2):
        made = generate(3, rules, random.Random(seed), (least, most), kind, given=given)
        solutions = all_solutions(made.puzzle, rules)
        assert len(solutions) == made.solutions
        assert least <= made.solutions <= most
        assert made.grid in solutions
        # down to the share, or short of it only where the count forbade more
        target = round(given * 81)
        assert target <= values_given(made.puzzle) <= target + 81 // 4, seed


def test_given_values_stop_at_the_share() -> None:
    """Far from the count's limit the values go down to the share exactly,
    and a mixed puzzle loses some of its other infos on the way."""
    rules = Rules.ODDSUM
    made = generate(3, rules, random.Random(3), (1, 1000), Kind.MIXED, edges=0, given=0.8)
    assert values_given(made.puzzle) == round(0.8 * 81)
    others = len(true_infos(made.grid, rules)) - 81
    assert 0 < made.info_count - values_given(made.puzzle) < others


def test_given_puzzles_follow_the_seed_and_can_be_contradictions() -> None:
    def make(seed: int, solutions: tuple[int, int] = (1, 3)) -> Generated:
        return generate(3, Rules.CONSECUTIVE, random.Random(seed), solutions, given=0.5)

    assert make(4) == make(4)
    assert make(4).puzzle != make(5).puzzle
    nothing = make(6, (0, 0))
    assert nothing.solutions == 0
    assert all_solutions(nothing.puzzle, Rules.CONSECUTIVE) == []


def test_big_k_takes_a_share_of_values_not_of_infos() -> None:
    with pytest.raises(GenerationError, match="share of given values"):
        generate(7, Rules.CONSECUTIVE, random.Random(0), (1, 1), keep=0.5)
    with pytest.raises(GenerationError, match="either"):
        generate(3, Rules.CONSECUTIVE, random.Random(0), (1, 1), keep=0.5, given=0.5)


@pytest.mark.slow
def test_command_makes_a_k7_puzzle_confirmed_by_all_engines(tmp_path: Path) -> None:
    args = ("--k", "7", "--rules", "oddsum", "--kind", "classic", "--given", "0.8")
    run = generate_command(*args, "--solutions", "1..4", "--seed", "3", "--out", tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    puzzle = load_puzzle(tmp_path / "test001d.txt")
    assert puzzle.k == 7
    assert round(0.8 * 7**4) <= values_given(puzzle) <= 0.85 * 7**4
    expected = load_solutions(tmp_path / "test001s.txt")
    assert 1 <= len(expected) <= 4
    assert "cpsat" in run.stdout
