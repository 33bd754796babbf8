"""A third opinion: the sudoku as a CP-SAT model (Google OR-tools).

The Python and Prolog engines now prune in the same ways, so a wrong
pruning rule could make both miss the same solutions. This model is
written from the rules alone (README "The puzzle") and leaves every bit of
search to CP-SAT, so it shares no reasoning with them. It enumerates every
solution with one worker, which keeps the count exact and the CPU time
comparable with our single-threaded engines.
"""

from __future__ import annotations

from typing import Any

from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules, box_cells


def build_model(puzzle: Puzzle, rules: Rules) -> tuple[Any, list[list[Any]]]:
    """The CP-SAT model of `puzzle` under `rules`, and its N x N cell vars.

    ortools is imported here, not at module level, so that importing the
    engines never costs its load time unless CP-SAT is asked for.
    """
    from ortools.sat.python import cp_model

    n, k = puzzle.n, puzzle.k
    model = cp_model.CpModel()
    cells = [[model.new_int_var(1, n, f"x{r}_{c}") for c in range(n)] for r in range(n)]
    for i in range(n):
        model.add_all_different(cells[i])
        model.add_all_different([cells[r][i] for r in range(n)])
        model.add_all_different([cells[r][c] for r, c in box_cells(i, k)])

    parities: dict[tuple[int, int], Any] = {}

    def parity(r: int, c: int) -> Any:
        """A 0/1 var with cell = 2*half + parity, made once per cell."""
        if (r, c) not in parities:
            half = model.new_int_var(0, n // 2, f"h{r}_{c}")
            bit = model.new_bool_var(f"p{r}_{c}")
            model.add(cells[r][c] == 2 * half + bit)
            parities[r, c] = bit
        return parities[r, c]

    for r, row in enumerate(puzzle.fields):
        for c, field in enumerate(row):
            for info in field.infos:
                if isinstance(info, int):
                    # A value outside 1..N makes the puzzle unsolvable.
                    model.add(cells[r][c] == info)
                elif info == "o":
                    model.add(parity(r, c) == 1)
                elif info == "e":
                    model.add(parity(r, c) == 0)
    for (r1, c1), (r2, c2), _ in puzzle.neighbour_pairs():
        a, b = cells[r1][c1], cells[r2][c2]
        if rules is Rules.CONSECUTIVE:
            model.add_abs_equality(1, a - b)
        else:
            model.add(parity(r1, c1) + parity(r2, c2) == 1)
    return model, cells


def solve_all(puzzle: Puzzle, rules: Rules, max_seconds: float | None = None) -> list[Grid] | None:
    """Every solution, or None when CP-SAT stopped before it had them all
    (its own `max_seconds` limit, a backstop to the worker's kill)."""
    from ortools.sat.python import cp_model

    model, cells = build_model(puzzle, rules)
    flat = [v for row in cells for v in row]
    n = puzzle.n
    found: list[Grid] = []

    class Collector(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            values = [self.value(v) for v in flat]
            found.append(tuple(tuple(values[i * n : (i + 1) * n]) for i in range(n)))

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    if max_seconds is not None:
        solver.parameters.max_time_in_seconds = max_seconds
    status = solver.solve(model, Collector())
    # A satisfaction model searched to the end is OPTIMAL (some solutions)
    # or INFEASIBLE (none); anything else means the search was cut short.
    if status in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        return found
    if status == cp_model.MODEL_INVALID:
        raise ValueError(f"CP-SAT rejected the model: {model.validate()}")
    return None
