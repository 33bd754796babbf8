"""The similarity report as data: the JSON summary, the CSV of pairs, and
where two hand-ins match, in their files as written.

The words are the report's own and neutral on purpose: it says how much
of one file's fingerprints are found in another, and names no cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from plpuzzle.i18n import _, speaking
from plpuzzle.sudoku.grading.similarity.compare import Compared, Ring, Similarity
from plpuzzle.sudoku.grading.similarity.index import Pair
from plpuzzle.untrusted import spreadsheet_csv

#: The columns of similarity.csv.
CSV_COLUMNS = (
    "student_a", "student_b", "share_of_a", "share_of_b", "shared_fingerprints",
    "fingerprints_a", "fingerprints_b", "evidence", "at_or_above_threshold",
)  # fmt: skip


def pair_row(sim: Similarity, pair: Pair) -> dict[str, Any]:
    """One pair as the CSV and the JSON give it."""
    a, b = sim.handins[pair.a], sim.handins[pair.b]
    return {
        "student_a": a.student,
        "student_b": b.student,
        "share_of_a": round(pair.share_a, 3),
        "share_of_b": round(pair.share_b, 3),
        "shared_fingerprints": pair.shared,
        "fingerprints_a": len(a.prints),
        "fingerprints_b": len(b.prints),
        "evidence": round(pair.evidence, 1),
        "at_or_above_threshold": sim.shown(pair),
    }


def ring_row(sim: Similarity, ring: Ring) -> dict[str, Any]:
    """One ring as the JSON gives it: its members and what they all share."""
    return {
        "size": len(ring.students),
        "students": ring.students,
        "common_fingerprints": ring.common,
        "share_of_smallest": round(ring.share, 3),
    }


def to_csv(sim: Similarity) -> str:
    """Every pair that shares a fingerprint, highest score first."""
    rows: list[list[Any]] = [list(CSV_COLUMNS)]
    for pair in sim.pairs:
        row = pair_row(sim, pair)
        row["at_or_above_threshold"] = "yes" if row["at_or_above_threshold"] else "no"
        rows.append([row[column] for column in CSV_COLUMNS])
    return spreadsheet_csv(rows)


def summary(sim: Similarity) -> dict[str, Any]:
    """What the JSON reports hold: the settings, each hand-in's count of
    fingerprints and how it was read, and the pairs at or above the
    threshold, the groups, the identical files (no file text). In
    English, whatever language the pages speak."""
    with speaking("en"):
        return _summary(sim)


def _summary(sim: Similarity) -> dict[str, Any]:
    s = sim.settings
    return {
        "method": "winnowing of normalised Prolog tokens (Schleimer, Wilkerson, Aiken 2003)",
        "settings": {
            "dialect": s.dialect,
            "k": s.k,
            "window": s.window,
            "threshold": s.threshold,
            "min_shared": s.min_shared,
            "weighing": "every fingerprint counts one; the --base files' and the shipped "
            "reference's are left out",
            "groups": "hand-ins that all match each other, pair by pair (rings)",
            "base": list(s.base),
            "base_fingerprints": sim.base_prints,
            "reference_fingerprints": sim.reference_prints,
            "reader": reader_words(sim),
        },
        "handins": [
            {"student": c.student, "fingerprints": len(c.prints), "read": c.how, "notes": c.notes}
            for c in sim.handins
        ],
        "scale": scale_row(sim),
        "rings": [ring_row(sim, r) for r in sim.rings()],
        "pairs": [{**pair_row(sim, p), "why": sim.why(p)} for p in sim.above()],
        "groups": sim.clusters(),
        "identical": sim.identical,
        "same_after_normalisation": sim.same_normal,
    }


def scale_row(sim: Similarity) -> dict[str, Any]:
    """The class's distribution of pair scores and the cut it sets."""
    sc = sim.scale
    if sc is None:
        return {"cut": sim.cut}
    return {
        "pairs": sc.pairs,
        "median": round(sc.median, 3),
        "spread": round(sc.spread, 3),
        "p90": round(sc.p90, 3),
        "cut": round(sc.cut, 3),
        "raised": sc.raised,
    }


def reader_words(sim: Similarity) -> str:
    """How the files were read, in words, for the reports, in the language
    in force."""
    if sim.sandboxed:
        return _(
            "SWI-Prolog's reader, in a bubblewrap sandbox, under CPU, memory and output "
            "limits; no file was run"
        )
    return _(
        "SWI-Prolog's reader, in a separate process (no bubblewrap here), under CPU, memory "
        "and output limits; no file was run"
    )


# -- where two hand-ins match ---------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    """A stretch of a file that matches the other hand-in: which file,
    character offsets, and the passage it belongs to (numbered from 1 in
    the order of the first hand-in's normal form)."""

    file: int
    start: int
    end: int
    passage: int


#: What may lie between two matched tokens of one mark: layout,
#: punctuation and the full stop that ends a clause (a comment, or any
#: unmatched token, between them splits the mark).
_GLUE = re.compile(r"[\s()\[\]{},|.]*")


#: What a mark takes in after its last token: closing brackets and a
#: clause's full stop (punctuation has no offsets of its own).
_CLOSING = re.compile(r"(?:\s*[)\]}])*(?:\.(?=\s|$))?")


def _spans(handin: Compared, tokens: dict[int, int]) -> list[tuple[Mark, list[int]]]:
    """Marks from token index -> passage: each token's text, merged with
    its neighbour (of the same passage) when only layout or punctuation
    lies between; with the token indexes each mark covers."""
    spots = sorted(
        (t.file, t.start, t.end, p, i)
        for i, p in tokens.items()
        if (t := handin.stream[i]).start >= 0
    )
    texts = [f.text for f in handin.handin.files]
    marks: list[tuple[Mark, list[int]]] = []
    for file, start, end, passage, index in spots:
        if marks:
            last, covered = marks[-1]
            if last.file == file and start < last.end:
                covered.append(index)  # inside the previous mark
                continue
            if (
                last.file == file
                and last.passage == passage
                and _GLUE.fullmatch(texts[file], last.end, start)
            ):
                marks[-1] = (Mark(file, last.start, end, passage), [*covered, index])
                continue
        marks.append((Mark(file, start, end, passage), [index]))
    out = []
    for n, (mark, covered) in enumerate(marks):
        limit = len(texts[mark.file])
        if n + 1 < len(marks) and marks[n + 1][0].file == mark.file:
            limit = marks[n + 1][0].start
        closing = _CLOSING.match(texts[mark.file], mark.end, limit)
        end = closing.end() if closing else mark.end
        out.append((Mark(mark.file, mark.start, end, mark.passage), covered))
    return out


#: Work one pair's side-by-side marks may take: positions of one shared
#: fingerprint looked at on each side, and token comparisons in all. Two
#: solutions of the assignment take a small part of it; two hand-ins made
#: of one token repeated (every position a fingerprint, every pair of
#: positions a run) would take time quadratic in their lengths without it.
POSITIONS = 64
MATCH_STEPS = 2_000_000


@dataclass(frozen=True)
class Matches:
    """Where a pair matches, in A's files and in B's; `cut` when the work
    budget ran out first (the marks are then those found by then)."""

    a: list[Mark]
    b: list[Mark]
    cut: bool = False


def _runs(
    a: Compared, b: Compared, shared: set[int], k: int, steps: int = MATCH_STEPS
) -> tuple[list[tuple[int, int, int]], bool]:
    """(start in A, start in B, length) of the runs of equal normal tokens
    around every fingerprint the two share, each as long as the streams
    agree (a fingerprint marks k tokens; the run around it may be longer);
    and whether the budget of `steps` token comparisons ran out first."""
    runs: list[tuple[int, int, int]] = []
    covered: dict[int, list[tuple[int, int]]] = {}
    for h in sorted(shared):
        for pa in a.prints[h][:POSITIONS]:
            for pb in b.prints[h][:POSITIONS]:
                steps -= 1 + len(covered.get(pa - pb, ()))
                if steps < 0:
                    return runs, True
                if any(s <= pa < e for s, e in covered.get(pa - pb, ())):
                    continue
                sa, sb = pa, pb
                while sa > 0 and sb > 0 and a.stream[sa - 1].text == b.stream[sb - 1].text:
                    sa, sb = sa - 1, sb - 1
                ea, eb = pa, pb
                while (
                    ea < len(a.stream)
                    and eb < len(b.stream)
                    and a.stream[ea].text == b.stream[eb].text
                ):
                    ea, eb = ea + 1, eb + 1
                steps -= ea - sa
                if ea - sa < k:
                    continue  # equal hashes of different k-grams
                covered.setdefault(pa - pb, []).append((sa, ea))
                runs.append((sa, sb, ea - sa))
    return runs, steps < 0


def matches(sim: Similarity, pair: Pair, steps: int = MATCH_STEPS) -> Matches:
    """Where `pair` matches, in A's files and in B's: the runs of equal
    normal tokens around every fingerprint both have, within a budget of
    `steps` token comparisons. A passage is a stretch of A's text so
    marked (numbered in A's order); each token of B takes the passage of
    the token of A it matches, so a passage has one number on both sides."""
    a, b = sim.handins[pair.a], sim.handins[pair.b]
    runs, cut = _runs(a, b, set(a.prints.keys() & b.prints.keys()), sim.settings.k, steps)
    stretches = _spans(a, {sa + d: 0 for sa, _, n in runs for d in range(n)})
    region = {i: n for n, (_, covered) in enumerate(stretches, 1) for i in covered}
    marked_b: dict[int, int] = {}
    for sa, sb, n in runs:
        passages = [region.get(sa + d) for d in range(n)]
        known = [p for p in passages if p is not None]
        last = known[0] if known else 0
        for d, passage in enumerate(passages):
            last = passage if passage is not None else last
            if last < marked_b.get(sb + d, len(stretches) + 1):
                marked_b[sb + d] = last
    marks_a = [Mark(m.file, m.start, m.end, n) for n, (m, _) in enumerate(stretches, 1)]
    return Matches(marks_a, [m for m, _ in _spans(b, marked_b)], cut)


def line_of(text: str, offset: int) -> int:
    """The 1-based line of a character offset."""
    return text.count("\n", 0, offset) + 1
