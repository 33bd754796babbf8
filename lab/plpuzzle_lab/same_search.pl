/*  The diagnosis of `python -m plpuzzle_lab diagnose`: our propagation
    under Gecode's search, on Gecode's model.

    plain_model/3 posts the plain model that the bench gives Gecode (see
    peers.py): the givens and parities as domains, a domain-consistent
    all-different on every unit (distinct_values/1), and each s/w info
    as its relation (next_to/2 under `consecutive`, a parity difference
    under `oddsum`).  Each of these propagators reaches the consistency
    of Gecode's propagator for the same constraint, so both solvers
    reach the same fixpoint at every node, and labelling the grid in
    input order, smallest value first, with binary branching (X = V, or
    X #\= V) explores Gecode's search tree node for node.  Equal node
    and failure counts check that claim; then time per node compares
    the cost of a node alone.

    full_model/3 is the model sudoku/3 searches (sudoku_constraints/4,
    with the parity booleans and their sums), for the domains left after
    root propagation.

    Counts are kept in a term updated with nb_setarg/3, in this lab file
    only: the solver keeps no such state.
*/

:- module(same_search, [diagnose/3]).

:- use_module(library(apply)).
:- use_module(library(clpfd)).
:- use_module(library(lists)).

%!  diagnose(+SSpec, +Rules, -Report) is det.
%
%   Report is report(PlainLeft, FullLeft, Open, Solutions, Nodes,
%   Failures, Seconds): the values left in all open fields after root
%   propagation of the plain model and of the full one, the open fields
%   of the plain model, then the solutions, nodes and failures of the
%   input-order search on the plain model, and its CPU seconds (root
%   propagation included, as Gecode's solve time does not; both are
%   reported).

diagnose(SSpec, Rules, report(PlainLeft, FullLeft, Open, Solutions, Nodes,
                              Failures, Seconds)) :-
    root_left(plain_model(SSpec, Rules), PlainLeft, Open),
    root_left(full_model(SSpec, Rules), FullLeft, _),
    Count = count(0, 1, 0),
    statistics(cputime, T0),
    (   plain_model(SSpec, Rules, Rows)
    ->  append(Rows, Vs),
        forall(input_order(Vs, Count), bump(Count, 1))
    ;   bump(Count, 3)
    ),
    statistics(cputime, T1),
    Seconds is T1 - T0,
    Count = count(Solutions, Nodes, Failures).

root_left(Model, Left, Open) :-
    (   call(Model, Rows)
    ->  append(Rows, Vs),
        include(var, Vs, OpenVs),
        length(OpenVs, Open),
        foldl(plus_size, OpenVs, 0, Left)
    ;   Left = 0,
        Open = 0
    ).

plus_size(V, S0, S) :-
    fd_size(V, Size),
    S is S0 + Size.

plain_model(s(K, Board), Rules, Rows) :-
    N is K*K,
    length(Rows, N),
    maplist(same_length(Rows), Rows),
    append(Rows, Vs),
    Vs ins 1..N,
    append(Board, Fields),
    pairs(Rows, Board, Pairs),
    sudoku_grid:units(K, Rows, Units),
    clpfd_internals:queue_off,
    maplist(field_domain(N), Fields, Vs),
    maplist(related(Rules), Pairs),
    maplist(sudoku_propagators:distinct_values, Units),
    clpfd_internals:queue_on,
    clpfd_internals:run_queue.

full_model(SSpec, Rules, Rows) :-
    sudoku:sudoku_constraints(SSpec, Rules, Rows).

field_domain(N, Infos, V) :-
    maplist(info_domain(N, V), Infos).

info_domain(_, V, v(M)) :- !, V #= M.
info_domain(N, V, o) :- !, parity_values(N, 1, V).
info_domain(N, V, e) :- !, parity_values(N, 0, V).
info_domain(_, _, _).

parity_values(N, P, V) :-
    findall(X, ( between(1, N, X), X mod 2 =:= P ), Xs),
    list_to_fdset(Xs, Set),
    V in_set Set.

%   The s and w pairs of the board, as A-B.
pairs(Rows, Board, Pairs) :-
    sudoku_grid:cells(Board, Rows, Cells),
    foldl(cell_pairs, Cells, Pairs, []).

cell_pairs(cell(Infos, X, South, West), Pairs, Tail) :-
    foldl(info_pair(X, South, West), Infos, Pairs, Tail).

info_pair(X, South, _, s, [X-South|Ps], Ps) :- South \== none, !.
info_pair(X, _, West, w, [X-West|Ps], Ps) :- West \== none, !.
info_pair(_, _, _, _, Ps, Ps).

related(consecutive, A-B) :- sudoku_propagators:next_to(A, B).
related(oddsum, A-B) :-
    sudoku_propagators:parity_of(A, P),
    sudoku_propagators:parity_of(B, Q),
    P + Q #= 1.

%   Input order, smallest value first, binary branching; each child
%   entered is a node, each that fails a failure.
input_order(Vs, Count) :-
    (   include(var, Vs, [X|_])
    ->  fd_inf(X, V),
        (   bump(Count, 2),
            (   X = V -> true ; bump(Count, 3), fail )
        ;   bump(Count, 2),
            (   X #\= V -> true ; bump(Count, 3), fail )
        ),
        input_order(Vs, Count)
    ;   true
    ).

bump(Count, I) :-
    arg(I, Count, N0),
    N is N0 + 1,
    nb_setarg(I, Count, N).
