"""`plpuzzle sudoku generate`: random puzzles whose solution set the engines agree on."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from plpuzzle.clitools import (
    InputError,
    choice,
    format_option,
    out_dir_option,
    progress_bar,
    quiet,
    stderr_console,
    stdout_console,
    time_limit_option,
    write_json,
)
from plpuzzle.sudoku.domain.results import Status
from plpuzzle.sudoku.presentation.commands.common import (
    print_disagreement,
    rules_option_with,
    setup_rules,
)
from plpuzzle.sudoku.runs import generation, puzzle_maker


@click.command(name="generate")
@click.option("--k", "k", type=int, required=True, help="Cell size K (the grid is K*K x K*K).")
@rules_option_with("a suite.toml in the --out folder")
@click.option(
    "--count",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="How many puzzles to make.",
)
@click.option(
    "--solutions",
    "solution_range",
    default="1..1",
    show_default=True,
    metavar="MIN..MAX",
    help="How many solutions each puzzle must have; 0..0 makes contradictory puzzles.",
)
@click.option(
    "--seed",
    type=int,
    help="The random seed: the same seed and options give the same files, byte for byte. "
    "Default: a fresh one, printed so that the run can be repeated.",
)
@click.option(
    "--kind",
    type=choice([k.value for k in puzzle_maker.Kind]),
    default=puzzle_maker.Kind.MIXED.value,
    show_default=True,
    help="mixed: values, parities and s/w infos; lean: as few values as the count allows; "
    "classic: values only.",
)
@click.option(
    "--keep",
    type=click.FloatRange(0, 1),
    metavar="SHARE",
    help="Keep at least this share of the grid's true infos, so that big puzzles stay quick "
    "to solve; 0 removes infos as far as the solution count allows. "
    "Default: by K and kind (0 up to K=3). Not from K=7 up: see --given.",
)
@click.option(
    "--given",
    type=click.FloatRange(0, 1),
    metavar="SHARE",
    help="Instead of --keep: give this share of the cell values (e.g. 0.75), taking infos "
    "away in large batches, which is what makes K=7..10 quick; with --kind mixed about "
    "as large a share of the parities and s/w infos goes too. The share ends higher "
    "where the count allows no more. Default from K=7 up: 0.75.",
)
@click.option(
    "--counter",
    type=choice([c.value for c in puzzle_maker.Counter]),
    default=puzzle_maker.Counter.CPSAT.value,
    show_default=True,
    help="The engine that counts solutions while infos are taken away. Counts are facts "
    "about the puzzle, so the files are the same either way; cpsat keeps sparse puzzles "
    "with hundreds of solutions (K=4..6, low --keep) countable in minutes. "
    "The three-engine confirmation is the same with both.",
)
@out_dir_option(Path("."), "The folder for the testNNNd.txt / testNNNs.txt pairs.")
@click.option(
    "--start",
    type=click.IntRange(min=1),
    help="The number of the first puzzle. Default: one after the highest in --out, or 1.",
)
@click.option("--force", is_flag=True, help="Overwrite existing testNNN files.")
@time_limit_option
@format_option()
def generate_puzzles(
    k: int,
    rules: str | None,
    count: int,
    solution_range: str,
    seed: int | None,
    kind: str,
    keep: float | None,
    given: float | None,
    counter: str,
    out_dir: Path,
    start: int | None,
    force: bool,
    time_limit: float,
    fmt: str,
) -> None:
    """Make test puzzles with a given number of solutions, checked by all three engines.

    Each puzzle comes from a random valid grid: the infos true for it are
    taken away in a random order while the solution count (by --counter)
    stays at most MAX. It is written to the --out folder as testNNNd.txt; its solutions go to
    testNNNs.txt only when the Prolog, the Python and the CP-SAT engine
    find the same solution set, that is as many solutions as the generator
    counted, and the grid the puzzle was made from is among them. Exit
    code 0 when every puzzle was confirmed, 1 when not, 2 for bad options.
    """
    chosen_rules = setup_rules(rules, [out_dir]).rules  # the folder's suite.toml, if any
    try:
        request = generation.GenerateRequest(
            k,
            chosen_rules,
            count,
            generation.solution_range(solution_range),
            generation.fresh_seed() if seed is None else seed,
            puzzle_maker.Kind(kind),
            keep,
            out_dir,
            start,
            force,
            time_limit,
            given,
            puzzle_maker.Counter(counter),
        )
        names = generation.plan(request)
    except generation.RequestError as e:
        raise InputError(str(e)) from None
    console = stdout_console() if fmt == "text" else stderr_console()
    if seed is None and fmt == "text" and not quiet():
        console.print(f"seed {request.seed} (pass --seed {request.seed} to repeat this run)")
    with progress_bar(console) as progress:
        task = progress.add_task("generating", total=count)

        def on_made(item: generation.MadePuzzle) -> None:
            progress.advance(task)
            if fmt == "text":
                _print_made(console, item)

        try:
            made = generation.generate_all(
                request, names, lambda what: progress.update(task, description=what), on_made
            )
        except generation.RequestError as e:
            raise InputError(str(e)) from None
    confirmed = sum(m.confirmed for m in made)
    if fmt == "json":
        write_json(
            {
                "seed": request.seed,
                "counter": request.counter.value,
                "puzzles": [m.to_json() for m in made],
                "confirmed": confirmed,
                "count": count,
            }
        )
    else:
        console.print(
            f"{confirmed} of {count} puzzles confirmed by all three engines (seed {request.seed})."
        )
    sys.exit(0 if confirmed == count else 1)


def _print_made(console: Console, item: generation.MadePuzzle) -> None:
    """A line per puzzle (not with -q), and why it was not confirmed."""
    if item.confirmed and quiet():
        return
    times = ", ".join(f"{r.engine} {r.cpu_seconds:.2f}s" for r in item.results)
    verdict = "[green]confirmed[/]" if item.confirmed else "[red]NOT CONFIRMED[/]"
    console.print(
        f"{escape(str(item.puzzle_path))}  K={item.made.puzzle.k}  "
        f"{item.made.solutions:>4} solution(s)  {item.made.info_count:>4} infos  "
        f"({times})  {verdict}"
    )
    if not item.confirmed:
        console.print(f"  {item.problem}; {item.solutions_path.name} not written", markup=False)
        if all(r.status is Status.OK for r in item.results) and not item.outcome.agree:
            print_disagreement(console, item.puzzle_path, item.outcome)
