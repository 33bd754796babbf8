"""The gradebook: grading results kept in an SQLite file.

A result is keyed by the submission's content digest, the test's name and
content digest, the settings digest and the student: each student has
rows of their own, also when two students handed in the same files. Such
twins may share a run (`get_twin` finds a twin's result to copy), but
forgetting one student (`forget`) never touches another's rows. Each
result is committed as soon as it is known, so a grading that is killed
loses at most the tests that were running; the next run finds the rest
and skips it. A submission whose content changed has a new digest and is
graded again. Where each run ran (this machine or a Dask worker) is kept
beside its result, in its own table.

What a row holds is bounded here too, whatever the caller passes: a
detail, an evidence text and load messages are cut to a budget each.

Several graders may share one gradebook: before grading a run, a grader
claims its key for a lease (`Gradebook.claim`), so no other grader takes
the same run unless the lease expires first (the grader died). Leases are
compared against each machine's clock, so they must be long next to any
clock skew between machines. The file is kept in WAL mode, which SQLite
supports only for processes on one host.

A file that is not a gradebook of ours (damaged, truncated, empty, some
other database, or written by a newer plpuzzle) is refused with a
GradebookError whose one-line message names the file and what to do,
rather than being silently overwritten or regraded.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from plpuzzle.untrusted import clip

if TYPE_CHECKING:
    from plpuzzle.sudoku.grading.model import Submission, TestGrade

#: The format this code writes. A gradebook without a format (written
#: before there was one) counts as 0 and is upgraded when opened.
#: 2: the loads table; 3: the placements table (where runs ran); 4: the
#: student in the key of results and placements (a row per student).
FORMAT_VERSION = 4

#: Bytes of a stored detail, evidence and load messages, at most.
DETAIL_BYTES = 2_000
EVIDENCE_BYTES = 64_000
MESSAGES_BYTES = 8_000

#: How long a connection waits for another grader's write to finish.
BUSY_TIMEOUT_SECONDS = 30.0

_KEY = ("submission_digest", "test", "test_digest", "settings_digest")

_TABLES = {
    "results": """
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
    PRIMARY KEY (submission_digest, test, test_digest, settings_digest, student)
)""",
    "claims": """
CREATE TABLE IF NOT EXISTS claims (
    submission_digest TEXT NOT NULL,
    test TEXT NOT NULL,
    test_digest TEXT NOT NULL,
    settings_digest TEXT NOT NULL,
    owner TEXT NOT NULL,
    claimed REAL NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (submission_digest, test, test_digest, settings_digest)
)""",
    "loads": """
CREATE TABLE IF NOT EXISTS loads (
    submission_digest TEXT NOT NULL,
    settings_digest TEXT NOT NULL,
    messages TEXT NOT NULL,
    PRIMARY KEY (submission_digest, settings_digest)
)""",
    # Where a result's run ran (TestGrade.ran_on), for the results whose
    # place is known: a results row without one was stored by an older
    # plpuzzle, or never ran.
    "placements": """
CREATE TABLE IF NOT EXISTS placements (
    submission_digest TEXT NOT NULL,
    test TEXT NOT NULL,
    test_digest TEXT NOT NULL,
    settings_digest TEXT NOT NULL,
    ran_on TEXT NOT NULL,
    student TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (submission_digest, test, test_digest, settings_digest, student)
)""",
    "meta": """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
)""",
}

_RESULT_COLUMNS = ("grade", "detail", "evidence", "solutions", "cpu_seconds", "wall_seconds")

#: Column name -> position in the primary key (0: not in it), per table.
_COLUMNS: dict[str, dict[str, int]] = {
    "results": {
        **{c: i + 1 for i, c in enumerate(_KEY)},
        "student": 5,
        **dict.fromkeys(_RESULT_COLUMNS, 0),
    },
    "claims": {
        **{c: i + 1 for i, c in enumerate(_KEY)},
        **dict.fromkeys(("owner", "claimed", "expires"), 0),
    },
    "loads": {"submission_digest": 1, "settings_digest": 2, "messages": 0},
    "placements": {**{c: i + 1 for i, c in enumerate(_KEY)}, "ran_on": 0, "student": 5},
    "meta": {"key": 1, "value": 0},
}

#: The same tables before format 4, which are rebuilt when opened.
_BEFORE_4: dict[str, dict[str, int]] = {
    "results": {**_COLUMNS["results"], "student": 0},
    "placements": {**{c: i + 1 for i, c in enumerate(_KEY)}, "ran_on": 0},
}

_WHERE_KEY = " AND ".join(f"{c}=?" for c in _KEY)
_STUDENT_KEY = (*_KEY, "student")
_WHERE_STUDENT_KEY = " AND ".join(f"{c}=?" for c in _STUDENT_KEY)

#: A result and its place ("" when none is stored), by key and student.
_GET = (
    f"SELECT {', '.join(_RESULT_COLUMNS)}, COALESCE(placements.ran_on, '') FROM results "
    f"LEFT JOIN placements USING ({', '.join(_STUDENT_KEY)}) "
    "WHERE " + " AND ".join(f"results.{c}=?" for c in _STUDENT_KEY)
)

#: Another student's result under the same key (a twin's), the first by name.
_GET_TWIN = (
    f"SELECT {', '.join(_RESULT_COLUMNS)}, COALESCE(placements.ran_on, '') FROM results "
    f"LEFT JOIN placements USING ({', '.join(_STUDENT_KEY)}) "
    "WHERE " + " AND ".join(f"results.{c}=?" for c in _KEY) + " AND results.student<>? "
    "ORDER BY results.student LIMIT 1"
)

_AFRESH = "move it away or delete it to grade afresh"


class GradebookError(Exception):
    """A gradebook we cannot use; the message is one line naming the file."""


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


class Gradebook:
    """An open gradebook file, safe to share between threads and processes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                _create(path)
            if path.is_dir():
                raise self._error("a folder, not a gradebook: name a file instead")
            # sqlite would take an empty file for a new database and regrade
            # everything; ours are never empty on disk (see _create).
            if path.stat().st_size == 0:
                raise self._not_ours("the file is empty")
        except OSError as e:
            raise self._error(f"cannot create or read the gradebook ({e.strerror or e})") from e
        try:
            self._db = sqlite3.connect(
                path, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False, isolation_level=None
            )
        except sqlite3.Error as e:
            raise self._error(f"cannot open the gradebook ({_one_line(e)})") from e
        try:
            self._open()
        except sqlite3.DatabaseError as e:
            self._db.close()
            kind = getattr(e, "sqlite_errorname", "")
            if kind == "SQLITE_NOTADB":
                raise self._not_ours(str(e)) from e
            if kind.startswith("SQLITE_CORRUPT"):
                raise self._error(f"damaged gradebook ({_one_line(e)}): {_AFRESH}") from e
            raise self._error(f"cannot open the gradebook ({_one_line(e)})") from e
        except BaseException:
            self._db.close()
            raise

    def _open(self) -> None:
        """Check that the file is a sound gradebook we can read, then
        bring an older one up to the current format."""
        rows = self._db.execute("PRAGMA quick_check").fetchall()
        if rows != [("ok",)]:
            # One problem a line, after a "*** in database main ***" line.
            lines = [ln for r in rows for ln in str(r[0]).splitlines() if not ln.startswith("***")]
            first = _one_line(lines[0]) if lines else "quick_check failed"
            more = f", and {len(lines) - 1} more problem(s)" if len(lines) > 1 else ""
            raise self._error(f"damaged gradebook ({first}{more}): {_AFRESH}")
        if self._check_schema() < FORMAT_VERSION:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("BEGIN IMMEDIATE")
            try:
                # Again under the write lock: another grader may have
                # upgraded it meanwhile, possibly to a newer format.
                if (version := self._check_schema()) < FORMAT_VERSION:
                    if version < 4:
                        self._key_by_student()
                    for create in _TABLES.values():
                        self._db.execute(create)
                    self._db.execute(
                        "INSERT OR REPLACE INTO meta VALUES ('format', ?)", (str(FORMAT_VERSION),)
                    )
                self._db.execute("COMMIT")
            finally:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")

    def _check_schema(self) -> int:
        """The gradebook's format version; raises if the tables are not ours."""
        names = [
            r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        if "results" not in names:
            what = f"its tables are {', '.join(sorted(names))}" if names else "it has no tables"
            raise self._not_ours(f"{what}, not those of a gradebook")
        version = 0
        if "meta" in names:
            row = self._db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            try:
                version = int(row[0])
            except (TypeError, ValueError):
                raise self._not_ours("no valid format version in table meta") from None
        if version > FORMAT_VERSION:
            raise self._error(
                f"written by a newer plpuzzle (gradebook format {version}, this plpuzzle "
                f"reads up to {FORMAT_VERSION}): upgrade plpuzzle, or use another gradebook"
            )
        for table in set(names) & _COLUMNS.keys():
            info = self._db.execute(f"PRAGMA table_info({table})").fetchall()
            columns = {r[1]: r[5] for r in info}
            if columns != _COLUMNS[table] and (version >= 4 or columns != _BEFORE_4.get(table)):
                cols = ", ".join(r[1] for r in info)
                raise self._not_ours(f"table {table} has the wrong columns: {cols}")
        return version

    def _key_by_student(self) -> None:
        """Rebuild the results and placements of a gradebook before format 4
        with the student in their key (inside the upgrade's transaction)."""
        db = self._db
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        key = ", ".join(_KEY)
        db.execute("ALTER TABLE results RENAME TO results_before_4")
        db.execute(_TABLES["results"])
        db.execute("INSERT INTO results SELECT * FROM results_before_4")
        if "placements" in names:
            db.execute("ALTER TABLE placements RENAME TO placements_before_4")
            db.execute(_TABLES["placements"])
            db.execute(
                f"INSERT INTO placements ({key}, ran_on, student) "
                f"SELECT p.{key.replace(', ', ', p.')}, p.ran_on, r.student "
                f"FROM placements_before_4 p JOIN results_before_4 r USING ({key})"
            )
            db.execute("DROP TABLE placements_before_4")
        db.execute("DROP TABLE results_before_4")

    def _error(self, what: str) -> GradebookError:
        return GradebookError(f"{self.path}: {what}")

    def _not_ours(self, why: str) -> GradebookError:
        return self._error(f"not a plpuzzle gradebook ({_one_line(why)}): {_AFRESH}")

    @contextlib.contextmanager
    def _using(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """The connection, for one thread at a time; with write, inside a
        transaction that holds the file's write lock from the start, so
        what it reads cannot change before it writes. SQLite errors come
        out as GradebookError."""
        with self._lock:
            try:
                if write:
                    self._db.execute("BEGIN IMMEDIATE")
                yield self._db
                if write:
                    self._db.execute("COMMIT")
            except sqlite3.ProgrammingError:
                raise  # our bug (such as use after close), not the file's
            except sqlite3.DatabaseError as e:
                why = _one_line(e)
                if "locked" in why or "busy" in why:
                    hint = "another grader kept it busy too long; try again"
                else:
                    hint = f"if it is damaged, {_AFRESH}"
                raise self._error(f"gradebook failed ({why}): {hint}") from e
            finally:
                if self._db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(
        self, submission: Submission, test: str, test_digest: str, settings_digest: str
    ) -> TestGrade | None:
        """The stored grade of this student for this exact submission, test
        and settings; its ran_on is "" when the place is not known (stored
        by an older plpuzzle)."""
        key = (submission.digest, test, test_digest, settings_digest, submission.student)
        with self._using() as db:
            row = db.execute(_GET, key).fetchone()
        return None if row is None else self._grade(submission, test, row)

    def get_twin(
        self, submission: Submission, test: str, test_digest: str, settings_digest: str
    ) -> TestGrade | None:
        """Another student's stored grade for the same files, test and
        settings (a twin's run, which this student may reuse), as this
        student's; None when no other student has one."""
        key = (submission.digest, test, test_digest, settings_digest, submission.student)
        with self._using() as db:
            row = db.execute(_GET_TWIN, key).fetchone()
        return None if row is None else self._grade(submission, test, row)

    def _grade(self, submission: Submission, test: str, row: tuple) -> TestGrade:
        # Imported here so that the gradebook loads without the grading
        # machinery (the sandbox) behind it.
        from plpuzzle.sudoku.grading.model import Grade, TestGrade

        grade, detail, evidence, solutions, cpu, wall, ran_on = row
        try:
            verdict = Grade(grade)
        except ValueError:
            raise self._error(f"unknown grade {grade!r} stored: {_AFRESH}") from None
        return TestGrade(
            submission.student, test, verdict, detail, evidence, solutions, cpu, wall, ran_on
        )

    def put(
        self, submission: Submission, test_digest: str, settings_digest: str, grade: TestGrade
    ) -> None:
        """Store a student's grade with where it ran, and drop its claim,
        committed at once; detail and evidence are cut to their budgets."""
        key = (submission.digest, grade.test, test_digest, settings_digest)
        mine = (*key, submission.student)
        detail = clip(grade.detail, DETAIL_BYTES)
        evidence = clip(grade.evidence, EVIDENCE_BYTES)
        with self._using(write=True) as db:
            db.execute(
                "INSERT OR REPLACE INTO results (submission_digest, test, test_digest, "
                "settings_digest, student, grade, detail, evidence, solutions, cpu_seconds, "
                "wall_seconds) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (*mine, grade.grade.value, detail, evidence,
                 grade.solutions, grade.cpu_seconds, grade.wall_seconds),
            )  # fmt: skip
            # A regraded run replaces its place too, or drops it if unknown.
            if grade.ran_on:
                db.execute(
                    f"INSERT OR REPLACE INTO placements ({', '.join(_KEY)}, ran_on, student) "
                    "VALUES (?,?,?,?,?,?)",
                    (*key, grade.ran_on, submission.student),
                )
            else:
                db.execute(f"DELETE FROM placements WHERE {_WHERE_STUDENT_KEY}", mine)
            db.execute(f"DELETE FROM claims WHERE {_WHERE_KEY}", key)

    def put_load(self, submission_digest: str, settings_digest: str, messages: str) -> None:
        """Keep what loading a submission printed (errors and warnings),
        so that its report shows them once, also when every grade of it
        comes from the gradebook."""
        with self._using(write=True) as db:
            db.execute(
                "INSERT OR REPLACE INTO loads VALUES (?,?,?)",
                (submission_digest, settings_digest, clip(messages, MESSAGES_BYTES)),
            )

    def get_load(self, submission_digest: str, settings_digest: str) -> str | None:
        """What loading the submission printed, if it was loaded with these settings."""
        with self._using() as db:
            row = db.execute(
                "SELECT messages FROM loads WHERE submission_digest=? AND settings_digest=?",
                (submission_digest, settings_digest),
            ).fetchone()
        return None if row is None else row[0]

    def forget(self, submission_digest: str, settings_digest: str, student: str) -> int:
        """Drop one student's results and placements of a submission under
        these settings, so that it is graded afresh (grade --student); a
        twin's rows stay. Returns how many results were dropped."""
        where = "WHERE submission_digest=? AND settings_digest=? AND student=?"
        key = (submission_digest, settings_digest, student)
        with self._using(write=True) as db:
            cursor = db.execute(f"DELETE FROM results {where}", key)
            db.execute(f"DELETE FROM placements {where}", key)
            return cursor.rowcount

    def count(self) -> int:
        """How many results the file holds (for tests and summaries)."""
        with self._using() as db:
            return db.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    def claim(
        self,
        submission_digest: str,
        test: str,
        test_digest: str,
        settings_digest: str,
        owner: str,
        lease_seconds: float,
        student: str | None = None,
    ) -> bool:
        """Reserve a run for `owner` to grade, so that no other grader
        sharing the file grades it too.

        True when the run has no result yet (for `student`, when given:
        a twin's result does not count) and no other owner holds an
        unexpired claim on it; the claim is then `owner`'s until `put`
        stores the result or `lease_seconds` pass (renewed by claiming
        again). An expired claim, left by a grader that died, is taken over.
        """
        if not lease_seconds > 0:
            raise ValueError(f"lease_seconds must be positive, not {lease_seconds}")
        key = (submission_digest, test, test_digest, settings_digest)
        stored = f"SELECT 1 FROM results WHERE {_WHERE_KEY}"
        with self._using(write=True) as db:
            if student is None:
                done = db.execute(stored, key).fetchone()
            else:
                done = db.execute(f"{stored} AND student=?", (*key, student)).fetchone()
            if done:
                return False
            now = time.time()
            held = db.execute(f"SELECT owner, expires FROM claims WHERE {_WHERE_KEY}", key)
            row = held.fetchone()
            if row is not None and row[0] != owner and row[1] > now:
                return False
            db.execute(
                "INSERT OR REPLACE INTO claims VALUES (?,?,?,?,?,?,?)",
                (*key, owner, now, now + lease_seconds),
            )
            return True

    def release_claims(self, owner: str) -> None:
        """Drop all of `owner`'s claims, for a grader that ends normally,
        so others need not wait for its leases to expire."""
        with self._using(write=True) as db:
            db.execute("DELETE FROM claims WHERE owner=?", (owner,))

    def claim_owners(self) -> list[str]:
        """Everyone who holds a claim, expired or not."""
        with self._using() as db:
            return [r[0] for r in db.execute("SELECT DISTINCT owner FROM claims ORDER BY owner")]

    def claimed_by_others(self, owner: str) -> int:
        """How many runs other graders hold unexpired claims on."""
        with self._using() as db:
            return db.execute(
                "SELECT COUNT(*) FROM claims WHERE owner<>? AND expires>?", (owner, time.time())
            ).fetchone()[0]


def _create(path: Path) -> None:
    """Create an empty gradebook at `path` unless one appears meanwhile.

    It is built in a scratch file and then linked into place, so another
    grader opening `path` at the same moment sees either no file or a
    whole gradebook, never an empty file.
    """
    scratch = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.new")
    try:
        db = sqlite3.connect(scratch, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN")
            for create in _TABLES.values():
                db.execute(create)
            db.execute("INSERT INTO meta VALUES ('format', ?)", (str(FORMAT_VERSION),))
            db.execute("COMMIT")
        finally:
            db.close()  # the last close checkpoints and removes the -wal file
        try:
            os.link(scratch, path)
        except FileExistsError:
            pass  # another grader made it first: use theirs
        except OSError:
            # No hard links on this file system: a rename, which may
            # replace a gradebook made in the instant since we looked.
            if not path.exists():
                os.replace(scratch, path)
    except sqlite3.Error as e:
        raise OSError(f"cannot create a database beside it ({_one_line(e)})") from e
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{scratch}{suffix}").unlink(missing_ok=True)
