"""A student's pages: the upload form and history, one upload's state and
results, its feedback, its file and its difference from the one before.

Every upload route answers 404 for an upload the reader may not see (a
student sees their own only), the same answer as for no upload at all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from markupsafe import Markup
from sqlalchemy import select

from plpuzzle.i18n import _
from plpuzzle.sudoku.grading.feedback.model import from_json
from plpuzzle.sudoku.grading.feedback.render import to_html
from plpuzzle.sudoku.service.accounts import SignedIn
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.diffs import difference
from plpuzzle.sudoku.service.documents import (
    KINDS,
    counting_document,
    documents_of,
    receive_document,
)
from plpuzzle.sudoku.service.grades import counting_documents, grade_of
from plpuzzle.sudoku.service.results import counting
from plpuzzle.sudoku.service.routing import (
    arrival,
    check_csrf,
    deps,
    read_hand_in,
    render,
    server_url,
    signed_in,
)
from plpuzzle.sudoku.service.store import Document, Upload, User, arrival_key, by_arrival, now
from plpuzzle.sudoku.service.uploads import UploadRefused

router = APIRouter()


def history(service: Service, user: User) -> list[Upload]:
    """A student's uploads, the last to arrive first."""
    with service.store.session() as db:
        return list(db.scalars(select(Upload).where(Upload.user_id == user.id)
                               .order_by(*by_arrival(Upload, newest_first=True))))  # fmt: skip


def previous_of(uploads: list[Upload], upload: Upload) -> Upload | None:
    """The upload that arrived just before `upload`, of its student's
    (`history`, the last to arrive first)."""
    return next((u for u in uploads if arrival_key(u) < arrival_key(upload)), None)


def visible_upload(service: Service, signed: SignedIn, upload_id: int) -> tuple[Upload, User]:
    """The upload and its owner, when the reader may see it; else 404."""
    with service.store.session() as db:
        upload = db.get(Upload, upload_id)
        owner = db.get(User, upload.user_id) if upload is not None else None
    if upload is None or owner is None or not (signed.user.teacher or owner.id == signed.user.id):
        raise HTTPException(404, _("no such upload"))
    return upload, owner


def upload_context(
    request: Request, signed: SignedIn, upload: Upload, owner: User
) -> dict[str, Any]:
    """What the upload page (and its live part) shows."""
    d = deps(request)
    everything = signed.user.teacher or d.service.released()
    progress = d.queue.progress.get(upload.id)
    mine = history(d.service, owner)
    status = status_json(request, upload)
    chosen = counting(d.service, mine)
    return {
        "upload": upload,
        "owner": owner,
        "grade": grade_of(d.service, owner.login, upload, everything),
        "progress": progress,
        "place": status["queue"],
        "counts": chosen is not None and chosen.id == upload.id,
        "previous": previous_of(mine, upload),
        "version": status["version"],
    }


@router.get("/me")
def me(request: Request, signed: Annotated[SignedIn, Depends(signed_in)]) -> Response:
    if signed.user.teacher:
        return RedirectResponse("/class", status_code=303)
    return student_page(request, signed.user, "me.html.j2")


def student_page(request: Request, user: User, template: str, status: int = 200,
                 error: str = "") -> Response:  # fmt: skip
    """A student's page: theirs (/me) or the teacher's of them; each
    upload's score is its grade as the page's reader may see it."""
    service = deps(request).service
    uploads = history(service, user)
    deadline = service.deadline_for(user)
    everything = template != "me.html.j2" or service.released()
    paper = counting_documents(service, user.login).get(user.login)
    grades = {u.id: grade_of(service, user.login, u, everything, paper, False) for u in uploads}
    counts = counting(service, uploads)
    mine = grade_of(service, user.login, counts, everything, paper, False)
    return render(request, template, status=status, student=user, uploads=uploads,
                  counting=counts, released=service.released(), grades=grades, grade=mine,
                  error=error, deadline=deadline, extension=service.extension_of(user),
                  left=service.course.time_left(now(), deadline),
                  mail=service.mail is not None and bool(service.address_of(user)),
                  documents=documents_of(service, user.id),
                  document=counting_document(service, user.id))  # fmt: skip


@router.post("/documents", dependencies=[Depends(check_csrf)])
async def hand_in_document(
    request: Request,
    signed: Annotated[SignedIn, Depends(signed_in)],
    file: Annotated[UploadFile, File()],
) -> Response:
    """The documentation, handed in apart from the program."""
    d = deps(request)
    data = await read_hand_in(signed.user, file, d.service.course.max_doc_kb)
    try:
        name, arrived = file.filename or "", arrival(request)
        await anyio.to_thread.run_sync(receive_document, d.service, signed.user, name, data,
                                       arrived)  # fmt: skip
    except UploadRefused as e:
        return student_page(request, signed.user, "me.html.j2", e.status, str(e))
    return RedirectResponse("/me", status_code=303)


@router.get("/documents/{document_id:rowid}/file")
def document_file(
    request: Request, document_id: int, signed: Annotated[SignedIn, Depends(signed_in)]
) -> Response:
    """A documentation file as it came, as a download a browser never shows."""
    d = deps(request)
    with d.service.store.session() as db:
        document = db.get(Document, document_id)
        owner = db.get(User, document.user_id) if document is not None else None
    if document is None or owner is None or not (signed.user.teacher or owner.id == signed.user.id):
        raise HTTPException(404, _("no such file"))
    suffix = next((s for s in KINDS if document.name.lower().endswith(s)), ".txt")
    name = f"{owner.login}-documentation{document.id}{suffix}"
    policy = {"Content-Security-Policy": "default-src 'none'; sandbox"}
    return FileResponse(d.service.blobs.path(document.blob), media_type="application/octet-stream",
                        filename=name, headers=policy)  # fmt: skip


@router.post("/me/mail", dependencies=[Depends(check_csrf)])
def mail_choice(
    request: Request,
    signed: Annotated[SignedIn, Depends(signed_in)],
    results: Annotated[str, Form(max_length=3)] = "",
) -> Response:
    """Whether the student is mailed their results as they come."""
    with deps(request).service.store.session() as db:
        user = db.get(User, signed.user.id)
        if user is not None:
            user.mail_results = results == "yes"
            # The address this student's own browser reached (a CSRF-checked
            # form: nobody else's request), for the links of their mails.
            user.mail_base = server_url(request)[:200]
    return RedirectResponse("/me", status_code=303)


@router.post("/uploads", dependencies=[Depends(check_csrf)])
async def upload(
    request: Request,
    signed: Annotated[SignedIn, Depends(signed_in)],
    file: Annotated[UploadFile, File()],
) -> Response:
    d = deps(request)
    data = await read_hand_in(signed.user, file, d.service.course.max_upload_kb)
    try:
        taken = await d.intake.take(signed.user, file.filename or "", data, arrival(request))
    except UploadRefused as e:
        return student_page(request, signed.user, "me.html.j2", e.status, str(e))
    return RedirectResponse(f"/uploads/{taken.upload_id}", status_code=303)


@router.get("/uploads/{upload_id:rowid}")
def upload_page(
    request: Request, upload_id: int, signed: Annotated[SignedIn, Depends(signed_in)]
) -> Response:
    upload, owner = visible_upload(deps(request).service, signed, upload_id)
    return render(request, "upload.html.j2", **upload_context(request, signed, upload, owner))


@router.get("/uploads/{upload_id:rowid}/live")
def upload_live(
    request: Request, upload_id: int, signed: Annotated[SignedIn, Depends(signed_in)]
) -> Response:
    """The changing part of the upload page, for the page's script."""
    upload, owner = visible_upload(deps(request).service, signed, upload_id)
    return render(request, "upload_live.html.j2", **upload_context(request, signed, upload, owner))


@router.get("/uploads/{upload_id:rowid}/status.json")
def upload_status(
    request: Request, upload_id: int, signed: Annotated[SignedIn, Depends(signed_in)]
) -> Response:
    upload, _owner = visible_upload(deps(request).service, signed, upload_id)
    return JSONResponse(status_json(request, upload))


def status_json(request: Request, upload: Upload) -> dict[str, Any]:
    """An upload's state, with its place in the queue while it waits: how
    many other students' gradings go first and about how many seconds
    until its next results (null: not known yet)."""
    queue = deps(request).queue
    progress = queue.progress.get(upload.id)
    done, total = (progress.done, progress.total) if progress else (0, 0)
    if progress is None and upload.state == "done":  # graded in full: every test of its stage
        done = total = len(deps(request).service.tests)
    place = queue.place(upload)
    waiting = None
    if upload.state in ("queued", "running") and not (progress and progress.done):
        seconds = None if place.seconds is None else round(place.seconds)
        waiting = {"ahead": place.ahead, "seconds": seconds, "for": place.stage}
    public_ready = upload.early is not None or upload.public_graded is not None
    version = f"{upload.state}:{upload.attempt}:{done}:{upload.stage}:{place.ahead}"
    # The numbers are what a student sees (#2); the ids are the API's keys.
    return {"id": upload.id, "number": upload.number, "state": upload.state,
            "stage": upload.stage, "done": done, "total": total, "late": upload.late,
            "loaded": upload.loaded, "public_ready": public_ready,
            "replaced_by": upload.replaced_by,
            "replaced_by_number": number_of(deps(request).service, upload.replaced_by),
            "queue": waiting, "version": version}  # fmt: skip


def number_of(service: Service, upload_id: int | None) -> int | None:
    """The number its student sees of an upload (by its id), if any."""
    if upload_id is None:
        return None
    with service.store.session() as db:
        return db.scalar(select(Upload.number).where(Upload.id == upload_id))


@router.get("/uploads/{upload_id:rowid}/feedback")
def feedback(
    request: Request, upload_id: int, signed: Annotated[SignedIn, Depends(signed_in)]
) -> Response:
    d = deps(request)
    upload, owner = visible_upload(d.service, signed, upload_id)
    everything = signed.user.teacher or d.service.released()
    grade = grade_of(d.service, owner.login, upload, everything)
    if grade.feedback is None:
        raise HTTPException(404, _("no feedback for this upload yet"))
    body = feedback_body(feedback_page(grade.feedback))
    return render(request, "feedback.html.j2", upload=upload, owner=owner, body=body,
                  grade=grade, complete=grade.complete)  # fmt: skip


def feedback_page(html: Path) -> str:
    """A grading's feedback page for one student, drawn in the reader's
    language from the data the grader kept beside it (feedback/<id>.json),
    without what the site's page says itself; a grading before that data
    was kept: the page it wrote (in its language)."""
    try:
        data = json.loads(html.with_suffix(".json").read_text(encoding="utf-8"))
        return to_html(from_json(data), whole=False)
    except (OSError, ValueError, KeyError, TypeError):
        return html.read_text(encoding="utf-8")


#: What the site's feedback page says itself, from the student's grade:
#: the grader's heading, score line and course requirements section.
_SITE_SAYS = (r"<h1>.*?</h1>", r"<p>Score: <strong>[^<]*</strong>[^<]*</p>",
              r"<h2>Course requirements</h2>.*?</dl>")  # fmt: skip


def feedback_body(page: str) -> Markup:
    """The body of a feedback page the grader wrote (our own, escaped, with
    no script), for the site's page; its heading, score and course
    requirements are the site's (the grade's: the grader saw neither the
    documentation handed in apart nor what the reader may see)."""
    start, end = page.find("<body>"), page.rfind("</body>")
    body = page[start + len("<body>") : end] if start >= 0 and end > start else ""
    for said in _SITE_SAYS:
        body = re.sub(said, "", body, count=1, flags=re.S)
    return Markup(body)


@router.get("/uploads/{upload_id:rowid}/file")
def download(
    request: Request, upload_id: int, signed: Annotated[SignedIn, Depends(signed_in)]
) -> Response:
    """The uploaded file as it came, as a download a browser never runs."""
    d = deps(request)
    upload, owner = visible_upload(d.service, signed, upload_id)
    name = f"{owner.login}-upload{upload.id}{upload.suffix}"
    policy = {"Content-Security-Policy": "default-src 'none'; sandbox"}
    path = d.service.blobs.path(upload.blob)
    return FileResponse(path, media_type="application/octet-stream", filename=name, headers=policy)


@router.get("/uploads/{upload_id:rowid}/diff")
def diff(
    request: Request, upload_id: int, signed: Annotated[SignedIn, Depends(signed_in)]
) -> Response:
    """The upload's difference from the same student's upload before it."""
    d = deps(request)
    upload, owner = visible_upload(d.service, signed, upload_id)
    previous = previous_of(history(d.service, owner), upload)
    lines, more = difference(d.service, previous, upload)
    return render(request, "diff.html.j2", upload=upload, owner=owner, previous=previous,
                  lines=lines, more=more)  # fmt: skip
