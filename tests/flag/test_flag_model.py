"""Sequences: parsing, error messages and random sequences."""

from __future__ import annotations

import pytest

from plpuzzle.flag.domain.model import (
    MAX_RANDOM_LENGTH,
    FlagSequence,
    SequenceError,
    parse_sequence,
    random_sequence,
)


def test_parse_is_case_insensitive() -> None:
    assert parse_sequence("rWbWrRb") == FlagSequence("RWBWRRB")
    assert str(parse_sequence("rwb")) == "RWB"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the sequence is empty"),
        ("RWx", "bad character 'x' at column 3"),
        ("RW B", "bad character ' ' at column 3"),
        ("ßRW", "bad character 'ß' at column 1"),  # upper() makes it two letters
        ("RWBRWB7", "bad character '7' at column 7"),
    ],
)
def test_bad_text_is_named_with_its_column(text: str, message: str) -> None:
    with pytest.raises(SequenceError, match=message):
        parse_sequence(text)


def test_the_sequence_type_accepts_only_capitals() -> None:
    with pytest.raises(SequenceError, match="bad character 'r' at column 2"):
        FlagSequence("Rr")


def test_counts_and_their_description() -> None:
    items = parse_sequence("RWBWRRB")
    assert (len(items), items.counts()) == (7, {"R": 3, "W": 2, "B": 2})
    assert items.describe_counts() == "3 red, 2 white, 2 blue"


def test_random_sequences_are_deterministic() -> None:
    first = random_sequence(1000, 42)
    assert first == random_sequence(1000, 42)
    assert first != random_sequence(1000, 43)
    assert len(first) == 1000
    assert all(n > 250 for n in first.counts().values())  # uniform enough


def test_random_sequences_are_stable_across_releases() -> None:
    """The README and the tests quote seeded sequences."""
    assert random_sequence(12, 0).letters == "BBWRWWBRWWBW"


@pytest.mark.parametrize("length", [0, -1, MAX_RANDOM_LENGTH + 1])
def test_random_lengths_out_of_range(length: int) -> None:
    with pytest.raises(SequenceError):
        random_sequence(length, 0)
