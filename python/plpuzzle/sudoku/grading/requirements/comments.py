"""Head comments: a comment right above the first clause of each predicate.

The course asks for a comment stating each procedure's arguments and
what it does. What is checked is only that a comment stands there: the
nearest non-blank line above the predicate's first clause (at most one
blank line between) is a `%` line (the course's `% :- pred ...` type
comments included) or ends a `/* ... */` block. What the comment says is
the teacher's to read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from plpuzzle.sudoku.grading.requirements.terms import Clause, Lines

#: Blank lines allowed between a comment and the clause it describes.
BLANK_LINES = 1


@dataclass
class HeadComments:
    """Predicates defined, and those without a comment above them."""

    predicates: int = 0
    #: (name/arity, file, line) of each predicate without one.
    without: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def with_comment(self) -> int:
        return self.predicates - len(self.without)

    @property
    def share(self) -> float | None:
        """The share of predicates with a comment (None: none defined)."""
        return self.with_comment / self.predicates if self.predicates else None


def commented(text: str, start: int) -> bool:
    """Whether a comment stands right above the line at offset `start`."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():  # code before it on its line
        return text[line_start:start].rstrip().endswith("*/")
    end = line_start - 1  # the newline that ends the line above
    for _ in range(BLANK_LINES + 1):  # line by line upwards: a huge file costs no more
        if end < 0:
            return False
        begin = text.rfind("\n", 0, end) + 1
        stripped = text[begin:end].strip()
        if stripped:
            return stripped.startswith("%") or stripped.endswith("*/")
        end = begin - 1
    return False


def head_comments(
    clauses: list[Clause], texts: list[str], lines: list[Lines] | None = None
) -> HeadComments:
    """Each predicate's first clause, in reading order, checked; `lines`
    indexes each text's lines (made here when not given)."""
    lines = lines or [Lines(t) for t in texts]
    first: dict[tuple[str, int], Clause] = {}
    for c in clauses:
        if c.head is not None and c.head not in first:
            first[c.head] = c
    out = HeadComments(len(first))
    for (name, arity), c in first.items():
        text = texts[c.file] if c.file < len(texts) else ""
        if not commented(text, c.start):
            line = lines[c.file].of(c.start) if c.file < len(lines) else 0
            out.without.append((f"{name}/{arity}", c.file, line))
    return out
