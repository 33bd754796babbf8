"""Issue 57: a solution many students hand in, each changing it a little,
is reported as a group with every member, in `similar` and `grade`; a
short guided lab is judged on its own scale. The classes are made by
lab/plpuzzle_lab/similarity_rings.py from a small solver written for it
and the fixtures' independent solutions."""

from __future__ import annotations

import io
import itertools
import json
import re
import shutil
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from run_plpuzzle import plpuzzle
from service_kit import PASSWORD, Server, api_upload, wait_for
from sqlalchemy import select

from plpuzzle.sudoku.grading import similarity
from plpuzzle.sudoku.service.core import Service, ServiceSettings
from plpuzzle.sudoku.service.store import User
from plpuzzle_lab.similarity_rings import LAB_FACTS, guided_lab, ring_class

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "fixtures" / "grading_suite"


def _similar_json(folder: Path, out: Path, *extra: str) -> dict:
    run = plpuzzle("sudoku", "similar", folder, "--out", out, "--format", "json", *extra)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _check_ring(found: dict, members: list[str]) -> None:
    """Every member in the first ring, every pair of them reported, and
    no pair with anyone else."""
    ring = found["rings"][0]
    assert ring["students"] == sorted(members) and ring["size"] == len(members)
    assert ring["common_fingerprints"] >= similarity.MIN_SHARED
    pairs = {frozenset((p["student_a"], p["student_b"])) for p in found["pairs"]}
    assert pairs == {frozenset(p) for p in itertools.combinations(members, 2)}
    assert all(p["why"].endswith(f"one of a group of {len(members)} that all match")
               for p in found["pairs"])  # fmt: skip


@pytest.mark.slow
def test_ten_of_eighteen_with_one_solution_are_one_group(tmp_path: Path) -> None:
    """Verbatim, behind an include from a hidden folder, behind a megabyte
    of comment, renamed, reordered...: 100% alike, and no longer hidden by
    how many hold it."""
    members = ring_class(tmp_path / "class", 18, 10)
    found = _similar_json(tmp_path / "class", tmp_path / "r")
    _check_ring(found, members)
    assert len(found["handins"]) == 18
    text = plpuzzle("sudoku", "similar", tmp_path / "class", "--out", tmp_path / "t")
    lines = text.stdout.splitlines()
    assert lines[1].startswith("Group of 10 that all match: ")
    assert lines[1].endswith(", ".join(sorted(members)))


def test_a_ring_of_nine_disguised_copies_in_thirty_six(tmp_path: Path) -> None:
    members = ring_class(tmp_path / "class", 36, 9)
    found = _similar_json(tmp_path / "class", tmp_path / "r")
    _check_ring(found, members)
    assert found["scale"]["cut"] == similarity.THRESHOLD  # honest sudoku pairs are far apart


def test_a_ring_of_a_third_of_the_class(tmp_path: Path) -> None:
    members = ring_class(tmp_path / "class", 36, 12)
    _check_ring(_similar_json(tmp_path / "class", tmp_path / "r"), members)


def test_a_guided_lab_is_judged_on_its_own_scale(tmp_path: Path) -> None:
    """Twenty-four independent answers to the same six small questions,
    with the handed-out facts named by --base: honest pairs reach 85% and
    more, the class's scale raises the cut over them, and none is shown."""
    guided_lab(tmp_path / "class", 24)
    facts = tmp_path / "facts.pl"
    facts.write_text(LAB_FACTS)
    found = _similar_json(tmp_path / "class", tmp_path / "r", "--base", str(facts))
    assert found["scale"]["raised"] and found["scale"]["cut"] > 0.65
    assert found["pairs"] == [] and found["rings"] == []
    assert found["same_after_normalisation"] == []


@pytest.mark.sandbox
def test_grade_names_every_member_of_the_ring(tmp_path: Path) -> None:
    members = ring_class(tmp_path / "class", 18, 10)
    run = plpuzzle("sudoku", "grade", tmp_path / "class", "--suite", SUITE, "--only", "test001",
                   "--no-feedback", "--time-limit", "10", "--memory-limit", "1024",
                   "--jobs", "2", "--out", tmp_path / "on")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "Group of 10 that all match: " in run.stdout
    line = next(x for x in run.stdout.splitlines() if x.startswith("Group of 10"))
    assert line.endswith(", ".join(sorted(members)))
    data = json.loads((tmp_path / "on" / "grades.json").read_text())
    _check_ring(data["similarity"], members)
    assert 'id="similarity-rings"' in (tmp_path / "on" / "grades.html").read_text()


#: A course of one test: the service's grading of the class stays short
#: (the comparison needs the uploads, not their grades); a megabyte's
#: upload allowed, for the member behind a megabyte of comment.
ONE_TEST_COURSE = """\
time_limit = 5

[course]
public = ["test001"]
max_upload_kb = 2048
"""


def _upload_of(entry: Path) -> tuple[str, bytes]:
    """A class entry as a student uploads it: sudoku.pl, or a folder as a .zip."""
    if entry.is_file():
        return "sudoku.pl", entry.read_bytes()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(p for p in entry.rglob("*") if p.is_file()):
            archive.write(path, path.relative_to(entry).as_posix())
    return "sudoku.zip", buffer.getvalue()


def _accounts(course: Path, data: Path, students: list[str]) -> tuple[dict[str, str], str]:
    """The students' API tokens by login (no passwords: a hash each would
    cost more than the test), and the teacher's one-time sign-in path."""
    service = Service(ServiceSettings(course, data))
    try:
        service.accounts.create(students, "student")
        (tina,) = service.accounts.create(["tina"], "teacher")
        with service.store.session() as db:
            ids = dict(db.execute(select(User.login, User.id).where(User.role == "student")).all())
        tokens = {login: service.accounts.new_token(i, "test") for login, i in ids.items()}
    finally:
        service.close()
    return tokens, f"/welcome/{tina.token}"


@pytest.mark.slow  # a class graded in the service; grade names the ring in the default run
@pytest.mark.sandbox
def test_the_service_reports_the_ring_with_every_member(tmp_path: Path) -> None:
    """A real `serve`: the class uploaded through the API, the teacher's
    "Compare now", and the page (and the JSON it is made from) name the
    group of 10 in 18 first, with every member."""
    members = ring_class(tmp_path / "class", 18, 10)
    entries = {p.name.removesuffix(".pl"): p for p in (tmp_path / "class").iterdir()}
    course = tmp_path / "course"
    course.mkdir()
    for name in ("test001d.txt", "test001s.txt"):
        shutil.copyfile(SUITE / name, course / name)
    (course / "suite.toml").write_text(ONE_TEST_COURSE)
    data = tmp_path / "data"
    tokens, welcome = _accounts(course, data, sorted(entries))
    with Server(course, data, 1) as server, httpx.Client(base_url=server.url,
                                                          timeout=120) as tina:  # fmt: skip

        def upload(login: str) -> None:
            name, body = _upload_of(entries[login])
            r = api_upload(server.url, tokens[login], body, name)
            assert r.status_code == 201, (login, r.text)

        with ThreadPoolExecutor(3) as students:  # a few at once, as a class does
            list(students.map(upload, sorted(entries)))
        signed = tina.post(welcome, data={"password": PASSWORD, "again": PASSWORD})
        assert signed.status_code in (200, 303), signed.text[:500]
        csrf = re.search(r'name="csrf" value="([^"]+)"', tina.get("/similarity").text)
        assert csrf
        r = tina.post("/similarity", data={"csrf": csrf.group(1)}, follow_redirects=False)
        assert r.status_code == 303

        def compared() -> str | None:
            page = tina.get("/similarity").text
            assert "the comparison failed" not in page, page
            # The results' heading, not the report's bare link shown in the
            # moment between the report and its summary being written.
            done = "<h2>The latest comparison</h2>" in page and "comparing the" not in page
            return page if done else None

        page = wait_for("the comparison", 600, compared, every=0.5)
        report = tina.get("/similarity/report")
    found = json.loads((data / "similarity.json").read_text())
    assert len(found["handins"]) == 18
    _check_ring(found, members)
    ring = page.split('<p class="ring">', 1)[1].split("</p>", 1)[0]
    assert "Group of 10 that all match" in ring
    assert re.findall(r'<a href="/students/([^"]+)">', ring) == sorted(members)
    assert page.count('<p class="ring">') == 1
    assert report.status_code == 200 and 'id="similarity-rings"' in report.text
