"""The lab's service benchmark (`make bench-service`): a tiny class end to
end through a real `plpuzzle sudoku serve` and `sudoku grade`, and the
report's parts. No assertion looks at a time: the figures are the
bench's to print, whatever the machine's load."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from run_plpuzzle import lab

from plpuzzle_lab import service_bench
from plpuzzle_lab.service_bench import PAGES, UPLOAD_KIND, BenchSettings, Figures, Latencies, Once

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "grading_suite"


def test_percentiles_are_nearest_rank() -> None:
    values = [float(n) for n in range(20, 0, -1)]
    assert service_bench.percentile(values, 0.5) == 10.0
    assert service_bench.percentile(values, 0.95) == 19.0
    assert service_bench.percentile([7.0], 0.95) == 7.0


def figures(service: float | None, grade: float | None, page: float) -> Figures:
    pages = Latencies()
    for kind in PAGES:
        pages.add(kind, page)
    once = Once(sent=2, accepted=2, rows=2, done_first_attempt=2, one_reports_folder=2, refused=[])
    return Figures(BenchSettings(students=2), 6, {"alice": 2}, pages, once, service, grade,
                   (2, 2), 0, {"at the end": "1.00"}, ["- CPU: test"])  # fmt: skip


def test_a_missed_goal_is_printed_as_missed() -> None:
    text = service_bench.markdown(figures(service=100.0, grade=50.0, page=0.5))
    assert "The service graded at 50% of the rate of `sudoku grade` (it cost 50%)." in text
    goals = text.split("## Goals", 1)[1]
    assert goals.count("**NO**") == 2  # pages and throughput; the uploads were graded once
    assert "worst p95 500 ms" in goals


def test_a_phase_that_did_not_finish_is_said() -> None:
    text = service_bench.markdown(figures(service=None, grade=50.0, page=0.01))
    assert "| the service, first upload to last graded | 2 | 12 | not finished | - |" in text
    assert "| not finished | n/a |" in text


@pytest.mark.sandbox
def test_a_tiny_class_is_served_graded_and_reported(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ("test001d.txt", "test001s.txt"):
        (suite / name).write_bytes((SUITE / name).read_bytes())
    out = tmp_path / "report" / "SERVICE.md"
    args = ("--students", "3", "--suite", suite, "--jobs", "2", "--time-limit", "2",
            "--shrink-seconds", "0", "--probers", "2")  # fmt: skip
    run = lab("service", out, *args, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    text = run.stdout
    assert out.read_text() == text
    assert text.startswith("# The submission service under load\n")
    for part in ("## What was measured", "### Machine", "### Pages while the class grades",
                 "### Grading throughput", "### Every upload graded once", "## Goals"):  # fmt: skip
        assert f"\n{part}\n" in text, part
    assert "alice x1, dave x1, grace x1" in text
    assert "(1 test)" in text
    for kind in [*PAGES, UPLOAD_KIND]:
        assert re.search(rf"^\| {re.escape(kind)} \| \d+ \| \d+ \|", text, re.M), kind
    assert re.search(r"^\| the service, first upload to last graded \| 3 \| 3 \| [\d.]+ s \|",
                     text, re.M)  # fmt: skip
    assert re.search(r"^\| `plpuzzle sudoku grade`, the whole command \| 3 \| 3 \| [\d.]+ s \|",
                     text, re.M)  # fmt: skip
    assert (
        "3 uploads sent, 3 accepted, 3 rows in the service's uploads table, 3 done at their "
        "first attempt (attempt 0), 3 with one grading's reports (reports/ID/0 only): every "
        "upload graded exactly once." in text
    )
    assert "Every page kind together: while the uploads were being taken" in text
    assert "agree on 3 of 3 students" in text
    assert "The service's log: 0 traceback(s)." in text
    assert "| every upload graded exactly once | 3 of 3 | yes |" in text
    goals = text.split("## Goals", 1)[1]
    assert re.search(r"^\| every page kind's p95 .* \| (yes|\*\*NO\*\*) \|$", goals, re.M)
    assert re.search(r"^\| the service keeps .* \| (yes|\*\*NO\*\*) \|$", goals, re.M)
