"""The file of one-time sign-in links a teacher mails out.

Running `accounts` again (a longer roster, a renewed account) must never
lose a link not mailed yet: the file keeps every link of it that still
works, and gains the new ones; a link that was used, expired or replaced
by a newer one leaves it. Only the service can tell which still work (it
keeps the links' digests), so the file is read back through it.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from plpuzzle.sudoku.service.accounts import NewAccount
from plpuzzle.untrusted import spreadsheet_csv

HEADER = ["login", "role", "link", "expires"]


@dataclass(frozen=True)
class LinksFile:
    """What the file holds now: its rows, and how many are new."""

    rows: list[list[str]]
    new: int
    kept: int

    def text(self) -> str:
        return spreadsheet_csv([HEADER, *self.rows])


def link_of(url: str, token: str) -> str:
    return f"{url.rstrip('/')}/welcome/{token}"


def token_of(link: str) -> str:
    return link.rsplit("/welcome/", 1)[-1]


def merge(made: list[NewAccount], url: str, existing: Path | None,
          still_works: Callable[[str], str | None],
          when: Callable[[datetime], str]) -> LinksFile:  # fmt: skip
    """The new links of `made`, after the links of `existing` (a file
    written before) that still work for their login (`still_works(token)`
    gives the login a token signs in, or None); `when` writes their expiry."""
    fresh = {a.login: a for a in made if a.token}
    rows: list[list[str]] = []
    if existing is not None and existing.exists():
        with existing.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                login, link = row.get("login") or "", row.get("link") or ""
                if login and login not in fresh and still_works(token_of(link)) == login:
                    rows.append([login, row.get("role") or "", link, row.get("expires") or ""])
    kept = len(rows)
    for a in fresh.values():
        assert a.token is not None
        expires = when(a.expires) if a.expires else ""
        rows.append([a.login, a.role, link_of(url, a.token), expires])
    return LinksFile(rows, len(fresh), kept)


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read, whole or not at all."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)
