"""Fairness between students, and its bound: load checks are jobs of the
grading queue's one fair share (a student's slow-loading files take that
student's turns, not a pool of their own), and a student who comes to a
lane with nothing waiting or running there gets a turn after at most one
turn of each other student in it.

The bound is checked on the share itself with random arrivals and ends
(hypothesis; no clock is read: turns end when the test says), and on a
real `plpuzzle sudoku serve` from the share's own record of turns, which
the teacher's /status/turns.json gives: order and counts, never
durations.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from plpuzzle.sudoku.grading.scheduling.fair_share import Cancelled, FairShare, Request, Turn

# -- the bound, on the share itself ---------------------------------------------------------


@dataclass
class Watch:
    """A request made by a student with nothing else in its lane: the
    turns each other student got in that lane before it did."""

    student: str
    rank: int
    others: Counter[str] = field(default_factory=Counter)


@dataclass
class Run:
    """A share driven step by step, with what the test knows of it."""

    share: FairShare
    waiting: list[Request] = field(default_factory=list)
    held: list[Turn] = field(default_factory=list)
    watches: list[Watch] = field(default_factory=list)
    seen: int = 0
    worst: int = 0

    def active(self, student: str, rank: int) -> bool:
        lane = [r.ticket for r in self.waiting] + [t.ticket for t in self.held]
        return any(t.student == student and t.rank == rank for t in lane)

    def settle(self) -> None:
        """Move granted requests to the held turns; read the share's new
        events and count, for every watch, the turns of others first."""
        for request in [r for r in self.waiting if r.turn is not None]:
            self.waiting.remove(request)
            assert request.turn is not None
            self.held.append(request.turn)
        for event in self.share.events(self.seen):
            self.seen = event.number
            if event.kind != "turn":
                continue
            for watch in list(self.watches):
                if watch.rank != event.rank:
                    continue
                if watch.student == event.student:
                    self.watches.remove(watch)
                    continue
                watch.others[event.student] += 1
                self.worst = max(self.worst, watch.others[event.student])

    def ask(self, student: str, rank: int, order: int) -> None:
        if not self.active(student, rank):
            self.watches.append(Watch(student, rank))
        self.waiting.append(self.share.ticket(student, rank, order).ask())
        self.settle()

    def end(self, index: int) -> None:
        if self.held:
            self.held.pop(index % len(self.held)).end()
            self.settle()

    def cancel(self, index: int) -> None:
        if self.waiting:
            ticket = self.waiting[index % len(self.waiting)].ticket
            ticket.cancel()
            self.waiting = [r for r in self.waiting if r.ticket is not ticket]
            lane = (ticket.student, ticket.rank)
            if not self.active(*lane):
                self.watches = [w for w in self.watches if (w.student, w.rank) != lane]
            self.settle()


STUDENTS = st.sampled_from(["amy", "ben", "cat", "dan"])
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("ask"), STUDENTS, st.integers(0, 1), st.integers(0, 9)),
        st.tuples(st.just("end"), st.integers(0, 50)),
        st.tuples(st.just("cancel"), st.integers(0, 50)),
    ),
    max_size=120,
)


#: The issue's case: amy was served in the current round and comes back
#: while dan runs and ben (who asked twice) and cat wait; she must not
#: wait for ben's second turn as well as his first.
CAME_BACK = [("ask", "amy", 0, 0), ("end", 0), ("ask", "dan", 0, 0), ("ask", "ben", 0, 0),
             ("ask", "ben", 0, 0), ("ask", "cat", 0, 0), ("ask", "amy", 0, 0)]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(capacity=st.integers(1, 3), reserve=st.integers(0, 1), steps=STEPS)
@example(capacity=1, reserve=0, steps=CAME_BACK)
def test_a_student_new_to_a_lane_waits_for_at_most_one_turn_of_each_other(
    capacity: int, reserve: int, steps: list[tuple[Any, ...]]
) -> None:
    """Whatever the arrivals, ends and cancellations: between a request of
    a student with nothing waiting or running in its lane and that
    student's next turn there, no other student gets two turns in the
    lane; and every request gets its turn once turns are given back."""
    run = Run(FairShare(capacity, quantum=0, reserve=reserve, clock=lambda: 0.0))
    for step in steps:
        if step[0] == "ask":
            run.ask(step[1], step[2], step[3])
        elif step[0] == "end":
            run.end(step[1])
        else:
            run.cancel(step[1])
        assert run.worst <= 1, run.watches
    for _ in range(10 * len(steps) + 10):  # everyone is served in the end
        if not run.held:
            break
        run.end(0)
    assert not run.waiting and not run.watches and run.worst <= 1


def test_a_kept_turn_goes_on_unless_it_is_over() -> None:
    """A job keeps its turn for its next run (an upload's public tests
    after its load check), counted as one turn; once others of its rank
    waited the quantum, it gives the turn back and waits in the rotation."""
    now = [0.0]
    share = FairShare(1, quantum=10, reserve=0, clock=lambda: now[0])
    amy = share.ticket("amy", 0, 1)
    turn = amy.wait_turn()
    ben = share.ticket("ben", 0, 2).ask()
    amy.keep(turn)
    assert amy.wait_turn() is turn  # not over: the same turn, no new one
    assert [e.kind for e in share.events()].count("turn") == 1
    now[0] = 11.0
    amy.keep(turn)
    late = share.ticket("amy", 0, 1)
    assert ben.turn is None
    with pytest.raises(TimeoutError):  # over: given back, and ben goes first
        amy.wait_turn(timeout=0.05)
    assert ben.turn is not None and turn.ended
    ben.turn.end()
    assert late.wait_turn(timeout=5).ticket is late
    late.cancel()
    with pytest.raises(Cancelled):
        late.wait_turn()
