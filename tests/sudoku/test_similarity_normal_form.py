"""The normal form, on programs Hypothesis writes: renaming variables and
predicates, reordering predicates and clauses, and changing the layout,
comments and redundant parentheses leave the normal form and the
fingerprints unchanged; changing what a clause does, or the data it holds
(its atoms), changes them.

Every example is read by the real reader (SWI-Prolog in its own process).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from plpuzzle.sudoku.grading.similarity import reading
from plpuzzle.sudoku.grading.similarity.fingerprints import fingerprints
from plpuzzle.sudoku.grading.similarity.normalise import normalise
from plpuzzle.sudoku.grading.similarity.reading import PROLOG, read_texts

# -- an abstract program ---------------------------------------------------------------
#
# A term is ("var", i), ("atom", i), ("int", n), ("list", [terms]) or
# ("fd", op, term, term); a goal is ("call", predicate, [terms]),
# ("is", term, term) or ("lib", name, [terms]); a clause is (head args,
# goals) of a predicate (index) of a given arity.


@dataclass
class Program:
    arities: list[int]
    clauses: list[tuple[int, list, list]]  # (predicate, head args, goals)
    atoms: int


def terms(variables: int, atoms: int, depth: int = 2) -> st.SearchStrategy:
    leaf = st.one_of(
        st.tuples(st.just("var"), st.integers(0, variables - 1)),
        st.tuples(st.just("atom"), st.integers(0, atoms - 1)),
        st.tuples(st.just("int"), st.integers(0, 9)),
    )
    if depth == 0:
        return leaf
    inner = terms(variables, atoms, depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.just("list"), st.lists(inner, max_size=3)),
        st.tuples(st.just("fd"), st.sampled_from(["+", "-", "*"]), inner, inner),
    )


@st.composite
def programs(draw: st.DrawFn) -> Program:
    arities = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    atoms = draw(st.integers(1, 3))
    clauses = []
    for p, arity in enumerate(arities):
        for _ in range(draw(st.integers(1, 3))):
            nv = draw(st.integers(1, 4))
            head = [draw(terms(nv, atoms)) for _ in range(arity)]
            goals = []
            for _ in range(draw(st.integers(0, 4))):
                kind = draw(st.sampled_from(["call", "is", "lib"]))
                if kind == "call":
                    q = draw(st.integers(0, len(arities) - 1))
                    goals.append(("call", q, [draw(terms(nv, atoms)) for _ in range(arities[q])]))
                elif kind == "is":
                    goals.append(("is", ("var", draw(st.integers(0, nv - 1))), draw(terms(nv, 1))))
                else:
                    name = draw(st.sampled_from(["length", "all_distinct", "#="]))
                    args = [
                        draw(terms(nv, atoms)) for _ in range(1 if name == "all_distinct" else 2)
                    ]
                    goals.append(("lib", name, args))
            clauses.append((p, head, goals))
    return Program(arities, clauses, atoms)


# -- writing it out, one way or another ---------------------------------------------------


@dataclass
class Style:
    """Names, order and layout: everything that must not count."""

    seed: int

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        letters = "abcdefghijklmnopqrstuvwxyz"
        self.word = lambda: "".join(self.rng.choice(letters) for _ in range(self.rng.randint(3, 7)))

    def names(self, n: int, prefix: str) -> list[str]:
        out: list[str] = []
        while len(out) < n:
            name = f"{prefix}{self.word()}"
            if name not in out:
                out.append(name)
        return out

    def space(self) -> str:
        return self.rng.choice([" ", "", "  ", "\n    ", " /* note */ "])


def write(program: Program, style: Style) -> str:
    rng = style.rng
    preds = style.names(len(program.arities), "q_")
    atoms = [f"c_{i}" for i in range(program.atoms)]  # data: the same in every style

    def term(t: tuple, vs: list[str]) -> str:
        kind = t[0]
        if kind == "var":
            return vs[t[1]]
        if kind == "atom":
            return atoms[t[1]]
        if kind == "int":
            return str(t[1])
        if kind == "list":
            return "[" + ("," + style.space()).join(term(x, vs) for x in t[1]) + "]"
        inside = f"{term(t[2], vs)}{style.space()}{t[1]}{style.space()}{term(t[3], vs)}"
        return f"({inside})"  # always bracketed: the operators' priorities do not matter

    def goal(g: tuple, vs: list[str]) -> str:
        if g[0] == "call":
            args = [term(a, vs) for a in g[2]]
            text = preds[g[1]] + (f"({', '.join(args)})" if args else "")
        elif g[0] == "is":
            text = f"{term(g[1], vs)} is {style.space()}{term(g[2], vs)}"
        elif g[1] == "#=":
            text = f"{term(g[2][0], vs)} #= {term(g[2][1], vs)}"
        else:
            text = f"{g[1]}({', '.join(term(a, vs) for a in g[2])})"
        return f"( {text} )" if rng.random() < 0.2 else text

    by_pred: dict[int, list[str]] = {}
    for p, head, goals in program.clauses:
        vs = [f"V{style.word().capitalize()}{i}" for i in range(4)]
        args = [term(a, vs) for a in head]
        text = preds[p] + (f"({', '.join(args)})" if args else "")
        if goals:
            text += f" :-{style.space()}" + ("," + style.space()).join(goal(g, vs) for g in goals)
        by_pred.setdefault(p, []).append(text + ".\n")
    order = list(by_pred)
    rng.shuffle(order)
    out = [":- use_module(library(clpfd)).\n"]
    for p in order:
        clauses = by_pred[p]
        rng.shuffle(clauses)
        for c in clauses:
            if rng.random() < 0.3:
                out.append(f"% {style.word()} {style.word()}\n")
            out.append(c)
        out.append("\n" * rng.randint(0, 2))
    return "".join(out)


def normal_forms(*texts: str) -> list[list[str]]:
    reads = read_texts(list(texts), "sicstus4")
    assert all(r.how == PROLOG for r in reads), [r.notes for r in reads]
    words = reading.vocabulary()
    return [
        [t.text for t in normalise(r.clauses, [x], words)]
        for r, x in zip(reads, texts, strict=True)
    ]


@settings(max_examples=15, deadline=None)
@given(programs(), st.integers(0, 10**6), st.integers(0, 10**6))
def test_names_order_and_layout_do_not_count(program: Program, one: int, other: int) -> None:
    a, b = write(program, Style(one)), write(program, Style(other))
    first, second = normal_forms(a, b)
    assert first == second
    assert fingerprints(first) == fingerprints(second)


def test_atoms_are_data_and_count() -> None:
    """Two family trees of one shape and other people differ; the same
    people under other predicate and variable names do not."""
    ours = "parent(maria, joao).\nparent(joao, rita).\ngp(X, Z) :- parent(X, Y), parent(Y, Z).\n"
    renamed = "pai(joao, rita).\npai(maria, joao).\navo(A, C) :- pai(A, B), pai(B, C).\n"
    theirs = (
        "parent(gerda, heinz).\nparent(heinz, lena).\ngp(X, Z) :- parent(X, Y), parent(Y, Z).\n"
    )
    first, second, third = normal_forms(ours, renamed, theirs)
    assert first == second
    assert first != third and "'maria'" in first and "'gerda'" in third


@settings(max_examples=8, deadline=None)
@given(programs(), st.integers(0, 10**6), st.data())
def test_what_a_clause_does_counts(program: Program, seed: int, data: st.DataObject) -> None:
    """The check can fail: a goal dropped from a clause changes the normal form."""
    with_goals = [i for i, (_, _, goals) in enumerate(program.clauses) if goals]
    if not with_goals:
        return
    i = data.draw(st.sampled_from(with_goals))
    p, head, goals = program.clauses[i]
    changed = Program(program.arities, list(program.clauses), program.atoms)
    changed.clauses[i] = (p, head, goals[:-1])
    first, second = normal_forms(write(program, Style(seed)), write(changed, Style(seed)))
    assert first != second
