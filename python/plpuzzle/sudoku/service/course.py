"""The course a service runs: its suite, and the `[course]` table of the
suite's suite.toml (the deadline, what students see before it, fair use).

    [course]
    deadline = 2026-12-15T23:59:00+01:00   # a TOML date-time with its offset
    public = ["test001", "test002"]        # results students see before release
    release = "manual"                     # or a date-time: full results shown then
    late = "ignored"                       # after the deadline: ignored, counted, refused
    uploads_per_hour = 12                  # per student
    max_upload_kb = 512
    max_doc_kb = 4096                      # the largest documentation file
    max_stored_mb = 64                     # the files kept of a student at most
    shrink_seconds = 10                    # counterexample search per upload
    check_seconds = 15                     # an upload's load check, at most
    body_seconds = 15                      # a request's body must arrive within
    language = "hu"                        # the pages' and mails' default: "en" or "hu"

    [course.extensions]                    # students' own deadlines
    erin = 2026-12-20T23:59:00+01:00

Every key is optional; a bad one is an error naming the file and line.
An extension granted on the service's page of a student wins over this
table's for that student.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from plpuzzle.i18n import LANGUAGES, _, moment_text, ngettext
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

KNOWN = ("name", "deadline", "public", "release", "late", "uploads_per_hour", "max_upload_kb",
         "max_doc_kb", "max_stored_mb", "shrink_seconds", "check_seconds", "body_seconds",
         "extensions", "mail", "language")  # fmt: skip


@dataclass(frozen=True)
class MailSettings:
    """[course.mail]: the SMTP server the service mails through."""

    host: str
    port: int = 587
    sender: str = ""
    #: LOGIN@domain is a user's address unless the roster gives one.
    domain: str = ""
    starttls: bool = True
    #: The SMTP login (the password comes from $PLPUZZLE_SMTP_PASSWORD).
    user: str = ""


MAIL_KEYS = ("host", "port", "from", "domain", "starttls", "user")


@dataclass(frozen=True)
class CourseRules:
    """The `[course]` table, checked; defaults where a key is absent."""

    #: The assignment's name (a gradebook's column, a mail's subject).
    name: str = "Sudoku assignment"
    deadline: datetime | None = None
    #: Patterns (test names or shell patterns) of the tests shown before release.
    public: tuple[str, ...] = ()
    #: None: released by the teacher's action; else released at that time.
    release: datetime | None = None
    late: str = "ignored"
    uploads_per_hour: int = 12
    max_upload_kb: int = 512
    #: The largest documentation file (HTML, PDF or text).
    max_doc_kb: int = 4096
    #: The files kept of one student at most (programs and documentation,
    #: each distinct file once, a small one as 4 KB).
    max_stored_mb: int = 64
    shrink_seconds: float = 10.0
    #: Seconds (of CPU time, and of wall time) an upload's load check gives
    #: loading at most: a check must not hold its slot long; grading loads
    #: it again.
    check_seconds: float = 15.0
    #: Seconds a request's body may take to arrive, counted from its
    #: headers, at least (web.body_seconds: a large body is given more,
    #: up to 4 times this).
    body_seconds: float = 15.0
    #: The tests of the suite that `public` selects, in suite order.
    public_tests: tuple[str, ...] = field(default=(), compare=False)
    #: The course's own time zone: the offset its deadline (else its
    #: release) was written with; pages show every time in it.
    zone: tzinfo = field(default=UTC, compare=False)
    #: Students' own deadlines ([course.extensions]: login = date-time).
    extensions: dict[str, datetime] = field(default_factory=dict, compare=False)
    #: How the service mails ([course.mail]); None: it does not.
    mail: MailSettings | None = field(default=None, compare=False)
    #: The language of its pages and mails for a user who chose none and
    #: whose browser asks for none of the service's (i18n.LANGUAGES).
    language: str = "en"

    def is_public(self, test: str) -> bool:
        return test in self.public_tests

    def late_at(self, when: datetime, deadline: datetime | None = None) -> bool:
        """Whether `when` is after the deadline (a student's own, if given)."""
        due = deadline or self.deadline
        return due is not None and when > due

    def local_text(self, moment: datetime, seconds: bool = True) -> str:
        """A time as the course writes it: in its own offset, named, in the
        form of the reader's language (i18n)."""
        local = moment.astimezone(self.zone)
        return f"{moment_text(local, seconds)} ({_offset_name(local.utcoffset())})"

    def zone_name(self) -> str:
        """The course's offset, named (UTC+01:00)."""
        return _offset_name(datetime.now(self.zone).utcoffset())

    def parse_typed(self, text: str) -> datetime:
        """A date-time a teacher typed (2026-12-20T23:59, in the course's
        offset unless it gives its own: 2026-12-20T23:59+14:00), in UTC;
        ValueError saying why it is none the service takes."""
        return parse_moment(text, self.zone)

    def deadline_text(self, deadline: datetime | None = None) -> str | None:
        """The deadline (a student's own, if given) as the course writes it."""
        due = deadline or self.deadline
        return None if due is None else self.local_text(due, seconds=False)

    def time_left(self, at: datetime, deadline: datetime | None = None) -> str | None:
        """Until the deadline (a student's own, if given), in words ("2 days
        3 h", "40 min"); None when there is none or it passed."""
        due = deadline or self.deadline
        if due is None or at >= due:
            return None
        minutes = int((due - at).total_seconds() // 60)
        days, hours, mins = minutes // 1440, minutes % 1440 // 60, minutes % 60
        if days:
            return ngettext("%(days)d day %(hours)d h", "%(days)d days %(hours)d h", days) % {
                "days": days, "hours": hours}  # fmt: skip
        if hours:
            return _("%(hours)d h %(mins)d min") % {"hours": hours, "mins": mins}
        return _("%(mins)d min") % {"mins": mins}


#: The years a deadline, a release or an extension may fall in: any
#: course's, and far from the calendar's ends, where a time cannot be
#: written in every offset (9999-12-31T23:59-05:00 is in the year 10000 in UTC).
YEARS = (2000, 2999)
#: The offsets a time may be written with: the world's, UTC-12:00 to UTC+14:00.
OFFSETS = (timedelta(hours=-12), timedelta(hours=14))
#: How a typed date-time looks: a date, a time, and maybe seconds and an offset.
TYPED_SHAPE = "2026-12-20T23:59 (in the course's time) or 2026-12-20T23:59+01:00"


def moment_problem(moment: datetime) -> str | None:
    """Why an aware date-time cannot be a deadline, a release or an
    extension (None: it can). The one rule for the file's and the pages'."""
    offset = moment.utcoffset()
    if offset is None:
        return "it needs its offset"
    if not OFFSETS[0] <= offset <= OFFSETS[1] or offset % timedelta(minutes=15):
        return (f"its offset ({_offset_name(offset)}) is none of the world's (UTC-12:00 to "
                "UTC+14:00, in quarter hours)")  # fmt: skip
    if not YEARS[0] <= moment.year <= YEARS[1]:
        return f"it is not in the years {YEARS[0]} to {YEARS[1]}"
    return None


def parse_moment(text: str, zone: tzinfo) -> datetime:
    """A date-time as typed on a page or sent to the API, in UTC: its own
    offset if it gives one, else `zone`'s. ValueError, saying why, for
    text that is no date and time or one `moment_problem` refuses."""
    typed = text.strip()
    shown = f"'{typed[:40]}'"
    try:
        moment = datetime.fromisoformat(typed)
    except ValueError:
        raise ValueError(f"{shown} is no date and time such as {TYPED_SHAPE}") from None
    if len(typed) <= len("2026-12-20"):
        raise ValueError(f"{shown} has no time of day: give one, such as {TYPED_SHAPE}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone)
    if (problem := moment_problem(moment)) is not None:
        raise ValueError(f"{shown} cannot be a deadline: {problem}")
    return moment.astimezone(UTC)


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
    name = table.get("name", "Sudoku assignment")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise SuiteError(f"{where('name')}: name must be the assignment's name, 1 to 100 "
                         "characters")  # fmt: skip
    rules = CourseRules(
        name=name.strip(),
        deadline=_moment(table, "deadline", where),
        public=_patterns(table, where),
        release=_release(table, where),
        late=_choice(table, "late", LATE_POLICIES, "ignored", where),
        uploads_per_hour=_count(table, "uploads_per_hour", 12, where),
        max_upload_kb=_count(table, "max_upload_kb", 512, where),
        max_doc_kb=_count(table, "max_doc_kb", 4096, where),
        max_stored_mb=_count(table, "max_stored_mb", 64, where),
        shrink_seconds=_seconds(table, "shrink_seconds", 10.0, where),
        check_seconds=_seconds(table, "check_seconds", 15.0, where, least=1.0),
        body_seconds=_seconds(table, "body_seconds", 15.0, where, least=1.0),
        language=_choice(table, "language", LANGUAGES, "en", where),
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
    extensions = _extensions(
        table, where, lambda key: key_place(path, text, key, "course.extensions")
    )
    mail = _mail(table, lambda key: key_place(path, text, key, "course.mail"))
    return CourseRules(**{**rules.__dict__, "public_tests": chosen, "zone": zone,
                          "extensions": extensions, "mail": mail})  # fmt: skip


def _mail(table: dict[str, Any], where_in: Any) -> MailSettings | None:
    """[course.mail], checked (None without one)."""
    value = table.get("mail")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise SuiteError(f"{where_in('mail')}: mail must be a [course.mail] table")
    for key in value:
        if key not in MAIL_KEYS:
            raise SuiteError(f"{where_in(key)}: unknown key {key!r} in [course.mail]"
                             f"{near(key, MAIL_KEYS)} (known: {', '.join(MAIL_KEYS)})")  # fmt: skip
    texts = {k: value.get(k, "") for k in ("host", "from", "domain", "user")}
    for key, text in texts.items():
        if not isinstance(text, str):
            raise SuiteError(f"{where_in(key)}: {key} must be text")
    if not texts["host"] or not texts["from"] or "@" not in texts["from"]:
        raise SuiteError(f"{where_in('host')}: [course.mail] needs host and from (an address)")
    from plpuzzle.sudoku.service.roster import address_problem

    for key, address in (("from", texts["from"]), ("domain", f"login@{texts['domain']}")):
        if (key == "from" or texts["domain"]) and (problem := address_problem(address)):
            raise SuiteError(f"{where_in(key)}: {key} makes no mail address: {problem}")
    port, starttls = value.get("port", 587), value.get("starttls", True)
    if type(port) is not int or not 1 <= port <= 65535:
        raise SuiteError(f"{where_in('port')}: port must be a whole number from 1 to 65535")
    if not isinstance(starttls, bool):
        raise SuiteError(f"{where_in('starttls')}: starttls must be true or false")
    return MailSettings(texts["host"], port, texts["from"], texts["domain"], starttls,
                        texts["user"])  # fmt: skip


def _extensions(table: dict[str, Any], where: Any, where_in: Any) -> dict[str, datetime]:
    """[course.extensions]: each student's own deadline, by login."""
    from plpuzzle.sudoku.grading.intake import id_problem

    value = table.get("extensions", {})
    if not isinstance(value, dict):
        raise SuiteError(f"{where('extensions')}: extensions must be a [course.extensions] "
                         "table: login = date-time")  # fmt: skip
    out = {}
    for login, until in value.items():
        if (problem := id_problem(login)) is not None:
            raise SuiteError(f"{where_in(login)}: {login!r} cannot be a login ({problem})")
        if not isinstance(until, datetime) or until.tzinfo is None:
            raise SuiteError(
                f"{where_in(login)}: the extension of {login} must be a date-time with "
                "its offset, unquoted, such as 2026-12-20T23:59:00+01:00"
            )
        if (problem := moment_problem(until)) is not None:
            raise SuiteError(f"{where_in(login)}: the extension of {login} cannot be "
                             f"{until.isoformat()}: {problem}")  # fmt: skip
        out[login] = until.astimezone(UTC)
    return out


def _moment(table: dict[str, Any], key: str, where: Any) -> datetime | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise SuiteError(
            f"{where(key)}: {key} must be a date-time with its offset, unquoted, "
            f"such as 2026-12-15T23:59:00+01:00"
        )
    if (problem := moment_problem(value)) is not None:
        raise SuiteError(f"{where(key)}: {key} cannot be {value.isoformat()}: {problem}")
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


def _seconds(table: dict[str, Any], key: str, default: float, where: Any,
             least: float = 0.0) -> float:  # fmt: skip
    """A number of seconds, `least` at least (a bound of 0 s would refuse
    every body, or every load)."""
    value = table.get(key, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or value < least:
        raise SuiteError(f"{where(key)}: {key} must be seconds >= {least:g}")
    return float(value)
