"""The requirements in words: for feedback, the class report and the
command line, all drawn from the JSON form (Requirements.to_json), so
that every place says the same. The words state what was found; whether
it meets the course's rules is the teacher's call."""

from __future__ import annotations

from typing import Any

#: Places named in a line of words (the JSON lists more).
NAMED = 8


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} \u00d7{n}" for k, n in counts.items())


def _places(places: list[dict[str, Any]], total: int) -> str:
    """`sudoku.pl: 3, 9, 12; helper.pl: 4` for the first NAMED places."""
    by_file: dict[str, list[str]] = {}
    for p in places[:NAMED]:
        by_file.setdefault(p["file"], []).append(str(p["line"]))
    said = "; ".join(f"{f}: {', '.join(lines)}" for f, lines in by_file.items())
    return said + (f"; and {total - NAMED} more" if total > NAMED else "")


def clpfd_words(c: dict[str, Any]) -> str:
    """What the call graph from sudoku/2 shows."""
    loaded = "library(clpfd) is loaded" if c["loaded"] else "library(clpfd) is not loaded"
    elsewhere = (
        f"; in predicates that sudoku/2 does not reach: {_kinds(c['elsewhere'])}"
        if c["elsewhere"]
        else ""
    )
    if c["status"] == "yes":
        return f"yes: reached from sudoku/2: {_kinds(c['reached'])} ({loaded})"
    if c["status"] == "no":
        only = f" (only the search: {_kinds(c['reached'])})" if c["reached"] else ""
        return f"no: {loaded}, and no clpfd constraint is reached from sudoku/2{only}{elsewhere}"
    if c["status"] == "not defined":
        broken = c.get("sudoku_syntax_errors", [])
        if broken:
            where = _places(broken, len(broken))
            return (
                f"not defined: sudoku/2 is not defined: its clause(s) ({where}) have syntax "
                f"errors, so SWI-Prolog does not load them ({loaded}){elsewhere}"
            )
        return f"not defined: the hand-in does not define sudoku/2 ({loaded}){elsewhere}"
    why = []
    if not c["defines_sudoku"]:
        why.append("sudoku/2 is not defined")
    goals = c["run_time_goals"]
    if goals:
        named = "; ".join(f"{g['file']}:{g['line']} {g['what']}" for g in goals[:NAMED])
        more = f"; and {len(goals) - NAMED} more" if len(goals) > NAMED else ""
        why.append(f"goals built at run time cannot be followed ({named}{more})")
    if not why:
        why.append("part of the program could not be read by Prolog")
    return (
        f"unknown: no clpfd constraint is reached directly from sudoku/2, and "
        f"{'; '.join(why)} ({loaded}){elsewhere}"
    )


def comments_words(h: dict[str, Any]) -> str:
    if not h["predicates"]:
        return "no predicate defined"
    said = (
        f"{h['with_comment']} of {h['predicates']} predicates ({h['share']:.0%}) have a "
        "comment right above their first clause"
    )
    if h["without"]:
        missing = h["predicates"] - h["with_comment"]
        named = ", ".join(
            f"{w['predicate']} ({w['file']}:{w['line']})" for w in h["without"][:NAMED]
        )
        more = f", and {missing - NAMED} more" if missing > NAMED else ""
        said += f"; without: {named}{more}"
    return said


def layout_words(lay: dict[str, Any]) -> str:
    parts = []
    n, limit = lay["long_lines"], lay["line_length"]
    if n:
        parts.append(f"{n} line(s) over {limit} characters ({_places(lay['long_line_places'], n)})")
    else:
        parts.append(f"no line over {limit} characters")
    if lay["tab_lines"]:
        tabs = lay["tab_lines"]
        parts.append(f"{tabs} line(s) with tabs ({_places(lay['tab_line_places'], tabs)})")
    for c in lay["long_clauses"][:NAMED]:
        parts.append(f"a clause of {c['lines']} lines ({c['predicate']}, {c['file']}:{c['line']})")
    return "; ".join(parts)


def documentation_words(d: dict[str, Any]) -> str:
    if d["present"]:
        return ", ".join(f"{f['name']} ({f['bytes']:,} bytes)" for f in d["files"])
    refused = f" (not taken: {'; '.join(d['refused'])})" if d["refused"] else ""
    return f"no documentation file (HTML, PDF, text) in the hand-in{refused}"


def lines(r: dict[str, Any]) -> list[tuple[str, str]]:
    """(requirement, what was found) for each check that is on, then the
    points taken off, then notes on how the hand-in was read."""
    out = []
    if r["clpfd"] is not None:
        out.append(("clpfd", clpfd_words(r["clpfd"])))
    if r["head_comments"] is not None:
        out.append(("Head comments", comments_words(r["head_comments"])))
    if r["layout"] is not None:
        out.append(("Layout", layout_words(r["layout"])))
    if r["documentation"] is not None:
        out.append(("Documentation", documentation_words(r["documentation"])))
    for d in r["deductions"]:
        out.append(("Points taken off", f"{d['points']:g} ({d['requirement']}: {d['why']})"))
    if r["read"] != "prolog":
        out.append(("Read", f"{r['read']}: {'; '.join(r['notes'])}"))
    return out


def short(r: dict[str, Any] | None) -> str:
    """One cell of the class table: `clpfd yes · comments 75% · 3 long lines · doc`."""
    if r is None:
        return ""
    c, h, lay, d = r["clpfd"], r["head_comments"], r["layout"], r["documentation"]
    parts = []
    if c:
        parts.append(f"clpfd {c['status']}")
    if h and h["share"] is not None:
        parts.append(f"comments {h['share']:.0%}")
    if lay:
        n = lay["long_lines"]
        parts.append(f"{n} long line{'' if n == 1 else 's'}")
    if d:
        parts.append("doc" if d["present"] else "no doc")
    if r["deduction"]:
        parts.append(f"\u2212{r['deduction']:g}")
    return " \u00b7 ".join(parts)
