"""The documentation a student hands in apart from the program (the
assignment asks for both): HTML, PDF or plain text, checked by its
content as well as its name, kept by content like the programs, served
back only as a download. The last one before the student's deadline
counts, and the course requirements' documentation check reads it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from plpuzzle.i18n import _
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.store import Document, User, by_arrival
from plpuzzle.sudoku.service.uploads import NAME_CHARS, UploadRefused, within_limits
from plpuzzle.untrusted import one_line

#: What a documentation file may be, by the end of its name.
KINDS = {".html": "HTML", ".htm": "HTML", ".pdf": "PDF", ".txt": "text", ".md": "text"}


def kind_of(name: str, data: bytes) -> str:
    """The file's kind (HTML, PDF, text), or UploadRefused saying why not."""
    suffix = next((s for s in KINDS if name.lower().endswith(s)), None)
    if suffix is None:
        raise UploadRefused(415, _("hand in the documentation as HTML, PDF or text (.html, .pdf, "
                                   ".txt, .md); '%(name)s' is none of these")
                            % {"name": one_line(name, 60)})  # fmt: skip
    kind = KINDS[suffix]
    if kind == "PDF":
        if not data.startswith(b"%PDF-"):
            raise UploadRefused(415, _("'%(name)s' is named .pdf but is no PDF")
                                % {"name": one_line(name, 60)})  # fmt: skip
    elif b"\x00" in data or not _text(data):
        raise UploadRefused(415, _("'%(name)s' is named %(suffix)s but is no text")
                            % {"name": one_line(name, 60), "suffix": suffix})  # fmt: skip
    return kind


def _text(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@dataclass(frozen=True)
class Handed:
    document_id: int
    late: bool


def receive_document(service: Service, user: User, name: str, data: bytes,
                     arrived: datetime) -> Handed:  # fmt: skip
    """Keep a documentation file as arrived at `arrived`; UploadRefused
    for one that is empty, too large, not of a kind taken, or past the
    programs' limits (the hourly one, counted apart, and the storage cap)."""
    course = service.course
    if not data:
        raise UploadRefused(400, _("the file is empty"))
    if len(data) > course.max_doc_kb * 1024:
        most = course.max_doc_kb
        raise UploadRefused(413, _("the file is larger than %(kb)d KB, the most this course "
                                   "takes for documentation") % {"kb": most})  # fmt: skip
    kind_of(name, data)
    deadline = service.deadline_for(user)
    late = course.late_at(arrived, deadline)
    if late and course.late == "refused":
        when = course.deadline_text(deadline)
        raise UploadRefused(403, _("the deadline (%(when)s) has passed: this course takes no "
                                   "late uploads") % {"when": when})  # fmt: skip
    with service.student_lock(user.id), service.store.session() as db:
        # The programs' rule, under the same lock and row lock (uploads.receive).
        db.execute(select(User.id).where(User.id == user.id).with_for_update())
        within_limits(db, service, user.id, Document, arrived, data)
        digest = service.blobs.put(data)
        document = Document(user_id=user.id, created=arrived, name=one_line(name, NAME_CHARS),
                            size=len(data), blob=digest, late=late)  # fmt: skip
        db.add(document)
        db.flush()
        return Handed(document.id, late)


def documents_of(service: Service, user_id: int) -> list[Document]:
    """A student's documentation files, the last to arrive first."""
    with service.store.session() as db:
        return list(db.scalars(select(Document).where(Document.user_id == user_id)
                               .order_by(*by_arrival(Document, newest_first=True))))  # fmt: skip


def counting_document(service: Service, user_id: int) -> Document | None:
    """The documentation that counts: the last one that is not late (or
    the last one, where late uploads count)."""
    kept = [d for d in documents_of(service, user_id)
            if not d.late or service.course.late == "counted"]  # fmt: skip
    return kept[0] if kept else None
