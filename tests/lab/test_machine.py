"""Waiting for a quiet machine before a wall-clock timing."""

from __future__ import annotations

from plpuzzle_lab.machine import load_average, wait_until_quiet


def loads(*firsts: float):
    """A reader that returns these 1-minute loads in turn, then the last."""
    seq = [(x, 0.0, 0.0) for x in firsts]

    def read() -> tuple[float, ...]:
        return seq.pop(0) if len(seq) > 1 else seq[0]

    return read


def test_waits_until_the_load_falls_to_the_cores() -> None:
    slept: list[float] = []
    got = wait_until_quiet(2, read=loads(2.4, 2.2, 1.9, 1.5), sleep=slept.append)
    assert got == (1.9, 0.0, 0.0)
    assert slept == [5.0, 5.0]


def test_does_not_wait_on_a_quiet_machine() -> None:
    slept: list[float] = []
    assert wait_until_quiet(2, read=loads(1.0), sleep=slept.append) == (1.0, 0.0, 0.0)
    assert slept == []


def test_gives_up_after_the_longest_wait_and_reports_the_last_load() -> None:
    slept: list[float] = []
    got = wait_until_quiet(2, most=12, every=5, read=loads(3.0, 3.1, 3.2, 3.3), sleep=slept.append)
    assert slept == [5, 5, 5]  # 15 s: the wait that reaches the limit is the last
    assert got == (3.3, 0.0, 0.0)


def test_an_unknown_load_is_not_waited_for() -> None:
    slept: list[float] = []
    assert wait_until_quiet(2, read=lambda: None, sleep=slept.append) is None
    assert slept == []


def test_reads_the_real_load_average() -> None:
    got = wait_until_quiet(10**6)  # no machine is that busy: no wait
    real = load_average()
    assert (got is None) == (real is None)
    if got is not None:
        assert len(got) == 3 and all(x >= 0 for x in got)
