"""`plpuzzle sudoku grade`: a class of submissions graded in the sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from plpuzzle.clitools import (
    InputError,
    Interrupted,
    SetupError,
    format_option,
    jobs_option,
    note,
    out_dir_option,
    stdout_console,
    time_limit_option_with,
    warn,
    write_json,
)
from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku import api
from plpuzzle.sudoku.grading.feedback.build import ShrinkPolicy
from plpuzzle.sudoku.presentation.commands.common import (
    chosen_suite,
    dialect_option_for,
    only_option,
    rules_option,
    suite_option,
)
from plpuzzle.sudoku.presentation.commands.grade_progress import (
    grading_progress,
    print_class_summary,
    print_interrupted,
)
from plpuzzle.sudoku.presentation.commands.similar import base_option
from plpuzzle.sudoku.runs.suite import SuiteError


@click.command()
@click.argument("submissions", type=click.Path(path_type=Path, file_okay=False))
@suite_option
@rules_option
@click.option(
    "--points",
    "points",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE.toml",
    help="Points per test (default: 1 per correct test); may name the subset that counts.",
)
@time_limit_option_with("CPU seconds per test, counted over all of the submission's processes.")
@click.option(
    "--wall-limit",
    type=click.FloatRange(min=0.001),
    metavar="SEC",
    help="Wall-clock backstop per test, for solvers that wait. Default: 2 x time limit + 10.",
)
@click.option(
    "--memory-limit",
    "memory_mb",
    type=click.IntRange(min=64),
    default=DEFAULTS.memory_mb,
    show_default=True,
    metavar="MB",
    help="Memory of each submission's sandbox, all its processes together.",
)
@jobs_option("tests run at once (over all submissions) in the local pool")
@click.option(
    "--scheduler",
    metavar="tcp://HOST:PORT",
    help="Run the tests on the Dask cluster of this scheduler instead of the local pool "
    "(needs the dask extra; see `plpuzzle cluster --help`). Submissions and tests are "
    "shipped to the workers as content; grades and the gradebook stay here.",
)
@out_dir_option(Path("grading_report"), "Where grades.csv, grades.json and grades.html go.")
@click.option(
    "--report",
    "old_report_dir",
    type=click.Path(path_type=Path, file_okay=False),
    hidden=True,
    help="The old name of --out.",
)
@click.option(
    "--db",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The SQLite gradebook that makes grading resumable. "
    "Default: grades.sqlite in the --out folder.",
)
@dialect_option_for(
    "Submissions are SICStus 4 code, loaded in SWI-Prolog's emulation; or plain SWI."
)
@click.option(
    "--student",
    "students",
    multiple=True,
    metavar="ID",
    help="Regrade only this student (repeatable): their stored grades are dropped and "
    "graded again; the others' come from the gradebook. The reports cover the whole class.",
)
@click.option(
    "--roster",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="The students expected to hand in, one id a line (# comments): those with no "
    "submission are reported as missing, with 0 points.",
)
@click.option(
    "--feedback/--no-feedback",
    default=True,
    show_default=True,
    help="Write a feedback file per student (feedback/ID.md and ID.html in the --out folder).",
)
@click.option(
    "--tell-identical",
    is_flag=True,
    help="Name, in each student's feedback, the other students who handed in the same "
    "files. Off by default: feedback is for one student (grades.json, grades.html and the "
    "summary always name them).",
)
@click.option(
    "--shrink-seconds",
    type=click.FloatRange(min=0),
    default=ShrinkPolicy().seconds_per_student,
    show_default=True,
    metavar="S",
    help="Wall-clock seconds per student to find the smallest puzzle their solver "
    "gets wrong, for the feedback, shared equally by their first two wrong tests "
    "(0: do not search).",
)
@click.option(
    "--similarity/--no-similarity",
    default=True,
    show_default=True,
    help="Compare the hand-ins for similarity: a section of grades.html with the pairs "
    "side by side, and similarity.csv (see `plpuzzle sudoku similar`).",
)
@click.option(
    "--requirements/--no-requirements",
    default=True,
    show_default=True,
    help="Report the course requirements (clpfd reached from sudoku/2, head comments, "
    "layout, documentation) in the reports and the feedback, as the suite.toml's "
    "[requirements] says (see `plpuzzle sudoku requirements`).",
)
@base_option
@only_option
@format_option(("text", "json"), "text: a table per student; json: the grades.json report.")
@click.pass_context
def grade(
    ctx: click.Context,
    submissions: Path,
    suite: Path | None,
    old_report_dir: Path | None,
    fmt: str,
    **options: Any,
) -> None:
    """Grade a class: every student's sudoku.pl on every test, sandboxed.

    Every entry of SUBMISSIONS is one student, named by it: a folder with
    a sudoku.pl, or an ID.pl file; only regular files are taken, never
    links. An entry without sudoku.pl is graded 0, with a note naming the
    .pl files it holds, and the others are graded. The suite is checked
    first (its files, the points, the rules); a suite.toml in it may
    declare rules, time_limit, memory_limit and [points], and options
    given here win. Each submission is loaded once in a sandbox
    (bubblewrap, an unprivileged uid, no network, nothing of the machine
    but /usr) and every test runs in a fresh process forked from it.
    Grades are decided outside the sandbox: answers against the expected
    solutions, CPU time and memory of all the submission's processes, and
    how each run ended. Results are kept in an SQLite gradebook: running
    again skips what is already graded for the same submission, test and
    settings, and graders sharing a gradebook never run the same test twice.
    On Ctrl-C what was graded stays in the gradebook for the next run.
    With --scheduler the runs go to a Dask cluster's workers, each checked
    first: a worker that cannot sandbox is refused, by name. The hand-ins
    are also compared for similarity, as `plpuzzle sudoku similar` compares
    them (a section of grades.html and similarity.csv), unless
    --no-similarity is given, and the course requirements are read from
    them, as `plpuzzle sudoku requirements` reads them, into the reports
    and the feedback, unless --no-requirements is given. Exit code 0
    when the class was graded (whatever the grades), 2 for bad input (the
    class, the suite, the options), 3 when this machine cannot sandbox,
    130 when interrupted.
    """
    if old_report_dir is not None:
        warn("--report is deprecated: use --out")
        options["out_dir"] = old_report_dir
    options["out"] = options.pop("out_dir")
    for name in ("rules", "time_limit", "memory_mb"):  # not given: the suite.toml decides
        if ctx.get_parameter_source(name) is click.core.ParameterSource.DEFAULT:
            options[name] = None
    # The summary of an interrupted run is printed once the live display
    # has stopped: printed during it, the bar is drawn again below it.
    stopped: api.GradingInterrupted | None = None
    with grading_progress() as on_start:
        try:
            outcome = api.grade(
                submissions, chosen_suite(None, suite), on_start=on_start, on_phase=note,
                on_warning=warn, **options,
            )  # fmt: skip
        except (SuiteError, api.GradebookError) as e:
            raise InputError(str(e)) from None
        except api.SetupProblem as e:
            raise SetupError(str(e)) from None
        except api.GradingInterrupted as e:
            stopped = e
    if stopped is not None:
        print_interrupted(stopped)
        raise Interrupted() from None
    for warning in outcome.warnings[outcome.told :]:
        warn(warning)
    if fmt == "json":
        write_json(
            {
                **outcome.report,
                "graded_now": outcome.new,
                "reused": outcome.reused,
                "outputs": [str(p) for p in outcome.paths],
            }
        )
    else:
        print_class_summary(stdout_console(), outcome)
