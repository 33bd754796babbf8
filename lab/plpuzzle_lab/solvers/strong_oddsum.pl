% A bench solver: plpuzzle's own clpfd solver (prolog/sudoku.pl, copied
% beside this file as sudoku_bundled.pl with the modules it loads), asked
% for the oddsum rules of the official suite.

:- use_module(sudoku_bundled, [sudoku/3]).

% sudoku(+Puzzle, -Rows): Rows solves Puzzle under the oddsum rules.
sudoku(Puzzle, Rows) :-
    sudoku(Puzzle, Rows, [rules(oddsum)]).
