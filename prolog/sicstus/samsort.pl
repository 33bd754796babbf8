/*  library(samsort) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    The module exports the predicates SICStus documents for
    library(samsort).  samsort/2,3 and samkeysort/2 come from SWI's
    SICStus 4 emulation (library(dialect/sicstus4/samsort)); merge/3,
    merge/4 and keymerge/3, which it lacks, are defined here.  All are
    stable: of equal elements, those from the first list (or earlier
    in the list) come first.
*/

:- module(sicstus_lib_samsort,
          [ samsort/2, samsort/3, samkeysort/2, merge/3, merge/4,
            keymerge/3
          ]).

:- set_module(base(system)).

:- use_module(library(dialect/sicstus4/samsort),
              [samsort/2, samsort/3, samkeysort/2]).

:- meta_predicate
    merge(2, +, +, ?).

%!  samsort(+RawList, -Sorted) is det.
%!  samsort(:Order, +RawList, -Sorted) is det.
%!  samkeysort(+RawList, -Sorted) is det.
%
%   Re-exported from SWI-Prolog's emulation: Sorted is RawList in
%   ascending standard order (of keys for samkeysort/2), or by Order,
%   which acts like @=<, keeping duplicates.

%!  merge(+List1, +List2, -Merged) is det.
%
%   Merged is the stable merge of List1 and List2 by standard order:
%   if both are ordered, so is Merged, with every element of both.

merge(List1, List2, Merged) :-
    merge_(List1, List2, standard, Merged0),
    Merged = Merged0.

%!  merge(:Order, +List1, +List2, -Merged) is det.
%
%   As merge/3, but by Order, which acts like @=<: an element X of
%   List1 goes before an element Y of List2 if Order(X, Y) holds.

merge(Order, List1, List2, Merged) :-
    merge_(List1, List2, order(Order), Merged0),
    Merged = Merged0.

%!  keymerge(+List1, +List2, -Merged) is det.
%
%   As merge/3 for lists of Key-Value pairs, comparing only the keys.

keymerge(List1, List2, Merged) :-
    merge_(List1, List2, key, Merged0),
    Merged = Merged0.

merge_([], Ys, _, Ys) :-
    !.
merge_(Xs, [], _, Xs) :-
    !.
merge_([X|Xs], [Y|Ys], By, [Z|Zs]) :-
    (   first_goes_first(By, X, Y)
    ->  Z = X,
        merge_(Xs, [Y|Ys], By, Zs)
    ;   Z = Y,
        merge_([X|Xs], Ys, By, Zs)
    ).

first_goes_first(standard, X, Y) :-
    \+ Y @< X.
first_goes_first(key, KX-_, KY-_) :-
    \+ KY @< KX.
first_goes_first(order(Order), X, Y) :-
    call(Order, X, Y).
