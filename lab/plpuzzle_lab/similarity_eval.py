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


#: A pair as judged: its score, its evidence, and the two hand-ins.
Row = tuple[float, float, str, str]


def _said(row: Row, least: float) -> str:
    score, evidence, a, b = row
    short = f" < {least:g}" if evidence < least else ""
    return f"{a} ~ {b} ({score:.0%}, evidence {evidence:.1f}{short})"


@dataclass
class Evaluation:
    """The pairs as reported against the labels."""

    students: list[str]
    threshold: float
    #: The least evidence a reported pair has (Settings.min_shared).
    min_evidence: float = 0.0
    #: (score, evidence, a, b) of the copy pairs reported, and of those missed.
    found: list[Row] = field(default_factory=list)
    missed: list[Row] = field(default_factory=list)
    #: (score, evidence, a, b) of the pairs reported that are no copies.
    false: list[Row] = field(default_factory=list)
    #: The highest scores of pairs that are no copies (reported or not).
    closest: list[Row] = field(default_factory=list)
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
        least = self.min_evidence
        out += [f"  lowest copy: {_said(min(self.found), least)}"] if self.found else []
        out += [f"  missed copy: {_said(row, least)}" for row in self.missed]
        out += [f"  false pair: {_said(row, least)}" for row in self.false]
        out += [f"  closest non-copy: {_said(row, least)}" for row in self.closest[:5]]
        if self.closest:
            most = max(self.closest, key=lambda row: row[1])
            out.append(f"  most evidence of a non-copy: {_said(most, least)}")
        out += [f"  group: {', '.join(g)}" for g in self.groups]
        out += [f"  not compared: {n}" for n in self.not_compared]
        return out


def evaluate(sim: similarity.Similarity, truth: Labels, left_out: list[str]) -> Evaluation:
    """The comparison `sim` of the set judged by `truth`."""
    students = sorted(c.student for c in sim.handins)
    scores = {(sim.student(p.a), sim.student(p.b)): p for p in sim.pairs}
    above = {(sim.student(p.a), sim.student(p.b)) for p in sim.above()}
    out = Evaluation(
        students, sim.settings.threshold, sim.settings.min_shared, groups=sim.clusters()
    )
    out.not_compared = list(left_out)
    everyone = sorted({*students, *truth.origin, *truth.origin.values()})
    for a, b in itertools.combinations(everyone, 2):
        pair = scores.get((a, b)) or scores.get((b, a))
        row = (pair.score, pair.evidence, a, b) if pair else (0.0, 0.0, a, b)
        reported = (a, b) in above or (b, a) in above
        if truth.is_copy(a, b):
            (out.found if reported else out.missed).append(row)
        else:
            if reported:
                out.false.append(row)
            out.closest.append(row)
    out.closest.sort(reverse=True)
    out.false.sort(reverse=True)
    return out


def run(jobs: int = 2, settings: similarity.Settings | None = None) -> Evaluation:
    """The set compared as `plpuzzle sudoku similar` compares a class, and judged."""
    sim, left_out = similarity.compare_class(CLASS, settings=settings, jobs=jobs)
    return evaluate(sim, labels(), left_out)


# -- rings and guided labs (issue 57) -------------------------------------------------------


def generated(folder: Path, jobs: int = 2) -> tuple[list[str], bool]:
    """Rings of 10-33% of a class (verbatim and ever more modified copies,
    the ring solver of similarity_rings among the fixtures' independent
    solutions) and guided labs of independent answers: per class, the
    ring members found and missed, the false pairs; and whether all is
    right (every copy pair and member found, no false pair)."""
    import shutil

    from plpuzzle_lab.similarity_rings import LAB_FACTS, guided_lab, ring_class

    out, right = [], True
    for size, ring in ((18, 10), (30, 3), (36, 9), (36, 12)):
        klass = folder / f"ring_{size}_{ring}"
        shutil.rmtree(klass, ignore_errors=True)
        members = set(ring_class(klass, size, ring))
        sim, _ = similarity.compare_class(klass, jobs=jobs)
        above = {frozenset((sim.student(p.a), sim.student(p.b))) for p in sim.above()}
        copies = {frozenset(p) for p in itertools.combinations(sorted(members), 2)}
        found = {m for r in sim.rings() if set(r.students) <= members for m in r.students}
        right &= above == copies and found == members
        out.append(
            f"ring of {ring} in {size}: {len(above & copies)} of {len(copies)} copy pairs, "
            f"{len(above - copies)} false; members in a group: {len(found)} of {ring}"
        )
    facts = folder / "lab_facts.pl"
    facts.write_text(LAB_FACTS)
    for students in (12, 24):
        klass = folder / f"lab_{students}"
        shutil.rmtree(klass, ignore_errors=True)
        guided_lab(klass, students)
        sim, _ = similarity.compare_class(klass, base=[facts], jobs=jobs)
        top = sim.pairs[0].score if sim.pairs else 0.0
        sc = sim.scale
        assert sc is not None
        right &= not sim.above()
        out.append(
            f"guided lab of {students} (facts as --base): {len(sim.above())} false pair(s); "
            f"highest pair {top:.0%}, median {sc.median:.0%}, cut {sc.cut:.0%}"
        )
    return out, right
