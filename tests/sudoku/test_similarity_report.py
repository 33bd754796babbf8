"""The similarity report a teacher reads: the marks are where the files
match, in the text as written; hostile file content is never markup; the
words never state a verdict; the CSV, JSON and the class page agree.

The class compared here is real: files on disk, read by SWI-Prolog.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from html import unescape
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from plpuzzle.sudoku.grading import similarity
from plpuzzle.sudoku.grading.similarity import html, report
from plpuzzle.sudoku.grading.similarity.report import matches

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

REPO = Path(__file__).resolve().parents[2]
EVIDENCE = REPO / "tests" / "fixtures" / "similarity"

#: Text a hostile student puts in comments and atoms of a file, and in a
#: helper file's name.
EVIL = (
    "</pre></mark><script>window.__pwned = 1</script><img src=x onerror=alert(1)> & \x1b[31m\u202e"
)
EVIL_NAME = 'a<b>&"c.pl'

#: Words that state or suggest a verdict; the report must use none of them.
VERDICTS = re.compile(
    r"cheat|plagiar|copied|\bcop(y|ies)\b|suspic|suspect|guilt|fraud|misconduct|dishonest"
    r"|violat|stole|steal|offen[cs]e",
    re.IGNORECASE,
)


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """rozsa; ann, rozsa's file with every variable renamed and hostile
    comments; ben, tamas's file with new layout, as a folder with a hostile
    helper file; and two independent hand-ins."""
    folder = tmp_path_factory.mktemp("report") / "class"
    folder.mkdir()
    rozsa = (EVIDENCE / "independent" / "rozsa.pl").read_text()
    shutil.copy(EVIDENCE / "independent" / "rozsa.pl", folder / "rozsa.pl")
    renamed = (EVIDENCE / "copies" / "rozsa_vars.pl").read_text()
    lines = renamed.splitlines(keepends=True)
    lines.insert(8, f"% {EVIL}\n")
    lines.insert(3, f"/* {EVIL} */\n")
    (folder / "ann.pl").write_text("".join(lines) + f"evil('{EVIL}').\n")
    (folder / "ben").mkdir()
    shutil.copy(EVIDENCE / "copies" / "tamas_layout.pl", folder / "ben" / "sudoku.pl")
    (folder / "ben" / EVIL_NAME).write_text(f"% {EVIL}\nhelper(x).\n")
    shutil.copy(EVIDENCE / "independent" / "tamas.pl", folder / "tamas.pl")
    shutil.copy(EVIDENCE / "independent" / "gyula.pl", folder / "gyula.pl")
    assert "evil" not in rozsa
    return folder


@pytest.fixture(scope="module")
def sim(klass: Path) -> similarity.Similarity:
    result, left_out = similarity.compare_class(klass)
    assert left_out == []
    return result


@pytest.fixture(scope="module")
def page(sim: similarity.Similarity) -> str:
    return html.page(sim)


def pair_of(sim: similarity.Similarity, a: str, b: str) -> similarity.compare.Pair:
    return next(p for p in sim.pairs if {sim.student(p.a), sim.student(p.b)} == {a, b})


def test_the_pairs_found(sim: similarity.Similarity) -> None:
    found = {(sim.student(p.a), sim.student(p.b)) for p in sim.above()}
    assert found == {("ann", "rozsa"), ("ben", "tamas")}
    assert pair_of(sim, "ann", "rozsa").share_b == 1.0  # all of rozsa is in ann's file


def test_marks_cover_the_code_and_not_the_comments(sim: similarity.Similarity) -> None:
    pair = pair_of(sim, "ann", "rozsa")
    found = matches(sim, pair)
    marks_a, marks_b = found.a, found.b
    assert not found.cut
    ann, rozsa = (sim.handins[i] for i in (pair.a, pair.b))
    for handin, marks in ((ann, marks_a), (rozsa, marks_b)):
        text = handin.handin.files[0].text
        for m in marks:
            marked = text[m.start : m.end]
            assert "%" not in marked and "/*" not in marked and "script" not in marked
            assert not marked[0].isspace() and not marked[-1].isspace()
    # All of rozsa's code is matched: what is left unmarked is comments and layout.
    text = rozsa.handin.files[0].text
    unmarked = list(text)
    for m in marks_b:
        unmarked[m.start : m.end] = " " * (m.end - m.start)
    rest = re.sub(r"%[^\n]*|:- use_module\(library\(\w+\)\)\.", "", "".join(unmarked))
    assert rest.split() == []


def test_marks_are_in_the_text_as_written(sim: similarity.Similarity) -> None:
    """ben's file packs tamas's clauses onto few lines: each mark on ben's
    side starts and ends on a token of ben's text, and both sides mark the
    same tokens."""
    pair = pair_of(sim, "ben", "tamas")
    found = matches(sim, pair)
    marks_a, marks_b = found.a, found.b
    texts = [sim.handins[i].handin.files[0].text for i in (pair.a, pair.b)]
    words = []
    for text, marks in zip(texts, (marks_a, marks_b), strict=True):
        marked = " ".join(text[m.start : m.end] for m in marks if m.file == 0)
        words.append(set(re.findall(r"[A-Za-z_]\w*", marked)))
    assert words[0] and words[0] == words[1]


def test_hostile_text_is_escaped(page: str, sim: similarity.Similarity) -> None:
    assert "<script" not in page and "<img" not in page and "window.__pwned" in unescape(page)
    assert "&lt;/pre&gt;&lt;/mark&gt;&lt;script&gt;" in page
    assert "\x1b" not in page and "\u202e" not in page
    assert "\\x1b[31m\\u202e" in page  # shown as escapes
    assert "a&lt;b&gt;&amp;&#34;c.pl" in page
    section = html.section(sim)
    assert section.count("<details") == section.count("</details>") == 2
    assert section.count("<pre") == section.count("</pre>")


def test_the_words_state_no_verdict(sim: similarity.Similarity, page: str, klass: Path) -> None:
    data = json.dumps(report.summary(sim))
    texts = [unescape(re.sub(r"<[^>]+>", " ", html.section(sim))), report.to_csv(sim), data]
    for text in texts:
        for source in (f.text for c in sim.handins for f in c.handin.files):
            text = text.replace(source, "")  # the files themselves are the students' words
        assert not VERDICTS.search(text), VERDICTS.search(text)


def test_csv_and_json_agree(sim: similarity.Similarity) -> None:
    rows = list(csv.DictReader(io.StringIO(report.to_csv(sim))))
    assert tuple(rows[0]) == report.CSV_COLUMNS
    assert len(rows) == len(sim.pairs)
    shown = [r for r in rows if r["at_or_above_threshold"] == "yes"]
    data = report.summary(sim)
    assert [(r["student_a"], r["student_b"]) for r in shown] == [
        (p["student_a"], p["student_b"]) for p in data["pairs"]
    ]
    scores = [max(float(r["share_of_a"]), float(r["share_of_b"])) for r in rows]
    assert scores == sorted(scores, reverse=True)
    assert data["settings"]["threshold"] == similarity.THRESHOLD
    assert {h["student"] for h in data["handins"]} == {"ann", "ben", "gyula", "rozsa", "tamas"}


def test_identical_and_same_after_normalisation(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    source = EVIDENCE / "independent" / "vilma.pl"
    for name in ("a1", "a2"):
        shutil.copy(source, folder / f"{name}.pl")
    (folder / "b.pl").write_text("% my own\n" + source.read_text().replace("    ", "\t"))
    sim, _ = similarity.compare_class(folder)
    assert sim.identical == [["a1", "a2"]]
    assert sim.same_normal == [["a1", "a2", "b"]]
    assert sim.clusters() == [["a1", "a2", "b"]]
    section = html.section(sim)
    assert "a1 = a2" in section and "a1 = a2 = b" in section


def test_the_class_page_carries_the_section(sim: similarity.Similarity) -> None:
    from plpuzzle.sudoku.grading import report_html

    base = {"settings": {"rules": "consecutive", "dialect": "sicstus4", "time_limit": 1,
                         "wall_limit": 2, "memory_limit_mb": 64, "policy": ""},
            "students": [], "tests": [], "grades": [], "max_score": 0}  # fmt: skip
    without = report_html.render_html(base)
    with_section = report_html.render_html(base, sim)
    assert 'id="similarity"' in with_section and 'id="similarity"' not in without
    assert with_section.count("<script") == without.count("<script") == 2


def test_the_section_speaks_the_language_in_force(sim: similarity.Similarity) -> None:
    """A Hungarian course's report draws the section in Hungarian (its
    words, why a pair is there, the notes), from the same comparison; the
    JSON and the CSV stay English whatever the language in force."""
    from plpuzzle import i18n
    from plpuzzle.sudoku.grading.similarity.reading import _clauses

    english, data = html.section(sim), report.summary(sim)
    with i18n.speaking("hu"):
        hungarian, page = html.section(sim), html.page(sim)
        assert report.summary(sim) == data
        note = _clauses({"failed": "a limit"}, "x.", 0).notes[0]
        assert html.note_words(f"ben/{EVIL_NAME}: {note}") == (
            f"ben/{EVIL_NAME}: tokenekként olvastuk: a limit"
        )
        assert html.note_words(similarity.NO_SOLVER_NOTE).startswith("nincs sudoku.pl")
    assert '<html lang="hu">' in page and "<h2>Hasonló beadások</h2>" in hungarian
    assert "A küszöböt elérő párok" in hungarian and "egymás mellett" in hungarian
    assert "az egyik beadás " in hungarian and "közös ujjlenyomat" in hungarian
    for words in ("Similar hand-ins", "Pairs at or above the threshold", "side by side",
                  "of one hand-in is in the other", "fingerprints in common", "Threshold",
                  "under CPU, memory and output limits", "Passage"):  # fmt: skip
        assert words in english and words not in hungarian, words


# --- in a real browser --------------------------------------------------------


@pytest.mark.browser
def test_browser_shows_the_pairs_side_by_side_and_runs_nothing(
    browser: WebDriver, page: str, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    path = tmp_path / "similarity.html"
    path.write_text(page, encoding="utf-8")
    browser.get(path.as_uri())
    assert browser.execute_script("return document.scripts.length") == 0
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    rows = browser.find_elements(By.CSS_SELECTOR, "#similarity-table tbody tr")
    assert len(rows) == 2
    link = rows[0].find_element(By.TAG_NAME, "a")
    target = link.get_attribute("href").split("#")[1]
    details = browser.find_element(By.ID, target)
    details.find_element(By.TAG_NAME, "summary").click()
    sides = details.find_elements(By.CSS_SELECTOR, ".sbs .side")
    assert len(sides) == 2 and all(s.is_displayed() for s in sides)
    marks = details.find_elements(By.TAG_NAME, "mark")
    assert marks and all(m.is_displayed() for m in marks[:5])
    left, right = (s.rect for s in sides)
    assert left["x"] + left["width"] <= right["x"]  # side by side, not stacked
    assert browser.find_elements(By.TAG_NAME, "img") == []


def test_the_page_stays_light_whatever_the_files(
    sim: similarity.Similarity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Side by side only within a budget of file text: past it, pairs are
    in the table (and the CSV) without their view."""
    full = html.section(sim)
    assert full.count('class="pair"') == 2
    monkeypatch.setattr(html, "PAGE_CHARS", 1)
    cut = html.section(sim)
    assert cut.count('class="pair"') == 1  # the first pair is always shown
    assert "The other 1 pair(s) are in the table and the CSV." in cut
    assert cut.count("side by side</a>") == 1
