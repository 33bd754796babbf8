"""`plpuzzle sudoku serve`, `accounts` and `submit`: the course's
submission service, its accounts, and handing in from a terminal."""

from __future__ import annotations

import csv
import io
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from plpuzzle.clitools import (
    InputError,
    SetupError,
    format_option,
    jobs_option,
    note,
    warn,
    write_json,
    write_output,
)

#: Where the service keeps its data unless told otherwise.
DEFAULT_DATA = Path("plpuzzle-service")
SERVE_HINT = "pip install 'plpuzzle[serve]' (FastAPI, uvicorn, SQLAlchemy, argon2)"

course_argument = click.argument(
    "course", type=click.Path(path_type=Path, file_okay=False, exists=True)
)
data_option = click.option(
    "--data",
    type=click.Path(path_type=Path, file_okay=False),
    default=DEFAULT_DATA,
    show_default=True,
    help="The service's data folder: its database, the uploaded files, the gradebook "
    "and the reports. Back it up.",
)
database_option = click.option(
    "--database-url",
    metavar="URL",
    envvar="PLPUZZLE_DATABASE_URL",
    help="A SQLAlchemy database URL (e.g. postgresql://...) instead of the SQLite file "
    "in the data folder; also $PLPUZZLE_DATABASE_URL.",
)


def _service(course: Path, data: Path, database_url: str | None, **more: Any) -> Any:
    """The service of `course`, or one clear error for a missing extra or a bad course."""
    try:
        from plpuzzle.sudoku.service.core import Service, ServiceSettings
    except ImportError as e:
        raise SetupError(f"the service needs {SERVE_HINT} ({e.name} is missing)") from None
    from plpuzzle.sudoku.services.suite import SuiteError

    try:
        return Service(ServiceSettings(course, data, database_url, **more))
    except SuiteError as e:
        raise InputError(str(e)) from None


@click.command()
@course_argument
@data_option
@database_option
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on; keep the default behind a reverse proxy.",
)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@jobs_option("tests graded at once on this machine")
@click.option(
    "--scheduler",
    metavar="tcp://HOST:PORT",
    help="Grade on the Dask cluster of this scheduler instead of this machine's cores.",
)
@click.option(
    "--secure-cookies",
    is_flag=True,
    help="Mark cookies Secure: for a service reached through HTTPS (a TLS proxy).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Read the course and open the data folder, report what they hold, and stop.",
)
@format_option(("text", "json"), "text: for people; json: the address (or --check's report) "
               "on stdout.")  # fmt: skip
def serve(course: Path, data: Path, database_url: str | None, host: str, port: int, jobs: int,
          scheduler: str | None, secure_cookies: bool, check: bool, fmt: str) -> None:  # fmt: skip
    """Run the course's submission service: students upload, see their
    results in minutes, upload again; teachers watch the class.

    COURSE is the suite folder: its tests and its suite.toml, whose
    [course] table sets the deadline, the public tests, the release and
    the fair-use limits. Uploads are graded by the grader of `sudoku
    grade`, in the sandbox: every upload's public tests first, then the
    other tests, in turns round the students (a newer upload replaces a
    student's older ones still waiting); a service stopped (even killed)
    and started again goes on where it was. Make accounts first
    with `plpuzzle sudoku accounts`. --check reads the course and the data
    folder (making it, and upgrading its database, if needed) and stops.
    Exit code 0 after --check, 2 for a bad course, 3 when a part is
    missing.
    """
    service = _service(course, data, database_url, jobs=jobs, scheduler=scheduler,
                       secure_cookies=secure_cookies)  # fmt: skip
    if check:
        summary = service.summary()
        service.close()
        write_json(summary) if fmt == "json" else click.echo(_summary_text(summary))
        return
    import uvicorn

    from plpuzzle.cluster.client_side import ClusterError
    from plpuzzle.sudoku.service.queue import GradingQueue
    from plpuzzle.sudoku.service.web import create_app

    queue = GradingQueue(service)
    try:
        queue.connect()  # a cluster that cannot grade is said now, not at the first upload
    except ClusterError as e:
        service.close()
        raise SetupError(f"--scheduler: {e}") from None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    url = f"http://{host}:{port}/"
    if fmt == "json":
        write_json({"url": url, "course": str(course), "data": str(service.data)})
    note(f"serving {course} on {url} (data: {service.data}); Ctrl-C stops")
    config = uvicorn.Config(create_app(service, queue), host=host, port=port, access_log=False,
                            log_level="warning", server_header=False)  # fmt: skip
    uvicorn.Server(config).run()
    service.close()


def _summary_text(summary: dict[str, Any]) -> str:
    deadline = summary["deadline"] or "none"
    released = "released" if summary["released"] else "not released yet"
    accounts, uploads = summary["accounts"], summary["uploads"]
    return "\n".join([
        f"course    {summary['course']}",
        f"data      {summary['data']}",
        f"deadline  {deadline} (late uploads: {summary['late']})",
        f"public    {', '.join(summary['public_tests']) or 'no test'}",
        f"release   {summary['release']} ({released})",
        f"limits    {summary['uploads_per_hour']} uploads an hour, {summary['max_upload_kb']} KB",
        f"accounts  {accounts['student']} student(s), {accounts['teacher']} teacher(s)",
        "uploads   " + ", ".join(f"{n} {state}" for state, n in uploads.items()),
    ])  # fmt: skip


@click.command()
@course_argument
@data_option
@database_option
@click.option(
    "--roster",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Student logins, one a line (# comments), as `sudoku grade --roster` reads them.",
)
@click.option(
    "--teacher", "teachers", multiple=True, metavar="LOGIN", help="A teacher's login (repeatable)."
)
@click.option(
    "--renew",
    is_flag=True,
    help="Give existing accounts a new sign-in link (their password is cleared).",
)
@click.option(
    "--url",
    default="http://127.0.0.1:8000",
    show_default=True,
    help="The service's address as users reach it, for the links.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    default=Path("signin-links.csv"),
    show_default=True,
    help="The CSV of one-time sign-in links (login, role, link), readable by you only; "
    "'-' for stdout.",
)
@format_option(("text", "json"), "text: for people; json: the accounts on stdout (with their "
               "links when -o is '-').")  # fmt: skip
def accounts(course: Path, data: Path, database_url: str | None, roster: Path | None,
             teachers: tuple[str, ...], renew: bool, url: str, output: Path,
             fmt: str) -> None:  # fmt: skip
    """Make the accounts of a course: one per student of the roster and
    per --teacher, each with a one-time sign-in link where the user sets a
    password. Accounts that exist are kept (with --renew, they get a new
    link). Exit code 2 for bad input.
    """
    from plpuzzle.sudoku.grading.intake import load_roster
    from plpuzzle.sudoku.grading.model import GradingError

    if roster is None and not teachers:
        raise InputError("give --roster FILE and/or --teacher LOGIN: there is nobody to add")
    try:
        students = load_roster(roster) if roster else []
    except GradingError as e:
        raise InputError(str(e)) from None
    service = _service(course, data, database_url)
    from plpuzzle.sudoku.service.accounts import AccountError

    try:
        made = service.accounts.create(list(teachers), "teacher", renew)
        made += service.accounts.create(students, "student", renew)
    except AccountError as e:
        raise InputError(str(e)) from None
    finally:
        service.close()
    _write_links(made, url, output, fmt)


def _write_links(made: list[Any], url: str, output: Path, fmt: str) -> None:
    def link(token: str) -> str:
        return f"{url.rstrip('/')}/welcome/{token}"

    to_stdout = str(output) == "-"
    if fmt == "json":
        write_json({
            "output": None if to_stdout else str(output),
            "accounts": [{"login": a.login, "role": a.role, "new_link": bool(a.token)}
                         | ({"link": link(a.token)} if to_stdout and a.token else {})
                         for a in made],
        })  # fmt: skip
        if to_stdout:
            return
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["login", "role", "link"])
    fresh = [a for a in made if a.token]
    for a in fresh:
        writer.writerow([a.login, a.role, link(a.token)])
    if to_stdout:
        write_output(None, out.getvalue())
    else:
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(out.getvalue())
    kept = len(made) - len(fresh)
    where = "stdout" if str(output) == "-" else f"{output} (keep it private)"
    note(f"{len(fresh)} sign-in link(s) written to {where}; {kept} account(s) existed already")


@click.command()
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "--server",
    required=True,
    metavar="URL",
    envvar="PLPUZZLE_SERVER",
    help="The service's address (also $PLPUZZLE_SERVER).",
)
@click.option("--token", envvar="PLPUZZLE_TOKEN", metavar="TOKEN",
              help="Your API token (made on the service's 'API tokens' page); better given "
              "as $PLPUZZLE_TOKEN than on the command line.")  # fmt: skip
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="Wait for the grading and print the results.",
)
@format_option(("text", "json"), "text: for people; json: the service's answer about the "
               "upload on stdout.")  # fmt: skip
def submit(file: Path, server: str, token: str | None, wait: bool, fmt: str) -> None:
    """Hand in FILE (sudoku.pl, or a .zip or .tar.gz holding it) to the
    course's service, as the upload page does, and print what it says:
    at once whether it loads, then (with --wait) the tests it may show.
    Exit code 0 when every test shown is correct, 1 when one is not or the
    file does not load, 2 when the service refuses the upload, 3 when it
    cannot be reached.
    """
    from plpuzzle.sudoku.service import client

    if not token:
        raise InputError("--token: no API token (make one on the service's 'API tokens' page)")
    try:
        answer = client.submit(server, token, file)
        checked = answer["state"] != "checking"
        if fmt == "text":
            _print_upload(answer, checked)
        if wait and answer.get("loaded") is not False:
            answer = client.wait(server, token, answer["id"], _progress_printer())
            if fmt == "text":
                if not checked:
                    _print_load(answer)
                _print_results(answer)
        if fmt == "json":
            write_json(answer)
    except client.ClientError as e:
        if e.status == 0:
            raise SetupError(str(e)) from None
        raise InputError(f"{file}: {e}") from None
    failed = answer.get("loaded") is False or answer["state"] == "failed" or any(
        r["grade"] != "correct" for r in answer["results"]
    )  # fmt: skip
    sys.exit(1 if failed else 0)


def _print_upload(answer: dict[str, Any], checked: bool) -> None:
    click.echo(f"upload #{answer['id']}: {answer['name']} ({answer['size']} bytes)"
               + (" - late" if answer["late"] else ""))  # fmt: skip
    if checked:
        _print_load(answer)


def _print_load(answer: dict[str, Any]) -> None:
    """What loading it said: whether it loads, Prolog's messages, intake's notes."""
    if answer["loaded"] is False:
        click.echo("it does not load:")
    for line in answer["load_messages"] + [f"note: {n}" for n in answer["notes"]]:
        click.echo(f"  {line}")


def _progress_printer() -> Callable[[dict[str, Any]], None]:
    """Prints the grading's progress on stderr as it changes, once a step."""
    said = ""

    def show(state: dict[str, Any]) -> None:
        nonlocal said
        done, total, queue = state["done"], state["total"], state.get("queue")
        if state["state"] == "checking":
            now = "checking whether it loads"
        elif queue is not None:
            first = f"{queue['ahead']} other student(s) first" if queue["ahead"] else "next"
            about = "" if queue["seconds"] is None else f", {_about(queue['seconds'])}"
            what = "public tests" if queue["for"] == "public" else "tests"
            now = f"queued ({what}): {first}{about}"
        elif total:
            now = (f"grading: {done} of {total} tests" if done < total
                   else "grading: writing the feedback")  # fmt: skip
        else:
            now = ""
        if now and now != said:
            note(now)
        said = now

    return show


def _about(seconds: float) -> str:
    return (
        f"about {max(5, round(seconds))} s" if seconds < 90 else f"about {round(seconds / 60)} min"
    )


def _print_results(answer: dict[str, Any]) -> None:
    if answer["state"] == "failed":
        warn("grading failed (the service's fault, not yours); try again later")
        return
    if answer["state"] == "replaced":
        warn(f"a newer upload (#{answer['replaced_by']}) replaced this one before it was "
             "graded; the last upload counts")  # fmt: skip
    for r in answer["results"]:
        click.echo(f"{r['test']:<10} {r['grade']:<14} {r['detail']}".rstrip())
    if answer["score"] is not None:
        scope = "" if answer["complete"] else " on the public tests"
        click.echo(f"score: {answer['score']:g} / {answer['max_score']:g}{scope}")
    if answer["hidden_tests"]:
        click.echo(f"{answer['hidden_tests']} more test(s) are shown once results are released")
