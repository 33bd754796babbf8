"""Whether clpfd does the work: the constraints reached from sudoku/2.

The assignment must be written with library(clpfd). Loading the library
says little (a plain search can follow the import); what counts is a
constraint posted on the way from `sudoku/2`. The hand-in's clauses make
a call graph, walked from every clause of `sudoku/2`. Only the clauses
that load count: a clause with a syntax error (such as `X ins 1..9`
before any directive loads library(clpfd), which gives the operators)
does not exist for SWI-Prolog, so it neither defines nor calls anything:

- a name that a reached clause uses and that names predicates of the
  hand-in is a call of each of them with at least as many arguments as
  it is given there (a closure `maplist(row_ok(N), Rows)` adds
  arguments; an atom that only shares a predicate's name counts too, so
  the walk may reach more than runs, never less);
- a clpfd predicate given fewer arguments than it takes
  (`maplist(labeling([ff]), Rows)`) is a closure of it, and counts;
- clpfd's operators (`#=`, `in`, `ins`, ...) and predicates
  (`all_distinct/1`, `labeling/2`, SICStus' `domain/3`, ...) in a
  reached clause are constraints, unless the hand-in defines a predicate
  of that name and arity itself; a clpfd name passed as a closure
  (`maplist(all_distinct, Rows)`, `call(#=, X, Y)`) counts;
- a goal built at run time cannot be followed: `call/N` or a
  meta-predicate given a variable, a variable as a goal, `=..`, and
  assert/retract. Where nothing else reaches a constraint, such a goal
  makes the answer "unknown", not "no";
- a hand-in none of whose directives loads library(clpfd) reaches no
  constraint, whatever it calls: "no";
- a hand-in whose loading clauses do not define sudoku/2 gets "not
  defined", apart from "unknown" (cannot tell), which remains for goals
  built at run time and files Prolog could not read at all.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from plpuzzle.sudoku.grading.requirements.terms import Atom, Call, Clause, Item, Var, walk

#: clpfd's operators: each use is a constraint (`in`, `ins` a domain).
OPERATORS = frozenset(
    {"#=", "#\\=", "#<", "#>", "#=<", "#>=", "#<==>", "#==>", "#<==", "#\\/", "#\\", "#/\\"}
    | {"in", "ins"}
)

#: clpfd's predicates (SWI-Prolog's and SICStus 4's), name -> arities.
PREDICATES: dict[str, tuple[int, ...]] = {
    "all_distinct": (1, 2),
    "all_different": (1, 2),
    "sum": (3,),
    "scalar_product": (4,),
    "global_cardinality": (2, 3),
    "tuples_in": (2,),
    "table": (2, 3),
    "element": (3,),
    "circuit": (1, 2),
    "cumulative": (1, 2),
    "disjoint2": (1, 2),
    "automaton": (3, 8),
    "chain": (2,),
    "lex_chain": (1, 2),
    "zcompare": (3,),
    "domain": (3,),
    "count": (4,),
    "nvalue": (2,),
    "relation": (3,),
    "labeling": (2,),
    "label": (1,),
    "indomain": (1,),
}

#: The library's search, which posts no constraint of its own.
SEARCH = frozenset({"labeling", "label", "indomain"})

#: clpfd predicates recognised when passed by name alone (a closure): the
#: names no student's data is likely to use.
CLOSURE_NAMES = frozenset(
    {"all_distinct", "all_different", "global_cardinality", "tuples_in", "label", "labeling"}
)

#: Meta-predicates and the arguments (from 1) that are goals.
META: dict[str, tuple[int, ...]] = {
    "call": (1,), "maplist": (1,), "foldl": (1,), "include": (1,), "exclude": (1,),
    "partition": (1,), "forall": (1, 2), "findall": (2,), "bagof": (2,), "setof": (2,),
    "aggregate_all": (2,), "once": (1,), "ignore": (1,), "\\+": (1,), "catch": (1, 3),
    "call_cleanup": (1, 2), "setup_call_cleanup": (1, 2, 3), "time": (1,), "apply": (1,),
    "not": (1,), "call_with_time_limit": (2,),
}  # fmt: skip

#: Goals that change the program while it runs.
ASSERTS = frozenset({"assert", "asserta", "assertz", "retract", "retractall"})

#: What stands between two goals of a body.
_CONNECTIVES = frozenset({",", ";", "->", "*->", "\\+", "|"})

YES, NO, UNKNOWN, NOT_DEFINED = "yes", "no", "unknown", "not defined"

#: The answers in the order the reports tally them.
STATUSES = (YES, NO, NOT_DEFINED, UNKNOWN)
ENTRY = ("sudoku", 2)


@dataclass
class ClpfdFinding:
    """What the call graph from sudoku/2 shows."""

    status: str
    #: library(clpfd) is loaded by a file of the hand-in.
    loaded: bool
    #: Constraints in the clauses reached from sudoku/2, by kind (`#=/2`).
    reached: Counter[str] = field(default_factory=Counter)
    #: Constraints in clauses that sudoku/2 does not reach.
    elsewhere: Counter[str] = field(default_factory=Counter)
    #: Goals built at run time in reached clauses: (file, offset, words).
    dynamic: list[tuple[int, int, str]] = field(default_factory=list)
    defines_entry: bool = True
    #: Predicates reached from sudoku/2 (name/arity), for the curious.
    reached_predicates: int = 0
    #: Clauses that do not load for a syntax error and seem to define
    #: sudoku (by their first name): (file, offset); offsets are made
    #: line numbers by the caller.
    broken_entry: list[tuple[int, int]] = field(default_factory=list)


def loads_clpfd(clauses: list[Clause]) -> bool:
    """Whether a directive loads library(clpfd)."""
    for c in clauses:
        for x in walk(c.directive):
            if isinstance(x, Call) and x.name == "library" and x.arity == 1:
                arg = x.args[0]
                if len(arg) == 1 and isinstance(arg[0], Atom) and arg[0].name == "clpfd":
                    return True
    return False


def _lone_var(arg: tuple[Item, ...]) -> bool:
    return len(arg) == 1 and isinstance(arg[0], Var)


def _dynamic(c: Clause) -> list[tuple[int, str]]:
    """The goals of clause `c` built at run time: (offset, words)."""
    found = []
    body = list(c.body)
    for n, x in enumerate(body):  # a variable as a goal of the body
        before = body[n - 1] if n else None
        after = body[n + 1] if n + 1 < len(body) else None
        if (
            isinstance(x, Var)
            and (before is None or _connective(before))
            and (after is None or _connective(after))
        ):
            found.append((c.start, "a variable called as a goal"))
    for x in walk(c.body):
        if isinstance(x, Atom) and x.name == "=..":
            found.append((x.start, "a term built with =.."))
        elif isinstance(x, Call) and x.name in ASSERTS:
            found.append((x.start, f"{x.name}/{x.arity}, which changes the program"))
        elif isinstance(x, Call) and x.name in META:
            places = [p for p in META[x.name] if p <= x.arity and _lone_var(x.args[p - 1])]
            if places:
                found.append((x.start, f"{x.name}/{x.arity} given a variable as its goal"))
    return found


def _connective(x: Item) -> bool:
    return isinstance(x, Atom) and x.name in _CONNECTIVES


def _constraints(c: Clause, defined: set[tuple[str, int]]) -> Counter[str]:
    """The clpfd constraints clause `c` posts, by kind."""
    out: Counter[str] = Counter()
    for x in walk(c.body):
        if isinstance(x, Atom) and x.name in OPERATORS:
            out[x.name] += 1
        elif isinstance(x, Atom) and x.name in CLOSURE_NAMES:
            if not any(name == x.name for name, _ in defined):
                out[x.name] += 1
        elif (
            isinstance(x, Call)
            and x.arity in PREDICATES.get(x.name, ())
            and (x.name, x.arity) not in defined
        ):
            out[f"{x.name}/{x.arity}"] += 1
        elif isinstance(x, Call) and x.name in CLOSURE_NAMES:  # labeling([ff]) in maplist
            full = [n for n in PREDICATES.get(x.name, ()) if n > x.arity]
            if full and not any(name == x.name for name, _ in defined):
                out[f"{x.name}/{full[0]}"] += 1
    return out


def _callees(c: Clause, by_name: dict[str, list[tuple[str, int]]]) -> set[tuple[str, int]]:
    """The hand-in's predicates that clause `c` may call."""
    out: set[tuple[str, int]] = set()
    for x in walk(c.body):
        if isinstance(x, Call | Atom) and x.name in by_name:
            given = x.arity if isinstance(x, Call) else 0
            out.update(p for p in by_name[x.name] if p[1] >= given)
    return out


def find_clpfd(
    clauses: list[Clause], uncertain: bool = False, broken: list[Clause] | None = None
) -> ClpfdFinding:
    """The clpfd finding of a hand-in's clauses that load; `uncertain`
    (a file Prolog could not read at all) turns a "no" or "not defined"
    into "unknown"; `broken` are the clauses with syntax errors (they do
    not load; named when sudoku/2 is not defined)."""
    by_pred: dict[tuple[str, int], list[Clause]] = {}
    for c in clauses:
        if c.head is not None:
            by_pred.setdefault(c.head, []).append(c)
    defined = set(by_pred)
    by_name: dict[str, list[tuple[str, int]]] = {}
    for name, arity in sorted(defined):
        by_name.setdefault(name, []).append((name, arity))
    finding = ClpfdFinding(NO, loads_clpfd(clauses), defines_entry=ENTRY in defined)
    finding.broken_entry = [
        (c.file, c.start) for c in broken or [] if c.head is not None and c.head[0] == ENTRY[0]
    ]
    seen: set[tuple[str, int]] = set()
    todo = [ENTRY] if ENTRY in defined else []
    while todo:
        pred = todo.pop()
        if pred in seen:
            continue
        seen.add(pred)
        for c in by_pred[pred]:
            finding.reached += _constraints(c, defined)
            for at, words in _dynamic(c):
                if (c.file, at, words) not in finding.dynamic:  # each place once
                    finding.dynamic.append((c.file, at, words))
            todo += sorted(_callees(c, by_name) - seen)
    for pred, group in by_pred.items():
        if pred not in seen:
            for c in group:
                finding.elsewhere += _constraints(c, defined)
    finding.reached_predicates = len(seen)
    posted = any(kind.split("/")[0] not in SEARCH for kind in finding.reached)
    unread = any(c.unreadable for c in clauses)
    if not finding.defines_entry:  # a clause too deep to rebuild may be it
        finding.status = UNKNOWN if uncertain or unread else NOT_DEFINED
    elif not finding.loaded and not (uncertain or unread):
        finding.status = NO  # without the library, no goal can reach a constraint
    elif posted:
        finding.status = YES
    elif finding.dynamic or uncertain or unread:
        finding.status = UNKNOWN
    return finding
