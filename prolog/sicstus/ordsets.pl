/*  library(ordsets) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    Ordered sets are lists in strictly ascending standard order.  The
    module exports the predicates SICStus documents for
    library(ordsets).  SWI-Prolog's library(ordsets) and its SICStus 4
    emulation (library(dialect/sicstus4/ordsets), for ord_member/2 and
    ord_nonmember/2) are re-exported; defined here are
    ord_disjoint_union/3, ord_setproduct/3 and ordset_order/3, which
    SWI lacks.
*/

:- module(sicstus_lib_ordsets,
          [ is_ordset/1, list_to_ord_set/2, ord_add_element/3,
            ord_del_element/3, ord_disjoint/2, ord_disjoint_union/3,
            ord_intersect/2, ord_intersection/2, ord_intersection/3,
            ord_intersection/4, ord_member/2, ord_nonmember/2,
            ord_seteq/2, ord_setproduct/3, ord_subset/2, ord_subtract/3,
            ord_symdiff/3, ord_union/2, ord_union/3, ord_union/4,
            ordset_order/3
          ]).

:- set_module(base(system)).

:- use_module(library(ordsets),
              [ is_ordset/1, list_to_ord_set/2, ord_add_element/3,
                ord_del_element/3, ord_disjoint/2, ord_intersect/2,
                ord_intersection/2, ord_intersection/3,
                ord_intersection/4, ord_seteq/2, ord_subset/2,
                ord_subtract/3, ord_symdiff/3, ord_union/2, ord_union/3,
                ord_union/4
              ]).
:- use_module(library(dialect/sicstus4/ordsets),
              [ord_member/2, ord_nonmember/2]).

%!  is_ordset(@Term) is semidet.
%!  list_to_ord_set(+List, -Set) is det.
%!  ord_add_element(+Set1, +Element, -Set2) is det.
%!  ord_del_element(+Set1, +Element, -Set2) is det.
%!  ord_disjoint(+Set1, +Set2) is semidet.
%!  ord_intersect(+Set1, +Set2) is semidet.
%!  ord_intersection(+ListOfSets, -Intersection) is semidet.
%!  ord_intersection(+Set1, +Set2, -Intersection) is det.
%!  ord_intersection(+Set1, +Set2, ?Intersection, ?Difference) is det.
%!  ord_member(+Elt, +Set) is semidet.
%!  ord_nonmember(+Item, +Set) is semidet.
%!  ord_seteq(+Set1, +Set2) is semidet.
%!  ord_subset(+Set1, +Set2) is semidet.
%!  ord_subtract(+Set1, +Set2, -Difference) is det.
%!  ord_symdiff(+Set1, +Set2, -Difference) is det.
%!  ord_union(+ListOfSets, -Union) is det.
%!  ord_union(+Set1, +Set2, -Union) is det.
%!  ord_union(+OldSet, +NewSet, -Union, -ReallyNew) is det.
%
%   Re-exported from SWI-Prolog, which behaves as SICStus documents:
%   the Difference of ord_intersection/4 is Set2 \ Set1 and ReallyNew
%   of ord_union/4 is NewSet \ OldSet.

%!  ord_disjoint_union(+Set1, +Set2, -Union) is semidet.
%
%   Set1 and Set2 have no element in common and Union is their union.
%   Fails if they share an element.

ord_disjoint_union([], Set2, Set2).
ord_disjoint_union([X|Xs], Set2, Union) :-
    disjoint_merge(Set2, X, Xs, Union).

disjoint_merge([], X, Xs, [X|Xs]).
disjoint_merge([Y|Ys], X, Xs, Union) :-
    compare(Order, X, Y),
    disjoint_merge(Order, X, Xs, Y, Ys, Union).

disjoint_merge(<, X, Xs, Y, Ys, [X|Union]) :-
    disjoint_merge(Xs, Y, Ys, Union).
disjoint_merge(>, X, Xs, Y, Ys, [Y|Union]) :-
    disjoint_merge(Ys, X, Xs, Union).

%!  ord_setproduct(+Set1, +Set2, -Product) is det.
%
%   Product is the ordered set of the pairs X-Y with X in Set1 and Y in
%   Set2.

ord_setproduct(Set1, Set2, Product) :-
    product(Set1, Set2, Product0, []),
    Product = Product0.

product([], _, Pairs, Pairs).
product([X|Xs], Ys, Pairs0, Pairs) :-
    product_row(Ys, X, Pairs0, Pairs1),
    product(Xs, Ys, Pairs1, Pairs).

product_row([], _, Pairs, Pairs).
product_row([Y|Ys], X, [X-Y|Pairs0], Pairs) :-
    product_row(Ys, X, Pairs0, Pairs).

%!  ordset_order(+Xs, +Ys, -R) is semidet.
%
%   R is <, = or > as the ordered set Xs is a proper subset of, equal
%   to or a proper superset of Ys.  Fails if neither contains the
%   other.

ordset_order(Xs, Ys, R) :-
    (   Xs == Ys
    ->  R = (=)
    ;   ord_subset(Xs, Ys)
    ->  R = (<)
    ;   ord_subset(Ys, Xs)
    ->  R = (>)
    ).
