"""Grading a class on a Dask cluster: the same grades, from other machines.

The local pool (local_pool.grade_class) and this module take the same
submissions, cases, settings and hooks, and give the same grades; only
where the runs happen differs. Here each (submission, test) run is a
Dask task:

- a submission's files and the suite's goals travel as content, put on
  the cluster once under their digests (client_side.ship); the scheduler
  hands them to each worker that needs them, once;
- a worker runs the goal in its sandbox (cluster.worker_side) and sends
  back what it observed; the verdict is decided here, by the client,
  which alone holds the expected solutions;
- every result is recorded here as it arrives, once: a run rescheduled
  after its worker died comes back once, and a late duplicate is
  ignored. The gradebook stays with the client, so resuming works as it
  does locally.

A run whose worker died under it twice is given up by the scheduler
(KilledWorker). As the scheduler gives up on the runs that were merely
waiting on those workers too, such a run is tried once more, alone among
the runs given up; given up again, it is graded crashed, never retried
in a loop.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter, deque
from concurrent.futures import CancelledError
from dataclasses import dataclass
from typing import TYPE_CHECKING

from plpuzzle.cluster.client_side import ClusterError, admit, connect, nudge_stuck, ship
from plpuzzle.cluster.worker_side import (
    RESOURCE,
    RemoteRun,
    RunSpec,
    abort_run,
    release_run,
    run_goal,
)
from plpuzzle.sandbox.program import SandboxSetupError
from plpuzzle.sandbox.workspace import new_run_id
from plpuzzle.sudoku.grading.judging import (
    answer_cap,
    goal_for,
    grade_observation,
    grader_failed,
    load_error_grade,
    text_budget,
)
from plpuzzle.sudoku.grading.model import SOLVER_NAME, Grade, GradeSettings, Submission, TestGrade
from plpuzzle.sudoku.grading.scheduling.fair_share import Cancelled, Ticket, Turn
from plpuzzle.sudoku.grading.scheduling.protocol import (
    ClassRun,
    Hooks,
    Pair,
    share_runs,
    still_to_grade,
)
from plpuzzle.sudoku.runs.suite import SuiteCase, load_case
from plpuzzle.untrusted import printable

if TYPE_CHECKING:
    from distributed import Client, Future

#: How often the cluster may lose one run (its task cancelled by no one)
#: before grading gives up on the cluster.
MAX_LOST = 3

#: After this long without a result, runs the scheduler could not place
#: are looked at again (see client_side.nudge_stuck).
NUDGE_SECONDS = 5.0


class ClusterUnreachable(Exception):
    """The Dask scheduler could not be reached or used."""


@dataclass(frozen=True)
class DaskCluster:
    """The workers of the Dask scheduler at `address` (tcp://HOST:PORT);
    Dask itself is imported only when it runs, since it is an optional extra."""

    address: str
    #: Send runs out only in turns of this ticket's FairShare (a service's
    #: gradings share the cluster so); one turn a run out.
    ticket: Ticket | None = None
    #: A client kept by the caller (a service), whose workers it admitted:
    #: used as it is, not closed.
    client: Client | None = None

    def run(
        self, subs: list[Submission], cases: list[SuiteCase], settings: GradeSettings, hooks: Hooks
    ) -> ClassRun:
        try:
            if self.client is not None:
                return grade_class_on_cluster(subs, cases, settings, hooks, self.client,
                                              self.ticket, admitted=True)  # fmt: skip
            with connect(self.address) as client:
                return grade_class_on_cluster(subs, cases, settings, hooks, client, self.ticket)
        except ClusterError as e:
            raise ClusterUnreachable(str(e)) from None


def grade_class_on_cluster(
    submissions: list[Submission],
    cases: list[SuiteCase],
    settings: GradeSettings,
    hooks: Hooks,
    client: Client,
    ticket: Ticket | None = None,
    admitted: bool = False,
) -> ClassRun:
    """Grade every submission on every case on the cluster of `client`
    (whose workers are admitted first, unless `admitted`); with a ticket,
    a run goes out only in a turn of it. Raises Cancelled when the
    ticket is, with what is out cancelled."""
    summary = ClassRun()
    todo = still_to_grade(submissions, cases, hooks)
    if not todo:
        return summary
    todo, hooks = share_runs(todo, hooks)
    if not admitted:
        admission = admit(client)
        summary.problems += admission.problems() + admission.notes
    grading = _ClusterGrading(client, settings, hooks, summary, cases, ticket)
    try:
        grading.run(todo)
    except (KeyboardInterrupt, Cancelled):
        grading.stop()
        raise
    finally:
        grading.finish()
    return summary


class _ClusterGrading:
    """One grading run on a cluster: what is out, and what came back."""

    def __init__(
        self,
        client: Client,
        settings: GradeSettings,
        hooks: Hooks,
        summary: ClassRun,
        cases: list[SuiteCase],
        ticket: Ticket | None = None,
    ) -> None:
        self.client = client
        self.feeder = _TurnFeeder(ticket) if ticket is not None else None
        #: Pairs claimed, waiting for a turn to go out (with a ticket).
        self.queued: deque[Pair] = deque()
        #: The turn each pair out holds, until its grade is recorded.
        self.turns: dict[tuple[str, str], Turn] = {}
        self.settings = settings
        self.hooks = hooks
        self.summary = summary
        self.spec = RunSpec(
            new_run_id(), SOLVER_NAME, "sudoku/2", settings.dialect, settings.limits()
        )
        goals = {case.name: goal_for(case) for case in cases}
        self.budget = text_budget(len(cases))
        self.caps = {case.name: answer_cap(len(load_case(case)[1] or [])) for case in cases}
        text = json.dumps(goals, sort_keys=True).encode()
        self.goals = ship(client, "goals", hashlib.sha256(text).hexdigest()[:32], goals)
        self.files: dict[str, Future] = {}
        #: Task key -> the pair it grades; a key leaves when its result is recorded.
        self.out: dict[str, Pair] = {}
        self.futures: dict[str, Future] = {}
        self.left: Counter[str] = Counter()  # runs out per submission digest
        self.order: dict[str, int] = {}
        self.lost_runs: Counter[tuple[str, str]] = Counter()
        #: Runs sent out so far, and runs the scheduler gave up on, per pair.
        self.tries: Counter[tuple[str, str]] = Counter()
        self.given_up: set[tuple[str, str]] = set()
        #: Runs given up once, waiting to be tried again one at a time.
        self.suspects: deque[Pair] = deque()
        self.suspect_out = ""

    def run(self, todo: list[Pair]) -> None:
        from distributed import as_completed

        self.done = as_completed(loop=self.client.loop)
        deferred: list[Pair] = []
        for pair in todo:
            if self.hooks.claim(*pair):
                self.send(pair)
            else:  # another grader sharing the gradebook has it
                deferred.append(pair)
        polled = heard = time.monotonic()
        while self.done.count() or deferred or self.queued:
            self.send_in_turn()
            if self.done.has_ready():
                for future in self.done.next_batch(block=False):
                    self.receive(future)
                heard = time.monotonic()
                continue
            if time.monotonic() - heard > NUDGE_SECONDS:
                nudge_stuck(self.client, f"plpuzzle-{self.spec.run_id}-")
                heard = time.monotonic()
            if deferred and time.monotonic() - polled > 0.5:
                polled = time.monotonic()
                deferred = self.poll(deferred)
            time.sleep(0.02)

    def poll(self, deferred: list[Pair]) -> list[Pair]:
        """Pairs another grader held: record theirs, or take them over."""
        still = []
        for sub, case in deferred:
            if (grade := self.hooks.stored(sub, case)) is not None:
                self.hooks.record(sub, case, grade, False)
            elif self.hooks.claim(sub, case):
                self.send((sub, case))
            else:
                still.append((sub, case))
        return still

    def send(self, pair: Pair) -> None:
        """Send a run out now, or (with a ticket) once a turn comes."""
        if self.feeder is None:
            self.submit(pair)
        else:
            self.queued.append(pair)
            self.feeder.want(len(self.queued))

    def send_in_turn(self) -> None:
        """Send out as many queued runs as there are turns come."""
        if self.feeder is None:
            return
        for turn in self.feeder.take():
            if not self.queued:
                turn.end()
                continue
            sub, case = pair = self.queued.popleft()
            self.turns[(sub.student, case.name)] = turn
            self.submit(pair)
        self.feeder.want(len(self.queued))

    def submit(self, pair: Pair) -> str:
        """Send a run out (again, under a new key, if it was out before); its key."""
        sub, case = pair
        if sub.digest not in self.files:
            self.files[sub.digest] = ship(self.client, "files", sub.digest, sub.files)
            self.order[sub.digest] = len(self.order)
        tries = self.tries[(sub.student, case.name)]
        self.tries[(sub.student, case.name)] += 1
        key = f"plpuzzle-{self.spec.run_id}-{sub.student}-{case.name}"
        key += f"-try{tries + 1}" if tries else ""
        future = self.client.submit(
            run_goal, self.spec, sub.digest, self.files[sub.digest], self.goals, case.name,
            "Sol", self.caps[case.name], key=key, resources={RESOURCE: 1}, pure=False,
            # A submission's runs together, so its loaded sandbox is reused.
            priority=-self.order[sub.digest],
        )  # fmt: skip
        self.out[key] = pair
        self.futures[key] = future
        if not tries:
            self.left[sub.digest] += 1
        self.done.add(future)
        return key

    def receive(self, future: Future) -> None:
        """Record the grade of a finished task, once."""
        pair = self.out.pop(str(future.key), None)
        self.futures.pop(str(future.key), None)
        if str(future.key) == self.suspect_out:
            self.suspect_out = ""
            self.next_suspect()
        if pair is None:
            return  # recorded already (a submission that did not load)
        if future.status == "cancelled":  # not by us: the cluster lost it
            self.resubmit(pair, future)
            return
        sub, case = pair
        error: BaseException | None = None
        if future.status == "error":
            error = future.exception()
        else:
            try:
                result: RemoteRun = future.result()
            except CancelledError:  # its result died with a worker before it came
                self.resubmit(pair, future)
                return
            except Exception as e:  # seen done, but its worker died before its result
                error = e  # came, and the run again killed another (KilledWorker)
        if error is not None:
            if self.blameless(pair, error):
                future.release()
                self.suspects.append(pair)
                self.next_suspect()
                return
            grade = self.lost(sub, case, error)
        else:
            grade = self.judge(sub, case, result)
        future.release()
        self.record(sub, case, grade)

    def judge(self, sub: Submission, case: SuiteCase, result: RemoteRun) -> TestGrade:
        if result.setup_error:
            raise SandboxSetupError(f"Dask worker {result.ran_on}: {result.setup_error}")
        if result.stopped or result.load is None:
            where = result.ran_on
            raise RuntimeError(f"run {sub.student}/{case.name} came back unrun from {where}")
        if sub.student not in self.summary.load_reports:
            self.summary.load_reports[sub.student] = result.load
            self.hooks.loaded(sub, result.load)
        if not result.load.loaded:
            grade = load_error_grade(sub, case, result.load, self.budget)
            self.drop(sub, result)
        else:
            assert result.observation is not None
            grade = grade_observation(
                sub, case, result.observation, self.settings.rules, self.budget
            )
        grade.ran_on = result.ran_on
        return grade

    def drop(self, sub: Submission, result: RemoteRun) -> None:
        """A submission that did not load: its other runs are not made."""
        assert result.load is not None
        for other, case in [p for p in self.queued if p[0].student == sub.student]:
            self.queued.remove((other, case))
            grade = load_error_grade(sub, case, result.load, self.budget)
            grade.ran_on = result.ran_on
            self.record(sub, case, grade)
        for key, (other, case) in list(self.out.items()):
            if other.student == sub.student:
                self.futures.pop(key).cancel()
                del self.out[key]
                grade = load_error_grade(sub, case, result.load, self.budget)
                grade.ran_on = result.ran_on
                self.record(sub, case, grade)

    def resubmit(self, pair: Pair, future: Future) -> None:
        """Send a run the cluster lost (not a failure of the run) again."""
        sub, case = pair
        self.lost_runs[(sub.student, case.name)] += 1
        if self.lost_runs[(sub.student, case.name)] > MAX_LOST:
            raise ClusterError(
                f"the cluster lost the run of {sub.student}/{case.name} {MAX_LOST} times: "
                "are its workers dying?"
            )
        future.release()
        self.submit(pair)

    def next_suspect(self) -> None:
        """Send out the next suspect run, when none is out.

        Suspects go one at a time, so that a suspect that is innocent is
        never on a worker when a guilty one takes it down.
        """
        if self.suspect_out or not self.suspects:
            return
        self.suspect_out = self.submit(self.suspects.popleft())

    def blameless(self, pair: Pair, error: BaseException | None) -> bool:
        """Whether a run given up after its workers died may still be innocent.

        The scheduler gives up on every run that was on a worker when it
        died twice, including runs merely waiting there for a thread (a
        run of the same submission, most often). So a run given up is
        tried once more, alone among such suspects; given up again, the
        fault is its own.
        """
        from distributed.scheduler import KilledWorker

        if not isinstance(error, KilledWorker):
            return False
        name = (pair[0].student, pair[1].name)
        if name in self.given_up:
            return False
        self.given_up.add(name)
        return True

    def lost(self, sub: Submission, case: SuiteCase, error: BaseException | None) -> TestGrade:
        """The grade of a run that ended in the cluster, not in the sandbox."""
        from distributed.scheduler import KilledWorker

        if not isinstance(error, KilledWorker):  # this test's, never the class's
            grade = grader_failed(sub, case, error or RuntimeError("the task failed"))
            self.summary.problems.append(f"{sub.student}/{case.name}: {grade.detail}")
            return grade
        worker = getattr(error, "last_worker", None)
        place = getattr(worker, "address", "") if worker is not None else ""
        return TestGrade(
            sub.student, case.name, Grade.CRASHED,
            "every Dask worker that ran this test died under it, twice over: the run takes "
            "its host process down; not tried again",
            printable(str(error)), ran_on=f"dask worker {place}" if place else "",
        )  # fmt: skip

    def record(self, sub: Submission, case: SuiteCase, grade: TestGrade) -> None:
        if (turn := self.turns.pop((sub.student, case.name), None)) is not None:
            turn.end()
        self.hooks.record(sub, case, grade, True)
        self.left[sub.digest] -= 1
        if self.left[sub.digest] <= 0 and sub.digest in self.files:
            self.files.pop(sub.digest).release()  # no run of it is out: let workers drop it

    def stop(self) -> None:
        """Ctrl-C: cancel what is out, and have the workers kill what runs."""
        self.client.cancel(list(self.futures.values()), force=True)
        try:
            self.client.run(abort_run, self.spec.run_id, wait=True, on_error="return")
        except Exception as e:  # the cluster going away is no reason to hang
            self.summary.problems.append(f"could not stop the runs on the cluster: {e}")

    def finish(self) -> None:
        if self.feeder is not None:
            self.feeder.stop()
        for turn in self.turns.values():
            turn.end()
        self.turns.clear()
        try:
            self.client.run(release_run, self.spec.run_id, on_error="return")
        except Exception as e:
            self.summary.problems.append(f"could not release the cluster's sandboxes: {e}")
        for future in [*self.files.values(), self.goals]:
            future.release()


class _TurnFeeder:
    """Waits for a ticket's turns in a thread of its own, as many as the
    grading wants, so that the grading's loop never blocks on one."""

    def __init__(self, ticket: Ticket) -> None:
        self.ticket = ticket
        self._cond = threading.Condition()
        self._wanted = 0
        self._come: list[Turn] = []
        self._cancelled = False
        self._stopped = False
        self._thread = threading.Thread(target=self._feed, name="turns", daemon=True)
        self._thread.start()

    def want(self, count: int) -> None:
        """How many turns the grading could use now (beyond those come)."""
        with self._cond:
            self._wanted = count
            self._cond.notify_all()

    def take(self) -> list[Turn]:
        """The turns come since last asked; Cancelled when the ticket is."""
        with self._cond:
            if self._cancelled:
                raise Cancelled
            come, self._come = self._come, []
            return come

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            for turn in self._come:
                turn.end()
            self._come = []
            self._cond.notify_all()
        self._thread.join(timeout=5)

    def _feed(self) -> None:
        while True:
            with self._cond:
                while not self._stopped and len(self._come) >= self._wanted:
                    self._cond.wait()
                if self._stopped:
                    return
            try:
                turn = self.ticket.wait_turn(timeout=0.5)
            except TimeoutError:
                continue
            except Cancelled:
                with self._cond:
                    self._cancelled = True
                return
            with self._cond:
                if self._stopped:
                    turn.end()
                    return
                self._come.append(turn)
