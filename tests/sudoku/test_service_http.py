"""The submission service through HTTP, with the framework's test client:
every route for every role, what a student may not see, refusals, CSRF,
sessions and tokens. The uploads are loaded (and graded, where a test
waits for it) in the real sandbox."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_kit import CLASS, PASSWORD, Person, app_of, make_service, person

from plpuzzle.sudoku.service.core import Service

pytestmark = pytest.mark.sandbox

ALICE = (CLASS / "alice.pl").read_bytes()
BROKEN = b"sudoku(S, K) :- oops oops.\n"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Service, object]]:
    service = make_service(tmp_path)
    app = app_of(service)
    with TestClient(app):  # the lifespan: the grading queue runs
        yield service, app
    service.close()


@pytest.fixture
def quiet(tmp_path: Path) -> Iterator[tuple[Service, object]]:
    """A service whose queue does not run: uploads stay queued."""
    service = make_service(tmp_path)
    app = app_of(service, grade=False)
    with TestClient(app):
        yield service, app
    service.close()


def test_a_student_uploads_and_reads_the_public_results(served: tuple) -> None:
    service, app = served
    alice = person(app, service, "alice")
    upload = alice.upload_id("sudoku.pl", ALICE)
    assert alice.wait(upload)["state"] == "done"
    page = alice.page(f"/uploads/{upload}")
    assert "2 / 2 on the public tests" in page
    assert len(re.findall(r"<tr><td>test00", page)) == 2  # the public tests only
    assert "more test(s) are graded too" in page
    feedback = alice.client.get(f"/uploads/{upload}/feedback")
    assert feedback.status_code == 200
    policy = feedback.headers["content-security-policy"]
    assert "unsafe-inline" not in policy and "script-src 'self'" in policy
    assert "test003" not in feedback.text  # the public view's feedback


def test_a_file_that_does_not_load_is_answered_at_once_with_its_place(quiet: tuple) -> None:
    service, app = quiet
    alice = person(app, service, "alice")
    upload = alice.upload_id("sudoku.pl", BROKEN)
    page = alice.page(f"/uploads/{upload}")
    assert "It does not load" in page
    assert re.search(r"sudoku\.pl:1:\d+: Syntax error", page)
    assert "queued" in page  # graded all the same, in its turn


def test_a_student_sees_no_one_elses_upload_by_any_route(quiet: tuple) -> None:
    service, app = quiet
    alice, bob = person(app, service, "alice"), person(app, service, "bob")
    upload = alice.upload_id("sudoku.pl", ALICE)
    for path in ("", "/live", "/status.json", "/feedback", "/file", "/diff"):
        assert bob.client.get(f"/uploads/{upload}{path}").status_code == 404, path
        assert alice.client.get(f"/uploads/{upload}{path}").status_code in (200, 404), path
    assert alice.client.get(f"/uploads/{upload}/file").content == ALICE
    token = bob.token()
    api = bob.client.get(f"/api/uploads/{upload}", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 404
    assert bob.client.get("/api/uploads", headers={"Authorization": f"Bearer {token}"}).json() == []


def test_teacher_pages_do_not_exist_for_students(quiet: tuple) -> None:
    service, app = quiet
    alice = person(app, service, "alice")
    teachers = [
        "/class",
        "/class/live",
        "/class/status.json",
        "/class/report",
        "/students/alice",
        "/export/grades.csv",
        "/export/grades-wide.csv",
        "/similarity",
        "/status",
    ]
    for path in teachers:
        assert alice.client.get(path, follow_redirects=False).status_code == 404, path
    for path in ("/regrade", "/release", "/similarity"):
        r = alice.client.post(path, data={"csrf": alice.csrf()}, follow_redirects=False)
        assert r.status_code == 404, path


def test_every_page_needs_a_sign_in(quiet: tuple) -> None:
    _, app = quiet
    anyone = TestClient(app)
    for path in ("/me", "/uploads/1", "/class", "/tokens", "/status"):
        r = anyone.get(path, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/signin", path
    assert anyone.get("/api/uploads").status_code == 401


@pytest.mark.parametrize(
    ("name", "data", "status", "words"),
    [
        ("sudoku.exe", b"MZ", 415, "upload sudoku.pl"),
        ("sudoku.pl", b"", 400, "empty"),
        ("sudoku.pl", b"%" * (513 * 1024), 413, "larger than"),
    ],
)
def test_bad_uploads_are_refused_in_words(quiet: tuple, name: str, data: bytes, status: int,
                                          words: str) -> None:  # fmt: skip
    service, app = quiet
    alice = person(app, service, "alice")
    r = alice.upload(name, data)
    assert r.status_code == status and words in r.text
    assert alice.page("/me").count("/uploads/") == 0  # nothing kept


def test_too_many_uploads_in_an_hour_are_refused(tmp_path: Path) -> None:
    service = make_service(tmp_path, "[course]\nuploads_per_hour = 2\n")
    app = app_of(service, grade=False)
    with TestClient(app):
        alice = person(app, service, "alice")
        alice.upload_id("sudoku.pl", ALICE)
        alice.upload_id("sudoku.pl", ALICE)
        r = alice.upload("sudoku.pl", ALICE)
        assert r.status_code == 429 and "at most 2 uploads an hour" in r.text


def test_after_a_refusing_deadline_uploads_are_refused(tmp_path: Path) -> None:
    toml = '[course]\ndeadline = 2020-01-01T00:00:00+01:00\nlate = "refused"\n'
    service = make_service(tmp_path, toml)
    app = app_of(service, grade=False)
    with TestClient(app):
        r = person(app, service, "alice").upload("sudoku.pl", ALICE)
        assert r.status_code == 403 and "deadline" in r.text


def test_late_uploads_are_marked_and_do_not_count(tmp_path: Path) -> None:
    service = make_service(tmp_path, "[course]\ndeadline = 2020-01-01T00:00:00Z\n")
    app = app_of(service, grade=False)
    with TestClient(app):
        alice = person(app, service, "alice")
        upload = alice.upload_id("sudoku.pl", ALICE)
        page = alice.page(f"/uploads/{upload}")
        assert "late" in page and "it does not count" in page and "counts</span>" not in page


def test_forms_without_the_sessions_token_are_refused(quiet: tuple) -> None:
    service, app = quiet
    alice, bob = person(app, service, "alice"), person(app, service, "bob")
    files = {"file": ("sudoku.pl", ALICE)}
    assert alice.client.post("/uploads", files=files).status_code == 403
    r = alice.client.post("/uploads", data={"csrf": bob.csrf()}, files=files)
    assert r.status_code == 403  # another session's token
    old = alice.csrf()
    alice.client.post("/signout", data={"csrf": old})
    r = alice.client.post("/uploads", data={"csrf": old}, files=files, follow_redirects=False)
    assert r.status_code in (303, 403)  # signed out: the old token is worth nothing
    assert alice.client.get("/me", follow_redirects=False).status_code == 303


def test_signing_in_makes_a_new_session(quiet: tuple) -> None:
    service, app = quiet
    service.accounts.create(["alice"], "student")
    user = service.accounts.check_password("alice", "x")
    assert user is None  # no password yet: nobody gets in
    alice = person(app, service, "carol")
    planted = alice.client.cookies.get("plpuzzle_session")
    page = alice.client.get("/signin")  # signed in already: sent home
    assert page.url.path == "/me"
    stranger = TestClient(app)
    stranger.cookies.set("plpuzzle_session", "forged.value.x")
    assert stranger.get("/me", follow_redirects=False).status_code == 303
    form = stranger.get("/signin").text
    pre = re.search(r'name="pre" value="([^"]+)"', form).group(1)  # type: ignore[union-attr]
    r = stranger.post("/signin", data={"login": "carol", "password": PASSWORD, "pre": pre},
                      follow_redirects=False)  # fmt: skip
    assert r.status_code == 303
    assert r.cookies.get("plpuzzle_session") not in (None, planted, "forged.value.x")


def test_sign_in_needs_its_forms_token_and_the_right_password(quiet: tuple) -> None:
    service, app = quiet
    person(app, service, "alice")
    anyone = TestClient(app)
    r = anyone.post("/signin", data={"login": "alice", "password": PASSWORD, "pre": "x"})
    assert r.status_code == 403
    pre = re.search(r'name="pre" value="([^"]+)"', anyone.get("/signin").text).group(1)  # type: ignore[union-attr]
    r = anyone.post("/signin", data={"login": "alice", "password": "wrong-password", "pre": pre})
    assert r.status_code == 401 and "wrong login or password" in r.text


def test_a_welcome_link_works_once(quiet: tuple) -> None:
    service, app = quiet
    (made,) = service.accounts.create(["dora"], "student")
    client = TestClient(app)
    form = {"password": PASSWORD, "again": PASSWORD}
    r = client.post(f"/welcome/{made.token}", data=form, follow_redirects=False)
    assert r.status_code == 303
    assert TestClient(app).get(f"/welcome/{made.token}").status_code == 404
    short = service.accounts.create(["eve"], "student")[0]
    r = TestClient(app).post(
        f"/welcome/{short.token}", data={"password": "short", "again": "short"}
    )
    assert r.status_code == 400 and "at least" in r.text


def test_the_api_uploads_lists_and_shows(served: tuple) -> None:
    service, app = served
    alice = person(app, service, "alice")
    headers = {"Authorization": f"Bearer {alice.token()}"}
    anyone = TestClient(app)
    r = anyone.post("/api/uploads", headers=headers, files={"file": ("sudoku.pl", ALICE)})
    assert r.status_code == 201 and r.json()["loaded"] is True
    upload = r.json()["id"]
    assert [u["id"] for u in anyone.get("/api/uploads", headers=headers).json()] == [upload]
    alice.wait(upload)
    shown = anyone.get(f"/api/uploads/{upload}", headers=headers).json()
    assert shown["state"] == "done" and shown["complete"] is False
    assert {r["test"] for r in shown["results"]} == {"test001", "test002"}
    bad = anyone.get("/api/uploads", headers={"Authorization": "Bearer plp_nonsense"})
    assert bad.status_code == 401 and "token" in bad.json()["error"]


def test_the_teacher_sees_the_class_regrades_releases_and_exports(served: tuple) -> None:
    service, app = served
    alice = person(app, service, "alice")
    person(app, service, "bob")
    tina = person(app, service, "tina", "teacher")
    upload = alice.upload_id("sudoku.pl", ALICE)
    alice.wait(upload)
    page = tina.page("/class")
    assert "alice" in page and "bob" in page and "no upload" in page
    assert "6 / 6" in page  # the teacher sees every test
    # Until the release the exports hold what students see: the public tests.
    csv = tina.client.get("/export/grades.csv").text.splitlines()
    assert csv[0].startswith("id,score") and any(line.startswith("alice,2,2") for line in csv)
    wide = tina.client.get("/export/grades-wide.csv").text
    assert wide.splitlines()[0] == (
        "id,test001,test002,total,clpfd,head_comments,long_lines,documentation,deduction"
    )
    header, *rows = csv
    alice_row = next(r for r in rows if r.startswith("alice,"))
    cells = dict(zip(header.split(","), alice_row.split(","), strict=True))
    assert cells["clpfd"] == "yes"  # the course requirements, as grade reports them
    report = tina.client.get("/class/report")
    assert report.status_code == 200 and "script-src 'sha256-" in report.headers[
        "content-security-policy"]  # fmt: skip
    tina.client.post("/regrade", data={"csrf": tina.csrf(), "login": "alice"})
    assert alice.wait(upload)["state"] == "done"
    tina.client.post("/release", data={"csrf": tina.csrf()})
    page = alice.page(f"/uploads/{upload}")
    assert "6 / 6" in page and len(re.findall(r"<tr><td>test00", page)) == 6
    released = tina.client.get("/export/grades.csv").text.splitlines()
    assert any(line.startswith("alice,6,6") for line in released)
    assert "Total" not in tina.page("/status") and "Queued" in tina.page("/status")


def test_no_password_or_token_reaches_a_log(quiet: tuple, caplog: pytest.LogCaptureFixture) -> None:
    service, app = quiet
    caplog.set_level(logging.DEBUG)
    (made,) = service.accounts.create(["alice"], "student")
    client = TestClient(app)
    client.get(f"/welcome/{made.token}")
    client.post(f"/welcome/{made.token}", data={"password": PASSWORD, "again": PASSWORD})
    alice = Person(client, "alice")
    token = alice.token()
    client.get("/api/uploads", headers={"Authorization": f"Bearer {token}"})
    # The service's logs (the test client's own, httpx, names what it asked).
    ours = [r for r in caplog.records if r.name.startswith(("plpuzzle", "uvicorn", "fastapi"))]
    logged = "\n".join(r.getMessage() for r in ours)
    assert "/welcome/{token}" in logged  # the route, never the link
    for secret in (made.token, PASSWORD, token, client.cookies.get("plpuzzle_session")):
        assert secret and secret not in logged


def test_an_archive_is_read_as_grading_reads_it(quiet: tuple) -> None:
    import io
    import zipfile

    service, app = quiet
    alice = person(app, service, "alice")
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as z:
        z.writestr("sudoku.pl", ALICE)
    upload = alice.upload_id("handin.zip", packed.getvalue())
    page = alice.page(f"/uploads/{upload}")
    assert "It does not load" not in page and "queued" in page


def test_archive_bombs_and_traversals_are_read_under_the_intakes_guards(quiet: tuple) -> None:
    from hostile import Member, honest_code, make_bzip2_bomb, raw_zip

    service, app = quiet
    alice = person(app, service, "alice")
    folder = Path("bomb")
    folder.mkdir()
    make_bzip2_bomb(folder)
    bomb = alice.upload_id("bomb.zip", (folder / "bzbomb.zip").read_bytes())
    notes = alice.page(f"/uploads/{bomb}")
    assert "It does not load" not in notes  # the solver beside the bomb loads
    assert "not graded" in notes  # what the unpacking budget left out, said
    traversal = raw_zip([Member(b"sudoku.pl", honest_code()), Member(b"../../evil.pl", b"x.")])
    upload = alice.upload_id("climb.zip", traversal)
    assert "evil.pl" in alice.page(f"/uploads/{upload}")  # named in a note, never written
    assert not any(Path("/").glob("evil.pl")) and not Path("../evil.pl").exists()


def test_an_expired_session_signs_out(quiet: tuple) -> None:
    from sqlalchemy import update

    from plpuzzle.sudoku.service.store import WebSession

    service, app = quiet
    alice = person(app, service, "alice")
    assert alice.client.get("/me", follow_redirects=False).status_code == 200
    with service.store.session() as db:
        db.execute(update(WebSession).values(expires=WebSession.created))
    r = alice.client.get("/me", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/signin"


def test_the_database_can_be_named_by_a_url(tmp_path: Path) -> None:
    from service_kit import make_course

    from plpuzzle.sudoku.service.core import Service, ServiceSettings

    url = f"sqlite:///{tmp_path / 'elsewhere.sqlite'}"
    settings = ServiceSettings(make_course(tmp_path / "course"), tmp_path / "data", url)
    service = Service(settings)
    service.accounts.create(["alice"], "student")
    service.close()
    assert (tmp_path / "elsewhere.sqlite").stat().st_size > 0
    assert not (tmp_path / "data" / "service.sqlite").exists()


def test_a_grading_that_fails_is_tried_again_then_said_and_a_regrade_mends_it(
    quiet: tuple, caplog: pytest.LogCaptureFixture
) -> None:
    """The service's own fault (here: the course's tests gone from under it)
    is retried once, then the upload says it failed; a regrade after the
    fix grades it."""
    from plpuzzle.sudoku.service.queue import RETRIES, GradingQueue

    service, app = quiet
    alice = person(app, service, "alice")
    upload = alice.upload_id("sudoku.pl", ALICE)
    away = service.suite.parent / "away"
    away.mkdir()
    for test in service.suite.glob("test*.txt"):
        test.rename(away / test.name)
    queue = GradingQueue(service)
    app.state.deps.queue = queue
    queue.start()
    try:
        with caplog.at_level(logging.ERROR, logger="plpuzzle.service"):
            assert alice.wait(upload)["state"] == "failed"
        tries = [r for r in caplog.records if r.getMessage() == f"grading upload {upload} failed"]
        assert len(tries) == RETRIES + 1
        assert "plpuzzle's fault, not yours" in alice.page(f"/uploads/{upload}")
        for test in away.iterdir():
            test.rename(service.suite / test.name)
        assert queue.regrade([upload]) == 1
        assert alice.wait(upload)["state"] == "done"
    finally:
        queue.stop()
