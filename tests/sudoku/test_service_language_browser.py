"""The teacher's loop in Hungarian in a real browser (issue 55): Debian's
Chromium, driven through Selenium, against `plpuzzle sudoku serve` as a
process. The teacher chooses *magyar* on the page, then walks the class
page (its filter, redrawn by the page's script), a student's page (an
extension granted), a regrade, the release, the status page, the
similarity page (a comparison run) and the tokens page (a token made),
clicking the pages' own Hungarian buttons; on every page (the course
requirements' findings too) no English word of a list is left, beyond
the names and code the pages show (logins, file and test names, commands).

Waits are generous (minutes) and nothing depends on how long anything took.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from language_kit import GRADING, HUNGARIAN_COURSE, PAGE, body, clicked, english_left, until
from service_kit import CLASS, PASSWORD, Server, accounts, make_course, wait_for

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

pytestmark = [pytest.mark.browser, pytest.mark.sandbox]

ALICE = (CLASS / "alice.pl").read_bytes()

#: English words none of the teacher's pages may show in Hungarian: their
#: headings, buttons, states and the small words of their sentences.
ENGLISH = (
    "the", "and", "of", "to", "is", "are", "Class", "Student", "Students", "Grade",
    "Deadline", "Requirements", "Regrade", "Release", "released", "Filter", "Show",
    "Upload", "Uploads", "upload", "uploads", "graded", "grading", "queued", "done",
    "Status", "Similarity", "Sign", "Cancel", "never", "counts", "late", "History",
    "Documentation", "Score", "tests", "Done", "Language", "Choose", "Export", "Exports",
    "Mail", "Queued", "Graders", "Tokens", "tokens", "Label", "Revoke", "correct", "wrong",
)  # fmt: skip


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[Server, dict[str, str]]]:
    """A Hungarian course with two students who handed in the same file
    (graded, and a pair for the similarity page) and a teacher."""
    course, data = make_course(tmp_path / "course", HUNGARIAN_COURSE), tmp_path / "data"
    roster = tmp_path / "roster.txt"
    roster.write_text("alice\nbob\n")
    links = accounts(course, data, "--roster", str(roster), "--teacher", "tanar")
    server = Server(course, data, 1).start()
    try:
        for login in ("alice", "bob"):
            hand_in(server, links[login])
        yield server, links
    finally:
        server.stop()


def hand_in(server: Server, link: str) -> None:
    """A student signs in through their link and hands in alice.pl; back
    when its grading is done."""
    with httpx.Client(base_url=server.url, timeout=120) as student:
        r = student.post(link, data={"password": PASSWORD, "again": PASSWORD})
        assert r.status_code == 303, r.text[:300]
        csrf = re.search(r'name="csrf" value="([^"]+)"', student.get("/me").text)
        assert csrf
        taken = student.post("/uploads", data={"csrf": csrf.group(1)},
                             files={"file": ("sudoku.pl", ALICE)})  # fmt: skip
        status = taken.headers["location"] + "/status.json"
        wait_for("the upload graded", GRADING,
                 lambda: student.get(status).json()["state"] == "done", 0.5)  # fmt: skip


def click(driver: WebDriver, label: str) -> None:
    """Click the button or link of the page named `label`, and wait for the
    page it leads to."""
    from selenium.webdriver.common.by import By

    clicked(driver, By.XPATH, f"//*[self::button or self::a][normalize-space()='{label}']")


@pytest.mark.slow
def test_the_teachers_loop_in_hungarian_leaves_no_english(site, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    server, links = site
    driver = browser
    driver.set_page_load_timeout(PAGE)
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.get(server.url + links["tanar"])  # the browser asks for English: the welcome is
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.NAME, "again").send_keys(PASSWORD)
    click(driver, "Set my password")
    Select(driver.find_element(By.NAME, "language")).select_by_value("hu")
    click(driver, "Choose")
    walked: dict[str, list[str]] = {}

    def look(name: str) -> str:
        walked[name] = english_left(driver, ENGLISH)
        return body(driver)

    driver.get(server.url + "/class")
    page = look("class")
    assert driver.title == "Csoport \u2013 Deklaratív programozás 2026"
    assert "2 hallgató: 2 értékelve." in page and "Eredménymátrix" in page
    # The filter redraws the table in place (the page's script).
    Select(driver.find_element(By.NAME, "show")).select_by_value("extension")
    until(driver, lambda d: "Egy hallgató sem felel meg." in body(d), "the filtered table")
    look("class, filtered")
    driver.get(server.url + "/class")
    click(driver, "alice")
    look("alice")
    until_field = driver.find_element(By.NAME, "until")
    driver.execute_script("arguments[0].value = '2999-12-20T12:00'", until_field)
    click(driver, "Hosszabbítás megadása")
    page = look("alice, extended")
    assert "Kész: alice határideje mostantól 2999. december 20. 12:00" in page
    click(driver, "A hallgató újraértékelése…")
    assert "alice 1 számító feltöltésének újraértékelése" in look("regrade alice")
    click(driver, "Újraértékelés")
    assert "1 számító feltöltés újraértékelésre vár" in look("alice, regraded")
    driver.get(server.url + "/release")
    look("release")
    click(driver, "Kiadás")
    assert "eredmények kiadva" in look("class, released")
    driver.get(server.url + "/status")
    assert "Értékelési sebesség" in look("status")
    driver.get(server.url + "/similarity")
    click(driver, "Összehasonlítás most")
    until(driver, lambda d: "Közös ujjlenyomatok" in body(d), "the comparison's pairs")
    look("similarity")
    driver.get(server.url + "/tokens")
    driver.find_element(By.NAME, "label").send_keys("laptop")
    click(driver, "Token készítése")
    assert "Az új tokened" in look("tokens")
    assert not any(walked.values()), {k: v for k, v in walked.items() if v}
