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
"""

from __future__ import annotations

import subprocess

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


def test_box_lines_prunes_what_the_units_alone_do_not() -> None:
    """On random K = 3 grids, now and then, box_lines/2 removes values that
    all_distinct/1 on every unit leaves."""
    assert int(run("box_lines_prune(3, 50, Pruned), print(Pruned)")) > 0


def test_trial_strength_keeps_every_solution() -> None:
    assert run("trial_sound(800, Bad), print(Bad)") == "0"


def test_a_strength_switch_weakens_only_its_own_propagators() -> None:
    out = run("own_switch(T, F, A), format('~w ~w ~w', [T, F, A])")
    assert out == "1..4 3..4 3..4"
