"""The service behind a real nginx with TLS, configured by the very file
the docs include (python/plpuzzle/sudoku/service/deploy/nginx.conf):
Debian's nginx on loopback, in a temporary folder, with a self-signed
certificate made here, in front of a real `serve --secure-cookies`."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_kit import (
    CLASS,
    PASSWORD,
    REPO,
    Server,
    accounts,
    api_tokens,
    free_port,
    make_course,
    smtp_server,
    wait_for,
)

pytestmark = pytest.mark.sandbox

CONF = REPO / "python" / "plpuzzle" / "sudoku" / "service" / "deploy" / "nginx.conf"
ALICE = (CLASS / "alice.pl").read_bytes()
HOST = "localhost"

COURSE = """\
time_limit = 10

[course]
name = "Sudoku 2026"
public = ["test001", "test002"]
uploads_per_hour = 30
shrink_seconds = 0

[course.mail]
host = "127.0.0.1"
port = {port}
from = "sudoku@example.edu"
domain = "students.example.edu"
starttls = false
"""


def nginx_binary() -> str:
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None
    )
    if found is None:
        if os.environ.get("PLPUZZLE_REQUIRE_BROWSER") == "1":
            raise AssertionError("nginx is not installed (Debian package nginx)")
        pytest.skip("nginx is not installed (the Debian package nginx: make test installs it)")
    return found


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost and 127.0.0.1, made for this test."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(key), "-out", str(cert), "-subj", f"/CN={HOST}",
                    "-addext", f"subjectAltName=DNS:{HOST},IP:127.0.0.1"],
                   check=True, capture_output=True)  # fmt: skip
    return cert, key


def shipped_conf(tls: int, plain: int, upstream: int, cert: Path, key: Path) -> str:
    """The shipped file with this test's ports and certificate: each
    replaced text must be there (the file cannot drift from the test)."""
    text = CONF.read_text()
    for old, new in (("listen 443 ssl;", f"listen 127.0.0.1:{tls} ssl;"),
                     ("listen 80;", f"listen 127.0.0.1:{plain};"),
                     ("http://127.0.0.1:8000", f"http://127.0.0.1:{upstream}"),
                     ("/etc/ssl/certs/sudoku.example.edu.pem", str(cert)),
                     ("/etc/ssl/private/sudoku.example.edu.key", str(key))):  # fmt: skip
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


@dataclass
class Proxy:
    url: str
    plain: str
    tls: int
    context: ssl.SSLContext
    folder: Path

    def client(self, source: str = "127.0.0.1") -> httpx.Client:
        """An HTTPS client of the proxy from a loopback address of its own
        (127.0.0.2 is another client than 127.0.0.3 to nginx)."""
        transport = httpx.HTTPTransport(verify=self.context, local_address=source)
        return httpx.Client(base_url=self.url, transport=transport, timeout=120)


@contextlib.contextmanager
def nginx_in_front(folder: Path, upstream: int) -> Iterator[Proxy]:
    """Debian's nginx, not a daemon, in `folder`, with the shipped server
    blocks; stopped after."""
    binary = nginx_binary()
    folder.mkdir()
    cert, key = self_signed(folder)
    tls, plain = free_port(), free_port()
    (folder / "plpuzzle.conf").write_text(shipped_conf(tls, plain, upstream, cert, key))
    temp = "\n".join(f"    {kind}_temp_path {folder / kind};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))  # fmt: skip
    # As root, the workers run as root too: the test's folder is private to it.
    user = "user root;\n" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(
        f"{user}worker_processes 1;\nerror_log {folder / 'error.log'} info;\n"
        f"events {{ worker_connections 256; }}\n"
        f"http {{\n    access_log {folder / 'access.log'};\n{temp}\n"
        f"    include {folder / 'plpuzzle.conf'};\n}}\n"
    )
    errors = (folder / "stderr").open("wb")
    proc = subprocess.Popen([binary, "-c", str(folder / "nginx.conf"), "-p", str(folder),
                             "-g", f"daemon off; pid {folder / 'nginx.pid'};"],
                            stdout=subprocess.DEVNULL, stderr=errors)  # fmt: skip
    context = ssl.create_default_context(cafile=str(cert))
    proxy = Proxy(f"https://{HOST}:{tls}", f"http://127.0.0.1:{plain}", tls, context, folder)

    def answers() -> bool:
        if proc.poll() is not None:
            raise AssertionError((folder / "stderr").read_text())
        try:
            httpx.get(f"{proxy.plain}/", timeout=5)
            return True
        except httpx.HTTPError:
            return False

    try:
        wait_for("nginx answers", 60, answers)
        yield proxy
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        errors.close()


@dataclass
class Site:
    proxy: Proxy
    server: Server
    tokens: dict[str, str]
    links: dict[str, str]
    mails: list[Any]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("nginx")
    with smtp_server() as (smtp_port, mails):
        course = make_course(tmp / "course", COURSE.format(port=smtp_port))
        data = tmp / "data"
        tokens = api_tokens(course, data, ["alice", "bob", "carol", "dave"])
        links = accounts(course, data, "--student", "erin")
        server = Server(course, data, 2, "--secure-cookies")
        with server, nginx_in_front(tmp / "nginx", server.port) as proxy:
            yield Site(proxy, server, tokens, links, mails)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_sign_in_upload_and_results_over_https_with_secure_cookies_and_hsts(site: Site) -> None:
    plain = httpx.get(f"{site.proxy.plain}/signin", timeout=30)
    assert plain.status_code == 301 and plain.headers["location"].startswith("https://")
    with site.proxy.client() as erin:
        first = erin.get(site.links["erin"])
        assert first.status_code == 200
        assert first.headers["strict-transport-security"] == "max-age=31536000"
        csrf = re.search(r'name="csrf" value="([^"]*)"', first.text)
        fields = {"password": PASSWORD, "again": PASSWORD} | (
            {"csrf": csrf.group(1)} if csrf else {})  # fmt: skip
        signed = erin.post(site.links["erin"], data=fields)
        assert signed.status_code == 303, signed.text[:300]
        cookies = signed.headers.get_list("set-cookie")
        session = [c for c in cookies if c.startswith("plpuzzle_session=")]
        assert session and all("; secure" in c.lower() for c in cookies), cookies
        assert "strict-transport-security" in signed.headers
        # Signed in: the pages answer over HTTPS, and give https:// links.
        tokens = erin.get("/tokens")
        assert tokens.status_code == 200
        assert f"--server {site.proxy.url}" in tokens.text
        form = re.search(r'name="csrf" value="([^"]+)"', tokens.text)
        assert form
        posted = erin.post("/uploads", data={"csrf": form.group(1)},
                           files={"file": ("sudoku.pl", ALICE)})  # fmt: skip
        assert posted.status_code == 303, posted.text[:300]
        page = posted.headers["location"]

        def graded() -> Any:
            state = erin.get(f"{page}/status.json").json()
            return state if state["state"] == "done" else None

        assert wait_for("erin's upload graded", 300, graded, every=0.5)["state"] == "done"
        assert "correct" in erin.get(page).text
    with site.proxy.client() as tina:  # the teacher's release mails the https:// link
        released = tina.post("/api/release", headers=bearer(site.tokens["tina"]))
        assert released.status_code == 200 and released.json()["released"]
    # The API's release mails nobody; the teacher's page does: through the proxy.
    with site.proxy.client() as tina:
        signin = tina.get("/signin")
        pre = re.search(r'name="pre" value="([^"]+)"', signin.text)
        assert pre
        r = tina.post("/signin", data={"login": "tina", "password": PASSWORD,
                                       "pre": pre.group(1)})  # fmt: skip
        assert r.status_code == 303, r.text[:300]
        confirm = tina.get("/release")
        csrf = re.search(r'name="csrf" value="([^"]+)"', confirm.text)
        assert csrf
        assert tina.post("/release", data={"csrf": csrf.group(1)}).status_code == 303
    bodies = wait_for("the release mails sent", 120,
                      lambda: [m.content.decode() for m in site.mails] or None)  # fmt: skip
    assert any(f"{site.proxy.url}/me" in body for body in bodies), bodies[:1]
    assert not any("http://" in body for body in bodies)


def test_the_throttle_sees_the_clients_behind_the_proxy(site: Site) -> None:
    """A guesser at 127.0.0.2 is held; alice at 127.0.0.3 is not (were
    the proxy the client, she would be); a header the guesser sends
    changes nothing."""
    with site.proxy.client("127.0.0.2") as guesser:
        answers = []
        for n in range(25):
            forged = {"X-Forwarded-For": f"198.51.100.{n}"}
            r = guesser.post("/api/tokens", data={"login": "alice", "password": f"guess-{n}"},
                             headers=forged)  # fmt: skip
            answers.append(r.status_code)
            if r.status_code == 429:
                break
        assert answers[-1] == 429 and set(answers[:-1]) == {401}, answers
        again = guesser.post("/api/tokens", data={"login": "alice", "password": PASSWORD},
                             headers={"X-Forwarded-For": "127.0.0.3"})  # fmt: skip
        assert again.status_code == 429
    with site.proxy.client("127.0.0.3") as owner:
        r = owner.post("/api/tokens", data={"login": "alice", "password": PASSWORD})
        assert r.status_code == 201, r.text
    with site.proxy.client() as local:
        figures = local.get("/metrics").text  # nginx on this machine: a loopback client
    assert re.search(r"^plpuzzle_signins_throttled_total [1-9]", figures, re.M), figures


def test_the_body_limit_of_nginx_is_in_line_with_the_courses(site: Site) -> None:
    limit = int(re.search(r"client_max_body_size (\d+)k;", CONF.read_text()).group(1))  # type: ignore[union-attr]
    largest = max(512, 4096) + 64  # the course's defaults: max_upload_kb, max_doc_kb, form
    assert limit >= largest
    with site.proxy.client() as bob:
        auth = bearer(site.tokens["bob"])
        too_big = bob.post("/api/uploads", headers=auth,
                           files={"file": ("sudoku.pl", b"%" * (600 * 1024))})  # fmt: skip
        assert too_big.status_code == 413
        assert "512 KB" in too_big.json()["error"]  # the service's answer, naming the course's
        doc = bob.post("/api/documents", headers=auth,
                       files={"file": ("doc.txt", b"a" * (4096 * 1024))})  # fmt: skip
        assert doc.status_code == 201, doc.text[:300]
        beyond = bob.post("/api/documents", headers=auth,
                          files={"file": ("doc.txt", b"a" * ((limit + 10) * 1024))})  # fmt: skip
        assert beyond.status_code == 413  # nginx's own, before the service


@pytest.mark.slow
def test_a_body_finished_after_the_deadline_is_late_behind_nginx(site: Site) -> None:
    """nginx buffers the body: the service sees the request once its last
    byte came, so a body begun before the deadline and finished after it
    is late. The deadline is set (carol's extension) between the two
    halves: the order is causal, no clock is raced."""
    teacher, carol = bearer(site.tokens["tina"]), bearer(site.tokens["carol"])
    with site.proxy.client() as c:
        far = c.post("/api/students/carol/extension", headers=teacher,
                     data={"until": "2999-01-01T00:00:00+00:00"})  # fmt: skip
        assert far.status_code == 200, far.text
        on_time = c.post("/api/uploads", headers=carol, files={"file": ("sudoku.pl", ALICE)})
        assert on_time.status_code == 201 and on_time.json()["late"] is False
    boundary = "plpuzzleboundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"sudoku.pl\"\r\nContent-Type: text/plain\r\n\r\n").encode()  # fmt: skip
    body += ALICE + f"\r\n--{boundary}--\r\n".encode()
    head = (f"POST /api/uploads HTTP/1.1\r\nHost: {HOST}:{site.proxy.tls}\r\n"
            f"Authorization: Bearer {site.tokens['carol']}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()  # fmt: skip
    half = len(body) // 2
    raw = socket.create_connection(("127.0.0.1", site.proxy.tls), timeout=120)
    with site.proxy.context.wrap_socket(raw, server_hostname=HOST) as tls:
        tls.sendall(head + body[:half])
        time.sleep(0.5)  # not judged: only lets nginx take the first half in
        # To the second, and after the first half came (rounded up, not down).
        until = (datetime.now(UTC) + timedelta(seconds=1)).replace(microsecond=0)
        with site.proxy.client() as c:
            due = c.post("/api/students/carol/extension", headers=teacher,
                         data={"until": until.isoformat()})  # fmt: skip
            assert due.status_code == 200, due.text
        while datetime.now(UTC) <= until + timedelta(seconds=0.2):
            time.sleep(0.1)  # the rest comes once the deadline has passed
        tls.sendall(body[half:])
        answer = b""
        while chunk := tls.recv(65536):
            answer += chunk
    status, _, rest = answer.partition(b"\r\n")
    assert b" 201 " in status, answer[:500]
    assert b'"late":true' in rest.replace(b" ", b""), rest[-500:]
