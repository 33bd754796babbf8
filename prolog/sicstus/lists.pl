/*  library(lists) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    The module exports the predicates SICStus documents for
    library(lists), and only those.  Where SWI-Prolog has one with the
    same meaning it is re-exported: from SWI's SICStus 4 emulation
    (library(dialect/sicstus4/lists)), library(lists), library(apply)
    and clpfd's transpose/2.  Defined here are those SWI lacks:

        append/5, correspond/4, delete/4, one_longer/2, perm/2, perm2/4,
        rotate_list/2,3, segment/2, proper_segment/2, cumlist/4,5,6,
        map_product/4, some/2,3,4, somechk/2,3,4, exclude/4,5,
        include/4,5, group/3,4,5, ordered/1,2, select_min/3,4,
        select_max/3,4, increasing_prefix/3,4, decreasing_prefix/3,4,
        clumps/2, keyclumps/2, keyclumped/2

    and those whose SWI emulation behaves otherwise than SICStus
    documents: remove_dups/2 (SICStus sorts), subseq/3, subseq0/2 and
    subseq1/2 (SWI's give some subsequences twice), and
    append_length/3,4, prefix_length/3, proper_prefix_length/3,
    suffix_length/3 and proper_suffix_length/3 (SWI's leave choice
    points, or loop, where SICStus is determinate).
*/

:- module(sicstus_lib_lists,
          [ select/3, selectchk/3, append/2, append/5, correspond/4,
            delete/3, delete/4, is_list/1, keys_and_values/3, last/2,
            nextto/3, nth0/3, nth1/3, nth0/4, nth1/4, one_longer/2,
            perm/2, permutation/2, perm2/4, proper_length/2,
            remove_dups/2, reverse/2, rev/2, same_length/2,
            same_length/3, select/4, selectchk/4, shorter_list/2,
            subseq/3, subseq0/2, subseq1/2, sumlist/2, transpose/2,
            append_length/4, append_length/3, prefix_length/3,
            proper_prefix_length/3, suffix_length/3,
            proper_suffix_length/3, rotate_list/3, rotate_list/2,
            sublist/5, sublist/4, sublist/3, cons/3, last/3, head/2,
            tail/2, prefix/2, proper_prefix/2, suffix/2, proper_suffix/2,
            segment/2, proper_segment/2, cumlist/4, cumlist/5,
            cumlist/6, maplist/2, maplist/3, maplist/4, map_product/4,
            scanlist/4, scanlist/5, scanlist/6, some/2, some/3, some/4,
            somechk/2, somechk/3, somechk/4, convlist/3, exclude/3,
            exclude/4, exclude/5, include/3, include/4, include/5,
            partition/5, group/3, group/4, group/5, ordered/1,
            ordered/2, max_member/2, min_member/2, max_member/3,
            min_member/3, select_min/3, select_min/4, select_max/3,
            select_max/4, increasing_prefix/3, increasing_prefix/4,
            decreasing_prefix/3, decreasing_prefix/4, clumps/2,
            keyclumps/2, clumped/2, keyclumped/2
          ]).

:- set_module(base(system)).

:- use_module(library(dialect/sicstus4/lists),
              [ keys_and_values/3, rev/2, shorter_list/2, sublist/5,
                sublist/4, sublist/3, cons/3, last/3, head/2, tail/2,
                prefix/2, proper_prefix/2, suffix/2, proper_suffix/2,
                scanlist/4, scanlist/5, scanlist/6, sumlist/2,
                same_length/3
              ]).
:- use_module(library(lists),
              [ select/3, selectchk/3, append/2, append/3, delete/3,
                last/2, nextto/3, nth0/3, nth1/3, nth0/4, nth1/4,
                permutation/2, proper_length/2, reverse/2,
                same_length/2, select/4, selectchk/4, max_member/2,
                min_member/2, max_member/3, min_member/3, clumped/2
              ]).
:- use_module(library(apply),
              [ maplist/2, maplist/3, maplist/4, convlist/3, exclude/3,
                include/3, partition/5
              ]).
:- use_module(library(clpfd), [transpose/2]).
:- use_module(library(error), [must_be/2]).

:- meta_predicate
    cumlist(3, ?, ?, ?),
    cumlist(4, ?, ?, ?, ?),
    cumlist(5, ?, ?, ?, ?, ?),
    map_product(3, ?, ?, ?),
    some(1, ?),
    some(2, ?, ?),
    some(3, ?, ?, ?),
    somechk(1, ?),
    somechk(2, ?, ?),
    somechk(3, ?, ?, ?),
    exclude(2, ?, ?, ?),
    exclude(3, ?, ?, ?, ?),
    include(2, ?, ?, ?),
    include(3, ?, ?, ?, ?),
    group(2, ?, ?),
    group(1, ?, ?, ?),
    group(2, ?, ?, ?, ?),
    ordered(2, ?),
    select_min(2, ?, ?, ?),
    select_max(2, ?, ?, ?),
    increasing_prefix(2, ?, ?, ?),
    decreasing_prefix(2, ?, ?, ?).

%!  select(?Element, ?Set, ?Residue) is nondet.
%!  selectchk(+Element, +Set, ?Residue) is semidet.
%!  append(+ListOfLists, -List) is det.
%!  delete(+List, +Kill, -Residue) is det.
%!  is_list(+Term) is semidet.
%!  keys_and_values(?Pairs, ?Keys, ?Values) is det.
%!  last(?List, ?Last) is semidet.
%!  nextto(?X, ?Y, ?List) is nondet.
%!  nth0(?N, ?List, ?Elem) is nondet.
%!  nth1(?N, ?List, ?Elem) is nondet.
%!  nth0(?N, ?List, ?Elem, ?Rest) is nondet.
%!  nth1(?N, ?List, ?Elem, ?Rest) is nondet.
%!  permutation(?List, ?Perm) is nondet.
%!  proper_length(+List, ?Length) is semidet.
%!  reverse(?List, ?Reversed) is semidet.
%!  rev(+List, ?Reversed) is semidet.
%!  same_length(?List1, ?List2) is nondet.
%!  same_length(?List1, ?List2, ?Length) is nondet.
%!  select(?X, ?Xlist, ?Y, ?Ylist) is nondet.
%!  selectchk(?X, +Xlist, ?Y, +Ylist) is semidet.
%!  shorter_list(?Short, ?Long) is nondet.
%!  sumlist(+Numbers, ?Total) is semidet.
%!  transpose(?X, ?Y) is semidet.
%!  sublist(+Whole, ?Part, ?Before, ?Length, ?After) is nondet.
%!  sublist(+Whole, ?Part, ?Before, ?Length) is nondet.
%!  sublist(+Whole, ?Part, ?Before) is nondet.
%!  cons(?Head, ?Tail, ?List) is det.
%!  last(?Fore, ?Last, ?List) is nondet.
%!  head(?List, ?Head) is semidet.
%!  tail(?List, ?Tail) is semidet.
%!  prefix(?List, ?Prefix) is nondet.
%!  proper_prefix(?List, ?Prefix) is nondet.
%!  suffix(?List, ?Suffix) is nondet.
%!  proper_suffix(?List, ?Suffix) is nondet.
%!  maplist(:Pred, +List) is nondet.
%!  maplist(:Pred, ?Xs, ?Ys) is nondet.
%!  maplist(:Pred, ?Xs, ?Ys, ?Zs) is nondet.
%!  scanlist(:Pred, ?Xs, ?V1, ?V) is nondet.
%!  scanlist(:Pred, ?Xs, ?Ys, ?V1, ?V) is nondet.
%!  scanlist(:Pred, ?Xs, ?Ys, ?Zs, ?V1, ?V) is nondet.
%!  convlist(:Rewrite, +OldList, ?NewList) is det.
%!  exclude(:Pred, +Xs, ?SubList) is det.
%!  include(:Pred, +Xs, ?SubList) is det.
%!  partition(:Pred, +List, ?Less, ?Equal, ?Greater) is semidet.
%!  max_member(?Max, +List) is semidet.
%!  min_member(?Min, +List) is semidet.
%!  max_member(:Pred, ?Max, +List) is semidet.
%!  min_member(:Pred, ?Min, +List) is semidet.
%!  clumped(+Items, ?Counts) is det.
%
%   SWI-Prolog's predicates of these names behave as SICStus documents
%   them and are re-exported unchanged.


                 /*******************************
                 *     REDEFINED PREDICATES     *
                 *******************************/

%!  remove_dups(+List, ?Pruned) is det.
%
%   Pruned is List without duplicates, in ascending standard order (as
%   sort/2 gives it).

remove_dups(List, Pruned) :-
    sort(List, Sorted),
    Pruned = Sorted.

%!  subseq(?Sequence, ?SubSequence, ?Complement) is nondet.
%
%   SubSequence and Complement are the elements of Sequence, each in
%   their order, split in two.  Each split is found once.

subseq([], [], []).
subseq([X|Xs], [X|Ys], Zs) :-
    subseq(Xs, Ys, Zs).
subseq([X|Xs], Ys, [X|Zs]) :-
    subseq(Xs, Ys, Zs).

%!  subseq0(+Sequence, ?SubSequence) is nondet.
%!  subseq1(+Sequence, ?SubSequence) is nondet.
%
%   SubSequence is a subsequence of Sequence; for subseq1/2 one that
%   leaves out at least one element.  Sequence itself comes first,
%   then the subsequences without its head, as SICStus enumerates them.

subseq0(Sequence, Sequence).
subseq0(Sequence, SubSequence) :-
    subseq1(Sequence, SubSequence).

subseq1([_|Tail], SubSequence) :-
    subseq0(Tail, SubSequence).
subseq1([Head|Tail], [Head|SubSequence]) :-
    subseq1(Tail, SubSequence).

%!  append_length(?Prefix, ?Suffix, ?List, ?Length) is nondet.
%!  append_length(?Suffix, ?List, ?Length) is nondet.
%
%   append(Prefix, Suffix, List) and Length is the length of Prefix.
%   Determinate when Length is an integer or Prefix is a proper list.

append_length(Prefix, Suffix, List, Length) :-
    (   var(Length)
    ->  append(Prefix, Suffix, List),
        length(Prefix, Length)
    ;   must_be(nonneg, Length),
        length(Prefix, Length),
        append(Prefix, Suffix, List)
    ).

append_length(Suffix, List, Length) :-
    append_length(_, Suffix, List, Length).

%!  prefix_length(?List, ?Prefix, ?Length) is nondet.
%!  proper_prefix_length(?List, ?Prefix, ?Length) is nondet.
%
%   Prefix is a prefix of List (a proper one: shorter than List) of
%   length Length.

prefix_length(List, Prefix, Length) :-
    append_length(Prefix, _, List, Length).

proper_prefix_length(List, Prefix, Length) :-
    append_length(Prefix, [_|_], List, Length).

%!  suffix_length(+List, ?Suffix, ?Length) is nondet.
%!  proper_suffix_length(+List, ?Suffix, ?Length) is nondet.
%
%   Suffix is a suffix of List (a proper one: shorter than List) of
%   length Length, longest first.  Determinate when Length is an
%   integer or Suffix a proper list.

suffix_length(List, Suffix, Length) :-
    suffix_length(List, Suffix, Length, 0).

proper_suffix_length(List, Suffix, Length) :-
    suffix_length(List, Suffix, Length, 1).

%   MinSkip is how many elements of List the suffix leaves out at least.
suffix_length(List, Suffix, Length, MinSkip) :-
    (   var(Length), is_list(Suffix)
    ->  length(Suffix, Length)
    ;   true
    ),
    length(List, N),
    (   var(Length)
    ->  MaxLength is N - MinSkip,
        between(0, MaxLength, Skip0),
        Skip is Skip0 + MinSkip,
        Length is N - Skip
    ;   must_be(nonneg, Length),
        Skip is N - Length,
        Skip >= MinSkip
    ),
    length(Front, Skip),
    append(Front, Suffix, List).


                 /*******************************
                 *      ADDED PREDICATES        *
                 *******************************/

%!  append(?Prefix, ?Tail1, ?List1, ?Tail2, ?List2) is nondet.
%
%   append(Prefix, Tail1, List1) and append(Prefix, Tail2, List2).

append([], Tail1, Tail1, Tail2, Tail2).
append([X|Prefix], Tail1, [X|List1], Tail2, [X|List2]) :-
    append(Prefix, Tail1, List1, Tail2, List2).

%!  correspond(?X, ?Xlist, ?Ylist, ?Y) is semidet.
%
%   X is an element of Xlist and Y the element at the same place in
%   Ylist: the first place where both unify.

correspond(X, [X|_], [Y|_], Y) :-
    !.
correspond(X, [_|Xs], [_|Ys], Y) :-
    correspond(X, Xs, Ys, Y).

%!  delete(+List, +Kill, +Count, -Residue) is det.
%
%   Residue is List without its first Count elements that are equal
%   to Kill: all of them if there are fewer.  As in SICStus, "equal"
%   means unifiable, tested with \= (so nothing gets bound).

delete(List, Kill, Count, Residue) :-
    must_be(list, List),
    must_be(nonneg, Count),
    delete_(List, Kill, Count, Residue).

delete_([], _, _, []).
delete_([X|Xs], Kill, N, Residue) :-
    (   N > 0, \+ X \= Kill
    ->  N1 is N - 1,
        Residue = Residue1
    ;   N1 = N,
        Residue = [X|Residue1]
    ),
    delete_(Xs, Kill, N1, Residue1).

%!  one_longer(?Longer, ?Shorter) is nondet.
%
%   Longer has one element more than Shorter.

one_longer([_|Longer], Shorter) :-
    same_length(Longer, Shorter).

%!  perm(+List, ?Perm) is nondet.
%
%   Perm is a permutation of the proper list List.

perm([], []).
perm(List, [X|Perm]) :-
    select(X, List, Rest),
    perm(Rest, Perm).

%!  perm2(?A, ?B, ?C, ?D) is nondet.
%
%   {A,B} = {C,D}: C-D is A-B or B-A.

perm2(A, B, A, B).
perm2(A, B, B, A).

%!  rotate_list(+Amount, ?List, ?Rotated) is semidet.
%!  rotate_list(?List, ?Rotated) is semidet.
%
%   Rotated is List rotated left by Amount places (right if Amount is
%   negative); by one place for rotate_list/2.  Either list should be
%   proper.

rotate_list(List, Rotated) :-
    rotate_list(1, List, Rotated).

rotate_list(Amount, List, Rotated) :-
    must_be(integer, Amount),
    same_length(List, Rotated),
    length(List, N),
    (   N =:= 0
    ->  true
    ;   Skip is Amount mod N,
        length(Front, Skip),
        append(Front, Back, List),
        append(Back, Front, Rotated)
    ).

%!  segment(?List, ?Segment) is nondet.
%!  proper_segment(?List, ?Segment) is nondet.
%
%   Segment is a contiguous part of List; for proper_segment/2 not
%   List itself.

segment(List, Segment) :-
    append(_, Tail, List),
    append(Segment, _, Tail).

proper_segment(List, Segment) :-
    append(Before, Tail, List),
    append(Segment, After, Tail),
    \+ ( Before == [], After == [] ).

%!  cumlist(:Pred, ?Xs, ?V0, ?Vs) is nondet.
%!  cumlist(:Pred, ?Xs, ?Ys, ?V0, ?Vs) is nondet.
%!  cumlist(:Pred, ?Xs, ?Ys, ?Zs, ?V0, ?Vs) is nondet.
%
%   Like scanlist/4,5,6, but Vs lists every intermediate value: for
%   cumlist/4, Pred(X1,V0,V1), Pred(X2,V1,V2), ... and Vs = [V1,V2,...].

cumlist(_, [], _, []).
cumlist(Pred, [X|Xs], V0, [V|Vs]) :-
    call(Pred, X, V0, V),
    cumlist(Pred, Xs, V, Vs).

cumlist(_, [], [], _, []).
cumlist(Pred, [X|Xs], [Y|Ys], V0, [V|Vs]) :-
    call(Pred, X, Y, V0, V),
    cumlist(Pred, Xs, Ys, V, Vs).

cumlist(_, [], [], [], _, []).
cumlist(Pred, [X|Xs], [Y|Ys], [Z|Zs], V0, [V|Vs]) :-
    call(Pred, X, Y, Z, V0, V),
    cumlist(Pred, Xs, Ys, Zs, V, Vs).

%!  map_product(:Pred, +Xs, +Ys, ?Zs) is nondet.
%
%   Zs holds Z for Pred(X, Y, Z) for every X of Xs and Y of Ys, X
%   varying slowest.

map_product(Pred, Xs, Ys, Zs) :-
    map_product_(Xs, Ys, Pred, Zs, []).

map_product_([], _, _, Zs, Zs).
map_product_([X|Xs], Ys, Pred, Zs0, Zs) :-
    map_row(Ys, X, Pred, Zs0, Zs1),
    map_product_(Xs, Ys, Pred, Zs1, Zs).

map_row([], _, _, Zs, Zs).
map_row([Y|Ys], X, Pred, [Z|Zs0], Zs) :-
    call(Pred, X, Y, Z),
    map_row(Ys, X, Pred, Zs0, Zs).

%!  some(:Pred, +Xs) is nondet.
%!  some(:Pred, +Xs, ?Ys) is nondet.
%!  some(:Pred, +Xs, ?Ys, ?Zs) is nondet.
%
%   Pred holds for some element of Xs (and the elements at the same
%   place in Ys and Zs), trying every element and every proof.

some(Pred, [X|Xs]) :-
    (   call(Pred, X)
    ;   some(Pred, Xs)
    ).

some(Pred, [X|Xs], [Y|Ys]) :-
    (   call(Pred, X, Y)
    ;   some(Pred, Xs, Ys)
    ).

some(Pred, [X|Xs], [Y|Ys], [Z|Zs]) :-
    (   call(Pred, X, Y, Z)
    ;   some(Pred, Xs, Ys, Zs)
    ).

%!  somechk(:Pred, +Xs) is semidet.
%!  somechk(:Pred, +Xs, ?Ys) is semidet.
%!  somechk(:Pred, +Xs, ?Ys, ?Zs) is semidet.
%
%   The first solution of some/2,3,4.

somechk(Pred, Xs) :-
    some(Pred, Xs),
    !.

somechk(Pred, Xs, Ys) :-
    some(Pred, Xs, Ys),
    !.

somechk(Pred, Xs, Ys, Zs) :-
    some(Pred, Xs, Ys, Zs),
    !.

%!  exclude(:Pred, +Xs, +Ys, ?SubList) is det.
%!  exclude(:Pred, +Xs, +Ys, +Zs, ?SubList) is det.
%!  include(:Pred, +Xs, +Ys, ?SubList) is det.
%!  include(:Pred, +Xs, +Ys, +Zs, ?SubList) is det.
%
%   SubList holds the elements X of Xs for which Pred(X, Y[, Z]) fails
%   (exclude) or succeeds (include), Y and Z being the elements at the
%   same place in Ys and Zs.

exclude(Pred, Xs, Ys, SubList) :-
    filter2(Xs, Ys, Pred, false, SubList).

exclude(Pred, Xs, Ys, Zs, SubList) :-
    filter3(Xs, Ys, Zs, Pred, false, SubList).

include(Pred, Xs, Ys, SubList) :-
    filter2(Xs, Ys, Pred, true, SubList).

include(Pred, Xs, Ys, Zs, SubList) :-
    filter3(Xs, Ys, Zs, Pred, true, SubList).

filter2([], [], _, _, []).
filter2([X|Xs], [Y|Ys], Pred, Keep, SubList) :-
    (   call(Pred, X, Y)
    ->  keep(Keep, true, X, SubList, SubList1)
    ;   keep(Keep, false, X, SubList, SubList1)
    ),
    filter2(Xs, Ys, Pred, Keep, SubList1).

filter3([], [], [], _, _, []).
filter3([X|Xs], [Y|Ys], [Z|Zs], Pred, Keep, SubList) :-
    (   call(Pred, X, Y, Z)
    ->  keep(Keep, true, X, SubList, SubList1)
    ;   keep(Keep, false, X, SubList, SubList1)
    ),
    filter3(Xs, Ys, Zs, Pred, Keep, SubList1).

%   keep(+Wanted, +Outcome, +X, -List0, -List)
keep(Outcome, Outcome, X, [X|List], List) :-
    !.
keep(_, _, _, List, List).

%!  group(:Pred, +List, ?Front, ?Back) is det.
%!  group(:Pred, +Key, +List, ?Front, ?Back) is det.
%
%   append(Front, Back, List), where Front is the longest prefix whose
%   elements X all satisfy Pred(X), or Pred(Key, X).

group(Pred, List, Front, Back) :-
    group_(List, Pred, Front0, Back0),
    Front = Front0,
    Back = Back0.

group(Pred, Key, List, Front, Back) :-
    group_(List, call(Pred, Key), Front0, Back0),
    Front = Front0,
    Back = Back0.

group_([X|Xs], Pred, [X|Front], Back) :-
    call(Pred, X),
    !,
    group_(Xs, Pred, Front, Back).
group_(Back, _, [], Back).

%!  group(:Pred, +List, ?ListOfLists) is det.
%
%   append(ListOfLists, List), where each [Head|Tail] of ListOfLists
%   is as long as Pred(Head, X) holds for the X of Tail.

group(Pred, List, ListOfLists) :-
    groups(List, Pred, ListOfLists0),
    ListOfLists = ListOfLists0.

groups([], _, []).
groups([Head|Xs], Pred, [[Head|Tail]|Groups]) :-
    group_(Xs, call(Pred, Head), Tail, Rest),
    groups(Rest, Pred, Groups).

%!  ordered(+List) is semidet.
%!  ordered(:Pred, +List) is semidet.
%
%   Pred (@=< for ordered/1) holds for every two neighbours of List:
%   Pred(T1,T2), Pred(T2,T3), ...

ordered(List) :-
    ordered(@=<, List).

ordered(Pred, List) :-
    (   List = [X|Xs]
    ->  ordered_(Xs, X, Pred)
    ;   List = []
    ).

ordered_([], _, _).
ordered_([Y|Ys], X, Pred) :-
    call(Pred, X, Y),
    ordered_(Ys, Y, Pred).

%!  select_min(?Element, +Set, ?Residue) is semidet.
%!  select_min(:Pred, ?Element, +Set, ?Residue) is semidet.
%!  select_max(?Element, +Set, ?Residue) is semidet.
%!  select_max(:Pred, ?Element, +Set, ?Residue) is semidet.
%
%   Element is the leftmost least (greatest) element of Set by @=< or
%   by Pred, which should act like @=<; Residue holds the others, in
%   their order.  Fails if Set is empty.

select_min(Element, Set, Residue) :-
    select_min(@=<, Element, Set, Residue).

select_min(Pred, Element, Set, Residue) :-
    select_best(Set, min(Pred), Element, Residue).

select_max(Element, Set, Residue) :-
    select_max(@=<, Element, Set, Residue).

select_max(Pred, Element, Set, Residue) :-
    select_best(Set, max(Pred), Element, Residue).

select_best([X|Xs], Order, Element, Residue) :-
    best_index(Xs, 1, Order, X, 0, Index),
    nth0(Index, [X|Xs], Best, Rest),
    Element = Best,
    Residue = Rest.

%   best_index(+Xs, +I, +Order, +Best0, +Index0, -Index)
best_index([], _, _, _, Index, Index).
best_index([X|Xs], I, Order, Best0, Index0, Index) :-
    (   keeps(Order, Best0, X)
    ->  Best = Best0,
        Index1 = Index0
    ;   Best = X,
        Index1 = I
    ),
    I1 is I + 1,
    best_index(Xs, I1, Order, Best, Index1, Index).

keeps(min(Pred), Best, X) :-
    call(Pred, Best, X).
keeps(max(Pred), Best, X) :-
    call(Pred, X, Best).

%!  increasing_prefix(?Sequence, ?Prefix, ?Suffix) is det.
%!  increasing_prefix(:Order, ?Sequence, ?Prefix, ?Suffix) is det.
%!  decreasing_prefix(?Sequence, ?Prefix, ?Suffix) is det.
%!  decreasing_prefix(:Order, ?Sequence, ?Prefix, ?Suffix) is det.
%
%   append(Prefix, Suffix, Sequence), where Prefix followed by the
%   first element of Suffix is the longest non-decreasing run at the
%   start of Sequence (by @=< or Order); non-increasing for
%   decreasing_prefix.  So Prefix is empty if Sequence starts with a
%   descent.

increasing_prefix(Sequence, Prefix, Suffix) :-
    increasing_prefix(@=<, Sequence, Prefix, Suffix).

increasing_prefix(Order, Sequence, Prefix, Suffix) :-
    run_prefix(Sequence, up(Order), Prefix, Suffix).

decreasing_prefix(Sequence, Prefix, Suffix) :-
    decreasing_prefix(@=<, Sequence, Prefix, Suffix).

decreasing_prefix(Order, Sequence, Prefix, Suffix) :-
    run_prefix(Sequence, down(Order), Prefix, Suffix).

run_prefix(Sequence, Direction, Prefix, Suffix) :-
    (   Sequence = [X|Xs]
    ->  run_prefix(Xs, X, Direction, Prefix0, Suffix0)
    ;   Sequence = [],
        Prefix0 = [],
        Suffix0 = []
    ),
    Prefix = Prefix0,
    Suffix = Suffix0.

run_prefix([Y|Ys], X, Direction, [X|Prefix], Suffix) :-
    in_order(Direction, X, Y),
    !,
    run_prefix(Ys, Y, Direction, Prefix, Suffix).
run_prefix(Ys, X, _, [], [X|Ys]).

in_order(up(Order), X, Y) :-
    call(Order, X, Y).
in_order(down(Order), X, Y) :-
    call(Order, Y, X).

%!  clumps(+Items, -Clumps) is det.
%
%   Clumps are the runs of identical (==) neighbours of Items.

clumps(Items, Clumps) :-
    runs(Items, item, Clumps0),
    Clumps = Clumps0.

%!  keyclumps(+Pairs, ?Clumps) is det.
%
%   Clumps are the runs of neighbouring pairs of Pairs with identical
%   (==) keys.

keyclumps(Pairs, Clumps) :-
    runs(Pairs, key, Clumps0),
    Clumps = Clumps0.

%!  keyclumped(+Pairs, ?Groups) is det.
%
%   Groups has a pair K-[V1,...,Vn] for each run K-V1, ..., K-Vn of
%   keyclumps/2.

keyclumped(Pairs, Groups) :-
    runs(Pairs, key, Clumps),
    maplist(clump_group, Clumps, Groups0),
    Groups = Groups0.

clump_group([K-V|Pairs], K-[V|Vs]) :-
    pairs_values_(Pairs, Vs).

pairs_values_([], []).
pairs_values_([_-V|Pairs], [V|Vs]) :-
    pairs_values_(Pairs, Vs).

runs([], _, []).
runs([X|Xs], By, [[X|Same]|Runs]) :-
    same_run(Xs, By, X, Same, Rest),
    runs(Rest, By, Runs).

same_run([Y|Ys], By, X, [Y|Same], Rest) :-
    same_key(By, X, Y),
    !,
    same_run(Ys, By, X, Same, Rest).
same_run(Rest, _, _, [], Rest).

same_key(item, X, Y) :-
    X == Y.
same_key(key, K1-_, K2-_) :-
    K1 == K2.
