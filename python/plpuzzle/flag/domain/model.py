"""Sequences of red, white and blue items, as letters R, W and B.

A sequence is kept as a string of capital letters: compact for a million
items, and the same text the user types, the worker gets and the Prolog
side reads.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

#: The colours in flag order, as letters.
COLOURS = "RWB"

COLOUR_NAMES = {"R": "red", "W": "white", "B": "blue"}

#: The seed of a random sequence when none is given.
DEFAULT_SEED = 0

#: The longest random sequence we make: beyond it the JSON and Prolog
#: copies of a sequence no longer fit comfortably in a worker's memory.
MAX_RANDOM_LENGTH = 10_000_000


class SequenceError(ValueError):
    """Text that is not a sequence of R, W and B."""


@dataclass(frozen=True)
class FlagSequence:
    """A non-empty sequence of colours, e.g. FlagSequence("RWBWRRB")."""

    letters: str

    def __post_init__(self) -> None:
        if not self.letters:
            raise SequenceError("the sequence is empty")
        if self.letters.strip(COLOURS):  # empty when only R, W and B are left
            raise SequenceError(_bad_character(self.letters, COLOURS))

    def __len__(self) -> int:
        return len(self.letters)

    def __str__(self) -> str:
        return self.letters

    def counts(self) -> dict[str, int]:
        """How many items of each colour, in flag order."""
        return {c: self.letters.count(c) for c in COLOURS}

    def describe_counts(self) -> str:
        """E.g. `3 red, 2 white, 2 blue`."""
        return ", ".join(f"{n:,} {COLOUR_NAMES[c]}" for c, n in self.counts().items())


def parse_sequence(text: str) -> FlagSequence:
    """Read letters like `RWBWRRB`, in either case.

    A bad character is named as typed, with its 1-based column.
    """
    either_case = COLOURS + COLOURS.lower()
    if text.strip(either_case):
        raise SequenceError(_bad_character(text, either_case))
    return FlagSequence(text.upper())


def random_sequence(length: int, seed: int) -> FlagSequence:
    """`length` items drawn uniformly, the same ones for the same seed."""
    if length < 1:
        raise SequenceError(f"a random sequence needs at least 1 item, got {length}")
    if length > MAX_RANDOM_LENGTH:
        raise SequenceError(f"a random sequence may have at most {MAX_RANDOM_LENGTH:,} items")
    return FlagSequence("".join(random.Random(seed).choices(COLOURS, k=length)))


def _bad_character(letters: str, allowed: str) -> str:
    """Name the first character not in `allowed`, with its column."""
    column, char = next((i, c) for i, c in enumerate(letters, 1) if c not in allowed)
    return f"bad character {char!r} at column {column}: use R, W and B (red, white, blue)"
