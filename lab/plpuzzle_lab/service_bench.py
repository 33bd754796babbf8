"""The submission service under load (`make bench-service`): a class
uploads at once to a real `plpuzzle sudoku serve` process while signed-in
users keep asking for pages, and the same files are then graded by
`plpuzzle sudoku grade`, so that the service's cost shows as a ratio.

The goals are the issue's: while the class grades, every page kind
answers within 300 ms at the 95th percentile (on 2 cores), and the
service keeps at least 90 % of the grading throughput of `sudoku grade`
(it costs at most 10 %). They are reported, met or missed, never
enforced; the exit code says only whether every upload was graded
exactly once.

Each student hands in a file of tests/fixtures/class (correct, wrong,
looping, unloadable ones, in a fixed mix) with a comment naming them
appended, so that no two hand-ins are twins the gradebook would grade
once for both: the service and `grade` each run every (student, test).

    python -m plpuzzle_lab service [REPORT.md]   (make bench-service)
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
from sqlalchemy import select

from plpuzzle.sudoku.service.core import Service, ServiceSettings
from plpuzzle.sudoku.service.routing import SESSION_COOKIE
from plpuzzle.sudoku.service.store import Upload, User
from plpuzzle_lab.machine import load_average, load_text, machine_markdown

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "fixtures" / "grading_suite"
CLASS = REPO / "tests" / "fixtures" / "class"

#: The hand-ins, cycled over the students: mostly correct or wrong
#: answers, a few that do not load, one loop and one memory hog in 25
#: (each of their tests takes the whole time limit).
MIX = ("alice", "dave", "grace", "oscar", "carol", "frank", "trent", "erin", "judy", "alice",
       "mallory", "victor", "dave", "ivan", "alice", "carol", "heidi", "oscar", "frank",
       "trent", "erin", "alice", "dave", "carol", "alice")  # fmt: skip

#: The course the bench serves; the suite's own rules are kept.
COURSE_TOML = """\
rules = "{rules}"
time_limit = {time_limit}

[course]
public = ["{public}"]
uploads_per_hour = 30
shrink_seconds = {shrink}
"""

TEACHER = "teacher"
PASSWORD = "a-long-bench-password"

#: The page kinds probed: label -> (who asks, path with {id} for an upload).
PAGES = {
    "student /me": ("student", "/me"),
    "student /uploads/ID": ("student", "/uploads/{id}"),
    "student /uploads/ID/status.json": ("student", "/uploads/{id}/status.json"),
    "teacher /class": ("teacher", "/class"),
    "teacher /class/status.json": ("teacher", "/class/status.json"),
}
UPLOAD_KIND = "student POST /api/uploads (with its load check)"

#: The goals of the issue.
PAGE_P95_GOAL = 0.300
THROUGHPUT_GOAL = 0.90


@dataclass(frozen=True)
class BenchSettings:
    """How one run is made (the lab command's options)."""

    students: int = 50
    suite: Path = SUITE
    jobs: int = os.cpu_count() or 1
    time_limit: float = 3.0
    shrink_seconds: float = 2.0
    #: Threads asking for pages, each waiting `pause` seconds between requests.
    probers: int = 4
    pause: float = 0.2
    #: The most seconds the class may take to grade, in each phase.
    timeout: float = 1800.0


@dataclass
class Latencies:
    """Seconds per request of each kind, and the requests that failed."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    #: (when it ended, on the monotonic clock; its seconds) of every page request.
    ended: list[tuple[float, float]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float | None) -> None:
        """One request: its time, or None when it failed."""
        with self.lock:
            if seconds is None:
                self.errors[kind] = self.errors.get(kind, 0) + 1
                return
            self.seconds.setdefault(kind, []).append(seconds)
            if kind in PAGES:
                self.ended.append((time.monotonic(), seconds))


@dataclass
class Once:
    """What the service's database and reports say about each upload."""

    sent: int
    accepted: int
    rows: int
    done_first_attempt: int
    one_reports_folder: int
    refused: list[str]

    @property
    def ok(self) -> bool:
        return self.sent == self.accepted == self.rows == self.done_first_attempt == (
            self.one_reports_folder
        )  # fmt: skip


@dataclass
class Figures:
    """Everything one run measured."""

    settings: BenchSettings
    tests: int
    mix: dict[str, int]
    pages: Latencies
    once: Once
    service_seconds: float | None
    grade_seconds: float | None
    agree: tuple[int, int]
    log_errors: int
    loads: dict[str, str]
    machine: list[str]
    code: str = ""
    #: When the uploads were being taken: from the first sent to the last
    #: answered, on the monotonic clock.
    burst: tuple[float, float] | None = None


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (`share` in 0..1) of non-empty `values`."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


# -- the course, the class and the accounts ------------------------------------------------


def make_course(folder: Path, settings: BenchSettings) -> tuple[Path, int]:
    """The suite copied with the bench's suite.toml; the course and its test count."""
    shutil.copytree(settings.suite, folder, ignore=shutil.ignore_patterns("suite.toml"))
    own = settings.suite / "suite.toml"
    rules = tomllib.loads(own.read_text()).get("rules", "consecutive") if own.exists() else None
    tests = sorted(p.name[: -len("d.txt")] for p in folder.glob("test*d.txt"))
    (folder / "suite.toml").write_text(COURSE_TOML.format(
        rules=rules or "consecutive", time_limit=settings.time_limit, public=tests[0],
        shrink=settings.shrink_seconds,
    ))  # fmt: skip
    return folder, len(tests)


def class_files(students: int) -> dict[str, tuple[str, bytes]]:
    """Login -> (the fixture it comes from, the file with the login appended)."""
    files = {}
    for n in range(students):
        login, fixture = f"s{n + 1:03d}", MIX[n % len(MIX)]
        data = (CLASS / f"{fixture}.pl").read_bytes() + f"\n% bench student {login}\n".encode()
        files[login] = (fixture, data)
    return files


@dataclass
class People:
    """The students' API tokens and session cookies, and the teacher's cookie."""

    tokens: dict[str, str]
    cookies: dict[str, str]
    teacher: str


def make_people(course: Path, data: Path, logins: list[str]) -> People:
    """Accounts made directly in the service's database, each with a
    session (a signed-in browser) and, for students, an API token."""
    service = Service(ServiceSettings(course, data))
    try:
        service.accounts.create(logins, "student")
        service.accounts.create([TEACHER], "teacher")
        with service.store.session() as db:
            users = {u.login: u for u in db.scalars(select(User))}
        cookies = {login: service.accounts.open_session(u)[0] for login, u in users.items()}
        tokens = {login: service.accounts.new_token(users[login].id, "bench") for login in logins}
    finally:
        service.close()
    return People(tokens, {k: v for k, v in cookies.items() if k != TEACHER}, cookies[TEACHER])


# -- the service, its uploads and its pages -----------------------------------------------


@contextmanager
def serving(course: Path, data: Path, jobs: int, log: Path) -> Iterator[str]:
    """A `plpuzzle sudoku serve` process on a free loopback port; its URL."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = [sys.executable, "-m", "plpuzzle", "sudoku", "serve", str(course), "--data", str(data),
            "--port", str(port), "--jobs", str(jobs)]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    with log.open("ab") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the service did not start: {log.read_text()[-2000:]}")
            try:
                httpx.get(f"{url}/signin", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        yield url
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Ctrl-C, as an operator stops it; kill -9 if it does not end."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def upload_all(url: str, people: People, files: dict[str, tuple[str, bytes]],
               taken: dict[str, int], latencies: Latencies) -> list[str]:  # fmt: skip
    """Every student uploads at once (a thread each) through the JSON API;
    `taken` fills in as the uploads are accepted. The refusals, said."""
    refused: list[str] = []

    def one(login: str) -> None:
        began = time.perf_counter()
        try:
            r = httpx.post(f"{url}/api/uploads", files={"file": ("sudoku.pl", files[login][1])},
                           headers={"Authorization": f"Bearer {people.tokens[login]}"},
                           timeout=600)  # fmt: skip
        except httpx.HTTPError as e:
            latencies.add(UPLOAD_KIND, None)
            refused.append(f"{login}: {type(e).__name__}")
            return
        if r.status_code != 201:
            latencies.add(UPLOAD_KIND, None)
            refused.append(f"{login}: HTTP {r.status_code} {r.text[:200]}")
            return
        latencies.add(UPLOAD_KIND, time.perf_counter() - began)
        taken[login] = int(r.json()["id"])

    with ThreadPoolExecutor(max_workers=len(files)) as pool:
        list(pool.map(one, files))
    return refused


class Prober:
    """Threads that ask for pages as signed-in users until stopped, each
    request's time kept by page kind."""

    def __init__(self, url: str, people: People, taken: dict[str, int], latencies: Latencies,
                 settings: BenchSettings) -> None:  # fmt: skip
        self.url, self.people, self.taken, self.latencies = url, people, taken, latencies
        self.settings = settings
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True)
                        for i in range(settings.probers)]  # fmt: skip

    def __enter__(self) -> Prober:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        for t in self.threads:
            t.join(timeout=60)

    def _target(self, kind: str, rng: random.Random) -> tuple[str, str] | None:
        """A path of that kind and the cookie of who asks (None: no upload yet)."""
        who, path = PAGES[kind]
        if who == "teacher":
            return path, self.people.teacher
        if "{id}" not in path:
            login = rng.choice(sorted(self.people.cookies))
            return path, self.people.cookies[login]
        if not self.taken:
            return None
        login, upload_id = rng.choice(sorted(self.taken.items()))
        return path.format(id=upload_id), self.people.cookies[login]

    def _run(self, index: int) -> None:
        rng, kinds = random.Random(index), list(PAGES)
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while not self.stopped.is_set():
                kind = kinds[index % len(kinds)]
                index += 1
                target = self._target(kind, rng)
                if target is None:
                    continue
                began = time.perf_counter()
                try:
                    r = client.get(target[0], headers={"Cookie": f"{SESSION_COOKIE}={target[1]}"})
                    ok = r.status_code == 200
                except httpx.HTTPError:
                    ok = False
                self.latencies.add(kind, time.perf_counter() - began if ok else None)
                self.stopped.wait(self.settings.pause)


def states(data: Path) -> dict[str, int]:
    """The uploads by state, read from the service's database."""
    with sqlite3.connect(f"file:{data / 'service.sqlite'}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT state, count(*) FROM uploads GROUP BY state").fetchall())


def wait_graded(data: Path, count: int, seconds: float) -> bool:
    """Wait until `count` uploads are done or failed; whether they were in time."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        now = states(data)
        if now.get("done", 0) + now.get("failed", 0) >= count:
            return True
        time.sleep(0.5)
    return False


# -- the two phases: the service, then `sudoku grade` ----------------------------------------


@dataclass
class Served:
    """What the service phase measured."""

    pages: Latencies
    once: Once
    #: From the first upload sent to the last graded; None: not all graded in time.
    seconds: float | None
    scores: dict[str, float | None]
    log_errors: int
    burst: tuple[float, float]


def run_service(work: Path, course: Path, files: dict[str, tuple[str, bytes]],
                settings: BenchSettings) -> Served:  # fmt: skip
    """The class uploads to a fresh service while the pages are probed,
    until every accepted upload is graded (or the time is up)."""
    data, log = work / "data", work / "service.log"
    people = make_people(course, data, list(files))
    latencies = Latencies()
    taken: dict[str, int] = {}
    with serving(course, data, settings.jobs, log) as url:
        _say(f"service on {url}: {len(files)} students upload")
        with Prober(url, people, taken, latencies, settings):
            began, first = datetime.now(UTC), time.monotonic()
            refused = upload_all(url, people, files, taken, latencies)
            burst = (first, time.monotonic())
            _say(f"{len(taken)} uploads accepted; grading")
            graded = wait_graded(data, len(taken), settings.timeout)
    once, last, scores = graded_once(course, data, len(files), taken, refused)
    seconds = (last - began).total_seconds() if graded and last is not None else None
    return Served(latencies, once, seconds, scores, log.read_text().count("Traceback"),
                  burst)  # fmt: skip


Scores = dict[str, float | None]


def graded_once(course: Path, data: Path, sent: int, taken: dict[str, int],
                refused: list[str]) -> tuple[Once, datetime | None, Scores]:  # fmt: skip
    """Every upload as the service's database and reports folder hold it:
    how many were graded once, the last graded time, the scores by login."""
    service = Service(ServiceSettings(course, data))
    try:
        with service.store.session() as db:
            rows = [(u, login) for u, login in db.execute(
                select(Upload, User.login).join(User, Upload.user_id == User.id))]  # fmt: skip
    finally:
        service.close()
    accepted = set(taken.values())
    first = [u for u, _ in rows if u.id in accepted and u.state == "done" and u.attempt == 0]
    once = sum(
        sorted(p.name for p in (data / "reports" / str(u.id)).iterdir()) == ["0"]
        for u in first
        if (data / "reports" / str(u.id)).is_dir()
    )
    graded = [u.graded for u, _ in rows if u.graded is not None]
    return (
        Once(sent, len(taken), len(rows), len(first), once, refused),
        max(graded) if graded else None,
        {login: u.score for u, login in rows},
    )


def run_grade(work: Path, course: Path, files: dict[str, tuple[str, bytes]],
              settings: BenchSettings) -> tuple[float | None, Scores]:  # fmt: skip
    """`plpuzzle sudoku grade` of the same files with the same settings:
    its wall time (None: it failed or ran out of time) and the scores."""
    klass, out = work / "class", work / "grade"
    for login, (_, data) in files.items():
        (klass / login).mkdir(parents=True)
        (klass / login / "sudoku.pl").write_bytes(data)
    args = [sys.executable, "-m", "plpuzzle", "sudoku", "grade", str(klass), "--suite",
            str(course), "--jobs", str(settings.jobs), "--shrink-seconds",
            str(settings.shrink_seconds), "--no-similarity", "--out", str(out), "-q"]  # fmt: skip
    _say(f"sudoku grade: the same {len(files)} files")
    began = time.monotonic()
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=settings.timeout)
    except subprocess.TimeoutExpired:
        return None, {}
    seconds = time.monotonic() - began
    if done.returncode != 0:
        _say(f"sudoku grade failed ({done.returncode}): {done.stderr[-2000:]}")
        return None, {}
    report = json.loads((out / "grades.json").read_text())
    return seconds, {s["id"]: s["score"] for s in report["students"]}


def code_version() -> str:
    """The commit measured, and the files changed since (others' work
    in progress changes what is measured)."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return "not a git checkout"
    changed = [line[3:] for line in git("status", "--porcelain", "--untracked-files=no")
               .splitlines()]  # fmt: skip
    if not changed:
        return f"commit {commit}, no file changed"
    more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
    return f"commit {commit}, changed since: {', '.join(changed[:5])}{more}"


def _say(line: str) -> None:
    print(f"service bench: {line}", file=sys.stderr, flush=True)


def run(settings: BenchSettings) -> Figures:
    """The whole bench in a temporary folder: the service, then `grade`."""
    machine, code = machine_markdown(), code_version()
    with tempfile.TemporaryDirectory(prefix="plpuzzle-service-bench-") as tmp:
        work = Path(tmp)
        course, tests = make_course(work / "course", settings)
        files = class_files(settings.students)
        loads: dict[str, str] = {}
        served = run_service(work, course, files, settings)
        loads["before `sudoku grade`"] = load_text(load_average())
        grade_seconds, grade_scores = run_grade(work, course, files, settings)
        loads["at the end"] = load_text(load_average())
    agree = sum(login in grade_scores and served.scores.get(login) == grade_scores[login]
                for login in files)  # fmt: skip
    mix: dict[str, int] = {}
    for fixture, _ in files.values():
        mix[fixture] = mix.get(fixture, 0) + 1
    return Figures(settings, tests, mix, served.pages, served.once, served.seconds, grade_seconds,
                   (agree, len(files)), served.log_errors, loads, machine, code,
                   served.burst)  # fmt: skip


# -- the report ------------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _yes(met: bool | None) -> str:
    return "n/a" if met is None else "yes" if met else "**NO**"


def settings_lines(f: Figures) -> list[str]:
    """What was measured, and how."""
    s = f.settings
    mix = ", ".join(f"{name} x{count}" for name, count in sorted(f.mix.items()))
    suite = s.suite.relative_to(REPO) if s.suite.is_relative_to(REPO) else s.suite
    return [
        "## What was measured",
        "",
        f"- Class: {s.students} students, all uploading at once (a thread each) one file of "
        f"tests/fixtures/class through the JSON API, with a comment naming the student "
        f"appended, so that no two hand-ins are twins: {mix}.",
        f"- Course: {suite} ({f.tests} test{'s' if f.tests != 1 else ''}), "
        f"{s.time_limit:g} s of CPU per test, "
        f"{s.shrink_seconds:g} s per upload to shrink a failing puzzle for the feedback; "
        f"`--jobs {s.jobs}` for the service and for `sudoku grade`.",
        f"- Pages: {s.probers} threads ask, {s.pause:g} s apart each, in turn for a signed-in "
        "student's /me, one of their uploads' page and its status.json, and the teacher's "
        "/class and /class/status.json, from the first upload until the last is graded. A "
        "request's time is the client's, from sending to the whole answer read.",
        "- The service's wall time runs from the first upload sent to the last upload "
        "graded (its time in the service's database); `sudoku grade`'s is the whole "
        f"command, `plpuzzle sudoku grade CLASS --suite COURSE --jobs {s.jobs} "
        f"--shrink-seconds {s.shrink_seconds:g} --no-similarity`, on the same files, run "
        "after the service stopped, start-up included.",
        "- One run of each, one after the other, on a machine others may use meanwhile (the "
        "load averages are below).",
        f"- Code: {f.code or 'unknown'}.",
        "",
        "### Machine",
        "",
        *f.machine,
        *(f"- Load average {when}: {load}" for when, load in f.loads.items()),
        "",
    ]


def page_lines(f: Figures) -> list[str]:
    """The table of request times by page kind."""
    lines = [
        "### Pages while the class grades",
        "",
        "| page | requests | failed | p50 | p95 | max |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind in [*PAGES, UPLOAD_KIND]:
        seconds, failed = f.pages.seconds.get(kind, []), f.pages.errors.get(kind, 0)
        if seconds:
            p50, p95 = _ms(percentile(seconds, 0.5)), _ms(percentile(seconds, 0.95))
            figures = f"{p50} | {p95} | {_ms(max(seconds))}"
        else:
            figures = "- | - | -"
        lines.append(f"| {kind} | {len(seconds)} | {failed} | {figures} |")
    return [*lines, "", *burst_lines(f)]


def burst_lines(f: Figures) -> list[str]:
    """Every page kind together, while the uploads were being taken and
    after: whether a slow page comes from the burst of uploads."""
    if f.burst is None:
        return []
    start, end = f.burst
    during = [s for at, s in f.pages.ended if at <= end]
    after = [s for at, s in f.pages.ended if at > end]

    def said(values: list[float]) -> str:
        if not values:
            return "no request"
        return (f"{len(values)} requests, p95 {_ms(percentile(values, 0.95))}, "
                f"max {_ms(max(values))}")  # fmt: skip

    return [
        f"Every page kind together: while the uploads were being taken (the first "
        f"{end - start:.0f} s), {said(during)}; after, while the class graded, {said(after)}.",
        "",
    ]


def throughput_ratio(f: Figures) -> float | None:
    """The service's throughput as a share of `grade`'s (1: the same)."""
    if f.service_seconds is None or f.grade_seconds is None:
        return None
    return f.grade_seconds / f.service_seconds


def throughput_lines(f: Figures) -> list[str]:
    """The two wall times side by side, and their ratio."""
    runs = f.settings.students * f.tests
    lines = [
        "### Grading throughput",
        "",
        "| how | uploads | tests run | wall | tests a minute |",
        "|---|---:|---:|---:|---:|",
    ]
    rows = (("the service, first upload to last graded", f.service_seconds),
            ("`plpuzzle sudoku grade`, the whole command", f.grade_seconds))  # fmt: skip
    for how, seconds in rows:
        rate = "not finished | -" if seconds is None else (
            f"{seconds:.1f} s | {runs / seconds * 60:.1f}")  # fmt: skip
        lines.append(f"| {how} | {f.settings.students} | {runs} | {rate} |")
    ratio = throughput_ratio(f)
    if ratio is not None:
        lines += ["", f"The service graded at {ratio:.0%} of the rate of `sudoku grade` "
                  f"(it cost {1 - ratio:.0%})."]  # fmt: skip
    return [*lines, ""]


def once_lines(f: Figures) -> list[str]:
    """Whether every upload was graded, and only once."""
    o = f.once
    lines = [
        "### Every upload graded once",
        "",
        f"- {o.sent} uploads sent, {o.accepted} accepted, {o.rows} rows in the service's "
        f"uploads table, {o.done_first_attempt} done at their first attempt (attempt 0), "
        f"{o.one_reports_folder} with one grading's reports (reports/ID/0 only): "
        + ("every upload graded exactly once." if o.ok else "**NOT every upload graded once.**"),
        f"- Scores: the service and `sudoku grade` agree on {f.agree[0]} of {f.agree[1]} students.",
        f"- The service's log: {f.log_errors} traceback(s).",
    ]
    lines += [f"- Refused: {why}" for why in o.refused]
    return [*lines, ""]


def goal_lines(f: Figures) -> list[str]:
    """The issue's goals, each met or missed, with its figure."""
    worst = max(((percentile(v, 0.95), k) for k, v in f.pages.seconds.items()
                 if k in PAGES and v), default=None)  # fmt: skip
    failed = sum(n for k, n in f.pages.errors.items() if k in PAGES)
    pages_met = None if worst is None else worst[0] < PAGE_P95_GOAL and failed == 0
    page_figure = "no page asked" if worst is None else (
        f"worst p95 {_ms(worst[0])} ({worst[1]}); {failed} failed request(s)")  # fmt: skip
    ratio = throughput_ratio(f)
    cores = os.cpu_count() or 1
    where = "" if cores == 2 else f" (this machine has {cores} cores)"
    return [
        "## Goals",
        "",
        "| goal | figure | met |",
        "|---|---|---|",
        f"| every page kind's p95 under {_ms(PAGE_P95_GOAL)} on 2 cores while the class "
        f"grades{where} | {page_figure} | {_yes(pages_met)} |",
        f"| the service keeps at least {THROUGHPUT_GOAL:.0%} of `sudoku grade`'s throughput "
        f"(costs at most {1 - THROUGHPUT_GOAL:.0%}) | "
        + ("not finished" if ratio is None else f"{ratio:.0%} (costs {1 - ratio:.0%})")
        + f" | {_yes(None if ratio is None else ratio >= THROUGHPUT_GOAL)} |",
        f"| every upload graded exactly once | {f.once.one_reports_folder} of {f.once.sent} | "
        f"{_yes(f.once.ok)} |",
        "",
    ]


def markdown(f: Figures) -> str:
    """The report: settings, machine, figures and goals."""
    lines = [
        "# The submission service under load",
        "",
        "Written by `make bench-service` (`python -m plpuzzle_lab service`).",
        "",
        *settings_lines(f),
        "## Results",
        "",
        *page_lines(f),
        *throughput_lines(f),
        *once_lines(f),
        *goal_lines(f),
    ]
    return "\n".join(lines)


def main(settings: BenchSettings, out: Path | None) -> int:
    """Run, print the report, write it to `out`; 0 when every upload was
    graded exactly once (goals missed are reported, not failed)."""
    figures = run(settings)
    text = markdown(figures)
    sys.stdout.write(text)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
    return 0 if figures.once.ok else 1
