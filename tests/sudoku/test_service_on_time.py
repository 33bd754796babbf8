"""On time means the file arrived in time, and one order, arrival.

A hand-in's time is the moment its last byte arrived, not when its
request began: a body opened before the deadline and finished after it
is late. A body must arrive within a bound (web.body_seconds), however
it trickles, or it is refused with 408 and nothing of it is kept. A
student's uploads and documents are counted, replaced, numbered and
listed by that time, even when they are written in another order.

Real `plpuzzle sudoku serve` processes; the slow bodies are written by
hand on raw sockets. The waits are generous bounds: no assertion hinges
on how long anything took; the order of events is made by construction
(a body held open, a database row held locked).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from service_kit import (
    CLASS,
    Server,
    api_shown,
    api_tokens,
    api_upload,
    make_course,
    wait_for,
)

from plpuzzle.sudoku.service.core import Service, ServiceSettings
from plpuzzle.sudoku.service.documents import counting_document, documents_of
from plpuzzle.sudoku.service.results import counting_uploads
from plpuzzle.sudoku.service.store import User

#: The course's body_seconds in the tests of the bound (the product's is
#: 15): a small body that never ends is refused after 3 s, one of no
#: stated size after 4 times that, not after 15 and 60 s.
BODY_SECONDS = 3
BOUNDED = f"body_seconds = {BODY_SECONDS}"

pytestmark = pytest.mark.sandbox

ALICE = (CLASS / "alice.pl").read_bytes()
GRACE = (CLASS / "grace.pl").read_bytes()  # loops: every test takes its whole CPU limit

COURSE = """\
time_limit = 10

[course]
public = ["test001", "test002"]
uploads_per_hour = 30
shrink_seconds = 0
{more}
"""


def padded(source: bytes, kb: int) -> bytes:
    """`source` with comment lines up to about `kb` KB: a body whose size
    gives it a long bound (web.body_seconds), so that a test's pauses stay
    far within it."""
    line = b"% " + b"x" * 77 + b"\n"
    return source + line * (kb * 1024 // len(line))


def form(name: str, data: bytes) -> tuple[str, bytes]:
    """A multipart form with one file field: (Content-Type, body)."""
    boundary = "plp" + secrets.token_hex(12)
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n").encode()  # fmt: skip
    return (
        f"multipart/form-data; boundary={boundary}",
        head + data + f"\r\n--{boundary}--\r\n".encode(),
    )


class Raw:
    """One HTTP request written by hand on a socket of its own, its body
    sent when and as the test says."""

    def __init__(self, url: str, path: str, token: str, data: bytes, name: str = "sudoku.pl",
                 length: int | None = -1, expect: bool = False) -> None:  # fmt: skip
        """`length`: the Content-Length to state (-1: the body's own; None:
        none, the body chunked); `expect`: ask for 100 Continue."""
        where = urlsplit(url)
        kind, self.body = form(name, data)
        self.chunked = length is None
        stated = len(self.body) if length == -1 else length
        lines = [f"POST {path} HTTP/1.1", f"Host: {where.netloc}",
                 f"Authorization: Bearer {token}", f"Content-Type: {kind}"]  # fmt: skip
        lines.append("Transfer-Encoding: chunked" if self.chunked else f"Content-Length: {stated}")
        if expect:
            lines.append("Expect: 100-continue")
        self.sock = socket.create_connection((where.hostname, where.port), timeout=120)
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.sent = 0

    def send(self, count: int | None = None) -> bool:
        """Send the next `count` bytes of the body (None: the rest, and the
        chunked body's end); False once the server has closed."""
        part = self.body[self.sent : None if count is None else self.sent + count]
        self.sent += len(part)
        wire = part
        if self.chunked:
            wire = (b"%x\r\n%s\r\n" % (len(part), part)) if part else b""
            if count is None:
                wire += b"0\r\n\r\n"
        try:
            self.sock.sendall(wire)
        except OSError:
            return False
        return True

    def answered(self) -> bool:
        """Whether the server has said something (without reading it)."""
        self.sock.setblocking(False)
        try:
            return bool(self.sock.recv(1, socket.MSG_PEEK))
        except BlockingIOError:
            return False
        except OSError:
            return True
        finally:
            self.sock.setblocking(True)
            self.sock.settimeout(120)

    def response(self) -> tuple[int, dict[str, str], bytes]:
        """The final response: (status, headers, body); an interim 100 is
        passed over."""
        buffer = b""
        while True:
            while b"\r\n\r\n" not in buffer:
                chunk = self.sock.recv(65536)
                assert chunk, f"the server closed without an answer: {buffer!r}"
                buffer += chunk
            head, buffer = buffer.split(b"\r\n\r\n", 1)
            status_line, *header_lines = head.decode("latin-1").split("\r\n")
            status = int(status_line.split()[1])
            if status != 100:
                break
        headers = {k.strip().lower(): v.strip()
                   for k, v in (h.split(":", 1) for h in header_lines)}  # fmt: skip
        size = int(headers.get("content-length", "0"))
        while len(buffer) < size:
            chunk = self.sock.recv(65536)
            assert chunk, "the server closed within its answer"
            buffer += chunk
        return status, headers, buffer[:size]

    def closed_after(self) -> bool:
        """Whether the server closes the connection after its answer."""
        try:
            while chunk := self.sock.recv(65536):
                del chunk
        except TimeoutError:
            return False
        except OSError:
            return True  # reset: closed with our bytes unread
        return True

    def close(self) -> None:
        self.sock.close()


def uploads_of(url: str, token: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{url}/api/uploads", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def api_document(url: str, token: str, data: bytes, name: str = "doc.txt") -> Any:
    return httpx.post(f"{url}/api/documents", headers={"Authorization": f"Bearer {token}"},
                      files={"file": (name, data)}, timeout=120)  # fmt: skip


def user_id(service: Service, login: str) -> int:
    from sqlalchemy import select

    with service.store.session() as db:
        found = db.scalar(select(User.id).where(User.login == login))
    assert found is not None
    return found


# -- a body's bound ---------------------------------------------------------------------


def hostile(server: Server, token: str, case: str) -> Raw:
    """A request of one kind of client that never finishes its body."""
    small = b"sudoku(_, _) :- true.\n"
    if case == "dribbles":  # a byte at a time, on and on
        return Raw(server.url, "/api/uploads", token, small)
    if case == "lies":  # states more than it sends, then stops
        return Raw(server.url, "/api/uploads", token, small, length=len(small) + 4096)
    if case == "expects":  # asks for 100 Continue, sends half, stops
        return Raw(server.url, "/api/uploads", token, small, expect=True)
    if case == "document":  # documentation, half sent
        return Raw(server.url, "/api/documents", token, b"notes\n" * 40, name="doc.txt")
    assert case == "chunked"  # no stated size: the longest bound
    return Raw(server.url, "/api/uploads", token, small, length=None)


def refused_in_time(raws: dict[str, Raw], dribble: str = "") -> None:
    """Each request is answered 408 with its connection closed, though its
    body never ends (`dribble`'s goes on a byte every half second)."""
    answers: dict[str, tuple[int, dict[str, str], bytes]] = {}

    def watch(case: str, raw: Raw) -> None:
        raw.send(len(raw.body) // 2)
        if case == dribble:
            while not raw.answered() and raw.sent < len(raw.body) - 1 and raw.send(1):
                time.sleep(0.5)
        answers[case] = raw.response()

    threads = [threading.Thread(target=watch, args=item) for item in raws.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    for case, raw in raws.items():
        status, headers, body = answers[case]
        assert status == 408, (case, status, body)
        bound = 4 * BODY_SECONDS if raw.chunked else BODY_SECONDS  # the course's, as set
        assert f"did not arrive within {bound} s".encode() in body, (case, body)
        assert headers.get("connection") == "close", (case, headers)
        assert raw.sent < len(raw.body), case  # answered before its body ended
        assert raw.closed_after(), case
        raw.close()


@pytest.mark.slow
def test_a_body_that_does_not_arrive_in_time_is_refused_and_nothing_kept(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", COURSE.format(more=BOUNDED))
    data = tmp_path / "data"
    tokens = api_tokens(course, data, ["mallory"])
    with Server(course, data, 1) as server:
        # The dribbler sends a byte every half second: its stated size at
        # that pace would be far past the bound.
        raws = {case: hostile(server, tokens["mallory"], case)
                for case in ("dribbles", "lies", "expects", "document")}  # fmt: skip
        assert len(raws["dribbles"].body) / 2 * 0.5 > 2 * BODY_SECONDS
        refused_in_time(raws, dribble="dribbles")
        assert uploads_of(server.url, tokens["mallory"]) == []
        # The service goes on: a whole upload is taken.
        r = api_upload(server.url, tokens["mallory"], ALICE)
        assert r.status_code == 201, r.text
    service = Service(ServiceSettings(course, data))
    try:
        assert documents_of(service, user_id(service, "mallory")) == []
    finally:
        service.close()


@pytest.mark.slow
def test_a_chunked_body_with_no_size_is_bounded_too(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", COURSE.format(more=BOUNDED))
    data = tmp_path / "data"
    tokens = api_tokens(course, data, ["mallory"])
    with Server(course, data, 1) as server:
        refused_in_time({"chunked": hostile(server, tokens["mallory"], "chunked")})
        assert uploads_of(server.url, tokens["mallory"]) == []


def test_a_chunked_body_past_the_size_limit_gets_the_courses_words(tmp_path: Path) -> None:
    """With no stated size, the limit is met as the body streams in: the
    answer is the 413 that names the course's limit (not the form
    parser's 400), and nothing is kept."""
    course = make_course(tmp_path / "course", COURSE.format(more="max_upload_kb = 64"))
    data = tmp_path / "data"
    tokens = api_tokens(course, data, ["mallory"])
    with Server(course, data, 1) as server:
        raw = Raw(server.url, "/api/uploads", tokens["mallory"], padded(ALICE, 200), length=None)
        for _ in range(len(raw.body) // 8192 + 1):
            if raw.answered() or not raw.send(8192):
                break
        status, _, body = raw.response()
        raw.close()
        assert status == 413, body
        assert b"larger than 64 KB" in body, body
        assert uploads_of(server.url, tokens["mallory"]) == []


# -- on time: the last byte before the deadline ----------------------------------------------


def until(moment: datetime) -> None:
    """Sleep until `moment` has passed (by this machine's clock, the server's)."""
    while (left := (moment - datetime.now(UTC)).total_seconds()) > 0:
        time.sleep(min(left + 0.01, 1.0))


@dataclass
class Course:
    server: Server
    tokens: dict[str, str]
    course: Path
    data: Path
    front: str


@contextlib.contextmanager
def course_open(tmp_path: Path, late: str, logins: list[str],
                front: Callable[[int], str] | None = None) -> Iterator[Course]:  # fmt: skip
    """A running service (behind `front`, given the port, if any) whose
    course deadline is a day ahead: a test moves its students' deadline
    to the moment it chooses (`deadline_passes`), so that nothing waits
    for a deadline and nothing hinges on how fast the service starts."""
    deadline = datetime.now(UTC).replace(microsecond=0) + timedelta(days=1)
    more = f'deadline = {deadline.isoformat()}\nlate = "{late}"'
    course = make_course(tmp_path / "course", COURSE.format(more=more))
    data = tmp_path / "data"
    tokens = api_tokens(course, data, logins)
    with Server(course, data, 1) as server:
        url = front(server.port) if front is not None else server.url
        yield Course(server, tokens, course, data, url)


def deadline_passes(url: str, teacher: str, logins: list[str]) -> datetime:
    """The students' deadline moved to the next whole second, then waited
    for (under a second): what was sent before this call was sent before
    the deadline, what is sent after it arrives after. The teacher grants
    it as an extension through the API, the path a teacher's own takes,
    and the service reads a student's deadline there for every upload."""
    moment = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=1)
    until(moment)
    for login in logins:
        r = httpx.post(f"{url}/api/students/{login}/extension",
                       headers={"Authorization": f"Bearer {teacher}"},
                       data={"until": moment.isoformat()}, timeout=60)  # fmt: skip
        assert r.status_code == 200, r.text
        assert datetime.fromisoformat(r.json()["deadline"]) == moment, r.text
    return moment


@pytest.mark.parametrize("late", ["refused", "ignored"])
@pytest.mark.slow
def test_a_file_that_arrives_after_the_deadline_is_late_however_early_it_began(
    tmp_path: Path, late: str
) -> None:
    """alice and bob open an upload and a document before the deadline and
    send their last bytes after it: late (refused, nothing kept; or kept,
    late, not counting). carol's whole upload before the deadline is on
    time and counts."""
    big = padded(ALICE, 400)  # 400 KB: its bound is 25 s, the test's pause a second or two
    students = ["alice", "bob", "carol"]
    with course_open(tmp_path, late, students) as due:
        server, tokens, course, data = due.server, due.tokens, due.course, due.data
        early = api_upload(server.url, tokens["alice"], ALICE)
        on_time = api_upload(server.url, tokens["carol"], ALICE)
        assert early.status_code == on_time.status_code == 201, (early.text, on_time.text)
        assert on_time.json()["late"] is False and on_time.json()["counts"] is True
        upload = Raw(server.url, "/api/uploads", tokens["alice"], big)
        document = Raw(server.url, "/api/documents", tokens["bob"], b"notes\n" * 60000,
                       name="doc.txt")  # fmt: skip
        for raw in (upload, document):
            raw.send(len(raw.body) - 100)
        deadline = deadline_passes(server.url, tokens["tina"], students)
        answers = []
        for raw in (upload, document):
            raw.send()
            answers.append(raw.response())
            raw.close()
        shown = uploads_of(server.url, tokens["alice"])
    service = Service(ServiceSettings(course, data))
    try:
        counted = counting_uploads(service)
        bobs = documents_of(service, user_id(service, "bob"))
    finally:
        service.close()
    assert counted["carol"] is not None and counted["carol"].created < deadline
    assert counted["alice"] is not None and counted["alice"].id == early.json()["id"]
    if late == "refused":
        for status, _, body in answers:
            assert status == 403 and b"has passed" in body, (status, body)
        assert [u["id"] for u in shown] == [early.json()["id"]]
        assert bobs == []
    else:
        for status, _, body in answers:
            assert status == 201, (status, body)
        import json

        kept_upload, kept_doc = (json.loads(body) for _, _, body in answers)
        assert kept_upload["late"] is True and kept_upload["counts"] is False
        assert kept_doc["late"] is True and kept_doc["counts"] is False
        assert len(shown) == 2 and shown[0]["id"] == kept_upload["id"]
        assert [d.id for d in bobs] == [kept_doc["id"]] and bobs[0].created > deadline


# -- one order: arrival ---------------------------------------------------------------------


@pytest.mark.slow
def test_the_upload_whose_last_byte_arrives_last_is_the_newest(tmp_path: Path) -> None:
    """alice opens upload A, sends upload B whole, then finishes A: A
    arrived last, so it is #2, it counts and it replaces B (still being
    graded: B loops); the same for two documents."""
    course = make_course(tmp_path / "course", COURSE.format(more=""))
    data = tmp_path / "data"
    tokens = api_tokens(course, data, ["alice"])
    token = tokens["alice"]
    with Server(course, data, 1) as server:
        first = Raw(server.url, "/api/uploads", token, ALICE)
        first_doc = Raw(server.url, "/api/documents", token, b"first\n", name="a.txt")
        for raw in (first, first_doc):
            raw.send(len(raw.body) - 10)
        second = api_upload(server.url, token, GRACE)
        second_doc = api_document(server.url, token, b"second\n", "b.txt")
        assert second.status_code == second_doc.status_code == 201, second.text
        for raw in (first, first_doc):
            raw.send()
        (status, _, _), (doc_status, _, _) = first.response(), first_doc.response()
        assert status == doc_status == 201
        b_id = second.json()["id"]
        listed = uploads_of(server.url, token)
        a_id = listed[0]["id"]
        assert [u["id"] for u in listed] == [a_id, b_id]
        a, b = api_shown(server.url, token, a_id), api_shown(server.url, token, b_id)
        assert (a["number"], b["number"]) == (2, 1)
        assert b["state"] == "replaced" and b["replaced_by"] == a_id
        assert a["created"] > b["created"]
    service = Service(ServiceSettings(course, data))
    try:
        chosen = counting_uploads(service)["alice"]
        assert chosen is not None and chosen.id == a_id
        doc = counting_document(service, user_id(service, "alice"))
        assert doc is not None and doc.name == "a.txt"
    finally:
        service.close()


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    from postgres import postgres_server

    with postgres_server() as url:
        yield url


@pytest.mark.slow
def test_an_upload_written_after_one_that_arrived_later_is_the_older_one(
    tmp_path: Path, postgres: str
) -> None:
    """alice's upload A and document A arrive first, but their writing
    waits (their API token's row is held locked, by the test, in
    PostgreSQL) while upload B and document B, sent later with her other
    token, are written. A is then written last, yet B is the newest: B is
    #2 and counts, A is #1 and replaced by B at once, B is listed first;
    document B counts."""
    import psycopg

    with psycopg.connect(postgres, autocommit=True) as db:
        db.execute('CREATE DATABASE "order"')
    url = postgres.replace("/postgres?", "/order?")
    course = make_course(tmp_path / "course", COURSE.format(more=""))
    data = tmp_path / "data"
    service = Service(ServiceSettings(course, data, database_url=url))
    try:
        service.accounts.create(["alice"], "student")
        alice = user_id(service, "alice")
        held, free = (service.accounts.new_token(alice, label) for label in ("held", "free"))
    finally:
        service.close()
    old = dict(os.environ)
    os.environ["PLPUZZLE_DATABASE_URL"] = url
    try:
        server = Server(course, data, 1).start()
    finally:
        os.environ.clear()
        os.environ.update(old)
    answers: dict[str, Any] = {}

    def send(what: str) -> None:
        if what == "upload":
            answers[what] = api_upload(server.url, held, ALICE)
        else:
            answers[what] = api_document(server.url, held, b"first\n", "a.txt")

    try:
        with psycopg.connect(url) as lock, psycopg.connect(url, autocommit=True) as probe:
            lock.execute("SELECT id FROM api_tokens WHERE label = 'held' FOR UPDATE")
            threads = [threading.Thread(target=send, args=(w,)) for w in ("upload", "document")]
            for thread in threads:
                thread.start()

            def waiting() -> bool:
                row = probe.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                                    "'order' AND wait_event_type = 'Lock'").fetchone()  # fmt: skip
                return row is not None and row[0] == 2

            # Both arrived in full (their bodies are read before the token
            # is checked) and now wait for the token's row.
            wait_for("A's upload and document waiting for the token", 120, waiting)
            later = api_upload(server.url, free, GRACE)
            later_doc = api_document(server.url, free, b"second\n", "b.txt")
            assert later.status_code == later_doc.status_code == 201, later.text
            lock.commit()
            for thread in threads:
                thread.join(120)
        assert answers["upload"].status_code == answers["document"].status_code == 201
        a_id, b_id = answers["upload"].json()["id"], later.json()["id"]
        assert a_id > b_id  # written after B: the case at hand
        a, b = api_shown(server.url, free, a_id), api_shown(server.url, free, b_id)
        assert a["created"] < b["created"]
        assert (a["number"], b["number"]) == (1, 2)
        assert a["state"] == "replaced" and a["replaced_by"] == b_id
        assert b["state"] != "replaced"
        assert [u["id"] for u in uploads_of(server.url, free)] == [b_id, a_id]
    finally:
        server.stop()
    service = Service(ServiceSettings(course, data, database_url=url))
    try:
        chosen = counting_uploads(service)["alice"]
        assert chosen is not None and chosen.id == b_id
        doc = counting_document(service, alice)
        assert doc is not None and doc.name == "b.txt"
        assert [d.name for d in documents_of(service, alice)] == ["b.txt", "a.txt"]
    finally:
        service.close()


# -- behind nginx ---------------------------------------------------------------------------

NGINX = """\
daemon off;
master_process off;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{}}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 1m;
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_request_buffering on;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $remote_addr;
        }}
    }}
}}
"""


@pytest.fixture
def nginx_in_front(tmp_path: Path) -> Iterator[Any]:
    """Start Debian's nginx in front of a port (the callable's argument);
    skips when nginx is missing, unless PLPUZZLE_REQUIRE_BROWSER=1 (CI)."""
    import shutil
    import subprocess

    from service_kit import free_port

    binary = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if binary is None:
        if os.environ.get("PLPUZZLE_REQUIRE_BROWSER") == "1":
            raise AssertionError("nginx is not installed (the Debian package nginx)")
        pytest.skip("nginx is not installed (the Debian package nginx)")
    started: list[subprocess.Popen[bytes]] = []

    def start(upstream: int) -> str:
        folder = tmp_path / f"nginx{len(started)}"
        folder.mkdir()
        port = free_port()
        conf = folder / "nginx.conf"
        conf.write_text(NGINX.format(dir=folder, port=port, upstream=upstream))
        log = (folder / "out.log").open("ab")
        started.append(subprocess.Popen([binary, "-c", str(conf), "-p", str(folder)],
                                        stdout=log, stderr=subprocess.STDOUT))  # fmt: skip
        url = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                return httpx.get(f"{url}/signin", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_for("nginx answering", 60, up, every=0.2)
        return url

    yield start
    for proc in started:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_behind_nginx_a_file_that_arrives_after_the_deadline_is_late(
    tmp_path: Path, nginx_in_front: Any
) -> None:
    """nginx reads the whole body before it passes it on: the upload
    opened before the deadline and finished after it reaches the service
    after the deadline, and is refused; a whole upload before it is on time.
    (The service's stamp is then when nginx passes the body: this holds
    by nginx's buffering, and shows that the bound does not get in its way.)"""
    with course_open(tmp_path, "refused", ["alice", "carol"], nginx_in_front) as due:
        server, tokens, front = due.server, due.tokens, due.front
        on_time = api_upload(front, tokens["carol"], ALICE)
        assert on_time.status_code == 201 and on_time.json()["late"] is False, on_time.text
        raw = Raw(front, "/api/uploads", tokens["alice"], padded(ALICE, 400))
        raw.send(len(raw.body) - 100)
        deadline_passes(front, tokens["tina"], ["alice", "carol"])
        raw.send()
        status, _, body = raw.response()
        raw.close()
        assert status == 403 and b"has passed" in body, (status, body)
        assert uploads_of(server.url, tokens["alice"]) == []
        shown = uploads_of(server.url, tokens["carol"])
        assert [u["id"] for u in shown] == [on_time.json()["id"]] and not shown[0]["late"]
