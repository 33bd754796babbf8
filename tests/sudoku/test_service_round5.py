"""Issue 52, items 7 to 11, each against a real `serve` over HTTP: the
documentation under the programs' hourly limit and a storage cap (SQLite
and PostgreSQL), mail claimed in the database so that `accounts --send`
and a running service never send one twice (both databases, a real SMTP
server), `accounts --send` against a server that never answers, every
cell of every CSV export guarded and roster addresses checked, and
extension dates read once, with their offset, in range."""

from __future__ import annotations

import csv
import io
import re
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from postgres import postgres_server
from run_plpuzzle import plpuzzle
from service_kit import PASSWORD, Server, make_course, smtp_server, wait_for
from sqlalchemy import select, update

from plpuzzle.sudoku.service.core import Service, ServiceSettings
from plpuzzle.sudoku.service.store import Mail, Store, User

pytestmark = pytest.mark.sandbox

COURSE = """\
time_limit = 10

[course]
name = "Sudoku 2026"
public = ["test001", "test002"]
shrink_seconds = 0
{more}
"""


def course_toml(more: str = "") -> str:
    return COURSE.format(more=more)


# -- the two databases ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    with postgres_server() as url:
        yield url


_databases = iter(range(1000))


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """None for the data folder's SQLite, else a fresh PostgreSQL database,
    which the commands and servers a test starts are given too."""
    if request.param == "sqlite":
        return None
    import psycopg

    server: str = request.getfixturevalue("postgres")
    name = f"round5_{next(_databases)}"
    with psycopg.connect(server, autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    url = server.replace("/postgres?", f"/{name}?")
    monkeypatch.setenv("PLPUZZLE_DATABASE_URL", url)
    return url


def tokens(course: Path, data: Path, url: str | None, students: list[str]) -> dict[str, str]:
    """Accounts with a password and an API token each (a teacher, tina, too)."""
    service = Service(ServiceSettings(course, data, database_url=url))
    try:
        service.accounts.create(students, "student")
        service.accounts.create(["tina"], "teacher")
        with service.store.session() as db:
            users = {u.login: u.id for u in db.scalars(select(User))}
        for user_id in users.values():
            service.accounts.set_password(user_id, PASSWORD)
        return {login: service.accounts.new_token(i, "t") for login, i in users.items()}
    finally:
        service.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# -- 7. the documentation under the programs' limits ------------------------------------------


def hand_in_doc(url: str, token: str, data: bytes, name: str = "doc.txt") -> httpx.Response:
    return httpx.post(f"{url}/api/documents", headers=bearer(token),
                      files={"file": (name, data)}, timeout=120)  # fmt: skip


@pytest.mark.slow
def test_documentation_has_the_hourly_limit_and_a_storage_cap(
    tmp_path: Path, database: str | None
) -> None:
    more = "uploads_per_hour = 3\nmax_doc_kb = 400\nmax_stored_mb = 1"
    course = make_course(tmp_path / "course", course_toml(more))
    data = tmp_path / "data"
    keys = tokens(course, data, database, ["ann", "bea"])
    with Server(course, data, 1) as server:
        # A burst of 8 different files at once: the hourly limit holds.
        burst = [f"ann's notes, version {n}\n".encode() for n in range(8)]
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda d: hand_in_doc(server.url, keys["ann"], d), burst))
        codes = sorted(r.status_code for r in answers)
        assert codes == [201] * 3 + [429] * 5, codes
        refused = next(r for r in answers if r.status_code == 429).json()["error"]
        assert "at most 3 documentation files an hour" in refused
        # Counted apart from the programs: a program is still taken.
        program = httpx.post(f"{server.url}/api/uploads", headers=bearer(keys["ann"]),
                             files={"file": ("sudoku.pl", b"% nothing yet\n")},
                             timeout=120)  # fmt: skip
        assert program.status_code == 201, program.text
        # The storage cap: 1 MB of distinct files at most, whatever the kind.
        big = [bytes([65 + n]) * 400 * 1024 for n in range(3)]
        assert hand_in_doc(server.url, keys["bea"], big[0]).status_code == 201
        assert hand_in_doc(server.url, keys["bea"], big[1]).status_code == 201
        full = hand_in_doc(server.url, keys["bea"], big[2])
        assert full.status_code == 413, full.text
        assert "the 1 MB this course keeps of a student" in full.json()["error"]
        # A file kept already costs nothing: taken again.
        assert hand_in_doc(server.url, keys["bea"], big[0]).status_code == 201
        listed = httpx.get(f"{server.url}/api/uploads", headers=bearer(keys["ann"]), timeout=60)
        assert len(listed.json()) == 1


# -- mail: a real SMTP server ----------------------------------------------------------------


@pytest.fixture
def smtp() -> Iterator[tuple[int, list[Any]]]:
    """A real SMTP server on loopback that takes a little while over each
    mail, as a real one does; what it received."""
    with smtp_server(delay=0.2) as found:
        yield found


def mail_toml(port: int, more: str = "") -> str:
    return course_toml(f'{more}\n[course.mail]\nhost = "127.0.0.1"\nport = {port}\n'
                       'from = "sudoku@example.edu"\ndomain = "students.example.edu"\n'
                       "starttls = false")  # fmt: skip


def waiting_mails(course: Path, data: Path, url: str | None) -> list[Mail]:
    store = Store(url or f"sqlite:///{data.resolve() / 'service.sqlite'}")
    try:
        with store.session() as db:
            return list(db.scalars(select(Mail).where(Mail.state == "waiting")))
    finally:
        store.close()


# -- 8. each mail once -----------------------------------------------------------------------


@pytest.mark.slow
def test_accounts_send_beside_a_running_service_mails_each_link_once(
    tmp_path: Path, database: str | None, smtp: tuple[int, list[Any]]
) -> None:
    port, received = smtp
    course = make_course(tmp_path / "course", mail_toml(port))
    data = tmp_path / "data"
    students = [f"s{n:02d}" for n in range(16)]
    roster = tmp_path / "roster.txt"
    with Server(course, data, 1) as server:
        # Two classes enrolled at once, beside the service's postman (every 3 s):
        # three senders on one outbox.
        roster.write_text("".join(f"{s}\n" for s in students[:8]))
        other = tmp_path / "other.txt"
        other.write_text("".join(f"{s}\n" for s in students[8:]))
        with ThreadPoolExecutor(2) as pool:
            runs = list(pool.map(
                lambda r: plpuzzle("sudoku", "accounts", course, "--data", data, "--roster", r,
                                   "--send", "-o", r.with_suffix(".csv"), cwd=tmp_path),
                [roster, other],
            ))  # fmt: skip
        for run in runs:
            assert run.returncode in (0, 4), run.stderr  # 4: the postman had some in hand
        wait_for("every link mailed", 120,
                 lambda: not waiting_mails(course, data, database), every=0.5)  # fmt: skip
        to = sorted(r.rcpt_tos[0] for r in received)
        assert to == sorted(f"{s}@students.example.edu" for s in students)
        # A claim of a sender that died lapses, and the mail goes out after all;
        # a live claim is left alone.
        store = Store(database or f"sqlite:///{data.resolve() / 'service.sqlite'}")
        try:
            past = datetime.now(UTC) - timedelta(minutes=1)
            later = datetime.now(UTC) + timedelta(hours=1)
            with store.session() as db:
                for to_addr, until in (("dead@x.example", past), ("held@x.example", later)):
                    db.add(Mail(to_addr=to_addr, subject="s", body="b", kind="link", next_try=past,
                                claimed_by="gone:1", claimed_until=until))  # fmt: skip
            wait_for("the dead sender's mail", 60,
                     lambda: any(r.rcpt_tos == ["dead@x.example"] for r in received))  # fmt: skip
            with store.session() as db:
                held = db.scalar(select(Mail).where(Mail.to_addr == "held@x.example"))
                assert held is not None and held.state == "waiting" and held.tries == 0
                db.execute(update(Mail).where(Mail.id == held.id).values(state="failed"))
        finally:
            store.close()
        assert server.proc.poll() is None
    assert len(received) == len(students) + 1
    assert sorted(r.rcpt_tos[0] for r in received).count("dead@x.example") == 1


# -- 9. a mail server that never answers ---------------------------------------------------------


class Mute:
    """A mail server that accepts connections and never says a word."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)  # held open, never answered

    def close(self) -> None:
        self.sock.close()
        for conn in self.accepted:
            conn.close()


@pytest.mark.slow
def test_accounts_send_to_a_mute_server_returns_and_says_what_waits(tmp_path: Path) -> None:
    mute = Mute()
    try:
        course = make_course(tmp_path / "course", mail_toml(mute.port))
        roster = tmp_path / "roster.txt"
        roster.write_text("".join(f"s{n}\n" for n in range(6)))
        run = plpuzzle("sudoku", "accounts", course, "--roster", roster, "--send",
                       "--send-within", "3", cwd=tmp_path, timeout=120)  # fmt: skip
        assert run.returncode == 4, run.stderr
        assert "0 link(s) mailed; 6 waiting" in run.stderr
        assert "did not finish within 3 s" in run.stderr
        assert "the running service's postman sends them" in run.stderr
        assert "Traceback" not in run.stderr
        # The server was asked once: one that does not answer ends the round
        # (the connection is the kernel's at once; the thread may see it later).
        wait_for("the connection accepted", 60, lambda: mute.accepted, every=0.1)
        assert len(mute.accepted) == 1
        links = list(csv.DictReader((tmp_path / "signin-links.csv").open()))
        assert len(links) == 6
        left = waiting_mails(course, tmp_path / "plpuzzle-service", None)
        assert len(left) == 6 and not any(m.claimed_by for m in left)
        # Only queued: no connection at all, the same answer.
        queued = plpuzzle("sudoku", "accounts", course, "--student", "t1", "--send",
                          "--send-within", "0", cwd=tmp_path, timeout=120)  # fmt: skip
        assert queued.returncode == 4 and "0 link(s) mailed; 1 waiting" in queued.stderr
        assert "queued only" in queued.stderr and len(mute.accepted) == 1
    finally:
        mute.close()
    helped = plpuzzle("sudoku", "accounts", "--help")
    assert "--send-within" in helped.stdout and "exit code 4" in helped.stdout.replace("\n", " ")


# -- 10. formulas in the exports ----------------------------------------------------------------

#: What a spreadsheet may take for the start of a formula.
FORMULA = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


@pytest.mark.slow
def test_every_cell_of_every_export_is_guarded_and_the_roster_refuses_non_addresses(
    tmp_path: Path,
) -> None:
    roster = tmp_path / "roster.txt"
    roster.write_text(
        'alice alice@home.example\nbob   =HYPERLINK("http://evil.example")@x.example\n'
    )
    named = course_toml().replace('"Sudoku 2026"', "\"=cmd|' /C calc'!A0\"")
    course = make_course(tmp_path / "course", named)
    refused = plpuzzle("sudoku", "accounts", course, "--roster", roster, cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert f"{roster}:2:7: " in refused.stderr and "is not a mail address" in refused.stderr
    for bad in ("+1@x.example", "a@b@x.example", "a..b@x.example", "a@localhost", "é@x.example"):
        roster.write_text(f"carol {bad}\n")
        answer = plpuzzle("sudoku", "accounts", course, "--roster", roster, cwd=tmp_path)
        assert answer.returncode == 2 and f"{roster}:1:7: " in answer.stderr, (bad, answer.stderr)
    data = tmp_path / "data"
    students = ["alice", "bob", "carol", "dora", "eve", "finn", "gus"]
    keys = tokens(course, data, None, students)
    # Subjects (an LMS's ids) as another system might hand them over.
    hostile = ["=1+2", "+A1", "-2+3", "@SUM(A1)", "\t=1", "  =1+1", "\uff1d1+1"]
    service = Service(ServiceSettings(course, data))
    try:
        with service.store.session() as db:
            found = db.scalars(select(User).where(User.role == "student").order_by(User.login))
            for user, subject in zip(found, hostile, strict=True):
                user.subject = subject
    finally:
        service.close()
    with Server(course, data, 1) as server:
        for name in ("grades.csv", "grades-wide.csv", "moodle.csv", "canvas.csv"):
            r = httpx.get(f"{server.url}/api/export/{name}", headers=bearer(keys["tina"]),
                          timeout=60)  # fmt: skip
            assert r.status_code == 200, (name, r.text)
            rows = list(csv.reader(io.StringIO(r.text)))
            assert len(rows) >= len(students)
            for row in rows:
                for cell in row:
                    live = cell.lstrip(" ").startswith(FORMULA) and not _number(cell)
                    assert not live, (name, cell)
        text = httpx.get(f"{server.url}/api/export/canvas.csv", headers=bearer(keys["tina"]),
                         timeout=60).text  # fmt: skip
        canvas = list(csv.reader(io.StringIO(text)))
        assert canvas[0][5].startswith("'=cmd")
        assert sorted(row[2] for row in canvas[2:]) == sorted(f"'{h}" for h in hostile)


# -- 11. extension dates --------------------------------------------------------------------------


@pytest.mark.slow
def test_extension_dates_keep_their_offset_and_out_of_range_ones_are_refused(
    tmp_path: Path,
) -> None:
    course = make_course(tmp_path / "course", course_toml("deadline = 2026-12-15T23:59:00-05:00"))
    data = tmp_path / "data"
    keys = tokens(course, data, None, ["erin", "fred"])
    service = Service(ServiceSettings(course, data))
    try:
        (tom,) = service.accounts.create(["tom"], "teacher")
    finally:
        service.close()
    with Server(course, data, 1) as server:

        def grant(until: str) -> httpx.Response:
            return httpx.post(f"{server.url}/api/students/erin/extension",
                              headers=bearer(keys["tina"]), data={"until": until},
                              timeout=60)  # fmt: skip

        typed = grant("2026-12-20T23:59+14:00")
        assert typed.status_code == 200, typed.text
        assert typed.json()["deadline"] == "2026-12-20T09:59:00+00:00"
        assert typed.json()["shown"] == "2026-12-20 04:59 (UTC-05:00)"
        plain = grant("2026-12-20T23:59")  # in the course's offset
        assert plain.json()["deadline"] == "2026-12-21T04:59:00+00:00"
        for bad, why in (("9999-12-31T23:59", "not in the years 2000 to 2999"),
                         ("0001-01-01T00:00+14:00", "not in the years 2000 to 2999"),
                         ("2026-12-20T23:59+15:00", "none of the world's"),
                         ("2026-12-20", "no time of day"),
                         ("soon", "no date and time")):  # fmt: skip
            r = grant(bad)
            assert r.status_code == 400 and why in r.json()["error"], (bad, r.text)
        assert grant("2026-12-20T23:59").status_code == 200
        gone = httpx.post(f"{server.url}/api/students/erin/extension",
                          headers=bearer(keys["fred"]), data={"until": "2026-12-20T23:59"},
                          timeout=60)  # fmt: skip
        assert gone.status_code == 404  # a student's token: no such route
        # The teacher's page: the same rule, a clear 400 on the page.
        with httpx.Client(base_url=server.url, timeout=60) as browser:
            assert tom.token is not None
            welcome = browser.post(f"/welcome/{tom.token}",
                                   data={"password": PASSWORD, "again": PASSWORD})  # fmt: skip
            assert welcome.status_code in (200, 303), welcome.text[:300]
            page = browser.get("/students/fred").text
            found = re.search(r'name="csrf" value="([^"]+)"', page)
            assert found, page[:500]
            form = {"csrf": found.group(1), "until": "9999-12-31T23:59"}
            r = browser.post("/students/fred/extension", data=form)
            assert r.status_code == 400 and "not in the years 2000 to 2999" in r.text
            form["until"] = "2027-01-10T12:00+14:00"
            r = browser.post("/students/fred/extension", data=form, follow_redirects=True)
            assert r.status_code == 200 and "2027-01-09 17:00 (UTC-05:00)" in r.text
        assert server.proc.poll() is None
    # suite.toml's dates go by the same rule: a clear error, no traceback.
    for line in ("deadline = 9999-12-31T23:59:00-05:00",
                 "\n[course.extensions]\nerin = 9999-12-31T23:59:00-05:00"):  # fmt: skip
        (course / "suite.toml").write_text(course_toml(line))
        check = plpuzzle("sudoku", "serve", course, "--data", data, "--check")
        assert check.returncode == 2, check.stderr
        assert "suite.toml:" in check.stderr and "not in the years 2000 to 2999" in check.stderr
        assert "Traceback" not in check.stderr
