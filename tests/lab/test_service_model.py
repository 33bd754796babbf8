"""The queueing model of the service (lab/plpuzzle_lab/service_model.py):
its policy on small cases worked out by hand."""

from __future__ import annotations

from plpuzzle_lab.service_model import (
    Overheads,
    Upload,
    cores_needed,
    last_day,
    simulate,
    waits,
)

FREE = Overheads(test=0.0, check=0.0, public=0.0, rest=0.0)


def test_one_upload_runs_its_public_tests_then_the_rest_on_every_core() -> None:
    (u,) = simulate([Upload("a", 0.0, [1.0, 1.0], [2.0, 2.0, 2.0, 2.0])], 2, FREE)
    assert (u.public_done, u.done) == (1.0, 5.0)


def test_public_tests_go_before_anyones_other_tests() -> None:
    early = Upload("a", 0.0, [1.0], [10.0, 10.0])
    late = Upload("b", 1.5, [1.0], [1.0])
    simulate([early, late], 1, FREE)
    # a's first other test runs from 1 to 11 and is not cut short; b's
    # public test comes next, before a's second one.
    assert late.public_done == 12.0
    assert (early.done, late.done) == (22.0, 23.0)  # then round-robin, a piece at a time


def test_the_other_tests_go_round_the_students() -> None:
    a = Upload("a", 0.0, [], [1.0] * 3)
    b = Upload("b", 0.0, [], [1.0] * 3)
    simulate([a, b], 1, FREE)
    assert (a.done, b.done) == (5.0, 6.0)  # a b a b a b


def test_a_newer_upload_replaces_an_older_one_still_waiting() -> None:
    busy = Upload("x", 0.0, [5.0], [])
    old, new = Upload("a", 0.1, [1.0], [1.0]), Upload("a", 0.2, [1.0], [1.0])
    simulate([busy, old, new], 1, FREE)
    assert old.replaced and old.public_done is None
    assert not new.replaced and new.done == 7.0
    assert waits([busy, old, new]).replaced == 1


def test_fixed_costs_count() -> None:
    costs = Overheads(test=0.5, check=1.0, public=2.0, rest=3.0)
    (u,) = simulate([Upload("a", 0.0, [1.0], [1.0])], 1, costs)
    assert u.public_done == 1.0 + 2.0 + 1.5
    assert u.done == 4.5 + 3.0 + 1.5


def test_more_cores_never_wait_longer_and_the_search_stops_at_the_goal() -> None:
    uploads = last_day(40, 3, [([1.0] * 5, [30.0] * 20)], "last hour")
    found = cores_needed(uploads, FREE, goal=60.0)
    p95 = [w.p("public", 0.95) for w in found.values()]
    assert p95 == sorted(p95, reverse=True)
    assert p95[-1] <= 60.0 and all(p > 60.0 for p in p95[:-1])


def test_the_last_day_has_its_uploads_within_the_day() -> None:
    for scenario in ("spread", "rush", "last hour"):
        uploads = last_day(10, 3, [([1.0], [1.0])], scenario, seed=3)
        assert len(uploads) == 30
        assert all(0 <= u.arrival <= 24 * 3600 for u in uploads)
    rush = [u.arrival for u in last_day(200, 3, [([1.0], [1.0])], "rush")]
    assert sum(a >= 23 * 3600 for a in rush) > len(rush) / 5  # a rush: many in the last hour
