"""What `sudoku grade` prints while and after it grades: progress, the
class summary, and what an interrupted run kept."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

import click
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from plpuzzle.clitools import (
    note,
    print_table,
    progress_bar,
    quiet,
    stderr_console,
    verbose,
)
from plpuzzle.sudoku import api
from plpuzzle.sudoku.presentation.commands.requirements import (
    summary_lines as requirement_lines,
)
from plpuzzle.sudoku.presentation.commands.similar import summary_lines
from plpuzzle.untrusted import printable

#: How many notes of each student -v prints (the reports have them all).
NOTES_SHOWN = 5

#: Plain progress lines (stderr not a terminal): at least this far apart...
PROGRESS_SECONDS = 10.0
#: ...or at every this many percent done, whichever comes first.
PROGRESS_PERCENT = 10


@contextlib.contextmanager
def grading_progress() -> Iterator[Callable[[int], Callable[[bool], None]]]:
    """Progress of a grading run on stderr: rich's bar on a terminal, and
    otherwise a plain line now and then (a log, a CI job), so a long run
    never looks stuck. Runs taken from the gradebook count as done, and the
    lines say how many they were. Nothing with -q."""
    err = stderr_console()
    if err.is_terminal:
        with progress_bar(err) as bar:

            def on_bar(total: int) -> Callable[[bool], None]:
                task = bar.add_task("grading", total=total)
                return lambda _fresh: bar.advance(task)

            yield on_bar
        return
    start = time.monotonic()
    stop = threading.Event()
    lock = threading.Lock()
    threads: list[threading.Thread] = []

    def on_start(total: int) -> Callable[[bool], None]:
        state = {"done": 0, "reused": 0, "step": 0, "shown_at": time.monotonic()}

        def show(now: float) -> None:
            done, reused = state["done"], state["reused"]
            state["shown_at"] = now
            kept = f"; {reused} from the gradebook" if reused else ""
            percent = done * 100 // total if total else 100
            note(f"graded {done}/{total} ({percent}%{kept}), {now - start:.0f} s")

        def tick(fresh: bool) -> None:
            with lock:
                state["done"] += 1
                state["reused"] += not fresh
                now = time.monotonic()
                reached = state["done"] * 100 // (total * PROGRESS_PERCENT) if total else 0
                if state["done"] == total or reached > state["step"]:
                    state["step"] = reached
                    show(now)

        def every_so_often() -> None:
            # A line at least every PROGRESS_SECONDS, whether or not a grade
            # came in meanwhile (a test may take minutes).
            while not stop.wait(1.0):
                with lock:
                    now = time.monotonic()
                    if state["done"] < total and now - state["shown_at"] >= PROGRESS_SECONDS:
                        show(now)

        thread = threading.Thread(target=every_so_often, name="grade-progress", daemon=True)
        thread.start()
        threads.append(thread)
        return tick

    try:
        yield on_start
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def print_interrupted(stopped: api.GradingInterrupted) -> None:
    """What an interrupted run did; all of it is kept for the next run."""
    done = stopped.new + stopped.reused
    tally = ", ".join(f"{n} {g}" for g, n in sorted(stopped.counts.items()))
    click.echo(
        f"plpuzzle: interrupted after {done} of {stopped.total} test run(s) "
        f"({stopped.new} graded now, {stopped.reused} from the gradebook"
        + (f"; {tally}" if tally else "")
        + f"). They are kept in {stopped.db}: run the same command again to go on.",
        err=True,
    )


#: Column heads of the class table, short enough for 80 columns with every grade.
SHORT_GRADES = {
    "memory limit": "memory",
    "crashed": "crash",
    "not loadable": "no load",
    "load error": "load",
    "no submission": "none",
}


def print_class_summary(console: Console, outcome: api.GradingOutcome) -> None:
    """One screen: a row per student, then where the reports are."""
    table = Table(
        title="Grades",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    table.add_column("student", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    report = outcome.report
    # Only the grades someone got (and always correct and wrong): the table
    # must fit a terminal, and an all-dash column says nothing.
    shown = [
        g
        for g in report["grades"]
        if g in ("correct", "wrong") or any(s["counts"][g] for s in report["students"])
    ]
    for g in shown:
        table.add_column(SHORT_GRADES.get(g, g), justify="right", no_wrap=True)
    for s in report["students"]:
        counts = [str(s["counts"][g]) if s["counts"][g] else "-" for g in shown]
        table.add_row(escape(s["id"]), f"{s['score']}/{s['max_score']}", *counts)
    if not quiet():
        print_table(console, table)
    if verbose():  # each student's notes (load-time messages and the like)
        for s in report["students"]:
            for line in s["notes"][:NOTES_SHOWN]:
                console.print(f"{s['id']}: {printable(line)}", markup=False, highlight=False)
    if report["not_emulated"]:
        stderr_console().print(
            "[yellow]plpuzzle: warning:[/] runs stopped on SICStus library predicates that "
            f"plpuzzle does not emulate: {escape(', '.join(report['not_emulated']))}. That is "
            "plpuzzle's gap, not the students': please report it."
        )
    twins = {" = ".join(sorted([s["id"], *s["identical_to"]])) for s in report["students"]
             if s.get("identical_to")}  # fmt: skip
    for group in sorted(twins):
        console.print(f"Identical hand-ins (each test run once): {group}", markup=False)
    if outcome.not_graded:
        console.print("Graded 0, nothing ran:", markup=False)
        for student, why in outcome.not_graded:
            console.print(f"  {student}: {printable(why)}", markup=False, highlight=False)
    if outcome.similarity is not None:
        for line in summary_lines(outcome.similarity):
            console.print(line, markup=False, highlight=False)
    for line in requirement_lines(report):
        console.print(line, markup=False, highlight=False)
    if outcome.missing:
        console.print(
            f"Missing (on the roster, no submission): {', '.join(outcome.missing)}.",
            markup=False,
        )
    console.print(
        f"{outcome.new} test run(s) graded now, {outcome.reused} taken from the gradebook "
        f"{outcome.db}.\nReports: {', '.join(str(p) for p in outcome.paths)}",
        markup=False,
    )
