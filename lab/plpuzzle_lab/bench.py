"""`make bench`: how fast our engines are, next to their peers and the course's.

The course timed its own "relatively fast" reference solvers on its official
suite: a SICStus Prolog one and an Erlang one, 120 s per test, and published
the CPU seconds of each test (reference-times.csv beside the suite). To set
our engines beside them we run every test of that suite, of the bundled
consecutive set and of the stress suites (a folder with oddsum/ and
consecutive/ subfolders, bench/stress by default: sparse puzzles with
hundreds of solutions and large K) with each of our engines and the peers:
CP-SAT, and the classical constraint solvers Gecode and Choco (peers.py;
one that is not installed is left out with a note).

This module plans a run from the command line's options and runs its steps
in order; each step has a module of its own, and none imports a later one:

- bench_model: the records (settings, rows, reference times, the run);
- bench_measure: the engines timed on a suite, and the cost of pyswip;
- bench_ratios: each engine / a peer, and the targets judged on the ratios;
- bench_retime: the tests near a per-puzzle goal, timed again;
- bench_markdown, bench_plot, bench_output: REPORT.md, the plot, and the
  terminal's summary, JSON and the files written (results.csv and the rest).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.runs.suite import SuiteCase, bundled_suite, discover, natural_key
from plpuzzle_lab.bench_measure import OnStart, measure_overhead, run_suite
from plpuzzle_lab.bench_model import (
    DEFAULT_ENGINES,
    OFFICIAL,
    PEERS,
    RETIME_ROUNDS,
    BenchRun,
    BenchSettings,
    Reference,
    Row,
    SuiteSpec,
    load_reference,
)
from plpuzzle_lab.bench_retime import retime_near_goal
from plpuzzle_lab.machine import QUIET_WAIT_SECONDS, machine_info, wait_until_quiet
from plpuzzle_lab.peers import missing_peers, peer_versions

#: The stress suites' subfolders and their rules, in report order.
STRESS_SUITES = (("oddsum", Rules.ODDSUM), ("consecutive", Rules.CONSECUTIVE))

#: Where the stress suites are when --stress is not given.
DEFAULT_STRESS = Path("bench/stress")


class BenchRequestError(Exception):
    """The benchmark cannot run as asked (the user's to fix)."""


# --- planning a run ---------------------------------------------------------------------


def plan(
    suite: Path | None,
    rules: Rules,
    consecutive: Path | None,
    engines: str | None,
    jobs: int,
    time_limit: float,
    only: str | None,
    out_dir: Path,
    reference: Path | None,
    overhead: bool,
    stress: Path | None = None,
    retime_rounds: int = RETIME_ROUNDS,
    quiet_wait: float = QUIET_WAIT_SECONDS,
) -> tuple[BenchSettings, dict[str, Reference], dict[str, list[SuiteCase]]]:
    """Settings, reference times and cases for a run; BenchRequestError
    for a missing folder or file, an unknown engine, or nothing to run.

    `stress` None means the default folder, which may be missing (a note
    says so); a folder named explicitly must exist and hold a suite. So
    with `engines`: None means DEFAULT_ENGINES, less any peer that cannot
    run here (a note says so); a peer named explicitly must be able to."""
    suite, consecutive = _suite_folders(suite, consecutive)
    if reference is not None and not reference.is_file():
        raise BenchRequestError(f"{reference}: no such file")
    names, peer_notes = engine_names(engines)
    stress_suites, notes = stress_specs(stress)
    notes = peer_notes + notes
    settings = BenchSettings(
        suites=(
            SuiteSpec(OFFICIAL, suite, rules),
            SuiteSpec("consecutive", consecutive, Rules.CONSECUTIVE),
            *stress_suites,
        ),
        engines=tuple(names),
        jobs=jobs,
        time_limit=time_limit,
        only=only,
        out_dir=out_dir,
        reference=reference or suite.parent / "reference-times.csv",
        overhead=overhead,
        quiet_wait=quiet_wait,
        retime_rounds=retime_rounds,
        notes=tuple(notes),
    )
    try:
        references = load_reference(settings.reference)
    except ValueError as e:
        raise BenchRequestError(str(e)) from None
    cases = select_cases(settings)
    if not any(cases.values()):
        what = f" matching {only!r}" if only else ""
        raise BenchRequestError(f"{suite}, {consecutive}: no testNNNd.txt puzzles{what}")
    return settings, references, cases


def _suite_folders(suite: Path | None, consecutive: Path | None) -> tuple[Path, Path]:
    """The official suite's and the consecutive set's folders, defaults
    filled in; BenchRequestError for one that does not exist."""
    suite = suite or default_suite()
    if not suite.is_dir():
        raise BenchRequestError(
            f"{suite}: no such suite folder (the course's official suite: name it with "
            "SUITE=DIR for make bench, or --suite DIR)"
        )
    consecutive = consecutive or bundled_suite()
    if not consecutive.is_dir():
        raise BenchRequestError(
            f"{consecutive}: no such suite folder (CONSECUTIVE=DIR for make bench, or "
            "--consecutive DIR)"
        )
    return suite, consecutive


def engine_names(engines: str | None) -> tuple[list[str], list[str]]:
    """--engines as a list without repeats, and notes on the peers left
    out; BenchRequestError for an unknown engine, none, or a peer named
    explicitly that cannot run here.

    None is the default, DEFAULT_ENGINES: a peer of it that cannot run
    here (missing_peers) is left out with a note, never an error."""
    missing = missing_peers()
    if engines is None:
        notes = [
            f"{why}: the peer {name} was skipped" for name, why in missing.items() if name in PEERS
        ]
        return [e for e in DEFAULT_ENGINES if e not in missing], notes
    names = list(dict.fromkeys(e.strip().lower() for e in engines.split(",") if e.strip()))
    unknown = [e for e in names if e not in DEFAULT_ENGINES]
    if unknown or not names:
        raise BenchRequestError(
            f"--engines: choose from {', '.join(DEFAULT_ENGINES)}, got {engines!r}"
        )
    cannot = [f"{e} cannot run here: {missing[e]}" for e in names if e in missing]
    if cannot:
        raise BenchRequestError(f"--engines: {'; '.join(cannot)}")
    return names, []


def stress_specs(folder: Path | None) -> tuple[list[SuiteSpec], list[str]]:
    """The stress suites in `folder` (None: the default, DEFAULT_STRESS) and
    notes on what is missing; BenchRequestError when a folder named by
    the user is missing or holds neither subfolder."""
    explicit = folder is not None
    folder = folder or DEFAULT_STRESS
    subs = ", ".join(f"{name}/" for name, _ in STRESS_SUITES)
    if not folder.is_dir():
        if explicit:
            raise BenchRequestError(f"{folder}: no such stress folder (--stress DIR)")
        return [], [f"no stress folder `{folder}`: the stress suites were skipped"]
    specs = [
        SuiteSpec(f"stress-{name}", folder / name, rules)
        for name, rules in STRESS_SUITES
        if (folder / name).is_dir()
    ]
    if not specs:
        if explicit:
            raise BenchRequestError(
                f"{folder}: no {subs.replace(', ', ' or ')} subfolder (--stress DIR)"
            )
        return [], [f"`{folder}` has no {subs} subfolder: the stress suites were skipped"]
    notes = [
        f"`{folder / name}` is missing: that stress suite was skipped"
        for name, _ in STRESS_SUITES
        if not (folder / name).is_dir()
    ]
    return specs, notes


def default_suite() -> Path:
    """The course's official suite: $PLPUZZLE_SUITE (its folder of puzzles),
    else bme-2013-oddsum/tests in $PLPUZZLE_SHARED, else in ../shared; the
    tests look for it the same way."""
    if os.environ.get("PLPUZZLE_SUITE"):
        return Path(os.environ["PLPUZZLE_SUITE"])
    shared = os.environ.get("PLPUZZLE_SHARED") or "../shared"
    return Path(shared) / "bme-2013-oddsum" / "tests"


def select_cases(settings: BenchSettings) -> dict[str, list[SuiteCase]]:
    """The tests of each suite that `--only` selects, by suite label."""
    return {spec.label: discover(spec.folder, settings.only) for spec in settings.suites}


# --- running it ------------------------------------------------------------------------


def run_bench(
    settings: BenchSettings,
    cases: dict[str, list[SuiteCase]],
    references: dict[str, Reference],
    on_start: OnStart | None = None,
) -> BenchRun:
    """Every suite with every engine, then the tests near a per-puzzle
    goal again, then the interop overhead."""
    start = time.monotonic()
    machine = machine_info()
    rows = _time_suites(settings, cases, on_start)
    run = BenchRun(settings, machine, rows, references)
    run.peer_versions = {p: v for p, v in peer_versions().items() if p in settings.engines}
    run.retimes = retime_near_goal(run, cases, on_start)
    _time_overhead(run, cases)
    run.wall_seconds = time.monotonic() - start
    return run


def _time_suites(
    settings: BenchSettings, cases: dict[str, list[SuiteCase]], on_start: OnStart | None
) -> list[Row]:
    """The first pass: every suite with every engine, rows in report order."""
    rows: list[Row] = []
    for spec in settings.suites:
        for engine in settings.engines:
            selected = cases.get(spec.label, [])
            if not selected:
                continue
            callback = on_start(f"{spec.label} / {engine}", len(selected)) if on_start else None
            rows += run_suite(spec, selected, engine, settings, callback)
    rows.sort(key=lambda r: _row_order(settings, r))
    return rows


def _time_overhead(run: BenchRun, cases: dict[str, list[SuiteCase]]) -> None:
    """The interop overhead on the official suite, once the machine is
    quiet or `quiet_wait` seconds have passed; or the note of why it was
    not measured."""
    settings = run.settings
    main = settings.suites[0]
    if not settings.overhead:
        run.overhead_note = "disabled with --no-overhead"
    elif "prolog" not in settings.engines:
        run.overhead_note = "skipped: the Prolog engine was not run"
    else:
        main_rows = [r for r in run.rows if r.suite == main.label]
        run.overhead_load = wait_until_quiet(os.cpu_count() or 1, most=settings.quiet_wait)
        run.overhead, run.overhead_note = measure_overhead(
            main_rows, main, cases.get(main.label, []), settings.time_limit
        )


def _row_order(settings: BenchSettings, row: Row) -> tuple[int, list[object], int]:
    labels = [s.label for s in settings.suites]
    return (labels.index(row.suite), natural_key(row.test), settings.engines.index(row.engine))
