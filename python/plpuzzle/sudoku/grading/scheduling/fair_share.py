"""Turns to run, handed out fairly between the gradings that share one
machine (or one cluster): the student is the unit of scheduling.

A service grades many uploads at once, each by the grader's own
scheduler (the local pool, or the Dask cluster). Each such grading holds
a `Ticket` of the shared `FairShare`; before any of its runs (a test, or
the feedback's search) it waits for a `Turn`, and `capacity` turns at
most are out at once. Who gets the next free turn:

1. the best rank first (a service ranks an upload's public tests 0, its
   other tests 1 and a teacher's regrades 2);
2. then the student holding the fewest turns;
3. then the student served longest ago, by the end of their last turn
   (round-robin between students);
4. then the student's newest grading, and first come first served.

A turn is given back when the grading has no more work for it, or when
`Turn.over` says so at a test's end: at once when a better rank waits,
and after `quantum` seconds when any other grading of the same rank or
better waits. A running test is never cut short. So that a better rank
never waits for a whole test of a worse one, `reserve` turns beyond the
capacity are for rank 0 only (a machine briefly runs one more process
than it has cores; time limits are CPU time, so no verdict changes).

A cancelled ticket (its upload replaced by a newer one) gets no turn
more: waiting for one raises `Cancelled`, and `Turn.over` says yes.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

#: Seconds a turn is kept while others of the same rank wait: long enough
#: that loading a submission again (about a second) costs little.
QUANTUM = 20.0


class Cancelled(Exception):
    """The ticket was cancelled: its grading is not wanted any more."""


@dataclass(eq=False)
class Ticket:
    """One grading's claim on the share: who it is for, and how urgent."""

    share: FairShare
    student: str
    rank: int
    #: Bigger is newer: a student's newest grading goes first.
    order: int
    cancelled: bool = False
    #: Seconds of turns this ticket has held (its work, for estimates).
    used: float = 0.0

    def wait_turn(self, timeout: float | None = None) -> Turn:
        """Block until this ticket gets a turn; Cancelled if it is cancelled
        (TimeoutError after `timeout` seconds, when given)."""
        return self.share._wait(self, timeout)

    @contextmanager
    def turn(self) -> Iterator[Turn]:
        """A turn for the length of a block."""
        held = self.wait_turn()
        try:
            yield held
        finally:
            held.end()

    def cancel(self) -> None:
        """No more turns: waiting ones raise Cancelled, held ones are over."""
        self.share._cancel(self)


@dataclass(eq=False)
class Turn:
    """The right to run, held by one of a ticket's job slots."""

    ticket: Ticket
    started: float = field(default_factory=time.monotonic)
    #: Granted from the rank-0 reserve (beyond the capacity).
    reserved: bool = False
    ended: bool = False

    def over(self) -> bool:
        """Whether this turn should be given back now (at a test's end)."""
        return self.ticket.share._over(self)

    def end(self) -> None:
        """Give the turn back (twice is once)."""
        self.ticket.share._end(self)


@dataclass(eq=False)
class _Request:
    ticket: Ticket
    seq: int
    turn: Turn | None = None
    #: Set when the request got its turn or its ticket was cancelled
    #: (each waiter is woken alone, never the whole crowd).
    event: threading.Event = field(default_factory=threading.Event)


class FairShare:
    """`capacity` turns (plus `reserve` for rank 0), shared fairly."""

    def __init__(self, capacity: int, quantum: float = QUANTUM, reserve: int = 1) -> None:
        self._lock = threading.RLock()
        self.capacity = max(0, capacity)
        self.quantum = quantum
        self.reserve = reserve
        self._waiting: list[_Request] = []
        self._turns: set[Turn] = set()
        self._held: Counter[str] = Counter()
        self._served: dict[str, float] = {}
        self._seq = 0
        #: Turns handed out since the start, and seconds of turns given back.
        self.granted = 0
        self.busy_seconds = 0.0

    def ticket(self, student: str, rank: int, order: int = 0) -> Ticket:
        return Ticket(self, student, rank, order)

    def set_capacity(self, capacity: int) -> None:
        """A new number of turns (a cluster that grew or shrank)."""
        with self._lock:
            self.capacity = max(0, capacity)
            self._hand_out()

    def snapshot(self) -> dict[str, object]:
        """What the share is doing, for a status page."""
        with self._lock:
            running: Counter[str] = Counter(t.ticket.student for t in self._turns)
            waiting: Counter[str] = Counter(r.ticket.student for r in self._waiting)
            return {"capacity": self.capacity, "running": dict(running),
                    "waiting": dict(waiting), "turns": len(self._turns)}  # fmt: skip

    # -- the tickets' side ------------------------------------------------

    def _wait(self, ticket: Ticket, timeout: float | None) -> Turn:
        end = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            if ticket.cancelled:
                raise Cancelled
            self._seq += 1
            request = _Request(ticket, self._seq)
            self._waiting.append(request)
            self._hand_out()
        while True:
            left = None if end is None else max(0.0, end - time.monotonic())
            request.event.wait(left)
            with self._lock:
                if request.turn is not None:
                    return request.turn
                if ticket.cancelled or (end is not None and time.monotonic() >= end):
                    self._drop(request)
                    if ticket.cancelled:
                        raise Cancelled
                    raise TimeoutError("no turn in time")

    def _drop(self, request: _Request) -> None:
        if request in self._waiting:
            self._waiting.remove(request)

    def _cancel(self, ticket: Ticket) -> None:
        with self._lock:
            ticket.cancelled = True
            for request in [r for r in self._waiting if r.ticket is ticket]:
                self._waiting.remove(request)
                request.event.set()

    def _over(self, turn: Turn) -> bool:
        with self._lock:
            if turn.ticket.cancelled:
                return True
            mine = turn.ticket
            others = [r.ticket for r in self._waiting if r.ticket is not mine]
            if turn.reserved and any(t.rank == 0 for t in others):
                return True  # the reserve is lent for one test at a time
            if any(t.rank < mine.rank for t in others):
                return True
            held_long = time.monotonic() - turn.started >= self.quantum
            return held_long and any(t.rank <= mine.rank for t in others)

    def _end(self, turn: Turn) -> None:
        with self._lock:
            if turn.ended:
                return
            turn.ended = True
            self._turns.discard(turn)
            self._held[turn.ticket.student] -= 1
            if self._held[turn.ticket.student] <= 0:
                del self._held[turn.ticket.student]
            seconds = time.monotonic() - turn.started
            self._served[turn.ticket.student] = time.monotonic()
            turn.ticket.used += seconds
            self.busy_seconds += seconds
            self._hand_out()

    # -- handing out --------------------------------------------------------

    def _key(self, request: _Request) -> tuple[int, int, float, int, int]:
        t = request.ticket
        served = self._served.get(t.student, -math.inf)
        return (t.rank, self._held[t.student], served, -t.order, request.seq)

    def _hand_out(self) -> None:
        """Give free turns to the best waiting requests (the lock is held)."""
        regular = sum(1 for t in self._turns if not t.reserved)
        for t in self._turns:  # a lent turn becomes a regular one when one is free
            if t.reserved and regular < self.capacity:
                t.reserved, regular = False, regular + 1
        while self._waiting:
            best = min(self._waiting, key=self._key)
            regular = sum(1 for t in self._turns if not t.reserved)
            if regular < self.capacity:
                reserved = False
            elif best.ticket.rank == 0 and len(self._turns) - regular < self.reserve:
                reserved = True
            else:
                break
            self._waiting.remove(best)
            best.turn = Turn(best.ticket, reserved=reserved)
            self._turns.add(best.turn)
            self._held[best.ticket.student] += 1
            self._served[best.ticket.student] = time.monotonic()
            self.granted += 1
            best.event.set()
