"""`plpuzzle sudoku bench`: the results table, the report and the plot."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from run_plpuzzle import plpuzzle

from plpuzzle.engine import Worker
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.services import bench
from plpuzzle.sudoku.services.bench import BenchRun, BenchSettings, Row, SuiteSpec
from plpuzzle.sudoku.services.suite import Verdict

REPO = Path(__file__).resolve().parents[2]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

REFERENCE_CSV = """test,K,solutions,prolog_seconds,prolog_verdict,erlang_seconds,erlang_verdict
test001,2,1,0.000,correct,0.0,correct
test140,4,7,,timeout,78.0,correct
test228,5,,,timeout,,timeout
"""


# --- the course's reference times -----------------------------------------------


def test_reference_times_keep_timeouts_as_missing_seconds() -> None:
    refs = bench.parse_reference(REFERENCE_CSV)
    assert set(refs) == {"test001", "test140", "test228"}
    assert refs["test001"].prolog_seconds == 0.0
    assert (refs["test140"].k, refs["test140"].solutions) == (4, 7)
    assert (refs["test140"].prolog_seconds, refs["test140"].prolog_verdict) == (None, "timeout")
    assert (refs["test140"].erlang_seconds, refs["test140"].erlang_verdict) == (78.0, "correct")
    assert refs["test228"].solutions is None
    assert refs["test228"].erlang_seconds is None


def test_a_malformed_reference_row_names_its_line() -> None:
    text = REFERENCE_CSV + "test229,five,1,0.1,correct,0.1,correct\n"
    with pytest.raises(ValueError, match="line 5"):
        bench.parse_reference(text)


def test_the_official_reference_times_are_the_spec_figures(official_suite: Path) -> None:
    refs = bench.load_reference(official_suite / "reference-times.csv")
    assert len(refs) == 271
    verdicts = [r.prolog_verdict for r in refs.values()]
    assert (verdicts.count("correct"), verdicts.count("timeout")) == (239, 32)
    verdicts = [r.erlang_verdict for r in refs.values()]
    assert (verdicts.count("correct"), verdicts.count("timeout")) == (264, 7)
    per_k = [sum(1 for r in refs.values() if r.k == k) for k in range(2, 7)]
    assert per_k == [24, 75, 74, 74, 24]


# --- the report from known results (no engine runs) -------------------------------


def _row(test: str, engine: str, verdict: Verdict, cpu: float | None, k: int = 4) -> Row:
    return Row("official", test, engine, k, 7, 7, verdict, cpu, cpu, 30.0)


def _known_run(tmp_path: Path) -> BenchRun:
    settings = BenchSettings(
        suites=(SuiteSpec("official", tmp_path, Rules.ODDSUM),),
        time_limit=60.0,
        out_dir=tmp_path / "out",
    )
    rows = [
        _row("test140", "prolog", Verdict.CORRECT, 1.5),
        _row("test140", "python", Verdict.TIMEOUT, None),
        _row("test228", "prolog", Verdict.WRONG, 0.25, k=5),
        _row("test228", "python", Verdict.CORRECT, 0.02, k=5),
    ]
    return BenchRun(settings, [("CPU", "test machine")], rows, bench.parse_reference(REFERENCE_CSV))


def test_tallies_count_correct_answers_within_each_threshold(tmp_path: Path) -> None:
    prolog, python, course_prolog, course_erlang = bench.tallies(_known_run(tmp_path), "official")
    assert [prolog.within(t) for t in (1, 10, 60, 120)] == [0, 1, 1, None]  # limit is 60 s
    assert (prolog.correct, prolog.timeouts) == (1, 0)
    assert (python.correct, python.timeouts, python.within(1)) == (1, 1, 1)
    assert (course_prolog.correct, course_prolog.timeouts) == (0, 2)
    assert [course_erlang.within(t) for t in (1, 10, 60, 120)] == [0, 0, 0, 1]


def test_the_report_shows_timeouts_and_wrong_answers(tmp_path: Path) -> None:
    text = bench.render_report(_known_run(tmp_path), "plot.png")
    assert "| test140 | 7 | 1.500 | timeout | timeout | 78.000 |" in text
    assert "| test228 | 7 | **wrong** 0.250 | 0.020 | timeout | timeout |" in text
    assert "| ours: prolog | 1/2 | 0 | 1 | 1 | - | 0 | 30 MB |" in text
    assert "![Per-test CPU seconds by K](plot.png)" in text
    assert "Not measured" in text  # no overhead figures in this run


def test_the_csv_leaves_the_time_of_a_timeout_empty(tmp_path: Path) -> None:
    rows = list(csv.DictReader(bench.to_csv(_known_run(tmp_path).rows).splitlines()))
    assert [r["verdict"] for r in rows] == ["correct", "timeout", "wrong", "correct"]
    assert rows[1]["cpu_seconds"] == ""
    assert float(rows[0]["cpu_seconds"]) == 1.5


def test_the_plot_is_a_png(tmp_path: Path) -> None:
    run = _known_run(tmp_path)
    path = tmp_path / "plot.png"
    bench.write_plot(bench.plot_series(run, "official"), "title", path)
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 10_000


def test_overhead_picks_tiny_and_large_tests() -> None:
    rows = [
        _row("test001", "prolog", Verdict.CORRECT, 0.01, k=2),
        _row("test002", "prolog", Verdict.CORRECT, 0.02, k=2),
        _row("test140", "prolog", Verdict.CORRECT, 3.0),
        _row("test141", "prolog", Verdict.CORRECT, 30.0),  # over the cap
        _row("test142", "prolog", Verdict.WRONG, 2.0),
        _row("test143", "python", Verdict.CORRECT, 5.0),
        _row("test144", "prolog", Verdict.CORRECT, 1.0),
    ]
    tiny, large = bench.pick_overhead_cases(rows, count=2, cap=20.0)
    assert [r.test for r in tiny] == ["test001", "test002"]
    assert [r.test for r in large] == ["test140", "test144"]


@pytest.mark.parametrize(
    ("pyswip_wall", "load", "words"),
    [
        (2.1, 0.0, "+5.0 % extra wall time (goal ≤ 10 %: met)"),
        (2.4, 0.0, "+20.0 % extra wall time (goal ≤ 10 %: NOT met)"),
        (2.1, 1000.0, "(goal ≤ 10 %: not judged, busy machine)"),
    ],
)
def test_the_overhead_is_judged_against_its_goal(
    tmp_path: Path, pyswip_wall: float, load: float, words: str
) -> None:
    run = _known_run(tmp_path)
    run.overhead = [
        bench.Overhead("test001", 2, "tiny", 1, 20, 0.002, 0.002, 0.002, 0.005),
        bench.Overhead("test140", 4, "large", 7, 3, 2.0, 2.0, 2.0, pyswip_wall),
    ]
    run.overhead_load = (load, load, load)
    text = bench.render_report(run, "plot.png")
    assert "| test001 | tiny | 2 | 1 | 20 | 0.002 | 0.002 | 0.002 | 0.005 | +3.0 |" in text
    assert "- Tiny tests: at most 3.0 ms extra wall time per test" in text
    assert words in text
    assert ("The machine was busy" in text) == (load > 100)


# --- the worker's peak memory ------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux only")
def test_the_worker_reports_each_requests_own_peak_memory() -> None:
    allocate = {"op": "call", "function": "worker_hooks:allocate"}
    small = {"op": "call", "function": "plpuzzle.sudoku.domain.model:box_cells"}
    with Worker() as worker:
        worker.request({**allocate, "kwargs": {"megabytes": 200}}, 60)
        big = worker.peak_rss_kb
        worker.request({**small, "kwargs": {"box": 0, "k": 2}}, 60)
        after = worker.peak_rss_kb
    assert big is not None and big > 200 * 1024
    assert after is not None and after < 150 * 1024


# --- the command on a slice of both suites -----------------------------------------


@pytest.fixture(scope="module")
def slice_run(official_suite: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two K=2 official tests and two bundled ones, both engines, one job."""
    out = tmp_path_factory.mktemp("bench")
    run = plpuzzle(
        "sudoku",
        "bench",
        "--suite",
        official_suite / "tests",
        "--only",
        "test00[12]",
        "--jobs",
        "1",
        "--time-limit",
        "60",
        "--out",
        out,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "official / prolog: 2 tests: 2 correct" in run.stdout
    return out


@pytest.mark.slow
def test_the_csv_has_a_row_per_suite_test_and_engine(slice_run: Path) -> None:
    with (slice_run / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(bench.CSV_FIELDS)
    keys = [(r["suite"], r["test"], r["engine"]) for r in rows]
    assert keys == [
        (suite, test, engine)
        for suite in ("official", "consecutive")
        for test in ("test001", "test002")
        for engine in ("prolog", "python")
    ]
    assert {r["verdict"] for r in rows} == {"correct"}
    assert {r["K"] for r in rows} == {"2"}
    expected = {(r["suite"], r["test"]): r["expected_solutions"] for r in rows}
    assert expected == {
        ("official", "test001"): "1",
        ("official", "test002"): "1",
        ("consecutive", "test001"): "1",
        ("consecutive", "test002"): "4",
    }
    for r in rows:
        assert r["solutions"] == r["expected_solutions"]
        assert float(r["cpu_seconds"]) >= 0
        assert float(r["wall_seconds"]) > 0
        assert float(r["peak_rss_mb"]) > 5  # a Python process at least


@pytest.mark.slow
def test_the_report_has_every_section(slice_run: Path) -> None:
    text = (slice_run / "REPORT.md").read_text()
    for needle in (
        "## Machine",
        "- CPU: ",
        "- RAM: ",
        "- OS: ",
        "- Python: ",
        "- SWI-Prolog: SWI-Prolog version",
        "- pyswip: 0.",
        "- Date: ",
        "## Settings",
        "- Time limit: 60 s",
        "## Solved within 1/10/60/120 s (official suite, 2 tests)",
        "| ours: prolog | 2/2 |",
        "| ours: python | 2/2 |",
        "| course Prolog (SICStus) | 2/2 |",
        "| course Erlang | 2/2 |",
        "![Per-test CPU seconds by K](times-by-k.png)",
        "### K = 2 (2 tests)",
        "## The slowest 10 per engine",
        "## The consecutive set",
        "2 tests (prolog: 2/2 correct, python: 2/2 correct)",
        "## Interop overhead: plain swipl against pyswip",
        "The fair comparison",
        "| test001 | tiny | 2 | 1 | 20 |",
        "- Tiny tests: at most",
    ):
        assert needle in text, needle


@pytest.mark.slow
def test_the_plot_of_a_run_is_a_png(slice_run: Path) -> None:
    data = (slice_run / "times-by-k.png").read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 10_000


def test_a_missing_suite_is_a_clean_error(tmp_path: Path) -> None:
    run = plpuzzle("sudoku", "bench", "--suite", tmp_path / "nope", "--out", tmp_path / "out")
    assert run.returncode == 2
    assert "no such suite folder" in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "out").exists()


def test_an_unknown_engine_is_a_clean_error(official_suite: Path, tmp_path: Path) -> None:
    run = plpuzzle(
        "sudoku", "bench", "--suite", official_suite / "tests", "--engines", "prolog,java"
    )
    assert run.returncode == 2
    assert "--engines" in run.stderr
    assert "Traceback" not in run.stderr
