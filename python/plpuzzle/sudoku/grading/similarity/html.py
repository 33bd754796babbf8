"""The similarity report in HTML: a section of the class page (grades.html)
and a page of its own (similarity.html, from `sudoku similar`).

This module prepares the data; the templates of grading.pages draw it
(similarity.html.j2, similarity_page.html.j2), escaping everything that
came from a hand-in (student ids, file names, the files' text), whose
control characters are shown as escapes besides. The section needs no
script, so the class page's Content-Security-Policy (no script but its
own) holds for it too. For each pair at or above the threshold the two
hand-ins are shown side by side, their matching passages marked where they
are in the files as written, each passage with one number (and colour) on
both sides.

The words stay neutral: the section says how much two files share after
normalisation, and leaves what that means to the teacher. They are
gettext's, in the language in force as the section is drawn (a Hungarian
course's class report is Hungarian).
"""

from __future__ import annotations

from typing import Any

from plpuzzle.i18n import N_, _
from plpuzzle.sudoku.grading.pages import render
from plpuzzle.sudoku.grading.said import said
from plpuzzle.sudoku.grading.similarity.compare import Compared, Similarity
from plpuzzle.sudoku.grading.similarity.index import Pair
from plpuzzle.sudoku.grading.similarity.reading import PARTLY, PROLOG, TOKENS
from plpuzzle.sudoku.grading.similarity.report import Mark, line_of, matches, reader_words
from plpuzzle.untrusted import one_line, printable

#: Pairs shown side by side (all pairs at or above the threshold are in
#: the table and the CSV), characters of one file shown, characters of
#: files the page shows in all (it stays light whatever the class hands
#: in), passages listed.
SIDE_BY_SIDE = 100
FILE_CHARS = 60_000
PAGE_CHARS = 2_000_000
PASSAGES_LISTED = 40
#: Passage colours, by passage number.
COLOURS = 6
#: How a hand-in was read, by its code (reading.py), in words.
READ_AS = {PROLOG: N_("by Prolog"), PARTLY: N_("partly as tokens"), TOKENS: N_("as tokens")}


def _pct(share: float) -> str:
    return f"{share * 100:.0f}%"


def pair_anchor(number: int) -> str:
    return f"similar-pair-{number}"


def _pair_title(sim: Similarity, pair: Pair) -> str:
    a, b = sim.student(pair.a), sim.student(pair.b)
    return _(
        "%(a)s and %(b)s: %(share_a)s of %(a)s\u2019s fingerprints are in %(b)s\u2019s "
        "hand-in, %(share_b)s of %(b)s\u2019s in %(a)s\u2019s"
    ) % {"a": a, "b": b, "share_a": _pct(pair.share_a), "share_b": _pct(pair.share_b)}


def code_lines(text: str, marks: list[Mark]) -> dict[str, Any]:
    """A file's text as the code view draws it: at most FILE_CHARS
    characters, as lines of pieces (text, and the passage it is marked
    with or None), control characters shown as escapes; and how many
    characters were left out."""
    shown = text[:FILE_CHARS]
    lines: list[list[dict[str, Any]]] = [[]]

    def put(segment: str, passage: int | None) -> None:
        for n, part in enumerate(segment.split("\n")):
            if n:
                lines.append([])
            if part:
                colour = (passage - 1) % COLOURS if passage is not None else None
                lines[-1].append({"text": printable(part), "passage": passage, "colour": colour})

    at = 0
    for m in marks:
        start, end = max(m.start, at), min(m.end, len(shown))
        if start >= end:
            continue
        put(shown[at:start], None)
        put(shown[start:end], m.passage)
        at = end
    put(shown[at:], None)
    return {"lines": lines, "more": len(text) - len(shown)}


def _side(handin: Compared, marks: list[Mark]) -> dict[str, Any]:
    files = [
        {"name": source.name, **code_lines(source.text, [m for m in marks if m.file == number])}
        for number, source in enumerate(handin.handin.files)
    ]
    return {"student": handin.student, "files": files}


def _ranges(handin: Compared, marks: list[Mark]) -> dict[int, str]:
    """passage -> where it is in this hand-in, as file:lines."""
    where: dict[int, list[tuple[int, int, int]]] = {}
    for m in marks:
        text = handin.handin.files[m.file].text
        where.setdefault(m.passage, []).append(
            (m.file, line_of(text, m.start), line_of(text, max(m.start, m.end - 1)))
        )
    out = {}
    for passage, spots in where.items():
        file = spots[0][0]
        first = min(s[1] for s in spots if s[0] == file)
        last = max(s[2] for s in spots if s[0] == file)
        name = handin.handin.files[file].name
        lines = (_("line %(first)s") if first == last else _("lines %(first)s\u2013%(last)s")) % {
            "first": first, "last": last}  # fmt: skip
        if any(s[0] != file for s in spots):
            lines = _("%(lines)s and elsewhere") % {"lines": lines}
        out[passage] = f"{name}: {lines}"
    return out


def _pair_view(sim: Similarity, pair: Pair, number: int) -> dict[str, Any]:
    """One pair side by side; what goes wrong in preparing it costs this
    pair's view only (a line says so), never the section."""
    view: dict[str, Any] = {
        "number": number,
        "anchor": pair_anchor(number),
        "title": _pair_title(sim, pair),
        "failed": None,
    }
    try:
        a, b = sim.handins[pair.a], sim.handins[pair.b]
        found = matches(sim, pair)
        where_a, where_b = _ranges(a, found.a), _ranges(b, found.b)
        view.update(
            shared=pair.shared,
            a=a.student,
            b=b.student,
            passages=[
                {"number": p, "where_a": where_a.get(p, ""), "where_b": where_b.get(p, "")}
                for p in sorted(where_a)[:PASSAGES_LISTED]
            ],
            more_passages=len(where_a) - PASSAGES_LISTED,
            cut=found.cut,
            sides=[_side(a, found.a), _side(b, found.b)],
        )
    except Exception as e:  # one pair's view, never the class page
        view["failed"] = one_line(f"{type(e).__name__}: {e}", 300)
    return view


def _shown(sim: Similarity, above: list[Pair]) -> int:
    """How many of the first pairs are shown side by side: at most
    SIDE_BY_SIDE, and as many as PAGE_CHARS of file text allow (always
    the first)."""
    left = PAGE_CHARS
    for n, p in enumerate(above[:SIDE_BY_SIDE]):
        size = sum(
            min(len(f.text), FILE_CHARS) for i in (p.a, p.b) for f in sim.handins[i].handin.files
        )
        if n and size > left:
            return n
        left -= size
    return min(len(above), SIDE_BY_SIDE)


def _threshold_words(sim: Similarity) -> str:
    s = sim.settings
    words = _("%(share)s of either hand-in, and %(count)s fingerprints in common") % {
        "share": _pct(sim.cut), "count": s.min_shared}  # fmt: skip
    if sim.scale and sim.scale.raised:
        words += " " + _(
            "(raised from %(threshold)s: this class's pairs are typically %(median)s alike, "
            "give or take %(spread)s)"
        ) % {"threshold": _pct(s.threshold), "median": _pct(sim.scale.median),
             "spread": _pct(sim.scale.spread)}  # fmt: skip
    return words


def note_words(note: str) -> str:
    """A hand-in's note (reading.py, source.py) in the language in force:
    one of grading.said's templates filled in, perhaps after a file's name."""
    name, sep, rest = note.partition(": ")
    if sep and note == said(note) and rest != said(rest):
        return f"{name}: {said(rest)}"
    return said(note)


def section_data(sim: Similarity) -> dict[str, Any]:
    """What the similarity section shows: facts, pairs, groups, views."""
    s = sim.settings
    above = sim.above()
    shown = _shown(sim, above)
    facts = [
        (_("Hand-ins compared"), len(sim.handins)),
        (_("Pairs at or above the threshold"), len(above)),
        (_("Threshold"), _threshold_words(sim)),
        (_("Fingerprints"), _("winnowing, k = %(k)s tokens, window = %(window)s")
         % {"k": s.k, "window": s.window}),
        (_("Base code left out"), _("%(files)s (%(count)s fingerprints)")
         % {"files": ", ".join(s.base) or _("none"), "count": sim.base_prints}),
        (_("Textbook code left out"), _("%(count)s fingerprints of the shipped reference")
         % {"count": sim.reference_prints}),
        (_("Dialect"), s.dialect),
        (_("Reading"), reader_words(sim)),
    ]  # fmt: skip
    return {
        "compared": len(sim.handins),
        "min_shared": s.min_shared,
        "facts": [{"key": k, "value": v, "wide": len(str(v)) > 40} for k, v in facts],
        "rows": [
            {
                "number": n,
                "a": sim.student(p.a),
                "b": sim.student(p.b),
                "share_a": _pct(p.share_a),
                "share_b": _pct(p.share_b),
                "shared": p.shared,
                "why": sim.why(p),
                "anchor": pair_anchor(n) if n <= shown else None,
            }
            for n, p in enumerate(above, 1)
        ],
        "clusters": sim.clusters(),
        "rings": [
            {"students": r.students, "common": r.common, "share": _pct(r.share)}
            for r in sim.rings()
        ],
        "identical": sim.identical,
        "same_normal": sim.same_normal,
        "read": [
            {
                "student": c.student,
                "how": _(READ_AS.get(c.how, c.how)),
                "notes": [note_words(n) for n in c.notes],
            }
            for c in sim.handins
            if c.how != PROLOG or c.notes
        ],
        "views": [_pair_view(sim, p, n) for n, p in enumerate(above[:shown], 1)],
        "rest": len(above) - shown,
    }


def section(sim: Similarity) -> str:
    """The similarity section: pairs, groups, identical files, side by side."""
    return render("similarity.html.j2", sim=section_data(sim))


def page(sim: Similarity) -> str:
    """similarity.html: the section alone on a self-contained page (no
    script, nothing loaded from outside)."""
    return render("similarity_page.html.j2", sim=section_data(sim))
