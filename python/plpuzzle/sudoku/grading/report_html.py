"""A class's grading report as one self-contained HTML page.

Teachers open the page from disk, mail it, or archive it with the grades,
so it must work without a server or network: the CSS and the one script
are inline, the charts are SVG drawn here. The page is drawn from the
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
report is HTML-escaped, the data block has every <, > and & as a JSON
escape, the only images are the matrix's data: PNGs drawn here, the script
writes text only through textContent, and a Content-Security-Policy lets
no script run but ours (by its digest) and loads nothing from outside.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import math
import re
import struct
import zlib
from collections.abc import Callable, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

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

_CSS = """\
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--accent:#0969da}
*{box-sizing:border-box}
[hidden]{display:none!important}
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
.facts .wide{grid-column:1/-1}
.facts .wide dd{font-weight:400}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--soft);font-size:12px;font-weight:600;white-space:nowrap}
.num{text-align:right;white-space:nowrap}
td.id{overflow-wrap:break-word}
td.id .twin{color:var(--muted);font-size:12px}
td.zero{color:#afb8c1}
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
td.place{min-width:10em;font-size:12px;color:var(--muted);overflow-wrap:break-word}
pre{margin:4px 0 0;padding:6px 8px;max-height:16em;overflow:auto;white-space:pre-wrap;
overflow-wrap:anywhere;background:var(--soft);border:1px solid var(--line);border-radius:6px;
font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
.empty{color:var(--muted);font-style:italic}
.box{max-height:70vh;overflow:auto;border:1px solid var(--line);border-radius:6px}
.box thead th{position:sticky;top:0;z-index:1}
th.sort{cursor:pointer;user-select:none;text-decoration:underline dotted #8c959f}
th[aria-sort=ascending]:after{content:" \\25B2";font-size:9px}
th[aria-sort=descending]:after{content:" \\25BC";font-size:9px}
.tools{display:flex;gap:12px;align-items:center;margin:0 0 8px;color:var(--muted);font-size:12px}
.tools input{font:inherit;font-size:14px;padding:4px 8px;width:18em;border:1px solid var(--line);
border-radius:6px}
.legend{display:flex;flex-wrap:wrap;gap:6px 12px;margin:0 0 8px;font-size:12px}
#matrix{padding:0 0 4px}
.ruler{position:relative;height:14px;margin-left:12em;font-size:9px;color:var(--muted)}
.ruler span{position:absolute;top:0}
.mrow{display:flex;height:10px;width:max-content}
.mrow .who{position:sticky;left:0;flex:0 0 12em;padding-right:6px;background:#fff;font-size:9px;
line-height:9px;text-align:right;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
.mrow img{display:block;image-rendering:pixelated;cursor:crosshair}
.mrow:hover .who{background:#ddf4ff}
#matrix-info{min-height:1.5em;font-size:12px;color:var(--muted);overflow-wrap:anywhere}
#matrix-tip{position:fixed;z-index:2;max-width:28em;padding:4px 8px;border-radius:4px;
background:#1f2328;color:#fff;font-size:12px;pointer-events:none;overflow-wrap:anywhere}
details.student{border:1px solid var(--line);border-radius:6px;margin:6px 0;scroll-margin-top:8px;
content-visibility:auto;contain-intrinsic-size:auto 36px}
details.student:target{outline:3px solid #54aeff;outline-offset:2px}
details.student>summary{display:flex;flex-wrap:wrap;gap:2px 14px;align-items:baseline;
padding:6px 12px;cursor:pointer}
details.student>summary .sid{font-weight:600;overflow-wrap:anywhere}
details.student>summary .meta{color:var(--muted);font-size:12px;overflow-wrap:anywhere}
details.student>summary .badge{margin-right:4px}
details.student .body{padding:0 12px 10px}
.fails{margin:4px 0;padding-left:18px;font-size:12px;overflow-wrap:anywhere}
.fails li{margin:2px 0}
.fails .said{color:var(--muted)}
tr.hit{background:#fff8c5}
"""

#: The page's styles, for other pages of the report (similarity.html).
PAGE_CSS = _CSS


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
    """A vertical bar chart: one <rect class="bar"> per name, in order.

    Past COMPACT_CHART names (a full suite) the bars are thin and only every
    tenth is labelled, so that 271 tests fit in a few screens, not thirty;
    each bar keeps its tooltip.
    """
    left, right, above, plot_h, below = 52.0, 12.0, 22.0, 160.0, 92.0
    compact = len(names) > COMPACT_CHART
    slot, bar_w = (6.0, 5.0) if compact else (40.0, 26.0)
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
        bar = (
            f"<g><title>{_e(tip)}</title>"
            f'<rect class="bar" x="{_f(x)}" y="{_f(base - h)}" width="{_f(bar_w)}" '
            f'height="{_f(h)}" rx="{1 if compact else 2}" fill="{colour}"/>'
        )
        if not compact:
            bar += (
                f'<text x="{_f(cx)}" y="{_f(base - h - 5)}" text-anchor="middle">'
                f"{_e(value_label(value))}</text>"
            )
        if not compact or i % 10 == 0:
            bar += (
                f'<text transform="translate({_f(cx + 4)} {_f(base + 12)}) rotate(-45)" '
                f'text-anchor="end">{_e(_short(name))}</text>'
            )
        parts.append(bar + "</g>")
    parts.append(
        f'<line class="axis" x1="{_f(left)}" y1="{_f(base)}" x2="{_f(width - right)}" '
        f'y2="{_f(base)}"/>'
    )
    parts.append("</svg>")
    return "\n".join(parts)


#: The class of a fact that takes a whole row of the header.
WIDE = ' class="wide"'


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
    if settings.get("accounting"):
        facts.append(("CPU accounting", settings["accounting"]))
    places = report.get("ran_on", [])
    if places:
        facts.append(("Ran on", ", ".join(f"{p['place']} ({_runs(p['runs'])})" for p in places)))
    if report.get("not_emulated"):
        facts.append(("Not emulated (plpuzzle's gap)", ", ".join(report["not_emulated"])))
    # Sentences (the limits policy, the emulation gap) take a whole row.
    items = "\n".join(
        f"<div{WIDE if len(str(v)) > 40 else ''}><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>"
        for k, v in facts
    )
    return (
        f'<header>\n<h1>Sudoku grading report</h1>\n<dl class="facts">\n{items}\n</dl>\n</header>'
    )


def _runs(n: int) -> str:
    return f"{n} run" if n == 1 else f"{n} runs"


#: The page's only script: sorting, filtering, the matrix's hover details and
#: the students' full tables, all from the data block. It writes untrusted
#: text only through textContent and title, never as markup. Its digest is
#: in the page's Content-Security-Policy, so no other script can run.
_SCRIPT = """\
(function () {
  "use strict";
  var data = null;
  function D() {  // parsed on first use, not while the page loads
    if (!data) data = JSON.parse(document.getElementById("report-data").textContent);
    return data;
  }
  function all(sel, root) {
    return Array.prototype.slice.call((root || document).querySelectorAll(sel));
  }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function secs(ms) {
    var v = ms / 1000;
    return v < 1 ? v.toFixed(3) : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0);
  }
  var cache = {};
  function student(i) {
    if (!cache[i]) {
      var s = D().students[i], x = {}, p = [];
      s.x.forEach(function (r) { x[r[0]] = r; });
      (s.p ? s.p.split(" ") : []).forEach(function (run) {  // "place*count" or "place"
        var a = run.split("*"), n = a.length > 1 ? parseInt(a[1], 36) : 1;
        while (n-- > 0) p.push(parseInt(a[0], 36));
      });
      cache[i] = {
        id: s.id, g: s.g, x: x, p: p,
        c: s.c.split(" ").map(function (v) { return parseInt(v, 36); }),
        w: s.w.split(" ").map(function (v) { return parseInt(v, 36); })
      };
    }
    return cache[i];
  }
  function result(i, t) {
    var s = student(i), x = s.x[t] || [t, -1, -1];
    var grade = D().grades[parseInt(s.g.charAt(t), 36)];
    return {
      test: D().tests[t], grade: grade,
      points: D().points[t], earned: grade === "correct" ? D().points[t] : 0,
      cpu: secs(s.c[t]), wall: secs(s.w[t]), place: D().places[s.p[t]] || "",
      detail: x[1] < 0 ? "" : D().strings[x[1]],
      evidence: x[2] === -1 ? "" : x[2] === -2 ? D().cut : D().strings[x[2]]
    };
  }
  function describe(i, t) {
    var r = result(i, t);
    return student(i).id + " \\u00b7 " + r.test + ": " + r.grade + ", " + r.cpu +
      " s CPU" + (r.detail ? " \\u2014 " + r.detail : "");
  }
  function sortable(table) {
    var heads = all("thead th", table), body = table.tBodies[0];
    all("tr", body).forEach(function (r, n) { r.dataset.n = n; });
    heads.forEach(function (th, col) {
      th.classList.add("sort");
      th.tabIndex = 0;
      function go() {
        var up = th.getAttribute("aria-sort") !== "ascending";
        var text = th.classList.contains("txt");
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        var rows = all("tr", body).map(function (r) {
          var v = r.cells[col] ? r.cells[col].textContent : "";
          return [text ? v : parseFloat(v) || 0, +r.dataset.n, r];
        });
        rows.sort(function (a, b) {
          var d = text ? a[0].localeCompare(b[0]) : a[0] - b[0];
          return (up ? d : -d) || a[1] - b[1];
        });
        rows.forEach(function (r) { body.appendChild(r[2]); });
        if (table.id === "class-table") {  // the matrix follows the class table
          var m = document.getElementById("matrix");
          rows.forEach(function (r) {
            var row = m.querySelector(".mrow[data-i=\\"" + r[2].dataset.i + "\\"]");
            if (row) m.appendChild(row);
          });
        }
      }
      th.addEventListener("click", go);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); }
      });
    });
  }
  function filter(input, count, groups, names) {
    input.hidden = false;
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase(), shown = 0;
      var keep = names.map(function (n) {
        var k = n.toLowerCase().indexOf(q) >= 0;
        if (k) shown += 1;
        return k;
      });
      groups.forEach(function (sel) {
        all(sel).forEach(function (e) { e.hidden = !keep[+e.dataset.i]; });
      });
      count.textContent = q ? shown + " of " + names.length + " shown" : "";
    });
  }
  function render(d) {
    var i = +d.dataset.i, box = d.querySelector(".results");
    if (d.dataset.done) return;
    d.dataset.done = "1";
    var table = el("table"), head = el("tr"), body = el("tbody");
    [["Test", ""], ["Grade", ""], ["Points", "num"], ["CPU s", "num"], ["wall s", "num"],
      ["Ran on", ""], ["Detail and evidence", ""]].forEach(function (h) {
      head.appendChild(el("th", h[0], h[1]));
    });
    table.appendChild(el("thead")).appendChild(head);
    D().tests.forEach(function (_, t) {
      var r = result(i, t), tr = el("tr"), detail = el("td", r.detail, "detail");
      tr.appendChild(el("td", r.test, "test"));
      tr.appendChild(el("td")).appendChild(el("span", r.grade,
        "badge g-" + r.grade.toLowerCase().replace(/[^a-z0-9]+/g, "-")));
      tr.appendChild(el("td", r.earned + " / " + r.points, "num"));
      tr.appendChild(el("td", r.cpu, "num"));
      tr.appendChild(el("td", r.wall, "num"));
      tr.appendChild(el("td", r.place, "place"));
      if (r.evidence) detail.appendChild(el("pre", r.evidence));
      tr.appendChild(detail);
      body.appendChild(tr);
    });
    table.appendChild(body);
    box.appendChild(table);
  }
  function open(i, t) {
    var d = document.querySelector("details.student[data-i=\\"" + i + "\\"]");
    if (!d) return;
    d.open = true;
    render(d);
    var row = t === undefined ? d : d.querySelectorAll(".results tbody tr")[t];
    all("tr.hit").forEach(function (r) { r.classList.remove("hit"); });
    if (row !== d) row.classList.add("hit");
    row.scrollIntoView({block: "start"});
  }
  function fromHash() {
    var e = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (e && e.matches("details.student")) open(+e.dataset.i);
  }
  sortable(document.getElementById("class-table"));
  sortable(document.getElementById("test-table"));
  var names = all("#class-table tbody tr a").map(function (a) { return a.textContent; });
  filter(document.getElementById("class-filter"), document.getElementById("class-count"),
    ["#class-table tbody tr", "#matrix .mrow", "details.student"], names);
  filter(document.getElementById("test-filter"), document.getElementById("test-count"),
    ["#test-table tbody tr"], all("#test-table tbody tr td:first-child").map(function (td) {
      return td.textContent;
    }));
  var matrix = document.getElementById("matrix"), info = document.getElementById("matrix-info");
  var tip = document.getElementById("matrix-tip"), step = +matrix.dataset.step;
  function cell(e) {
    if (e.target.tagName !== "IMG") return null;
    var t = Math.floor(e.offsetX / step);
    return t < 0 || t >= D().tests.length ? null : [+e.target.parentNode.dataset.i, t];
  }
  matrix.addEventListener("mousemove", function (e) {
    var c = cell(e);
    if (!c) { tip.hidden = true; return; }
    tip.textContent = info.textContent = describe(c[0], c[1]);
    tip.style.left = Math.min(e.clientX + 14, innerWidth - 300) + "px";
    tip.style.top = e.clientY + 16 + "px";
    tip.hidden = false;
  });
  matrix.addEventListener("mouseleave", function () { tip.hidden = true; });
  matrix.addEventListener("click", function (e) {
    var c = cell(e);
    if (c) open(c[0], c[1]);
  });
  document.addEventListener("toggle", function (e) {
    if (e.target.matches && e.target.matches("details.student") && e.target.open) render(e.target);
  }, true);
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
"""

_SCRIPT_DIGEST = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()

_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    f"script-src 'sha256-{_SCRIPT_DIGEST}'"
)


def _filter_box(box_id: str, what: str) -> str:
    """A filter field that only the script shows: without it, it would do nothing."""
    return (
        f'<div class="tools"><input type="search" id="{box_id}" placeholder="Filter {what}" '
        f'aria-label="Filter {what}" hidden><span id="{box_id.split("-")[0]}-count"></span></div>'
    )


def _class_table(report: dict[str, Any], anchors: Sequence[str]) -> str:
    grades = report["grades"]
    head = "".join(
        f'<th class="num"><span class="badge g-{_slug(g)}">{_e(g)}</span></th>' for g in grades
    )
    rows = []
    for i, (student, anchor) in enumerate(zip(report["students"], anchors, strict=True)):
        score, top = student["score"], student["max_score"]
        cells = []
        for g in grades:
            n = student["counts"].get(g, 0)
            cls = f"num c-{_slug(g)}" if n else "num zero"
            cells.append(f'<td class="{cls}">{n}</td>')
        twins = student.get("identical_to") or []
        same = f'<div class="twin">identical to: {_e(", ".join(twins))}</div>' if twins else ""
        rows.append(
            f'<tr data-i="{i}"><td class="id"><a href="{_e(_href(anchor))}">'
            f"{_e(student['id'])}</a>{same}</td>"
            f'<td class="num">{_e(score)} / {_e(top)}</td>' + "".join(cells) + "</tr>"
        )
    body = "\n".join(rows) or (
        f'<tr><td class="empty" colspan="{2 + len(grades)}">No students.</td></tr>'
    )
    return (
        "<section>\n<h2>Class</h2>\n"
        f"{_filter_box('class-filter', 'students')}\n"
        '<div class="scroll box">\n<table id="class-table">\n'
        f'<thead><tr><th class="txt">Student</th><th class="num">Score</th>{head}</tr></thead>\n'
        f"<tbody>\n{body}\n</tbody>\n</table>\n</div>\n</section>"
    )


#: A matrix cell in pixels: CELL_W x CELL_H of colour, then a 1 px gap.
CELL_W, CELL_H = 5, 9


def _png(width: int, rows: Sequence[bytes], palette: Sequence[str]) -> bytes:
    """A palette PNG (8 bits an index) of the given scanlines; deterministic."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    plte = b"".join(bytes.fromhex(c.lstrip("#")) for c in palette)
    raw = b"".join(b"\0" + r for r in rows)  # filter 0 on every scanline
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, len(rows), 8, 3, 0, 0, 0))
        + chunk(b"PLTE", plte)
        + chunk(b"tRNS", b"\xff" * (len(palette) - 1) + b"\x00")  # the gap: transparent
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def _matrix(report: dict[str, Any]) -> str:
    """Students by tests, one coloured cell a result, in suite order.

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
    legend = "".join(
        f'<span><span class="badge g-{_slug(g)}">{_e(g)}</span> {n}</span>'
        for g, n in totals.items()
    )
    width = (CELL_W + 1) * len(tests)
    ruler = "".join(
        f'<span style="left:{(k - 1) * (CELL_W + 1)}px">{k}</span>'
        for k in range(10, len(tests) + 1, 10)
    )
    rows = []
    for i, s in enumerate(report["students"]):
        codes = [grades.index(r["grade"]) for r in s["results"]]
        line = b"".join(bytes([c] * CELL_W + [gap]) for c in codes)
        image = base64.b64encode(_png(width, [line] * CELL_H, palette)).decode() if codes else ""
        summary = ", ".join(f"{n} {g}" for g, n in s["counts"].items() if n)
        rows.append(
            f'<div class="mrow" data-i="{i}"><span class="who">{_e(s["id"])}</span>'
            + (
                f'<img alt="{_e(s["id"])}: {_e(summary)}" width="{width}" height="{CELL_H}" '
                f'src="data:image/png;base64,{image}">'
                if image
                else ""
            )
            + "</div>"
        )
    return (
        "<section>\n<h2>Verdict matrix</h2>\n"
        f'<p class="legend">{legend}</p>\n'
        '<p id="matrix-info">One row per student, one column per test, in suite order '
        "(numbered as in the Tests table). Point at a cell for its test, grade, CPU time and "
        "detail; click it for the student\u2019s results.</p>\n"
        f'<div class="scroll box" id="matrix" data-step="{CELL_W + 1}">\n'
        f'<div class="ruler" style="width:{width}px">'
        f"{ruler}</div>\n"
        + "\n".join(rows)
        + '\n</div>\n<div id="matrix-tip" hidden></div>\n</section>'
    )


def _tests_section(report: dict[str, Any]) -> str:
    tests = report["tests"]
    rows = []
    for i, t in enumerate(tests):
        rate = t["pass_rate"]
        rows.append(
            f'<tr data-i="{i}"><td>{_e(t["name"])}</td><td class="num">{_e(t["points"])}</td>'
            f'<td class="num">{t["correct"]} / {t["total"]}</td>'
            f'<td class="num">{_percent(rate)}</td>'
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
        "<section>\n<h2>Tests</h2>\n"
        f"{_filter_box('test-filter', 'tests')}\n"
        '<div class="scroll box">\n<table id="test-table">\n'
        '<thead><tr><th class="txt">Test</th><th class="num">Points</th>'
        '<th class="num">Correct</th>'
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


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _student_section(student: dict[str, Any], anchor: str, index: int) -> str:
    """A collapsed section: the summary line, notes, and the failing tests
    grouped by grade, each with its most frequent details (a line per
    grade, not per test, so that 271 failures cost a few lines). The full
    table with times and evidence is the script's, drawn when opened."""
    counts = "".join(
        f'<span class="badge g-{_slug(g)}">{_e(g)} {n}</span>'
        for g, n in student["counts"].items()
        if n
    )
    groups: dict[str, dict[str, list[str]]] = {}
    for r in student["results"]:
        if r["grade"] != "correct":
            groups.setdefault(r["grade"], {}).setdefault(r["detail"], []).append(r["test"])
    rows = []
    for grade, details in groups.items():
        tests = [t for names in details.values() for t in names]
        shown = sorted(details.items(), key=lambda d: -len(d[1]))[:DETAILS_SHOWN]
        said = "; ".join(f"{_clip(d, DETAIL_CHARS)} ({len(names)})" for d, names in shown if d)
        if len(details) > DETAILS_SHOWN:
            said += f"; and {len(details) - DETAILS_SHOWN} more"
        rows.append(
            f'<li><span class="badge g-{_slug(grade)}">{_e(grade)} {len(tests)}</span> '
            f"{_e(', '.join(tests))}"
            + (f'<br><span class="said">{_e(said)}</span>' if said else "")
            + "</li>"
        )
    if rows:
        fails = '<ul class="fails">' + "".join(rows) + "</ul>\n"
    elif student["results"]:
        fails = f"<p>All {len(student['results'])} tests correct.</p>\n"
    else:
        fails = '<p class="empty">No results.</p>\n'
    notes = "".join(f"<li>{_e(n)}</li>" for n in student.get("notes", []))
    notes_list = f'<ul class="notes">{notes}</ul>\n' if notes else ""
    return (
        f'<details class="student" id="{_e(anchor)}" data-i="{index}">\n<summary>'
        f'<span class="sid">{_e(student["id"])}</span>'
        f"<span><b>{_e(student['score'])} / {_e(student['max_score'])}</b> points</span>"
        f"<span>{counts}</span>"
        f'<span class="meta">{_e(student["submission"])}</span></summary>\n'
        f'<div class="body">\n{notes_list}{fails}'
        "<noscript><p>Each test\u2019s times, place, detail and evidence: see "
        "grades.json.</p></noscript>\n"
        '<div class="results scroll"></div>\n</div>\n</details>'
    )


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
                text = r["evidence"]
                if len(text) > EVIDENCE_CHARS:
                    more = len(text) - EVIDENCE_CHARS
                    text = text[:EVIDENCE_CHARS] + f"\u2026 ({more} more characters in grades.json)"
                if text in index:
                    evidence = index[text]
                elif left > 0:
                    left -= len(text)
                    evidence = ref(text)
                else:
                    evidence = -2
            extra.append([t, ref(r["detail"]) if r["detail"] else -1, evidence])
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
        "cut": "(evidence left out of this page to keep it light: see grades.json)",
        "strings": strings,
        "places": places,
        "students": rows,
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="report-data">{text}</script>'


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


def render_html(report: dict[str, Any], similarity: Similarity | None = None) -> str:
    """The whole page for a report from class_report.build(); with
    `similarity`, its section (the pairs side by side) before the students'."""

    students = sorted(report["students"], key=lambda s: s["id"])
    report = {**report, "students": students}
    anchors = _anchors([s["id"] for s in students])
    sections = "\n".join(
        _student_section(s, a, i) for i, (s, a) in enumerate(zip(students, anchors, strict=True))
    )
    title = f"Sudoku grading report \u2013 {len(students)} students"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n"
        f"<style>\n{_CSS}{_grade_css(report['grades'])}"
        f"{similarity_html.CSS if similarity else ''}</style>\n"
        "</head>\n<body>\n<main>\n"
        f"{_header(report)}\n"
        f"{_class_table(report, anchors)}\n"
        f"{_matrix(report)}\n"
        f"{_tests_section(report)}\n"
        f"{similarity_html.section(similarity) + chr(10) if similarity else ''}"
        f"<section>\n<h2>Students</h2>\n{sections or '<p class=empty>No students.</p>'}\n"
        "</section>\n</main>\n"
        f"{_data_block(report)}\n"
        f"<script>{_SCRIPT}</script>\n"
        "</body>\n</html>\n"
    )
