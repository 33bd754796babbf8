"""The fair share of turns between gradings: who gets the next turn, when a
turn is over, cancelling. Threads wait for turns as job slots do; no
assertion depends on how fast anything runs."""

from __future__ import annotations

import threading
import time

import pytest

from plpuzzle.sudoku.grading.scheduling.fair_share import Cancelled, FairShare, Ticket, Turn


class Waiter:
    """A thread waiting for a turn of `ticket`, as a job slot does."""

    def __init__(self, ticket: Ticket) -> None:
        self.ticket = ticket
        self.turn: Turn | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._wait, daemon=True)
        self.thread.start()

    def _wait(self) -> None:
        try:
            self.turn = self.ticket.wait_turn()
        except BaseException as e:
            self.error = e

    def got(self) -> bool:
        return self.turn is not None


def waiting(share: FairShare, count: int) -> None:
    """Until `count` requests wait (a generous bound, never a verdict)."""
    deadline = time.monotonic() + 30
    while sum(share.snapshot()["waiting"].values()) < count:  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, share.snapshot()
        time.sleep(0.01)


def holders(share: FairShare) -> dict[str, int]:
    """Who holds turns now: handing out happens inside end(), so this is
    exact right after it, whether or not the waiters woke yet."""
    return share.snapshot()["running"]  # type: ignore[return-value]


def test_no_more_turns_than_the_capacity() -> None:
    share = FairShare(2, reserve=0)
    a = share.ticket("a", 1)
    held = [a.wait_turn(), a.wait_turn()]
    third = Waiter(a)
    waiting(share, 1)
    assert not third.got()
    held[0].end()
    third.thread.join(timeout=30)
    assert third.got()
    held[0].end()  # twice is once
    assert share.snapshot()["turns"] == 2


def test_a_student_who_waits_goes_before_one_who_holds_turns() -> None:
    """Round-robin: bob, waiting, gets the turn alice gives back, though
    alice asked again first."""
    share = FairShare(1, reserve=0)
    alice = share.ticket("alice", 1, order=1)
    mine = alice.wait_turn()
    bob = Waiter(share.ticket("bob", 1, order=2))
    waiting(share, 1)
    again = Waiter(alice)
    waiting(share, 2)
    mine.end()
    assert holders(share) == {"bob": 1}
    bob.thread.join(timeout=30)
    assert bob.turn is not None
    bob.turn.end()
    assert holders(share) == {"alice": 1}
    again.thread.join(timeout=30)
    assert again.got()


def test_a_student_who_comes_back_enters_the_current_round() -> None:
    """Carol was served a moment ago and has nothing left: coming back,
    she enters the current round in her order of arrival, not behind
    every student who has not been served since."""
    share = FairShare(1, reserve=0)
    first = share.ticket("carol", 1)
    first.wait_turn().end()  # carol was served just now
    holder = share.ticket("dave", 1).wait_turn()
    carol = Waiter(first)
    waiting(share, 1)
    erin = Waiter(share.ticket("erin", 1))  # never served, but came after her
    waiting(share, 2)
    holder.end()
    assert holders(share) == {"carol": 1}
    carol.thread.join(timeout=30)
    assert carol.got() and not erin.got()


def test_a_better_rank_goes_first_and_a_teachers_regrade_last() -> None:
    share = FairShare(1, reserve=0)
    holder = share.ticket("x", 1).wait_turn()
    regrade = Waiter(share.ticket("r", 2))
    rest = Waiter(share.ticket("s", 1))
    public = Waiter(share.ticket("p", 0))
    waiting(share, 3)
    holder.end()
    assert holders(share) == {"p": 1}
    public.thread.join(timeout=30)
    assert public.turn is not None
    public.turn.end()
    assert holders(share) == {"s": 1}
    rest.thread.join(timeout=30)
    assert rest.got() and not regrade.got()


def test_a_students_newest_grading_goes_first() -> None:
    share = FairShare(1, reserve=0)
    holder = share.ticket("x", 1).wait_turn()
    old = Waiter(share.ticket("amy", 1, order=3))
    waiting(share, 1)
    new = Waiter(share.ticket("amy", 1, order=7))
    waiting(share, 2)
    holder.end()
    new.thread.join(timeout=30)
    assert new.turn is not None and new.turn.ticket.order == 7
    assert holders(share) == {"amy": 1} and not old.got()


def test_one_more_turn_is_kept_for_public_tests_only() -> None:
    share = FairShare(1, reserve=1)
    share.ticket("x", 1).wait_turn()
    other = Waiter(share.ticket("y", 1))
    public = Waiter(share.ticket("p", 0))
    public.thread.join(timeout=30)
    waiting(share, 1)
    assert holders(share) == {"x": 1, "p": 1}
    assert public.turn is not None and public.turn.reserved
    assert not other.got()


def test_a_lent_turn_becomes_a_regular_one_when_one_is_free() -> None:
    share = FairShare(1, reserve=1)
    regular = share.ticket("x", 1).wait_turn()
    lent = share.ticket("p", 0).wait_turn()
    assert lent.reserved
    regular.end()
    assert not lent.reserved
    assert share.ticket("q", 0).wait_turn().reserved  # the reserve is free again


def test_a_turn_is_over_at_once_for_a_better_rank_and_after_the_quantum_for_an_equal() -> None:
    share = FairShare(1, quantum=3600, reserve=0)
    turn = share.ticket("x", 1).wait_turn()
    assert not turn.over()  # nobody waits
    same = Waiter(share.ticket("y", 1))
    waiting(share, 1)
    assert not turn.over()  # an equal waits, but the quantum is not over
    better = Waiter(share.ticket("z", 0))
    waiting(share, 2)
    assert turn.over()  # a better rank waits
    turn.end()
    for w in (same, better):
        w.thread.join(timeout=0.5)
    assert better.turn is not None
    share.quantum = 0
    assert better.turn.over() is False  # a worse rank waits: no reason to give way
    short = FairShare(1, quantum=0, reserve=0)
    held = short.ticket("x", 1).wait_turn()
    Waiter(short.ticket("y", 1))
    waiting(short, 1)
    assert held.over()  # the quantum (0 s) is over and an equal waits


def test_only_the_same_gradings_requests_do_not_end_a_turn() -> None:
    share = FairShare(1, quantum=0, reserve=0)
    ticket = share.ticket("x", 1)
    turn = ticket.wait_turn()
    Waiter(ticket)  # its own second job slot
    waiting(share, 1)
    assert not turn.over()


def test_a_cancelled_ticket_gets_no_turn_and_its_turns_are_over() -> None:
    share = FairShare(1, reserve=0)
    held_ticket = share.ticket("x", 1)
    turn = held_ticket.wait_turn()
    doomed = share.ticket("y", 1)
    waiter = Waiter(doomed)
    waiting(share, 1)
    doomed.cancel()
    waiter.thread.join(timeout=30)
    assert isinstance(waiter.error, Cancelled)
    with pytest.raises(Cancelled):
        doomed.wait_turn()
    held_ticket.cancel()
    assert turn.over()
    turn.end()
    assert share.snapshot()["turns"] == 0


def test_a_capacity_that_grows_hands_out_turns_at_once() -> None:
    share = FairShare(0, reserve=0)
    for i in range(3):
        Waiter(share.ticket(f"s{i}", 1))
    waiting(share, 3)
    share.set_capacity(2)
    assert sum(holders(share).values()) == 2
    assert sum(share.snapshot()["waiting"].values()) == 1  # type: ignore[attr-defined]


def test_a_wait_can_time_out_and_leaves_no_request_behind() -> None:
    share = FairShare(0, reserve=0)
    with pytest.raises(TimeoutError):
        share.ticket("x", 1).wait_turn(timeout=0.01)
    assert share.snapshot()["waiting"] == {}


def test_a_turn_kept_goes_to_a_run_of_the_same_job_that_waits() -> None:
    """A job's slot that ends its work keeps its turn for the job's next
    run; when another slot of the same job already waits for a turn, that
    slot gets it at once: kept idle, every turn of a full machine could sit
    with jobs whose runs wait, and none would go on (a class of four on two
    cores stalled so)."""
    share = FairShare(1, reserve=0)
    ticket = share.ticket("alice", 1)
    first = ticket.wait_turn(timeout=5)
    got: list[Turn] = []
    second = threading.Thread(target=lambda: got.append(ticket.wait_turn(timeout=30)))
    second.start()
    while not share._waiting:  # the second slot waits for a turn
        time.sleep(0.01)
    ticket.keep(first)  # the first slot is done: its job's waiting run goes on
    second.join(60)
    assert got == [first] and ticket.kept is None
    got[0].end()
    assert share.snapshot()["turns"] == 0
