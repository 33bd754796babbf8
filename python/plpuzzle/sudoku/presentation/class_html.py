"""A class's grading report as one self-contained HTML page.

Teachers open the page from disk, mail it, or archive it with the grades,
so it must work without a server or network: the CSS is inline, the charts
are SVG drawn here, and there is no JavaScript at all. The page is drawn
from the dictionary that plpuzzle.sudoku.presentation.class_report.build() returns (the
JSON report), so the HTML, JSON and CSV reports always agree, and the same
report always gives the same bytes.

Student ids, test names, details and evidence come from students' programs
and files; everything taken from the report is HTML-escaped, and a
Content-Security-Policy forbids scripts and outside resources in case a
bug ever let some markup through.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

#: Badge colours per grade name; an unknown grade gets the neutral grey.
GRADE_COLOURS: dict[str, str] = {
    "correct": "#1a7f37",
    "wrong": "#cf222e",
    "timeout": "#9a6700",
    "memory limit": "#8250df",
    "crashed": "#bf3989",
    "load error": "#0969da",
    "error": "#57606a",
}

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

_CSS = """\
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--accent:#0969da}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:#fff;
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1120px;margin:0 auto;padding:24px 20px 64px}
h1{font-size:24px;margin:0 0 12px}
h2{font-size:18px;margin:36px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:16px;margin:0;overflow-wrap:anywhere}
a{color:var(--accent);text-decoration:none}
a:hover{text-decoration:underline}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(140px,1fr));gap:8px;margin:0}
.facts div{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:6px 10px}
.facts dt{font-size:12px;color:var(--muted)}
.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--soft);font-size:12px;font-weight:600;white-space:nowrap}
.num{text-align:right;white-space:nowrap}
td.id{overflow-wrap:anywhere}
td.zero{color:#afb8c1}
.meter{display:inline-block;width:64px;height:8px;margin-left:8px;border-radius:4px;
background:#eaeef2;vertical-align:middle;overflow:hidden}
.meter span{display:block;height:100%;background:#2da44e}
.badge{display:inline-block;padding:0 8px;border-radius:10px;background:#57606a;color:#fff;
font-size:12px;font-weight:600;white-space:nowrap}
.charts{display:flex;flex-wrap:wrap;gap:8px 40px;margin-top:16px}
figure{margin:0;max-width:100%}
figcaption{font-size:12px;color:var(--muted)}
svg text{font-family:inherit;font-size:11px;fill:var(--fg)}
svg .tick{fill:var(--muted);font-size:10px}
svg .grid{stroke:#eaeef2}
svg .axis{stroke:#8c959f}
.student{border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:16px 0;
scroll-margin-top:8px}
.student:target{outline:3px solid #54aeff;outline-offset:2px}
.student header{display:flex;flex-wrap:wrap;gap:4px 16px;align-items:baseline;margin-bottom:8px}
.student .meta{color:var(--muted);font-size:12px;overflow-wrap:anywhere}
.student .top{margin-left:auto;font-size:12px}
td.test{white-space:nowrap}
td.detail{width:100%;overflow-wrap:anywhere}
pre{margin:4px 0 0;padding:6px 8px;max-height:16em;overflow:auto;white-space:pre-wrap;
overflow-wrap:anywhere;background:var(--soft);border:1px solid var(--line);border-radius:6px;
font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
.empty{color:var(--muted);font-style:italic}
"""


def _e(value: object) -> str:
    """Escape text and attribute values alike (quotes too)."""
    return escape(str(value), quote=True)


def _slug(grade: str) -> str:
    """A CSS class name for a grade: 'memory limit' -> 'memory-limit'."""
    return re.sub(r"[^a-z0-9]+", "-", grade.lower()).strip("-") or "other"


def _grade_css(grades: Sequence[str]) -> str:
    """Colour rules for the grades this report has (badges and count cells)."""
    rules = []
    for grade in grades:
        colour = GRADE_COLOURS.get(grade)
        if colour is None:
            continue
        s = _slug(grade)
        rules.append(f".badge.g-{s}{{background:{colour}}}")
        rules.append(f"td.c-{s}{{color:{colour};background:{colour}1a;font-weight:600}}")
    return "\n".join(rules) + "\n"


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
) -> str:
    """A vertical bar chart: one <rect class="bar"> per name, in order."""
    left, right, above, plot_h, below = 52.0, 12.0, 22.0, 160.0, 92.0
    slot, bar_w = 40.0, 26.0
    width = max(240.0, left + slot * len(names) + right)
    height = above + plot_h + below
    base = above + plot_h
    parts = [
        f'<svg id="{svg_id}" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'width="{_f(width)}" height="{_f(height)}" '
        f'viewBox="0 0 {_f(width)} {_f(height)}" aria-labelledby="{svg_id}-title">',
        f'<title id="{svg_id}-title">{_e(title)}</title>',
    ]
    for i in range(5):
        frac = i / 4
        y = base - frac * plot_h
        parts.append(
            f'<line class="grid" x1="{_f(left)}" y1="{_f(y)}" x2="{_f(width - right)}" '
            f'y2="{_f(y)}"/>'
            f'<text class="tick" x="{_f(left - 6)}" y="{_f(y + 3)}" text-anchor="end">'
            f"{_e(tick_label(frac * top))}</text>"
        )
    for i, (name, value, tip) in enumerate(zip(names, values, tooltips, strict=True)):
        x = left + slot * i + (slot - bar_w) / 2
        h = plot_h * min(max(value / top, 0.0), 1.0) if top > 0 else 0.0
        cx = x + bar_w / 2
        parts.append(
            f"<g><title>{_e(tip)}</title>"
            f'<rect class="bar" x="{_f(x)}" y="{_f(base - h)}" width="{_f(bar_w)}" '
            f'height="{_f(h)}" rx="2" fill="{colour}"/>'
            f'<text x="{_f(cx)}" y="{_f(base - h - 5)}" text-anchor="middle">'
            f"{_e(value_label(value))}</text>"
            f'<text transform="translate({_f(cx + 4)} {_f(base + 12)}) rotate(-45)" '
            f'text-anchor="end">{_e(_short(name))}</text></g>'
        )
    parts.append(
        f'<line class="axis" x1="{_f(left)}" y1="{_f(base)}" x2="{_f(width - right)}" '
        f'y2="{_f(base)}"/>'
    )
    parts.append("</svg>")
    return "\n".join(parts)


def _header(report: dict[str, Any]) -> str:
    settings = report["settings"]
    students = report["students"]
    scores = sorted(s["score"] for s in students)
    if scores:
        mid = len(scores) // 2
        median = scores[mid] if len(scores) % 2 else (scores[mid - 1] + scores[mid]) / 2
        median_text = f"{median:g}"
    else:
        median_text = "\u2013"
    facts = [
        ("Students", len(students)),
        ("Tests", len(report["tests"])),
        ("Max score", report["max_score"]),
        ("Median score", median_text),
        ("Rules", settings["rules"]),
        ("Dialect", settings["dialect"]),
        ("Time limit", f"{settings['time_limit']:g} s CPU (wall {settings['wall_limit']:g} s)"),
        ("Memory limit", f"{settings['memory_limit_mb']} MB"),
        ("Limits", settings["policy"]),
    ]
    if report.get("not_emulated"):
        facts.append(("Not emulated (plpuzzle's gap)", ", ".join(report["not_emulated"])))
    items = "\n".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>" for k, v in facts)
    return (
        f'<header>\n<h1>Sudoku grading report</h1>\n<dl class="facts">\n{items}\n</dl>\n</header>'
    )


def _class_table(report: dict[str, Any], anchors: Sequence[str]) -> str:
    grades = report["grades"]
    head = "".join(
        f'<th class="num"><span class="badge g-{_slug(g)}">{_e(g)}</span></th>' for g in grades
    )
    rows = []
    for student, anchor in zip(report["students"], anchors, strict=True):
        score, top = student["score"], student["max_score"]
        share = score / top * 100 if top else 0.0
        cells = []
        for g in grades:
            n = student["counts"].get(g, 0)
            cls = f"num c-{_slug(g)}" if n else "num zero"
            cells.append(f'<td class="{cls}">{n}</td>')
        rows.append(
            f'<tr><td class="id"><a href="{_e(_href(anchor))}">{_e(student["id"])}</a></td>'
            f'<td class="num">{_e(score)} / {_e(top)}'
            f'<span class="meter"><span style="width:{share:.1f}%"></span></span></td>'
            + "".join(cells)
            + "</tr>"
        )
    body = "\n".join(rows) or (
        f'<tr><td class="empty" colspan="{2 + len(grades)}">No students.</td></tr>'
    )
    return (
        '<section>\n<h2>Class</h2>\n<div class="scroll">\n<table id="class-table">\n'
        f'<thead><tr><th>Student</th><th class="num">Score</th>{head}</tr></thead>\n'
        f"<tbody>\n{body}\n</tbody>\n</table>\n</div>\n</section>"
    )


def _tests_section(report: dict[str, Any]) -> str:
    tests = report["tests"]
    rows = []
    for t in tests:
        rate = t["pass_rate"]
        rows.append(
            f'<tr><td>{_e(t["name"])}</td><td class="num">{_e(t["points"])}</td>'
            f'<td class="num">{t["correct"]} / {t["total"]}</td>'
            f'<td class="num">{_percent(rate)}<span class="meter">'
            f'<span style="width:{rate * 100:.1f}%"></span></span></td>'
            f'<td class="num">{_seconds(t["median_cpu_seconds"])}</td></tr>'
        )
    body = "\n".join(rows) or '<tr><td class="empty" colspan="5">No tests.</td></tr>'
    names = [t["name"] for t in tests]
    pass_chart = _bar_chart(
        "pass-rate-chart",
        "Pass rate per test",
        names,
        [t["pass_rate"] for t in tests],
        1.0,
        _percent,
        [
            f"{t['name']}: {t['correct']} of {t['total']} correct ({_percent(t['pass_rate'])})"
            for t in tests
        ],
        _percent,
        "#2da44e",
    )
    medians = [t["median_cpu_seconds"] for t in tests]
    runtime_chart = _bar_chart(
        "runtime-chart",
        "Median CPU seconds per test",
        names,
        medians,
        _nice_ceiling(max(medians, default=0.0)),
        _seconds,
        [f"{t['name']}: median {_seconds(t['median_cpu_seconds'])} CPU s" for t in tests],
        lambda v: f"{v:g}",
        "#0969da",
    )
    return (
        '<section>\n<h2>Tests</h2>\n<div class="scroll">\n<table id="test-table">\n'
        '<thead><tr><th>Test</th><th class="num">Points</th><th class="num">Correct</th>'
        '<th class="num">Pass rate</th><th class="num">Median CPU s</th></tr></thead>\n'
        f"<tbody>\n{body}\n</tbody>\n</table>\n</div>\n"
        '<div class="charts">\n<figure class="scroll">\n'
        f"{pass_chart}\n"
        "<figcaption>Share of students whose solver passed each test.</figcaption>\n"
        "</figure>\n"
        '<figure class="scroll">\n'
        f"{runtime_chart}\n"
        "<figcaption>Median CPU seconds per test over all students.</figcaption>\n"
        "</figure>\n</div>\n</section>"
    )


def _student_section(student: dict[str, Any], anchor: str) -> str:
    rows = []
    for r in student["results"]:
        evidence = r["evidence"]
        pre = f"<pre>{_e(evidence)}</pre>" if evidence else ""
        rows.append(
            f'<tr><td class="test">{_e(r["test"])}</td>'
            f'<td><span class="badge g-{_slug(r["grade"])}">{_e(r["grade"])}</span></td>'
            f'<td class="num">{_e(r["earned"])} / {_e(r["points"])}</td>'
            f'<td class="num">{_seconds(r["cpu_seconds"])}</td>'
            f'<td class="num">{_seconds(r["wall_seconds"])}</td>'
            f'<td class="detail">{_e(r["detail"])}{pre}</td></tr>'
        )
    body = "\n".join(rows) or '<tr><td class="empty" colspan="6">No results.</td></tr>'
    notes = "".join(f"<li>{_e(n)}</li>" for n in student.get("notes", []))
    notes_list = f'<ul class="notes">{notes}</ul>\n' if notes else ""
    return (
        f'<section class="student" id="{_e(anchor)}">\n<header>'
        f"<h3>{_e(student['id'])}</h3>"
        f"<span><b>{_e(student['score'])} / {_e(student['max_score'])}</b> points</span>"
        f'<span class="meta">{_e(student["submission"])}</span>'
        '<a class="top" href="#class-table">\u2191 class table</a></header>\n'
        f'{notes_list}<div class="scroll">\n<table>\n'
        '<thead><tr><th>Test</th><th>Grade</th><th class="num">Points</th>'
        '<th class="num">CPU s</th><th class="num">wall s</th>'
        "<th>Detail and evidence</th></tr></thead>\n"
        f"<tbody>\n{body}\n</tbody>\n</table>\n</div>\n</section>"
    )


def render_html(report: dict[str, Any]) -> str:
    """The whole page for a report from class_report.build()."""
    students = sorted(report["students"], key=lambda s: s["id"])
    report = {**report, "students": students}
    anchors = _anchors([s["id"] for s in students])
    sections = "\n".join(_student_section(s, a) for s, a in zip(students, anchors, strict=True))
    title = f"Sudoku grading report \u2013 {len(students)} students"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n"
        f"<style>\n{_CSS}{_grade_css(report['grades'])}</style>\n"
        "</head>\n<body>\n<main>\n"
        f"{_header(report)}\n"
        f"{_class_table(report, anchors)}\n"
        f"{_tests_section(report)}\n"
        f"<section>\n<h2>Students</h2>\n{sections or '<p class=empty>No students.</p>'}\n"
        "</section>\n</main>\n</body>\n</html>\n"
    )
