"""Running the service for a term: /healthz and /metrics scraped from a
real `serve` (on SQLite and on a real PostgreSQL server), backups of a
running service restored on both databases, a clean stop on SIGTERM,
and the JSON access log."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from postgres import postgres_server
from prometheus_client.parser import text_string_to_metric_families
from service_kit import (
    CLASS,
    COURSE_TOML,
    PASSWORD,
    Server,
    accounts,
    api_shown,
    api_tokens,
    api_upload,
    app_of,
    free_port,
    make_course,
    make_service,
    wait_for,
)
from sqlalchemy import select

from plpuzzle.sudoku.service.core import Service, ServiceSettings
from plpuzzle.sudoku.service.store import Document, Mail, Upload, User

pytestmark = pytest.mark.sandbox

ALICE = (CLASS / "alice.pl").read_bytes()


def scrape(url: str, **headers: str) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """GET /metrics, parsed: sample name -> labels -> value."""
    r = httpx.get(f"{url}/metrics", headers=headers, timeout=60)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    out: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(r.text):
        assert family.name.startswith("plpuzzle_"), family.name
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def pending(figures: dict[str, Any]) -> float:
    return sum(figures["plpuzzle_uploads"].values())


# -- health and metrics -------------------------------------------------------------------


@pytest.mark.slow
def test_metrics_scraped_during_a_burst_count_every_upload_once(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course")
    data = tmp_path / "data"
    students = [f"s{n}" for n in range(4)]
    tokens = api_tokens(course, data, students)
    with Server(course, data, 2) as server:
        assert httpx.get(f"{server.url}/healthz", timeout=30).json() == {"status": "ok"}
        ids: list[int] = []
        scrapes = []

        def hand_in(login: str) -> None:
            r = api_upload(server.url, tokens[login], ALICE + f"% {login}\n".encode())
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])

        burst = [threading.Thread(target=hand_in, args=(s,)) for s in students]
        for thread in burst:
            thread.start()
        while any(t.is_alive() for t in burst):
            scrapes.append(scrape(server.url))
        for thread in burst:
            thread.join()
        scrapes.append(scrape(server.url))

        def graded() -> bool:
            scrapes.append(figures := scrape(server.url))
            return figures["plpuzzle_wait_all_results_seconds_count"][()] == len(students)

        wait_for("every upload graded, as /metrics says", 600, graded, every=0.5)
        for figures in scrapes:  # each scrape one snapshot: an upload is pending or done, once
            done = figures["plpuzzle_wait_all_results_seconds_count"][()]
            assert pending(figures) + done <= len(students)
        last = scrapes[-1]
        assert pending(last) == 0
        assert last["plpuzzle_students_with_upload"][()] == len(students)
        assert last["plpuzzle_wait_public_results_seconds_count"][()] == len(students)
        for name in ("plpuzzle_wait_public_results_seconds", "plpuzzle_wait_all_results_seconds"):
            buckets = last[f"{name}_bucket"]
            assert buckets[(("le", "+Inf"),)] == len(students)
            assert list(buckets.values()) == sorted(buckets.values())  # cumulative
        cpu = last["plpuzzle_grading_cpu_seconds_count"]
        assert sum(cpu.values()) == len(students) * 6  # six tests each, graded once
        assert last["plpuzzle_grading_cpu_seconds_sum"][(("test", "test001"),)] > 0
        assert last["plpuzzle_mails"] == {(("state", "failed"),): 0, (("state", "waiting"),): 0}
        assert last["plpuzzle_signins_throttled_total"][()] == 0
        for i in ids:
            assert api_shown(server.url, tokens["tina"], i)["state"] == "done"

        # Through a proxy, a client elsewhere: only a teacher's token reads the figures.
        away = {"X-Forwarded-For": "203.0.113.9"}
        refused = httpx.get(f"{server.url}/metrics", headers=away, timeout=30)
        assert refused.status_code == 403 and "plpuzzle_" not in refused.text
        student = {**away, "Authorization": f"Bearer {tokens['s0']}"}
        assert httpx.get(f"{server.url}/metrics", headers=student, timeout=30).status_code == 403
        forged = {**away, "Authorization": "Bearer not-a-token"}
        assert httpx.get(f"{server.url}/metrics", headers=forged, timeout=30).status_code == 403
        assert pending(scrape(server.url, **away, Authorization=f"Bearer {tokens['tina']}")) == 0


def test_healthz_says_503_and_why_when_grading_does_not_run(tmp_path: Path) -> None:
    service = make_service(tmp_path, COURSE_TOML)
    try:
        with TestClient(app_of(service, grade=False)) as client:
            r = client.get("/healthz")
            assert r.status_code == 503
            assert r.json() == {"status": "unhealthy", "reason": "grading is not running"}
    finally:
        service.close()


@pytest.mark.slow
def test_healthz_says_503_when_the_database_is_gone(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course")
    data = tmp_path / "data"
    server = Server(course, data, 1)
    try:
        with postgres_server() as url:
            server.extra = ("--database-url", url)
            server.start()
            assert httpx.get(f"{server.url}/healthz", timeout=30).status_code == 200
        # The PostgreSQL server stopped under the running service.
        r = httpx.get(f"{server.url}/healthz", timeout=60)
        assert r.status_code == 503
        assert r.json()["reason"].startswith("the database does not answer")
    finally:
        server.stop()


# -- backups while it runs ----------------------------------------------------------------

MAIL_TOML = (
    COURSE_TOML
    + """
[course.mail]
host = "127.0.0.1"
port = {port}
from = "sudoku@example.edu"
domain = "students.example.edu"
starttls = false
"""
)


def plpuzzle(*args: str, ok: tuple[int, ...] = (0,)) -> str:
    run = subprocess.run([sys.executable, "-m", "plpuzzle", "sudoku", *args],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert run.returncode in ok, run.stdout + run.stderr
    return run.stdout


def held(course: Path, data: Path, url: str | None) -> dict[str, Any]:
    """What a data folder (and its database) holds, read as the service reads it."""
    service = Service(ServiceSettings(course, data, database_url=url))
    try:
        with service.store.session() as db:
            uploads = {u.id: (u.user_id, u.blob, u.state, u.reports)
                       for u in db.scalars(select(Upload))}  # fmt: skip
            return {
                "users": sorted(
                    (u.login, u.role, u.password_hash or "") for u in db.scalars(select(User))
                ),
                "uploads": uploads,
                "documents": sorted((d.user_id, d.blob) for d in db.scalars(select(Document))),
                "mails": sorted((m.to_addr, m.body) for m in db.scalars(select(Mail))),
                "blobs": all(service.blobs.path(b).exists() for _, b, _, _ in uploads.values()),
                "reports": all(
                    (service.data / r).is_dir()
                    for _, _, s, r in uploads.values()
                    if s == "done" and r
                ),
            }
    finally:
        service.close()


def tokens_on(course: Path, data: Path, url: str | None, logins: list[str]) -> dict[str, str]:
    service = Service(ServiceSettings(course, data, database_url=url))
    try:
        service.accounts.create(logins, "student")
        service.accounts.create(["tina"], "teacher")
        with service.store.session() as db:
            users = {u.login: u.id for u in db.scalars(select(User))}
        for user_id in users.values():
            service.accounts.set_password(user_id, PASSWORD)
        return {login: service.accounts.new_token(i, "test") for login, i in users.items()}
    finally:
        service.close()


def test_a_backup_of_a_quiet_service_restores_its_accounts_and_mail(tmp_path: Path) -> None:
    """The default run's backup check, with no service running and nothing
    to grade (the backup under uploads costs 11 CPU-seconds, and is slow):
    accounts, password hashes and a mail waiting in the outbox come back
    whole, and a restore into a folder that is not empty is refused."""
    course = make_course(tmp_path / "course", MAIL_TOML.format(port=free_port()))
    data = tmp_path / "data"
    tokens_on(course, data, None, ["s0", "s1"])
    plpuzzle("accounts", str(course), "--data", str(data), "--student", "erin", "--send",
             "--send-within", "0", "-o", str(tmp_path / "links.csv"), ok=(4,))  # fmt: skip
    backup = tmp_path / "nightly" / "service.tar.gz"
    took = json.loads(plpuzzle("backup", "--data", str(data), "--course", str(course),
                               str(backup), "--format", "json"))  # fmt: skip
    assert took["database"] == "sqlite" and took["course"] and took["files"] > 0
    assert backup.stat().st_mode & 0o077 == 0
    new_data, new_course = tmp_path / "restored", tmp_path / "course-restored"
    put = json.loads(plpuzzle("restore", str(backup), "--data", str(new_data), "--course",
                              str(new_course), "--format", "json"))  # fmt: skip
    assert put["database"] == "sqlite" and put["files"] > 0
    live, copy = held(course, data, None), held(new_course, new_data, None)
    assert copy == live and len(copy["users"]) == 4 and copy["mails"], copy
    assert (new_course / "suite.toml").read_text() == (course / "suite.toml").read_text()
    again = plpuzzle("restore", str(backup), "--data", str(new_data), ok=(2,))
    assert again == ""


# The whole walk is slow (11 CPU-seconds: two services grade every upload);
# the quiet backup above is the default run's check.
@pytest.mark.slow
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_backup_taken_while_uploads_arrive_restores_a_service(
    tmp_path: Path, database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with contextlib.ExitStack() as stack:
        live_url = restored_url = None
        if database == "postgresql":
            server_url = stack.enter_context(postgres_server())
            live_url = new_database(server_url, "live")
            restored_url = new_database(server_url, "restored")
            monkeypatch.setenv("PLPUZZLE_DATABASE_URL", live_url)
        course = make_course(tmp_path / "course", MAIL_TOML.format(port=free_port()))
        # Three tests of the six: what is backed up is the same, and each of
        # the two services' gradings is half as long.
        for extra in course.glob("test00[458][ds].txt"):
            extra.unlink()
        data = tmp_path / "data"
        students = [f"s{n}" for n in range(4)]
        tokens = tokens_on(course, data, live_url, students)
        # A link mail that waits in the outbox (nobody listens on the SMTP port).
        plpuzzle("accounts", str(course), "--data", str(data), "--student", "erin", "--send",
                 "--send-within", "0", "-o", str(tmp_path / "links.csv"), ok=(4,))  # fmt: skip
        with Server(course, data, 2) as server:
            before = []
            for login in students[:2]:
                r = api_upload(server.url, tokens[login], ALICE + f"% {login}\n".encode())
                before.append(r.json()["id"])
            doc = httpx.post(f"{server.url}/api/documents", headers=bearer(tokens["s0"]),
                             files={"file": ("doc.txt", b"docs\n")}, timeout=60)  # fmt: skip
            assert doc.status_code == 201, doc.text
            wait_for("the first uploads graded", 600, lambda: all(
                api_shown(server.url, tokens["tina"], i)["state"] == "done" for i in before),
                every=0.5)  # fmt: skip
            during: list[int] = []
            backing_up = threading.Event()

            def keep_uploading() -> None:
                n = 0
                while not backing_up.is_set() or n < 4:  # some before, some during, some after
                    login = students[2 + n % 2]
                    r = api_upload(server.url, tokens[login], ALICE + f"% {login} {n}\n".encode())
                    assert r.status_code == 201, r.text
                    during.append(r.json()["id"])
                    n += 1
                    if n >= 4 and backing_up.is_set():
                        break

            uploader = threading.Thread(target=keep_uploading)
            uploader.start()
            wait_for("an upload during the backup", 120, lambda: during)
            backup = tmp_path / "nightly" / "service.tar.gz"
            took = json.loads(plpuzzle("backup", "--data", str(data), "--course", str(course),
                                       str(backup), "--format", "json"))  # fmt: skip
            assert took["database"] == database and took["course"] and took["files"] > 0
            backing_up.set()
            uploader.join()
        live = held(course, data, live_url)
        assert backup.stat().st_mode & 0o077 == 0  # readable by its owner only

        if restored_url is not None:
            monkeypatch.setenv("PLPUZZLE_DATABASE_URL", restored_url)
        new_data, new_course = tmp_path / "restored", tmp_path / "course-restored"
        put = json.loads(plpuzzle("restore", str(backup), "--data", str(new_data), "--course",
                                  str(new_course), "--format", "json"))  # fmt: skip
        assert put["database"] == database and put["files"] > 0
        assert (new_course / "suite.toml").read_text() == (course / "suite.toml").read_text()
        copy = held(new_course, new_data, restored_url)
        assert copy["users"] == live["users"]
        assert copy["documents"] == live["documents"] and copy["documents"]
        assert copy["mails"] == live["mails"] and copy["mails"]
        assert set(before) <= set(copy["uploads"]) <= set(live["uploads"])
        assert copy["blobs"] and copy["reports"]
        for i in before:
            assert copy["uploads"][i] == live["uploads"][i]
        with Server(new_course, new_data, 2) as again:  # restart loses nothing
            for login in students:  # every account's token works
                r = httpx.get(f"{again.url}/api/uploads", headers=bearer(tokens[login]),
                              timeout=30)  # fmt: skip
                assert r.status_code == 200, r.text
            wait_for("every restored upload graded", 600, lambda: all(
                api_shown(again.url, tokens["tina"], i)["state"] in ("done", "replaced")
                for i in copy["uploads"]), every=0.5)  # fmt: skip
        # Into a folder that is not empty, or with the wrong database: a clear error.
        run = subprocess.run([sys.executable, "-m", "plpuzzle", "sudoku", "restore", str(backup),
                              "--data", str(new_data)], capture_output=True, text=True)  # fmt: skip
        assert run.returncode == 2 and "not empty" in run.stderr, run.stderr
        assert "Traceback" not in run.stderr


def new_database(url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    return url.replace("/postgres?", f"/{name}?")


# -- a clean stop and start, the access log -----------------------------------------------

LOOPS = b"sudoku(_, _) :- repeat, fail.\n"  # each test runs to its time limit


@pytest.mark.slow
def test_sigterm_requeues_what_grades_and_the_log_holds_no_secret(tmp_path: Path) -> None:
    import signal

    # A short time limit: the looping upload's tests end soon after the
    # restart (6 CPU-seconds in all, not 18 at 3 s).
    course = make_course(tmp_path / "course", COURSE_TOML.replace("time_limit = 10",
                                                                  "time_limit = 1"))  # fmt: skip
    data = tmp_path / "data"
    tokens = tokens_on(course, data, None, ["s0"])
    links = accounts(course, data, "--student", "erin")
    server = Server(course, data, 1)
    with server:
        with httpx.Client(base_url=server.url, timeout=60) as erin:
            first = erin.get(links["erin"])
            csrf = re.search(r'name="csrf" value="([^"]*)"', first.text)
            fields = {"password": PASSWORD, "again": PASSWORD} | (
                {"csrf": csrf.group(1)} if csrf else {})  # fmt: skip
            assert erin.post(links["erin"], data=fields).status_code == 303
            signin = erin.get("/signin")  # signed in: sent home
            assert signin.status_code in (200, 303)
        made = httpx.post(f"{server.url}/api/tokens", data={"login": "s0", "password": PASSWORD},
                          timeout=60)  # fmt: skip
        assert made.status_code == 201
        secrets = [PASSWORD, tokens["s0"], tokens["tina"], made.json()["token"],
                   links["erin"].rsplit("/", 1)[1]]  # fmt: skip
        r = api_upload(server.url, tokens["s0"], LOOPS)
        assert r.status_code == 201
        assert r.headers["x-request-id"]
        upload = r.json()["id"]
        wait_for("the upload grading", 300,
                 lambda: api_shown(server.url, tokens["s0"], upload)["state"]
                 == "running")  # fmt: skip
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=120) == 0  # a generous bound: it stops, cleanly
    service = Service(ServiceSettings(course, data))
    try:
        with service.store.session() as db:
            row = db.get(Upload, upload)
            assert row is not None
            assert (row.state, row.claimed_by) == ("queued", None)  # back in the queue at once
    finally:
        service.close()
    log = server.log.read_text()
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert {"id", "method", "route", "status", "ms", "user", "client"} <= set(lines[0])
    assert len({line["id"] for line in lines}) == len(lines)
    assert {"/welcome/{token}", "/api/tokens", "/api/uploads"} <= {line["route"] for line in lines}
    for secret in secrets:
        assert secret not in log
    with Server(course, data, 1) as again:  # restart: graded to the end
        wait_for("the upload graded after the restart", 600,
                 lambda: api_shown(again.url, tokens["s0"], upload)["state"] == "done",
                 every=0.5)  # fmt: skip


DEPLOY = Path(__file__).resolve().parents[2] / "python/plpuzzle/sudoku/service/deploy"


def test_the_systemd_units_of_the_docs_verify(tmp_path: Path) -> None:
    """systemd-analyze verify, with this machine's paths for the programs."""
    import shutil

    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    plpuzzle_bin = Path(sys.executable).with_name("plpuzzle")
    units = ("plpuzzle.service", "plpuzzle-backup.service", "plpuzzle-backup.timer")
    for name in units:
        text = (DEPLOY / name).read_text()
        assert "/srv/plpuzzle/venv/bin/plpuzzle" in text or name.endswith(".timer")
        text = text.replace("/srv/plpuzzle/venv/bin/plpuzzle", str(plpuzzle_bin))
        text = text.replace("User=plpuzzle", "User=root").replace("Group=plpuzzle", "Group=root")
        (tmp_path / name).write_text(text)
    run = subprocess.run([analyze, "verify", *(str(tmp_path / n) for n in units)],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    problems = [line for line in run.stderr.splitlines() if "plpuzzle" in line]
    assert run.returncode == 0 and not problems, run.stderr
