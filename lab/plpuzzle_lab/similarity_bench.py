"""How long the similarity report takes for a large class: a synthetic
class of hand-ins, compared as `plpuzzle sudoku similar` compares one.

The class is made from the 18 correct solutions of the test fixtures (the
SICStus class and the similarity evidence's independent solutions). Each
synthetic student takes most clauses of one of them, drops some, adds a
few clauses of others, renames every variable and predicate of the file
and shuffles the clauses, and sprinkles comments. So the class has what a
real one has for the index (fingerprints shared by many hand-ins, and
families of similar ones) at a size no fixture could have.
"""

from __future__ import annotations

import itertools
import random
import re
import shutil
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sudoku.grading import similarity
from plpuzzle.sudoku.grading.similarity.source import decode
from plpuzzle.sudoku.grading.similarity.tokens import NAME, VAR, tokenize

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
EVIDENCE = FIXTURES / "similarity"
SOURCES = [FIXTURES / "sicstus_class", EVIDENCE / "independent"]

_END = re.compile(r"[\s)\]}]*\.")


def _clauses(text: str) -> list[tuple[str, list[tuple[int, int, str, str]]]]:
    """Each clause's text, and its variables and names to rename as
    (start, end, kind, value) relative to that text."""
    out = []
    for clause in tokenize(text):
        spots = [t for t in clause.tokens if t.start >= 0]
        if not spots or spots[0].value == ":-":
            continue
        start = spots[0].start
        end_match = _END.match(text, spots[-1].end)
        end = end_match.end() if end_match else spots[-1].end
        renames = [(t.start - start, t.end - start, t.kind, str(t.value)) for t in spots
                   if t.kind == VAR or (t.kind == NAME and t.value == clause.head)]  # fmt: skip
        out.append((text[start:end], renames))
    return out


def _word(rng: random.Random, upper: bool) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    word = "".join(rng.choice(letters) for _ in range(rng.randint(3, 8)))
    return word.capitalize() if upper else word


def _rewrite(clause: tuple[str, list[tuple[int, int, str, str]]], names: dict[str, str],
             rng: random.Random) -> str:  # fmt: skip
    """A clause with its variables renamed afresh and its head renamed by `names`."""
    text, spots = clause
    variables: dict[str, str] = {}
    for start, end, kind, value in sorted(spots, reverse=True):
        if kind == VAR:
            new = variables.setdefault(value, _word(rng, True) + str(len(variables)))
        else:
            new = names.setdefault(value, _word(rng, False) + "_" + str(len(names)))
        text = text[:start] + new + text[end:]
    return text


def synthetic_class(folder: Path, students: int = 400, seed: int = 2013) -> Path:
    """Write `students` hand-ins (ID.pl files) into `folder`."""
    rng = random.Random(seed)
    bases = [
        _clauses(decode(p.read_bytes())) for source in SOURCES for p in sorted(source.glob("*.pl"))
    ]
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(students):
        base = rng.choice(bases)
        kept = [c for c in base if rng.random() > 0.2]
        for _ in range(rng.randint(2, 8)):
            kept.append(rng.choice(rng.choice(bases)))
        rng.shuffle(kept)
        names: dict[str, str] = {"sudoku": "sudoku"}
        lines = [":- use_module(library(clpfd)).\n"]
        for clause in kept:
            if rng.random() < 0.2:
                lines.append(f"% {_word(rng, False)} {_word(rng, False)}\n")
            lines.append(_rewrite(clause, names, rng) + "\n")
        (folder / f"s{n:03d}.pl").write_text("".join(lines))
    return folder


@dataclass
class Figures:
    """What one run of the benchmark measured."""

    students: int
    compare_seconds: float
    reports_seconds: float
    pairs: int
    above: int
    fingerprints: int
    sandboxed: bool

    def lines(self) -> list[str]:
        return [
            f"{self.students} hand-ins compared in {self.compare_seconds:.1f} s "
            f"(reading, normal form, fingerprints and every pair), reports written in "
            f"{self.reports_seconds:.1f} s",
            f"{self.fingerprints} fingerprints in all; {self.pairs} pairs share at least one "
            f"(of {self.students * (self.students - 1) // 2} possible); {self.above} at or "
            f"above the threshold",
            "reader: " + ("bubblewrap sandbox" if self.sandboxed else "plain process"),
        ]


def run(folder: Path, students: int = 400, jobs: int = 2, seed: int = 2013) -> Figures:
    """Make the class in `folder`/class, compare it, write the reports into
    `folder`/report; the figures."""
    klass = synthetic_class(folder / "class", students, seed)
    start = time.monotonic()
    sim, _ = similarity.compare_class(klass, jobs=jobs)
    middle = time.monotonic()
    similarity.write_reports(sim, folder / "report")
    end = time.monotonic()
    return Figures(
        len(sim.handins),
        middle - start,
        end - middle,
        len(sim.pairs),
        len(sim.above()),
        sum(len(c.prints) for c in sim.handins),
        sim.sandboxed,
    )


# -- the evidence class, and k and the window swept over it ---------------------------------


def evidence_class(folder: Path) -> dict[str, str]:
    """The similarity evidence class in `folder` (see
    tests/sudoku/test_similarity_evidence.py): student -> the independent
    hand-in it comes from (itself, for an independent one)."""
    folder.mkdir(parents=True)
    origin = {}
    for path in [*sorted((FIXTURES / "sicstus_class").glob("*.pl")),
                 *sorted((EVIDENCE / "independent").glob("*.pl"))]:  # fmt: skip
        shutil.copy(path, folder / path.name)
        origin[path.stem] = path.stem
    shutil.copy(FIXTURES / "redteam" / "ctl_plain.pl", folder / "ctl_plain.pl")
    shutil.copytree(FIXTURES / "redteam" / "ctl_folder", folder / "ctl_folder")
    origin["ctl_plain"], origin["ctl_folder"] = "ctl_plain", "ctl_folder"
    copies = tomllib.loads((EVIDENCE / "copies.toml").read_text())
    for name, copy in copies.items():
        shutil.copy(EVIDENCE / "copies" / f"{name}.pl", folder / f"copy_{name}.pl")
        origin[f"copy_{name}"] = Path(copy["of"]).stem
    return origin


def separation(sim: similarity.Similarity, origin: dict[str, str]) -> tuple[list, list]:
    """((score, evidence, a, b) of every pair made from one hand-in, and of
    every pair of independent hand-ins), each sorted."""
    index = {c.student: i for i, c in enumerate(sim.handins)}
    found = {(p.a, p.b): p for p in sim.pairs}
    copied, independent = [], []
    for a, b in itertools.combinations(sorted(origin), 2):
        x, y = sorted((index[a], index[b]))
        p = found.get((x, y))
        row = (p.score if p else 0.0, p.evidence if p else 0.0, a, b)
        if origin[a] == origin[b]:
            copied.append(row)
        elif a == origin[a] and b == origin[b]:
            independent.append(row)
    return sorted(copied), sorted(independent)


#: The values of k and the window the sweep tries.
SWEEP = ((6, 4), (8, 4), (10, 6), (10, 10), (12, 6), (12, 8), (12, 12), (15, 8), (20, 10),
         (25, 15))  # fmt: skip


def sweep(folder: Path, jobs: int = 2) -> list[str]:
    """For each (k, window) of SWEEP: the lowest pair of a hand-in and its
    disguised copy, the highest pair of independent hand-ins, the margin."""
    origin = evidence_class(folder / "class")
    lines = ["   k  window  lowest copy pair  highest independent pair  margin"]
    for k, window in SWEEP:
        settings = similarity.Settings(k=k, window=window)
        sim, _ = similarity.compare_class(folder / "class", settings=settings, jobs=jobs)
        copied, independent = separation(sim, origin)
        low, high = copied[0][0], independent[-1][0]
        lines.append(f"{k:4d}  {window:6d}  {low:16.1%}  {high:24.1%}  {low - high:6.1%}")
    return lines
