"""The grader's words in English and Hungarian (issue 55): the verdicts'
one table, the grader's stored findings said again in the reader's
language (as the real code writes them, and as older gradings stored
them), a feedback file drawn from its kept data in either language, the
course requirements and the class report in Hungarian. The service's
feedback page is test_service_feedback_language.py's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from plpuzzle import i18n
from plpuzzle.sandbox.program import _backstop_words, _cpu_limit_words
from plpuzzle.sudoku.domain.model import Rules, grid_from_lists
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import grid_term
from plpuzzle.sudoku.domain.validator import validate
from plpuzzle.sudoku.grading import report as class_report
from plpuzzle.sudoku.grading.feedback.build import build_feedback, write_feedback
from plpuzzle.sudoku.grading.feedback.model import from_json, to_json
from plpuzzle.sudoku.grading.feedback.render import to_html, to_markdown
from plpuzzle.sudoku.grading.feedback.shrink import ShrinkBudget, Shrinker
from plpuzzle.sudoku.grading.grader import GradingRequest, feedback_language
from plpuzzle.sudoku.grading.judging import grader_failed, measured
from plpuzzle.sudoku.grading.model import VERDICT_NAMES, Grade, GradeSettings, TestGrade
from plpuzzle.sudoku.grading.report import StudentGrades
from plpuzzle.sudoku.grading.report_html import render_html
from plpuzzle.sudoku.grading.requirements.words import lines as requirement_lines
from plpuzzle.sudoku.grading.said import recognised, said, said_lines
from plpuzzle.sudoku.runs.suite import discover, judge, load_case
from plpuzzle.sudoku.runs.suite_config import Points

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "fixtures" / "grading_suite"
HU_PO = REPO / "python" / "plpuzzle" / "locale" / "hu" / "LC_MESSAGES" / "plpuzzle.po"


def hungarian_of(english: str) -> str:
    """The catalogue's own translation of a message, read from the .po
    (not through the code under test)."""
    from babel.messages.pofile import read_po

    with HU_PO.open("rb") as f:
        return str(read_po(f)[english].string)


# --- the verdicts ------------------------------------------------------------


def test_every_verdict_has_one_name_in_each_language() -> None:
    from plpuzzle.sudoku.grading.model import verdict_name

    assert set(VERDICT_NAMES) == set(Grade)
    for grade in Grade:
        assert verdict_name(grade.value) == grade.value  # English: the stored value
        with i18n.speaking("hu"):
            name = verdict_name(grade.value)
        assert name == hungarian_of(grade.value) and name != grade.value, grade
    with i18n.speaking("hu"):
        assert [verdict_name(g) for g in ("correct", "wrong", "timeout")] == [
            "helyes", "hibás", "időtúllépés"]  # fmt: skip
        assert verdict_name("no such verdict") == "no such verdict"


# --- the grader's stored findings --------------------------------------------


def wrong_case() -> tuple[Any, Any]:
    """A real test of the suite judged on answers with one solution missing
    and a grid that is none: what judging stores of a wrong answer."""
    case = discover(SUITE)[1]
    puzzle, expected = load_case(case)
    assert expected
    rows = [list(r) for r in expected[0]]
    rows[0][0], rows[0][1] = rows[0][1], rows[0][0]  # a row with two values swapped
    bad = grid_from_lists(rows)
    result = SolveResult("submission", Status.OK, [*expected[1:], bad], [], 0.1, 0.1)
    return judge(case, puzzle, expected, [result], Rules.CONSECUTIVE), (puzzle, bad)


def stored_texts() -> list[str]:
    """What the grader's code writes into grades.json, the gradebook and
    shrunk.json, made by that code."""
    judged, (puzzle, bad) = wrong_case()
    shrinker = Shrinker(None, Rules.CONSECUTIVE, ShrinkBudget(runs=0), None)  # type: ignore[arg-type]
    assert shrinker.out_of_budget()
    case = discover(SUITE)[0]
    texts = [
        judged.summary(),
        "stopped at the CPU limit of 5 s" + measured(5.01, 6.2),
        _cpu_limit_words(5.0, 0, 100),
        _backstop_words(20.0, 0.1, 20.0, 0.0, 0, 100),
        _backstop_words(20.0, 0.1, 20.0, 0.0, 10, 100),
        f"loading was stopped: {_cpu_limit_words(5.0, 0, 100)}",
        grader_failed(case_stub(), case, KeyError("x")).detail,
        shrinker.stopped,
        f"our engine could not solve the puzzle: {shrinker.stopped}",
        *(str(v) for v in validate(puzzle, bad, Rules.CONSECUTIVE)),
    ]
    return texts


def case_stub() -> Any:
    """Who a grader's failure is told of (its student is all it reads)."""
    from types import SimpleNamespace

    return SimpleNamespace(student="sam")


def test_what_the_grader_stores_is_said_again_in_hungarian() -> None:
    texts = stored_texts()
    assert any(t.startswith("missing 1, extra 1") for t in texts), texts
    for text in texts:
        assert recognised(text) is not None or all(
            recognised(p) is not None for p in text.split(", ")
        ), text
        assert said(text) == text  # English: as stored
        with i18n.speaking("hu"):
            hungarian = said(text)
        assert hungarian != text, text
        for english in ("stopped at", "holds", "missing", "the limit", "plpuzzle's fault"):
            assert english not in hungarian, (text, hungarian)
    with i18n.speaking("hu"):
        assert said("missing 1, extra 1") == "hiányzik 1, fölösleges 1"
        assert said("row 2 holds 3 twice") == "a(z) 2. sorban a(z) 3 kétszer szerepel"
        # A place filled by another template: said too.
        assert said("loading was stopped: stopped at the CPU limit of 5 s") == (
            "a betöltést leállítottuk: leállt a 5 s-os CPU-időkorlátnál"
        )
        # Text of the student's program is shown as it is.
        assert said("ERROR: sudoku.pl:3: oops, missing 1") == "ERROR: sudoku.pl:3: oops, missing 1"
        assert said_lines("the exception:\nerror(foo)\nwhy:") == "a kivétel:\nerror(foo)\nmiért:"


# --- the feedback, drawn from its kept data -----------------------------------


def stored_grade() -> StudentGrades:
    """One student's grades as a grading stores them: a wrong test with its
    evidence, two timeouts, a note, the course requirements."""
    judged, (_puzzle, bad) = wrong_case()
    names = [c.name for c in discover(SUITE)]
    evidence = f"first extra solution: {grid_term(bad)}"
    timeout = "stopped at the CPU limit of 5 s"
    grades = [
        TestGrade("sam", names[0], Grade.CORRECT),
        TestGrade("sam", names[1], Grade.WRONG, judged.summary(), evidence),
        TestGrade(
            "sam",
            names[2],
            Grade.TIMEOUT,
            timeout + measured(5.0, 6.1),
            "what it printed (last part):\nthinking",
        ),
        TestGrade("sam", names[3], Grade.TIMEOUT, timeout + measured(5.2, 6.0)),
    ]
    requirements = {
        "files": ["sudoku.pl"], "read": "prolog", "notes": [],
        "clpfd": {"status": "no", "loaded": False, "defines_sudoku": True, "reached": {},
                  "elsewhere": {}, "run_time_goals": []},
        "head_comments": None, "layout": None, "documentation": None,
        "deductions": [{"requirement": "clpfd", "points": 1,
                        "why": "no clpfd constraint is reached from sudoku/2"}],
        "deduction": 1,
    }  # fmt: skip
    return StudentGrades("sam", "sam.pl", grades, ["while loading: Warning: x"],
                         requirements=requirements)  # fmt: skip


def test_a_feedback_file_in_either_language_from_the_same_stored_grade(tmp_path: Path) -> None:
    cases = discover(SUITE)
    feedback = build_feedback(stored_grade(), cases, GradeSettings())
    again = from_json(json.loads(json.dumps(to_json(feedback))))
    assert to_markdown(again) == to_markdown(feedback)  # the kept data draws the same file
    english, page = to_markdown(again), to_html(again)
    with i18n.speaking("hu"):
        hungarian, hu_page = to_markdown(again), to_html(again)
    assert "## Wrong answers" in english and "It breaks these rules:" in english
    assert "| test001 | correct | 1/1 |" in english
    assert "## Hibás válaszok" in hungarian and "Ezeket a szabályokat sérti:" in hungarian
    assert "| test001 | helyes | 1/1 |" in hungarian
    assert "hibás: hiányzik 1, fölösleges 1" in hungarian
    assert "### időtúllépés" in hungarian and "leállt a 5 s-os CPU-időkorlátnál" in hungarian
    assert "betöltés közben: Warning: x" in hungarian and "amit kiírt (a vége):" in hungarian
    assert "- clpfd: nem: a library(clpfd) nincs betöltve" in hungarian
    assert "Levont pontok: 1 (clpfd: a sudoku/2-ből nem érhető el clpfd korlát)" in hungarian
    for word in ("Wrong answers", "breaks", "correct", "stopped at", "Points taken off"):
        assert word not in hungarian, word
    # The boards are the same in both: only the words change.
    board = next(t.extra for t in again.tests if t.extra is not None).board
    assert f"```\n{board}\n```" in english and f"```\n{board}\n```" in hungarian
    assert "<html lang='en'>" in page and "<html lang='hu'>" in hu_page
    assert "<h2>Hibás válaszok</h2>" in hu_page and "<h2>Wrong answers</h2>" in page


def test_the_files_are_in_the_students_language_else_the_courses(tmp_path: Path) -> None:
    request = GradingRequest(tmp_path, SUITE, GradeSettings(), tmp_path, language="hu",
                             languages={"emil": "en", "odd": "xx"})  # fmt: skip
    assert [feedback_language(request, s) for s in ("hanna", "emil", "odd")] == ["hu", "en", "hu"]
    english = GradingRequest(tmp_path, SUITE, GradeSettings(), tmp_path)
    assert feedback_language(english, "hanna") == "en"
    sam, emil = stored_grade(), stored_grade()
    emil.student = "emil"
    folder = write_feedback(tmp_path, [sam, emil], discover(SUITE), GradeSettings(),
                            language=lambda s: feedback_language(request, s))  # fmt: skip
    assert (folder / "sam.md").read_text().startswith("# Sudoku házi feladat: visszajelzés")
    assert (folder / "emil.md").read_text().startswith("# Sudoku assignment: feedback")
    # The data kept beside them draws either file in either language.
    kept = from_json(json.loads((folder / "emil.json").read_text()))
    with i18n.speaking("hu"):
        assert to_markdown(kept) == (folder / "sam.md").read_text().replace("`sam`", "`emil`")


# --- the course requirements and the score -------------------------------------


def test_the_requirements_words_are_made_as_they_are_read() -> None:
    found = stored_grade().requirements
    assert found is not None
    english = dict(requirement_lines(found))
    with i18n.speaking("hu"):
        hungarian = dict(requirement_lines(found))
    assert english["Points taken off"] == "1 (clpfd: no clpfd constraint is reached from sudoku/2)"
    assert hungarian["Levont pontok"] == "1 (clpfd: a sudoku/2-ből nem érhető el clpfd korlát)"
    # An older grading's deduction of a requirement this table does not
    # know: its stored words.
    found["deductions"] = [{"requirement": "style", "points": 2, "why": "too long"}]
    with i18n.speaking("hu"):
        assert dict(requirement_lines(found))["Levont pontok"] == "2 (style: too long)"


# --- the class report ------------------------------------------------------------


def class_page(language: str) -> tuple[dict[str, Any], str]:
    sam = stored_grade()
    tests = [g.test for g in sam.grades]
    report = class_report.build([sam], tests, Points(), GradeSettings())
    with i18n.speaking(language):
        return report, render_html(report)


def test_the_class_report_in_hungarian() -> None:
    _report, english = class_page("en")
    _report, page = class_page("hu")
    assert '<html lang="hu">' in page and "<h1>Sudoku értékelés</h1>" in page
    assert "<h2>Eredménymátrix</h2>" in page and "<h2>Hallgatók</h2>" in page
    assert "<dt>Időkorlát</dt>" in page and "Sikerességi arány tesztenként" in page
    assert 'class="badge g-wrong">hibás' in page and 'class="badge g-timeout">időtúllépés' in page
    assert "hiányzik 1, fölösleges 1" in page  # a stored detail, said again
    for word in ("Verdict matrix", "Pass rate per test", ">wrong<", "Time limit"):
        assert word in english and word not in page, word
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', page, re.S).group(1))
    assert data["words"]["names"]["timeout"] == "időtúllépés"
    assert data["words"]["heads"][1] == "Eredmény"


@pytest.mark.browser
def test_the_class_reports_script_speaks_the_pages_language(browser: Any, tmp_path: Path) -> None:
    """Chromium opens the Hungarian report: the table the script draws for
    an opened student, and the filter's count, are in Hungarian."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    _report, page = class_page("hu")
    path = tmp_path / "grades.html"
    path.write_text(page, encoding="utf-8")
    browser.get(path.as_uri())
    section = browser.find_element(By.CSS_SELECTOR, "details.student")
    section.find_element(By.TAG_NAME, "summary").click()
    rows = WebDriverWait(browser, 5).until(
        lambda _: section.find_elements(By.CSS_SELECTOR, ".results tbody tr"))  # fmt: skip
    heads = [h.text for h in section.find_elements(By.CSS_SELECTOR, ".results thead th")]
    assert heads == ["Teszt", "Eredmény", "Pont", "CPU s", "falióra s", "Futtatás helye",
                     "Részletek és bizonyíték"]  # fmt: skip
    verdicts = [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows]
    assert verdicts == ["helyes", "hibás", "időtúllépés", "időtúllépés"]
    box = browser.find_element(By.ID, "class-filter")
    assert box.get_attribute("placeholder") == "Hallgatók szűrése"
    box.send_keys("sa")
    count = browser.find_element(By.ID, "class-count")
    WebDriverWait(browser, 5).until(lambda _: count.text)
    assert count.text == "1 közül 1 látszik"


def test_grade_speaks_the_courses_language_unless_told(tmp_path: Path) -> None:
    """`sudoku grade` writes a Hungarian course's feedback and class report
    in Hungarian ([course] language of its suite.toml), as the service does."""
    from plpuzzle.sudoku.grading.grader import course_language

    assert course_language(SUITE) == "en"  # no [course] table
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "suite.toml").write_text('[course]\nlanguage = "hu"\n')
    assert course_language(suite) == "hu"
    (suite / "suite.toml").write_text('[course]\nlanguage = "de"\n')
    assert course_language(suite) == "en"
    (suite / "suite.toml").write_text("[course\n")  # broken: the grading says so, not this
    assert course_language(suite) == "en"


@pytest.mark.sandbox
def test_sudoku_grade_of_a_hungarian_course_writes_hungarian(tmp_path: Path) -> None:
    """The real command, in the sandbox: the feedback file and grades.html
    in the course's language; the terminal's report stays English."""
    import shutil

    from run_plpuzzle import plpuzzle

    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    (suite / "suite.toml").write_text('time_limit = 10\n\n[course]\nlanguage = "hu"\n')
    subs = tmp_path / "class"
    subs.mkdir()
    shutil.copy(REPO / "tests" / "fixtures" / "feedback" / "s_points_up.pl", subs / "sam.pl")
    out = tmp_path / "report"
    done = plpuzzle("sudoku", "grade", subs, "--suite", suite, "--out", out,
                    "--no-similarity", "--shrink-seconds", "0")  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert "Reports:" in done.stdout and "Jelentések" not in done.stdout
    sam = (out / "feedback" / "sam.md").read_text()
    assert sam.startswith("# Sudoku házi feladat: visszajelzés") and "## Hibás válaszok" in sam
    page = (out / "grades.html").read_text()
    assert '<html lang="hu">' in page and "<h2>Eredménymátrix</h2>" in page


def test_evidence_drawn_for_the_reports_is_said_again_line_by_line() -> None:
    """The class report's evidence (evidence_in_words: a title, the board,
    the broken rules indented) in Hungarian, the board as it is."""
    from plpuzzle.sudoku.domain.evidence import evidence_in_words

    _judged, (puzzle, bad) = wrong_case()
    drawn = evidence_in_words(f"first extra solution: {grid_term(bad)}\ngiven 2 times: [[1]]",
                              puzzle, Rules.CONSECUTIVE)  # fmt: skip
    with i18n.speaking("hu"):
        hungarian = said_lines(drawn)
    english_lines, hungarian_lines = drawn.splitlines(), hungarian.splitlines()
    assert len(english_lines) == len(hungarian_lines)
    assert hungarian_lines[0] == "az első fölösleges megoldás (megadta, de nem megoldás):"
    assert hungarian_lines[-1] == "2 alkalommal megadva: [[1]]"
    for english, said_again in zip(english_lines, hungarian_lines, strict=True):
        if english.strip().startswith("breaks: "):
            assert said_again.startswith("    sérti: ") and "holds" not in said_again
        elif english.startswith("    ") and english.strip():
            assert said_again == english  # the board's rows
