"""The gradebook: grading results kept in an SQLite file.

A result is keyed by the submission's content digest, the test's name and
content digest, and the settings digest. Each result is committed as soon
as it is known, so a grading that is killed loses at most the tests that
were running; the next run finds the rest and skips it. A submission whose
content changed has a new digest and is graded again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from plpuzzle.sudoku.grading import Grade, Submission, TestGrade

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    submission_digest TEXT NOT NULL,
    test TEXT NOT NULL,
    test_digest TEXT NOT NULL,
    settings_digest TEXT NOT NULL,
    student TEXT NOT NULL,
    grade TEXT NOT NULL,
    detail TEXT NOT NULL,
    evidence TEXT NOT NULL,
    solutions INTEGER NOT NULL,
    cpu_seconds REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    PRIMARY KEY (submission_digest, test, test_digest, settings_digest)
);
"""


class Gradebook:
    """An open gradebook file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(
        self, submission: Submission, test: str, test_digest: str, settings_digest: str
    ) -> TestGrade | None:
        """The stored grade for this exact submission, test and settings."""
        row = self._db.execute(
            "SELECT grade, detail, evidence, solutions, cpu_seconds, wall_seconds FROM results "
            "WHERE submission_digest=? AND test=? AND test_digest=? AND settings_digest=?",
            (submission.digest, test, test_digest, settings_digest),
        ).fetchone()
        if row is None:
            return None
        grade, detail, evidence, solutions, cpu, wall = row
        return TestGrade(submission.student, test, Grade(grade), detail, evidence, solutions,
                         cpu, wall)  # fmt: skip

    def put(
        self, submission: Submission, test_digest: str, settings_digest: str, grade: TestGrade
    ) -> None:
        """Store a grade and commit at once."""
        self._db.execute(
            "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                submission.digest,
                grade.test,
                test_digest,
                settings_digest,
                submission.student,
                grade.grade.value,
                grade.detail,
                grade.evidence,
                grade.solutions,
                grade.cpu_seconds,
                grade.wall_seconds,
            ),
        )
        self._db.commit()

    def count(self) -> int:
        """How many results the file holds (for tests and summaries)."""
        return self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
