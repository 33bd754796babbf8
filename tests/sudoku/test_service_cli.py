"""The service's commands as a user runs them: `sudoku serve --check`,
`sudoku accounts --format json`, and `sudoku submit` handing files in to a
real `sudoku serve` process over loopback, with its exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from service_kit import CLASS, Server, free_port, make_course
from sqlalchemy import select

from plpuzzle.sudoku.service.core import Service, ServiceSettings
from plpuzzle.sudoku.service.store import User

pytestmark = pytest.mark.sandbox

#: A course whose every test is public: a student sees the whole score.
COURSE_TOML = """\
time_limit = 10

[course]
public = ["*"]
uploads_per_hour = 30
shrink_seconds = 1
"""


def plpuzzle(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "plpuzzle", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=900)  # fmt: skip


def token_of(course: Path, data: Path, login: str) -> str:
    """An API token of a new student account (as the tokens page makes one)."""
    service = Service(ServiceSettings(course, data))
    try:
        service.accounts.create([login], "student")
        with service.store.session() as db:
            user = db.scalars(select(User).where(User.login == login)).one()
        return service.accounts.new_token(user.id, "terminal")
    finally:
        service.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    tmp = tmp_path_factory.mktemp("served")
    course = make_course(tmp / "course", COURSE_TOML)
    token = token_of(course, tmp / "data", "alice")
    with Server(course, tmp / "data") as running:
        yield running, token


def submit(server: tuple[Server, str], path: Path, *more: str) -> subprocess.CompletedProcess[str]:
    running, token = server
    return plpuzzle("sudoku", "submit", path, "--server", running.url, "--token", token, *more)


def test_a_correct_file_is_graded_and_exits_0(server: tuple[Server, str], tmp_path: Path) -> None:
    handin = tmp_path / "sudoku.pl"
    handin.write_bytes((CLASS / "alice.pl").read_bytes())
    run = submit(server, handin)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("upload #") and "sudoku.pl" in lines[0]
    results = [line for line in lines if line.startswith("test")]
    assert results and all(line.split()[1] == "correct" for line in results)
    score = lines[-1].split()
    assert score[0] == "score:" and score[1] == score[3]  # full marks, every test shown


def test_a_file_that_does_not_load_exits_1_with_its_line(
    server: tuple[Server, str], tmp_path: Path
) -> None:
    handin = tmp_path / "sudoku.pl"
    handin.write_text("sudoku(_, _) :- oops oops.\n")
    run = submit(server, handin)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "it does not load:" in run.stdout
    assert "sudoku.pl:1:" in run.stdout


def test_json_is_the_services_answer(server: tuple[Server, str], tmp_path: Path) -> None:
    handin = tmp_path / "sudoku.pl"
    handin.write_bytes((CLASS / "dave.pl").read_bytes())  # wrong answers
    run = submit(server, handin, "--format", "json")
    assert run.returncode == 1, run.stderr
    answer = json.loads(run.stdout)
    assert answer["state"] == "done" and answer["loaded"] is True
    assert any(r["grade"] != "correct" for r in answer["results"])


def test_no_wait_only_hands_in(server: tuple[Server, str], tmp_path: Path) -> None:
    handin = tmp_path / "sudoku.pl"
    handin.write_bytes((CLASS / "alice.pl").read_bytes())
    run = submit(server, handin, "--no-wait", "--format", "json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["state"] in ("queued", "running", "done")


def test_refusals_and_faults_have_their_exit_codes(
    server: tuple[Server, str], tmp_path: Path
) -> None:
    running, _ = server
    handin = tmp_path / "notes.docx"
    handin.write_bytes(b"PK\x03\x04 not a hand-in")
    refused = submit(server, handin)
    assert refused.returncode == 2 and refused.stderr.startswith(f"plpuzzle: error: {handin}:")
    sudoku = tmp_path / "sudoku.pl"
    sudoku.write_text("sudoku(_, _).\n")
    bad_token = plpuzzle("sudoku", "submit", sudoku, "--server", running.url, "--token", "plp_x")
    assert bad_token.returncode == 2 and "API token" in bad_token.stderr
    no_token = plpuzzle("sudoku", "submit", sudoku, "--server", running.url)
    assert no_token.returncode == 2 and "--token" in no_token.stderr
    nobody = f"http://127.0.0.1:{free_port()}"
    unreachable = plpuzzle("sudoku", "submit", sudoku, "--server", nobody, "--token", "plp_x")
    assert unreachable.returncode == 3 and "cannot reach the service" in unreachable.stderr
    for run in (refused, bad_token, no_token, unreachable):
        assert "Traceback" not in run.stderr


@pytest.mark.slow
def test_accounts_then_check_report_the_course(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", COURSE_TOML)
    roster = tmp_path / "roster.txt"
    roster.write_text("# the class\nalice\nbob\n")
    made = plpuzzle("sudoku", "accounts", course, "--roster", roster, "--teacher", "tina",
                    "--format", "json", "-o", "-", cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    listed = json.loads(made.stdout)["accounts"]
    assert [(a["login"], a["role"]) for a in listed] == [
        ("tina", "teacher"), ("alice", "student"), ("bob", "student")
    ]  # fmt: skip
    assert all(a["new_link"] and "/welcome/" in a["link"] for a in listed)
    again = plpuzzle("sudoku", "accounts", course, "--teacher", "tina", "--format", "json",
                     "-o", tmp_path / "links.csv", cwd=tmp_path)  # fmt: skip
    assert json.loads(again.stdout)["accounts"] == [
        {"login": "tina", "role": "teacher", "new_link": False, "renewed": False}
    ]
    check = plpuzzle("sudoku", "serve", course, "--check", "--format", "json", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert "PLPUZZLE_PASSWORD_COST=cheapest" in check.stderr  # the tests' cost, said aloud
    summary = json.loads(check.stdout)
    assert summary["accounts"] == {"student": 2, "teacher": 1}
    assert summary["public_tests"] == sorted(p.name[:-5] for p in course.glob("*d.txt"))
    assert summary["release"] == "manual" and summary["released"] is False
    text = plpuzzle("sudoku", "serve", course, "--check", cwd=tmp_path)
    assert "accounts  2 student(s), 1 teacher(s)" in text.stdout.splitlines()


def test_check_names_a_bad_course_setting(tmp_path: Path) -> None:
    course = make_course(tmp_path / "course", "[course]\nlate = 'sometimes'\n")
    run = plpuzzle("sudoku", "serve", course, "--check", cwd=tmp_path)
    assert run.returncode == 2 and "suite.toml:2" in run.stderr and "Traceback" not in run.stderr


def test_passwords_cost_the_standard_unless_the_test_suites_cost_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """These tests hash at argon2-cffi's cheapest profile (conftest); a
    course, with PLPUZZLE_PASSWORD_COST unset, at the standard one, and a
    cost nobody defined stops `serve` with a clear error (the warning
    that the cheap one is in use: test_accounts_then_check_report_the_course)."""
    from plpuzzle.sudoku.service.accounts import AccountError, hasher

    monkeypatch.delenv("PLPUZZLE_PASSWORD_COST")
    assert "$m=65536,t=3,p=1$" in hasher().hash("a-long-password")
    monkeypatch.setenv("PLPUZZLE_PASSWORD_COST", "cheapest")
    assert "$m=8,t=1,p=1$" in hasher().hash("a-long-password")
    monkeypatch.setenv("PLPUZZLE_PASSWORD_COST", "low")
    with pytest.raises(AccountError, match="standard, cheapest"):
        hasher()
    course = make_course(tmp_path / "course", COURSE_TOML)
    run = plpuzzle("sudoku", "serve", course, "--check", cwd=tmp_path)
    assert run.returncode == 2 and "PLPUZZLE_PASSWORD_COST='low'" in run.stderr
    assert "Traceback" not in run.stderr
