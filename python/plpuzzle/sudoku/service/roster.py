"""The service's roster: one student a line, `login` or `login address`
(where mail reaches them), `#` comments; the logins as `sudoku grade
--roster` reads them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.sudoku.grading.intake import id_problem

#: An address good enough to mail: one @, no space, a dot in the domain.
_ADDRESS = re.compile(r"[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+")


class RosterError(Exception):
    """A roster line that is no `login [address]`; the message names it."""


@dataclass(frozen=True)
class Entry:
    login: str
    address: str | None


def read_roster(path: Path) -> list[Entry]:
    """The roster's students in order, each once."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RosterError(f"{path}: cannot read it ({e})") from None
    out: list[Entry] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{path}:{number}"
        if len(words) > 2:
            raise RosterError(f"{where}: a line is `login` or `login address`, not "
                              f"{len(words)} words")  # fmt: skip
        login, address = words[0], words[1] if len(words) == 2 else None
        if (problem := id_problem(login)) is not None:
            raise RosterError(f"{where}: {login!r} cannot be a login ({problem})")
        if address is not None and not _ADDRESS.fullmatch(address):
            raise RosterError(f"{where}: {address!r} is not a mail address")
        if login in seen:
            continue  # the first line of a student counts, as for `sudoku grade`
        seen.add(login)
        out.append(Entry(login, address))
    return out
