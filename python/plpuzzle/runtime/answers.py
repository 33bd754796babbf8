"""Reading what prolog/plpuzzle_bridge.pl answers.

The bridge returns each answer as (ground, text), the text in Prolog's
canonical syntax. Every goal the engines run binds its template to lists,
integers and strings only, and of those terms the canonical text is JSON:
so one json.loads() reads an answer, however large, and anything else a
solver binds (an atom, an unbound variable, a compound) is a bad answer
to report, never a crash.
"""

from __future__ import annotations

import json
from typing import Any

Answer = tuple[bool, str]


class UndecodableAnswer(ValueError):
    """An answer that is not what the goal's template should hold; the
    message says why, to finish a sentence about the answer."""


def decode_answer(answer: Answer) -> Any:
    """One answer's value (lists, integers, strings), or UndecodableAnswer."""
    ground, text = answer
    if not ground:
        raise UndecodableAnswer("is not ground (it holds unbound variables)")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: hostile nesting
        raise UndecodableAnswer("is not a list of integers, strings and lists") from None


def only_answer(answers: list[Answer], predicate: str) -> Answer:
    """The one answer of a goal that must have exactly one."""
    if len(answers) != 1:
        raise UndecodableAnswer(f"{predicate} gave {len(answers)} answers, expected exactly one")
    return answers[0]


def decode_only_answer(answers: list[Answer], predicate: str) -> Any:
    """The value of a goal's one answer, or UndecodableAnswer saying, in a
    whole sentence that names `predicate`, what is wrong."""
    answer = only_answer(answers, predicate)
    try:
        return decode_answer(answer)
    except UndecodableAnswer as e:
        raise UndecodableAnswer(f"{predicate} answered {answer[1][:200]}, which {e}") from None
