"""The Prolog sources keep the project's conventions: a module header, a
`%!` comment (with modes) for every predicate a module exports and defines
(a re-exported library predicate is documented by its library), and lines
under 80 columns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = sorted((REPO / "prolog").rglob("*.pl"))
EXPORT = re.compile(r"(?<![\w'])([a-z]\w*)/(\d+)")


def exports(text: str) -> list[tuple[str, int]]:
    """The name/arity pairs of the module header's export list."""
    header = re.search(r"^:- module\(\s*\w+\s*,\s*\[(.*?)\]\s*\)\.", text, re.S | re.M)
    assert header, "no `:- module(Name, [...])` header"
    listed = re.sub(r"op\([^)]*\)", "", header.group(1))  # operators are not predicates
    return [(name, int(arity)) for name, arity in EXPORT.findall(listed)]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_a_source_has_a_header_documented_exports_and_short_lines(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    long = [n for n, line in enumerate(text.splitlines(), 1) if len(line) >= 80]
    assert long == [], f"{path.name}: lines of 80 columns or more: {long}"
    documented = set(re.findall(r"^%!\s+([a-z]\w*)", text, re.M))
    defined = set(re.findall(r"^([a-z]\w*)[(:. ]", text, re.M))  # not re-exported ones
    missing = [f"{n}/{a}" for n, a in exports(text) if n in defined and n not in documented]
    assert missing == [], f"{path.name}: exported without a %! comment: {missing}"


def test_the_sources_are_found() -> None:
    assert {p.name for p in SOURCES} >= {"sudoku.pl", "clpfd_internals.pl", "knight.pl"}
