"""The lab's command line: `python -m plpuzzle_lab sudoku|knight`, run by
`make bench` and `make bench-knight`.

The benchmarks measure the product; they are not part of it, so they live
here, outside the package that ships, and use the product only through its
public modules.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import click

from plpuzzle.clitools import (
    InputError,
    choice,
    format_option,
    jobs_option,
    note,
    out_dir_option,
    progress_bar,
    quiet,
    stderr_console,
    stdout_console,
    time_limit_option,
    warn,
    write_json,
)
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.runs.suite import CaseResult
from plpuzzle_lab import knight_bench
from plpuzzle_lab.bench import BenchRequestError, plan, run_bench
from plpuzzle_lab.bench_model import RETIME_ROUNDS, RETIME_SHARE
from plpuzzle_lab.bench_output import report_lines, to_json, write_outputs
from plpuzzle_lab.bench_plot import PLOT_NAME, plots_available
from plpuzzle_lab.machine import QUIET_WAIT_SECONDS


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
def lab() -> None:
    """plpuzzle's benchmarks: how fast the engines are, beside their peers."""


@lab.command()
@click.argument("out", type=click.Path(path_type=Path, dir_okay=False), default="bench/KNIGHT.md")
def knight(out: Path) -> None:
    """Time both knight's-tour engines, check every tour; write OUT."""
    sys.exit(knight_bench.main([str(out)]))


@lab.command()
@click.option(
    "--suite",
    type=click.Path(path_type=Path, file_okay=False),
    help="The course's official suite. Default: $PLPUZZLE_SUITE, else "
    "$PLPUZZLE_SHARED/bme-2013-oddsum/tests, else ../shared/bme-2013-oddsum/tests.",
)
@click.option(
    "--rules",
    type=choice([r.value for r in Rules]),
    default=Rules.ODDSUM.value,
    show_default=True,
    help="The rules of --suite (the official suite's are oddsum).",
)
@click.option(
    "--consecutive",
    type=click.Path(path_type=Path, file_okay=False),
    help="A second suite, under the consecutive rules. "
    "Default: the bundled puzzles/sudoku/consecutive (make bench: bench/consecutive).",
)
@click.option(
    "--stress",
    type=click.Path(path_type=Path, file_okay=False),
    help="Stress suites: a folder with oddsum/ and/or consecutive/ subfolders of "
    "testNNNd.txt/testNNNs.txt pairs. Default: bench/stress, skipped with a note when missing.",
)
@click.option(
    "--engines",
    metavar="LIST",
    help="Which engines to time, comma-separated: ours (prolog, python) and the peers they "
    "are measured against (cpsat; gecode and choco, the classical constraint solvers). "
    "Default: all five, less a peer that is not installed (a note says so); a peer named "
    "here must be installed.",
)
@jobs_option("tests run at once, each in its own worker process")
@time_limit_option
@click.option(
    "--only",
    metavar="PATTERN",
    help="Run only the tests whose name matches, in every suite, e.g. 'test0[0-4]?' or '017'.",
)
@out_dir_option(
    Path("bench"),
    "Where results.csv, REPORT.md and times-by-k.png go (a run with --only and no --out: "
    "bench/partial, so that the committed full run stays).",
)
@click.option(
    "--reference",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The course's reference times. Default: reference-times.csv beside the suite folder.",
)
@click.option(
    "--overhead/--no-overhead",
    default=True,
    show_default=True,
    help="Also time the same findall in a plain swipl process and through pyswip.",
)
@click.option(
    "--quiet-wait",
    type=click.FloatRange(min=0),
    default=QUIET_WAIT_SECONDS,
    show_default=True,
    metavar="SECONDS",
    help="Before the overhead timing, wait up to this long for the load average to fall to "
    "the core count (the load left by the parallel runs); 0 measures at once. The report "
    "shows the load; above the core count the overhead target reads 'not judged'.",
)
@click.option(
    "--retime-rounds",
    type=click.IntRange(min=0),
    default=RETIME_ROUNDS,
    show_default=True,
    metavar="N",
    help="Time again, N rounds of engine then CP-SAT one test at a time, every test whose "
    f"ratio is near its per-puzzle goal ({RETIME_SHARE:g} to {1 / RETIME_SHARE:.3g} times "
    "it); the per-test ratios use the least CPU time of each side. 0: no re-timing.",
)
@format_option()
def sudoku(
    suite: Path | None,
    rules: str,
    consecutive: Path | None,
    stress: Path | None,
    engines: str | None,
    jobs: int,
    time_limit: float,
    only: str | None,
    out_dir: Path,
    reference: Path | None,
    overhead: bool,
    quiet_wait: float,
    retime_rounds: int,
    fmt: str,
) -> None:
    """Time our engines beside their peers and the course's reference solvers.

    Every test of the official suite, the consecutive set and the stress
    suites is solved by each engine (ours; CP-SAT, Gecode and Choco) in
    processes of its own, --jobs at once, and judged as `test` judges it.
    Prints verdict counts, the engine / CP-SAT ratios per suite (total,
    median and worst test; tests near a per-puzzle goal are timed again,
    see --retime-rounds), each engine's total CPU per suite beside Gecode's
    and Choco's with the ratios to them, the slowest test per K and the
    targets of targets.toml (met or not; reported, not enforced). Writes
    OUT/results.csv (a row per suite, test and engine), OUT/times-by-k.png
    and OUT/REPORT.md (machine, settings, ratios, targets, times beside
    the course's, the slowest tests, and the cost of the pyswip interface).
    Exit code 0 when no engine gave a wrong answer or failed (timeouts are
    results), 1 otherwise, 2 for bad usage. Without matplotlib (the `plots`
    extra) the plot is left out with a warning and the rest is written.
    """
    ctx = click.get_current_context()
    if only and ctx.get_parameter_source("out_dir") is click.core.ParameterSource.DEFAULT:
        # The committed reports are a full run's: a partial one never overwrites them.
        out_dir = out_dir / "partial"
        note(f"a partial run (--only): its reports go to {out_dir}, not over the full run's")
    try:
        settings, references, cases = plan(
            suite=suite,
            rules=Rules(rules),
            consecutive=consecutive,
            engines=engines,
            jobs=jobs,
            time_limit=time_limit,
            only=only,
            out_dir=out_dir,
            reference=reference,
            overhead=overhead,
            quiet_wait=quiet_wait,
            stress=stress,
            retime_rounds=retime_rounds,
        )
    except BenchRequestError as e:
        raise InputError(str(e)) from None
    for line in settings.notes:
        note(line)
    console = stdout_console() if fmt == "text" else stderr_console()
    with progress_bar(console) as progress:

        def on_start(description: str, total: int) -> Callable[[CaseResult], None]:
            task = progress.add_task(description, total=total)
            return lambda _result: progress.advance(task)

        run = run_bench(settings, cases, references, on_start)
    paths = write_outputs(run)
    if not plots_available():
        warn(f"{PLOT_NAME} not drawn: it needs matplotlib (pip install matplotlib)")
    if fmt == "json":
        write_json(to_json(run, paths))
    else:
        console.print("\n".join(report_lines(run)), markup=False, soft_wrap=True)
        if not quiet():
            console.print("Wrote " + ", ".join(str(p) for p in paths), markup=False)
    sys.exit(1 if run.failed else 0)


@lab.command()
@click.option("--students", type=click.IntRange(min=2), default=400, show_default=True)
@click.option("--seed", type=int, default=2013, show_default=True)
@jobs_option("reader processes at once")
@out_dir_option(Path("bench/similarity"), "Where the synthetic class and its report go.")
@click.option(
    "--sweep",
    is_flag=True,
    help="Instead: compare the evidence class (tests/fixtures/similarity) with other "
    "values of k and the window, and print how well each separates its copies.",
)
def similarity(students: int, seed: int, jobs: int, out_dir: Path, sweep: bool) -> None:
    """Time the similarity report on a synthetic class of STUDENTS hand-ins."""
    from plpuzzle_lab import similarity_bench

    if sweep:
        lines = similarity_bench.sweep(out_dir / "evidence", jobs)
    else:
        lines = similarity_bench.run(out_dir, students, jobs, seed).lines()
    for line in lines:
        click.echo(line)


@lab.command("similarity-eval")
@jobs_option("reader processes at once")
def similarity_eval(jobs: int) -> None:
    """Precision and recall of the similarity report on the labelled set
    (tests/fixtures/similarity_eval), on classes with rings and on guided
    labs: exit 1 if a pair that is no copy is reported or a copy is missed."""
    from plpuzzle_lab import similarity_eval as evaluation

    found = evaluation.run(jobs)
    for line in found.lines():
        click.echo(line)
    with tempfile.TemporaryDirectory(prefix="plpuzzle-rings-") as tmp:
        more, right = evaluation.generated(Path(tmp), jobs)
    for line in more:
        click.echo(line)
    sys.exit(0 if not found.false and not found.missed and right else 1)


@lab.command()
@click.argument("out", type=click.Path(path_type=Path, dir_okay=False), default="bench/SERVICE.md")
@click.option("--students", type=click.IntRange(min=1), default=50, show_default=True)
@click.option(
    "--suite",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="The course's official suite. Default: $PLPUZZLE_SUITE, else "
    "$PLPUZZLE_SHARED/bme-2013-oddsum/tests, else ../shared/bme-2013-oddsum/tests.",
)
@jobs_option("tests graded at once, by the service and by `sudoku grade`; Dask workers")
@click.option("--scale", type=click.FloatRange(min=0.0001, max=1), default=0.0025,
              show_default=True,
              help="The real course's costs and its 120 s limit, multiplied by this.")  # fmt: skip
@click.option("--public", default="test00?", show_default=True,
              help="The public tests (a pattern of test names).")  # fmt: skip
@click.option("--probers", type=click.IntRange(min=1), default=4, show_default=True,
              help="Threads asking for pages while the class grades.")  # fmt: skip
@click.option("--pause", type=click.FloatRange(min=0), default=0.2, show_default=True,
              help="Seconds each prober waits between two requests.")  # fmt: skip
@click.option("--timeout", type=click.FloatRange(min=1), default=3600.0, show_default=True,
              help="The most seconds the class may take to grade, in each phase.")  # fmt: skip
@click.option("--no-dask", is_flag=True, help="Leave out the burst on a local Dask cluster.")
@click.option("--no-flood", is_flag=True, help="Leave out the student who floods.")
@click.option("--no-signin", is_flag=True, help="Leave out the sign-in flood.")
@click.option("--loopers", type=click.IntRange(min=0), default=10, show_default=True,
              help="Looping students beside a well-behaved one (0: leave that out).")  # fmt: skip
@click.option("--only-beside", is_flag=True,
              help="Run only the well-behaved student beside the loopers, and rewrite only "
              "that section of OUT.")  # fmt: skip
def service(out: Path, students: int, suite: Path | None, jobs: int, scale: float, public: str,
            probers: int, pause: float, timeout: float, no_dask: bool, no_flood: bool,
            no_signin: bool, loopers: int, only_beside: bool) -> None:  # fmt: skip
    """Replay the deadline rush at the course's cost: a class uploads at
    once (here, then on a local Dask cluster) while pages are asked for,
    `sudoku grade` grades the same files; one student floods; anonymous
    clients flood the sign-in form; a queueing model says how many cores
    400 students need. Print and write OUT. Needs bench/service-costs.json
    (`service-costs`)."""
    from plpuzzle_lab import service_bench
    from plpuzzle_lab.bench import default_suite

    settings = service_bench.BenchSettings(
        suite or default_suite(), students, jobs, scale, public, probers, pause, timeout,
        dask=not no_dask, flood=not no_flood, signin=not no_signin, loopers=loopers,
        only_beside=only_beside,
    )  # fmt: skip
    sys.exit(service_bench.main(settings, out))


@lab.command("service-costs")
@click.option(
    "--suite",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="The course's official suite (its reference-times.csv beside it). Default: "
    "$PLPUZZLE_SUITE, else $PLPUZZLE_SHARED/bme-2013-oddsum/tests, else "
    "../shared/bme-2013-oddsum/tests.",
)
@jobs_option("tests graded at once")
@click.option("--cap", type=click.FloatRange(min=0.1), default=5.0, show_default=True,
              help="CPU seconds a test runs at most; more counts as 120 s.")  # fmt: skip
@click.option("-o", "--out", type=click.Path(path_type=Path, dir_okay=False),
              default="bench/service-costs.json", show_default=True)  # fmt: skip
@click.option("--only", multiple=True, metavar="KIND",
              help="Measure this kind only (repeatable), keeping the others of OUT.")  # fmt: skip
def service_costs(suite: Path | None, jobs: int, cap: float, out: Path,
                  only: tuple[str, ...]) -> None:  # fmt: skip
    """Measure, once, what each kind of student solver costs on every test
    of the official suite; the service's capacity bench replays it."""
    from plpuzzle_lab import service_costs as costs
    from plpuzzle_lab.bench import default_suite

    costs.main(suite or default_suite(), jobs, out, cap, only)


#: The puzzles `diagnose` looks at by default: the worst against Gecode.
DIAGNOSED = (
    ("{suite}/test099d.txt", Rules.ODDSUM),
    ("{suite}/test140d.txt", Rules.ODDSUM),
    ("{suite}/test234d.txt", Rules.ODDSUM),
    ("bench/consecutive/test005d.txt", Rules.CONSECUTIVE),
    ("bench/consecutive/test006d.txt", Rules.CONSECUTIVE),
    ("bench/stress/consecutive/test001d.txt", Rules.CONSECUTIVE),
    ("bench/stress/consecutive/test004d.txt", Rules.CONSECUTIVE),
    ("bench/stress/consecutive/test009d.txt", Rules.CONSECUTIVE),
    ("bench/stress/consecutive/test010d.txt", Rules.CONSECUTIVE),
)


@lab.command()
@click.argument("puzzles", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
@click.option("--rules", type=click.Choice([r.value for r in Rules]), default=None,
              help="The rules of PUZZLES (default: oddsum in the official suite, else "
              "consecutive).")  # fmt: skip
@click.option("--time-limit", type=float, default=120.0, show_default=True,
              help="CPU seconds per run (Gecode's, then ours).")  # fmt: skip
def diagnose(puzzles: tuple[Path, ...], rules: str | None, time_limit: float) -> None:
    """Gecode against our propagators under Gecode's own search, puzzle by
    puzzle (default: the worst ones): nodes, failures, time per node and the
    domains left at the root; prints a Markdown table."""
    from plpuzzle_lab.bench import default_suite
    from plpuzzle_lab.diagnose import main as diagnose_main
    from plpuzzle_lab.diagnose import suite_label
    from plpuzzle_lab.peers import missing_peers

    if "gecode" in missing_peers():
        raise click.UsageError(missing_peers()["gecode"])
    if puzzles:
        official = Rules(rules) if rules else Rules.ODDSUM
        other = Rules(rules) if rules else Rules.CONSECUTIVE
        chosen = [(p, official if suite_label(p) == "official" else other) for p in puzzles]
    else:
        suite = default_suite()
        chosen = [(Path(p.format(suite=suite)), r) for p, r in DIAGNOSED]
    missing = [str(p) for p, _ in chosen if not p.is_file()]
    if missing:
        raise click.UsageError(f"no such puzzle: {', '.join(missing)}")
    for line in diagnose_main(chosen, time_limit):
        click.echo(line)


#: The puzzles `count` looks at by default: the worst of each suite against
#: Gecode or the Python engine (issue 58).
COUNTED = (
    ("{suite}/test099d.txt", Rules.ODDSUM),
    ("{suite}/test165d.txt", Rules.ODDSUM),
    ("{suite}/test237d.txt", Rules.ODDSUM),
    ("{suite}/test233d.txt", Rules.ODDSUM),
    ("{suite}/test234d.txt", Rules.ODDSUM),
    ("{suite}/test140d.txt", Rules.ODDSUM),
    ("bench/consecutive/test011d.txt", Rules.CONSECUTIVE),
    ("bench/consecutive/test005d.txt", Rules.CONSECUTIVE),
    ("bench/consecutive/test006d.txt", Rules.CONSECUTIVE),
    ("bench/stress/consecutive/test001d.txt", Rules.CONSECUTIVE),
    ("bench/stress/consecutive/test004d.txt", Rules.CONSECUTIVE),
    ("bench/stress/oddsum/test006d.txt", Rules.ODDSUM),
    ("bench/stress/oddsum/test001d.txt", Rules.ODDSUM),
)


@lab.command()
@click.argument("puzzles", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
@click.option("--rules", type=click.Choice([r.value for r in Rules]), default=None,
              help="The rules of PUZZLES (default: oddsum in the official suite and "
              "stress/oddsum, else consecutive).")  # fmt: skip
@click.option("--time-limit", type=float, default=300.0, show_default=True,
              help="Seconds per run: wall-clock for ours and the Python engine's, "
              "CPU for Gecode's.")  # fmt: skip
def count(puzzles: tuple[Path, ...], rules: str | None, time_limit: float) -> None:
    """Node counts of our search as it ships, Gecode's default search and
    the Python engine, puzzle by puzzle (default: the worst ones); prints a
    Markdown table."""
    from plpuzzle_lab.bench import default_suite
    from plpuzzle_lab.count import count as count_main
    from plpuzzle_lab.diagnose import suite_label
    from plpuzzle_lab.peers import missing_peers

    if "gecode" in missing_peers():
        raise click.UsageError(missing_peers()["gecode"])
    if puzzles:
        chosen = []
        for p in puzzles:
            label = suite_label(p)
            oddsum = label in ("official", "stress-oddsum")
            chosen.append(
                (p, Rules(rules) if rules else Rules.ODDSUM if oddsum else Rules.CONSECUTIVE)
            )
    else:
        suite = default_suite()
        chosen = [(Path(p.format(suite=suite)), r) for p, r in COUNTED]
    missing = [str(p) for p, _ in chosen if not p.is_file()]
    if missing:
        raise click.UsageError(f"no such puzzle: {', '.join(missing)}")
    named = [(p, f"{suite_label(p)}/{p.name.removesuffix('d.txt')}", r) for p, r in chosen]
    for line in count_main(named, time_limit):
        click.echo(line)
