"""A stored grading's feedback in each reader's language (issue 55): in a
Hungarian course, a buggy solver graded in the real sandbox gets its
feedback file in Hungarian, or in English for a student who chose it;
the feedback page draws the same stored grading in the reader's language,
and switches when the reader does, the file untouched. An upload graded
before the data was kept shows the page the grader wrote."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from service_kit import REPO, Person, app_of, make_service, person

from plpuzzle.sudoku.service.core import Service

pytestmark = pytest.mark.sandbox

BUGGY = (REPO / "tests" / "fixtures" / "feedback" / "s_points_up.pl").read_bytes()

#: Every test public: each reader sees the whole grading's feedback.
HUNGARIAN_COURSE = """\
time_limit = 10

[course]
public = ["test*"]
uploads_per_hour = 30
shrink_seconds = 2
language = "hu"
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, object]]:
    service = make_service(tmp_path_factory.mktemp("feedback-language"), HUNGARIAN_COURSE)
    app = app_of(service)
    with TestClient(app):  # the lifespan: the grading queue runs
        yield service, app
    service.close()


def choose(who: Person, language: str) -> None:
    r = who.client.post("/language", data={"csrf": who.csrf("/me"), "language": language,
                                           "back": "/me"}, follow_redirects=False)  # fmt: skip
    assert r.status_code == 303, r.text[:300]


def feedback_files(service: Service, upload: int, login: str) -> dict[str, Path]:
    (folder,) = (service.data / "reports" / str(upload)).glob("*/feedback")
    return {s: folder / f"{login}{s}" for s in (".md", ".html", ".json")}


def pres(page: str) -> list[str]:
    """The page's preformatted blocks (boards, puzzles): no words of ours."""
    return re.findall(r"<pre[^>]*>(.*?)</pre>", page, re.S)


def test_the_feedback_in_each_readers_language(served: tuple) -> None:
    service, app = served
    hanna, emil = person(app, service, "hanna"), person(app, service, "emil")
    choose(emil, "en")
    uploads = {p.login: p.upload_id("sudoku.pl", BUGGY) for p in (hanna, emil)}
    for p in (hanna, emil):
        assert p.wait(uploads[p.login])["state"] == "done"
    # The files: hanna's in the course's language, emil's in his own.
    hanna_files = feedback_files(service, uploads["hanna"], "hanna")
    emil_files = feedback_files(service, uploads["emil"], "emil")
    assert hanna_files[".md"].read_text().startswith("# Sudoku házi feladat: visszajelzés")
    assert "## Hibás válaszok" in hanna_files[".md"].read_text()
    assert emil_files[".md"].read_text().startswith("# Sudoku assignment: feedback")
    kept = {s: p.read_bytes() for s, p in hanna_files.items()}

    path = f"/uploads/{uploads['hanna']}/feedback"
    hungarian = hanna.page(path)
    assert '<html lang="hu">' in hungarian
    assert "<h2>Hibás válaszok</h2>" in hungarian and "Ezeket a szabályokat sérti:" in hungarian
    assert "<td>hibás: " in hungarian and "Egy kisebb feladvány, amelyen a megoldód" in hungarian
    assert "Wrong answers" not in hungarian and "It breaks these rules" not in hungarian
    # The site's own heading and score, once (the grader's are left out).
    assert hungarian.count("<h1>") == 1 and "Pontszám:" in hungarian

    choose(hanna, "en")
    english = hanna.page(path)
    assert '<html lang="en">' in english
    assert "<h2>Wrong answers</h2>" in english and "It breaks these rules:" in english
    assert "<td>wrong: " in english and "A smaller puzzle your solver gets wrong" in english
    assert "Hibás válaszok" not in english
    # The same stored grading: the same boards and puzzles, the files untouched.
    assert pres(english) == pres(hungarian) and pres(english)
    assert {s: p.read_bytes() for s, p in hanna_files.items()} == kept

    # A grading from before the data was kept: the page the grader wrote.
    hanna_files[".json"].unlink()
    try:
        old = hanna.page(path)
        assert "<h2>Hibás válaszok</h2>" in old  # the file's own language
    finally:
        hanna_files[".json"].write_bytes(kept[".json"])
