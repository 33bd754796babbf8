"""How well the similarity report tells copies from independent work, on
a labelled set (tests/fixtures/similarity_eval): precision and recall of
the pairs it reports at its threshold.

The set is a class of hand-ins written for it (labels.toml says which are
disguised copies of which); every other pair is independent work of the
same exercise or unrelated programs. A reported pair that is no copy is a
false accusation, the error that matters most, so the figures name every
such pair, and the copies that were missed.
"""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from plpuzzle.sudoku.grading import similarity

REPO = Path(__file__).resolve().parents[2]
EVAL = REPO / "tests" / "fixtures" / "similarity_eval"
CLASS = EVAL / "class"


@dataclass(frozen=True)
class Labels:
    """The set's truth: copy -> the hand-in it was made from, and each
    hand-in's kind (family, roads, ...)."""

    origin: dict[str, str]
    kinds: dict[str, str]

    def is_copy(self, a: str, b: str) -> bool:
        """Whether a and b are one hand-in and a copy of it (or two copies of one)."""
        return self.origin.get(a, a) == self.origin.get(b, b)


def labels(folder: Path = EVAL) -> Labels:
    """The labels of the set in `folder`."""
    data = tomllib.loads((folder / "labels.toml").read_text(encoding="utf-8"))
    origin = {name: str(copy["of"]) for name, copy in data.get("copies", {}).items()}
    kinds = {name: kind for kind, names in data.get("kinds", {}).items() for name in names}
    return Labels(origin, kinds)


@dataclass
class Evaluation:
    """The pairs as reported against the labels."""

    students: list[str]
    threshold: float
    #: (score, a, b) of the copy pairs reported, and of those missed.
    found: list[tuple[float, str, str]] = field(default_factory=list)
    missed: list[tuple[float, str, str]] = field(default_factory=list)
    #: (score, a, b) of the pairs reported that are no copies.
    false: list[tuple[float, str, str]] = field(default_factory=list)
    #: The highest scores of pairs that are no copies (reported or not).
    closest: list[tuple[float, str, str]] = field(default_factory=list)
    groups: list[list[str]] = field(default_factory=list)
    not_compared: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        """Of the pairs reported, the share that are copies (1 when none is)."""
        reported = len(self.found) + len(self.false)
        return len(self.found) / reported if reported else 1.0

    @property
    def recall(self) -> float:
        """Of the copy pairs, the share reported."""
        copies = len(self.found) + len(self.missed)
        return len(self.found) / copies if copies else 1.0

    def lines(self) -> list[str]:
        pairs = len(self.students) * (len(self.students) - 1) // 2
        copies = len(self.found) + len(self.missed)
        out = [
            f"{len(self.students)} hand-ins, {pairs} pairs: {copies} copy pairs, "
            f"{pairs - copies} independent or unrelated",
            f"threshold {self.threshold:.0%}: {len(self.found) + len(self.false)} pair(s) "
            f"reported, {len(self.found)} copies, {len(self.false)} false",
            f"precision {self.precision:.1%}, recall {self.recall:.1%}",
        ]
        out += [f"  missed copy: {a} ~ {b} ({s:.0%})" for s, a, b in self.missed]
        out += [f"  false pair: {a} ~ {b} ({s:.0%})" for s, a, b in self.false]
        out += [f"  closest non-copy: {a} ~ {b} ({s:.0%})" for s, a, b in self.closest[:5]]
        out += [f"  group: {', '.join(g)}" for g in self.groups]
        out += [f"  not compared: {n}" for n in self.not_compared]
        return out


def evaluate(sim: similarity.Similarity, truth: Labels, left_out: list[str]) -> Evaluation:
    """The comparison `sim` of the set judged by `truth`."""
    students = sorted(c.student for c in sim.handins)
    scores = {(sim.student(p.a), sim.student(p.b)): p.score for p in sim.pairs}
    above = {(sim.student(p.a), sim.student(p.b)) for p in sim.above()}
    out = Evaluation(students, sim.settings.threshold, groups=sim.clusters())
    out.not_compared = list(left_out)
    everyone = sorted({*students, *truth.origin, *truth.origin.values()})
    for a, b in itertools.combinations(everyone, 2):
        score = max(scores.get((a, b), 0.0), scores.get((b, a), 0.0))
        reported = (a, b) in above or (b, a) in above
        if truth.is_copy(a, b):
            (out.found if reported else out.missed).append((score, a, b))
        else:
            if reported:
                out.false.append((score, a, b))
            out.closest.append((score, a, b))
    out.closest.sort(reverse=True)
    out.false.sort(reverse=True)
    return out


def run(jobs: int = 2, settings: similarity.Settings | None = None) -> Evaluation:
    """The set compared as `plpuzzle sudoku similar` compares a class, and judged."""
    sim, left_out = similarity.compare_class(CLASS, settings=settings, jobs=jobs)
    return evaluate(sim, labels(), left_out)
