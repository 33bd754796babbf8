/*  library(clpfd) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    The module's export list names the predicates SICStus documents for
    library(clpfd) that plpuzzle provides (prolog/sicstus/documented.pl
    lists the others).  Re-exported from SWI's library(clpfd), which
    behaves as SICStus documents for them: the arithmetic and
    propositional constraints (#<=>, #=> and #<= are SWI's #<==>, #==>
    and #<==), sum/3, scalar_product/4, all_different/1,
    all_distinct/1, element/3, global_cardinality/2, circuit/1,
    lex_chain/1, automaton/3, indomain/1, fd_var/1, fd_size/2,
    fd_degree/2, and fd_min/2 and fd_max/2 (SWI's fd_inf/2, fd_sup/2).

    Defined here, as SICStus documents them:

      - labeling/2 with every option of SICStus 4, among them value/1,
        variable/1, discrepancy/1, assumptions/1 and time_out/2, with
        first_bound/2 and later_bound/2 for value/1 predicates;
        minimize/2,3 and maximize/2,3;
      - FD sets in SICStus' form, a list [[Min|Max], ...] of disjoint,
        non-adjacent intervals in ascending order (Min and Max integers,
        inf or sup): fd_set/2, in_set/2, is_fdset/1, empty_fdset/1,
        fdset_parts/4, empty_interval/2, fdset_interval/3,
        fdset_singleton/2, fdset_min/2, fdset_max/2, fdset_size/2,
        list_to_fdset/2, fdset_to_list/2, range_to_fdset/2,
        fdset_to_range/2, fdset_add_element/3, fdset_del_element/3,
        fdset_disjoint/2, fdset_intersect/2, fdset_intersection/2,3,
        fdset_member/2, fdset_eq/2, fdset_subset/2, fdset_subtract/3,
        fdset_union/2,3, fdset_complement/2;
      - fd_dom/2, which gives a ConstantRange as SICStus writes it
        (`1..3\/{5}`, where SWI gives 1..3\/5), and in/2, which also
        takes the ConstantRanges SWI rejects ({1,3}, R1/\R2, \R);
      - domain/3, table/2,3 (whose tuples may hold ranges),
        scalar_product/5, global_cardinality/3, all_different/2,
        all_distinct/2, count/4, relation/3, minimum/2, maximum/2,
        nvalue/2, bool_and/2, bool_or/2, bool_xor/2, bool_channel/4,
        assignment/2,3, circuit/2, lex_chain/2, sorting/3,
        cumulative/1,2, disjoint1/1,2, disjoint2/1,2 and bin_packing/2,
        by decomposition or by SWI's constraint of the same meaning.
        Options that only choose how hard a constraint propagates are
        accepted and ignored; options that change its meaning and are
        not supported raise a domain error.

    The rest of SWI's library(clpfd) (label/1, ins/2, transpose/2,
    tuples_in/2, ...) is re-exported too, as SWI's own SICStus
    emulation does, for solvers that use it.  Propagation strength,
    the order of answers of SWI's constraints and fd_degree/2 counts
    are SWI's.
*/

:- module(sicstus_lib_clpfd,
          [ op(760, yfx, #<=>),
            op(750, xfy, #=>),
            op(750, yfx, #<=),
            op(700, xfx, in_set),
            (#=)/2, (#\=)/2, (#<)/2, (#=<)/2, (#>)/2, (#>=)/2,
            (#\)/1, (#/\)/2, (#\)/2, (#\/)/2, (#=>)/2, (#<=)/2,
            (#<=>)/2,
            sum/3, scalar_product/4, scalar_product/5,
            domain/3, (in)/2, (in_set)/2,
            count/4, global_cardinality/2, global_cardinality/3,
            all_different/1, all_different/2, all_distinct/1,
            all_distinct/2, nvalue/2, assignment/2, assignment/3,
            sorting/3, lex_chain/1, lex_chain/2, element/3,
            minimum/2, maximum/2, relation/3, (table)/2, (table)/3,
            circuit/1, circuit/2, bool_and/2, bool_or/2, bool_xor/2,
            bool_channel/4, cumulative/1, cumulative/2,
            disjoint1/1, disjoint1/2, disjoint2/1, disjoint2/2,
            bin_packing/2, automaton/3,
            indomain/1, labeling/2, first_bound/2, later_bound/2,
            minimize/2, minimize/3, maximize/2, maximize/3,
            fd_var/1, fd_min/2, fd_max/2, fd_size/2, fd_set/2,
            fd_dom/2, fd_degree/2,
            is_fdset/1, empty_fdset/1, fdset_parts/4, empty_interval/2,
            fdset_interval/3, fdset_singleton/2, fdset_min/2,
            fdset_max/2, fdset_size/2, list_to_fdset/2,
            fdset_to_list/2, range_to_fdset/2, fdset_to_range/2,
            fdset_add_element/3, fdset_del_element/3,
            fdset_disjoint/2, fdset_intersect/2,
            fdset_intersection/3, fdset_intersection/2,
            fdset_member/2, fdset_eq/2, fdset_subset/2,
            fdset_subtract/3, fdset_union/3, fdset_union/2,
            fdset_complement/2
          ]).

:- set_module(base(system)).

%   SWI's library(clpfd): what is not defined here is re-exported, the
%   SICStus names of its reification operators and bounds included.
:- reexport(library(clpfd),
            except([ labeling/2, fd_dom/2, fd_set/2, (in_set)/2, (in)/2,
                     global_cardinality/3, cumulative/1, cumulative/2,
                     disjoint2/1, lex_chain/1,
                     is_fdset/1, empty_fdset/1, fdset_parts/4,
                     empty_interval/2, fdset_interval/3,
                     fdset_singleton/2, fdset_min/2, fdset_max/2,
                     fdset_size/2, list_to_fdset/2, fdset_to_list/2,
                     range_to_fdset/2, fdset_to_range/2,
                     fdset_add_element/3, fdset_del_element/3,
                     fdset_disjoint/2, fdset_intersect/2,
                     fdset_intersection/3, fdset_member/2, fdset_eq/2,
                     fdset_subset/2, fdset_subtract/3, fdset_union/3,
                     fdset_union/2, fdset_complement/2
                   ])).
:- reexport(library(clpfd),
            [ (#<==>)/2 as (#<=>),
              (#==>)/2 as (#=>),
              (#<==)/2 as (#<=),
              fd_inf/2 as fd_min,
              fd_sup/2 as fd_max,
              lex_chain/1
            ]).
:- use_module(library(apply),
              [maplist/2, maplist/3, maplist/4, foldl/4, foldl/5,
               include/3, exclude/3]).
:- use_module(library(lists),
              [append/3, reverse/2, nth0/3, nth1/3, numlist/3, last/2,
               sum_list/2, max_list/2, member/2]).
:- use_module(library(error),
              [ must_be/2, domain_error/2, instantiation_error/1,
                type_error/2
              ]).

:- meta_predicate
    labeling(:, +),
    minimize(0, ?),
    minimize(0, ?, +),
    maximize(0, ?),
    maximize(0, ?, +).


                 /*******************************
                 *          MEMBERSHIP          *
                 *******************************/

%!  domain(+Vars, +Min, +Max) is semidet.
%
%   Every element of Vars is in Min..Max (inf and sup allowed).

domain(Vars, Min, Max) :-
    must_be(list, Vars),
    Vars ins Min..Max.

%!  in(?X, +ConstantRange) is semidet.
%
%   X is in the ConstantRange: an integer, Min..Max, {I1,...,In},
%   R1\/R2, R1/\R2 or \R.

X in Range :-
    (   swi_range(Range)
    ->  clpfd:(X in Range)
    ;   range_to_fdset(Range, Set),
        X in_set Set
    ).

%   Ranges SWI's in/2 reads as SICStus does.
swi_range(R) :- var(R), !, fail.
swi_range(N) :- integer(N), !.
swi_range(A..B) :- !, bound(A), bound(B).
swi_range(A \/ B) :- swi_range(A), swi_range(B).

bound(B) :- integer(B), !.
bound(inf).
bound(sup).

%!  in_set(?X, +Set) is semidet.
%
%   X is in the FD set Set.

X in_set Set :-
    must_be_fdset(Set),
    (   fdset_swi(Set, Dom)
    ->  clpfd:(X in Dom)
    ;   fail                            % the empty set
    ).

%   fdset_swi(+Set, -Dom): the SWI domain of a non-empty FD set.
fdset_swi([[L|H]|Is], Dom) :-
    foldl(swi_union, Is, L..H, Dom).

swi_union([L|H], D, D \/ L..H).


                 /*******************************
                 *          REFLECTION          *
                 *******************************/

%!  fd_set(?X, -Set) is det.
%
%   Set is the FD set of the domain of X (an integer or a domain
%   variable).

fd_set(X, Set) :-
    (   integer(X)
    ->  Set = [[X|X]]
    ;   var(X)
    ->  clpfd:fd_dom(X, Dom),
        phrase(swi_intervals(Dom), Is0),
        msort(Is0, Is1),
        from_numeric(Is1, Set)
    ;   type_error(integer, X)
    ).

swi_intervals(D1 \/ D2) --> !,
    swi_intervals(D1),
    swi_intervals(D2).
swi_intervals(From..To) --> !,
    { numeric(From, L), numeric(To, H) },
    [L-H].
swi_intervals(N) -->
    [N-N].

%!  fd_dom(?X, -Range) is det.
%
%   Range is the domain of X as a ConstantRange, as SICStus writes it:
%   intervals Min..Max and singletons {N}, joined with \/.

fd_dom(X, Range) :-
    fd_set(X, Set),
    fdset_to_range(Set, Range).


                 /*******************************
                 *            FD SETS           *
                 *******************************/

%   FD sets are computed on numeric intervals L-H, inf and sup being
%   the floats -inf and inf, in ascending order, disjoint and not
%   adjacent.

numeric(inf, L) :- !, L is -inf.
numeric(sup, H) :- !, H is inf.
numeric(N, N).

bound_of(N, B) :-
    (   float(N)
    ->  (   N < 0 -> B = inf ; B = sup )
    ;   B = N
    ).

to_numeric([], []).
to_numeric([[L0|H0]|Is0], [L-H|Is]) :-
    numeric(L0, L),
    numeric(H0, H),
    to_numeric(Is0, Is).

from_numeric([], []).
from_numeric([L0-H0|Is0], [[L|H]|Is]) :-
    bound_of(L0, L),
    bound_of(H0, H),
    from_numeric(Is0, Is).

must_be_fdset(Set) :-
    (   is_fdset(Set)
    ->  true
    ;   var(Set)
    ->  instantiation_error(Set)
    ;   type_error(fdset, Set)
    ).

set_numeric(Set, Is) :-
    must_be_fdset(Set),
    to_numeric(Set, Is).

%   normalize(+Intervals0, -Intervals): sorted and merged.
normalize(Is0, Is) :-
    exclude(empty_numeric, Is0, Is1),
    msort(Is1, Is2),
    merge_intervals(Is2, Is).

empty_numeric(L-H) :- L > H.

merge_intervals([], []).
merge_intervals([I], [I]) :- !.
merge_intervals([L1-H1, L2-H2|Is0], Is) :-
    (   next_n(H1, N1),
        L2 =< N1
    ->  H is max(H1, H2),
        merge_intervals([L1-H|Is0], Is)
    ;   Is = [L1-H1|Is1],
        merge_intervals([L2-H2|Is0], Is1)
    ).

n_union(As, Bs, Cs) :-
    append(As, Bs, Is),
    normalize(Is, Cs).

n_intersection([], _, []) :- !.
n_intersection(_, [], []) :- !.
n_intersection([L1-H1|As], [L2-H2|Bs], Cs) :-
    L is max(L1, L2),
    H is min(H1, H2),
    (   L =< H
    ->  Cs = [L-H|Cs1]
    ;   Cs = Cs1
    ),
    (   H1 < H2
    ->  n_intersection(As, [L2-H2|Bs], Cs1)
    ;   n_intersection([L1-H1|As], Bs, Cs1)
    ).

n_complement(Is, Cs) :-
    Inf is -inf,
    n_complement(Is, Inf, Cs).

n_complement([], From, Cs) :-
    (   From =:= inf
    ->  Cs = []
    ;   Sup is inf,
        Cs = [From-Sup]
    ).
n_complement([L-H|Is], From, Cs) :-
    (   From < L
    ->  prev_n(L, To),
        Cs = [From-To|Cs1]
    ;   Cs = Cs1
    ),
    next_n(H, Next),
    n_complement(Is, Next, Cs1).

%   The numbers next to N (inf and -inf have none but themselves).
next_n(N, M) :-
    (   float(N) -> M = N ; M is N + 1 ).

prev_n(N, M) :-
    (   float(N) -> M = N ; M is N - 1 ).

n_subtract(As, Bs, Cs) :-
    n_complement(Bs, Ns),
    n_intersection(As, Ns, Cs).

%!  is_fdset(@Set) is semidet.

is_fdset(Set) :-
    is_list(Set),
    maplist(fd_interval, Set),
    to_numeric(Set, Is),
    canonical(Is).

fd_interval(I) :-
    nonvar(I),
    I = [L|H],
    nonvar(L), nonvar(H),
    bound(L), bound(H),
    L \== sup, H \== inf.

canonical([]).
canonical([L-H|Is]) :-
    L =< H,
    canonical(Is, H).

canonical([], _).
canonical([L-H|Is], H0) :-
    next_n(H0, N0),
    L > N0,
    L =< H,
    canonical(Is, H).

%!  empty_fdset(?Set) is semidet.

empty_fdset([]).

%!  fdset_parts(?Set, ?Min, ?Max, ?Rest) is semidet.

fdset_parts(Set, Min, Max, Rest) :-
    (   nonvar(Set)
    ->  must_be_fdset(Set),
        Set = [[Min|Max]|Rest]
    ;   Set = [[Min|Max]|Rest],
        must_be_fdset(Set)
    ).

%!  empty_interval(+Min, +Max) is semidet.

empty_interval(Min, Max) :-
    must_be_bound(Min),
    must_be_bound(Max),
    numeric(Min, L),
    numeric(Max, H),
    (   L > H
    ->  true
    ;   Min == sup
    ->  true
    ;   Max == inf
    ).

must_be_bound(B) :-
    (   bound(B)
    ->  true
    ;   var(B)
    ->  instantiation_error(B)
    ;   type_error(bound, B)
    ).

%!  fdset_interval(?Set, ?Min, ?Max) is semidet.

fdset_interval(Set, Min, Max) :-
    (   nonvar(Set)
    ->  must_be_fdset(Set),
        Set = [[Min|Max]]
    ;   \+ empty_interval(Min, Max),
        Set = [[Min|Max]]
    ).

%!  fdset_singleton(?Set, ?Elt) is semidet.

fdset_singleton(Set, Elt) :-
    (   nonvar(Set)
    ->  must_be_fdset(Set),
        Set = [[Elt|Elt]],
        integer(Elt)
    ;   must_be(integer, Elt),
        Set = [[Elt|Elt]]
    ).

%!  fdset_min(+Set, -Min) is semidet.
%!  fdset_max(+Set, -Max) is semidet.
%
%   Fail for the empty set.

fdset_min(Set, Min) :-
    must_be_fdset(Set),
    Set = [[Min|_]|_].

fdset_max(Set, Max) :-
    must_be_fdset(Set),
    last(Set, [_|Max]).

%!  fdset_size(+Set, -Size) is det.
%
%   Size is the number of elements of Set, or sup if it is infinite.

fdset_size(Set, Size) :-
    set_numeric(Set, Is),
    foldl(add_size, Is, 0, Size0),
    (   float(Size0)
    ->  Size = sup
    ;   Size = Size0
    ).

add_size(L-H, S0, S) :-
    (   ( float(L) ; float(H) ; float(S0) )
    ->  S is inf
    ;   S is S0 + H - L + 1
    ).

%!  list_to_fdset(+List, -Set) is det.

list_to_fdset(List, Set) :-
    must_be(list(integer), List),
    findall(N-N, member(N, List), Is0),
    normalize(Is0, Is),
    from_numeric(Is, Set).

%!  fdset_to_list(+Set, -List) is det.
%
%   List is the ordered list of the elements of the finite Set.

fdset_to_list(Set, List) :-
    fdset_size(Set, Size),
    (   Size == sup
    ->  domain_error(finite_fdset, Set)
    ;   foldl(interval_list, Set, List, [])
    ).

interval_list([L|H], List0, List) :-
    numlist(L, H, Ns),
    append(Ns, List, List0).

%!  range_to_fdset(+Range, -Set) is det.
%
%   Set is the FD set of the ConstantRange Range.

range_to_fdset(Range, Set) :-
    range_numeric(Range, Is),
    from_numeric(Is, Set).

range_numeric(R, _) :-
    var(R), !,
    instantiation_error(R).
range_numeric(N, [N-N]) :-
    integer(N), !.
range_numeric({}, []) :- !.
range_numeric({Ns}, Is) :- !,
    comma_list(Ns, List),
    must_be(list(integer), List),
    findall(N-N, member(N, List), Is0),
    normalize(Is0, Is).
range_numeric(Min..Max, Is) :- !,
    must_be_bound(Min),
    must_be_bound(Max),
    numeric(Min, L),
    numeric(Max, H),
    normalize([L-H], Is).
range_numeric(R1 \/ R2, Is) :- !,
    range_numeric(R1, Is1),
    range_numeric(R2, Is2),
    n_union(Is1, Is2, Is).
range_numeric(R1 /\ R2, Is) :- !,
    range_numeric(R1, Is1),
    range_numeric(R2, Is2),
    n_intersection(Is1, Is2, Is).
range_numeric(\ R, Is) :- !,
    range_numeric(R, Is1),
    n_complement(Is1, Is).
range_numeric(R, _) :-
    type_error(constant_range, R).

comma_list((A, B), [A|Bs]) :- !,
    comma_list(B, Bs).
comma_list(A, [A]).

%!  fdset_to_range(+Set, -Range) is det.
%
%   Range is a ConstantRange for Set: Min..Max and {N} joined with \/,
%   and 1..0 for the empty set.

fdset_to_range(Set, Range) :-
    must_be_fdset(Set),
    (   Set = [I|Is]
    ->  interval_range(I, R0),
        foldl(range_union, Is, R0, Range)
    ;   Range = 1..0
    ).

interval_range([L|H], R) :-
    (   L == H
    ->  R = {L}
    ;   R = L..H
    ).

range_union(I, R0, R0 \/ R) :-
    interval_range(I, R).

%!  fdset_add_element(+Set1, +Elt, -Set2) is det.
%!  fdset_del_element(+Set1, +Elt, -Set2) is det.

fdset_add_element(Set1, Elt, Set2) :-
    must_be(integer, Elt),
    fdset_union(Set1, [[Elt|Elt]], Set2).

fdset_del_element(Set1, Elt, Set2) :-
    must_be(integer, Elt),
    fdset_subtract(Set1, [[Elt|Elt]], Set2).

%!  fdset_disjoint(+Set1, +Set2) is semidet.
%!  fdset_intersect(+Set1, +Set2) is semidet.

fdset_disjoint(Set1, Set2) :-
    fdset_intersection(Set1, Set2, []).

fdset_intersect(Set1, Set2) :-
    fdset_intersection(Set1, Set2, [_|_]).

%!  fdset_intersection(+Set1, +Set2, -Set) is det.
%!  fdset_intersection(+Sets, -Set) is det.
%
%   The intersection of a list of sets: of no sets, inf..sup.

fdset_intersection(Set1, Set2, Set) :-
    set_numeric(Set1, Is1),
    set_numeric(Set2, Is2),
    n_intersection(Is1, Is2, Is),
    from_numeric(Is, Set).

fdset_intersection(Sets, Set) :-
    must_be(list, Sets),
    foldl(intersection_, Sets, [[inf|sup]], Set).

intersection_(S, Acc, Set) :-
    fdset_intersection(Acc, S, Set).

%!  fdset_member(?Elt, +Set) is nondet.
%
%   Elt is an element of Set; enumerated in ascending order if Elt is
%   unbound (Set must then be finite).

fdset_member(Elt, Set) :-
    must_be_fdset(Set),
    (   integer(Elt)
    ->  set_numeric(Set, Is),
        member(L-H, Is),
        Elt >= L, Elt =< H, !
    ;   var(Elt)
    ->  fdset_to_list(Set, List),
        member(Elt, List)
    ;   type_error(integer, Elt)
    ).

%!  fdset_eq(+Set1, +Set2) is semidet.
%!  fdset_subset(+Set1, +Set2) is semidet.

fdset_eq(Set1, Set2) :-
    must_be_fdset(Set1),
    must_be_fdset(Set2),
    Set1 == Set2.

fdset_subset(Set1, Set2) :-
    fdset_subtract(Set1, Set2, []).

%!  fdset_subtract(+Set1, +Set2, -Set) is det.
%!  fdset_union(+Set1, +Set2, -Set) is det.
%!  fdset_union(+Sets, -Set) is det.
%!  fdset_complement(+Set, -Complement) is det.

fdset_subtract(Set1, Set2, Set) :-
    set_numeric(Set1, Is1),
    set_numeric(Set2, Is2),
    n_subtract(Is1, Is2, Is),
    from_numeric(Is, Set).

fdset_union(Set1, Set2, Set) :-
    set_numeric(Set1, Is1),
    set_numeric(Set2, Is2),
    n_union(Is1, Is2, Is),
    from_numeric(Is, Set).

fdset_union(Sets, Set) :-
    must_be(list, Sets),
    foldl(union_, Sets, [], Set).

union_(S, Acc, Set) :-
    fdset_union(Acc, S, Set).

fdset_complement(Set, Complement) :-
    set_numeric(Set, Is),
    n_complement(Is, Cs),
    from_numeric(Cs, Complement).


                 /*******************************
                 *     ARITHMETIC, COUNTING     *
                 *******************************/

%!  scalar_product(+Coeffs, +Vars, +RelOp, ?Value, +Options) is semidet.
%
%   As scalar_product/4; the options (consistency/1, among/3) only
%   choose how hard it propagates.

scalar_product(Coeffs, Vars, RelOp, Value, Options) :-
    must_be(list, Options),
    scalar_product(Coeffs, Vars, RelOp, Value).

%!  all_different(+Vars, +Options) is semidet.
%!  all_distinct(+Vars, +Options) is semidet.
%
%   Every element of Vars differs from the others.  The SICStus
%   options on(dom|min|max|minmax|val) and
%   consistency(global|bound|local) only choose how hard this is
%   propagated: consistency(local) gives SWI's all_different/1,
%   the others its all_distinct/1.  Without consistency/1,
%   all_different/2 propagates like all_different/1 and
%   all_distinct/2 like all_distinct/1.

all_different(Vars, Options) :-
    distinct(Options, local, Vars).

all_distinct(Vars, Options) :-
    distinct(Options, global, Vars).

distinct(Options, Default, Vars) :-
    must_be(list, Options),
    foldl(distinct_option, Options, Default, Consistency),
    (   Consistency == local
    ->  clpfd:all_different(Vars)
    ;   clpfd:all_distinct(Vars)
    ).

distinct_option(O, _, _) :-
    var(O), !,
    instantiation_error(O).
distinct_option(consistency(C), _, C) :-
    memberchk(C, [global, bound, local]), !.
distinct_option(on(On), C, C) :-
    memberchk(On, [dom, min, max, minmax, val]), !.
distinct_option(O, _, _) :-
    domain_error(all_different_option, O).

%!  count(+Value, +Vars, +RelOp, ?Count) is semidet.
%
%   The number N of elements of Vars equal to the integer Value
%   satisfies `N RelOp Count`, where RelOp is one of #=, #\=, #<,
%   #>, #=<, #>=.

count(Value, Vars, RelOp, Count) :-
    must_be(integer, Value),
    must_be(list, Vars),
    maplist(equals_reified(Value), Vars, Bs),
    sum(Bs, RelOp, Count).

equals_reified(Value, X, B) :-
    B #<==> (X #= Value).

%!  global_cardinality(+Vars, +Vals, +Options) is semidet.
%
%   As global_cardinality/2; consistency/1 is accepted and ignored,
%   cost/2 is SWI's.

global_cardinality(Vars, Vals, Options) :-
    must_be(list, Options),
    exclude(consistency_option, Options, Options1),
    clpfd:global_cardinality(Vars, Vals, Options1).

consistency_option(consistency(_)).

%!  nvalue(?N, +Vars) is semidet.
%
%   N is the number of distinct values taken by Vars.  The domains of
%   Vars must be finite.

nvalue(N, Vars) :-
    must_be(list, Vars),
    maplist(fd_set, Vars, Sets),
    fdset_union(Sets, Union),
    fdset_to_list(Union, Values),
    maplist(value_taken(Vars), Values, Bs),
    sum(Bs, #=, N).

value_taken(Vars, Value, B) :-
    foldl(or_equals(Value), Vars, 0, Taken),
    B #<==> Taken.

or_equals(Value, X, E0, E0 #\/ (X #= Value)).

%!  relation(?X, +MapList, ?Y) is semidet.
%
%   MapList is a list of Key-ConstantRange pairs with distinct integer
%   keys; the pair X-R is in it and Y is in the range R.  Ranges must
%   be finite.

relation(X, MapList, Y) :-
    must_be(list, MapList),
    foldl(relation_pairs, MapList, Pairs, []),
    tuples_in([[X, Y]], Pairs).

relation_pairs(Pair, Pairs0, Pairs) :-
    (   nonvar(Pair), Pair = Key-Range
    ->  must_be(integer, Key),
        range_values(Range, Values),
        foldl(relation_pair(Key), Values, Pairs0, Pairs)
    ;   type_error(pair, Pair)
    ).

relation_pair(Key, Value, [[Key, Value]|Pairs], Pairs).

range_values(Range, Values) :-
    range_to_fdset(Range, Set),
    (   fdset_size(Set, sup)
    ->  domain_error(finite_range, Range)
    ;   fdset_to_list(Set, Values)
    ).

%!  table(+Tuples, +Extension) is semidet.
%!  table(+Tuples, +Extension, +Options) is semidet.
%
%   Every tuple of Tuples is one of Extension, whose elements are
%   integers or finite ConstantRanges.  The options (order/1,
%   method/1, consistency/1) only choose how it propagates.

table(Tuples, Extension) :-
    table(Tuples, Extension, []).

table(Tuples, Extension, Options) :-
    must_be(list, Options),
    must_be(list, Extension),
    foldl(expand_tuple, Extension, Rows, []),
    tuples_in(Tuples, Rows).

expand_tuple(Tuple, Rows0, Rows) :-
    must_be(list, Tuple),
    (   maplist(integer, Tuple)
    ->  Rows0 = [Tuple|Rows]
    ;   maplist(range_values, Tuple, Choices),
        findall(Row, maplist(member, Row, Choices), New),
        append(New, Rows, Rows0)
    ).

%!  minimum(?Value, +Vars) is semidet.
%!  maximum(?Value, +Vars) is semidet.
%
%   Value is the least (greatest) element of the non-empty list Vars.

minimum(Value, Vars) :-
    extremum(min, Value, Vars).

maximum(Value, Vars) :-
    extremum(max, Value, Vars).

extremum(Op, Value, Vars) :-
    must_be(list, Vars),
    (   Vars = [X|Xs]
    ->  foldl(extremum_expr(Op), Xs, X, Expr),
        Value #= Expr
    ;   domain_error(non_empty_list, Vars)
    ).

extremum_expr(Op, X, Expr0, Expr) :-
    Expr =.. [Op, Expr0, X].


                 /*******************************
                 *           BOOLEANS           *
                 *******************************/

%   A literal is a 0/1 variable X or its negation #\ X; lit_expr/2
%   gives its value as an arithmetic expression.

lit_expr(L, E) :-
    (   nonvar(L), L = (#\ X)
    ->  X in 0..1,
        E = 1 - X
    ;   L in 0..1,
        E = L
    ).

%!  bool_and(+Lits, +Lit) is semidet.
%!  bool_or(+Lits, +Lit) is semidet.
%!  bool_xor(+Lits, +Lit) is semidet.
%
%   Lit is the conjunction, disjunction or exclusive or of Lits.

bool_and(Lits, Lit) :-
    bool_sum(Lits, Sum, N),
    lit_expr(Lit, E),
    B #<==> (Sum #= N),
    E #= B.

bool_or(Lits, Lit) :-
    bool_sum(Lits, Sum, _),
    lit_expr(Lit, E),
    B #<==> (Sum #>= 1),
    E #= B.

bool_xor(Lits, Lit) :-
    bool_sum(Lits, Sum, _),
    lit_expr(Lit, E),
    E #= Sum mod 2.

bool_sum(Lits, Sum, N) :-
    must_be(list, Lits),
    length(Lits, N),
    maplist(lit_expr, Lits, Es),
    foldl(plus_expr, Es, 0, Sum).

plus_expr(E, S0, S0 + E).

%!  bool_channel(+Lits, ?Y, +RelOp, +Offset) is semidet.
%
%   The I-th literal of Lits, counting from 0, is true if and only if
%   `Y RelOp I+Offset`.

bool_channel(Lits, Y, RelOp, Offset) :-
    must_be(list, Lits),
    must_be(integer, Offset),
    must_be(oneof([#=, #\=, #<, #=<, #>, #>=]), RelOp),
    foldl(channel(Y, RelOp, Offset), Lits, 0, _).

channel(Y, RelOp, Offset, Lit, I, I1) :-
    V is I + Offset,
    C =.. [RelOp, Y, V],
    lit_expr(Lit, E),
    B #<==> C,
    E #= B,
    I1 is I + 1.


                 /*******************************
                 *     PERMUTATIONS, ORDERS     *
                 *******************************/

%!  assignment(+Xs, +Ys) is semidet.
%!  assignment(+Xs, +Ys, +Options) is semidet.
%
%   Xs and Ys, of length N, are in 1..N and Xi = j if and only if
%   Yj = i.  Options: circuit(true) also makes Xs a single circuit;
%   consistency/1 is ignored; cost/2 is not supported.

assignment(Xs, Ys) :-
    assignment(Xs, Ys, []).

assignment(Xs, Ys, Options) :-
    must_be(list, Options),
    length(Xs, N),
    length(Ys, N),
    Xs ins 1..N,
    Ys ins 1..N,
    clpfd:all_distinct(Xs),
    clpfd:all_distinct(Ys),
    foldl(assign_row(Ys), Xs, 1, _),
    maplist(assignment_option(Xs), Options).

assign_row(Ys, X, I, I1) :-
    foldl(assign_cell(X, I), Ys, 1, _),
    I1 is I + 1.

assign_cell(X, I, Y, J, J1) :-
    (X #= J) #<==> (Y #= I),
    J1 is J + 1.

assignment_option(_, O) :-
    var(O), !,
    instantiation_error(O).
assignment_option(Xs, circuit(true)) :- !,
    clpfd:circuit(Xs).
assignment_option(_, circuit(false)) :- !.
assignment_option(_, consistency(_)) :- !.
assignment_option(_, O) :-
    domain_error(supported_assignment_option, O).

%!  circuit(+Succ, +Pred) is semidet.
%
%   Succ is a single circuit (a Hamiltonian cycle of successors) and
%   Pred the predecessors along it.

circuit(Succ, Pred) :-
    clpfd:circuit(Succ),
    assignment(Succ, Pred).

%!  lex_chain(+Vectors, +Options) is semidet.
%
%   Vectors are in lexicographic order: non-decreasing, or increasing
%   with op(#<).  Other options only choose how it propagates;
%   among/3 is not supported.

lex_chain(Vectors, Options) :-
    must_be(list, Vectors),
    must_be(list, Options),
    foldl(lex_option, Options, #=<, Op),
    lex_pairs(Vectors, Op).

lex_option(O, _, _) :-
    var(O), !,
    instantiation_error(O).
lex_option(op(Op), _, Op) :-
    memberchk(Op, [#<, #=<]), !.
lex_option(increasing, _, #<) :- !.
lex_option(consistency(_), Op, Op) :- !.
lex_option(global(_), Op, Op) :- !.
lex_option(O, _, _) :-
    domain_error(supported_lex_chain_option, O).

lex_pairs([], _).
lex_pairs([V|Vs], Op) :-
    lex_pairs(Vs, V, Op).

lex_pairs([], _, _).
lex_pairs([V|Vs], V0, Op) :-
    lex(V0, V, Op, B),
    B #= 1,
    lex_pairs(Vs, V, Op).

%   lex(+Xs, +Ys, +Op, -B): B is the truth of Xs Op Ys,
%   lexicographically.
lex([], [], Op, B) :-
    (   Op == #=<
    ->  B = 1
    ;   B = 0
    ).
lex([X|Xs], [Y|Ys], Op, B) :-
    lex(Xs, Ys, Op, B1),
    B #<==> ((X #< Y) #\/ ((X #= Y) #/\ B1)).

%!  sorting(+Xs, +Ps, +Ys) is semidet.
%
%   Ys is Xs sorted in non-decreasing order and Ps is a permutation
%   of 1..N with Ys[Pi] = Xi.

sorting(Xs, Ps, Ys) :-
    length(Xs, N),
    length(Ps, N),
    length(Ys, N),
    Ps ins 1..N,
    clpfd:all_distinct(Ps),
    maplist(fd_set, Xs, Sets),
    fdset_union(Sets, Values),
    maplist(in_values(Values), Ys),
    maplist(sorted_at(Ys), Ps, Xs),
    increasing(Ys).

in_values(Values, Y) :-
    Y in_set Values.

sorted_at(Ys, P, X) :-
    element(P, Ys, X).

increasing([]).
increasing([Y|Ys]) :-
    foldl(not_below, Ys, Y, _).

not_below(Y, Y0, Y) :-
    Y0 #=< Y.


                 /*******************************
                 *          SCHEDULING          *
                 *******************************/

%!  cumulative(+Tasks) is semidet.
%!  cumulative(+Tasks, +Options) is semidet.
%
%   Tasks are task(Start, Duration, End, Height, Id); at every time
%   the heights of the running tasks sum up to at most the limit(L)
%   of Options, 1 by default.  global/1 is ignored; other options are
%   not supported.

cumulative(Tasks) :-
    cumulative(Tasks, []).

cumulative(Tasks, Options) :-
    must_be(list, Options),
    foldl(cumulative_option, Options, 1, Limit),
    clpfd:cumulative(Tasks, [limit(Limit)]).

cumulative_option(O, _, _) :-
    var(O), !,
    instantiation_error(O).
cumulative_option(limit(L), _, L) :- !.
cumulative_option(global(_), L, L) :- !.
cumulative_option(O, _, _) :-
    domain_error(supported_cumulative_option, O).

%!  disjoint1(+Lines) is semidet.
%!  disjoint1(+Lines, +Options) is semidet.
%
%   Lines are F(Start, Length) or F(Start, Length, Type); no two of
%   them overlap.  global/1 and decomposition/1 are ignored, other
%   options are not supported.

disjoint1(Lines) :-
    disjoint1(Lines, []).

disjoint1(Lines, Options) :-
    must_be(list, Options),
    maplist(disjoint_option, Options),
    must_be(list, Lines),
    pairwise(Lines, disjoint_lines).

disjoint_lines(A, B) :-
    arg(1, A, S1), arg(2, A, D1),
    arg(1, B, S2), arg(2, B, D2),
    (S1 + D1 #=< S2) #\/ (S2 + D2 #=< S1).

%!  disjoint2(+Rectangles) is semidet.
%!  disjoint2(+Rectangles, +Options) is semidet.
%
%   Rectangles are F(X, Width, Y, Height) or with a fifth argument;
%   no two of them overlap.  Options as for disjoint1/2.

disjoint2(Rectangles) :-
    disjoint2(Rectangles, []).

disjoint2(Rectangles, Options) :-
    must_be(list, Options),
    maplist(disjoint_option, Options),
    must_be(list, Rectangles),
    pairwise(Rectangles, disjoint_rectangles).

disjoint_rectangles(A, B) :-
    arg(1, A, X1), arg(2, A, W1), arg(3, A, Y1), arg(4, A, H1),
    arg(1, B, X2), arg(2, B, W2), arg(3, B, Y2), arg(4, B, H2),
    (X1 + W1 #=< X2) #\/ (X2 + W2 #=< X1) #\/
    (Y1 + H1 #=< Y2) #\/ (Y2 + H2 #=< Y1).

disjoint_option(O) :-
    var(O), !,
    instantiation_error(O).
disjoint_option(global(_)) :- !.
disjoint_option(decomposition(_)) :- !.
disjoint_option(O) :-
    domain_error(supported_disjoint_option, O).

:- meta_predicate pairwise(+, 2).

pairwise([], _).
pairwise([X|Xs], G) :-
    maplist(call(G, X), Xs),
    pairwise(Xs, G).

%!  bin_packing(+Items, +Bins) is semidet.
%
%   Items are item(Bin, Size) and Bins bin(Id, Load): every item is in
%   one of the bins, whose Load is the sum of the sizes of its items.

bin_packing(Items, Bins) :-
    must_be(list, Items),
    must_be(list, Bins),
    findall(Id, member(bin(Id, _), Bins), Ids),
    list_to_fdset(Ids, IdSet),
    maplist(item_bin(IdSet), Items),
    maplist(bin_load(Items), Bins).

item_bin(IdSet, item(Bin, _)) :-
    Bin in_set IdSet.

bin_load(Items, bin(Id, Load)) :-
    foldl(item_load(Id), Items, 0, Sum),
    Load #= Sum.

item_load(Id, item(Bin, Size), S0, S0 + Size * B) :-
    B #<==> (Bin #= Id).


                 /*******************************
                 *           LABELING           *
                 *******************************/

%!  labeling(:Options, +Vars) is nondet.
%
%   SICStus' labeling/2.  Options are any of
%
%     - leftmost, min, max, ff, ffc, anti_first_fail, occurrence,
%       max_regret, variable(Sel) (which variable next; Sel is called
%       as Sel(Vars, Selected, Rest));
%     - step, enum, bisect, median, middle, value(Enum) (how to branch
%       on it; Enum is called as Enum(X, Rest, BB0, BB) and must call
%       first_bound(BB0, BB) in its first alternative and
%       later_bound(BB0, BB) in the others);
%     - up, down (which values first);
%     - all, minimize(X), maximize(X) (every solution, or one that
%       minimizes or maximizes X);
%     - discrepancy(D) (take a choice other than the first at most D
%       times on the way to a solution);
%     - assumptions(K) (K is the number of choices on the way to the
%       solution);
%     - time_out(Ms, Flag) (Flag is success for a solution found
%       within Ms milliseconds, and time_out when the limit is
%       reached, which ends the search).
%
%   A later option overrides an earlier one of its kind.  Without the
%   options SWI lacks, SWI's labeling/2 runs the search.

labeling(M:Options, Vars) :-
    must_be(list, Options),
    must_be(list, Vars),
    maplist(label_var, Vars),
    foldl(label_option(M), Options,
          label(leftmost, step, up, all, inf, none, none), Label),
    Label = label(Select, Branch, Order, Goal, Limit, Assumptions,
                  TimeOut),
    (   TimeOut = time_out(Ms, Flag)
    ->  must_be(nonneg, Ms),
        get_time(Now),
        Deadline is Now + Ms / 1000,
        catch(( label(Goal, s(Select, Branch, Order, Limit, Assumptions,
                             Deadline), Vars),
                Flag = success
              ),
              sicstus_clpfd_time_out,
              Flag = time_out)
    ;   label(Goal, s(Select, Branch, Order, Limit, Assumptions, none),
              Vars)
    ).

label_var(V) :-
    (   integer(V)
    ->  true
    ;   var(V)
    ->  (   clpfd:fd_size(V, Size), integer(Size)
        ->  true
        ;   instantiation_error(V)
        )
    ;   type_error(integer, V)
    ).

label_option(_, O, _, _) :-
    var(O), !,
    instantiation_error(O).
label_option(_, O, label(_, B, R, G, D, A, T), label(O, B, R, G, D, A, T)) :-
    selection(O), !.
label_option(M, variable(Sel), label(_, B, R, G, D, A, T),
             label(variable(M:Sel), B, R, G, D, A, T)) :- !,
    must_be(callable, Sel).
label_option(_, O, label(S, _, R, G, D, A, T), label(S, O, R, G, D, A, T)) :-
    branching(O), !.
label_option(M, value(Enum), label(S, _, R, G, D, A, T),
             label(S, value(M:Enum), R, G, D, A, T)) :- !,
    must_be(callable, Enum).
label_option(_, O, label(S, B, _, G, D, A, T), label(S, B, O, G, D, A, T)) :-
    memberchk(O, [up, down]), !.
label_option(_, O, label(S, B, R, _, D, A, T), label(S, B, R, O, D, A, T)) :-
    solutions(O), !.
label_option(_, discrepancy(D), label(S, B, R, G, _, A, T),
             label(S, B, R, G, D, A, T)) :- !,
    must_be(nonneg, D).
label_option(_, assumptions(K), label(S, B, R, G, D, _, T),
             label(S, B, R, G, D, count(K), T)) :- !.
label_option(_, time_out(Ms, Flag), label(S, B, R, G, D, A, _),
             label(S, B, R, G, D, A, time_out(Ms, Flag))) :- !.
label_option(_, O, _, _) :-
    domain_error(labeling_option, O).

selection(O) :- swi_selection(O).
selection(anti_first_fail).
selection(occurrence).
selection(max_regret).

swi_selection(leftmost).
swi_selection(min).
swi_selection(max).
swi_selection(ff).
swi_selection(ffc).

branching(O) :- swi_branching(O).
branching(median).
branching(middle).

swi_branching(step).
swi_branching(enum).
swi_branching(bisect).

solutions(all).
solutions(minimize(_)).
solutions(maximize(_)).

label(all, S, Vars) :-
    search(S, Vars).
label(minimize(X), S, Vars) :-
    optimum(#<, X, search(S, Vars), Vars).
label(maximize(X), S, Vars) :-
    optimum(#>, X, search(S, Vars), Vars).

%   Branch and bound with restart: look for a solution better than
%   the best so far until there is none; then take the best.
optimum(Better, X, Search, Vars) :-
    first_solution(X, Search, Vars, Value, Solution),
    optimum(Better, X, Search, Vars, Value, Solution).

optimum(Better, X, Search, Vars, Value0, Solution0) :-
    (   first_solution(X, (call(Better, X, Value0), Search), Vars,
                       Value, Solution)
    ->  optimum(Better, X, Search, Vars, Value, Solution)
    ;   X = Value0,
        Vars = Solution0
    ).

first_solution(X, Search, Vars, Value, Solution) :-
    findall(X-Vars, once(Search), [Value-Solution]),
    (   integer(Value)
    ->  true
    ;   instantiation_error(X)
    ).

%   s(Select, Branch, Order, Limit, Assumptions, Deadline)
search(s(Select, Branch, Order, inf, none, none), Vars) :-
    swi_selection(Select),
    swi_branching(Branch),
    !,
    clpfd:labeling([Select, Branch, Order], Vars).
search(S, Vars) :-
    S = s(_, _, _, Limit, Assumptions, _),
    search(Vars, S, bb(0, Limit), 0, Count),
    (   Assumptions = count(K)
    ->  K = Count
    ;   true
    ).

search(Vars0, S, BB0, K0, K) :-
    exclude_integers(Vars0, Vars),
    (   Vars == []
    ->  K = K0
    ;   S = s(Select, Branch, Order, _, _, Deadline),
        check_deadline(Deadline),
        choose(Select, Vars, X, Rest, Next0),
        K1 is K0 + 1,
        branch(Branch, Order, X, Rest, BB0, BB1),
        (   var(X)
        ->  Next = Vars
        ;   Next = Next0
        ),
        search(Next, S, BB1, K1, K)
    ).

check_deadline(none) :- !.
check_deadline(Deadline) :-
    get_time(Now),
    (   Now >= Deadline
    ->  throw(sicstus_clpfd_time_out)
    ;   true
    ).

exclude_integers([], []).
exclude_integers([V|Vs0], Vs) :-
    (   integer(V)
    ->  Vs = Vs1
    ;   Vs = [V|Vs1]
    ),
    exclude_integers(Vs0, Vs1).

%   choose(+Select, +Vars, -X, -Rest, -Next): label X next; Rest are
%   the other variables, Next those to go on with once X is bound (if
%   it is not, the search goes on with Vars).
choose(variable(Sel), Vars, X, Rest, Rest) :- !,
    (   call(Sel, Vars, X0, Rest0)
    ->  X = X0,
        Rest = Rest0
    ;   fail
    ).
choose(Select, Vars, X, Rest, Vars) :-
    select_var(Select, Vars, X),
    exclude(==(X), Vars, Rest).

%   The leftmost variable with the least key.
select_var(leftmost, [X|_], X) :- !.
select_var(Select, [V|Vs], X) :-
    var_key(Select, V, Key),
    select_var(Vs, Select, Key, V, X).

select_var([], _, _, X, X).
select_var([V|Vs], Select, Key0, X0, X) :-
    var_key(Select, V, Key),
    (   Key @< Key0
    ->  select_var(Vs, Select, Key, V, X)
    ;   select_var(Vs, Select, Key0, X0, X)
    ).

var_key(min, V, Min) :-
    clpfd:fd_inf(V, Min).
var_key(max, V, Key) :-
    clpfd:fd_sup(V, Max),
    Key is -Max.
var_key(ff, V, Size) :-
    clpfd:fd_size(V, Size).
var_key(ffc, V, Size-Key) :-
    clpfd:fd_size(V, Size),
    clpfd:fd_degree(V, Degree),
    Key is -Degree.
var_key(anti_first_fail, V, Key) :-
    clpfd:fd_size(V, Size),
    Key is -Size.
var_key(occurrence, V, Key) :-
    clpfd:fd_degree(V, Degree),
    Key is -Degree.
var_key(max_regret, V, Key) :-
    fd_set(V, [[From|To]|Intervals]),
    (   To > From
    ->  Second is From + 1
    ;   Intervals = [[Second|_]|_]
    ),
    Key is From - Second.

%!  first_bound(+BB0, -BB) is semidet.
%!  later_bound(+BB0, -BB) is semidet.
%
%   For value(Enum) of labeling/2: the first alternative of Enum calls
%   first_bound/2, any later one later_bound/2, which counts a
%   discrepancy and fails beyond the limit of discrepancy(D).

first_bound(BB, BB).

later_bound(bb(D0, Limit), bb(D, Limit)) :-
    D is D0 + 1,
    (   Limit == inf
    ->  true
    ;   D =< Limit
    ).

branch(value(Enum), _, X, Rest, BB0, BB) :- !,
    call(Enum, X, Rest, BB0, BB).
branch(step, Order, X, _, BB0, BB) :-
    (   Order == up
    ->  clpfd:fd_inf(X, V)
    ;   clpfd:fd_sup(X, V)
    ),
    two_way(X = V, X #\= V, BB0, BB).
branch(enum, Order, X, _, BB0, BB) :-
    fd_set(X, Set),
    fdset_to_list(Set, Values0),
    (   Order == up
    ->  Values = Values0
    ;   reverse(Values0, Values)
    ),
    Values = [First|Others],
    (   first_bound(BB0, BB),
        X = First
    ;   later_bound(BB0, BB),
        member(X, Others)
    ).
branch(bisect, Order, X, _, BB0, BB) :-
    clpfd:fd_inf(X, Min),
    clpfd:fd_sup(X, Max),
    Mid is (Min + Max) div 2,
    (   Order == up
    ->  two_way(X #=< Mid, X #> Mid, BB0, BB)
    ;   two_way(X #> Mid, X #=< Mid, BB0, BB)
    ).
branch(median, _, X, _, BB0, BB) :-
    fd_set(X, Set),
    fdset_to_list(Set, Values),
    length(Values, Size),
    Index is (Size + 1) // 2,
    nth1(Index, Values, V),
    two_way(X = V, X #\= V, BB0, BB).
branch(middle, _, X, _, BB0, BB) :-
    clpfd:fd_inf(X, Min),
    clpfd:fd_sup(X, Max),
    Mid is (Min + Max) div 2,
    fd_set(X, Set),
    fdset_to_list(Set, Values),
    include(=<(Mid), Values, [V|_]),
    two_way(X = V, X #\= V, BB0, BB).

two_way(First, Second, BB0, BB) :-
    (   first_bound(BB0, BB),
        call(First)
    ;   later_bound(BB0, BB),
        call(Second)
    ).


                 /*******************************
                 *         OPTIMIZATION         *
                 *******************************/

%!  minimize(:Goal, ?X) is semidet.
%!  minimize(:Goal, ?X, +Options) is nondet.
%!  maximize(:Goal, ?X) is semidet.
%!  maximize(:Goal, ?X, +Options) is nondet.
%
%   Find a solution of Goal with the least (greatest) value of X, by
%   branch and bound with restart.  Options: best (the default: the
%   optimal solution only) or all (each solution better than the one
%   before, the optimum last).

minimize(Goal, X) :-
    minimize(Goal, X, [best]).

minimize(Goal, X, Options) :-
    optimize(Options, #<, Goal, X).

maximize(Goal, X) :-
    maximize(Goal, X, [best]).

maximize(Goal, X, Options) :-
    optimize(Options, #>, Goal, X).

optimize(Options, Better, Goal, X) :-
    must_be(list, Options),
    foldl(optimize_option, Options, best, Mode),
    (   Mode == best
    ->  optimum(Better, X, Goal, Goal)
    ;   first_solution(X, Goal, Goal, Value, Solution),
        improving(Better, X, Goal, Value, Solution)
    ).

optimize_option(O, _, _) :-
    var(O), !,
    instantiation_error(O).
optimize_option(best, _, best) :- !.
optimize_option(all, _, all) :- !.
optimize_option(O, _, _) :-
    domain_error(optimization_option, O).

improving(Better, X, Goal, Value0, Solution0) :-
    (   X = Value0,
        Goal = Solution0
    ;   first_solution(X, (call(Better, X, Value0), Goal), Goal,
                       Value, Solution),
        improving(Better, X, Goal, Value, Solution)
    ).
