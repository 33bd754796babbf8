"""A student's feedback drawn as Markdown and as a self-contained HTML page.

Both say the same things in the same order (services.feedback builds
them): the score, a compact table of verdicts, each error once, and for
each wrong test the boards and broken rules, then the smallest puzzle the
solver still gets wrong, ready to save as a test file. Nothing here
depends on the time or the machine, so the same grades give the same files.
Both are drawn in the language in force (i18n): our words through the
catalogue, verdicts by grading.model's names, the grader's stored findings
said again by grading.said.

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

from plpuzzle.i18n import N_, _, current
from plpuzzle.sudoku.domain.evidence import GridEvidence
from plpuzzle.sudoku.domain.model import Puzzle
from plpuzzle.sudoku.domain.textformat import solutions_to_text
from plpuzzle.sudoku.grading.feedback.model import (
    ErrorGroup,
    Shrunk,
    StudentFeedback,
    TestFeedback,
)
from plpuzzle.sudoku.grading.model import verdict_name
from plpuzzle.sudoku.grading.pages import render
from plpuzzle.sudoku.grading.requirements.words import lines as requirement_lines
from plpuzzle.sudoku.grading.said import said, said_lines
from plpuzzle.untrusted import md_code, md_fence

#: Our solutions are written out as an expected-solution file up to this many.
SOLUTIONS_WRITTEN = 8
#: Lines of an error's evidence shown (it is the tail of what was printed).
EVIDENCE_LINES = 25

RULE_WORDS = {
    "consecutive": N_("an `s` or `w` info means the two cells' values differ by exactly 1"),
    "oddsum": N_("an `s` or `w` info means the two cells' values have an odd sum"),
}


def _rule_words(rules: str) -> str:
    return _(RULE_WORDS[rules]) if rules in RULE_WORDS else rules


def _verdict(t: TestFeedback) -> str:
    """A test's verdict for the table; an error's message is told once, below it."""
    name = verdict_name(t.grade)
    return f"{name}: {said(t.detail)}" if t.detail and t.grade == "wrong" else name


def _counts_line(f: StudentFeedback) -> str:
    """How many tests got each verdict: `correct 3, wrong 1`."""
    return ", ".join(f"{verdict_name(g)} {n}" for g, n in f.counts.items())


def _evidence_text(e: ErrorGroup) -> list[str]:
    lines = said_lines(e.evidence).splitlines()
    if len(lines) > EVIDENCE_LINES:
        more = len(lines) - EVIDENCE_LINES
        lines = [*lines[:EVIDENCE_LINES], _("... (%(count)d more lines)") % {"count": more}]
    return lines


def _extra_caption(e: GridEvidence, ours: bool = False) -> str:
    if e.violations:
        return _("A solution your solver gave that is not one:")
    if ours:
        return _("A solution your solver gave that breaks no rule (please tell your teacher):")
    return _(
        "A solution your solver gave that breaks no rule, but is not among the "
        "expected ones (please tell your teacher):"
    )


def _missing_caption() -> str:
    return _("A solution your solver did not give:")


def _breaks() -> str:
    return _("It breaks these rules:")


def _and_more(count: int) -> str:
    return _("... and %(count)d more") % {"count": count}


def _goal(puzzle: Puzzle) -> str:
    return f"sudoku({puzzle.to_term()}, Sol)"


def _counts(s: Shrunk) -> str:
    theirs = f"{s.theirs_count}"
    if s.extra and s.theirs_count > len(s.ours):
        theirs = _("%(count)d (or more: it was stopped there)") % {"count": s.theirs_count}
    counted = {"ours": len(s.ours), "theirs": theirs}
    if s.malformed:
        return _("This puzzle has %(ours)d solution(s); your solver gave %(theirs)s "
                 "well-formed solution(s).") % counted  # fmt: skip
    return (
        _("This puzzle has %(ours)d solution(s); your solver gave %(theirs)s answer(s).") % counted
    )


def _shrunk_summary(s: Shrunk) -> str:
    origin = (
        _("the test's puzzle has K=%(k)d and %(infos)d infos")
        % {"k": s.original_k, "infos": s.original_infos}
        if s.original_k != s.puzzle.k or s.original_infos != s.infos
        else _("the test's puzzle could not be made smaller")
    )
    return _("K=%(k)d with %(infos)d info(s) (%(origin)s)") % {
        "k": s.puzzle.k, "infos": s.infos, "origin": origin}  # fmt: skip


def _shrunk_extras(s: Shrunk) -> list[str]:
    out = []
    if s.duplicates:
        out.append(_("Your solver gave %(count)d solution(s) more than once.")
                   % {"count": s.duplicates})  # fmt: skip
    if s.malformed:
        besides = _("Besides, it gave %(count)d answer(s) that are no solution at all "
                    "(malformed, or with unbound variables).")  # fmt: skip
        out.append(besides % {"count": s.malformed})
    if s.stopped:
        out.append(_("(The search for a smaller puzzle %(stopped)s; a smaller one may exist.)")
                   % {"stopped": said(s.stopped)})  # fmt: skip
    return out


# --- Markdown ---------------------------------------------------------------


def _md_board(e: GridEvidence) -> list[str]:
    out = ["```", *e.board.splitlines(), "```"]
    if e.violations:
        out += ["", _breaks(), *(f"- {said(v)}" for v in e.violations[:6])]
        if len(e.violations) > 6:
            out.append(f"- {_and_more(len(e.violations) - 6)}")
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
        _("Its %(count)d solutions are too many to list here; this writes them as %(file)s:")
        % {"count": len(s.ours), "file": solutions},
        f"plpuzzle sudoku solve {puzzle} --engine python --rules {rules} --format expected "
        f"-o {solutions}",
    )


def _md_shrunk(s: Shrunk, test: str, rules: str) -> list[str]:
    puzzle = small_names(test)[0]
    out = [
        "#### "
        + _("A smaller puzzle your solver gets wrong: %(summary)s")
        % {"summary": _shrunk_summary(s)},
        "",
        _("Save it as a puzzle file of your own tests (%(file)s):") % {"file": f"`{puzzle}`"},
        "",
        "```",
        *s.text.splitlines(),
        "```",
        "",
        _("or run it directly: %(goal)s") % {"goal": f"`{_goal(s.puzzle)}`"},
        "",
        _counts(s),
        "",
    ]
    if s.extra:
        out += [_extra_caption(s.extra, ours=True), "", *_md_board(s.extra)]
    if s.missing:
        out += [_missing_caption(), "", *_md_board(s.missing)]
    if len(s.ours) <= SOLUTIONS_WRITTEN:
        out += [
            _("Its solutions, as an expected-solution file (%(file)s):")
            % {"file": f"`{small_names(test)[1]}`"},
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


def _requirements_intro() -> str:
    """What the requirements section is, for the student."""
    return _(
        "What the assignment asks beyond correct answers, as read from your files "
        "(nothing was run to find it):"
    )


def _requirements(f: StudentFeedback) -> list[tuple[str, str]]:
    """The course requirements in words, in the language in force."""
    return requirement_lines(f.requirements) if f.requirements else []


def _no_smaller(note: str) -> str:
    return _("No smaller puzzle: %(why)s.") % {"why": said(note)}


def to_markdown(f: StudentFeedback) -> str:
    """The feedback as Markdown (what a teacher pastes into a mail)."""
    out = [
        "# " + _("Sudoku assignment: feedback"),
        "",
        _("Student: %(student)s") % {"student": md_code(f.student)},
        "",
        _("Score: %(score)s (%(counts)s).")
        % {"score": f"**{f.score} / {f.max_score}**", "counts": _counts_line(f)},
        "",
        _("Rules: %(rules)s (%(words)s).") % {"rules": f.rules, "words": _rule_words(f.rules)},
        "",
    ]
    if f.identical_to:
        out += [_("Identical to: %(others)s")
                % {"others": ", ".join(md_code(o) for o in f.identical_to)}, ""]  # fmt: skip
    if f.notes:
        out += ["## " + _("Notes"), "", *_md_text("\n".join(f"- {said(n)}" for n in f.notes))]
    if requirements := _requirements(f):
        out += ["## " + _("Course requirements"), "", _requirements_intro(), ""]
        out += _md_text("\n".join(f"- {name}: {found}" for name, found in requirements))
    head = (_("test"), _("verdict"), _("points"))
    out += [
        "## " + _("Tests"),
        "",
        "| {} | {} | {} |".format(*map(_md_cell, head)),
        "|---|---|---|",
    ]
    for t in f.tests:
        out.append(f"| {_md_cell(t.test)} | {_md_cell(_verdict(t))} | {t.earned}/{t.points} |")
    out.append("")
    if f.errors:
        out += ["## " + _("Errors"), ""]
        for e in f.errors:
            tests = _("Tests: %(tests)s") % {"tests": _md_cell(", ".join(e.tests))}
            out += [f"### {verdict_name(e.grade)}", "", tests, ""]
            out += _md_text(said(e.message))
            if e.evidence:
                out += _md_text("\n".join(_evidence_text(e)))
    wrong = [t for t in f.tests if t.grade == "wrong"]
    if wrong:
        out += ["## " + _("Wrong answers"), ""]
    for t in wrong:
        out += [f"### {_md_cell(t.test)}: {_md_cell(said(t.detail))}", ""]
        if t.extra:
            out += [_extra_caption(t.extra), "", *_md_board(t.extra)]
        if t.missing:
            out += [_missing_caption(), "", *_md_board(t.missing)]
        if t.other:
            out += _md_text("\n".join(t.other))
        if t.shrunk:
            out += _md_shrunk(t.shrunk, t.test, f.rules)
        elif t.shrink_note:
            out += [_no_smaller(t.shrink_note), ""]
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


def to_html(f: StudentFeedback, whole: bool = True) -> str:
    """The feedback as one HTML page, with no scripts and no outside files;
    not `whole`: without its heading, score and course requirements (a
    page that says them itself: the service's)."""
    page = {
        "whole": whole,
        "language": current(),
        "counts": _counts_line(f),
        "rule_words": _words(_rule_words(f.rules)),
        "requirements": _requirements(f),
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
        "notes": [said(n) for n in f.notes],
        "errors": [
            {
                "grade": verdict_name(e.grade),
                "message": said(e.message),
                "tests": e.tests,
                "evidence": "\n".join(_evidence_text(e)) if e.evidence else "",
            }
            for e in f.errors
        ],
        "missing_caption": _missing_caption(),
        "requirements_intro": _requirements_intro(),
        "wrong": [
            {
                "test": t.test,
                "detail": said(t.detail),
                "extra": t.extra,
                "extra_caption": _extra_caption(t.extra) if t.extra else "",
                "missing": t.missing,
                "other": t.other,
                "shrunk": _shrunk_page(t.shrunk, t.test, f.rules) if t.shrunk else None,
                "shrink_note": said(t.shrink_note),
            }
            for t in f.tests
            if t.grade == "wrong"
        ],
    }
    return render("feedback.html.j2", f=f, v=page)
