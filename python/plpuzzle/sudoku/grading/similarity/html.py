"""The similarity report in HTML: a section of the class page (grades.html)
and a page of its own (similarity.html, from `sudoku similar`).

Everything in it that came from a hand-in (student ids, file names, the
files' text) is escaped, and control characters in a file are shown as
escapes; the section needs no script, so the class page's
Content-Security-Policy (no script but its own) holds for it too. For each
pair at or above the threshold the two hand-ins are shown side by side,
their matching passages marked where they are in the files as written,
each passage with one number (and colour) on both sides.

The words stay neutral: the section says how much two files share after
normalisation, and leaves what that means to the teacher.
"""

from __future__ import annotations

from html import escape

from plpuzzle.sudoku.grading.similarity.compare import Compared, Similarity
from plpuzzle.sudoku.grading.similarity.index import Pair
from plpuzzle.sudoku.grading.similarity.reading import PROLOG
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
#: The class of a fact that takes a whole row (as in the class page).
WIDE = ' class="wide"'

CSS = """\
.sim-lead{max-width:60em}
#similarity h3{margin:22px 0 8px;font-size:15px}
.sbs{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin-top:8px}
.sbs .side{min-width:0}
.sbs h4{margin:6px 0 2px;font-size:13px;overflow-wrap:anywhere}
pre.code{max-height:none;white-space:pre-wrap;line-height:1.35}
pre.code .ln{display:inline-block;width:3.2em;margin-right:8px;color:#8c959f;text-align:right;
user-select:none}
mark{padding:0;border-radius:2px;color:inherit}
mark.p0{background:#fff0b3}mark.p1{background:#c8e6ff}mark.p2{background:#d6f5d6}
mark.p3{background:#ffd8c2}mark.p4{background:#e8d9ff}mark.p5{background:#ffd6e7}
details.pair{border:1px solid var(--line);border-radius:6px;margin:8px 0;scroll-margin-top:8px}
details.pair>summary{padding:6px 12px;cursor:pointer;overflow-wrap:anywhere}
details.pair .body{padding:0 12px 10px}
details.pair:target{outline:3px solid #54aeff;outline-offset:2px}
table.passages{width:auto;font-size:12px}
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _pct(share: float) -> str:
    return f"{share * 100:.0f}%"


def pair_anchor(number: int) -> str:
    return f"similar-pair-{number}"


def _pair_title(sim: Similarity, pair: Pair) -> str:
    a, b = sim.student(pair.a), sim.student(pair.b)
    return (
        f"{a} and {b}: {_pct(pair.share_a)} of {a}\u2019s fingerprints are in {b}\u2019s "
        f"hand-in, {_pct(pair.share_b)} of {b}\u2019s in {a}\u2019s"
    )


def _file(text: str, marks: list[Mark]) -> str:
    """A file's text with line numbers and its marks, escaped; at most
    FILE_CHARS characters of it. A mark is closed before each line number
    and opened again after it."""
    shown = text[:FILE_CHARS]
    out: list[str] = ['<span class="ln">1</span>']
    line = 1

    def put(segment: str, tag: str = "") -> None:
        nonlocal line
        for n, part in enumerate(segment.split("\n")):
            if n:
                line += 1
                out.append(f'{"</mark>" if tag else ""}\n<span class="ln">{line}</span>{tag}')
            out.append(_e(printable(part)))

    at = 0
    for m in marks:
        start, end = max(m.start, at), min(m.end, len(shown))
        if start >= end:
            continue
        put(shown[at:start])
        tag = f'<mark class="p{(m.passage - 1) % COLOURS}" title="passage {m.passage}">'
        out.append(tag)
        put(shown[start:end], tag)
        out.append("</mark>")
        at = end
    put(shown[at:])
    if len(text) > len(shown):
        out.append(f"\n\u2026 ({len(text) - len(shown):,} more characters not shown)")
    return '<pre class="code">' + "".join(out) + "</pre>"


def _side(handin: Compared, marks: list[Mark]) -> str:
    parts = [f"<h4>{_e(handin.student)}</h4>"]
    for number, source in enumerate(handin.handin.files):
        mine = [m for m in marks if m.file == number]
        parts.append(f"<h4>{_e(source.name)}</h4>{_file(source.text, mine)}")
    return '<div class="side">' + "".join(parts) + "</div>"


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
        lines = f"line {first}" if first == last else f"lines {first}\u2013{last}"
        more = " and elsewhere" if any(s[0] != file for s in spots) else ""
        out[passage] = f"{name}: {lines}{more}"
    return out


def _pair_view(sim: Similarity, pair: Pair, number: int) -> str:
    """One pair side by side; what goes wrong in drawing it costs this
    pair's view only (a line says so), never the section."""
    try:
        return _pair_body(sim, pair, number)
    except Exception as e:  # one pair's view, never the class page
        words = one_line(f"{type(e).__name__}: {e}", 300)
        return (
            f'<details class="pair" id="{pair_anchor(number)}"><summary>'
            f"{number}. {_e(_pair_title(sim, pair))}</summary>\n<p>This pair could not be "
            f"shown side by side ({_e(words)}); it is in the table and the CSV.</p></details>"
        )


def _pair_body(sim: Similarity, pair: Pair, number: int) -> str:
    a, b = sim.handins[pair.a], sim.handins[pair.b]
    found = matches(sim, pair)
    marks_a, marks_b = found.a, found.b
    where_a, where_b = _ranges(a, marks_a), _ranges(b, marks_b)
    rows = "".join(
        f"<tr><td>{p}</td><td>{_e(where_a.get(p, ''))}</td><td>{_e(where_b.get(p, ''))}</td></tr>"
        for p in sorted(where_a)[:PASSAGES_LISTED]
    )
    more = len(where_a) - PASSAGES_LISTED
    listed = (
        f'<table class="passages"><thead><tr><th>Passage</th><th>{_e(a.student)}</th>'
        f"<th>{_e(b.student)}</th></tr></thead><tbody>{rows}</tbody></table>"
        + (f"<p>and {more} more passages</p>" if more > 0 else "")
        + (
            "<p>Only part of what they share is marked: marking it all would take "
            "longer than a pair is given (a passage repeated many times over).</p>"
            if found.cut
            else ""
        )
    )
    return (
        f'<details class="pair" id="{pair_anchor(number)}"><summary>'
        f"{number}. {_e(_pair_title(sim, pair))} ({pair.shared} fingerprints in common)"
        f'</summary>\n<div class="body">\n{listed}\n<div class="sbs">'
        f"{_side(a, marks_a)}{_side(b, marks_b)}</div>\n</div></details>"
    )


def _groups(sim: Similarity) -> str:
    items = []
    clusters = sim.clusters()
    if clusters:
        items.append(
            "<h3>Groups of three or more</h3>\n<p>Hand-ins linked to each other by pairs at or "
            "above the threshold.</p>\n<ul>"
            + "".join(f"<li>{_e(', '.join(g))}</li>" for g in clusters)
            + "</ul>"
        )
    if sim.identical:
        items.append(
            "<h3>Identical files</h3>\n<ul>"
            + "".join(f"<li>{_e(' = '.join(g))}</li>" for g in sim.identical)
            + "</ul>"
        )
    if sim.same_normal:
        items.append(
            "<h3>The same after normalisation</h3>\n<p>Different files whose normal forms are "
            "equal: they differ only in layout, comments, names or order.</p>\n<ul>"
            + "".join(f"<li>{_e(' = '.join(g))}</li>" for g in sim.same_normal)
            + "</ul>"
        )
    read = [c for c in sim.handins if c.how != PROLOG or c.notes]
    if read:
        items.append(
            "<h3>How files were read</h3>\n<p>Prolog read every other file. Where it could "
            "not (a syntax error, a limit), the text was split into tokens instead: such a "
            "stretch still compares, with less of Prolog's structure.</p>\n<ul>"
            + "".join(
                f"<li>{_e(c.student)} ({_e(c.how)}): {_e('; '.join(c.notes))}</li>" for c in read
            )
            + "</ul>"
        )
    return "\n".join(items)


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


def section(sim: Similarity) -> str:
    """The similarity section: pairs, groups, identical files, side by side."""
    s = sim.settings
    above = sim.above()
    shown = _shown(sim, above)
    rows = "\n".join(
        f'<tr><td class="num">{n}</td><td>{_e(sim.student(p.a))}</td>'
        f"<td>{_e(sim.student(p.b))}</td>"
        f'<td class="num">{_pct(p.share_a)}</td><td class="num">{_pct(p.share_b)}</td>'
        f'<td class="num">{p.shared}</td>'
        + (f'<td><a href="#{pair_anchor(n)}">side by side</a></td>' if n <= shown else "<td></td>")
        + "</tr>"
        for n, p in enumerate(above, 1)
    )
    if not rows:
        rows = '<tr><td class="empty" colspan="7">No pair at or above the threshold.</td></tr>'
    base = ", ".join(s.base) or "none"
    facts = [
        ("Hand-ins compared", len(sim.handins)),
        ("Pairs at or above the threshold", len(above)),
        ("Threshold", f"{_pct(s.threshold)} of either hand-in, and {s.min_shared} fingerprints"),
        ("Fingerprints", f"winnowing, k = {s.k} tokens, window = {s.window}"),
        ("Base code left out", f"{base} ({sim.base_prints} fingerprints)"),
        ("Dialect", s.dialect),
        ("Reading", reader_words(sim)),
    ]
    items = "\n".join(
        f"<div{WIDE if len(str(v)) > 40 else ''}><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>"
        for k, v in facts
    )
    views = "\n".join(_pair_view(sim, p, n) for n, p in enumerate(above[:shown], 1))
    if len(above) > shown:
        rest = len(above) - shown
        views += f"\n<p>The other {rest} pair(s) are in the table and the CSV.</p>"
    return (
        '<section id="similarity">\n<h2>Similar hand-ins</h2>\n'
        '<p class="sim-lead">Each hand-in was read by Prolog and normalised (variables and '
        "the file\u2019s own names numbered, clauses sorted, comments and layout dropped), "
        "then fingerprinted by winnowing, the method of MOSS. A pair\u2019s shares say how many "
        "of each hand-in\u2019s fingerprints the other one has. A high share means long "
        "passages in common after normalisation; it does not say how they came about: code "
        "given to the class, a common source, working together, or chance in short files. "
        "Read both files before drawing any conclusion.</p>\n"
        f'<dl class="facts">\n{items}\n</dl>\n'
        "<h3>Pairs at or above the threshold</h3>\n"
        '<div class="scroll box">\n<table id="similarity-table">\n'
        '<thead><tr><th class="num">#</th><th>Hand-in A</th><th>Hand-in B</th>'
        '<th class="num">Share of A</th><th class="num">Share of B</th>'
        '<th class="num">Fingerprints in common</th><th></th></tr></thead>\n'
        f"<tbody>\n{rows}\n</tbody>\n</table>\n</div>\n"
        f"{_groups(sim)}\n" + (f"<h3>Side by side</h3>\n{views}\n" if views else "") + "</section>"
    )


def page(sim: Similarity, css: str) -> str:
    """similarity.html: the section alone on a self-contained page (no
    script, nothing loaded from outside)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Similar hand-ins \u2013 {len(sim.handins)} compared</title>\n"
        f"<style>\n{css}{CSS}</style>\n"
        f"</head>\n<body>\n<main>\n{section(sim)}\n</main>\n</body>\n</html>\n"
    )
