"""A hand-in's course requirements, checked from its clauses as read.

Nothing of a hand-in is loaded or run: its Prolog files are read by the
similarity reader (SWI-Prolog's read_term, confined, bounded; see
similarity/reading.py), or their reading is taken from the similarity
comparison when grading made one, and the checks are plain Python over
what it returns. Whatever goes wrong with one hand-in is a note of its
own, never the class's loss.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from plpuzzle.runtime import Dialect
from plpuzzle.sudoku.grading.intake import read_class
from plpuzzle.sudoku.grading.model import Submission
from plpuzzle.sudoku.grading.requirements.clpfd import UNKNOWN, ClpfdFinding, find_clpfd
from plpuzzle.sudoku.grading.requirements.comments import HeadComments, head_comments
from plpuzzle.sudoku.grading.requirements.documentation import Documentation, documentation
from plpuzzle.sudoku.grading.requirements.layout import Layout, layout
from plpuzzle.sudoku.grading.requirements.terms import Lines, clause
from plpuzzle.sudoku.grading.requirements.words import DEDUCTION_WHY
from plpuzzle.sudoku.grading.similarity.compare import HANDIN_TOKENS, Similarity
from plpuzzle.sudoku.grading.similarity.reading import (
    PROLOG,
    TOKENS,
    FileRead,
    Reader,
    clpfd_elsewhere,
    read_texts,
)
from plpuzzle.sudoku.grading.similarity.source import HandIn, hand_in
from plpuzzle.sudoku.runs.suite_config import DEDUCT, OFF, RequirementsPolicy
from plpuzzle.untrusted import one_line

#: Places listed per finding in the JSON (the counts are complete).
PLACES = 50


@dataclass
class Requirements:
    """One hand-in's requirements: each check's finding (None: off)."""

    student: str
    policy: RequirementsPolicy
    files: list[str] = field(default_factory=list)
    how: str = PROLOG
    clpfd: ClpfdFinding | None = None
    comments: HeadComments | None = None
    layout: Layout | None = None
    documentation: Documentation | None = None
    notes: list[str] = field(default_factory=list)

    def deductions(self) -> list[dict[str, Any]]:
        """The points the suite takes off, each with why."""
        p, out = self.policy, []
        if p.clpfd == DEDUCT and self.clpfd is not None and self.clpfd.status == "no":
            why = DEDUCTION_WHY["clpfd"]
            out.append({"requirement": "clpfd", "points": p.clpfd_points, "why": why})
        doc = self.documentation
        if p.documentation == DEDUCT and doc is not None and not doc.present:
            why = DEDUCTION_WHY["documentation"]
            out.append(
                {"requirement": "documentation", "points": p.documentation_points, "why": why}
            )
        return out

    def to_json(self) -> dict[str, Any]:
        """What grades.json and `requirements --format json` hold."""
        deductions = self.deductions()
        return {
            "files": list(self.files),
            "read": self.how,
            "clpfd": None if self.clpfd is None else self._clpfd_json(self.clpfd),
            "head_comments": None if self.comments is None else self._comments_json(),
            "layout": None if self.layout is None else self._layout_json(self.layout),
            "documentation": None if self.documentation is None else self._doc_json(),
            "deductions": deductions,
            "deduction": _points(sum(d["points"] for d in deductions)),
            "notes": list(self.notes),
        }

    def _name(self, file: int) -> str:
        return self.files[file] if 0 <= file < len(self.files) else "?"

    def _clpfd_json(self, f: ClpfdFinding) -> dict[str, Any]:
        return {
            "status": f.status,
            "loaded": f.loaded,
            "defines_sudoku": f.defines_entry,
            "reached": dict(sorted(f.reached.items(), key=lambda kv: (-kv[1], kv[0]))),
            "elsewhere": dict(sorted(f.elsewhere.items(), key=lambda kv: (-kv[1], kv[0]))),
            "run_time_goals": [
                {"file": self._name(file), "line": line, "what": what}
                for file, line, what in f.dynamic[:PLACES]
            ],
            "predicates_reached": f.reached_predicates,
            "sudoku_syntax_errors": [
                {"file": self._name(file), "line": line} for file, line in f.broken_entry[:PLACES]
            ],
        }

    def _comments_json(self) -> dict[str, Any]:
        c = self.comments
        assert c is not None
        share = c.share
        return {
            "predicates": c.predicates,
            "with_comment": c.with_comment,
            "share": None if share is None else round(share, 4),
            "without": [
                {"predicate": p, "file": self._name(file), "line": line}
                for p, file, line in c.without[:PLACES]
            ],
        }

    def _layout_json(self, lay: Layout) -> dict[str, Any]:
        return {
            "line_length": lay.line_length,
            "long_lines": len(lay.long_lines),
            "long_line_places": [
                {"file": self._name(f), "line": n, "width": w}
                for f, n, w in lay.long_lines[:PLACES]
            ],
            "tab_lines": len(lay.tab_lines),
            "tab_line_places": [
                {"file": self._name(f), "line": n} for f, n in lay.tab_lines[:PLACES]
            ],
            "clause_lines": lay.clause_lines,
            "long_clauses": [
                {"file": self._name(f), "line": n, "lines": size, "predicate": what}
                for f, n, size, what in lay.long_clauses[:PLACES]
            ],
        }

    def _doc_json(self) -> dict[str, Any]:
        d = self.documentation
        assert d is not None
        return {
            "present": d.present,
            "files": [{"name": n, "bytes": size} for n, size in d.files],
            "refused": list(d.refused),
        }


def _points(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(value, 3)


def _how(reads: Sequence[FileRead]) -> str:
    kinds = {r.how for r in reads}
    if kinds <= {PROLOG}:
        return PROLOG
    return kinds.pop() if len(kinds) == 1 else "partly as tokens"


def check_handin(
    handin: HandIn, reads: Sequence[FileRead], sub: Submission, policy: RequirementsPolicy
) -> Requirements:
    """One hand-in's requirements from its files as read (`reads`, one per
    file of `handin`). Never raises: a failure is a note."""
    names = [f.name for f in handin.files]  # as handed in (source.hand_in)
    out = Requirements(sub.student, policy, names, _how(reads))
    out.notes += list(handin.notes)
    for source, read in zip(handin.files, reads, strict=True):
        out.notes += [f"{one_line(source.name)}: {n}" for n in read.notes]
    try:
        clauses = []
        for number, read in enumerate(reads):
            for raw in read.clauses:
                raw.file = number
                clauses.append(clause(raw))
        texts = [f.text for f in handin.files]
        lines = [Lines(t) for t in texts]
        if policy.clpfd != OFF:
            # A clause with a syntax error is not loaded: it counts for no
            # predicate (a file Prolog could not read at all is a guess).
            whole = {n for n, r in enumerate(reads) if r.how == TOKENS}
            loads = [c for c in clauses if not c.as_tokens or c.file in whole]
            broken = [c for c in clauses if c.as_tokens and c.file not in whole]
            out.clpfd = find_clpfd(loads, uncertain=bool(whole), broken=broken)
            out.clpfd.dynamic = [  # offsets as line numbers
                (f, lines[f].of(at) if f < len(lines) else 0, words)
                for f, at, words in out.clpfd.dynamic
            ]
            out.clpfd.broken_entry = [
                (f, lines[f].of(at) if f < len(lines) else 0) for f, at in out.clpfd.broken_entry
            ]
        if policy.head_comments != OFF:
            out.comments = head_comments(clauses, texts, lines)
        if policy.layout != OFF:
            args = (policy.line_length, policy.clause_lines, lines)
            out.layout = layout(clauses, texts, *args)
        if policy.documentation != OFF:
            out.documentation = documentation(sub.files)
    except Exception as e:  # this hand-in's, never the class's
        why = one_line(f"{type(e).__name__}: {e}", 300)
        out.notes.append(f"the requirements could not all be checked ({why})")
        if out.clpfd is None and policy.clpfd != OFF:
            out.clpfd = ClpfdFinding(UNKNOWN, False)
    return out


def check_submissions(
    subs: Sequence[Submission],
    policy: RequirementsPolicy | None = None,
    dialect: Dialect = "sicstus4",
    jobs: int = 1,
    similarity: Similarity | None = None,
) -> list[Requirements]:
    """Every submission's requirements, in the order given. The reading
    of a similarity comparison is reused where it has the student; the
    rest are read now. Raises ReaderUnavailable when SWI-Prolog cannot run."""
    policy = policy or RequirementsPolicy()
    known = {c.student: (c.handin, c.reads) for c in similarity.handins} if similarity else {}
    todo = [hand_in(s) for s in subs if s.student not in known]
    if todo:
        texts = [f.text for h in todo for f in h.files]
        budgets = [HANDIN_TOKENS // len(h.files) for h in todo for _ in h.files]
        clpfd = clpfd_elsewhere([[f.text for f in h.files] for h in todo])
        reads = iter(read_texts(texts, dialect, jobs, Reader(dialect), budgets, clpfd))
        for h in todo:
            known[h.student] = (h, [next(reads) for _ in h.files])
    return [check_handin(*known[s.student], s, policy) for s in subs]


@dataclass
class ClassRequirements:
    """A class's requirements: each hand-in checked, by student, and the
    entries with nothing to check (no .pl file), with why."""

    checked: list[Requirements]
    not_checked: list[str]
    policy: RequirementsPolicy

    def to_json(self) -> dict[str, Any]:
        """What `requirements --format json` prints."""
        return {
            "policy": asdict(self.policy),
            "students": [{"id": r.student, **r.to_json()} for r in self.checked],
            "not_checked": list(self.not_checked),
        }


def check_class(
    folder: Path,
    policy: RequirementsPolicy | None = None,
    dialect: Dialect = "sicstus4",
    jobs: int = 1,
) -> ClassRequirements:
    """A submissions folder checked, read as `grade` reads it (folders,
    bare files, archives). GradingError for an unusable folder;
    ReaderUnavailable when SWI-Prolog cannot run."""
    policy = policy or RequirementsPolicy()
    intake = read_class(folder, jobs)
    left_out = [f"{u.student}: {u.note}" for u in intake.ungradable] + intake.skipped
    subs = sorted(intake.submissions, key=lambda s: s.student)
    return ClassRequirements(check_submissions(subs, policy, dialect, jobs), left_out, policy)
