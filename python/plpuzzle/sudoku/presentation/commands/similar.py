"""`plpuzzle sudoku similar`: a class's hand-ins compared for similarity."""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from plpuzzle.clitools import (
    InputError,
    SetupError,
    format_option,
    jobs_option,
    note,
    out_dir_option,
    print_table,
    quiet,
    stdout_console,
    verbose,
    write_json,
)
from plpuzzle.sudoku.grading import similarity
from plpuzzle.sudoku.grading.model import GradingError
from plpuzzle.sudoku.grading.similarity import report as similarity_report
from plpuzzle.sudoku.presentation.commands.common import dialect_option_for
from plpuzzle.untrusted import printable

#: Pairs the short summary of `grade` names (the reports list them all).
PAIRS_NAMED = 5

base_option = click.option(
    "--base",
    "base",
    type=click.Path(path_type=Path, dir_okay=False),
    multiple=True,
    metavar="FILE",
    help="Code every student was given (e.g. the course's frame program): what the "
    "hand-ins share with it is left out of the comparison. Repeatable.",
)


def _percent(_ctx: click.Context, _param: click.Parameter, value: float) -> float:
    if not 1 <= value <= 100:
        raise InputError(f"--threshold: {value:g} is not a percentage from 1 to 100")
    return value


threshold_option = click.option(
    "--threshold",
    type=float,
    callback=_percent,
    default=round(similarity.THRESHOLD * 100),
    show_default=True,
    metavar="PERCENT",
    help="Report the pairs where at least this share of one hand-in's fingerprints is "
    f"found in the other's, and they share fingerprints weighing at least "
    f"{similarity.MIN_SHARED}. Given, it replaces the class's own scale, which may "
    "raise the default where honest work is much alike.",
)


def pair_table(sim: similarity.Similarity, limit: int | None = None) -> Table:
    """The pairs reported, one row each, one line each: ids are never
    folded (a class of long ids made three lines a pair), the table is
    as wide as it needs."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 0))
    for name, justify in (("#", "right"), ("hand-in A", "left"), ("hand-in B", "left"),
                          ("share of A", "right"), ("share of B", "right"),
                          ("fingerprints in common", "right")):  # fmt: skip
        # The console is made as wide as the table needs, so nothing is
        # cut; "ignore" would also drop the right justification.
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for n, p in enumerate(sim.above()[:limit], 1):
        table.add_row(
            str(n), sim.student(p.a), sim.student(p.b),
            f"{p.share_a:.0%}", f"{p.share_b:.0%}", str(p.shared),
        )  # fmt: skip
    return table


def ring_lines(sim: similarity.Similarity) -> list[str]:
    """One line a ring: its size, what its members all share, its members."""
    return [
        f"Group of {len(r.students)} that all match: {r.common} fingerprints held by every "
        f"one ({r.share:.0%} of the smallest): {', '.join(r.students)}"
        for r in sim.rings()
    ]


def print_similarity(console: Console, sim: similarity.Similarity) -> None:
    """Identical files and how files were read, after the table."""
    for group in sim.identical:
        console.print(f"Identical files: {' = '.join(group)}", markup=False)
    for group in sim.same_normal:
        console.print(f"The same after normalisation: {' = '.join(group)}", markup=False)
    ungraded = [c.student for c in sim.handins if similarity.NO_SOLVER_NOTE in c.notes]
    if ungraded:
        console.print(
            f"Compared though they have no sudoku.pl (every .pl file): {', '.join(ungraded)}",
            markup=False,
        )
    for c in sim.handins:
        if c.how != "prolog" and not quiet():
            notes = printable("; ".join(c.notes))
            console.print(f"Read {c.how}: {c.student}: {notes}", markup=False, highlight=False)


def summary_lines(sim: similarity.Similarity) -> list[str]:
    """A few lines for `grade`'s summary: how many pairs, the first few."""
    above = sim.above()
    threshold = f"{sim.cut:.0%}"
    if not above:
        return [f"Similar hand-ins: no pair at or above {threshold} (see grades.html)"]
    rings = ring_lines(sim)
    named = ", ".join(
        f"{sim.student(p.a)} & {sim.student(p.b)} ({p.share_a:.0%}/{p.share_b:.0%})"
        for p in above[:PAIRS_NAMED]
    )
    more = f" and {len(above) - PAIRS_NAMED} more" if len(above) > PAIRS_NAMED else ""
    return [
        f"Similar hand-ins: {len(above)} pair(s) at or above {threshold}: {named}{more} "
        "(side by side in grades.html; every pair in similarity.csv)",
        *rings,
    ]


@click.command()
@click.argument("submissions", type=click.Path(path_type=Path, file_okay=False))
@base_option
@threshold_option
@dialect_option_for(
    "Read the hand-ins as SICStus 4 code (SWI-Prolog's emulation, as grade loads "
    "them) or as plain SWI-Prolog."
)
@jobs_option("reader processes at once")
@out_dir_option(
    Path("similarity_report"), "Where similarity.csv, similarity.json and similarity.html go."
)
@format_option(("text", "json"), "text: the pairs as a table; json: similarity.json on stdout.")
def similar(
    submissions: Path,
    base: tuple[Path, ...],
    threshold: float,
    dialect: str,
    jobs: int,
    out_dir: Path,
    fmt: str,
) -> None:
    """Compare a class's hand-ins and report the pairs that are much alike.

    SUBMISSIONS is read as `grade` reads it: one entry per student (a
    folder, an ID.pl file or an archive; a folder of several .pl files
    without sudoku.pl too, though it cannot be graded). Every .pl file of
    a hand-in is read by SWI-Prolog's reader in a separate, confined
    process with limits (nothing is run), then normalised: variables and
    the file's own predicate names are numbered per clause, atoms (the
    data: people, cities) stay, clauses are sorted, comments and layout
    are dropped. The normal forms are fingerprinted by winnowing (the
    method behind MOSS); what they share with --base or with the shipped
    textbook reference is left out. Every pair that shares fingerprints
    gets two scores: the share of each hand-in's fingerprints found in the
    other. A pair is reported when a share reaches the threshold (or the
    class's own cut, where its honest work is more alike) and it shares
    enough (a short file is no evidence); a group of hand-ins that all
    match each other is shown first, with what they all share. A high
    share says that two files have long passages in common after
    normalisation, not how that came about; the report shows each pair
    side by side for the teacher to judge. Exit
    code 0 when the report was made (whatever it found), 2 for bad input
    (the folder, a --base file), 3 when SWI-Prolog cannot run here, 130
    when interrupted.
    """
    told = click.get_current_context().get_parameter_source("threshold")
    settings = similarity.Settings(
        dialect,  # type: ignore[arg-type]
        threshold / 100,
        own_scale=told is not click.core.ParameterSource.COMMANDLINE,
    )
    start = time.monotonic()
    try:
        if not submissions.is_dir():
            raise GradingError(f"{submissions}: no such folder")
        similarity.read_base(base)
        similarity.check_reader()
        note(f"comparing the hand-ins of {submissions}")
        sim, left_out = similarity.compare_class(submissions, base, settings, jobs)
    except GradingError as e:
        raise InputError(str(e)) from None
    except similarity.ReaderUnavailable as e:
        raise SetupError(str(e)) from None
    paths = similarity.write_reports(sim, out_dir)
    seconds = time.monotonic() - start
    if fmt == "json":
        write_json(
            {
                **similarity_report.summary(sim),
                "not_compared": left_out,
                "outputs": [str(p) for p in paths],
            }
        )
        return
    print_text(sim, left_out, paths, seconds)


def print_text(sim: similarity.Similarity, left_out: list[str], paths: list[Path],
               seconds: float) -> None:  # fmt: skip
    """What `similar` prints as text: the counts, the groups, one line a
    pair, the notes and where the reports are."""
    console = stdout_console()
    above = sim.above()
    console.print(
        f"Similar hand-ins: {len(sim.handins)} compared, {len(above)} pair(s) at or above "
        f"{sim.cut:.0%}",
        markup=False,
    )
    if sim.scale and sim.scale.raised:
        console.print(
            f"(raised from {sim.settings.threshold:.0%}: this class's pairs are typically "
            f"{sim.scale.median:.0%} alike, give or take {sim.scale.spread:.0%})",
            markup=False,
        )
    for line in ring_lines(sim):
        console.print(line, markup=False)
    if above:
        table = pair_table(sim)
        wide = Measurement.get(console, console.options.update(width=1 << 16), table).maximum
        width = console.width
        console.width = max(width, wide)  # one line a pair, however long the ids
        print_table(console, table)
        console.width = width
    print_similarity(console, sim)
    for line in left_out:
        note(f"not compared: {printable(line)}")
    if verbose():
        note(f"compared in {seconds:.1f} s ({similarity_report.reader_words(sim)})")
    console.print(f"Reports: {', '.join(str(p) for p in paths)}", markup=False)
