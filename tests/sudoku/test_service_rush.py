"""The deadline rush: the service stays fair and right when the class
uploads at once. An upload's time is its arrival; the hourly limit holds
for a burst; password guesses are slowed; a newer upload replaces the
older ones still waiting; one student's looping uploads do not hold
another's public results; every waiting upload knows its place; the
diff is bounded.

Real `plpuzzle sudoku serve` processes and HTTP clients where a test is
about what clients see; the framework's test client with the queue
stopped where a test needs uploads to stay queued. The waits are
generous bounds, never timing assertions.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from service_kit import (
    CLASS,
    PASSWORD,
    AppServer,
    Server,
    api_shown,
    api_tokens,
    api_upload,
    app_of,
    make_course,
    make_service,
    person,
    wait_for,
)

from plpuzzle.cluster.worker_side import RESOURCE
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.queue import GradingQueue
from plpuzzle.sudoku.service.results import counting_uploads
from plpuzzle.sudoku.service.store import Upload, User
from plpuzzle.sudoku.service.uploads import receive

pytestmark = pytest.mark.sandbox

ALICE = (CLASS / "alice.pl").read_bytes()
GRACE = (CLASS / "grace.pl").read_bytes()  # loops: every test takes its whole CPU limit
BROKEN = b"sudoku(S, K) :- oops oops.\n"

COURSE = """\
time_limit = {limit}

[course]
public = ["test001", "test002"]
uploads_per_hour = {per_hour}
shrink_seconds = 0
{more}
"""


def course_toml(limit: float = 10, per_hour: int = 30, more: str = "") -> str:
    return COURSE.format(limit=limit, per_hour=per_hour, more=more)


def rows(data: Path) -> dict[int, dict[str, Any]]:
    """Every upload as the service's database holds it."""
    with sqlite3.connect(data / "service.sqlite") as db:
        db.row_factory = sqlite3.Row
        return {r["id"]: dict(r) for r in db.execute("SELECT * FROM uploads")}


def stamp(text: str) -> datetime:
    """A time as SQLite holds the service's (UTC, no offset)."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# -- the arrival time -----------------------------------------------------------


@pytest.mark.slow
def test_an_upload_sent_before_the_deadline_is_on_time_though_its_check_ends_after(
    tmp_path: Path,
) -> None:
    """The load check of alice's last upload sleeps until after the
    deadline; the upload was sent before it, so it is on time and it
    counts (late uploads are ignored in this course), not her earlier
    broken one. The course's deadline is a day ahead; once the service
    runs, the teacher moves alice's to 6 s ahead (an extension, the
    deadline the service reads for every upload), so that nothing waits
    for the service to start."""
    far = datetime.now(UTC).replace(microsecond=0) + timedelta(days=1)
    toml = course_toml(more=f'deadline = {far.isoformat()}\nlate = "ignored"')
    course = make_course(tmp_path / "course", toml)
    data = tmp_path / "data"
    tokens = api_tokens(course, data, ["alice"])
    with Server(course, data, 2) as server:
        first = api_upload(server.url, tokens["alice"], BROKEN)
        assert first.status_code == 201, first.text
        deadline = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=7)
        r = httpx.post(f"{server.url}/api/students/alice/extension",
                       headers={"Authorization": f"Bearer {tokens['tina']}"},
                       data={"until": deadline.isoformat()}, timeout=60)  # fmt: skip
        assert r.status_code == 200, r.text
        # Loading sleeps until 3 s after the deadline (within the check's
        # budget of 15 s when sent some 6 s before it); at grading, after
        # it, not at all.
        sleepy = (f":- get_time(Now), Wait is {deadline.timestamp()} + 3 - Now, "
                  "( Wait > 0 -> sleep(Wait) ; true ).\n").encode() + ALICE  # fmt: skip
        last = api_upload(server.url, tokens["alice"], sleepy)
        assert last.status_code == 201, last.text
        last_id = last.json()["id"]

        def graded() -> dict[str, Any] | None:
            shown = api_shown(server.url, tokens["tina"], last_id)
            return shown if shown["state"] == "done" else None

        final = wait_for("alice's last upload graded", 300, graded, every=0.5)
    row = rows(data)[last_id]
    assert stamp(row["created"]) < deadline < stamp(row["checked"])  # the case at hand
    assert row["late"] == 0 and final["late"] is False
    assert row["loaded"] == 1
    assert final["score"] == final["max_score"] == 6
    service = Service(server_settings(course, data))
    try:
        chosen = counting_uploads(service)["alice"]
        assert chosen is not None and chosen.id == last_id
    finally:
        service.close()


def server_settings(course: Path, data: Path) -> Any:
    from plpuzzle.sudoku.service.core import ServiceSettings

    return ServiceSettings(course, data)


def test_a_late_upload_that_cannot_count_replaces_nothing(tmp_path: Path) -> None:
    """With late uploads ignored, an upload after the deadline leaves the
    on-time one to be graded; when late uploads count, it replaces it."""
    for late, replaced in (("ignored", False), ("counted", True)):
        deadline = datetime.now(UTC) - timedelta(minutes=5)
        more = f'deadline = {deadline.replace(microsecond=0).isoformat()}\nlate = "{late}"'
        service = make_service(tmp_path / late, course_toml(more=more))
        try:
            service.accounts.create(["alice"], "student")
            with service.store.session() as db:
                alice = db.query(User).one()
            on_time = receive(service, alice, "sudoku.pl", ALICE, deadline - timedelta(hours=1))
            after = receive(service, alice, "sudoku.pl", ALICE, datetime.now(UTC))
            assert (on_time.late, after.late) == (False, True)
            assert after.replaced == ([on_time.upload_id] if replaced else [])
            with service.store.session() as db:
                state = db.get(Upload, on_time.upload_id).state  # type: ignore[union-attr]
            assert state == ("replaced" if replaced else "checking")
        finally:
            service.close()


# -- what one client may do -------------------------------------------------------


@pytest.mark.slow
def test_the_hourly_limit_holds_for_a_burst(tmp_path: Path) -> None:
    """Ten uploads sent at once with a limit of four an hour: four kept."""
    course = make_course(tmp_path / "course", course_toml(per_hour=4))
    data = tmp_path / "data"
    tokens = api_tokens(course, data, ["alice"])
    with Server(course, data, 1) as server:
        answers: list[int] = []
        go = threading.Barrier(10)

        def send() -> None:
            go.wait()
            answers.append(api_upload(server.url, tokens["alice"], BROKEN).status_code)

        threads = [threading.Thread(target=send) for _ in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
    assert sorted(answers) == [201] * 4 + [429] * 6
    assert len(rows(data)) == 4


def form_token(page: str) -> str:
    """The sign-in form's own token, as a browser sends it back."""
    found = re.search(r'name="pre" value="([^"]+)"', page)
    assert found, page[:500]
    return found.group(1)


def test_password_guesses_are_throttled_by_login_and_by_address(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", course_toml())
    data = tmp_path / "data"
    api_tokens(course, data, ["alice", "bob"])
    with AppServer(course, data) as server, httpx.Client(base_url=server.url) as client:
        pre = [form_token(client.get("/signin").text)]

        def try_(login: str, password: str) -> httpx.Response:
            """A try with the form as the last page gave it (a browser's)."""
            r = client.post("/signin", data={"login": login, "password": password,
                                             "pre": pre[0]}, follow_redirects=False)  # fmt: skip
            if r.status_code != 303:
                pre[0] = form_token(r.text)
            return r

        def guess_until_slowed(logins: Iterator[str]) -> list[int]:
            """Wrong passwords, each after the wait the last answer asked
            for (the guard's clock moved past it), until a try must wait
            4 s or more; the codes."""
            codes: list[int] = []
            for login in logins:
                r = try_(login, "a-wrong-guess")
                codes.append(r.status_code)
                if r.status_code == 429:
                    wait = int(r.headers["retry-after"])
                    if wait >= 4:
                        return codes
                    server.clock.advance(wait)
                assert len(codes) < 100, codes
            return codes

        # A login guessed at: after a few failures each try from that
        # address waits longer, and while it waits even the right password
        # is refused there, before any hash (elsewhere it is not: see
        # test_service_signin_throttle.py).
        codes = guess_until_slowed(iter(lambda: "alice", None))
        assert codes[:5] == [401] * 5 and codes.count(401) <= 8, codes
        refused = try_("alice", PASSWORD)
        assert refused.status_code == 429, refused.status_code
        assert "too many failed sign-ins for this login from your address" in refused.text
        # Another login from the same address is not held up by alice's.
        assert try_("bob", PASSWORD).status_code == 303
        # Made-up logins, each tried once from another address (alice's
        # failures count against this one): the address is slowed down.
        elsewhere = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=server.url, transport=elsewhere) as client:
            pre[0] = form_token(client.get("/signin").text)
            codes = guess_until_slowed(f"nobody{n}" for n in range(1000))
            assert codes[:10] == [401] * 10 and codes.count(401) <= 13, codes
            page = try_("nobody-else", "a-wrong-guess")
            assert page.status_code == 429 and "from your address" in page.text


# -- the queue ----------------------------------------------------------------------


@pytest.fixture
def quiet(tmp_path: Path) -> Iterator[tuple[Service, Any]]:
    """A service whose queue does not run: uploads stay queued."""
    service = make_service(tmp_path, course_toml())
    app = app_of(service, grade=False)
    with TestClient(app):
        yield service, app
    service.close()


def test_a_newer_upload_replaces_the_older_ones_still_to_grade(quiet: tuple) -> None:
    """Three uploads before the queue ran: only the last is graded; the
    others say what replaced them, and a teacher can still grade one."""
    service, app = quiet
    alice, tina = person(app, service, "alice"), person(app, service, "tina", "teacher")
    ids = [alice.upload_id("sudoku.pl", body) for body in (BROKEN, GRACE, ALICE)]
    states = [alice.client.get(f"/uploads/{i}/status.json").json() for i in ids]
    assert [(s["state"], s["replaced_by"]) for s in states[:2]] == [
        ("replaced", ids[1]), ("replaced", ids[2])]  # fmt: skip
    assert states[2]["state"] == "queued"
    page = alice.page(f"/uploads/{ids[1]}")  # (ids[0] says first that it does not load)
    assert "replaced by a newer upload, not graded" in page and "the last upload counts" in page
    queue = GradingQueue(service)
    app.state.deps.queue = queue
    queue.start()
    try:
        assert alice.wait(ids[2])["state"] == "done"
        assert not (service.data / "reports" / str(ids[0])).exists()
        assert not (service.data / "reports" / str(ids[1])).exists()
        assert alice.client.get(f"/uploads/{ids[0]}/status.json").json()["state"] == "replaced"
        # The teacher grades the first one all the same.
        assert "Grade this upload in full" in tina.page(f"/uploads/{ids[0]}")
        r = tina.client.post(f"/uploads/{ids[0]}/grade", data={"csrf": tina.csrf()},
                             follow_redirects=False)  # fmt: skip
        assert r.status_code == 303
        assert tina.wait(ids[0])["state"] == "done"
        assert "It does not load" in tina.page(f"/uploads/{ids[0]}")
        r = alice.client.post(f"/uploads/{ids[1]}/grade", data={"csrf": alice.csrf()})
        assert r.status_code == 404  # a teacher's page only
    finally:
        queue.stop()


def test_every_waiting_upload_knows_its_place(quiet: tuple) -> None:
    service, app = quiet
    people = [person(app, service, login) for login in ("amy", "ben", "cat")]
    ids = [p.upload_id("sudoku.pl", ALICE) for p in people]
    places = [p.client.get(f"/uploads/{i}/status.json").json()["queue"]
              for p, i in zip(people, ids, strict=True)]  # fmt: skip
    assert [q["ahead"] for q in places] == [0, 1, 2]
    assert {q["for"] for q in places} == {"public"}
    assert "2 other student(s) first" in people[2].page(f"/uploads/{ids[2]}")
    tina = person(app, service, "tina", "teacher")
    status = tina.page("/status")
    assert all(login in status for login in ("amy", "ben", "cat"))
    assert "The queue by student" in status


def test_submit_says_where_an_upload_waits(capsys: pytest.CaptureFixture[str]) -> None:
    from plpuzzle.sudoku.presentation.commands.serve import _progress_printer

    show = _progress_printer()
    base = {"done": 0, "total": 0, "state": "queued"}
    show({**base, "state": "checking", "queue": None})
    show({**base, "queue": {"ahead": 3, "seconds": 250, "for": "public"}})
    show({**base, "queue": {"ahead": 0, "seconds": None, "for": "rest"}})
    said = capsys.readouterr().err
    assert "checking whether it loads" in said
    assert "queued (public tests): 3 other student(s) first, about 4 min" in said
    assert "queued (tests): next" in said


@pytest.mark.slow
def test_one_students_looping_uploads_do_not_hold_anothers_public_results(
    tmp_path: Path,
) -> None:
    """Mallory uploads a looping solver twice (the second replaces the
    first, which is stopped) on a one-core service; bob's public results
    come while mallory's upload is still being graded, not after it."""
    # A 1 s limit: the order is made by the fair queue (bob's check and
    # public stage go before the rest stage of mallory's second upload),
    # and that stage's four loops of a CPU-second each come after them.
    course = make_course(tmp_path / "course", course_toml(limit=1))
    data = tmp_path / "data"
    tokens = api_tokens(course, data, ["mallory", "bob"])
    with Server(course, data, 1) as server:
        first = api_upload(server.url, tokens["mallory"], GRACE).json()["id"]
        wait_for("mallory's first upload running", 120,
                 lambda: api_shown(server.url, tokens["mallory"], first)["done"] >= 1)  # fmt: skip
        second = api_upload(server.url, tokens["mallory"], GRACE).json()["id"]
        mine = api_upload(server.url, tokens["bob"], ALICE).json()["id"]

        def bobs_public_results() -> dict[str, Any] | None:
            shown = api_shown(server.url, tokens["bob"], mine)
            return shown if shown["public_ready"] else None

        bob = wait_for("bob's public results", 300, bobs_public_results, every=0.2)
        mallory = api_shown(server.url, tokens["tina"], second)
        assert mallory["state"] != "done", "bob waited for mallory's whole grading"
        assert [r["grade"] for r in bob["results"]] == ["correct", "correct"]
        assert api_shown(server.url, tokens["mallory"], first)["state"] == "replaced"
        wait_for("mallory's upload graded", 300,
                 lambda: api_shown(server.url, tokens["tina"], second)["state"] == "done",
                 every=0.5)  # fmt: skip
    with sqlite3.connect(data / "grades.sqlite") as db:
        ran = db.execute("SELECT COUNT(*) FROM results WHERE student = 'mallory'").fetchone()[0]
    assert ran == 6  # one grading's tests, the replaced upload's stopped ones not kept


# -- the diff -------------------------------------------------------------------------


def test_the_diff_is_bounded_and_kept(quiet: tuple) -> None:
    service, app = quiet
    alice = person(app, service, "alice")
    a = alice.upload_id("sudoku.pl", ALICE)
    b = alice.upload_id("sudoku.pl", ALICE.replace(b"sudoku(", b"sudoku (", 1) + b"% more\n")
    page = alice.page(f"/uploads/{b}/diff")
    assert f"--- upload {a}" in page and f"+++ upload {b}" in page and "+% more" in page
    kept = list((service.data / "diffs").iterdir())
    assert len(kept) == 1
    assert alice.page(f"/uploads/{b}/diff") == page  # from what was kept
    huge = b"".join(b"p(%d).\n" % n for n in range(40_000))  # about 400 KB
    c = alice.upload_id("sudoku.pl", huge)
    page = alice.page(f"/uploads/{c}/diff")
    assert "are not compared here" in page and "p(39999)" not in page


# -- beyond one machine ---------------------------------------------------------------


def places_of(data: Path, upload_id: int) -> set[str]:
    """Where the tests of an upload's whole grading ran (its grades.json)."""
    import json

    report = json.loads((data / "reports" / str(upload_id) / "0" / "grades.json").read_text())
    return {r["ran_on"] for r in report["students"][0]["results"]}


@pytest.mark.slow
def test_the_queue_drives_a_dask_cluster_and_uses_a_worker_added_meanwhile(
    tmp_path: Path,
) -> None:
    """`serve --scheduler` with one worker of one slot; two students'
    looping uploads keep it busy; a second worker started meanwhile gets
    runs of the two uploads sent once it is admitted (the first worker is
    busy with one run at a time), and every upload is graded once."""
    import json

    from clusters import dask_command, stop
    from distributed import Client

    # A 1 s limit: 12 loops of a CPU-second each keep the first worker
    # busy while the second starts; the two uploads sent once it has joined
    # are 12 more runs, so it gets some however long it took to start (at
    # load 10 it took longer than 24 such loops).
    course = make_course(tmp_path / "course", course_toml(limit=1))
    data = tmp_path / "data"
    students = ["amy", "ben", "cat", "dan"]
    tokens = api_tokens(course, data, students)
    scheduler_file = tmp_path / "scheduler.json"
    procs = [dask_command("scheduler", "--port", "0", "--no-dashboard",
                          "--scheduler-file", scheduler_file)]  # fmt: skip
    try:
        wait_for(
            "the scheduler's address",
            60,
            lambda: scheduler_file.exists() and "address" in scheduler_file.read_text(),
        )
        address = json.loads(scheduler_file.read_text())["address"]
        procs.append(dask_command("worker", address, "--nthreads", "1"))
        with Client(address, set_as_default=False, timeout=60) as client:
            client.wait_for_workers(1, timeout=60)
            (first_worker,) = client.scheduler_info()["workers"]
            with Server(course, data, 1, "--scheduler", address) as server:
                ids = {s: api_upload(server.url, tokens[s], GRACE).json()["id"]
                       for s in students[:2]}  # fmt: skip
                wait_for(
                    "a first test graded",
                    120,
                    lambda: any(
                        api_shown(server.url, tokens["tina"], i)["done"] for i in ids.values()
                    ),
                )
                procs.append(dask_command("worker", address, "--nthreads", "1"))
                client.wait_for_workers(2, timeout=60)
                (second_worker,) = set(client.scheduler_info()["workers"]) - {first_worker}
                # Joined is not admitted: the worker gets its sandbox slot once
                # its probe has run a sandbox, which on a loaded machine took
                # as long as the runs left (CI, 8 workers).
                wait_for(
                    "the second worker admitted",
                    120,
                    lambda: (
                        client.scheduler_info()["workers"][second_worker]
                        .get("resources", {})
                        .get(RESOURCE)
                    ),
                )
                ids |= {s: api_upload(server.url, tokens[s], GRACE).json()["id"]
                        for s in students[2:]}  # fmt: skip
                wait_for("every upload graded", 600, lambda: all(
                    api_shown(server.url, tokens["tina"], i)["state"] == "done"
                    for i in ids.values()), every=0.5)  # fmt: skip
    finally:
        for proc in reversed(procs):
            stop(proc)
    places = set().union(*(places_of(data, i) for i in ids.values()))
    assert any(second_worker in p for p in places), places
    assert any(first_worker in p for p in places), places
    with sqlite3.connect(data / "grades.sqlite") as db:
        counted = db.execute("SELECT student, COUNT(*) FROM results GROUP BY student").fetchall()
    assert dict(counted) == dict.fromkeys(students, 6)  # each test once


def test_the_public_results_are_the_whole_gradings_own(tmp_path: Path) -> None:
    """Both stages grade at the course's limits: what a student sees first
    is what counts, and the counting upload is graded in full."""
    import json

    service = make_service(tmp_path, course_toml())
    app = app_of(service)
    try:
        with TestClient(app):
            alice = person(app, service, "alice")
            tina = person(app, service, "tina", "teacher")
            upload = alice.upload_id("sudoku.pl", (CLASS / "dave.pl").read_bytes())
            assert alice.wait(upload)["state"] == "done"
            token = tina.token()
            bearer = {"Authorization": f"Bearer {token}"}
            shown = tina.client.get(f"/api/uploads/{upload}", headers=bearer).json()
        assert shown["complete"] is True and len(shown["results"]) == 6
        reports = service.data / "reports" / str(upload)

        def rows(folder: str) -> dict[str, Any]:
            report = json.loads((reports / folder / "grades.json").read_text())
            return {r["test"]: r for r in report["students"][0]["results"]}

        early, full = rows("0.public"), rows("0")
        assert set(early) == {"test001", "test002"}
        for test, row in early.items():
            assert (row["grade"], row["detail"]) == (full[test]["grade"], full[test]["detail"])
    finally:
        service.close()


def test_an_older_database_is_upgraded(tmp_path: Path) -> None:
    """A data folder of the service before the fair queue: its graded
    uploads were graded in one stage, and read as such."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, text

    from plpuzzle.sudoku.service.store import MIGRATIONS, Store

    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    engine = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        amy = "INSERT INTO users VALUES (1, 'amy', 'student', NULL, NULL, NULL, '2026-01-01')"
        connection.execute(text(amy))
        for n, state in ((1, "done"), (2, "queued")):
            connection.execute(
                text(
                    "INSERT INTO uploads (id, user_id, created, name, suffix, size, blob, late, "
                    "state, attempt, load_messages, fresh, error, notes) VALUES (:n, 1, "
                    "'2026-01-01', 'sudoku.pl', '.pl', 1, 'x', 0, :state, 0, '', 0, '', '')"
                ),
                {"n": n, "state": state},
            )
    engine.dispose()
    store = Store(url)
    try:
        with store.session() as db:
            stages = {u.id: (u.state, u.stage, u.regrade) for u in db.query(Upload)}
    finally:
        store.close()
    assert stages == {1: ("done", "rest", False), 2: ("queued", "public", False)}
