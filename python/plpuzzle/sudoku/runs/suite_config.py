"""What a suite declares about itself (suite.toml), points per test
(points.toml), and whether its expected solutions keep the chosen rules.

Every command that runs a suite reads these, not only the grader: a suite
says once which rules it was made for.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules
from plpuzzle.sudoku.domain.textformat import FormatError
from plpuzzle.sudoku.domain.validator import validate
from plpuzzle.sudoku.runs.suite import SuiteCase, SuiteError, load_case


@dataclass(frozen=True)
class Points:
    """Points per test: a default, overrides, and optionally a subset that counts."""

    default: float = 1.0
    per_test: dict[str, float] = field(default_factory=dict)
    only: tuple[str, ...] | None = None
    #: The file these came from, for errors that name it.
    source: Path | None = field(default=None, compare=False)

    def counts(self, test: str) -> bool:
        return self.only is None or test in self.only

    def of(self, test: str) -> float:
        return self.per_test.get(test, self.default)


def read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """The text and table of a TOML file; errors name the file (and the
    line, where tomllib gives one)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise SuiteError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError:
        raise SuiteError(f"{path}: not UTF-8 text") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        if match:
            where = f"{path}:{match.group(1)}:{match.group(2)}"
            raise SuiteError(f"{where}: {str(e)[: match.start()].strip()}") from None
        raise SuiteError(f"{path}: {e}") from None


def key_line(text: str, key: str, table: str | None = None) -> int | None:
    """The line where `key` is set in TOML `text` (inside `[table]`, if
    given): tomllib keeps no positions, and an error should point there."""
    current: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if header := re.fullmatch(r"\[\s*([^\]\s]+)\s*\]\s*(#.*)?", stripped):
            current = header.group(1).strip("\"'")
            continue
        name = re.match(r"""["']?([^"'=\s]+)["']?\s*=""", stripped)
        if name and name.group(1) == key and current == table:
            return number
    return None


def key_place(path: Path, text: str, key: str, table: str | None = None) -> str:
    """`path:line` of `key` (in `[table]`), or the path alone."""
    line = key_line(text, key, table)
    return f"{path}:{line}" if line else str(path)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def load_points(path: Path) -> Points:
    """Read a points file (TOML):

    default = 1                      # each correct test not listed below
    only = ["test001", "test002"]    # optional: only these tests count
    [points]
    test002 = 3

    Test names are checked against the suite later (check_points).
    """
    text, data = read_toml(path)
    for key in data:
        if key not in ("default", "only", "points"):
            raise SuiteError(
                f"{key_place(path, text, key)}: unknown key {key!r} "
                "(known: default, only, [points])"
            )
    default = data.get("default", 1)
    per_test = data.get("points", {})
    only = data.get("only")
    if not _number(default) or default < 0:
        raise SuiteError(f"{key_place(path, text, 'default')}: 'default' must be a number >= 0")
    per_test = _points_table(path, text, per_test)
    if only is not None and not (isinstance(only, list) and all(isinstance(t, str) for t in only)):
        raise SuiteError(f"{key_place(path, text, 'only')}: 'only' must be a list of test names")
    return Points(float(default), per_test, tuple(only) if only is not None else None, source=path)


def _points_table(path: Path, text: str, table: object) -> dict[str, float]:
    """A TOML [points] table as test -> points, each checked to be a number
    >= 0 (an error names the file and the line)."""
    if not isinstance(table, dict):
        raise SuiteError(
            f"{key_place(path, text, 'points')}: [points] must map test names to numbers"
        )
    for test, value in table.items():
        if not _number(value) or value < 0:
            raise SuiteError(
                f"{key_place(path, text, test, 'points')}: "
                f"the points of {test} must be a number >= 0"
            )
    return {k: float(v) for k, v in table.items()}


def near(name: str, known: Iterable[str]) -> str:
    """` (did you mean X?)` for a mistyped name, or nothing."""
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def check_points(points: Points, tests: list[str]) -> None:
    """Every test a points file names must be in the suite: a typo would
    otherwise change nothing, silently."""
    where = points.source or Path("points")
    text = where.read_text(encoding="utf-8") if points.source else ""
    known = set(tests)
    for test in points.per_test:
        if test not in known:
            raise SuiteError(
                f"{key_place(where, text, test, 'points')}: no test {test} in the suite"
                + near(test, known)
            )
    for test in points.only or ():
        if test not in known:
            raise SuiteError(
                f"{key_place(where, text, 'only')}: 'only' names {test}, which is not in the "
                f"suite{near(test, known)}"
            )


#: The file in a suite folder that declares how the suite is graded.
MANIFEST_NAME = "suite.toml"

#: How a course requirement counts: not checked, shown only, or shown
#: with points taken off when it is not met (clpfd and documentation only).
OFF, REPORT, DEDUCT = "off", "report", "deduct"


@dataclass(frozen=True)
class RequirementsPolicy:
    """The `[requirements]` table of suite.toml: which course requirements
    are checked, and what one that is not met costs.

    [requirements]
    clpfd = "deduct"          # "report" (the default), "deduct" or "off"
    clpfd_points = 2          # taken off when no clpfd constraint is reached
    documentation = "report"  # "report", "deduct" or "off"
    documentation_points = 1  # taken off when no documentation file is found
    head_comments = "report"  # "report" or "off"
    layout = "report"         # "report" or "off"
    line_length = 72          # longer lines are counted
    clause_lines = 40         # longer clauses are named

    A clpfd finding of "unknown" (goals built at run time) or "not
    defined" (no sudoku/2 loads) is shown, never charged: the teacher
    reads the program (and the tests have already failed a hand-in
    without sudoku/2).
    """

    clpfd: str = REPORT
    clpfd_points: float = 0.0
    documentation: str = REPORT
    documentation_points: float = 0.0
    head_comments: str = REPORT
    layout: str = REPORT
    line_length: int = 72
    clause_lines: int = 40


_REQUIREMENT_MODES = {
    "clpfd": (OFF, REPORT, DEDUCT),
    "documentation": (OFF, REPORT, DEDUCT),
    "head_comments": (OFF, REPORT),
    "layout": (OFF, REPORT),
}
_REQUIREMENT_SIZES = {"line_length": (20, 1000), "clause_lines": (2, 10_000)}


def load_requirements(path: Path, text: str, table: object) -> RequirementsPolicy:
    """The `[requirements]` table, each key checked; an error names the
    file and the key's line."""

    def fail(key: str, words: str) -> SuiteError:
        return SuiteError(f"{key_place(path, text, key, 'requirements')}: {words}")

    if not isinstance(table, dict):
        raise SuiteError(f"{key_place(path, text, 'requirements')}: [requirements] must be a table")
    points = ("clpfd_points", "documentation_points")
    known = (*_REQUIREMENT_MODES, *points, *_REQUIREMENT_SIZES)
    for key, value in table.items():
        if key not in known:
            raise fail(key, f"unknown key {key!r}{near(key, known)} (known: {', '.join(known)})")
        if key in _REQUIREMENT_MODES and value not in _REQUIREMENT_MODES[key]:
            modes = " or ".join(repr(m) for m in _REQUIREMENT_MODES[key])
            raise fail(key, f"{key} must be {modes}, not {value!r}")
        if key in points and (not _number(value) or value <= 0):
            raise fail(key, f"{key} must be a number of points > 0")
        if key in _REQUIREMENT_SIZES:
            low, high = _REQUIREMENT_SIZES[key]
            if type(value) is not int or not low <= value <= high:
                raise fail(key, f"{key} must be a whole number from {low} to {high}")
    for check in ("clpfd", "documentation"):
        deducts = table.get(check) == DEDUCT
        if deducts and f"{check}_points" not in table:
            raise fail(check, f'{check} = "deduct" needs {check}_points (how many)')
        if not deducts and f"{check}_points" in table:
            raise fail(f"{check}_points", f'{check}_points counts only with {check} = "deduct"')
    values: dict[str, Any] = {k: float(v) if k in points else v for k, v in table.items()}
    return RequirementsPolicy(**values)


@dataclass(frozen=True)
class Manifest:
    """What a suite declares about itself in suite.toml; None: not declared.

    rules = "oddsum"      # what an s/w info means in this suite
    time_limit = 60       # CPU seconds per test
    memory_limit = 2048   # MB per submission's sandbox
    [points]              # points per correct test
    default = 1
    test012 = 3
    """

    path: Path
    rules: Rules | None = None
    time_limit: float | None = None
    memory_limit: int | None = None
    points: Points | None = None
    requirements: RequirementsPolicy | None = None


def load_manifest(suite: Path) -> Manifest | None:
    """The suite's suite.toml, or None when it has none."""
    path = suite / MANIFEST_NAME
    if not path.exists():
        return None
    text, data = read_toml(path)
    known = ("rules", "time_limit", "memory_limit", "points", "course", "requirements")
    for key in data:
        if key not in known:
            raise SuiteError(
                f"{key_place(path, text, key)}: unknown key {key!r}{near(key, known)} "
                f"(known: rules, time_limit, memory_limit, [points], [course], [requirements])"
            )
    rules = data.get("rules")
    if rules is not None and rules not in [r.value for r in Rules]:
        raise SuiteError(
            f"{key_place(path, text, 'rules')}: rules must be one of "
            f"{', '.join(repr(r.value) for r in Rules)}, not {rules!r}"
        )
    time_limit = data.get("time_limit")
    if time_limit is not None and (not _number(time_limit) or time_limit <= 0):
        raise SuiteError(f"{key_place(path, text, 'time_limit')}: time_limit must be seconds > 0")
    memory = data.get("memory_limit")
    if memory is not None and (type(memory) is not int or memory < 64):
        raise SuiteError(f"{key_place(path, text, 'memory_limit')}: memory_limit must be MB >= 64")
    points = None
    if "points" in data:
        table = _points_table(path, text, data["points"])
        default = table.pop("default", 1.0)
        points = Points(default, table, source=path)
    requirements = None
    if "requirements" in data:
        requirements = load_requirements(path, text, data["requirements"])
    return Manifest(
        path,
        Rules(rules) if rules is not None else None,
        float(time_limit) if time_limit is not None else None,
        memory,
        points,
        requirements,
    )


#: How many expected solutions of a test are checked against the rules.
RULES_SAMPLE = 5


def _relations(puzzle: Puzzle) -> list[tuple[int, int, int, int]]:
    """The neighbour pairs an s or w info relates, as (r, c, r2, c2)."""
    pairs = []
    for r, fields in enumerate(puzzle.fields):
        for c, cell in enumerate(fields):
            if "s" in cell.infos and r + 1 < puzzle.n:
                pairs.append((r, c, r + 1, c))
            if "w" in cell.infos and c > 0:
                pairs.append((r, c, r, c - 1))
    return pairs


def check_rules(
    cases: list[SuiteCase],
    rules: Rules,
    manifest: Manifest | None = None,
    loaded: dict[str, tuple[Puzzle, list[Grid] | None]] | None = None,
    ask: Callable[[str], str] = lambda rules: f"--rules {rules}",
) -> list[str]:
    """Stop when the expected solutions break the chosen rules: every
    correct solver would be graded wrong. Say which rules they do satisfy,
    and how to ask for them in the caller's words (`ask`: an option of
    the command line, the pytest plugin's, or an API's keyword).

    Only the s/w infos are read (the rest does not depend on the rules),
    on the first few solutions of each test. Returns warnings: a suite
    whose solutions also fit a stricter variant may have been meant for it.
    """
    keeps: dict[Rules, bool] = dict.fromkeys(Rules, True)
    broken: list[SuiteCase] = []
    related = 0
    for case in cases:
        if loaded:
            puzzle, expected = loaded[case.name]
        else:
            try:
                puzzle, expected = load_case(case)
            except FormatError:
                continue  # a file that cannot be read is reported where it is used
        pairs = _relations(puzzle)
        for grid in (expected or [])[:RULES_SAMPLE]:
            related += len(pairs)
            for variant in Rules:
                if keeps[variant] or variant is rules:
                    fits = all(variant.related(grid[a][b], grid[c][d]) for a, b, c, d in pairs)
                    keeps[variant] = keeps[variant] and fits
                    if variant is rules and not fits and (not broken or broken[-1] != case):
                        broken.append(case)
    if not broken:
        # Neighbours that differ by 1 always have an odd sum: a consecutive
        # suite keeps the oddsum rules too, but not the other way round.
        if rules is Rules.ODDSUM and keeps[Rules.CONSECUTIVE] and related >= 20:
            return [
                "every expected solution also keeps the consecutive rules: if the suite was "
                f"made for them, pass {ask('consecutive')} (or students' solvers that find "
                "more solutions are graded wrong)"
            ]
        return []
    names = broken[0].name + (f" and {len(broken) - 1} more test(s)" if len(broken) > 1 else "")
    source = f" (as {manifest.path} declares)" if manifest and manifest.rules is rules else ""
    others = [r for r in Rules if r is not rules and keeps[r]]
    if others:
        fit = others[0].value
        raise SuiteError(
            f"the expected solutions of {names} break the {rules.value} rules{source} but "
            f'satisfy {fit}: pass {ask(fit)}, or declare rules = "{fit}" in the suite\'s '
            f"{MANIFEST_NAME}"
        )
    puzzle, expected = load_case(broken[0])
    first = next(
        (str(v[0]) for g in expected or [] if (v := validate(puzzle, [list(x) for x in g], rules))),
        "",
    )
    raise SuiteError(
        f"the expected solutions of {names} break the {rules.value} rules, and every other "
        f"variant too: {broken[0].expected_path}: {first}"
    )
