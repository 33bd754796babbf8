"""The course a service runs: its suite, and the `[course]` table of the
suite's suite.toml (the deadline, what students see before it, fair use).

    [course]
    deadline = 2026-12-15T23:59:00+01:00   # a TOML date-time with its offset
    public = ["test001", "test002"]        # results students see before release
    release = "manual"                     # or a date-time: full results shown then
    late = "ignored"                       # after the deadline: ignored, counted, refused
    uploads_per_hour = 12                  # per student
    max_upload_kb = 512
    shrink_seconds = 10                    # counterexample search per upload

Every key is optional; a bad one is an error naming the file and line.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from plpuzzle.sudoku.runs.suite import SuiteError, discover
from plpuzzle.sudoku.runs.suite_config import (
    MANIFEST_NAME,
    key_place,
    near,
    read_toml,
)

#: What a late upload does: "ignored" (graded, marked late, never counts),
#: "counted" (counts as any other) or "refused" (not taken).
LATE_POLICIES = ("ignored", "counted", "refused")

KNOWN = ("deadline", "public", "release", "late", "uploads_per_hour", "max_upload_kb",
         "shrink_seconds")  # fmt: skip


@dataclass(frozen=True)
class CourseRules:
    """The `[course]` table, checked; defaults where a key is absent."""

    deadline: datetime | None = None
    #: Patterns (test names or shell patterns) of the tests shown before release.
    public: tuple[str, ...] = ()
    #: None: released by the teacher's action; else released at that time.
    release: datetime | None = None
    late: str = "ignored"
    uploads_per_hour: int = 12
    max_upload_kb: int = 512
    shrink_seconds: float = 10.0
    #: The tests of the suite that `public` selects, in suite order.
    public_tests: tuple[str, ...] = field(default=(), compare=False)
    #: The course's own time zone: the offset its deadline (else its
    #: release) was written with; pages show every time in it.
    zone: tzinfo = field(default=UTC, compare=False)

    def is_public(self, test: str) -> bool:
        return test in self.public_tests

    def late_at(self, when: datetime) -> bool:
        return self.deadline is not None and when > self.deadline

    def local_text(self, moment: datetime, seconds: bool = True) -> str:
        """A time as the course writes it: in its own offset, named."""
        local = moment.astimezone(self.zone)
        shape = "%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M"
        return f"{local.strftime(shape)} ({_offset_name(local.utcoffset())})"

    def deadline_text(self) -> str | None:
        return None if self.deadline is None else self.local_text(self.deadline, seconds=False)

    def time_left(self, at: datetime) -> str | None:
        """Until the deadline, in words ("2 days 3 h", "40 min"); None
        when there is none or it passed."""
        if self.deadline is None or at >= self.deadline:
            return None
        minutes = int((self.deadline - at).total_seconds() // 60)
        days, hours, mins = minutes // 1440, minutes % 1440 // 60, minutes % 60
        if days:
            return f"{days} day{'s' if days > 1 else ''} {hours} h"
        return f"{hours} h {mins} min" if hours else f"{mins} min"


def _offset_name(offset: timedelta | None) -> str:
    """UTC, or UTC+01:00."""
    if not offset:
        return "UTC"
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def load_course(suite: Path) -> CourseRules:
    """The `[course]` table of `suite`/suite.toml (defaults without one)."""
    path = suite / MANIFEST_NAME
    if not path.exists():
        return CourseRules()
    text, data = read_toml(path)
    table = data.get("course", {})
    if not isinstance(table, dict):
        raise SuiteError(f"{key_place(path, text, 'course')}: 'course' must be a [course] table")

    def where(key: str) -> str:
        return key_place(path, text, key, "course")

    for key in table:
        if key not in KNOWN:
            raise SuiteError(
                f"{where(key)}: unknown key {key!r} in [course]{near(key, KNOWN)} "
                f"(known: {', '.join(KNOWN)})"
            )
    rules = CourseRules(
        deadline=_moment(table, "deadline", where),
        public=_patterns(table, where),
        release=_release(table, where),
        late=_choice(table, "late", LATE_POLICIES, "ignored", where),
        uploads_per_hour=_count(table, "uploads_per_hour", 12, where),
        max_upload_kb=_count(table, "max_upload_kb", 512, where),
        shrink_seconds=_seconds(table, "shrink_seconds", 10.0, where),
    )  # fmt: skip
    written = table.get("deadline") or table.get("release")
    zone = written.tzinfo if isinstance(written, datetime) and written.tzinfo else UTC
    names = [c.name for c in discover(suite)]
    chosen = tuple(n for n in names if any(fnmatch.fnmatchcase(n, p) for p in rules.public))
    for pattern in rules.public:
        if not any(fnmatch.fnmatchcase(n, pattern) for n in names):
            raise SuiteError(
                f"{where('public')}: 'public' names {pattern!r}, which matches no test of "
                f"the suite{near(pattern, names)}"
            )
    return CourseRules(**{**rules.__dict__, "public_tests": chosen, "zone": zone})


def _moment(table: dict[str, Any], key: str, where: Any) -> datetime | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise SuiteError(
            f"{where(key)}: {key} must be a date-time with its offset, unquoted, "
            f"such as 2026-12-15T23:59:00+01:00"
        )
    return value.astimezone(UTC)


def _release(table: dict[str, Any], where: Any) -> datetime | None:
    value = table.get("release", "manual")
    if value == "manual":
        return None
    if not isinstance(value, datetime):
        raise SuiteError(
            f'{where("release")}: release must be "manual" (the teacher releases) or a '
            "date-time with its offset, unquoted, such as 2026-12-16T10:00:00+01:00"
        )
    return _moment(table, "release", where)


def _patterns(table: dict[str, Any], where: Any) -> tuple[str, ...]:
    value = table.get("public", [])
    if not (isinstance(value, list) and all(isinstance(v, str) and v for v in value)):
        raise SuiteError(f"{where('public')}: 'public' must be a list of test names or patterns")
    return tuple(value)


def _choice(table: dict[str, Any], key: str, choices: tuple[str, ...], default: str,
            where: Any) -> str:  # fmt: skip
    value = table.get(key, default)
    if value not in choices:
        raise SuiteError(f"{where(key)}: {key} must be one of {', '.join(choices)}, not {value!r}")
    return str(value)


def _count(table: dict[str, Any], key: str, default: int, where: Any) -> int:
    value = table.get(key, default)
    if type(value) is not int or value < 1:
        raise SuiteError(f"{where(key)}: {key} must be a whole number >= 1")
    return value


def _seconds(table: dict[str, Any], key: str, default: float, where: Any) -> float:
    value = table.get(key, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        raise SuiteError(f"{where(key)}: {key} must be seconds >= 0")
    return float(value)
