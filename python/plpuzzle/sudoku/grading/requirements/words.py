"""The requirements in words: for feedback, the class report and the
command line, all drawn from the JSON form (Requirements.to_json), so
that every place says the same. The words state what was found; whether
it meets the course's rules is the teacher's call.

The words are made here, as the JSON is read, in the language in force
(i18n): grades.json keeps what was found, never sentences, so a stored
grading's requirements read in English or Hungarian alike.
"""

from __future__ import annotations

from typing import Any

from plpuzzle.i18n import N_, _, ngettext

#: Places named in a line of words (the JSON lists more).
NAMED = 8

#: Why points are taken off, by requirement: check.py stores the English
#: beside the requirement's name, the words are made from the name.
DEDUCTION_WHY = {
    "clpfd": N_("no clpfd constraint is reached from sudoku/2"),
    "documentation": N_("no documentation file in the hand-in"),
}

#: What the clpfd check found, by its stored status.
CLPFD_STATUS = {
    "yes": N_("yes"),
    "no": N_("no"),
    "unknown": N_("unknown"),
    "not defined": N_("not defined"),
}


def _status(status: str) -> str:
    return _(CLPFD_STATUS[status]) if status in CLPFD_STATUS else status


def _more(count: int) -> str:
    return _("and %(count)d more") % {"count": count}


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} \u00d7{n}" for k, n in counts.items())


def _places(places: list[dict[str, Any]], total: int) -> str:
    """`sudoku.pl: 3, 9, 12; helper.pl: 4` for the first NAMED places."""
    by_file: dict[str, list[str]] = {}
    for p in places[:NAMED]:
        by_file.setdefault(p["file"], []).append(str(p["line"]))
    said = "; ".join(f"{f}: {', '.join(lines)}" for f, lines in by_file.items())
    return said + (f"; {_more(total - NAMED)}" if total > NAMED else "")


def clpfd_words(c: dict[str, Any]) -> str:
    """What the call graph from sudoku/2 shows."""
    loaded = _("library(clpfd) is loaded") if c["loaded"] else _("library(clpfd) is not loaded")
    elsewhere = (
        "; "
        + _("in predicates that sudoku/2 does not reach: %(kinds)s")
        % {"kinds": _kinds(c["elsewhere"])}
        if c["elsewhere"]
        else ""
    )
    status = _status(c["status"])
    if c["status"] == "yes":
        return _("%(status)s: reached from sudoku/2: %(kinds)s (%(loaded)s)") % {
            "status": status, "kinds": _kinds(c["reached"]), "loaded": loaded}  # fmt: skip
    if c["status"] == "no":
        only = (" " + _("(only the search: %(kinds)s)") % {"kinds": _kinds(c["reached"])}
                if c["reached"] else "")  # fmt: skip
        return _("%(status)s: %(loaded)s, and no clpfd constraint is reached from "
                 "sudoku/2%(only)s%(elsewhere)s") % {
            "status": status, "loaded": loaded, "only": only, "elsewhere": elsewhere}  # fmt: skip
    if c["status"] == "not defined":
        broken = c.get("sudoku_syntax_errors", [])
        if broken:
            words = _("%(status)s: sudoku/2 is not defined: its clause(s) (%(where)s) have "
                      "syntax errors, so SWI-Prolog does not load them (%(loaded)s)"
                      "%(elsewhere)s")  # fmt: skip
            return words % {
                "status": status, "where": _places(broken, len(broken)), "loaded": loaded,
                "elsewhere": elsewhere}  # fmt: skip
        return _("%(status)s: the hand-in does not define sudoku/2 (%(loaded)s)%(elsewhere)s") % {
            "status": status, "loaded": loaded, "elsewhere": elsewhere}  # fmt: skip
    why = []
    if not c["defines_sudoku"]:
        why.append(_("sudoku/2 is not defined"))
    goals = c["run_time_goals"]
    if goals:
        named = "; ".join(f"{g['file']}:{g['line']} {g['what']}" for g in goals[:NAMED])
        more = f"; {_more(len(goals) - NAMED)}" if len(goals) > NAMED else ""
        why.append(_("goals built at run time cannot be followed (%(goals)s)")
                   % {"goals": named + more})  # fmt: skip
    if not why:
        why.append(_("part of the program could not be read by Prolog"))
    words = _("%(status)s: no clpfd constraint is reached directly from sudoku/2, and %(why)s "
              "(%(loaded)s)%(elsewhere)s")  # fmt: skip
    return words % {"status": status, "why": "; ".join(why), "loaded": loaded,
                    "elsewhere": elsewhere}  # fmt: skip


def comments_words(h: dict[str, Any]) -> str:
    if not h["predicates"]:
        return _("no predicate defined")
    said = _("%(with)d of %(all)d predicates (%(share)s) have a comment right above their "
             "first clause") % {"with": h["with_comment"], "all": h["predicates"],
                                "share": f"{h['share']:.0%}"}  # fmt: skip
    if h["without"]:
        missing = h["predicates"] - h["with_comment"]
        named = ", ".join(
            f"{w['predicate']} ({w['file']}:{w['line']})" for w in h["without"][:NAMED]
        )
        more = f", {_more(missing - NAMED)}" if missing > NAMED else ""
        said += "; " + _("without: %(names)s") % {"names": named + more}
    return said


def layout_words(lay: dict[str, Any]) -> str:
    parts = []
    n, limit = lay["long_lines"], lay["line_length"]
    if n:
        parts.append(_("%(count)d line(s) over %(limit)d characters (%(places)s)") % {
            "count": n, "limit": limit, "places": _places(lay["long_line_places"], n)})  # fmt: skip
    else:
        parts.append(_("no line over %(limit)d characters") % {"limit": limit})
    if lay["tab_lines"]:
        tabs = lay["tab_lines"]
        parts.append(_("%(count)d line(s) with tabs (%(places)s)") % {
            "count": tabs, "places": _places(lay["tab_line_places"], tabs)})  # fmt: skip
    for c in lay["long_clauses"][:NAMED]:
        parts.append(_("a clause of %(lines)d lines (%(predicate)s, %(place)s)") % {
            "lines": c["lines"], "predicate": c["predicate"],
            "place": f"{c['file']}:{c['line']}"})  # fmt: skip
    return "; ".join(parts)


def documentation_words(d: dict[str, Any]) -> str:
    if d["present"]:
        return ", ".join(_("%(name)s (%(bytes)s bytes)") % {"name": f["name"],
                         "bytes": f"{f['bytes']:,}"} for f in d["files"])  # fmt: skip
    refused = (" " + _("(not taken: %(files)s)") % {"files": "; ".join(d["refused"])}
               if d["refused"] else "")  # fmt: skip
    return _("no documentation file (HTML, PDF, text) in the hand-in%(refused)s") % {
        "refused": refused}  # fmt: skip


def deduction_why(d: dict[str, Any]) -> str:
    """Why points were taken off: made from the requirement's name (the
    stored English for one this table does not know)."""
    code = d.get("requirement")
    return _(DEDUCTION_WHY[code]) if code in DEDUCTION_WHY else str(d.get("why", ""))


def lines(r: dict[str, Any]) -> list[tuple[str, str]]:
    """(requirement, what was found) for each check that is on, then the
    points taken off, then notes on how the hand-in was read."""
    out = []
    if r["clpfd"] is not None:
        out.append(("clpfd", clpfd_words(r["clpfd"])))
    if r["head_comments"] is not None:
        out.append((_("Head comments"), comments_words(r["head_comments"])))
    if r["layout"] is not None:
        out.append((_("Layout"), layout_words(r["layout"])))
    if r["documentation"] is not None:
        out.append((_("Documentation"), documentation_words(r["documentation"])))
    for d in r["deductions"]:
        out.append((_("Points taken off"), f"{d['points']:g} ({d['requirement']}: "
                    f"{deduction_why(d)})"))  # fmt: skip
    if r["read"] != "prolog":
        out.append((_("Read"), f"{r['read']}: {'; '.join(r['notes'])}"))
    return out


def short(r: dict[str, Any] | None) -> str:
    """One cell of the class table: `clpfd yes · comments 75% · 3 long lines · doc`."""
    if r is None:
        return ""
    c, h, lay, d = r["clpfd"], r["head_comments"], r["layout"], r["documentation"]
    parts = []
    if c:
        parts.append(f"clpfd {_status(c['status'])}")
    if h and h["share"] is not None:
        parts.append(_("comments %(share)s") % {"share": f"{h['share']:.0%}"})
    if lay:
        n = lay["long_lines"]
        parts.append(ngettext("%(count)d long line", "%(count)d long lines", n) % {"count": n})
    if d:
        parts.append(_("doc") if d["present"] else _("no doc"))
    if r["deduction"]:
        parts.append(f"\u2212{r['deduction']:g}")
    return " \u00b7 ".join(parts)
