"""The course's language (issue 55): a Hungarian course speaks Hungarian
to a browser that asks for nothing else, English to one that asks for
English, and a user's own choice wins over both, on the students' pages
and the teacher's; a mail speaks its recipient's language, whoever's
request sent it; `submit` speaks the terminal's language. A real `serve`
over HTTP, real subprocesses, a real SMTP server on loopback."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.fixtures.python.service_kit import (
    CLASS,
    PASSWORD,
    Server,
    accounts,
    api_tokens,
    make_course,
    smtp_server,
    wait_for,
)

ALICE = (CLASS / "alice.pl").read_bytes()

HUNGARIAN_COURSE = """\
time_limit = 10

[course]
public = ["test001", "test002"]
deadline = 2999-12-12T23:59:00+01:00
language = "hu"
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[Server, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("language")
    course, data = make_course(tmp / "course", HUNGARIAN_COURSE), tmp / "data"
    roster = tmp / "roster.txt"
    roster.write_text("hanna\nemil\nlili\n")
    links = accounts(course, data, "--roster", str(roster), "--teacher", "tanar",
                     "--teacher", "oktato")  # fmt: skip
    server = Server(course, data).start()
    for teacher in ("tanar", "oktato"):  # who sign in with their password
        r = httpx.post(f"{server.url}{links[teacher]}", data={"password": PASSWORD,
                       "again": PASSWORD}, timeout=60)  # fmt: skip
        assert r.status_code == 303, r.text[:500]
    yield server, links
    server.stop()


@contextmanager
def signed_in(server: Server, link: str, accept: str | None = None) -> Iterator[httpx.Client]:
    """A browser of its own that set its password through its link."""
    headers = {"Accept-Language": accept} if accept else {}
    with httpx.Client(base_url=server.url, headers=headers, timeout=60) as browser:
        r = browser.post(link, data={"password": PASSWORD, "again": PASSWORD})
        assert r.status_code == 303, r.text[:500]
        yield browser


@contextmanager
def password_signed_in(server: Server, login: str, accept: str | None = None) -> Iterator[
        httpx.Client]:  # fmt: skip
    """A browser of its own signed in with the sign-in form."""
    headers = {"Accept-Language": accept} if accept else {}
    with httpx.Client(base_url=server.url, headers=headers, timeout=60) as browser:
        form = browser.get("/signin").text
        pre = re.search(r'name="pre" value="([^"]*)"', form)
        assert pre
        r = browser.post("/signin", data={"login": login, "password": PASSWORD,
                                          "pre": pre.group(1)})  # fmt: skip
        assert r.status_code == 303, r.text[:500]
        yield browser


def csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found
    return found.group(1)


def test_a_hungarian_course_speaks_hungarian_to_a_browser_that_asks_nothing(served) -> None:
    server, _links = served
    page = httpx.get(f"{server.url}/signin", timeout=30).text
    assert '<html lang="hu">' in page
    assert "<h1>Belépés</h1>" in page and "Jelszó" in page
    assert "Sign in" not in page and "Password" not in page
    missing = httpx.get(f"{server.url}/no/such/thing", headers={"Accept": "text/html"},
                        timeout=30)  # fmt: skip
    assert missing.status_code == 404 and "nincs ilyen oldal" in missing.text


def test_in_that_course_a_browser_that_asks_for_english_sees_english(served) -> None:
    server, _links = served
    asked = {"Accept-Language": "en-GB,en;q=0.9,hu;q=0.5"}
    page = httpx.get(f"{server.url}/signin", headers=asked, timeout=30).text
    assert '<html lang="en">' in page and "<h1>Sign in</h1>" in page
    assert "Belépés" not in page
    # A language the service has no catalogue for: the course's.
    other = httpx.get(f"{server.url}/signin", headers={"Accept-Language": "de"}, timeout=30)
    assert "<h1>Belépés</h1>" in other.text


def test_the_student_loop_in_hungarian_with_the_dates_in_hungarian(served) -> None:
    server, links = served
    with signed_in(server, links["hanna"]) as browser:
        me = browser.get("/me").text
        assert "<h1>Feltöltéseim</h1>" in me and "Beadás" in me
        assert "A beadási határidő: 2999. december 12. 23:59 (UTC+01:00)" in me
        refused = browser.post("/uploads", data={"csrf": csrf(me)},
                               files={"file": ("notes.doc", b"x")})  # fmt: skip
        assert refused.status_code == 415
        assert (
            "a sudoku.pl-t töltsd fel" in refused.text
            and "&#39;notes.doc&#39; egyik sem" in refused.text
        )
        taken = browser.post("/uploads", data={"csrf": csrf(me)},
                             files={"file": ("sudoku.pl", b"sudoku(_, _).\n")})  # fmt: skip
        assert taken.status_code == 303
        page = browser.get(taken.headers["location"]).text
        assert "1. feltöltés" in page and "Feltöltve" in page and "Pontszám" in page
        assert "Uploaded" not in page


def test_a_users_own_choice_wins_over_the_browser_and_is_kept(served) -> None:
    server, links = served
    with signed_in(server, links["emil"], accept="hu") as browser:
        me = browser.get("/me").text
        assert "<h1>Feltöltéseim</h1>" in me
        r = browser.post("/language", data={"csrf": csrf(me), "language": "en", "back": "/me"})
        assert r.status_code == 303 and r.headers["location"] == "/me"
        me = browser.get("/me").text
        assert "<h1>My uploads</h1>" in me and "The deadline is 2999-12-12 23:59" in me
        assert '<option value="en" selected>' in me
        bad = browser.post("/language", data={"csrf": csrf(me), "language": "xx"})
        assert bad.status_code == 400
        # Elsewhere: back to the page it was chosen on, a path of ours only.
        r = browser.post("/language", data={"csrf": csrf(me), "language": "",
                                            "back": "//evil.example/"})  # fmt: skip
        assert r.headers["location"] == "/"
        assert "<h1>Feltöltéseim</h1>" in browser.get("/me").text


def test_submit_speaks_hungarian_under_a_hungarian_locale(served, tmp_path: Path) -> None:
    server, _links = served
    tokens = api_tokens(server.course, server.data, ["zita"], teacher="teo")
    program = tmp_path / "sudoku.pl"
    program.write_text("sudoku(_, _).\n")
    wrong = tmp_path / "notes.doc"
    wrong.write_text("x")

    def submit(file: Path, lang: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
        env.update(LANG=lang, PLPUZZLE_TOKEN=tokens["zita"], HOME=str(tmp_path))
        return subprocess.run([sys.executable, "-m", "plpuzzle", "sudoku", "submit", str(file),
                               "--server", server.url, "--no-wait"], env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip

    hungarian = submit(program, "hu_HU.UTF-8")
    assert re.search(r"^\d+\. feltöltés: sudoku\.pl \(14 bájt\)", hungarian.stdout, re.M), (
        hungarian.stdout + hungarian.stderr
    )
    english = submit(program, "C.UTF-8")
    assert re.search(r"^upload #\d+: sudoku\.pl \(14 bytes\)", english.stdout, re.M)
    # The service's refusal comes back in the terminal's language too.
    refused = submit(wrong, "hu_HU.UTF-8")
    assert refused.returncode == 2 and "egyik sem" in refused.stderr, refused.stderr


def test_the_teachers_pages_in_hungarian_with_their_dates(served) -> None:
    server, _links = served
    with password_signed_in(server, "tanar") as teacher:
        page = teacher.get("/class").text
        assert "<h1>Csoport</h1>" in page and "Mindenki újraértékelése…" in page
        assert ">Hallgató</a>" in page and ">Jegy</a>" in page and "Szűrés" in page
        assert "hallgató:" in page and "nincs feltöltés" in page and "Eredménymátrix" in page
        for english in ("Regrade everyone", ">Student</a>", "Filter", "no upload", "Verdict"):
            assert english not in page, english
        student = teacher.get("/students/lili").text
        assert "<h2>Határidő</h2>" in student and "A tárgyé: 2999. december 12. 23:59" in student
        assert "Hosszabbítás megadása" in student and "Deadline" not in student
        granted = teacher.post("/students/lili/extension", data={
            "csrf": csrf(student), "until": "2999-12-20T12:00"}, follow_redirects=True)  # fmt: skip
        assert "Kész: lili határideje mostantól 2999. december 20. 12:00" in granted.text
        assert ("Hosszabbítás eddig: 2999. december 20. 12:00 (UTC+01:00) (megadta: tanar, 2"
                in granted.text)  # fmt: skip
        back = teacher.post("/students/lili/extension", data={"csrf": csrf(granted.text),
                            "until": ""}, follow_redirects=True)  # fmt: skip
        assert "lili hosszabbítása visszavonva" in back.text
        confirm = teacher.get("/regrade", params={"login": "lili"}).text
        assert "<h1>lili újraértékelése?</h1>" in confirm and "Mégsem" in confirm
        release = teacher.get("/release").text
        assert "A tárgynak nincs levelezése: senki sem kap e-mailt." in release
        status = teacher.get("/status").text
        assert "<h1>Állapot</h1>" in status and "Értékelési sebesség" in status
        assert re.search(r"ez a gép, \d+ folyamat", status) and "this machine" not in status
        similar = teacher.get("/similarity").text
        assert "Hasonló beadások" in similar and "Compare now" not in similar
        tokens = teacher.get("/tokens").text
        assert "Belépések és API-tokenek" in tokens and "Ahol be vagy lépve" in tokens
        refused = teacher.post("/tokens", data={"csrf": csrf(tokens), "days": "0"})
        assert refused.status_code == 400 and "egész szám 1 és 3650 között" in refused.text
        made = teacher.post("/tokens", data={"csrf": csrf(tokens), "label": "laptop"}).text
        assert "Az új tokened" in made and re.search(r"<td>\d{4}\. [a-zá-ű]+ \d+\. ", made)
        assert "never" not in made and "soha" in made


def test_a_teacher_whose_browser_asks_for_english_sees_english(served) -> None:
    server, _links = served
    with password_signed_in(server, "oktato", accept="en-GB,en;q=0.8") as teacher:
        page = teacher.get("/class").text
        assert "<h1>Class</h1>" in page and "Regrade everyone…" in page
        assert ">Student</a>" in page and "Csoport" not in page and "Hallgató" not in page
        student = teacher.get("/students/lili").text
        assert "The course's: 2999-12-12 23:59" in student and "Határidő" not in student
        status = teacher.get("/status").text
        assert "<h1>Status</h1>" in status and re.search(r"this machine, \d+ jobs?", status)
        tokens = teacher.get("/tokens").text
        assert "Sign-ins and API tokens" in tokens and "Belépések" not in tokens


MAIL_COURSE = (HUNGARIAN_COURSE.replace("[course]\n", '[course]\nname = "Deklaratív 2026"\n')
               + '\n[course.mail]\nhost = "127.0.0.1"\nport = {port}\n'
               'from = "sudoku@example.edu"\ndomain = "students.example.edu"\n'
               "starttls = false\n")  # fmt: skip


def mails_of(received: list[Any]) -> dict[tuple[str, str], str]:
    """The mails the SMTP server received: (login, subject) -> body."""
    parsed = [message_from_bytes(e.original_content, policy=policy.default) for e in received]
    return {(m["To"].split("@")[0], m["Subject"]): m.get_content() for m in parsed}


@pytest.mark.sandbox
@pytest.mark.slow
def test_mails_speak_their_recipients_language_not_the_senders(tmp_path: Path) -> None:
    """hanna chose nothing (the course's Hungarian), though her browser asks
    for English; emil chose English; the teacher's browser asks for
    English when the release mails them both."""
    with smtp_server() as (port, received):
        course = make_course(tmp_path / "course", MAIL_COURSE.format(port=port))
        data = tmp_path / "data"
        roster = tmp_path / "roster.txt"
        roster.write_text("hanna\nemil\n")
        links = accounts(course, data, "--roster", str(roster), "--teacher", "tanar",
                         "--send", "--url", "https://sudoku.example.edu")  # fmt: skip
        mails = lambda: mails_of(received)  # noqa: E731
        welcome = mails()[("hanna", "Deklaratív 2026: belépési link")]
        assert "A jelszavadat itt választhatod meg" in welcome and "Choose" not in welcome
        with Server(course, data, 1) as server:
            with signed_in(server, links["hanna"], accept="en") as hanna:
                me = hanna.get("/me").text
                assert "<h1>My uploads</h1>" in me  # her pages: her browser's English
                hanna.post("/me/mail", data={"csrf": csrf(me), "results": "yes"})
                hanna.post("/uploads", data={"csrf": csrf(me)},
                           files={"file": ("sudoku.pl", ALICE)})  # fmt: skip
            with signed_in(server, links["emil"], accept="hu") as emil:
                me = emil.get("/me").text
                emil.post("/language", data={"csrf": csrf(me), "language": "en"})
                emil.post("/uploads", data={"csrf": csrf(me)},
                          files={"file": ("sudoku.pl", b"sudoku(_, _).\n")})  # fmt: skip
            with signed_in(server, links["tanar"], accept="en") as teacher:
                page = teacher.get("/release").text
                assert "Release and mail 2" in page
                teacher.post("/release", data={"csrf": csrf(page)})
            wanted = {("hanna", "Deklaratív 2026: az eredmények kiadva"),
                      ("emil", "Deklaratív 2026: results released")}  # fmt: skip
            wait_for("the release mails", 120, lambda: wanted <= set(mails()), every=0.3)
            graded = lambda: [v for k, v in mails().items()  # noqa: E731
                              if k[0] == "hanna" and "értékelése elkészült" in k[1]]  # fmt: skip
            wait_for("hanna's results mail", 300, graded, every=0.3)
        got = mails()
        released = got[("hanna", "Deklaratív 2026: az eredmények kiadva")]
        assert "Az összes feltöltésed: " in released and "All your uploads" not in released
        assert "All your uploads: " in got[("emil", "Deklaratív 2026: results released")]
        results = graded()[0]
        assert "Pontszám: " in results and "Az oldala: " in results
        assert re.search(r"^test001  helyes", results, re.M), results
        assert "Score" not in results and "correct" not in results


def refused(server: Server, length: int, headers: dict[str, str]) -> tuple[int, str]:
    """A POST to /uploads whose body never comes (`length` stated): the
    status and page the service answers before its application sees it
    (413 by the stated size at once; else 408 when the body's time is up)."""
    host, port = server.url.removeprefix("http://").split(":")
    lines = ["POST /uploads HTTP/1.1", f"Host: {host}", f"Content-Length: {length}",
             "Content-Type: multipart/form-data; boundary=x",
             *(f"{k}: {v}" for k, v in headers.items())]  # fmt: skip
    with socket.create_connection((host, int(port)), timeout=120) as raw:
        raw.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        answer = b""
        while chunk := raw.recv(65536):
            answer += chunk
    head, _sep, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode("utf-8", "replace")


@pytest.mark.slow
def test_refusals_before_the_application_answers_speak_the_requests_language(served) -> None:
    """413 and 408 are answered by the body's guards, outside the routes:
    in the course's language, the browser's, the user's own (cookie)."""
    server, _links = served
    big = 64 * 1024 * 1024
    status, page = refused(server, big, {})
    assert status == 413 and "<h1>Sajnáljuk</h1>" in page and "a fájl nagyobb" in page, page[:800]
    assert "Sorry" not in page and "the file is larger" not in page
    status, page = refused(server, big, {"Accept-Language": "en-GB"})
    assert status == 413 and "the file is larger than" in page, page[:800]
    with password_signed_in(server, "oktato") as teacher:
        me = teacher.get("/status").text
        teacher.post("/language", data={"csrf": csrf(me), "language": "en", "back": "/"})
        cookie = "; ".join(f"{k}={v}" for k, v in teacher.cookies.items())
        status, page = refused(server, big, {"Cookie": cookie})
        assert status == 413 and "the file is larger than" in page, page[:800]
        teacher.post("/language", data={"csrf": csrf(me), "language": "", "back": "/"})
    status, page = refused(server, 100, {})  # its body's time runs out
    assert status == 408 and "a kérés törzse nem érkezett meg" in page, page[:800]
    assert "<h1>Sajnáljuk</h1>" in page and "Sorry" not in page, page[:800]
