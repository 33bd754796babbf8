"""Does one hand-in load? Asked at once, before it waits its turn to be
graded, so that a file with a syntax error is answered in seconds.

The hand-in is read as grading reads it (intake: a lone file, a folder or
an archive, with the same guards) and loaded in the same sandbox, under
the same limits; nothing of it runs outside.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from plpuzzle.sandbox import jail
from plpuzzle.sandbox.program import RunEnd, SandboxedProgram
from plpuzzle.sandbox.workspace import RunFolder
from plpuzzle.sudoku.grading.intake import read_class
from plpuzzle.sudoku.grading.model import GradeSettings, Submission


@dataclass
class LoadCheck:
    """What reading and loading a hand-in told."""

    #: None when intake found nothing to grade (see `notes`).
    submission: Submission | None
    #: True: it loaded; False: it did not; None: there was nothing to
    #: load, or loading outlasted the check's budget (grading will tell).
    loaded: bool | None
    #: What Prolog printed while loading (file:line:col first), or why not.
    messages: list[str] = field(default_factory=list)
    #: What intake noted (a misnamed file, files left out...).
    notes: list[str] = field(default_factory=list)


def check_load(
    folder: Path, settings: GradeSettings, hidden: list[Path] | None, budget: float | None = None
) -> LoadCheck:
    """Read the one entry of `folder` and load it in a sandbox, giving
    loading at most `budget` seconds (of CPU time and of wall time) when
    that is less than grading gives it: a check must not hold its slot
    for long, and a load cut short by it is "not known" (None), not a
    failure, since grading loads it again with the full limits."""
    intake = read_class(folder)
    if not intake.submissions:
        notes = [u.note for u in intake.ungradable] + intake.skipped
        return LoadCheck(None, None, [], notes or ["nothing to grade was found"])
    sub = intake.submissions[0]
    limits = settings.limits()
    cpu, wall = limits.loading
    short = budget is not None and budget < max(cpu, wall)
    if short:
        assert budget is not None
        limits = replace(limits, load_cpu_seconds=min(cpu, budget),
                         load_wall_seconds=min(wall, budget))  # fmt: skip
    with RunFolder() as run, jail.claim_slot() as slot:
        program = SandboxedProgram(
            run, sub.files, sub.files.main, "sudoku/2", settings.dialect, limits, slot, hidden,
        )  # fmt: skip
        try:
            report = program.load()
        finally:
            program.close()
    messages = [sub.as_named(m) for m in report.messages]
    if short and report.observation.end in (RunEnd.CPU_LIMIT, RunEnd.WALL_LIMIT):
        messages.append(
            f"loading took more than the {budget:g} s this first check gives it; grading "
            f"loads it again with the full limits ({cpu:g} s of CPU time)"
        )
        return LoadCheck(sub, None, messages, sub.notes())
    if not report.loaded and report.reason and report.reason not in report.messages:
        messages.append(_consequence(sub.as_named(report.reason), messages))
    return LoadCheck(sub, report.loaded, messages, sub.notes())


def _consequence(reason: str, messages: list[str]) -> str:
    """The loader's reason, said as what follows from the errors above it:
    after a syntax error, "the file does not define sudoku/2" is no second
    fault but the first one's effect."""
    missing = "the file does not define "
    if reason.startswith(missing) and any("error" in m.lower() for m in messages):
        return (f"so {reason.removeprefix(missing)} is not defined: the clauses with the "
                "errors above were not loaded")  # fmt: skip
    return reason
