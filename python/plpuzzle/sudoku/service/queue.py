"""The grading queue: every upload graded by the grader `sudoku grade`
uses, on this machine's cores or a Dask cluster, with the student as the
unit of scheduling.

An upload is first checked (does it load?), then graded in two stages:
its public tests first (what its student sees before the release), then
every other test (the public ones come from the gradebook). A course
whose tests are all public, or none, has the second stage only. The
check and each stage are jobs of this one queue, in turns of one fair
share (grading.scheduling.fair_share), so one rule decides who runs:

- the load check is a job of rank 0, like the public tests: it takes a
  turn of its student's, and the public stage goes on in that turn; a
  student has one check open at a time, their newest upload's;
- a student has one stage open at a time besides, their newest upload's
  first;
- jobs open by rank: checks and public stages (0) before the other
  stages (1) before a teacher's regrades (2), and within a rank in the
  order of the share's rotation between students;
- an open job's runs share the machine's turns with every other's:
  a rotation between students in rounds, a better rank first, one more
  turn kept for rank 0.

The queue is the uploads table itself, so it survives the service: at
start, uploads left checking or running by a service that died are
queued again, and the gradebook that every grading shares holds the
tests already done, so only the rest run. A regrade makes a new attempt
of an upload; a grading of an older attempt is not recorded over it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select, update

from plpuzzle.sudoku import api
from plpuzzle.sudoku.grading.scheduling.fair_share import Cancelled, FairShare, Ticket
from plpuzzle.sudoku.grading.scheduling.local_pool import LocalPool, hidden_paths
from plpuzzle.sudoku.grading.scheduling.protocol import Scheduler
from plpuzzle.sudoku.service.core import Service, place_upload
from plpuzzle.sudoku.service.grades import grade_of
from plpuzzle.sudoku.service.mail import Outbox, results_mail
from plpuzzle.sudoku.service.store import Upload, User, now
from plpuzzle.sudoku.service.uploads import check, queue_unchecked
from plpuzzle.untrusted import one_line

log = logging.getLogger("plpuzzle.service")

#: A grading that raised (plpuzzle's fault) is tried this many times more
#: before its upload is marked failed.
RETRIES = 1
#: Stages open at once: public stages (short), and the others; each open
#: stage is a thread that waits for turns, holding no sandbox meanwhile.
OPEN_PUBLIC = 32
OPEN_OTHER_PER_TURN = 2
#: Upload states of work still to do, and the ranks of the stages.
PENDING = ("checking", "queued", "running")
PUBLIC, OTHER, TEACHER = 0, 1, 2
#: A test's seconds before the gradebook has measured any of this
#: course's tests, and a stage's own seconds beyond its tests (placing the
#: hand-in, loading it, writing the feedback) before one was measured.
DEFAULT_TEST_SECONDS, DEFAULT_STAGE_SECONDS = 2.0, 3.0
#: The gradebook's newest results the measured costs are the mean of.
RECENT_RESULTS = 500
#: How long a stop waits for the open gradings to end (they are cancelled
#: first: a sandbox is killed at its next turn) before it leaves them.
STOP_SECONDS = 10.0
#: The dispatcher goes round every 2 s; /healthz says it is stuck after this.
HEALTH_ROUND = 60.0


@dataclass(frozen=True)
class Job:
    """One stage of one upload's grading, as opened from the queue."""

    upload_id: int
    attempt: int
    login: str
    blob: str
    suffix: str
    fresh: bool
    stage: str
    rank: int
    #: A load check first (then the public stage, in the same turn).
    check: bool = False


@dataclass
class Progress:
    done: int = 0
    total: int = 0
    stage: str = ""


@dataclass
class Open:
    """A stage being graded: its job, its ticket, its thread."""

    job: Job
    ticket: Ticket
    thread: threading.Thread
    started: float = field(default_factory=time.monotonic)


@dataclass(frozen=True)
class Place:
    """Where an upload's next results stand: how many stages of other
    students go first, and the seconds that should take (None: not known
    yet, nothing was graded since the service started)."""

    ahead: int
    seconds: float | None
    #: The stage it waits for: "public" or "rest" ("" : it is not waiting).
    stage: str


class GradingQueue:
    """Opens stages fairly and grades them, until stopped."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.cluster: Any = None
        self.share = FairShare(service.settings.jobs)
        self.progress: dict[int, Progress] = {}
        self.graded_tests = 0
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._open: dict[int, Open] = {}
        #: Whether stages are graded (else only load checks run).
        self.grading = True
        #: upload -> what to call when its load check ends (see when_checked).
        self._waiters: dict[int, list[Callable[[], None]]] = {}
        #: (upload, attempt) -> gradings of it that raised.
        self._failures: dict[tuple[int, int], int] = {}
        #: Seconds of turns a stage took, and its seconds from start to end,
        #: by rank (running means of this process's gradings), for estimates.
        self._work: dict[int, float] = {}
        self._wall: dict[int, float] = {}
        self._test_costs: tuple[float, dict[str, float]] = (-math.inf, {})
        self._threads: list[threading.Thread] = []
        #: When the dispatcher last went round without an error (health).
        self.last_round: float | None = None
        self._hidden = hidden_paths(service.suite, service.data)
        #: Where results are mailed to the students who asked (set by the web app).
        self.outbox: Outbox | None = None

    # -- running ------------------------------------------------------------

    def connect(self) -> None:
        """With a Dask scheduler, connect to it and admit its workers
        (ClusterError when it cannot grade); nothing without one."""
        if self.service.settings.scheduler is not None and self.cluster is None:
            self._connect()

    def start(self, grading: bool = True) -> None:
        """Run the queue; without `grading`, uploads are checked and stay queued."""
        self.grading = grading
        self.requeue()
        if grading:
            self.connect()
        targets = [self._dispatch] + ([self._watch_cluster] if self.cluster is not None else [])
        self._threads = [threading.Thread(target=t, name=t.__name__, daemon=True)
                         for t in targets]  # fmt: skip
        for thread in self._threads:
            thread.start()

    def stop(self, seconds: float = STOP_SECONDS) -> None:
        """Stop opening stages, cancel the open ones and put them back in
        the queue at once (another process on the database takes them
        now, this one at its next start; the gradebook keeps what they
        did). Waits `seconds` at most for the gradings to end."""
        self._stop.set()
        self.wake()
        with self._lock:
            running = list(self._open.values())
        for held in running:
            held.ticket.cancel()
        with self._lock:
            waited = list(self._waiters)
        for upload_id in waited:
            self._checked(upload_id)
        until = time.monotonic() + seconds
        for thread in [*self._threads, *(h.thread for h in running)]:
            thread.join(timeout=max(0.0, until - time.monotonic()))
        if self.cluster is not None:
            self.cluster.close()
        try:
            self.requeue(own=True)
        except Exception:  # the database away: the next start takes them back
            log.exception("putting the open gradings back in the queue failed")

    def alive(self) -> str:
        """Why grading does not run ("" when it does): the queue stopped,
        its dispatcher gone, or not round for HEALTH_ROUND seconds; a
        queue that only checks uploads does not grade."""
        if self._stop.is_set() or not self._threads or not self.grading:
            return "grading is not running"
        if not self._threads[0].is_alive():
            return "the grading dispatcher has ended"
        if self.last_round is None or time.monotonic() - self.last_round > HEALTH_ROUND:
            return f"the grading dispatcher has not gone round for {HEALTH_ROUND:g} s"
        if self.share.capacity <= 0:
            return "no cores to grade on (the cluster has no worker)"
        return ""

    def wake(self) -> None:
        """Something may be waiting to open (an upload checked, a regrade)."""
        self._wake.set()

    def requeue(self, own: bool = False) -> int:
        """Uploads that a dead service process left checking or running go
        back to the queue (those of a process still alive, this one or one
        beside it on the same database, stay its own); with `own`, this
        process's, as it stops."""
        me = self.service.owner
        with self.service.store.session() as db:
            rows = db.execute(select(Upload.id, Upload.claimed_by, Upload.heartbeat)
                              .where(Upload.state.in_(("running", "checking")))).all()  # fmt: skip
            dead = [i for i, owner, beat in rows
                    if (owner == me if own else
                        owner != me and self.service.claim_is_dead(owner, beat))]  # fmt: skip
            if dead:
                db.execute(update(Upload).where(Upload.id.in_(dead),
                                                Upload.state.in_(("running", "checking")))
                           .values(state="queued", claimed_by=None))  # fmt: skip
        return len(dead)

    def heartbeat(self) -> None:
        """Say that this process still works on what it claimed."""
        with self.service.store.session() as db:
            db.execute(update(Upload).where(Upload.claimed_by == self.service.owner,
                                            Upload.state.in_(("running", "checking")))
                       .values(heartbeat=now()))  # fmt: skip

    def _dispatch(self) -> None:
        beat = 0.0
        while not self._stop.is_set():
            self._wake.clear()
            try:
                if time.monotonic() - beat > 30:  # and take over a dead process's work
                    beat = time.monotonic()
                    self.heartbeat()
                    self.requeue()
                self.open_ready()
                self.last_round = time.monotonic()
            except Exception:  # the database away for a moment: try again soon
                log.exception("opening stages failed")
            self._wake.wait(timeout=2.0)

    # -- opening stages -----------------------------------------------------

    def rank(self, upload: Upload) -> int:
        if upload.regrade:
            return TEACHER
        first = upload.stage == "public" or self.service.all_public()
        return PUBLIC if first else OTHER

    def open_ready(self) -> list[int]:
        """Open the jobs whose turn to start has come: the load checks of
        this process's new uploads, and the stages queued; their uploads."""
        with self.service.store.session() as db:
            rows = db.execute(
                select(Upload, User.login).join(User, User.id == Upload.user_id)
                .where((Upload.state == "queued") | ((Upload.state == "checking")
                                                     & (Upload.claimed_by == self.service.owner)))
                .order_by(Upload.id)
            ).all()  # fmt: skip
        with self._lock:
            busy = {held.job.login for held in self._open.values() if not held.job.check}
            checking = {held.job.login for held in self._open.values() if held.job.check}
            opened_ids = set(self._open)
            counts = [sum(1 for h in self._open.values() if (h.job.rank == PUBLIC) == public)
                      for public in (True, False)]  # fmt: skip
        best: dict[tuple[str, bool], tuple[int, Upload]] = {}
        for upload, login in rows:
            check = upload.state == "checking"
            if upload.id in opened_ids or login in (checking if check else busy):
                continue
            if not check and not self.grading:
                continue
            rank = PUBLIC if check else self.rank(upload)
            mine = best.get((login, check))
            if mine is None or (rank, -upload.id) < (mine[0], -mine[1].id):
                best[(login, check)] = (rank, upload)
        order = sorted(best.items(), key=lambda item: (
            item[1][0], self.share.standing(item[0][0], item[1][0]), item[1][1].id))  # fmt: skip
        limits = (OPEN_PUBLIC, max(2, OPEN_OTHER_PER_TURN * self.share.capacity))
        opened = []
        for (login, check), (rank, upload) in order:
            kind = 0 if rank == PUBLIC else 1
            if counts[kind] >= limits[kind] or self._stop.is_set():
                continue
            if self._claim(upload, login, rank, check):
                counts[kind] += 1
                opened.append(upload.id)
        return opened

    def _claim(self, upload: Upload, login: str, rank: int, check: bool = False) -> bool:
        """Mark a queued upload running (a checking one stays so: its
        process owns it) and start its job's thread."""
        if not check and not self._mark_running(upload.id, upload.attempt):
            return False
        job = self._job(upload, login, rank, check)
        ticket = self.share.ticket(login, rank, order=upload.id)
        thread = threading.Thread(target=self._run, args=(job, ticket),
                                  name=f"grading-{upload.id}", daemon=True)  # fmt: skip
        with self._lock:
            self._open[upload.id] = Open(job, ticket, thread)
        thread.start()
        return True

    def _mark_running(self, upload_id: int, attempt: int) -> bool:
        with self.service.store.session() as db:
            claimed = db.execute(
                update(Upload).where(Upload.id == upload_id, Upload.state == "queued",
                                     Upload.attempt == attempt)
                .values(state="running", claimed_by=self.service.owner, heartbeat=now())
            ).rowcount  # type: ignore[attr-defined]  # fmt: skip
        return bool(claimed)

    def _job(self, upload: Upload, login: str, rank: int, check: bool = False) -> Job:
        stage = upload.stage if upload.stage in self.service.stages() else "rest"
        return Job(upload.id, upload.attempt, login, upload.blob, upload.suffix, upload.fresh,
                   stage, rank, check)  # fmt: skip

    # -- load checks ------------------------------------------------------------

    def when_checked(self, upload_id: int, callback: Callable[[], None]) -> None:
        """Call `callback` (from some thread) once the upload's load check
        ended, or at once if it is not waiting for one any more."""
        with self._lock:
            self._waiters.setdefault(upload_id, []).append(callback)
        with self.service.store.session() as db:
            state = db.scalar(select(Upload.state).where(Upload.id == upload_id))
        if state != "checking":
            self._checked(upload_id)

    def forget(self, upload_id: int, callback: Callable[[], None]) -> None:
        """No more interest in that upload's check (its answer was given)."""
        with self._lock:
            waiting = self._waiters.get(upload_id, [])
            if callback in waiting:
                waiting.remove(callback)
            if not waiting:
                self._waiters.pop(upload_id, None)

    def _checked(self, upload_id: int) -> None:
        with self._lock:
            callbacks = self._waiters.pop(upload_id, [])
        for callback in callbacks:
            callback()

    def _check(self, job: Job, ticket: Ticket) -> Job | None:
        """The upload's load check, in a turn of its student's; then, when
        its public stage is next and grading runs, that stage's job, to go
        on in the same turn (None: the job is done)."""
        turn = ticket.wait_turn()
        try:
            check(self.service, job.upload_id)
        except Exception:  # the check's fault, never the upload's: grading will load it
            log.exception("the load check of upload %d failed", job.upload_id)
            queue_unchecked(self.service, job.upload_id)
        finally:
            self._checked(job.upload_id)
            self.wake()
        if self.grading and not ticket.cancelled:
            with self.service.store.session() as db:
                upload = db.get(Upload, job.upload_id)
                if upload is not None:
                    db.expunge(upload)
            if (upload is not None and upload.state == "queued" and self.rank(upload) == PUBLIC
                    and self._mark_running(upload.id, upload.attempt)):  # fmt: skip
                ticket.keep(turn)
                return self._job(upload, job.login, PUBLIC)
        turn.end()
        return None

    def _run(self, job: Job, ticket: Ticket) -> None:
        try:
            started = time.monotonic()
            if job.check:
                staged = self._check(job, ticket)
                if staged is None:
                    return
                with self._lock:
                    if (held := self._open.get(job.upload_id)) is not None:
                        held.job = job = staged
            self.grade(job, ticket)
            self._learn(job.rank, ticket.used, time.monotonic() - started)
        except Cancelled:
            pass  # replaced, regraded or stopped: the row says which already
        except Exception as e:  # plpuzzle's fault: said on the upload, the queue goes on
            if ticket.cancelled:
                pass
            else:
                log.exception("grading upload %d failed", job.upload_id)
                self._failed(job, one_line(f"{type(e).__name__}: {e}", 300))
        finally:
            ticket.release()
            with self._lock:
                self._open.pop(job.upload_id, None)
            self.progress.pop(job.upload_id, None)
            self.wake()

    def _learn(self, rank: int, seconds: float, wall: float) -> None:
        """Running means of the turn-seconds a stage of that rank takes
        (what it costs the others) and of its seconds from start to end."""
        with self._lock:
            for kept, value in ((self._work, seconds), (self._wall, wall)):
                old = kept.get(rank)
                kept[rank] = value if old is None else 0.8 * old + 0.2 * value

    def stage_cost(self, rank: int) -> tuple[float, float]:
        """What a stage of `rank` costs: its turn-seconds (the slots it
        holds) and its seconds from start to end. Measured on this
        process's gradings once there are some; before, from the
        gradebook's recent run times of the stage's tests (the mean of
        each test's, DEFAULT_TEST_SECONDS for a test never run)."""
        with self._lock:
            work, wall = self._work.get(rank), self._wall.get(rank)
        if work is not None and wall is not None:
            return work, wall
        public = set(self.service.course.public_tests)
        tests = [t for t in self.service.tests
                 if rank == TEACHER or (t in public) == (rank == PUBLIC)
                 or self.service.stages() == ("rest",)]  # fmt: skip
        costs = self._measured_tests()
        work = sum(costs.get(t, DEFAULT_TEST_SECONDS) for t in tests)
        slots = 1 if rank == PUBLIC else max(1, self.service.settings.jobs)
        return work, work / slots + DEFAULT_STAGE_SECONDS

    def _measured_tests(self) -> dict[str, float]:
        """Each test's mean wall seconds in the gradebook's newest results
        (read again at most once a minute)."""
        read, costs = self._test_costs
        if time.monotonic() - read < 60:
            return costs
        costs = {}
        query = ("SELECT test, AVG(wall_seconds) FROM (SELECT test, wall_seconds FROM results "
                 "ORDER BY rowid DESC LIMIT ?) GROUP BY test")  # fmt: skip
        try:
            where = f"file:{self.service.gradebook}?mode=ro"
            with contextlib.closing(sqlite3.connect(where, uri=True, timeout=5)) as db:
                costs = {t: float(s) for t, s in db.execute(query, (RECENT_RESULTS,))}
        except sqlite3.Error:
            pass  # no gradebook yet: the defaults
        self._test_costs = (time.monotonic(), costs)
        return costs

    def _failed(self, job: Job, error: str) -> None:
        """Queue a grading that raised again, RETRIES times; then mark it failed."""
        key = (job.upload_id, job.attempt)
        self._failures[key] = self._failures.get(key, 0) + 1
        if self._failures[key] > RETRIES:
            self._record(job, state="failed", error=error)
            return
        same = (Upload.id == job.upload_id, Upload.attempt == job.attempt,
                Upload.state == "running")  # fmt: skip
        with self.service.store.session() as db:
            db.execute(update(Upload).where(*same).values(state="queued"))

    # -- grading one stage --------------------------------------------------

    def scheduler(self, ticket: Ticket, stage: str) -> Scheduler:
        """Where a stage's runs go: this machine's sandboxes or the cluster,
        in turns of `ticket`. The public stage's few tests take one job slot
        (a second would load the hand-in again for little)."""
        if self.cluster is not None:
            from plpuzzle.sudoku.grading.scheduling.on_dask import DaskCluster

            address = self.service.settings.scheduler or ""
            return DaskCluster(address, ticket=ticket, client=self.cluster)
        slots = 1 if stage == "public" else self.service.settings.jobs
        return LocalPool(slots, self._hidden, ticket=ticket)

    def grade(self, job: Job, ticket: Ticket) -> None:
        """Grade one stage of one upload, into its reports folder."""
        service, course = self.service, self.service.course
        out = service.reports_folder(job.upload_id, job.attempt, job.stage)
        shutil.rmtree(out, ignore_errors=True)  # a grading cut short: its reports are redone
        progress = self.progress.setdefault(job.upload_id, Progress(stage=job.stage))
        with tempfile.TemporaryDirectory(prefix="plpuzzle-grade-") as tmp:
            folder = Path(tmp) / "class"
            place_upload(service, job.blob, job.suffix, job.login, folder)
            public = job.stage == "public"
            outcome = api.grade(
                folder, service.suite, out=out, db=service.gradebook, jobs=1,
                scheduler=self.scheduler(ticket, job.stage),
                students=(job.login,) if job.fresh else (), similarity=False,
                shrink_seconds=course.shrink_seconds, requirements=not public,
                tests=course.public_tests if public else (),
                finishing=ticket.turn, on_start=self._ticker(progress),
                language=course.language, languages=self._language_of(job.login),
            )  # fmt: skip
        if ticket.cancelled:
            raise Cancelled
        row = outcome.report["students"][0]
        shown = [r for r in row["results"] if course.is_public(r["test"])]
        sums = {"public_score": sum(r["earned"] for r in shown),
                "public_max": sum(r["points"] for r in shown)}  # fmt: skip
        where = str(out.relative_to(service.data))
        if job.stage == "public":
            self._record(job, state="queued", stage="rest", early=where, public_graded=now(),
                         **sums)  # fmt: skip
        else:
            public_graded = {} if job.rank != PUBLIC else {"public_graded": now()}
            self._record(job, state="done", score=row["score"], max_score=row["max_score"],
                         reports=where, **sums, **public_graded)  # fmt: skip
        (out / "upload.json").write_text(json.dumps({"upload": job.upload_id}) + "\n")
        self._mail_results(job, public_only=job.stage == "public")

    def _language_of(self, login: str) -> dict[str, str]:
        """A student's own choice of language, if any (their feedback's)."""
        with self.service.store.session() as db:
            chosen = db.scalar(select(User.language).where(User.login == login))
        return {login: chosen} if chosen else {}

    def _mail_results(self, job: Job, public_only: bool) -> None:
        """Mail a student who asked for it the results they may see now
        (the public ones first, every test's once released): their grade
        on the upload as its page shows it, once the stage is recorded.
        Before the release the whole grading mails again only for what
        the course requirements take off, which the student sees then."""
        if self.outbox is None or self.service.mail is None:
            return
        with self.service.store.session() as db:
            user = db.scalar(select(User).where(User.login == job.login))
            upload = db.get(Upload, job.upload_id)
        if user is None or upload is None or not user.mail_results:
            return
        if upload.attempt != job.attempt:
            return  # regraded meanwhile: the new grading mails
        grade = grade_of(self.service, job.login, upload, self.service.released())
        if not public_only and not grade.complete and grade.requirements is None:
            return  # nothing new to see before the release: the public results were mailed
        base = (self.service.settings.url or user.mail_base or "").rstrip("/")
        subject, body = results_mail(self.service, user, upload, grade, base)
        self.outbox.put(self.service.address_of(user), subject, body, "results")

    def _ticker(self, progress: Progress) -> Callable[[int], Callable[[bool], None]]:
        def on_start(total: int) -> Callable[[bool], None]:
            progress.total, progress.done = total, 0

            def tick(fresh: bool) -> None:
                with self._lock:  # the stages count together
                    progress.done += 1
                    self.graded_tests += fresh

            return tick

        return on_start

    def _record(self, job: Job, state: str, **values: object) -> None:
        """Record a stage's end, unless the upload was regraded or
        replaced meanwhile."""
        with self.service.store.session() as db:
            upload = db.get(Upload, job.upload_id)
            if upload is None or upload.attempt != job.attempt or upload.state != "running":
                return
            upload.state = state
            upload.fresh = False
            upload.graded = now()
            for key, value in values.items():
                setattr(upload, key, value)
        self.wake()

    # -- what teachers and students do ----------------------------------------

    def regrade(self, upload_ids: list[int]) -> int:
        """Grade these uploads again from scratch (a teacher's action, also
        on an upload that was replaced before it was graded)."""
        first = self.service.stages()[0]
        with self.service.store.session() as db:
            uploads = list(db.scalars(select(Upload).where(Upload.id.in_(upload_ids))))
            for upload in uploads:
                upload.attempt += 1
                upload.state = "queued"
                upload.stage = first
                upload.fresh = True
                upload.regrade = True
                upload.error = ""
        self.cancel(upload_ids)
        self.wake()
        return len(uploads)

    def cancel(self, upload_ids: list[int]) -> None:
        """Stop grading these uploads (replaced by newer ones, or regraded)."""
        with self._lock:
            for upload_id in upload_ids:
                if (held := self._open.get(upload_id)) is not None:
                    held.ticket.cancel()
        for upload_id in upload_ids:  # a replaced upload's check is not waited for
            self._checked(upload_id)

    # -- what the pages show --------------------------------------------------

    def place(self, upload: Upload) -> Place:
        """How many stages of other students go before this upload's next
        results, and about how long that takes."""
        if upload.state not in PENDING:
            return Place(0, None, "")
        with self.service.store.session() as db:
            rows = db.execute(
                select(Upload, User.login).join(User, User.id == Upload.user_id)
                .where(Upload.state.in_(PENDING), Upload.user_id != upload.user_id)
            ).all()  # fmt: skip
        mine = (self.rank(upload), upload.created)
        with self._lock:
            opened = {h.job.upload_id: h for h in self._open.values()}
        ahead_ranks = []
        firsts: dict[str, tuple[int, Any]] = {}
        for other, login in rows:
            key = (self.rank(other), other.created)
            if login not in firsts or key < firsts[login]:
                firsts[login] = key
        for login, key in firsts.items():
            held = next((h for h in opened.values() if h.job.login == login), None)
            running = held is not None and held.ticket.used > 0
            if running or key < mine:
                ahead_ranks.append(key[0])
        seconds = None
        if self.share.capacity > 0:
            ahead = sum(self.stage_cost(r)[0] for r in ahead_ranks)
            seconds = ahead / self.share.capacity + self.stage_cost(mine[0])[1]
        return Place(len(ahead_ranks), seconds, upload.stage)

    def queue_by_student(self) -> list[dict[str, Any]]:
        """Every student with work in the queue, for the status page."""
        with self.service.store.session() as db:
            rows = db.execute(
                select(Upload, User.login).join(User, User.id == Upload.user_id)
                .where(Upload.state.in_(PENDING)).order_by(Upload.id)
            ).all()  # fmt: skip
        share = self.share.snapshot()
        running: dict[str, int] = share["running"]  # type: ignore[assignment]
        waiting: dict[str, int] = share["waiting"]  # type: ignore[assignment]
        out: dict[str, dict[str, Any]] = {}
        for upload, login in rows:
            entry = out.setdefault(login, {"login": login, "uploads": [], "since": upload.created,
                                           "turns": running.get(login, 0),
                                           "waiting": waiting.get(login, 0)})  # fmt: skip
            entry["uploads"].append({"id": upload.id, "number": upload.number,
                                     "state": upload.state, "stage": upload.stage,
                                     "rank": self.rank(upload)})  # fmt: skip
        return sorted(out.values(), key=lambda e: (-e["turns"], e["since"]))

    def rate(self) -> float:
        """Tests graded a minute since the service started."""
        minutes = max((time.monotonic() - self.started) / 60, 1 / 60)
        return self.graded_tests / minutes

    # -- a Dask cluster ---------------------------------------------------------

    def _connect(self) -> None:
        """One client of the cluster for the service's life, its workers
        admitted once (those that join later are checked as they join)."""
        from plpuzzle.cluster.client_side import admit, connect

        address = self.service.settings.scheduler or ""
        self.cluster = connect(address)
        for problem in (admission := admit(self.cluster)).problems() + admission.notes:
            log.warning("%s", problem)
        self.share.set_capacity(self._cluster_size())

    def _cluster_size(self) -> int:
        """Runs the cluster takes at once: its workers' sandbox slots."""
        from plpuzzle.cluster.worker_side import RESOURCE

        workers = self.cluster.scheduler_info().get("workers", {})
        return int(sum(w.get("resources", {}).get(RESOURCE, 0) for w in workers.values()))

    def _watch_cluster(self) -> None:
        """Follow the cluster's size: a worker added is used at once."""
        while not self._stop.wait(1.0):
            try:
                self.share.set_capacity(self._cluster_size())
            except Exception:  # the scheduler away for a moment
                log.exception("reading the cluster's size failed")
