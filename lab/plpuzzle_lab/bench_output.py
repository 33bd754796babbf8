"""What a `make bench` run leaves behind: the terminal's summary, the
`--format json` report, and the files in the output folder (results.csv,
the plot, REPORT.md).

The terminal shows the verdict counts, the ratio table, the re-timed
tests, every engine's totals per suite beside Gecode's and Choco's with
the ratios to them, the slowest test per K and the targets, sharing the
tables of REPORT.md (bench_markdown) but wrapped to a terminal's width.
"""

from __future__ import annotations

import csv
import io
import textwrap
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from plpuzzle_lab.bench_markdown import (
    CLASSICAL,
    RATIO_HEADER,
    TARGET_HEADER,
    k_rows,
    ratio_rows,
    render_report,
    target_rows,
    totals_rows,
)
from plpuzzle_lab.bench_model import PEER, RATIO_FLOOR, BenchRun, Row, peer_title
from plpuzzle_lab.bench_plot import PLOT_NAME, plot_series, plots_available, write_plot
from plpuzzle_lab.bench_ratios import (
    K_TARGET_GIVEN,
    Ratios,
    ratio_table,
    ratio_text,
    seconds_text,
    suite_totals,
    targets,
    worst_by_k,
)

#: The columns of results.csv.
CSV_FIELDS = (
    "suite",
    "test",
    "engine",
    "K",
    "given_percent",
    "expected_solutions",
    "solutions",
    "verdict",
    "cpu_seconds",
    "wall_seconds",
    "peak_rss_mb",
    "reason",
)


# --- the terminal -------------------------------------------------------------------


#: The width the terminal's tables keep to (a terminal of 100 columns).
TERMINAL_WIDTH = 100


def text_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], width: int = TERMINAL_WIDTH
) -> list[str]:
    """A plain table for the terminal: columns padded, two spaces apart;
    the last column wraps, under itself, so that a line keeps to `width`
    (it goes below, indented, when the others leave it too little room)."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    before = sum(w + 2 for w in widths[:-1])
    room = width - before
    indent = before if room >= 30 else 4
    room = room if room >= 30 else width - 4
    lines = []
    for row in (header, *rows):
        cells = [str(c) for c in row]
        head = "  ".join(c.ljust(w) for c, w in zip(cells[:-1], widths, strict=False))
        last = textwrap.wrap(cells[-1], room, break_on_hyphens=False) or [""]
        if indent == before:
            lines.append(f"{head}  {last[0]}".rstrip())
            lines += [" " * indent + more for more in last[1:]]
        else:
            lines.append(head.rstrip())
            lines += [" " * indent + more for more in last]
    return lines


def report_lines(run: BenchRun) -> list[str]:
    """What the terminal shows: verdict counts, the ratio table, the slowest
    test per K and the targets."""
    lines = summary_lines(run)
    if PEER in run.settings.engines:
        lines += [
            "",
            f"Engine / CP-SAT, CPU seconds (total: sums over tests both solved; median and "
            f"worst: per test, times under {RATIO_FLOOR * 1000:g} ms counted as "
            f"{RATIO_FLOOR * 1000:g} ms):",
            *text_table(RATIO_HEADER, ratio_rows(ratio_table(run), names=3)),
        ]
    lines += _retime_lines(run)
    lines += classical_lines(run)
    header, body = k_rows(run)
    if body:
        lines += [
            "",
            f"Slowest test per K, CPU s (tests with ≥ {K_TARGET_GIVEN:.0%} of values given):",
            *text_table(header, body),
        ]
    lines += ["", "Targets (reported, not enforced):"]
    lines += text_table(TARGET_HEADER, target_rows(run))
    return lines


def classical_lines(run: BenchRun) -> list[str]:
    """Every engine's total CPU per suite, a line per suite, and our
    engines / Gecode and Choco (none when neither was run)."""
    classical = [p for p in CLASSICAL if p in run.settings.engines]
    if not classical:
        return []
    header, body = totals_rows(run, short=True)
    lines = [
        "",
        "Total CPU seconds per suite, over the tests every engine solved correctly:",
        *text_table(header, body),
    ]
    for peer in classical:
        table = ratio_table(run, retimed=False, peer=peer)
        lines += [
            "",
            f"Engine / {peer_title(peer)}, first pass (total, median and worst as for CP-SAT):",
            *text_table(RATIO_HEADER, ratio_rows(table, names=3)),
        ]
    return lines


def _retime_lines(run: BenchRun) -> list[str]:
    """The tests timed again near a per-puzzle goal: first pass and re-timed."""
    if not run.retimes:
        return []
    failed = sum(1 for t in run.retimes if t.failure is not None)
    return [
        "",
        f"Re-timed {len(run.retimes)} test(s) near a per-puzzle goal, least CPU of "
        f"{run.settings.retime_rounds} rounds per side"
        + (f"; {failed} not answered correctly" if failed else "")
        + ":",
        *text_table(
            ("suite", "test", "engine", "first pass", "re-timed"),
            [
                [
                    t.suite,
                    t.test,
                    t.engine,
                    ratio_text(t.first_ratio),
                    ratio_text(t.ratio) if t.failure is None else str(t.failure),
                ]
                for t in run.retimes
            ],
        ),
    ]


def summary_lines(run: BenchRun) -> list[str]:
    """One line per suite and engine: verdict counts and CPU seconds."""
    lines = []
    for spec in run.settings.suites:
        for engine in run.settings.engines:
            rows = run.engine_rows(engine, spec.label)
            if rows:
                counts = Counter(r.verdict.value for r in rows)
                parts = ", ".join(f"{n} {v}" for v, n in counts.items())
                cpu = seconds_text(sum(r.cpu_seconds or 0.0 for r in rows))
                lines.append(f"{spec.label} / {engine}: {len(rows)} tests: {parts}; {cpu} s CPU")
    return lines


# --- files and JSON -------------------------------------------------------------------


def write_outputs(run: BenchRun) -> list[Path]:
    """results.csv, the plot (when matplotlib is installed) and REPORT.md."""
    out = run.settings.out_dir
    out.mkdir(parents=True, exist_ok=True)
    main = run.settings.suites[0]
    csv_path, plot_path, report_path = out / "results.csv", out / PLOT_NAME, out / "REPORT.md"
    csv_path.write_text(to_csv(run.rows), encoding="utf-8")
    title = f"Per-test CPU time by K: {main.label} suite ({main.rules.value} rules)"
    written = [csv_path]
    if plots_available():
        write_plot(plot_series(run, main.label), title, plot_path)
        written.append(plot_path)
    report_path.write_text(render_report(run, PLOT_NAME), encoding="utf-8")
    return [*written, report_path]


def _num(value: float | None, digits: int = 6) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def to_csv(rows: Iterable[Row]) -> str:
    """results.csv: one line per suite, test and engine."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for r in rows:
        writer.writerow(
            [
                r.suite,
                r.test,
                r.engine,
                "" if r.k is None else r.k,
                "" if r.given is None else f"{r.given * 100:.1f}",
                "" if r.expected_solutions is None else r.expected_solutions,
                r.solutions,
                r.verdict.value,
                _num(r.cpu_seconds),
                _num(r.wall_seconds),
                _num(r.peak_rss_mb, 1),
                r.reason,
            ]
        )
    return buffer.getvalue()


def to_json(run: BenchRun, paths: list[Path]) -> dict[str, object]:
    """The `--format json` report: a row per suite, test and engine, the
    ratios to each peer (CP-SAT's re-timed near a goal), every engine's
    totals per suite, the slowest test per K and the targets."""
    return {
        "failed": run.failed,
        "outputs": [str(p) for p in paths],
        "notes": list(run.settings.notes),
        "rows": list(csv.DictReader(io.StringIO(to_csv(run.rows)))),
        "ratio_floor_seconds": RATIO_FLOOR,
        "ratios": [
            _ratios_json(r) for peer in run.settings.peers for r in ratio_table(run, peer=peer)
        ],
        "suite_totals": [
            {
                "suite": t.suite,
                "tests": t.tests,
                "cpu_seconds": t.seconds,
                "not_solved_by_all": t.left_out,
            }
            for t in suite_totals(run)
        ],
        "peer_versions": run.peer_versions,
        "retimed": [
            {
                "suite": t.suite,
                "test": t.test,
                "engine": t.engine,
                "first_ratio": t.first_ratio,
                "cpu_seconds": list(t.seconds),
                "peer_cpu_seconds": list(t.peer_seconds),
                "ratio": t.ratio,
                "failed": None if t.failure is None else str(t.failure),
            }
            for t in run.retimes
        ],
        "worst_by_k": [
            {
                "K": w.k,
                "engine": w.engine,
                "tests": w.tests,
                "worst_test": None if w.worst is None else f"{w.worst.suite}/{w.worst.test}",
                "worst_cpu_seconds": None if w.worst is None else w.worst.cpu_seconds,
                "failed": [f"{r.suite}/{r.test}" for r in w.failures],
            }
            for w in worst_by_k(run)
        ],
        "targets": [
            {"target": t.name, "measured": t.measured, "status": t.status, "note": t.note}
            for t in targets(run)
        ],
    }


def _ratios_json(r: Ratios) -> dict[str, object]:
    worst = r.worst
    return {
        "suite": r.suite,
        "engine": r.engine,
        "peer": r.peer,
        "tests": len(r.tests),
        "cpu_seconds": r.seconds,
        "peer_cpu_seconds": r.peer_seconds,
        "total_ratio": r.total,
        "median_ratio": r.median,
        "worst_ratio": None if worst is None else worst.ratio,
        "worst_test": None if worst is None else worst.test,
        "worst_retimed": None if worst is None else worst.retimed,
        "failed": [
            {"test": f.test, "side": f.side, "verdict": f.verdict.value} for f in r.failures
        ],
    }
