"""What a course expects of its hand-in service: extensions, the
documentation upload, mail through a real SMTP server (aiosmtpd on
loopback), a teacher's API with the LMS exports, and the service on a
real PostgreSQL server (two service processes on it grade nothing
twice)."""

from __future__ import annotations

import csv
import io
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from postgres import postgres_server
from service_kit import (
    CLASS,
    Server,
    api_shown,
    api_tokens,
    api_upload,
    app_of,
    make_course,
    make_service,
    person,
    smtp_server,
    wait_for,
)

from plpuzzle.sudoku.service.core import Service, ServiceSettings

pytestmark = pytest.mark.sandbox

ALICE = (CLASS / "alice.pl").read_bytes()

COURSE = """\
time_limit = 10

[course]
name = "Sudoku 2026"
public = ["test001", "test002"]
uploads_per_hour = 30
shrink_seconds = 0
{more}
"""


def course_toml(more: str = "") -> str:
    return COURSE.format(more=more)


def stamp(moment: datetime) -> str:
    return moment.replace(microsecond=0).isoformat()


# -- extensions ---------------------------------------------------------------------------


def test_an_extension_in_the_file_or_on_the_page_moves_a_students_deadline(
    tmp_path: Path,
) -> None:
    past = datetime.now(UTC) - timedelta(hours=2)
    later = (datetime.now(UTC) + timedelta(days=2)).astimezone()
    more = (f'deadline = {stamp(past)}\nlate = "ignored"\n\n[course.extensions]\n'
            f"erin = {stamp(later)}")  # fmt: skip
    service = make_service(tmp_path, course_toml(more))
    app = app_of(service, grade=False)
    try:
        with TestClient(app):
            erin, fred = person(app, service, "erin"), person(app, service, "fred")
            tina = person(app, service, "tina", "teacher")
            mine = erin.upload_id("sudoku.pl", ALICE)
            his = fred.upload_id("sudoku.pl", ALICE)
            assert erin.client.get(f"/uploads/{mine}/status.json").json()["late"] is False
            assert fred.client.get(f"/uploads/{his}/status.json").json()["late"] is True
            assert "Your deadline (an extension)" in erin.page("/me")
            assert "in suite.toml" in tina.page("/students/erin")
            # The teacher grants fred an extension: his upload is on time now.
            until = (datetime.now(UTC) + timedelta(days=1)).astimezone(service.course.zone)
            form = {"csrf": tina.csrf(), "until": until.strftime("%Y-%m-%dT%H:%M")}
            r = tina.client.post("/students/fred/extension", data=form, follow_redirects=True)
            assert "fred&#39;s deadline is now" in r.text or "fred's deadline is now" in r.text
            assert fred.client.get(f"/uploads/{his}/status.json").json()["late"] is False
            assert "granted by tina" in tina.page("/students/fred")
            # Taken back: late again.
            tina.client.post("/students/fred/extension", data={"csrf": tina.csrf(), "until": ""})
            assert fred.client.get(f"/uploads/{his}/status.json").json()["late"] is True
    finally:
        service.close()


def test_a_bad_extension_is_named_with_its_line(tmp_path: Path) -> None:
    from plpuzzle.sudoku.runs.suite import SuiteError

    with pytest.raises(SuiteError, match=r"suite.toml:10: the extension of erin must be"):
        make_service(tmp_path, course_toml('\n[course.extensions]\nerin = "soon"'))


# -- the documentation --------------------------------------------------------------------


def test_the_documentation_is_handed_in_apart_and_counts_for_the_requirement(
    tmp_path: Path,
) -> None:
    toml = course_toml() + '\n[requirements]\ndocumentation = "deduct"\ndocumentation_points = 1\n'
    service = make_service(tmp_path, toml)
    app = app_of(service)
    try:
        with TestClient(app):
            alice, tina = person(app, service, "alice"), person(app, service, "tina", "teacher")
            upload = alice.upload_id("sudoku.pl", ALICE)
            assert alice.wait(upload)["state"] == "done"
            before = _class_csv(tina)["alice"]
            refused = alice.client.post("/documents", data={"csrf": alice.csrf()},
                                        files={"file": ("doc.pdf", b"not a pdf")})  # fmt: skip
            assert refused.status_code == 415 and "is no PDF" in refused.text
            r = alice.client.post("/documents", data={"csrf": alice.csrf()},
                                  files={"file": ("doc.html", b"<h1>How it works</h1>")},
                                  follow_redirects=True)  # fmt: skip
            assert r.status_code == 200 and "doc.html" in r.text and "Counting:" in r.text
            page = tina.page("/students/alice")
            link = page.split('href="/documents/', 1)[1].split('"', 1)[0]
            served = tina.client.get(f"/documents/{link}")
            assert served.headers["content-type"] == "application/octet-stream"
            assert "attachment" in served.headers["content-disposition"]
            assert served.content == b"<h1>How it works</h1>"
            after = _class_csv(tina)["alice"]
    finally:
        service.close()
    assert before["documentation"] == "no" and after["documentation"] == "yes"
    assert float(after["score"]) == float(before["score"]) + 1  # the deduction is gone


def _class_csv(teacher: Any) -> dict[str, dict[str, str]]:
    text = teacher.client.get("/export/grades.csv").text
    return {row["id"]: row for row in csv.DictReader(io.StringIO(text))}


# -- mail -----------------------------------------------------------------------------------


@pytest.fixture
def smtp() -> Iterator[tuple[int, list[Any]]]:
    """A real SMTP server on loopback; what it received."""
    with smtp_server() as found:
        yield found


def mail_toml(port: int) -> str:
    return course_toml(f'\n[course.mail]\nhost = "127.0.0.1"\nport = {port}\n'
                       'from = "sudoku@example.edu"\ndomain = "students.example.edu"\n'
                       "starttls = false")  # fmt: skip


def test_accounts_send_mails_each_new_link_and_loses_none(
    tmp_path: Path, smtp: tuple[int, list[Any]]
) -> None:
    port, received = smtp
    course = make_course(tmp_path / "course", mail_toml(port))
    roster = tmp_path / "roster.txt"
    roster.write_text("alice alice@home.example\nbob\n")
    run = subprocess.run([sys.executable, "-m", "plpuzzle", "sudoku", "accounts", course,
                          "--roster", roster, "--send", "--url", "https://sudoku.example.edu"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "2 link(s) mailed; 0 waiting" in run.stderr
    to = sorted(r.rcpt_tos[0] for r in received)
    assert to == ["alice@home.example", "bob@students.example.edu"]
    body = received[0].content.decode()
    assert "https://sudoku.example.edu/welcome/" in body and "Sudoku 2026" in body
    links = list(csv.DictReader((tmp_path / "signin-links.csv").open()))
    assert len(links) == 2  # in the file too


def test_mail_that_cannot_be_sent_waits_is_listed_and_goes_out_later(tmp_path: Path) -> None:
    from plpuzzle.sudoku.service.mail import Outbox

    closed = _free_port()
    service = make_service(tmp_path, mail_toml(closed))
    try:
        outbox = Outbox(service)
        assert outbox.put("bob@students.example.edu", "hello", "a body", "link")
        left = outbox.send_due()
        assert (left.sent, left.waiting, left.failed) == (0, 1, 0)
        (trouble,) = outbox.troubles()
        assert trouble.tries == 1 and "Connection" in trouble.last_error
    finally:
        service.close()


def _free_port() -> int:

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_release_and_the_results_are_mailed_to_who_asked(
    tmp_path: Path, smtp: tuple[int, list[Any]]
) -> None:
    port, received = smtp
    service = make_service(tmp_path, mail_toml(port))
    app = app_of(service)
    try:
        with TestClient(app):
            alice, tina = person(app, service, "alice"), person(app, service, "tina", "teacher")
            alice.client.post("/me/mail", data={"csrf": alice.csrf(), "results": "yes"})
            assert "Stop mailing them" in alice.page("/me")
            upload = alice.upload_id("sudoku.pl", ALICE)
            assert alice.wait(upload)["state"] == "done"
            tina.client.post("/release", data={"csrf": tina.csrf()})

            def subjects() -> list[str]:
                return sorted(r.content.decode().split("Subject: ", 1)[1].split("\n", 1)[0]
                              .strip() for r in list(received))  # fmt: skip

            # Each stage's results mail and the release's, in whatever order.
            wait_for("the release's mail", 60,
                     lambda: "Sudoku 2026: results released" in subjects(), every=0.2)  # fmt: skip
    finally:
        service.close()
    subjects = sorted(r.content.decode().split("Subject: ", 1)[1].split("\n", 1)[0].strip()
                      for r in received)  # fmt: skip
    assert "Sudoku 2026: results released" in subjects
    assert "Sudoku 2026: upload #1 graded" in subjects
    assert all(r.rcpt_tos == ["alice@students.example.edu"] for r in received)


# -- the teacher's API and the LMS exports ---------------------------------------------------


@pytest.mark.slow
def test_a_teachers_token_reaches_the_exports_regrade_and_release(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", course_toml())
    tokens = api_tokens(course, tmp_path / "data", ["alice"])
    teacher = {"Authorization": f"Bearer {tokens['tina']}"}
    student = {"Authorization": f"Bearer {tokens['alice']}"}
    with Server(course, tmp_path / "data") as server:
        upload = api_upload(server.url, tokens["alice"], ALICE).json()["id"]
        done = lambda: api_shown(server.url, tokens["tina"], upload)["state"] == "done"  # noqa: E731
        wait_for("graded", 300, done)
        get = lambda name, who=teacher: httpx.get(f"{server.url}/api/export/{name}",  # noqa: E731
                                                  headers=who, timeout=60)  # fmt: skip
        grades = get("grades.csv")
        assert grades.status_code == 200 and grades.text.startswith("id,score,max_score")
        moodle = list(csv.reader(io.StringIO(get("moodle.csv").content.decode("utf-8-sig"))))
        assert moodle[0] == ["username", "email", "Sudoku 2026"] and moodle[1][0] == "alice"
        canvas = list(csv.reader(io.StringIO(get("canvas.csv").content.decode("utf-8-sig"))))
        assert canvas[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
        assert canvas[1][0].strip() == "Points Possible" and canvas[2][3] == "alice"
        klass = get("class.json").json()
        assert klass["students"][0]["id"] == "alice" and klass["students"][0]["score"] == 2
        assert klass["released"] is False and klass["tests"] == ["test001", "test002"]
        assert get("grades.csv", student).status_code == 404  # a student's token: no such route
        released = httpx.post(f"{server.url}/api/release", headers=teacher, timeout=60)
        assert released.json() == {"released": True, "mailed": 0}  # the course has no mail
        regraded = httpx.post(f"{server.url}/api/regrade", headers=teacher, timeout=60)
        assert regraded.json() == {"queued": 1}


# -- PostgreSQL ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def fresh_database(url: str, name: str) -> str:
    """A new database on the server, for one test."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    return url.replace("/postgres?", f"/{name}?")


def test_the_service_runs_on_postgresql(tmp_path: Path, postgres: str) -> None:
    url = fresh_database(postgres, "one")
    course = make_course(tmp_path / "course", course_toml())
    service = Service(ServiceSettings(course, tmp_path / "data", database_url=url))
    app = app_of(service)
    try:
        with TestClient(app):
            alice, tina = person(app, service, "alice"), person(app, service, "tina", "teacher")
            first = alice.upload_id("sudoku.pl", b"sudoku(_, _) :- oops oops.\n")
            upload = alice.upload_id("sudoku.pl", ALICE)
            assert alice.client.get(f"/uploads/{first}/status.json").json()["state"] in (
                "replaced", "done")  # fmt: skip
            assert alice.wait(upload)["state"] == "done"
            assert "6 / 6" in tina.page("/class")
    finally:
        service.close()
    assert not (tmp_path / "data" / "service.sqlite").exists()


@pytest.mark.slow  # two services graded side by side; one on PostgreSQL stays in the default run
def test_two_services_on_one_postgresql_grade_nothing_twice(tmp_path: Path, postgres: str) -> None:
    url = fresh_database(postgres, "two")
    course = make_course(tmp_path / "course", course_toml())
    data = tmp_path / "data"
    students = [f"s{n}" for n in range(6)]
    service = Service(ServiceSettings(course, data, database_url=url))
    service.close()
    env = {**os.environ, "PLPUZZLE_DATABASE_URL": url}
    tokens = _tokens_on(course, data, url, students)
    first = Server(course, data, 1)
    second = Server(course, data, 1)
    with _env(env):
        first.start()
        second.start()
    try:
        ids = []
        for n, login in enumerate(students):
            server = first if n % 2 else second
            ids.append(api_upload(server.url, tokens[login],
                                  ALICE + f"% {login}\n".encode()).json()["id"])  # fmt: skip
        wait_for(
            "every upload graded",
            600,
            lambda: all(api_shown(first.url, tokens["tina"], i)["state"] == "done" for i in ids),
            every=0.5,
        )
    finally:
        first.stop()
        second.stop()
    for upload in ids:
        folders = sorted(p.name for p in (data / "reports" / str(upload)).iterdir())
        assert folders == ["0", "0.public"], (upload, folders)
    with sqlite3.connect(data / "grades.sqlite") as db:
        counts = db.execute("SELECT student, COUNT(*) FROM results GROUP BY student").fetchall()
    assert dict(counts) == dict.fromkeys(students, 6)


def _tokens_on(course: Path, data: Path, url: str, students: list[str]) -> dict[str, str]:
    from sqlalchemy import select

    from plpuzzle.sudoku.service.store import User

    service = Service(ServiceSettings(course, data, database_url=url))
    try:
        service.accounts.create(students, "student")
        service.accounts.create(["tina"], "teacher")
        with service.store.session() as db:
            users = {u.login: u.id for u in db.scalars(select(User))}
        return {login: service.accounts.new_token(i, "t") for login, i in users.items()}
    finally:
        service.close()


class _env:
    """Environment variables for the servers a block starts."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values, self.old = values, dict(os.environ)

    def __enter__(self) -> None:
        os.environ.update(self.values)

    def __exit__(self, *exc: object) -> None:
        os.environ.clear()
        os.environ.update(self.old)
