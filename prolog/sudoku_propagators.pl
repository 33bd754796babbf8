/*  Five propagators plugged into CLP(FD), for the sudoku's model and search.

    Each one implements one stated constraint, through clpfd's own
    extension mechanism (make_propagator/2, init_propagator/2,
    trigger_once/1 and a clause of clpfd:run_propagator/2).  They prune
    only by removing values from clpfd domains, and only values that no
    solution of their constraint can give the variable.

    -   distinct_values(Vs): the entries of Vs are pairwise distinct.
        SWI-Prolog's all_distinct/1 states the same constraint and prunes
        the same values; it rebuilds its value graph with attributed
        variables on every run, and on the course's hard puzzles that run
        dominates the search.  This one reads the domains as bit masks,
        which halves the time of a whole search.
    -   box_lines(K, Band): in a band of K rows (or K columns), each of
        them a complete unit, every row r and box b of the band satisfy
        values(r \ b) = values(b \ r).  It is redundant (the units imply
        it), but no single unit's propagation sees it.
    -   next_to(X, Y): |X-Y| = 1, and parity_of(X, P): P is X's parity.
        clpfd states both as two-field tuples_in/2 tables, with the same
        pruning; a table is set up once per field and walked at every
        run, which on a 100 x 100 grid took seconds to post.
    -   ones(Bs, C): exactly C of the 0/1 entries Bs are 1.  clpfd
        states it as sum(Bs, #=, C), with the same pruning, through its
        general linear propagator.

    All read the domains as bit masks: bit V is set when V is in the
    domain.  The parts of clpfd they use that clpfd does not document
    (reading a domain, removing a value, the queue) are in
    clpfd_internals.pl, which checks them when it is loaded.

    A search posts them with a strength switch (new_strength/1), which
    the lookahead of sudoku_labeling.pl sets to `trial` around each
    trial (set_strength/2).  At trial strength distinct_values/2 prunes
    only by the naked and hidden singles of its unit, and box_lines/3
    rests: a trial asks whether a literal fails quickly, and these cheap
    rules find most such failures at a fraction of the cost.  Weaker
    pruning is still sound pruning.  The switch is a term in the
    propagators' own arguments, so each search has its own.
*/

:- module(sudoku_propagators,
          [ distinct_values/1,
            distinct_values/2,
            next_to/2,
            parity_of/2,
            ones/2,
            box_lines/2,
            box_lines/3,
            new_strength/1,
            set_strength/2,
            fd_mask/2
          ]).

:- use_module(library(apply)).
:- use_module(library(clpfd)).
:- use_module(library(lists)).
:- use_module(clpfd_internals,
              [ fd_domain_mask/2,
                fd_remove/2,
                fd_restrict/2,
                queue_off/0,
                queue_on/0,
                set_current_propagator/1,
                clear_current_propagator/0
              ]).

%   mask/2 is this file's short name for fd_domain_mask/2, rewritten at
%   compile time.  (An import `as mask` would put a call between them,
%   hundreds of thousands a second in the search.)
goal_expansion(mask(X, M), fd_domain_mask(X, M)).

%   The propagators are mostly bit operations: compile arithmetic inline.
:- set_prolog_flag(optimise, true).

:- multifile clpfd:run_propagator/2.

%!  new_strength(-Strength) is det.
%
%   Strength is a new switch for the propagators of one search, at
%   full strength.  Post them with it (distinct_values/2, box_lines/3)
%   and set it with set_strength/2.

new_strength(strength(full)).

%!  set_strength(+Strength, +Level) is det.
%
%   The propagators posted with Strength run at Level from now on:
%   `full`, or `trial` (see the top of this file).  Undone on
%   backtracking.

set_strength(Strength, Level) :-
    setarg(1, Strength, Level).

%!  distinct_values(+Vs) is semidet.
%!  distinct_values(+Strength, +Vs) is semidet.
%
%   The entries of Vs (integers and clpfd variables) are pairwise
%   distinct.  Propagation is complete (domain consistency): a value
%   stays in a domain only when some assignment of distinct values to
%   all of Vs gives it to that variable.  With Strength at `trial`
%   (see new_strength/1) it prunes by singles only.
%   distinct_values/1 is always at full strength.

distinct_values(Vs) :-
    new_strength(Strength),
    distinct_values(Strength, Vs).

distinct_values(Strength, Vs) :-
    clpfd:make_propagator(distinct_values(Strength, Vs), Prop),
    attach(Vs, Prop),
    clpfd:trigger_once(Prop).

%!  box_lines(+K, +Band) is semidet.
%!  box_lines(+Strength, +K, +Band) is semidet.
%
%   Band is K rows of N = K*K entries (integers, clpfd variables, or
%   `none` for a field that is not part of the problem), cut into K
%   boxes of K columns each.  Each row and each box of the band holds
%   the same set of values, each once (they are units of one problem).
%   For every row r and box b of the band, the values of r outside b
%   are the values of b outside r: both are that set minus the values
%   where r and b cross.  So a value that no field of b outside r can
%   take is taken by no field of r outside b, and the other way round.
%   This is box-line confinement, for every row and box at once.  With
%   Strength at `trial` (see new_strength/1) it does not prune.
%   box_lines/2 is always at full strength.

box_lines(K, Band) :-
    new_strength(Strength),
    box_lines(Strength, K, Band).

box_lines(Strength, K, Band) :-
    maplist(boxes_of_row(K), Band, Chunked),
    clpfd:make_propagator(box_lines(Strength, Chunked), Prop),
    append(Chunked, Chunks),
    append(Chunks, Entries),
    attach(Entries, Prop),
    clpfd:trigger_once(Prop).

boxes_of_row(_, [], []) :- !.
boxes_of_row(K, Row, [Box|Boxes]) :-
    length(Part, K),
    append(Part, Rest, Row),
    exclude(==(none), Part, Box),
    boxes_of_row(K, Rest, Boxes).

attach([], _).
attach([X|Xs], Prop) :-
    (   var(X) -> clpfd:init_propagator(X, Prop) ; true ),
    attach(Xs, Prop).

%   A run's own prunings do not queue the propagator again (as clpfd
%   does for its global constraints): each run goes to its fixpoint, and
%   domain changes are made with the queue off, so that a binding does
%   not run other propagators in the middle of this one.
clpfd:run_propagator(distinct_values(Strength, Vs), State) :-
    set_current_propagator(State),
    (   arg(1, Strength, trial)
    ->  singles(Vs, State)
    ;   matching(Vs, State)
    ),
    clear_current_propagator.
clpfd:run_propagator(box_lines(Strength, Chunked), State) :-
    set_current_propagator(State),
    (   arg(1, Strength, trial)
    ->  true
    ;   queue_off,
        box_lines_pass(Chunked),
        queue_on
    ),
    clear_current_propagator.

		 /*******************************
		 *          BIT MASKS           *
		 *******************************/

%!  fd_mask(+X, -Mask) is det.
%
%   Mask has bit V set for each value V in the domain of the clpfd
%   variable (or integer) X, whose values are positive.

fd_mask(X, M) :-
    mask(X, M).

%   narrow(X, Old, New): X's domain, Old as a mask, becomes New.
narrow(X, Old, New) :-
    (   Old =:= New -> true
    ;   New =:= 0 -> fail
    ;   New /\ (New - 1) =:= 0 -> X is lsb(New)
    ;   Gone is Old /\ \ New,
        (   Gone /\ (Gone - 1) =:= 0
        ->  V is lsb(Gone),
            fd_remove(X, V)
        ;   fd_restrict(X, New)
        )
    ).

		 /*******************************
		 *       DISTINCT VALUES        *
		 *******************************/

%   The decided entries' values leave the others (two alike: failure);
%   the open ones are then pruned by a maximum matching of variables to
%   values and the strongly connected components of its residual graph
%   (Regin's algorithm).  An edge X-V that lies in no maximum matching
%   lies in no solution, since every solution is a matching that covers
%   all variables; by Berge's theorem such an edge is exactly one that
%   is not in the matching found, not in a cycle of alternating edges
%   (the same component) and not on an alternating path from a free
%   value.
matching(Vs, State) :-
    unit_scan(Vs, 0, Fixed, 0, Once, 0, _, Open, Masks0, 0, N),
    (   Open == []
    ->  clpfd:kill(State)
    ;   Free is \ Fixed,
        maplist(and(Free), Masks0, Masks),
        Ds =.. [d|Masks],
        Union is Once /\ Free,
        Union > 0,
        MaxV is msb(Union),
        max_matching(N, MaxV, Ds, VarVal, ValVar),
        supported(N, Ds, VarVal, ValVar, Keep),
        queue_off,
        maplist(narrow, Open, Masks0, Keep),
        queue_on
    ).

and(A, B, C) :- C is A /\ B.

%   The light rules of a trial: decided values leave the others, and,
%   when the open entries can take exactly as many values as there are
%   of them (so each of those values must be taken), a value with one
%   place left goes there.  Fewer values than entries fails.  One pass
%   reads the unit: a value other than the decided ones has one place
%   (or two) among the open entries' masks cut to the free values when
%   it has one (or two) in their masks as they are, so the cut, and a
%   second pass, are needed only where a decided value is in some mask.
singles(Vs, _State) :-
    unit_scan(Vs, 0, Fixed, 0, Once0, 0, Twice0, Open, Masks0, 0, Fields),
    (   Open == []
    ->  true
    ;   Free is \ Fixed,
        Once is Once0 /\ Free,
        popcount(Once) >= Fields,
        (   Once0 /\ Fixed =:= 0
        ->  Cut = false
        ;   Cut = true
        ),
        (   popcount(Once) =:= Fields
        ->  Lonely is Once /\ \ Twice0
        ;   Lonely = 0
        ),
        (   Cut == false, Lonely =:= 0
        ->  true
        ;   queue_off,
            (   Cut == true
            ->  maplist(and(Free), Masks0, Masks),
                maplist(narrow, Open, Masks0, Masks)
            ;   true
            ),
            place_singles(Lonely, Open, Masks0),
            queue_on
        )
    ).

%   unit_scan(+Vs, ..., -Fixed, ..., -Once, ..., -Twice, -Open, -Masks,
%   ..., -Fields): the decided values (failing on a repeat); the values
%   with at least one and at least two places in the open entries'
%   masks; the open entries, their masks and their number.
unit_scan([], F, F, O, O, T, T, [], [], N, N).
unit_scan([X|Xs], F0, F, O0, O, T0, T, Os, Ms, N0, N) :-
    (   integer(X)
    ->  B is 1 << X,
        F0 /\ B =:= 0,
        F1 is F0 \/ B,
        unit_scan(Xs, F1, F, O0, O, T0, T, Os, Ms, N0, N)
    ;   mask(X, M),
        Os = [X|Os1],
        Ms = [M|Ms1],
        T1 is T0 \/ (O0 /\ M),
        O1 is O0 \/ M,
        N1 is N0 + 1,
        unit_scan(Xs, F0, F, O1, O, T1, T, Os1, Ms1, N1, N)
    ).

place_singles(0, _, _) :- !.
place_singles(Lonely, Open, Masks) :-
    V is lsb(Lonely),
    B is 1 << V,
    place_single(Open, Masks, B, V),
    Lonely1 is Lonely /\ (Lonely - 1),
    place_singles(Lonely1, Open, Masks).

place_single([X|Xs], [M|Ms], B, V) :-
    (   M /\ B =\= 0 -> X = V ; place_single(Xs, Ms, B, V) ).

%   max_matching(+N, +MaxV, +Ds, -VarVal, -ValVar): a matching that
%   covers variables 1..N (masks in Ds), or failure.  VarVal holds each
%   variable's value, ValVar each value's variable (0: free).  Greedy
%   where a free value is at hand, else an augmenting path by depth
%   first search; values seen in one search are not tried again.
max_matching(N, MaxV, Ds, VarVal, ValVar) :-
    functor(VarVal, vv, N),
    length(Zeros, MaxV),
    maplist(=(0), Zeros),
    ValVar =.. [vv|Zeros],
    match_from(1, N, Ds, VarVal, ValVar).

match_from(I, N, Ds, VarVal, ValVar) :-
    (   I > N
    ->  true
    ;   arg(I, Ds, D),
        (   free_value(D, ValVar, V)
        ->  nb_setarg(I, VarVal, V),
            nb_setarg(V, ValVar, I)
        ;   augment(I, Ds, VarVal, ValVar, seen(0))
        ),
        I1 is I + 1,
        match_from(I1, N, Ds, VarVal, ValVar)
    ).

free_value(Cand, ValVar, V) :-
    Cand =\= 0,
    W is lsb(Cand),
    arg(W, ValVar, J),
    (   J =:= 0
    ->  V = W
    ;   Cand1 is Cand /\ (Cand - 1),
        free_value(Cand1, ValVar, V)
    ).

augment(I, Ds, VarVal, ValVar, Seen) :-
    arg(I, Ds, D),
    arg(1, Seen, S),
    Cand is D /\ \ S,
    augment_by(Cand, I, Ds, VarVal, ValVar, Seen).

augment_by(Cand, I, Ds, VarVal, ValVar, Seen) :-
    Cand =\= 0,
    W is lsb(Cand),
    arg(1, Seen, S0),
    S1 is S0 \/ (1 << W),
    nb_setarg(1, Seen, S1),
    arg(W, ValVar, J),
    (   ( J =:= 0 ; augment(J, Ds, VarVal, ValVar, Seen) )
    ->  nb_setarg(I, VarVal, W),
        nb_setarg(W, ValVar, I)
    ;   arg(1, Seen, S2),
        Cand1 is Cand /\ \ S2,
        augment_by(Cand1, I, Ds, VarVal, ValVar, Seen)
    ).

%   supported(+N, +Ds, +VarVal, +ValVar, -Keep): each variable's mask,
%   cut to the values of edges in some maximum matching.  The graph on
%   variables has an arc I -> J when I's domain holds J's matched value;
%   an edge I-V (V matched to J) survives when I and J share a
%   component (Tarjan's algorithm numbers them), or when J reaches a
%   variable with a free value in its domain.
supported(N, Ds, VarVal, ValVar, Keep) :-
    length(Zs, N),
    maplist(=(0), Zs),
    Index =.. [i|Zs],
    Low =.. [l|Zs],
    Comp =.. [c|Zs],
    Seed =.. [s|Zs],
    St = st(0, [], 0, 0),          % counter, stack, on-stack set, components
    components(1, N, g(Ds, VarVal, ValVar, Index, Low, Comp, Seed, St)),
    arg(4, St, NC),
    length(GZs, NC),
    maplist(=(0), GZs),
    Good =.. [g|GZs],
    (   Seed =.. [_|Seeds], memberchk(1, Seeds)
    ->  good_components(N, Ds, VarVal, ValVar, Comp, Seed, Good)
    ;   true
    ),
    keep_masks(1, N, Ds, VarVal, ValVar, Comp, Good, Keep).

components(I, N, G) :-
    (   I > N
    ->  true
    ;   G = g(_, _, _, Index, _, _, _, _),
        arg(I, Index, X),
        (   X =:= 0 -> strong(I, G) ; true ),
        I1 is I + 1,
        components(I1, N, G)
    ).

strong(V, G) :-
    G = g(Ds, VarVal, _, Index, Low, Comp, _, St),
    arg(1, St, C0),
    C is C0 + 1,
    nb_setarg(1, St, C),
    nb_setarg(V, Index, C),
    nb_setarg(V, Low, C),
    arg(2, St, Stack0),
    nb_setarg(2, St, [V|Stack0]),
    arg(3, St, On0),
    On is On0 \/ (1 << V),
    nb_setarg(3, St, On),
    arg(V, Ds, D),
    arg(V, VarVal, Val),
    Arcs is D /\ \ (1 << Val),
    arcs(Arcs, V, G),
    arg(V, Low, LV),
    arg(V, Index, IV),
    (   LV =:= IV
    ->  arg(4, St, NC0),
        NC is NC0 + 1,
        nb_setarg(4, St, NC),
        arg(2, St, Stack),
        pop_component(Stack, V, NC, Comp, St)
    ;   true
    ).

arcs(0, _, _) :- !.
arcs(Arcs, V, G) :-
    G = g(_, _, ValVar, Index, Low, _, Seed, St),
    W is lsb(Arcs),
    arg(W, ValVar, J),
    (   J =:= 0
    ->  nb_setarg(V, Seed, 1)
    ;   arg(J, Index, IJ),
        (   IJ =:= 0
        ->  strong(J, G),
            arg(J, Low, LJ),
            arg(V, Low, LV),
            (   LJ < LV -> nb_setarg(V, Low, LJ) ; true )
        ;   arg(3, St, On),
            On /\ (1 << J) =\= 0
        ->  arg(V, Low, LV),
            (   IJ < LV -> nb_setarg(V, Low, IJ) ; true )
        ;   true
        )
    ),
    Arcs1 is Arcs /\ (Arcs - 1),
    arcs(Arcs1, V, G).

pop_component([W|Ws], V, NC, Comp, St) :-
    nb_setarg(W, Comp, NC),
    arg(3, St, On0),
    On is On0 /\ \ (1 << W),
    nb_setarg(3, St, On),
    (   W =:= V
    ->  nb_setarg(2, St, Ws)
    ;   pop_component(Ws, V, NC, Comp, St)
    ).

%   A component is good when one of its variables has a free value or
%   an arc into a good component: repeat passes to the fixpoint.
good_components(N, Ds, VarVal, ValVar, Comp, Seed, Good) :-
    good_pass(1, N, Ds, VarVal, ValVar, Comp, Seed, Good, false, Changed),
    (   Changed == true
    ->  good_components(N, Ds, VarVal, ValVar, Comp, Seed, Good)
    ;   true
    ).

good_pass(I, N, Ds, VarVal, ValVar, Comp, Seed, Good, Ch0, Ch) :-
    (   I > N
    ->  Ch = Ch0
    ;   arg(I, Comp, CI),
        arg(CI, Good, GI),
        (   GI =:= 1
        ->  Ch1 = Ch0
        ;   (   arg(I, Seed, 1)
            ->  true
            ;   arg(I, Ds, D),
                arg(I, VarVal, Val),
                Arcs is D /\ \ (1 << Val),
                reaches_good(Arcs, ValVar, Comp, Good)
            )
        ->  nb_setarg(CI, Good, 1),
            Ch1 = true
        ;   Ch1 = Ch0
        ),
        I1 is I + 1,
        good_pass(I1, N, Ds, VarVal, ValVar, Comp, Seed, Good, Ch1, Ch)
    ).

reaches_good(Arcs, ValVar, Comp, Good) :-
    Arcs =\= 0,
    W is lsb(Arcs),
    arg(W, ValVar, J),
    (   J =\= 0, arg(J, Comp, CJ), arg(CJ, Good, 1)
    ->  true
    ;   Arcs1 is Arcs /\ (Arcs - 1),
        reaches_good(Arcs1, ValVar, Comp, Good)
    ).

keep_masks(I, N, Ds, VarVal, ValVar, Comp, Good, Keep) :-
    (   I > N
    ->  Keep = []
    ;   arg(I, Ds, D),
        arg(I, VarVal, Val),
        arg(I, Comp, CI),
        Arcs is D /\ \ (1 << Val),
        unsupported(Arcs, ValVar, Comp, Good, CI, 0, Drop),
        K is D /\ \ Drop,
        Keep = [K|Keep1],
        I1 is I + 1,
        keep_masks(I1, N, Ds, VarVal, ValVar, Comp, Good, Keep1)
    ).

unsupported(0, _, _, _, _, Drop, Drop) :- !.
unsupported(Arcs, ValVar, Comp, Good, CI, Drop0, Drop) :-
    W is lsb(Arcs),
    arg(W, ValVar, J),
    (   J =:= 0
    ->  Drop1 = Drop0
    ;   arg(J, Comp, CJ),
        (   CJ =:= CI -> Drop1 = Drop0
        ;   arg(CJ, Good, 1) -> Drop1 = Drop0
        ;   Drop1 is Drop0 \/ (1 << W)
        )
    ),
    Arcs1 is Arcs /\ (Arcs - 1),
    unsupported(Arcs1, ValVar, Comp, Good, CI, Drop1, Drop).

		 /*******************************
		 *      TWO-FIELD RELATIONS     *
		 *******************************/

%!  next_to(?X, ?Y) is semidet.
%
%   X and Y (positive integers or clpfd variables) differ by exactly
%   one: |X-Y| = 1.  Propagation is complete (domain consistency): a
%   value stays in X's domain only when V-1 or V+1 is in Y's, and the
%   other way round.  clpfd states the same as a two-field
%   tuples_in/2, which walks a table of 2(N-1) pairs at every run; this
%   is two shifts of a mask.

next_to(X, Y) :-
    clpfd:make_propagator(next_to(X, Y), Prop),
    attach([X, Y], Prop),
    clpfd:trigger_once(Prop).

%!  parity_of(?X, ?P) is semidet.
%
%   P is the parity of X (a positive integer or a clpfd variable): 1
%   when X is odd, 0 when it is even.  Propagation is complete (domain
%   consistency): P keeps 1 only while X can be odd, 0 only while it
%   can be even, and X keeps only the values of P's parities.  clpfd
%   states the same as tuples_in/2 on a table of N (value, parity)
%   pairs, walked at every run and set up once per field; posting it
%   on every field of a 100 x 100 grid took seconds.

parity_of(X, P) :-
    P in 0..1,
    clpfd:make_propagator(parity_of(X, P), Prop),
    attach([X, P], Prop),
    clpfd:trigger_once(Prop).

%!  ones(+Bs, +C) is semidet.
%
%   Exactly C of the entries of Bs (0/1 integers, or clpfd variables
%   with domains within 0..1) are 1.  Propagation is complete (domain
%   consistency): with C ones decided, the open entries are 0; with C
%   ones only if every open entry is 1, they are 1; with more ones than
%   C, or too few entries left to reach C, it fails.  clpfd's
%   sum(Bs, #=, C) prunes the same, through its general linear
%   propagator, which reads each entry's bounds and coefficient at
%   every run; the parity sums run in every lookahead trial under
%   `consecutive`, and with this count instead bench/consecutive
%   test011 took 16% fewer inferences.

ones(Bs, C) :-
    clpfd:make_propagator(ones(Bs, C), Prop),
    attach(Bs, Prop),
    clpfd:trigger_once(Prop).

clpfd:run_propagator(ones(Bs, C), State) :-
    count_ones(Bs, 0, Ones, 0, Open),
    (   Open =:= 0
    ->  Ones =:= C,
        clpfd:kill(State)
    ;   Ones =:= C
    ->  clpfd:kill(State),
        all_open(Bs, 0)
    ;   Ones + Open =:= C
    ->  clpfd:kill(State),
        all_open(Bs, 1)
    ;   Ones < C,
        Ones + Open > C
    ).

count_ones([], O, O, N, N).
count_ones([B|Bs], O0, O, N0, N) :-
    (   integer(B)
    ->  O1 is O0 + B,
        count_ones(Bs, O1, O, N0, N)
    ;   N1 is N0 + 1,
        count_ones(Bs, O0, O, N1, N)
    ).

%   Killed first, so that its own bindings do not run it again; the
%   queue is off, so that none of them runs other propagators before
%   all are made.
all_open(Bs, V) :-
    queue_off,
    bind_open(Bs, V),
    queue_on.

bind_open([], _).
bind_open([B|Bs], V) :-
    (   var(B) -> B = V ; true ),
    bind_open(Bs, V).

clpfd:run_propagator(next_to(X, Y), State) :-
    mask(X, MX),
    mask(Y, MY),
    NY is MY /\ ((MX << 1) \/ (MX >> 1)),
    NX is MX /\ ((NY << 1) \/ (NY >> 1)),
    (   integer(X), integer(Y) -> clpfd:kill(State) ; true ),
    narrow_pair(X, MX, NX, Y, MY, NY).
clpfd:run_propagator(parity_of(X, P), State) :-
    mask(X, MX),
    mask(P, MP),
    odd_bits(Odd),
    (   MX /\ Odd =:= 0 -> CanOdd = 0 ; CanOdd = 2 ),
    (   MX /\ \ Odd =:= 0 -> CanEven = 0 ; CanEven = 1 ),
    NP is MP /\ (CanOdd \/ CanEven),
    (   NP /\ 2 =:= 0 -> KeepOdd = 0 ; KeepOdd = Odd ),
    (   NP /\ 1 =:= 0 -> KeepEven = 0 ; KeepEven is \ Odd ),
    NX is MX /\ (KeepOdd \/ KeepEven),
    (   integer(P) -> clpfd:kill(State) ; true ),
    narrow_pair(X, MX, NX, P, MP, NP).

%   Both narrowings are made with the queue off, so that binding one
%   does not run other propagators before the other is narrowed.
narrow_pair(X, MX, NX, Y, MY, NY) :-
    (   MX =:= NX, MY =:= NY
    ->  true
    ;   NX =\= 0,
        NY =\= 0,
        queue_off,
        narrow(X, MX, NX),
        narrow(Y, MY, NY),
        queue_on
    ).

%   Bit V set for every odd V up to 127 (N is at most 100).
odd_bits(0xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA).

		 /*******************************
		 *          BOX LINES           *
		 *******************************/

%   Chunked is K rows of K boxes (lists of entries).  M[i][j] is the
%   union of the domains where row i crosses box j.  A field where row i
%   crosses box j may take only values that, for every other box j' of
%   the band, box j' can take outside row i, and that, for every other
%   row i', row i' can take outside box j.  One pass, not to the
%   fixpoint: what a pass leaves is mostly taken by the units, whose
%   propagators its prunings wake, and they wake this one again when
%   they prune (on official test233, 113 M inferences to 102 M).
box_lines_pass(Chunked) :-
    maplist(maplist(entries_mask), Chunked, M),
    maplist(others_or, M, RowOut),        % RowOut[i][j]: row i outside box j
    transposed(M, MT),
    maplist(others_or, MT, BoxOutT),      % BoxOutT[j][i]: box j outside row i
    transposed(BoxOutT, BoxOut),
    maplist(others_and, BoxOut, ByBoxes), % over the boxes j' /= j
    transposed(RowOut, RowOutT),
    maplist(others_and, RowOutT, ByRowsT), % over the rows i' /= i
    transposed(ByRowsT, ByRows),
    restrict_rows(Chunked, M, ByBoxes, ByRows, false, _).

%   transposed(+Rows, -Columns): the columns of a matrix of K rows of
%   K entries.  (clpfd's transpose/2 is for any list of lists, and took
%   about 40% of this pass's time on official test237.)
transposed([[]|_], []) :- !.
transposed(Rows, [Column|Columns]) :-
    heads_tails(Rows, Column, Rests),
    transposed(Rests, Columns).

heads_tails([], [], []).
heads_tails([[H|T]|Rows], [H|Hs], [T|Ts]) :-
    heads_tails(Rows, Hs, Ts).

entries_mask(Entries, M) :-
    entries_mask(Entries, 0, M).

entries_mask([], M, M).
entries_mask([X|Xs], M0, M) :-
    mask(X, MX),
    M1 is M0 \/ MX,
    entries_mask(Xs, M1, M).

%   others_or(+Ms, -Os): Os[j] is the union of Ms[j'] for j' /= j;
%   others_and/2 the same for intersections.
others_or(Ms, Os) :-
    others_or(Ms, 0, Os, _).

others_or([], _, [], 0).
others_or([M|Ms], Before, [O|Os], After) :-
    Before1 is Before \/ M,
    others_or(Ms, Before1, Os, After1),
    O is Before \/ After1,
    After is After1 \/ M.

others_and(Ms, Os) :-
    others_and(Ms, -1, Os, _).

others_and([], _, [], -1).
others_and([M|Ms], Before, [O|Os], After) :-
    Before1 is Before /\ M,
    others_and(Ms, Before1, Os, After1),
    O is Before /\ After1,
    After is After1 /\ M.

restrict_rows([], [], [], [], C, C).
restrict_rows([R|Rs], [M|Ms], [A|As], [B|Bs], C0, C) :-
    restrict_boxes(R, M, A, B, C0, C1),
    restrict_rows(Rs, Ms, As, Bs, C1, C).

restrict_boxes([], [], [], [], C, C).
restrict_boxes([Entries|Es], [M|Ms], [A|As], [B|Bs], C0, C) :-
    Allow is A /\ B,
    (   M /\ \ Allow =:= 0
    ->  C1 = C0
    ;   restrict(Entries, Allow, C0, C1)
    ),
    restrict_boxes(Es, Ms, As, Bs, C1, C).

restrict([], _, C, C).
restrict([X|Xs], Allow, C0, C) :-
    (   integer(X)
    ->  Allow /\ (1 << X) =\= 0,
        C1 = C0
    ;   mask(X, M),
        New is M /\ Allow,
        (   New =:= M
        ->  C1 = C0
        ;   narrow(X, M, New),
            C1 = true
        )
    ),
    restrict(Xs, Allow, C1, C).
