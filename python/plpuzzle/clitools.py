"""Pieces every puzzle's CLI shares: errors, consoles, options, verbosity.

The conventions live here so that every command follows them the same way:
one error style with exit codes 2 (user), 3 (machine setup) and 130
(interrupted); `-` for stdin/stdout; one --time-limit default; choices
that ignore case; `--format json` for machines; -q/-v from the root group.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from plpuzzle.settings import DEFAULTS
from plpuzzle.untrusted import json_for_pages, printable

if TYPE_CHECKING:  # rich loads in ~0.2 s: only commands that print with it pay that
    from rich.console import Console
    from rich.progress import Progress

#: The one --time-limit default (seconds) of every command.
DEFAULT_TIME_LIMIT = DEFAULTS.time_limit

#: How engines are named; the root group's help states it.
ENGINE_DEFAULT_RULE = (
    "--engine NAME picks the one engine of commands that run one, and defaults to "
    "'prolog' (the assignment's engine); --engines LIST names several, "
    "comma-separated, for commands that compare engines, and defaults to all "
    "the command knows."
)

#: Where the root group keeps -q/-v for every subcommand to read.
_VERBOSITY_KEY = "plpuzzle.verbosity"

#: The exit code of a run stopped by Ctrl-C (128 + SIGINT), as shells use.
EXIT_INTERRUPTED = 130


class InputError(click.ClickException):
    """Bad input from the user: one line on stderr and exit code 2.

    The message starts with what it is about: `FILE:LINE:COL: ...` when a
    position is known, `FILE: ...` for a whole file, `--option: ...`.
    """

    exit_code = 2

    def show(self, file: object = None) -> None:
        click.echo(f"plpuzzle: error: {self.format_message()}", err=True)


class SetupError(click.ClickException):
    """The machine lacks something plpuzzle needs: exit code 3."""

    exit_code = 3

    def show(self, file: object = None) -> None:
        click.echo(f"plpuzzle: error: {self.format_message()}", err=True)


class Interrupted(click.ClickException):
    """Ctrl-C: one line instead of click's `Aborted!`, and exit code 130."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self) -> None:
        super().__init__("interrupted")

    def show(self, file: object = None) -> None:
        click.echo("plpuzzle: interrupted", err=True)


# --- verbosity ----------------------------------------------------------------


def set_verbosity(ctx: click.Context, level: int) -> None:
    """-1 quiet, 0 normal, 1 verbose; shared with subcommands through ctx.meta."""
    ctx.meta[_VERBOSITY_KEY] = level


def _set_level(level: int) -> Callable[[click.Context, click.Parameter, bool], None]:
    def callback(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if not value:
            return
        current = int(ctx.meta.get(_VERBOSITY_KEY, 0))
        if current not in (0, level):
            raise InputError("-q and -v: give one of them, not both")
        ctx.meta[_VERBOSITY_KEY] = level

    return callback


def with_verbosity_options(command: click.Command) -> click.Command:
    """-q and -v on `command` and every command below it, so that they may
    follow a subcommand as well as precede its group; the root group's own
    -q/-v and these set the same level."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            with_verbosity_options(sub)
        return command
    if not any("--quiet" in p.opts for p in command.params):
        for short, name, level, text in (
            ("-q", "--quiet", -1, "Print only errors and the final results."),
            ("-v", "--verbose", 1, "Print extra detail: per-item lines, timings."),
        ):
            command.params.append(
                click.Option(
                    [short, name],
                    is_flag=True,
                    expose_value=False,
                    callback=_set_level(level),
                    help=text,
                )
            )
    return command


class LazyGroup(click.Group):
    """A group whose commands are imported when one is first asked for:
    running `plpuzzle sudoku solve` loads solve's module, not grading's,
    the service's and similarity's as well (each command a test starts
    pays that import time).

    `lazy` maps a command's name to `module:attribute`; `helps`, if given,
    its one-line help, so that the group's --help lists the commands
    without importing them (tests check each line is the command's own).
    Without `helps`, --help imports every command to ask it.
    """

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None,
                 helps: dict[str, str] | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})
        self.helps = helps

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, _, attr = self.lazy[cmd_name].partition(":")
            command = getattr(importlib.import_module(module), attr)
            if not isinstance(command, click.Command) or command.name != cmd_name:
                raise TypeError(f"{self.lazy[cmd_name]} is not the command {cmd_name!r}")
            self.add_command(with_verbosity_options(command))
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list from `helps` when given, without importing a command."""
        if self.helps is None:
            super().format_commands(ctx, formatter)
            return
        rows = [(name, self.helps[name]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def verbosity() -> int:
    ctx = click.get_current_context(silent=True)
    return 0 if ctx is None else int(ctx.meta.get(_VERBOSITY_KEY, 0))


def quiet() -> bool:
    """Only errors and the final result lines."""
    return verbosity() < 0


def verbose() -> bool:
    """Extra detail: per-item lines, timings."""
    return verbosity() > 0


# --- consoles and output ------------------------------------------------------


def stdout_console() -> Console:
    """A console for reports; plain text when stdout is not a terminal."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def print_table(console: Console, table: Any) -> None:
    """A rich table without the spaces rich pads its lines with at the
    right (cells are padded to their column's width), and without the
    blank edges of its box: each line as it reads, its styles kept."""
    from rich.segment import Segment, Segments

    for line in console.render_lines(table, pad=False):
        while line and not line[-1].text.strip() and not line[-1].control:
            line.pop()
        if not line:
            continue
        last = line[-1]
        line[-1] = Segment(last.text.rstrip(), last.style, last.control)
        console.print(Segments([*line, Segment.line()]), end="")


def print_wrapped(console: Console, text: str, indent: int = 4) -> None:
    """`text` (a message, perhaps of several lines) indented, each line
    wrapped at a terminal's width under itself (off a terminal, a line of
    text stays one line, for grep), no line ending in spaces."""
    import textwrap

    pad = " " * indent
    width = max(20, console.width - indent) if console.is_terminal else 1 << 30
    for line in text.splitlines():
        for part in textwrap.wrap(line, width, break_on_hyphens=False):
            console.print(pad + part, markup=False, highlight=False, soft_wrap=True)


def write_stdout(text: str) -> None:
    """Write exact bytes to stdout (no console markup or wrapping)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def write_json(data: Any) -> None:
    """The machine-readable report of a command, on stdout (with <, > and
    & escaped, for consumers that paste its strings into pages)."""
    write_stdout(json_for_pages(data, indent=2, ensure_ascii=True) + "\n")


def is_std(path: Path | str | None) -> bool:
    """Whether a file argument is `-` (stdin or stdout)."""
    return path is not None and str(path) == "-"


def write_output(path: Path | None, text: str) -> None:
    """Write `text` to a file, or to stdout when `path` is None or `-`."""
    if path is None or is_std(path):
        write_stdout(text)
        return
    try:
        path.write_text(text)
    except OSError as e:
        raise InputError(f"{path}: cannot write: {e.strerror}") from None


def note(message: str) -> None:
    """A progress or detail line on stderr, left out with -q. Control
    characters are shown as escapes: a message may quote a submission."""
    if not quiet():
        click.echo(f"plpuzzle: {printable(message)}", err=True)


def warn(message: str) -> None:
    """A warning on stderr (shown even with -q: it may matter), its
    control characters shown as escapes, as note's are."""
    click.echo(f"plpuzzle: warning: {printable(message)}", err=True)


# --- options ------------------------------------------------------------------


def choice(values: Sequence[str]) -> click.Choice:
    """A choice that ignores case and hands the command the canonical value."""
    return click.Choice(list(values), case_sensitive=False)


def time_limit_option_with(help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--time-limit SEC` with the one shared default."""
    return click.option(
        "--time-limit",
        type=click.FloatRange(min=0.001),
        default=DEFAULT_TIME_LIMIT,
        show_default=True,
        metavar="SEC",
        help=help_text,
    )


time_limit_option = time_limit_option_with(
    "Give up on a puzzle after this many seconds of CPU time per engine, as grading counts "
    "them; a wall-clock backstop of twice that plus 10 s stops a solver that waits."
)


def format_option(
    choices: Sequence[str] = ("text", "json"), help_text: str | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--format`, first choice the default; the command gets it as `fmt`."""
    return click.option(
        "--format",
        "fmt",
        type=choice(choices),
        default=choices[0],
        show_default=True,
        help=help_text or f"{choices[0]}: for people; json: a machine-readable report on stdout.",
    )


def engine_option(
    names: Sequence[str], help_text: str
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--engine NAME`: the one engine a command runs, 'prolog' by default."""
    return click.option(
        "--engine",
        type=choice(names),
        default="prolog",
        show_default=True,
        help=help_text,
    )


def engines_option(
    names: Sequence[str],
    help_text: str,
    *,
    default: Sequence[str] | None = None,
    at_least: int = 1,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--engines LIST`: several engines, comma-separated, each once; the
    command gets them as a tuple of canonical names in `engines`."""
    chosen = tuple(default or names)

    def parse(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[str, ...]:
        picked: list[str] = []
        for raw in value.split(","):
            name = raw.strip().lower()
            if not name:
                continue
            if name not in names:
                raise InputError(
                    f"--engines: unknown engine {raw.strip()!r}; choose from {', '.join(names)}"
                )
            if name in picked:
                raise InputError(f"--engines: {name} is named twice")
            picked.append(name)
        if len(picked) < at_least:
            raise InputError(
                f"--engines: name at least {at_least} of {', '.join(names)}, got {value!r}"
            )
        return tuple(picked)

    return click.option(
        "--engines",
        metavar="LIST",
        default=",".join(chosen),
        show_default=True,
        callback=parse,
        help=f"{help_text} Any of {', '.join(names)}, comma-separated.",
    )


def output_option(help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`-o/--output FILE`: the one file a command writes ('-': stdout)."""
    return click.option(
        "-o",
        "--output",
        type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
        metavar="FILE",
        help=help_text,
    )


def out_dir_option(
    default: Path, help_text: str
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--out DIR`: the folder a command writes its reports or files into."""
    return click.option(
        "--out",
        "out_dir",
        type=click.Path(path_type=Path, file_okay=False),
        default=default,
        show_default=True,
        metavar="DIR",
        help=help_text,
    )


def jobs_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--jobs N`, defaulting to the number of cores; `what` completes "How many"."""
    return click.option(
        "--jobs",
        type=click.IntRange(min=1),
        default=os.cpu_count() or 1,
        show_default="number of cores",
        help=f"How many {what}.",
    )


def progress_bar(console: Console) -> Progress:
    """A live progress bar, shown only on a terminal and not with -q."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal or quiet(),
    )


@contextmanager
def working(
    console: Console,
    what: str,
    time_limit: float | None = None,
    extra: Callable[[], str] = lambda: "",
) -> Iterator[Callable[[str], None]]:
    """A spinner while something runs, shown only on a terminal and not
    with -q: what runs, the seconds spent (of the time limit), and what
    `extra` adds (e.g. the solutions found so far). Off a terminal it
    prints nothing. Yields a function that names the next step (the
    seconds count again from there)."""
    if not console.is_terminal or quiet():
        yield lambda _text: None
        return
    label, since = [what], [time.monotonic()]

    def text() -> str:
        spent = time.monotonic() - since[0]
        limit = f" of {time_limit:g} s" if time_limit is not None else ""
        return f"{label[0]}: {spent:.0f} s{limit}{extra()}"

    def step(new: str) -> None:
        label[0], since[0] = new, time.monotonic()

    stop = threading.Event()
    with console.status(text(), spinner="dots") as status:

        def refresh() -> None:
            while not stop.wait(0.25):
                status.update(text())

        ticker = threading.Thread(target=refresh, daemon=True)
        ticker.start()
        try:
            yield step
        finally:
            stop.set()
            ticker.join()
