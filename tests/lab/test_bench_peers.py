"""`make bench` with the classical peers, Gecode and Choco, beside CP-SAT:
which engines run, the ratios and targets against a peer other than
CP-SAT, and what the report and the terminal show of them (known figures,
no engine runs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_rows import bench_run, row
from bench_rows import target as target_named
from click.testing import CliRunner

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.runs.suite import Verdict
from plpuzzle_lab import (
    bench,
    bench_markdown,
    bench_model,
    bench_output,
    bench_plot,
    bench_ratios,
    cli,
)
from plpuzzle_lab.bench_model import Retime

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "puzzles" / "sudoku" / "consecutive"

#: The suites of the Gecode goals.
SUITES = ("official", "consecutive", "stress-consecutive", "stress-oddsum")


# --- which engines run ------------------------------------------------------------


def test_the_peers_are_peers_and_ours_are_ours() -> None:
    settings = bench_model.BenchSettings(suites=())
    assert settings.engines == ("prolog", "python", "cpsat", "gecode", "choco")
    assert settings.ours == ("prolog", "python")
    assert settings.peers == ("cpsat", "gecode", "choco")
    assert bench_model.engine_label("gecode") == "peer: gecode"
    assert bench_model.engine_label("choco") == "peer: choco"
    assert bench_model.engine_label("prolog") == "ours: prolog"


def test_a_missing_peer_is_left_out_of_the_default_run_with_a_note(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(bench, "missing_peers", lambda: {"choco": "no `pychoco` (pip ...)"})
    settings, _, _ = bench.plan(
        suite=BUNDLED,
        rules=Rules.CONSECUTIVE,
        consecutive=BUNDLED,
        engines=None,
        jobs=1,
        time_limit=10.0,
        only="test001",
        out_dir=tmp_path / "out",
        reference=None,
        overhead=False,
        stress=None,
    )
    assert settings.engines == ("prolog", "python", "cpsat", "gecode")
    assert "no `pychoco` (pip ...): the peer choco was skipped" in settings.notes
    run = bench_model.BenchRun(settings, [("CPU", "test machine")], [], {})
    report = bench_markdown.render_report(run, "plot.png")
    assert "- Note: no `pychoco` (pip ...): the peer choco was skipped" in report


def test_a_missing_peer_named_explicitly_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bench, "missing_peers", lambda: {"gecode": "no `fzn-gecode` on PATH"})
    with pytest.raises(bench.BenchRequestError, match="gecode cannot run here: no `fzn-gecode`"):
        bench.engine_names("prolog,gecode")
    # Not named, not in the way; named, refused before anything runs.
    assert bench.engine_names("prolog,choco") == (["prolog", "choco"], [])
    result = CliRunner().invoke(
        cli.lab, ["sudoku", "--suite", str(BUNDLED), "--engines", "prolog,gecode"]
    )
    assert result.exit_code == 2
    assert "--engines: gecode cannot run here: no `fzn-gecode` on PATH" in result.output


def test_engines_name_gecode_and_choco(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "missing_peers", dict)
    names, notes = bench.engine_names(" Gecode,choco,gecode ")
    assert (names, notes) == (["gecode", "choco"], [])
    with pytest.raises(bench.BenchRequestError, match="choose from prolog, python, cpsat, gecode"):
        bench.engine_names("minion")


# --- ratios and targets against Gecode -------------------------------------------


def _gecode_rows(stress_oddsum_prolog: float) -> list[bench_model.Row]:
    """Every suite of the Gecode goals, with CP-SAT, Gecode and Choco."""
    out = []
    for suite, test, prolog, gecode in (
        ("official", "test001", 3.0, 1.0),  # 3x
        ("official", "test002", 0.5, 0.5),  # official total 3.5 / 1.5 = 2.33x: over 2x
        ("consecutive", "test001", 1.0, 0.5),
        ("stress-consecutive", "test001", 2.0, 1.0),
        ("stress-oddsum", "test001", stress_oddsum_prolog, 1.0),
    ):
        out += [
            row(suite, test, "prolog", prolog),
            row(suite, test, "python", 0.1),
            row(suite, test, "cpsat", prolog),  # 1x CP-SAT: every CP-SAT goal met
            row(suite, test, "gecode", gecode),
            row(suite, test, "choco", 2 * gecode),
        ]
    return out


def test_ratios_against_gecode_use_gecodes_rows_and_no_re_timing() -> None:
    rows = [
        *_gecode_rows(4.0),
        row("official", "test003", "prolog", 1.0),
        row("official", "test003", "gecode", 0.2, Verdict.WRONG),
    ]
    again = Retime("official", "test001", "prolog", 3.0, (0.1,), (1.0,))  # a CP-SAT re-timing
    ratios = bench_ratios.ratios_for(rows, "official", "prolog", [again], peer="gecode")
    assert ratios.peer == "gecode"
    assert [(t.test, t.ratio) for t in ratios.tests] == [("test001", 3.0), ("test002", 1.0)]
    assert ratios.total == pytest.approx(3.5 / 1.5)
    assert [str(f) for f in ratios.failures] == ["test003 (gecode: wrong)"]
    assert ratios.engine_failures == []
    # Against CP-SAT the same re-timing counts.
    cpsat = bench_ratios.ratios_for(rows, "official", "prolog", [again])
    assert cpsat.peer == "cpsat" and cpsat.tests[0].retimed


def test_the_gecode_targets_sum_the_consecutive_style_suites(tmp_path: Path) -> None:
    run = bench_run(tmp_path, _gecode_rows(4.0), suites=SUITES)
    styled = target_named(run, "prolog total ≤ 3x Gecode")
    assert styled.name == (
        "prolog total ≤ 3x Gecode, consecutive, stress-consecutive and stress-oddsum suites"
    )
    # (1 + 2 + 4) / (0.5 + 1 + 1): the official suite is not in it.
    assert (styled.status, styled.measured) == ("met", "2.80x (7.000 s / 2.500 s)")
    each = target_named(run, "prolog ≤ 10x Gecode on every puzzle of the consecutive")
    assert (each.status, each.measured) == ("met", "worst 4.00x (stress-oddsum/test001)")
    official = target_named(run, "prolog total ≤ 2x Gecode, official suite")
    assert (official.status, official.measured) == ("not met", "2.33x (3.500 s / 1.500 s)")
    assert official.note == "1.17 times the goal"
    official_each = target_named(run, "prolog ≤ 10x Gecode on every puzzle of the official suite")
    assert (official_each.status, official_each.measured) == (
        "met",
        "worst 3.00x (official/test001)",
    )
    for name in ("prolog total ≤ 3x CP-SAT", "prolog ≤ 20x CP-SAT", "prolog ≤ 30x CP-SAT"):
        assert target_named(run, name).status == "met", name


def test_a_gecode_target_is_missed_by_one_puzzle_or_one_failure(tmp_path: Path) -> None:
    rows = _gecode_rows(12.0)  # 12x Gecode on stress-oddsum/test001
    rows += [
        row("stress-consecutive", "test002", "prolog", None, Verdict.TIMEOUT),
        row("stress-consecutive", "test002", "gecode", 0.1),
    ]
    run = bench_run(tmp_path, rows, suites=SUITES)
    styled = target_named(run, "prolog total ≤ 3x Gecode")
    assert (styled.status, styled.measured) == ("not met", "6.00x (15.000 s / 2.500 s)")
    assert "failed, counted apart: stress-consecutive/test002 (prolog: timeout)" in styled.note
    each = target_named(run, "prolog ≤ 10x Gecode on every puzzle of the consecutive")
    assert each.status == "not met"
    assert each.note.startswith("1 of 3 over: stress-oddsum/test001 12.0x")


def test_without_gecode_its_targets_are_not_measured(tmp_path: Path) -> None:
    rows = [r for r in _gecode_rows(4.0) if r.engine != "gecode"]
    engines = ("prolog", "python", "cpsat", "choco")
    run = bench_run(tmp_path, rows, suites=SUITES, engines=engines)
    for start in ("prolog total ≤ 3x Gecode", "prolog ≤ 10x Gecode", "prolog total ≤ 2x Gecode"):
        target = target_named(run, start)
        assert (target.status, target.note) == ("not measured", "Gecode was not run"), start
    assert target_named(run, "prolog total ≤ 3x CP-SAT").status == "met"


def test_a_ratio_goal_must_name_a_peer_of_the_bench() -> None:
    goal = bench_ratios.ratio_goal({"engine": "prolog", "each": 10.0, "peer": "gecode"})
    assert (goal.peer, goal.total_suites) == ("gecode", ("official",))
    assert bench_ratios.ratio_goal({"engine": "prolog", "each": 1.0}).peer == "cpsat"
    with pytest.raises(ValueError, match="peer 'minion'"):
        bench_ratios.ratio_goal({"engine": "prolog", "each": 10.0, "peer": "minion"})


def test_the_issues_gecode_goals_are_in_the_targets() -> None:
    gecode = [g for g in bench_ratios.RATIO_GOALS if g.peer == "gecode"]
    assert [(g.engine, g.total, g.each, g.suites) for g in gecode] == [
        ("prolog", 3.0, 10.0, ("consecutive", "stress-consecutive", "stress-oddsum")),
        ("prolog", 2.0, 10.0, ("official",)),
    ]
    # Re-timing stays with the CP-SAT goals.
    assert bench_ratios.per_puzzle_goal("prolog", "official") == 20.0
    assert bench_ratios.per_puzzle_goal("prolog", "official", peer="gecode") == 10.0


# --- what the report and the terminal show ---------------------------------------


def _peer_run(tmp_path: Path) -> bench_model.BenchRun:
    rows = [
        *_gecode_rows(12.0),
        # Choco wrong on one test: out of every total, counted apart.
        row("official", "test003", "prolog", 1.0),
        row("official", "test003", "python", 1.0),
        row("official", "test003", "cpsat", 1.0),
        row("official", "test003", "gecode", 1.0),
        row("official", "test003", "choco", 1.0, Verdict.WRONG),
    ]
    run = bench_run(tmp_path, rows, suites=SUITES)
    run.peer_versions = {"gecode": "Gecode 6.2.0", "choco": "pychoco 0.4.0"}
    return run


def test_the_totals_sum_the_tests_every_engine_solved(tmp_path: Path) -> None:
    totals = {t.suite: t for t in bench_ratios.suite_totals(_peer_run(tmp_path))}
    official = totals["official"]
    assert (official.tests, official.left_out) == (2, 1)
    assert official.seconds == pytest.approx(
        {"prolog": 3.5, "python": 0.2, "cpsat": 3.5, "gecode": 1.5, "choco": 3.0}
    )
    assert totals["stress-oddsum"].seconds["prolog"] == pytest.approx(12.0)


def test_the_report_sets_our_totals_beside_gecode_and_choco(tmp_path: Path) -> None:
    text = bench_markdown.render_report(_peer_run(tmp_path), "plot.png")
    assert "## Beside Gecode and Choco" in text
    assert "- **Gecode** (Gecode 6.2.0): `fzn-gecode -a -p 1`" in text
    assert "`all_different_int` with domain consistency" in text
    assert "`gecode_table_int`" in text
    assert "- **Choco** (pychoco 0.4.0): the same plain model through pychoco" in text
    assert "Choco's default search" in text
    assert (
        "| suite | tests | peer: cpsat | peer: gecode | peer: choco | ours: prolog | ours: python "
        "| not solved by all |"
    ) in text
    assert "| official | 2 | 3.500 | 1.500 | 3.000 | 3.500 | 0.200 | 1 |" in text
    assert (
        "| official | prolog | gecode | 3 | 1.80x (4.500 s / 2.500 s) | 1.00x | 3.00x (test001) "
        "| 0 |"
    ) in text
    assert (
        "| official | prolog | choco | 2 | 1.17x (3.500 s / 3.000 s) | 1.00x | 1.50x (test001) "
        "| 1: test003 (choco: wrong) |"
    ) in text
    assert (
        "| prolog total ≤ 3x Gecode, consecutive, stress-consecutive and stress-oddsum suites "
        "| 6.00x (15.000 s / 2.500 s) | not met | 2.00 times the goal |"
    ) in text
    assert "| prolog ≤ 10x Gecode on every puzzle of the official suite |" in text
    assert "the ratios to Gecode and Choco, and the targets against Gecode, are those of" in text
    assert "| peer: gecode | 3/3 |" in text  # a series of the summary table


def test_the_terminal_prints_a_totals_line_per_suite(tmp_path: Path) -> None:
    lines = bench_output.report_lines(_peer_run(tmp_path))
    assert "suite               tests  cpsat   gecode  choco  prolog  python  left out" in lines
    assert "official            2      3.500   1.500   3.000  3.500   0.200   1" in lines
    assert "stress-oddsum       1      12.000  1.000   2.000  12.000  0.100   0" in lines
    text = "\n".join(lines)
    assert "Engine / Gecode, first pass" in text
    assert "Engine / Choco, first pass" in text
    assert "prolog ≤ 10x Gecode on every puzzle of the official suite" in text


def test_without_gecode_and_choco_the_report_says_so(tmp_path: Path) -> None:
    rows = [r for r in _gecode_rows(4.0) if r.engine not in ("gecode", "choco")]
    run = bench_run(tmp_path, rows, suites=SUITES, engines=("prolog", "python", "cpsat"))
    text = bench_markdown.render_report(run, "plot.png")
    assert "Not measured: neither Gecode nor Choco was among the engines run" in text
    assert bench_output.classical_lines(run) == []


def test_the_peers_are_in_the_csv_the_json_and_the_plot(tmp_path: Path) -> None:
    run = _peer_run(tmp_path)
    csv_engines = [line.split(",")[2] for line in bench_output.to_csv(run.rows).splitlines()[1:]]
    assert csv_engines.count("gecode") == csv_engines.count("choco") == 6
    report = bench_output.to_json(run, [])
    peers = {(r["suite"], r["engine"], r["peer"]) for r in report["ratios"]}  # type: ignore[index]
    assert ("official", "prolog", "gecode") in peers
    assert ("stress-oddsum", "python", "choco") in peers
    assert report["peer_versions"] == {"gecode": "Gecode 6.2.0", "choco": "pychoco 0.4.0"}
    series = {s.label: s.color for s in bench_plot.plot_series(run, "official")}
    assert series["peer: gecode"] == "tab:brown"
    assert series["peer: choco"] == "tab:cyan"
