"""prolog/clpfd_internals.pl: the one place that touches clpfd's private
parts, and the self-check it runs when it is loaded.

- On the installed SWI-Prolog the check passes, in well under a
  millisecond, and loading the solver prints nothing.
- It is not a formality: in a swipl where one of the relied-upon
  internals has been redefined to behave as it might in another version
  (enable_queue/0 running the queue, as older versions did; a no-op
  disable_queue/0 or neq_num/2; a trigger that ignores the current
  propagator), loading the solver prints an error that names the
  behaviour and the SWI-Prolog version, and calling the check throws it.
- Reading the domain from the wrong place of clpfd's attribute is caught
  too (a copy of prolog/ with that one change).
- fd_restrict/2 does what the public X in_set S does when S holds the
  values of the mask, a subset of the domain: on random domains and
  masks, the same domain, the same binding, failure on the empty mask,
  and the constraints on X woken.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from plpuzzle.runtime import prolog_file

#: What the error says before the behaviour, whatever the behaviour.
HEADLINE = re.compile(
    r"library\(clpfd\) of SWI-Prolog \d+\.\d+\.\d+ does not behave as "
    r"prolog/clpfd_internals\.pl relies on"
)


def swipl(*goals: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run the goals in order in a fresh swipl with clpfd loaded."""
    args = ["swipl", "-q", "-g", "use_module(library(clpfd))"]
    for goal in goals:
        args += ["-g", goal]
    return subprocess.run(
        [*args, "-t", "halt"], capture_output=True, text=True, timeout=timeout, check=False
    )


def load(path: Path) -> str:
    return f"use_module('{path}')"


def test_the_self_check_passes_cheaply_and_the_solver_loads_silently() -> None:
    out = swipl(
        load(prolog_file("sudoku.pl")),
        "statistics(cputime, T0), "
        "forall(between(1, 200, _), clpfd_internals:clpfd_internals_self_check), "
        "statistics(cputime, T1), Ms is (T1 - T0) / 200 * 1000, "
        "format('~4f~n', [Ms])",
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # no warning, no error at load
    assert float(out.stdout) < 5  # about 0.1 ms on a laptop


#: (name, a redefinition made before loading, the predicate of
#: clpfd_internals.pl named, a phrase of the behaviour named)
BROKEN = [
    (
        "enable_queue_runs_the_queue",
        "abolish(clpfd:enable_queue/0), "
        "assertz((clpfd:enable_queue :- "
        "b_setval('$clpfd_queue_status', enabled), clpfd:do_queue))",
        "queue_on/0",
        "enable_queue/0 does not run the queue",
    ),
    (
        "disable_queue_does_nothing",
        "abolish(clpfd:disable_queue/0), assertz(clpfd:disable_queue)",
        "queue_off/0",
        "disable_queue/0 holds back the propagators",
    ),
    (
        "neq_num_does_nothing",
        "abolish(clpfd:neq_num/2), assertz(clpfd:neq_num(_, _))",
        "fd_remove/2",
        "neq_num/2 removes exactly the value V",
    ),
    (
        "a_trigger_ignores_the_current_propagator",
        # clpfd 9.0.4's trigger_prop/1 without its test of
        # '$clpfd_current_propagator'.
        "abolish(clpfd:trigger_prop/1), "
        "assertz((clpfd:trigger_prop(P) :- clpfd:propagator_state(P, S), "
        "( S == dead -> true ; get_attr(S, clpfd_aux, queued) -> true "
        "; put_attr(S, clpfd_aux, queued), clpfd:push_queue(P, 1) )))",
        "set_current_propagator/1",
        "is not queued again by its own prunings",
    ),
]


@pytest.mark.parametrize(
    ("redefine", "predicate", "behaviour"),
    [case[1:] for case in BROKEN],
    ids=[case[0] for case in BROKEN],
)
def test_a_changed_internal_makes_the_load_fail_loudly(
    redefine: str, predicate: str, behaviour: str
) -> None:
    out = swipl(
        redefine,
        load(prolog_file("sudoku.pl")),
        "catch(clpfd_internals:clpfd_internals_self_check, "
        "error(clpfd_internal_changed(P, _, V), _), "
        "( print(P-V), nl )) -> true ; writeln(no_error)",
    )
    # At load: an error that names the behaviour and the version.
    assert "Initialization goal raised exception" in out.stderr, out.stderr
    assert HEADLINE.search(out.stderr), out.stderr
    assert f"{predicate}: " in out.stderr, out.stderr
    assert behaviour in out.stderr, out.stderr
    # Called again: the same error, as a term.
    assert re.fullmatch(rf"{re.escape(predicate)}-'\d+\.\d+\.\d+'", out.stdout.strip())


def test_reading_the_wrong_part_of_the_attribute_is_caught(tmp_path: Path) -> None:
    """A clpfd that moved the domain inside its attribute is simulated by
    our reading the field before it."""
    copy = tmp_path / "prolog"
    shutil.copytree(prolog_file("sudoku.pl").parent, copy)
    source = copy / "clpfd_internals.pl"
    text = source.read_text(encoding="utf-8")
    assert text.count("clpfd_attr(_, _, _, Dom, _)") == 1
    source.write_text(text.replace("clpfd_attr(_, _, _, Dom, _)", "clpfd_attr(_, _, Dom, _, _)"))
    out = swipl(load(copy / "sudoku.pl"))
    assert HEADLINE.search(out.stderr), out.stderr
    assert "fd_domain_mask/2: " in out.stderr, out.stderr


#: fd_restrict/2 against X in_set S on random cases (seeded).  Domains in
#: 1..M with random holes, M sometimes above 64 (masks wider than a
#: machine word), X always a variable (fd_restrict/2 is for clpfd
#: variables: on an integer it fails, where in_set succeeds).  The mask
#: keeps each value of the domain with a random probability, so it is
#: now and then the whole domain, one value or none.  Each copy of X has
#: a constraint Z #= X + 1: fd_restrict/2 only queues it, so the check
#: posts Z #\= 0 (true, but it runs clpfd's queue) on both copies before
#: comparing Z.  Tags: `bad` (the two differ), `failed` (both failed),
#: `bound`, `narrowed` (a variable with fewer values), `same` (the mask
#: was the whole domain).
RESTRICT_PROGRAM = r"""
restrict_vs_in_set(Cases, Counts) :-
    findall(Tag, ( between(1, Cases, _), restrict_case(Tag) ), Tags),
    findall(T-N, ( member(T, [bad, failed, bound, narrowed, same]),
                   aggregate_all(count, member(T, Tags), N) ), Counts).

restrict_case(Tag) :-
    (   random(R), R < 0.2 -> random_between(60, 100, M)
    ;   random_between(2, 12, M)
    ),
    X in 1..M,
    random_between(0, M, Holes),
    forall(between(1, Holes, _),
           ( random_between(1, M, H),
             ( fd_size(X, Size), Size > 2 -> X #\= H ; true ) )),
    fd_set(X, Set0),
    fdset_to_list(Set0, Values),
    random(Keep),
    include(kept(Keep), Values, Kept),
    foldl(set_bit, Kept, 0, Mask),
    list_to_fdset(Kept, Set),
    copy_term(X, X2, Gs), maplist(call, Gs),
    Z #= X + 1, Z2 #= X2 + 1,
    fd_dom(X, D0),
    (   fd_restrict(X, Mask)
    ->  (   X2 in_set Set,
            fd_dom(X, D), fd_dom(X2, D),
            ( integer(X) -> integer(X2) ; var(X2) ),
            Z #\= 0, Z2 #\= 0,
            fd_dom(Z, DZ), fd_dom(Z2, DZ)
        ->  (   integer(X) -> Tag = bound
            ;   D == D0 -> Tag = same
            ;   Tag = narrowed
            )
        ;   Tag = bad
        )
    ;   \+ X2 in_set Set, Mask =:= 0
    ->  Tag = failed
    ;   Tag = bad
    ).

kept(Keep, _) :- random(R), R < Keep.

set_bit(V, M0, M) :- M is M0 \/ (1 << V).
"""


def test_fd_restrict_does_what_in_set_does(tmp_path: Path) -> None:
    program = tmp_path / "restrict.pl"
    program.write_text(RESTRICT_PROGRAM, encoding="utf-8")
    out = swipl(
        load(prolog_file("clpfd_internals.pl")),
        "set_random(seed(7))",
        f"consult('{program}')",
        "restrict_vs_in_set(3000, Counts), print(Counts)",
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == "", out.stderr
    counts = {tag: int(n) for tag, n in re.findall(r"(\w+)-(\d+)", out.stdout)}
    assert counts["bad"] == 0, counts
    # Every kind of outcome occurs: the empty mask fails, a one-value
    # mask binds, others narrow or keep the domain.
    assert counts["failed"] > 0, counts
    assert counts["bound"] > 0, counts
    assert counts["narrowed"] > 0, counts
    assert counts["same"] > 0, counts
