"""A class compared the way `grade` reads it, and its report files."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from plpuzzle.sudoku.grading.intake import Ungradable, read_class
from plpuzzle.sudoku.grading.model import GradingError, Submission
from plpuzzle.sudoku.grading.similarity import html, report
from plpuzzle.sudoku.grading.similarity.compare import Settings, Similarity, compare
from plpuzzle.sudoku.grading.similarity.source import HandIn, files_hand_in, from_file, hand_in
from plpuzzle.untrusted import json_for_pages

#: The note of a hand-in compared but not graded (no sudoku.pl).
NO_SOLVER_NOTE = "no sudoku.pl, so it cannot be graded: every .pl file compared"

#: The report files, in the --out folder.
CSV_NAME, JSON_NAME, HTML_NAME = "similarity.csv", "similarity.json", "similarity.html"


def read_base(paths: Sequence[Path]) -> list[HandIn]:
    """The --base files; GradingError (the user's) if one cannot be read."""
    out = []
    for path in paths:
        if not path.is_file():
            raise GradingError(f"--base {path}: no such file")
        try:
            out.append(from_file(path))
        except OSError as e:
            raise GradingError(f"--base {path}: cannot read: {e.strerror}") from None
    return out


def compare_submissions(
    submissions: Sequence[Submission],
    base: Sequence[Path] = (),
    settings: Settings | None = None,
    jobs: int = 1,
    more: Sequence[HandIn] = (),
) -> Similarity:
    """The graded submissions compared (their .pl files), and the hand-ins
    `more` that cannot be graded but have files, `base` left out."""
    templates = read_base(base)
    settings = settings or Settings()
    settings = replace(settings, base=tuple(b.student for b in templates))
    handins = [hand_in(s) for s in submissions] + list(more)
    return compare(sorted(handins, key=lambda h: h.student), templates, settings, jobs)


def ungraded_hand_ins(ungradable: Sequence[Ungradable]) -> list[HandIn]:
    """The entries that cannot be graded but hold Prolog files (several,
    no sudoku.pl), as hand-ins to compare, each with a note."""
    return [
        files_hand_in(u.student, u.files, notes=[NO_SOLVER_NOTE])
        for u in ungradable
        if u.files is not None and u.files.files
    ]


def compare_class(
    folder: Path, base: Sequence[Path] = (), settings: Settings | None = None, jobs: int = 1
) -> tuple[Similarity, list[str]]:
    """A submissions folder compared, read as `grade` reads it (folders,
    bare files, archives), and the entries that have nothing to compare,
    with why. A hand-in of several .pl files and no sudoku.pl cannot be
    graded, but every .pl file of it is compared (with a note): copying
    is no less copying for a misnamed file. GradingError for an unusable
    folder."""
    intake = read_class(folder, jobs)
    more = ungraded_hand_ins(intake.ungradable)
    compared = {h.student for h in more}
    left_out = [f"{u.student}: {u.note}" for u in intake.ungradable if u.student not in compared]
    left_out += intake.skipped
    return compare_submissions(intake.submissions, base, settings, jobs, more), left_out


def write_reports(sim: Similarity, folder: Path) -> list[Path]:
    """similarity.csv (every pair that shares anything), similarity.json
    (the summary) and similarity.html (the section on a page of its own)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / CSV_NAME, folder / JSON_NAME, folder / HTML_NAME]
    paths[0].write_text(report.to_csv(sim), encoding="utf-8")
    paths[1].write_text(json_for_pages(report.summary(sim)) + "\n", encoding="utf-8")
    paths[2].write_text(html.page(sim), encoding="utf-8")
    return paths
