"""A hand-in's clauses in a normal form that renaming and reordering do not change.

From the clauses the reader (or the tokenizer) gives:

- variables are numbered afresh in each clause, in order of first
  occurrence: V1, V2, ...;
- the names of the predicates the hand-in defines become P1, P2, ...,
  numbered afresh in each clause like variables (so that a predicate
  added, removed or renamed elsewhere changes no other clause); names of
  the assignment's interface (sudoku/2, the puzzle's s/2, the infos e,
  o, s, w, v), of Prolog and its libraries stay;
- every other name (an atom: `maria`, `brussels`, `table`) stays as it
  is: atoms carry the program's data, and facts are data. Two family
  trees, or two files of roads, match where their people or cities
  match, not because every `p(a, b).` has one shape;
- the directives that load libraries or declare a module are left out
  (every solution has the same few);
- the clauses are sorted by their normal form, so that neither the order
  of clauses within a predicate nor that of the predicates counts.

Each token keeps where it came from (file and character offsets), so
that what matches can be shown in the files as they were written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from plpuzzle.sudoku.grading.similarity.tokens import NAME, NUMBER, PUNCT, STRING, VAR, RawClause

#: Names of the assignment's interface: the predicate, the puzzle's
#: functor and the infos.
INTERFACE = frozenset({"sudoku", "s", "e", "o", "w", "v", "[]", "{}"})

#: The options of labeling/2 and friends (SWI-Prolog's and SICStus'),
#: which are atoms of the library rather than predicates.
_OPTION_WORDS = """leftmost ff ffc min max step enum bisect up down all satisfy minimize
maximize value variable discrepancy assumptions time_out first_fail anti_first_fail
occurrence max_regret median middle most_constrained inf sup true false fail"""
OPTIONS = frozenset(_OPTION_WORDS.split())

#: Directives left out of the comparison: loading libraries, declaring a module.
IMPORTS = frozenset({"use_module", "ensure_loaded", "module", "reexport", "include"})

#: The token that ends each clause in the normal form.
END = "."


@dataclass(frozen=True, slots=True)
class Token:
    """A normalised token and where it came from: a file of the hand-in and
    character offsets in it (start -1: it has no text of its own, such as
    punctuation the reader adds)."""

    text: str
    file: int
    start: int
    end: int


def _is_import(clause: RawClause) -> bool:
    tokens = clause.tokens
    return (
        clause.head is None
        and len(tokens) > 1
        and tokens[0].value == ":-"
        and str(tokens[1].value) in IMPORTS
    )


def normal_clause(
    clause: RawClause, defined: frozenset[str], kept: frozenset[str], texts: list[str]
) -> list[Token]:
    """One clause's tokens in normal form (see the module's docstring)."""
    variables: dict[object, int] = {}
    predicates: dict[str, int] = {}
    out = []
    for t in clause.tokens:
        if t.kind == VAR:
            text = f"V{variables.setdefault(t.value, len(variables) + 1)}"
        elif t.kind == NAME:
            name = str(t.value)
            if name in defined:
                text = f"P{predicates.setdefault(name, len(predicates) + 1)}"
            elif name in kept:
                text = name
            else:  # data: quoted, so that it never reads as a P or V placeholder
                text = f"'{name}'"
        elif t.kind == STRING:
            source = texts[clause.file] if clause.file < len(texts) else ""
            text = "Q" + source[t.start : t.end] if t.start >= 0 else "Q"
        elif t.kind in (NUMBER, PUNCT):
            text = str(t.value)
        else:
            text = "?"
        out.append(Token(text, clause.file, t.start, t.end))
    return out


def normalise(
    clauses: Iterable[RawClause], texts: list[str], vocabulary: frozenset[str]
) -> list[Token]:
    """A hand-in's token stream in normal form: its clauses (every file's)
    normalised and sorted, each followed by END."""
    clauses = [c for c in clauses if not _is_import(c)]
    defined = frozenset(c.head for c in clauses if c.head) - INTERFACE
    kept = vocabulary | INTERFACE | OPTIONS
    normal = [normal_clause(c, defined, kept, texts) for c in clauses]
    normal.sort(key=lambda tokens: [t.text for t in tokens])
    stream: list[Token] = []
    for tokens in normal:
        stream += tokens
        stream.append(Token(END, -1, -1, -1))
    return stream
