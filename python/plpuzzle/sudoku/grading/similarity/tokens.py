"""Tokens of a Prolog text, as the reader gives them or as a tokenizer finds them.

SWI-Prolog's reader (prolog/similarity_reader.pl) gives each clause's
tokens in canonical operator notation: grouping parentheses dropped,
functional notation written `name ( args , ... )`, lists as `[ ... | ... ]`.
Where the reader cannot help (a clause with a syntax error, a file it gave
up on), this module's tokenizer reads the text itself, and yields the same
kinds of token, so that such a stretch still compares with what the reader
read: names, variables, numbers, strings and punctuation, comments and
layout dropped, grouping parentheses too. It knows Prolog's lexical rules
only (no operators), so a file read this way is marked as such.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: The kinds of token: a variable, an atom or functor name, a number, a
#: string or code list, punctuation, and anything else.
VAR, NAME, NUMBER, STRING, PUNCT, OTHER = "v", "a", "n", "q", "p", "o"

#: Tokens of one file past which reading stops (a solution has a few
#: thousand), on the reader's side and here alike.
MAX_TOKENS = 100_000


@dataclass(frozen=True, slots=True)
class RawToken:
    """A token before normalisation: its kind, its value (a variable's
    number or name, a name, a number's text, a punctuation mark) and where
    it is in its file (-1, -1 for punctuation the reader adds)."""

    kind: str
    value: str | int
    start: int
    end: int


@dataclass
class RawClause:
    """One clause (or directive) of a file, and the predicate it defines."""

    tokens: list[RawToken]
    #: The name of the predicate a clause's head defines (None: a directive).
    head: str | None
    #: Which of the hand-in's files it is in.
    file: int = 0
    #: Read by this module's tokenizer, not by Prolog.
    as_tokens: bool = False


_LEXER = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>%[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<number>0'(?:\\.|''|.)|0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+
      |\d+(?:\.\d+(?:[eE][+-]?\d+)?)?)
  | (?P<var>[A-Z_][A-Za-z0-9_]*)
  | (?P<name>[a-z][A-Za-z0-9_]*)
  | (?P<quoted>'(?:[^'\\]|\\.|'')*(?:'|\Z))
  | (?P<string>"(?:[^"\\]|\\.|"")*(?:"|\Z)|`(?:[^`\\]|\\.|``)*(?:`|\Z))
  | (?P<end>\.(?=\s|%|\Z))
  | (?P<symbol>[-+*/\\^<>=~:.?@\#&$]+)
  | (?P<empty>\[\s*\]|\{\s*\})
  | (?P<solo>[!,;|])
  | (?P<open>\()
  | (?P<punct>[)\[\]{}])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "`": "`", "a": "\a", "b": "\b"}


def count_tokens(clauses: list[RawClause]) -> int:
    """How many tokens `clauses` hold (what they took of a budget)."""
    return sum(len(c.tokens) for c in clauses)


def _unquote(text: str) -> str:
    """A quoted atom's name (its common escapes undone)."""
    body = text[1:-1] if len(text) >= 2 and text.endswith("'") else text[1:]
    body = body.replace("''", "'")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body, flags=re.DOTALL)


def _number(text: str) -> str:
    """A number as the reader writes it (0'a is 97, 0x1F is 31)."""
    if text.startswith("0'"):
        char = text[2:]
        if char.startswith("\\") and len(char) > 1:
            char = _ESCAPES.get(char[1], char[1])
        elif char == "''":
            char = "'"
        return str(ord(char[0])) if char else text
    try:
        return str(int(text, 0)) if text[:2] in ("0x", "0o", "0b") else str(int(text))
    except ValueError:
        try:
            return repr(float(text))
        except ValueError:
            return text


def code_prefix(text: str, budget: int) -> int:
    """How much of `text` holds at most `budget` characters of code:
    comments and layout are not counted, so that padding a file with
    them cannot push its code past a budget."""
    code = 0
    for match in _LEXER.finditer(text):
        if match.lastgroup in ("space", "comment"):
            continue
        code += match.end() - match.start()
        if code > budget:
            return match.start()
    return len(text)


def tokenize(
    text: str,
    start: int = 0,
    end: int | None = None,
    file: int = 0,
    budget: int = MAX_TOKENS,
) -> list[RawClause]:
    """The clauses of `text[start:end]` by Prolog's lexical rules, with
    offsets into `text`. A clause ends at an end token (a full stop before
    layout); variables are numbered by name within a clause (each `_` a
    variable of its own). At most `budget` tokens are read (a caller that
    tokenizes several stretches of one file shares one budget among
    them: see count_tokens)."""
    clauses: list[RawClause] = []
    tokens: list[RawToken] = []
    names: dict[str, int] = {}
    # Grouping parentheses are dropped; a name's own `(` (no layout
    # between) opens an argument list, whose `)` is kept.
    kept: list[bool] = []
    count = 0
    stop = len(text) if end is None else end

    def close_clause() -> None:
        nonlocal tokens, names, kept
        if tokens:
            first = tokens[0]
            head = str(first.value) if first.kind == NAME and first.value != ":-" else None
            clauses.append(RawClause(tokens, head, file, as_tokens=True))
        tokens, names, kept = [], {}, []

    for match in _LEXER.finditer(text, start, stop):
        kind, value = match.lastgroup, match.group()
        a, b = match.span()
        if kind in ("space", "comment"):
            continue
        count += 1
        if count > budget:
            break
        if kind == "end":
            close_clause()
        elif kind == "var":
            if value == "_":  # each `_` is a variable of its own
                value = f"_#{len(names)}"
            tokens.append(RawToken(VAR, names.setdefault(value, len(names) + 1), a, b))
        elif kind in ("name", "symbol") or value in "!;":
            tokens.append(RawToken(NAME, value, a, b))
        elif kind == "quoted":
            tokens.append(RawToken(NAME, _unquote(value), a, b))
        elif kind == "number":
            tokens.append(RawToken(NUMBER, _number(value), a, b))
        elif kind == "empty":  # [] and {} are atoms, whatever the layout inside
            tokens.append(RawToken(NAME, value[0] + value[-1], a, b))
        elif kind == "string":
            tokens.append(RawToken(STRING, "", a, b))
        elif kind == "open":
            functional = bool(tokens) and tokens[-1].end == a and tokens[-1].kind == NAME
            kept.append(functional)
            if functional:
                tokens.append(RawToken(PUNCT, "(", -1, -1))
        elif value == ")":
            if kept.pop() if kept else False:
                tokens.append(RawToken(PUNCT, ")", -1, -1))
        elif kind in ("punct", "solo"):
            tokens.append(RawToken(PUNCT, value, -1, -1))
        else:
            tokens.append(RawToken(OTHER, "?", a, b))
    close_clause()
    return clauses


_PLACE = re.compile(r"(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<column>\d+): Syntax error")


def clause_start_line(text: str, line: int, column: int) -> int | None:
    """The line on which the clause holding (line, column) starts, when it
    starts on an earlier line: SWI-Prolog puts a syntax error where it
    noticed it (for a missing `)`, the clause's end), and the clause's
    first line is where to look. None when it starts on the same line."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    offset = sum(len(ln) + 1 for ln in lines[: line - 1]) + min(column, len(lines[line - 1]))
    clauses = tokenize(text, 0, offset)
    if not clauses or not clauses[-1].tokens:
        return None
    starts = [t.start for t in clauses[-1].tokens if t.start >= 0]
    first = text.count("\n", 0, starts[0]) + 1 if starts else line
    return first if first < line else None


def with_clause_start(message: str, text_of: Callable[[str], str | None]) -> str:
    """A load message with "(in the clause starting at line N)" after a
    syntax error's place, when the clause starts earlier; `text_of(file)`
    gives the text of the file the message names (None: unknown)."""
    match = _PLACE.search(message)
    if match is None:
        return message
    text = text_of(match.group("file"))
    start = (
        clause_start_line(text, int(match.group("line")), int(match.group("column")))
        if text is not None
        else None
    )
    if start is None:
        return message
    return f"{message} (in the clause starting at line {start})"
