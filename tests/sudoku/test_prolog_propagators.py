"""prolog/sudoku_propagators.pl: each propagator against the constraint it
states, on random problems, in a plain `swipl` process.

- distinct_values/1 states what clpfd's all_distinct/1 states, with the
  same (complete) pruning: on random domains both must fail together and
  otherwise leave the same domains, also where some values are free
  (more values than variables) and where some entries are integers.
- box_lines/2 is redundant: on random partial grids, labelling with it
  must give exactly the solutions labelling without it gives, and it must
  prune where a value is confined to a box-row crossing.
- At trial strength (a switch made by new_strength/1 and set to `trial`
  by set_strength/2) the distinct propagator keeps to singles, which must
  never remove a value of a solution either; and the switch weakens only
  the propagators posted with it.
- next_to/2 and parity_of/2 state what a two-field tuples_in/2 table
  states (all pairs [A, B] with |A-B| = 1; all pairs [V, V mod 2]), with
  the same (complete) pruning: on random domains, some entries integers,
  posting each must fail together with the table or leave the same
  domains, and so after each of a few later removals (or bindings) on
  either side, which must keep waking them.  Labelling with them gives
  exactly the solutions of abs(X-Y) #= 1 and X mod 2 #= P.
- ones/2 states what clpfd's sum(Bs, #=, C) states on 0/1 entries, with
  the same (complete) pruning: on random entries, some of them decided,
  posting each must fail together with the sum or leave the same
  domains, and so after each of a few later bindings.
"""

from __future__ import annotations

import subprocess

import pytest

from plpuzzle.runtime import prolog_file

PROGRAM = r"""
:- use_module(library(clpfd)).
:- use_module(library(random)).

random_domains(Vs, M) :-
    Vs ins 1..M,
    maplist(random_holes(M), Vs).

random_holes(M, V) :-
    random_between(0, M, Holes),
    forall(between(1, Holes, _),
           ( random_between(1, M, X), ignore(V #\= X) )).

maybe_fix(V) :-
    (   random(R), R < 0.2, fd_inf(V, I) -> ignore(V = I) ; true ).

same_as_all_distinct(Cases, Bad) :-
    aggregate_all(count,
        ( between(1, Cases, _),
          random_between(1, 6, L), random_between(0, 2, Extra),
          M is L + Extra,
          length(Vs, L), random_domains(Vs, M), maplist(maybe_fix, Vs),
          copy_term(Vs, Ws, Gs), maplist(call, Gs),
          \+ agree(Vs, Ws) ),
        Bad).

agree(Vs, Ws) :-
    (   \+ all_distinct(Vs)
    ->  \+ distinct_values(Ws)
    ;   all_distinct(Vs),
        distinct_values(Ws),
        maplist(fd_dom, Vs, D),
        maplist(fd_dom, Ws, D)
    ).

%   Random partial K x K-box grids: box_lines changes no solution set.
box_lines_sound(K, Cases, Bad) :-
    aggregate_all(count,
        ( between(1, Cases, _), \+ same_solutions(K) ), Bad).

box_lines_prune(K, Cases, Pruned) :-
    aggregate_all(count,
        ( between(1, Cases, _), prunes(K) ), Pruned).

%   A random sudoku grid (a pattern with its values permuted), about a
%   third of it given.
grid(K, Rows) :-
    N is K*K,
    numlist(1, N, Values),
    random_permutation(Values, Perm),
    length(Rows, N),
    maplist(row(N), Rows),
    N1 is N - 1,
    findall(V, ( between(0, N1, R), between(0, N1, C),
                 P is (R*K + R//K + C) mod N, nth0(P, Perm, V) ), Solution),
    append(Rows, Vs),
    maplist(maybe_give, Vs, Solution).

row(N, R) :- length(R, N), R ins 1..N.

maybe_give(V, G) :-
    (   random(X), X < 0.35 -> V = G ; true ).

post(K, Rows, Lines) :-
    units(K, Rows, Us), maplist(all_distinct, Us),
    (   Lines == true
    ->  bands(K, Rows, Bands), maplist(box_lines(K), Bands)
    ;   true
    ).

same_solutions(K) :-
    grid(K, Rows),
    copy_term(Rows, Rows2, Gs), maplist(call, Gs),
    findall(Rows, (post(K, Rows, false), append(Rows, Vs), label(Vs)), A),
    findall(Rows2, (post(K, Rows2, true), append(Rows2, Ws), label(Ws)), B),
    A == B.

prunes(K) :-
    grid(K, Rows),
    copy_term(Rows, Rows2, Gs), maplist(call, Gs),
    post(K, Rows, false), post(K, Rows2, true),
    append(Rows, Vs), append(Rows2, Ws),
    maplist(fd_size, Vs, S1), maplist(fd_size, Ws, S2),
    S1 \== S2.

%   Trial strength: singles on random permutation problems never cut a
%   solution.
trial_sound(Cases, Bad) :-
    aggregate_all(count,
        ( between(1, Cases, _),
          random_between(2, 5, L),
          length(Vs, L), random_domains(Vs, L),
          copy_term(Vs, Ws, Gs), maplist(call, Gs),
          findall(Vs, (all_distinct(Vs), label(Vs)), A),
          findall(Ws, ( new_strength(S),
                        set_strength(S, trial),
                        distinct_values(S, Ws),
                        set_strength(S, full),
                        label(Ws) ), B),
          A \== B ),
        Bad).

%   A naked pair: X, Y in 1..2 and Z, W in 1..4 are distinct.  Full
%   strength takes 1 and 2 from Z and W; singles see no value with one
%   place.  Two searches, one of them in a trial: only its propagator
%   keeps to singles, and only until the trial ends.
own_switch(Trial, Full, After) :-
    new_strength(S1), new_strength(S2),
    set_strength(S1, trial),
    [X, Y] ins 1..2, [Z, W] ins 1..4,
    distinct_values(S1, [X, Y, Z, W]),
    [A, B] ins 1..2, [C, D] ins 1..4,
    distinct_values(S2, [A, B, C, D]),
    fd_dom(Z, Trial), fd_dom(C, Full),
    set_strength(S1, full),
    W #\= 1,
    fd_dom(Z, After).

%   next_to/2 and parity_of/2 against their tuples_in/2 tables.  A case
%   posts the propagator on random domains of values in 1..M and the
%   table on a copy, then makes up to three later changes to both
%   copies: removing a value from one side (X #\= V), now and then
%   binding it.  Each step's tags: `bad` (one copy failed, or their
%   domains differ), `failed` (both failed), `pruned` (the posting
%   removed a value), `woken` (a later change on one side narrowed the
%   other side).
relation_vs_table(Rel, Cases, Bad, Failed, Pruned, Woken) :-
    findall(Tags, ( between(1, Cases, _), table_case(Rel, Tags) ), Tagss),
    append(Tagss, All),
    maplist(tag_count(All), [bad, failed, pruned, woken],
            [Bad, Failed, Pruned, Woken]).

tag_count(All, Tag, N) :-
    aggregate_all(count, member(Tag, All), N).

%   Mostly small M, where the relations prune most; now and then up to
%   100, masks wider than a machine word.
random_m(M) :-
    (   random(R), R < 0.15 -> random_between(60, 100, M)
    ;   random_between(1, 9, M)
    ).

%   problem(+Rel, +M, -Vs): the two arguments, random domains in 1..M,
%   some of them integers; parity_of's P is free, 0, 1, or in 0..3.
problem(next_to, M, [X, Y]) :-
    random_domains([X, Y], M),
    maplist(maybe_fix, [X, Y]).
problem(parity_of, M, [X, P]) :-
    random_domains([X], M),
    maybe_fix(X),
    random_member(P0, [free, 0, 1, wide]),
    (   P0 == free -> true
    ;   P0 == wide -> P in 0..3
    ;   P = P0
    ).

post(next_to, [X, Y]) :- next_to(X, Y).
post(parity_of, [X, P]) :- parity_of(X, P).

table(next_to, M, Pairs) :-
    findall([A, B], ( between(1, M, A), between(1, M, B),
                      abs(A - B) =:= 1 ), Pairs).
table(parity_of, M, Pairs) :-
    findall([V, P], ( between(1, M, V), P is V mod 2 ), Pairs).

post_table(Rel, M, [X, Y]) :-
    table(Rel, M, Pairs),
    tuples_in([[X, Y]], Pairs).

plain(next_to, [X, Y]) :- abs(X - Y) #= 1.
plain(parity_of, [X, P]) :- X mod 2 #= P.

table_case(Rel, Tags) :-
    random_m(M),
    problem(Rel, M, Vs),
    copy_term(Vs, Ws, Gs), maplist(call, Gs),
    maplist(fd_dom, Vs, D0),
    (   post(Rel, Vs)
    ->  (   post_table(Rel, M, Ws)
        ->  maplist(fd_dom, Vs, D),
            (   maplist(fd_dom, Ws, D)
            ->  ( pruned(D0, D) -> Tags0 = [pruned] ; Tags0 = [] ),
                later(3, Rel, M, Vs, Ws, Tags1),
                append(Tags0, Tags1, Tags)
            ;   Tags = [bad]
            )
        ;   Tags = [bad]
        )
    ;   post_table(Rel, M, Ws)
    ->  Tags = [bad]
    ;   Tags = [failed]
    ).

%   A value left a domain that had bounds (a free P becoming 0..1 is not
%   counted).
pruned(D0, D) :-
    nth1(I, D0, Dom0),
    Dom0 \= inf..sup,
    nth1(I, D, Dom),
    Dom \== Dom0,
    !.

later(0, _, _, _, _, []) :- !.
later(K, Rel, M, Vs, Ws, Tags) :-
    random_between(1, 2, Side),
    (   Rel == parity_of, Side =:= 2 -> Max = 1 ; Max = M ),
    random_between(0, Max, V),
    random_member(How, [remove, remove, remove, bind]),
    Other is 3 - Side,
    nth1(Other, Vs, O),
    fd_dom(O, DO0),
    (   change(How, Side, V, Vs)
    ->  (   change(How, Side, V, Ws)
        ->  maplist(fd_dom, Vs, D),
            (   maplist(fd_dom, Ws, D)
            ->  fd_dom(O, DO),
                ( DO == DO0 -> Tags0 = [] ; Tags0 = [woken] ),
                K1 is K - 1,
                later(K1, Rel, M, Vs, Ws, Tags1),
                append(Tags0, Tags1, Tags)
            ;   Tags = [bad]
            )
        ;   Tags = [bad]
        )
    ;   change(How, Side, V, Ws)
    ->  Tags = [bad]
    ;   Tags = [failed]
    ).

change(remove, Side, V, Vs) :- nth1(Side, Vs, A), A #\= V.
change(bind, Side, V, Vs) :- nth1(Side, Vs, V).

%   ones/2 against sum/3 on 0/1 entries, with the tags of
%   relation_vs_table/6: C runs from 0 to one more than the entries, a
%   few entries are decided at the start, and up to three later
%   bindings of an open entry follow.
ones_vs_sum(Cases, Bad, Failed, Pruned, Woken) :-
    findall(Tags, ( between(1, Cases, _), ones_case(Tags) ), Tagss),
    append(Tagss, All),
    maplist(tag_count(All), [bad, failed, pruned, woken],
            [Bad, Failed, Pruned, Woken]).

ones_case(Tags) :-
    random_between(0, 6, L),
    length(Bs, L),
    Bs ins 0..1,
    maplist(maybe_bit, Bs),
    Max is L + 1,
    random_between(0, Max, C),
    copy_term(Bs, Cs, Gs), maplist(call, Gs),
    term_variables(Bs, Open0),
    (   ones(Bs, C)
    ->  (   sum(Cs, #=, C)
        ->  (   maplist(fd_dom, Bs, D), maplist(fd_dom, Cs, D)
            ->  term_variables(Bs, Open),
                ( Open == Open0 -> Tags0 = [] ; Tags0 = [pruned] ),
                later_bits(3, Bs, Cs, Tags1),
                append(Tags0, Tags1, Tags)
            ;   Tags = [bad]
            )
        ;   Tags = [bad]
        )
    ;   sum(Cs, #=, C)
    ->  Tags = [bad]
    ;   Tags = [failed]
    ).

maybe_bit(B) :-
    (   random(R), R < 0.3 -> random_between(0, 1, B) ; true ).

later_bits(0, _, _, []) :- !.
later_bits(K, Bs, Cs, Tags) :-
    findall(I, ( nth1(I, Bs, B), var(B) ), Is),
    (   Is == []
    ->  Tags = []
    ;   random_member(I, Is),
        random_between(0, 1, V),
        nth1(I, Bs, B),
        nth1(I, Cs, Bc),
        term_variables(Bs, Open0),
        (   B = V
        ->  (   Bc = V
            ->  (   maplist(fd_dom, Bs, D), maplist(fd_dom, Cs, D)
                ->  term_variables(Bs, Open),
                    length(Open0, N0),
                    length(Open, N),
                    ( N < N0 - 1 -> Tags0 = [woken] ; Tags0 = [] ),
                    K1 is K - 1,
                    later_bits(K1, Bs, Cs, Tags1),
                    append(Tags0, Tags1, Tags)
                ;   Tags = [bad]
                )
            ;   Tags = [bad]
            )
        ;   Bc = V
        ->  Tags = [bad]
        ;   Tags = [failed]
        )
    ).

%   Labelling, in both orders, with the propagator gives exactly the
%   solutions the plain constraint gives.  Tags: `bad`, `some` (there
%   are solutions), `none`.
relation_labels(Rel, Cases, Bad, Some, None) :-
    findall(Tag, ( between(1, Cases, _), label_case(Rel, Tag) ), Tags),
    maplist(tag_count(Tags), [bad, some, none], [Bad, Some, None]).

label_case(Rel, Tag) :-
    random_between(1, 7, M),
    problem(Rel, M, Vs),
    copy_term(Vs, Ws, Gs), maplist(call, Gs),
    solutions(post(Rel), Vs, A),
    solutions(plain(Rel), Ws, B),
    (   A \== B -> Tag = bad
    ;   A == [[], []] -> Tag = none
    ;   Tag = some
    ).

solutions(Post, Vs, [Forward, Backward]) :-
    findall(Vs, ( call(Post, Vs), label(Vs) ), Forward),
    reverse(Vs, Rs),
    findall(Vs, ( call(Post, Vs), label(Rs) ), Backward0),
    msort(Backward0, Backward).
"""


def run(goal: str) -> str:
    """Run `goal` with the program and sudoku_propagators.pl loaded."""
    out = subprocess.run(
        [
            "swipl",
            "-q",
            "-g",
            f"use_module('{prolog_file('sudoku_propagators.pl')}')",
            "-g",
            f"use_module('{prolog_file('sudoku_grid.pl')}')",
            "-g",
            "set_random(seed(7))",
            "-g",
            "consult(user)",
            "-g",
            goal,
            "-t",
            "halt",
        ],
        input=PROGRAM,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_distinct_values_prunes_as_all_distinct_does() -> None:
    assert run("same_as_all_distinct(3000, Bad), print(Bad)") == "0"


def test_box_lines_keeps_every_solution() -> None:
    assert run("box_lines_sound(2, 100, Bad), print(Bad)") == "0"


@pytest.mark.slow
def test_box_lines_prunes_what_the_units_alone_do_not() -> None:
    """On random K = 3 grids, now and then, box_lines/2 removes values that
    all_distinct/1 on every unit leaves."""
    assert int(run("box_lines_prune(3, 50, Pruned), print(Pruned)")) > 0


@pytest.mark.slow
def test_trial_strength_keeps_every_solution() -> None:
    assert run("trial_sound(800, Bad), print(Bad)") == "0"


def test_a_strength_switch_weakens_only_its_own_propagators() -> None:
    out = run("own_switch(T, F, A), format('~w ~w ~w', [T, F, A])")
    assert out == "1..4 3..4 3..4"


@pytest.mark.parametrize("relation", ["next_to", "parity_of"])
def test_a_two_field_propagator_prunes_as_its_table_does(relation: str) -> None:
    goal = f"relation_vs_table({relation}, 3000, B, F, P, W), format('~w ~w ~w ~w', [B, F, P, W])"
    bad, failed, pruned, woken = map(int, run(goal).split())
    assert bad == 0, (bad, failed, pruned, woken)
    # The comparison has teeth: postings and later changes that fail,
    # postings that prune, later changes that wake the propagator.
    assert failed > 0
    assert pruned > 0
    assert woken > 0


def test_ones_prunes_as_a_sum_of_its_entries_does() -> None:
    goal = "ones_vs_sum(3000, B, F, P, W), format('~w ~w ~w ~w', [B, F, P, W])"
    bad, failed, pruned, woken = map(int, run(goal).split())
    assert bad == 0, (bad, failed, pruned, woken)
    # Teeth, as above: failures, prunings when posted, and later
    # bindings that decide other entries.
    assert failed > 0
    assert pruned > 0
    assert woken > 0


def test_labelling_with_next_to_gives_the_solutions_of_abs_difference_one() -> None:
    out = run("relation_labels(next_to, 1000, B, S, N), format('~w ~w ~w', [B, S, N])")
    bad, some, none = map(int, out.split())
    assert bad == 0, out
    assert some > 0, out
    assert none > 0, out


def test_labelling_with_parity_of_gives_the_solutions_of_mod_two() -> None:
    out = run("relation_labels(parity_of, 1000, B, S, N), format('~w ~w ~w', [B, S, N])")
    bad, some, none = map(int, out.split())
    assert bad == 0, out
    assert some > 0, out
    assert none > 0, out
