"""Taking an upload: what is refused and why, the file kept by content,
the upload written at once with its arrival time, the older uploads it
replaces, then its load check, after which it is queued for grading.

The arrival time (when the file's last byte arrived: web.BodyClock) is
the upload's time: the deadline, the late policy, the hourly limit and
the order of a student's uploads go by it, whatever comes after (the
load check may end after the deadline; the upload is on time all the
same). The hourly limit and the student's storage cap (`within_limits`,
the documentation's too) are counted, and the upload written, under the
student's own lock, so that a burst of uploads cannot pass them. Uploads
may be written in another order than they arrived (one waited for the
lock longer): numbering and replacing follow arrival all the same.

A refusal is an `UploadRefused` with an HTTP status and one sentence a
student can act on; nothing of a refused upload is kept.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select, true, union_all, update
from sqlalchemy.orm import Session

from plpuzzle.i18n import _
from plpuzzle.sandbox.archives import archive_suffix
from plpuzzle.sudoku.grading.load_check import check_load
from plpuzzle.sudoku.grading.scheduling.local_pool import hidden_paths
from plpuzzle.sudoku.service.core import Blobs, Service, place_upload
from plpuzzle.sudoku.service.store import (
    Document,
    Upload,
    User,
    arrived_after,
    arrived_before,
    by_arrival,
    now,
)
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
    #: The student's older uploads this one replaced, not graded in full.
    replaced: list[int]


def suffix_of(name: str) -> str | None:
    """How intake reads a file of that name: .pl, or an archive's suffix."""
    lowered = name.lower()
    if lowered.endswith(".pl"):
        return ".pl"
    return archive_suffix(lowered)


def refuse_early(service: Service, name: str, arrived: datetime,
                 deadline: datetime | None = None) -> str:  # fmt: skip
    """Refuse before reading the file: wrong type, after a refusing
    deadline (the student's own); the suffix otherwise."""
    suffix = suffix_of(name)
    if suffix is None:
        raise UploadRefused(
            415, _("upload sudoku.pl (or a .zip or .tar.gz holding it); '%(name)s' is none "
                   "of these") % {"name": one_line(name, 60)},
        )  # fmt: skip
    course = service.course
    if course.late == "refused" and course.late_at(arrived, deadline):
        when = course.deadline_text(deadline)
        raise UploadRefused(403, _("the deadline (%(when)s) has passed: this course takes no "
                                   "late uploads") % {"when": when})  # fmt: skip
    return suffix


def receive(service: Service, user: User, name: str, data: bytes, arrived: datetime) -> Taken:
    """Keep the file and write the upload as arrived at `arrived`, its load
    check to come; the older uploads it replaces are marked so.
    Refusals raise UploadRefused."""
    deadline = service.deadline_for(user)
    suffix = refuse_early(service, name, arrived, deadline)
    course = service.course
    if len(data) > course.max_upload_kb * 1024:
        raise UploadRefused(
            413, _("the file is larger than %(kb)d KB") % {"kb": course.max_upload_kb}
        )
    if not data:
        raise UploadRefused(400, _("the file is empty"))
    late = course.late_at(arrived, deadline)
    with service.student_lock(user.id), service.store.session() as db:
        # Another service process on the same database (PostgreSQL) waits
        # here too: the student's row is locked until the upload is written.
        db.execute(select(User.id).where(User.id == user.id).with_for_update())
        within_limits(db, service, user.id, Upload, arrived, data)
        digest = service.blobs.put(data)
        upload = Upload(
            user_id=user.id, created=arrived, name=one_line(name, NAME_CHARS), suffix=suffix,
            size=len(data), blob=digest, late=late, state="checking",
            stage=service.stages()[0], loaded=None, claimed_by=service.owner, heartbeat=arrived,
        )  # fmt: skip
        db.add(upload)
        db.flush()
        number(db, upload)
        counting = true() if course.late == "counted" else Upload.late.is_(False)
        newer = db.scalar(
            select(Upload.id).where(Upload.user_id == user.id, arrived_after(Upload, upload),
                                    counting).order_by(*by_arrival(Upload)).limit(1)
        )  # fmt: skip
        if newer is not None:  # arrived before one that counts: it is the older one
            upload.state, upload.replaced_by = "replaced", newer
        counts = not late or course.late == "counted"
        replaced = replace_older(db, upload) if counts else []
        return Taken(upload.id, late, replaced)


#: What a kept file costs at least, counted against the student's storage:
#: a file system's block, so that many small files fill it too.
BLOCK_BYTES = 4096


def within_limits(db: Session, service: Service, user_id: int, kind: type[Upload | Document],
                  arrived: datetime, data: bytes) -> None:  # fmt: skip
    """Refuse (UploadRefused) a program (`kind` Upload) or a documentation
    file (Document) past the hourly limit of its kind, or one that would
    take the files kept of the student past the course's storage cap.
    The one rule for both; called with the student's lock and row held,
    and the hand-in written in the same transaction, so no burst passes."""
    course = service.course
    hour_ago = arrived - timedelta(hours=1)
    recent = list(db.scalars(
        select(kind.created).where(kind.user_id == user_id, kind.created > hour_ago)
        .order_by(kind.created)
    ))  # fmt: skip
    if len(recent) >= course.uploads_per_hour:
        again = recent[0] + timedelta(hours=1)
        shape = (_("at most %(count)d uploads an hour: the next one can be made at %(when)s")
                 if kind is Upload else _("at most %(count)d documentation files an hour: the "
                                          "next one can be made at %(when)s"))  # fmt: skip
        raise UploadRefused(429, shape % {"count": course.uploads_per_hour,
                                          "when": course.local_text(again)})  # fmt: skip
    kept = stored_files(db, user_id)
    digest = Blobs.digest_of(data)
    if digest in kept:
        return  # kept already: it costs nothing more
    used = sum(kept.values())
    if used + max(len(data), BLOCK_BYTES) > course.max_stored_mb * 1024 * 1024:
        raise UploadRefused(
            413, _("your files kept here (%(used).1f MB) and this one would pass the %(most)d MB "
                   "this course keeps of a student: ask your teacher")
            % {"used": used / 1024 / 1024, "most": course.max_stored_mb},
        )  # fmt: skip


def stored_files(db: Session, user_id: int) -> dict[str, int]:
    """The distinct files kept of a student (programs and documentation,
    each file once, as the blobs keep it): digest -> what it costs."""
    files = union_all(
        select(Upload.blob, Upload.size).where(Upload.user_id == user_id),
        select(Document.blob, Document.size).where(Document.user_id == user_id),
    ).subquery()
    rows = db.execute(select(files.c.blob, func.max(files.c.size)).group_by(files.c.blob))
    return {blob: max(size, BLOCK_BYTES) for blob, size in rows}


def number(db: Session, new: Upload) -> None:
    """Number `new` by arrival among its student's uploads, and the ones
    that arrived after it (written before it) one further."""
    mine = Upload.user_id == new.user_id
    before = db.scalar(select(func.count()).where(mine, arrived_before(Upload, new))) or 0
    new.number = before + 1
    db.execute(
        update(Upload).where(mine, arrived_after(Upload, new))
        .values(number=Upload.number + 1).execution_options(synchronize_session=False)
    )  # fmt: skip


def replace_older(db: Session, new: Upload) -> list[int]:
    """The student's own uploads that arrived before `new` and are still
    to grade give way to it (a teacher's regrade of one does not); their ids."""
    older = list(db.scalars(
        select(Upload.id).where(
            Upload.user_id == new.user_id, arrived_before(Upload, new),
            Upload.regrade.is_(False), Upload.state.in_(("checking", "queued", "running")),
        )
    ))  # fmt: skip
    if older:
        db.execute(
            update(Upload).where(Upload.id.in_(older))
            .values(state="replaced", replaced_by=new.id)
        )  # fmt: skip
    return older


def check(service: Service, upload_id: int) -> bool:
    """Load the upload in a sandbox, note what loading said, and queue it
    (unless it was replaced meanwhile); whether it was queued."""
    with service.store.session() as db:
        upload = db.get(Upload, upload_id)
        if upload is None or upload.state != "checking":
            return False
        user = db.get(User, upload.user_id)
        assert user is not None
        login, blob, suffix = user.login, upload.blob, upload.suffix
    settings = service.grade_settings
    with tempfile.TemporaryDirectory(prefix="plpuzzle-upload-") as tmp:
        folder = Path(tmp) / "class"
        place_upload(service, blob, suffix, login, folder)
        hidden = hidden_paths(service.suite, service.data)
        checked = check_load(folder, settings, hidden, budget=service.course.check_seconds)
    with service.store.session() as db:
        result = db.execute(
            update(Upload).where(Upload.id == upload_id, Upload.state == "checking")
            .values(state="queued", loaded=checked.loaded, checked=now(),
                    load_messages="\n".join(checked.messages), notes="\n".join(checked.notes))
        )  # fmt: skip
        return bool(result.rowcount)  # type: ignore[attr-defined]


def queue_unchecked(service: Service, upload_id: int) -> None:
    """Queue an upload whose check could not run (grading will load it)."""
    with service.store.session() as db:
        db.execute(
            update(Upload).where(Upload.id == upload_id, Upload.state == "checking")
            .values(state="queued", checked=now())
        )  # fmt: skip
