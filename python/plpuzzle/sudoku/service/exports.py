"""The class's grades as learning-management systems import them.

- Moodle's grade import (Grades > Import > CSV file): a column that
  names the user (the login is the Moodle username, and the address the
  email, when the roster gave one) and one column of points for the
  grade item, named after the course.
- Canvas's gradebook import: its own columns (Student, ID, SIS User ID,
  SIS Login ID, Section; Canvas matches students by the SIS Login ID,
  here the login, or by the SIS User ID when the account has an
  external subject), a "Points Possible" row, and one column for the
  assignment.

The score is the one of `grades.csv` (the counting upload's, with the
course requirements' deductions). Every cell goes through the
spreadsheet guard (`spreadsheet_csv`): a login, an address, a subject or
the course's name that would start a formula is written as text.
"""

from __future__ import annotations

from typing import Any

from plpuzzle.untrusted import spreadsheet_csv


def moodle_csv(report: dict[str, Any], item: str, emails: dict[str, str]) -> str:
    rows: list[list[Any]] = [["username", "email", item]]
    rows += [[s["id"], emails.get(s["id"], ""), s["score"]] for s in report["students"]]
    return spreadsheet_csv(rows)


def canvas_csv(report: dict[str, Any], item: str, subjects: dict[str, str]) -> str:
    rows: list[list[Any]] = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", item],
        ["    Points Possible", "", "", "", "", report["max_score"]],
    ]
    for s in report["students"]:
        rows.append([s["id"], "", subjects.get(s["id"], ""), s["id"], "", s["score"]])
    return spreadsheet_csv(rows)


def class_json(report: dict[str, Any]) -> dict[str, Any]:
    """The class as a script reads it: each student's score and the count
    of each verdict, with the settings it was graded with."""
    students = [
        {"id": s["id"], "score": s["score"], "max_score": s["max_score"],
         "counts": {g: n for g, n in s["counts"].items() if n},
         "submission": s.get("submission", ""), "notes": s.get("notes", [])}
        for s in report["students"]
    ]  # fmt: skip
    return {"max_score": report["max_score"], "settings": report.get("settings"),
            "tests": [t["name"] for t in report["tests"]], "students": students}  # fmt: skip
