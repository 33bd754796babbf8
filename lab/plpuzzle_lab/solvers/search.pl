% A bench solver in the style of a student's first try: plain
% backtracking over the cells in row-major order, no clpfd. Each cell
% takes a value that its row, column and box do not hold yet and that
% its infos allow, with the neighbours already filled (oddsum rules: an
% s or w pair holds values of different parities).

:- use_module(library(lists)).

% sudoku(+Puzzle, -Rows): Rows solves Puzzle, each solution once.
sudoku(s(K, Board), Rows) :-
    N is K*K,
    numlist(1, N, Values),
    length(Rows, N),
    maplist(row_of(N), Rows),
    fill(1, 1, N, K, Board, Values, Rows).

row_of(N, Row) :- length(Row, N).

fill(R, _, N, _, _, _, _) :- R > N, !.
fill(R, C, N, K, Board, Values, Rows) :-
    C > N, !,
    R1 is R + 1,
    fill(R1, 1, N, K, Board, Values, Rows).
fill(R, C, N, K, Board, Values, Rows) :-
    at(Board, R, C, Infos),
    member(V, Values),
    allowed(Infos, V),
    \+ taken(Rows, R, C, K, V),
    west_ok(Infos, Rows, R, C, V),
    north_ok(Board, Rows, R, C, V),
    at(Rows, R, C, V),
    C1 is C + 1,
    fill(R, C1, N, K, Board, Values, Rows).

at(Grid, R, C, X) :- nth1(R, Grid, Row), nth1(C, Row, X).

allowed([], _).
allowed([I|Is], V) :- info_ok(I, V), allowed(Is, V).

info_ok(v(M), V) :- !, V =:= M.
info_ok(e, V) :- !, V mod 2 =:= 0.
info_ok(o, V) :- !, V mod 2 =:= 1.
info_ok(_, _).

% taken(+Rows, +R, +C, +K, +V): V is in a filled cell of the row, the
% column or the box of (R, C).
taken(Rows, R, C, _, V) :-
    between(1, C, C0), C0 < C, at(Rows, R, C0, X), X == V, !.
taken(Rows, R, C, _, V) :-
    between(1, R, R0), R0 < R, at(Rows, R0, C, X), X == V, !.
taken(Rows, R, C, K, V) :-
    R1 is (R - 1) // K * K + 1, C1 is (C - 1) // K * K + 1,
    R2 is R1 + K - 1, C2 is C1 + K - 1,
    between(R1, R2, R0), between(C1, C2, C0),
    ( R0 < R ; R0 =:= R, C0 < C ),
    at(Rows, R0, C0, X), X == V, !.

west_ok(Infos, Rows, R, C, V) :-
    (   memberchk(w, Infos), C > 1
    ->  C0 is C - 1, at(Rows, R, C0, L), (L + V) mod 2 =:= 1
    ;   true
    ).

north_ok(Board, Rows, R, C, V) :-
    (   R > 1, R0 is R - 1, at(Board, R0, C, Above), memberchk(s, Above)
    ->  at(Rows, R0, C, A), (A + V) mod 2 =:= 1
    ;   true
    ).
