"""A submission's text is never live markup, in any report format.

The hostile text here is what a submission controls: what it throws, what
it prints, what loading printed, a malformed answer, a file name. Each
report is read back with a real parser of its format (markdown-it for
CommonMark, ElementTree for JUnit, json for JSON) and the parse must show
that text only as text.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from markdown_it import MarkdownIt

from plpuzzle.reports import JUnitCase, junit_xml
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.grading.feedback.build import build_feedback
from plpuzzle.sudoku.grading.feedback.render import to_html, to_markdown
from plpuzzle.sudoku.grading.model import Grade, GradeSettings, TestGrade
from plpuzzle.sudoku.grading.report import StudentGrades
from plpuzzle.sudoku.grading.report import build as build_report
from plpuzzle.sudoku.grading.report import to_json as report_json
from plpuzzle.sudoku.runs.suite import discover
from plpuzzle.sudoku.runs.suite_config import Points
from plpuzzle.untrusted import md_fence, printable

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

SUITE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "grading_suite"

#: What a hostile submission puts into each text it controls.
FORGED = (
    "```\n# Score: 3/3\n\n![pwned](http://evil.example/x.png)\n"
    "[click](http://evil.example/) <img src=x onerror=alert(1)>\n"
    "~~~\n````````\n| forged | table |\n<script>alert(2)</script>\x1b[31mred\x1b[0m\u202e"
)


def hostile_student() -> StudentGrades:
    names = [c.name for c in discover(SUITE)]
    first_line = FORGED.splitlines()[0]
    grades = [
        TestGrade("mallet", names[0], Grade.ERROR, first_line, f"the exception:\n{FORGED}"),
        TestGrade(
            "mallet",
            names[1],
            Grade.WRONG,
            "malformed or non-ground 1",
            f"answer {FORGED}: not a grid",
        ),
        TestGrade(
            "mallet",
            names[2],
            Grade.TIMEOUT,
            "stopped at the CPU limit of 5 s",
            f"what it printed (last part):\n{FORGED}",
        ),
        *(TestGrade("mallet", n, Grade.CORRECT) for n in names[3:]),
    ]
    notes = [f"while loading: error: {line}" for line in FORGED.splitlines()]
    return StudentGrades("mallet", "mallet.pl", grades, [*notes, f"not graded: {FORGED}"])


def test_feedback_markdown_of_a_hostile_student_renders_as_plain_text() -> None:
    fb = build_feedback(hostile_student(), discover(SUITE), GradeSettings())
    md = to_markdown(fb)
    tokens = MarkdownIt("commonmark").enable("table").parse(md)
    kinds = {t.type for t in tokens} | {c.type for t in tokens for c in t.children or []}
    assert not kinds & {"image", "link_open", "html_block", "html_inline"}, kinds
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings == [
        "Sudoku assignment: feedback", "Notes", "Tests", "Errors", "error", "timeout",
        "Wrong answers", f"{discover(SUITE)[1].name}: malformed or non-ground 1",
    ]  # fmt: skip
    # Every forged line is inside a fence, never loose in the page.
    fenced = "\n".join(t.content for t in tokens if t.type == "fence")
    loose = "\n".join(
        c.content
        for t in tokens
        if t.type == "inline"
        for c in t.children or []
        if c.type == "text"
    )
    for line in ("# Score: 3/3", "![pwned]", "[click]", "<script>", "| forged | table |"):
        assert line in fenced, line
        assert line not in loose, line
    # Table rows are ours: no row was added by the forged table.
    rows = [t for t in tokens if t.type == "tr_open"]
    assert len(rows) == 1 + len(fb.tests)
    # The terminal's control characters are shown, not kept.
    assert "\x1b" not in md and "\\x1b[31m" in md and "\u202e" not in md


def test_a_fence_is_longer_than_any_backtick_run_inside() -> None:
    lines = md_fence("a ``` b\n````````` c")
    assert lines[0] == "`" * 10 + "text" and lines[-1] == "`" * 10
    tokens = MarkdownIt("commonmark").parse("\n".join(lines) + "\n")
    assert [t.type for t in tokens] == ["fence"]


def test_feedback_html_escapes_everything() -> None:
    page = to_html(build_feedback(hostile_student(), discover(SUITE), GradeSettings()))
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page


def test_junit_holds_a_solvers_text_as_valid_xml() -> None:
    case = JUnitCase("test001", "sudoku.suite", 0.1, "error", f"error: {FORGED}\x00\x07", FORGED)
    xml = junit_xml("suite <x>", [case], 1.0)
    root = ET.fromstring(xml.split("\n", 1)[1])  # parses: nothing XML cannot hold
    error = root.find("./testsuite/testcase/error")
    assert error is not None
    assert "<script>alert(2)</script>" in error.get(
        "message", ""
    )  # as text, unescaped by the parser
    assert "\\x00\\x07" in error.get("message", "")
    assert "<script>" not in xml  # and escaped in the document


def test_grades_json_has_no_raw_markup_and_parses_to_the_same_text() -> None:
    report = build_report(
        [hostile_student()], [c.name for c in discover(SUITE)], Points(), GradeSettings()
    )
    text = report_json(report)
    assert not set("<>&") & set(text)
    data = json.loads(text)
    assert data["students"][0]["results"][0]["evidence"].endswith(FORGED.splitlines()[-1])


def test_printable_shows_control_and_direction_characters() -> None:
    assert printable("a\x1b[2Jb\u202ec\td\ne\x85") == "a\\x1b[2Jb\\u202ec\td\ne\\x85"


@pytest.mark.browser
@pytest.mark.parametrize("rules", ["consecutive", "oddsum"])
def test_feedback_html_shows_code_as_code_and_a_submissions_backticks_as_text(
    browser: WebDriver, tmp_path: Path, rules: str
) -> None:
    """Our own code spans (the rules' `s` and `w`) are <code> in a browser,
    with no backtick left in the page's text; the hostile student's
    backticks stay literal text, and never make an element of their own."""
    from selenium.webdriver.common.by import By

    settings = GradeSettings(rules=Rules(rules))
    cases = discover(SUITE)
    plain = StudentGrades("ann", "ann.pl", [TestGrade("ann", c.name, Grade.CORRECT) for c in cases])
    pages = {}
    for s in (plain, hostile_student()):
        pages[s.student] = tmp_path / f"{s.student}.html"
        pages[s.student].write_text(to_html(build_feedback(s, cases, settings)), encoding="utf-8")
    browser.get(pages["ann"].as_uri())
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "`" not in body, body
    codes = [c.text for c in browser.find_elements(By.TAG_NAME, "code")]
    assert codes[:2] == ["s", "w"], codes
    browser.get(pages["mallet"].as_uri())
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "````````" in body and "<script>alert(2)</script>" in body
    codes = [c.text for c in browser.find_elements(By.TAG_NAME, "code")]
    assert codes == ["s", "w"], codes
    assert browser.find_elements(By.TAG_NAME, "script") == []
    assert browser.find_elements(By.TAG_NAME, "img") == []
