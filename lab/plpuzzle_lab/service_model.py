"""A queueing model of the service's grading: how long an upload waits for
its public results and for all of them, given the uploads' arrivals,
what each test costs and how many cores grade.

It replays the service's policy one test at a time on `cores` cores that
each take the next piece of work when free (a running test is never cut
short): an upload's load check and public stage first, oldest upload
first; then the other tests, round-robin between the students with some
left; a student's newer upload replaces their older ones still waiting.
Each piece costs its CPU seconds (a test's, plus a fixed cost per test
for starting and judging it; a stage's fixed cost for loading the
hand-in and writing its reports and feedback).

The bench checks it against a measured burst (bench/SERVICE.md), then
uses it at the course's real cost for the question that matters: how
many cores keep the 95th percentile of the wait for public results under
ten minutes for 400 students uploading three times each on the last day.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Overheads:
    """Fixed CPU seconds: per test (starting and judging it), per upload
    for its load check, and per stage (loading the hand-in, writing the
    reports and the feedback)."""

    test: float
    check: float
    public: float
    rest: float


@dataclass
class Upload:
    """One upload as the model sees it."""

    student: str
    arrival: float
    public: list[float]
    rest: list[float]
    public_done: float | None = None
    done: float | None = None
    replaced: bool = False


@dataclass
class _Pending:
    upload: Upload
    #: The pieces of each stage not started yet, in CPU seconds.
    public: deque[float] = field(default_factory=deque)
    rest: deque[float] = field(default_factory=deque)
    #: Pieces of each stage running now.
    running: dict[str, int] = field(default_factory=lambda: {"public": 0, "rest": 0})

    def left(self, what: str) -> deque[float]:
        return self.public if what == "public" else self.rest


def simulate(uploads: list[Upload], cores: int, over: Overheads) -> list[Upload]:
    """Fill in each upload's public_done and done (None: replaced before)."""
    arrivals = sorted(uploads, key=lambda u: u.arrival)
    free = [0.0] * cores  # when each core is free
    heapq.heapify(free)
    public_queue: deque[_Pending] = deque()
    rest_by_student: dict[str, _Pending] = {}
    #: When each student was last served, as a count of pieces handed out.
    served: dict[str, int] = {}
    #: The uploads in rest_by_student by (served, arrival, when they came in):
    #: the next to serve on top. Entries gone stale (served since, replaced,
    #: nothing left) are dropped when they come up, so that a piece costs
    #: log(students), not a scan of them all.
    ready: list[tuple[int, float, int, _Pending]] = []
    came = [0]

    def offer(p: _Pending) -> None:
        came[0] += 1
        heapq.heappush(ready, (served.get(p.upload.student, -1), p.upload.arrival, came[0], p))

    latest: dict[str, _Pending] = {}
    running_out: list[tuple[float, int, _Pending, str]] = []  # (ends, seq, pending, what)
    seq, i, handed = 0, 0, 0

    def admit(until: float) -> None:
        nonlocal i
        while i < len(arrivals) and arrivals[i].arrival <= until:
            u = arrivals[i]
            i += 1
            if (old := latest.get(u.student)) is not None and old.upload.done is None:
                old.upload.replaced = True
                old.public.clear()
                old.rest.clear()
                rest_by_student.pop(u.student, None)
            p = _Pending(u, deque([over.check + over.public, *(c + over.test for c in u.public)]),
                         deque([over.rest, *(c + over.test for c in u.rest)]))  # fmt: skip
            latest[u.student] = p
            public_queue.append(p)

    def next_piece() -> tuple[_Pending, str] | None:
        nonlocal handed
        while public_queue and not public_queue[0].public:
            public_queue.popleft()
        if public_queue:
            return public_queue[0], "public"
        while ready:
            when, _, _, p = ready[0]
            student = p.upload.student
            if (rest_by_student.get(student) is p and p.rest
                    and served.get(student, -1) == when):  # fmt: skip
                break
            heapq.heappop(ready)
        else:
            return None
        handed += 1
        served[student] = handed
        came[0] += 1
        heapq.heapreplace(ready, (handed, p.upload.arrival, came[0], p))
        return p, "rest"

    def ended(until: float) -> None:
        """Pieces that ended by `until`; a stage ends with its last one."""
        while running_out and running_out[0][0] <= until:
            ends, _, p, what = heapq.heappop(running_out)
            p.running[what] -= 1
            if not p.running[what] and not p.left(what):
                _finish(p, what, ends, rest_by_student, offer)

    while True:
        now = heapq.heappop(free)
        ended(now)
        admit(now)
        got = next_piece()
        if got is None:
            upcoming = [t for t in (arrivals[i].arrival if i < len(arrivals) else None,
                                    running_out[0][0] if running_out else None)
                        if t is not None]  # fmt: skip
            if not upcoming:
                break
            heapq.heappush(free, max(now, min(upcoming)))
            continue
        p, what = got
        ends = now + p.left(what).popleft()
        heapq.heappush(free, ends)
        p.running[what] += 1
        seq += 1
        heapq.heappush(running_out, (ends, seq, p, what))
    ended(math.inf)
    return uploads


def _finish(p: _Pending, what: str, ends: float, rest_by_student: dict[str, _Pending],
            offer: Callable[[_Pending], None]) -> None:  # fmt: skip
    """A stage's last piece ended."""
    if p.upload.replaced:
        return
    if what == "public":
        p.upload.public_done = ends
        rest_by_student[p.upload.student] = p
        offer(p)
    else:
        p.upload.done = ends
        rest_by_student.pop(p.upload.student, None)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)] if ordered else math.nan


@dataclass(frozen=True)
class Waits:
    """Seconds from upload to public results and to all results."""

    public: list[float]
    full: list[float]
    replaced: int

    def p(self, which: str, share: float) -> float:
        return percentile(self.public if which == "public" else self.full, share)


def waits(uploads: list[Upload]) -> Waits:
    graded = [u for u in uploads if not u.replaced]
    return Waits(
        [u.public_done - u.arrival for u in graded if u.public_done is not None],
        [u.done - u.arrival for u in graded if u.done is not None],
        sum(u.replaced for u in uploads),
    )


# -- the last day of a course -------------------------------------------------------


def last_day(students: int, uploads_each: int, profiles: list[tuple[list[float], list[float]]],
             scenario: str, seed: int = 1) -> list[Upload]:  # fmt: skip
    """Uploads of a class on the last day (time 0 is 24 h before the
    deadline), each student's profile cycled from `profiles` (their public
    and other tests' costs). Scenarios:

    - "spread": each upload at a uniformly random time of the day;
    - "rush": times before the deadline drawn from an exponential law of
      mean 3 h (28 % of the uploads in the last hour), within the day;
    - "last hour": every upload in the last hour.
    """
    rng = random.Random(seed)
    day = 24 * 3600.0
    out = []
    for n in range(students):
        public, rest = profiles[n % len(profiles)]
        for _ in range(uploads_each):
            if scenario == "spread":
                at = rng.uniform(0, day)
            elif scenario == "rush":
                at = day - min(day, rng.expovariate(1 / (3 * 3600.0)))
            elif scenario == "last hour":
                at = rng.uniform(day - 3600.0, day)
            else:
                raise ValueError(f"unknown scenario {scenario!r}")
            out.append(Upload(f"s{n}", at, list(public), list(rest)))
    return out


SCENARIOS = ("spread", "rush", "last hour")


def fresh(uploads: list[Upload]) -> list[Upload]:
    """The same uploads, not simulated yet."""
    return [Upload(u.student, u.arrival, list(u.public), list(u.rest)) for u in uploads]


#: The numbers of cores the model tries.
CORES = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def cores_needed(uploads: list[Upload], over: Overheads, goal: float,
                 choices: tuple[int, ...] = CORES) -> dict[int, Waits]:  # fmt: skip
    """The waits at each number of cores, up to the first that meets `goal`
    (the 95th percentile of the wait for public results, in seconds)."""
    found: dict[int, Waits] = {}
    for cores in choices:
        found[cores] = waits(simulate(fresh(uploads), cores, over))
        if found[cores].p("public", 0.95) <= goal:
            break
    return found
