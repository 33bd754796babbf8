"""The class page at 400 students, in Chromium: `plpuzzle sudoku serve` as
a process, a teacher reading the class at a glance.

Grading 400 uploads through the sandbox would take the test far too long,
and grading is not what is tested here: three real uploads are graded by
the service (one correct, one that does not load, one with a wrong
answer), and the other students' uploads are made from them the way the
queue records a grading (an upload row, its reports folder with the
grader's grades.json). Forty students have no upload. One student's
upload is being regraded by a second service process on the same
database (this test's own process, alive all along: the service leaves
its claim alone), so the page shows it running the whole time.

What is checked is what the page shows, never how long anything took:
the students' table comes first (its place on the page, in pixels), its
filter and sort work with the script and without it, the matrix cells and
the states have their colours, the student being regraded keeps their
last result, a student with no upload has no score, and the class report
leads back to the site and has no empty sections.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from service_kit import CLASS, PASSWORD, REPO, Server, api_tokens, api_upload, make_course, wait_for

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

pytestmark = [pytest.mark.browser, pytest.mark.sandbox]

STUDENTS = 400
#: Students with no upload: the last ones.
WITHOUT = 40
GRADING = 300
PAGE = 120
WIDTH, HEIGHT = 1200, 800
SHOTS = REPO / "docs" / "service"

ALICE = (CLASS / "alice.pl").read_text(encoding="latin-1")
#: alice.pl with a comma missing: it does not load.
BROKEN = ALICE.replace("labeling([ff], Vars)", "labeling([ff] Vars)", 1)
#: A solver that answers every puzzle with its own grid, unsolved: wrong.
WRONG = "sudoku(Rows, Rows).\n"

COURSE = """\
time_limit = 10

[course]
name = "Sudoku 400"
public = ["test001", "test002", "test003", "test004", "test005", "test008"]
uploads_per_hour = 30
shrink_seconds = 2

[requirements]
documentation = "deduct"
documentation_points = 2
"""

GREEN = "rgb(26, 127, 55)"


def login(n: int) -> str:
    return f"s{n:03d}"


@dataclass
class Big:
    server: Server
    #: Each kind of upload's score as graded (the teacher sees every test).
    scores: dict[str, str]
    #: The student whose upload is being regraded, and their last score.
    regraded: str
    extended: str

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Big]:
    from plpuzzle.sudoku.service.core import Service, ServiceSettings

    tmp = tmp_path_factory.mktemp("class400")
    course, data = make_course(tmp / "course", COURSE), tmp / "data"
    kinds = {"correct": ALICE, "noload": BROKEN, "wrong": WRONG}
    firsts = [login(n) for n in range(1, len(kinds) + 1)]
    tokens = api_tokens(course, data, firsts)
    server = Server(course, data).start()
    service = None
    try:
        graded = {}
        for (kind, text), who in zip(kinds.items(), firsts, strict=True):
            made = api_upload(server.url, tokens[who], text.encode("latin-1"))
            assert made.status_code in (200, 201, 202), made.text
            graded[kind] = made.json()["id"]
        bearer = {"Authorization": f"Bearer {tokens['tina']}"}
        for upload_id in graded.values():
            wait_for(f"upload {upload_id} graded", GRADING, lambda i=upload_id: httpx.get(
                f"{server.url}/api/uploads/{i}", headers=bearer, timeout=30
            ).json()["state"] in ("done", "failed"), every=0.5)  # fmt: skip
        service = Service(ServiceSettings(course, data))  # a second process on the database
        scores = replicate(service, graded, firsts)
        regraded = firsts[0]
        regrade_elsewhere(service, graded["correct"])
        extended = login(7)
        extend(service, extended)
        yield Big(server, scores, regraded, extended)
    finally:
        server.stop()
        if service is not None:
            service.close()


def replicate(service: Any, graded: dict[str, int], firsts: list[str]) -> dict[str, str]:
    """Every other student with an upload gets one like a graded one (in
    turn), recorded as the queue records a grading; each kind's score."""
    from sqlalchemy import select

    from plpuzzle.sudoku.service.grades import grade_of
    from plpuzzle.sudoku.service.store import Upload, User

    service.accounts.create([login(n) for n in range(len(firsts) + 1, STUDENTS + 1)], "student")
    with service.store.session() as db:
        users = {u.login: u for u in db.scalars(select(User))}
        models = {kind: db.get(Upload, i) for kind, i in graded.items()}
        db.expunge_all()
    scores = {}
    for kind, model in models.items():
        owner = next(u for u in users.values() if u.id == model.user_id)
        scores[kind] = grade_of(service, owner.login, model, True).score_text
    kinds = list(models)
    with service.store.session() as db:
        for n in range(len(firsts) + 1, STUDENTS - WITHOUT + 1):
            model = models[kinds[n % len(kinds)]]
            copy = Upload(user_id=users[login(n)].id, number=1, name=model.name,
                          suffix=model.suffix, size=model.size, blob=model.blob,
                          state=model.state, stage=model.stage, loaded=model.loaded,
                          load_messages=model.load_messages, checked=model.checked,
                          public_graded=model.public_graded, graded=model.graded,
                          score=model.score, max_score=model.max_score,
                          public_score=model.public_score, public_max=model.public_max,
                          created=model.created + timedelta(seconds=n))  # fmt: skip
            db.add(copy)
            db.flush()
            copy.reports = _copy(service, model.reports, copy.id)
            copy.early = _copy(service, model.early, copy.id)
    return scores


def _copy(service: Any, folder: str | None, upload_id: int) -> str | None:
    """A reports folder of the model upload, as this upload's."""
    if folder is None:
        return None
    target = Path("reports") / str(upload_id) / Path(folder).name
    shutil.copytree(service.data / folder, service.data / target)
    return str(target)


def regrade_elsewhere(service: Any, upload_id: int) -> None:
    """The upload regraded, and being graded by this test's process (a
    second service on the database, alive: its claim is kept)."""
    from plpuzzle.sudoku.service.store import Upload, now

    with service.store.session() as db:
        upload = db.get(Upload, upload_id)
        upload.attempt += 1
        upload.regrade, upload.fresh, upload.stage = True, True, service.stages()[0]
        upload.state, upload.claimed_by, upload.heartbeat = "running", service.owner, now()


def extend(service: Any, who: str) -> None:
    from sqlalchemy import select

    from plpuzzle.sudoku.service.store import User, now

    with service.store.session() as db:
        user = db.scalar(select(User).where(User.login == who))
        db.expunge(user)
    service.grant_extension(user, now() + timedelta(days=5), "tina")


@pytest.fixture
def driver(browser: WebDriver) -> WebDriver:
    browser.set_window_size(WIDTH, HEIGHT)
    browser.set_page_load_timeout(PAGE)
    browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
    return browser


def sign_in(driver: WebDriver, big: Big) -> None:
    from selenium.webdriver.common.by import By

    driver.get(big.url + "/signin")
    driver.find_element(By.NAME, "login").send_keys("tina")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
    wait_for("signed in", PAGE, lambda: driver.execute_script(
        "return location.pathname") == "/class", every=0.3)  # fmt: skip


def rows(driver: WebDriver) -> list[list[str]]:
    """The students' table as the page shows it now: each row's cells."""
    found = driver.execute_script(
        "return [...document.querySelectorAll('table.students tbody tr')]"
        "  .map(r => [...r.cells].map(c => c.textContent.trim()))"
    )
    return [list(r) for r in found]


def everyone_shown(driver: WebDriver) -> bool:
    """The page shows the whole class as it is now (the service remakes
    its view of the class at most every few seconds)."""
    found = rows(driver)
    return len(found) == STUDENTS and sum(r[2] == "no upload" for r in found) == WITHOUT


def shoot(driver: WebDriver, path: Path) -> None:
    import base64

    driver.execute_script("window.scrollTo(0, 0)")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": WIDTH, "height": 2 * HEIGHT, "scale": 1},
    })  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))


@pytest.mark.slow
def test_the_class_of_400_reads_at_a_glance(driver: WebDriver, big: Big, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    sign_in(driver, big)

    def whole(d: Any) -> bool:
        if not everyone_shown(driver):
            driver.refresh()
            return False
        return True

    wait_for("the class of 400 on the page", PAGE, lambda: whole(driver), every=1)
    named = os.environ.get("PLPUZZLE_SCREENSHOTS") == "1"
    shoot(driver, SHOTS / "teacher-class-400.png" if named else tmp_path / "class.png")

    # The students' table comes first: its heading within the first screen.
    top = driver.execute_script(
        "return document.querySelector('table.students').getBoundingClientRect().top"
        " + window.scrollY"
    )
    matrix = driver.execute_script(
        "return document.querySelector('table.verdicts').getBoundingClientRect().top"
        " + window.scrollY"
    )
    assert top < HEIGHT / 2 < matrix, (top, matrix)

    table = {r[0]: r for r in rows(driver)}
    # No upload: no score, and said so.
    assert table[login(STUDENTS)][1:3] == ["", "no upload"], table[login(STUDENTS)]
    # The one being regraded keeps their last result while it runs.
    again = table[big.regraded]
    assert "running" in again[2] and big.scores["correct"].startswith(again[1]), again
    # The columns: deadline (an extension), the requirements' deduction, the last upload.
    assert table[big.extended][3], table[big.extended]
    assert table[login(4)][4] == "\u22122", table[login(4)]  # no documentation
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d", table[login(4)][5]), table[login(4)]
    assert table[login(STUDENTS)][4:6] == ["", ""]

    # The matrix's cells have their colours; a file that does not load is not green.
    colour = driver.execute_script(
        "return getComputedStyle(document.querySelector('table.verdicts td.cell.g-correct'))"
        ".backgroundColor"
    )
    assert colour == GREEN, colour
    wrong = driver.execute_script(
        "const c = document.querySelector('table.verdicts td.cell.g-wrong');"
        "return c ? getComputedStyle(c).backgroundColor : null"
    )
    assert wrong not in (None, GREEN, "rgba(0, 0, 0, 0)"), wrong
    noload = driver.execute_script(
        "return [...document.querySelectorAll('table.students .state')]"
        "  .filter(s => s.textContent.includes('does not load'))"
        "  .map(s => getComputedStyle(s).color)"
    )
    assert noload and GREEN not in noload, noload
    done = driver.execute_script(
        "const s = [...document.querySelectorAll('table.students .state')]"
        "  .find(s => s.textContent.trim() === 'done'); return getComputedStyle(s).color"
    )
    assert done == GREEN

    # The filter, with the script: no reload, the address keeps the query.
    driver.execute_script("window.__samePage = 'yes'")
    box = driver.find_element(By.NAME, "q")
    box.send_keys("s01")
    wait_for("the filter applied", PAGE, lambda: len(rows(driver)) == 10, every=0.3)
    assert all(r[0].startswith("s01") for r in rows(driver))
    assert [m for m in driver.execute_script(
        "return [...document.querySelectorAll('table.verdicts tbody tr')]"
        ".map(r => r.cells[0].textContent)")] == [login(n) for n in range(10, 20)]  # fmt: skip
    assert driver.execute_script("return location.search") == "?q=s01"
    # Sorted by grade, best first (a second click), with no reload.
    click = "document.querySelector('a.sort[data-sort=grade]').click()"
    sorted_by = (
        "const h = document.querySelector('table.students th[aria-sort]');"
        "return h ? h.querySelector('a').dataset.sort + ' ' + h.getAttribute('aria-sort') : ''"
    )
    driver.execute_script(click)
    wait_for("sorted by grade", PAGE, lambda: driver.execute_script(sorted_by) == "grade ascending",
             every=0.3)  # fmt: skip
    driver.execute_script(click)
    wait_for("sorted by grade, best first", PAGE,
             lambda: driver.execute_script(sorted_by) == "grade descending", every=0.3)  # fmt: skip
    found = _scores(rows(driver))
    assert found == sorted(found, reverse=True) and len(found) == 10, found
    assert "desc=1" in driver.execute_script("return location.search")
    assert driver.execute_script("return window.__samePage") == "yes"

    # A state from the summary line.
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    with httpx.Client(base_url=big.url, cookies=cookies, timeout=PAGE) as tina:
        # Without the script: the same query in the address.
        page = tina.get("/class", params={"q": "s01", "sort": "grade", "desc": "1"}).text
        shown = re.findall(r'<tr class="st-\w+" data-login="(s\d+)">', page)
        assert sorted(shown) == [login(n) for n in range(10, 20)], shown
        missing = tina.get("/class", params={"show": "missing"}).text
        assert len(re.findall(r'data-login="', missing)) == WITHOUT
        noloads = tina.get("/class/live", params={"show": "noload"}).text
        assert 0 < len(re.findall(r'<tr class="st-noload"', noloads)) == len(
            re.findall(r'data-login="', noloads))  # fmt: skip
        for name in ("moodle.csv", "canvas.csv", "class.json", "grades.csv"):
            assert f'href="/export/{name}"' in page

    # The class report leads back, and has no empty student sections.
    driver.get(big.url + "/class/report")
    shoot(driver, SHOTS / "teacher-class-report-400.png" if named else tmp_path / "report.png")
    back = driver.find_element(By.CSS_SELECTOR, "a[href='/class']")
    assert back.is_displayed()
    # Every student's section is drawn (none left blank until scrolled to)
    # and says something: the ones without an upload say so.
    empty = driver.execute_script(
        "return [...document.querySelectorAll('details.student')]"
        "  .filter(d => getComputedStyle(d).contentVisibility === 'auto'"
        "    || !d.querySelector('summary .meta').textContent.trim()"
        "    || !d.querySelector('.body').textContent.trim()).length"
    )
    assert empty == 0
    assert driver.execute_script(
        "return document.querySelectorAll('details.student').length") == STUDENTS  # fmt: skip
    heights = driver.execute_script(
        "return [...document.querySelectorAll('#class-table tbody tr')]"
        "  .map(r => r.getBoundingClientRect().height)"
    )
    assert len(heights) == STUDENTS and max(heights) < 40, max(heights)


def _scores(found: list[list[str]]) -> list[float]:
    return [float(r[1].split(" / ")[0]) for r in found if r[1]]
