"""The pages are templates, and what a student wrote reaches them only
escaped: every template is drawn with hostile text in every field, and
no Python module of the package builds HTML itself."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from plpuzzle.sudoku.grading import pages
from plpuzzle.sudoku.grading.report_html import render_html

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "plpuzzle"
TEMPLATES = PACKAGE / "sudoku" / "grading" / "pages" / "templates"

#: Text a hostile hand-in may bring: markup, an attribute break, a script,
#: an entity, a template's own syntax.
HOSTILE = "\"'><img src=x onerror=alert(1)><script>alert(2)</script>&amp;{{ 7*7 }}{% if 1 %}"


def test_no_module_of_the_package_builds_html() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}: {tag}"
        for path in PACKAGE.rglob("*.py")
        for tag in ("<html", "<style", "<script", "<table")
        if tag in path.read_text(encoding="utf-8")
    ]
    assert found == []


def test_no_template_marks_anything_safe() -> None:
    """Autoescaping holds everywhere: only Python may mark text as markup
    (our static files, the escaped JSON block), never a template."""
    for template in TEMPLATES.glob("*.j2"):
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"\|\s*safe\b|autoescape\s+false|Markup", text), template.name


class _Elements(HTMLParser):
    """The tags and attributes of a page, and its scripts' text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.handlers: list[str] = []
        self.scripts: list[str] = []
        self.images: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.handlers += [name for name, _ in attrs if name.startswith("on")]
        self.images += [value or "" for name, value in attrs if tag == "img" and name == "src"]
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def check_page(page: str, expected_scripts: int = 0) -> None:
    """Hostile text appears as text: no element or handler of its own, no
    script but ours, no template syntax evaluated."""
    assert "<img src=x" not in page and "<script>alert" not in page
    parsed = _Elements()
    parsed.feed(page)
    assert all(src.startswith("data:image/png;base64,") for src in parsed.images)
    assert parsed.handlers == []
    assert parsed.tags.count("script") == expected_scripts
    assert "{{ 7*7 }}" in page and "{% if 1 %}" in page  # shown, never evaluated


def hostile_report() -> dict:
    result = {
        "test": HOSTILE,
        "grade": "wrong",
        "points": 1,
        "earned": 0,
        "detail": HOSTILE,
        "evidence": HOSTILE,
        "solutions": 0,
        "cpu_seconds": 0.5,
        "wall_seconds": 0.6,
        "ran_on": HOSTILE,
    }
    student = {
        "id": HOSTILE,
        "submission": HOSTILE,
        "score": 0,
        "max_score": 1,
        "counts": {"wrong": 1, "correct": 0},
        "notes": [HOSTILE],
        "identical_to": [HOSTILE],
        "results": [result],
    }
    return {
        "not_emulated": [HOSTILE],
        "settings": {
            "rules": HOSTILE,
            "dialect": HOSTILE,
            "time_limit": 1,
            "wall_limit": 12,
            "memory_limit_mb": 64,
            "policy": HOSTILE,
            "accounting": HOSTILE,
        },
        "ran_on": [{"place": HOSTILE, "runs": 1}],
        "grades": ["correct", "wrong"],
        "tests": [
            {
                "name": HOSTILE,
                "points": 1,
                "correct": 0,
                "total": 1,
                "pass_rate": 0.0,
                "median_cpu_seconds": 0.5,
            }
        ],
        "max_score": 1,
        "students": [student],
    }


def hostile_similarity() -> dict:
    piece = {"text": HOSTILE, "passage": 1, "colour": 0}
    plain = {"text": HOSTILE, "passage": None, "colour": None}
    file = {"name": HOSTILE, "lines": [[piece, plain], []], "more": 3}
    return {
        "compared": 2,
        "facts": [{"key": HOSTILE, "value": HOSTILE, "wide": True}],
        "rows": [
            {
                "number": 1,
                "a": HOSTILE,
                "b": HOSTILE,
                "share_a": HOSTILE,
                "share_b": HOSTILE,
                "shared": 12,
                "anchor": "similar-pair-1",
                "why": HOSTILE,
            }
        ],
        "rings": [{"students": [HOSTILE, HOSTILE, HOSTILE], "common": 40, "share": HOSTILE}],
        "min_shared": 30,
        "clusters": [[HOSTILE, HOSTILE]],
        "identical": [[HOSTILE]],
        "same_normal": [[HOSTILE]],
        "read": [{"student": HOSTILE, "how": HOSTILE, "notes": [HOSTILE]}],
        "views": [
            {
                "number": 1,
                "anchor": "similar-pair-1",
                "title": HOSTILE,
                "failed": None,
                "shared": 12,
                "a": HOSTILE,
                "b": HOSTILE,
                "passages": [{"number": 1, "where_a": HOSTILE, "where_b": HOSTILE}],
                "more_passages": 2,
                "cut": True,
                "sides": [{"student": HOSTILE, "files": [file]}] * 2,
            },
            {"number": 2, "anchor": "similar-pair-2", "title": HOSTILE, "failed": HOSTILE},
        ],
        "rest": 1,
    }


def test_the_class_report_draws_hostile_text_as_text() -> None:
    page = render_html(hostile_report())
    check_page(page, expected_scripts=2)  # the data block and our script
    assert page.count("&lt;script&gt;alert(2)&lt;/script&gt;") >= 10


@pytest.mark.parametrize("template", ["similarity.html.j2", "similarity_page.html.j2"])
def test_the_similarity_pages_draw_hostile_text_as_text(template: str) -> None:
    page = pages.render(template, sim=hostile_similarity())
    check_page(page)
    assert page.count("&lt;img src=x onerror=alert(1)&gt;") >= 20


def test_the_feedback_page_draws_hostile_text_as_text() -> None:
    from plpuzzle.sudoku.domain.evidence import GridEvidence
    from plpuzzle.sudoku.domain.model import Puzzle
    from plpuzzle.sudoku.grading.feedback.model import (
        ErrorGroup,
        Shrunk,
        StudentFeedback,
        TestFeedback,
    )
    from plpuzzle.sudoku.grading.feedback.render import to_html

    puzzle = Puzzle.parse("1\n-\n")
    board = GridEvidence("extra", ((1,),), HOSTILE, [HOSTILE] * 8)
    shrunk = Shrunk(puzzle, 2, 9, [((1,),)] * 9, 3, board, board, 1, 1, 5, 1.0, HOSTILE)
    wrong = TestFeedback(HOSTILE, "wrong", 1, 0, HOSTILE, board, board, [HOSTILE], shrunk)
    error = TestFeedback(HOSTILE, "error", 1, 0, HOSTILE)
    feedback = StudentFeedback(
        HOSTILE,
        0,
        2,
        HOSTILE,
        [wrong, error],
        [ErrorGroup("error", HOSTILE, [HOSTILE], HOSTILE)],
        [HOSTILE],
        [HOSTILE],
    )
    page = to_html(feedback)
    check_page(page)
    assert page.count("&lt;script&gt;alert(2)&lt;/script&gt;") >= 10
