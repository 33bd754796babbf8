"""The deadline rush, replayed at the real course's cost (`make
bench-service`): a class uploads at once to a real `plpuzzle sudoku
serve`, on this machine's cores and on a local Dask cluster, while
signed-in users keep asking for pages; the same files then go through
`plpuzzle sudoku grade`, for the throughput ratio. Then one student
floods the service while another hands in, anonymous clients flood the
sign-in form while a student reads their pages, and a queueing model,
checked against the measured burst, says how many cores 400 students
need.

The hand-ins are replay solvers (service_replay): each spends on every
test of the official suite what a measured kind of student solver spent
(service_costs, bench/service-costs.json), times `scale`, under a time
limit scaled the same way.

The goals are the issue's; they are reported, met or missed, never
enforced: the exit code says only whether every upload was graded
exactly once.

    python -m plpuzzle_lab service [REPORT.md]   (make bench-service)
"""

from __future__ import annotations

import json
import math
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import httpx
from sqlalchemy import select

from plpuzzle.sudoku.domain.model import Puzzle
from plpuzzle.sudoku.service.core import Service, ServiceSettings
from plpuzzle.sudoku.service.routing import SESSION_COOKIE
from plpuzzle.sudoku.service.store import User
from plpuzzle_lab import service_costs, service_model, service_replay
from plpuzzle_lab.machine import load_average, load_text, machine_markdown

REPO = Path(__file__).resolve().parents[2]

#: The kinds of hand-in, cycled over the students: mostly clpfd, some
#: plain search, a few weak ones, the course's reference among them.
MIX = ("clpfd-plain", "clpfd-strong", "search", "clpfd-plain", "reference", "clpfd-strong",
       "search", "clpfd-plain", "generate-and-test", "clpfd-strong")  # fmt: skip

#: The course the bench serves: the official suite's rules, its limit scaled.
COURSE_TOML = """\
rules = "oddsum"
time_limit = {time_limit:.6g}

[course]
public = ["{public}"]
uploads_per_hour = {per_hour}
shrink_seconds = 0
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
UPLOAD_KIND = "student POST /api/uploads (answered after its load check)"

#: The issue's goals.
PAGE_P95_GOAL = 0.300
THROUGHPUT_GOAL = 0.90
FLOOD_GOAL = 2.0
PUBLIC_P95_GOAL = 600.0
#: The course the model answers for.
COURSE_STUDENTS, COURSE_UPLOADS, COURSE_SHRINK = 400, 3, 10.0


@dataclass(frozen=True)
class BenchSettings:
    """How one run is made (the lab command's options)."""

    suite: Path
    students: int = 50
    jobs: int = os.cpu_count() or 1
    #: Costs and the course's 120 s limit are multiplied by this.
    scale: float = 0.0025
    #: The tests students see before the release (a pattern of names).
    public: str = "test00?"
    probers: int = 4
    pause: float = 0.2
    #: The most seconds the class may take to grade, in each phase.
    timeout: float = 3600.0
    costs: Path = service_costs.COSTS
    dask: bool = True
    flood: bool = True
    signin: bool = True
    #: Anonymous clients flooding /signin, and for how long.
    flooders: int = 32
    flood_seconds: float = 30.0
    #: Run only the scenario of a well-behaved student beside loopers, and
    #: write only its section of the report.
    only_beside: bool = False
    #: Looping students beside a well-behaved one (0: leave it out).
    loopers: int = 10
    #: The CPU limit a test for that scenario (the loopers spend it all).
    loop_limit: float = 1.0

    #: The bench course's CPU limit a test: above any replayed cost (at most
    #: 120 s times the scale), with room for a sandbox to start.
    time_limit: float = 10.0


# -- measuring -----------------------------------------------------------------------


@dataclass
class Latencies:
    """Seconds per request of each kind, and the requests that failed."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float | None) -> None:
        with self.lock:
            if seconds is None:
                self.errors[kind] = self.errors.get(kind, 0) + 1
            else:
                self.seconds.setdefault(kind, []).append(seconds)

    def pages(self) -> list[float]:
        return [s for k, v in self.seconds.items() if k in PAGES for s in v]


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (`share` in 0..1) of non-empty `values`."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy since it started (all
    cores, from /proc/stat: everything but idle and I/O wait)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    ticks = [int(f) for f in fields]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


@contextmanager
def cpu_meter() -> Iterator[list[float]]:
    """The machine's busy CPU seconds over a block, in the list it yields."""
    got: list[float] = []
    start = busy_seconds()
    try:
        yield got
    finally:
        got.append(busy_seconds() - start)


# -- the course, the class and the accounts ------------------------------------------------


def make_course(folder: Path, settings: BenchSettings, per_hour: int = 30) -> Path:
    """The official suite with the bench's suite.toml."""
    folder.mkdir(parents=True)
    for path in settings.suite.glob("test*.txt"):
        (folder / path.name).symlink_to(path.resolve())
    (folder / "suite.toml").write_text(COURSE_TOML.format(
        time_limit=settings.time_limit, public=settings.public, per_hour=per_hour))  # fmt: skip
    return folder


@dataclass(frozen=True)
class Hand:
    """One student's hand-in: its kind and its file."""

    kind: str
    data: bytes


def class_files(settings: BenchSettings, profiles: dict[str, service_costs.Profile],
                found: dict[str, Puzzle]) -> dict[str, Hand]:  # fmt: skip
    """Login -> a replay hand-in of the kind MIX gives it, unique to it."""
    texts = {kind: service_replay.solver_text(kind, profiles[kind].costs, settings.scale,
                                              found, service_costs.COURSE_LIMIT)
             for kind in set(MIX)}  # fmt: skip
    files = {}
    for n in range(settings.students):
        login, kind = f"s{n + 1:03d}", MIX[n % len(MIX)]
        files[login] = Hand(kind, (texts[kind] + f"% bench student {login}\n").encode())
    return files


@dataclass
class People:
    """The students' API tokens and session cookies, and the teacher's cookie."""

    tokens: dict[str, str]
    cookies: dict[str, str]
    teacher: str


def make_people(course: Path, data: Path, logins: list[str]) -> People:
    """Accounts made directly in the service's database, each with a
    session (a signed-in browser) and, for students, an API token; and a
    password, for the sign-in flood."""
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
def serving(course: Path, data: Path, jobs: int, log: Path, *extra: str) -> Iterator[str]:
    """A `plpuzzle sudoku serve` process on a free loopback port; its URL."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = [sys.executable, "-m", "plpuzzle", "sudoku", "serve", str(course), "--data", str(data),
            "--port", str(port), "--jobs", str(jobs), *extra]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    with log.open("ab") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
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


def _stop(proc: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    """Ctrl-C, as an operator stops it; kill -9 if it does not end."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


@contextmanager
def dask_cluster(workers: int) -> Iterator[str]:
    """`plpuzzle cluster local` in a process of its own; its scheduler's address."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "plpuzzle", "cluster", "local", "--workers", str(workers),
         "--port", "0", "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        text = ""
        while not text.endswith("}\n"):
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"plpuzzle cluster local ended early: {text!r}")
            text += line
        yield str(json.loads(text)["scheduler"])
    finally:
        _stop(proc)


def post_upload(url: str, token: str, data: bytes) -> httpx.Response:
    return httpx.post(f"{url}/api/uploads", files={"file": ("sudoku.pl", data)},
                      headers={"Authorization": f"Bearer {token}"}, timeout=600)  # fmt: skip


def upload_all(url: str, people: People, files: dict[str, Hand], taken: dict[str, int],
               latencies: Latencies) -> list[str]:  # fmt: skip
    """Every student uploads at once (a thread each); `taken` fills in as
    the uploads are accepted. The refusals, said."""
    refused: list[str] = []

    def one(login: str) -> None:
        began = time.perf_counter()
        try:
            r = post_upload(url, people.tokens[login], files[login].data)
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
    """Threads that ask for pages as signed-in users until stopped."""

    def __init__(self, url: str, people: People, taken: dict[str, int], latencies: Latencies,
                 threads: int, pause: float,
                 kinds: tuple[str, ...] = tuple(PAGES)) -> None:  # fmt: skip
        self.url, self.people, self.taken, self.latencies = url, people, taken, latencies
        self.pause, self.kinds = pause, kinds
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True)
                        for i in range(threads)]  # fmt: skip

    def __enter__(self) -> Prober:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        for t in self.threads:
            t.join(timeout=60)

    def _target(self, kind: str, rng: random.Random) -> tuple[str, str] | None:
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
        rng = random.Random(index)
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while not self.stopped.is_set():
                kind = self.kinds[index % len(self.kinds)]
                index += 1
                target = self._target(kind, rng)
                if target is None:
                    self.stopped.wait(self.pause)
                    continue
                began = time.perf_counter()
                try:
                    r = client.get(target[0], headers={"Cookie": f"{SESSION_COOKIE}={target[1]}"})
                    ok = r.status_code == 200
                except httpx.HTTPError:
                    ok = False
                self.latencies.add(kind, time.perf_counter() - began if ok else None)
                self.stopped.wait(self.pause)


def upload_rows(data: Path) -> dict[int, dict[str, object]]:
    """Every upload as the service's database holds it."""
    with sqlite3.connect(f"file:{data / 'service.sqlite'}?mode=ro", uri=True) as db:
        db.row_factory = sqlite3.Row
        return {r["id"]: dict(r) for r in db.execute("SELECT * FROM uploads")}


def wait_until(probe: object, seconds: float, every: float = 0.5) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if probe():  # type: ignore[operator]
            return True
        time.sleep(every)
    return False


def report_folders(data: Path, upload: object) -> list[str]:
    """The gradings whose reports an upload has: one grading is ["0", "0.public"]."""
    folder = data / "reports" / str(upload)
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def seconds_between(start: object, end: object) -> float | None:
    from datetime import datetime

    if not start or not end:
        return None
    return (datetime.fromisoformat(str(end)) - datetime.fromisoformat(str(start))).total_seconds()


# -- the burst -------------------------------------------------------------------------------


@dataclass
class Burst:
    """What one burst measured: pages, the waits, the CPU, graded once."""

    where: str
    pages: Latencies
    #: Per upload: seconds from its arrival to its public results, to all of them.
    public: dict[str, float]
    full: dict[str, float]
    #: From the first upload's arrival to the last one graded (None: not all in time).
    seconds: float | None
    cpu: float
    graded_once: int
    accepted: int
    refused: list[str]
    scores: dict[str, float | None]
    log_errors: int


def run_burst(work: Path, course: Path, files: dict[str, Hand], settings: BenchSettings,
              where: str, *extra: str) -> Burst:  # fmt: skip
    """The class uploads at once to a fresh service while pages are probed,
    until every accepted upload is graded (or the time is up)."""
    data, log = work / "data", work / "service.log"
    people = make_people(course, data, list(files))
    latencies, taken = Latencies(), dict[str, int]()
    with serving(course, data, settings.jobs, log, *extra) as url, cpu_meter() as cpu:
        _say(f"{where}: {len(files)} students upload at once to {url}")
        with Prober(url, people, taken, latencies, settings.probers, settings.pause):
            refused = upload_all(url, people, files, taken, latencies)
            _say(f"{where}: {len(taken)} uploads taken; grading")
            wait_until(lambda: all(upload_rows(data)[i]["state"] in ("done", "failed")
                                   for i in taken.values()), settings.timeout)  # fmt: skip
    rows = upload_rows(data)
    by_login = {login: rows[i] for login, i in taken.items()}
    public = {k: s for k, r in by_login.items()
              if (s := seconds_between(r["created"], r["public_graded"])) is not None}  # fmt: skip
    full = {k: s for k, r in by_login.items() if r["state"] == "done"
            and (s := seconds_between(r["created"], r["graded"])) is not None}  # fmt: skip
    arrivals = [str(r["created"]) for r in by_login.values()]
    ends = [str(r["graded"]) for r in by_login.values() if r["graded"]]
    seconds = (seconds_between(min(arrivals), max(ends))
               if len(full) == len(taken) and ends else None)  # fmt: skip
    once = sum(r["state"] == "done" and r["attempt"] == 0 and report_folders(data, r["id"])
               == ["0", "0.public"] for r in by_login.values())  # fmt: skip
    scores = {k: r["score"] for k, r in by_login.items()}
    return Burst(where, latencies, public, full, seconds, cpu[0], once, len(taken), refused,
                 scores, log.read_text().count("Traceback"))  # type: ignore[arg-type]  # fmt: skip


@dataclass
class Graded:
    """`sudoku grade` of the same files."""

    seconds: float | None
    cpu: float
    scores: dict[str, float | None]


def run_grade(work: Path, course: Path, files: dict[str, Hand], settings: BenchSettings) -> Graded:
    klass, out = work / "class", work / "grade"
    for login, hand in files.items():
        (klass / login).mkdir(parents=True)
        (klass / login / "sudoku.pl").write_bytes(hand.data)
    args = [sys.executable, "-m", "plpuzzle", "sudoku", "grade", str(klass), "--suite",
            str(course), "--jobs", str(settings.jobs), "--shrink-seconds", "0",
            "--no-similarity", "--out", str(out), "-q"]  # fmt: skip
    _say(f"sudoku grade: the same {len(files)} files")
    began = time.monotonic()
    with cpu_meter() as cpu:
        try:
            done = subprocess.run(args, capture_output=True, text=True, timeout=settings.timeout)
        except subprocess.TimeoutExpired:
            done = None
    seconds = time.monotonic() - began
    if done is None or done.returncode != 0:
        _say(f"sudoku grade failed: {done.stderr[-2000:] if done else 'out of time'}")
        return Graded(None, cpu[0], {})
    report = json.loads((out / "grades.json").read_text())
    return Graded(seconds, cpu[0], {s["id"]: s["score"] for s in report["students"]})


# -- one student floods -------------------------------------------------------------------


SLOW_LOAD = ":- sleep(60).\n"
LOOPS = "sudoku(_, _) :- repeat, fail.\n"


@dataclass
class Flood:
    """The victim's wait for public results, alone and under the flood;
    what one upload costs besides its tests, measured alone."""

    idle: float | None
    flooded: float | None
    sent: int
    kept: int
    #: Machine CPU seconds of an upload that spends nothing on its tests:
    #: its load check, its public stage, its other stage.
    check: float = 0.0
    public: float = 0.0
    rest: float = 0.0


def follow(data: Path, upload: int, start: float, seconds: float) -> dict[str, float]:
    """Watch an upload go through its check and stages; the machine's busy
    CPU seconds at each step's end (checked, public, done), from `start`
    (busy_seconds() before it was sent)."""
    got = dict[str, float]()
    steps = (("checked", "checked"), ("public", "public_graded"), ("done", "graded"))
    deadline = time.monotonic() + seconds
    while len(got) < len(steps) and time.monotonic() < deadline:
        row = upload_rows(data)[upload]
        for name, column in steps:
            done = row[column] is not None and (name != "done" or row["state"] == "done")
            if name not in got and done:
                got[name] = busy_seconds() - start
        time.sleep(0.05)
    return got


def run_flood(work: Path, course_for: object, found: dict[str, Puzzle],
              settings: BenchSettings) -> Flood:  # fmt: skip
    """An upload that spends nothing on its tests, alone on an idle
    service (after one to warm it up): its wait for public results and
    its CPU, step by step. Then the same upload while the flooder hands
    in slow-loading and looping files up to the hourly limit (12)."""
    per_hour = 12
    course = course_for(work / "course", settings, per_hour)  # type: ignore[operator]
    data, log = work / "data", work / "service.log"
    people = make_people(course, data, ["victim", "flooder"])
    nothing = service_replay.solver_text("nothing", {}, settings.scale, found,
                                         service_costs.COURSE_LIMIT)  # fmt: skip
    with serving(course, data, settings.jobs, log) as url:

        def hand_in(note: str) -> int | None:
            r = post_upload(url, people.tokens["victim"], (nothing + f"% {note}\n").encode())
            return int(r.json()["id"]) if r.status_code == 201 else None

        def public_wait(upload: int | None) -> float | None:
            if upload is None or not wait_until(
                lambda: upload_rows(data)[upload]["public_graded"] is not None,
                settings.timeout, 0.2,
            ):  # fmt: skip
                return None
            row = upload_rows(data)[upload]
            return seconds_between(row["created"], row["public_graded"])

        _say("flood: the victim alone, twice")
        warm = hand_in("warming up")
        if warm is not None:
            wait_until(lambda: upload_rows(data)[warm]["state"] == "done", settings.timeout)
        before = busy_seconds()
        alone = hand_in("alone")
        steps = follow(data, alone, before, settings.timeout) if alone is not None else {}
        idle = public_wait(alone)
        _say(f"flood: the flooder sends {per_hour + 3} files")
        codes = []
        for n in range(per_hour + 3):
            body = (SLOW_LOAD if n % 2 else LOOPS) + f"% flood {n}\n"
            codes.append(post_upload(url, people.tokens["flooder"], body.encode()).status_code)
        _say("flood: the victim again")
        flooded = public_wait(hand_in("flooded"))
    check = steps.get("checked", 0.0)
    public = steps.get("public", check) - check
    rest = steps.get("done", check + public) - check - public
    return Flood(idle, flooded, len(codes), codes.count(201), check, public, rest)


# -- a well-behaved student beside looping students -----------------------------------------


@dataclass
class Beside:
    """The well-behaved student's second upload: its wait to public
    results, alone and beside the loopers, in seconds and in turns of
    others (from the scheduler's record, GET /api/turns)."""

    loopers: int
    alone: float | None
    beside: float | None
    #: The first upload's wait beside the loopers (they had just uploaded).
    first: float | None
    #: Turns of other students it waited for, in all and from one student at most.
    turns: int | None
    most: int | None
    #: --jobs of the service: its turns, one more kept for rank 0.
    jobs: int = 1


def teacher_token(course: Path, data: Path) -> str:
    """An API token of the bench's teacher (made by make_people)."""
    service = Service(ServiceSettings(course, data))
    try:
        with service.store.session() as db:
            teacher = db.scalar(select(User).where(User.login == TEACHER))
            assert teacher is not None
            teacher_id = teacher.id
        return service.accounts.new_token(teacher_id, "bench")
    finally:
        service.close()


def waited_turns(url: str, token: str, login: str, upload: int) -> tuple[int, int] | None:
    """Turns of others in the rank-0 lane from the upload's first ask to its
    last rank-0 turn: (all of them, the most from one student)."""
    r = httpx.get(f"{url}/api/turns", headers={"Authorization": f"Bearer {token}"}, timeout=60)
    if r.status_code != 200:
        return None
    events = r.json()["events"]
    mine = [e for e in events if e["login"] == login and e["upload"] == upload and e["rank"] == 0]
    asks = [e["number"] for e in mine if e["kind"] == "ask"]
    turns = [e["number"] for e in mine if e["kind"] == "turn"]
    if not asks or not turns:
        return None
    others: dict[str, int] = {}
    for e in events:
        if (e["kind"] == "turn" and e["rank"] == 0 and e["login"] != login
                and min(asks) < e["number"] < max(turns)):  # fmt: skip
            others[e["login"]] = others.get(e["login"], 0) + 1
    return sum(others.values()), max(others.values(), default=0)


def run_beside(work: Path, course_for: object, found: dict[str, Puzzle],
               settings: BenchSettings) -> Beside:  # fmt: skip
    """A student whose file spends nothing on its tests uploads twice on an
    idle service (the second after the first's public results): the
    second's wait. Then `loopers` students upload files that loop on
    every test, and the same student uploads twice again beside them."""
    loop_settings = replace(settings, time_limit=settings.loop_limit)
    course = course_for(work / "course", loop_settings)  # type: ignore[operator]
    data, log = work / "data", work / "service.log"
    loopers = [f"loop{n + 1:02d}" for n in range(settings.loopers)]
    people = make_people(course, data, ["tidy", *loopers])
    token = teacher_token(course, data)
    nothing = service_replay.solver_text("nothing", {}, settings.scale, found,
                                         service_costs.COURSE_LIMIT)  # fmt: skip
    with serving(course, data, settings.jobs, log) as url:

        def twice(note: str) -> tuple[list[float | None], tuple[int, int] | None]:
            waits: list[float | None] = []
            for n in (1, 2):
                r = post_upload(url, people.tokens["tidy"], (nothing + f"% {note} {n}\n").encode())
                if r.status_code != 201:
                    return [None, None], None
                last = int(r.json()["id"])
                wait_until(lambda upload=last: upload_rows(data)[upload]["public_graded"]
                           is not None, settings.timeout, 0.1)  # fmt: skip
                row = upload_rows(data)[last]
                waits.append(seconds_between(row["created"], row["public_graded"]))
            return waits, waited_turns(url, token, "tidy", last)

        _say("beside loopers: the well-behaved student alone")
        (_, alone), _ = twice("alone")
        _say(f"beside loopers: {len(loopers)} looping students upload")
        with ThreadPoolExecutor(max_workers=len(loopers)) as pool:
            list(pool.map(lambda login: post_upload(url, people.tokens[login],
                                                    (LOOPS + f"% {login}\n").encode()),
                          loopers))  # fmt: skip
        _say("beside loopers: the well-behaved student again")
        (first, beside), turns = twice("beside")
    return Beside(len(loopers), alone, beside, first, None if turns is None else turns[0],
                  None if turns is None else turns[1], settings.jobs)  # fmt: skip


# -- anonymous clients flood the sign-in form ------------------------------------------------


@dataclass
class SignInFlood:
    pages: Latencies
    answers: dict[int, int]


def run_signin_flood(work: Path, course: Path, files: dict[str, Hand],
                     settings: BenchSettings) -> SignInFlood:  # fmt: skip
    """`flooders` clients (in processes of their own, see service_flood)
    post wrong passwords to /signin for `flood_seconds` while a signed-in
    student's pages are asked for."""
    data, log = work / "data", work / "service.log"
    people = make_people(course, data, ["student"])
    people.cookies = {"student": people.cookies["student"]}
    latencies, answers = Latencies(), dict[int, int]()
    with serving(course, data, settings.jobs, log) as url:
        r = post_upload(url, people.tokens["student"], next(iter(files.values())).data)
        taken = {"student": int(r.json()["id"])}
        student_pages = ("student /me", "student /uploads/ID", "student /uploads/ID/status.json")
        _say(f"sign-in flood: {settings.flooders} clients for {settings.flood_seconds:g} s")
        processes = max(1, min(4, settings.flooders))
        share = -(-settings.flooders // processes)
        with Prober(url, people, taken, latencies, 2, settings.pause, student_pages):
            procs = [subprocess.Popen(
                [sys.executable, "-m", "plpuzzle_lab.service_flood", url,
                 str(min(share, settings.flooders - n * share)), str(settings.flood_seconds),
                 str(n * share)], stdout=subprocess.PIPE, text=True,
                preexec_fn=lambda: os.nice(19))  # they stand for other machines
                for n in range(processes) if n * share < settings.flooders]  # fmt: skip
            for proc in procs:
                out, _ = proc.communicate(timeout=settings.flood_seconds + 300)
                for code, count in json.loads(out or "{}").items():
                    answers[int(code)] = answers.get(int(code), 0) + count
    return SignInFlood(latencies, answers)


# -- the model --------------------------------------------------------------------------------


@dataclass
class Model:
    """The queueing model: its fixed costs, its check against the local
    burst, and its answer for the course."""

    over: service_model.Overheads
    predicted: service_model.Waits | None
    course: dict[str, dict[int, service_model.Waits]]
    mix: list[str]


def split(costs: dict[str, float], public: set[str]) -> tuple[list[float], list[float]]:
    return ([c for t, c in sorted(costs.items()) if t in public],
            [c for t, c in sorted(costs.items()) if t not in public])  # fmt: skip


def scaled(costs: dict[str, float], scale: float) -> dict[str, float]:
    return {t: min(c, service_costs.COURSE_LIMIT) * scale for t, c in costs.items()}


def fit_model(settings: BenchSettings, profiles: dict[str, service_costs.Profile],
              files: dict[str, Hand], tests: set[str], public: set[str],
              graded: Graded | None, flood: Flood | None) -> Model:  # fmt: skip
    """Fixed costs measured apart from the burst (a test's, from `sudoku
    grade`: its CPU less the tests' own; an upload's check and stages,
    from one upload alone that spends nothing on its tests), the burst
    predicted from them, and the course at its real cost (every test)."""

    def bench_costs(kind: str) -> dict[str, float]:
        every = scaled(profiles[kind].costs, settings.scale)
        return {t: c for t, c in every.items() if t in tests}

    work = sum(sum(bench_costs(h.kind).values()) for h in files.values())
    per_test = 0.02
    if graded is not None and graded.seconds is not None:
        per_test = max(0.0, (graded.cpu - work) / (len(files) * len(tests)))
    alone = flood or Flood(None, None, 0, 0, 1.0, 1.0, 1.0)
    over = service_model.Overheads(
        per_test, alone.check, max(0.0, alone.public - len(public) * per_test),
        max(0.0, alone.rest - (len(tests) - len(public)) * per_test),
    )  # fmt: skip
    uploads = [service_model.Upload(login, 0.0, *split(bench_costs(h.kind), public))
               for login, h in files.items()]  # fmt: skip
    predicted = service_model.waits(service_model.simulate(uploads, settings.jobs, over))
    real = replace(over, public=over.public + COURSE_SHRINK, rest=over.rest + COURSE_SHRINK)
    kinds = list(MIX)
    shapes = [split(scaled(profiles[k].costs, 1.0), public) for k in kinds]
    course = {}
    for scenario in service_model.SCENARIOS:
        uploads = service_model.last_day(COURSE_STUDENTS, COURSE_UPLOADS, shapes, scenario)
        course[scenario] = service_model.cores_needed(uploads, real, PUBLIC_P95_GOAL)
    return Model(over, predicted, course, kinds)


# -- the whole run ---------------------------------------------------------------------------


@dataclass
class Figures:
    settings: BenchSettings
    profiles: dict[str, service_costs.Profile]
    mix: dict[str, int]
    tests: int
    public_tests: int
    local: Burst | None
    graded: Graded | None
    cluster: Burst | None
    flood: Flood | None
    signin: SignInFlood | None
    model: Model | None
    loads: dict[str, str]
    machine: list[str]
    code: str
    beside: Beside | None = None


def run(settings: BenchSettings) -> Figures:
    """Every phase in a temporary folder, one after the other."""
    import fnmatch

    machine, code = machine_markdown(), code_version()
    profiles = service_costs.load(settings.costs)
    found = service_replay.puzzles(settings.suite)
    public = {t for t in found if fnmatch.fnmatchcase(t, settings.public)}
    files = class_files(settings, profiles, found)
    loads: dict[str, str] = {}
    local = graded = cluster = flood = signin = model = None
    with tempfile.TemporaryDirectory(prefix="plpuzzle-service-bench-") as tmp:
        work = Path(tmp)
        course = make_course(work / "course", settings)
        if not settings.only_beside:
            local = run_burst(work / "local", course, files, settings, "this machine")
            loads["after the burst here"] = load_text(load_average())
            graded = run_grade(work / "grade", course, files, settings)
            if settings.dask:
                with dask_cluster(settings.jobs) as address:
                    cluster = run_burst(work / "dask", course, files, settings,
                                        f"a local Dask cluster of {settings.jobs} workers",
                                        "--scheduler", address)  # fmt: skip
                loads["after the burst on Dask"] = load_text(load_average())
            flood = (run_flood(work / "flood", make_course, found, settings)
                     if settings.flood else None)  # fmt: skip
            signin = (run_signin_flood(work / "signin", course, files, settings)
                      if settings.signin else None)  # fmt: skip
        beside = (run_beside(work / "beside", make_course, found, settings)
                  if settings.loopers else None)  # fmt: skip
        loads["at the end"] = load_text(load_average())
    if not settings.only_beside:
        model = fit_model(settings, profiles, files, set(found), public, graded, flood)
    mix: dict[str, int] = {}
    for hand in files.values():
        mix[hand.kind] = mix.get(hand.kind, 0) + 1
    return Figures(settings, profiles, mix, len(found), len(public), local, graded, cluster,
                   flood, signin, model, loads, machine, code, beside)  # fmt: skip


def code_version() -> str:
    """The commit measured, and the files changed since."""

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


# -- the report ------------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _s(seconds: float | None) -> str:
    if seconds is None or math.isnan(seconds):
        return "-"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.1f} min" if seconds >= 120 else f"{seconds:.1f} s"


def _yes(met: bool | None) -> str:
    return "n/a" if met is None else "yes" if met else "**NO**"


def _three(values: list[float]) -> str:
    """p50 / p95 / max of some seconds."""
    if not values:
        return "- / - / -"
    return " / ".join(_s(v) for v in (percentile(values, 0.5), percentile(values, 0.95),
                                       max(values)))  # fmt: skip


def settings_lines(f: Figures) -> list[str]:
    s = f.settings
    kinds = sorted(f.profiles, key=lambda k: f.profiles[k].total)
    rows = [f"| {k} | {f.profiles[k].words} | {f.profiles[k].total / 60:.0f} | "
            f"{f.profiles[k].timeouts} | {f.mix.get(k, 0)} |" for k in kinds]  # fmt: skip
    return [
        "## What was measured",
        "",
        f"- The course: the official suite ({f.tests} tests, `oddsum`), {f.public_tests} of them "
        f"public (`{s.public}`), {s.time_limit:g} s of CPU a test; no counterexample search "
        "(`shrink_seconds = 0`).",
        f"- The hand-ins: replay solvers that spend on each test what a kind of student solver "
        f"spent on it (bench/service-costs.json, `python -m plpuzzle_lab service-costs`), at "
        f"most the course's 120 s, times {s.scale:g}, then fail (so no test reaches the "
        "bench's limit: a timeout's reload of the hand-in, nothing beside 120 s, would weigh "
        "here). Each student's file is unique (a comment names them):",
        "",
        "| kind | solver | CPU-min an upload at 120 s a test | tests out of time | students |",
        "|---|---|---:|---:|---:|",
        *rows,
        "",
        f"- {s.students} students upload at once (a thread each) through the JSON API to a real "
        f"`plpuzzle sudoku serve --jobs {s.jobs}`, first grading here, then on a local Dask "
        f"cluster of {s.jobs} one-slot workers (`plpuzzle cluster local`), while {s.probers} "
        f"threads ask for pages ({s.pause:g} s apart each). An upload's waits run from its "
        "arrival (its time in the service's database) to its public results and to all of "
        "them. The CPU is the whole machine's busy time over the phase (/proc/stat).",
        f"- `plpuzzle sudoku grade --jobs {s.jobs}` then grades the same files, for the ratio.",
        f"- Code: {f.code}.",
        "",
        "### Machine",
        "",
        *f.machine,
        *(f"- Load average {when}: {load}" for when, load in f.loads.items()),
        "",
    ]


def burst_lines(f: Figures) -> list[str]:
    bursts = [b for b in (f.local, f.cluster) if b is not None]
    lines = [
        f"## {f.settings.students} uploads at once",
        "",
        "| grading on | taken | graded once | to public results p50 / p95 / max | "
        "to all results p50 / p95 / max | first upload to last graded | CPU used |",
        "|---|---:|---:|---|---|---:|---:|",
    ]
    for b in bursts:
        waits = f"{_three(list(b.public.values()))} | {_three(list(b.full.values()))}"
        lines.append(f"| {b.where} | {b.accepted} | {b.graded_once} | {waits} | "
                     f"{_s(b.seconds)} | {b.cpu:.0f} s |")  # fmt: skip
    for b in bursts:
        lines += [f"- {b.where}: refused: {why}" for why in b.refused]
        if b.log_errors:
            lines.append(f"- {b.where}: {b.log_errors} traceback(s) in the service's log")
    lines.append("")
    if f.local is not None:
        lines += page_lines(f.local.pages, "Pages while the class grades (this machine)")
    lines += throughput_lines(f)
    return lines


def page_lines(
    pages: Latencies, title: str, kinds: tuple[str, ...] = (*PAGES, UPLOAD_KIND)
) -> list[str]:
    lines = [f"### {title}", "", "| page | requests | failed | p50 | p95 | max |",
             "|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    for kind in kinds:
        seconds, failed = pages.seconds.get(kind, []), pages.errors.get(kind, 0)
        if seconds:
            figures = (f"{_ms(percentile(seconds, 0.5))} | {_ms(percentile(seconds, 0.95))} | "
                       f"{_ms(max(seconds))}")  # fmt: skip
        else:
            figures = "- | - | -"
        lines.append(f"| {kind} | {len(seconds)} | {failed} | {figures} |")
    return [*lines, ""]


def throughput_ratio(f: Figures) -> float | None:
    if f.local is None or f.local.seconds is None or f.graded is None or f.graded.seconds is None:
        return None
    return f.graded.seconds / f.local.seconds


def throughput_lines(f: Figures) -> list[str]:
    lines = ["### Throughput beside `sudoku grade`", "",
             "| how | wall | CPU used |", "|---|---:|---:|"]  # fmt: skip
    if f.local is not None:
        lines.append(f"| the service here, first upload to last graded | {_s(f.local.seconds)} | "
                     f"{f.local.cpu:.0f} s |")  # fmt: skip
    if f.graded is not None:
        lines.append(f"| `plpuzzle sudoku grade`, the whole command | {_s(f.graded.seconds)} | "
                     f"{f.graded.cpu:.0f} s |")  # fmt: skip
    ratio = throughput_ratio(f)
    if ratio is not None:
        lines += ["", f"The service graded at {ratio:.0%} of the rate of `sudoku grade`."]
    if f.local is not None and f.graded is not None:
        agree = sum(f.local.scores.get(k) == v for k, v in f.graded.scores.items())
        lines.append(f"The scores agree for {agree} of {len(f.graded.scores)} students.")
    return [*lines, ""]


def flood_lines(f: Figures) -> list[str]:
    if f.flood is None:
        return []
    fl = f.flood
    ratio = (fl.flooded / fl.idle) if fl.idle and fl.flooded is not None else None
    return [
        "## One student floods",
        "",
        "The victim hands in a file that spends nothing on its tests, alone on an idle "
        "service (after one to warm it up), then again right after the flooder sent "
        f"{fl.sent} files (slow-loading and looping, one after the other; the hourly limit of "
        f"12 kept {fl.kept}). Alone, the upload took {fl.check:.2f} s of CPU for its load "
        f"check, {fl.public:.2f} s for its public stage and {fl.rest:.2f} s for the other "
        "(the whole machine's). Upload to public results:",
        "",
        "| | upload to public results |",
        "|---|---:|",
        f"| alone | {_s(fl.idle)} |",
        f"| while the flooder's uploads grade | {_s(fl.flooded)} |",
        "",
        "" if ratio is None else f"The flood made it {ratio:.1f} times as long.",
        "",
    ]


BESIDE_TITLE = "## A well-behaved student beside looping students"


def beside_lines(f: Figures) -> list[str]:
    b = f.beside
    if b is None:
        return []
    ratio = (b.beside / b.alone) if b.alone and b.beside is not None else None
    turns = "-" if b.turns is None else f"{b.turns} (at most {b.most} of one student)"
    return [
        BESIDE_TITLE,
        "",
        "A student whose file spends nothing on its tests uploads twice, the second time "
        "right after the first's public results (so the scheduler served them a moment ago), "
        f"on an idle `serve --jobs {b.jobs}`; then {b.loopers} students upload files that "
        f"loop on every test ({f.settings.loop_limit:g} s of CPU a test, so each public "
        "stage takes its whole limit on every public test), and the same student uploads "
        "twice again. The second upload's wait from its arrival to its public results, and "
        "the turns of other students it waited for (checks and public tests, from the "
        "scheduler's record `GET /api/turns`: from its request to its last turn of rank 0). "
        f"The bound: one turn of each other student, {b.loopers} here.",
        "",
        "| the second upload | to public results | turns of others waited for |",
        "|---|---:|---:|",
        f"| alone | {_s(b.alone)} | 0 |",
        f"| beside {b.loopers} looping students | {_s(b.beside)} | {turns} |",
        "",
        f"The first upload beside the loopers (sent right after theirs) took {_s(b.first)}.",
        "",
        (
            f"Beside the loopers it took {ratio:.1f} times as long"
            if ratio is not None
            else "No ratio (an upload was not graded in time)"
        )
        + f"; code: {f.code}; load average at the end: {f.loads.get('at the end', '-')}.",
        "",
    ]


def signin_lines(f: Figures) -> list[str]:
    if f.signin is None:
        return []
    answers = ", ".join(f"{n} answered {code}" for code, n in sorted(f.signin.answers.items()))
    kinds = ("student /me", "student /uploads/ID", "student /uploads/ID/status.json")
    return [
        "## Anonymous clients flood the sign-in form",
        "",
        f"{f.settings.flooders} clients, each from an address of its own (X-Forwarded-For, "
        "which the service trusts from a proxy on loopback) and on a login of its own, post "
        f"wrong passwords to /signin for {f.settings.flood_seconds:g} s, as fast as they are "
        f"answered, each taking the form's token from the last page as a browser does "
        f"({answers}), while a signed-in student's pages are asked for.",
        "",
        *page_lines(f.signin.pages, "A student's pages during the flood", kinds),
    ]


def model_lines(f: Figures) -> list[str]:
    m = f.model
    if m is None:
        return []
    o = m.over
    lines = [
        "## How many cores: the queueing model",
        "",
        "service_model.py replays the service's policy one test at a time: load checks and "
        "public stages first, oldest first; then the other tests round-robin between "
        "students; a newer upload replaces the student's older ones still waiting. Its fixed "
        f"costs, measured apart from the burst: {o.test * 1000:.0f} ms of CPU a test (from "
        "`sudoku grade`: its CPU less the tests' own), and for an upload "
        f"{o.check:.2f} s for its load check, {o.public:.2f} s for its public stage and "
        f"{o.rest:.2f} s for the other (from one upload that spends nothing on its tests, "
        "alone on an idle service, less its tests' fixed costs). It leaves out the pages' "
        "own cost.",
        "",
    ]
    if m.predicted is not None and f.local is not None:
        p, b = m.predicted, f.local
        lines += [
            f"Checked against the burst above (the same files and costs, {f.settings.jobs} cores):",
            "",
            "| | to public results p50 / p95 / max | to all results p50 / p95 / max |",
            "|---|---|---|",
            f"| measured | {_three(list(b.public.values()))} | {_three(list(b.full.values()))} |",
            f"| the model | {_three(p.public)} | {_three(p.full)} |",
            "",
        ]
    lines += [
        f"At the course's real cost ({COURSE_STUDENTS} students, {COURSE_UPLOADS} uploads each "
        "on the last day, the kinds of hand-in cycled as in the class above, 120 s a test, "
        f"{COURSE_SHRINK:g} s of counterexample search per stage with a failure): the 95th "
        "percentile of the wait, by the number of cores, until the public results' p95 is "
        f"under {PUBLIC_P95_GOAL / 60:.0f} minutes. `spread`: uploads over the whole day; "
        "`rush`: 28 % of them in the last hour; `last hour`: all of them in it.",
        "",
        "| arrivals | cores | to public results p95 | to all results p95 | replaced |",
        "|---|---:|---:|---:|---:|",
    ]
    for scenario, found in m.course.items():
        for cores, w in found.items():
            lines.append(f"| {scenario} | {cores} | {_s(w.p('public', 0.95))} | "
                         f"{_s(w.p('full', 0.95))} | {w.replaced} |")  # fmt: skip
    lines.append("")
    return lines


def goal_lines(f: Figures) -> list[str]:
    rows = []
    if f.signin is not None:
        pages = f.signin.pages.pages()
        p95 = percentile(pages, 0.95) if pages else None
        rows.append((f"a student's pages at p95 under {_ms(PAGE_P95_GOAL)} while "
                     f"{f.settings.flooders} clients flood /signin",
                     "no page asked" if p95 is None else f"p95 {_ms(p95)}",
                     None if p95 is None else p95 < PAGE_P95_GOAL))  # fmt: skip
    if f.flood is not None:
        fl = f.flood
        ok = None if not fl.idle or fl.flooded is None else fl.flooded <= FLOOD_GOAL * fl.idle
        rows.append(
            (
                "another student's public results within twice their idle time while "
                "one student floods",
                f"{_s(fl.flooded)} against {_s(fl.idle)} alone",
                ok,
            )
        )
    ratio = throughput_ratio(f)
    rows.append((f"throughput at least {THROUGHPUT_GOAL:.0%} of `sudoku grade`",
                 "not finished" if ratio is None else f"{ratio:.0%}",
                 None if ratio is None else ratio >= THROUGHPUT_GOAL))  # fmt: skip
    for b in (f.local, f.cluster):
        if b is not None:
            rows.append((f"every upload graded once ({b.where})",
                         f"{b.graded_once} of {f.settings.students}",
                         b.graded_once == f.settings.students))  # fmt: skip
    if f.local is not None and f.local.public:
        rows.append(
            (
                "p95 from upload to public results (written)",
                _s(percentile(list(f.local.public.values()), 0.95)),
                None,
            )
        )
    return ["## Goals", "", "| goal | figure | met |", "|---|---|---|",
            *(f"| {g} | {fig} | {_yes(ok)} |" for g, fig, ok in rows), ""]  # fmt: skip


def markdown(f: Figures) -> str:
    lines = [
        "# The deadline rush, replayed at the course's cost",
        "",
        "Written by `make bench-service` (`python -m plpuzzle_lab service`).",
        "",
        *settings_lines(f),
        *burst_lines(f),
        *flood_lines(f),
        *beside_lines(f),
        *signin_lines(f),
        *model_lines(f),
        *goal_lines(f),
    ]
    return "\n".join(lines)


def graded_once(f: Figures) -> bool:
    return all(b.graded_once == f.settings.students for b in (f.local, f.cluster) if b is not None)


def main(settings: BenchSettings, out: Path | None) -> int:
    """Run, print the report, write it to `out`; 0 when every upload was
    graded exactly once (goals missed are reported, not failed). With
    `only_beside`, only that scenario's section of `out` is written anew."""
    figures = run(settings)
    if settings.only_beside:
        section = "\n".join(beside_lines(figures))
        sys.stdout.write(section)
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(with_section(out.read_text() if out.exists() else "", section))
        return 0
    text = markdown(figures)
    sys.stdout.write(text)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
    return 0 if graded_once(figures) else 1


def with_section(text: str, section: str) -> str:
    """`text` with its scenario section (from its title to the next "## ")
    replaced by `section`, or `section` put before the goals (at the end
    when there are none)."""
    lines = text.splitlines()
    if BESIDE_TITLE in lines:
        start = lines.index(BESIDE_TITLE)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))  # fmt: skip
    else:
        start = end = lines.index("## Goals") if "## Goals" in lines else len(lines)
    joined = "\n".join([*lines[:start], *section.rstrip("\n").splitlines(), "", *lines[end:]])
    return joined + "\n" if text.endswith("\n") else joined
