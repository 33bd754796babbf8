"""A class compared: hand-ins read, normalised, fingerprinted and paired."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from plpuzzle.runtime import Dialect
from plpuzzle.sudoku.grading.similarity.fingerprints import WINDOW, K, fingerprints
from plpuzzle.sudoku.grading.similarity.index import Pair, cliques, score_pairs
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
from plpuzzle.sudoku.grading.similarity.source import HandIn
from plpuzzle.untrusted import one_line

#: A pair is shown when the larger of its two shares is at least THRESHOLD
#: and what it shares weighs at least MIN_SHARED fingerprints, each
#: weighed by its rarity in the class (index.weight): a file of a few
#: clauses, or of what everyone writes, is all inside many others, and
#: proves nothing. Chosen from the measured distributions and the
#: labelled set: docs/teachers.md, *Similar hand-ins*.
THRESHOLD = 0.65
MIN_SHARED = 30

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

    def above(self) -> list[Pair]:
        """The pairs at or above the threshold, highest score first."""
        s = self.settings
        return [p for p in self.pairs if p.score >= s.threshold and p.evidence >= s.min_shared]

    def clusters(self) -> list[list[str]]:
        """Groups of three or more hand-ins each pair of which is at or
        above the threshold (not a chain: A like B and B like C is no
        group unless A is like C)."""
        links = ((p.a, p.b) for p in self.above())
        found = [sorted(self.student(i) for i in g) for g in cliques(links)]
        return sorted(found, key=lambda g: (-len(g), g))

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
    everyone = [*handins, *base]
    texts = [f.text for h in everyone for f in h.files]
    budgets = [HANDIN_TOKENS // len(h.files) for h in everyone for _ in h.files]
    reader = Reader(settings.dialect)
    clpfd = clpfd_elsewhere([[f.text for f in h.files] for h in everyone])
    reads = iter(read_texts(texts, settings.dialect, jobs, reader, budgets, clpfd))
    compared: list[Compared] = []
    for h in everyone:
        mine = [next(reads) for _ in h.files]
        compared.append(_compared(h, mine, words, settings))
    students, templates = compared[: len(handins)], compared[len(handins) :]
    common = {h for t in templates for h in t.prints}
    for c in students:
        c.prints = {h: p for h, p in c.prints.items() if h not in common}
    pairs = score_pairs([set(c.prints) for c in students])
    names = [c.student for c in students]
    identical = _same([c.handin.digest for c in students], names)
    normal = ["\0".join(t.text for t in c.stream) for c in students]
    same_normal = [g for g in _same(normal, names) if not any(set(g) <= set(i) for i in identical)]
    return Similarity(
        students, pairs, settings, reader.sandboxed, len(common), identical, same_normal
    )
