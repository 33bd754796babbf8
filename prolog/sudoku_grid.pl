/*  Sudoku grid geometry, shared by the model and the search.

    A grid is an N x N matrix of entries (N = K*K), a list of rows.  Its
    units are its rows, columns and K x K boxes; a field's neighbours are
    the fields below (south) and to the left (west) of it, which is what
    the `s` and `w` infos of a puzzle refer to.
*/

:- module(sudoku_grid, [matrix/2, matrix_of/3, cells/3, units/3, bands/3]).

:- use_module(library(apply)).
:- use_module(library(clpfd), [transpose/2]).
:- use_module(library(lists)).

%!  matrix(+N, -Rows) is det.
%
%   Rows is an N x N matrix of fresh variables.

matrix(N, Rows) :-
    length(Rows, N),
    maplist(same_length(Rows), Rows).

%!  matrix_of(+K, +Xs, -Rows) is det.
%
%   Rows is the N x N matrix (N = K*K) whose rows are the row-major list
%   Xs.

matrix_of(K, Xs, Rows) :-
    N is K*K,
    matrix(N, Rows),
    append(Rows, Xs).

%!  cells(+Board, +Matrix, -Cells) is semidet.
%
%   Cells is cell(Infos, X, South, West) for each field of Board,
%   row-major, where X is the field's entry of Matrix and South and West
%   are the entries of the neighbours below and to the left, or `none` at
%   the edges.

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

%!  units(+K, +Rows, -Units) is det.
%
%   Units is the rows, then the columns, then the boxes of the matrix
%   Rows, each a list of entries (boxes row-major, band by band).

units(K, Rows, Units) :-
    transpose(Rows, Cols),
    boxes(K, Rows, Boxes),
    append([Rows, Cols, Boxes], Units).

%!  bands(+K, +Rows, -Bands) is det.
%
%   Bands is the matrix Rows cut into bands of K rows, then its columns
%   cut the same way: each band a list of K rows (or columns).

bands(K, Rows, Bands) :-
    transpose(Rows, Cols),
    row_bands(K, Rows, Bands, ColBands),
    row_bands(K, Cols, ColBands, []).

row_bands(_, [], Bands, Bands) :- !.
row_bands(K, Rows, [Band|Bands], Tail) :-
    length(Band, K),
    append(Band, Rest, Rows),
    row_bands(K, Rest, Bands, Tail).

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
