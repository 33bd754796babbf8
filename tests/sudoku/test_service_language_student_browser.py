"""The student's loop in Hungarian in a real browser (issue 55): Debian's
Chromium, driven through Selenium, against `plpuzzle sudoku serve` as a
process, in a course with `language = "hu"`. The browser asks for German,
a language the service has no catalogue for, so the course's language is
what speaks. The student opens their sign-in link, sets a password, signs
in again, hands in a file that does not load and then one that does,
through the page's form, watches the upload's page graded by its script,
reads the feedback and the diff, and meets the 404 page; on every page no
English word of a list is left, beyond names and code (logins, file and
test names, what Prolog said). The same course, to a browser that asks
for English, speaks English.

Waits are generous (minutes) and nothing depends on how long anything took.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from language_kit import GRADING, HUNGARIAN_COURSE, PAGE, body, clicked, english_left, until
from service_kit import CLASS, PASSWORD, Server, accounts, make_course

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

pytestmark = [pytest.mark.browser, pytest.mark.sandbox]

ALICE = (CLASS / "alice.pl").read_text(encoding="latin-1")
BROKEN = ALICE.replace("labeling([ff], Vars)", "labeling([ff] Vars)", 1)

#: English words none of the student's pages may show in Hungarian: their
#: headings, buttons, states and the small words of their sentences ("is"
#: is Hungarian too: "also").
ENGLISH = (
    "the", "and", "of", "to", "are", "was", "in", "on", "your", "you", "Sign", "Welcome",
    "Password", "password", "Login", "Language", "Choose", "My", "Upload", "Uploads",
    "upload", "uploads", "Hand", "Deadline", "deadline", "counts", "File", "download",
    "diff", "Feedback", "Score", "score", "public", "tests", "Test", "Grade", "queued",
    "grading", "graded", "done", "correct", "wrong", "Back", "Page", "found", "load",
    "Sorry", "Error", "No", "yet", "from", "now", "days",
)  # fmt: skip


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[Server, str, Path]]:
    """The Hungarian course, one student's sign-in link, and the student's
    disk (the file that does not load and the one that does)."""
    course, data = make_course(tmp_path / "course", HUNGARIAN_COURSE), tmp_path / "data"
    roster = tmp_path / "roster.txt"
    roster.write_text("diana\n")
    link = accounts(course, data, "--roster", str(roster))["diana"]
    disk = tmp_path / "disk"
    for folder, text in (("broken", BROKEN), ("fixed", ALICE)):
        (disk / folder).mkdir(parents=True)
        (disk / folder / "sudoku.pl").write_text(text, encoding="latin-1")
    server = Server(course, data, 1).start()
    try:
        yield server, link, disk
    finally:
        server.stop()


def press(driver: WebDriver, css: str) -> None:
    """Click the element `css` (a form's button) and wait for the page it
    leads to."""
    from selenium.webdriver.common.by import By

    clicked(driver, By.CSS_SELECTOR, css)


def asking(driver: WebDriver, languages: str) -> None:
    """The browser's Accept-Language from now on."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders",
                           {"headers": {"Accept-Language": languages}})  # fmt: skip


def hand_in(driver: WebDriver, url: str, file: Path) -> int:
    """Hand `file` in through the form of the student's page; its number."""
    from selenium.webdriver.common.by import By

    driver.get(url + "/me")
    driver.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(file))
    press(driver, "form[action='/uploads'] button[type=submit]")
    found = re.search(r"/uploads/(\d+)$", driver.current_url)
    assert found, (driver.current_url, body(driver)[:500])
    return int(found.group(1))


@pytest.mark.slow
def test_the_students_loop_in_hungarian_leaves_no_english(site, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    server, link, disk = site
    driver = browser
    driver.set_page_load_timeout(PAGE)
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    asking(driver, "de-DE,de;q=0.9")
    walked: dict[str, list[str]] = {}

    def look(name: str) -> str:
        walked[name] = english_left(driver, ENGLISH, code=False)
        return body(driver)

    driver.get(server.url + link)
    assert "Üdvözlünk, diana" in look("welcome")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.NAME, "again").send_keys(PASSWORD)
    press(driver, "button[type=submit]")
    assert driver.title.startswith("Feltöltéseim"), driver.title
    page = look("my uploads")
    assert "A beadási határidő: 2999. december 12. 23:59 (UTC+01:00)" in page, page[:1500]
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.get(server.url + "/signin")
    assert driver.title.startswith("Belépés") and "Jelszó" in look("sign-in")
    driver.find_element(By.NAME, "login").send_keys("diana")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    press(driver, "form[action='/signin'] button[type=submit]")

    hand_in(driver, server.url, disk / "broken" / "sudoku.pl")
    # The page's script may redraw the card while it is read: read it anew.
    trouble = until(driver, lambda d: d.find_element(By.CSS_SELECTOR, "section.card.error").text,
                    "the trouble of the upload that does not load")  # fmt: skip
    assert trouble.startswith("Nem töltődik be"), trouble
    # Prolog's own message stays as printed; what the check adds is said.
    assert "Syntax error" in trouble and "így a(z) sudoku/2 nincs definiálva" in trouble, trouble
    assert "is not defined" not in trouble, trouble
    look("an upload that does not load")
    fixed = hand_in(driver, server.url, disk / "fixed" / "sudoku.pl")
    look("the upload, as it came")
    until(driver, lambda d: "2 / 2 a nyilvános teszteken" in body(d),
          "the upload's page graded by its script", GRADING)  # fmt: skip
    page = look("the upload, graded")
    assert "2 / 2 a nyilvános teszteken" in page and "helyes" in page, page[:1500]
    driver.get(f"{server.url}/uploads/{fixed}/feedback")
    assert "Pontszám" in look("feedback")
    driver.get(f"{server.url}/uploads/{fixed}/diff")
    page = look("diff")
    assert "--- 1. feltöltés\n+++ 2. feltöltés" in page and "-    labeling([ff] Vars)." in page
    assert "A(z) 2. feltöltés a(z) 1.-hez képest" in page, page[:1500]
    driver.get(f"{server.url}/me")
    page = look("my uploads, two")
    assert "a nyilvános teszteken" in page, page[:1500]
    driver.get(f"{server.url}/no/such/page")
    look("404")
    assert not any(walked.values()), {k: v for k, v in walked.items() if v}

    # The same course and student, to a browser that asks for English.
    asking(driver, "en-GB,en;q=0.9")
    driver.get(f"{server.url}/me")
    assert driver.title.startswith("My uploads"), driver.title
    assert "The deadline is 2999-12-12 23:59 (UTC+01:00)" in body(driver)
    driver.get(f"{server.url}/uploads/{fixed}")
    assert "2 / 2 on the public tests" in body(driver)
