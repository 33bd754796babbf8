"""`plpuzzle sudoku requirements`: what a class's hand-ins show of the
course's requirements (clpfd, head comments, layout, documentation)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from plpuzzle.clitools import (
    InputError,
    SetupError,
    format_option,
    jobs_option,
    note,
    output_option,
    quiet,
    write_output,
)
from plpuzzle.sudoku import api
from plpuzzle.sudoku.grading.model import GradingError
from plpuzzle.sudoku.grading.requirements import ClassRequirements, lines
from plpuzzle.sudoku.grading.requirements.clpfd import STATUSES
from plpuzzle.sudoku.grading.similarity import ReaderUnavailable
from plpuzzle.sudoku.presentation.commands.common import SUITE_PATH, dialect_option_for
from plpuzzle.sudoku.runs.suite import SuiteError
from plpuzzle.untrusted import json_for_pages, printable

#: The table's columns: header, and the cell of a student's JSON.
_COLUMNS = ("student", "clpfd", "head comments", "long lines", "tabs", "documentation")


def _row(student: dict[str, Any]) -> list[str]:
    c, h, lay, d = (student[k] for k in ("clpfd", "head_comments", "layout", "documentation"))
    comments = "-" if not h else f"{h['with_comment']}/{h['predicates']}"
    return [
        printable(student["id"]),
        c["status"] if c else "-",
        comments,
        str(lay["long_lines"]) if lay else "-",
        str(lay["tab_lines"]) if lay else "-",
        ("yes" if d["present"] else "no") if d else "-",
    ]


def as_text(found: ClassRequirements, details: bool = True) -> str:
    """The table, one row per student, then each student's findings in words."""
    data = found.to_json()
    students = data["students"]
    rows = [list(_COLUMNS), *(_row(s) for s in students)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_COLUMNS))]
    statuses = [s["clpfd"]["status"] for s in students if s["clpfd"]]
    tally = ", ".join(f"{k} {statuses.count(k)}" for k in STATUSES if k in statuses)
    head = f"Course requirements of {len(students)} hand-in(s)"
    out = [f"{head}: clpfd {tally}" if tally else head]
    for r in rows:
        out.append("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    for s in students if details else []:
        out += ["", printable(s["id"])]
        out += [f"  {name}: {printable(words)}" for name, words in lines(s)]
    return "\n".join(out) + "\n"


#: Students named in `grade`'s summary line per finding.
NAMED = 5


def summary_lines(report: dict[str, Any]) -> list[str]:
    """A line or two for `grade`'s summary: the clpfd findings, the
    students whose program reaches no constraint, documentation files."""
    checked = [s for s in report["students"] if s.get("requirements")]
    if not checked:
        return []
    by_status: dict[str, list[str]] = {}
    for s in checked:
        if s["requirements"]["clpfd"]:
            by_status.setdefault(s["requirements"]["clpfd"]["status"], []).append(s["id"])
    parts = []
    if by_status:
        found = [f"{k} {len(by_status[k])}" for k in STATUSES if k in by_status]
        parts.append(f"clpfd {', '.join(found)}")
    docs = [s for s in checked if s["requirements"]["documentation"]]
    if docs:
        present = sum(1 for s in docs if s["requirements"]["documentation"]["present"])
        parts.append(f"a documentation file in {present} of {len(docs)}")
    lines = [f"Course requirements: {'; '.join(parts) or 'checked'} (in grades.html, the CSVs "
             "and the feedback)"]  # fmt: skip
    for status in ("no", "not defined", "unknown"):
        names = by_status.get(status, [])
        if names:
            more = f" and {len(names) - NAMED} more" if len(names) > NAMED else ""
            named = ", ".join(printable(n) for n in names[:NAMED])
            lines.append(f"  clpfd {status}: {named}{more}")
    return lines


@click.command()
@click.argument("submissions", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--suite",
    type=SUITE_PATH,
    metavar="DIR",
    help="A suite whose suite.toml [requirements] table says which checks count and how "
    "(the line length, points taken off). Default: every check shown, none charged.",
)
@dialect_option_for(
    "Read the hand-ins as SICStus 4 code (as grade loads them) or as plain SWI-Prolog."
)
@jobs_option("reader processes at once")
@output_option("Write the report to FILE instead of stdout ('-': stdout).")
@format_option(("text", "json"), "text: a table, then each student's findings; json: all of it.")
def requirements(
    submissions: Path,
    suite: Path | None,
    dialect: str,
    jobs: int,
    output: Path | None,
    fmt: str,
) -> None:
    """Report what each hand-in shows of the course's requirements.

    SUBMISSIONS is read as `grade` reads it: one entry per student (a
    folder, an ID.pl file or an archive). Nothing is loaded or run: every
    .pl file is read by SWI-Prolog's reader in a confined process, and the
    clauses are checked for: clpfd constraints reached from sudoku/2 by
    its call graph ("yes", "no", "not defined" where no clause that loads
    defines sudoku/2, or "unknown" where goals built at run time, such as
    call/N of a variable or =.., cannot be followed); a
    comment right above each predicate's first clause; lines over 72
    characters, tabs and very long clauses; a documentation file (HTML,
    PDF, text) in the hand-in. The report states what was found; the
    teacher judges it. `grade` shows the same in grades.html, the CSVs
    and each student's feedback. Exit code 0 when the report was made
    (whatever it found), 2 for bad input (the folder, the suite.toml),
    3 when SWI-Prolog cannot run here, 130 when interrupted.
    """
    try:
        if not submissions.is_dir():
            raise GradingError(f"{submissions}: no such folder")
        note(f"reading the hand-ins of {submissions}")
        found = api.requirements(submissions, suite=suite, dialect=dialect, jobs=jobs)  # type: ignore[arg-type]
    except (GradingError, SuiteError) as e:
        raise InputError(str(e)) from None
    except ReaderUnavailable as e:
        raise SetupError(str(e)) from None
    if fmt == "json":
        write_output(output, json_for_pages(found.to_json(), indent=2, ensure_ascii=True) + "\n")
        return
    write_output(output, as_text(found, details=not quiet()))
    for line in found.not_checked:
        note(f"not checked: {printable(line)}")
