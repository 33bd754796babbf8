"""`make bench-grade`: the arithmetic and the report, without grading anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from plpuzzle.sudoku.services import grading_bench as gb
from plpuzzle.sudoku.services.grading_bench import (
    CliRun,
    DriverRun,
    Measure,
    Pair,
    Setup,
    Step,
    Version,
)

MACHINE = [("CPU", "test CPU"), ("Cores", "2 logical")]


# --- overhead, percentiles ----------------------------------------------------------


def test_overhead_is_the_interval_since_the_previous_result_minus_the_own_time() -> None:
    got = gb.overheads([0.5, 0.6, 1.6, 1.6], [0.4, 0.05, 1.0, 0.0])
    assert got == pytest.approx([0.1, 0.05, 0.0, 0.0])


def test_overhead_of_the_first_result_counts_from_the_start() -> None:
    assert gb.overheads([2.0], [0.5]) == pytest.approx([1.5])


def test_overhead_can_be_negative_when_the_own_time_was_measured_longer() -> None:
    assert gb.overheads([1.0, 1.2], [0.9, 0.3]) == pytest.approx([0.1, -0.1])


def test_overhead_needs_one_own_time_per_timestamp() -> None:
    with pytest.raises(ValueError):
        gb.overheads([1.0, 2.0], [0.1])


def test_driver_run_overheads_and_first_pairs() -> None:
    run = DriverRun(
        "api",
        3.0,
        [
            Pair("alice", "test001", "correct", 1.0, 0.2, 0.1),
            Pair("alice", "test002", "wrong", 1.5, 0.4, 0.3),
            Pair("bob", "test001", "timeout", 3.0, 1.0, 0.5),
        ],
    )
    assert run.overheads(lambda p: p.wall) == pytest.approx([0.8, 0.1, 0.5])
    assert run.overheads(lambda p: p.cpu) == pytest.approx([0.9, 0.2, 1.0])
    assert run.first_of_each() == [True, False, True]
    assert run.grades[("bob", "test001")] == "timeout"


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([3.0, 1.0, 2.0, 4.0], 50, 2.5),
        ([5.0, 1.0, 3.0], 50, 3.0),
        ([7.0], 95, 7.0),
        (list(range(1, 101)), 95, 95.05),
        (list(range(1, 101)), 0, 1.0),
        (list(range(1, 101)), 100, 100.0),
        ([0.0, 10.0], 95, 9.5),
    ],
)
def test_percentile_interpolates_between_ranks(values: list[float], q: float, expected: float):
    assert gb.percentile(values, q) == pytest.approx(expected)


def test_percentile_refuses_nothing_and_bad_q() -> None:
    with pytest.raises(ValueError):
        gb.percentile([], 50)
    with pytest.raises(ValueError):
        gb.percentile([1.0], 101)


def test_runs_per_minute() -> None:
    grades = {(f"s{i}", "test001"): "correct" for i in range(30)}
    assert CliRun(45.0, grades, {}).runs_per_minute == pytest.approx(40.0)


# --- the table ------------------------------------------------------------------------


def test_ratio_and_values() -> None:
    assert gb.ratio_text(0.5, 0.05) == "0.1"
    assert gb.ratio_text(40.0, 100.0) == "2.5"
    assert gb.ratio_text(0.0, 1.0) == "n/a"
    assert gb.ratio_text(None, 1.0) == "n/a"
    assert gb.value_text(0.0123, "ms") == "12.3 ms"
    assert gb.value_text(61.25, "s") == "61.2 s"
    assert gb.value_text(77.06, "") == "77.1"
    assert gb.value_text(None, "ms") == "n/a"


def test_comparison_table() -> None:
    lines = gb.comparison_table(
        [Measure("overhead, median", 0.5, 0.01, "ms"), Measure("runs per minute", 40, 120, "")]
    )
    assert lines == [
        "| measure | before | after | after / before |",
        "|---|---:|---:|---:|",
        "| overhead, median | 500.0 ms | 10.0 ms | 0.02 |",
        "| runs per minute | 40.0 | 120.0 | 3 |",
    ]


def test_comparison_table_after_only() -> None:
    lines = gb.comparison_table([Measure("class wall time", None, 80.0, "s")], with_before=False)
    assert lines == ["| measure | after |", "|---|---:|", "| class wall time | 80.0 s |"]


def test_grade_differences_per_student() -> None:
    before = {("bob", "test001"): "correct", ("bob", "test002"): "correct", ("eve", "t"): "wrong"}
    after = {("bob", "test001"): "correct", ("bob", "test002"): "crashed", ("eve", "t"): "wrong"}
    assert gb.grade_differences(before, after) == {"bob": [("test002", "correct", "crashed")]}
    lines = gb.difference_lines(before, after, {}, {("bob", "test002"): "the sandbox died"})
    assert lines == ["- bob: test002: correct -> crashed (the sandbox died)"]
    assert gb.difference_lines(before, before, {}, {}) == ["- none"]


def test_grade_names_in_report_order() -> None:
    assert gb.grade_names({("a", "t"): "timeout"}, {("b", "t"): "correct", ("c", "t"): "odd"}) == [
        "correct",
        "timeout",
        "odd",
    ]


# --- the whole report -------------------------------------------------------------------


def _version(label: str, per_test: float, wall: float, second: str) -> Version:
    pairs = [
        Pair("alice", "test001", "correct", per_test, 0.01, 0.01),
        Pair(
            "alice",
            "test002",
            second,
            2 * per_test,
            0.01,
            0.01,
            "" if second == "correct" else "it died",
        ),
    ]
    cli = CliRun(wall, {(p.student, p.test): p.grade for p in pairs}, {})
    return Version(label, f"{label} code", Path("/nowhere"), DriverRun("api", 1.0, pairs), cli)


def _setup() -> Setup:
    return Setup(["test001", "test002"], Path("/suite"), 5.0, 2, MACHINE)


def test_report_compares_both_versions() -> None:
    before = _version("before", 0.6, 60.0, "correct")
    after = _version("after", 0.06, 20.0, "crashed")
    steps = [Step("before", "a. overhead", 1.2, (1.0, 0.5, 0.2), None)]
    text = gb.markdown(before, "", after, _setup(), steps)
    assert "- CPU: test CPU" in text
    assert "| runs per minute (command line) | 2.0 | 6.0 | 3 |" in text
    assert "| class wall time (command line) | 60.0 s | 20.0 s | 0.333 |" in text
    assert "| overhead per test, median (interval - recorded wall_seconds) | 590.0 ms |" in text
    assert "| before | a. overhead | 1.2 s | 1.00, 0.50, 0.20 | unknown |  |" in text
    assert "- alice: test002: correct -> crashed (it died)" in text
    assert "| crashed | 0 | 0 | 1 | 1 |" in text


def test_report_without_before_says_why() -> None:
    after = _version("after", 0.06, 20.0, "correct")
    text = gb.markdown(None, "git is not installed", after, _setup(), [])
    assert "- Before: not measured: git is not installed." in text
    assert "| measure | after |" in text
    assert "after / before |" not in text
