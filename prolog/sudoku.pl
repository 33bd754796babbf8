/*  Sudoku with parity and neighbour infos, in CLP(FD).

    A puzzle is s(K, Board): Board has N = K*K rows of N fields, each field
    a list of infos e, o, s, w and v(M).  sudoku/2 yields every solution
    once on backtracking and fails when there is none.

    The model is stated first (model/4) and searched separately
    (label_grid/2), so the constraints read as the rules of the puzzle.
*/

:- module(sudoku, [sudoku/2, sudoku/3]).

:- use_module(library(clpfd)).
:- use_module(library(apply)).
:- use_module(library(lists)).
:- use_module(library(option)).

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

sudoku(SSpec, SSol, Options) :-
    option(rules(Rules), Options, consecutive),
    must_be(oneof([consecutive, oddsum]), Rules),
    model(SSpec, Rules, SSol, Parities),
    label_grid(SSol, Parities).

%!  model(+SSpec, +Rules, -Rows, -ParityRows) is semidet.
%
%   Rows is an N x N matrix of constrained variables, ParityRows the
%   matching matrix of 0/1 parities (1 = odd).  Fails early when the infos
%   contradict each other.  The infos are posted before the units: given
%   values then reach all_distinct/1 as constants, which costs far less
%   than propagating each of them through it one by one.

model(s(K, Board), Rules, Rows, Parities) :-
    N is K*K,
    length(Rows, N),
    maplist(same_length(Rows), Rows),
    maplist(same_length, Rows, Parities),
    append(Rows, Vs),
    Vs ins 1..N,
    append(Parities, Ps),
    parity_table(N, Table),
    maplist(has_parity(Table), Vs, Ps),
    infos(Board, Rules, Rows, Parities),
    units(K, Rows, Units),
    maplist(all_distinct, Units),
    Odds is (N+1) // 2,
    units(K, Parities, ParityUnits),
    maplist(sum_is(Odds), ParityUnits).

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

%   Value-parity pairs [V, V mod 2] for 1..N, so that tuples_in/2 keeps
%   a value and its parity consistent in both directions.
parity_table(N, Table) :-
    findall([V, P], (between(1, N, V), P is V mod 2), Table).

has_parity(Table, V, P) :-
    P in 0..1,
    tuples_in([[V, P]], Table).

%   Post every info of every field.
infos(Board, Rules, Rows, Parities) :-
    neighbours(Rows, Parities, Cells),
    append(Board, Fields),
    maplist(field_infos(Rules), Fields, Cells).

%   cell(V, P, South, West) for each field, row-major; South and West are
%   the neighbouring cell(V, P) or `none` at the bottom and left edges.
neighbours(Rows, Parities, Cells) :-
    maplist(pair_up, Rows, Parities, Pairs),
    neighbour_rows(Pairs, CellRows),
    append(CellRows, Cells).

pair_up(Vs, Ps, Pairs) :-
    maplist([V, P, V-P]>>true, Vs, Ps, Pairs).

neighbour_rows([Row], [Cells]) :- !,
    length(Row, N),
    length(Below, N),
    maplist(=(none), Below),
    row_cells(Row, Below, Cells).
neighbour_rows([Row, Next|Rows], [Cells|CellRows]) :-
    row_cells(Row, Next, Cells),
    neighbour_rows([Next|Rows], CellRows).

row_cells(Row, Below, Cells) :-
    row_cells(Row, Below, none, Cells).

row_cells([], [], _, []).
row_cells([Here|Row], [South|Below], West, [cell(Here, South, West)|Cs]) :-
    row_cells(Row, Below, Here, Cs).

field_infos(Rules, Infos, Cell) :-
    maplist(info(Rules, Cell), Infos).

%   The constraint of one info.
info(_, cell(V-_, _, _), v(M)) :- V #= M.
info(_, cell(_-P, _, _), e) :- P #= 0.
info(_, cell(_-P, _, _), o) :- P #= 1.
info(Rules, cell(Here, South, _), s) :- related(Rules, Here, South).
info(Rules, cell(Here, _, West), w) :- related(Rules, Here, West).

%   The neighbour relation; `none` (off the board) imposes nothing.
related(_, _, none) :- !.
related(consecutive, A-_, B-_) :- abs(A-B) #= 1.
related(oddsum, _-P, _-Q) :- P + Q #= 1.

%!  label_grid(+Rows, +Parities) is nondet.
%
%   Search: parities first (they split the grid in halves cheaply), then
%   values, most constrained first.  Parities are functions of the values,
%   so every solution is still found exactly once.

label_grid(Rows, Parities) :-
    append(Parities, Ps),
    labeling([ff], Ps),
    append(Rows, Vs),
    labeling([ff], Vs).
