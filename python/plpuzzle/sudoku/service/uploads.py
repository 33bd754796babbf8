"""Taking an upload: what is refused and why, the file kept by content, the
load check at once, and the upload queued for grading.

A refusal is an `UploadRefused` with an HTTP status and one sentence a
student can act on; nothing of a refused upload is kept.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from sqlalchemy import func, select

from plpuzzle.sandbox.archives import archive_suffix
from plpuzzle.sudoku.grading.load_check import check_load
from plpuzzle.sudoku.grading.scheduling.local_pool import hidden_paths
from plpuzzle.sudoku.service.core import Service, place_upload
from plpuzzle.sudoku.service.store import Upload, User, now
from plpuzzle.untrusted import one_line

#: The shown name of an upload: at most this many characters.
NAME_CHARS = 120


class UploadRefused(Exception):
    """An upload that is not taken: `status` for HTTP, the message for people."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Taken:
    upload_id: int
    late: bool


def suffix_of(name: str) -> str | None:
    """How intake reads a file of that name: .pl, or an archive's suffix."""
    lowered = name.lower()
    if lowered.endswith(".pl"):
        return ".pl"
    return archive_suffix(lowered)


def refuse_early(service: Service, user: User, name: str) -> str:
    """Refuse before reading the file: wrong type, after a refusing
    deadline, too many uploads in the last hour; the suffix otherwise."""
    suffix = suffix_of(name)
    if suffix is None:
        raise UploadRefused(
            415, "upload sudoku.pl (or a .zip or .tar.gz holding it); "
            f"'{one_line(name, 60)}' is none of these",
        )  # fmt: skip
    course = service.course
    if course.late == "refused" and course.late_at(now()):
        raise UploadRefused(403, f"the deadline ({course.deadline:%Y-%m-%d %H:%M} UTC) has passed")
    hour_ago = now() - timedelta(hours=1)
    with service.store.session() as db:
        recent = list(
            db.scalars(
                select(Upload.created)
                .where(Upload.user_id == user.id, Upload.created > hour_ago)
                .order_by(Upload.created)
            )
        )
    if len(recent) >= course.uploads_per_hour:
        again = recent[0] + timedelta(hours=1)
        raise UploadRefused(
            429, f"at most {course.uploads_per_hour} uploads an hour: the next one can be "
            f"made at {again:%H:%M} UTC",
        )  # fmt: skip
    return suffix


def take(service: Service, user: User, name: str, data: bytes) -> Taken:
    """Keep the file, check that it loads, and queue it; refusals raise."""
    suffix = refuse_early(service, user, name)
    limit = service.course.max_upload_kb * 1024
    if len(data) > limit:
        raise UploadRefused(413, f"the file is larger than {service.course.max_upload_kb} KB")
    if not data:
        raise UploadRefused(400, "the file is empty")
    digest = service.blobs.put(data)
    with tempfile.TemporaryDirectory(prefix="plpuzzle-upload-") as tmp:
        folder = Path(tmp) / "class"
        place_upload(service, digest, suffix, user.login, folder)
        hidden = hidden_paths(service.suite, service.data)
        checked = check_load(folder, service.grade_settings, hidden)
    late = service.course.late_at(now())
    with service.store.session() as db:
        upload = Upload(
            user_id=user.id, name=one_line(name, NAME_CHARS), suffix=suffix, size=len(data),
            blob=digest, late=late, state="queued", loaded=checked.loaded,
            load_messages="\n".join(checked.messages), notes="\n".join(checked.notes),
        )  # fmt: skip
        db.add(upload)
        db.flush()
        return Taken(upload.id, late)


def count_queued(service: Service) -> int:
    with service.store.session() as db:
        return db.scalar(select(func.count()).where(Upload.state.in_(("queued", "running")))) or 0
