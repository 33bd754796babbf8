"""Winnowing and the inverted index, against their definitions: the two
guarantees of Schleimer, Wilkerson and Aiken (a shared passage of
WINDOW + K - 1 tokens always shows, one shorter than K never does), and
the index's pairs against comparing every pair of sets directly."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plpuzzle.sudoku.grading.similarity.fingerprints import (
    WINDOW,
    K,
    fingerprints,
    kgram_hashes,
    winnow,
)
from plpuzzle.sudoku.grading.similarity.index import (
    HIGHEST_CUT,
    cliques,
    groups,
    scale,
    score_pairs,
)

#: Streams over a small alphabet, so that chance repeats happen.
TOKENS = st.lists(st.sampled_from([f"t{i}" for i in range(6)]), min_size=0, max_size=120)


def _naive_winnow(hashes: list[int], window: int) -> set[tuple[int, int]]:
    """The definition: the rightmost smallest hash of every window."""
    if not hashes:
        return set()
    window = min(window, len(hashes))
    chosen = set()
    for i in range(len(hashes) - window + 1):
        part = hashes[i : i + window]
        low = min(part)
        j = i + max(n for n, h in enumerate(part) if h == low)
        chosen.add((hashes[j], j))
    return chosen


@given(st.lists(st.integers(0, 20), max_size=80), st.integers(1, 10))
def test_winnowing_keeps_the_rightmost_minimum_of_every_window(
    hashes: list[int], window: int
) -> None:
    assert set(winnow(hashes, window)) == _naive_winnow(hashes, window)


@given(TOKENS, TOKENS, TOKENS)
def test_a_long_shared_passage_always_shares_a_fingerprint(
    before: list[str], after: list[str], other: list[str]
) -> None:
    rng = random.Random(len(before) * 31 + len(after))
    passage = [f"p{rng.randrange(50)}" for _ in range(WINDOW + K - 1)]
    a = fingerprints(before + passage + after)
    b = fingerprints(other + passage)
    assert set(a) & set(b)


def test_nothing_shorter_than_k_tokens_is_shared() -> None:
    a = [f"a{i}" for i in range(60)]
    b = [f"b{i}" for i in range(60)]
    short = ["x", "y", "z"] * ((K - 1) // 3)
    assert len(short) < K
    assert not set(fingerprints(a[:30] + short + a[30:])) & set(fingerprints(b + short))


def test_kgram_hashes_roll_like_hashing_each_kgram() -> None:
    texts = [f"w{i % 7}" for i in range(40)]
    rolled = kgram_hashes(texts, 5)
    assert len(rolled) == 36
    assert rolled == [kgram_hashes(texts[i : i + 5], 5)[0] for i in range(36)]
    assert kgram_hashes(texts[:3], 5) == kgram_hashes(texts[:3], 3)  # shorter than k: one
    assert kgram_hashes([], 5) == []


def test_positions_are_where_the_kgram_starts() -> None:
    texts = [f"w{i}" for i in range(50)]
    hashes = kgram_hashes(texts)
    for h, positions in fingerprints(texts).items():
        assert all(hashes[p] == h for p in positions)


@given(st.lists(st.sets(st.integers(0, 30), min_size=1, max_size=12), max_size=9))
def test_the_index_finds_exactly_the_pairs_that_share(prints: list[set[int]]) -> None:
    found = {(p.a, p.b): p for p in score_pairs(prints)}
    for a, b in itertools.combinations(range(len(prints)), 2):
        shared = len(prints[a] & prints[b])
        if not shared:
            assert (a, b) not in found
            continue
        pair = found[(a, b)]
        assert pair.shared == shared and pair.evidence == shared
        assert pair.share_a == shared / len(prints[a])
        assert pair.share_b == shared / len(prints[b])
    scores = [p.score for p in found.values()]
    assert [p.score for p in score_pairs(prints)] == sorted(scores, reverse=True)


def test_a_solution_many_hold_weighs_as_much_as_a_rare_one() -> None:
    """Forty hand-ins share one idiom; a ring of twelve of them (more than
    a tenth) also shares a passage: popularity makes nothing weigh less
    (issue 57), so the ring's pairs have all the evidence of the passage."""
    idiom = set(range(20))
    prints = [idiom | {100 + i} for i in range(40)]
    ring = range(0, 36, 3)
    for member in ring:
        prints[member] |= set(range(200, 240))
    pairs = {(p.a, p.b): p for p in score_pairs(prints)}
    for a, b in itertools.combinations(ring, 2):
        assert pairs[(a, b)].evidence == 60 and pairs[(a, b)].score > 0.98
    others = [p for (a, b), p in pairs.items() if not {a, b} <= set(ring)]
    assert others and all(p.evidence == 20 for p in others)


def test_the_class_scale_is_robust_to_a_ring_and_raised_by_alike_honest_work() -> None:
    """A ring of a third of a class moves neither the median nor the
    spread; a class whose honest pairs are all much alike raises the cut."""
    quiet = scale([0.05] * 100 + [1.0] * 36, 30, 0.65)
    assert quiet.median < 0.1 and quiet.cut == 0.65 and not quiet.raised
    alike = scale([0.5, 0.6, 0.7, 0.55, 0.65, 0.72, 0.45, 0.6, 0.58, 0.66], 5, 0.65)
    assert alike.raised and 0.65 < alike.cut <= HIGHEST_CUT


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=30))
def test_cliques_are_the_maximal_groups_that_all_match(links: list[tuple[int, int]]) -> None:
    linked = {frozenset(pair) for pair in links if pair[0] != pair[1]}
    found = cliques(links, size=3)
    members = sorted({m for pair in linked for m in pair})
    for g in found:
        assert len(g) >= 3 and g == sorted(set(g))
        assert all(frozenset(pair) in linked for pair in itertools.combinations(g, 2))
        outside = [m for m in members if m not in g]
        assert not any(all(frozenset((m, x)) in linked for x in g) for m in outside)  # maximal
    for triangle in itertools.combinations(members, 3):  # every triangle is in a group
        if all(frozenset(pair) in linked for pair in itertools.combinations(triangle, 2)):
            assert any(set(triangle) <= set(g) for g in found), triangle


def test_a_chain_of_single_links_is_no_group() -> None:
    assert cliques([(1, 2), (2, 3), (3, 4)]) == []
    assert cliques([(1, 2), (2, 3), (1, 3), (3, 4)]) == [[1, 2, 3]]


@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), max_size=20))
def test_groups_are_the_connected_components(links: list[tuple[int, int]]) -> None:
    found = groups(links, size=1)
    members = [m for g in found for m in g]
    assert len(members) == len(set(members))  # a partition
    where = {m: n for n, g in enumerate(found) for m in g}
    for a, b in links:
        assert where[a] == where[b]
    # no group splits further: each is connected by the links inside it
    for g in found:
        reached, todo = {g[0]}, [g[0]]
        while todo:
            x = todo.pop()
            for a, b in links:
                for u, v in ((a, b), (b, a)):
                    if u == x and v not in reached:
                        reached.add(v)
                        todo.append(v)
        assert reached == set(g)
    assert all(len(g) >= 3 for g in groups(links))


@pytest.mark.slow
def test_the_search_for_groups_is_bounded() -> None:
    """A graph with 3^(n/3) maximal cliques (Moon and Moser): everyone
    linked but to the other two of their own triple. The search stops
    within its budget and what it gives are true cliques."""
    n = 60
    links = [(a, b) for a in range(n) for b in range(a + 1, n) if a // 3 != b // 3]
    found = cliques(links)
    linked = {frozenset(pair) for pair in links}
    assert found and all(len(g) == n // 3 for g in found)
    assert all(frozenset(p) in linked for g in found[:50] for p in itertools.combinations(g, 2))
