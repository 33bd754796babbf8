% A bench solver in the style of a student's weakest try: every row a
% permutation of 1..N, then the columns checked; the boxes and the infos
% are never looked at (so most answers are wrong, and slow in coming).

:- use_module(library(lists)).

% sudoku(+Puzzle, -Rows): Rows, a Latin square of the puzzle's size.
sudoku(s(K, Board), Rows) :-
    N is K*K,
    numlist(1, N, Values),
    rows(Board, Values, Rows),
    transpose_rows(Rows, Cols),
    maplist(no_repeats, Cols).

rows([], _, []).
rows([_|Fs], Values, [Row|Rows]) :-
    permutation(Values, Row),
    rows(Fs, Values, Rows).

transpose_rows([[]|_], []) :- !.
transpose_rows(Rows, [Col|Cols]) :-
    maplist(head_tail, Rows, Col, Rest),
    transpose_rows(Rest, Cols).

head_tail([H|T], H, T).

no_repeats([]).
no_repeats([X|Xs]) :- \+ memberchk(X, Xs), no_repeats(Xs).
