"""The plot of a `make bench` run: per-test CPU seconds by K (times-by-k.png).

Kept apart because it is the one output that needs matplotlib (the `plots`
extra): without it the other outputs are written and the plot is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sudoku.runs.suite import Verdict
from plpuzzle_lab.bench_model import PEER, REFERENCE_LIMIT, BenchRun, engine_label

#: The plot's file name in the output folder (REPORT.md shows it).
PLOT_NAME = "times-by-k.png"

#: Times below this are drawn at it: a log axis has no zero.
PLOT_FLOOR = 1e-3

#: The plot's colour per engine (the course's references are green and red).
ENGINE_COLORS = {
    "prolog": "tab:blue",
    "python": "tab:orange",
    PEER: "tab:purple",
    "gecode": "tab:brown",
    "choco": "tab:cyan",
}


@dataclass(frozen=True)
class Series:
    """One solver's points in the plot: (K, seconds or None for a timeout)."""

    label: str
    points: list[tuple[int, float | None]]
    limit: float
    color: str


def plot_series(run: BenchRun, suite: str) -> list[Series]:
    """Our engines, the peers and the two references, on the same tests
    (an engine without results on this suite has no series)."""
    limit = run.settings.time_limit
    out = []
    for engine in run.settings.engines:
        rows = run.engine_rows(engine, suite)
        if not rows:
            continue
        points = [
            (r.k, r.cpu_seconds)
            for r in rows
            if r.k is not None and (r.cpu_seconds is not None or r.verdict is Verdict.TIMEOUT)
        ]
        color = ENGINE_COLORS.get(engine, "tab:gray")
        out.append(Series(engine_label(engine), points, limit, color))
    refs = [run.references[r.test] for r in run.suite_tests(suite) if r.test in run.references]
    if refs:
        course_prolog = [(x.k, x.prolog_seconds) for x in refs]
        course_erlang = [(x.k, x.erlang_seconds) for x in refs]
        out.append(Series("course Prolog (SICStus)", course_prolog, REFERENCE_LIMIT, "tab:green"))
        out.append(Series("course Erlang", course_erlang, REFERENCE_LIMIT, "tab:red"))
    return out


def _jitter(i: int) -> float:
    """A spread of points within a strip that is the same on every run."""
    return ((i * 0.6180339887) % 1.0 - 0.5) * 0.14


def write_plot(series: list[Series], title: str, path: Path) -> None:
    """A strip plot of per-test time by K, log scale, timeouts at the limit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, ax = plt.subplots(figsize=(10, 6), dpi=110)
    width = 0.8 / max(1, len(series))
    for index, s in enumerate(series):
        offset = (index - (len(series) - 1) / 2) * width
        xs = [k + offset + _jitter(i) for i, (k, _) in enumerate(s.points)]
        done = [
            (x, max(t, PLOT_FLOOR)) for x, (_, t) in zip(xs, s.points, strict=True) if t is not None
        ]
        late = [(x, s.limit) for x, (_, t) in zip(xs, s.points, strict=True) if t is None]
        # Label the solver even when every one of its points is a timeout.
        ax.scatter(
            [x for x, _ in done],
            [t for _, t in done],
            s=14,
            alpha=0.7,
            color=s.color,
            label=s.label,
        )
        if late:
            ax.scatter([x for x, _ in late], [t for _, t in late], s=40, marker="x", color=s.color)
    for limit in sorted({s.limit for s in series}):
        ax.axhline(limit, color="gray", linestyle="--", linewidth=0.8)
        ax.annotate(
            f"limit {limit:g} s",
            (0.995, limit),
            xycoords=("axes fraction", "data"),
            ha="right",
            va="bottom",
            fontsize=8,
            color="gray",
        )
    ks = sorted({k for s in series for k, _ in s.points})
    ax.set_xticks(ks, [f"K = {k}" for k in ks])
    ax.set_yscale("log")
    ax.set_ylim(PLOT_FLOOR / 2, max([s.limit for s in series] + [1.0]) * 3)
    ax.set_ylabel("CPU seconds per test (log scale)")
    ax.set_title(title)
    ax.grid(axis="y", which="major", alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    timeout = Line2D([], [], marker="x", linestyle="", color="gray", label="timeout, at the limit")
    ax.legend(handles=[*handles, timeout], loc="upper left", fontsize=9)
    fig.text(
        0.01,
        0.01,
        f"x = timeout, drawn at the limit; times under {PLOT_FLOOR * 1000:g} ms "
        "are drawn at that value",
        fontsize=8,
        color="gray",
    )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, format="png")
    plt.close(fig)


def plots_available() -> bool:
    """Whether matplotlib (the `plots` extra) is installed."""
    import importlib.util

    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):  # e.g. sys.modules["matplotlib"] = None
        return False
