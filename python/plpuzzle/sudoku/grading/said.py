"""What the grader stores in words, said again in the reader's language.

The grader keeps its findings as English text: a test's detail and
evidence (grades.json, the gradebook), a student's notes, why no smaller
puzzle was found (feedback/shrunk.json), the rules a wrong board breaks.
Each such text is one of the templates below with its places filled in:
the template is its code, the filled places its arguments. Read back, a
text is matched against the templates, and the one it fills is said in
the language in force, each argument said so too (a place may hold
another template's text: "loading was stopped: stopped at the CPU limit
of 5 s"). So a grade stored once renders in English or Hungarian, and
one stored before this module (the same English) does too. A text that
fills no template (what a student's program printed, Prolog's messages)
is shown as stored.
"""

from __future__ import annotations

import functools
import re

from plpuzzle.i18n import N_, _, current

#: The grader's stored texts, most specific first (the first that a text
#: fills wins). The words are the code's own: judging.py, sandbox/program.py,
#: runs/suite.py, domain/validator.py, feedback/shrink.py, grading/model.py
#: and service/grades.py write them; tests/sudoku/test_said.py checks that
#: what they write is matched.
TEMPLATES = (
    # A test's detail (judging.py, the sandbox's words for how a run ended).
    N_("%(why)s (%(cpu)s s of CPU time, %(wall)s s on the clock)"),
    N_("too many answers (at least %(count)s)"),
    N_("loading was stopped: %(why)s"),
    N_("the file did not load"),
    N_("the program ended while it was being loaded (halt/0 at load time?)"),
    N_("the grader could not run this test (%(error)s); plpuzzle's fault: please report it"),
    N_(
        "stopped at the CPU limit of %(limit)s s (charged as wall time x %(cores)s core(s): "
        "%(why)s)"
    ),
    N_("stopped at the CPU limit of %(limit)s s"),
    N_("stopped at the wall-clock backstop of %(limit)s s: %(why)s"),
    N_("stopped at the wall-clock backstop of %(limit)s s"),
    N_("the machine was busy"),
    N_("waiting, not computing"),
    N_("computing, below the CPU limit"),
    N_("the kernel stopped it at the memory limit of %(mb)s MB"),
    N_(
        "the run ended without finishing its answers (it called halt, or was killed; the "
        "sandbox reports %(done)s)"
    ),
    N_("the sandbox ended in the middle of the run"),
    N_("the sandbox had ended before it took its request"),
    N_("not emulated: SICStus library predicate %(gap)s (plpuzzle's gap: please report it)"),
    # A wrong answer's summary (runs/suite.py), a list of these.
    N_("missing %(count)s"),
    N_("extra %(count)s"),
    N_("duplicate %(count)s"),
    N_("malformed or non-ground %(count)s"),
    # What the service says of a test it has no result for (service/grades.py).
    N_("not graded"),
    N_("no upload"),
    N_("upload %(id)s is replaced by upload %(newer)s before it was graded"),
    N_("upload %(id)s is %(state)s: its public tests are graded, the others wait"),
    # A student's notes (grading/model.py).
    N_("not graded: %(what)s"),
    N_("while loading: %(message)s"),
    # The labels of a test's evidence (judging.py), each a line of its own.
    N_("the exception:"),
    N_("what it printed (last part):"),
    N_("why:"),
    N_("while loading:"),
    N_("not graded:"),
    N_("see the messages printed while loading, in the notes"),
    # A wrong answer's evidence (judging.py), and drawn (domain/evidence.py).
    N_("first missing solution: %(grid)s"),
    N_("first extra solution: %(grid)s"),
    N_("given %(count)s times: %(grid)s"),
    N_("first extra solution (given, not a solution):"),
    N_("first missing solution (a solution not given):"),
    N_("breaks: %(rule)s"),
    N_("... and %(count)s more broken rules"),
    # Why there is no smaller puzzle (feedback/shrink.py, feedback/build.py).
    N_("our engine could not solve the puzzle: %(why)s"),
    N_("the puzzle has more than %(count)s solutions, too many to compare within the bounds"),
    N_("the solver did not go wrong on this puzzle again"),
    N_("stopped after %(runs)s solver runs (the limit)"),
    N_("stopped after %(seconds)s s (the limit)"),
    N_("not tried: this student's time for shrinking was used up"),
    N_("the search failed: %(error)s"),
    # The rules a board breaks (domain/validator.py).
    N_("cell (%(row)s,%(col)s) holds %(value)s, outside 1..%(n)s"),
    N_("row %(row)s holds %(value)s %(times)s"),
    N_("column %(col)s holds %(value)s %(times)s"),
    N_("the box at rows %(top)s-%(bottom)s, columns %(left)s-%(right)s holds %(value)s %(times)s"),
    N_("twice"),
    N_("three times"),
    N_("%(count)s times"),
    N_("cell (%(row)s,%(col)s) must be %(info)s but holds %(value)s"),
    N_("cell (%(row)s,%(col)s) must be even but holds %(value)s"),
    N_("cell (%(row)s,%(col)s) must be odd but holds %(value)s"),
    N_(
        "s: cell (%(row)s,%(col)s)=%(value)s and the cell below (%(row2)s,%(col2)s)=%(value2)s "
        "%(problem)s"
    ),
    N_(
        "w: cell (%(row)s,%(col)s)=%(value)s and the cell to its left (%(row2)s,%(col2)s)="
        "%(value2)s %(problem)s"
    ),
    N_("differ by %(gap)s, not 1"),
    N_("have an even sum %(total)s, not an odd one"),
)

_PLACE = re.compile(r"%\((\w+)\)s")


@functools.cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Each template as a pattern its filled texts match in full."""
    out = []
    for template in TEMPLATES:
        parts = _PLACE.split(template)
        pattern = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
        )
        out.append((template, re.compile(pattern, re.S)))
    return out


def recognised(text: str) -> tuple[str, dict[str, str]] | None:
    """The template `text` fills and what fills its places, or None."""
    for template, pattern in _patterns():
        if (found := pattern.fullmatch(text)) is not None:
            return template, found.groupdict()
    return None


def said(text: str) -> str:
    """A stored text of the grader's in the language in force; a list of
    them (`missing 2, extra 1`) item by item; any other text as it is."""
    if current() == "en" or not text:
        return text
    return _said(text, 0)


def _said(text: str, depth: int) -> str:
    if depth >= 4:
        return text
    # A list first: "missing 1, extra 1" also fills "missing %(count)s".
    parts = text.split(", ")
    if len(parts) > 1 and all(recognised(p) is not None for p in parts):
        return ", ".join(_said(p, depth + 1) for p in parts)
    found = recognised(text)
    if found is not None:
        template, places = found
        return _(template) % {k: _said(v, depth + 1) for k, v in places.items()}
    return text


def said_lines(text: str) -> str:
    """A stored text of many lines (a test's evidence), line by line, each
    line's indent kept (a drawn board's broken rules are indented)."""
    if current() == "en":
        return text
    out = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        out.append(line[: len(line) - len(body)] + said(body))
    return "\n".join(out)
