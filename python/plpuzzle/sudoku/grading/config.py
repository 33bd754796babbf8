"""How a suite is graded: points per test (points.toml) and what the suite
declares about itself (suite.toml)."""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.grading.model import GradingError


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


def _read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """The text and table of a TOML file; errors name the file (and the
    line, where tomllib gives one)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise GradingError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError:
        raise GradingError(f"{path}: not UTF-8 text") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        if match:
            where = f"{path}:{match.group(1)}:{match.group(2)}"
            raise GradingError(f"{where}: {str(e)[: match.start()].strip()}") from None
        raise GradingError(f"{path}: {e}") from None


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


def _at(path: Path, text: str, key: str, table: str | None = None) -> str:
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
    text, data = _read_toml(path)
    for key in data:
        if key not in ("default", "only", "points"):
            raise GradingError(
                f"{_at(path, text, key)}: unknown key {key!r} (known: default, only, [points])"
            )
    default = data.get("default", 1)
    per_test = data.get("points", {})
    only = data.get("only")
    if not _number(default) or default < 0:
        raise GradingError(f"{_at(path, text, 'default')}: 'default' must be a number >= 0")
    per_test = _points_table(path, text, per_test)
    if only is not None and not (isinstance(only, list) and all(isinstance(t, str) for t in only)):
        raise GradingError(f"{_at(path, text, 'only')}: 'only' must be a list of test names")
    return Points(float(default), per_test, tuple(only) if only is not None else None, source=path)


def _points_table(path: Path, text: str, table: object) -> dict[str, float]:
    """A TOML [points] table as test -> points, each checked to be a number
    >= 0 (an error names the file and the line)."""
    if not isinstance(table, dict):
        raise GradingError(f"{_at(path, text, 'points')}: [points] must map test names to numbers")
    for test, value in table.items():
        if not _number(value) or value < 0:
            raise GradingError(
                f"{_at(path, text, test, 'points')}: the points of {test} must be a number >= 0"
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
            raise GradingError(
                f"{_at(where, text, test, 'points')}: no test {test} in the suite"
                + near(test, known)
            )
    for test in points.only or ():
        if test not in known:
            raise GradingError(
                f"{_at(where, text, 'only')}: 'only' names {test}, which is not in the "
                f"suite{near(test, known)}"
            )


#: The file in a suite folder that declares how the suite is graded.
MANIFEST_NAME = "suite.toml"


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


def load_manifest(suite: Path) -> Manifest | None:
    """The suite's suite.toml, or None when it has none."""
    path = suite / MANIFEST_NAME
    if not path.exists():
        return None
    text, data = _read_toml(path)
    known = ("rules", "time_limit", "memory_limit", "points")
    for key in data:
        if key not in known:
            raise GradingError(
                f"{_at(path, text, key)}: unknown key {key!r}{near(key, known)} "
                f"(known: rules, time_limit, memory_limit, [points])"
            )
    rules = data.get("rules")
    if rules is not None and rules not in [r.value for r in Rules]:
        raise GradingError(
            f"{_at(path, text, 'rules')}: rules must be one of "
            f"{', '.join(repr(r.value) for r in Rules)}, not {rules!r}"
        )
    time_limit = data.get("time_limit")
    if time_limit is not None and (not _number(time_limit) or time_limit <= 0):
        raise GradingError(f"{_at(path, text, 'time_limit')}: time_limit must be seconds > 0")
    memory = data.get("memory_limit")
    if memory is not None and (type(memory) is not int or memory < 64):
        raise GradingError(f"{_at(path, text, 'memory_limit')}: memory_limit must be MB >= 64")
    points = None
    if "points" in data:
        table = _points_table(path, text, data["points"])
        default = table.pop("default", 1.0)
        points = Points(default, table, source=path)
    return Manifest(
        path,
        Rules(rules) if rules is not None else None,
        float(time_limit) if time_limit is not None else None,
        memory,
        points,
    )
