"""The embedded SWI-Prolog, driven through pyswip.

pyswip gives one Prolog per process, so this module keeps a single engine
with the bridge (prolog/plpuzzle_bridge.pl) loaded, and loads each solver
file into a module of its own: several solvers can then live side by side,
and a solver that is not a module file cannot clash with ours.

Code we did not write must not run here but in a worker process
(plpuzzle.runtime.worker), whose child (plpuzzle.runtime.child) uses this
module on its own side.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Literal

from plpuzzle.settings import DEFAULTS

Dialect = Literal["swi", "sicstus4"]
DIALECTS: tuple[Dialect, ...] = ("swi", "sicstus4")
#: How a solver file of the course's is loaded unless told otherwise: the
#: course's system is SICStus 4, so its emulation (the CLI's default too).
DEFAULT_DIALECT: Dialect = "sicstus4"


def prolog_dir() -> Path:
    """Where the project's Prolog sources are: the package data
    plpuzzle.prolog_src (the top-level prolog/ of a checkout, mapped into
    the package by the install, editable or not)."""
    return Path(str(files("plpuzzle.prolog_src"))).resolve()


def prolog_file(name: str) -> Path:
    """A file of the project's Prolog sources, e.g. `sudoku.pl`."""
    return prolog_dir() / name


def quote_atom(text: str) -> str:
    """`text` as a quoted Prolog atom, safe to splice into a query."""
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
    return f"'{escaped}'"


class PrologUnavailable(Exception):
    """SWI-Prolog (or pyswip) is not installed where we can find it."""


@dataclass(frozen=True)
class LoadProblem:
    """An error or warning SWI-Prolog raised while loading a file, at its
    place: `FILE:LINE:COL` for a syntax error, `FILE:LINE` for the clause
    being read, or `FILE` alone."""

    kind: str  # "error" or "warning"
    place: str
    text: str

    def __str__(self) -> str:
        label = "" if self.kind == "error" else f"{self.kind}: "
        return f"{self.place}: {label}{self.text}"


class SolverLoadError(Exception):
    """A solver file could not be loaded, or lacks the predicate we call."""

    def __init__(self, message: str, problems: list[LoadProblem] | None = None) -> None:
        lines = [message, *map(str, problems or [])]
        super().__init__("\n".join(lines))
        self.problems = problems or []


def load_problems(raw: str, module: str) -> list[LoadProblem]:
    """The bridge's load_solver/4 report, one problem per record.

    A message's own text often starts with its place again (SWI-Prolog
    puts it there for syntax errors): that copy is left out.
    """
    problems = []
    for record in raw.split("\x1e") if raw else []:
        kind, place, text = [*without_module(record, module).split("\x1f", 2), "", ""][:3]
        text = re.sub(rf"^{re.escape(place)}:\s*", "", text.strip())
        problems.append(LoadProblem(kind, place, text))
    return problems


@dataclass
class Answers:
    """What one goal produced: raw answer texts and how the run ended.

    `status` is "ok", "time_limit" (the message names the limit) or
    "error"; each answer is
    (ground, text) with the text in Prolog canonical syntax.
    """

    status: str
    cpu_seconds: float
    answers: list[tuple[bool, str]] = field(default_factory=list)
    message: str = ""


class PrologEngine:
    """The process's SWI-Prolog with the bridge loaded."""

    def __init__(self) -> None:
        try:  # imported here: only worker processes need it
            from pyswip import Prolog
        except Exception as e:  # pyswip raises its own error when swipl is missing
            raise PrologUnavailable(
                f"SWI-Prolog could not be loaded through pyswip ({type(e).__name__}: {e}). "
                "Install SWI-Prolog 9 (Debian: apt-get install swi-prolog-nox, which "
                "`make setup` does) and pyswip."
            ) from None
        self._prolog = Prolog()
        bridge = prolog_file("plpuzzle_bridge.pl")
        self._once(f"use_module({quote_atom(str(bridge))})")
        self._loaded: dict[tuple[Path, str], str] = {}
        #: What loading each solver raised short of failing.
        self.problems: dict[str, list[LoadProblem]] = {}

    def exit_promptly_on_halt(self) -> None:
        """Make a halt that reaches the real halt/1 end this process at
        once, with its status, after flushing Prolog's output.

        A solver can reach halt through call/1, which the bridge's
        rewriting cannot see. SWI-Prolog's own clean-up can then hang for
        good: with a time limit pending, library(time)'s halt hook may wait
        on a lock nobody will free (seen in about 1 run in 100 under load),
        and a worker that should have died is killed at the backstop long
        after. Only a worker process may call this.
        """
        from pyswip import registerForeign

        def plpuzzle_exit_now(status: int) -> None:
            os._exit(status if isinstance(status, int) else 1)

        plpuzzle_exit_now.arity = 1  # type: ignore[attr-defined]
        registerForeign(plpuzzle_exit_now)
        self._once(
            "at_halt((current_prolog_flag(exit_status, S), "
            "catch(flush_output(user_output), _, true), "
            "catch(flush_output(user_error), _, true), "
            "plpuzzle_exit_now(S)))"
        )

    def _once(self, query: str) -> dict:
        results = list(self._prolog.query(query, maxresult=1))
        if not results:
            raise RuntimeError(f"Prolog query failed: {query[:200]}")
        return results[0]

    def load_solver(self, path: Path, predicate: str = "sudoku/2", dialect: Dialect = "swi") -> str:
        """Load a solver file into its own module; return the module name.

        Like SICStus, a clause with a syntax error is reported and the rest
        of the file loads: SolverLoadError is raised only when the file
        cannot be read or the module does not then define `predicate`
        (with the problems raised while loading, which say why). Those
        problems are kept in `self.problems[module]` either way.
        """
        path = path.resolve()
        key = (path, dialect)
        if key in self._loaded:
            return self._loaded[key]
        if not path.is_file():
            raise SolverLoadError(f"{path}: no such file")
        digest = hashlib.sha1(f"{path}:{dialect}".encode()).hexdigest()[:12]
        module = f"plpuzzle_solver_{digest}"
        result = self._once(
            f"plpuzzle_bridge:load_solver({quote_atom(str(path))}, {module}, {dialect}, Problems)"
        )
        problems = load_problems(_text(result["Problems"]), module)
        self.problems[module] = problems
        name, arity = predicate.split("/")
        if not list(self._prolog.query(f"current_predicate({module}:{name}/{arity})")):
            raise SolverLoadError(f"{path} does not define {predicate}", problems)
        self._loaded[key] = module
        return module

    def collect(
        self,
        module: str,
        goal: str,
        template: str,
        time_limit: float,
        progress: str = "",
        wall_limit: float | None = None,
    ) -> Answers:
        """Run `module:goal` to exhaustion within `time_limit` seconds of
        CPU time and `wall_limit` of wall clock (default: the backstop
        that goes with the CPU limit, settings.wall_limit).

        `goal` is Prolog source text in which the variable named by
        `template` carries each answer. `progress` names a file that gets
        the number of answers found so far while the goal runs ("": none).
        A run stopped at a limit has the status "time_limit" and a message
        that names the limit and its clock.
        """
        wall = DEFAULTS.wall_limit(time_limit) if wall_limit is None else wall_limit
        result = self._once(
            f"plpuzzle_bridge:collect_answers({module}:({goal}), {template}, "
            f"{float(time_limit)!r}, {float(wall)!r}, {quote_atom(progress)}, PlpuzzleAnswers, "
            "PlpuzzleStatus, PlpuzzleCpu, PlpuzzleMessage)"
        )
        status = str(result["PlpuzzleStatus"])
        text = _text(result["PlpuzzleAnswers"])
        answers = [(line[0] == "g", line[2:]) for line in text.split("\n")] if text else []
        message = without_module(_text(result["PlpuzzleMessage"]), module)
        if status == "time_limit":
            message = (
                f"stopped at the wall-clock backstop of {wall:g} s"
                if message == "wall"
                else f"stopped at the CPU-time limit of {time_limit:g} s"
            )
        return Answers(status, float(result["PlpuzzleCpu"]), answers, message)


def without_module(text: str, module: str) -> str:
    """`text` without the name of the module we loaded a solver into: a
    generated name means nothing to the person reading a message."""
    return text.replace(f"{module}:", "")


def _text(value: object) -> str:
    """pyswip hands Prolog strings back as bytes."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)
