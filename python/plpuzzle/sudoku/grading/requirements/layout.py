"""Layout: long lines, tabs and very long clauses, and nothing else.

The course's rule is lines of at most 72 characters. A line's length is
its width on screen, a tab taken to the next multiple of 8 columns;
lines with tabs are counted apart, since their width depends on the
editor. A very long clause spans more lines than a suite's
`clause_lines` (default 40).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from plpuzzle.sudoku.grading.requirements.terms import Clause, Lines

LINE_LENGTH = 72
CLAUSE_LINES = 40
TAB_WIDTH = 8


@dataclass
class Layout:
    """What the layout check found, over every Prolog file of a hand-in."""

    line_length: int = LINE_LENGTH
    clause_lines: int = CLAUSE_LINES
    #: (file, line, width) of each line longer than line_length.
    long_lines: list[tuple[int, int, int]] = field(default_factory=list)
    #: (file, line) of each line holding a tab.
    tab_lines: list[tuple[int, int]] = field(default_factory=list)
    #: (file, first line, lines, name/arity or "directive") of each very long clause.
    long_clauses: list[tuple[int, int, int, str]] = field(default_factory=list)


def layout(
    clauses: list[Clause],
    texts: list[str],
    line_length: int = LINE_LENGTH,
    clause_lines: int = CLAUSE_LINES,
    lines: list[Lines] | None = None,
) -> Layout:
    """The layout of `texts` (a hand-in's files) and its clauses; `lines`
    indexes each text's lines (made here when not given)."""
    lines = lines or [Lines(t) for t in texts]
    out = Layout(line_length, clause_lines)
    for file, text in enumerate(texts):
        for number, line in enumerate(text.split("\n"), 1):
            line = line.removesuffix("\r")
            if "\t" in line:
                out.tab_lines.append((file, number))
            width = len(line.expandtabs(TAB_WIDTH)) if "\t" in line else len(line)
            if width > line_length:
                out.long_lines.append((file, number, width))
    for c in clauses:
        if c.file >= len(lines):
            continue
        first = lines[c.file].of(c.start)
        size = lines[c.file].of(c.end) - first + 1
        if size > clause_lines:
            what = f"{c.head[0]}/{c.head[1]}" if c.head else "a directive"
            out.long_clauses.append((c.file, first, size, what))
    return out
