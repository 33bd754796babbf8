"""Classes with a ring: many hand-ins of one solution, each changed a
little as a student would change it, among independent work (issue 57).

The shared solution is `SOLVER`, a small clpfd solver written for this
module; `disguise` makes the copies a ring's members hand in (a name
comment, renamed variables, re-indented, an unused helper, clauses
reordered, a clause removed, included from a hidden folder, behind a
megabyte of comment...). The independent hand-ins are the sudoku
solutions of the test fixtures, each written on its own. `guided_lab`
makes a short guided lab: every student answers the same six small
questions, each in one of the ways people answer them, none copied.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"

#: The shared solution: rows of cells, each cell's infos posted in turn.
SOLVER = """\
:- use_module(library(clpfd)).

sudoku(s(K, Board), Rows) :-
    N is K * K,
    board_rows(Board, N, Rows),
    append(Rows, Cells),
    Cells ins 1..N,
    maplist(all_different, Rows),
    transpose(Rows, Columns),
    maplist(all_different, Columns),
    boxes(Rows, K, Boxes),
    maplist(all_different, Boxes),
    infos(Board, Rows, 0),
    labeling([ff], Cells).

board_rows([], _, []).
board_rows([Line|Lines], N, [Row|Rows]) :-
    length(Row, N),
    length(Line, N),
    board_rows(Lines, N, Rows).

boxes([], _, []).
boxes(Rows, K, Boxes) :-
    length(Band, K),
    append(Band, Rest, Rows),
    band_boxes(Band, K, Boxes0),
    boxes(Rest, K, Boxes1),
    append(Boxes0, Boxes1, Boxes).

band_boxes(Band, _, []) :-
    maplist(==([]), Band), !.
band_boxes(Band, K, [Box|Boxes]) :-
    maplist(take(K), Band, Parts, Rests),
    append(Parts, Box),
    band_boxes(Rests, K, Boxes).

take(K, List, Front, Back) :-
    length(Front, K),
    append(Front, Back, List).

infos([], _, _).
infos([Line|Lines], Rows, R) :-
    cells_infos(Line, Rows, R, 0),
    R1 is R + 1,
    infos(Lines, Rows, R1).

cells_infos([], _, _, _).
cells_infos([Infos|More], Rows, R, C) :-
    cell(Rows, R, C, V),
    maplist(info(Rows, R, C, V), Infos),
    C1 is C + 1,
    cells_infos(More, Rows, R, C1).

cell(Rows, R, C, V) :-
    nth0(R, Rows, Row),
    nth0(C, Row, V).

info(_, _, _, V, v(X)) :- V #= X.
info(_, _, _, V, e) :- V mod 2 #= 0.
info(_, _, _, V, o) :- V mod 2 #= 1.
info(Rows, R, C, V, s) :-
    R1 is R + 1,
    cell(Rows, R1, C, W),
    abs(V - W) #= 1.
info(Rows, R, C, V, w) :-
    C1 is C - 1,
    cell(Rows, R, C1, W),
    abs(V - W) #= 1.
"""

#: A helper a student might add and never call.
_HELPER = """
% prints the solution, for testing
show_rows([]).
show_rows([Row|Rows]) :-
    atomic_list_concat(Row, ' ', Line),
    format("~w~n", [Line]),
    show_rows(Rows).
"""

_VAR = re.compile(r"\b[A-Z][A-Za-z0-9_]*\b")


def _clauses(text: str) -> list[str]:
    """The solver's clauses (a clause ends with a full stop at a line's end)."""
    out: list[str] = []
    current: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.strip() or current:
            current.append(line)
        if line.rstrip().endswith("."):
            out.append("".join(current).strip() + "\n")
            current = []
    return out


def renamed_variables(text: str) -> str:
    """Every variable renamed (Rows -> Sorok, ...), as one who translates."""
    names: dict[str, str] = {}

    def new(m: re.Match[str]) -> str:
        return names.setdefault(m.group(0), f"Valt{len(names)}")

    return _VAR.sub(new, text)


def reindented(text: str) -> str:
    """Two spaces, a tab, and the goals of a body spread differently."""
    return text.replace("    ", "\t").replace(":-\n\t", ":- ")


def reordered(text: str) -> str:
    """The clauses in another order (predicates and their clauses)."""
    clauses = _clauses(text)
    return "\n".join(clauses[:1] + clauses[:0:-1])


def one_clause_removed(text: str) -> str:
    """The `w` info dropped (the student's own solver ignores it)."""
    clauses = _clauses(text)
    return "\n".join(c for c in clauses if not c.startswith("info(Rows, R, C, V, w)"))


def two_clauses_added(text: str) -> str:
    """A helper and a check added, used nowhere."""
    return text + _HELPER + "\nvalid_size(K) :- integer(K), K > 0, K < 6.\n"


#: A ring member's change, and what it writes: files of the hand-in.
Disguise = Callable[[str], dict[str, str]]


def _one(change: Callable[[str], str]) -> Disguise:
    return lambda text: {"sudoku.pl": change(text)}


#: The changes of the issue's ring of nine (the first hands in the solver itself).
DISGUISES: list[tuple[str, Disguise]] = [
    ("verbatim", _one(lambda t: t)),
    ("name comment", _one(lambda t: "% Sudoku solver by a student\n% 2024 autumn\n" + t)),
    ("renamed variables", _one(renamed_variables)),
    ("re-indented", _one(reindented)),
    ("unused helper", _one(lambda t: t + _HELPER)),
    ("clauses reordered", _one(reordered)),
    ("included from a hidden folder", lambda t: {
        "sudoku.pl": ":- include('.lib/core.pl').\n", ".lib/core.pl": t}),
    ("behind a megabyte of comment", _one(lambda t: ("% " + "padding " * 12 + "\n") * 10_500 + t)),
    ("renamed, reordered, a clause removed", _one(
        lambda t: reordered(renamed_variables(one_clause_removed(t))))),
    ("renamed, re-indented, two clauses added", _one(
        lambda t: reindented(renamed_variables(two_clauses_added(t))))),
]  # fmt: skip


def independent_sudoku() -> list[tuple[str, str]]:
    """Sudoku solutions of the fixtures written independently: (name, text)."""
    redteam = FIXTURES / "redteam"
    core = (redteam / "core.pl.txt").read_text()
    control = (redteam / "ctl_plain.pl").read_text().replace("% @solving-core@\n", core)
    found = [*sorted((FIXTURES / "sicstus_class").glob("*.pl")),
             *sorted((FIXTURES / "similarity" / "independent").glob("*.pl")),
             *sorted((FIXTURES / "similarity_eval" / "class").glob("sud_*.pl")),
             FIXTURES / "sicstus" / "sudoku.pl",
             *sorted((REPO / "lab" / "plpuzzle_lab" / "solvers").glob("*.pl"))]  # fmt: skip
    return [(f"ind_{p.stem}", p.read_text(encoding="latin-1")) for p in found] + [
        ("ind_ctl_plain", control)
    ]


def _write(folder: Path, student: str, files: dict[str, str]) -> None:
    if list(files) == ["sudoku.pl"]:
        (folder / f"{student}.pl").write_text(files["sudoku.pl"])
        return
    for name, text in files.items():
        path = folder / student / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def ring_class(folder: Path, size: int, ring: int, seed: int = 57) -> list[str]:
    """A class of `size` hand-ins in `folder`: `ring` of them the solver
    with the disguises in turn (repeated past the list), the others
    independent solutions. The ring's members, by name."""
    others = independent_sudoku()
    if size - ring > len(others):
        raise ValueError(f"only {len(others)} independent solutions for {size - ring}")
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    members = []
    for n in range(ring):
        what, disguise = DISGUISES[n % len(DISGUISES)]
        student = f"ring{n:02d}_{re.sub(r'[^a-z]+', '_', what)[:20].strip('_')}"
        _write(folder, student, disguise(SOLVER))
        members.append(student)
    for name, text in rng.sample(others, size - ring):
        (folder / f"{name}.pl").write_text(text, encoding="latin-1")
    return members


# -- a short guided lab ---------------------------------------------------------------------

#: The six questions of a family-tree lab, and ways students answer each.
_ANSWERS: list[list[str]] = [
    ["father(F, C) :- parent(F, C), male(F).",
     "father(X, Y) :- male(X), parent(X, Y).",
     "father(D, K) :- parent(D, K), \\+ female(D)."],
    ["grandmother(G, C) :- parent(G, P), parent(P, C), female(G).",
     "grandmother(G, C) :- female(G), parent(G, P), parent(P, C).",
     "grandmother(G, C) :- mother(G, P), parent(P, C).\n"
     "mother(M, C) :- parent(M, C), female(M)."],
    ["sibling(A, B) :- parent(P, A), parent(P, B), A \\= B.",
     "sibling(A, B) :- parent(P, A), parent(P, B), \\+ A = B.",
     "sibling(A, B) :- father(F, A), father(F, B), mother(M, A), mother(M, B), A \\== B."],
    ["ancestor(A, D) :- parent(A, D).\nancestor(A, D) :- parent(A, X), ancestor(X, D).",
     "ancestor(A, D) :- parent(A, D).\nancestor(A, D) :- ancestor(A, X), parent(X, D).",
     "ancestor(A, D) :- parent(A, D).\nancestor(A, D) :- parent(X, D), ancestor(A, X)."],
    ["cousin(X, Y) :- parent(A, X), parent(B, Y), sibling(A, B).",
     "cousin(X, Y) :- grandparent(G, X), grandparent(G, Y), \\+ sibling(X, Y), X \\= Y.\n"
     "grandparent(G, C) :- parent(G, P), parent(P, C).",
     "cousin(X, Y) :- parent(A, X), sibling(A, B), parent(B, Y)."],
    ["children(P, L) :- findall(C, parent(P, C), L).",
     "children(P, L) :- setof(C, parent(P, C), L), !.\nchildren(_, []).",
     "children(P, L) :- bagof(C, parent(P, C), L)."],
]  # fmt: skip

#: The lab's facts, handed out (the teacher names them with --base).
_PARENTS = "tom bob, tom liz, bob ann, bob pat, pam bob, pat jim, liz joe, ann sue"
LAB_FACTS = (
    "".join(f"parent({p.replace(' ', ', ')}).\n" for p in _PARENTS.split(", "))
    + "".join(f"male({m}).\n" for m in ("tom", "bob", "jim", "joe"))
    + "".join(f"female({f}).\n" for f in ("pam", "liz", "ann", "pat", "sue"))
)


def guided_lab(folder: Path, students: int, seed: int = 57, facts: bool = True) -> list[str]:
    """`students` independent answers to the lab (each a different choice
    of answers, differing in at least two questions from every other), the
    facts written in by each when `facts`. Their names."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    chosen: list[tuple[int, ...]] = []
    while len(chosen) < students:
        pick = tuple(rng.randrange(len(a)) for a in _ANSWERS)
        if all(sum(x != y for x, y in zip(pick, other, strict=True)) >= 2 for other in chosen):
            chosen.append(pick)
    names = []
    for n, pick in enumerate(chosen):
        body = "\n".join(_ANSWERS[q][i] for q, i in enumerate(pick)) + "\n"
        name = f"lab{n:02d}"
        (folder / f"{name}.pl").write_text((LAB_FACTS + "\n" if facts else "") + body)
        names.append(name)
    return names
