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


# --- units ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0000125, "12.5 µs"),
        (0.000412, "412 µs"),
        (0.0123, "12.3 ms"),
        (0.5, "500 ms"),
        (2.5, "2.5 s"),
        (119.0, "119 s"),
        (600.0, "10 min"),
        (5400.0, "90 min"),
        (36000.0, "10 h"),
    ],
)
def test_duration_text_picks_the_unit(seconds: float, text: str) -> None:
    assert gb.duration_text(seconds) == text


def test_bytes_text() -> None:
    assert gb.bytes_text(900) == "900 B"
    assert gb.bytes_text(1536) == "1.5 KiB"
    assert gb.bytes_text(3 * 1024 * 1024) == "3.0 MiB"
    assert gb.bytes_text(5 * 1024**3) == "5.0 GiB"


MOUNTS = """\
/dev/vda / ext4 rw,relatime 0 0
tmpfs /tmp tmpfs rw,nosuid 0 0
/dev/vdb /tmp/big\\040disk xfs rw 0 0
"""


def test_filesystem_type_takes_the_longest_mount_point() -> None:
    assert gb.filesystem_type(Path("/home/x/grades.sqlite"), MOUNTS) == "ext4"
    assert gb.filesystem_type(Path("/tmp/plpuzzle-bench/book"), MOUNTS) == "tmpfs"
    assert gb.filesystem_type(Path("/tmp/big disk/book"), MOUNTS) == "xfs"
    assert gb.filesystem_type(Path("/tmpx/book"), MOUNTS) == "ext4"  # not under /tmp
    assert gb.filesystem_type(Path("/x"), "") == "unknown"


# --- gradings and their rates -------------------------------------------------------------


def test_cli_run_slot_time_and_own_wall() -> None:
    keys = [("alice", "test001"), ("alice", "test002"), ("bob", "test001"), ("bob", "test002")]
    run = CliRun(
        10.0, dict.fromkeys(keys, "correct"), {}, walls=dict(zip(keys, [1, 2, 3, 6], strict=True))
    )
    assert run.slot_seconds(2) == pytest.approx(5.0)  # 10 s x 2 slots / 4 runs
    assert run.mean_run_wall() == pytest.approx(3.0)
    assert CliRun(10.0, dict.fromkeys(keys, "correct"), {}).mean_run_wall() is None


def test_workers_per_submission_counts_distinct_places() -> None:
    places = {
        ("alice", "t1"): "w1",
        ("alice", "t2"): "w2",
        ("alice", "t3"): "w1",
        ("bob", "t1"): "w2",
        ("carol", "t1"): "",  # never ran (no place): not counted
    }
    assert gb.loads_per_submission(places) == pytest.approx(1.5)
    assert gb.loads_per_submission({("carol", "t1"): ""}) is None


def test_rate_table_has_runs_per_minute_on_every_line() -> None:
    rows = [
        gb.RateRow("after", "b. command line, local pool, 2 jobs", 168, 56.0),
        gb.RateRow("after", "b. command line, LocalCluster(2 workers)", 168, 84.0, 4.5),
    ]
    assert gb.rate_table(rows)[2:] == [
        "| after | b. command line, local pool, 2 jobs | 168 | 56.0 s | 180.0 |  |",
        "| after | b. command line, LocalCluster(2 workers) | 168 | 84.0 s | 120.0 | 4.5 s |",
    ]


def test_probe_figures_per_task_and_per_worker() -> None:
    p = gb.Probe(2000, 1.0, 10.0, 4.0, 6.0, 300, 1.5)
    assert p.per_task == pytest.approx(0.005)
    assert p.round_trip(2) == pytest.approx(0.01)  # each worker sees every other task
    assert p.submit_per_task == pytest.approx(0.0005)
    assert p.per_payload == pytest.approx(0.005)


# --- the projection -----------------------------------------------------------------------


def _costs(**changes: float) -> gb.Costs:
    figures = dict(run=1.0, load=0.5, round_trip=0.01, scheduler=0.003, client=0.002,
                   book=0.001, batched=0.00002, ship=0.0271, startup=5.0)  # fmt: skip
    return gb.Costs(**{**figures, **changes})


def test_projection_is_linear_in_the_runs_plus_overheads() -> None:
    costs = _costs()
    one = gb.project(costs, 300, 271, 1, 2)
    four = gb.project(costs, 300, 271, 4, 2)
    pairs = 300 * 271
    assert one.workers == 2 and four.workers == 8
    assert one.runs == pytest.approx(pairs * 1.01 / 2)
    assert four.runs == pytest.approx(one.runs / 4)
    # every worker loads every submission: loading does not shrink with machines
    assert one.loading == pytest.approx(300 * 0.5) == four.loading
    # scheduler 3 ms + client (2 ms Dask + 1 ms SQLite + 27.1 ms / 271 tests shipping)
    assert one.serial == pytest.approx(pairs * (0.003 + 0.002 + 0.001 + 0.0001))
    assert one.serial == four.serial
    assert one.total == pytest.approx(one.runs + one.loading + one.serial + 5.0)
    # overlapped: the client (3.1 ms a run) is slower than the scheduler (3 ms)
    assert four.paced == pytest.approx(pairs * 0.0031)
    assert four.overlapped == pytest.approx(four.runs + four.loading + 5.0)


def test_loading_shrinks_only_when_workers_outnumber_the_tests() -> None:
    p = gb.project(_costs(), 10, 4, 4, 2)  # 8 workers, 4 tests: each submission on 4 workers
    assert p.loading == pytest.approx(10 * 0.5 * 4 / 8)


def test_serial_parts_largest_first_and_the_pace() -> None:
    costs = _costs()
    names = [name for name, _ in costs.serial_parts(271)]
    assert names == [
        "the scheduler's per-task work",
        "the client's own Dask work",
        "the client's SQLite gradebook writes",
        "shipping submissions",
    ]
    assert costs.pace(271) == pytest.approx(0.0031)
    assert _costs(scheduler=0.01).pace(271) == pytest.approx(0.01)
    # a run every 1.01 s / 2 workers per machine, handed out every 3.1 ms
    assert gb.machines_kept_busy(costs, 271, 2) == pytest.approx(1.01 / 2 / 0.0031)


def test_projection_lines_table_and_bottleneck() -> None:
    lines = gb.projection_lines(_costs(), 300, 271, (1, 4, 16), 2)
    text = "\n".join(lines)
    assert "300 students x 271 tests = 81,300 runs" in text
    assert "linear in the runs, plus overheads" in text
    rows = [line for line in lines if line.startswith("| 1 |") or line.startswith("| 16 |")]
    assert rows[0].startswith("| 1 | 2 | 11.4 h |")  # 81,300 x 1.01 s / 2
    assert rows[1].startswith("| 16 | 32 | 42.8 min |")
    assert "the client is the slower" in text
    assert "at 16 machines they are not the limit yet" in text


def test_bottleneck_names_the_pace_setter_once_machines_outrun_it() -> None:
    slow = _costs(scheduler=0.02)  # a run every 20 ms: 1.01 / 2 / 0.02 = 25 machines
    text = gb.bottleneck_text(slow, 300, 271, 64, 2)
    assert "The largest single part is the scheduler's per-task work" in text
    assert "keep about 25.2 machines fed" in text
    assert "beyond that, more machines do not help: the scheduler sets the pace" in text
    assert "27.1 min for the class" in text  # 81,300 runs x 20 ms


def test_scale_plan_rests_on_the_figures() -> None:
    text = "\n".join(gb.scale_plan_lines(_costs(), 10_000, 271, 16, 2, 1536.0))
    assert "2,710,000 runs" in text
    assert "2,710,000 futures" in text
    assert "10,000 tasks" in text
    assert "54.2 s of writes instead of 45.2 min" in text  # 20 µs vs 1 ms a row
    assert "14.6 MiB of submissions" in text


def test_costs_from_says_what_is_missing() -> None:
    after = Version("after", "code", Path("/nowhere"))
    costs, missing = gb.costs_from(after, gb.Extras(), 2)
    assert costs is None
    assert "the probe of the cluster" in missing and "the gradebook's costs" in missing
    text = "\n".join(gb.projection_section(after, gb.Extras(), 2))
    assert text.startswith("Not projected: not measured:")


def test_report_has_the_cluster_row_costs_and_projection() -> None:
    before = _version("before", 0.6, 60.0, "correct")
    after = _version("after", 0.06, 20.0, "correct")
    keys = list(after.cli.grades) if after.cli else []
    after.grading_only = CliRun(18.0, dict.fromkeys(keys, "correct"), {})
    cluster = gb.ClusterSide(2, started=3.0, admitted=0.5, closed=0.4)
    cluster.cli = CliRun(30.0, dict.fromkeys(keys, "correct"), {})
    cluster.grading_only = CliRun(24.0, dict.fromkeys(keys, "wrong"), {})
    cluster.probe = gb.Probe(2000, 1.0, 10.0, 4.0, 6.0, 300, 1.5)
    book = gb.BookCosts(2000, 0.00002, 0.0004, 0.0004, 0.00002, "ext4")
    extras = gb.Extras(cluster, book, gb.Sizes([1000, 2000], 271, 700_000))
    text = gb.markdown(before, "", after, _setup(), [], extras)
    assert "| after | b. command line, LocalCluster(2 workers) | 2 | 30.0 s | 4.0 | 3.5 s |" in text
    assert "| before | b. command line, local pool, 2 jobs | 2 | 60.0 s | 2.0 |  |" in text
    assert "| scheduler: its CPU per task | 3 ms |" in text
    assert "| gradebook: per run (get + claim + put) | 820 µs |" in text
    assert "| shipping: a submission | 1.5 KiB |" in text
    assert "## Projection: 300 students x 271 tests" in text
    assert "### At 10,000 students" in text
    # the cluster graded differently in c.: the report says so, run by run
    assert "differ from the local pool's (c. grading only)" in text
    assert "- alice: test001: correct -> wrong" in text


# --- real SQLite --------------------------------------------------------------------------


def test_gradebook_costs_on_a_real_file(tmp_path: Path) -> None:
    book = gb.book_costs(tmp_path, 30)
    assert book.count == 30
    assert min(book.get, book.claim, book.put, book.batched) > 0
    assert book.per_run == pytest.approx(book.get + book.claim + book.put)
    assert book.filesystem != "unknown"


def test_bulk_rows_are_what_put_writes(tmp_path: Path) -> None:
    """The bulk-insert figure is only worth quoting if it writes the same rows."""
    from plpuzzle.sudoku.services.gradebook import Gradebook

    sub = gb._class()[0]
    keys = [(sub, "test001"), (sub, "test002")]
    gb.batched_puts(tmp_path / "bulk.sqlite", keys, "t" * 16, "s" * 16)
    with Gradebook(tmp_path / "bulk.sqlite") as book:
        got = book.get(sub, "test002", "t" * 16, "s" * 16)
        assert book.count() == 2
    assert got == gb.sample_grade(sub.student, "test002")


def test_shipping_sizes_weigh_the_class_and_the_suite(hand_made_suite: Path) -> None:
    sizes = gb.shipping_sizes(hand_made_suite)
    assert len(sizes.submissions) == len(gb._class())
    assert min(sizes.submissions) > 0
    assert sizes.goals_tests == len(list(hand_made_suite.glob("*d.txt")))
    assert sizes.goals > 100 * sizes.goals_tests  # a 9x9 goal term is well over 100 bytes


# --- a real cluster -----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.sandbox
def test_trivial_tasks_and_payloads_go_through_a_real_cluster(hand_made_suite: Path) -> None:
    from clusters import cluster

    from plpuzzle.cluster.client_side import admit
    from plpuzzle.sudoku.services.suite import discover

    subs, cases = gb._class()[:2], discover(hand_made_suite)[:3]
    with cluster(1) as (_, client):
        admit(client)
        before = client.run_on_scheduler(gb.process_seconds)
        submitted, through = gb.push_trivial(client, subs, cases, 12, 5.0)
        took = gb.scatter_payloads(client, subs, 4)
        after = client.run_on_scheduler(gb.process_seconds)
    assert 0 < submitted <= through
    assert took > 0
    assert after > before  # the scheduler did work for those tasks
