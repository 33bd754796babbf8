"""The lab's capacity bench of the service (`make bench-service`): replay
hand-ins spend what they are told to, the report says each goal met or
missed, and a tiny class goes end to end through a real `plpuzzle sudoku
serve` and `sudoku grade`. No assertion looks at a time: the figures are
the bench's to print, whatever the machine's load."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from run_plpuzzle import lab

from plpuzzle.sudoku import api
from plpuzzle_lab import service_bench, service_costs, service_replay
from plpuzzle_lab.service_bench import (
    BenchSettings,
    Burst,
    Figures,
    Flood,
    Graded,
    Latencies,
    SignInFlood,
)


def test_percentiles_are_nearest_rank() -> None:
    values = [float(n) for n in range(20, 0, -1)]
    assert service_bench.percentile(values, 0.5) == 10.0
    assert service_bench.percentile(values, 0.95) == 19.0
    assert service_bench.percentile([7.0], 0.95) == 7.0


def tiny_suite(official: Path, folder: Path, tests: tuple[str, ...]) -> Path:
    folder.mkdir()
    for test in tests:
        for kind in "ds":
            shutil.copy(official / f"{test}{kind}.txt", folder)
    return folder


@pytest.mark.sandbox
def test_a_replay_hand_in_spends_what_its_profile_says_then_fails(
    official_suite: Path, tmp_path: Path
) -> None:
    suite = tiny_suite(official_suite, tmp_path / "suite", ("test001", "test002", "test003"))
    found = service_replay.puzzles(suite)
    costs = {"test001": 0.0, "test002": 40.0, "test003": 500.0}  # the last: out of time
    text = service_replay.solver_text("t", costs, 0.01, found, limit=60.0)
    (tmp_path / "class" / "x").mkdir(parents=True)
    (tmp_path / "class" / "x" / "sudoku.pl").write_text(text)
    outcome = api.grade(tmp_path / "class", suite, out=tmp_path / "out", rules="oddsum",
                        time_limit=10, feedback=False, similarity=False,
                        requirements=False)  # fmt: skip
    got = {r["test"]: r for r in outcome.report["students"][0]["results"]}
    assert got["test002"]["cpu_seconds"] >= 0.4  # 40 s times 0.01
    assert got["test003"]["cpu_seconds"] >= 0.6  # at most the limit, 60 s times 0.01
    assert {r["grade"] for r in got.values()} == {"wrong"}  # it fails: no solution given


def test_the_replay_key_tells_every_official_test_apart(official_suite: Path) -> None:
    found = service_replay.puzzles(official_suite)
    depth = service_replay.depth_needed(found)
    assert len({service_replay.key(p, depth) for p in found.values()}) == len(found)


def test_the_reference_profile_is_the_courses_own_timings(official_suite: Path) -> None:
    profile = service_costs.reference_profile(official_suite.parent / "reference-times.csv")
    assert len(profile.costs) == 271 and profile.timeouts == 32
    assert profile.total == pytest.approx(402.18 + 32 * 120, abs=0.01)


def burst(where: str, graded_once: int, public: float) -> Burst:
    return Burst(where, Latencies(), {"s001": public, "s002": public}, {"s001": 9.0, "s002": 9.0},
                 100.0, 180.0, graded_once, 2, [], {"s001": 0.0, "s002": 0.0}, 0)  # fmt: skip


def figures(grade_seconds: float, page: float, flooded: float) -> Figures:
    settings = BenchSettings(Path("suite"), students=2)
    pages = Latencies()
    for kind in ("student /me", "student /uploads/ID"):
        pages.add(kind, page)
    profile = service_costs.Profile("reference", "the reference", {"test001": 1.0}, 0)
    return Figures(settings, {"reference": profile}, {"reference": 2}, 271, 9,
                   burst("this machine", 2, 4.0), Graded(grade_seconds, 150.0, {"s001": 0.0}),
                   burst("a local Dask cluster of 2 workers", 1, 5.0), Flood(10.0, flooded, 15, 12),
                   SignInFlood(pages, {401: 30, 429: 900}), None, {"at the end": "1.00"},
                   ["- CPU: test"], "commit x")  # fmt: skip


def test_each_goal_is_said_met_or_missed() -> None:
    text = service_bench.markdown(figures(grade_seconds=50.0, page=0.5, flooded=30.0))
    goals = text.split("## Goals", 1)[1]
    flood = "a student's pages at p95 under 300 ms while 32 clients flood /signin"
    assert f"| {flood} | p95 500 ms | **NO** |" in goals
    assert "30.0 s against 10.0 s alone | **NO** |" in goals
    assert "| throughput at least 90% of `sudoku grade` | 50% | **NO** |" in goals
    assert "| every upload graded once (this machine) | 2 of 2 | yes |" in goals
    assert (
        "| every upload graded once (a local Dask cluster of 2 workers) | 1 of 2 | **NO** |"
        in goals
    )
    assert "The service graded at 50% of the rate of `sudoku grade`." in text
    assert "30 answered 401, 900 answered 429" in text
    met = service_bench.markdown(figures(grade_seconds=100.0, page=0.05, flooded=15.0))
    goals = met.split("## Goals", 1)[1]
    assert goals.count("**NO**") == 1  # only the Dask burst's upload graded twice


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_tiny_class_goes_end_to_end(official_suite: Path, tmp_path: Path) -> None:
    suite = tiny_suite(official_suite, tmp_path / "suite",
                       ("test001", "test002", "test050", "test100"))  # fmt: skip
    out = tmp_path / "report" / "SERVICE.md"
    run = lab("service", out, "--students", "3", "--suite", suite, "--jobs", "2", "--scale",
              "0.002", "--public", "test001", "--probers", "1", "--no-dask", "--no-flood",
              "--no-signin", "--loopers", "2", cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    text = run.stdout
    assert out.read_text() == text
    assert text.startswith("# The deadline rush, replayed at the course's cost\n")
    for part in ("## What was measured", "### Machine", "## 3 uploads at once",
                 "### Pages while the class grades (this machine)",
                 "### Throughput beside `sudoku grade`", service_bench.BESIDE_TITLE,
                 "## How many cores: the queueing model", "## Goals"):  # fmt: skip
        assert f"\n{part}\n" in text, part
    # Two loopers show the scenario whole, as ten would: both waits, the turns.
    waited = r"\| [\d.]+ (s|min) \|"
    assert re.search(rf"^\| alone {waited} 0 \|$", text, re.M), text
    turns = r"\d+ \(at most \d+ of one student\)"
    assert re.search(rf"^\| beside 2 looping students {waited} {turns} \|$", text, re.M), text
    assert re.search(r"^\| this machine \| 3 \| 3 \| ", text, re.M), text
    assert "The scores agree for 3 of 3 students." in text
    assert "| every upload graded once (this machine) | 3 of 3 | yes |" in text
    for scenario in ("spread", "rush", "last hour"):
        assert re.search(rf"^\| {scenario} \| \d+ \| ", text, re.M), scenario


def test_the_kept_costs_cover_the_official_suite() -> None:
    data = json.loads(service_costs.COSTS.read_text())
    assert set(data["profiles"]) >= {"reference", "clpfd-strong", "clpfd-plain", "search",
                                     "generate-and-test"}  # fmt: skip
    assert all(len(p["costs"]) == 271 for p in data["profiles"].values())
