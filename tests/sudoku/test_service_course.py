"""The [course] table of suite.toml: every key checked, errors at file:line."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from service_kit import make_course

from plpuzzle.sudoku.runs.suite import SuiteError
from plpuzzle.sudoku.service.course import load_course


def course_with(tmp_path: Path, table: str) -> Path:
    return make_course(tmp_path / "course", f"time_limit = 10\n\n[course]\n{table}\n")


def test_a_whole_table_is_read(tmp_path: Path) -> None:
    table = """deadline = 2026-12-15T23:59:00+01:00
public = ["test00[12]", "test008"]
release = 2026-12-16T10:00:00Z
late = "counted"
uploads_per_hour = 3
max_upload_kb = 100
shrink_seconds = 0
check_seconds = 4
body_seconds = 2.5"""
    course = load_course(course_with(tmp_path, table))
    assert course.deadline == datetime(2026, 12, 15, 22, 59, tzinfo=UTC)
    assert course.public_tests == ("test001", "test002", "test008")
    assert course.release == datetime(2026, 12, 16, 10, 0, tzinfo=UTC)
    assert (course.late, course.uploads_per_hour, course.max_upload_kb) == ("counted", 3, 100)
    assert (course.check_seconds, course.body_seconds) == (4.0, 2.5)
    assert course.late_at(datetime(2026, 12, 15, 23, 0, tzinfo=UTC))
    assert not course.late_at(datetime(2026, 12, 15, 22, 0, tzinfo=UTC))


def test_no_table_means_the_defaults(tmp_path: Path) -> None:
    course = load_course(make_course(tmp_path / "course", "time_limit = 10\n"))
    assert course.deadline is None and course.public_tests == () and course.release is None
    assert (course.check_seconds, course.body_seconds) == (15.0, 15.0)  # the product's bounds


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('deadline = "tomorrow"', "deadline must be a date-time with its offset"),
        ("deadline = 2026-12-15T23:59:00", "deadline must be a date-time with its offset"),
        ('public = ["test01"]', "'public' names 'test01', which matches no test"),
        ("public = 3", "'public' must be a list"),
        ('release = "soon"', 'release must be "manual"'),
        ('late = "maybe"', "late must be one of ignored, counted, refused"),
        ("uploads_per_hour = 0", "uploads_per_hour must be a whole number >= 1"),
        ("max_upload_kb = 1.5", "max_upload_kb must be a whole number >= 1"),
        ("shrink_seconds = -1", "shrink_seconds must be seconds >= 0"),
        ("check_seconds = 0.5", "check_seconds must be seconds >= 1"),
        ("body_seconds = 0", "body_seconds must be seconds >= 1"),
        ("publik = 1", "unknown key 'publik' in [course] (did you mean public?)"),
    ],
)
def test_a_bad_key_is_named_with_its_line(tmp_path: Path, line: str, words: str) -> None:
    folder = course_with(tmp_path, f"# the course\n{line}")
    with pytest.raises(SuiteError) as caught:
        load_course(folder)
    assert str(caught.value).startswith(f"{folder / 'suite.toml'}:5: ")
    assert words in str(caught.value)
