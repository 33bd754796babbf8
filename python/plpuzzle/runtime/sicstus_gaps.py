"""SICStus library predicates that plpuzzle's SICStus layer lacks: a
run stopped by one is the tool's gap, not the student's fault, and every
command says so in the same words.

What SICStus 4 documents in its libraries is read from the layer itself:
what prolog/sicstus/L.pl exports (exactly those), and the
documented(L, Name/Arity) facts of prolog/sicstus/documented.pl for
those it knowingly lacks.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from plpuzzle.runtime.prolog import prolog_dir

#: The SICStus 4 libraries a submission may call into, by module name.
SICSTUS_LIBRARIES = frozenset(
    [
        "lists",
        "sets",
        "ordsets",
        "between",
        "avl",
        "assoc",
        "ugraphs",
        "terms",
        "aggregate",
        "samsort",
        "random",
        "system",
        "file_systems",
        "clpfd",
        "timeout",
        "atts",
        "types",
    ]
)


_UNKNOWN = re.compile(r"Unknown procedure: (?:(\w+):)?(\w+)/(\d+)")


_EXPORTS = re.compile(r":- module\(sicstus_lib_(\w+),\s*\[(.*?)\]\s*\)", re.S)


_INDICATOR = re.compile(r"(\w+)/(\d+)")


_DOCUMENTED = re.compile(r"^documented\((\w+), *'?(\w+)'?/(\d+)\)\.", re.M)


@functools.cache
def documented_sicstus_predicates() -> dict[tuple[str, int], str]:
    """(name, arity) -> library, for the predicates the SICStus 4 manual
    documents in its libraries: what prolog/sicstus/L.pl exports (it
    exports exactly those), and the documented(L, Name/Arity) facts of
    prolog/sicstus/documented.pl for those plpuzzle knowingly lacks."""
    found: dict[tuple[str, int], str] = {}
    for path in sorted((prolog_dir() / "sicstus").glob("*.pl")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for library, exports in _EXPORTS.findall(text):
            for name, arity in _INDICATOR.findall(re.sub(r"%.*", "", exports)):
                found.setdefault((name, int(arity)), library)
        for library, name, arity in _DOCUMENTED.findall(text):
            found.setdefault((name, int(arity)), library)
    return found


def not_emulated(
    exception: str, calls: Callable[[], frozenset[tuple[str, int]]] | None = None
) -> str | None:
    """`library:name/arity` when a run stopped on a SICStus library
    predicate that plpuzzle does not provide: the tool's gap, not the
    student's fault.

    The exception's text is the submission's to write, so it is believed
    only as far as the submission's own files bear it out: `calls()` gives
    the predicates their clauses call (name, arity), and a predicate they
    never call is no gap of ours, whatever was thrown.
    """
    match = _UNKNOWN.search(exception)
    if match is None:
        return None
    module, name, arity = match.group(1), match.group(2), int(match.group(3))
    if calls is not None and (name, arity) not in calls():
        return None
    documented = documented_sicstus_predicates()
    library = documented.get((name, arity))
    if module in SICSTUS_LIBRARIES and (library or not documented):
        return f"{module}:{name}/{arity}"  # a typo in a qualified call is the student's
    return f"{library}:{name}/{arity}" if library else None


#: How a detail that marks the tool's gap begins (the reports count them).
NOT_EMULATED = "not emulated: SICStus library predicate"


def gap_words(gap: str) -> str:
    """A run stopped by `gap` (library:name/arity), in words."""
    return f"{NOT_EMULATED} {gap} (plpuzzle's gap: please report it)"
