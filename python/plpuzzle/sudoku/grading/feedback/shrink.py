"""The smallest puzzle on which a student's solver still goes wrong.

A failing test from the suite is a 9x9 puzzle with dozens of infos: the
student sees that it fails, not why. Here the puzzle is shrunk while the
solver keeps disagreeing with our reference engine (the pure-Python one):
first a few small K=1 and K=2 puzzles built from the kinds of info the
failing puzzle uses (cheap to run, and the easiest to reason about), then
greedy delta debugging on whichever puzzle fails: drop chunks of infos
(letters and `v(M)` givens alike), keep a drop whenever the disagreement
persists, halve the chunks down to single infos, until nothing more can go.

"Disagrees" means the solver's answers differ from our solutions: an
extra or a missing solution, a duplicate, or a malformed answer; a run
that does not finish (timeout, exception, crash) does not count, since the
feedback is about wrong answers. The student's code only ever runs in the
sandbox (plpuzzle.sandbox), loaded once and run once per candidate.

Everything is bounded: seconds and solver runs per test, and candidates
whose solutions our engine cannot list within a cap are not tried (with
few infos left, a 9x9 puzzle has astronomically many solutions). Our
engine runs in a worker process, within what is left of the seconds: a
half-emptied 36x36 puzzle can take it longer than any budget, and the
worker is then killed. When a bound is reached, the smallest failing
puzzle found so far is kept.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from plpuzzle.sandbox import jail
from plpuzzle.sandbox.program import RunEnd, SandboxedProgram
from plpuzzle.sandbox.workspace import RunFolder, SubmissionFiles
from plpuzzle.sudoku.domain.model import INFO_LETTERS, Field, Grid, Info, Puzzle, Rules
from plpuzzle.sudoku.engines import PythonSudokuEngine
from plpuzzle.sudoku.engines.prolog_bridge import decode_answers


@dataclass(frozen=True)
class ShrinkBudget:
    """How much shrinking one failing test may cost."""

    #: Wall-clock seconds for one test (checked before each solver run).
    seconds: float = 20.0
    #: Solver runs for one test.
    runs: int = 150
    #: A candidate with more solutions than this (by our engine) is not
    #: tried: neither side could list them in reasonable time.
    max_solutions: int = 300
    #: The CPU limit of one run of the student's solver.
    run_seconds: float = 5.0


class Solver(Protocol):
    """The solver under test: its answers on a puzzle, or None when it did
    not finish with a list of answers (timeout, exception, crash)."""

    def answers(self, puzzle: Puzzle, cap: int) -> Answers | None: ...


@dataclass(frozen=True)
class Answers:
    """What the solver gave: grids in its order, and how many answers were malformed."""

    grids: list[Grid]
    malformed: int = 0


@dataclass
class Mismatch:
    """How a solver's answers differ from our solutions on one puzzle."""

    ours: list[Grid]
    theirs: list[Grid]
    malformed: int = 0

    @property
    def extra(self) -> list[Grid]:
        return sorted(set(self.theirs) - set(self.ours))

    @property
    def missing(self) -> list[Grid]:
        return sorted(set(self.ours) - set(self.theirs))

    @property
    def duplicates(self) -> int:
        return len(self.theirs) - len(set(self.theirs))

    @property
    def kinds(self) -> frozenset[str]:
        """Which ways it differs: extra, missing, duplicate, malformed."""
        found = {
            "extra": bool(self.extra),
            "missing": bool(self.missing),
            "duplicate": self.duplicates > 0,
            "malformed": self.malformed > 0,
        }
        return frozenset(k for k, v in found.items() if v)


@dataclass
class Counterexample:
    """The smallest failing puzzle found, and what it cost to find it."""

    puzzle: Puzzle
    mismatch: Mismatch
    original_k: int
    original_infos: int
    runs: int = 0
    seconds: float = 0.0
    #: Why shrinking stopped early ("" when it finished).
    stopped: str = ""

    @property
    def infos(self) -> int:
        return count_infos(self.puzzle)


@dataclass
class ShrinkOutcome:
    """A counterexample, or why there is none (e.g. the failure did not recur)."""

    counterexample: Counterexample | None
    reason: str = ""
    runs: int = 0
    seconds: float = 0.0


def count_infos(puzzle: Puzzle) -> int:
    return sum(len(f.infos) for row in puzzle.fields for f in row)


#: One info of a puzzle: (row, column, position in the field's infos).
Place = tuple[int, int, int]


def places(puzzle: Puzzle) -> list[Place]:
    """Every info of a puzzle, givens first (dropping one frees the most)."""
    found = [
        (r, c, i)
        for r, row in enumerate(puzzle.fields)
        for c, f in enumerate(row)
        for i in range(len(f.infos))
    ]
    return sorted(found, key=lambda p: not isinstance(puzzle.fields[p[0]][p[1]].infos[p[2]], int))


def keep_only(puzzle: Puzzle, kept: list[Place]) -> Puzzle:
    """The puzzle with only the infos at `kept`."""
    chosen = set(kept)
    return Puzzle(
        puzzle.k,
        tuple(
            tuple(
                Field(tuple(info for i, info in enumerate(f.infos) if (r, c, i) in chosen))
                for c, f in enumerate(row)
            )
            for r, row in enumerate(puzzle.fields)
        ),
    )


def empty(k: int) -> Puzzle:
    n = k * k
    return Puzzle(k, tuple(tuple(Field() for _ in range(n)) for _ in range(n)))


def with_infos(k: int, infos: dict[tuple[int, int], tuple[Info, ...]]) -> Puzzle:
    n = k * k
    return Puzzle(k, tuple(tuple(Field(infos.get((r, c), ())) for c in range(n)) for r in range(n)))


def smaller_candidates(puzzle: Puzzle) -> Iterator[Puzzle]:
    """Small puzzles that may show the same bug, smallest first.

    A K=3 puzzle cannot be cut down to K=2 as it stands (its values and
    neighbours do not fit), but the kind of bug usually can: a solver that
    mishandles `s` does so on a K=2 puzzle with one `s`. So: the empty
    K=1 and K=2 puzzles, then K=2 puzzles with one info of each letter the
    failing puzzle uses, in every cell, then the failing puzzle's own infos
    in its top-left 4x4 corner (givens above 4 left out).
    """
    yield empty(1)
    if puzzle.k < 2:
        return
    yield empty(2)
    letters = [x for x in INFO_LETTERS if any(x in f.infos for row in puzzle.fields for f in row)]
    if puzzle.k == 2:
        return  # shrinking the puzzle itself covers the rest
    for letter in letters:
        for r, c in itertools.product(range(4), range(4)):
            yield with_infos(2, {(r, c): (letter,)})
    corner = {
        (r, c): tuple(i for i in puzzle.fields[r][c].infos if not isinstance(i, int) or i <= 4)
        for r in range(4)
        for c in range(4)
    }
    yield with_infos(2, corner)


class Reference(Protocol):
    """Our engine: at most `most` solutions of a puzzle within `seconds`,
    or None when that is not enough."""

    def solutions_up_to(
        self, puzzle: Puzzle, rules: Rules, most: int, seconds: float
    ) -> list[Grid] | None: ...


class Shrinker:
    """Runs candidates against the solver within one test's budget."""

    def __init__(
        self, solver: Solver, rules: Rules, budget: ShrinkBudget, reference: Reference
    ) -> None:
        self.solver = solver
        self.rules = rules
        self.budget = budget
        self.reference = reference
        self.runs = 0
        self.start = time.monotonic()
        self.stopped = ""
        self._seen: dict[Puzzle, Mismatch | None] = {}

    def out_of_budget(self) -> bool:
        if self.runs >= self.budget.runs:
            self.stopped = f"stopped after {self.runs} solver runs (the limit)"
        elif time.monotonic() - self.start >= self.budget.seconds:
            self.stopped = f"stopped after {self.budget.seconds:g} s (the limit)"
        return bool(self.stopped)

    def ours(self, puzzle: Puzzle) -> list[Grid] | None:
        """Our solutions, or None when there are more than the cap or
        they could not be listed in the time left."""
        cap = self.budget.max_solutions
        left = self.budget.seconds - (time.monotonic() - self.start)
        found = self.reference.solutions_up_to(puzzle, self.rules, cap + 1, left)
        return sorted(found) if found is not None and len(found) <= cap else None

    def mismatch(self, puzzle: Puzzle) -> Mismatch | None:
        """How the solver differs from us on `puzzle`, None if it does not
        (or if this cannot be told within the bounds)."""
        if puzzle in self._seen:
            return self._seen[puzzle]
        result: Mismatch | None = None
        ours = self.ours(puzzle)
        if ours is not None and not self.out_of_budget():
            self.runs += 1
            theirs = self.solver.answers(puzzle, self.budget.max_solutions + 1)
            if theirs is not None:
                found = Mismatch(ours, theirs.grids, theirs.malformed)
                result = found if found.kinds else None
        self._seen[puzzle] = result
        return result

    def minimise(
        self, puzzle: Puzzle, mismatch: Mismatch, want: frozenset[str]
    ) -> tuple[Puzzle, Mismatch]:
        """Greedy delta debugging: drop chunks of infos, then single ones,
        keeping every drop after which the solver still goes wrong in one
        of the `want` ways."""
        kept = places(puzzle)
        chunk = max(1, len(kept) // 2)
        while kept:
            changed = False
            i = 0
            while i < len(kept):
                if self.out_of_budget():
                    return puzzle, mismatch
                trial = kept[:i] + kept[i + chunk :]
                candidate = keep_only(puzzle, trial)
                found = self.mismatch(candidate)
                if found is not None and found.kinds & want:
                    # The same infos in the same order, renumbered within
                    # their fields; the next chunk now starts at i.
                    puzzle, mismatch, changed = candidate, found, True
                    kept = places(puzzle)
                else:
                    i += chunk
            if chunk > 1:
                chunk = max(1, chunk // 2)
            elif not changed:
                break
        return puzzle, mismatch


def shrink(
    solver: Solver,
    puzzle: Puzzle,
    rules: Rules,
    budget: ShrinkBudget | None = None,
    reference: Reference | None = None,
) -> ShrinkOutcome:
    """The smallest puzzle found on which `solver` disagrees with our engine.

    `puzzle` should be one it got wrong; if it does not go wrong on it
    again (within the bounds), there is no counterexample, and the reason
    says why. `reference` is our engine (default: the Python one, in a
    worker of its own, closed at the end).
    """
    if reference is None:
        with PythonSudokuEngine() as engine:
            return shrink(solver, puzzle, rules, budget, engine)
    shrinker = Shrinker(solver, rules, budget or ShrinkBudget(), reference)

    def outcome(found: Counterexample | None, reason: str = "") -> ShrinkOutcome:
        seconds = round(time.monotonic() - shrinker.start, 3)
        if found is not None:
            found.runs, found.seconds, found.stopped = shrinker.runs, seconds, shrinker.stopped
        return ShrinkOutcome(found, reason, shrinker.runs, seconds)

    if shrinker.ours(puzzle) is None:
        if shrinker.out_of_budget():
            return outcome(None, f"our engine could not solve the puzzle: {shrinker.stopped}")
        return outcome(
            None,
            f"the puzzle has more than {shrinker.budget.max_solutions} solutions, "
            "too many to compare within the bounds",
        )
    original = shrinker.mismatch(puzzle)
    if original is None:
        reason = shrinker.stopped or "the solver did not go wrong on this puzzle again"
        return outcome(None, reason)
    want = original.kinds
    best, best_mismatch = puzzle, original
    for small in smaller_candidates(puzzle):
        if shrinker.out_of_budget():
            break
        found = shrinker.mismatch(small)
        if found is not None and found.kinds & want:
            best, best_mismatch = small, found
            break
    best, best_mismatch = shrinker.minimise(best, best_mismatch, want)
    return outcome(Counterexample(best, best_mismatch, puzzle.k, count_infos(puzzle)))


@dataclass
class SandboxSolver:
    """A submission in the sandbox, loaded once and run on many puzzles.

    A run that ends at a limit takes the sandbox with it; the next run
    loads the submission again. If loading fails, every run gives None.
    """

    run: RunFolder
    files: Path | SubmissionFiles
    solver_name: str
    dialect: str
    limits: jail.Limits
    hidden: list[Path] = field(default_factory=list)
    slot: int | None = None
    _program: SandboxedProgram | None = None
    _unloadable: bool = False
    problems: list[str] = field(default_factory=list)

    def _loaded(self) -> SandboxedProgram | None:
        if self._program is not None and self._program.alive:
            return self._program
        if self._unloadable:
            return None
        self.close()
        program = SandboxedProgram(
            self.run, self.files, self.solver_name, "sudoku/2", self.dialect,
            self.limits, self.slot, self.hidden,
        )  # fmt: skip
        if not program.load().loaded:
            self._unloadable = True
            self.problems.extend(program.problems)
            program.close()
            return None
        self._program = program
        return program

    def answers(self, puzzle: Puzzle, cap: int) -> Answers | None:
        program = self._loaded()
        if program is None:
            return None
        # At most `cap` answers: a solver that gives more than our engine's
        # cap already disagrees, and need not list the rest. The call is
        # qualified, so a limit/2 of the student's own is not the one used.
        goal = f"solution_sequences:limit({cap}, submission:sudoku({puzzle.to_term()}, Sol))"
        obs = program.run(goal, "Sol", cap)
        if obs.end is not RunEnd.FINISHED:
            return None
        grids, bad = decode_answers(obs.answers, puzzle.n)
        return Answers(grids, len(bad))

    def close(self) -> None:
        if self._program is not None:
            self._program.close()
            self.problems.extend(self._program.problems)
            self._program = None

    def __enter__(self) -> SandboxSolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
