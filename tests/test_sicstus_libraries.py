"""SICStus 4 libraries in SWI-Prolog's emulation, with prolog/sicstus/.

Each library has a probe file in tests/fixtures/sicstus/ that loads it
as a SICStus solver would (`:- use_module(library(Name))`, dialect
sicstus4).  The goals of the tables below run in that file's module and
call the library's predicates unqualified; each predicate that
prolog/sicstus/ adds, or defines otherwise than SWI-Prolog, has a case
taken from what SICStus documents.  Qualified calls Library:Pred are
tested as written in a probe's source (compiled) and as built at run
time.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from plpuzzle.runtime import Worker

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "sicstus"

#: Every probe defines qualified/1 (the loader insists on a predicate).
PREDICATE = "qualified/1"


@pytest.fixture(scope="module")
def worker() -> Iterator[Worker]:
    with Worker() as w:
        yield w


def probe_file(library: str) -> Path:
    return FIXTURES / f"library_{library}_probe.pl"


def ask(worker: Worker, library: str, goal: str, template: str = "R") -> list[str]:
    """Every answer of `goal` in the probe of `library`: `template` as
    writeq/1 writes it (a-1 rather than the canonical -(a,1))."""
    reply = worker.request(
        {
            "op": "prolog",
            "solver": str(probe_file(library)),
            "dialect": "sicstus4",
            "predicate": PREDICATE,
            "goal": f"({goal}), format(atom(PlpuzzleText), '~q', [{template}])",
            "template": "PlpuzzleText",
            "time_limit": 30,
        },
        60,
    )
    assert reply["status"] == "ok", reply["message"]
    return [unquote(text) for _ground, text in reply["answers"]]


def unquote(text: str) -> str:
    """The text of an atom that write_canonical/1 wrote."""
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("\\'", "'").replace("\\\\", "\\")
    return text


def case(library: str, goal: str, *answers: str, template: str = "R") -> object:
    return pytest.param(library, goal, template, list(answers), id=f"{library}: {goal}")


YES = "yes"


def holds(goal: str) -> str:
    """A goal that answers `yes` once if `goal` succeeds."""
    return f"once({goal}), R = yes"


# --- library(lists) -----------------------------------------------------------

LISTS = [
    case(
        "lists",
        "append(P, T1, [a,b,c], T2, [a,b,x])",
        "[[],[a,b,c],[a,b,x]]",
        "[[a],[b,c],[b,x]]",
        "[[a,b],[c],[x]]",
        template="[P,T1,T2]",
    ),
    case("lists", "correspond(c, [a,b,c], [1,2,3], R)", "3"),
    case("lists", "correspond(R, [a,b], [1,2], 2)", "b"),
    case("lists", "delete([a,b,a,c], a, 1, R)", "[b,a,c]"),
    case("lists", "one_longer([a,b,c], S), length(S, R)", "2"),
    case("lists", "( one_longer([a], [b]) -> R = yes ; R = no )", "no"),
    case(
        "lists",
        "perm([a,b,c], R)",
        "[a,b,c]",
        "[a,c,b]",
        "[b,a,c]",
        "[b,c,a]",
        "[c,a,b]",
        "[c,b,a]",
    ),
    case("lists", "perm2(a, b, X, Y)", "[a,b]", "[b,a]", template="[X,Y]"),
    case("lists", "rotate_list(1, [a,b,c], R)", "[b,c,a]"),
    case("lists", "rotate_list(-1, [a,b,c], R)", "[c,a,b]"),
    case("lists", "rotate_list([a,b,c], R)", "[b,c,a]"),
    case("lists", "rotate_list(R, [b,c,a])", "[a,b,c]"),
    case("lists", "segment([a,b], R)", "[]", "[a]", "[a,b]", "[]", "[b]", "[]"),
    case("lists", "proper_segment([a,b], R)", "[]", "[a]", "[]", "[b]", "[]"),
    case("lists", "cumlist(plus, [1,2,3,4], 0, R)", "[1,3,6,10]"),
    case("lists", "cumlist(madd, [1,2], [3,4], 0, R)", "[3,11]"),
    case("lists", "cumlist(madd, [1,2], [3,4], [5,6], 0, R)", "[15,63]"),
    case("lists", "map_product(plus, [1,2], [10,20], R)", "[11,21,12,22]"),
    case("lists", "some(>(3), [5,1,2]), R = yes", YES, YES),
    case("lists", "some(plus(1), [1,5], [2,9]), R = yes", YES),
    case("lists", "some(plus, [1,2], [1,3], [2,4]), R = yes", YES),
    case("lists", "somechk(>(3), [1,5]), R = yes", YES),
    case("lists", "somechk(plus(1), [1,2], [R|_])", "2"),
    case("lists", "somechk(plus, [1,2], [1,1], [R|_])", "2"),
    case("lists", "exclude(<, [1,5,3], [2,2,4], R)", "[5]"),
    case("lists", "exclude(plus, [1,2], [1,1], [2,4], R)", "[2]"),
    case("lists", "include(<, [1,5,3], [2,2,4], R)", "[1,3]"),
    case("lists", "include(plus, [1,2], [1,1], [2,4], R)", "[1]"),
    case("lists", "group(same_key, [a-1,a-2,b-3,a-4], R)", "[[a-1,a-2],[b-3],[a-4]]"),
    case("lists", "group(>(3), [1,2,5,1], F, B)", "[[1,2],[5,1]]", template="[F,B]"),
    case("lists", "group(<, 2, [3,4,1,5], F, B)", "[[3,4],[1,5]]", template="[F,B]"),
    case("lists", "( ordered([a,b,b,c]) -> R = yes ; R = no )", YES),
    case("lists", "( ordered([b,a]) -> R = yes ; R = no )", "no"),
    case("lists", "R = [1,_,_,_,_], ordered(times(2), R)", "[1,2,4,8,16]"),
    case("lists", "select_min(X, [3,1,2,1], Y)", "[1,[3,2,1]]", template="[X,Y]"),
    case("lists", "select_min(@>=, X, [1,3,2], Y)", "[3,[1,2]]", template="[X,Y]"),
    case("lists", "select_max(X, [3,1,3,2], Y)", "[3,[1,3,2]]", template="[X,Y]"),
    case("lists", "select_max(@>=, X, [2,1,3], Y)", "[1,[2,3]]", template="[X,Y]"),
    case("lists", "( select_min(_, [], _) -> R = yes ; R = no )", "no"),
    case("lists", "increasing_prefix([1,2,3,2,1], P, S)", "[[1,2],[3,2,1]]", template="[P,S]"),
    case("lists", "increasing_prefix([3,2,1], P, S)", "[[],[3,2,1]]", template="[P,S]"),
    case("lists", "increasing_prefix(@>=, [3,2,1,5], P, S)", "[[3,2],[1,5]]", template="[P,S]"),
    case("lists", "decreasing_prefix([3,2,2,5], P, S)", "[[3,2],[2,5]]", template="[P,S]"),
    case("lists", "decreasing_prefix(@>=, [1,2,0], P, S)", "[[1],[2,0]]", template="[P,S]"),
    case("lists", "clumps([a,a,b,c,c], R)", "[[a,a],[b],[c,c]]"),
    case("lists", "keyclumps([a-1,a-2,b-3], R)", "[[a-1,a-2],[b-3]]"),
    case("lists", "keyclumped([a-1,a-2,b-3], R)", "[a-[1,2],b-[3]]"),
    # Redefined: SWI's emulation neither sorts nor removes by unification.
    case("lists", "remove_dups([b,a,b,c], R)", "[a,b,c]"),
    # Redefined: SWI's emulation answers some subsequences twice.
    case(
        "lists",
        "subseq([a,b], S, C)",
        "[[a,b],[]]",
        "[[a],[b]]",
        "[[b],[a]]",
        "[[],[a,b]]",
        template="[S,C]",
    ),
    # The order SICStus documents for bagof(X, subseq0([a,b,c,d], X), Xs).
    case(
        "lists",
        "bagof(X, subseq0([a,b,c,d], X), R)",
        "[[a,b,c,d],[b,c,d],[c,d],[d],[],[c],[b,d],[b],[b,c],[a,c,d],[a,d],[a],"
        "[a,c],[a,b,d],[a,b],[a,b,c]]",
    ),
    case("lists", "subseq1([a,b], R)", "[b]", "[]", "[a]"),
    case("lists", "append_length(L1, L2, [a,b,c], 1)", "[[a],[b,c]]", template="[L1,L2]"),
    # Determinate and terminating when only Length is known.
    case("lists", "append_length(_, [x], L, 2), length(L, R)", "3"),
    case("lists", "append_length(S, [a,b], N)", "[0,[a,b]]", "[1,[b]]", "[2,[]]", template="[N,S]"),
    case("lists", "append_length(R, [a,b,c], 2)", "[c]"),
    case("lists", "prefix_length([a,b,c], R, 2)", "[a,b]"),
    case("lists", "proper_prefix_length([a,b], P, N)", "[[],0]", "[[a],1]", template="[P,N]"),
    case("lists", "suffix_length([a,b,c], R, 1)", "[c]"),
    case(
        "lists",
        "suffix_length([a,b], S, N)",
        "[[a,b],2]",
        "[[b],1]",
        "[[],0]",
        template="[S,N]",
    ),
    case("lists", "proper_suffix_length([a,b], S, N)", "[[b],1]", "[[],0]", template="[S,N]"),
    # Re-exported from SWI's emulation.
    case("lists", "sublist([a,b,c], R, 1, 1, 1)", "[b]"),
    case("lists", "last(F, L, [a,b,c])", "[[a,b],c]", template="[F,L]"),
    case("lists", "keys_and_values([a-1,b-2], K, V)", "[[a,b],[1,2]]", template="[K,V]"),
]


# --- library(sets) and library(ordsets) ---------------------------------------

SETS = [
    case(
        "sets",
        "pairfrom([a,b,c], X, Y, Z)",
        "[a,b,[c]]",
        "[a,c,[b]]",
        "[b,c,[a]]",
        template="[X,Y,Z]",
    ),
    case("sets", "power_set([a,b], R)", "[[a,b],[a],[b],[]]"),
    case("sets", "intersection([[a,b,c],[c,b],[b,c,d]], R)", "[b,c]"),
    case("sets", "( intersection([], _) -> R = yes ; R = no )", "no"),
    case("sets", "symdiff([a,b,c,a], [c,d,d], R)", "[a,b,d]"),
    case("sets", "setproduct([a,b], [1,2], R)", "[a-1,a-2,b-1,b-2]"),
    case("sets", "union([[a,b],[b,c],[d,a]], R)", "[a,b,c,d]"),
    case("sets", "subtract([a,b,c], [b], R)", "[a,c]"),
    case("sets", "union([a,b], [b,c], U, D)", "[[a,b,c],[a]]", template="[U,D]"),
]

ORDSETS = [
    case("ordsets", "ord_disjoint_union([a,c], [b,d], R)", "[a,b,c,d]"),
    case("ordsets", "( ord_disjoint_union([a,c], [c], _) -> R = yes ; R = no )", "no"),
    case("ordsets", "ord_setproduct([a,b], [1,2], R)", "[a-1,a-2,b-1,b-2]"),
    case("ordsets", "ordset_order([a], [a,b], R)", "<"),
    case("ordsets", "ordset_order([a,b], [a,b], R)", "="),
    case("ordsets", "ordset_order([a,b], [b], R)", ">"),
    case("ordsets", "( ordset_order([a], [b], _) -> R = yes ; R = no )", "no"),
    case("ordsets", "ord_member(b, [a,b]), R = yes", YES),
    case("ordsets", "ord_union([a,c], [b,c,d], U, N)", "[[a,b,c,d],[b,d]]", template="[U,N]"),
]


# --- library(between) ---------------------------------------------------------

BETWEEN = [
    case("between", "repeat(3), R = yes", YES, YES, YES),
    case("between", "repeat(0), R = yes"),
    case("between", "numlist(1, 3, R)", "[1,2,3]"),
    case("between", "numlist(1, 0, R)", "[]"),
    case("between", "( numlist(5, 1, _) -> R = yes ; R = no )", "no"),
    case("between", "numlist(3, R)", "[1,2,3]"),
    case("between", "numlist(0, R)", "[]"),
    case("between", "numlist(L, U, [3,X,Y])", "[3,5,4,5]", template="[L,U,X,Y]"),
    # The example SICStus documents.
    case(
        "between",
        "numlist(L, 2, U, S, [1,X,Y,Z])",
        "[1,7,4,3,5,7]",
        template="[L,U,S,X,Y,Z]",
    ),
    case("between", "numlist(0, 5, 10, N, R)", "[3,[0,5,10]]", template="[N,R]"),
    case("between", "findall(X, limit(5, gen_int(X)), R)", "[0,1,-1,2,-2]"),
    case("between", "findall(X, limit(3, gen_nat(X)), R)", "[0,1,2]"),
]


# --- library(avl) --------------------------------------------------------------

ABC = "list_to_avl([c-3,a-1,b-2], A)"

AVL = [
    case("avl", "empty_avl(R)", "empty"),
    case("avl", "empty_avl(E), avl_store(k, E, v, A), avl_fetch(k, A, R)", "v"),
    case("avl", f"{ABC}, avl_to_list(A, R)", "[a-1,b-2,c-3]"),
    case("avl", "list_to_avl([a-1,a-2], A), avl_to_list(A, R)", "[a-2]"),
    case(
        "avl",
        "ord_list_to_avl([a-1,b-2,c-3], R)",
        "node(b,2,0,node(a,1,0,empty,empty),node(c,3,0,empty,empty))",
    ),
    case("avl", f"{ABC}, avl_domain(A, R)", "[a,b,c]"),
    case("avl", "list_to_avl([a-x,b-w,c-x], A), avl_range(A, R)", "[w,x]"),
    case("avl", f"{ABC}, ( avl_fetch(b, A) -> R = yes ; R = no )", YES),
    case("avl", f"{ABC}, ( avl_fetch(d, A, _) -> R = yes ; R = no )", "no"),
    case("avl", "list_to_avl([a-1,b-2,c-3,d-4,e-5,f-6,g-7], A), avl_height(A, R)", "3"),
    case("avl", f"{ABC}, avl_size(A, R)", "3"),
    case("avl", f"{ABC}, avl_incr(b, A, 10, B), avl_to_list(B, R)", "[a-1,b-12,c-3]"),
    case("avl", f"{ABC}, avl_incr(d, A, 10, B), avl_to_list(B, R)", "[a-1,b-2,c-3,d-10]"),
    case("avl", f"{ABC}, avl_min(A, R)", "a"),
    case("avl", f"{ABC}, avl_min(A, K, V)", "[a,1]", template="[K,V]"),
    case("avl", f"{ABC}, avl_max(A, R)", "c"),
    case("avl", f"{ABC}, avl_max(A, K, V)", "[c,3]", template="[K,V]"),
    case("avl", "( avl_max(empty, _) -> R = yes ; R = no )", "no"),
    case("avl", f"{ABC}, avl_member(R, A)", "a", "b", "c"),
    case("avl", f"{ABC}, avl_member(K, A, V)", "[a,1]", "[b,2]", "[c,3]", template="[K,V]"),
    case("avl", f"{ABC}, avl_next(a, A, R)", "b"),
    case("avl", f"{ABC}, avl_next(bb, A, K, V)", "[c,3]", template="[K,V]"),
    case("avl", f"{ABC}, ( avl_next(c, A, _) -> R = yes ; R = no )", "no"),
    case("avl", f"{ABC}, avl_prev(c, A, R)", "b"),
    case("avl", f"{ABC}, avl_prev(bb, A, K, V)", "[b,2]", template="[K,V]"),
    case(
        "avl",
        f"{ABC}, avl_delete(b, A, V, B), avl_to_list(B, L)",
        "[2,[a-1,c-3]]",
        template="[V,L]",
    ),
    case("avl", f"{ABC}, ( avl_delete(d, A, _, _) -> R = yes ; R = no )", "no"),
    case(
        "avl",
        f"{ABC}, avl_del_min(A, K, V, B), avl_to_list(B, L)",
        "[a,1,[b-2,c-3]]",
        template="[K,V,L]",
    ),
    case(
        "avl",
        f"{ABC}, avl_del_max(A, K, V, B), avl_to_list(B, L)",
        "[c,3,[a-1,b-2]]",
        template="[K,V,L]",
    ),
    case(
        "avl",
        f"{ABC}, avl_change(b, A, V, B, new), avl_to_list(B, L)",
        "[2,[a-1,b-new,c-3]]",
        template="[V,L]",
    ),
    case("avl", f"{ABC}, ( avl_change(d, A, _, _, new) -> R = yes ; R = no )", "no"),
    case("avl", f"{ABC}, ( avl_map(integer, A) -> R = yes ; R = no )", YES),
    case("avl", f"{ABC}, avl_map(succ, A, B), avl_to_list(B, R)", "[a-2,b-3,c-4]"),
    case("avl", f"{ABC}, ( is_avl(A) -> R = yes ; R = no )", YES),
    case("avl", "( is_avl(node(a,1,1,empty,empty)) -> R = yes ; R = no )", "no"),
    case(
        "avl",
        f"{ABC}, with_output_to(string(S), portray_avl(A)), atom_string(R, S)",
        "'AVL{a->1,b->2,c->3}'",
    ),
    case("avl", "churn(R)", YES),
]


# --- library(assoc) -----------------------------------------------------------

AC = "list_to_assoc([a-1,c-3], A)"

ASSOC = [
    case("assoc", f"{AC}, get_next_assoc(a, A, K, V)", "[c,3]", template="[K,V]"),
    case("assoc", f"{AC}, get_next_assoc(b, A, K, V)", "[c,3]", template="[K,V]"),
    case("assoc", f"{AC}, ( get_next_assoc(c, A, _, _) -> R = yes ; R = no )", "no"),
    case("assoc", f"{AC}, get_prev_assoc(c, A, K, V)", "[a,1]", template="[K,V]"),
    case("assoc", f"{AC}, ( get_prev_assoc(a, A, _, _) -> R = yes ; R = no )", "no"),
    case(
        "assoc",
        f"{AC}, with_output_to(string(S), portray_assoc(A)), atom_string(R, S)",
        "'Assoc{a->1,c->3}'",
    ),
    case("assoc", f"{AC}, gen_assoc(K, A, V)", "[a,1]", "[c,3]", template="[K,V]"),
]


# --- library(ugraphs) ---------------------------------------------------------

DIAMOND = "[a-[b,c],b-[d],c-[d],d-[]]"

UGRAPHS = [
    case("ugraphs", "symmetric_closure([a-[b],b-[]], R)", "[a-[b],b-[a]]"),
    case("ugraphs", "transitive_reduction([a-[b,c],b-[c],c-[]], R)", "[a-[b],b-[c],c-[]]"),
    case("ugraphs", f"min_path(a, d, {DIAMOND}, P, L)", "[[a,b,d],2]", template="[P,L]"),
    case("ugraphs", f"( min_path(d, a, {DIAMOND}, _, _) -> R = yes ; R = no )", "no"),
    case(
        "ugraphs",
        "max_path(a, d, [a-[b,d],b-[c],c-[d],d-[]], P, C)",
        "[[a,b,c,d],3]",
        template="[P,C]",
    ),
    case("ugraphs", f"min_paths(a, {DIAMOND}, R)", "[a-[b,c],b-[d],c-[],d-[]]"),
    case("ugraphs", "path(a, [a-[b,c],b-[],c-[a]], R)", "[a,b]", "[a,c]"),
    case("ugraphs", "reduce([a-[b],b-[a,c],c-[]], R)", "[[a,b]-[[c]],[c]-[]]"),
    case("ugraphs", "random_ugraph(1.0, 2, R)", "[1-[1,2],2-[1,2]]"),
    case("ugraphs", "random_ugraph(0.0, 2, R)", "[1-[],2-[]]"),
    case(
        "ugraphs",
        "min_tree([a-[b,c],b-[a,c],c-[a,b]], T, C)",
        "[[a-[b,c],b-[a],c-[a]],2]",
        template="[T,C]",
    ),
    case("ugraphs", "( min_tree([a-[],b-[]], _, _) -> R = yes ; R = no )", "no"),
    case("ugraphs", "max_cliques([a-[b,c],b-[a,c],c-[a,b,d],d-[c]], R)", "[[a,b,c],[c,d]]"),
    case("ugraphs", "top_sort([a-[b],b-[c],c-[]], R)", "[a,b,c]"),
    case("ugraphs", "( top_sort([a-[b],b-[a]], _) -> R = yes ; R = no )", "no"),
]


# --- library(terms) -----------------------------------------------------------

TERMS = [
    # SICStus counts symbols; SWI's term_size/2 counts memory cells.
    case("terms", "term_size(f(a,[b],_), R)", "5"),
    case("terms", "term_depth(f(g(h(a)),b), R)", "3"),
    case("terms", "term_depth(a, R)", "0"),
    case("terms", "( depth_bound(f(g(a)), 2) -> R = yes ; R = no )", YES),
    case("terms", "( depth_bound(f(g(a)), 1) -> R = yes ; R = no )", "no"),
    case("terms", "( size_bound(f(a,b), 3) -> R = yes ; R = no )", YES),
    case("terms", "( size_bound(f(a,b), 2) -> R = yes ; R = no )", "no"),
    case("terms", "length_bound(L, 2), length(L, R)", "0", "1", "2"),
    case("terms", "( length_bound([a,b,c], 2) -> R = yes ; R = no )", "no"),
    case("terms", "term_hash(f(a), H), ( integer(H) -> R = yes ; R = no )", YES),
    case("terms", "term_hash(f(_), H), ( var(H) -> R = yes ; R = no )", YES),
    case("terms", "term_hash(f(_), [if_var(value(none))], R)", "none"),
    case(
        "terms",
        "catch(term_hash(f(_), [if_var(error)], _), error(R, _), true)",
        "instantiation_error",
    ),
    case(
        "terms",
        "term_hash(f(a,_), [depth(1), range(10)], H), ( H < 10 -> R = yes ; R = no )",
        YES,
    ),
    case("terms", "term_hash(f(a,_), 1, 100, H), ( H < 100 -> R = yes ; R = no )", YES),
    case("terms", "term_hash(f(a), 2, infinite, H), ( integer(H) -> R = yes ; R = no )", YES),
    case("terms", "subsumeschk(f(_), f(a)), R = yes", YES),
    case("terms", "occurrences_of_var(X, f(X,g(X),Y), R)", "2"),
]


# --- library(aggregate) -------------------------------------------------------

AGGREGATE = [
    case("aggregate", "aggregate(count, X^member(X,[a,b,c]), R)", "3"),
    case("aggregate", "aggregate(sum(X), member(X,[1,2,3]), R)", "6"),
    case("aggregate", "aggregate(max(X*2), member(X,[1,3,2]), R)", "6"),
    case("aggregate", "aggregate(min(X, W), member(X-W,[3-a,1-b,1-c]), R)", "min(1,b)"),
    case("aggregate", "aggregate(bag(X), member(X,[c,a,c]), R)", "[c,a,c]"),
    case("aggregate", "aggregate(set(X), member(X,[c,a,c]), R)", "[a,c]"),
    # bagof/3 grouping by the free variable Kind.
    case(
        "aggregate",
        "aggregate(sum(P), F^price(F, Kind, P), S)",
        "[fruit,8]",
        "[vegetable,2]",
        template="[Kind,S]",
    ),
    case("aggregate", "aggregate(count, fail, R)"),
    case("aggregate", "aggregate(count, X, member(X,[a,a,b]), R)", "2"),
    case("aggregate", "aggregate(sum(X), X, member(X,[1,1,2]), R)", "3"),
    case("aggregate", "aggregate_all(count, member(_,[a,b]), R)", "2"),
    case("aggregate", "aggregate_all(count, X^member(X,[a,b]), R)", "2"),
    case("aggregate", "aggregate_all(sum(X), member(X,[]), R)", "0"),
    case("aggregate", "aggregate_all(bag(X), member(X,[]), R)", "[]"),
    case("aggregate", "( aggregate_all(max(X), member(X,[]), _) -> R = yes ; R = no )", "no"),
    case(
        "aggregate",
        "aggregate_all(max(P, F), price(F, _, P), R)",
        "max(5,pear)",
    ),
    # Constructors: compound terms, lists and constants.
    case("aggregate", "aggregate_all(r(count, sum(X), a), member(X,[1,2]), R)", "r(2,3,a)"),
    case("aggregate", "aggregate_all([count, max(X)], member(X,[1,5,2]), R)", "[3,5]"),
    case("aggregate", "aggregate_all(count, X, member(X,[a,a,b]), R)", "2"),
    case(
        "aggregate",
        "term_variables(f(X,Y,X), [Z], V), ( V == [Y,X,Z] -> R = yes ; R = no )",
        YES,
    ),
    case("aggregate", "foreach(member(X,[1,2]), dif(D, X)), D = 3, R = yes", YES),
    case("aggregate", "( forall(member(X,[1,2]), X > 0) -> R = yes ; R = no )", YES),
]


# --- library(samsort) ---------------------------------------------------------

SAMSORT = [
    case("samsort", "merge([1,3,5], [2,3,4], R)", "[1,2,3,3,4,5]"),
    # Stable: of equal keys, the first list's element comes first.
    case("samsort", "merge(key_le, [a-1,b-1], [a-2,c-2], R)", "[a-1,a-2,b-1,c-2]"),
    case("samsort", "keymerge([a-1,c-1], [a-2,b-2], R)", "[a-1,a-2,b-2,c-1]"),
    case("samsort", "samsort([b,a,b], R)", "[a,b,b]"),
]


# --- library(random) ----------------------------------------------------------

RANDOM = [
    case("random", "setrand(42), random(1, 100, X), setrand(42), random(1, 100, X), R = yes", YES),
    case("random", "getrand(S), random(X), setrand(S), random(X), R = yes", YES),
    case("random", "( random(5, 2, _) -> R = yes ; R = no )", "no"),
    case("random", "( random(a, 2, _) -> R = yes ; R = no )", "no"),
    case("random", "random(1, 2, R)", "1"),
    case("random", "random(1.0, 2.0, X), ( float(X), X >= 1.0, X < 2.0 -> R = yes ; R = no )", YES),
    case("random", "( maybe(0) -> R = yes ; R = no )", "no"),
    case("random", "( maybe(2) -> R = yes ; R = no )", YES),
    case("random", "( maybe(0, 5) -> R = yes ; R = no )", "no"),
    case("random", "( maybe(5, 5) -> R = yes ; R = no )", YES),
    case("random", "( maybe(3, 2) -> R = yes ; R = no )", "no"),
    case("random", "random_permutation([c,a,b], P), msort(P, R)", "[a,b,c]"),
]


# --- library(system) and library(file_systems) --------------------------------

SYSTEM = [
    case("system", "now(T), ( integer(T), T > 1600000000 -> R = yes ; R = no )", YES),
    case(
        "system",
        "datime(datime(Y,_,_,_,_,S)), ( Y >= 2024, integer(S) -> R = yes ; R = no )",
        YES,
    ),
    case(
        "system",
        "datime(W, datime(2024,1,2,3,4,5)), datime(W, D), ( integer(W) -> R = D ; R = no )",
        "datime(2024,1,2,3,4,5)",
    ),
    case("system", "sleep(0), R = yes", YES),
    case("system", "catch(sleep(-1), error(R, _), true)", "domain_error(not_less_than_zero,-1)"),
    case("system", "environ('PATH', P), ( atom(P) -> R = yes ; R = no )", YES),
    case("system", "once(( environ(N, _), N == 'PATH' )), R = yes", YES),
    case("system", "( environ('PATH', _, properties) -> R = yes ; R = no )", "no"),
    case("system", "( environ('PATH', _, environment) -> R = yes ; R = no )", YES),
]

FILE_SYSTEMS = [
    case(
        "file_systems",
        f"( file_exists({str(probe_file('file_systems'))!r}) -> R = yes ; R = no )",
        YES,
    ),
    case(
        "file_systems",
        f"file_members_of_directory({str(FIXTURES)!r}, 'library_file_systems*', S), S = [R-_]",
        "'library_file_systems_probe.pl'",
    ),
    case("file_systems", f"( directory_exists({str(FIXTURES)!r}) -> R = yes ; R = no )", YES),
]


@pytest.mark.parametrize(
    ("library", "goal", "template", "answers"),
    LISTS
    + SETS
    + ORDSETS
    + BETWEEN
    + AVL
    + ASSOC
    + UGRAPHS
    + TERMS
    + AGGREGATE
    + SAMSORT
    + RANDOM
    + SYSTEM
    + FILE_SYSTEMS,
)
def test_library_predicates_follow_sicstus(
    worker: Worker, library: str, goal: str, template: str, answers: list[str]
) -> None:
    assert ask(worker, library, goal, template) == answers


def test_close_all_streams_keeps_the_standard_streams() -> None:
    # A worker of its own: every other stream of the process is closed.
    goal = (
        "open('/dev/null', read, S), close_all_streams, ( is_stream(S) -> R = open ; R = closed )"
    )
    with Worker() as own:
        assert ask(own, "file_systems", goal) == ["closed"]


# --- qualified calls ------------------------------------------------------------


@pytest.mark.parametrize(
    ("library", "answer"),
    [
        ("lists", "[yes,[[],[a],[a,b]],2]"),
        ("sets", "[[a,c],[x-1,x-2]]"),
        ("ordsets", "[[a,b,c],<]"),
        ("between", "[[1,2,3],[],[t,t]]"),
        ("avl", "[v,[k-v]]"),
        ("assoc", "[c,3]"),
        ("ugraphs", "[[a-[b],b-[a]],[a,b,c]]"),
        ("terms", "[4,2]"),
        ("aggregate", "[2,ok]"),
        ("samsort", "[[1,2,3],[a-1,a-2]]"),
        ("random", "[yes,failed]"),
        ("file_systems", "yes"),
    ],
)
def test_qualified_calls_in_the_source(worker: Worker, library: str, answer: str) -> None:
    """Library:Pred as written in a solver, including where SWI's module of
    that name has a Pred of its own (lists:prefix/2, terms:term_size/2)."""
    assert ask(worker, library, "qualified(R)") == [answer]


def test_system_qualified_calls_in_the_source(worker: Worker) -> None:
    [answer] = ask(worker, "system", "qualified(R)")
    assert answer.startswith("[yes,")
    assert int(answer[5:-1]) >= 2024


@pytest.mark.parametrize(
    ("library", "goal", "answer"),
    [
        ("lists", "lists:somechk(>(3), [1,5]), R = yes", YES),
        ("lists", "lists:append_length(R, _, [a,b,c], 1)", "[a]"),
        ("sets", "sets:power_set([a], R)", "[[a],[]]"),
        ("ordsets", "ordsets:ordset_order([a], [a,b], R)", "<"),
        ("between", "between:numlist(2, 3, R)", "[2,3]"),
        ("avl", "avl:empty_avl(E), avl:avl_store(k, E, v, A), avl:avl_fetch(k, A, R)", "v"),
        ("assoc", "list_to_assoc([a-1], A), assoc:get_prev_assoc(b, A, R, _)", "a"),
        ("ugraphs", "ugraphs:max_cliques([a-[b],b-[a]], R)", "[[a,b]]"),
        ("terms", "terms:term_depth(f(g(a)), R)", "2"),
        ("aggregate", "aggregate:aggregate_all(count, member(_,[a]), R)", "1"),
        ("samsort", "samsort:merge([b], [a], R)", "[a,b]"),
        ("random", "random:maybe(0, 1), R = yes ; R = no", "no"),
        ("file_systems", "( file_systems:directory_exists('/') -> R = yes ; R = no )", YES),
    ],
)
def test_qualified_calls_built_at_run_time(
    worker: Worker, library: str, goal: str, answer: str
) -> None:
    """A goal built at run time reaches the module named like the library,
    which sees the predicates SWI's module of that name lacks."""
    assert ask(worker, library, goal) == [answer]


# --- imports -------------------------------------------------------------------


def load_problems(worker: Worker, library: str, tmp_path: Path) -> str:
    """What loading a copy of the probe of `library` prints, errors and
    warnings, through the same loader as the graded solvers."""
    copy = tmp_path / probe_file(library).name
    shutil.copy(probe_file(library), copy)
    goal = f"plpuzzle_bridge:load_solver({str(copy)!r}, {library}_load_check, sicstus4, R)"
    [problems] = ask(worker, "lists", goal)
    return problems


def test_every_library_loads_with_every_other(worker: Worker, tmp_path: Path) -> None:
    assert load_problems(worker, "clash", tmp_path) == '""'
    # term_variables/3 is aggregate's, term_size/2 terms' (SICStus' both).
    assert ask(worker, "clash", "qualified(R)") == ["[aggregate,2]"]


def test_import_lists_and_own_definitions(worker: Worker, tmp_path: Path) -> None:
    problems = load_problems(worker, "imports", tmp_path)
    # append/3 is quietly left out; union/2 of the solver wins, as said.
    assert "not exported" not in problems
    assert "union/2" in problems and "overrides weak import" in problems
    assert ask(worker, "imports", "qualified(R)") == ["[b,c,a]"]
    assert ask(worker, "imports", "somechk(==(b), [a,b]), R = yes") == [YES]
    assert ask(worker, "imports", "append([a], [b], R)") == ["[a,b]"]
    assert ask(worker, "imports", "union([[a]], R)") == ["own"]
    assert ask(worker, "imports", "group(x, y, R)") == ["own"]
    # Imported from sets as a whole, unlike anything of lists not listed.
    assert ask(worker, "imports", "power_set([a], R)") == ["[[a],[]]"]
    missing = "catch(perm([a], _), error(existence_error(procedure, _:R), _), true)"
    assert ask(worker, "imports", missing) == ["perm/2"]
