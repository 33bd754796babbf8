"""Issue 53, items 5 and 6: mail that spam filters take and that says the
truth (Date and Message-ID, one connection a round, absolute links, the
release mailed once and only to students whose upload counts, teachers'
own addresses), and the smaller things a new teacher met (the 404 page,
success messages kept on the server, the course's name, serve --check,
the students' `results` command). A real `serve` over HTTP, a real SMTP
server on loopback (aiosmtpd)."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from service_kit import (
    CLASS,
    PASSWORD,
    Server,
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
name = "Deklaratív Sudoku 2026"
public = ["test001", "test002"]
uploads_per_hour = 30
shrink_seconds = 0
{more}
"""


def mail_toml(port: int) -> str:
    return COURSE.format(more=f'\n[course.mail]\nhost = "127.0.0.1"\nport = {port}\n'
                         'from = "sudoku@example.edu"\ndomain = "students.example.edu"\n'
                         "starttls = false")  # fmt: skip


@pytest.fixture
def smtp() -> Iterator[tuple[int, list[Any]]]:
    """A real SMTP server on loopback; what it received, each envelope with
    the client's address (one per connection)."""
    with smtp_server() as found:
        yield found


def _mails(received: tuple[int, list[Any]]) -> list[tuple[Any, Any]]:
    """(connection, parsed mail) of each mail received."""
    parse = lambda raw: message_from_bytes(raw, policy=policy.default)  # noqa: E731
    return [(env.peer, parse(env.original_content)) for env in received[1]]


class Browser:
    """A person's browser on the real server, signed in through their link."""

    def __init__(self, url: str, token: str) -> None:
        self.client = httpx.Client(base_url=url, timeout=120, follow_redirects=True)
        r = self.client.post(f"/welcome/{token}", data={"password": PASSWORD, "again": PASSWORD})
        assert r.status_code == 200, r.text[:300]

    def csrf(self) -> str:
        found = re.search(r'name="csrf" value="([^"]+)"', self.client.get("/tokens").text)
        assert found
        return found.group(1)

    def post(self, path: str, **form: str) -> httpx.Response:
        return self.client.post(path, data={"csrf": self.csrf(), **form})


def _links(course: Path, data: Path, students: list[str]) -> dict[str, str]:
    """One-time sign-in tokens of new accounts (tina the teacher's too)."""
    service = Service(ServiceSettings(course, data))
    try:
        made = service.accounts.create(students, "student")
        made += service.accounts.create(["tina"], "teacher")
        return {m.login: m.token for m in made if m.token}
    finally:
        service.close()


# -- item 5: mail ---------------------------------------------------------------------------


def test_accounts_send_mails_a_round_on_one_connection_with_date_and_message_id(
    tmp_path: Path, smtp: list[Any]
) -> None:
    course = make_course(tmp_path / "course", mail_toml(smtp[0]))
    roster = tmp_path / "roster.txt"
    roster.write_text("alice alice@home.example\nbob\ncarol\n")
    run = subprocess.run([sys.executable, "-m", "plpuzzle", "sudoku", "accounts", course,
                          "--data", tmp_path / "data", "--roster", roster, "--send",
                          "--teacher", "tina=tina@staff.example.org", "--teacher", "tom",
                          "--url", "https://sudoku.example.edu"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "4 link(s) mailed; 0 waiting" in run.stderr
    assert "no address for tom" in run.stderr  # a teacher is not mailed at the students' domain
    mails = _mails(smtp)
    assert sorted(m["To"] for _, m in mails) == [
        "alice@home.example", "bob@students.example.edu", "carol@students.example.edu",
        "tina@staff.example.org"]  # fmt: skip
    assert len({peer for peer, _ in mails}) == 1  # one connection for the round
    ids = [m["Message-ID"] for _, m in mails]
    assert len(set(ids)) == 4 and all(i.endswith("@students.example.edu>") for i in ids)
    assert all(parsedate_to_datetime(m["Date"]).tzinfo is not None for _, m in mails)
    bad = subprocess.run([sys.executable, "-m", "plpuzzle", "sudoku", "accounts", course,
                          "--data", tmp_path / "data", "--teacher", "tim=not an address"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert bad.returncode == 2 and "is not a mail address" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.slow
def test_the_release_mails_counting_uploads_once_with_absolute_links(
    tmp_path: Path, smtp: list[Any]
) -> None:
    course = make_course(tmp_path / "course", mail_toml(smtp[0]))
    data = tmp_path / "data"
    tokens = _links(course, data, ["alice", "bob"])
    with Server(course, data, 1) as server:  # no --url
        alice, bob = Browser(server.url, tokens["alice"]), Browser(server.url, tokens["bob"])
        tina = Browser(server.url, tokens["tina"])
        alice.post("/me/mail", results="yes")
        r = alice.client.post("/uploads", data={"csrf": alice.csrf()},
                              files={"file": ("sudoku.pl", ALICE)})  # fmt: skip
        upload = int(str(r.url).rsplit("/", 1)[1])
        status = lambda: alice.client.get(f"/uploads/{upload}/status.json").json()  # noqa: E731
        wait_for("graded", 300, lambda: status()["state"] == "done", every=0.3)
        assert bob.client.get("/me").status_code == 200  # bob has no upload
        confirm = tina.client.get("/release").text
        assert "It mails the 1 of them" in confirm and "Release and mail 1" in confirm
        first = tina.post("/release")
        assert "1 student(s) will be mailed" in first.text
        tina.post("/release/withdraw")
        second = tina.post("/release")
        assert "results released" in second.text and "will be mailed" not in second.text
        assert "Release and mail" not in tina.client.get("/release").text
        wait_for("the mails", 120, lambda: sum(
            "released" in m["Subject"] for _, m in _mails(smtp)) >= 1, every=0.2)  # fmt: skip
        wait_for("the results mail", 120, lambda: any(
            "graded" in m["Subject"] for _, m in _mails(smtp)), every=0.2)  # fmt: skip
    with sqlite3.connect(data / "service.sqlite") as db:
        kinds = db.execute("SELECT kind, to_addr, once FROM mails ORDER BY id").fetchall()
    released = [k for k in kinds if k[0] == "release"]
    assert released == [("release", "alice@students.example.edu", f"release:alice:{upload}")]
    mails = {m["Subject"]: m for _, m in _mails(smtp)}
    body = mails["Deklaratív Sudoku 2026: results released"].get_content()
    assert f"{server.url}/uploads/{upload}" in body
    results = next(m for s, m in mails.items() if "graded" in s)
    assert f"Its page: {server.url}/uploads/{upload}" in results.get_content()
    assert all(m["Message-ID"] and m["Date"] for m in mails.values())


# -- item 6: the smaller things -------------------------------------------------------------


@pytest.mark.slow
def test_pages_404_flash_and_the_course_name(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", COURSE.format(more=""))
    data = tmp_path / "data"
    tokens = _links(course, data, ["fred"])
    with Server(course, data, 1) as server:
        page = httpx.get(f"{server.url}/no/such/thing", headers={"Accept": "text/html"})
        assert page.status_code == 404 and "text/html" in page.headers["content-type"]
        assert "no such page" in page.text and "Deklaratív Sudoku 2026" in page.text
        api = httpx.get(f"{server.url}/api/no/such", headers={"Accept": "text/html"})
        assert api.status_code == 404 and "error" in api.json()
        script = httpx.get(f"{server.url}/nothing", headers={"Accept": "application/json"})
        assert script.status_code == 404 and "error" in script.json()
        signin = httpx.get(f"{server.url}/signin").text
        assert "<title>" in signin and "Deklaratív Sudoku 2026</title>" in signin
        tina = Browser(server.url, tokens["tina"])
        forged = tina.client.get("/class", params={"done": "All grades were deleted"}).text
        assert "All grades were deleted" not in forged and "Done:" not in forged
        granted = tina.post("/students/fred/extension", until="2099-01-01T12:00")
        assert "Done: fred&#39;s deadline is now 2099-01-01 12:00" in granted.text
        again = tina.client.get("/students/fred").text  # said once
        assert "Done:" not in again
        similarity = tina.client.get("/similarity").text
        assert 'data-live="/similarity/live"' in similarity
        assert tina.client.get("/similarity/status.json").json()["version"]


@pytest.mark.slow
def test_serve_check_names_the_deadline_in_the_course_offset_and_every_part(
    tmp_path: Path,
) -> None:
    more = ('deadline = 2099-06-30T23:59:00+02:00\n\n[course.extensions]\n'
            'erin = 2099-07-02T23:59:00+02:00\n\n[course.mail]\nhost = "127.0.0.1"\n'
            'port = 2525\nfrom = "sudoku@example.edu"\ndomain = "students.example.edu"\n\n'
            '[requirements]\nclpfd = "deduct"\nclpfd_points = 2\n')  # fmt: skip
    course = make_course(tmp_path / "course", COURSE.format(more=more))
    run = subprocess.run([sys.executable, "-m", "plpuzzle", "sudoku", "serve", course,
                          "--data", tmp_path / "data", "--check"],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr
    text = run.stdout
    assert "deadline  2099-06-30 23:59 (UTC+02:00)" in text
    assert re.search(r"database  sqlite, sqlite:///\S+service.sqlite \(schema 0008\)", text)
    assert "mail      127.0.0.1:2525 from sudoku@example.edu" in text
    assert "students at students.example.edu" in text
    assert "extensions  1 in suite.toml, 0 granted on the service" in text
    assert "clpfd deduct (2 points)" in text
    as_json = subprocess.run([sys.executable, "-m", "plpuzzle", "sudoku", "serve", course,
                              "--data", tmp_path / "data", "--check", "--format", "json"],
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    summary = json.loads(as_json.stdout)
    assert summary["deadline"] == "2099-06-30T23:59:00+02:00"
    assert summary["database"]["revision"] == "0008"
    assert summary["requirements"]["clpfd"] == "deduct"


def test_every_function_of_the_package_is_within_80_lines() -> None:
    import ast

    package = Path(__file__).resolve().parents[2] / "python" / "plpuzzle"
    long = [(str(path.relative_to(package)), node.name, node.end_lineno - node.lineno + 1)
            for path in sorted(package.rglob("*.py"))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and (node.end_lineno or 0) - node.lineno + 1 > 80]  # fmt: skip
    assert long == []


@pytest.mark.slow
def test_a_terminal_student_sees_results_after_submit_no_wait(tmp_path: Path) -> None:
    from service_kit import api_tokens

    course = make_course(tmp_path / "course", COURSE.format(more=""))
    data = tmp_path / "data"
    tokens = api_tokens(course, data, ["alice", "bob"])
    with Server(course, data, 1) as server:
        env = {"PLPUZZLE_TOKEN": tokens["alice"], "HOME": str(tmp_path),
               "PATH": "/usr/bin:/bin"}  # fmt: skip

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "plpuzzle", "sudoku", *args,
                                   "--server", server.url], env=env, cwd=tmp_path,
                                  capture_output=True, text=True, timeout=300)  # fmt: skip

        nothing = run("results")
        assert nothing.returncode == 2 and "no upload" in nothing.stderr
        (tmp_path / "sudoku.pl").write_bytes(ALICE)
        handed = run("submit", "sudoku.pl", "--no-wait")
        assert handed.returncode == 0, handed.stderr
        done = wait_for("graded", 300, lambda: (r := run("results", "--format", "json"))
                        .returncode != 5 and r, every=0.5)  # fmt: skip
        assert done.returncode == 0, done.stderr
        answer = json.loads(done.stdout)
        assert answer["state"] in ("done", "queued", "running") and answer["results"]
        text = run("results", str(answer["id"]))
        assert text.returncode == 0 and "score: " in text.stdout
        env["PLPUZZLE_TOKEN"] = tokens["bob"]  # not bob's upload
        assert run("results", str(answer["id"])).returncode == 2


def test_the_queue_estimate_comes_from_measured_run_times(tmp_path: Path) -> None:
    from service_kit import make_service

    from plpuzzle.sudoku.grading.gradebook import _TABLES
    from plpuzzle.sudoku.service.queue import (
        DEFAULT_STAGE_SECONDS,
        DEFAULT_TEST_SECONDS,
        OTHER,
        PUBLIC,
        GradingQueue,
    )

    service = make_service(tmp_path, COURSE.format(more=""), jobs=2)
    try:
        before = GradingQueue(service).stage_cost(PUBLIC)
        assert before == (2 * DEFAULT_TEST_SECONDS, 2 * DEFAULT_TEST_SECONDS
                          + DEFAULT_STAGE_SECONDS)  # fmt: skip
        with sqlite3.connect(service.gradebook) as db:
            db.execute(_TABLES["results"])
            rows = [(f"s{n}", test, "t", "x", f"st{n}", "correct", "", "", 1, 1.0, seconds)
                    for n in range(3) for test, seconds in
                    (("test001", 4.0 + n), ("test002", 6.0), ("test003", 1.0))]  # fmt: skip
            db.executemany(f"INSERT INTO results VALUES ({', '.join('?' * 11)})", rows)
        queue = GradingQueue(service)
        assert queue.stage_cost(PUBLIC) == (11.0, 11.0 + DEFAULT_STAGE_SECONDS)  # 5 + 6, 1 slot
        work, wall = queue.stage_cost(OTHER)  # test003 measured, the others not yet
        others = len(service.tests) - 3
        assert work == 1.0 + others * DEFAULT_TEST_SECONDS
        assert wall == work / 2 + DEFAULT_STAGE_SECONDS
    finally:
        service.close()


def test_upload_numbers_are_the_students_everywhere(tmp_path: Path) -> None:
    """A student sees #1, #2 ...: the API says which number replaced an
    upload (beside the id, its key), the status page names a running
    upload by its number too, and an upload graded in full reports its tests
    done, not 0 of 0."""
    service = make_service(tmp_path, COURSE.format(more=""))
    app = app_of(service)
    try:
        with TestClient(app):
            alice, tina = person(app, service, "alice"), person(app, service, "tina", "teacher")
            first = alice.upload_id("sudoku.pl", b"sudoku(_, _) :- repeat, fail.\n")
            second = alice.upload_id("sudoku.pl", ALICE)
            done = alice.wait(second)
            assert done["state"] == "done" and done["done"] == done["total"] == len(service.tests)
            old = alice.client.get(f"/uploads/{first}/status.json").json()
            assert old["state"] == "replaced" and old["replaced_by"] == second
            assert old["number"] == 1 and old["replaced_by_number"] == 2
            assert "#2" in tina.page("/students/alice")
    finally:
        service.close()
