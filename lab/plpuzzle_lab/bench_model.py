"""The records of a `make bench` run, shared by every step of it.

What a run is asked to do (BenchSettings, SuiteSpec), what it measures
(Row, Overhead, Retime), the course's figures it is set beside (Reference,
read from reference-times.csv), and the finished run (BenchRun). Every
other bench module builds on these and nothing here imports them back.
The performance targets (targets.toml) are read here too, since the
settings take their re-timing defaults from them.
"""

from __future__ import annotations

import csv
import io
import tomllib
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.runs.suite import Verdict
from plpuzzle_lab.machine import QUIET_WAIT_SECONDS
from plpuzzle_lab.peers import PEER_NAMES

#: The course's own per-test limit (reference-times.csv).
REFERENCE_LIMIT = 120.0

#: The peer of the CP-SAT ratios and targets, and of re-timing near a goal.
PEER = "cpsat"

#: Every peer: a solver a user could pick instead of ours, timed beside
#: them in the same run (CP-SAT, and the classical Gecode and Choco).
PEERS = (PEER, *PEER_NAMES)

#: Our engines, the ones measured against the peers.
OURS = ("prolog", "python")

#: What a run times unless told otherwise (a peer that cannot run here is
#: left out with a note).
DEFAULT_ENGINES = (*OURS, *PEERS)

#: How the report's prose and the targets name each peer.
PEER_TITLES = {PEER: "CP-SAT", "gecode": "Gecode", "choco": "Choco"}

#: The label of the course's official suite (the first).
OFFICIAL = "official"

#: Per-test times under this count as this in per-test ratios (both sides):
#: below it a ratio measures start-up noise, not search.
RATIO_FLOOR = 0.05

#: The performance targets (targets.toml): reported, never enforced.
TARGETS: dict[str, Any] = tomllib.loads(
    files("plpuzzle_lab").joinpath("targets.toml").read_text(encoding="utf-8")
)

#: Re-time a test when its first-pass ratio is at least this share of its
#: engine's per-puzzle goal (RATIO_GOALS): ratios move by about a third
#: between runs, so below this a second look cannot change the verdict.
RETIME_SHARE: float = TARGETS["retime"]["share"]

#: How many rounds (engine, then CP-SAT) a re-timed test gets by default.
RETIME_ROUNDS: int = TARGETS["retime"]["rounds"]


def engine_label(engine: str) -> str:
    """How tables and the plot name an engine: ours, or a peer."""
    return f"peer: {engine}" if engine in PEERS else f"ours: {engine}"


def peer_title(peer: str) -> str:
    """A peer's name in prose: "CP-SAT", "Gecode", "Choco"."""
    return PEER_TITLES.get(peer, peer)


def floored_ratio(seconds: float, peer_seconds: float) -> float:
    """engine / peer, each side counted as at least RATIO_FLOOR."""
    return max(seconds, RATIO_FLOOR) / max(peer_seconds, RATIO_FLOOR)


# --- settings --------------------------------------------------------------------


@dataclass(frozen=True)
class SuiteSpec:
    """A suite to run: a short label for tables, its folder and its rules."""

    label: str
    folder: Path
    rules: Rules


@dataclass(frozen=True)
class BenchSettings:
    """Everything that decides what the benchmark runs."""

    suites: tuple[SuiteSpec, ...]
    engines: tuple[str, ...] = DEFAULT_ENGINES
    jobs: int = 1
    time_limit: float = 120.0
    only: str | None = None
    out_dir: Path = Path("bench")
    reference: Path | None = None
    overhead: bool = True
    #: Seconds the overhead timing waits at most for the load to fall to
    #: the core count (0: measure at once; the report shows the load).
    quiet_wait: float = QUIET_WAIT_SECONDS
    #: Rounds of re-timing for tests near a per-puzzle goal (0: none).
    retime_rounds: int = RETIME_ROUNDS
    #: Which tests are near: first-pass ratio >= this share of the goal.
    retime_share: float = RETIME_SHARE
    #: What was left out and why (e.g. no stress folder), for the report.
    notes: tuple[str, ...] = ()

    @property
    def ours(self) -> tuple[str, ...]:
        """Our engines, the ones measured against the peers."""
        return tuple(e for e in self.engines if e not in PEERS)

    @property
    def peers(self) -> tuple[str, ...]:
        """The peers of this run, in report order."""
        return tuple(e for e in PEERS if e in self.engines)


# --- what a run measures ---------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One test run by one engine: a line of results.csv.

    `cpu_seconds` is None when the engine did not finish in time; `given`
    is the share of cells whose value the puzzle gives (None if unreadable).
    """

    suite: str
    test: str
    engine: str
    k: int | None
    expected_solutions: int | None
    solutions: int
    verdict: Verdict
    cpu_seconds: float | None
    wall_seconds: float | None
    peak_rss_mb: float | None
    reason: str = ""
    given: float | None = None

    @property
    def correct(self) -> bool:
        return self.verdict is Verdict.CORRECT


@dataclass(frozen=True)
class Overhead:
    """One test timed in plain swipl and through pyswip (best of the repeats, seconds)."""

    test: str
    k: int
    size: str  # "tiny" or "large"
    solutions: int
    repeats: int
    swipl_cpu: float
    swipl_wall: float
    pyswip_cpu: float
    pyswip_wall: float

    @property
    def extra_seconds(self) -> float:
        return self.pyswip_wall - self.swipl_wall

    @property
    def extra_fraction(self) -> float:
        return self.extra_seconds / self.swipl_wall if self.swipl_wall > 0 else 0.0


@dataclass(frozen=True)
class Failure:
    """A test left out of the ratios: `side` did not answer correctly
    (in the first pass, or when the test was re-timed)."""

    test: str
    side: str
    verdict: Verdict
    retimed: bool = False

    def __str__(self) -> str:
        when = " on re-timing" if self.retimed else ""
        return f"{self.test} ({self.side}: {self.verdict.value}{when})"


@dataclass(frozen=True)
class Retime:
    """One test near its engine's per-puzzle goal, timed again: engine and
    CP-SAT alternately, one round after another, nothing else running.

    `seconds` and `peer_seconds` hold the CPU seconds of each round that
    answered correctly; `failure` is set (and the rounds stop) when a side
    did not answer correctly, which counts as a failure of that test.
    """

    suite: str
    test: str
    engine: str
    first_ratio: float
    seconds: tuple[float, ...] = ()
    peer_seconds: tuple[float, ...] = ()
    failure: Failure | None = None

    @property
    def ratio(self) -> float | None:
        """The least CPU time of each side (the least-disturbed sample, the
        same rule for both), floored as in the first pass; None on a failure."""
        if self.failure is not None or not self.seconds or not self.peer_seconds:
            return None
        return floored_ratio(min(self.seconds), min(self.peer_seconds))


# --- the course's reference times ------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """The course's figures for one test; seconds are None on a timeout."""

    test: str
    k: int
    solutions: int | None  # unknown when neither reference finished
    prolog_seconds: float | None
    prolog_verdict: str
    erlang_seconds: float | None
    erlang_verdict: str


def _optional(text: str | None, kind: type[int] | type[float]) -> int | float | None:
    return kind(text) if text and text.strip() else None


def parse_reference(text: str) -> dict[str, Reference]:
    """reference-times.csv by test name (columns as in the course's file).

    Raises ValueError, naming the line, for a file not in that shape.
    """
    out = {}
    for line, rec in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        try:
            ref = Reference(
                rec["test"],
                int(rec["K"]),
                _optional(rec["solutions"], int),  # type: ignore[arg-type]
                _optional(rec["prolog_seconds"], float),
                rec["prolog_verdict"],
                _optional(rec["erlang_seconds"], float),
                rec["erlang_verdict"],
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"line {line}: not a reference-times row ({e})") from None
        out[ref.test] = ref
    return out


def load_reference(path: Path | None) -> dict[str, Reference]:
    """The reference times, or none when there is no file.

    Raises ValueError for a file that does not parse.
    """
    if path is None or not path.is_file():
        return {}
    try:
        return parse_reference(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


# --- the finished run ------------------------------------------------------------


@dataclass
class BenchRun:
    """A finished benchmark: what it ran, on what, and what came out."""

    settings: BenchSettings
    machine: list[tuple[str, str]]
    rows: list[Row]
    references: dict[str, Reference]
    overhead: list[Overhead] = field(default_factory=list)
    overhead_note: str = ""
    overhead_load: tuple[float, ...] | None = None  # the load average then
    wall_seconds: float = 0.0
    retimes: list[Retime] = field(default_factory=list)
    #: What the report says of each peer's version ("Gecode 6.2.0").
    peer_versions: dict[str, str] = field(default_factory=dict)

    def engine_rows(self, engine: str, suite: str) -> list[Row]:
        return [r for r in self.rows if r.engine == engine and r.suite == suite]

    def suite_tests(self, suite: str) -> list[Row]:
        """One row per test of a suite (the first engine's), in suite order."""
        seen: dict[str, Row] = {}
        for r in self.rows:
            if r.suite == suite:
                seen.setdefault(r.test, r)
        return list(seen.values())

    @property
    def failed(self) -> bool:
        """Whether an engine gave a wrong answer or broke (timeouts are results)."""
        bad = {Verdict.WRONG, Verdict.ERROR, Verdict.BAD_INPUT}
        return any(r.verdict in bad for r in self.rows) or any(
            t.failure is not None and t.failure.verdict in bad for t in self.retimes
        )
