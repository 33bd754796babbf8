/*  The private parts of library(clpfd) that our propagators rely on.

    sudoku_propagators.pl plugs propagators into clpfd through its
    documented extension hooks (make_propagator/2, init_propagator/2,
    trigger_once/1, run_propagator/2, kill/1).  To prune as clpfd's own
    global constraints do, it also needs four things clpfd does not
    document, and this module is the only place that touches them:

    -   queue_off/0 and queue_on/0: clpfd:disable_queue/0 and
        clpfd:enable_queue/0.
    -   set_current_propagator/1 and clear_current_propagator/0: clpfd's
        global variable '$clpfd_current_propagator'.
    -   fd_remove/2: clpfd:neq_num/2.
    -   run_queue/0: clpfd:do_queue/0.
    -   fd_restrict/2: clpfd:fd_get/3, clpfd:fd_put/3 and
        clpfd:intervals_to_domain/2.
    -   fd_domain_mask/2: the layout of clpfd's attribute,
        clpfd_attr(_,_,_,Dom,_), and of the domain Dom in it.

    Private parts change between SWI-Prolog versions, so at load time
    clpfd_internals_self_check/0 puts each of these behaviours to a tiny
    test and throws an error that names the behaviour and the
    SWI-Prolog version if the installed clpfd behaves otherwise.  It
    takes about 0.1 ms.  docs/engines.md lists the same.
*/

:- module(clpfd_internals,
          [ queue_off/0,
            queue_on/0,
            run_queue/0,
            set_current_propagator/1,
            clear_current_propagator/0,
            fd_remove/2,
            fd_restrict/2,
            fd_domain_mask/2,
            clpfd_internals_self_check/0
          ]).

:- use_module(library(apply)).
:- use_module(library(clpfd)).
:- use_module(library(lists)).

:- set_prolog_flag(optimise, true).

:- multifile clpfd:run_propagator/2.

		 /*******************************
		 *          THE QUEUE           *
		 *******************************/

%!  queue_off is det.
%!  queue_on is det.
%
%   Between queue_off and queue_on, a domain change (or a binding) of
%   a clpfd variable queues the propagators it wakes and runs none of
%   them, so a propagator's prunings do not run other propagators in
%   the middle of its own run.  queue_on does not run the queue: what
%   was queued runs once the run that turned the queue off has
%   returned to clpfd's queue loop (do_queue/0), as for clpfd's own
%   global constraints.
%
%   Relies on clpfd:disable_queue/0 and clpfd:enable_queue/0, which
%   set the backtrackable global '$clpfd_queue_status' (`disabled`,
%   `enabled`); clpfd:do_queue/0 does nothing while it is `disabled`.
%   In 9.x enable_queue/0 does NOT run the queue (some older versions
%   did, which would run other propagators before ours had finished).

queue_off :-
    clpfd:disable_queue.

queue_on :-
    clpfd:enable_queue.

		 /*******************************
		 *     THE RUNNING PROPAGATOR   *
		 *******************************/

%!  set_current_propagator(+State) is det.
%!  clear_current_propagator is det.
%
%   Between the two, changes to the domains of the variables that the
%   propagator with state State watches do not queue that propagator
%   again: a run of it goes to its own fixpoint and is not repeated for
%   its own prunings.
%
%   Relies on clpfd:trigger_prop/1 skipping the propagator whose state
%   is the value of the backtrackable global variable
%   '$clpfd_current_propagator' (`[]`: none), which clpfd sets itself
%   around the runs of its own global constraints (all_distinct/1 and
%   others, in activate_propagator/1).  There is no other way to keep a
%   propagator from queueing itself: clpfd's list of such constraints
%   (no_reactivation/1) is not multifile.

set_current_propagator(State) :-
    b_setval('$clpfd_current_propagator', State).

clear_current_propagator :-
    b_setval('$clpfd_current_propagator', []).

		 /*******************************
		 *           PRUNING            *
		 *******************************/

%!  run_queue is semidet.
%
%   Run what is queued to the fixpoint; fails if a propagator fails.
%   With queue_off/0 and queue_on/0 around the posting of a whole
%   model, every constraint is posted before any propagator runs, and
%   then each runs on domains that the others have narrowed already.
%   Posted one by one on a 100 x 100 grid, each unit's all-different
%   ran 33 times on average while the rest of the model was still
%   being posted (7.9 s); posted together and propagated once, 0.6 s.
%
%   Relies on clpfd:do_queue/0, which clpfd's own constraints call
%   after they queue their propagators.

run_queue :-
    clpfd:do_queue.

%!  fd_remove(+X, +V) is semidet.
%
%   Remove the integer V from the domain of X (a clpfd variable or an
%   integer), as a pruning, not a constraint: nothing stays posted.
%   Binds X when one value is left; fails when none is, or when X is
%   the integer V.  The propagators of X are queued (run at once if X
%   is bound while the queue is on, see queue_off/0).
%
%   Relies on clpfd:neq_num/2, which clpfd's own propagators use for
%   the same.  The public X #\= V comes to neq_num/2 in 9.0.4 (and
%   then runs the queue, which is off where we prune), but parses its
%   arguments on every call: on the official suite's hard puzzles the
%   search made 1.5-2.5% more inferences and took up to 3% more time.
%   It is the way out if neq_num/2 goes.

fd_remove(X, V) :-
    clpfd:neq_num(X, V).

%!  fd_restrict(+X, +Mask) is semidet.
%
%   The domain of the clpfd variable X becomes the values of the bit
%   mask Mask, which must be a subset of it, in one step: X is bound
%   when one value is left, and fails when none is.  The propagators
%   of X are queued as for fd_remove/2.
%
%   Relies on clpfd:fd_get/3, clpfd:fd_put/3 (which wakes the
%   propagators that the change concerns) and
%   clpfd:intervals_to_domain/2, the steps of the public X in_set S
%   without parsing S and intersecting.  Removing the values one by one
%   with fd_remove/2 rebuilds the domain tree once per value: posting
%   the model of a 81 x 81 grid made 7 million such steps.

fd_restrict(X, Mask) :-
    Mask =\= 0,
    mask_intervals(Mask, Intervals),
    clpfd:intervals_to_domain(Intervals, Dom),
    clpfd:fd_get(X, _, Ps),
    clpfd:fd_put(X, Dom, Ps).

%   The runs of set bits of a mask, lowest first, as n(L)-n(U).
mask_intervals(0, []) :- !.
mask_intervals(M, [n(L)-n(U)|Is]) :-
    L is lsb(M),
    U is L + lsb((M >> L) + 1) - 1,
    M1 is M /\ \ ((1 << (U + 1)) - 1),
    mask_intervals(M1, Is).

		 /*******************************
		 *       DOMAINS AS MASKS       *
		 *******************************/

%!  fd_domain_mask(+X, -Mask) is det.
%
%   Mask has bit V set for each value V in the domain of the clpfd
%   variable (or integer) X, whose values are positive.
%
%   Relies on clpfd's attribute being clpfd_attr(_,_,_,Dom,_), with Dom
%   built of from_to(n(L), n(U)), split(Hole, Left, Right) and `empty`.
%   The search reads a mask hundreds of thousands of times a second.
%   The public way costs two to three times as much a read: with
%   fd_set/2 and fdset_parts/4 the search took 17-19% more time on
%   seven hard puzzles (official test234: 4.9 s against 3.5 s), with
%   fd_dom/2 and its L..U \/ ... term 12-14% more.  fd_set/2 and then
%   the same walk of its term would drop the attribute but keep the
%   domain's layout (FD sets are opaque too), for 5-9% more
%   inferences.
%
%   A domain with holes is a tree of from_to/2 leaves, three to six of
%   them on most reads of bench/consecutive test011, and walking it was
%   a quarter of the search's time.  So its mask is kept beside it, in
%   an attribute of this module holding Dom-Mask, and used while Dom
%   is equal (==/2) to the domain in clpfd's attribute: a mask is a
%   function of the domain term.  clpfd puts a new domain term on each
%   change (fd_put/3) and leaves the term alone otherwise, so ==/2
%   mostly meets the very same term and answers at once.  put_attr/3 is
%   undone on backtracking, so after a lookahead trial a variable finds
%   the mask of the domain it is back to.  The attribute prunes nothing
%   and shows in no residual goal.

fd_domain_mask(X, M) :-
    (   integer(X)
    ->  M is 1 << X
    ;   get_attr(X, clpfd, clpfd_attr(_, _, _, Dom, _)),
        (   Dom = from_to(n(L), n(U))
        ->  M is (1 << (U+1)) - (1 << L)
        ;   get_attr(X, clpfd_internals, Dom0-M0),
            Dom0 == Dom
        ->  M = M0
        ;   dom_mask(Dom, M),
            put_attr(X, clpfd_internals, Dom-M)
        )
    ).

dom_mask(from_to(n(L), n(U)), M) :- !,
    M is (1 << (U+1)) - (1 << L).
dom_mask(split(_, L, R), M) :- !,
    dom_mask(L, ML),
    dom_mask(R, MR),
    M is ML \/ MR.
dom_mask(empty, 0).

%   The cached mask (see fd_domain_mask/2) says nothing about the
%   values a variable may take: binding it is always fine, and it is
%   no constraint to show.
attr_unify_hook(_, _).

attribute_goals(_) --> [].

		 /*******************************
		 *      COMPILED IN PLACE       *
		 *******************************/

%   A module that imports queue_off/0, queue_on/0,
%   set_current_propagator/1, clear_current_propagator/0 or fd_remove/2
%   gets the body of the predicate's one clause compiled in place of a
%   call to it (a goal_expansion/2 hook, as library(clpfd) has for its
%   own constraints).  The search calls them millions of times: as calls
%   they cost 2% more inferences on the official suite's hard puzzles
%   (test234: 59.1 million against 58.0 million).  Taking the clause
%   itself keeps the two from ever differing.

:- multifile system:goal_expansion/2.
:- dynamic system:goal_expansion/2.

system:goal_expansion(Goal, clpfd_internals:Body) :-
    nonvar(Goal),
    compiled_in_place(Goal),
    prolog_load_context(module, M),
    M \== clpfd_internals,
    predicate_property(M:Goal, imported_from(clpfd_internals)),
    clause(clpfd_internals:Goal, Body).

compiled_in_place(queue_off).
compiled_in_place(queue_on).
compiled_in_place(set_current_propagator(_)).
compiled_in_place(clear_current_propagator).
compiled_in_place(fd_remove(_, _)).

		 /*******************************
		 *          SELF-CHECK          *
		 *******************************/

%!  clpfd_internals_self_check is det.
%
%   Puts each behaviour above to a test on a tiny example, leaving no
%   trace (bindings, attributes, queued propagators).  Throws
%   error(clpfd_internal_changed(Predicate, Behaviour, Version), _)
%   when the installed library(clpfd) behaves otherwise: Predicate is
%   the predicate of this module that relies on it, Behaviour says
%   what it relies on, Version is SWI-Prolog's (e.g. '9.0.4').

clpfd_internals_self_check :-
    expect(clpfd_internals_self_check/0,
           'its examples post and run',
           \+ \+ ( check_masks,
                   check_remove,
                   check_restrict,
                   check_queue,
                   check_run_queue,
                   check_current_propagator
                 )).

%   fd_domain_mask/2 agrees with the public fd_set/2 and fdset_to_list/2
%   on domains of each shape: an interval, holes made by in/2 and by
%   removals, and an integer.
check_masks :-
    forall(member(Dom, [1..9, 1..3\/5..6\/9, 2\/4\/6\/8, 30..33]),
           ( X in Dom, mask_agrees(X) )),
    Y in 1..9,
    Y #\= 1, Y #\= 5, Y #\= 9,
    mask_agrees(Y),
    mask_agrees(7).

mask_agrees(X) :-
    fd_set(X, Set),
    fdset_to_list(Set, Vs),
    foldl(set_bit, Vs, 0, Mask),
    expect(fd_domain_mask/2,
           'clpfd_attr(_,_,_,Dom,_) holds the domain Dom as a tree of \c
            from_to/2, split/3 and empty',
           fd_domain_mask(X, Mask)).

set_bit(V, M0, M) :- M is M0 \/ (1 << V).

check_remove :-
    X in 1..5,
    expect(fd_remove/2, 'neq_num/2 removes exactly the value V',
           ( fd_remove(X, 3), fd_dom(X, D), D == 1..2\/4..5 )),
    expect(fd_remove/2, 'neq_num/2 posts no constraint',
           fd_degree(X, 0)),
    Y in 1..2,
    expect(fd_remove/2, 'neq_num/2 binds X when one value is left',
           ( fd_remove(Y, 1), Y == 2 )),
    expect(fd_remove/2,
           'neq_num/2 fails on the integer V, succeeds on another',
           ( \+ fd_remove(3, 3), fd_remove(3, 4) )).

check_restrict :-
    X in 1..9,
    expect(fd_restrict/2, 'fd_put/3 of intervals_to_domain/2 gives the \c
            domain of the mask',
           ( fd_restrict(X, 0b1001101100), fd_dom(X, D),
             D == 2..3\/5..6\/9 )),
    Y in 1..5,
    Z #= Y + 1,
    expect(fd_restrict/2, 'fd_put/3 binds X to a single value and wakes \c
            its propagators',
           ( fd_restrict(Y, 0b10000), Y == 4, Z == 5 )),
    W in 1..3,
    expect(fd_restrict/2, 'an empty mask fails',
           \+ fd_restrict(W, 0)).

%   A probe propagator turns the queue off, prunes X, which wakes the
%   clpfd constraint Y #>= X, and checks that the constraint runs
%   neither at the pruning nor at queue_on, but once the probe's run
%   has returned.
check_queue :-
    X in 1..3,
    Y in 1..3,
    Y #>= X,
    clpfd:make_propagator(clpfd_internals_queue_probe(X, Y), Probe),
    clpfd:trigger_once(Probe),
    expect(queue_on/0,
           'what was queued while the queue was off runs once the \c
            propagator that turned it off has returned',
           Y == 3).

clpfd:run_propagator(clpfd_internals_queue_probe(X, Y), State) :-
    clpfd:kill(State),
    queue_off,
    expect(fd_remove/2, 'neq_num/2 removes exactly the value V',
           ( fd_remove(X, 1), fd_remove(X, 2), X == 3 )),
    expect(queue_off/0,
           'disable_queue/0 holds back the propagators woken by a \c
            pruning or a binding until enable_queue/0',
           fd_dom(Y, 1..3)),
    queue_on,
    expect(queue_on/0,
           'enable_queue/0 does not run the queue (older versions did)',
           fd_dom(Y, 1..3)).

%   Constraints posted with the queue off wait for run_queue/0.
check_run_queue :-
    X in 1..5,
    Y in 1..5,
    queue_off,
    Y #> X,
    X #> 3,
    queue_on,
    expect(run_queue/0,
           'do_queue/0 runs the propagators queued while the queue was \c
            off, to the fixpoint',
           ( run_queue, X == 4, Y == 5 )).

%   A probe propagator on X prunes X on its first run, with itself set
%   as the current propagator: that must not queue it again, and once
%   it is cleared, a change to X must.
check_current_propagator :-
    X in 1..5,
    Runs = runs(0),
    clpfd:make_propagator(clpfd_internals_self_probe(X, Runs), Probe),
    clpfd:init_propagator(X, Probe),
    clpfd:trigger_once(Probe),
    expect(set_current_propagator/1,
           'a propagator set as \'$clpfd_current_propagator\' is not \c
            queued again by its own prunings',
           Runs == runs(1)),
    X #\= 3,
    expect(clear_current_propagator/0,
           'once \'$clpfd_current_propagator\' is [], a change to a \c
            variable queues its propagators again',
           Runs == runs(2)).

clpfd:run_propagator(clpfd_internals_self_probe(X, Runs), State) :-
    arg(1, Runs, N0),
    N is N0 + 1,
    setarg(1, Runs, N),
    (   N =:= 1
    ->  set_current_propagator(State),
        queue_off,
        fd_remove(X, 5),
        queue_on,
        clear_current_propagator
    ;   true
    ).

%   expect(+Predicate, +Behaviour, :Goal): Goal succeeds, else throw the
%   error that names the behaviour.  An exception of Goal is one too,
%   unless it is such an error already (of an expect/3 inside Goal).
expect(Predicate, Behaviour, Goal) :-
    (   catch(Goal, E, true)
    ->  (   var(E)
        ->  true
        ;   E = error(clpfd_internal_changed(_, _, _), _)
        ->  throw(E)
        ;   changed(Predicate, Behaviour-E)
        )
    ;   changed(Predicate, Behaviour)
    ).

changed(Predicate, Behaviour) :-
    current_prolog_flag(version_data, swi(Major, Minor, Patch, _)),
    format(atom(Version), '~w.~w.~w', [Major, Minor, Patch]),
    throw(error(clpfd_internal_changed(Predicate, Behaviour, Version),
                _)).

:- multifile prolog:error_message//1.

prolog:error_message(clpfd_internal_changed(Predicate, Behaviour,
                                            Version)) -->
    [ 'library(clpfd) of SWI-Prolog ~w does not behave as '-[Version],
      'prolog/clpfd_internals.pl relies on.', nl,
      '    ~q: '-[Predicate]
    ],
    behaviour(Behaviour),
    [ nl, 'The sudoku propagators cannot be trusted with it: ',
      'adapt clpfd_internals.pl to this version.'
    ].

behaviour(Behaviour-E) -->
    !,
    [ '~w (it raised ~q)'-[Behaviour, E] ].
behaviour(Behaviour) -->
    [ '~w'-[Behaviour] ].

:- initialization(clpfd_internals_self_check, now).
