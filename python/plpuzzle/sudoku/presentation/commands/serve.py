"""`plpuzzle sudoku serve`, `accounts` and `submit`: the course's
submission service, its accounts, and handing in from a terminal."""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from plpuzzle import i18n
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
from plpuzzle.i18n import _
from plpuzzle.untrusted import one_line

#: Seconds a stopping service gives the requests under way (then the
#: grading queue's own STOP_SECONDS): a SIGTERM ends it within 30 s.
STOP_REQUESTS = 15
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
    from plpuzzle.sudoku.runs.suite import SuiteError

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
    "--url",
    metavar="URL",
    help="The service's address as users reach it (https://sudoku.example.edu), shown on "
    "the pages; default: the address each request came to.",
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
          scheduler: str | None, url: str | None, secure_cookies: bool, check: bool,
          fmt: str) -> None:  # fmt: skip
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
                       secure_cookies=secure_cookies, url=url)  # fmt: skip
    _password_cost()
    if service.course.deadline is not None and service.course.time_left(_now()) is None:
        warn(f"the deadline ({service.course.deadline_text()}) has passed: uploads now are "
             f"late ({service.course.late}); change it in {course}/suite.toml if that is not "
             "what you meant")  # fmt: skip
    if check:
        summary = service.summary()
        service.close()
        write_json(summary) if fmt == "json" else click.echo(_summary_text(summary))
        return
    import uvicorn

    from plpuzzle.cluster.client_side import ClusterError
    from plpuzzle.sudoku.service.queue import GradingQueue
    from plpuzzle.sudoku.service.web import create_app, server_config

    queue = GradingQueue(service)
    try:
        queue.connect()  # a cluster that cannot grade is said now, not at the first upload
    except ClusterError as e:
        service.close()
        raise SetupError(f"--scheduler: {e}") from None
    try:
        listening = _listen(host, port)
    except OSError as e:
        service.close()
        raise SetupError(f"cannot listen on {host}:{port} ({e.strerror or e}): is another "
                         "service using it? Choose another with --port") from None  # fmt: skip
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    access = logging.getLogger("plpuzzle.service.access")  # JSON lines, as they are
    access.propagate = False
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    access.addHandler(handler)
    where = f"http://{host}:{port}/"
    if fmt == "json":
        write_json({"url": where, "course": str(course), "data": str(service.data)})
    note(f"serving {course} on {where} (data: {service.data}); Ctrl-C stops")
    # SIGTERM (or Ctrl-C): the socket closes, requests under way get
    # STOP_REQUESTS seconds, then the queue puts what it grades back (queue.py).
    config = server_config(create_app(service, queue), timeout_graceful_shutdown=STOP_REQUESTS)
    # uvicorn raises the stopping signal again once it has stopped: after a
    # clean stop on SIGTERM (systemd's, kill's), the process ends with 0.
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    uvicorn.Server(config).run(sockets=[listening])
    service.close()


def _password_cost() -> None:
    """Refuse an unknown PLPUZZLE_PASSWORD_COST before serving, and say
    loudly when it is the test suites' cheap one (accounts.hasher)."""
    from plpuzzle.sudoku.service.accounts import COST_VARIABLE, COSTS, AccountError, hasher

    try:
        chosen = hasher()
    except AccountError as e:
        raise InputError(str(e)) from None
    if chosen is COSTS["cheapest"]:
        warn(
            f"{COST_VARIABLE}=cheapest: passwords are hashed at the cost made for test "
            "suites, which a stolen database gives up in no time; unset it for a course"
        )


def _listen(host: str, port: int) -> Any:
    """The service's socket, bound before anything is said to be served."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)


def _summary_text(summary: dict[str, Any]) -> str:
    deadline = summary["deadline_shown"] or "none"
    released = "released" if summary["released"] else "not released yet"
    accounts, uploads = summary["accounts"], summary["uploads"]
    database, mail = summary["database"], summary["mail"]
    extensions, policy = summary["extensions"], summary["requirements"]
    if mail is None:
        mailed = "none ([course.mail] not set: no sign-in links or results are mailed)"
    else:
        password = "$PLPUZZLE_SMTP_PASSWORD set" if mail["password_set"] else "no password"
        mailed = (f"{mail['host']}:{mail['port']} from {mail['from'] or '?'}, "
                  f"{'STARTTLS' if mail['starttls'] else 'no STARTTLS'}, {password}; "
                  f"students at {mail['domain'] or 'their roster addresses only'}")  # fmt: skip
    rules = ", ".join(
        f"{key} {policy[key]}" + (f" ({policy[f'{key}_points']:g} points)"
                                   if policy[key] == "deduct" else "")
        for key in ("clpfd", "documentation", "head_comments", "layout")
    )  # fmt: skip
    return "\n".join([
        f"course    {summary['name']} ({summary['course']})",
        f"data      {summary['data']}",
        f"database  {database['kind']}, {database['url']} (schema {database['revision']})",
        f"deadline  {deadline} (late uploads: {summary['late']})",
        f"extensions  {extensions['in_suite_toml']} in suite.toml, {extensions['granted']} "
        "granted on the service",
        f"public    {', '.join(summary['public_tests']) or 'no test'}",
        f"release   {summary['release']} ({released})",
        f"requirements  {rules}",
        f"limits    {summary['uploads_per_hour']} uploads an hour, {summary['max_upload_kb']} KB",
        f"mail      {mailed}",
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
    help="Student logins, one a line (# comments), as `sudoku grade --roster` reads them: "
    "the accounts to add (those that exist are left alone).",
)
@click.option(
    "--student", "students_named", multiple=True, metavar="LOGIN",
    help="A student's login (repeatable): an account to add, or with --renew to renew; "
    "LOGIN=ADDRESS gives where mail reaches them too.",
)  # fmt: skip
@click.option(
    "--teacher", "teachers", multiple=True, metavar="LOGIN[=ADDRESS]",
    help="A teacher's login (repeatable): an account to add, or with --renew to renew; "
    "LOGIN=ADDRESS gives where mail reaches them (a teacher without one is not mailed: "
    "the mail domain is the students').",
)  # fmt: skip
@click.option(
    "--renew",
    is_flag=True,
    help="Give the accounts named by --student and --teacher (only those) a new sign-in "
    "link: their password is cleared and their sessions and API tokens end. For a "
    "forgotten password, or a link that expired.",
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
    help="The CSV of one-time sign-in links (login, role, link, expires), readable by you "
    "only; the links of it not used yet are kept, the new ones added. '-' for stdout (the "
    "new links only).",
)
@click.option(
    "--send",
    is_flag=True,
    help="Mail each new (or renewed) link, through the course's [course.mail] server, to "
    "the address the roster gives (`login address`), else LOGIN@ its mail domain. The "
    "links go into the service's outbox and are sent for --send-within seconds at most; "
    "what is left waits there, and the running service's postman sends it (exit code 4 "
    "says some wait).",
)
@click.option(
    "--send-within", "send_within", type=click.FloatRange(min=0, max=600),
    default=20.0, show_default=True, metavar="SECONDS",
    help="With --send: how long to send at most, all mails together (a server that "
    "does not answer is cut off then); 0 only queues them for the service's postman.",
)  # fmt: skip
@format_option(("text", "json"), "text: for people; json: the accounts on stdout (with their "
               "links when -o is '-').")  # fmt: skip
def accounts(course: Path, data: Path, database_url: str | None, roster: Path | None,
             students_named: tuple[str, ...], teachers: tuple[str, ...], renew: bool, url: str,
             output: Path, send: bool, send_within: float, fmt: str) -> None:  # fmt: skip
    """Make the accounts of a course: one per student of the roster (a
    line is `login` or `login address`), per --student and per --teacher,
    each with a one-time sign-in link where the user sets a password (a
    link lasts 14 days). Accounts that exist are left alone; --renew
    gives the ones named by --student and --teacher a new link; --send
    mails the new links (for --send-within seconds at most; the running
    service sends what is left). Exit code 2 for bad input, 4 when
    accounts and links were made but some links still wait to be mailed.
    """
    if roster is None and not teachers and not students_named:
        raise InputError("give --roster FILE, --student LOGIN and/or --teacher LOGIN: there is "
                         "nobody to add")  # fmt: skip
    if renew and not (teachers or students_named):
        raise InputError("--renew renews only the accounts named by --student LOGIN or "
                         "--teacher LOGIN (repeatable): name them")  # fmt: skip
    from plpuzzle.sudoku.service.roster import RosterError, read_roster

    try:
        listed = read_roster(roster) if roster else []
    except RosterError as e:
        raise InputError(str(e)) from None
    students_named, given = _named(students_named, "--student")
    teachers, given_teachers = _named(teachers, "--teacher")
    listed += given + given_teachers
    service = _service(course, data, database_url)
    if send and service.mail is None:
        service.close()
        raise InputError(f"--send: {course}/suite.toml has no [course.mail] table (its SMTP "
                         "server)")  # fmt: skip
    from plpuzzle.sudoku.service.accounts import WELCOME_DAYS, AccountError
    from plpuzzle.sudoku.service.enrol import enrol

    to_stdout = str(output) == "-"
    try:
        done = enrol(service, listed, students_named, teachers, renew, url,
                     None if to_stdout else output, send, send_within)  # fmt: skip
    except AccountError as e:
        raise InputError(str(e)) from None
    finally:
        service.close()
    untouched = len(done.made) - done.new - done.renewed
    if fmt == "json":
        write_json({
            "output": None if to_stdout else str(output),
            "new": done.new, "renewed": done.renewed, "unchanged": untouched,
            "links_kept": done.links.kept, "mailed": done.mailed, "mail_waiting": done.waiting,
            "mail_waiting_why": done.why_waiting, "no_address": done.no_address,
            "accounts": [{"login": a.login, "role": a.role, "new_link": bool(a.token),
                          "renewed": a.renewed}
                         | ({"link": f"{url.rstrip('/')}/welcome/{a.token}"}
                            if to_stdout and a.token else {})
                         for a in done.made],
        })  # fmt: skip
        if to_stdout:
            _mail_exit(done)
            return
    if to_stdout:
        links = done.links
        write_output(None, type(links)(links.rows[links.kept :], links.new, 0).text())
    note(f"{done.new} new account(s), {done.renewed} renewed (their sessions and API tokens "
         f"ended), {untouched} left as they were")  # fmt: skip
    where = "stdout" if to_stdout else f"{output} (keep it private)"
    kept = "" if to_stdout else f", {done.links.kept} still unused from before"
    expiry = f"; new links work once, for {WELCOME_DAYS} days" if done.links.new else ""
    count = done.links.new if to_stdout else len(done.links.rows)
    note(f"{count} sign-in link(s) in {where}: {done.links.new} new{kept}{expiry}")
    if send:
        note(f"{done.mailed} link(s) mailed; {done.waiting} waiting")
        if done.waiting:
            warn(f"{done.waiting} link(s) not mailed yet ({one_line(done.why_waiting, 200)}): "
                 "they wait in the outbox, and the running service's postman sends them "
                 "(its status page lists what failed); they are in the links file too")  # fmt: skip
        if done.no_address:
            warn(f"no address for {', '.join(done.no_address)}: their links are only in the "
                 "file (give `login address` on the roster, or [course.mail] domain)")  # fmt: skip
    _mail_exit(done)


def _named(words: tuple[str, ...], option: str) -> tuple[tuple[str, ...], list[Any]]:
    """The logins of --student/--teacher LOGIN[=ADDRESS], and the addresses
    given (as roster entries; InputError for one that is no address)."""
    from plpuzzle.sudoku.service.roster import Entry, address_problem

    logins, given = [], []
    for word in words:
        login, _, address = word.partition("=")
        logins.append(login)
        if not address:
            continue
        if (problem := address_problem(address)) is not None:
            raise InputError(f"{option} {one_line(word, 120)}: {one_line(address, 80)} is not "
                             f"a mail address: {problem}")  # fmt: skip
        given.append(Entry(login, address))
    return tuple(logins), given


#: The exit code of `accounts --send` when links wait to be mailed.
MAIL_WAITING_EXIT = 4


def _mail_exit(done: Any) -> None:
    """Exit code 4 when some links wait in the outbox (all else was done)."""
    if done.waiting:
        sys.exit(MAIL_WAITING_EXIT)


#: Exit codes of `submit` beyond 0 (every test shown correct), 1 (one is
#: not, or the file does not load), 2 (refused) and 3 (cannot reach).
LATE_EXIT, GAVE_UP_EXIT = 4, 5
#: What `submit` prints of the service's answer at most.
SHOWN_MESSAGES, SHOWN_RESULTS = 30, 300

server_option = click.option(
    "--server",
    metavar="URL",
    envvar="PLPUZZLE_SERVER",
    help="The service's address, with http:// or https:// (also $PLPUZZLE_SERVER); "
    "default: the one `plpuzzle sudoku login` kept, if it kept one.",
)


def _server_and_token(server: str | None, token: str | None) -> tuple[str, str]:
    """The service and the API token to use: given, else kept by `login`."""
    from plpuzzle.sudoku.service import client

    kept = client.saved()
    if server is None:
        if len(kept) != 1:
            raise InputError("--server: which service? give --server URL (or run "
                             "`plpuzzle sudoku login URL` once)")  # fmt: skip
        server = next(iter(kept))
    try:
        server = client.check_server(server)
    except ValueError as e:
        raise InputError(f"--server: {e}") from None
    token = token or kept.get(server, {}).get("token")
    if not token:
        raise InputError(f"no API token for {server}: run `plpuzzle sudoku login {server}`, "
                         "or make one on the service's 'Sign-ins and API tokens' page, "
                         "and give it as "
                         "$PLPUZZLE_TOKEN (or --token)")  # fmt: skip
    return server, token


@click.command()
@click.argument("file", required=False, type=click.Path(path_type=Path, dir_okay=False,
                                                        exists=True))  # fmt: skip
@click.option("--doc", "doc", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              metavar="FILE", help="Hand in this documentation (HTML, PDF or text) too, or "
              "alone when FILE is left out.")  # fmt: skip
@server_option
@click.option("--token", envvar="PLPUZZLE_TOKEN", metavar="TOKEN",
              help="Your API token (from `plpuzzle sudoku login`, or the service's tokens "
              "page); better given as $PLPUZZLE_TOKEN than on the command line.")  # fmt: skip
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="Wait for the grading and print the results.",
)
@click.option(
    "--timeout", type=click.FloatRange(min=0.05), default=60.0, show_default=True,
    metavar="MINUTES", help="Give up waiting after so long (the upload stays; its page shows it).",
)  # fmt: skip
@format_option(("text", "json"), "text: for people; json: the service's answer about the "
               "upload on stdout.")  # fmt: skip
def submit(file: Path | None, doc: Path | None, server: str | None, token: str | None,
           wait: bool, timeout: float, fmt: str) -> None:  # fmt: skip
    """Hand in FILE (sudoku.pl, or a .zip or .tar.gz holding it) to the
    course's service, as the upload page does, and print what it says:
    whether it loads, where it waits, then (with --wait) the tests it may
    show, as soon as they are graded. Exit code 0 when every test shown is
    correct, 1 when one is not or the file does not load, 2 when the
    service refuses the upload, 3 when it cannot be reached, 4 when the
    upload is graded but does not count (it came after the deadline), 5
    when --timeout ran out first.
    """
    from plpuzzle.sudoku.service import client

    i18n.choose(i18n.terminal_language())  # the student's terminal's (and the service's answers)
    if file is None and doc is None:
        raise InputError("give the FILE to hand in (sudoku.pl), and/or --doc FILE")
    server, token = _server_and_token(server, token)
    if doc is not None:
        try:
            handed = client.submit_document(server, token, doc)
        except client.ClientError as e:
            if e.status == 0:
                raise SetupError(one_line(str(e), 300)) from None
            raise InputError(f"{doc}: {one_line(str(e), 300)}") from None
        if fmt == "text":
            late = "" if handed["counts"] else _(" - late, does not count")
            click.echo(_("documentation: %(name)s (%(size)s bytes)")
                       % {"name": one_line(str(handed["name"]), 80), "size": handed["size"]}
                       + late)  # fmt: skip
        if file is None:
            if fmt == "json":
                write_json(handed)
            sys.exit(0 if handed["counts"] else LATE_EXIT)
    assert file is not None
    try:
        answer = client.submit(server, token, file)
        checked = answer["state"] != "checking"
        if fmt == "text":
            _print_upload(answer, checked)
        if wait and answer.get("loaded") is not False:
            try:
                answer = client.wait(server, token, answer["id"], _progress_printer(),
                                     timeout * 60)  # fmt: skip
            except client.GaveUp as e:
                warn(f"still grading after {timeout:g} min; the upload's page shows it when "
                     f"done: {server}/uploads/{e.state['id']}")  # fmt: skip
                if fmt == "json":
                    write_json(e.state)
                sys.exit(GAVE_UP_EXIT)
            if fmt == "text":
                if not checked:
                    _print_load(answer)
                _print_results(answer)
        if fmt == "json":
            write_json(answer)
    except client.ClientError as e:
        if e.status == 0:
            raise SetupError(one_line(str(e), 300)) from None
        if e.status == 401:
            raise InputError(one_line(str(e), 400)) from None
        raise InputError(f"{file}: {one_line(str(e), 300)}") from None
    failed = answer.get("loaded") is False or answer["state"] == "failed" or any(
        r["grade"] != "correct" for r in answer["results"]
    )  # fmt: skip
    if fmt == "text" and not answer.get("counts", True):
        warn(_("this upload does not count: it came after the deadline (%(when)s); your last "
               "upload before it counts") % {"when": answer.get("deadline")})  # fmt: skip
    sys.exit(1 if failed else 0 if answer.get("counts", True) else LATE_EXIT)


def _print_upload(answer: dict[str, Any], checked: bool) -> None:
    number = answer.get("number") or answer["id"]
    click.echo(_("upload #%(number)s: %(name)s (%(size)s bytes)")
               % {"number": number, "name": one_line(str(answer["name"]), 80),
                  "size": answer["size"]}
               + (_(" - late") if answer["late"] else ""))  # fmt: skip
    if checked:
        _print_load(answer)


def _print_load(answer: dict[str, Any]) -> None:
    """What loading it said: whether it loads, Prolog's messages, intake's notes
    (each line escaped, SHOWN_MESSAGES of them at most)."""
    if answer["loaded"] is False:
        click.echo(_("it does not load:"))
    lines = [*answer["load_messages"], *(_("note: %s") % n for n in answer["notes"])]
    for line in lines[:SHOWN_MESSAGES]:
        click.echo(f"  {one_line(str(line), 300)}")
    if len(lines) > SHOWN_MESSAGES:
        click.echo("  " + _("... and %(count)d more line(s): see the upload's page")
                   % {"count": len(lines) - SHOWN_MESSAGES})  # fmt: skip


def _progress_printer() -> Callable[[dict[str, Any]], None]:
    """Prints the grading's progress on stderr as it changes, once a step."""
    said = ""

    def show(state: dict[str, Any]) -> None:
        nonlocal said
        done, total, queue = state["done"], state["total"], state.get("queue")
        if state["state"] == "checking":
            now = _("checking whether it loads")
        elif queue is not None:
            first = (_("%(count)s other student(s) first") % {"count": queue["ahead"]}
                     if queue["ahead"] else _("next"))  # fmt: skip
            about = "" if queue["seconds"] is None else f", {_about(queue['seconds'])}"
            what = _("public tests") if queue["for"] == "public" else _("tests")
            now = _("queued (%(what)s): %(first)s") % {"what": what, "first": first} + about
        elif total:
            now = (_("grading: %(done)s of %(total)s tests") % {"done": done, "total": total}
                   if done < total else _("grading: writing the feedback"))  # fmt: skip
        else:
            now = ""
        if now and now != said:
            note(now)
        said = now

    return show


def _about(seconds: float) -> str:
    if seconds < 90:
        return _("about %(count)s s") % {"count": max(1, round(seconds))}
    return _("about %(count)s min") % {"count": round(seconds / 60)}


def _print_results(answer: dict[str, Any]) -> None:
    if answer["state"] == "failed":
        warn(_("grading failed (the service's fault, not yours); try again later"))
        return
    if answer["state"] == "replaced":
        warn(_("a newer upload (#%(number)s) replaced this one before it was graded; the last "
               "upload counts") % {"number": answer.get("replaced_by_number")
                                   or answer["replaced_by"]})  # fmt: skip
    rows = answer["results"]
    for r in rows[:SHOWN_RESULTS]:
        test, grade = one_line(str(r["test"]), 20), one_line(str(r["grade"]), 20)
        click.echo(f"{test:<10} {grade:<14} {one_line(str(r['detail']), 160)}".rstrip())
    if len(rows) > SHOWN_RESULTS:
        click.echo(_("... and %(count)d more test(s): see the upload's page")
                   % {"count": len(rows) - SHOWN_RESULTS})  # fmt: skip
    # The course requirements, with the public results too: mend them in
    # time. Before the score, which already counts what they take off.
    for found in (answer.get("requirements") or [])[:SHOWN_RESULTS]:
        what = one_line(str(found.get("requirement", "")), 40)
        click.echo(
            _("requirement: %(what)s: %(found)s")
            % {"what": what, "found": one_line(str(found.get("found", "")), 200)}
        )
    if answer["score"] is not None:
        scope = "" if answer["complete"] else _(" on the public tests")
        click.echo(_("score: %(score)s / %(most)s") % {"score": f"{answer['score']:g}",
                                                       "most": f"{answer['max_score']:g}"}
                   + scope)  # fmt: skip
    if answer["hidden_tests"]:
        click.echo(_("%(count)s more test(s) are shown once results are released")
                   % {"count": answer["hidden_tests"]})  # fmt: skip


#: The exit code of `results` for an upload not graded yet.
NOT_YET_EXIT = 5


@click.command()
@click.argument("upload_id", metavar="[ID]", required=False, type=click.IntRange(min=1))
@server_option
@click.option("--token", envvar="PLPUZZLE_TOKEN", metavar="TOKEN",
              help="Your API token (as `login` keeps it), or $PLPUZZLE_TOKEN.")  # fmt: skip
@format_option(("text", "json"), "text: for people; json: the service's answer about the "
               "upload on stdout.")  # fmt: skip
def results(upload_id: int | None, server: str | None, token: str | None, fmt: str) -> None:
    """Print the results of your upload ID (default: your newest), as the
    service shows them now: after `submit --no-wait`, or after the
    release. Exit code 0 when every test shown is correct, 1 when one is
    not or the file does not load, 2 for no such upload (or none at all),
    3 when the service cannot be reached, 4 when the upload does not
    count (late), 5 when it is not graded yet.
    """
    from plpuzzle.sudoku.service import client

    server, token = _server_and_token(server, token)
    try:
        if upload_id is None:
            mine = client.uploads(server, token)
            if not mine:
                raise InputError("you have no upload on this service yet: `plpuzzle sudoku "
                                 "submit sudoku.pl` hands one in")  # fmt: skip
            upload_id = max(int(u["id"]) for u in mine)
        answer = client.upload(server, token, upload_id)
    except client.ClientError as e:
        if e.status == 0:
            raise SetupError(one_line(str(e), 300)) from None
        raise InputError(f"upload {upload_id}: {one_line(str(e), 300)}") from None
    if fmt == "json":
        write_json(answer)
    else:
        _print_upload(answer, True)
        _print_results(answer)
    if answer["state"] not in client.FINAL and not client.shown_in_full(answer):
        if fmt == "text":
            note(f"not graded in full yet ({answer['state']}); its page: {server}{answer['page']}")
        sys.exit(NOT_YET_EXIT)
    failed = answer.get("loaded") is False or answer["state"] == "failed" or any(
        r["grade"] != "correct" for r in answer["results"]
    )  # fmt: skip
    sys.exit(1 if failed else 0 if answer.get("counts", True) else LATE_EXIT)


@click.command()
@click.argument("server", metavar="URL")
@click.option("--label", default="terminal", show_default=True, metavar="TEXT",
              help="The token's label on the service's page of sign-ins and tokens.")  # fmt: skip
@format_option(("text", "json"), "text: for people; json: the login, the service and where "
               "the token is kept, on stdout (never the token itself).")  # fmt: skip
def login(server: str, label: str, fmt: str) -> None:
    """Get an API token from a terminal and keep it (readable by you only)
    for `submit`: URL is the service's address (then you give your login
    and password) or your one-time sign-in link (then you choose your
    password). Exit code 2 for a wrong login or password, 3 when the
    service cannot be reached.
    """
    from plpuzzle.sudoku.service import client

    i18n.choose(i18n.terminal_language())
    link_token = None
    if "/welcome/" in server:
        server, _sep, link_token = server.partition("/welcome/")
    try:
        address = client.check_server(server)
    except ValueError as e:
        raise InputError(str(e)) from None
    try:
        if link_token:
            # Prompts go to stderr: stdout is for the answer (--format json).
            password = click.prompt(_("Choose a password"), hide_input=True, err=True,
                                    confirmation_prompt=_("Again"))  # fmt: skip
            got = client.first_sign_in(address, link_token.strip("/"), password, label)
        else:
            name = click.prompt(_("Login"), err=True)
            password = click.prompt(_("Password"), hide_input=True, err=True)
            device = client.saved().get(address, {}).get("device", "")
            got = client.new_token(address, name, password, label, str(device))
    except client.ClientError as e:
        if e.status == 0:
            raise SetupError(one_line(str(e), 300)) from None
        raise InputError(one_line(str(e), 300)) from None
    path = client.save(address, str(got["token"]), str(got["login"]), str(got.get("device", "")))
    if fmt == "json":
        write_json({"login": str(got["login"]), "server": address, "kept_in": str(path)})
        return
    note(_("signed in as %(login)s; the token is kept in %(path)s (readable by you only): "
           "`plpuzzle sudoku submit sudoku.pl` uses it")
         % {"login": one_line(str(got["login"]), 64), "path": path})  # fmt: skip
