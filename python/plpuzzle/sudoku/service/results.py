"""What an upload's grading wrote, and which upload of a student counts.

An upload's results are its grading's grades.json (written by the grader
from the gradebook). The class as a whole is the counting upload of
every student: the last one before the deadline (or the last one, when
late uploads count). What a reader sees of them, with the course's rules
applied, is the student's grade (grades.py).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.store import Upload, User, arrival_key


def grading_report(service: Service, folder: str | None) -> dict[str, Any] | None:
    """The grades.json of a reports folder (relative to the data folder),
    as the grader wrote it."""
    if folder is None:
        return None
    path = service.data / folder / "grades.json"
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) else None


def report_row(service: Service, folder: str | None) -> dict[str, Any] | None:
    """The student's row of a reports folder's grades.json."""
    students = (grading_report(service, folder) or {}).get("students") or []
    return students[0] if students else None


def counting(service: Service, uploads: list[Upload]) -> Upload | None:
    """The upload that counts among one student's (in any order): the last
    to arrive of those that may count."""
    kept = [u for u in uploads if not u.late or service.course.late == "counted"]
    return max(kept, key=arrival_key, default=None)


def counting_uploads(service: Service) -> dict[str, Upload | None]:
    """Every student's counting upload (None: nothing counts yet), by login."""
    with service.store.session() as db:
        students = list(db.scalars(select(User).where(User.role == "student")))
        uploads = list(db.scalars(select(Upload)))
    mine: dict[int, list[Upload]] = {}
    for upload in uploads:
        mine.setdefault(upload.user_id, []).append(upload)
    return {s.login: counting(service, mine.get(s.id, [])) for s in students}


def late_only(service: Service) -> dict[str, Upload]:
    """Students whose every upload came after the deadline and does not
    count: their last one, by login."""
    if service.course.late == "counted":
        return {}
    with service.store.session() as db:
        rows = db.execute(select(Upload, User.login).join(User, User.id == Upload.user_id)
                          .where(User.role == "student")).all()  # fmt: skip
    mine: dict[str, list[Upload]] = {}
    for upload, login in rows:
        mine.setdefault(login, []).append(upload)
    return {login: max(ups, key=arrival_key) for login, ups in mine.items()
            if all(u.late for u in ups)}  # fmt: skip
