"""A class compared: hand-ins read, normalised, fingerprinted and paired."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from plpuzzle.i18n import _
from plpuzzle.runtime import Dialect
from plpuzzle.sudoku.grading.similarity.fingerprints import WINDOW, K, fingerprints
from plpuzzle.sudoku.grading.similarity.index import Pair, Scale, cliques, scale, score_pairs
from plpuzzle.sudoku.grading.similarity.normalise import Token, normalise
from plpuzzle.sudoku.grading.similarity.reading import (
    PARTLY,
    PROLOG,
    TOKENS,
    FileRead,
    Reader,
    clpfd_elsewhere,
    read_texts,
    vocabulary,
)
from plpuzzle.sudoku.grading.similarity.source import HandIn, SourceFile
from plpuzzle.untrusted import one_line

#: A pair is shown when the larger of its two shares is at least THRESHOLD
#: (or the class's own cut, where its honest work is more alike: index.Scale)
#: and it shares at least MIN_SHARED fingerprints besides the --base and
#: the reference code: a file of a few clauses is all inside many others,
#: and proves nothing. Chosen from the measured distributions and the
#: labelled set: docs/teachers.md, *Similar hand-ins*.
THRESHOLD = 0.65
MIN_SHARED = 30

#: The shipped reference of independent work (textbook answers): what a
#: hand-in shares with it is left out, as --base code is.
REFERENCE = Path(__file__).with_name("reference.pl")

#: The least class whose own scale is trusted to raise the threshold
#: (eight hand-ins make 28 pairs).
SCALE_CLASS = 8

#: A group of hand-ins that all match each other is a ring when it has at
#: least this many members: shown first, with what they all share.
RING = 3

#: Tokens kept of one hand-in, its files together (a solution has a few
#: thousand): each file gets an equal share, at most the reader's
#: MAX_TOKENS. A hand-in of twenty huge files costs no more than one.
HANDIN_TOKENS = 200_000


@dataclass(frozen=True)
class Settings:
    """How a class was compared (the report states it)."""

    dialect: Dialect = "sicstus4"
    threshold: float = THRESHOLD
    min_shared: int = MIN_SHARED
    k: int = K
    window: int = WINDOW
    #: The --base files, by name.
    base: tuple[str, ...] = ()
    #: Whether the shipped reference of textbook code is left out.
    reference: bool = True
    #: Whether the class's own scale may raise the threshold (not when
    #: the teacher set one: `similar --threshold`).
    own_scale: bool = True


@dataclass
class Compared:
    """One hand-in as compared: how its files were read, its normal form
    and its fingerprints (hash -> positions in `stream`), base code removed."""

    handin: HandIn
    reads: list[FileRead]
    stream: list[Token]
    prints: dict[int, list[int]]
    #: What went wrong comparing it (then it has no fingerprints).
    problems: list[str] = field(default_factory=list)

    @property
    def student(self) -> str:
        return self.handin.student

    @property
    def how(self) -> str:
        """How it was read: by Prolog, partly as tokens, or as tokens."""
        kinds = {r.how for r in self.reads}
        if kinds <= {PROLOG}:
            return PROLOG
        return TOKENS if kinds == {TOKENS} else PARTLY

    @property
    def notes(self) -> list[str]:
        out = list(self.handin.notes)
        for source, read in zip(self.handin.files, self.reads, strict=True):
            out += [f"{one_line(source.name)}: {n}" for n in read.notes]
        return out + self.problems


@dataclass(frozen=True)
class Ring:
    """Hand-ins every two of which are a reported pair: by name, by index,
    the fingerprints they all hold, and what share of its smallest member
    that is."""

    students: list[str]
    members: list[int]
    common: int
    share: float


@dataclass
class Similarity:
    """The class compared: every hand-in, every pair that shares anything."""

    handins: list[Compared]
    pairs: list[Pair]
    settings: Settings
    #: Whether bubblewrap confined the reader (else the kernel's limits alone).
    sandboxed: bool = False
    #: Fingerprints of the --base files, left out of every hand-in's.
    base_prints: int = 0
    identical: list[list[str]] = field(default_factory=list)
    same_normal: list[list[str]] = field(default_factory=list)
    #: Fingerprints of the shipped reference, left out of every hand-in's.
    reference_prints: int = 0
    #: The class's distribution of pair scores, and the cut it sets.
    scale: Scale | None = None
    _rings: list[Ring] | None = field(default=None, repr=False)

    @property
    def cut(self) -> float:
        """The share a pair must reach: the threshold, or the class's own
        cut where its honest work is more alike."""
        return self.scale.cut if self.scale else self.settings.threshold

    def shown(self, pair: Pair) -> bool:
        """Whether `pair` is reported: the cut, and enough evidence."""
        return pair.score >= self.cut and pair.evidence >= self.settings.min_shared

    def above(self) -> list[Pair]:
        """The pairs reported: the pairs of each ring first (largest ring
        first), then the others, each by score."""
        rings = [set(r.members) for r in self.rings()]

        def rank(p: Pair) -> int:
            return next((n for n, g in enumerate(rings) if {p.a, p.b} <= g), len(rings))

        return sorted((p for p in self.pairs if self.shown(p)), key=rank)

    def rings(self) -> list[Ring]:
        """The groups of RING or more hand-ins every two of which are a
        reported pair (not a chain: A like B and B like C is no group
        unless A is like C), largest first, with what they all share."""
        if self._rings is None:
            links = ((p.a, p.b) for p in self.pairs if self.shown(p))
            self._rings = [self._ring(g) for g in cliques(links, RING)]
        return self._rings

    def _ring(self, members: list[int]) -> Ring:
        held = set(self.handins[members[0]].prints)
        for i in members[1:]:
            held &= self.handins[i].prints.keys()
        least = min(len(self.handins[i].prints) for i in members)
        names = sorted(self.student(i) for i in members)
        return Ring(names, members, len(held), len(held) / least if least else 0.0)

    def clusters(self) -> list[list[str]]:
        """The rings' members, by name (the groups of earlier reports)."""
        return [r.students for r in self.rings()]

    def why(self, pair: Pair) -> str:
        """Why `pair` is in the report, in words, in the language in force."""
        s = self.settings
        sc = self.scale
        level = f"{self.cut:.0%}"
        if sc and sc.raised:
            level += " " + _(
                "(raised from %(threshold)s: this class's pairs are typically %(median)s alike, "
                "give or take %(spread)s)"
            ) % {"threshold": f"{s.threshold:.0%}", "median": f"{sc.median:.0%}",
                 "spread": f"{sc.spread:.0%}"}  # fmt: skip
        elif sc:
            level += " " + _("(this class's pairs are typically %(median)s alike)") % {
                "median": f"{sc.median:.0%}"}  # fmt: skip
        why = _(
            "%(score)s of one hand-in is in the other, at or above %(level)s; %(shared)s "
            "fingerprints in common, at least %(least)s"
        ) % {"score": f"{pair.score:.0%}", "level": level, "shared": pair.shared,
             "least": s.min_shared}  # fmt: skip
        ring = next((r for r in self.rings() if {pair.a, pair.b} <= set(r.members)), None)
        if ring:
            why += "; " + _("one of a group of %(count)s that all match") % {
                "count": len(ring.members)}  # fmt: skip
        return why

    def student(self, i: int) -> str:
        return self.handins[i].student


def _compared(
    h: HandIn, reads: list[FileRead], words: frozenset[str], settings: Settings
) -> Compared:
    """One hand-in normalised and fingerprinted. What goes wrong with it
    leaves it out of the pairs, with a note, and never the class out of
    the report."""
    try:
        for number, read in enumerate(reads):
            for clause in read.clauses:
                clause.file = number
        texts = [f.text for f in h.files]
        stream = normalise((c for r in reads for c in r.clauses), texts, words)
        prints = fingerprints([t.text for t in stream], settings.k, settings.window)
    except Exception as e:  # this hand-in's, never the class's
        why = one_line(f"{type(e).__name__}: {e}", 300)
        return Compared(h, reads, [], {}, [f"not compared: {why}"])
    return Compared(h, reads, stream, prints)


def _same(keys: Sequence[str], names: Sequence[str]) -> list[list[str]]:
    by_key: dict[str, list[str]] = {}
    for key, name in zip(keys, names, strict=True):
        by_key.setdefault(key, []).append(name)
    return sorted(sorted(g) for g in by_key.values() if len(g) > 1)


def compare(
    handins: Sequence[HandIn],
    base: Sequence[HandIn] = (),
    settings: Settings | None = None,
    jobs: int = 1,
) -> Similarity:
    """Compare `handins`, leaving out what they share with `base`. Raises
    reading.ReaderUnavailable when SWI-Prolog cannot run."""
    settings = settings or Settings(base=tuple(b.student for b in base))
    words = vocabulary()
    textbook = reference() if settings.reference else []
    everyone = [*handins, *base, *textbook]
    texts = [f.text for h in everyone for f in h.files]
    budgets = [HANDIN_TOKENS // len(h.files) for h in everyone for _ in h.files]
    reader = Reader(settings.dialect)
    clpfd = clpfd_elsewhere([[f.text for f in h.files] for h in everyone])
    reads = iter(read_texts(texts, settings.dialect, jobs, reader, budgets, clpfd))
    compared: list[Compared] = []
    for h in everyone:
        mine = [next(reads) for _ in h.files]
        compared.append(_compared(h, mine, words, settings))
    students = compared[: len(handins)]
    templates = compared[len(handins) : len(handins) + len(base)]
    common = {h for t in templates for h in t.prints}
    known = {h for t in compared[len(handins) + len(base) :] for h in t.prints} - common
    for c in students:
        c.prints = {h: p for h, p in c.prints.items() if h not in common and h not in known}
    pairs = score_pairs([set(c.prints) for c in students])
    names = [c.student for c in students]
    scale_ = scale((p.score for p in pairs), len(students), settings.threshold)
    if not settings.own_scale or len(students) < SCALE_CLASS:
        scale_ = replace(scale_, cut=settings.threshold)
    identical = [
        g for g in _same([c.handin.digest for c in students], names) if _telling(g, students, 1)
    ]
    normal = ["\0".join(t.text for t in c.stream) for c in students]
    same_normal = [
        g
        for g in _same(normal, names)
        if not any(set(g) <= set(i) for i in identical)
        and _telling(g, students, settings.min_shared)
    ]
    return Similarity(
        students, pairs, settings, reader.sandboxed, len(common), identical, same_normal,
        len(known), scale_,
    )  # fmt: skip


def _telling(group: list[str], students: list[Compared], least: int) -> bool:
    """Whether a set of equal hand-ins is worth listing: each has at least
    `least` fingerprints besides the base and the reference (a copy of the
    --base file, or a two-clause textbook answer, says nothing)."""
    by_name = {c.student: c for c in students}
    return all(len(by_name[name].prints) >= least for name in group)


#: A line that starts a clause of a predicate: its name.
_HEAD = re.compile(r"^([a-z]\w*)")


def reference() -> list[HandIn]:
    """The shipped reference, one hand-in per predicate (so that its
    clauses are fingerprinted as a hand-in's own, not mixed with the
    others' in the sorted normal form)."""
    blocks: dict[str, list[str]] = {}
    for line in REFERENCE.read_text(encoding="utf-8").splitlines():
        head = _HEAD.match(line)
        if head:
            blocks.setdefault(head.group(1), []).append(line)
    return [
        HandIn(f"reference:{name}", (SourceFile(f"{name}.pl", "\n".join(lines) + "\n"),), name)
        for name, lines in blocks.items()
    ]
