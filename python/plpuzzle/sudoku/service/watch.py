"""What an administrator watches: whether the service is healthy, and its
figures in Prometheus' text format.

Every figure is read when it is asked for, from the database, the
gradebook and the sign-in guard: nothing is counted twice, several
service processes on one database give the same figures, and a restart
loses none of those the database keeps. The uploads' states and waits
come from one query, so one scrape never counts an upload twice.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
    SummaryMetricFamily,
)
from prometheus_client.registry import Collector
from sqlalchemy import func, select, text

from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.guard import SignInGuard
from plpuzzle.sudoku.service.queue import PENDING, GradingQueue
from plpuzzle.sudoku.service.store import Mail, Upload

#: The bounds of the wait histograms, in seconds (+Inf added).
WAIT_BUCKETS = (5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 4 * 3600.0)


@dataclass(frozen=True)
class Health:
    """The answer of /healthz: "" when healthy, else why not."""

    problem: str

    @property
    def ok(self) -> bool:
        return not self.problem


def health(service: Service, queue: GradingQueue) -> Health:
    """Whether the database answers and grading runs."""
    try:
        with service.store.session() as db:
            db.execute(text("SELECT 1"))
    except Exception as e:
        return Health(f"the database does not answer ({type(e).__name__})")
    return Health(queue.alive())


def metrics_text(service: Service, queue: GradingQueue, guard: SignInGuard) -> bytes:
    """The service's figures in Prometheus' text format."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Figures(service, queue, guard))
    return generate_latest(registry)


def _histogram(name: str, doc: str, waits: list[float]) -> HistogramMetricFamily:
    buckets = [(f"{bound:g}", float(sum(1 for w in waits if w <= bound)))
               for bound in WAIT_BUCKETS]  # fmt: skip
    buckets.append(("+Inf", float(len(waits))))
    return HistogramMetricFamily(name, doc, buckets=buckets, sum_value=sum(waits))


class _Figures(Collector):
    def __init__(self, service: Service, queue: GradingQueue, guard: SignInGuard) -> None:
        self.service, self.queue, self.guard = service, queue, guard

    def collect(self) -> Iterator[Metric]:
        yield from self._uploads()
        yield from self._mails()
        yield self._cpu()
        signins = CounterMetricFamily("plpuzzle_signins_throttled",
                                      "Sign-in tries refused (a wait, or the lane full) since "
                                      "this process started")  # fmt: skip
        signins.add_metric([], self.guard.counts["refused"])
        yield signins
        checked = CounterMetricFamily("plpuzzle_signins_checked",
                                      "Passwords checked since this process started")  # fmt: skip
        checked.add_metric([], self.guard.counts["checked"])
        yield checked

    def _uploads(self) -> Iterator[Metric]:
        """Uploads by state and stage, the waits to results, the students
        with an upload: one query, one snapshot."""
        with self.service.store.session() as db:
            rows = db.execute(select(Upload.user_id, Upload.state, Upload.stage,
                                     Upload.regrade, Upload.created, Upload.public_graded,
                                     Upload.graded)).all()  # fmt: skip
        pending = GaugeMetricFamily("plpuzzle_uploads",
                                    "Uploads waiting or being graded, by state (checking, "
                                    "queued, running) and stage (public, rest)",
                                    labels=["state", "stage"])  # fmt: skip
        for state in PENDING:
            for stage in ("public", "rest"):
                count = sum(1 for r in rows if r.state == state and r.stage == stage)
                pending.add_metric([state, stage], count)
        yield pending
        own = [r for r in rows if not r.regrade]  # a teacher's regrade is no student's wait
        public = [(r.public_graded - r.created).total_seconds()
                  for r in own if r.public_graded is not None]  # fmt: skip
        every = [(r.graded - r.created).total_seconds()
                 for r in own if r.state == "done" and r.graded is not None]  # fmt: skip
        yield _histogram("plpuzzle_wait_public_results_seconds",
                         "From an upload's arrival to its public tests' results",
                         public)  # fmt: skip
        yield _histogram("plpuzzle_wait_all_results_seconds",
                         "From an upload's arrival to every test's results", every)  # fmt: skip
        students = GaugeMetricFamily("plpuzzle_students_with_upload",
                                     "Students who have uploaded at least once")  # fmt: skip
        students.add_metric([], len({r.user_id for r in rows}))
        yield students

    def _mails(self) -> Iterator[Metric]:
        with self.service.store.session() as db:
            counts = dict(db.execute(select(Mail.state, func.count()).group_by(Mail.state)).all())
        mails = GaugeMetricFamily("plpuzzle_mails", "Mails of the outbox waiting or failed",
                                  labels=["state"])  # fmt: skip
        for state in ("waiting", "failed"):
            mails.add_metric([state], counts.get(state, 0))
        yield mails

    def _cpu(self) -> Metric:
        """CPU seconds of the gradebook's runs, per test of the course."""
        cpu = SummaryMetricFamily("plpuzzle_grading_cpu_seconds",
                                  "CPU seconds of the graded runs, per test",
                                  labels=["test"])  # fmt: skip
        sums: dict[str, tuple[int, float]] = {}
        if self.service.gradebook.exists():
            book = sqlite3.connect(f"file:{self.service.gradebook}?mode=ro", uri=True, timeout=10)
            try:
                for test, count, seconds in book.execute(
                    "SELECT test, COUNT(*), SUM(cpu_seconds) FROM results GROUP BY test"
                ):
                    sums[test] = (count, seconds or 0.0)
            except sqlite3.OperationalError:  # no results table yet: nothing graded
                pass
            finally:
                book.close()
        for test in self.service.tests:  # the course's tests only: labels stay bounded
            count, seconds = sums.get(test, (0, 0.0))
            cpu.add_metric([test], count_value=count, sum_value=seconds)
        return cpu
