"""The course's language (issue 55): a Hungarian course speaks Hungarian
to a browser that asks for nothing else, English to one that asks for
English, and a user's own choice wins over both; `submit` speaks the
terminal's language. A real `serve` over HTTP, real subprocesses."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from tests.fixtures.python.service_kit import (
    PASSWORD,
    Server,
    accounts,
    api_tokens,
    make_course,
)

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
    roster.write_text("hanna\nemil\n")
    links = accounts(course, data, "--roster", str(roster))
    server = Server(course, data).start()
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
