"""A new user's second pass through the service, and round 4 of attacks:
accounts and sessions, links that are never lost, what a student sees in
a terminal and on their pages, what a teacher sees. The framework's test
client where a page is what counts, real `serve` processes and the real
`submit` and `accounts` commands where a terminal is."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from service_kit import (
    CLASS,
    PASSWORD,
    Server,
    api_tokens,
    app_of,
    make_course,
    make_service,
    person,
)

from plpuzzle.sudoku.service.core import Service

pytestmark = pytest.mark.sandbox

ALICE = (CLASS / "alice.pl").read_bytes()
BROKEN = b"sudoku(S, K) :- oops oops.\n"

COURSE = """\
time_limit = 10

[course]
public = ["test001", "test002"]
uploads_per_hour = 30
shrink_seconds = 0
{more}
"""


def course_toml(more: str = "") -> str:
    return COURSE.format(more=more)


def plpuzzle(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command, with a configuration folder of the test's own."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(cwd / "config")}
    return subprocess.run([sys.executable, "-m", "plpuzzle", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=900, env=env)  # fmt: skip


@pytest.fixture
def quiet(tmp_path: Path) -> Iterator[tuple[Service, Any]]:
    """A service whose queue does not run: uploads stay queued."""
    service = make_service(tmp_path, course_toml())
    app = app_of(service, grade=False)
    with TestClient(app):
        yield service, app
    service.close()


# -- accounts, sessions, tokens -----------------------------------------------------------


def test_a_renewal_ends_every_session_and_token_of_the_account(quiet: tuple) -> None:
    service, app = quiet
    alice = person(app, service, "alice")
    token = alice.token()
    bearer = {"Authorization": f"Bearer {token}"}
    assert alice.client.get("/api/uploads", headers=bearer).status_code == 200
    assert alice.page("/me")
    (renewed,) = service.accounts.create(["alice"], "student", renew=True)
    assert renewed.renewed and renewed.token
    assert alice.client.get("/me", follow_redirects=False).headers["location"] == "/signin"
    refused = alice.client.get("/api/uploads", headers=bearer)
    assert refused.status_code == 401 and "renewed" in refused.json()["error"]


def test_a_token_may_expire(quiet: tuple) -> None:
    service, app = quiet
    alice = person(app, service, "alice")
    r = alice.client.post("/tokens", data={"csrf": alice.csrf(), "label": "a week", "days": "7"})
    token = re.search(r'<code class="token">([^<]+)</code>', r.text)
    assert token and "a week" in r.text
    bearer = {"Authorization": f"Bearer {token.group(1)}"}
    assert alice.client.get("/api/uploads", headers=bearer).status_code == 200
    from sqlalchemy import update

    from plpuzzle.sudoku.service.store import ApiToken

    with service.store.session() as db:
        db.execute(update(ApiToken).values(expires=datetime.now(UTC) - timedelta(seconds=1)))
    assert alice.client.get("/api/uploads", headers=bearer).status_code == 401
    bad = alice.client.post("/tokens", data={"csrf": alice.csrf(), "days": "soon"})
    assert bad.status_code == 400 and "whole number" in bad.text


def test_a_user_sees_and_ends_their_other_sessions(quiet: tuple) -> None:
    service, app = quiet
    here = person(app, service, "alice")
    there = TestClient(app)
    r = there.post("/signin", data={"login": "alice", "password": PASSWORD,
                                    "pre": _pre(there)}, follow_redirects=False)  # fmt: skip
    assert r.status_code == 303
    page = here.page("/tokens")
    assert page.count("Sign out there") == 1 and "this browser" in page
    r = here.client.post("/sessions/end", data={"csrf": here.csrf()}, follow_redirects=False)
    assert r.status_code == 303
    assert there.get("/me", follow_redirects=False).headers["location"] == "/signin"
    assert here.page("/me")


def _pre(client: TestClient) -> str:
    found = re.search(r'name="pre" value="([^"]+)"', client.get("/signin").text)
    assert found
    return found.group(1)


@pytest.mark.slow
def test_accounts_renews_only_whom_it_names_and_keeps_every_unused_link(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", course_toml())
    roster = tmp_path / "roster.txt"
    roster.write_text("alice\nbob\n")
    links = tmp_path / "links.csv"
    first = plpuzzle("sudoku", "accounts", course, "--roster", roster, "--teacher", "tina",
                     "-o", links, cwd=tmp_path)  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert "3 new account(s), 0 renewed" in first.stderr
    rows = {r["login"]: r for r in csv.DictReader(links.open())}
    assert set(rows) == {"alice", "bob", "tina"} and all(r["expires"] for r in rows.values())
    # bob sets his password: his link is used.
    service = Service(server_settings(course, tmp_path / "plpuzzle-service"))
    try:
        bob_token = rows["bob"]["link"].rsplit("/welcome/", 1)[1]
        user = service.accounts.welcome(bob_token)
        assert user is not None
        service.accounts.set_password(user.id, PASSWORD, bob_token)
    finally:
        service.close()
    roster.write_text("alice\nbob\ncarol\n")
    second = plpuzzle("sudoku", "accounts", course, "--roster", roster, "-o", links,
                      cwd=tmp_path)  # fmt: skip
    assert second.returncode == 0, second.stderr
    assert "1 new account(s), 0 renewed (their sessions and API tokens ended), 2 left" in (
        second.stderr)  # fmt: skip
    again = {r["login"]: r for r in csv.DictReader(links.open())}
    assert set(again) == {"alice", "tina", "carol"}  # bob's link was used; the others kept
    assert again["alice"]["link"] == rows["alice"]["link"]
    assert "2 still unused from before" in second.stderr
    everyone = plpuzzle("sudoku", "accounts", course, "--roster", roster, "--renew",
                        "-o", links, cwd=tmp_path)  # fmt: skip
    assert everyone.returncode == 2 and "--student" in everyone.stderr
    one = plpuzzle("sudoku", "accounts", course, "--student", "bob", "--renew", "-o", links,
                   cwd=tmp_path)  # fmt: skip
    assert one.returncode == 0 and "0 new account(s), 1 renewed" in one.stderr, one.stderr
    final = {r["login"]: r for r in csv.DictReader(links.open())}
    assert set(final) == {"alice", "tina", "carol", "bob"}
    assert final["alice"]["link"] == rows["alice"]["link"]  # not renewed
    assert oct(links.stat().st_mode & 0o777) == "0o600"


def server_settings(course: Path, data: Path) -> Any:
    from plpuzzle.sudoku.service.core import ServiceSettings

    return ServiceSettings(course, data)


def test_a_link_says_when_it_expires_and_a_dead_one_says_what_to_do(quiet: tuple) -> None:
    service, app = quiet
    (made,) = service.accounts.create(["dora"], "student")
    anyone = TestClient(app)
    page = anyone.get(f"/welcome/{made.token}").text
    assert "Your login is <strong>dora</strong>" in page and "works once, until" in page
    gone = anyone.get("/welcome/not-a-token")
    assert gone.status_code == 404 and "ask your teacher for a new link" in gone.text
    assert "Forgot your password?" in anyone.get("/signin").text


# -- routes and headers ---------------------------------------------------------------------


def test_ids_a_database_cannot_hold_are_404(quiet: tuple) -> None:
    service, app = quiet
    alice = person(app, service, "alice")
    huge = "99999999999999999999999"
    for path in ("", "/file", "/status.json", "/live", "/diff", "/feedback"):
        assert alice.client.get(f"/uploads/{huge}{path}").status_code == 404, path
    bearer = {"Authorization": f"Bearer {alice.token()}"}
    assert alice.client.get(f"/api/uploads/{huge}", headers=bearer).status_code == 404
    r = alice.client.post(f"/tokens/{huge}/revoke", data={"csrf": alice.csrf()})
    assert r.status_code == 404


def test_a_trailing_slash_redirects_to_the_path_never_to_the_host(quiet: tuple) -> None:
    service, app = quiet
    alice = person(app, service, "alice")
    r = alice.client.get("/me/?x=1", headers={"Host": "evil.example"}, follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/me?x=1"
    r = alice.client.get("//evil.example/", follow_redirects=False)
    assert not r.headers.get("location", "/").startswith("//")


def test_a_too_large_upload_gets_the_sites_page_and_the_real_limit(quiet: tuple) -> None:
    service, app = quiet
    alice = person(app, service, "alice")
    r = alice.upload("sudoku.pl", b"%" * (586 * 1024))
    assert r.status_code == 413 and "text/html" in r.headers["content-type"]
    assert "larger than 512 KB" in r.text and 'href="/me"' in r.text
    bearer = {"Authorization": f"Bearer {alice.token()}"}
    api = alice.client.post("/api/uploads", headers=bearer,
                            files={"file": ("sudoku.pl", b"%" * (586 * 1024))})  # fmt: skip
    assert api.status_code == 413 and "512 KB" in api.json()["error"]


# -- what a student sees --------------------------------------------------------------------


def test_an_upload_that_does_not_load_says_so_once(quiet: tuple) -> None:
    service, app = quiet
    alice = person(app, service, "alice")
    upload = alice.upload_id("sudoku.pl", BROKEN)
    page = alice.page(f"/uploads/{upload}")
    assert "does not load" in page and "running 0 of" not in page
    assert "the file does not define sudoku/2" not in page
    assert "so sudoku/2 is not defined" in page


def test_uploads_are_numbered_per_student_and_times_are_the_courses(tmp_path: Path) -> None:
    deadline = (
        (datetime.now(UTC) + timedelta(days=3))
        .astimezone(__import__("datetime").timezone(timedelta(hours=1)))
        .replace(microsecond=0)
    )
    service = make_service(tmp_path, course_toml(f"deadline = {deadline.isoformat()}"))
    app = app_of(service, grade=False)
    try:
        with TestClient(app):
            bob, alice = person(app, service, "bob"), person(app, service, "alice")
            bob.upload_id("sudoku.pl", ALICE)
            bob.upload_id("sudoku.pl", ALICE)
            mine = alice.upload_id("sudoku.pl", ALICE)
            page = alice.page(f"/uploads/{mine}")
            assert "Upload #1" in page
            me = alice.page("/me")
            assert "(UTC+01:00)" in me and "UTC)" not in me
            assert "The deadline is" in me and "2 days" in me
    finally:
        service.close()


def test_the_feedback_page_is_part_of_the_site(tmp_path: Path) -> None:
    service = make_service(tmp_path, course_toml())
    app = app_of(service)
    try:
        with TestClient(app):
            alice = person(app, service, "alice")
            upload = alice.upload_id("sudoku.pl", (CLASS / "dave.pl").read_bytes())
            assert alice.wait(upload)["state"] == "done"
            page = alice.page(f"/uploads/{upload}/feedback")
    finally:
        service.close()
    assert 'href="/me">My uploads</a>' in page and f'href="/uploads/{upload}"' in page
    assert "Feedback on upload #1" in page and '<div class="feedback">' in page
    assert "<style" not in page  # the site's style sheets only


# -- in a terminal ------------------------------------------------------------------------


@pytest.mark.slow
def test_submit_escapes_what_the_service_sends(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", course_toml())
    tokens = api_tokens(course, tmp_path / "data", ["alice"])
    hostile = tmp_path / "sudoku\x1b]0;pwned\x07.pl"
    hostile.write_bytes(b":- format(user_error, '\\e[2J~n', []).\n" + BROKEN)
    with Server(course, tmp_path / "data") as server:
        run = plpuzzle("sudoku", "submit", hostile, "--server", server.url,
                       "--token", tokens["alice"], cwd=tmp_path)  # fmt: skip
    assert run.returncode == 1, run.stderr
    assert "\x1b" not in run.stdout + run.stderr and "\x07" not in run.stdout
    assert "\\x1b]0;pwned" in run.stdout  # the name, escaped (the client may %-encode BEL)


def test_submit_bounds_what_it_reads(tmp_path: Path) -> None:
    class Huge(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            # Read the upload first: a socket closed with unread data is reset.
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(201)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": "' + b"x" * (6 << 20) + b'"}')

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Huge)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        handin = tmp_path / "sudoku.pl"
        handin.write_bytes(ALICE)
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        run = plpuzzle("sudoku", "submit", handin, "--server", url, "--token", "plp_x",
                       cwd=tmp_path)  # fmt: skip
    finally:
        httpd.shutdown()
    assert run.returncode == 3 and "larger than 4 MB" in run.stderr, run.stderr


@pytest.mark.slow
def test_submit_gives_up_after_its_timeout_and_says_a_late_upload_does_not_count(
    tmp_path: Path,
) -> None:
    past = (datetime.now(UTC) - timedelta(hours=1)).replace(microsecond=0)
    toml = course_toml(f'deadline = {past.isoformat()}\nlate = "ignored"')
    # Grace's loops at 3 s, not 10: her public tests still take 6 CPU-seconds,
    # twice submit's 3 s, and the stopping service waits for a shorter run.
    course = make_course(tmp_path / "course", toml.replace("time_limit = 10", "time_limit = 3"))
    tokens = api_tokens(course, tmp_path / "data", ["alice", "grace"])
    handin, loops = tmp_path / "sudoku.pl", tmp_path / "loops" / "sudoku.pl"
    handin.write_bytes(ALICE)
    loops.parent.mkdir()
    loops.write_bytes((CLASS / "grace.pl").read_bytes())
    with Server(course, tmp_path / "data", 1) as server:
        late = plpuzzle("sudoku", "submit", handin, "--server", server.url,
                        "--token", tokens["alice"], cwd=tmp_path)  # fmt: skip
        waiting = plpuzzle("sudoku", "submit", loops, "--server", server.url, "--token",
                           tokens["grace"], "--timeout", "0.05", cwd=tmp_path)  # fmt: skip
    assert late.returncode == 4, late.stdout + late.stderr
    assert "this upload does not count: it came after the deadline" in late.stderr
    assert waiting.returncode == 5 and "still grading after" in waiting.stderr


@pytest.mark.slow
def test_login_keeps_a_token_that_submit_uses(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", course_toml())
    data = tmp_path / "data"
    service = Service(server_settings(course, data))
    try:
        (made,) = service.accounts.create(["alice"], "student")
    finally:
        service.close()
    handin = tmp_path / "sudoku.pl"
    handin.write_bytes(ALICE)
    with Server(course, data) as server:
        first = subprocess.run(
            [sys.executable, "-m", "plpuzzle", "sudoku", "login",
             f"{server.url}/welcome/{made.token}"],
            input=f"{PASSWORD}\n{PASSWORD}\n", capture_output=True, text=True, timeout=300,
            cwd=tmp_path, env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")},
        )  # fmt: skip
        assert first.returncode == 0, first.stderr
        assert "signed in as alice" in first.stderr
        kept = tmp_path / "config" / "plpuzzle" / "tokens.json"
        assert oct(kept.stat().st_mode & 0o777) == "0o600"
        run = plpuzzle("sudoku", "submit", handin, "--no-wait", cwd=tmp_path)  # no --server
        assert run.returncode == 0, run.stderr
        again = subprocess.run(
            [sys.executable, "-m", "plpuzzle", "sudoku", "login", server.url],
            input="alice\nwrong-password\n", capture_output=True, text=True, timeout=300,
            cwd=tmp_path, env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "other")},
        )  # fmt: skip
        assert again.returncode == 2 and "wrong login or password" in again.stderr
        as_json = subprocess.run(
            [sys.executable, "-m", "plpuzzle", "sudoku", "login", server.url, "--format", "json"],
            input=f"alice\n{PASSWORD}\n", capture_output=True, text=True, timeout=300,
            cwd=tmp_path, env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "json")},
        )  # fmt: skip
        assert as_json.returncode == 0, as_json.stderr
        said = json.loads(as_json.stdout)
        assert said["login"] == "alice" and said["kept_in"].endswith("tokens.json")
        assert "plp_" not in as_json.stdout  # the token stays in the file
    bad = plpuzzle("sudoku", "submit", handin, "--server", "sudoku.example.edu", "--token", "x",
                   cwd=tmp_path)  # fmt: skip
    assert bad.returncode == 2 and "http:// or https://" in bad.stderr


def test_the_tokens_page_gives_the_real_address(quiet: tuple) -> None:
    service, app = quiet
    alice = person(app, service, "alice")
    page = alice.page("/tokens")
    assert "plpuzzle sudoku submit sudoku.pl --server http://testserver" in page
    assert "export PLPUZZLE_TOKEN=" in page and "plpuzzle sudoku login http://testserver" in page


@pytest.mark.slow
def test_serve_on_a_busy_port_says_so_before_serving_and_check_warns_of_a_past_deadline(
    tmp_path: Path,
) -> None:
    past = (datetime.now(UTC) - timedelta(days=1)).replace(microsecond=0)
    course = make_course(tmp_path / "course", course_toml(f"deadline = {past.isoformat()}"))
    check = plpuzzle("sudoku", "serve", course, "--check", cwd=tmp_path)
    assert check.returncode == 0 and "has passed" in check.stderr
    with Server(course, tmp_path / "data") as server:
        busy = plpuzzle("sudoku", "serve", course, "--data", tmp_path / "other", "--port",
                        str(server.port), cwd=tmp_path)  # fmt: skip
    assert busy.returncode == 3 and "serving" not in busy.stderr
    assert f"cannot listen on 127.0.0.1:{server.port}" in busy.stderr


def test_the_commands_load_no_dask_until_it_is_used() -> None:
    """Every sudoku command's module loaded (grade's among them, and with
    it the scheduler that grades on a cluster), and still no Dask: it
    loads when a cluster is used. The probe checks that the modules did
    load, so that lazily loaded commands cannot make it pass by loading
    nothing."""
    probe = ("import sys, click; from plpuzzle.sudoku.presentation.commands import sudoku\n"
             "ctx = click.Context(sudoku)\n"
             "names = sudoku.list_commands(ctx)\n"
             "loaded = [sudoku.get_command(ctx, n) is not None for n in names]\n"
             "print(len(names), all(loaded),\n"
             "      'plpuzzle.sudoku.grading.scheduling.on_dask' in sys.modules,\n"
             "      'distributed' in sys.modules)")  # fmt: skip
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    count, loaded, on_dask, dask = run.stdout.split()
    assert int(count) >= 14 and loaded == "True", run.stderr
    assert on_dask == "True", "the cluster's scheduler did not load: the probe proves nothing"
    assert dask == "False", run.stderr


# -- what a teacher sees ----------------------------------------------------------------------


def test_the_class_page_shows_late_only_and_confirms_release_and_regrade(tmp_path: Path) -> None:
    past = (datetime.now(UTC) - timedelta(hours=1)).replace(microsecond=0)
    service = make_service(tmp_path, course_toml(f"deadline = {past.isoformat()}"))
    app = app_of(service, grade=False)
    try:
        with TestClient(app):
            tina, lena = person(app, service, "tina", "teacher"), person(app, service, "lena")
            lena.upload_id("sudoku.pl", ALICE)
            page = tina.page("/class")
            assert "late only" in page
            assert 'href="/release"' in page and 'action="/release"' not in page
            confirm = tina.page("/release")
            assert "Release full results?" in confirm and 'action="/release"' in confirm
            r = tina.client.post("/release", data={"csrf": tina.csrf()}, follow_redirects=True)
            assert "Done: results released" in r.text and "Withdraw the release" in r.text
            assert service.released()
            r = tina.client.post("/release/withdraw", data={"csrf": tina.csrf()},
                                 follow_redirects=True)  # fmt: skip
            assert "release withdrawn" in r.text and not service.released()
            assert "Regrade everyone?" in tina.page("/regrade")
            r = tina.client.post("/regrade", data={"csrf": tina.csrf()}, follow_redirects=True)
            assert "Done: 0 counting upload(s) queued" in r.text
    finally:
        service.close()


def test_the_verdict_matrix_names_its_tests_at_a_few_tests(tmp_path: Path) -> None:
    service = make_service(tmp_path, course_toml())
    app = app_of(service)
    try:
        with TestClient(app):
            tina, alice = person(app, service, "tina", "teacher"), person(app, service, "alice")
            upload = alice.upload_id("sudoku.pl", ALICE)
            assert alice.wait(upload)["state"] == "done"
            page = tina.page("/class/live")
    finally:
        service.close()
    assert '<table class="verdicts">' in page
    assert all(f"<span>test00{n}</span>" in page for n in (1, 2, 3, 4, 5))
    assert 'title="test001: correct"' in page
    found = re.search(r'<table class="students">.*?</thead>', page, re.S)
    header = found.group() if found else ""
    assert "g-correct" in header and "g-crashed" not in header
