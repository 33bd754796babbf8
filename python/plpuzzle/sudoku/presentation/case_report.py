"""One test's failure told for a person: the verdict, then what was missing,
extra or given twice, as boards the way the course harness prints them,
each extra one with the rules it breaks.

The pytest plugin shows it for a failed puzzle, and `sudoku test --format
junit` puts it in the failure's text, so a CI page shows the same boards.
"""

from __future__ import annotations

from collections.abc import Callable

from plpuzzle.sudoku.domain.evidence import describe
from plpuzzle.sudoku.domain.model import Grid, Rules
from plpuzzle.sudoku.domain.textformat import FormatError, format_board
from plpuzzle.sudoku.runs.suite import CaseResult, Verdict, load_case

#: How many missing / extra / duplicate solutions a failure report shows as boards.
BOARDS_SHOWN = 3
#: How many lines of an engine's own message (e.g. a load error) a report shows.
MESSAGE_LINES = 15


def case_report(result: CaseResult, *, engine: str, rules: Rules, time_limit: float) -> str:
    """A short report whose first line is the verdict (pytest's `-ra` shows it)."""
    summary = result.summary()
    lines = [f"{result.verdict}: {summary}" if summary else str(result.verdict)]
    primary = result.primary
    if primary is not None:
        lines.append(
            f"solutions: {result.solution_count}, CPU time: {result.cpu_seconds:.3f} s"
            f" ({engine} engine, {rules.value} rules,"
            f" time limit {time_limit:g} s)"
        )
        message = primary.message.strip().splitlines()
        if result.verdict is Verdict.ERROR and len(message) > 1:
            lines.append("engine message:")
            lines += [f"    {line}" for line in message[:MESSAGE_LINES]]
            if len(message) > MESSAGE_LINES:
                lines.append(f"    ... ({len(message) - MESSAGE_LINES} more lines)")
    if result.verdict is not Verdict.WRONG:
        return "\n".join(lines)
    k = result.k or 1
    lines += _boards("missing (expected, not given)", result.missing, k)
    lines += _boards(
        "extra (given, not expected)", result.extra, k, why=_broken_rules(result, rules)
    )
    lines += _boards(
        "given more than once",
        sorted(result.duplicates),
        k,
        notes={g: f"given {c} times" for g, c in result.duplicates.items()},
    )
    if result.bad_answers:
        lines.append(f"malformed or non-ground answers: {len(result.bad_answers)}")
        for bad in result.bad_answers[:BOARDS_SHOWN]:
            lines.append(f"    {bad.text}  ({bad.reason})")
        if len(result.bad_answers) > BOARDS_SHOWN:
            lines.append(f"    ... and {len(result.bad_answers) - BOARDS_SHOWN} more")
    return "\n".join(lines)


def _broken_rules(result: CaseResult, rules: Rules) -> Callable[[Grid], list[str]]:
    """What an extra solution breaks, in the validator's words (no lines if
    the puzzle cannot be read again, or if it breaks nothing)."""
    try:
        puzzle, _ = load_case(result.case)
    except FormatError:
        return lambda grid: []
    return lambda grid: [f"breaks: {v}" for v in describe(puzzle, grid, rules).violations]


def _boards(
    title: str,
    grids: list[Grid],
    k: int,
    notes: dict[Grid, str] | None = None,
    why: Callable[[Grid], list[str]] | None = None,
) -> list[str]:
    """Up to BOARDS_SHOWN grids, printed the way the course harness prints
    them, each followed by what `why` says of it (the rules it breaks)."""
    if not grids:
        return []
    lines = [f"{title}: {len(grids)}"]
    for grid in grids[:BOARDS_SHOWN]:
        note = f" ({notes[grid]})" if notes and grid in notes else ""
        lines.append(f"    -----{note}")
        board = format_board(grid, k).strip("\n").splitlines()
        lines += [f"    {row}" if row else "" for row in board]
        lines += [f"    {line}" for line in (why(grid) if why else [])]
    if len(grids) > BOARDS_SHOWN:
        lines.append(f"    ----- ... and {len(grids) - BOARDS_SHOWN} more")
    return lines
