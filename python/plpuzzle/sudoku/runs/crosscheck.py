"""Cross-check: run engines on one puzzle and compare their solution sets.

The validator is the referee. Every solution any side gives is validated,
so a side is at fault only for what the rules say: missing a valid
solution that another side found, giving an invalid one, giving one twice,
answering something that is not a grid, or not finishing. Two sides that
both miss the same valid solution cannot be caught this way; a third,
independent side (CP-SAT, or an expected-solution file) can, and when
all sides but one answer alike, that one is named as the odd one out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from plpuzzle.runtime import failure_words
from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.validator import Violation, validate

if TYPE_CHECKING:
    from plpuzzle.sudoku.engines import Engine


@dataclass
class Finding:
    """One side of the comparison and what the referee holds against it."""

    result: SolveResult
    verdicts: dict[Grid, list[Violation]]
    #: Solutions another side gives and this one does not.
    missing: list[Grid] = field(default_factory=list)
    #: Solutions this side gives and another does not.
    extra: list[Grid] = field(default_factory=list)

    @property
    def engine(self) -> str:
        return self.result.engine

    @property
    def finished(self) -> bool:
        return self.result.status is Status.OK

    @property
    def invalid(self) -> list[Grid]:
        """Solutions this side gives that break a rule."""
        return [g for g in self.result.distinct if self.verdicts[g]]

    @property
    def missed(self) -> list[Grid]:
        """Valid solutions that another side found and this one did not."""
        return [g for g in self.missing if not self.verdicts[g]]

    @property
    def faults(self) -> list[str]:
        """Why this side is wrong, in short phrases (empty: nothing known)."""
        r = self.result
        if not self.finished:
            return [f"did not finish ({r.status})"]
        out = []
        if self.missed:
            out.append(f"misses {len(self.missed)} valid solution(s)")
        if self.invalid:
            out.append(f"gives {len(self.invalid)} invalid solution(s)")
        if r.duplicates:
            out.append(f"gives {sum(c - 1 for c in r.duplicates.values())} duplicate(s)")
        if r.bad_answers:
            out.append(f"gives {len(r.bad_answers)} malformed or non-ground answer(s)")
        return out


@dataclass
class CrossCheck:
    """The outcome of comparing engines (and optionally an expected set)."""

    puzzle: Puzzle
    rules: Rules
    findings: list[Finding]
    #: Validator verdicts for every solution any side gave.
    verdicts: dict[Grid, list[Violation]]

    @property
    def agree(self) -> bool:
        return all(not f.faults for f in self.findings)

    @property
    def count(self) -> int:
        """The number of valid solutions found by any side."""
        return sum(1 for v in self.verdicts.values() if not v)

    @property
    def odd_one_out(self) -> str | None:
        """The one side that answers differently when all the others (at
        least two) answer alike, or None. Which of them is right is still
        the referee's call: the faults say that."""
        answers = [_answer(f.result) for f in self.findings]
        for i, own in enumerate(answers):
            rest = answers[:i] + answers[i + 1 :]
            if len(rest) >= 2 and own != rest[0] and all(a == rest[0] for a in rest):
                return self.findings[i].engine
        return None

    @property
    def disputed(self) -> list[Grid]:
        """Solutions not given by every finished side, or invalid ones."""
        sides = [set(f.result.solutions) for f in self.findings if f.finished]
        return [g for g, v in self.verdicts.items() if v or any(g not in s for s in sides)]


def _answer(result: SolveResult) -> tuple[object, ...]:
    """What a side answered, for telling sides apart: its status and, when
    it finished, its solutions (with repeats) and malformed answers."""
    if result.status is not Status.OK:
        return (result.status,)
    return (result.status, tuple(sorted(result.solutions)), len(result.bad_answers))


def compare(puzzle: Puzzle, rules: Rules, results: list[SolveResult]) -> CrossCheck:
    """Compare every result's solutions with the others', refereed."""
    finished = [set(r.solutions) for r in results if r.status is Status.OK]
    union: set[Grid] = set().union(*finished)
    common = set.intersection(*finished) if finished else set()
    verdicts = {g: validate(puzzle, [list(row) for row in g], rules) for g in sorted(union)}
    findings = []
    for result in results:
        own = set(result.solutions)
        if result.status is Status.OK:
            findings.append(Finding(result, verdicts, sorted(union - own), sorted(own - common)))
        else:
            findings.append(Finding(result, verdicts))
    return CrossCheck(puzzle, rules, findings, verdicts)


def status_text(result: SolveResult, time_limit: float) -> str:
    """One line (plus evidence) on why an engine run did not finish."""
    return failure_words(result.engine, result.status, result.message, time_limit)


def check_all(
    boards: list[Puzzle],
    expectations: list[list[Grid] | None],
    rules: Rules,
    engines: Sequence[Engine],  # closed here, whatever happens
    time_limit: float,
    on_checked: Callable[[int, CrossCheck], None] = lambda _i, _c: None,
    on_solving: Callable[[int, str], None] = lambda _i, _e: None,
) -> list[CrossCheck]:
    """Solve each board with every engine and compare them (and the
    expected solutions, where given); `on_solving` hears which board and
    engine start, `on_checked` sees each outcome."""
    outcomes = []
    try:
        for i, (board, exp) in enumerate(zip(boards, expectations, strict=True)):
            results = []
            for engine in engines:
                on_solving(i, engine.name)
                results.append(engine.solve(board, rules, time_limit))
            if exp is not None:
                results.append(SolveResult("expected", Status.OK, exp))
            outcome = compare(board, rules, results)
            outcomes.append(outcome)
            on_checked(i, outcome)
    finally:
        for e in engines:
            e.close()
    return outcomes
