"""The course requirements, read without running: clpfd reached from
sudoku/2, head comments, layout and documentation, on the programs
written for them (tests/fixtures/requirements), the class fixtures,
small programs for each case, and hostile hand-ins. Each check is tried
on a program that meets it and one that does not; where the reading
cannot tell (goals built at run time), the answer is "unknown"."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from plpuzzle.sudoku.grading.requirements import check_class, lines
from plpuzzle.sudoku.grading.requirements.comments import commented
from plpuzzle.sudoku.runs.suite import SuiteError
from plpuzzle.sudoku.runs.suite_config import RequirementsPolicy, load_manifest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"


def check(
    tmp_path: Path, hand_ins: dict[str, str | bytes | dict[str, str | bytes]], **policy: Any
) -> dict[str, dict[str, Any]]:
    """Each hand-in (a file's text, or a folder's files) checked, by student."""
    folder = tmp_path / "class"
    folder.mkdir(exist_ok=True)
    for student, content in hand_ins.items():
        files = content if isinstance(content, dict) else {"sudoku.pl": content}
        target = folder / student if isinstance(content, dict) else folder
        for name, data in files.items():
            path = target / name if isinstance(content, dict) else folder / f"{student}.pl"
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, bytes):
                path.write_bytes(data)
            else:
                path.write_text(data)
    found = check_class(folder, RequirementsPolicy(**policy))
    return {s["id"]: s for s in found.to_json()["students"]}


@pytest.fixture(scope="module")
def fixtures() -> dict[str, dict[str, Any]]:
    found = check_class(FIXTURES / "requirements")
    return {s["id"]: s for s in found.to_json()["students"]}


# --- clpfd on the programs written for this -------------------------------------------


def test_clpfd_through_a_helper_module_is_reached(fixtures: dict[str, Any]) -> None:
    c = fixtures["helper_module"]["clpfd"]
    assert c["status"] == "yes" and c["loaded"]
    # all_distinct in grid_constraints.pl, passed to maplist by name
    assert c["reached"] == {"#=": 3, "all_distinct": 3, "ins": 1, "labeling/2": 1}
    assert fixtures["helper_module"]["files"] == ["sudoku.pl", "grid_constraints.pl"]


def test_clpfd_reached_only_through_closures_counts(fixtures: dict[str, Any]) -> None:
    c = fixtures["closure_only"]["clpfd"]
    assert c["status"] == "yes"
    assert c["reached"] == {"all_different": 1, "ins": 1, "label": 1}


def test_an_import_with_a_plain_search_is_a_no_with_the_import_stated(
    fixtures: dict[str, Any],
) -> None:
    c = fixtures["plain_search"]["clpfd"]
    assert c["status"] == "no" and c["loaded"] and c["reached"] == {}
    assert c["elsewhere"] == {"all_different/1": 1, "ins": 1}  # unused_model/1


def test_no_clpfd_at_all_is_a_no(fixtures: dict[str, Any]) -> None:
    c = fixtures["no_clpfd"]["clpfd"]
    assert c["status"] == "no" and not c["loaded"] and not c["reached"]


def test_constraints_built_with_univ_are_unknown_with_the_places(
    fixtures: dict[str, Any],
) -> None:
    c = fixtures["univ_built"]["clpfd"]
    assert c["status"] == "unknown"
    assert [(g["file"], g["line"]) for g in c["run_time_goals"]] == [
        ("univ_built.pl", 27),
        ("univ_built.pl", 28),
    ]
    assert "=.." in c["run_time_goals"][0]["what"]


def test_the_class_fixtures_read_as_expected() -> None:
    found = {r.student: r for r in check_class(FIXTURES / "class").checked}
    assert found["alice"].clpfd is not None and found["alice"].clpfd.status == "yes"
    assert found["alice"].clpfd.reached["domain/3"] == 1  # SICStus' domain/3
    assert found["grace"].clpfd is not None and found["grace"].clpfd.status == "no"
    judy = found["judy"].to_json()  # a syntax error: sudoku/2 does not load
    assert judy["clpfd"]["status"] == "not defined" and judy["read"] == "partly as tokens"
    assert judy["clpfd"]["sudoku_syntax_errors"]  # named, for the teacher


# --- clpfd: each case on a small program ------------------------------------------------

CLPFD = ":- use_module(library(clpfd)).\n"
CASES = {
    "direct": CLPFD + "sudoku(_, [[X]]) :- X in 1..9, X #\\= 3, label([X]).\n",
    "own_domain": CLPFD + "sudoku(_, L) :- domain(L, 1, 9).\ndomain(_, _, _).\n",
    "search_only": CLPFD + "sudoku(_, L) :- label(L).\n",
    "call_var": CLPFD + "sudoku(P, L) :- goal_of(P, G), call(G, L).\ngoal_of(_, true).\n",
    "var_goal": CLPFD + "sudoku(_, L) :- G = (L = []), G.\n",
    "maplist_var": CLPFD + "sudoku(G, L) :- maplist(G, L).\n",
    "assert": CLPFD + "sudoku(_, L) :- assertz(seen(L)), seen(L).\n",
    "no_sudoku": CLPFD + "sudoku(_, _, L) :- all_distinct(L).\n",
    "qualified": CLPFD + "sudoku(_, L) :- clpfd:all_distinct(L).\n",
    "dcg": CLPFD + "sudoku(_, L) :- phrase(cells(L), [1]).\ncells([X]) --> [X], {X #> 0}.\n",
    "unreached": CLPFD + "sudoku(_, L) :- helper(L).\nhelper(_).\nother(L) :- L ins 1..9.\n",
    "not_loaded": "sudoku(_, L) :- helper(L).\nhelper(_).\nother(L) :- L = [_|_].\n",
    # The directive without `:-` is a fact: `ins` is no operator, the clause
    # of sudoku/2 a syntax error, and SWI-Prolog loads no sudoku/2.
    "no_directive": "use_module(library(clpfd)).\n\nsudoku(_, L) :-\n    L ins 1..9.\n",
    "labeling_closure": CLPFD + "sudoku(_, Rows) :- maplist(labeling([ff]), Rows).\n",
    "zero_arity": CLPFD + "start() :- sudoku(_, _).\nsudoku(_, L) :- ler(), label(L).\nler().\n",
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return check(tmp_path_factory.mktemp("cases"), dict(CASES))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("direct", "yes"),
        ("own_domain", "no"),  # the hand-in's own domain/3 is no constraint
        ("search_only", "no"),
        ("call_var", "unknown"),
        ("var_goal", "unknown"),
        ("maplist_var", "unknown"),
        ("assert", "unknown"),
        ("no_sudoku", "not defined"),
        ("no_directive", "not defined"),
        ("labeling_closure", "no"),  # the search alone
        ("zero_arity", "no"),  # start() and ler() read: a finding, not a guess
        ("not_loaded", "no"),
        ("qualified", "yes"),
        ("dcg", "yes"),
        ("unreached", "no"),
    ],
)
def test_each_clpfd_case(cases: dict[str, dict[str, Any]], name: str, status: str) -> None:
    assert cases[name]["clpfd"]["status"] == status, cases[name]["clpfd"]


def test_the_kinds_are_counted_and_search_only_is_said(cases: dict[str, Any]) -> None:
    assert cases["direct"]["clpfd"]["reached"] == {"#\\=": 1, "in": 1, "label/1": 1}
    assert cases["search_only"]["clpfd"]["reached"] == {"label/1": 1}
    assert cases["unreached"]["clpfd"]["elsewhere"] == {"ins": 1}
    assert not cases["not_loaded"]["clpfd"]["loaded"]
    assert not cases["no_sudoku"]["clpfd"]["defines_sudoku"]
    assert cases["labeling_closure"]["clpfd"]["reached"] == {"labeling/2": 1}
    assert cases["zero_arity"]["read"] == "prolog"


def test_operators_come_from_another_file_of_the_hand_in_that_loads_clpfd(
    tmp_path: Path,
) -> None:
    main = ":- use_module(library(clpfd)).\n:- ensure_loaded(rules).\nsudoku(_, L) :- rules(L).\n"
    found = check(tmp_path, {"split": {"sudoku.pl": main, "rules.pl": "rules(L) :- L ins 1..9.\n"}})
    assert found["split"]["read"] == "prolog"
    assert found["split"]["clpfd"]["status"] == "yes"


def test_a_sudoku_that_cannot_load_is_not_defined_and_its_clause_is_named(
    cases: dict[str, Any],
) -> None:
    c = cases["no_directive"]["clpfd"]
    assert not c["loaded"] and c["reached"] == {}
    assert c["sudoku_syntax_errors"] == [{"file": "no_directive.pl", "line": 3}]
    said = dict(lines(cases["no_directive"]))
    assert said["clpfd"].startswith("not defined: sudoku/2 is not defined: its clause(s) ")
    # SWI-Prolog reports the error at the token it stops on (line 4), not
    # at the comment or blank line before the clause.
    assert "the first at line 4: operator_expected" in said["Read"]
    assert "no_directive.pl: " in said["Read"]


# --- head comments, layout, documentation ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("% what p does\np(X).\n", True),
        ("% :- pred p(+int).\n\np(X).\n", True),  # one blank line is allowed
        ("/* p: what it does\n   and more */\np(X).\n", True),
        ("/* p */ p(X).\n", True),
        ("q.\np(X).\n", False),
        ("% far above\n\n\np(X).\n", False),
        ("q. % a comment after code\np(X).\n", False),
        ("p(X).\n", False),
    ],
)
def test_a_comment_right_above(text: str, expected: bool) -> None:
    assert commented(text, text.index("p(X)")) is expected


def test_head_comments_count_each_predicate_once(tmp_path: Path) -> None:
    text = "% p/1\np(1).\np(2).\nq(X) :- p(X).\n% r\nr.\n"
    h = check(tmp_path, {"s": text})["s"]["head_comments"]
    assert (h["predicates"], h["with_comment"], h["share"]) == (3, 2, 0.6667)
    assert h["without"] == [{"predicate": "q/1", "file": "s.pl", "line": 4}]


def test_layout_counts_long_lines_tabs_and_long_clauses(tmp_path: Path) -> None:
    fits, over = "% " + "x" * 70, "% " + "x" * 71
    tabbed = "p :-\n\t" + "a" * 66 + ".\n"  # 8 + 66 = 74 columns
    long_clause = "q :-\n" + "    true,\n" * 45 + "    true.\n"
    text = f"{fits}\n{over}\n{tabbed}{long_clause}"
    lay = check(tmp_path, {"s": text}, clause_lines=40)["s"]["layout"]
    assert lay["long_lines"] == 2
    assert [p["line"] for p in lay["long_line_places"]] == [2, 4]
    assert lay["tab_lines"] == 1 and lay["tab_line_places"] == [{"file": "s.pl", "line": 4}]
    assert lay["long_clauses"] == [{"file": "s.pl", "line": 5, "lines": 47, "predicate": "q/0"}]


def test_documentation_files_are_found_and_litter_is_not(tmp_path: Path) -> None:
    program = "sudoku(_, _).\n"
    found = check(
        tmp_path,
        {
            "md": {"sudoku.pl": program, "README.md": "# How it works\n"},
            "pdf": {"sudoku.pl": program, "doc/report.pdf": b"%PDF-1.4\n"},
            "none": {"sudoku.pl": program, "notes.pl": "% not documentation\n"},
            "litter": {"sudoku.pl": program, "__MACOSX/._doc.txt": b"\0\0"},
        },
    )
    assert found["md"]["documentation"]["files"] == [{"name": "README.md", "bytes": 15}]
    assert found["pdf"]["documentation"]["files"][0]["name"] == "doc/report.pdf"
    assert not found["none"]["documentation"]["present"]
    assert not found["litter"]["documentation"]["present"]


def test_documentation_in_an_archive_counts(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    with zipfile.ZipFile(folder / "zoe.zip", "w") as z:
        z.writestr("sudoku.pl", "sudoku(_, _).\n")
        z.writestr("doc.html", "<p>how</p>")
    [zoe] = check_class(folder).checked
    assert zoe.documentation is not None and zoe.documentation.files == [("doc.html", 10)]


def test_a_check_that_is_off_is_left_out(tmp_path: Path) -> None:
    found = check(tmp_path, {"s": "p.\n"}, clpfd="off", layout="off")["s"]
    assert found["clpfd"] is None and found["layout"] is None
    assert found["head_comments"] is not None and found["documentation"] is not None


# --- hostile hand-ins: a note for that student, never a crash --------------------------


def test_hostile_hand_ins_each_get_a_finding(tmp_path: Path) -> None:
    deep = "sudoku(_, L) :- L = " + "f(" * 5000 + "x" + ")" * 5000 + ".\n"
    huge = CLPFD + "sudoku(_, L) :- all_distinct(L).\n" + "p(1) :- true.\n" * 300_000
    found = check(
        tmp_path,
        {
            "binary": bytes(range(256)) * 64,
            "python": "import sys\n\ndef sudoku(p):\n    return [[1]]\n",
            "deep": deep,
            "huge": huge,
            "empty": "",
            "unclosed": "sudoku(_, L) :- foo(L.\n/* never closed\n",
        },
    )
    assert set(found) == {"binary", "python", "deep", "huge", "empty", "unclosed"}
    for student in ("binary", "python", "unclosed"):
        # What Prolog reads defines no sudoku/2; a file it could not read
        # at all leaves it unknown.
        read = found[student]["read"]
        expected = "unknown" if read == "as tokens" else "not defined"
        assert found[student]["clpfd"]["status"] == expected, student
        assert read != "prolog", student
    assert found["empty"]["clpfd"]["status"] == "not defined"  # no sudoku/2
    assert found["deep"]["clpfd"]["status"] in ("unknown", "no")
    assert found["huge"]["clpfd"]["status"] == "yes"  # read up to its budget
    assert found["huge"]["layout"]["long_lines"] == 0


def test_files_that_cannot_be_read_are_left_out_with_a_note(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    (folder / "lea").mkdir(parents=True)
    (folder / "lea" / "sudoku.pl").write_text(CASES["direct"])
    (folder / "lea" / "helper.pl").symlink_to("/etc/passwd")  # never followed
    (folder / "max.pl").symlink_to("/etc/shadow")
    found = check_class(folder)
    [lea] = found.to_json()["students"]
    assert lea["id"] == "lea" and lea["files"] == ["sudoku.pl"]
    assert lea["clpfd"]["status"] == "yes"
    assert [line.split(":")[0] for line in found.not_checked] == ["max"]


def test_a_refused_documentation_file_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "class" / "kim"
    folder.mkdir(parents=True)
    (folder / "sudoku.pl").write_text("sudoku(_, _).\n")
    (folder / "doc.pdf").write_bytes(b"0" * (9 << 20))  # over intake's 8 MB a file
    [kim] = check_class(tmp_path / "class").to_json()["students"]
    doc = kim["documentation"]
    assert not doc["present"] and doc["refused"] and doc["refused"][0].startswith("doc.pdf")


# --- suite.toml [requirements] ---------------------------------------------------------


def manifest(tmp_path: Path, text: str) -> RequirementsPolicy | None:
    (tmp_path / "suite.toml").write_text(text)
    found = load_manifest(tmp_path)
    assert found is not None
    return found.requirements


def test_the_requirements_table_is_read(tmp_path: Path) -> None:
    policy = manifest(
        tmp_path,
        '[requirements]\nclpfd = "deduct"\nclpfd_points = 2\nlayout = "off"\nline_length = 80\n',
    )
    assert policy == RequirementsPolicy(
        clpfd="deduct", clpfd_points=2.0, layout="off", line_length=80
    )


@pytest.mark.parametrize(
    ("table", "line", "words"),
    [
        ('clpfd = "report"\nclpdf_points = 1', 3, "unknown key 'clpdf_points'"),
        ('clpfd = "required"', 2, "clpfd must be 'off' or 'report' or 'deduct'"),
        ('head_comments = "deduct"', 2, "head_comments must be 'off' or 'report'"),
        ('clpfd = "deduct"', 2, "needs clpfd_points"),
        ("documentation_points = 1", 2, 'counts only with documentation = "deduct"'),
        ('clpfd = "deduct"\nclpfd_points = -1', 3, "a number of points > 0"),
        ("line_length = 7", 2, "a whole number from 20 to 1000"),
    ],
)
def test_a_bad_requirements_key_names_its_line(
    tmp_path: Path, table: str, line: int, words: str
) -> None:
    with pytest.raises(SuiteError) as e:
        manifest(tmp_path, f"[requirements]\n{table}\n")
    assert str(e.value).startswith(f"{tmp_path / 'suite.toml'}:{line}: "), str(e.value)
    assert words in str(e.value)


def test_deductions_are_stated(tmp_path: Path) -> None:
    found = check(
        tmp_path,
        {"plain": "sudoku(_, L) :- permutation([1], L).\n", "ok": CASES["direct"]},
        clpfd="deduct",
        clpfd_points=2,
        documentation="deduct",
        documentation_points=0.5,
    )
    assert found["plain"]["deduction"] == 2.5
    assert [d["requirement"] for d in found["plain"]["deductions"]] == ["clpfd", "documentation"]
    assert found["ok"]["deduction"] == 0.5


# --- the command -------------------------------------------------------------------------


def plpuzzle(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plpuzzle", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )


def test_the_command_prints_a_table_and_the_findings() -> None:
    run = plpuzzle("sudoku", "requirements", "tests/fixtures/requirements")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "Course requirements of 5 hand-in(s): clpfd yes 2, no 2, unknown 1"
    assert lines[1].split() == ["student", "clpfd", "head", "comments", "long", "lines",
                                "tabs", "documentation"]  # fmt: skip
    assert lines[2].split() == ["closure_only", "yes", "2/2", "0", "0", "no"]
    assert "  clpfd: unknown: no clpfd constraint is reached directly" in run.stdout


def test_the_command_writes_json_and_takes_a_suite(tmp_path: Path) -> None:
    (tmp_path / "suite.toml").write_text('[requirements]\nclpfd = "deduct"\nclpfd_points = 1\n')
    out = tmp_path / "r.json"
    run = plpuzzle(
        "sudoku", "requirements", "tests/fixtures/requirements", "--suite", tmp_path,
        "--format", "JSON", "-o", out,
    )  # fmt: skip
    assert run.returncode == 0 and run.stdout == "", run.stderr
    data = json.loads(out.read_text())
    by_id = {s["id"]: s for s in data["students"]}
    assert by_id["plain_search"]["deduction"] == 1 and by_id["univ_built"]["deduction"] == 0
    assert data["policy"]["clpfd"] == "deduct"


def test_the_command_s_bad_input_is_exit_2(tmp_path: Path) -> None:
    run = plpuzzle("sudoku", "requirements", tmp_path / "nowhere")
    assert run.returncode == 2 and run.stderr.startswith("plpuzzle: error: "), run.stderr
    (tmp_path / "suite.toml").write_text("[requirements]\nlayout = 1\n")
    bad = plpuzzle("sudoku", "requirements", "tests/fixtures/requirements", "--suite", tmp_path)
    assert bad.returncode == 2 and f"{tmp_path / 'suite.toml'}:2: " in bad.stderr


# --- in the reports and the feedback --------------------------------------------------


def graded_rows(tmp_path: Path, **policy: Any) -> dict[str, Any]:
    """A report of two students (one with a hostile id and predicate name)
    built as grade builds it, with their requirements."""
    from plpuzzle.sudoku.grading.model import Grade, GradeSettings, TestGrade
    from plpuzzle.sudoku.grading.report import StudentGrades, build
    from plpuzzle.sudoku.runs.suite_config import Points

    plain = "sudoku(_, L) :- '<b>x</b>'(L).\n'<b>x</b>'(_).\n"
    found = check(tmp_path, {"ok": CASES["direct"], "plain": plain}, **policy)
    rows = [
        StudentGrades(s, f"{s}.pl", [TestGrade(s, "t1", Grade.CORRECT)], requirements=found[s])
        for s in ("ok", "plain")
    ]
    rows.append(StudentGrades("gone", "", [TestGrade("gone", "t1", Grade.MISSING)]))
    report = build(rows, ["t1"], Points(default=3), GradeSettings())
    report["requirements"] = {"clpfd": policy.get("clpfd", "report")}
    return report


def test_the_csvs_get_the_columns_and_the_score_its_deduction(tmp_path: Path) -> None:
    from plpuzzle.sudoku.grading.report import to_csv, to_wide_csv

    report = graded_rows(tmp_path, clpfd="deduct", clpfd_points=2)
    lines = to_csv(report).splitlines()
    assert lines[0].endswith(",missing,clpfd,head_comments,long_lines,documentation,deduction")
    assert lines[1].startswith("gone,0,3,") and lines[1].endswith(",1,,,,,")
    assert lines[2].startswith("ok,3,3,1,") and lines[2].endswith(",yes,0.0,0,no,0")
    assert lines[3].startswith("plain,1,3,1,") and lines[3].endswith(",no,0.0,0,no,2")
    wide = to_wide_csv(report).splitlines()
    assert wide[0] == "id,t1,total,clpfd,head_comments,long_lines,documentation,deduction"
    assert wide[3] == "plain,3,1,no,0.0,0,no,2"
    plain = next(s for s in report["students"] if s["id"] == "plain")
    assert (plain["tests_score"], plain["score"]) == (3, 1)
    del report["requirements"]  # a report made without them: the columns as before
    assert to_csv(report).splitlines()[0].endswith(",missing")


def test_the_class_page_and_the_feedback_show_them(tmp_path: Path) -> None:
    from plpuzzle.sudoku.grading.feedback.build import build_feedback
    from plpuzzle.sudoku.grading.feedback.render import to_html, to_markdown
    from plpuzzle.sudoku.grading.model import Grade, GradeSettings, TestGrade
    from plpuzzle.sudoku.grading.report import StudentGrades
    from plpuzzle.sudoku.grading.report_html import render_html

    report = graded_rows(tmp_path)
    page = render_html(report)
    assert '<th class="txt">Requirements</th>' in page
    assert "clpfd no \u00b7 comments 0% \u00b7 0 long lines \u00b7 no doc" in page
    assert "&lt;b&gt;x&lt;/b&gt;/1" in page and "<b>x</b>" not in page
    plain = next(s for s in report["students"] if s["id"] == "plain")["requirements"]
    row = StudentGrades("plain", "plain.pl", [TestGrade("plain", "t1", Grade.CORRECT)])
    row.requirements = plain
    feedback = build_feedback(row, [], GradeSettings())
    markdown = to_markdown(feedback)
    assert "## Course requirements" in markdown
    assert "- clpfd: no: library(clpfd) is not loaded, and no clpfd constraint" in markdown
    html = to_html(feedback)
    assert "<h2>Course requirements</h2>" in html and "<dt>Head comments</dt>" in html
    assert "<b>x</b>" not in html


@pytest.mark.sandbox
def test_grade_can_leave_them_out(tmp_path: Path) -> None:
    from plpuzzle import sudoku

    subs = tmp_path / "class"
    subs.mkdir()
    (subs / "alice.pl").write_bytes((FIXTURES / "class" / "alice.pl").read_bytes())
    suite = FIXTURES / "grading_suite"
    outcome = sudoku.grade(subs, suite, out=tmp_path / "r", requirements=False, feedback=False)
    assert "requirements" not in outcome.report["students"][0]
    assert (tmp_path / "r" / "grades.csv").read_text().splitlines()[0].endswith(",missing")


def test_grade_s_summary_names_who_reaches_no_constraint(tmp_path: Path) -> None:
    from plpuzzle.sudoku.presentation.commands.requirements import summary_lines

    report = graded_rows(tmp_path)
    assert summary_lines(report) == [
        "Course requirements: clpfd yes 1, no 1; a documentation file in 0 of 2 "
        "(in grades.html, the CSVs and the feedback)",
        "  clpfd no: plain",
    ]
    assert summary_lines({"students": [{"id": "x", "requirements": None}]}) == []
