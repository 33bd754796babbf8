"""The class page's students table: one row a student, what it shows
beside the grade, and the one rule by which it is filtered and sorted.

The grade itself is the student's `Grade` (grades.py), rendered as every
other page renders it; this module only adds what the table needs around
it (the state as a category, the student's own deadline, the last upload)
and chooses the rows a query asks for. The page's script asks the server
for the chosen rows too (/class/live with the same query), so the page
sorts and filters the same with and without JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from plpuzzle.i18n import N_
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.grades import Grade
from plpuzzle.sudoku.service.store import Extension, Upload, User

#: What a row's state may be, for the filter and the summary line, in the
#: order the summary names them (marked for the catalogue: the page
#: says them in the reader's language).
STATES = {
    "graded": N_("graded"),
    "grading": N_("being graded"),
    "noload": N_("does not load"),
    "failed": N_("grading failed"),
    "late": N_("late only"),
    "missing": N_("no upload"),
}

#: The filter's choices beyond the states: what the table is read for.
SHOWS = {
    "": N_("every student"),
    **STATES,
    "deduction": N_("requirements take points off"),
    "short": N_("below full marks"),
    "extension": N_("own deadline"),
}

#: The columns the table sorts by, and their headings.
SORTS = {
    "student": N_("Student"),
    "grade": N_("Grade"),
    "state": N_("State"),
    "deadline": N_("Deadline"),
    "requirements": N_("Requirements"),
    "last": N_("Last upload"),
}

#: The longest filter text looked at (the rest is ignored, not an error).
QUERY_CHARS = 100


@dataclass(frozen=True)
class Row:
    """One student as the table shows them."""

    login: str
    name: str
    grade: Grade
    #: The upload that counts, or the last one when only late ones exist.
    upload: Upload | None
    late_only: bool
    #: The student's own deadline (an extension), if any.
    deadline: datetime | None
    #: When the student's last upload (counting or not) arrived.
    last: datetime | None
    state: str

    @property
    def full(self) -> bool:
        return self.grade.score is not None and self.grade.score >= self.grade.max_score


def state_of(upload: Upload | None, grade: Grade, late_only: bool) -> str:
    """A row's state, one of STATES: what a teacher looks for first."""
    if upload is None:
        return "missing"
    if late_only:
        return "late"
    if upload.loaded is False:
        return "noload"
    if upload.state == "failed":
        return "failed"
    if upload.state in ("checking", "queued", "running"):
        return "grading"
    return "graded" if grade.score is not None else "grading"


def class_rows(service: Service, grades: dict[str, Grade], late: dict[str, Upload]) -> list[Row]:
    """Every student's row, by login: `grades` are the class's grades
    (grades.class_grades), `late` the late-only students' last uploads."""
    with service.store.session() as db:
        users = {u.login: u for u in db.scalars(select(User).where(User.role == "student"))}
        granted = dict(db.execute(select(Extension.user_id, Extension.until)).all())
        last = dict(db.execute(select(Upload.user_id, func.max(Upload.created))
                               .group_by(Upload.user_id)).all())  # fmt: skip
    rows = []
    for login, grade in grades.items():
        user = users.get(login)
        if user is None:
            continue
        own = granted.get(user.id, service.course.extensions.get(login))
        shown = grade.upload if grade.upload is not None else late.get(login)
        is_late = grade.upload is None and shown is not None
        rows.append(Row(login, user.name or "", grade, shown, is_late, own, last.get(user.id),
                        state_of(shown, grade, is_late)))  # fmt: skip
    return rows


@dataclass(frozen=True)
class Query:
    """What the teacher asked the table for (query parameters; anything
    unknown is the default)."""

    text: str = ""
    show: str = ""
    sort: str = "student"
    desc: bool = False

    @classmethod
    def of(cls, params: Any) -> Query:
        """From a request's query parameters."""
        show, sort = params.get("show", ""), params.get("sort", "student")
        return cls(" ".join(str(params.get("q", "")).split())[:QUERY_CHARS],
                   show if show in SHOWS else "", sort if sort in SORTS else "student",
                   params.get("desc", "") in ("1", "on", "true"))  # fmt: skip

    def link(self, **change: Any) -> str:
        """This query with some parts changed, as a URL's query string."""
        from urllib.parse import urlencode

        parts = {"q": self.text, "show": self.show, "sort": self.sort,
                 "desc": "1" if self.desc else "", **change}  # fmt: skip
        if parts["sort"] == "student":
            parts["sort"] = ""
        kept = {k: v for k, v in parts.items() if v}
        return "?" + urlencode(kept) if kept else "?"

    def sort_link(self, column: str) -> str:
        """The column heading's link: by it, or by it the other way round."""
        again = column == self.sort
        return self.link(sort=column, desc="" if again and self.desc else "1" if again else "")


#: Each sort's key; None sorts last whichever the direction.
_KEYS: dict[str, Callable[[Row], Any]] = {
    "student": lambda r: r.login,
    "grade": lambda r: r.grade.score,
    "state": lambda r: list(STATES).index(r.state),
    "deadline": lambda r: r.deadline,
    "requirements": lambda r: r.grade.deduction if r.grade.requirements else None,
    "last": lambda r: r.last,
}

_SHOWN: dict[str, Callable[[Row], bool]] = {
    "deduction": lambda r: bool(r.grade.deduction),
    "short": lambda r: r.grade.score is not None and not r.full,
    "extension": lambda r: r.deadline is not None,
}


def chosen(rows: list[Row], query: Query) -> list[Row]:
    """The rows the query asks for, in its order: the page's one rule for
    filtering (the text in the login or name, and the choice of SHOWS)
    and sorting (by a column of SORTS, ties by login; no value last)."""
    text = query.text.casefold()
    kept = [r for r in rows
            if (not text or text in r.login.casefold() or text in r.name.casefold())
            and (not query.show or (_SHOWN[query.show](r) if query.show in _SHOWN
                                    else r.state == query.show))]  # fmt: skip
    key = _KEYS[query.sort]
    kept.sort(key=lambda r: r.login)
    having = [r for r in kept if key(r) is not None]
    having.sort(key=key, reverse=query.desc)
    return having + [r for r in kept if key(r) is None]


def summary(rows: list[Row]) -> list[tuple[str, str, int]]:
    """How many students are in each state: (state, words, count), the
    states no student is in left out."""
    counts = {s: 0 for s in STATES}
    for r in rows:
        counts[r.state] += 1
    return [(s, STATES[s], n) for s, n in counts.items() if n]
