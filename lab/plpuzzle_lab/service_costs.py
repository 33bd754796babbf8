"""What a hand-in costs on the course's own suite: the CPU seconds of each
of the 271 official tests for solvers of the kinds students write,
measured once (`python -m plpuzzle_lab service-costs`) and kept in
bench/service-costs.json for the service's capacity bench and model.

The profiles:

- the course's reference solution (SICStus), from the course's own
  timings (reference-times.csv), not run here;
- a strong clpfd solver (ours, prolog/sudoku.pl);
- a plain clpfd solver (tests/fixtures/class/carol.pl);
- plain backtracking search (solvers/search.pl);
- generate and test (solvers/generate_and_test.pl).

Each is graded by the real grader in its sandbox with a CPU limit of
`cap` seconds a test (5 s: the course's own 120 s would take days); a
test that runs out of it is counted at the course's limit, as if it had
timed out there too. So the costs are an upper bound: a test that would
have finished between the cap and the limit is counted at the limit.
"""

from __future__ import annotations

import csv
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plpuzzle.runtime import Dialect

REPO = Path(__file__).resolve().parents[2]
SOLVERS = Path(__file__).with_name("solvers")
COSTS = REPO / "bench" / "service-costs.json"
#: The course's limit per test, and the bench's cap while measuring.
COURSE_LIMIT = 120.0
CAP = 5.0

#: name -> (the solver's files: (name in the hand-in, source); its dialect; in words)
MEASURED: dict[str, tuple[list[tuple[str, Path]], Dialect, str]] = {
    "clpfd-strong": ([("sudoku.pl", SOLVERS / "strong_oddsum.pl"),
                      ("sudoku_bundled.pl", REPO / "prolog" / "sudoku.pl"),
                      *((p.name, p) for p in sorted((REPO / "prolog").glob("sudoku_*.pl"))),
                      ("clpfd_internals.pl", REPO / "prolog" / "clpfd_internals.pl")], "swi",
                     "a strong clpfd solver (ours, prolog/sudoku.pl, asked for oddsum)"),
    "clpfd-plain": ([("sudoku.pl", REPO / "tests" / "fixtures" / "class" / "carol.pl")],
                    "sicstus4", "a plain clpfd solver (tests/fixtures/class/carol.pl)"),
    "search": ([("sudoku.pl", SOLVERS / "search.pl")], "sicstus4",
               "plain backtracking search, no clpfd (lab solvers/search.pl)"),
    "generate-and-test": ([("sudoku.pl", SOLVERS / "generate_and_test.pl")], "sicstus4",
                          "permutations per row, then the columns checked "
                          "(lab solvers/generate_and_test.pl)"),
}  # fmt: skip


@dataclass
class Profile:
    """One kind of solver: the seconds each test costs it, in the course."""

    name: str
    words: str
    costs: dict[str, float]
    #: Tests that ran out of time (at the cap, or the course's limit).
    timeouts: int

    @property
    def total(self) -> float:
        return sum(self.costs.values())


def reference_profile(times: Path) -> Profile:
    """The course's reference solution, from its timings file."""
    costs, timeouts = {}, 0
    with times.open(newline="") as f:
        for row in csv.DictReader(f):
            if row["prolog_verdict"] == "timeout" or not row["prolog_seconds"]:
                costs[row["test"]] = COURSE_LIMIT
                timeouts += 1
            else:
                costs[row["test"]] = float(row["prolog_seconds"])
    return Profile("reference", "the course's reference solution (SICStus, its own timings)",
                   costs, timeouts)  # fmt: skip


def measure(suite: Path, jobs: int, cap: float = CAP,
            only: tuple[str, ...] = ()) -> list[Profile]:  # fmt: skip
    """Grade each measured solver (those of `only`, if given) on the
    suite; its profile."""
    from plpuzzle.sudoku import api

    profiles = []
    chosen = {n: m for n, m in MEASURED.items() if not only or n in only}
    for dialect in sorted({d for _, d, _ in chosen.values()}):
        names = [n for n, (_, d, _) in chosen.items() if d == dialect]
        with tempfile.TemporaryDirectory(prefix="plpuzzle-costs-") as tmp:
            klass = Path(tmp) / "class"
            for name in names:
                (klass / name).mkdir(parents=True)
                for target, source in MEASURED[name][0]:
                    shutil.copy(source, klass / name / target)
            print(f"service costs: grading {', '.join(names)} on {suite} ({cap:g} s a test)",
                  flush=True)  # fmt: skip
            outcome = api.grade(
                klass,
                suite,
                out=Path(tmp) / "out",
                rules="oddsum",
                dialect=dialect,
                time_limit=cap,
                jobs=jobs,
                feedback=False,
                similarity=False,
                requirements=False,
            )
            for row in outcome.report["students"]:
                costs, timeouts = {}, 0
                for r in row["results"]:
                    out_of_time = r["grade"] == "timeout"
                    timeouts += out_of_time
                    costs[r["test"]] = COURSE_LIMIT if out_of_time else float(r["cpu_seconds"])
                profiles.append(Profile(row["id"], MEASURED[row["id"]][2], costs, timeouts))
    return profiles


def save(profiles: list[Profile], path: Path, cap: float) -> None:
    data = {
        "course_limit": COURSE_LIMIT,
        "cap": cap,
        "profiles": {
            p.name: {"words": p.words, "timeouts": p.timeouts, "costs": p.costs} for p in profiles
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def load(path: Path = COSTS) -> dict[str, Profile]:
    """The kept profiles, by name."""
    data: dict[str, Any] = json.loads(path.read_text())
    return {name: Profile(name, p["words"], {t: float(s) for t, s in p["costs"].items()},
                          int(p["timeouts"]))
            for name, p in data["profiles"].items()}  # fmt: skip


def main(suite: Path, jobs: int, out: Path = COSTS, cap: float = CAP,
         only: tuple[str, ...] = ()) -> None:  # fmt: skip
    """Measure (the profiles of `only`, keeping the others of `out`) and save."""
    kept = load(out) if only and out.exists() else {}
    profiles = [reference_profile(suite.parent / "reference-times.csv"),
                *measure(suite, jobs, cap, only)]  # fmt: skip
    kept.update({p.name: p for p in profiles})
    profiles = list(kept.values())
    save(profiles, out, cap)
    for p in profiles:
        print(f"{p.name:<18} {p.total / 60:7.1f} CPU-min an upload, {p.timeouts} timeouts "
              f"of {len(p.costs)} ({p.words})")  # fmt: skip
