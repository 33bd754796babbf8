"""A student's feedback drawn as Markdown and as a self-contained HTML page.

Both say the same things in the same order (services.feedback builds
them): the score, a compact table of verdicts, each error once, and for
each wrong test the boards and broken rules, then the smallest puzzle the
solver still gets wrong, ready to save as a test file. Nothing here
depends on the time or the machine, so the same grades give the same files.

Text that came from a submission (an exception, what it printed, a file
name, a malformed answer) is never live markup. In HTML it is escaped. In
Markdown, where escaping is unreliable, it only ever appears inside a code
fence made longer than any run of backticks in it (untrusted.md_fence),
or an inline code span made the same way; headings and table cells hold
only our own words, test names and numbers.
"""

from __future__ import annotations

import re
from typing import Any

from plpuzzle.sudoku.domain.evidence import GridEvidence
from plpuzzle.sudoku.domain.model import Puzzle
from plpuzzle.sudoku.domain.textformat import solutions_to_text
from plpuzzle.sudoku.grading.feedback.model import (
    ErrorGroup,
    Shrunk,
    StudentFeedback,
    TestFeedback,
)
from plpuzzle.sudoku.grading.pages import render
from plpuzzle.untrusted import md_code, md_fence

#: Our solutions are written out as an expected-solution file up to this many.
SOLUTIONS_WRITTEN = 8
#: Lines of an error's evidence shown (it is the tail of what was printed).
EVIDENCE_LINES = 25

RULE_WORDS = {
    "consecutive": "an `s` or `w` info means the two cells' values differ by exactly 1",
    "oddsum": "an `s` or `w` info means the two cells' values have an odd sum",
}


def _verdict(t: TestFeedback) -> str:
    """A test's verdict for the table; an error's message is told once, below it."""
    return f"{t.grade}: {t.detail}" if t.detail and t.grade == "wrong" else t.grade


def _evidence_text(e: ErrorGroup) -> list[str]:
    lines = e.evidence.splitlines()
    if len(lines) > EVIDENCE_LINES:
        lines = [*lines[:EVIDENCE_LINES], f"... ({len(lines) - EVIDENCE_LINES} more lines)"]
    return lines


def _extra_caption(e: GridEvidence, ours: bool = False) -> str:
    if e.violations:
        return "A solution your solver gave that is not one:"
    if ours:
        return "A solution your solver gave that breaks no rule (please tell your teacher):"
    return (
        "A solution your solver gave that breaks no rule, but is not among the "
        "expected ones (please tell your teacher):"
    )


MISSING_CAPTION = "A solution your solver did not give:"


def _goal(puzzle: Puzzle) -> str:
    return f"sudoku({puzzle.to_term()}, Sol)"


def _counts(s: Shrunk) -> str:
    theirs = f"{s.theirs_count}"
    if s.extra and s.theirs_count > len(s.ours):
        theirs = f"{s.theirs_count} (or more: it was stopped there)"
    kind = "well-formed solution(s)" if s.malformed else "answer(s)"
    return f"This puzzle has {len(s.ours)} solution(s); your solver gave {theirs} {kind}."


def _shrunk_summary(s: Shrunk) -> str:
    origin = (
        f"the test's puzzle has K={s.original_k} and {s.original_infos} infos"
        if s.original_k != s.puzzle.k or s.original_infos != s.infos
        else "the test's puzzle could not be made smaller"
    )
    return f"K={s.puzzle.k} with {s.infos} info(s) ({origin})"


def _shrunk_extras(s: Shrunk) -> list[str]:
    out = []
    if s.duplicates:
        out.append(f"Your solver gave {s.duplicates} solution(s) more than once.")
    if s.malformed:
        out.append(f"Besides, it gave {s.malformed} answer(s) that are no solution at all "
                   "(malformed, or with unbound variables).")  # fmt: skip
    if s.stopped:
        out.append(f"(The search for a smaller puzzle {s.stopped}; a smaller one may exist.)")
    return out


# --- Markdown ---------------------------------------------------------------


def _md_board(e: GridEvidence) -> list[str]:
    out = ["```", *e.board.splitlines(), "```"]
    if e.violations:
        out += ["", "It breaks these rules:", *(f"- {v}" for v in e.violations[:6])]
        if len(e.violations) > 6:
            out.append(f"- ... and {len(e.violations) - 6} more")
    return [*out, ""]


def _md_text(text: str) -> list[str]:
    """Text from a submission, as a fence it cannot close, and a blank line."""
    return [*md_fence(text), ""]


def small_names(test: str) -> tuple[str, str]:
    """The files a shrunk puzzle of `test` is suggested to be saved as: a
    puzzle and its expected solutions that `sudoku test` finds as a pair
    (test003smalld.txt and test003smalls.txt, the test test003small)."""
    return f"{test}smalld.txt", f"{test}smalls.txt"


def _solutions_hint(s: Shrunk, test: str, rules: str) -> tuple[str, str]:
    """How to get the expected-solution file when the solutions are not
    listed: the words, and the command."""
    puzzle, solutions = small_names(test)
    return (
        f"Its {len(s.ours)} solutions are too many to list here; this writes them as {solutions}:",
        f"plpuzzle sudoku solve {puzzle} --engine python --rules {rules} --format expected "
        f"-o {solutions}",
    )


def _md_shrunk(s: Shrunk, test: str, rules: str) -> list[str]:
    puzzle, _ = small_names(test)
    out = [
        f"#### A smaller puzzle your solver gets wrong: {_shrunk_summary(s)}",
        "",
        f"Save it as a puzzle file of your own tests (`{puzzle}`):",
        "",
        "```",
        *s.text.splitlines(),
        "```",
        "",
        f"or run it directly: `{_goal(s.puzzle)}`",
        "",
        _counts(s),
        "",
    ]
    if s.extra:
        out += [_extra_caption(s.extra, ours=True), "", *_md_board(s.extra)]
    if s.missing:
        out += [MISSING_CAPTION, "", *_md_board(s.missing)]
    if len(s.ours) <= SOLUTIONS_WRITTEN:
        out += [
            f"Its solutions, as an expected-solution file (`{small_names(test)[1]}`):",
            "",
            "```",
            solutions_to_text(s.ours).rstrip("\n"),
            "```",
            "",
        ]
    else:
        words, command = _solutions_hint(s, test, rules)
        out += [words, "", f"`{command}`", ""]
    out += [f"{line}\n" for line in _shrunk_extras(s)]
    return out


def _md_cell(text: str) -> str:
    """A table cell of our own words (a test name, a verdict): pipes escaped,
    and anything that could be markup shown as code."""
    if re.fullmatch(r"[\w .,:;()/+=-]*", text):
        return text
    return md_code(text).replace("|", "\\|")


#: What the requirements section is, for the student.
REQUIREMENTS_INTRO = (
    "What the assignment asks beyond correct answers, as read from your files "
    "(nothing was run to find it):"
)


def to_markdown(f: StudentFeedback) -> str:
    """The feedback as Markdown (what a teacher pastes into a mail)."""
    counts = ", ".join(f"{g} {n}" for g, n in f.counts.items())
    out = [
        "# Sudoku assignment: feedback",
        "",
        f"Student: {md_code(f.student)}",
        "",
        f"Score: **{f.score} / {f.max_score}** ({counts}).",
        "",
        f"Rules: {f.rules} ({RULE_WORDS.get(f.rules, f.rules)}).",
        "",
    ]
    if f.identical_to:
        out += [f"Identical to: {', '.join(md_code(o) for o in f.identical_to)}", ""]
    if f.notes:
        out += ["## Notes", "", *_md_text("\n".join(f"- {n}" for n in f.notes))]
    if f.requirements:
        out += ["## Course requirements", "", REQUIREMENTS_INTRO, ""]
        out += _md_text("\n".join(f"- {name}: {found}" for name, found in f.requirements))
    out += ["## Tests", "", "| test | verdict | points |", "|---|---|---|"]
    for t in f.tests:
        out.append(f"| {_md_cell(t.test)} | {_md_cell(_verdict(t))} | {t.earned}/{t.points} |")
    out.append("")
    if f.errors:
        out += ["## Errors", ""]
        for e in f.errors:
            out += [f"### {e.grade}", "", f"Tests: {_md_cell(', '.join(e.tests))}", ""]
            out += _md_text(e.message)
            if e.evidence:
                out += _md_text("\n".join(_evidence_text(e)))
    wrong = [t for t in f.tests if t.grade == "wrong"]
    if wrong:
        out += ["## Wrong answers", ""]
    for t in wrong:
        out += [f"### {_md_cell(t.test)}: {_md_cell(t.detail)}", ""]
        if t.extra:
            out += [_extra_caption(t.extra), "", *_md_board(t.extra)]
        if t.missing:
            out += [MISSING_CAPTION, "", *_md_board(t.missing)]
        if t.other:
            out += _md_text("\n".join(t.other))
        if t.shrunk:
            out += _md_shrunk(t.shrunk, t.test, f.rules)
        elif t.shrink_note:
            out += [f"No smaller puzzle: {t.shrink_note}.", ""]
    return "\n".join(out).rstrip("\n") + "\n"


# --- HTML (grading.pages' feedback.html.j2 draws it) -------------------------

_CODE_SPAN = re.compile(r"(`[^`]+`)")


def _words(text: str) -> list[dict[str, Any]]:
    """Our own words, written for Markdown, as pieces for the page: each
    `span` a piece shown as code, as Markdown shows it. Never for a
    submission's text, whose backticks are just characters."""
    pieces = []
    for part in _CODE_SPAN.split(text):
        if part:
            code = part.startswith("`") and part.endswith("`") and len(part) > 2
            pieces.append({"text": part[1:-1] if code else part, "code": code})
    return pieces


def _shrunk_page(s: Shrunk, test: str, rules: str) -> dict[str, Any]:
    puzzle, solutions = small_names(test)
    hint_words, hint_command = _solutions_hint(s, test, rules)
    listed = len(s.ours) <= SOLUTIONS_WRITTEN
    return {
        "summary": _shrunk_summary(s),
        "puzzle_file": puzzle,
        "text": s.text,
        "goal": _goal(s.puzzle),
        "counts": _counts(s),
        "extra": s.extra,
        "extra_caption": _extra_caption(s.extra, ours=True) if s.extra else "",
        "missing": s.missing,
        "solutions_file": solutions,
        "solutions": solutions_to_text(s.ours) if listed else None,
        "hint_words": hint_words,
        "hint_command": hint_command,
        "extras": _shrunk_extras(s),
    }


def to_html(f: StudentFeedback) -> str:
    """The feedback as one HTML page, with no scripts and no outside files."""
    page = {
        "counts": ", ".join(f"{g} {n}" for g, n in f.counts.items()),
        "rule_words": _words(RULE_WORDS.get(f.rules, f.rules)),
        "tests": [
            {
                "cls": t.grade.replace(" ", "-"),
                "test": t.test,
                "verdict": _verdict(t),
                "earned": t.earned,
                "points": t.points,
            }
            for t in f.tests
        ],
        "errors": [
            {
                "grade": e.grade,
                "message": e.message,
                "tests": e.tests,
                "evidence": "\n".join(_evidence_text(e)) if e.evidence else "",
            }
            for e in f.errors
        ],
        "missing_caption": MISSING_CAPTION,
        "requirements_intro": REQUIREMENTS_INTRO,
        "wrong": [
            {
                "test": t.test,
                "detail": t.detail,
                "extra": t.extra,
                "extra_caption": _extra_caption(t.extra) if t.extra else "",
                "missing": t.missing,
                "other": t.other,
                "shrunk": _shrunk_page(t.shrunk, t.test, f.rules) if t.shrunk else None,
                "shrink_note": t.shrink_note,
            }
            for t in f.tests
            if t.grade == "wrong"
        ],
    }
    return render("feedback.html.j2", f=f, v=page)
