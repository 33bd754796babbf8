"""A class's grading report as one self-contained HTML page: the data of
grading.pages' report.html.j2, prepared here.

Teachers open the page from disk, mail it, or archive it with the grades,
so it must work without a server or network: the CSS and the one script
are inlined from their files, the charts are SVG drawn by a template macro
from the geometry computed here. The page is drawn from the
dictionary that plpuzzle.sudoku.grading.report.build() returns
(the JSON report), so the HTML, JSON and CSV reports always agree, and the
same report always gives the same bytes.

It must stay light for a course of 400 students and the 271-test suite
(108,400 results): the verdict matrix is one small PNG a student, a
coloured cell a test, rather than 108,400 elements (which take a browser
seconds to lay out); per-student sections are collapsed `<details>` that
list failing tests grouped by grade and detail. The rest (CPU times,
details, evidence) travels once, compactly, as a JSON data block, from
which the script shows a pointed-at cell's details and fills an opened
student's full table. Evidence is cut to a budget per student; all of it
is in grades.json. Without JavaScript the page still shows the tables,
the matrix and the grouped failures; sorting, filtering and the per-test
details need the script. Where the runs ran (this machine, or a cluster's
Dask workers) is counted in the header and named per test in a student's
full table.

Student ids, test names, details and evidence come from students' programs
and files, and places from the workers' names: everything taken from the
report is HTML-escaped (the templates autoescape everything), the data
block has every <, > and & as a JSON escape, the only images are the
matrix's data: PNGs drawn here (with pypng), the script
writes text only through textContent, and a Content-Security-Policy lets
no script run but ours (by its digest) and loads nothing from outside.

The page is drawn in the language in force (i18n): our words through the
catalogue, verdicts by grading.model's names, the grader's stored details
and evidence said again by grading.said; the script's few words (its
table's headings, the filter's count) travel in the data block.
"""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import json
import math
import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

import png
from markupsafe import Markup

from plpuzzle.i18n import _, current, ngettext
from plpuzzle.sudoku.grading.model import verdict_name
from plpuzzle.sudoku.grading.pages import render
from plpuzzle.sudoku.grading.requirements.words import lines as requirement_lines
from plpuzzle.sudoku.grading.requirements.words import short as requirement_cell
from plpuzzle.sudoku.grading.said import said, said_lines
from plpuzzle.sudoku.grading.similarity import html as similarity_html
from plpuzzle.sudoku.grading.similarity.compare import Similarity

#: Badge colours per grade name; an unknown grade gets the neutral grey.
GRADE_COLOURS: dict[str, str] = {
    "correct": "#1a7f37",
    "wrong": "#cf222e",
    "timeout": "#9a6700",
    "memory limit": "#8250df",
    "crashed": "#bf3989",
    "not loadable": "#0550ae",
    "load error": "#0969da",
    "no submission": "#6e7781",
    "error": "#57606a",
}

#: Charts with more bars than this are drawn thin, with every tenth label.
COMPACT_CHART = 60

#: Characters of one test's evidence kept in the page (the rest is in the JSON).
EVIDENCE_CHARS = 600

#: Characters of evidence the page may carry for the whole class; each
#: student gets an equal share, and at least EVIDENCE_PER_STUDENT.
EVIDENCE_BUDGET = 500_000
EVIDENCE_PER_STUDENT = 1_500

#: Characters of a detail shown in a student's grouped failures, and how
#: many distinct details a grade shows there (the most frequent ones).
DETAIL_CHARS = 200
DETAILS_SHOWN = 3


def grade_slug(grade: str) -> str:
    """A CSS class name for a grade: 'memory limit' -> 'memory-limit'."""
    return re.sub(r"[^a-z0-9]+", "-", grade.lower()).strip("-") or "other"


def _anchors(ids: Sequence[str]) -> list[str]:
    """An element id per student: 'student-<id>', unique even for odd or repeated ids.

    HTML ids may hold anything but whitespace, so a usual student id is kept
    as it is; whitespace is replaced, with a digest of the id so that two
    ids never meet.
    """
    used: set[str] = set()
    out = []
    for sid in ids:
        base = sid
        if not sid or re.search(r"\s", sid):
            digest = hashlib.sha256(sid.encode()).hexdigest()[:8]
            base = re.sub(r"\s+", "_", sid) + "-" + digest
        anchor = candidate = f"student-{base}"
        n = 2
        while candidate in used:
            candidate = f"{anchor}-{n}"
            n += 1
        used.add(candidate)
        out.append(candidate)
    return out


def _href(anchor: str) -> str:
    """A fragment link to an element id (browsers percent-decode fragments)."""
    return "#" + quote(anchor, safe="")


def _seconds(value: float) -> str:
    """Seconds with about three significant digits: 0.123, 1.23, 12.3, 123."""
    if value < 1:
        return f"{value:.3f}"
    if value < 10:
        return f"{value:.2f}"
    if value < 100:
        return f"{value:.1f}"
    return f"{value:.0f}"


def _percent(rate: float) -> str:
    text = f"{rate * 100:.1f}".removesuffix(".0")
    return f"{text}%"


def _nice_ceiling(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 times a power of ten that is at least `value`."""
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        if step * power >= value - 1e-12:
            return step * power
    return 10.0 * power


def _short(name: str, limit: int = 16) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "\u2026"


def _f(x: float) -> str:
    """Coordinates with one decimal, so the SVG never depends on float repr."""
    return f"{x:.1f}"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _data_block(report: dict[str, Any]) -> str:
    """What the script needs and the markup does not carry, compactly.

    Per student: grades as one character each (an index into grades, base
    36), CPU and wall milliseconds in base 36, and for tests with a detail
    or evidence, [test, detail, evidence] as indexes into a shared table of
    strings (a load error's message is stored once, not 271 times), and
    where each test ran as runs of one place, "I*N" (N tests in a row on
    places[I], base 36; "I" alone for one), space-separated: a class graded
    on one machine costs a few bytes a student. places[0] is "" (not run,
    or not known).
    Evidence is cut to EVIDENCE_CHARS, and once a student's share of
    EVIDENCE_BUDGET is spent, it is left out (-2) and grades.json named
    instead. The JSON has <, > and & escaped, so nothing in it can end the
    block or start markup.
    """
    students = report["students"]
    grades = list(report["grades"])
    index: dict[str, int] = {}
    strings: list[str] = []

    def ref(text: str) -> int:
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    share = max(EVIDENCE_PER_STUDENT, EVIDENCE_BUDGET // max(len(students), 1))
    places = ["", *sorted({r.get("ran_on", "") for s in students for r in s["results"]} - {""})]
    place_index = {p: i for i, p in enumerate(places)}
    rows = []
    for s in students:
        left = share
        codes, extra = [], []
        for t, r in enumerate(s["results"]):
            if r["grade"] not in grades:
                grades.append(r["grade"])
            codes.append(_base36(grades.index(r["grade"])))
            if not (r["detail"] or r["evidence"]):
                continue
            evidence = -1
            if r["evidence"]:
                text = _evidence_text(r["evidence"])
                if text in index:
                    evidence = index[text]
                elif left > 0:
                    left -= len(text)
                    evidence = ref(text)
                else:
                    evidence = -2
            extra.append([t, ref(said(r["detail"])) if r["detail"] else -1, evidence])
        rows.append(
            {
                "id": s["id"],
                "g": "".join(codes),
                "c": " ".join(_base36(round(r["cpu_seconds"] * 1000)) for r in s["results"]),
                "w": " ".join(_base36(round(r["wall_seconds"] * 1000)) for r in s["results"]),
                "x": extra,
                "p": _place_runs([place_index[r.get("ran_on", "")] for r in s["results"]]),
            }
        )
    data = {
        "grades": grades,
        "tests": [t["name"] for t in report["tests"]],
        "points": [t["points"] for t in report["tests"]],
        "cut": _("(evidence left out of this page to keep it light: see grades.json)"),
        "words": _script_words(grades),
        "strings": strings,
        "places": places,
        "students": rows,
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _evidence_text(evidence: Any) -> str:
    """A test's evidence in the reader's words, cut to EVIDENCE_CHARS."""
    text = said_lines(evidence)
    if len(text) <= EVIDENCE_CHARS:
        return text
    more = len(text) - EVIDENCE_CHARS
    return (
        text[:EVIDENCE_CHARS]
        + "\u2026 "
        + _("(%(count)d more characters in grades.json)") % {"count": more}
    )


def _script_words(grades: Sequence[str]) -> dict[str, Any]:
    """The words report.js shows, in the language in force, so that the
    script itself carries none."""
    return {
        "heads": [
            _("Test"),
            _("Verdict"),
            _("Points"),
            _("CPU s"),
            _("wall s"),
            _("Ran on"),
            _("Detail and evidence"),
        ],
        "shown": _("%(shown)s of %(all)s shown"),
        "cpu": _("s CPU"),
        "names": {g: verdict_name(g) for g in grades},
    }


def _place_runs(codes: Sequence[int]) -> str:
    """Place indexes as "I*N" runs (see _data_block): [1, 1, 1, 2] -> "1*3 2"."""
    return " ".join(
        _base36(code) + (f"*{_base36(n)}" if (n := len(list(run))) > 1 else "")
        for code, run in itertools.groupby(codes)
    )


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    n = max(n, 0)
    while True:
        n, d = divmod(n, 36)
        out = digits[d] + out
        if n == 0:
            return out


def _bar_chart(
    svg_id: str,
    title: str,
    names: Sequence[str],
    values: Sequence[float],
    top: float,
    value_label: Callable[[float], str],
    tooltips: Sequence[str],
    tick_label: Callable[[float], str],
    colour: str,
) -> dict[str, Any]:
    """A vertical bar chart's geometry, for the template's bar_chart macro:
    one bar per name, in order.

    Past COMPACT_CHART names (a full suite) the bars are thin and only every
    tenth is labelled, so that 271 tests fit in a few screens, not thirty;
    each bar keeps its tooltip.
    """
    left, right, above, plot_h, below = 52.0, 12.0, 22.0, 160.0, 92.0
    compact = len(names) > COMPACT_CHART
    slot, bar_w = (6.0, 5.0) if compact else (40.0, 26.0)
    width = max(240.0, left + slot * len(names) + right)
    base = above + plot_h
    ticks = []
    for i in range(5):
        y = base - i / 4 * plot_h
        ticks.append({"y": _f(y), "text_y": _f(y + 3), "label": tick_label(i / 4 * top)})
    bars = []
    for i, (name, value, tip) in enumerate(zip(names, values, tooltips, strict=True)):
        x = left + slot * i + (slot - bar_w) / 2
        h = plot_h * min(max(value / top, 0.0), 1.0) if top > 0 else 0.0
        cx = x + bar_w / 2
        bars.append(
            {
                "tip": tip,
                "x": _f(x),
                "y": _f(base - h),
                "height": _f(h),
                "cx": _f(cx),
                "value": None if compact else value_label(value),
                "value_y": _f(base - h - 5),
                "label": _short(name) if not compact or i % 10 == 0 else None,
                "label_x": _f(cx + 4),
            }
        )
    return {
        "id": svg_id,
        "title": title,
        "width": _f(width),
        "height": _f(above + plot_h + below),
        "left": _f(left),
        "right": _f(width - right),
        "tick_x": _f(left - 6),
        "base": _f(base),
        "label_y": _f(base + 12),
        "bar_width": _f(bar_w),
        "rx": 1 if compact else 2,
        "colour": colour,
        "ticks": ticks,
        "bars": bars,
    }


def _facts(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The header's facts; sentences (the limits policy, the emulation
    gap) take a whole row."""
    settings = report["settings"]
    students = report["students"]
    scores = sorted(s["score"] for s in students)
    if scores:
        mid = len(scores) // 2
        median = scores[mid] if len(scores) % 2 else (scores[mid - 1] + scores[mid]) / 2
        median_text = f"{median:g}"
    else:
        median_text = "\u2013"
    limit = _("%(cpu)s s CPU (wall %(wall)s s)") % {
        "cpu": f"{settings['time_limit']:g}", "wall": f"{settings['wall_limit']:g}"}  # fmt: skip
    facts = [
        (_("Students"), len(students)),
        (_("Tests"), len(report["tests"])),
        (_("Max score"), report["max_score"]),
        (_("Median score"), median_text),
        (_("Rules"), settings["rules"]),
        (_("Dialect"), settings["dialect"]),
        (_("Time limit"), limit),
        (_("Memory limit"), f"{settings['memory_limit_mb']} MB"),
        (_("Limits"), settings["policy"]),
    ]
    if settings.get("accounting"):
        facts.append((_("CPU accounting"), settings["accounting"]))
    places = report.get("ran_on", [])
    if places:
        ran = ", ".join(f"{p['place']} ({_runs(p['runs'])})" for p in places)
        facts.append((_("Ran on"), ran))
    if report.get("not_emulated"):
        facts.append((_("Not emulated (plpuzzle's gap)"), ", ".join(report["not_emulated"])))
    return [{"key": k, "value": v, "wide": len(str(v)) > 40} for k, v in facts]


def _runs(n: int) -> str:
    return ngettext("%(count)d run", "%(count)d runs", n) % {"count": n}


def _class_rows(report: dict[str, Any], anchors: Sequence[str]) -> list[dict[str, Any]]:
    rows = []
    for i, (student, anchor) in enumerate(zip(report["students"], anchors, strict=True)):
        cells = []
        for g in report["grades"]:
            n = student["counts"].get(g, 0)
            cells.append({"n": n, "cls": f"num c-{grade_slug(g)}" if n else "num zero"})
        rows.append(
            {
                "i": i,
                "href": _href(anchor),
                "id": student["id"],
                "twins": student.get("identical_to") or [],
                "score": student["score"],
                "max_score": student["max_score"],
                "cells": cells,
                "requirements": requirement_cell(student.get("requirements")),
            }
        )
    return rows


#: A matrix cell in pixels: CELL_W x CELL_H of colour, then a 1 px gap.
CELL_W, CELL_H = 5, 9


def _png(width: int, rows: Sequence[bytes], palette: Sequence[str]) -> bytes:
    """A palette PNG (8 bits an index) of the given scanlines, the last
    palette entry transparent (the gap between cells); deterministic."""
    colours = [tuple(bytes.fromhex(c.lstrip("#"))) for c in palette]
    entries = [(*c, 255) for c in colours[:-1]] + [(*colours[-1], 0)]
    out = io.BytesIO()
    writer = png.Writer(width, len(rows), palette=entries, bitdepth=8, compression=9)
    writer.write(out, [list(r) for r in rows])
    return out.getvalue()


def verdict_matrix(report: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Students by tests, one coloured cell a result, in suite order; and
    the legend.

    Each student's row is one small PNG (a few hundred bytes) rather than
    271 elements: 108,400 cells as elements take the browser seconds to
    lay out and weigh megabytes. The script maps the pointer to a cell
    (CELL_W + 1 pixels a column) for its hover details; without it the
    colours, the legend and the students' sections still tell the story.
    """
    tests = [t["name"] for t in report["tests"]]
    grades = list(report["grades"])
    for s in report["students"]:
        grades += [r["grade"] for r in s["results"] if r["grade"] not in grades]
    palette = [GRADE_COLOURS.get(g, "#afb8c1") for g in grades] + ["#ffffff"]
    gap = len(palette) - 1
    totals = {g: 0 for g in grades}
    for s in report["students"]:
        for r in s["results"]:
            totals[r["grade"]] += 1
    legend = [{"name": verdict_name(g), "slug": grade_slug(g), "n": n} for g, n in totals.items()]
    width = (CELL_W + 1) * len(tests)
    rows = []
    for i, s in enumerate(report["students"]):
        codes = [grades.index(r["grade"]) for r in s["results"]]
        line = b"".join(bytes([c] * CELL_W + [gap]) for c in codes)
        image = base64.b64encode(_png(width, [line] * CELL_H, palette)).decode() if codes else ""
        summary = ", ".join(f"{n} {verdict_name(g)}" for g, n in s["counts"].items() if n)
        rows.append(
            {
                "i": i,
                "id": s["id"],
                "alt": f"{s['id']}: {summary}",
                "src": f"data:image/png;base64,{image}" if image else "",
            }
        )
    matrix = {
        "step": CELL_W + 1,
        "width": width,
        "height": CELL_H,
        "ruler": [{"left": (k - 1) * (CELL_W + 1), "k": k} for k in range(10, len(tests) + 1, 10)],
        "rows": rows,
    }
    return matrix, legend


def _tests(report: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The tests table's rows, and the two charts."""
    tests = report["tests"]
    rows = [
        {
            "i": i,
            "name": t["name"],
            "points": t["points"],
            "correct": t["correct"],
            "total": t["total"],
            "rate": _percent(t["pass_rate"]),
            "median": _seconds(t["median_cpu_seconds"]),
        }
        for i, t in enumerate(tests)
    ]
    names = [t["name"] for t in tests]
    pass_chart = _bar_chart(
        "pass-rate-chart",
        _("Pass rate per test"),
        names,
        [t["pass_rate"] for t in tests],
        1.0,
        _percent,
        [
            _("%(test)s: %(correct)s of %(total)s correct (%(rate)s)")
            % {
                "test": t["name"],
                "correct": t["correct"],
                "total": t["total"],
                "rate": _percent(t["pass_rate"]),
            }
            for t in tests
        ],
        _percent,
        "#2da44e",
    )
    pass_chart["caption"] = _("Share of students whose solver passed each test.")
    medians = [t["median_cpu_seconds"] for t in tests]
    runtime_chart = _bar_chart(
        "runtime-chart",
        _("Median CPU seconds per test"),
        names,
        medians,
        _nice_ceiling(max(medians, default=0.0)),
        _seconds,
        [
            _("%(test)s: median %(seconds)s CPU s")
            % {"test": t["name"], "seconds": _seconds(t["median_cpu_seconds"])}
            for t in tests
        ],
        lambda v: f"{v:g}",
        "#0969da",
    )
    runtime_chart["caption"] = _("Median CPU seconds per test over all students.")
    return rows, [pass_chart, runtime_chart]


def _student(student: dict[str, Any], anchor: str, index: int) -> dict[str, Any]:
    """A collapsed section: the summary line, notes, and the failing tests
    grouped by grade, each with its most frequent details (a line per
    grade, not per test, so that 271 failures cost a few lines). The full
    table with times and evidence is the script's, drawn when opened."""
    groups: dict[str, dict[str, list[str]]] = {}
    for r in student["results"]:
        if r["grade"] != "correct":
            groups.setdefault(r["grade"], {}).setdefault(r["detail"], []).append(r["test"])
    fails = []
    for grade, details in groups.items():
        tests = [t for names in details.values() for t in names]
        shown = sorted(details.items(), key=lambda d: -len(d[1]))[:DETAILS_SHOWN]
        told = "; ".join(
            f"{_clip(said(d), DETAIL_CHARS)} ({len(names)})" for d, names in shown if d
        )
        if len(details) > DETAILS_SHOWN:
            told += "; " + _("and %(count)d more") % {"count": len(details) - DETAILS_SHOWN}
        fails.append(
            {
                "name": verdict_name(grade),
                "slug": grade_slug(grade),
                "count": len(tests),
                "tests": tests,
                "said": told,
            }
        )
    return {
        "anchor": anchor,
        "i": index,
        "id": student["id"],
        "score": student["score"],
        "max_score": student["max_score"],
        "counts": [
            {"name": verdict_name(g), "slug": grade_slug(g), "n": n}
            for g, n in student["counts"].items()
            if n
        ],
        "submission": student["submission"],
        "notes": [said(n) for n in student.get("notes", [])],
        "requirements": requirement_lines(student["requirements"])
        if student.get("requirements")
        else [],
        "fails": fails,
        "results": len(student["results"]),
    }


def render_html(report: dict[str, Any], similarity: Similarity | None = None,
                back: tuple[str, str] | None = None) -> str:  # fmt: skip
    """The whole page for a report from class_report.build(); with
    `similarity`, its section (the pairs side by side) before the students';
    with `back` (address, words), a link back to the site that serves it."""
    students = sorted(report["students"], key=lambda s: s["id"])
    report = {**report, "students": students}
    anchors = _anchors([s["id"] for s in students])
    matrix, legend = verdict_matrix(report)
    tests, charts = _tests(report)
    page = {
        "language": current(),
        "title": ngettext(
            "Sudoku grading report \u2013 %(count)d student",
            "Sudoku grading report \u2013 %(count)d students",
            len(students),
        )
        % {"count": len(students)},
        "back": {"href": back[0], "text": back[1]} if back else None,
        "grade_colours": [
            {"slug": grade_slug(g), "colour": GRADE_COLOURS[g]}
            for g in report["grades"]
            if g in GRADE_COLOURS
        ],
        "facts": _facts(report),
        "grades": [{"name": verdict_name(g), "slug": grade_slug(g)} for g in report["grades"]],
        # The course requirements' column, when grading checked them.
        "requirements": bool(report.get("requirements")),
        "class_rows": _class_rows(report, anchors),
        "legend": legend,
        "matrix": matrix,
        "tests": tests,
        "charts": charts,
        "similarity": similarity_html.section_data(similarity) if similarity else None,
        "students": [
            _student(s, a, i) for i, (s, a) in enumerate(zip(students, anchors, strict=True))
        ],
        # Escaped for the inside of a script element (every <, > and & as a
        # JSON escape): the one piece of a student's text put in as it is.
        "data": Markup(_data_block(report)),
    }
    return render("report.html.j2", page=page)
