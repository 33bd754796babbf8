"""What a run is set up with, decided the same way by every command, the
pytest plugin and the Python API (presentation.setup_lines tells it).

A student runs plpuzzle in the folder of their own `sudoku.pl`, as they
ran the course's harness: that file is the solver unless another is
named (`bundled` names ours). The rules are the ones asked for, else the
ones the suite declares in its suite.toml, else `consecutive`; expected
solutions that break the chosen rules stop a run before it starts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.runtime import Dialect
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.engines.prolog_bridge import own_solver
from plpuzzle.sudoku.runs.suite import SuiteCase, SuiteError
from plpuzzle.sudoku.runs.suite_config import check_rules, load_manifest

#: The --solver value that names our own solver.
BUNDLED = "bundled"
#: The student's solver, looked for in the folder a run starts in.
LOCAL_SOLVER = "sudoku.pl"
#: The rules when neither the user nor the suite says.
DEFAULT_RULES = Rules.CONSECUTIVE


class SetupProblem(ValueError):
    """A solver or rules choice that cannot be used; the message is one line."""


@dataclass(frozen=True)
class SolverChoice:
    """The Prolog solver of a run: `path` None is ours (prolog/sudoku.pl,
    always plain SWI-Prolog); `shown` is how messages name it."""

    path: Path | None
    shown: str
    dialect: Dialect

    def text_of(self, shown: str) -> str | None:
        """The text of the solver file, when `shown` names it as messages
        do (its `shown` name); None for another file."""
        if self.path is None or shown != self.shown:
            return None
        try:
            return self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def name_in(self, text: str) -> str:
        """`text` with the solver's absolute path as the user knows it."""
        if self.path is None:
            return text.replace(str(own_solver().resolve()), self.shown)
        return text.replace(str(self.path.resolve()), self.shown)


def choose_solver(option: str | None, dialect: Dialect, here: Path) -> SolverChoice:
    """--solver's file, or `bundled` for ours; without it, `./sudoku.pl`
    when `here` has one, else ours."""
    if option is not None and option.strip().lower() == BUNDLED:
        return SolverChoice(None, f"{BUNDLED} {own_solver().name}", "swi")
    if option is not None:
        path = Path(option)
        if not (here / path).is_file():
            raise SetupProblem(f"{option}: no such solver file (or '{BUNDLED}' for ours)")
        return SolverChoice(here / path, option, dialect)
    local = here / LOCAL_SOLVER
    if local.is_file():
        return SolverChoice(local, f"./{LOCAL_SOLVER}", dialect)
    return SolverChoice(None, f"{BUNDLED} {own_solver().name}", "swi")


@dataclass(frozen=True)
class RulesChoice:
    """The rules of a run and where they come from (for the first line)."""

    rules: Rules
    source: str | None = None  # a suite.toml, or None when asked for or by default


def choose_rules(given: str | Rules | None, folders: list[Path]) -> RulesChoice:
    """The rules asked for, else those the folders' suite.toml declare
    (they must agree), else the default. A suite.toml that cannot be read
    is a SuiteError."""
    if given is not None:
        return RulesChoice(Rules(given))
    declared: dict[Rules, Path] = {}
    for folder in dict.fromkeys(folders):
        manifest = load_manifest(folder)
        if manifest is not None and manifest.rules is not None:
            declared.setdefault(manifest.rules, manifest.path)
    if len(declared) > 1:
        paths = " and ".join(f"{p} ({r.value})" for r, p in declared.items())
        raise SetupProblem(f"{paths} declare different rules: pass --rules")
    if declared:
        (rules, path), *_ = declared.items()
        return RulesChoice(rules, str(path))
    return RulesChoice(DEFAULT_RULES)


def rules_problem(
    cases: list[SuiteCase],
    rules: RulesChoice,
    ask: Callable[[str], str] = lambda rules: f"--rules {rules}",
) -> tuple[str | None, list[str]]:
    """Whether the expected solutions of `cases` keep the rules: an error
    (they break them; it says which rules they keep) and warnings."""
    try:
        return None, check_rules(cases, rules.rules, None, ask=ask)
    except SuiteError as e:
        return str(e), []
