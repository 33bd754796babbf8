"""A clause's terms, rebuilt from the tokens the confined reader gives.

The similarity reader (prolog/similarity_reader.pl, run confined by
similarity/reading.py) returns each clause as tokens in canonical
operator notation: a compound in functional notation is `name ( args )`
with punctuation commas between its arguments, lists are `[ ... | ... ]`,
and an operator term is its operands with the operator's name between
them, grouping parentheses dropped. That is enough to rebuild every
compound written in functional notation, and to see an operator's name
where it is used, without operator priorities: what the checks need
(which names a clause calls, with how many arguments).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from plpuzzle.sudoku.grading.similarity.tokens import NAME, PUNCT, VAR, RawClause, RawToken

#: Nesting past which a clause's terms are not rebuilt (the reader's
#: tokens of a hostile file can nest without end; a solution nests a few
#: levels).
MAX_DEPTH = 200


@dataclass(frozen=True, slots=True)
class Atom:
    """A name not followed by arguments: an atom, an operator's name."""

    name: str
    start: int


@dataclass(frozen=True, slots=True)
class Var:
    """A variable (numbered per clause)."""

    number: object


@dataclass(frozen=True, slots=True)
class Call:
    """A compound in functional notation: its name and its arguments, each
    a sequence of items (an operator term is flat)."""

    name: str
    args: tuple[tuple[Item, ...], ...]
    start: int

    @property
    def arity(self) -> int:
        return len(self.args)


@dataclass(frozen=True, slots=True)
class Group:
    """A list or a {...} term: its elements, each a sequence of items."""

    elements: tuple[tuple[Item, ...], ...]


@dataclass(frozen=True, slots=True)
class Other:
    """A number, a string, or a token of another kind."""


Item = Atom | Var | Call | Group | Other

#: The punctuation that closes what an opening mark opened.
_CLOSES = {"(": ")", "[": "]", "{": "}"}


class _TooDeep(Exception):
    """The clause nests past MAX_DEPTH."""


def _sequence(
    tokens: list[RawToken], i: int, stops: str, depth: int
) -> tuple[list[list[Item]], int]:
    """The items from tokens[i] up to a closing mark in `stops` (or the
    end), split at punctuation commas and bars; and where it stopped."""
    if depth > MAX_DEPTH:
        raise _TooDeep
    parts: list[list[Item]] = [[]]
    while i < len(tokens):
        t = tokens[i]
        if t.kind == PUNCT and str(t.value) in stops:
            return parts, i
        if t.kind == PUNCT and t.value in (",", "|"):
            parts.append([])
            i += 1
            continue
        item, i = _item(tokens, i, depth)
        if item is not None:
            parts[-1].append(item)
    return parts, i


def _item(tokens: list[RawToken], i: int, depth: int) -> tuple[Item | None, int]:
    """The item that starts at tokens[i], and the index after it."""
    t = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if t.kind == NAME:
        if nxt is not None and nxt.kind == PUNCT and nxt.value == "(":
            args, end = _sequence(tokens, i + 2, ")", depth + 1)
            real = tuple(tuple(a) for a in args) if any(args) else ()
            return Call(str(t.value), real, t.start), end + 1
        return Atom(str(t.value), t.start), i + 1
    if t.kind == VAR:
        return Var(t.value), i + 1
    if t.kind == PUNCT and str(t.value) in _CLOSES:
        elements, end = _sequence(tokens, i + 1, _CLOSES[str(t.value)], depth + 1)
        return Group(tuple(tuple(e) for e in elements if e)), end + 1
    if t.kind == PUNCT:  # a stray closing mark (text read as tokens)
        return None, i + 1
    return Other(), i + 1


@dataclass
class Clause:
    """One clause as the checks see it: the predicate it defines (None for
    a directive), its body's items, and where it is."""

    head: tuple[str, int] | None
    body: tuple[Item, ...]
    file: int
    start: int
    end: int
    #: Read by the tokenizer (a syntax error), not by Prolog.
    as_tokens: bool = False
    #: Nesting too deep to rebuild: its body is not known.
    unreadable: bool = False
    directive: tuple[Item, ...] = field(default_factory=tuple)


#: Operators whose right side is a clause's body.
_NECKS = (":-", "-->")


def _head(items: list[Item]) -> tuple[str, int] | None:
    """The predicate a head defines (module qualification dropped)."""
    if len(items) >= 3 and isinstance(items[1], Atom) and items[1].name == ":":
        items = items[2:]
    first = items[0] if items else None
    if isinstance(first, Call):
        return first.name, first.arity
    if isinstance(first, Atom):
        return first.name, 0
    return None


def clause(raw: RawClause) -> Clause:
    """A reader's (or the tokenizer's) clause as a Clause."""
    places = [t for t in raw.tokens if t.start >= 0]
    start = min((t.start for t in places), default=0)
    end = max((t.end for t in places), default=0)
    try:
        parts, _ = _sequence(raw.tokens, 0, "", 0)
    except _TooDeep:
        return Clause(None, (), raw.file, start, end, raw.as_tokens, unreadable=True)
    items = [x for part in parts for x in part]
    if items and isinstance(items[0], Atom) and items[0].name in (":-", "?-"):
        return Clause(None, (), raw.file, start, end, raw.as_tokens, directive=tuple(items[1:]))
    neck = next((n for n, x in enumerate(items) if isinstance(x, Atom) and x.name in _NECKS), None)
    head_items = items if neck is None else items[:neck]
    head = _head(head_items)
    if head is not None and neck is not None and items[neck].name == "-->":  # type: ignore[union-attr]
        head = (head[0], head[1] + 2)
    body = () if neck is None else tuple(items[neck + 1 :])
    return Clause(head, body, raw.file, start, end, raw.as_tokens)


def walk(items: tuple[Item, ...] | list[Item]) -> list[Item]:
    """Every item in `items`, nested ones too (depth first, in order)."""
    out: list[Item] = []
    stack = list(reversed(items))
    while stack:
        x = stack.pop()
        out.append(x)
        if isinstance(x, Call):
            stack += [y for arg in reversed(x.args) for y in reversed(arg)]
        elif isinstance(x, Group):
            stack += [y for e in reversed(x.elements) for y in reversed(e)]
    return out


class Lines:
    """Line numbers of offsets in a text, by bisection: a clause's line
    costs no rereading of the text before it (a huge file has many)."""

    def __init__(self, text: str) -> None:
        self.ends: list[int] = []
        at = -1
        for line in text.split("\n")[:-1]:
            at += len(line) + 1
            self.ends.append(at)

    def of(self, offset: int) -> int:
        """The 1-based line holding `offset`."""
        return bisect.bisect_left(self.ends, offset) + 1
