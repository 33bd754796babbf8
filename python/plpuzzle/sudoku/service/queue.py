"""The grading queue: uploads graded one after the other, oldest first,
each by the grader `sudoku grade` uses, on this machine's cores or a Dask
cluster.

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
    """A thread that grades queued uploads until stopped."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.progress: dict[int, Progress] = {}
        self.graded_tests = 0
        self.started = time.monotonic()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.requeue_running()
        self._thread = threading.Thread(target=self._run, name="grading", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def wake(self) -> None:
        """A new upload (or a regrade) is waiting."""
        self._wake.set()

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
                self._wake.wait(timeout=2.0)
                self._wake.clear()
                continue
            try:
                self.grade(job)
            except Exception as e:  # plpuzzle's fault: said on the upload, the queue goes on
                log.exception("grading upload %d failed", job.upload_id)
                self._finish(job, state="failed", error=one_line(f"{type(e).__name__}: {e}", 300))

    def claim(self) -> Job | None:
        """The oldest queued upload, now running."""
        with self.service.store.session() as db:
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
