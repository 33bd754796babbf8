"""Does one hand-in load? Asked at once, before it waits its turn to be
graded, so that a file with a syntax error is answered in seconds.

The hand-in is read as grading reads it (intake: a lone file, a folder or
an archive, with the same guards) and loaded in the same sandbox, under
the same limits; nothing of it runs outside.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from plpuzzle.sandbox import jail
from plpuzzle.sandbox.program import SandboxedProgram
from plpuzzle.sandbox.workspace import RunFolder
from plpuzzle.sudoku.grading.intake import read_class
from plpuzzle.sudoku.grading.model import GradeSettings, Submission


@dataclass
class LoadCheck:
    """What reading and loading a hand-in told."""

    #: None when intake found nothing to grade (see `notes`).
    submission: Submission | None
    #: True: it loaded; False: it did not; None: there was nothing to load.
    loaded: bool | None
    #: What Prolog printed while loading (file:line:col first), or why not.
    messages: list[str] = field(default_factory=list)
    #: What intake noted (a misnamed file, files left out...).
    notes: list[str] = field(default_factory=list)


def check_load(folder: Path, settings: GradeSettings, hidden: list[Path] | None) -> LoadCheck:
    """Read the one entry of `folder` and load it in a sandbox."""
    intake = read_class(folder)
    if not intake.submissions:
        notes = [u.note for u in intake.ungradable] + intake.skipped
        return LoadCheck(None, None, [], notes or ["nothing to grade was found"])
    sub = intake.submissions[0]
    with RunFolder() as run, jail.claim_slot() as slot:
        program = SandboxedProgram(
            run, sub.files, sub.files.main, "sudoku/2", settings.dialect, settings.limits(),
            slot, hidden,
        )  # fmt: skip
        try:
            report = program.load()
        finally:
            program.close()
    messages = [sub.as_named(m) for m in report.messages]
    if not report.loaded and report.reason and report.reason not in report.messages:
        messages.append(sub.as_named(report.reason))
    return LoadCheck(sub, report.loaded, messages, sub.notes())
