"""The service killed with SIGKILL in the middle of a grading, and started
again on the same data folder: nothing lost, nothing graded twice, the
same results as a grading that was never interrupted, and no sandbox left
running behind the dead server.

A real `plpuzzle sudoku serve` process, uploads through the JSON API; the
waits are generous bounds, never timing assertions.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from service_kit import CLASS, Server, api_shown, api_tokens, api_upload, make_course, wait_for

from plpuzzle.sudoku import api

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

#: A short CPU limit: grace.pl loops, so each of its 6 tests takes it whole
#: (a window of a CPU-second or more, polled every 0.05 s, to kill the
#: server in), and grace costs 6 CPU-seconds a grading, not 18 at 3 s.
#: Alice's correct runs take under 0.1 CPU-second each.
COURSE_TOML = """\
time_limit = 1

[course]
public = ["test001", "test002"]
uploads_per_hour = 30
shrink_seconds = 2
"""

#: Student -> the fixture file they upload; grace's is first, and slow.
HANDINS = {
    "grace": "grace.pl",  # loops: a timeout on every test
    "alice": "alice.pl",  # correct
    "dave": "dave.pl",  # wrong answers
    "judy": "judy.pl",  # a syntax error: not loadable
    "erin": "alice.pl",  # the same file as alice's (a twin in the gradebook)
}

#: Generous bounds, so that a loaded machine does not fail the test.
KILL_WINDOW_SECONDS = 300
GRADED_SECONDS = 600


def make_accounts(course: Path, data: Path) -> tuple[dict[str, str], str]:
    """The students' API tokens by login, and a teacher's token (a teacher
    sees every test's result through the API)."""
    tokens = api_tokens(course, data, list(HANDINS))
    return {login: tokens[login] for login in HANDINS}, tokens["tina"]


def upload(server: Server, token: str, name: str) -> int:
    r = api_upload(server.url, token, (CLASS / name).read_bytes())
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def shown(server: Server, token: str, upload_id: int) -> dict[str, Any]:
    return api_shown(server.url, token, upload_id)


# -- processes, from /proc ----------------------------------------------------


def proc_table() -> dict[int, tuple[int, int, str]]:
    """Every process now: pid -> (parent pid, start time in ticks, name)."""
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(entry.name)] = (int(fields[1]), int(fields[19]), name)
    return table


def descendants(root: int) -> set[tuple[int, int, str]]:
    """The processes under `root`, each as (pid, start time, name): a pid
    with its start time names one process, whatever reuses the pid later."""
    table = proc_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add((child, table[child][1], table[child][2]))
            todo.append(child)
    return found


def still_alive(processes: set[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    table = proc_table()
    return sorted(p for p in processes if p[0] in table and table[p[0]][1] == p[1])


# -- the database, read directly -------------------------------------------


def upload_rows(data: Path) -> dict[int, tuple[str, int]]:
    """Every upload's (state, attempt), as the service's database holds it."""
    with sqlite3.connect(data / "service.sqlite") as db:
        rows = db.execute("SELECT id, state, attempt FROM uploads").fetchall()
    return {i: (state, attempt) for i, state, attempt in rows}


def gradebook_rows(data: Path) -> dict[tuple[str, str], tuple[str, float, float]]:
    """The gradebook's results: (student, test) -> (grade, cpu, wall)."""
    with sqlite3.connect(data / "grades.sqlite") as db:
        rows = db.execute(
            "SELECT student, test, grade, cpu_seconds, wall_seconds FROM results"
        ).fetchall()
    return {(s, t): (g, cpu, wall) for s, t, g, cpu, wall in rows}


def verdicts(results: list[dict[str, Any]]) -> dict[str, str]:
    return {r["test"]: r["grade"] for r in results}


def test_a_killed_service_resumes_and_grades_every_upload_once(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", COURSE_TOML)
    data = tmp_path / "data"
    tokens, teacher = make_accounts(course, data)
    server = Server(course, data, 2).start()
    try:
        ids = {"grace": upload(server, tokens["grace"], HANDINS["grace"])}
        ids.update({who: upload(server, tokens[who], name)
                    for who, name in HANDINS.items() if who != "grace"})  # fmt: skip
        seen: set[tuple[int, int, str]] = set()

        def mid_grading() -> int | None:
            """An upload running with some of its tests graded, not all."""
            seen.update(descendants(server.proc.pid))
            for upload_id in ids.values():
                status = shown(server, teacher, upload_id)
                if status["state"] == "running" and 1 <= status["done"] < status["total"]:
                    return upload_id
            return None

        cut = wait_for("an upload part-graded", KILL_WINDOW_SECONDS, mid_grading, every=0.05)
        seen.update(descendants(server.proc.pid))
        graded_before = gradebook_rows(data)
        server.kill()
    finally:
        server.kill()

    # The sandboxes die with the server (PR_SET_PDEATHSIG, bwrap --die-with-parent).
    assert any(name in ("bwrap", "swipl") for _, _, name in seen), seen  # there were some
    try:
        wait_for("the killed server's sandboxes to end", 60, lambda: not still_alive(seen), 0.5)
    except AssertionError:
        raise AssertionError(
            f"processes of the killed server still run: {still_alive(seen)}"
        ) from None

    # The queue is the uploads table: the cut upload is still running, and
    # some are waiting; nothing of it was lost with the process.
    states = upload_rows(data)
    print("SEEN", sorted(seen), "CUT", cut, "STATES", states, "BEFORE", graded_before)
    assert set(states) == set(ids.values())
    assert states[cut][0] == "running"
    assert any(state != "done" for state, _ in states.values())
    cut_student = next(who for who, i in ids.items() if i == cut)
    assert any(student == cut_student for student, _ in graded_before)  # a test of it was kept

    with Server(course, data, 2) as again:

        def every_one_graded() -> dict[int, dict[str, Any]] | None:
            answers = {i: shown(again, teacher, i) for i in ids.values()}
            finished = all(a["state"] in ("done", "failed") for a in answers.values())
            return answers if finished else None

        final = wait_for("every upload graded", GRADED_SECONDS, every_one_graded, every=0.5)
    assert upload_rows(data) == {i: ("done", 0) for i in ids.values()}

    # Graded exactly once: one grading's reports per upload (its public
    # stage's and its whole one's), and the tests graded before the kill
    # were not run again (their rows are unchanged).
    for upload_id in ids.values():
        folders = sorted(p.name for p in (data / "reports" / str(upload_id)).iterdir())
        assert folders == ["0", "0.public"]
        assert final[upload_id]["state"] == "done" and final[upload_id]["complete"] is True
    graded_after = gradebook_rows(data)
    assert {k: graded_after.get(k) for k in graded_before} == graded_before
    assert set(graded_after) == {(who, t) for who in HANDINS for t in verdicts(
        final[ids["alice"]]["results"])}  # fmt: skip

    print("AFTER", graded_after)
    # The same verdicts as one uninterrupted grading of the same files.
    klass = tmp_path / "class"
    for who, name in HANDINS.items():
        (klass / who).mkdir(parents=True)
        (klass / who / "sudoku.pl").write_bytes((CLASS / name).read_bytes())
    fresh = api.grade(klass, course, out=tmp_path / "fresh", jobs=2, similarity=False,
                      feedback=False)  # fmt: skip
    expected = {row["id"]: row for row in fresh.report["students"]}
    for who, upload_id in ids.items():
        got = final[upload_id]
        assert verdicts(got["results"]) == verdicts(expected[who]["results"]), who
        assert got["score"] == expected[who]["score"], who
    assert set(verdicts(final[ids["grace"]]["results"]).values()) == {"timeout"}
    assert set(verdicts(final[ids["alice"]]["results"]).values()) == {"correct"}
