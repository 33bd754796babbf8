"""Winnowing and the inverted index, against their definitions: the two
guarantees of Schleimer, Wilkerson and Aiken (a shared passage of
WINDOW + K - 1 tokens always shows, one shorter than K never does), and
the index's pairs against comparing every pair of sets directly."""

from __future__ import annotations

import itertools
import random

from hypothesis import given
from hypothesis import strategies as st

from plpuzzle.sudoku.grading.similarity.fingerprints import (
    WINDOW,
    K,
    fingerprints,
    kgram_hashes,
    winnow,
)
from plpuzzle.sudoku.grading.similarity.index import groups, score_pairs

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
        assert pair.shared == shared
        assert pair.share_a == shared / len(prints[a])
        assert pair.share_b == shared / len(prints[b])
    scores = [p.score for p in found.values()]
    assert [p.score for p in score_pairs(prints)] == sorted(scores, reverse=True)


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
