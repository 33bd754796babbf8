"""Where a class's runs go: the local pool or a Dask cluster, behind one
protocol. The grader builds one `Scheduler` from the request and hands it
the submissions, the cases, the settings and the gradebook's hooks; how
the (submission, test) pairs are spread is the scheduler's business."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from plpuzzle.sudoku.grading.model import GradeSettings, Submission
from plpuzzle.sudoku.grading.scheduling.local_pool import ClassRun, Hooks, grade_class
from plpuzzle.sudoku.services.suite import SuiteCase


class Scheduler(Protocol):
    """Runs every (submission, case) pair the hooks say is still to grade."""

    def run(
        self,
        subs: list[Submission],
        cases: list[SuiteCase],
        settings: GradeSettings,
        hooks: Hooks,
    ) -> ClassRun: ...


@dataclass(frozen=True)
class LocalPool:
    """`jobs` sandboxes at once on this machine (the default)."""

    jobs: int = 1
    #: Folders the sandboxes must not see (the suite, the reports...).
    hidden: list[Path] = field(default_factory=list)

    def run(
        self, subs: list[Submission], cases: list[SuiteCase], settings: GradeSettings, hooks: Hooks
    ) -> ClassRun:
        return grade_class(subs, cases, settings, hooks, self.jobs, self.hidden)


class ClusterUnreachable(Exception):
    """The Dask scheduler could not be reached or used."""


@dataclass(frozen=True)
class DaskCluster:
    """The workers of the Dask scheduler at `address` (tcp://HOST:PORT);
    Dask is imported only here, since it is an optional extra."""

    address: str

    def run(
        self, subs: list[Submission], cases: list[SuiteCase], settings: GradeSettings, hooks: Hooks
    ) -> ClassRun:
        from plpuzzle.cluster.client_side import ClusterError, connect
        from plpuzzle.sudoku.grading.scheduling.on_dask import grade_class_on_cluster

        try:
            with connect(self.address) as client:
                return grade_class_on_cluster(subs, cases, settings, hooks, client)
        except ClusterError as e:
            raise ClusterUnreachable(str(e)) from None
