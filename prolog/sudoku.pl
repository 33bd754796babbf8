/*  Sudoku with parity and neighbour infos, in CLP(FD).

    A puzzle is s(K, Board): Board has N = K*K rows of N fields, each field
    a list of infos e, o, s, w and v(M).  sudoku/2 yields every solution
    once on backtracking and fails when there is none.

    The search runs in two stages, each a model of its own:

    1.  Parities.  Every s or w info means that the two values have
        different parities, under both rule variants (two numbers that
        differ by one, or whose sum is odd, are one odd and one even), and
        every unit holds exactly ceil(N/2) odd values.  This 0/1 model is
        small and propagates far: on the course's puzzles it usually fixes
        every parity before any search.
    2.  Values, for one labelled parity grid.  Odd cells take odd values
        and even cells even ones, so each unit splits into an odd and an
        even part, each all_distinct over half the cells.  Under `oddsum`
        nothing else links the two halves: they are solved apart and their
        solutions combined, so a failure in one half never makes the search
        revisit the other.

    Every solution has exactly one parity grid, so the stages together
    still produce each solution once.
*/

:- module(sudoku, [sudoku/2, sudoku/3]).

:- use_module(library(clpfd)).
:- use_module(library(apply)).
:- use_module(library(lists)).
:- use_module(library(option)).
:- use_module(library(pairs)).

%!  sudoku(+SSpec, -SSol) is nondet.
%
%   SSol is a solution of the puzzle SSpec = s(K, Board) under the
%   `consecutive` rules: an `s` or `w` info means that the two values
%   differ by exactly one.

sudoku(SSpec, SSol) :-
    sudoku(SSpec, SSol, []).

%!  sudoku(+SSpec, -SSol, +Options) is nondet.
%
%   As sudoku/2, with Options:
%
%     - rules(+Rules)
%       `consecutive` (default): an `s`/`w` info means |A-B| = 1;
%       `oddsum`: it means that A+B is odd.

sudoku(s(K, Board), SSol, Options) :-
    option(rules(Rules), Options, consecutive),
    must_be(oneof([consecutive, oddsum]), Rules),
    must_be(positive_integer, K),
    parity_model(K, Board, Rules, Parities),
    append(Parities, Ps),
    labeling([ff], Ps),
    value_model(K, Board, Rules, Parities, SSol),
    label_values(Rules, SSol, Parities).

%!  parity_model(+K, +Board, +Rules, -Parities) is semidet.
%
%   Parities is an N x N matrix of 0/1 variables (1 = odd) constrained by
%   the infos and by the odd count of every unit.  The model also carries
%   value variables, tied to the parities and all_distinct per unit but
%   never labelled: they keep the parity search away from grids that no
%   values can fill, which parity counts alone do not see.

parity_model(K, Board, Rules, Parities) :-
    N is K*K,
    matrix(N, Parities),
    matrix(N, Values),
    append(Parities, Ps),
    append(Values, Vs),
    Vs ins 1..N,
    findall([V, P], (between(1, N, V), P is V mod 2), ParityOf),
    maplist(has_parity(ParityOf), Vs, Ps),
    cells(Board, Parities, ParityCells),
    maplist(parity_infos, ParityCells),
    cells(Board, Values, ValueCells),
    maplist(value_infos(Rules), ValueCells),
    units(K, Values, Units),
    maplist(all_distinct, Units),
    Odds is (N+1) // 2,
    units(K, Parities, ParityUnits),
    maplist(sum_is(Odds), ParityUnits).

has_parity(ParityOf, V, P) :-
    tuples_in([[V, P]], ParityOf).

parity_infos(cell(Infos, P, South, West)) :-
    maplist(parity_info(P, South, West), Infos).

parity_info(P, _, _, v(M)) :- P #= M mod 2.
parity_info(P, _, _, o) :- P #= 1.
parity_info(P, _, _, e) :- P #= 0.
parity_info(P, South, _, s) :- differ(P, South).
parity_info(P, _, West, w) :- differ(P, West).

%   Both relations join an odd and an even value; `none` is off the board.
differ(P, Q) :-
    (   Q == none
    ->  true
    ;   P + Q #= 1
    ).

%!  value_model(+K, +Board, +Rules, +Parities, -Rows) is semidet.
%
%   Rows is an N x N matrix of value variables for the ground parity grid
%   Parities: a cell's domain holds the values of its parity, the given
%   values are posted first (they then reach all_distinct/1 as constants,
%   which is much cheaper than propagating them one by one), then each
%   unit's odd part and even part are all_distinct, and under
%   `consecutive` each s/w pair differs by one.

value_model(K, Board, Rules, Parities, Rows) :-
    N is K*K,
    matrix(N, Rows),
    append(Rows, Vs),
    append(Parities, Ps),
    maplist(parity_domain(N), Vs, Ps),
    cells(Board, Rows, Cells),
    maplist(value_infos(Rules), Cells),
    units(K, Rows, Units),
    units(K, Parities, ParityUnits),
    maplist(distinct_halves, Units, ParityUnits).

parity_domain(N, V, P) :-
    findall(X, (between(1, N, X), X mod 2 =:= P), Xs),
    list_to_fdset(Xs, Set),
    V in_set Set.

value_infos(Rules, cell(Infos, V, South, West)) :-
    maplist(value_info(Rules, V, South, West), Infos).

value_info(_, V, _, _, v(M)) :- V #= M.
value_info(_, _, _, _, o).
value_info(_, _, _, _, e).
value_info(Rules, V, South, _, s) :- neighbours(Rules, V, South).
value_info(Rules, V, _, West, w) :- neighbours(Rules, V, West).

%   Parities already hold the whole of `oddsum`.
neighbours(Rules, A, B) :-
    (   B == none
    ->  true
    ;   Rules == consecutive
    ->  abs(A-B) #= 1
    ;   true
    ).

distinct_halves(Unit, Parities) :-
    pairs_keys_values(Pairs, Parities, Unit),
    partition([P-_]>>(P =:= 1), Pairs, Odd, Even),
    pairs_values(Odd, OddVs),
    pairs_values(Even, EvenVs),
    all_distinct(OddVs),
    all_distinct(EvenVs).

%!  label_values(+Rules, +Rows, +Parities) is nondet.
%
%   Label the value variables, most constrained first.  Under `oddsum` the
%   odd and even cells are independent problems: every solution of the
%   smaller one is collected once, then paired with each solution of the
%   other, so neither is searched again for the other's sake.

label_values(consecutive, Rows, _) :-
    append(Rows, Vs),
    labeling([ff], Vs).
label_values(oddsum, Rows, Parities) :-
    append(Rows, Vs),
    append(Parities, Ps),
    pairs_keys_values(Pairs, Ps, Vs),
    partition([P-_]>>(P =:= 1), Pairs, OddPairs, EvenPairs),
    pairs_values(OddPairs, Odd),
    pairs_values(EvenPairs, Even),
    free_first(Odd, Even, Small, Large),
    findall(Small, labeling([ff], Small), Solutions),
    Solutions \== [],
    labeling([ff], Large),
    member(Small, Solutions).

%   The list with fewer unlabelled variables comes first.
free_first(A, B, Small, Large) :-
    include(var, A, FreeA),
    include(var, B, FreeB),
    length(FreeA, NA),
    length(FreeB, NB),
    (   NA =< NB
    ->  Small = A, Large = B
    ;   Small = B, Large = A
    ).

%   An N x N matrix of fresh variables.
matrix(N, Rows) :-
    length(Rows, N),
    maplist(same_length(Rows), Rows).

%   cell(Infos, X, South, West) for each field, row-major, where X is the
%   field's entry of Matrix and South and West are the entries of the
%   neighbours below and to the left, or `none` at the edges.
cells(Board, Matrix, Cells) :-
    append(Board, Fields),
    append(Matrix, Xs),
    length(Matrix, N),
    length(Below, N),
    maplist(=(none), Below),
    append(Matrix, [Below], Padded),
    Padded = [_|Souths0],
    append(Souths0, Souths),
    maplist(west_row, Matrix, WestRows),
    append(WestRows, Wests),
    maplist(cell, Fields, Xs, Souths, Wests, Cells).

west_row(Row, [none|Wests]) :-
    append(Wests, [_], Row).

cell(Infos, X, South, West, cell(Infos, X, South, West)).

%   The rows, columns and boxes of a matrix.
units(K, Rows, Units) :-
    transpose(Rows, Cols),
    boxes(K, Rows, Boxes),
    append([Rows, Cols, Boxes], Units).

boxes(_, [], []) :- !.
boxes(K, Rows, Boxes) :-
    length(Band, K),
    append(Band, Rest, Rows),
    band_boxes(K, Band, Boxes, Boxes1),
    boxes(K, Rest, Boxes1).

%   Cut a band of K rows into its boxes, K columns at a time.
band_boxes(K, Band, Boxes, Tail) :-
    (   Band = [[]|_]
    ->  Boxes = Tail
    ;   maplist(split_at(K), Band, Firsts, Rests),
        append(Firsts, Box),
        Boxes = [Box|Boxes1],
        band_boxes(K, Rests, Boxes1, Tail)
    ).

split_at(K, List, Prefix, Suffix) :-
    length(Prefix, K),
    append(Prefix, Suffix, List).

sum_is(Total, Vars) :-
    sum(Vars, #=, Total).
