"""The submission service in a real browser: `plpuzzle sudoku serve` as a
process, Debian's Chromium driven through Selenium, a student and a
teacher clicking through it as people do.

What only a browser shows is checked here: the pages' script redraws an
upload's state and the class table in place as grading goes on (no
reload: a mark set on the page's window is still there), the forms work
with the page's own file input and buttons, and a hostile student's file
name and Prolog messages stay text on every page that shows them.

Waits for grading are generous (minutes) and nothing depends on how long
anything took. With PLPUZZLE_SCREENSHOTS=1 the tests also save PNGs of
the pages into docs/service/ (for the documentation); without it they
write nothing into the checkout.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import httpx
import pytest
from service_kit import CLASS, PASSWORD, REPO, Server, accounts, make_course

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement

pytestmark = [pytest.mark.browser, pytest.mark.sandbox]

#: Seconds to wait for a grading (a few seconds when the machine is idle).
GRADING = 300
#: Seconds to wait for a page or a form's answer (a load check runs in it).
PAGE = 120
#: Where the screenshots go, with PLPUZZLE_SCREENSHOTS=1.
SHOTS = REPO / "docs" / "service"
WIDTH, HEIGHT = 1200, 800
#: What the pages show for nothing (an en dash).
NONE = "\u2013"

ALICE = (CLASS / "alice.pl").read_text(encoding="latin-1")
#: alice.pl with a comma missing on line 9 (`labeling([ff], Vars)`).
BROKEN_LINE = 9
BROKEN = ALICE.replace("labeling([ff], Vars)", "labeling([ff] Vars)", 1)

#: A hostile student's file name, as it is on their disk.
EVIL_NAME = '"><img src=x onerror=alert(1)>.pl'
#: What the browser sends of it (it writes " as %22) and the pages show.
EVIL_SHOWN = "<img src=x onerror=alert(1)>.pl"
#: Markup that the file makes Prolog print while it loads.
EVIL_MESSAGE = "<script>alert(3)</script><img src=x onerror=alert(2)>"
EVIL_FILE = (
    f':- print_message(error, format("{EVIL_MESSAGE}", [])).\n'
    "sudoku(_, _) :- oops oops.\n"  # and a syntax error: it does not load
)

T = TypeVar("T")


# --- the service and the browser ---------------------------------------------


@dataclass
class Site:
    """A running service with its accounts (login -> one-time link path)."""

    server: Server
    links: dict[str, str]
    files: Path

    @property
    def url(self) -> str:
        return self.server.url


def open_site(tmp: Path, students: list[str]) -> Site:
    course = make_course(tmp / "course")
    data = tmp / "data"
    roster = tmp / "roster.txt"
    roster.write_text("".join(f"{s}\n" for s in students))
    links = accounts(course, data, "--roster", str(roster), "--teacher", "tina")
    files = tmp / "files"
    files.mkdir()
    return Site(Server(course, data).start(), links, files)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The module's service, for the tests that neither regrade nor release."""
    opened = open_site(tmp_path_factory.mktemp("service"), ["alice", "mallory"])
    try:
        yield opened
    finally:
        opened.server.stop()


@pytest.fixture
def own_site(tmp_path: Path) -> Iterator[Site]:
    """A service of the test's own: its regrade and release change what
    every page of the service shows."""
    opened = open_site(tmp_path, ["alice", "bob"])
    try:
        yield opened
    finally:
        opened.server.stop()


@pytest.fixture
def driver(browser: WebDriver) -> WebDriver:
    """The module's browser, signed out, at a fixed size, patient with pages
    whose answer waits for a load check in the sandbox."""
    browser.set_window_size(WIDTH, HEIGHT)
    browser.set_page_load_timeout(PAGE)
    browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
    return browser


def wait(driver: WebDriver, seconds: float, what: Callable[[WebDriver], T], why: str) -> T:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    waiting = WebDriverWait(driver, seconds, poll_frequency=0.5,
                            ignored_exceptions=(StaleElementReferenceException,))  # fmt: skip
    return waiting.until(what, message=f"{why} (waited {seconds} s)")  # type: ignore[no-any-return]


def go(driver: WebDriver, site: Site, path: str) -> None:
    driver.get(site.url + path)


def path_of(driver: WebDriver) -> str:
    return str(driver.execute_script("return location.pathname"))


def fresh(read: Callable[[], T]) -> T:
    """`read` of a part of the page, again if the page's script redrew that
    part between finding it and reading it (it redraws as grading goes on)."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(20):
        try:
            return read()
        except StaleElementReferenceException:
            continue
    return read()


def text(driver: WebDriver, css: str = "body") -> str:
    from selenium.webdriver.common.by import By

    return fresh(lambda: str(driver.find_element(By.CSS_SELECTOR, css).text))


def button(driver: WebDriver, label: str) -> WebElement:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.XPATH, f"//button[normalize-space()='{label}']")


def link(driver: WebDriver, label: str) -> WebElement:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.LINK_TEXT, label)


def mark(driver: WebDriver) -> None:
    """Mark the page's window: a reload (or any other page) loses the mark."""
    driver.execute_script("window.__samePage = 'yes'")


def marked(driver: WebDriver) -> bool:
    return bool(driver.execute_script("return window.__samePage === 'yes'"))


def submit(driver: WebDriver, element: WebElement) -> None:
    """Click a form's button and wait for the page it leads to (which may
    have the same address: a form that redirects back)."""
    mark(driver)
    element.click()
    wait(driver, PAGE, lambda d: not marked(d) and d.execute_script(
        "return document.readyState") == "complete", "the form's answer")  # fmt: skip


def welcome(driver: WebDriver, site: Site, login: str) -> None:
    """Open the account's one-time link and choose a password."""
    from selenium.webdriver.common.by import By

    go(driver, site, site.links[login])
    assert text(driver, "h1") == f"Welcome, {login}"
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.NAME, "again").send_keys(PASSWORD)
    submit(driver, button(driver, "Set my password"))


def sign_in(driver: WebDriver, site: Site, login: str) -> None:
    """Sign in with the sign-in form (the password is set already)."""
    from selenium.webdriver.common.by import By

    go(driver, site, "/signin")
    driver.find_element(By.NAME, "login").send_keys(login)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    submit(driver, button(driver, "Sign in"))


def upload(driver: WebDriver, site: Site, file: Path) -> int:
    """Hand `file` in through the upload form of "My uploads"; the upload's number."""
    from selenium.webdriver.common.by import By

    if path_of(driver) != "/me":
        go(driver, site, "/me")
    driver.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(file))
    submit(driver, button(driver, "Upload"))
    found = re.fullmatch(r"/uploads/(\d+)", path_of(driver))
    assert found, (path_of(driver), text(driver)[:500])
    return int(found.group(1))


def write(site: Site, folder: str, content: str, name: str = "sudoku.pl") -> Path:
    """A file on the student's disk (each in a folder of its own)."""
    (site.files / folder).mkdir()
    path = site.files / folder / name
    path.write_text(content, encoding="latin-1")
    return path


def upload_state(driver: WebDriver) -> str:
    """The upload page's state, as the page shows it now."""
    found = driver.execute_script(
        "const s = document.querySelector('#live .state'); return s ? s.textContent : ''"
    )
    return str(found)


def watch_upload(driver: WebDriver, ends: tuple[str, ...] = ("done", "failed")) -> list[str]:
    """Stay on the upload page until the page itself shows one of `ends`
    (graded: done or failed); the states it showed meanwhile."""
    seen = [upload_state(driver)]

    def graded(d: WebDriver) -> bool:
        now = upload_state(d)
        if now != seen[-1]:
            seen.append(now)
        return now in ends

    mark(driver)
    wait(driver, GRADING, graded, f"the upload page to show the upload graded (saw {seen})")
    assert marked(driver), "the page was reloaded: its script should have redrawn it"
    return seen


def student_row(driver: WebDriver, login: str) -> list[str] | None:
    """The cells of the class page's students table for `login`."""
    cells = driver.execute_script(
        "const r = [...document.querySelectorAll('table.students tbody tr')]"
        "  .find(r => r.cells[0].textContent.trim() === arguments[0]);"
        "return r ? [...r.cells].map(c => c.textContent.trim()) : null", login)  # fmt: skip
    return list(cells) if cells is not None else None


def verdicts(driver: WebDriver, login: str) -> list[str] | None:
    """The verdict table's cells for `login` (each "test: grade"), as the
    page shows them now (a class of few tests gets a table, not a picture)."""
    found = driver.execute_script(
        "const r = [...document.querySelectorAll('table.verdicts tbody tr')]"
        "  .find(r => r.cells[0].textContent === arguments[0]);"
        "return r ? [...r.querySelectorAll('td.cell')].map(c => c.title) : null",
        login,
    )  # fmt: skip
    return [str(c) for c in found] if found is not None else None


def results_rows(driver: WebDriver) -> list[list[str]]:
    from selenium.webdriver.common.by import By

    def read() -> list[list[str]]:
        rows = driver.find_elements(By.CSS_SELECTOR, "#live table.tests tbody tr")
        return [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows]

    return fresh(read)


def no_injection(driver: WebDriver) -> None:
    """Nothing a student wrote became live markup on this page: no alert
    open, no element of theirs, no script but the page's own."""
    from selenium.common.exceptions import NoAlertPresentException

    try:
        alert = driver.switch_to.alert
        said = alert.text
        alert.dismiss()
        pytest.fail(f"{path_of(driver)}: an alert is open: {said!r}")
    except NoAlertPresentException:
        pass
    found = driver.execute_script(
        "return {imgs: [...document.querySelectorAll('img')].filter(i =>"
        "          i.getAttribute('src') === 'x').length,"
        "        handlers: document.querySelectorAll('[onerror], [onload]').length,"
        "        scripts: [...document.scripts].filter(s => s.type !== 'application/json'"
        "          && s.textContent.includes('alert(')).length}"
    )
    assert found == {"imgs": 0, "handlers": 0, "scripts": 0}, path_of(driver)


def shoot(driver: WebDriver, name: str) -> None:
    """With PLPUZZLE_SCREENSHOTS=1: the whole page, WIDTH wide, as
    docs/service/NAME.png. Otherwise nothing: tests write nothing into
    the checkout."""
    if os.environ.get("PLPUZZLE_SCREENSHOTS") != "1":
        return
    driver.execute_script("window.scrollTo(0, 0)")
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    height = max(HEIGHT, min(int(size["height"]), 4 * HEIGHT))
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1},
    })  # fmt: skip
    data = base64.b64decode(shot["data"])
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"{name}.png").write_bytes(data)


def http(site: Site, driver: WebDriver | None = None) -> httpx.Client:
    """A client of the service: with the browser's cookies (its session),
    or a person's own."""
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()} if driver else {}
    return httpx.Client(base_url=site.url, cookies=cookies, timeout=PAGE)


# --- a student ---------------------------------------------------------------


def test_a_student_fixes_a_file_that_does_not_load_and_watches_it_graded(
    driver: WebDriver, site: Site
) -> None:
    from selenium.webdriver.common.by import By

    go(driver, site, "/signin")
    assert text(driver, "h1") == "Sign in"
    assert driver.find_elements(By.CSS_SELECTOR, "input[name=password][type=password]")
    shoot(driver, "signin")

    welcome(driver, site, "alice")
    assert path_of(driver) == "/me" and text(driver, "h1") == "My uploads"
    assert "No upload yet." in text(driver)

    broken = upload(driver, site, write(site, "broken", BROKEN))
    trouble = text(driver, "section.card.error")
    assert trouble.startswith("It does not load"), trouble
    place = re.search(r"sudoku\.pl:(\d+):(\d+): Syntax error", trouble)
    assert place and int(place.group(1)) == BROKEN_LINE, trouble
    shoot(driver, "student-upload-error")

    driver.find_element(By.LINK_TEXT, "← my uploads").click()
    wait(driver, PAGE, lambda d: path_of(d) == "/me", "back to my uploads")
    fixed = upload(driver, site, write(site, "fixed", ALICE))
    assert fixed > broken
    assert driver.find_elements(By.CSS_SELECTOR, "section.card.error") == []
    seen = watch_upload(driver)
    # Shown queued or grading when the page came; graded, by the page's script.
    assert seen[0].startswith(("queued", "running", "checking")), seen
    assert seen[-1] == "done", seen

    facts = text(driver, "#live dl.facts")
    assert "2 / 2 on the public tests" in facts, facts
    rows = results_rows(driver)
    assert [r[0] for r in rows] == ["test001", "test002"]  # the public tests only
    assert all(r[1] == "correct" and r[2] == "1 / 1" for r in rows), rows
    assert "4 more test(s) are graded too" in text(driver, "#live")
    shoot(driver, "student-upload-graded")

    driver.find_element(By.LINK_TEXT, "Feedback").click()
    wait(driver, PAGE, lambda d: path_of(d) == f"/uploads/{fixed}/feedback", "the feedback")
    feedback = text(driver)
    assert "alice" in feedback and "test003" not in feedback, feedback[:1000]
    shoot(driver, "student-feedback")

    go(driver, site, "/me")
    history = driver.find_elements(By.CSS_SELECTOR, "table.history tbody tr")
    cells = [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in history]
    assert [c[0] for c in cells] == [f"#{fixed}", f"#{broken}"], cells
    assert cells[0][5] == "2 / 2 on the public tests", cells
    assert "counts" in cells[0][6] and "diff" in cells[0][6], cells
    shoot(driver, "student-uploads")

    driver.find_element(By.LINK_TEXT, "diff").click()
    wait(driver, PAGE, lambda d: path_of(d) == f"/uploads/{fixed}/diff", "the diff")
    changed = [s.text for s in driver.find_elements(By.CSS_SELECTOR, "pre.diff .d-add, "
                                                    "pre.diff .d-del")]  # fmt: skip
    assert changed == ["-    labeling([ff] Vars).", "+    labeling([ff], Vars)."], changed


# --- a teacher -----------------------------------------------------------------


@pytest.mark.slow
def test_a_teacher_watches_the_class_grade_regrades_releases_and_exports(
    driver: WebDriver, own_site: Site
) -> None:
    from selenium.webdriver.common.by import By

    site = own_site
    welcome(driver, site, "tina")
    assert path_of(driver) == "/class" and text(driver, "h1") == "Class"
    assert student_row(driver, "alice")[1:3] == ["", "no upload"]  # type: ignore[index]
    assert student_row(driver, "bob")[1:3] == ["", "no upload"]  # type: ignore[index]
    assert verdicts(driver, "alice") == [f"test00{n}: missing" for n in (1, 2, 3, 4, 5, 8)]

    # Alice hands in from a browser of her own while the class page stays open.
    alice = http(site)
    assert alice.post(site.links["alice"], data={"password": PASSWORD, "again": PASSWORD}
                      ).status_code == 303  # fmt: skip
    csrf = re.search(r'name="csrf" value="([^"]+)"', alice.get("/me").text)
    assert csrf
    made = alice.post("/uploads", data={"csrf": csrf.group(1)},
                      files={"file": ("sudoku.pl", ALICE.encode("latin-1"))})  # fmt: skip
    assert made.status_code == 303, made.text[:500]
    upload_id = int(made.headers["location"].rsplit("/", 1)[1])

    mark(driver)
    row = wait(driver, GRADING, lambda d: (r := student_row(d, "alice")) and r[2] == "#1 done"
               and r, "the class page to show alice's upload graded")  # fmt: skip
    assert marked(driver), "the class page was reloaded: its script should have redrawn it"
    assert row[1] == "6 / 6", row  # her first upload, #1
    cells = verdicts(driver, "alice")
    assert cells and len(cells) == 6, f"the verdict row was not redrawn: {cells}"
    assert all(c.endswith(": correct") for c in cells), cells
    assert student_row(driver, "bob")[1:3] == ["", "no upload"]  # type: ignore[index]
    shoot(driver, "teacher-class")

    assert alice.get(f"/uploads/{upload_id}/status.json").json()["version"].startswith("done:0:")
    submit(driver, link(driver, "Regrade everyone…"))
    assert "Regrade everyone?" in text(driver, "h1")
    submit(driver, button(driver, "Regrade"))
    assert path_of(driver) == "/class"
    assert "Done: 1 counting upload(s) queued to be graded again" in text(driver, ".flash")
    mark(driver)
    wait(driver, GRADING, lambda _: alice.get(f"/uploads/{upload_id}/status.json").json()[
        "version"].startswith("done:1:"), "the regrade of alice's upload")  # fmt: skip
    wait(driver, PAGE, lambda d: (student_row(d, "alice") or [""] * 4)[1:3] == ["6 / 6", "#1 done"],
         "the class page to show the regrade done")  # fmt: skip
    assert marked(driver)

    submit(driver, link(driver, "Release full results…"))
    assert "Release full results?" in text(driver, "h1")
    submit(driver, button(driver, "Release"))
    assert "results released" in text(driver, ".actions")
    assert not driver.find_elements(By.LINK_TEXT, "Release full results…")
    assert button(driver, "Withdraw the release")

    href = driver.find_element(By.LINK_TEXT, "grades.csv").get_attribute("href")
    assert href == f"{site.url}/export/grades.csv"
    with http(site, driver) as tina:
        csv = tina.get(href)
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    lines = csv.text.splitlines()
    assert lines[0].startswith("id,score"), lines
    assert any(line.startswith("alice,6,6") for line in lines), lines
    assert any(line.startswith("bob,,6") for line in lines), lines  # no upload: blank
    with http(site) as anyone:
        assert anyone.get(href, follow_redirects=False).status_code == 303  # signed in only

    driver.find_element(By.LINK_TEXT, "Status").click()
    wait(driver, PAGE, lambda d: path_of(d) == "/status", "the status page")
    terms = [dt.text for dt in driver.find_elements(By.CSS_SELECTOR, "dl.facts dt")]
    values = [dd.text for dd in driver.find_elements(By.CSS_SELECTOR, "dl.facts dd")]
    facts = dict(zip(terms, values, strict=True))
    assert facts["Graded"] == "1" and facts["Queued"] == "0" and facts["Accounts"] == "3", facts
    shoot(driver, "teacher-status")

    # Released: alice, signed in with her password, sees every test.
    submit(driver, button(driver, "Sign out"))
    assert path_of(driver) == "/signin"
    sign_in(driver, site, "alice")
    assert path_of(driver) == "/me"
    driver.find_element(By.LINK_TEXT, f"#{upload_id}").click()
    wait(driver, PAGE, lambda d: path_of(d) == f"/uploads/{upload_id}", "alice's upload")
    rows = results_rows(driver)
    assert len(rows) == 6 and all(r[1] == "correct" for r in rows), rows
    assert "6 / 6" in text(driver, "#live dl.facts")
    assert "more test(s)" not in text(driver, "#live")
    alice.close()


# --- a hostile student ---------------------------------------------------------


@pytest.mark.slow
def test_a_hostile_file_name_and_messages_stay_text_on_every_page(
    driver: WebDriver, site: Site
) -> None:
    from selenium.webdriver.common.by import By

    welcome(driver, site, "mallory")
    evil = upload(driver, site, write(site, "evil", EVIL_FILE, EVIL_NAME))

    def shows_it(where: str, *literal: str) -> None:
        no_injection(driver)
        body = text(driver)
        for words in literal:
            assert words in body, f"{where}: {words!r} not shown"

    shows_it("the upload page", EVIL_SHOWN, EVIL_MESSAGE)
    assert EVIL_SHOWN in text(driver, "#live dd.name")
    assert f"sudoku.pl:1: {EVIL_MESSAGE}" in text(driver, "section.card.error pre")
    # Graded, redrawn by the script: it still does not load, and says so alone.
    assert watch_upload(driver, ("does not load", "failed"))[-1] == "does not load"
    shows_it("the upload page, redrawn", EVIL_SHOWN, EVIL_MESSAGE)

    go(driver, site, "/me")
    shows_it("my uploads", EVIL_SHOWN)
    go(driver, site, f"/uploads/{evil}/diff")
    shows_it("the diff", EVIL_MESSAGE, "+sudoku(_, _) :- oops oops.")
    feedback = driver.find_elements(By.LINK_TEXT, "Feedback")
    if feedback:
        go(driver, site, f"/uploads/{evil}/feedback")
        no_injection(driver)

    submit(driver, button(driver, "Sign out"))
    welcome(driver, site, "tina")
    assert path_of(driver) == "/class"
    shows_it("the class page", "mallory")
    go(driver, site, "/students/mallory")
    shows_it("the student's history", EVIL_SHOWN)
    go(driver, site, f"/uploads/{evil}")
    shows_it("the upload page, for the teacher", EVIL_SHOWN, EVIL_MESSAGE)
    go(driver, site, f"/uploads/{evil}/diff")
    shows_it("the diff, for the teacher", EVIL_MESSAGE)
    go(driver, site, f"/uploads/{evil}/feedback")
    no_injection(driver)
    go(driver, site, "/status")
    shows_it("the status page", "Graded")

    go(driver, site, "/class/report")
    no_injection(driver)
    section = driver.find_element(By.ID, "student-mallory")
    section.find_element(By.TAG_NAME, "summary").click()
    notes = wait(driver, PAGE, lambda _: [n.text for n in section.find_elements(
        By.CSS_SELECTOR, "ul.notes li")], "the notes of mallory's section")  # fmt: skip
    assert any(EVIL_MESSAGE in n for n in notes), notes
    no_injection(driver)


# --- issue 45's pages: the documentation, an extension, sessions ---------------


@pytest.mark.slow
def test_documentation_extension_and_sessions_through_the_pages(
    driver: WebDriver, own_site: Site
) -> None:
    """A student hands in their documentation with the page's form and sees
    their sign-ins; the teacher finds the document on the student's page,
    grants an extension with the page's date field and takes it back."""
    from selenium.webdriver.common.by import By

    welcome(driver, own_site, "alice")
    notes = own_site.files / "notes.txt"
    notes.write_text("How my sudoku/2 works: rows, columns, boxes, then labeling.\n")
    driver.find_elements(By.CSS_SELECTOR, "input[type=file]")[1].send_keys(str(notes))
    submit(driver, button(driver, "Hand in the documentation"))
    assert path_of(driver) == "/me"
    counting = text(driver, "section.card:nth-of-type(2)")
    assert "Counting: notes.txt" in counting, counting
    href = link(driver, "notes.txt").get_attribute("href") or ""
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    download = httpx.get(href, cookies=cookies, timeout=PAGE)
    assert download.status_code == 200 and b"rows, columns, boxes" in download.content
    assert "attachment" in download.headers["content-disposition"]

    go(driver, own_site, "/tokens")
    sessions = driver.find_elements(By.XPATH, "//section[h2='Where you are signed in']//tbody/tr")
    assert len(sessions) == 1 and "this browser" in sessions[0].text, [s.text for s in sessions]
    shoot(driver, "student-sign-ins")

    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    welcome(driver, own_site, "tina")
    go(driver, own_site, "/students/alice")
    assert "The course has no deadline." in text(driver, "section.card")
    assert "notes.txt" in text(driver) and "counts" in text(driver)
    field = driver.find_element(By.NAME, "until")
    driver.execute_script("arguments[0].value = '2031-01-15T18:00'", field)
    submit(driver, button(driver, "Grant the extension"))
    assert path_of(driver) == "/students/alice"
    assert "alice's deadline is now" in text(driver, "p.flash.ok")
    granted = text(driver, "section.card")
    assert "An extension until" in granted and "2031" in granted and "tina" in granted, granted
    shoot(driver, "teacher-student")
    submit(driver, button(driver, "Take it back"))
    assert "extension was taken back" in text(driver, "p.flash.ok")
    assert "The course has no deadline." in text(driver, "section.card")
