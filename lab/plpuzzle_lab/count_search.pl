/*  The counts of `python -m plpuzzle_lab count`: the tree of the search
    that sudoku/3 ships, counted where the search reports it.

    sudoku_labeling.pl calls search_event/1 at each node, failure and
    lookahead trial, and does nothing there.  Here that predicate is
    wrapped (wrap_predicate/4) to count the events in global flags, so
    the search runs unchanged and the counts live in this lab file only.
*/

:- module(count_search, [count_search/3]).

:- use_module(library(prolog_wrap)).

%!  count_search(+SSpec, +Rules, -Counts) is det.
%
%   Counts is counts(Solutions, Nodes, Failures, Trials, TrialFailures,
%   Seconds): every solution of sudoku/3 on SSpec under Rules, the
%   events of its search, and its CPU seconds.

count_search(SSpec, Rules, counts(S, N, F, T, TF, Sec)) :-
    forall(member(E, [node, failure, trial, trial_failure]),
           flag(E, _, 0)),
    wrap_predicate(sudoku_labeling:search_event(E), count_search, W,
                   ( flag(E, C, C + 1), W )),
    statistics(cputime, T0),
    aggregate_all(count, sudoku:sudoku(SSpec, _, [rules(Rules)]), S),
    statistics(cputime, T1),
    Sec is T1 - T0,
    flag(node, N, N),
    flag(failure, F, F),
    flag(trial, T, T),
    flag(trial_failure, TF, TF).
