"""A class compared the way `grade` reads it, and its report files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from plpuzzle.sudoku.grading.intake import read_class
from plpuzzle.sudoku.grading.model import GradingError, Submission
from plpuzzle.sudoku.grading.similarity import html, report
from plpuzzle.sudoku.grading.similarity.compare import Settings, Similarity, compare
from plpuzzle.sudoku.grading.similarity.source import HandIn, from_file, hand_in
from plpuzzle.untrusted import json_for_pages

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
) -> Similarity:
    """The graded submissions compared (their .pl files), `base` left out."""
    templates = read_base(base)
    settings = settings or Settings()
    settings = Settings(
        settings.dialect, settings.threshold, settings.min_shared, settings.k,
        settings.window, tuple(b.student for b in templates),
    )  # fmt: skip
    ordered = sorted(submissions, key=lambda s: s.student)
    return compare([hand_in(s) for s in ordered], templates, settings, jobs)


def compare_class(
    folder: Path, base: Sequence[Path] = (), settings: Settings | None = None, jobs: int = 1
) -> tuple[Similarity, list[str]]:
    """A submissions folder compared, read as `grade` reads it (folders,
    bare files, archives), and the entries that have nothing to compare,
    with why. GradingError for an unusable folder."""
    intake = read_class(folder, jobs)
    left_out = [f"{u.student}: {u.note}" for u in intake.ungradable] + intake.skipped
    return compare_submissions(intake.submissions, base, settings, jobs), left_out


def write_reports(sim: Similarity, folder: Path) -> list[Path]:
    """similarity.csv (every pair that shares anything), similarity.json
    (the summary) and similarity.html (the section on a page of its own)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / CSV_NAME, folder / JSON_NAME, folder / HTML_NAME]
    paths[0].write_text(report.to_csv(sim), encoding="utf-8")
    paths[1].write_text(json_for_pages(report.summary(sim)) + "\n", encoding="utf-8")
    paths[2].write_text(html.page(sim), encoding="utf-8")
    return paths
