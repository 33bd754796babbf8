/*  Sudoku with parity and neighbour infos, in CLP(FD).

    A puzzle is s(K, Board): Board has N = K*K rows of N fields, each field
    a list of infos: v(M) (the value is M), o (odd), e (even), s and w (a
    relation with the neighbour below, resp. to the left).  What s and w
    mean depends on the rules: under `consecutive` the two values differ
    by one, under `oddsum` their sum is odd.  Every unit (row, column,
    K x K box) holds each of 1..N once.

    How the model and the search fit together:

    -   sudoku_constraints/3 is the model: it posts every rule on a fresh
        board and returns the variables, unlabelled.  It can be queried
        on its own, e.g. to check a grid against a puzzle.
    -   sudoku/3 with search(labeling) labels that model with labeling/2:
        plain, slow on hard puzzles, and an oracle for the fast search.
    -   sudoku/3 with search(board), the default, hands the puzzle to
        search_board/4 of sudoku_search.pl: the same rules stated for a
        bit-mask search of its own (parity stages, Hall's theorem,
        failed-literal probing), fast on the course's hardest puzzles.
        The tests check that both searches find the same solutions.

    Either way sudoku/2,3 yields every solution once on backtracking and
    fails when there is none.
*/

:- module(sudoku, [sudoku/2, sudoku/3, sudoku_constraints/3]).

:- use_module(library(clpfd)).
:- use_module(library(apply)).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(option)).
:- use_module(sudoku_grid).
:- use_module(sudoku_search).

%!  sudoku(+SSpec, -SSol) is nondet.
%
%   SSol is a solution of the puzzle SSpec = s(K, Board) under the
%   `consecutive` rules, found by the default search (see sudoku/3).

sudoku(SSpec, SSol) :-
    sudoku(SSpec, SSol, []).

%!  sudoku(+SSpec, -SSol, +Options) is nondet.
%
%   As sudoku/2, with Options:
%
%     - rules(+Rules)
%       `consecutive` (default): an `s`/`w` info means |A-B| = 1;
%       `oddsum`: it means that A+B is odd.
%     - search(+Search)
%       `board` (default): the bit-mask search of sudoku_search.pl;
%       `labeling`: labeling/2 ([ff]) on sudoku_constraints/3.
%
%   Both searches give the same solutions, each once.  Other options are
%   ignored; a bad value of a known one raises a type or domain error.

sudoku(s(K, Board), SSol, Options) :-
    option(rules(Rules), Options, consecutive),
    option(search(Search), Options, board),
    must_be(oneof([consecutive, oddsum]), Rules),
    must_be(oneof([board, labeling]), Search),
    must_be(positive_integer, K),
    solve(Search, Rules, s(K, Board), SSol).

solve(board, Rules, s(K, Board), Rows) :-
    search_board(Rules, K, Board, Rows).
solve(labeling, Rules, SSpec, Rows) :-
    sudoku_constraints(SSpec, Rules, Rows),
    append(Rows, Vs),
    labeling([ff], Vs).

%!  sudoku_constraints(+SSpec, +Rules, -Rows) is semidet.
%
%   Rows is an N x N matrix of fresh variables (N = K*K for SSpec =
%   s(K, Board)) on which every constraint of the puzzle under Rules
%   (`consecutive` or `oddsum`) is posted: values 1..N, each unit
%   all_distinct, and each field's infos.  Nothing is labelled.  Fails
%   when propagation alone finds the puzzle unsolvable, or when Board is
%   not N x N.

sudoku_constraints(s(K, Board), Rules, Rows) :-
    must_be(oneof([consecutive, oddsum]), Rules),
    must_be(positive_integer, K),
    N is K*K,
    matrix(N, Rows),
    append(Rows, Vs),
    Vs ins 1..N,
    units(K, Rows, Units),
    maplist(all_distinct, Units),
    cells(Board, Rows, Cells),
    maplist(cell_infos(Rules), Cells).

cell_infos(Rules, cell(Infos, X, South, West)) :-
    maplist(info(Rules, X, South, West), Infos).

info(_, X, _, _, v(M)) :- X #= M.
info(_, X, _, _, o) :- X mod 2 #= 1.
info(_, X, _, _, e) :- X mod 2 #= 0.
info(Rules, X, South, _, s) :- related(Rules, X, South).
info(Rules, X, _, West, w) :- related(Rules, X, West).

%   A neighbour relation of the rules; `none` is off the board.
related(Rules, A, B) :-
    (   B == none
    ->  true
    ;   Rules == consecutive
    ->  abs(A-B) #= 1
    ;   (A+B) mod 2 #= 1
    ).
