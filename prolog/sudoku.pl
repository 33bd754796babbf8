/*  Sudoku with parity and neighbour infos, in CLP(FD).

    A puzzle is s(K, Board): Board has N = K*K rows of N fields, each field
    a list of infos: v(M) (the value is M), o (odd), e (even), s and w (a
    relation with the neighbour below, resp. to the left).  What s and w
    mean depends on the rules: under `consecutive` the two values differ
    by one, under `oddsum` their sum is odd.  Every unit (row, column,
    K x K box) holds each of 1..N once.

    The module is two parts, as in Triska's clpfd sudoku:

    -   The model, sudoku_constraints/3,4, posts every rule as clpfd
        constraints and labels nothing, so it can be queried on its own:
        to check a grid, or to see what propagation alone concludes.
    -   The search, sudoku/2,3, labels the model.  The default,
        search(staged), is the labeling of sudoku_labeling.pl: parities
        first under `oddsum`, then each half of the values on its own,
        with lookahead where plain first-fail labeling gets lost.
        search(lookahead) is the same with lookahead at every node.
        search(labeling) is plain labeling([ff], ...) of the model: short,
        obviously right, slow on the hard puzzles, and an oracle in the
        tests.

    Either way sudoku/2,3 yields every solution once on backtracking and
    fails when there is none.
*/

:- module(sudoku, [sudoku/2, sudoku/3, sudoku_constraints/3,
                   sudoku_constraints/4]).

:- use_module(library(apply)).
:- use_module(library(clpfd)).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(option)).
:- use_module(sudoku_grid).
:- use_module(sudoku_labeling).
:- use_module(sudoku_propagators).
:- use_module(clpfd_internals, [queue_off/0, queue_on/0, run_queue/0]).

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
%       `staged` (default): the labeling of sudoku_labeling.pl;
%       `lookahead`: the same, looking ahead at every node;
%       `labeling`: labeling/2 ([ff]) on sudoku_constraints/3.
%
%   All searches give the same solutions, each once.  Other options are
%   ignored; a bad value of a known one raises a type or domain error.

sudoku(s(K, Board), SSol, Options) :-
    option(rules(Rules), Options, consecutive),
    option(search(Search), Options, staged),
    must_be(oneof([consecutive, oddsum]), Rules),
    must_be(oneof([staged, lookahead, labeling]), Search),
    must_be(positive_integer, K),
    solve(Search, Rules, s(K, Board), SSol).

solve(labeling, Rules, SSpec, Rows) :-
    sudoku_constraints(SSpec, Rules, Rows),
    append(Rows, Vs),
    labeling([ff], Vs).
solve(staged, Rules, SSpec, SSol) :-
    staged(lost, Rules, SSpec, SSol).
solve(lookahead, Rules, SSpec, SSol) :-
    staged(always, Rules, SSpec, SSol).

staged(When, Rules, SSpec, SSol) :-
    new_strength(Strength),
    model(distinct_values(Strength), SSpec, Rules, Rows, Parities),
    SSpec = s(K, _),
    label_sudoku(When, Strength, Rules, K, Rows, Parities, SSol).

%!  sudoku_constraints(+SSpec, +Rules, -Rows) is semidet.
%!  sudoku_constraints(+SSpec, +Rules, -Rows, -Parities) is semidet.
%
%   Rows is an N x N matrix of variables (N = K*K for SSpec =
%   s(K, Board)) on which every rule of the puzzle under Rules
%   (`consecutive` or `oddsum`) is posted, and Parities the matrix of
%   their parities (1: odd, 0: even).  Nothing is labelled.  Fails when
%   propagation alone finds the puzzle unsolvable, or when Board is not
%   N x N.

sudoku_constraints(SSpec, Rules, Rows) :-
    sudoku_constraints(SSpec, Rules, Rows, _).

sudoku_constraints(SSpec, Rules, Rows, Parities) :-
    model(all_distinct, SSpec, Rules, Rows, Parities).

%   The rules, with Distinct the constraint that a unit's values are
%   distinct: all_distinct/1 in the model that users query, and the
%   faster distinct_values/2 (same constraint, same pruning) for the
%   search, with the search's strength switch (see
%   sudoku_propagators.pl).  A unit's parities sum to its number of odd
%   values; that and the parities of neighbours (an s or w pair differs
%   in parity under both rules) are redundant, and make parities a stage
%   of their own.  The whole model is posted with clpfd's queue off and
%   propagated once: posted one by one, each unit's all-different ran
%   dozens of times while the rest was still being posted.
model(Distinct, s(K, Board), Rules, Rows, Parities) :-
    must_be(oneof([consecutive, oddsum]), Rules),
    must_be(positive_integer, K),
    N is K*K,
    matrix(N, Rows),
    matrix(N, Parities),
    append(Rows, Vs),
    append(Parities, Ps),
    Vs ins 1..N,
    cells(Board, Rows, Cells),
    cells(Board, Parities, ParityCells),
    relation(Rules, Related),
    units(K, Parities, ParityUnits),
    Odd is (N + 1) // 2,
    units(K, Rows, Units),
    queue_off,
    maplist(parity_of, Vs, Ps),
    maplist(infos(Related), Cells, ParityCells),
    maplist(odd_count(Odd), ParityUnits),
    maplist(Distinct, Units),
    queue_on,
    run_queue.

odd_count(Odd, Ps) :-
    ones(Ps, Odd).

%   What an s or w info adds to the parities that differ: under
%   `consecutive` the values differ by one (next_to/2, whose pruning is
%   complete), under `oddsum` nothing.
relation(consecutive, next_to).
relation(oddsum, any).

infos(Related, cell(Infos, X, S, W), cell(_, P, PS, PW)) :-
    maplist(info(Related, X-P, S-PS, W-PW), Infos).

info(_, X-_, _, _, v(M)) :- X #= M.
info(_, _-P, _, _, o) :- P #= 1.
info(_, _-P, _, _, e) :- P #= 0.
info(Related, This, South, _, s) :- neighbours(Related, This, South).
info(Related, This, _, West, w) :- neighbours(Related, This, West).

%   An s or w pair; `none` is off the board.
neighbours(Related, X-P, Y-Q) :-
    (   Y == none
    ->  true
    ;   P + Q #= 1,
        (   Related == next_to -> next_to(X, Y) ; true )
    ).
