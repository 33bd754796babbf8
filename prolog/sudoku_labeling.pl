/*  The search of sudoku/2,3: how the clpfd model of sudoku.pl is labelled.

    Plain first-fail labeling of the model is right but slow: on the
    course's hard puzzles it explores tens of thousands of nodes, and a
    node costs a propagation of every unit.  This search stays a
    labeling of clpfd variables, branching by posting clpfd constraints,
    and is fast for three reasons:

    1.  Stages.  Under `oddsum` the parities are labelled first.  Once
        every parity is known, odd fields take odd values and even fields
        even ones, and nothing links the two halves any more: each unit
        of a half holds the half's values once.  So each half is posted
        as a problem of its own on fresh variables, over the values
        1..H (the half's values renumbered), and solved once; the two
        lists of solutions are combined.  A dead end in one half never
        repeats the search of the other, and the propagators of a half
        never wake for the other.
    2.  Redundant constraints.  Box-line confinement (box_lines/2 of
        sudoku_propagators.pl) on every band of the grid or half.
    3.  Lookahead where first-fail gets lost.  A small problem (under
        64 open fields under `oddsum`, 200 under `consecutive`) is
        first labelled first-fail, which may reach a dead end once
        (`oddsum`) or three times (`consecutive`) per open field.  If
        it reaches more, or if the problem is large, it is labelled
        with lookahead: at each node it tries both sides of either-ors
        (a field with two values left, or a value with two places left
        in a unit), each trial with
        clpfd propagation at the strength of singles.  A side that
        fails is excluded (its negation posted), and the node branches
        on the either-or whose two trials narrowed the domains most.
        Only 15 either-ors are tried at a node: those never tried
        before, then those whose last trials scored best.  This cuts
        the tree by a factor of ten to a hundred on the hardest
        puzzles and costs more than it saves on easy ones.

    Under `consecutive` an s/w pair ties values, not only parities, so
    the values of the whole grid are labelled, with the same redundant
    constraints and the same labeling.
*/

:- module(sudoku_labeling, [label_sudoku/7]).

:- use_module(library(apply)).
:- use_module(library(clpfd)).
:- use_module(library(lists)).
:- use_module(sudoku_grid).
:- use_module(sudoku_propagators).
:- use_module(clpfd_internals, [queue_off/0, queue_on/0, run_queue/0]).

%   The lookahead counts places with bit operations at every node:
%   compile arithmetic inline.
:- set_prolog_flag(optimise, true).


%!  label_sudoku(+When, +Strength, +Rules, +K, +Rows, +Parities,
%!               -Solution) is nondet.
%
%   Solution is a labelling of the N x N matrices Rows (values) and
%   Parities (their parities), on which the rules are posted (see
%   sudoku.pl).  Every solution comes once.  When says when the values
%   are labelled with lookahead: `lost` (from the first node on large
%   problems, once first-fail has spent its budget on small ones) or
%   `always` (from the first node: slower on small problems, and a way
%   to put the lookahead to the test on them).
%   Strength (new_strength/1) is the switch of the propagators the
%   model was posted with; this search posts its own with it too, and
%   sets it to `trial` around each lookahead trial.

label_sudoku(When, Strength, Rules, K, Rows, Parities, Solution) :-
    how(When, Rules, How),
    label_rules(Rules, How, Strength, K, Rows, Parities, Solution).

how(always, _, always).
how(lost, Rules, lost(Large, Times)) :-
    first_fail_first(Rules, Large, Times).

label_rules(oddsum, When, Strength, K, Rows, Parities, Solution) :-
    bands(K, Rows, Bands),
    maplist(box_lines(Strength, K), Bands),
    parity_stage(Strength, K, Rows, Parities),
    append(Parities, Ps),
    N is K*K,
    matrix(N, Solution),
    append(Solution, Slots),
    halves(Ps, Slots, OddSlots, EvenSlots),
    half_solutions(When, Strength, K, Rows, Parities, 1, Odds),
    Odds \== [],
    half_solutions(When, Strength, K, Rows, Parities, 0, Evens),
    member(OddSlots, Odds),
    member(EvenSlots, Evens).
label_rules(consecutive, When, Strength, K, Rows, _, Solution) :-
    bands(K, Rows, Bands),
    maplist(box_lines(Strength, K), Bands),
    append(Rows, Vs),
    unit_positions(K, Vs, Vars, Units),
    label_all(When, Strength, Vars, Units, Solutions),
    member(Values, Solutions),
    matrix_of(K, Values, Solution).

%   Stage 1: lookahead over the values and the parities of the whole
%   grid, until every parity is known.  The branches partition the
%   solutions, so a parity grid reached twice (with other values left)
%   yields different solutions each time.
parity_stage(Strength, K, Rows, Parities) :-
    append(Rows, Vs),
    append(Parities, Ps),
    append(Vs, Ps, Both),
    Vars =.. [v|Both],
    length(Vs, Cells),
    numlist(1, Cells, Numbers),
    matrix_of(K, Numbers, Matrix),
    units(K, Matrix, Units),
    until_known(Ps, Vars, Units, Strength).

%   The memory of last reaches (see new_memory/2) is set up only when
%   there is a parity to decide: on most of the course's puzzles the
%   model decides them all.
until_known(Ps, Vars, Units, Strength) :-
    search_event(node),
    (   ground(Ps)
    ->  true
    ;   new_memory(Vars, Memory),
        until_known_(Ps, Vars, Units, Strength, Memory)
    ).

until_known_(Ps, Vars, Units, Strength, Memory) :-
    (   ground(Ps)
    ->  true
    ;   open_positions(Vars, Open),
        step(Vars, Units, Open, Strength, Memory),
        until_known_(Ps, Vars, Units, Strength, Memory)
    ).

%   halves(+Parities, +Entries, -Odd, -Even): Entries split by parity.
halves([], [], [], []).
halves([P|Ps], [X|Xs], Odd, Even) :-
    (   P =:= 1
    ->  Odd = [X|Odd1],
        halves(Ps, Xs, Odd1, Even)
    ;   Even = [X|Even1],
        halves(Ps, Xs, Odd, Even1)
    ).

%   half_solutions(+When, +Strength, +K, +Rows, +Parities, +P,
%   -Solutions): the values of the fields of parity P, row by row, one
%   per solution of that half.
%   The half is a fresh problem: a field's value V becomes (V+P)//2, so
%   the half's values are 1..H, and every unit of the half holds each of
%   them once.
half_solutions(When, Strength, K, Rows, Parities, P, Solutions) :-
    append(Rows, Xs),
    append(Parities, Ps),
    maplist(half_entry(P), Xs, Ps, Entries),
    exclude(==(none), Entries, Vs),
    N is K*K,
    H is (N + P) // 2,
    matrix_of(K, Entries, Half),
    bands(K, Half, Bands),
    unit_positions(K, Entries, Vars, Units),
    queue_off,
    Vs ins 1..H,
    maplist(box_lines(Strength, K), Bands),
    maplist(distinct_unit(Strength, Vars), Units),
    queue_on,
    run_queue,
    label_all(When, Strength, Vars, Units, Labelled),
    maplist(maplist(value_of(P)), Labelled, Solutions).

half_entry(P, X, Parity, Entry) :-
    (   Parity =\= P
    ->  Entry = none
    ;   integer(X)
    ->  Entry is (X + P) // 2
    ;   fd_set(X, Set),
        fdset_to_list(Set, Values),
        maplist(renumber(P), Values, Half),
        list_to_fdset(Half, HalfSet),
        Entry in_set HalfSet
    ).

renumber(P, V, W) :- W is (V + P) // 2.
value_of(P, W, V) :- V is 2*W - P.

%   unit_positions(+K, +Entries, -Vars, -Units): Vars is the term of
%   the entries of Entries (a row-major N x N grid of variables,
%   integers and `none`) other than `none`, and Units its units, each a
%   list of argument positions of Vars.
unit_positions(K, Entries, Vars, Units) :-
    numbered(Entries, 1, Numbered),
    matrix_of(K, Numbered, Matrix),
    units(K, Matrix, Units0),
    maplist(exclude(==(none)), Units0, Units),
    exclude(==(none), Entries, Vs),
    Vars =.. [v|Vs].

distinct_unit(Strength, Vars, Unit) :-
    unit_entries(Vars, Unit, Vs),
    distinct_values(Strength, Vs).

%   label_all(+When, +Strength, +Vars, +Units, -Solutions): every
%   labelling of Vars (see label_values/5), each as a list.
label_all(When, Strength, Vars, Units, Solutions) :-
    label_values(When, Strength, Vars, Units, Labelled),
    maplist(args, Labelled, Solutions).

args(Term, Args) :- Term =.. [_|Args].

numbered([], _, []).
numbered([E|Es], I, [J|Js]) :-
    (   E == none
    ->  J = none,
        I1 = I
    ;   J = I,
        I1 is I + 1
    ),
    numbered(Es, I1, Js).

unit_entries(Vars, Is, Vs) :-
    maplist(entry(Vars), Is, Vs).

entry(Vars, I, V) :- arg(I, Vars, V).

		 /*******************************
		 *           LABELING           *
		 *******************************/

%   label_values(+When, +Strength, +Vars, +Units, -Labelled): every
%   labelling of the term Vars, a copy each; Units are lists of argument
%   positions of Vars, each a unit that holds its values once.  When
%   `lost(Large, Times)`, a problem of Large open variables or more is
%   labelled with lookahead from the start; a smaller one first-fail,
%   which may reach Times as many dead ends as there are open variables:
%   if it reaches more, what it found is dropped and the labeling starts
%   over with lookahead.  When `always`, lookahead labels from the
%   start.
label_values(always, Strength, Vars, Units, Labelled) :-
    search_event(node),
    findall(Vars, lookahead(Vars, Units, Strength), Labelled).
label_values(lost(Large, Times), Strength, Vars, Units, Labelled) :-
    open_positions(Vars, Open),
    length(Open, Left),
    Budget is Times * Left,
    (   Left >= Large
    ->  label_values(always, Strength, Vars, Units, Labelled)
    ;   search_event(node),
        catch(findall(Vars, first_fail(Vars, budget(Budget)), Labelled),
              sudoku_budget_spent,
              label_values(always, Strength, Vars, Units, Labelled))
    ).

%   first_fail_first(+Rules, -Large, -Times): the limits of first-fail
%   before lookahead (see label_values/5), measured on the bench.
%   First-fail gets a large problem lost more often than not, and what
%   it did before its budget ran out is lost too (on official test271,
%   more than half of the search).  Small problems are the other way
%   round: there first-fail usually finishes, and lookahead costs more
%   than it saves (K = 3 halves under `oddsum`: up to twice the work).
%   Under `consecutive` the whole grid is labelled, and first-fail goes
%   further: grids of 50-150 open fields with up to hundreds of
%   solutions, which first-fail lists at a third to a half of
%   lookahead's cost (consecutive test005: 1.2 s against 0.5 s,
%   stress-consecutive test002: 0.95 s against 0.57 s), where the grids
%   it gets lost in cost it 20 % more (stress-consecutive test001: 13 s
%   against 15.5 s).  On the official suite these limits made test271
%   take 22 s instead of 12 s.
first_fail_first(oddsum, 64, 1).
first_fail_first(consecutive, 200, 3).

open_positions(Vars, Open) :-
    functor(Vars, _, N),
    open_positions(1, N, Vars, Open).

open_positions(I, N, Vars, Open) :-
    (   I > N
    ->  Open = []
    ;   arg(I, Vars, X),
        I1 is I + 1,
        (   var(X) -> Open = [I|Open1] ; Open = Open1 ),
        open_positions(I1, N, Vars, Open1)
    ).

%   The open variable with the fewest values left (the first such).
smallest([I|Is], Vars, X) :-
    arg(I, Vars, X0),
    fd_size(X0, S0),
    smallest(Is, Vars, X0, S0, X).

smallest([], _, X, _, X).
smallest([I|Is], Vars, X0, S0, X) :-
    arg(I, Vars, Y),
    fd_size(Y, S),
    (   S < S0
    ->  smallest(Is, Vars, Y, S, X)
    ;   smallest(Is, Vars, X0, S0, X)
    ).

first_fail(Vars, Budget) :-
    open_positions(Vars, Open),
    (   Open == []
    ->  refund(Budget)
    ;   smallest(Open, Vars, X),
        fd_inf(X, V),
        (   posted(X = V)
        ;   spend(Budget),
            posted(X #\= V)
        ),
        first_fail(Vars, Budget)
    ).

%   A solution pays back the branch that leads away from it: what the
%   budget counts is dead ends, so a puzzle with many solutions is not
%   taken for one where first-fail is lost.
refund(Budget) :-
    arg(1, Budget, B),
    B1 is B + 1,
    nb_setarg(1, Budget, B1).

spend(Budget) :-
    arg(1, Budget, B),
    (   B =:= 0
    ->  throw(sudoku_budget_spent)
    ;   B1 is B - 1,
        nb_setarg(1, Budget, B1)
    ).

		 /*******************************
		 *          LOOKAHEAD           *
		 *******************************/

%   lookahead(+Vars, +Units, +Strength): label Vars with lookahead at
%   every node.  Its nodes try the preselected either-ors only (see
%   preselected/4); Memory holds the score of each side's last trial.
lookahead(Vars, Units, Strength) :-
    new_memory(Vars, Memory),
    lookahead(Vars, Units, Strength, Memory).

lookahead(Vars, Units, Strength, Memory) :-
    open_positions(Vars, Open),
    (   Open == []
    ->  true
    ;   preselected_step(Vars, Units, Open, Strength, Memory),
        lookahead(Vars, Units, Strength, Memory)
    ).

%   A node: try the either-ors, exclude the failed sides, then branch on
%   the best either-or if both its sides are still open; else, when
%   exclusions changed the node, look again; else branch first-fail.
%   The trials set Strength, the propagators' switch, to `trial`.
%   step/5 tries every either-or (the first stage under `oddsum`);
%   preselected_step/5 the preselected ones.  Memory (see new_memory/2)
%   holds the score of each side's last live trial, across nodes.
step(Vars, Units, Open, Strength, Memory) :-
    new_node(Vars, Open, Strength, Memory, implied, Node, Best),
    forall_two(Open, Node, Best),
    forall_units(Units, Node, Best),
    branch(Best, Vars, Open).

preselected_step(Vars, Units, Open, Strength, Memory) :-
    new_node(Vars, Open, Strength, Memory, none, Node, Best),
    preselected(Vars, Units, Open, Memory, Chosen),
    forall_chosen(Chosen, Node, Best),
    branch(Best, Vars, Open).

%   node(Vars, Left, Tried, Strength, Open, Implied, Epoch, Memory):
%   Tried holds, per field, the reach of each value tried at the node
%   (see reach/3); Implied, per field, the values that a live trial
%   decided, as W-Reach-Epoch, Epoch counting the exclusions made at the
%   node before that trial (see either_or/4); reach/3 keeps each live
%   trial's reach in Memory too.
new_node(Vars, Open, Strength, Memory, Skip, Node, Best) :-
    length(Open, Left),
    functor(Vars, _, N),
    functor(Tried, t, N),
    (   Skip == implied -> functor(Implied, i, N) ; Implied = none ),
    Node = node(Vars, Left, Tried, Strength, Open, Implied, 0, Memory),
    Best = best(none, 0, unchanged).

branch(Best, Vars, Open) :-
    arg(1, Best, Choice),
    arg(3, Best, Changed),
    (   Choice = (I-V ; J-W),
        still_open(Vars, I-V),
        still_open(Vars, J-W)
    ->  (   entry(Vars, I, X), posted(X = V)
        ;   entry(Vars, J, Y), posted(Y = W)
        )
    ;   Changed == changed
    ->  true
    ;   smallest(Open, Vars, X),
        fd_inf(X, V),
        (   posted(X = V) ; posted(X #\= V) )
    ).

%   The either-or of each field with two values.
forall_two([], _, _).
forall_two([I|Is], Node, Best) :-
    arg(1, Node, Vars),
    arg(I, Vars, X),
    (   var(X), fd_size(X, 2)
    ->  fd_inf(X, A),
        fd_sup(X, B),
        either_or(I-A, I-B, Node, Best)
    ;   true
    ),
    forall_two(Is, Node, Best).

%   The either-or of each value with two places in a unit.
forall_units([], _, _).
forall_units([U|Us], Node, Best) :-
    arg(1, Node, Vars),
    place_counts(U, Vars, 0, 0, 0, Twice, Thrice),
    Two is Twice /\ \ Thrice,
    forall_values(Two, U, Node, Best),
    forall_units(Us, Node, Best).

%   Bit V of Once, Twice, Thrice: value V has at least 1, 2, 3 places.
place_counts([], _, _, T, H, T, H).
place_counts([I|Is], Vars, O0, T0, H0, T, H) :-
    arg(I, Vars, X),
    (   var(X)
    ->  fd_mask(X, M),
        H1 is H0 \/ (T0 /\ M),
        T1 is T0 \/ (O0 /\ M),
        O1 is O0 \/ M
    ;   O1 = O0, T1 = T0, H1 = H0
    ),
    place_counts(Is, Vars, O1, T1, H1, T, H).

forall_values(0, _, _, _) :- !.
forall_values(Two, U, Node, Best) :-
    V is lsb(Two),
    arg(1, Node, Vars),
    places(U, Vars, V, Places),
    (   Places = [I, J]
    ->  either_or(I-V, J-V, Node, Best)
    ;   true
    ),
    Two1 is Two /\ (Two - 1),
    forall_values(Two1, U, Node, Best).

places([], _, _, []).
places([I|Is], Vars, V, Places) :-
    (   still_open(Vars, I-V)
    ->  Places = [I|Places1]
    ;   Places = Places1
    ),
    places(Is, Vars, V, Places1).

still_open(Vars, I-V) :-
    arg(I, Vars, X),
    var(X),
    fd_mask(X, M),
    M /\ (1 << V) =\= 0.

		 /*******************************
		 *         PRESELECTION         *
		 *******************************/

%   A node of lookahead/3 tries only Preselect of its either-ors: those
%   never tried before first, then those whose last trials scored best.
%   Scores change little from a node to its children, and the trials
%   of the others rarely fail (2 % of them on the hardest official
%   puzzles): with all of them tried, a node of official test237 cost
%   about 100 trials.  Skipping a trial only forgoes an exclusion, so
%   the search stays exact.
preselect(15).

%   memory(Last, Stride): argument (I-1)*Stride + V + 1 of Last is the
%   number of variables that field I = V decided at its last trial.
%   Set with nb_setarg/3, so it outlives backtracking.
new_memory(Vars, memory(Last, Stride)) :-
    functor(Vars, _, N),
    fold_positions(sup_of(Vars), 1, N, 0, Max),
    Stride is Max + 1,
    Size is max(1, N * Stride),
    functor(Last, last, Size).

sup_of(Vars, I, S0, S) :-
    arg(I, Vars, X),
    fd_sup(X, S1),
    S is max(S0, S1).

fold_positions(G, I, N, A0, A) :-
    (   I > N
    ->  A = A0
    ;   call(G, I, A0, A1),
        I1 is I + 1,
        fold_positions(G, I1, N, A1, A)
    ).

%   preselected(+Vars, +Units, +Open, +Memory, -Chosen): the either-ors
%   of the node to try, as Key-(A-B), best first.
preselected(Vars, Units, Open, Memory, Chosen) :-
    two_values(Open, Vars, Pairs, Pairs1),
    two_places(Units, Vars, Pairs1, []),
    maplist(keyed(Memory), Pairs, Keyed),
    msort(Keyed, Sorted),
    preselect(M),
    first_n(M, Sorted, Chosen).

two_values([], _, Ps, Ps).
two_values([I|Is], Vars, Ps0, Ps) :-
    arg(I, Vars, X),
    (   var(X),
        fd_mask(X, M),
        popcount(M) =:= 2
    ->  A is lsb(M),
        B is msb(M),
        Ps0 = [(I-A)-(I-B)|Ps1]
    ;   Ps1 = Ps0
    ),
    two_values(Is, Vars, Ps1, Ps).

%   The masks of a unit's open fields are read once, for the counts
%   and for the two places of each value.
two_places([], _, Ps, Ps).
two_places([U|Us], Vars, Ps0, Ps) :-
    open_masks(U, Vars, 0, 0, 0, Twice, Thrice, Masks),
    Two is Twice /\ \ Thrice,
    value_places(Two, Masks, Ps0, Ps1),
    two_places(Us, Vars, Ps1, Ps).

%   open_masks(+Unit, +Vars, ..., -Twice, ..., -Thrice, -Masks): the
%   counts of place_counts/7, and Masks the open fields of Unit as I-M
%   (M the mask of field I), in the order of Unit.
open_masks([], _, _, T, H, T, H, []).
open_masks([I|Is], Vars, O0, T0, H0, T, H, Ms) :-
    arg(I, Vars, X),
    (   var(X)
    ->  fd_mask(X, M),
        H1 is H0 \/ (T0 /\ M),
        T1 is T0 \/ (O0 /\ M),
        O1 is O0 \/ M,
        Ms = [I-M|Ms1]
    ;   O1 = O0, T1 = T0, H1 = H0,
        Ms = Ms1
    ),
    open_masks(Is, Vars, O1, T1, H1, T, H, Ms1).

%   Each value of Two has exactly two places among Masks.
value_places(0, _, Ps, Ps) :- !.
value_places(Two, Masks, [(I-V)-(J-V)|Ps0], Ps) :-
    V is lsb(Two),
    B is 1 << V,
    two_holders(Masks, B, I, J),
    Two1 is Two /\ (Two - 1),
    value_places(Two1, Masks, Ps0, Ps).

two_holders([I0-M|Ms], B, I, J) :-
    (   M /\ B =\= 0
    ->  I = I0,
        holder(Ms, B, J)
    ;   two_holders(Ms, B, I, J)
    ).

holder([J0-M|Ms], B, J) :-
    (   M /\ B =\= 0 -> J = J0 ; holder(Ms, B, J) ).

%   The key sorts the never tried first, then by falling last score
%   (the score of either_or/4).
keyed(memory(Last, Stride), A-B, Key-(A-B)) :-
    slot(A, Stride, SA),
    slot(B, Stride, SB),
    arg(SA, Last, RA),
    arg(SB, Last, RB),
    (   ( var(RA) ; var(RB) )
    ->  Key = k(0, 0)
    ;   Score is -(RA + 1) * (RB + 1),
        Key = k(1, Score)
    ).

slot(I-V, Stride, Slot) :-
    Slot is (I - 1) * Stride + V + 1.

first_n(0, _, []) :- !.
first_n(_, [], []) :- !.
first_n(M, [X|Xs], [X|Ys]) :-
    M1 is M - 1,
    first_n(M1, Xs, Ys).

forall_chosen([], _, _).
forall_chosen([_-(A-B)|Cs], Node, Best) :-
    either_or(A, B, Node, Best),
    forall_chosen(Cs, Node, Best).

%   remember(+I-V, +Node): keep the score of a side tried at this node
%   in the node's memory, if it lived.  Called once its either-or is
%   done, so a node that dies in an either-or leaves that either-or's
%   sides as they were: never tried ones are tried first again.
remember(I-V, Node) :-
    arg(3, Node, Tried),
    arg(I, Tried, Known),
    (   nonvar(Known),
        memberchk(V-Reach, Known),
        Reach >= 0
    ->  arg(8, Node, memory(Last, Stride)),
        slot(I-V, Stride, Slot),
        nb_setarg(Slot, Last, Reach)
    ;   true
    ).

%   last_score(+I-V, +Memory, -Score): the reach of the last live trial
%   of I = V, if any.
last_score(Side, memory(Last, Stride), Score) :-
    slot(Side, Stride, Slot),
    arg(Slot, Last, Score),
    integer(Score).

%   Try both sides (unless one is gone already); a failing side is
%   excluded at once, so later trials see the narrower node.
%
%   A side that a live trial of this node decided, with no exclusion
%   since, is implied: its propagation reaches at most what that
%   trial's did, so it lives, and decides at most that trial's reach
%   (its bound).  Its trial is skipped when even the bound cannot make
%   the either-or the best one so far: it would neither exclude nor
%   choose, so the node ends as if it had been tried.  (Its last
%   score in the memory stays as it was: a bound is not a score.)
either_or(A, B, Node, Best) :-
    arg(1, Node, Vars),
    (   still_open(Vars, A),
        still_open(Vars, B)
    ->  either_or_open(A, B, Node, Best),
        remember(A, Node),
        remember(B, Node)
    ;   true
    ).

either_or_open(A, B, Node, Best) :-
    bound(A, Node, BA),
    bound(B, Node, BB),
    arg(2, Best, Score0),
    (   BA \== none, BB \== none,
        (BA + 1) * (BB + 1) =< Score0
    ->  true
    ;   BA \== none
    ->  implied_side(B, A, BA, Node, Best, Score0)
    ;   implied_side(A, B, BB, Node, Best, Score0)
    ).

%   implied_side(+A, +B, +BB, +Node, +Best, +Score0): try A, then B
%   unless B is implied (bound BB) and cannot win with A's reach.
%   Where the node skips implied sides (the first stage under
%   `oddsum`), B is skipped too when the score that A's reach and B's
%   last reach (at an earlier node) would give cannot beat the best so
%   far.  That is a guess, not a bound: a side skipped so forgoes only
%   its exclusion, and the search stays exact.  Measured:
%   stress-oddsum test001 33,652 trials to 25,089 (287 M inferences to
%   243 M; 261 M when the guess was doubled).  The guess (doubled)
%   among the preselected either-ors made bench/consecutive test011
%   14 % worse: its tree grew from 3,841 nodes to 4,895.
implied_side(A, B, BB, Node, Best, Score0) :-
    reach(A, Node, RA),
    (   RA < 0
    ->  exclude_side(A, Node, Best)
    ;   BB \== none,
        (RA + 1) * (BB + 1) =< Score0
    ->  true
    ;   arg(6, Node, Implied),
        Implied \== none,
        arg(8, Node, Memory),
        last_score(B, Memory, LB),
        (RA + 1) * (LB + 1) =< Score0
    ->  true
    ;   reach(B, Node, RB),
        (   RB < 0
        ->  exclude_side(B, Node, Best)
        ;   Score is (RA + 1) * (RB + 1),
            (   Score > Score0
            ->  nb_setarg(1, Best, A ; B),
                nb_setarg(2, Best, Score)
            ;   true
            )
        )
    ).

%   bound(+I-V, +Node, -Bound): the least reach of the live trials of
%   this node, since its last exclusion, that decided I = V, if I = V
%   was not tried itself; else `none`.
bound(I-V, Node, Bound) :-
    arg(3, Node, Tried),
    arg(I, Tried, Known),
    (   nonvar(Known), memberchk(V-_, Known)
    ->  Bound = none
    ;   arg(6, Node, Implied),
        Implied == none
    ->  Bound = none
    ;   arg(6, Node, Implied),
        arg(I, Implied, Ws),
        arg(7, Node, Epoch),
        least_reach(Ws, V, Epoch, none, Bound)
    ).

least_reach(Ws, _, _, B, B) :- var(Ws), !.
least_reach([], _, _, B, B).
least_reach([W-R-E|Ws], V, Epoch, B0, B) :-
    (   W =:= V, E =:= Epoch, ( B0 == none ; R < B0 )
    ->  least_reach(Ws, V, Epoch, R, B)
    ;   least_reach(Ws, V, Epoch, B0, B)
    ).

exclude_side(I-V, Node, Best) :-
    arg(1, Node, Vars),
    arg(I, Vars, X),
    (   X #\= V
    ->  true
    ;   search_event(failure),
        fail
    ),
    arg(7, Node, Epoch),
    Epoch1 is Epoch + 1,
    setarg(7, Node, Epoch1),
    nb_setarg(3, Best, changed).

%   reach(+I-V, +Node, -Reach): how many variables of the node are
%   decided when field I takes V, with propagation at trial strength; -1
%   if that fails.  Each side is tried once per node.  (Counting the
%   values removed instead chose about as well and cost twice as much.)
reach(I-V, Node, Reach) :-
    Node = node(Vars, Left0, Tried, Strength, Open, Implied, Epoch, _),
    arg(I, Tried, Known),
    (   var(Known) -> Done = [] ; Done = Known ),
    (   memberchk(V-Reach, Done)
    ->  true
    ;   arg(I, Vars, X),
        search_event(trial),
        (   findall(Left-Decided,
                    trial(Implied, X, V, Vars, Open, Strength, Left,
                          Decided),
                    [Left-Decided])
        ->  Reach is Left0 - Left,
            imply(Decided, Implied, Reach, Epoch)
        ;   search_event(trial_failure),
            Reach = -1
        ),
        setarg(I, Tried, [V-Reach|Done])
    ).

%   Left of the node's open fields are open after X = V, Decided the
%   others, as I-W (only where the node keeps what its trials imply).
trial(Implied, X, V, Vars, Open, Strength, Left, Decided) :-
    set_strength(Strength, trial),
    X = V,
    set_strength(Strength, full),
    (   Implied == none
    ->  term_variables(Vars, Vs),
        length(Vs, Left),
        Decided = []
    ;   decided(Open, Vars, 0, Left, Decided)
    ).

decided([], _, L, L, []).
decided([I|Is], Vars, L0, L, D) :-
    arg(I, Vars, Y),
    (   var(Y)
    ->  L1 is L0 + 1,
        decided(Is, Vars, L1, L, D)
    ;   D = [I-Y|D1],
        decided(Is, Vars, L0, L, D1)
    ).

imply(_, none, _, _) :- !.
imply([], _, _, _).
imply([I-W|Ds], Implied, Reach, Epoch) :-
    arg(I, Implied, Ws),
    (   var(Ws) -> Ws1 = [W-Reach-Epoch] ; Ws1 = [W-Reach-Epoch|Ws] ),
    setarg(I, Implied, Ws1),
    imply(Ds, Implied, Reach, Epoch).

		 /*******************************
		 *           COUNTING           *
		 *******************************/

%   posted(+Goal): a branch, Goal a clpfd constraint that makes a child
%   node; a failure if its propagation fails.
posted(Goal) :-
    search_event(node),
    (   call(Goal)
    ->  true
    ;   search_event(failure),
        fail
    ).

%   search_event(+Event): the search reached Event: `node` (a root or a
%   child), `failure` (a node found dead), `trial` or `trial_failure`
%   (a lookahead trial, one that failed).  It does nothing: a hook for
%   counting the tree (lab/plpuzzle_lab/count_search.pl wraps it), so
%   that the counts come from the search as it ships.
search_event(_).
