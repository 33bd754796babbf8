"""One grade for a student, the same on every page, mail and export
(issue 53): courses with each policy (the documentation required and
handed in apart or not, the course requirements' deduction on or off,
late uploads ignored, counted or refused, an extension), graded for
real, then read before and after the release through every view: /me,
the upload's page, its feedback, the API's answer, the results mail,
the class page, the class report, the teacher's page of the student and
every export. Before the release a student (and the exports) see the
public tests with the deduction; the teacher sees every test; after it,
all agree."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from service_kit import CLASS, SUITE, Person, app_of, person, smtp_server, wait_for
from sqlalchemy import select

from plpuzzle.sudoku.service.core import Service, ServiceSettings
from plpuzzle.sudoku.service.store import Mail, Upload

pytestmark = pytest.mark.sandbox

RIGHT = (CLASS / "alice.pl").read_bytes()  # every test right
FIRST_ONLY = (CLASS / "dave.pl").read_bytes()  # stops after the first solution
BROKEN = (CLASS / "judy.pl").read_bytes()  # does not load: no test right
TESTS = ("test001", "test002", "test003")

COURSE = """\
time_limit = 10

[course]
name = "Deklaratív Sudoku"
public = ["test001"]
uploads_per_hour = 30
shrink_seconds = 0
late = "{late}"
deadline = {deadline}
{requirements}
[course.mail]
host = "127.0.0.1"
port = {port}
from = "sudoku@example.edu"
domain = "students.example.edu"
starttls = false

[course.extensions]
erin = {extension}
"""

REQUIREMENTS = '\n[requirements]\ndocumentation = "deduct"\ndocumentation_points = 2\n'

#: The combinations: the late policy, the course requirements on or off.
POLICIES = [("ignored", True), ("counted", True), ("refused", False)]


@pytest.fixture
def smtp() -> Iterator[tuple[int, list[Any]]]:
    """A real SMTP server on loopback; what it received."""
    with smtp_server() as found:
        yield found


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def write_course(folder: Path, late: str, deduct: bool, port: int, deadline: datetime) -> Path:
    """A course of three tests (one public) with these policies."""
    folder.mkdir(parents=True, exist_ok=True)
    for test in TESTS:
        for kind in "ds":
            shutil.copyfile(SUITE / f"{test}{kind}.txt", folder / f"{test}{kind}.txt")
    extension = datetime.now(UTC) + timedelta(days=3)
    (folder / "suite.toml").write_text(
        COURSE.format(late=late, deadline=stamp(deadline), port=port, extension=stamp(extension),
                      requirements=REQUIREMENTS if deduct else ""),
        encoding="utf-8",
    )  # fmt: skip
    return folder


def number(text: str) -> tuple[float, float]:
    """The score and its maximum of a "X / Y" text."""
    found = re.match(r"\s*([\d.]+) / ([\d.]+)", text)
    assert found, text
    return float(found.group(1)), float(found.group(2))


def span(page: str) -> tuple[float, float]:
    """The grade a page shows (the grade macro's span)."""
    found = re.search(r'<span class="grade">([^<]*)</span>', page)
    assert found, page[:3000]
    return number(found.group(1))


def wait_graded(service: Service) -> None:
    def settled() -> bool:
        with service.store.session() as db:
            states = list(db.scalars(select(Upload.state)))
        return all(s in ("done", "failed") for s in states)

    wait_for("every upload graded", 600, settled, every=0.3)


@pytest.mark.parametrize(("late", "deduct"), POLICIES)
@pytest.mark.slow
def test_one_grade_on_every_view(
    tmp_path: Path, smtp: tuple[int, list[Any]], late: str, deduct: bool
) -> None:
    _one_course(tmp_path, late, deduct, smtp[0], smtp[1])


def _one_course(tmp: Path, late: str, deduct: bool, port: int, received: list[Any]) -> None:
    # The term: every student hands in before the deadline (then far off).
    course = write_course(tmp / "course", late, deduct, port, datetime.now(UTC) + timedelta(days=9))
    data = tmp / "data"
    service = Service(ServiceSettings(course, data, jobs=2))
    app = app_of(service)
    try:
        with TestClient(app):
            people = {login: person(app, service, login) for login in
                      ("alice", "bob", "carol", "dave", "erin")}  # fmt: skip
            people["tina"] = person(app, service, "tina", "teacher")
            bob = people["bob"]
            bob.client.post("/me/mail", data={"csrf": bob.csrf(), "results": "yes"})
            people["alice"].upload_id("sudoku.pl", RIGHT)
            people["alice"].client.post("/documents", data={"csrf": people["alice"].csrf()},
                                        files={"file": ("doc.html", b"<h1>How</h1>")})  # fmt: skip
            bob.upload_id("sudoku.pl", RIGHT)
            people["carol"].upload_id("sudoku.pl", BROKEN)
            wait_graded(service)
            with service.store.session() as db:
                last = max(u.created for u in db.scalars(select(Upload)))
    finally:
        service.close()
    # The deadline passes (the teacher's suite.toml says when): carol
    # hands in again, late; erin, whose extension is later, hands in now.
    deadline = last + timedelta(seconds=1)
    write_course(course, late, deduct, port, deadline)
    wait_for("the deadline past", 30, lambda: datetime.now(UTC) > deadline + timedelta(seconds=1))
    service = Service(ServiceSettings(course, data, jobs=2))
    app = app_of(service)
    try:
        with TestClient(app):
            people = {login: Person(TestClient(app, cookies=p.client.cookies), login)
                      for login, p in people.items()}  # fmt: skip
            refused = people["carol"].upload("sudoku.pl", RIGHT)
            assert refused.status_code == (403 if late == "refused" else 303)
            people["erin"].upload_id("sudoku.pl", FIRST_ONLY)
            wait_graded(service)
            # bob's results mail is queued once his grading is recorded, and
            # sent by the outbox's thread: read it once it was sent.
            wait_for("bob's results mail", 600,
                     lambda: _mail_score(received, "bob") and not _mail_waiting(service),
                     every=0.3)  # fmt: skip
            before = _views(service, people, received)
            people["tina"].client.post("/release", data={"csrf": people["tina"].csrf()})
            # A results mail after the release: bob's upload graded again.
            count = len(received)
            people["tina"].client.post("/regrade", data={"csrf": people["tina"].csrf(),
                                                         "login": "bob"})  # fmt: skip
            wait_for("bob's mail", 600, lambda: _mail_score(received[count:], "bob"), every=0.3)
            wait_graded(service)
            wait_for("the mails sent", 600, lambda: not _mail_waiting(service), every=0.3)
            after = _views(service, people, received, released=True)
    finally:
        service.close()
    _check(before, after, late, deduct)


def _views(service: Service, people: dict[str, Any], received: list[Any],
           released: bool = False) -> dict[str, dict[str, Any]]:  # fmt: skip
    """Every view's number for every student: view -> login -> (score, max)
    (None: blank, no grade)."""
    tina = people["tina"]
    views: dict[str, dict[str, Any]] = {}
    logins = ("alice", "bob", "carol", "dave", "erin")
    token = {login: people[login].token() for login in logins}
    for login in logins:
        me = people[login].page("/me")
        counting = re.search(r'class="grade-line">.*?by upload <a href="/uploads/(\d+)"', me)
        views.setdefault("/me", {})[login] = span(me) if counting else None
        views.setdefault("teacher's student page", {})[login] = (
            span(tina.page(f"/students/{login}")) if counting else None
        )
        if counting is None:
            continue
        upload = int(counting.group(1))
        student, page = people[login], f"/uploads/{upload}"
        views.setdefault("/uploads/N", {})[login] = span(student.page(page))
        views.setdefault("teacher's /uploads/N", {})[login] = span(tina.page(page))
        views.setdefault("feedback", {})[login] = span(student.page(f"{page}/feedback"))
        bearer = {"Authorization": f"Bearer {token[login]}"}
        shown = student.client.get(f"/api{page}", headers=bearer).json()
        views.setdefault("API", {})[login] = (shown["score"], shown["max_score"])
    # The class page's table and the class report.
    page = tina.page("/class").split('<table class="students">', 1)[1]
    for login in logins:
        row = re.search(rf'<td><a href="/students/{login}">{login}</a></td>.*?</tr>', page, re.S)
        assert row, page[-3000:]
        cells = re.findall(r'<td class="num">([\d.]+ / [\d.]+)</td>', row.group(0))
        views.setdefault("/class", {})[login] = number(cells[0]) if cells else None
    report = tina.page("/class/report")
    for login in logins:
        row = re.search(rf'>{login}</a>.*?<td class="num">([\d.]+ / [\d.]+)</td>', report, re.S)
        assert row, login
        views.setdefault("/class/report", {})[login] = number(row.group(1))
    views.update(_exports(tina))
    views["mail"] = {"bob": _mail_score(received, "bob")}
    return views


def _exports(tina: Any) -> dict[str, dict[str, Any]]:
    def get(name: str) -> str:
        r = tina.client.get(f"/export/{name}")
        assert r.status_code == 200, (name, r.text[:300])
        return r.content.decode("utf-8-sig")

    def cell(value: str) -> float | None:
        return float(value) if value != "" else None

    out: dict[str, dict[str, Any]] = {}
    rows = list(csv.DictReader(io.StringIO(get("grades.csv"))))
    out["grades.csv"] = {r["id"]: (cell(r["score"]), float(r["max_score"])) for r in rows}
    rows = list(csv.DictReader(io.StringIO(get("grades-wide.csv"))))
    out["grades-wide.csv"] = {r["id"]: cell(r["total"]) for r in rows}
    klass = json.loads(get("class.json"))
    out["class.json"] = {s["id"]: (s["score"], s["max_score"]) for s in klass["students"]}
    out["class.json tests"] = {"": klass["tests"]}
    moodle = list(csv.reader(io.StringIO(get("moodle.csv"))))
    out["moodle.csv"] = {r[0]: cell(r[2]) for r in moodle[1:]}
    canvas = list(csv.reader(io.StringIO(get("canvas.csv"))))
    out["canvas.csv"] = {r[3]: cell(r[5]) for r in canvas[2:]}
    return out


def _mail_waiting(service: Service) -> bool:
    """Whether the outbox holds a mail not sent yet."""
    with service.store.session() as db:
        return db.scalar(select(Mail.id).where(Mail.state == "waiting").limit(1)) is not None


def _mail_score(received: list[Any], login: str) -> tuple[float, float] | None:
    """The score of the last results mail to `login`."""
    import email
    from email import policy

    mails = [email.message_from_bytes(r.content, policy=policy.default) for r in received
             if r.rcpt_tos == [f"{login}@students.example.edu"]]  # fmt: skip
    bodies = [m.get_body().get_content() for m in mails if "graded" in str(m["Subject"])]
    if not bodies:
        return None
    found = re.search(r"Score: (.*)", bodies[-1])
    assert found, bodies[-1]
    return number(found.group(1))


def _check(before: dict[str, Any], after: dict[str, Any], late: str, deduct: bool) -> None:
    # Within a side every view says the same; what the number is follows.
    for views, released in ((before, False), (after, True)):
        student_side = ["/me", "/uploads/N", "feedback", "API", "grades.csv", "class.json",
                        "moodle.csv", "canvas.csv", "grades-wide.csv"]  # fmt: skip
        teacher_side = ["/class", "/class/report", "teacher's student page",
                        "teacher's /uploads/N"]  # fmt: skip
        if released:
            student_side += teacher_side
            teacher_side = []
        for login in ("alice", "bob", "carol", "erin"):
            seen = {v: _score(views[v].get(login)) for v in student_side}
            assert len(set(seen.values())) == 1, (late, released, login, seen)
            full = {v: _score(views[v].get(login)) for v in teacher_side}
            assert len(set(full.values())) <= 1, (late, released, login, full)
        # dave has no upload: blank in every export, no grade on his pages.
        for name in ("grades.csv", "class.json"):
            assert views[name]["dave"][0] is None, (name, views[name]["dave"])
        for name in ("moodle.csv", "canvas.csv", "grades-wide.csv"):
            assert views[name]["dave"] is None, (name, views[name]["dave"])
        assert views["/me"]["dave"] is None
        assert views["/class"]["dave"] is None  # no upload: a blank grade, not 0
        # Before the release the exports hold the public test only.
        assert views["class.json tests"][""] == (list(TESTS) if released else ["test001"])
        # bob's last results mail says what his pages say.
        assert _score(views["mail"]["bob"]) == _score(views["/me"]["bob"]), (late, released)
    doc = 2 if deduct else 0
    # After the release: alice (documentation handed in apart) 3/3; bob
    # (none) 3 less the deduction; erin's upload counts (her extension);
    # carol's counts per the late policy.
    assert _score(after["/me"]["alice"]) == 3
    assert _score(after["/me"]["bob"]) == 3 - doc
    assert _score(after["grades.csv"]["bob"]) == 3 - doc
    assert _score(before["/me"]["bob"]) == max(0, 1 - doc)  # the deduction, seen early
    assert after["/me"]["erin"] is not None
    carol = _score(after["/class"]["carol"])
    assert (carol == 3 - doc) if late == "counted" else (carol < 3 - doc), (late, carol)


def _score(value: Any) -> float | None:
    """The score of a view's value: (score, max), a bare score, or None."""
    if isinstance(value, tuple):
        return None if value[0] is None else float(value[0])
    return None if value is None else float(value)


def test_canvas_names_the_roster_gives_and_the_lms_files_have_a_bom(tmp_path: Path) -> None:
    """The roster's names in canvas.csv's Student column (the login where
    it has none), a blank score for no upload, UTF-8 with a BOM."""
    from service_kit import accounts

    course = write_course(tmp_path / "course", "ignored", False, 25,
                          datetime.now(UTC) + timedelta(days=9))  # fmt: skip
    roster = tmp_path / "roster.txt"
    roster.write_text('alice alice@home.example "Alice Álmos"\nbob\n', encoding="utf-8")
    accounts(course, tmp_path / "data", "--roster", str(roster))
    service = Service(ServiceSettings(course, tmp_path / "data"))
    app = app_of(service, grade=False)
    try:
        with TestClient(app):
            tina = person(app, service, "tina", "teacher")
            raw = {name: tina.client.get(f"/export/{name}").content
                   for name in ("canvas.csv", "moodle.csv", "grades.csv")}  # fmt: skip
    finally:
        service.close()
    assert raw["canvas.csv"].startswith(b"\xef\xbb\xbf") and raw["moodle.csv"].startswith(
        b"\xef\xbb\xbf"
    )
    assert raw["grades.csv"].startswith(b"id,")
    canvas = list(csv.reader(io.StringIO(raw["canvas.csv"].decode("utf-8-sig"))))
    assert canvas[0][0] == "Student" and canvas[0][5] == "Deklaratív Sudoku"
    assert {r[3]: (r[0], r[5]) for r in canvas[2:]} == {"alice": ("Alice Álmos", ""),
                                                       "bob": ("bob", "")}  # fmt: skip


@pytest.mark.parametrize(("line", "said"), [
    ('alice "Alice', ':7: "Alice is not a mail address'),
    ('"Alice"', "a name needs a login before it"),
    ('alice "  "', "the name must be printable"),
])  # fmt: skip
def test_a_roster_name_is_checked(tmp_path: Path, line: str, said: str) -> None:
    from plpuzzle.sudoku.service.roster import RosterError, read_roster

    roster = tmp_path / "roster.txt"
    roster.write_text(f"{line}\n", encoding="utf-8")
    with pytest.raises(RosterError, match=re.escape(f"{roster}:1") + ".*" + re.escape(said)):
        read_roster(roster)
