/*  library(sets) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    Sets are lists without repeated elements, in no particular order.
    The module exports the predicates SICStus documents for
    library(sets).  Those SWI-Prolog's SICStus 4 emulation
    (library(dialect/sicstus4/sets)) has are re-exported; defined here
    are pairfrom/4, power_set/2, intersection/2, symdiff/3,
    setproduct/3 and union/2, which it lacks.  As in SICStus, elements
    are compared by unification (memberchk/2), so they should be
    ground enough for that to be sound.
*/

:- module(sicstus_lib_sets,
          [ add_element/3, del_element/3, is_set/1, disjoint/2,
            disjoint_union/3, intersect/2, intersection/2,
            intersection/3, list_to_set/2, pairfrom/4, power_set/2,
            set_order/3, seteq/2, setproduct/3, subset/2, subtract/3,
            symdiff/3, union/2, union/3, union/4
          ]).

:- set_module(base(system)).

:- use_module(library(dialect/sicstus4/sets),
              [ add_element/3, del_element/3, is_set/1, disjoint/2,
                disjoint_union/3, intersect/2, intersection/3,
                list_to_set/2, set_order/3, seteq/2, subset/2,
                subtract/3, union/3, union/4
              ]).
:- use_module(library(lists), [select/3, append/3]).
:- use_module(library(apply), [maplist/3, foldl/4]).

%!  add_element(+Element, +Set1, -Set2) is det.
%!  del_element(+Element, +Set1, -Set2) is det.
%!  is_set(+List) is semidet.
%!  disjoint(+Set1, +Set2) is semidet.
%!  disjoint_union(+Set1, +Set2, -Union) is semidet.
%!  intersect(+Set1, +Set2) is semidet.
%!  intersection(+Set1, +Set2, -Intersection) is det.
%!  list_to_set(+List, -Set) is det.
%!  set_order(+Xs, +Ys, -R) is semidet.
%!  seteq(+Set1, +Set2) is semidet.
%!  subset(+Set1, +Set2) is semidet.
%!  subtract(+Set1, +Set2, -Difference) is det.
%!  union(+Set1, +Set2, -Union) is det.
%!  union(+Set1, +Set2, -Union, -Difference) is det.
%
%   Re-exported from SWI-Prolog's SICStus 4 emulation, which behaves
%   as SICStus documents.

%!  pairfrom(?Set, ?Element1, ?Element2, ?Residue) is nondet.
%
%   Element1 and Element2 occur in Set, Element2 after Element1, and
%   Residue is Set without them.  Each pair comes once.

pairfrom([Element1|Set], Element1, Element2, Residue) :-
    select(Element2, Set, Residue).
pairfrom([X|Set], Element1, Element2, [X|Residue]) :-
    pairfrom(Set, Element1, Element2, Residue).

%!  power_set(+Set, -PowerSet) is det.
%
%   PowerSet lists every subset of Set, each in Set's order; a subset
%   comes before its own subsets, so Set is first and [] last.

power_set(Set, PowerSet) :-
    power_set_(Set, PowerSet0),
    PowerSet = PowerSet0.

power_set_([], [[]]).
power_set_([X|Xs], PowerSet) :-
    power_set_(Xs, Subsets),
    maplist(cons(X), Subsets, WithX),
    append(WithX, Subsets, PowerSet).

cons(X, Xs, [X|Xs]).

%!  intersection(+ListOfSets, -Intersection) is semidet.
%
%   Intersection holds the elements of the first set that are in every
%   other set, in the order of the first.  Fails if ListOfSets is
%   empty.

intersection([Set|Sets], Intersection) :-
    in_all(Set, Sets, Intersection0),
    Intersection = Intersection0.

in_all([], _, []).
in_all([X|Xs], Sets, Intersection) :-
    (   in_every(Sets, X)
    ->  Intersection = [X|Intersection1]
    ;   Intersection = Intersection1
    ),
    in_all(Xs, Sets, Intersection1).

in_every([], _).
in_every([Set|Sets], X) :-
    memberchk(X, Set),
    in_every(Sets, X).

%!  union(+ListOfSets, -Union) is det.
%
%   Union holds every element of the sets of ListOfSets once, in the
%   order of their first occurrence.

union(Sets, Union) :-
    foldl(add_new_elements, Sets, [], Reversed),
    reverse_(Reversed, [], Union0),
    Union = Union0.

add_new_elements(Set, Seen0, Seen) :-
    foldl(add_new, Set, Seen0, Seen).

add_new(X, Seen0, Seen) :-
    (   memberchk(X, Seen0)
    ->  Seen = Seen0
    ;   Seen = [X|Seen0]
    ).

reverse_([], Ys, Ys).
reverse_([X|Xs], Ys0, Ys) :-
    reverse_(Xs, [X|Ys0], Ys).

%!  symdiff(+Set1, +Set2, -Difference) is det.
%
%   Difference holds the elements of Set1 that are not in Set2, then
%   those of Set2 that are not in Set1, each once, in their order.

symdiff(Set1, Set2, Difference) :-
    only_in(Set1, Set2, Difference0, Difference1),
    only_in(Set2, Set1, Difference1, []),
    Difference = Difference0.

%   only_in(+Set, +Avoid, -Diff0, -Diff): the difference list Diff0-Diff
%   holds the elements of Set not in Avoid, each once.
only_in([], _, Diff, Diff).
only_in([X|Xs], Avoid, Diff0, Diff) :-
    (   memberchk(X, Avoid)
    ->  only_in(Xs, Avoid, Diff0, Diff)
    ;   Diff0 = [X|Diff1],
        only_in(Xs, [X|Avoid], Diff1, Diff)
    ).

%!  setproduct(+Set1, +Set2, -Product) is det.
%
%   Product holds a pair X-Y for each X of Set1 and Y of Set2, X
%   varying slowest.

setproduct(Set1, Set2, Product) :-
    pairs_of(Set1, Set2, Product0, []),
    Product = Product0.

pairs_of([], _, Pairs, Pairs).
pairs_of([X|Xs], Ys, Pairs0, Pairs) :-
    pairs_with(Ys, X, Pairs0, Pairs1),
    pairs_of(Xs, Ys, Pairs1, Pairs).

pairs_with([], _, Pairs, Pairs).
pairs_with([Y|Ys], X, [X-Y|Pairs0], Pairs) :-
    pairs_with(Ys, X, Pairs0, Pairs).
