"""`sudoku generate` as a service: make puzzles, confirm them, write files.

A puzzle's testNNNs.txt is written only when all three engines (Prolog,
Python and the independent CP-SAT model) find the same solution set, the
count is the generator's, and the grid the puzzle was made from is among
the solutions and accepted by the validator; otherwise a stale one is
removed. Two engines that share a pruning bug could agree on a wrong set;
CP-SAT shares no reasoning with them, and the source grid is one solution
known without any engine. The
command line parses options and prints what `generate_all` reports.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import puzzle_to_text, solutions_to_text
from plpuzzle.sudoku.domain.validator import validate
from plpuzzle.sudoku.engines import ENGINES, Engine, make_engine
from plpuzzle.sudoku.runs import puzzle_maker
from plpuzzle.sudoku.runs.crosscheck import CrossCheck, compare, status_text

_SOLUTION_RANGE = re.compile(r"\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?")
_NUMBERED = re.compile(r"test(\d+)[ds]\.txt")


class RequestError(Exception):
    """The request cannot be carried out as asked (the user's to fix)."""


def solution_range(text: str) -> tuple[int, int]:
    """`MIN..MAX` (or a single N) as a pair of counts."""
    match = _SOLUTION_RANGE.fullmatch(text)
    if not match:
        raise RequestError(f"--solutions {text!r}: expected MIN..MAX, e.g. 1..1 or 100..250")
    least = int(match.group(1))
    most = int(match.group(2) or least)
    if least > most:
        raise RequestError(f"--solutions {text!r}: MIN is greater than MAX")
    return least, most


def next_number(folder: Path) -> int:
    """One after the highest testNNN in `folder`, or 1."""
    if not folder.is_dir():
        return 1
    numbers = [int(m.group(1)) for p in folder.iterdir() if (m := _NUMBERED.fullmatch(p.name))]
    return max(numbers, default=0) + 1


@dataclass(frozen=True)
class GenerateRequest:
    k: int
    rules: Rules
    count: int
    solutions: tuple[int, int]
    seed: int
    kind: puzzle_maker.Kind
    keep: float | None
    out_dir: Path
    start: int | None
    force: bool
    time_limit: float
    #: The share of cell values to give (puzzle_maker.reduce_to_given), or None.
    given: float | None = None
    #: The engine that counts solutions while the generator thins a grid.
    counter: puzzle_maker.Counter = puzzle_maker.Counter.CPSAT


@dataclass(frozen=True)
class MadePuzzle:
    """One generated puzzle and what the engines made of it."""

    puzzle_path: Path
    solutions_path: Path
    made: puzzle_maker.Generated
    results: list[SolveResult]
    outcome: CrossCheck
    #: Why its solutions cannot be trusted (no testNNNs.txt), or None.
    problem: str | None

    @property
    def confirmed(self) -> bool:
        return self.problem is None

    def to_json(self) -> dict[str, object]:
        return {
            "puzzle": str(self.puzzle_path),
            "solutions_file": str(self.solutions_path) if self.confirmed else None,
            "k": self.made.puzzle.k,
            "solutions": self.made.solutions,
            "infos": self.made.info_count,
            "confirmed": self.confirmed,
            "problem": self.problem,
            "cpu_seconds": {r.engine: round(r.cpu_seconds, 4) for r in self.results},
        }


def fresh_seed() -> int:
    return random.SystemRandom().randrange(2**32)


def plan(request: GenerateRequest) -> list[str]:
    """The testNNN names to write; RequestError for what cannot be done."""
    least, most = request.solutions
    if not puzzle_maker.MIN_K <= request.k <= puzzle_maker.MAX_K:
        raise RequestError(
            f"--k {request.k}: the generator makes puzzles for K in 1..{puzzle_maker.MAX_K}"
        )
    try:
        puzzle_maker.check_request(request.k, least, most)
        puzzle_maker.check_shares(request.k, request.keep, request.given)
    except puzzle_maker.GenerationError as e:
        raise RequestError(str(e)) from None
    start = request.start if request.start is not None else next_number(request.out_dir)
    names = [f"test{n:03d}" for n in range(start, start + request.count)]
    if not request.force:
        for name in names:
            for suffix in ("d", "s"):
                path = request.out_dir / f"{name}{suffix}.txt"
                if path.exists():
                    raise RequestError(f"{path}: exists; use --force to overwrite, or --start")
    try:
        request.out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RequestError(f"{request.out_dir}: cannot create the folder: {e.strerror}") from None
    return names


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as e:
        raise RequestError(f"{path}: cannot write: {e.strerror}") from None


def generate_all(
    request: GenerateRequest,
    names: list[str],
    on_step: Callable[[str], None] = lambda _what: None,
    on_made: Callable[[MadePuzzle], None] = lambda _made: None,
    engines: Sequence[Engine] | None = None,
) -> list[MadePuzzle]:
    """Make, write and confirm each named puzzle; `on_step` says what is
    under way, `on_made` gets each puzzle as soon as it is settled.

    `engines` (default: one of each in ENGINES, closed at the end) lets a
    caller confirm with other engines, e.g. a Prolog engine running another
    solver; the caller then closes them.
    """
    rng = random.Random(request.seed)
    own = engines is None
    checkers = [make_engine(name) for name in ENGINES] if engines is None else list(engines)
    done: list[MadePuzzle] = []
    try:
        for name in names:
            on_step(f"generating {name}")
            try:
                made = puzzle_maker.generate(
                    request.k,
                    request.rules,
                    rng,
                    request.solutions,
                    request.kind,
                    keep=request.keep,
                    given=request.given,
                    counter=request.counter,
                )
            except puzzle_maker.GenerationError as e:
                raise RequestError(str(e)) from None
            puzzle_path = request.out_dir / f"{name}d.txt"
            solutions_path = request.out_dir / f"{name}s.txt"
            _write(puzzle_path, puzzle_to_text(made.puzzle))
            on_step(f"checking {name}")
            results = [
                each.solve(made.puzzle, request.rules, request.time_limit) for each in checkers
            ]
            outcome = compare(made.puzzle, request.rules, results)
            problem = generated_problem(made, outcome, results, request.time_limit)
            if problem is None:
                _write(solutions_path, solutions_to_text(results[0].solutions))
            else:
                solutions_path.unlink(missing_ok=True)  # never leave a stale one
            item = MadePuzzle(puzzle_path, solutions_path, made, results, outcome, problem)
            done.append(item)
            on_made(item)
    finally:
        if own:
            for each in checkers:
                each.close()
    return done


def generated_problem(
    made: puzzle_maker.Generated,
    outcome: CrossCheck,
    results: list[SolveResult],
    time_limit: float,
) -> str | None:
    """Why a generated puzzle's solutions cannot be trusted, or None."""
    for r in results:
        if r.status is not Status.OK:
            return status_text(r, time_limit).split("\n")[0].rstrip(":")
    if not outcome.agree:
        faults = [f"{f.engine} {', '.join(f.faults)}" for f in outcome.findings if f.faults]
        return "the engines disagree: " + "; ".join(faults)
    found = len(results[0].distinct)
    if found != made.solutions:
        return f"the engines find {found} solution(s), the generator counted {made.solutions}"
    if made.solutions and validate(made.puzzle, made.grid, outcome.rules):
        return "the grid the puzzle was made from breaks it"
    if made.solutions and made.grid not in results[0].distinct:
        # The one solution known without any engine: if every side missed
        # it, they share a pruning bug that no count or cross-check shows.
        return "the grid the puzzle was made from is not among the solutions found"
    return None
