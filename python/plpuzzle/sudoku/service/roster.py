"""The service's roster: one student a line, `login` or `login address`
(where mail reaches them), either with the student's name in double
quotes after it (`alice alice@example.edu "Alice Example"`, for the
LMS exports), `#` comments; the logins as `sudoku grade --roster` reads
them. A line that is none of these is an error naming the file, the
line and the column."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sudoku.grading.intake import id_problem
from plpuzzle.untrusted import one_line

#: The part before the @ that the service takes: letters, digits and
#: . _ % + - ', starting with a letter, a digit or _ (never with what a
#: spreadsheet takes for a formula), no two dots in a row, none at the end.
_LOCAL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_%+'-]|\.(?!\.))*(?<!\.)")
#: One label of a domain: letters, digits and inner hyphens.
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
#: The top-level label: letters, or an internationalised one (xn--).
_TOP = re.compile(r"[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59}")
#: The longest address kept (the database's column).
MAX_ADDRESS = 200


class RosterError(Exception):
    """A roster line that is no `login [address]`; the message names it."""


#: The longest name kept (the database's column).
MAX_NAME = 200

#: A line: its words, then the name in double quotes at its end, if any
#: (a quote elsewhere is part of a word, which the checks below refuse).
_LINE = re.compile(r'(.*?)(?:(?:^|\s)"([^"]*)")?\s*')


@dataclass(frozen=True)
class Entry:
    login: str
    address: str | None
    name: str | None = None


def read_roster(path: Path) -> list[Entry]:
    """The roster's students in order, each once."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RosterError(f"{path}: cannot read it ({e})") from None
    out: list[Entry] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{path}:{number}"
        parts = _LINE.fullmatch(line.split("#", 1)[0])
        assert parts is not None  # every text matches
        words, name = parts.group(1).split(), parts.group(2)
        if not words:
            if name is not None:
                raise RosterError(f"{where}: a name needs a login before it")
            continue
        if name is not None and (len(name) > MAX_NAME or not name.strip()
                                 or not name.isprintable()):  # fmt: skip
            raise RosterError(f"{where}: the name must be printable, 1 to {MAX_NAME} characters")
        if len(words) > 2:
            raise RosterError(f"{where}: a line is `login` or `login address`, not "
                              f"{len(words)} words")  # fmt: skip
        login, address = words[0], words[1] if len(words) == 2 else None
        if (problem := id_problem(login)) is not None:
            raise RosterError(f"{where}:{line.index(login) + 1}: {login!r} cannot be a login "
                              f"({problem})")  # fmt: skip
        if address is not None and (problem := address_problem(address)) is not None:
            column = line.index(address, line.index(login) + len(login)) + 1
            raise RosterError(f"{where}:{column}: {one_line(address, 80)} is not a mail "
                              f"address: {problem}")  # fmt: skip
        if login in seen:
            continue  # the first line of a student counts, as for `sudoku grade`
        seen.add(login)
        out.append(Entry(login, address, " ".join(name.split()) if name else None))
    return out


def address_problem(address: str) -> str | None:
    """Why `address` is not one the service mails (None: it is). Stricter
    than the RFCs on purpose: LOCAL@DOMAIN, plain ASCII, as course rosters
    write addresses; what else may pass the RFCs (quotes, comments, a
    leading = or +) is refused, so that no address is anything else."""
    if len(address) > MAX_ADDRESS:
        return f"longer than {MAX_ADDRESS} characters"
    if not address.isascii() or not address.isprintable():
        return (
            "only plain ASCII letters, digits and . _ % + - ' are taken (a domain in its xn-- form)"
        )
    local, at, domain = address.rpartition("@")
    if not at or not local:
        return "it needs the form name@domain"
    if "@" in local:
        return "it has more than one @"
    if len(local) > 64 or not _LOCAL.fullmatch(local):
        return (
            f"the part before the @ ({local!r}) may hold letters, digits and . _ % + - ' "
            "only, start with a letter, a digit or _, and have no two dots in a row"
        )
    labels = domain.split(".")
    if len(labels) < 2 or len(domain) > 253:
        return f"the domain ({domain!r}) needs a dot, as in example.edu"
    if not all(_LABEL.fullmatch(label) for label in labels) or not _TOP.fullmatch(labels[-1]):
        return f"the domain ({domain!r}) is no host name (letters, digits, inner hyphens, dots)"
    return None
