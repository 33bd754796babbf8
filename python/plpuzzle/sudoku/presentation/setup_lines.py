"""How a run's setup is told: its first line, and why its solver cannot
run (the decisions are runs.run_setup's)."""

from __future__ import annotations

from plpuzzle.runtime import LoadReport, Status
from plpuzzle.sudoku.runs.run_setup import RulesChoice, SolverChoice


def run_line(solver: SolverChoice | None, rules: RulesChoice, engines: list[str]) -> str:
    """The first line of a run: which solver, in which dialect, which rules.

    `solver` None (or no prolog among `engines`) names the engines instead.
    """
    parts = []
    if solver is not None and "prolog" in engines:
        parts.append(f"solver: {solver.shown} ({solver.dialect})")
    if engines != ["prolog"]:
        parts.append(f"engine{'s' if len(engines) > 1 else ''}: {', '.join(engines)}")
    where = f" (from {rules.source})" if rules.source else ""
    parts.append(f"rules: {rules.rules.value}{where}")
    return ", ".join(parts)


def load_failure(report: LoadReport, solver: SolverChoice, time_limit: float) -> list[str]:
    """Why the solver cannot run: each error at its place, then what that
    means, ending in "nothing was run"; [] when it loaded cleanly."""
    if report.clean:
        return []
    # Imported here: the similarity package loads grading (0.2 s), which a
    # command that loads a solver cleanly never needs.
    from plpuzzle.sudoku.grading.similarity.tokens import with_clause_start

    lines = [with_clause_start(solver.name_in(str(p)), solver.text_of) for p in report.errors]
    if report.status is Status.LOAD_ERROR:
        last = solver.name_in(report.message)
    elif report.status is Status.TIMEOUT:
        last = f"{solver.shown}: did not finish loading within {time_limit:g} s"
    elif report.status is not Status.OK:
        first = report.message.strip().splitlines()[:1] or [report.status.value]
        last = f"{solver.shown}: loading it failed: {solver.name_in(first[0])}"
    else:
        count = len(report.errors)
        last = f"{solver.shown} does not load cleanly ({count} error{'s' * (count > 1)})"
    return [*lines, f"{last}; nothing was run"]


def load_warnings(report: LoadReport, solver: SolverChoice) -> list[str]:
    """The warnings loading raised (singleton variables and the like)."""
    return [solver.name_in(str(p)) for p in report.warnings]
