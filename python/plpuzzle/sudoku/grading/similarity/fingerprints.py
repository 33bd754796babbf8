"""Fingerprints of a token stream by winnowing (Schleimer, Wilkerson and
Aiken, "Winnowing: local algorithms for document fingerprinting", SIGMOD
2003: the algorithm behind MOSS).

Every run of K consecutive tokens (a k-gram) is hashed; of every WINDOW
consecutive k-gram hashes, the smallest is kept (the rightmost smallest,
once per position). The kept hashes are the stream's fingerprints. Two
guarantees follow, whatever the streams: a passage two streams share of
at least WINDOW + K - 1 tokens gives them at least one fingerprint in
common, and nothing shorter than K tokens ever does. The values K and
WINDOW were chosen from the measured distributions (docs/teachers.md,
*Similar hand-ins*).
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Sequence

#: Tokens in a k-gram, and k-grams in a window.
K = 12
WINDOW = 8

_MOD = (1 << 61) - 1
_BASE = 1_000_003


def token_hash(text: str, cache: dict[str, int] = {}) -> int:  # noqa: B006 - a shared cache
    """A token's hash: stable across runs and machines (not Python's hash())."""
    value = cache.get(text)
    if value is None:
        digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
        value = cache[text] = int.from_bytes(digest, "big") % _MOD
    return value


def kgram_hashes(texts: Sequence[str], k: int = K) -> list[int]:
    """The hash of every k-gram, by position (Karp-Rabin, rolling); a stream
    shorter than k has one, of all of it."""
    values = [token_hash(t) for t in texts]
    if not values:
        return []
    k = min(k, len(values))
    top = pow(_BASE, k - 1, _MOD)
    h = 0
    for v in values[:k]:
        h = (h * _BASE + v) % _MOD
    out = [h]
    for i in range(k, len(values)):
        h = ((h - values[i - k] * top) * _BASE + values[i]) % _MOD
        out.append(h)
    return out


def winnow(hashes: Sequence[int], window: int = WINDOW) -> list[tuple[int, int]]:
    """(hash, position) of the fingerprints: the rightmost smallest hash of
    each window, each position once (robust winnowing)."""
    if not hashes:
        return []
    window = min(window, len(hashes))
    chosen: list[tuple[int, int]] = []
    candidates: deque[int] = deque()  # positions, their hashes increasing
    last = -1
    for i, h in enumerate(hashes):
        while candidates and hashes[candidates[-1]] >= h:
            candidates.pop()
        candidates.append(i)
        if candidates[0] <= i - window:
            candidates.popleft()
        if i >= window - 1 and candidates[0] != last:
            last = candidates[0]
            chosen.append((hashes[last], last))
    return chosen


def fingerprints(texts: Sequence[str], k: int = K, window: int = WINDOW) -> dict[int, list[int]]:
    """A stream's fingerprints: hash -> the positions of its k-grams."""
    out: dict[int, list[int]] = {}
    for h, position in winnow(kgram_hashes(texts, k), window):
        out.setdefault(h, []).append(position)
    return out
