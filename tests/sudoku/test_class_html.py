"""The class report's HTML page: its markup, and how a real browser shows it.

The browser tests (marked `browser`) open the page from disk in Debian's
Chromium (packages chromium and chromium-driver) through Selenium, the way
a teacher would; the `browser` fixture in conftest.py skips them, saying
why, where the browser is missing, and fails instead in CI.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pytest

from plpuzzle.sudoku.grading import report as class_report
from plpuzzle.sudoku.grading import report_html as class_html
from plpuzzle.sudoku.grading.model import Grade, GradeSettings, TestGrade
from plpuzzle.sudoku.grading.pages import asset_text
from plpuzzle.sudoku.grading.report import StudentGrades
from plpuzzle.sudoku.grading.report_html import render_html
from plpuzzle.sudoku.runs.suite_config import Points

#: The page's one script, as the page inlines it (from its file).
_SCRIPT = asset_text("report.js")

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement


TESTS = ["test001", "test002", "test003", "test004", "test005", "test006-a-long-test-name"]
EVIL = "<script>alert(1)</script>&co"
EVIL_EVIDENCE = "ERROR: sudoku.pl:3: <script>window.__pwned = 1</script> & 'x' \"y\""
MISSING = "first missing solution: [[1,2,3],[4,5,6]]"
POINTS = Points(per_test={"test006-a-long-test-name": 2.5})
#: Places come from the workers' names, which the page must not trust either.
HOST = "hostA"
WORKER = "node<b>7</b> & co (dask worker tcp://10.0.0.7:40123)"

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
NL, NS = Grade.NOT_LOADABLE, Grade.NO_SUBMISSION

#: student -> one (grade, cpu seconds) per test, in TESTS order.
PLAN: dict[str, list[tuple[Grade, float]]] = {
    "alice": [(C, 0.12), (C, 0.5), (C, 1.5), (C, 0.02), (C, 3.0), (C, 12.0)],
    "bob": [(C, 0.2), (W, 0.4), (T, 60.0), (C, 0.03), (M, 4.0), (C, 15.0)],
    "carol": [(X, 0.01), (E, 0.0), (W, 2.0), (C, 0.04), (C, 2.5), (T, 60.0)],
    "d&d": [(C, 0.15), (C, 0.45), (W, 1.0), (C, 0.05), (T, 60.0), (W, 20.0)],
    # The last tests as the other grades of a student whose tests never ran
    # (not loadable, no submission, a roster student's `missing`), so that
    # every grade shows.
    EVIL: [(L, 0.0)] * (len(TESTS) - 3) + [(NL, 0.0), (NS, 0.0), (N, 0.0)],
}

#: student -> where each test ran, in TESTS order ("": never ran, or not known).
PLACES: dict[str, list[str]] = {
    "alice": [HOST] * 6,
    "bob": [HOST, WORKER, WORKER, HOST, HOST, WORKER],
    "carol": [WORKER] * 6,
    "d&d": [HOST] * 3 + [""] * 3,  # half of it graded by a plpuzzle that kept no places
    EVIL: [""] * 6,
}


def _grade(student: str, test: str, grade: Grade, cpu: float, place: str = "") -> TestGrade:
    """A stored grade with the kind of detail and evidence grading writes."""
    detail, evidence = {
        Grade.CORRECT: ("", ""),
        Grade.WRONG: ("1 of 2 solutions missing", MISSING),
        Grade.TIMEOUT: ("did not finish in time", "killed after 60 s & 5 s grace"),
        Grade.MEMORY: ("stack limit (1.5Gb) exceeded", "Stack depth: 1,234\nstderr: <none>"),
        Grade.CRASHED: ("worker died: signal 11", "stderr tail:\nSegmentation fault <core>"),
        Grade.LOAD_ERROR: ("syntax error <b>here</b>", EVIL_EVIDENCE),
        Grade.NOT_LOADABLE: ("sudoku.pl:3: <i>syntax</i>", EVIL_EVIDENCE),
        Grade.NO_SUBMISSION: ("no .pl file in <u>it</u>", ""),
        Grade.ERROR: ("internal error & co", "Traceback: KeyError('<x>')"),
        Grade.MISSING: ("no submission", ""),
    }[grade]
    return TestGrade(student, test, grade, detail, evidence, 1, cpu, cpu * 1.1, place)


def _students(order: list[str], placed: bool = True) -> list[StudentGrades]:
    return [
        StudentGrades(
            sid,
            f"submissions/{sid}/sudoku.pl",
            [
                _grade(sid, t, g, cpu, place if placed else "")
                for t, (g, cpu), place in zip(TESTS, PLAN[sid], PLACES[sid], strict=True)
            ],
        )
        for sid in order
    ]


def _report(order: list[str] | None = None, placed: bool = True) -> dict[str, Any]:
    settings = GradeSettings(time_limit=60.0)
    return class_report.build(_students(order or list(PLAN), placed), TESTS, POINTS, settings)


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


def _outside_script(html: str) -> str:
    """The page without its own script's source (which holds JavaScript's &&)."""
    assert html.count(f"<script>{_SCRIPT}</script>") == 1
    return html.replace(f"<script>{_SCRIPT}</script>", "")


def _data(html: str) -> dict[str, Any]:
    start = html.index('<script type="application/json" id="report-data">')
    block = html[html.index(">", start) + 1 : html.index("</script>", start)]
    assert not set("<>&") & set(block)  # nothing in it can end the block or start markup
    return json.loads(block)


def test_untrusted_text_is_escaped(html: str) -> None:
    # The only scripts are the page's own: its data block and its code.
    assert re.findall(r"<script[^>]*>", html, re.I) == [
        '<script type="application/json" id="report-data">',
        "<script>",
    ]
    outside = _outside_script(html)
    assert "<b>here</b>" not in html
    assert "<b>7</b>" not in html  # a worker's name
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;co" in html
    assert "syntax error &lt;b&gt;here&lt;/b&gt;" in html
    # Every & starts an entity: no raw ampersand from the report got through.
    assert not re.search(r"&(?!(amp|lt|gt|quot|#34|#39|#x27);)", outside)
    # The data block carries untrusted text as JSON escapes, intact.
    data = _data(html)
    assert EVIL in [s["id"] for s in data["students"]]
    assert EVIL_EVIDENCE in data["strings"]


def test_self_contained_with_only_its_own_script(html: str) -> None:
    assert html.startswith("<!DOCTYPE html>")
    csp = re.search(r'Content-Security-Policy" content="([^"]*)"', html)
    assert csp
    digest = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp.group(1)
    assert "default-src 'none'" in csp.group(1) and "unsafe-inline'; img" in csp.group(1)
    for outside in ("<link", "<iframe", "@import", "url(", "https:"):
        assert outside not in html
    # Images: the matrix's rows, drawn here as data: PNGs, one a student.
    sources = re.findall(r'src="([^"]*)"', html)
    assert len(sources) == len(PLAN)
    assert all(s.startswith("data:image/png;base64,") for s in sources)
    assert len(re.findall(r"\bsrc=", html)) == len(PLAN)
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
        # Where the runs ran: 6 + 3 + 3 on the host, 3 + 6 on the worker; none of "".
        "<dt>Ran on</dt><dd>hostA (12 runs), node&lt;b&gt;7&lt;/b&gt; &amp; co "
        "(dask worker tcp://10.0.0.7:40123) (9 runs)</dd>",
    ):
        assert text in header


def test_report_names_where_each_run_ran(report: dict[str, Any]) -> None:
    assert report["ran_on"] == [{"place": HOST, "runs": 12}, {"place": WORKER, "runs": 9}]
    for student in report["students"]:
        assert [r["ran_on"] for r in student["results"]] == PLACES[student["id"]]
    one = class_report.build(
        [StudentGrades("s", "s.pl", [TestGrade("s", "t", Grade.CORRECT, ran_on="solo")])],
        ["t"],
        Points(),
        GradeSettings(),
    )
    assert one["ran_on"] == [{"place": "solo", "runs": 1}]
    assert "<dt>Ran on</dt><dd>solo (1 run)</dd>" in render_html(one)


def test_csvs_do_not_say_where_runs_ran(report: dict[str, Any]) -> None:
    """A class graded on a cluster gives the CSVs of one graded here."""
    unplaced = _report(placed=False)
    assert unplaced["ran_on"] == [] and report["ran_on"] != []
    assert class_report.to_csv(report) == class_report.to_csv(unplaced)
    assert class_report.to_wide_csv(report) == class_report.to_wide_csv(unplaced)
    assert "<dt>Ran on</dt>" not in render_html(unplaced)
    assert "hostA" in class_report.to_json(report) and "hostA" not in class_report.to_csv(report)


def test_class_table_rows_link_to_sections(html: str, report: dict[str, Any]) -> None:
    table = html[html.index('id="class-table"') : html.index("</table>")]
    ids = sorted(PLAN)
    assert [s["id"] for s in report["students"]] == ids
    assert table.count("<tr") == 1 + len(ids)
    links = re.findall(r'<a href="#([^"]*)">', table)
    assert links == [quote(_anchor(sid), safe="") for sid in ids]
    assert links[0] == "student-%3Cscript%3Ealert%281%29%3C%2Fscript%3E%26co"
    sections = re.findall(r'<details class="student" id="([^"]*)"', html)
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


def _section(html: str, sid: str) -> str:
    start = html.index(f'id="{escape(_anchor(sid))}"')
    return html[start : html.index("</details>", start)]


def test_student_sections_group_failures_without_script(html: str) -> None:
    """Closed sections, readable without JavaScript: failing tests by grade."""
    assert html.count('<details class="student"') == len(PLAN)
    assert "<details open" not in html
    carol = _section(html, "carol")
    assert "2 / 7.5</b> points" in carol
    for grade, tests, detail in (
        ("crashed", "test001", "worker died: signal 11 (1)"),
        ("error", "test002", "internal error &amp; co (1)"),
        ("wrong", "test003", "1 of 2 solutions missing (1)"),
        ("timeout", "test006-a-long-test-name", "did not finish in time (1)"),
    ):
        slug = grade.replace(" ", "-")
        assert (
            f'<li><span class="badge g-{slug}">{grade} 1</span> {tests}<br>'
            f'<span class="said">{detail}</span></li>'
        ) in carol
    assert "All 6 tests correct." in _section(html, "alice")
    evil = _section(html, EVIL)
    assert "load error 3</span> test001, test002, test003<br>" in evil
    assert "not loadable 1</span> test004<br>" in evil
    assert "no submission 1</span> test005<br>" in evil
    assert "missing 1</span> test006-a-long-test-name<br>" in evil
    assert "<pre>" not in html  # evidence is drawn by the script, from the data block


def test_matrix_has_a_row_per_student() -> None:
    page = render_html(_report())
    rows = re.findall(r'<div class="mrow" data-i="(\d+)"><span class="who">([^<]*)</span>', page)
    assert [sid for _, sid in rows] == [escape(sid) for sid in sorted(PLAN)]
    assert '<span><span class="badge g-correct">correct</span> 14</span>' in page  # the legend


def test_data_block_holds_every_result(report: dict[str, Any], html: str) -> None:
    data = _data(html)
    assert data["tests"] == TESTS and data["points"] == [1, 1, 1, 1, 1, 2.5]
    assert data["places"] == ["", HOST, WORKER]
    rows = {row["id"]: row["p"] for row in data["students"]}
    assert (rows["alice"], rows["bob"], rows[EVIL]) == ("1*6", "1 2*2 1*2 2", "0*6")
    for student, row in zip(report["students"], data["students"], strict=True):
        assert row["id"] == student["id"]
        grades = [data["grades"][int(c, 36)] for c in row["g"]]
        assert grades == [r["grade"] for r in student["results"]]
        cpu = [int(v, 36) / 1000 for v in row["c"].split()]
        assert cpu == [r["cpu_seconds"] for r in student["results"]]
        # Places: "I*N" runs of indexes into places, whose first is "".
        places = [
            data["places"][int(run.split("*")[0], 36)]
            for run in row["p"].split()
            for _ in range(int(run.split("*")[1], 36) if "*" in run else 1)
        ]
        assert places == [r["ran_on"] for r in student["results"]]
        for t, detail, evidence in row["x"]:
            result = student["results"][t]
            # -1 stands for an empty string.
            assert (data["strings"][detail] if detail >= 0 else "") == result["detail"]
            assert (data["strings"][evidence] if evidence >= 0 else "") == result["evidence"]


def test_evidence_is_cut_to_a_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A student with much evidence gets some of it, the rest is named as left out."""
    monkeypatch.setattr(class_html, "EVIDENCE_BUDGET", 3_000)
    big = "x" * 10_000
    grades = [TestGrade("s", f"t{k}", Grade.WRONG, "missing", f"{k}:{big}") for k in range(20)]
    report = class_report.build(
        [StudentGrades("s", "s.pl", grades)],
        [f"t{k}" for k in range(20)],
        Points(),
        GradeSettings(),
    )
    data = _data(render_html(report))
    kept = [data["strings"][e] for _, _, e in data["students"][0]["x"] if e >= 0]
    left_out = [e for _, _, e in data["students"][0]["x"] if e == -2]
    assert 0 < len(kept) < 20 and len(kept) + len(left_out) == 20
    assert all(len(k) < 700 and k.endswith("more characters in grades.json)") for k in kept)


def test_wide_csv_one_column_per_test(report: dict[str, Any]) -> None:
    lines = class_report.to_wide_csv(report).splitlines()
    assert lines[0] == "id,test001,test002,test003,test004,test005,test006-a-long-test-name,total"
    assert lines[1] == "<script>alert(1)</script>&co,0,0,0,0,0,0,0"
    assert "alice,1,1,1,1,1,2.5,7.5" in lines
    assert "bob,1,0,0,1,0,2.5,4.5" in lines
    assert len(lines) == 1 + len(PLAN)


def test_same_report_same_bytes() -> None:
    first = render_html(_report())
    assert render_html(_report(list(reversed(PLAN)))) == first
    assert render_html(_report()) == first


def test_empty_class_renders() -> None:
    page = render_html(class_report.build([], [], Points(), GradeSettings()))
    assert 'id="class-table"' in page and 'id="pass-rate-chart"' in page
    assert "No students." in page and "<dt>Ran on</dt>" not in page


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
    assert page.execute_script("return document.scripts.length") == 2  # data and ours
    assert page.execute_script("return typeof window.__pwned") == "undefined"
    # Nothing loaded from anywhere but the file itself (data: images are not fetched).
    resources = page.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
        ".filter(n => !n.startsWith('data:'))"
    )
    assert resources == []
    evil = page.find_element(By.ID, _anchor(EVIL))
    assert evil.find_element(By.CSS_SELECTOR, "summary .sid").text == EVIL
    evil.find_element(By.TAG_NAME, "summary").click()  # the script draws its table
    pres = _drawn(page, evil, "pre")
    # Every load error's evidence; `no submission` and `missing` have none.
    assert len(pres) == len(TESTS) - 2 and EVIL_EVIDENCE in pres[0].text
    assert page.execute_script("return typeof window.__pwned") == "undefined"


def _drawn(page: WebDriver, root: WebElement, css: str) -> list[WebElement]:
    """The elements the script draws once a section opens (on its toggle
    event, which comes a moment after the click)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(page, 5).until(lambda _: root.find_elements(By.CSS_SELECTOR, css))


@pytest.mark.browser
def test_browser_opened_section_shows_every_result(page: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    bob = page.find_element(By.ID, _anchor("bob"))
    assert bob.find_elements(By.CSS_SELECTOR, ".results tr") == []
    bob.find_element(By.TAG_NAME, "summary").click()
    rows = _drawn(page, bob, ".results tbody tr")
    cells = [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    assert [c[0] for c in cells] == TESTS
    assert [c[1] for c in cells] == [g.value for g, _ in PLAN["bob"]]
    assert cells[2][2:5] == ["0 / 1", "60.0", "66.0"]  # the timeout: points, CPU, wall
    assert [c[5] for c in cells] == PLACES["bob"]  # the worker's name as text, not markup
    assert cells[1][6] == f"1 of 2 solutions missing\n{MISSING}"
    heads = bob.find_elements(By.CSS_SELECTOR, ".results thead th")
    assert [h.text for h in heads][5:] == ["Ran on", "Detail and evidence"]


@pytest.mark.browser
def test_browser_header_says_where_runs_ran(page: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    fact = next(
        d for d in page.find_elements(By.CSS_SELECTOR, "header .facts div") if "Ran on" in d.text
    )
    assert fact.is_displayed()
    assert fact.find_element(By.TAG_NAME, "dd").text == f"{HOST} (12 runs), {WORKER} (9 runs)"
    assert page.find_elements(By.CSS_SELECTOR, "header b") == []  # the name's <b> stayed text


@pytest.mark.browser
def test_browser_sorts_and_filters(page: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    def order(table: str) -> list[str]:
        rows = page.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr")
        return [r.find_element(By.TAG_NAME, "td").text for r in rows if r.is_displayed()]

    heads = page.find_elements(By.CSS_SELECTOR, "#test-table thead th")
    heads[2].click()  # correct, ascending; ties keep suite order
    assert order("test-table") == [
        "test003", "test002", "test005", "test006-a-long-test-name", "test001", "test004",
    ]  # fmt: skip
    heads[0].click()
    heads[0].click()
    assert order("test-table") == sorted(TESTS, reverse=True)
    box = page.find_element(By.ID, "test-filter")
    box.send_keys("long")
    assert order("test-table") == ["test006-a-long-test-name"]
    assert page.find_element(By.ID, "test-count").text == "1 of 6 shown"
    page.find_element(By.ID, "class-filter").send_keys("&")  # literally, not as markup
    assert order("class-table") == [EVIL, "d&d"]
    matrix = page.find_elements(By.CSS_SELECTOR, "#matrix .mrow .who")
    assert [m.text for m in matrix if m.is_displayed()] == [EVIL, "d&d"]
    assert page.find_element(By.ID, "class-count").text == "2 of 5 shown"


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
@pytest.mark.slow
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
