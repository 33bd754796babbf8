"""The gradebook: refusing files that are not ours, storing grades, and
claims that keep graders sharing one file from grading a run twice."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

from plpuzzle.sudoku.grading.gradebook import FORMAT_VERSION, Gradebook, GradebookError
from plpuzzle.sudoku.grading.model import Grade, TestGrade

if TYPE_CHECKING:
    from plpuzzle.sudoku.grading.model import Submission

#: The gradebook as written before it had claims and a format version.
_OLD_SCHEMA = """
CREATE TABLE results (
    submission_digest TEXT NOT NULL, test TEXT NOT NULL, test_digest TEXT NOT NULL,
    settings_digest TEXT NOT NULL, student TEXT NOT NULL, grade TEXT NOT NULL,
    detail TEXT NOT NULL, evidence TEXT NOT NULL, solutions INTEGER NOT NULL,
    cpu_seconds REAL NOT NULL, wall_seconds REAL NOT NULL,
    PRIMARY KEY (submission_digest, test, test_digest, settings_digest)
);
"""

#: The tables format 2 added to it (claims, loads, meta), and its version.
_FORMAT_2 = """
CREATE TABLE claims (
    submission_digest TEXT NOT NULL, test TEXT NOT NULL, test_digest TEXT NOT NULL,
    settings_digest TEXT NOT NULL, owner TEXT NOT NULL, claimed REAL NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (submission_digest, test, test_digest, settings_digest)
);
CREATE TABLE loads (
    submission_digest TEXT NOT NULL, settings_digest TEXT NOT NULL, messages TEXT NOT NULL,
    PRIMARY KEY (submission_digest, settings_digest)
);
CREATE TABLE meta (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('format', '2');
"""


@dataclass(frozen=True)
class Sub:
    """What the gradebook reads of a grading.Submission, which is more
    work to build."""

    student: str
    digest: str


def submission(n: int) -> Submission:
    return cast("Submission", Sub(f"student{n}", f"digest{n}"))


def grade(test: str, verdict: Grade = Grade.CORRECT) -> TestGrade:
    return TestGrade("ignored", test, verdict, "detail", "evidence " * 50, 1, 0.5, 0.75)


def filled(path: Path, rows: int = 40) -> bytes:
    """A real gradebook with some results, closed; its bytes."""
    with Gradebook(path) as book:
        for n in range(rows):
            book.put(submission(n), "tdigest", "sdigest", grade("test001"))
    return path.read_bytes()


def sql(path: Path, script: str) -> None:
    db = sqlite3.connect(path)
    try:
        db.executescript(script)
        db.commit()
    finally:
        db.close()


def write_text(path: Path) -> None:
    path.write_text("student,score\nalice,6\n" * 50)


def empty(path: Path) -> None:
    path.write_bytes(b"")


def half(path: Path) -> None:
    data = filled(path)
    path.write_bytes(data[: len(data) // 2])


def first_100_bytes(path: Path) -> None:
    path.write_bytes(filled(path)[:100])


def scribbled(path: Path) -> None:
    """Garbage over the last page, which holds grades, not the schema:
    only a check of the whole file finds it."""
    data = bytearray(filled(path))
    page = 4096
    data[-page + 100 :] = b"\xa5" * (page - 100)
    path.write_bytes(data)


def foreign(path: Path) -> None:
    sql(path, "CREATE TABLE people (name TEXT, age INTEGER); INSERT INTO people VALUES ('a', 1);")


def no_tables(path: Path) -> None:
    sql(path, "PRAGMA user_version = 7; VACUUM;")
    assert path.stat().st_size > 0


def wrong_result_columns(path: Path) -> None:
    sql(path, "CREATE TABLE results (submission_digest TEXT, test TEXT, grade TEXT);")


def wrong_claim_columns(path: Path) -> None:
    sql(path, _OLD_SCHEMA + "CREATE TABLE claims (key TEXT, owner TEXT);")


def no_format(path: Path) -> None:
    filled(path)
    sql(path, "DELETE FROM meta;")


def newer(path: Path) -> None:
    filled(path)
    sql(path, f"UPDATE meta SET value='{FORMAT_VERSION + 1}' WHERE key='format';")


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (write_text, "not a plpuzzle gradebook (file is not a database)"),
        (empty, "not a plpuzzle gradebook (the file is empty)"),
        (half, "delete it to grade afresh"),
        (first_100_bytes, "delete it to grade afresh"),
        (scribbled, "damaged gradebook (On tree page"),
        (foreign, "not a plpuzzle gradebook (its tables are people"),
        (no_tables, "not a plpuzzle gradebook (it has no tables"),
        (wrong_result_columns, "table results has the wrong columns"),
        (wrong_claim_columns, "table claims has the wrong columns"),
        (no_format, "no valid format version"),
        (newer, f"newer plpuzzle (gradebook format {FORMAT_VERSION + 1}"),
    ],
)
def test_a_file_not_ours_is_refused_in_one_line(
    tmp_path: Path, make: Callable[[Path], None], words: str
) -> None:
    path = tmp_path / "grades.sqlite"
    make(path)
    before = path.read_bytes()
    with pytest.raises(GradebookError) as caught:
        Gradebook(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert words in message
    assert "\n" not in message
    assert path.read_bytes() == before  # refused, not repaired or overwritten


def test_a_newer_gradebook_says_to_upgrade(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    newer(path)
    with pytest.raises(GradebookError, match="upgrade plpuzzle"):
        Gradebook(path)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GradebookError, match="a folder"):
        Gradebook(tmp_path)


def test_a_missing_file_is_created_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "report" / "deeper" / "grades.sqlite"
    with Gradebook(path) as book:
        assert book.count() == 0
    assert path.stat().st_size > 0  # never an empty file on disk
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".new")] == []
    with Gradebook(path) as book:
        assert book.count() == 0


def test_an_old_gradebook_keeps_its_grades_and_gets_a_version(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    sql(
        path,
        _OLD_SCHEMA
        + "INSERT INTO results VALUES ('digest1', 'test001', 't', 's', 'student1', 'wrong', "
        "'d', 'e', 0, 1.0, 2.0);",
    )
    with Gradebook(path) as book:
        assert book.count() == 1
        got = book.get(submission(1), "test001", "t", "s")
        assert got is not None and got.grade is Grade.WRONG
        assert book.claim("digest2", "test001", "t", "s", "me", 60)
    db = sqlite3.connect(path)
    try:
        version = db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
    finally:
        db.close()
    assert version == (str(FORMAT_VERSION),)


def test_put_then_get(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    stored = TestGrade("student3", "test004", Grade.TIMEOUT, "too slow", "grid\nlines", 0, 2.5, 3.0)
    with Gradebook(path) as book:
        book.put(submission(3), "tdigest", "sdigest", stored)
        assert book.get(submission(3), "test004", "tdigest", "sdigest") == stored
        assert book.get(submission(3), "test004", "other", "sdigest") is None
        assert book.get(submission(3), "test004", "tdigest", "other") is None
        assert book.get(submission(4), "test004", "tdigest", "sdigest") is None
        assert book.get(submission(3), "test005", "tdigest", "sdigest") is None
        regraded = TestGrade("student3", "test004", Grade.CORRECT)
        book.put(submission(3), "tdigest", "sdigest", regraded)
        assert book.count() == 1
    with Gradebook(path) as book:  # committed, not just cached
        assert book.get(submission(3), "test004", "tdigest", "sdigest") == regraded


def placements(path: Path) -> list[tuple[str, ...]]:
    """The placements table's rows, read past the Gradebook."""
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT * FROM placements ORDER BY submission_digest").fetchall()
    finally:
        db.close()


def test_where_a_run_ran_is_kept_with_its_grade(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    worker = "node7 (dask worker tcp://10.0.0.7:40123)"
    stored = TestGrade("student3", "test004", Grade.WRONG, "d", "e", 1, 0.5, 0.6, worker)
    with Gradebook(path) as book:
        book.put(submission(3), "tdigest", "sdigest", stored)
        book.put(submission(4), "tdigest", "sdigest", grade("test004"))  # never placed
        assert book.get(submission(3), "test004", "tdigest", "sdigest") == stored
        got = book.get(submission(4), "test004", "tdigest", "sdigest")
        assert got is not None and got.ran_on == ""
        assert book.get(submission(3), "test004", "other", "sdigest") is None
    with Gradebook(path) as book:  # committed with the result
        got = book.get(submission(3), "test004", "tdigest", "sdigest")
        assert got is not None and got.ran_on == worker
        # Regraded elsewhere: the new place replaces the old one...
        book.put(submission(3), "tdigest", "sdigest", replace(stored, ran_on="laptop"))
        got = book.get(submission(3), "test004", "tdigest", "sdigest")
        assert got is not None and got.ran_on == "laptop"
        # ...and a result with no place leaves none behind.
        book.put(submission(3), "tdigest", "sdigest", replace(stored, ran_on=""))
        got = book.get(submission(3), "test004", "tdigest", "sdigest")
        assert got is not None and got.ran_on == ""
        assert book.count() == 2
    assert placements(path) == []


def test_a_format_2_gradebook_is_upgraded_and_keeps_its_grades(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    sql(
        path,
        _OLD_SCHEMA
        + _FORMAT_2
        + "INSERT INTO results VALUES ('digest1', 'test001', 't', 's', 'student1', 'timeout', "
        "'slow', 'e', 0, 60.0, 61.0);"
        "INSERT INTO loads VALUES ('digest1', 's', 'Warning: singleton');",
    )
    with Gradebook(path) as book:
        old = book.get(submission(1), "test001", "t", "s")
        assert old == TestGrade("student1", "test001", Grade.TIMEOUT, "slow", "e", 0, 60.0, 61.0)
        assert old is not None and old.ran_on == ""  # stored before places were
        assert book.get_load("digest1", "s") == "Warning: singleton"
        book.put(submission(2), "t", "s", replace(grade("test001"), ran_on="hostB"))
    assert placements(path) == [("digest2", "test001", "t", "s", "hostB", "student2")]
    db = sqlite3.connect(path)
    try:
        version = db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
    finally:
        db.close()
    assert version == ("4",) == (str(FORMAT_VERSION),)
    with Gradebook(path) as book:  # and opens again as it is now
        got = book.get(submission(2), "test001", "t", "s")
        assert got is not None and got.ran_on == "hostB"


def test_wrong_placement_columns_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    sql(path, _OLD_SCHEMA + _FORMAT_2 + "CREATE TABLE placements (test TEXT, host TEXT);")
    with pytest.raises(GradebookError, match="table placements has the wrong columns: test, host"):
        Gradebook(path)


def test_forget_drops_places_too(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    with Gradebook(path) as book:
        for n in (1, 2):
            for test in ("test001", "test002"):
                book.put(submission(n), "t", "s", replace(grade(test), ran_on=f"host{n}"))
        book.put(submission(1), "t", "other", replace(grade("test001"), ran_on="host1"))
        assert book.forget("digest1", "s", "student1") == 2
        assert [(r[0], r[3]) for r in placements(path)] == [
            ("digest1", "other"),
            ("digest2", "s"),
            ("digest2", "s"),
        ]
        # Graded afresh by a grader that does not know the place: none is left over.
        book.put(submission(1), "t", "s", grade("test001"))
        got = book.get(submission(1), "test001", "t", "s")
        assert got is not None and got.ran_on == ""


def test_identical_submissions_keep_a_row_each_and_forgetting_one_spares_the_other(
    tmp_path: Path,
) -> None:
    """Two students with the same files (one digest): each has rows of their
    own; a twin's run can be found to reuse; forgetting one (--student)
    leaves the other's rows, and its claim is not blocked by the twin's."""
    path = tmp_path / "grades.sqlite"
    ann = cast("Submission", Sub("ann", "same"))
    bob = cast("Submission", Sub("bob", "same"))
    with Gradebook(path) as book:
        book.put(ann, "t", "s", replace(grade("test001"), student="ann", ran_on="host1"))
        assert book.get(bob, "test001", "t", "s") is None
        twin = book.get_twin(bob, "test001", "t", "s")
        assert twin is not None and twin.student == "bob" and twin.ran_on == "host1"
        assert book.get_twin(ann, "test001", "t", "s") is None  # not its own twin
        book.put(bob, "t", "s", twin)
        assert book.count() == 2
        assert book.forget("same", "s", "bob") == 1
        assert book.get(ann, "test001", "t", "s") is not None
        assert book.claim("same", "test001", "t", "s", "me", 60, student="bob")
        assert not book.claim("same", "test001", "t", "s", "me", 60, student="ann")
        assert [r[-1] for r in placements(path)] == ["ann"]


def test_a_format_3_gradebook_gets_a_row_per_student(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    sql(
        path,
        _OLD_SCHEMA
        + _FORMAT_2.replace("'2'", "'3'")
        + "CREATE TABLE placements (submission_digest TEXT NOT NULL, test TEXT NOT NULL, "
        "test_digest TEXT NOT NULL, settings_digest TEXT NOT NULL, ran_on TEXT NOT NULL, "
        "PRIMARY KEY (submission_digest, test, test_digest, settings_digest));"
        "INSERT INTO results VALUES ('digest1', 'test001', 't', 's', 'student1', 'wrong', "
        "'d', 'e', 0, 1.0, 2.0);"
        "INSERT INTO placements VALUES ('digest1', 'test001', 't', 's', 'hostA');",
    )
    with Gradebook(path) as book:
        got = book.get(submission(1), "test001", "t", "s")
        assert got is not None and got.grade is Grade.WRONG and got.ran_on == "hostA"
    assert placements(path) == [("digest1", "test001", "t", "s", "hostA", "student1")]


def test_stored_text_is_bounded_whatever_the_caller_passes(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    huge = TestGrade("student1", "test001", Grade.ERROR, "d" * 100_000, "e" * 10_000_000)
    with Gradebook(path) as book:
        book.put(submission(1), "t", "s", huge)
        book.put_load("digest1", "s", "m" * 10_000_000)
        got = book.get(submission(1), "test001", "t", "s")
        assert got is not None
        assert len(got.detail) < 3_000 and got.detail.endswith("bytes more)")
        assert len(got.evidence) < 70_000 and got.evidence.endswith("bytes more)")
        assert len(book.get_load("digest1", "s") or "") < 10_000
    assert path.stat().st_size < 1_000_000


def test_database_errors_after_opening_become_gradebook_errors(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    with Gradebook(path) as book:
        book.put(submission(1), "t", "s", grade("test001"))
        sql(path, "DROP TABLE results;")  # another program spoils it meanwhile
        with pytest.raises(GradebookError) as caught:
            book.get(submission(1), "test001", "t", "s")
        assert str(caught.value).startswith(f"{path}: gradebook failed (no such table")
        with pytest.raises(GradebookError, match="no such table"):
            book.put(submission(1), "t", "s", grade("test001"))
        with pytest.raises(GradebookError, match="no such table"):
            book.claim("digest1", "test001", "t", "s", "me", 60)
        assert book.claimed_by_others("me") == 0  # the failed transactions left no lock


def test_an_unknown_stored_grade_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    with Gradebook(path) as book:
        book.put(submission(1), "t", "s", grade("test001"))
        sql(path, "UPDATE results SET grade='excellent';")
        with pytest.raises(GradebookError, match="unknown grade 'excellent'"):
            book.get(submission(1), "test001", "t", "s")


KEY = ("digest1", "test001", "tdigest", "sdigest")


def test_a_claim_held_by_one_grader_excludes_another(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    with Gradebook(path) as a, Gradebook(path) as b:
        assert a.claim(*KEY, "a", 60)
        assert not b.claim(*KEY, "b", 60)
        assert a.claim(*KEY, "a", 60)  # one's own claim: renewed
        assert b.claim("digest2", *KEY[1:], "b", 60)  # another key is free
        assert b.claimed_by_others("b") == 1
        assert a.claimed_by_others("a") == 1
        assert a.claimed_by_others("nobody") == 2


def test_an_expired_claim_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    with Gradebook(path) as a, Gradebook(path) as b:
        assert a.claim(*KEY, "a", 0.05)
        assert not b.claim(*KEY, "b", 60)
        time.sleep(0.1)
        assert b.claimed_by_others("b") == 0  # expired: not counted
        assert b.claim(*KEY, "b", 60)
        assert not a.claim(*KEY, "a", 60)  # now b's
        assert a.claimed_by_others("a") == 1


def test_renewing_a_claim_extends_its_lease(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    with Gradebook(path) as a, Gradebook(path) as b:
        assert a.claim(*KEY, "a", 0.05)
        assert a.claim(*KEY, "a", 60)
        time.sleep(0.1)
        assert not b.claim(*KEY, "b", 60)


def test_a_stored_result_cannot_be_claimed(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    with Gradebook(path) as a, Gradebook(path) as b:
        assert a.claim(*KEY, "a", 60)
        a.put(submission(1), "tdigest", "sdigest", grade("test001"))
        assert b.claimed_by_others("b") == 0  # put dropped the claim
        assert not b.claim(*KEY, "b", 60)
        assert not a.claim(*KEY, "a", 60)  # not even by the grader that stored it
        # A result stored without a claim (as by an older grader) counts too.
        b.put(submission(2), "tdigest", "sdigest", grade("test001"))
        assert not a.claim("digest2", *KEY[1:], "a", 60)


def test_release_claims_frees_only_the_owners(tmp_path: Path) -> None:
    path = tmp_path / "grades.sqlite"
    with Gradebook(path) as a, Gradebook(path) as b:
        for n in range(3):
            assert a.claim(f"digest{n}", *KEY[1:], "a", 60)
        assert b.claim("digest9", *KEY[1:], "b", 60)
        assert b.claimed_by_others("b") == 3
        a.release_claims("a")
        assert b.claimed_by_others("b") == 0
        assert a.claimed_by_others("a") == 1
        assert b.claim("digest0", *KEY[1:], "b", 60)


def test_a_lease_must_be_positive(tmp_path: Path) -> None:
    with Gradebook(tmp_path / "grades.sqlite") as book:
        for lease in (0, -1.0, float("nan")):
            with pytest.raises(ValueError, match="lease_seconds"):
                book.claim(*KEY, "a", lease)


def test_threads_sharing_one_gradebook_never_win_the_same_key(tmp_path: Path) -> None:
    keys = [f"digest{n}" for n in range(60)]
    won: dict[str, list[str]] = {}
    failures: list[BaseException] = []
    with Gradebook(tmp_path / "grades.sqlite") as book:

        def grader(owner: str) -> None:
            try:
                won[owner] = [k for k in keys if book.claim(k, *KEY[1:], owner, 60)]
            except BaseException as e:
                failures.append(e)

        threads = [threading.Thread(target=grader, args=(f"t{i}",)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert failures == []
        assert sorted(k for ks in won.values() for k in ks) == sorted(keys)
        assert book.claimed_by_others("nobody") == len(keys)


#: One grader process: waits for the go file, then claims and grades what
#: it can of the same keys as the others, printing the keys it won.
GRADER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from plpuzzle.sudoku.grading.gradebook import Gradebook
    from types import SimpleNamespace
    from plpuzzle.sudoku.grading.model import Grade, TestGrade

    path, owner, go, count = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.005)
    with Gradebook(path) as book:
        for n in range(count):
            sub = SimpleNamespace(student=f"s{n}", digest=f"digest{n}")
            if book.claim(sub.digest, "test001", "t", "s", owner, 60):
                time.sleep(0.002)  # the grading, during which the other grader goes on
                book.put(sub, "t", "s", TestGrade(sub.student, "test001", Grade.CORRECT))
                print(sub.digest, flush=True)
        book.release_claims(owner)
    """
)


def test_two_processes_sharing_a_gradebook_grade_each_run_once(tmp_path: Path) -> None:
    path = tmp_path / "report" / "grades.sqlite"  # not there yet: both may create it
    go = tmp_path / "go"
    count = 200
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", GRADER, str(path), owner, str(go), str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for owner in ("first", "second")
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None
            assert proc.stdout.readline() == "ready\n"
        go.touch()  # both start at once
        outputs = [proc.communicate(timeout=120) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert err == ""
    first, second = ({line for line in out.splitlines()} for out, _ in outputs)
    assert first & second == set()
    assert first | second == {f"digest{n}" for n in range(count)}
    with Gradebook(path) as book:
        assert book.count() == count
        assert book.claimed_by_others("nobody") == 0
