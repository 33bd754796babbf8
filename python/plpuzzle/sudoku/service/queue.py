"""The grading queue: uploads graded oldest first, two at a time (so that
one's steps around its tests, loading and the reports and the feedback's
search, overlap the other's tests), each by the grader `sudoku grade`
uses, on this machine's cores or a Dask cluster.

The queue is the uploads table itself (state queued, then running, then
done), so it survives the service: at start, an upload left running by a
service that died is queued again, and the gradebook it shares with every
grading already holds the tests that were done, so only the rest run.
An upload regraded meanwhile has a new attempt number, and a grading of
an older attempt is not recorded over it.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select, update

from plpuzzle.sudoku import api
from plpuzzle.sudoku.service.core import Service, place_upload
from plpuzzle.sudoku.service.store import Upload, User, now
from plpuzzle.untrusted import one_line

log = logging.getLogger("plpuzzle.service")

#: Uploads graded at once, each with the service's --jobs.
LANES = 2
#: A grading that raised (plpuzzle's fault) is tried this many times more
#: before its upload is marked failed.
RETRIES = 1


@dataclass(frozen=True)
class Job:
    """One upload's grading, as claimed from the queue."""

    upload_id: int
    attempt: int
    login: str
    blob: str
    suffix: str
    fresh: bool


@dataclass
class Progress:
    done: int = 0
    total: int = 0


class GradingQueue:
    """Threads (LANES of them) that grade queued uploads until stopped."""

    def __init__(self, service: Service, lanes: int = LANES) -> None:
        self.service = service
        self.lanes = lanes
        self.progress: dict[int, Progress] = {}
        self.graded_tests = 0
        self.started = time.monotonic()
        self._wake = threading.Condition()
        self._claiming = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        #: (upload, attempt) -> gradings of it that raised.
        self._failures: dict[tuple[int, int], int] = {}

    def start(self) -> None:
        self.requeue_running()
        self._threads = [threading.Thread(target=self._run, name=f"grading-{n}", daemon=True)
                         for n in range(self.lanes)]  # fmt: skip
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.wake()
        for thread in self._threads:
            thread.join(timeout=5)

    def wake(self) -> None:
        """A new upload (or a regrade) is waiting."""
        with self._wake:
            self._wake.notify_all()

    def requeue_running(self) -> int:
        """Uploads a dead service left running go back to the queue."""
        with self.service.store.session() as db:
            result = db.execute(
                update(Upload).where(Upload.state == "running").values(state="queued")
            )
            return int(result.rowcount or 0)  # type: ignore[attr-defined]

    def _run(self) -> None:
        while not self._stop.is_set():
            job = self.claim()
            if job is None:
                with self._wake:
                    self._wake.wait(timeout=2.0)
                continue
            try:
                self.grade(job)
            except Exception as e:  # plpuzzle's fault: said on the upload, the queue goes on
                log.exception("grading upload %d failed", job.upload_id)
                self._failed(job, one_line(f"{type(e).__name__}: {e}", 300))

    def _failed(self, job: Job, error: str) -> None:
        """Queue a grading that raised again, RETRIES times; then mark it failed."""
        key = (job.upload_id, job.attempt)
        self._failures[key] = self._failures.get(key, 0) + 1
        if self._failures[key] > RETRIES:
            self._finish(job, state="failed", error=error)
            return
        same = (Upload.id == job.upload_id, Upload.attempt == job.attempt,
                Upload.state == "running")  # fmt: skip
        with self.service.store.session() as db:
            db.execute(update(Upload).where(*same).values(state="queued"))
        self.progress.pop(job.upload_id, None)

    def claim(self) -> Job | None:
        """The oldest queued upload, now running (one lane claims at a time)."""
        with self._claiming, self.service.store.session() as db:
            upload = db.scalar(
                select(Upload).where(Upload.state == "queued").order_by(Upload.id).limit(1)
            )
            if upload is None:
                return None
            upload.state = "running"
            login = db.get(User, upload.user_id).login  # type: ignore[union-attr]
            return Job(upload.id, upload.attempt, login, upload.blob, upload.suffix, upload.fresh)

    def grade(self, job: Job) -> None:
        """Grade one upload with the grader, into its reports folder."""
        service, course = self.service, self.service.course
        out = service.reports_folder(job.upload_id, job.attempt)
        shutil.rmtree(out, ignore_errors=True)  # a grading cut short: its reports are redone
        progress = self.progress.setdefault(job.upload_id, Progress())
        with tempfile.TemporaryDirectory(prefix="plpuzzle-grade-") as tmp:
            folder = Path(tmp) / "class"
            place_upload(service, job.blob, job.suffix, job.login, folder)
            outcome = api.grade(
                folder, service.suite, out=out, db=service.gradebook,
                jobs=service.settings.jobs, scheduler=service.settings.scheduler,
                students=(job.login,) if job.fresh else (), similarity=False,
                shrink_seconds=course.shrink_seconds,
                feedback_views=(("public", course.public_tests),),
                on_start=self._ticker(progress),
            )  # fmt: skip
        row = outcome.report["students"][0]
        public = [r for r in row["results"] if course.is_public(r["test"])]
        self._finish(
            job, state="done", score=row["score"], max_score=row["max_score"],
            public_score=sum(r["earned"] for r in public),
            public_max=sum(r["points"] for r in public),
            reports=str(out.relative_to(service.data)),
        )  # fmt: skip
        (out / "upload.json").write_text(json.dumps({"upload": job.upload_id}) + "\n")

    def _ticker(self, progress: Progress) -> Callable[[int], Callable[[bool], None]]:
        def on_start(total: int) -> Callable[[bool], None]:
            progress.total, progress.done = total, 0

            def tick(fresh: bool) -> None:
                with self._claiming:  # the lanes count together
                    progress.done += 1
                    self.graded_tests += fresh

            return tick

        return on_start

    def _finish(self, job: Job, state: str, **values: object) -> None:
        """Record a grading's end, unless the upload was regraded meanwhile."""
        with self.service.store.session() as db:
            upload = db.get(Upload, job.upload_id)
            if upload is None or upload.attempt != job.attempt:
                return
            upload.state = state
            upload.fresh = False
            upload.graded = now()
            for key, value in values.items():
                setattr(upload, key, value)
        self.progress.pop(job.upload_id, None)

    def regrade(self, upload_ids: list[int]) -> int:
        """Grade these uploads again from scratch (a teacher's action)."""
        with self.service.store.session() as db:
            uploads = list(db.scalars(select(Upload).where(Upload.id.in_(upload_ids))))
            for upload in uploads:
                upload.attempt += 1
                upload.state = "queued"
                upload.fresh = True
        self.wake()
        return len(uploads)

    def rate(self) -> float:
        """Tests graded a minute since the service started."""
        minutes = max((time.monotonic() - self.started) / 60, 1 / 60)
        return self.graded_tests / minutes
