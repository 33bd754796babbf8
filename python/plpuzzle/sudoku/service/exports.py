"""The class's grades as learning-management systems import them.

- Moodle's grade import (Grades > Import > CSV file): a column that
  names the user (the login is the Moodle username, and the address the
  email, when the roster gave one) and one column of points for the
  grade item, named after the course.
- Canvas's gradebook import: its own columns (Student: the roster's
  name; ID, SIS User ID, SIS Login ID, Section; Canvas matches students
  by the SIS Login ID, here the login, or by the SIS User ID when the
  account has an external subject), a "Points Possible" row, and one
  column for the assignment.

The score is the one of `grades.csv`: the student's grade (grades.py),
blank for a student with no upload or one still grading; until the
release, on the public tests only. Both files start with a byte order
mark (routes_teacher.FOR_EXCEL), so that Excel reads them as UTF-8.
Every cell goes through the spreadsheet guard (`spreadsheet_csv`): a login, an address, a subject or
the course's name that would start a formula is written as text.
"""

from __future__ import annotations

from typing import Any

from plpuzzle.sudoku.grading.report import score_cell
from plpuzzle.untrusted import spreadsheet_csv


def moodle_csv(report: dict[str, Any], item: str, emails: dict[str, str]) -> str:
    rows: list[list[Any]] = [["username", "email", item]]
    rows += [[s["id"], emails.get(s["id"], ""), score_cell(s)] for s in report["students"]]
    return spreadsheet_csv(rows)


def canvas_csv(report: dict[str, Any], item: str, subjects: dict[str, str],
               names: dict[str, str]) -> str:  # fmt: skip
    """Canvas's columns: the student's name from the roster (the login
    where it gives none); ID, Canvas's own number of the student, which
    only Canvas knows, is left for Canvas to match by the SIS Login ID."""
    rows: list[list[Any]] = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", item],
        ["    Points Possible", "", "", "", "", report["max_score"]],
    ]
    for s in report["students"]:
        name = names.get(s["id"]) or s["id"]
        rows.append([name, "", subjects.get(s["id"], ""), s["id"], "", score_cell(s)])
    return spreadsheet_csv(rows)


def class_json(report: dict[str, Any]) -> dict[str, Any]:
    """The class as a script reads it: each student's score (null: no
    grade yet) and the count of each verdict, with the settings it was
    graded with; `released` false: the public tests only, provisional."""
    students = [
        {"id": s["id"], "score": score_cell(s) if s.get("graded", True) else None,
         "max_score": s["max_score"],
         "deduction": (s.get("requirements") or {}).get("deduction", 0),
         "counts": {g: n for g, n in s["counts"].items() if n},
         "submission": s.get("submission", ""), "notes": s.get("notes", [])}
        for s in report["students"]
    ]  # fmt: skip
    return {"released": report.get("released", True), "max_score": report["max_score"],
            "settings": report.get("settings"),
            "tests": [t["name"] for t in report["tests"]], "students": students}  # fmt: skip
