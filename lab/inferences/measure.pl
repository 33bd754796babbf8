/*  Inferences, solutions and search events of sudoku/3, per puzzle.

    swipl lab/inferences/measure.pl -- FACTS SRC OUT NAME...: loads the
    puzzle facts of lab/inferences/puzzles.py and SRC/sudoku.pl, and
    appends to OUT one tab-separated line per named puzzle: name,
    solutions, inferences, nodes, failures, trials, failed trials, CPU
    seconds.  The events are counted as count_search.pl counts them.
*/

:- initialization(main, main).
:- use_module(library(prolog_wrap)).
:- use_module(library(aggregate)).
:- use_module(library(lists)).

main([Facts, Src, Out|Names]) :-
    consult(Facts),
    atom_concat(Src, '/sudoku.pl', File),
    use_module(File),
    wrap_predicate(sudoku_labeling:search_event(E), measure, W,
                   ( flag(E, C, C + 1), W )),
    setup_call_cleanup(
        open(Out, append, S),
        forall(( member(N0, Names),
                 atom_string(N, N0),
                 user:puzzle(N, Rules, P)
               ),
               ( one(N, Rules, P, Row),
                 format(S, "~w~n", [Row]),
                 flush_output(S)
               )),
        close(S)).

one(N, Rules, P, Row) :-
    forall(member(E, [node, failure, trial, trial_failure]),
           flag(E, _, 0)),
    garbage_collect,
    statistics(inferences, I0),
    statistics(cputime, T0),
    aggregate_all(count, sudoku:sudoku(P, _, [rules(Rules)]), Sols),
    statistics(inferences, I1),
    statistics(cputime, T1),
    I is I1 - I0,
    T is T1 - T0,
    flag(node, Nd, Nd),
    flag(failure, Fl, Fl),
    flag(trial, Tr, Tr),
    flag(trial_failure, TF, TF),
    format(atom(Row), "~w\t~w\t~w\t~w\t~w\t~w\t~w\t~2f",
           [N, Sols, I, Nd, Fl, Tr, TF, T]).
