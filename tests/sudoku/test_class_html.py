"""The class report's HTML page: its markup, and how a real browser shows it.

The browser tests (marked `browser`) open the page from disk in Debian's
Chromium (packages chromium and chromium-driver) through Selenium, the way
a teacher would; the `browser` fixture in conftest.py skips them, saying
why, where the browser is missing, and fails instead in CI.
"""

from __future__ import annotations

import re
import struct
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pytest

from plpuzzle.sudoku.presentation import class_report
from plpuzzle.sudoku.presentation.class_html import render_html
from plpuzzle.sudoku.presentation.class_report import StudentGrades
from plpuzzle.sudoku.services.grading import Grade, GradeSettings, Points, TestGrade

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver


TESTS = ["test001", "test002", "test003", "test004", "test005", "test006-a-long-test-name"]
EVIL = "<script>alert(1)</script>&co"
EVIL_EVIDENCE = "ERROR: sudoku.pl:3: <script>window.__pwned = 1</script> & 'x' \"y\""
MISSING = "first missing solution: [[1,2,3],[4,5,6]]"
POINTS = Points(per_test={"test006-a-long-test-name": 2.5})

C, W, T, M, X, L, E, N = (
    Grade.CORRECT,
    Grade.WRONG,
    Grade.TIMEOUT,
    Grade.MEMORY,
    Grade.CRASHED,
    Grade.LOAD_ERROR,
    Grade.ERROR,
    Grade.MISSING,
)

#: student -> one (grade, cpu seconds) per test, in TESTS order.
PLAN: dict[str, list[tuple[Grade, float]]] = {
    "alice": [(C, 0.12), (C, 0.5), (C, 1.5), (C, 0.02), (C, 3.0), (C, 12.0)],
    "bob": [(C, 0.2), (W, 0.4), (T, 60.0), (C, 0.03), (M, 4.0), (C, 15.0)],
    "carol": [(X, 0.01), (E, 0.0), (W, 2.0), (C, 0.04), (C, 2.5), (T, 60.0)],
    "d&d": [(C, 0.15), (C, 0.45), (W, 1.0), (C, 0.05), (T, 60.0), (W, 20.0)],
    # The last test as `missing` (a roster student's grade), so that every grade shows.
    EVIL: [(L, 0.0)] * (len(TESTS) - 1) + [(N, 0.0)],
}


def _grade(student: str, test: str, grade: Grade, cpu: float) -> TestGrade:
    """A stored grade with the kind of detail and evidence grading writes."""
    detail, evidence = {
        Grade.CORRECT: ("", ""),
        Grade.WRONG: ("1 of 2 solutions missing", MISSING),
        Grade.TIMEOUT: ("did not finish in time", "killed after 60 s & 5 s grace"),
        Grade.MEMORY: ("stack limit (1.5Gb) exceeded", "Stack depth: 1,234\nstderr: <none>"),
        Grade.CRASHED: ("worker died: signal 11", "stderr tail:\nSegmentation fault <core>"),
        Grade.LOAD_ERROR: ("syntax error <b>here</b>", EVIL_EVIDENCE),
        Grade.ERROR: ("internal error & co", "Traceback: KeyError('<x>')"),
        Grade.MISSING: ("no submission", ""),
    }[grade]
    return TestGrade(student, test, grade, detail, evidence, 1, cpu, cpu * 1.1)


def _students(order: list[str]) -> list[StudentGrades]:
    return [
        StudentGrades(
            sid,
            f"submissions/{sid}/sudoku.pl",
            [_grade(sid, t, g, cpu) for t, (g, cpu) in zip(TESTS, PLAN[sid], strict=True)],
        )
        for sid in order
    ]


def _report(order: list[str] | None = None) -> dict[str, Any]:
    settings = GradeSettings(time_limit=60.0)
    return class_report.build(_students(order or list(PLAN)), TESTS, POINTS, settings)


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return _report()


@pytest.fixture(scope="module")
def html(report: dict[str, Any]) -> str:
    return render_html(report)


def _anchor(sid: str) -> str:
    return f"student-{sid}"


# --- the markup --------------------------------------------------------------


def test_every_grade_is_covered(report: dict[str, Any]) -> None:
    seen = {r["grade"] for s in report["students"] for r in s["results"]}
    assert seen == {g.value for g in Grade}


def test_untrusted_text_is_escaped(html: str) -> None:
    assert "<script" not in html.lower()
    assert "<b>here</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;co" in html
    assert (
        "&lt;script&gt;window.__pwned = 1&lt;/script&gt; &amp; &#x27;x&#x27; &quot;y&quot;" in html
    )
    assert "syntax error &lt;b&gt;here&lt;/b&gt;" in html
    # Every & starts an entity: no raw ampersand from the report got through.
    assert not re.search(r"&(?!(amp|lt|gt|quot|#x27);)", html)


def test_self_contained_and_scriptless(html: str) -> None:
    assert html.startswith("<!DOCTYPE html>")
    assert "Content-Security-Policy" in html
    for outside in ("<link", "<img", "<iframe", "src=", "@import", "url(", "https:"):
        assert outside not in html
    assert set(re.findall(r"http://[^\"' ]+", html)) == {"http://www.w3.org/2000/svg"}


def test_header_shows_settings_and_class_size(html: str) -> None:
    settings = GradeSettings()
    header = html[html.index("<header>") : html.index("</header>")]
    for text in (
        settings.rules.value,
        settings.dialect,
        "60 s CPU (wall 130 s)",
        "2048 MB",
        "of CPU time per test, over every process",
        "<dt>Students</dt><dd>5</dd>",
        "<dt>Max score</dt><dd>7.5</dd>",
    ):
        assert text in header


def test_class_table_rows_link_to_sections(html: str, report: dict[str, Any]) -> None:
    table = html[html.index('id="class-table"') : html.index("</table>")]
    ids = sorted(PLAN)
    assert [s["id"] for s in report["students"]] == ids
    assert table.count("<tr>") == 1 + len(ids)
    links = re.findall(r'<a href="#([^"]*)">', table)
    assert links == [quote(_anchor(sid), safe="") for sid in ids]
    assert links[0] == "student-%3Cscript%3Ealert%281%29%3C%2Fscript%3E%26co"
    sections = re.findall(r'<section class="student" id="([^"]*)">', html)
    assert sections == [
        _anchor(sid).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") for sid in ids
    ]
    # bob: 3 correct, 1 wrong, 1 timeout, 1 memory limit; score 1 + 1 + 2.5.
    bob = table[table.index(">bob<") :].split("</tr>")[0]
    assert "4.5 / 7.5" in bob
    assert re.findall(r'<td class="num (?:c-[a-z-]+|zero)">(\d+)</td>', bob) == [
        "3",
        "1",
        "1",
        "1",
        "0",
        "0",
        "0",
        "0",
    ]


def test_charts_have_one_bar_per_test(html: str) -> None:
    for chart in ("pass-rate-chart", "runtime-chart"):
        svg = re.search(rf'<svg id="{chart}".*?</svg>', html, re.S)
        assert svg, chart
        assert svg.group().count('<rect class="bar"') == len(TESTS)
        for name in TESTS[:5]:
            assert f">{name}</text>" in svg.group()
        assert ">test006-a-long-\u2026</text>" in svg.group()  # long names are shortened
    runtime = re.search(r'<svg id="runtime-chart".*?</svg>', html, re.S)
    assert runtime and ">15.0</text>" in runtime.group()  # test006's median, as a label


def test_student_sections_show_every_result(html: str) -> None:
    for sid in PLAN:
        start = html.index(f'id="{escape(_anchor(sid))}"')
        section = html[start : html.index("</section>", start)]
        for test in TESTS:
            assert f'<td class="test">{test}</td>' in section
        assert section.count("<tr>") == 1 + len(TESTS)
    assert html.count('class="student"') == len(PLAN)
    assert f"<pre>{MISSING}</pre>" in html
    assert '<span class="badge g-memory-limit">memory limit</span>' in html
    assert '<td class="num">0 / 2.5</td>' in html


def test_same_report_same_bytes() -> None:
    first = render_html(_report())
    assert render_html(_report(list(reversed(PLAN)))) == first
    assert render_html(_report()) == first


def test_empty_class_renders() -> None:
    page = render_html(class_report.build([], [], Points(), GradeSettings()))
    assert 'id="class-table"' in page and 'id="pass-rate-chart"' in page
    assert "No students." in page


# --- in a real browser --------------------------------------------------------


@pytest.fixture(scope="module")
def page_file(html: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("page") / "class report.html"
    path.write_text(html, encoding="utf-8")
    return path


@pytest.fixture
def page(browser: WebDriver, page_file: Path) -> WebDriver:
    browser.get(page_file.as_uri())
    return browser


@pytest.mark.browser
def test_browser_shows_class_table(page: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    table = page.find_element(By.ID, "class-table")
    assert table.is_displayed()
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert [r.find_element(By.TAG_NAME, "a").text for r in rows] == sorted(PLAN)
    assert all(r.is_displayed() for r in rows)


@pytest.mark.browser
def test_browser_draws_charts(page: WebDriver, report: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    for chart in ("pass-rate-chart", "runtime-chart"):
        svg = page.find_element(By.ID, chart)
        assert svg.is_displayed()
        assert svg.size["width"] > 200 and svg.size["height"] > 100
        assert len(svg.find_elements(By.CSS_SELECTOR, "rect.bar")) == len(TESTS)
    bars = page.find_elements(By.CSS_SELECTOR, "#pass-rate-chart rect.bar")
    heights = [b.rect["height"] for b in bars]
    rates = [t["pass_rate"] for t in report["tests"]]
    assert heights == pytest.approx([160 * r for r in rates], abs=1)
    assert max(heights) > 100  # test004: everyone passed


@pytest.mark.browser
def test_browser_runs_no_student_script(page: WebDriver) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    with pytest.raises(NoAlertPresentException):
        page.switch_to.alert  # noqa: B018 - raises when no alert is open
    assert page.execute_script("return document.scripts.length") == 0
    assert page.execute_script("return typeof window.__pwned") == "undefined"
    # Nothing loaded from anywhere but the file itself.
    assert page.execute_script("return performance.getEntriesByType('resource').length") == 0
    evil = page.find_element(By.ID, _anchor(EVIL))
    assert evil.find_element(By.TAG_NAME, "h3").text == EVIL
    assert EVIL_EVIDENCE in evil.find_element(By.TAG_NAME, "pre").text


@pytest.mark.browser
@pytest.mark.parametrize("sid", [EVIL, "d&d"])
def test_browser_link_scrolls_to_student(page: WebDriver, sid: str) -> None:
    from selenium.webdriver.common.by import By

    section = page.find_element(By.ID, _anchor(sid))
    top = "return arguments[0].getBoundingClientRect().top"
    assert page.execute_script("return window.scrollY") == 0
    assert page.execute_script(top, section) > page.execute_script("return innerHeight")
    link = next(a for a in page.find_elements(By.CSS_SELECTOR, "#class-table a") if a.text == sid)
    link.click()
    assert page.execute_script("return window.scrollY") > 0
    section_top = page.execute_script(top, section)
    at_bottom = page.execute_script(
        "return scrollY + innerHeight >= document.documentElement.scrollHeight - 1"
    )
    # The section is at the top of the window, unless the page ends first.
    assert 0 <= section_top < 50 or (
        at_bottom and section_top < page.execute_script("return innerHeight")
    )
    assert page.execute_script("return document.querySelector(':target')") == section


@pytest.mark.browser
def test_browser_screenshot(page: WebDriver, tmp_path: Path) -> None:
    """A full-page PNG, for people to look at; checked to be a real image."""
    import base64

    size = page.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = page.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
        },
    )
    data = base64.b64decode(shot["data"])
    path = tmp_path / "class_report.png"
    path.write_bytes(data)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 1000 and height > 1500  # the whole page, not just the window
    assert len(data) > 50_000
