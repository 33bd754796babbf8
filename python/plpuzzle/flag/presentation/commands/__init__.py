"""`plpuzzle flag ...`: arrange a sequence and cross-check the engines."""

from __future__ import annotations

import sys

import click

from plpuzzle.clitools import (
    InputError,
    engines_option,
    format_option,
    quiet,
    stderr_console,
    time_limit_option,
    verbose,
    working,
    write_json,
)
from plpuzzle.flag.domain.model import (
    DEFAULT_SEED,
    FlagSequence,
    SequenceError,
    parse_sequence,
    random_sequence,
)
from plpuzzle.flag.domain.results import FlagResult, Status
from plpuzzle.flag.domain.validator import validate
from plpuzzle.flag.engines import ENGINES, disagreements, make_engine
from plpuzzle.runtime import status_label

#: Sequences up to this length are printed in full unless --no-show.
SHOW_LIMIT = 80

#: How much of each end of a longer sequence is printed.
SHOWN_END = 30

LABEL_WIDTH = 16


@click.command(short_help="The Dutch national flag: arrange R/W/B items, count the swaps.")
@click.argument("sequence", required=False)
@click.option(
    "--random", "length", type=int, metavar="N", help="Use N random items instead of SEQUENCE."
)
@click.option(
    "--seed",
    type=int,
    help=f"Seed for --random: the same seed gives the same items.  [default: {DEFAULT_SEED}]",
)
@engines_option(
    ENGINES,
    "The engines to run (prolog: prolog/flag.pl through pyswip; python: the "
    "pure-Python reference); two must agree.",
)
@click.option(
    "--show/--no-show",
    default=None,
    help="Print the sequence and its arrangement in full / not at all. "
    f"By default those longer than {SHOW_LIMIT} items are shortened.",
)
@time_limit_option
@format_option()
def flag(
    sequence: str | None,
    length: int | None,
    seed: int | None,
    engines: tuple[str, ...],
    show: bool | None,
    time_limit: float,
    fmt: str,
) -> None:
    """Arrange red, white and blue items: all R, then all W, then all B.

    SEQUENCE is a word of the letters R, W and B in either case, e.g.
    RWBWRRB, or '-' to read it from standard input. Prints the
    arrangement, the minimum number of swaps that makes it, and how many
    swaps Dijkstra's three-way partition makes (swapping an item with
    itself does not count). An independent
    validator checks every answer.

    Exit code 0 when every engine answered, they agree and the validator
    accepts the answer; 1 otherwise; 2 for bad input.
    """
    items = _read_input(sequence, length, seed)
    names = list(engines)
    results = run_engines(items, names, time_limit)
    origin = f"random, seed {_seed(seed)}" if length is not None else ""
    if fmt == "json":
        problems = find_problems(items, results)
        write_json(to_json(items, results, problems, None if length is None else _seed(seed)))
    else:
        problems = report(items, results, show, origin)
    for line in problems:
        click.echo(f"plpuzzle: {line}", err=True)
    sys.exit(1 if problems else 0)


def _read_input(sequence: str | None, length: int | None, seed: int | None) -> FlagSequence:
    """The sequence to arrange; InputError (exit 2) for any mistake."""
    if sequence is not None and length is not None:
        raise InputError("give either a SEQUENCE or --random N, not both")
    if sequence is None and length is None:
        raise InputError("give a SEQUENCE such as RWBWRRB, or --random N")
    if seed is not None and length is None:
        raise InputError("--seed only applies to --random N")
    if length is not None and length < 1:
        raise InputError(f"--random N needs a positive N, got {length}")
    try:
        if length is not None:
            return random_sequence(length, _seed(seed))
        assert sequence is not None
        if sequence == "-":
            return parse_sequence(sys.stdin.read().strip())
        return parse_sequence(sequence)
    except SequenceError as e:
        where = "<stdin>: " if sequence == "-" else ""
        raise InputError(f"{where}{e}") from None


def _seed(seed: int | None) -> int:
    return DEFAULT_SEED if seed is None else seed


def run_engines(items: FlagSequence, names: list[str], time_limit: float) -> list[FlagResult]:
    """Each named engine's answer, each engine in a worker of its own."""
    results = []
    for name in names:
        engine = make_engine(name)
        try:
            with working(stderr_console(), f"the {name} engine", time_limit):
                results.append(engine.solve(items, time_limit))
        finally:
            engine.close()
    return results


def report(
    items: FlagSequence, results: list[FlagResult], show: bool | None, origin: str = ""
) -> list[str]:
    """Print the answer on stdout; return what went wrong ([] if nothing).
    -q leaves out the sequence and the engines' times; -v adds each
    engine's own answer.

    `origin` says where the items came from, e.g. `random, seed 0`.
    """
    letters, note = _shown(items.letters, show)
    about = [f"{len(items):,} items: {items.describe_counts()}", origin]
    if not quiet():
        _line("sequence", _with_notes(letters, [*about, note]))
    done = [r for r in results if r.status is Status.OK]
    differences = disagreements(results)
    if done and not differences:
        _answer_lines(done[0], show)
    if differences or verbose():  # -v: each engine's own answer too
        for r in done:
            _line(r.engine, _one_line_answer(r, show))
    if not quiet():
        _line("engines", ", ".join(_engine_summary(r) for r in results))
    problems = find_problems(items, results)
    if not problems:
        _line("verdict", _verdict(results))
    return problems


def find_problems(items: FlagSequence, results: list[FlagResult]) -> list[str]:
    """What went wrong: failed engines, disagreements, wrong answers."""
    done = [r for r in results if r.status is Status.OK]
    problems = [
        f"the {r.engine} engine {_failure(r)}" for r in results if r.status is not Status.OK
    ]
    problems += [f"the engines disagree on the {d}" for d in disagreements(results)]
    return problems + _validation_problems(items, done)


def to_json(
    items: FlagSequence, results: list[FlagResult], problems: list[str], seed: int | None
) -> dict[str, object]:
    """The `--format json` report: the input, each engine's answer, problems."""
    return {
        "sequence": items.letters,
        "seed": seed,
        "results": [
            {
                "engine": r.engine,
                "status": r.status.value,
                "arrangement": r.arrangement,
                "min_swaps": r.min_swaps,
                "dijkstra_swaps": r.dijkstra_swaps,
                "cpu_seconds": round(r.cpu_seconds, 4),
            }
            for r in results
        ],
        "problems": problems,
    }


def _answer_lines(result: FlagResult, show: bool | None) -> None:
    assert result.arrangement is not None
    if show is not False:
        letters, note = _shown(result.arrangement, show)
        _line("arranged", _with_notes(letters, [note]))
    _line("minimum swaps", f"{result.min_swaps:,}")
    _line("Dijkstra swaps", f"{result.dijkstra_swaps:,}")


def _one_line_answer(result: FlagResult, show: bool | None) -> str:
    """An engine's whole answer, for when the engines disagree."""
    assert result.arrangement is not None
    letters, note = _shown(result.arrangement, show)
    counts = f"minimum {result.min_swaps:,} swaps, Dijkstra {result.dijkstra_swaps:,} swaps"
    return _with_notes(f"{letters}, {counts}" if letters else counts, [note])


def _validation_problems(items: FlagSequence, done: list[FlagResult]) -> list[str]:
    """The validator's findings on each distinct answer (checked once)."""
    problems = []
    checked: set[tuple[str | None, int | None, int | None]] = set()
    for r in done:
        if r.answer() in checked:
            continue
        checked.add(r.answer())
        assert r.arrangement is not None and r.min_swaps is not None
        assert r.dijkstra_swaps is not None
        found = validate(items, r.arrangement, r.min_swaps, r.dijkstra_swaps)
        problems += [f"the {r.engine} engine's answer is wrong: {p}" for p in found]
    return problems


def _shown(letters: str, show: bool | None) -> tuple[str, str]:
    """The letters to print, and a note if they were shortened: all of
    them with --show, none with --no-show, else both ends when long."""
    if show is False:
        return "", ""
    if show or len(letters) <= SHOW_LIMIT:
        return letters, ""
    return f"{letters[:SHOWN_END]}...{letters[-SHOWN_END:]}", "shortened; --show prints all"


def _with_notes(text: str, notes: list[str]) -> str:
    """`text  (note; note)`, leaving out empty notes."""
    joined = "; ".join(n for n in notes if n)
    if not joined:
        return text
    return f"{text}  ({joined})" if text else joined


def _engine_summary(result: FlagResult) -> str:
    if result.status is Status.OK:
        return f"{result.engine} {result.cpu_seconds:.3f} s CPU"
    return f"{result.engine} {result.status.value}"


def _failure(result: FlagResult) -> str:
    """Why an engine failed, in one line: a timeout names the limit and its
    clock (its message), anything else what happened, then the message."""
    first_line = result.message.strip().splitlines()[0] if result.message.strip() else ""
    if result.status is Status.TIMEOUT and first_line:
        return first_line
    what = status_label(result.status)
    return f"{what}: {first_line}" if first_line else what


def _verdict(results: list[FlagResult]) -> str:
    if len(results) > 1:
        return "the engines agree and the validator accepts the answer"
    return "the validator accepts the answer"


def _line(label: str, text: str) -> None:
    click.echo(f"{label:<{LABEL_WIDTH}}{text}".rstrip())
