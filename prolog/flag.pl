/*  The Dutch national flag: red, then white, then blue.

    A sequence is a list of the atoms r, w and b.  Its arrangement puts
    every r first, then every w, then every b.  Two swap counts are of
    interest:

    -   The minimum number of swaps that turn the sequence into its
        arrangement.  Sorting by swaps is undoing a permutation, and a
        permutation with C cycles (fixed points included) over N items
        needs N - C swaps.  With repeated colours we may choose the
        permutation, so we choose the one with the most cycles.  Call the
        first R places the red zone, the next W the white zone, the rest
        the blue zone, and let M(C, Z) be how many items of colour C sit
        in zone Z.  Each pair of misplaced items that belong in each
        other's zone is a 2-cycle (one swap); what is left over can only
        form 3-cycles r->w->b->r or r->b->w->r (two swaps each).  So

            Swaps = P + 2 * (Misplaced - 2 * P) / 3,

        where P = min(M(r,w), M(w,r)) + min(M(r,b), M(b,r))
                + min(M(w,b), M(b,w)).

    -   The number of swaps Dijkstra's three-way partition performs.  It
        keeps three indices Lo =< Mid =< Hi over a 1-based array: before
        Lo all is red, from Lo to Mid-1 all is white, after Hi all is
        blue, and Mid..Hi is still unseen.  Looking at item Mid:

            red:   swap Lo and Mid, then Lo+1 and Mid+1;
            white: Mid+1;
            blue:  swap Mid and Hi, then Hi-1.

        It stops when Mid > Hi.  Only a swap of two different positions
        counts: swapping an item with itself is no swap.

    The partition needs random access to a mutable array, so it runs on
    a compound term a(X1, ..., XN) made inside the call and changed with
    setarg/3.  setarg/3 is undone on backtracking, so the state is local
    to the call: nothing global, no assert, and the caller sees only the
    arranged list and the count.  arg/3 and setarg/3 are O(1), so the
    whole partition is O(N); a list-based version would either be O(N^2)
    or need a zipper that walks from both ends, which obscures the
    algorithm being counted.
*/

:- module(flag,
          [ arrange/2,              % +Colours, -Arranged
            zone_counts/2,          % +Colours, -Counts
            min_swaps/2,            % +Colours, -Swaps
            dijkstra_partition/3,   % +Colours, -Arranged, -Swaps
            solve_text/4            % +Text, -Arranged, -MinSwaps, -Dijkstra
          ]).

:- use_module(library(error)).
:- use_module(library(apply)).
:- use_module(library(lists)).
:- use_module(library(ordsets)).

%!  arrange(+Colours:list(atom), -Arranged:list(atom)) is det.
%
%   Arranged holds the items of Colours red first, then white, then
%   blue.  Counting is enough: items of one colour are interchangeable.

arrange(Colours, Arranged) :-
    must_be_colours(Colours),
    colour_counts(Colours, c(R, W, B)),
    length(Rs, R), maplist(=(r), Rs),
    length(Ws, W), maplist(=(w), Ws),
    length(Bs, B), maplist(=(b), Bs),
    append([Rs, Ws, Bs], Arranged).

%!  zone_counts(+Colours:list(atom), -Counts) is det.
%
%   Counts is zones(Red, White, Blue), one term c(R, W, B) per zone
%   saying how many red, white and blue items sit in that zone of
%   Colours.  The red zone is the first R places, where R is the number
%   of red items; then come the white zone and the blue zone.

zone_counts(Colours, zones(InRed, InWhite, InBlue)) :-
    must_be_colours(Colours),
    colour_counts(Colours, c(R, W, _)),
    length(RedZone, R),
    append(RedZone, Rest, Colours),
    length(WhiteZone, W),
    append(WhiteZone, BlueZone, Rest),
    colour_counts(RedZone, InRed),
    colour_counts(WhiteZone, InWhite),
    colour_counts(BlueZone, InBlue).

%!  min_swaps(+Colours:list(atom), -Swaps:nonneg) is det.
%
%   Swaps is the least number of swaps (of any two positions) that
%   arranges Colours, from the cycle decomposition described in the
%   module comment.

min_swaps(Colours, Swaps) :-
    zone_counts(Colours, zones(c(_, WR, BR), c(RW, _, BW), c(RB, WB, _))),
    Pairs is min(RW, WR) + min(RB, BR) + min(WB, BW),
    Misplaced is WR + BR + RW + BW + RB + WB,
    Swaps is Pairs + 2 * ((Misplaced - 2 * Pairs) // 3).

%!  dijkstra_partition(+Colours:list(atom), -Arranged:list(atom),
%!                     -Swaps:nonneg) is det.
%
%   Run Dijkstra's three-way partition on Colours.  Arranged is what it
%   leaves in the array, Swaps how many swaps of two different
%   positions it made.

dijkstra_partition(Colours, Arranged, Swaps) :-
    must_be_colours(Colours),
    compound_name_arguments(Array, a, Colours),
    length(Colours, N),
    partition(Array, 1, 1, N, 0, Swaps),
    compound_name_arguments(Array, a, Arranged).

partition(Array, Lo, Mid, Hi, S0, S) :-
    (   Mid > Hi
    ->  S = S0
    ;   arg(Mid, Array, Colour),
        step(Colour, Array, Lo, Mid, Hi, S0, S)
    ).

step(r, Array, Lo, Mid, Hi, S0, S) :-
    swap(Array, Lo, Mid, S0, S1),
    Lo1 is Lo + 1,
    Mid1 is Mid + 1,
    partition(Array, Lo1, Mid1, Hi, S1, S).
step(w, Array, Lo, Mid, Hi, S0, S) :-
    Mid1 is Mid + 1,
    partition(Array, Lo, Mid1, Hi, S0, S).
step(b, Array, Lo, Mid, Hi, S0, S) :-
    swap(Array, Mid, Hi, S0, S1),
    Hi1 is Hi - 1,
    partition(Array, Lo, Mid, Hi1, S1, S).

%   Exchange arguments I and J, counting it unless I = J.
swap(Array, I, J, S0, S) :-
    (   I =:= J
    ->  S = S0
    ;   arg(I, Array, X),
        arg(J, Array, Y),
        setarg(I, Array, Y),
        setarg(J, Array, X),
        S is S0 + 1
    ).

%!  solve_text(+Text, -Arranged:string, -MinSwaps:nonneg,
%!             -Dijkstra:nonneg) is det.
%
%   The whole task for a sequence written as letters such as "RWBWRRB"
%   (either case; Text may be a string, an atom or a code list).
%   Arranged is the arrangement Dijkstra's partition produced, in
%   capitals.  This is the entry point the Python side calls: one
%   string in and out is far cheaper through pyswip than long lists.

solve_text(Text, Arranged, MinSwaps, Dijkstra) :-
    text_to_string(Text, String),
    string_lower(String, Lower),
    string_chars(Lower, Colours),
    min_swaps(Colours, MinSwaps),
    dijkstra_partition(Colours, Sorted, Dijkstra),
    string_chars(LowerSorted, Sorted),
    string_upper(LowerSorted, Arranged).

%   c(R, W, B): how many r, w and b items a list holds.  Indexing on
%   the list cell and its item picks the clause without a choice point.
colour_counts(Colours, Counts) :-
    colour_counts(Colours, 0, 0, 0, Counts).

colour_counts([], R, W, B, c(R, W, B)).
colour_counts([r|Cs], R0, W, B, Counts) :-
    R is R0 + 1,
    colour_counts(Cs, R, W, B, Counts).
colour_counts([w|Cs], R, W0, B, Counts) :-
    W is W0 + 1,
    colour_counts(Cs, R, W, B, Counts).
colour_counts([b|Cs], R, W, B0, Counts) :-
    B is B0 + 1,
    colour_counts(Cs, R, W, B, Counts).

%   An error unless Colours is a list of r, w and b.  Sorting (in C)
%   is several times faster than checking the items one by one, which
%   matters for long lists; only a bad list is looked at again.
must_be_colours(Colours) :-
    must_be(list, Colours),
    sort(Colours, Kinds),
    (   ord_subset(Kinds, [b, r, w])
    ->  true
    ;   ord_subtract(Kinds, [b, r, w], [Bad|_]),
        must_be(oneof([r, w, b]), Bad)
    ).
