"""Turns to run, handed out fairly between the gradings that share one
machine (or one cluster): the student is the unit of scheduling.

A service grades many uploads at once, each by the grader's own
scheduler (the local pool, or the Dask cluster), and checks that each
new upload loads. Each such job holds a `Ticket` of the shared
`FairShare`; before any of its runs (a load check, a test, or the
feedback's search) it waits for a `Turn`, and `capacity` turns at most
are out at once. Who gets the next free turn:

1. the best rank first (a service ranks load checks and public tests 0,
   the other tests 1 and a teacher's regrades 2): each rank is a *lane*;
2. within a lane, a rotation between students in rounds: each student
   gets one turn a round, and a turn moves the student to the next
   round. A student who comes to the lane with nothing waiting or
   running there enters the current round (the round of the turn last
   handed out), behind those already waiting in it; one who had fallen
   behind it is brought up to it;
3. within a round, the student who has waited longest, then the
   student's newest grading, then first come first served.

So a request that comes to a lane where its student has nothing
waiting or running gets a turn after at most one turn of each other
student in that lane (and of better ranks), whatever their number of
uploads or the length of their turns: `the bound`. What counts is turns,
not seconds: a turn is one run at least (a load check, 15 s at most, or
a test) and is given back at a run's end once `quantum` seconds passed
while others of the same rank wait.

A turn is given back when the job has no more work for it, or when
`Turn.over` says so at a run's end: at once when a better rank waits,
and after `quantum` seconds when any other job of the same rank or
better waits. A running test is never cut short. So that a better rank
never waits for a whole test of a worse one, `reserve` turns beyond the
capacity are for rank 0 only, held as any other turn of theirs (a
machine runs one more process than it has cores while rank-0 work
waits; time limits are CPU time, so no verdict changes). A job may keep
its turn for its next runs (`Ticket.keep`): an upload's public tests,
and then its reports, go on in the turn of its load check.

A cancelled ticket (its upload replaced by a newer one) gets no turn
more: waiting for one raises `Cancelled`, and `Turn.over` says yes.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

#: Seconds a turn is kept while others of the same rank wait: long enough
#: that loading a submission again (about a second) costs little.
QUANTUM = 20.0
#: Events the share remembers (for the status page and for tests).
HISTORY = 2000


class Cancelled(Exception):
    """The ticket was cancelled: its grading is not wanted any more."""


@dataclass(eq=False)
class Ticket:
    """One job's claim on the share: who it is for, and how urgent."""

    share: FairShare
    student: str
    rank: int
    #: Bigger is newer: a student's newest grading goes first.
    order: int
    cancelled: bool = False
    #: Seconds of turns this ticket has held (its work, for estimates).
    used: float = 0.0
    #: A turn kept for the ticket's next run (see `keep`).
    kept: Turn | None = None

    def wait_turn(self, timeout: float | None = None) -> Turn:
        """Block until this ticket gets a turn; Cancelled if it is cancelled
        (TimeoutError after `timeout` seconds, when given)."""
        return self.share._wait(self, timeout)

    def ask(self) -> Request:
        """Ask for a turn without waiting: the request's `turn` is set
        when it comes (its `event` too)."""
        return self.share._ask(self)

    @contextmanager
    def turn(self) -> Iterator[Turn]:
        """A turn for the length of a block."""
        held = self.wait_turn()
        try:
            yield held
        finally:
            held.end()

    def keep(self, turn: Turn) -> None:
        """Keep `turn` for this ticket's next wait_turn, unless it is over
        by then: a job's next run goes on in the same turn, counted as one.
        A run of this ticket's already waiting gets it at once: a turn kept
        idle while its own job waits for one would hold it for nothing
        (every turn so kept, no job would go on)."""
        with self.share._lock:
            if self.kept is not None and self.kept is not turn:
                self.share._end(self.kept)
            self.kept = None
            if self.cancelled:
                self.share._end(turn)
                return
            mine = next((r for r in self.share._waiting if r.ticket is self), None)
            if mine is None:
                self.kept = turn
            elif turn.ended or self.share._over(turn):
                self.share._end(turn)
            else:
                self.share._waiting.remove(mine)
                mine.turn = turn
                mine.event.set()

    def release(self) -> None:
        """Give back a kept turn (the job is done)."""
        with self.share._lock:
            if self.kept is not None:
                self.share._end(self.kept)
                self.kept = None

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
class Request:
    """A ticket's wait for one turn."""

    ticket: Ticket
    seq: int
    turn: Turn | None = None
    #: Set when the request got its turn or its ticket was cancelled
    #: (each waiter is woken alone, never the whole crowd).
    event: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class Event:
    """One thing the share did: a request came ("ask") or got a turn
    ("turn"), numbered in the order they happened."""

    number: int
    kind: str
    student: str
    rank: int
    order: int
    #: The student's round in the lane: the one it waits in, or was served in.
    round: int


class FairShare:
    """`capacity` turns (plus `reserve` for rank 0), shared fairly."""

    def __init__(self, capacity: int, quantum: float = QUANTUM, reserve: int = 1,
                 clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self._lock = threading.RLock()
        self.capacity = max(0, capacity)
        self.quantum = quantum
        self.reserve = reserve
        self.clock = clock
        self._waiting: list[Request] = []
        self._turns: set[Turn] = set()
        #: (student, rank) -> the round of the lane that student is in.
        self._round: dict[tuple[str, int], int] = {}
        #: rank -> the lane's current round: that of the turn last handed out.
        self._current: dict[int, int] = {}
        self._seq = 0
        #: Turns handed out since the start, and seconds of turns given back.
        self.granted = 0
        self.busy_seconds = 0.0
        self.history: deque[Event] = deque(maxlen=HISTORY)
        self._events = 0

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

    def standing(self, student: str, rank: int) -> int:
        """The round of the lane a request of the student's would wait in
        now (a job that is not open yet is opened in this order)."""
        with self._lock:
            return self._entry_round(student, rank)

    def events(self, after: int = 0) -> list[Event]:
        """The events remembered, numbered beyond `after`."""
        with self._lock:
            return [e for e in self.history if e.number > after]

    # -- the tickets' side ------------------------------------------------

    def _ask(self, ticket: Ticket) -> Request:
        with self._lock:
            if ticket.cancelled:
                raise Cancelled
            lane = (ticket.student, ticket.rank)
            self._round[lane] = self._entry_round(*lane)
            self._seq += 1
            request = Request(ticket, self._seq)
            self._waiting.append(request)
            self._note("ask", ticket)
            self._hand_out()
            return request

    def _wait(self, ticket: Ticket, timeout: float | None) -> Turn:
        end = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            if ticket.kept is not None and not ticket.cancelled:
                kept, ticket.kept = ticket.kept, None
                if not kept.ended and not self._over(kept):
                    return kept
                self._end(kept)
            request = self._ask(ticket)
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

    def _entry_round(self, student: str, rank: int) -> int:
        """The round a request of the student's waits in: the lane's current
        round when the student has nothing waiting or running there (what
        the bound rests on), else their own, never behind the current."""
        current = self._current.get(rank, 0)
        if not self._active(student, rank):
            return current
        return max(self._round.get((student, rank), current), current)

    def _active(self, student: str, rank: int) -> bool:
        """Whether the student waits for or holds a turn in that lane."""
        return any(r.ticket.student == student and r.ticket.rank == rank
                   for r in self._waiting) or any(
            t.ticket.student == student and t.ticket.rank == rank for t in self._turns
        )  # fmt: skip

    def _note(self, kind: str, ticket: Ticket) -> None:
        self._events += 1
        self.history.append(Event(self._events, kind, ticket.student, ticket.rank, ticket.order,
                                  self._round.get((ticket.student, ticket.rank), 0)))  # fmt: skip

    def _drop(self, request: Request) -> None:
        if request in self._waiting:
            self._waiting.remove(request)

    def _cancel(self, ticket: Ticket) -> None:
        with self._lock:
            ticket.cancelled = True
            for request in [r for r in self._waiting if r.ticket is ticket]:
                self._waiting.remove(request)
                request.event.set()
            if ticket.kept is not None:
                self._end(ticket.kept)
                ticket.kept = None

    def _over(self, turn: Turn) -> bool:
        with self._lock:
            if turn.ticket.cancelled:
                return True
            mine = turn.ticket
            others = [r.ticket for r in self._waiting if r.ticket is not mine]
            if any(t.rank < mine.rank for t in others):
                return True
            held_long = self.clock() - turn.started >= self.quantum
            return held_long and any(t.rank <= mine.rank for t in others)

    def _end(self, turn: Turn) -> None:
        with self._lock:
            if turn.ended:
                return
            turn.ended = True
            self._turns.discard(turn)
            seconds = self.clock() - turn.started
            turn.ticket.used += seconds
            self.busy_seconds += seconds
            self._hand_out()

    # -- handing out --------------------------------------------------------

    def _best(self) -> Request:
        """The waiting request whose turn is next: by rank, by the round of
        its student in the lane, then the student waiting longest (by
        their first request), their newest grading, first come first."""
        since: dict[tuple[str, int], int] = {}
        for r in self._waiting:
            lane = (r.ticket.student, r.ticket.rank)
            since[lane] = min(since.get(lane, r.seq), r.seq)

        def key(r: Request) -> tuple[int, int, int, int, int]:
            lane = (r.ticket.student, r.ticket.rank)
            return (r.ticket.rank, self._round[lane], since[lane], -r.ticket.order, r.seq)

        return min(self._waiting, key=key)

    def _hand_out(self) -> None:
        """Give free turns to the best waiting requests (the lock is held)."""
        regular = sum(1 for t in self._turns if not t.reserved)
        for t in self._turns:  # a lent turn becomes a regular one when one is free
            if t.reserved and regular < self.capacity:
                t.reserved, regular = False, regular + 1
        while self._waiting:
            best = self._best()
            regular = sum(1 for t in self._turns if not t.reserved)
            if regular < self.capacity:
                reserved = False
            elif best.ticket.rank == 0 and len(self._turns) - regular < self.reserve:
                reserved = True
            else:
                break
            self._waiting.remove(best)
            best.turn = Turn(best.ticket, started=self.clock(), reserved=reserved)
            self._turns.add(best.turn)
            rank, lane = best.ticket.rank, (best.ticket.student, best.ticket.rank)
            self._current[rank] = max(self._current.get(rank, 0), self._round[lane])
            self._note("turn", best.ticket)
            self._round[lane] += 1
            self.granted += 1
            best.event.set()
