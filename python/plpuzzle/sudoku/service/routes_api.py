"""The JSON API for scripts (`plpuzzle sudoku submit`): upload, list my
uploads, one upload's state and results; a bearer token names the user,
who sees what their pages show them, no more."""

from __future__ import annotations

from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import JSONResponse, Response

from plpuzzle.sudoku.service.accounts import AccountError, SignedIn
from plpuzzle.sudoku.service.documents import receive_document
from plpuzzle.sudoku.service.grades import grade_of
from plpuzzle.sudoku.service.guard import Busy
from plpuzzle.sudoku.service.routes_people import LINK_GONE
from plpuzzle.sudoku.service.routes_student import (
    history,
    status_json,
    visible_upload,
)
from plpuzzle.sudoku.service.routes_teacher import (
    chosen_uploads,
    export_of,
    grant_typed_extension,
    release_and_mail,
)
from plpuzzle.sudoku.service.routing import api_user, arrival, check_sign_in, deps, read_hand_in
from plpuzzle.sudoku.service.store import Upload, User, WebSession
from plpuzzle.sudoku.service.uploads import UploadRefused

router = APIRouter(prefix="/api")

ApiUser = Annotated[User, Depends(api_user)]


def _as_signed(user: User) -> SignedIn:
    """The API user as the pages' reader (no session: the token is the key)."""
    return SignedIn(user, WebSession(digest="", user_id=user.id, csrf=""))


def upload_json(request: Request, user: User, upload: Upload, owner: User) -> dict[str, Any]:
    service = deps(request).service
    grade = grade_of(service, owner.login, upload, user.teacher or service.released())
    course = service.course
    return {
        **status_json(request, upload),
        "number": upload.number,
        # A late upload counts only where late uploads are counted.
        "counts": not upload.late or course.late == "counted",
        "deadline": course.deadline_text(service.deadline_for(owner)),
        "name": upload.name,
        "size": upload.size,
        "created": upload.created.isoformat(),
        "load_messages": upload.load_messages.splitlines(),
        "notes": upload.notes.splitlines(),
        # The grade, as the pages show it to this reader (grades.py).
        "score": grade.score,
        "max_score": grade.max_score if grade.score is not None else None,
        "tests_score": grade.tests_score,
        "deduction": grade.deduction,
        "requirements": [{"requirement": k, "found": v} for k, v in grade.requirement_lines],
        "complete": grade.complete,
        "hidden_tests": grade.hidden,
        "results": [
            {k: r[k] for k in ("test", "grade", "detail", "points", "earned")} for r in grade.rows
        ],
        "page": f"/uploads/{upload.id}",
    }


@router.post("/uploads")
async def api_upload(
    request: Request, user: ApiUser, file: Annotated[UploadFile, File()]
) -> Response:
    d = deps(request)
    data = await read_hand_in(user, file, d.service.course.max_upload_kb)
    try:
        taken = await d.intake.take(user, file.filename or "", data, arrival(request))
    except UploadRefused as e:
        return JSONResponse({"error": str(e)}, status_code=e.status)
    upload, owner = visible_upload(d.service, _as_signed(user), taken.upload_id)
    return JSONResponse(upload_json(request, user, upload, owner), status_code=201)


@router.get("/uploads")
def api_uploads(request: Request, user: ApiUser) -> Response:
    uploads = history(deps(request).service, user)
    return JSONResponse([status_json(request, u) for u in uploads])


@router.get("/uploads/{upload_id:rowid}")
def api_upload_one(request: Request, upload_id: int, user: ApiUser) -> Response:
    upload, owner = visible_upload(deps(request).service, _as_signed(user), upload_id)
    return JSONResponse(upload_json(request, user, upload, owner))


@router.post("/tokens")
async def api_new_token(
    request: Request,
    login: Annotated[str, Form(max_length=64)],
    password: Annotated[str, Form(max_length=1000)],
    label: Annotated[str, Form(max_length=100)] = "",
    device: Annotated[str, Form(max_length=300)] = "",
) -> Response:
    """A new API token for a login and its password (`plpuzzle sudoku
    login`), checked as the sign-in form checks it: in the password lane,
    slowed after failures. `device` is what a terminal kept of its last
    sign-in (the answer's "device", as a browser keeps its device cookie):
    it lets the terminal through when the login is guessed at elsewhere."""
    d = deps(request)
    try:
        found = await check_sign_in(request, login, password, device)
    except Busy as e:
        return JSONResponse({"error": f"{e}: wait {e.seconds} s and try again"},
                            status_code=429, headers={"Retry-After": str(e.seconds)})  # fmt: skip
    if found is None:
        return JSONResponse({"error": "wrong login or password"}, status_code=401)
    token = d.service.accounts.new_token(found.id, label or "terminal")
    return JSONResponse({"login": found.login, "token": token,
                         "device": d.guard.new_device(found.login)}, status_code=201)  # fmt: skip


@router.post("/welcome/{token}")
def api_first_sign_in(
    request: Request,
    token: str,
    password: Annotated[str, Form(max_length=1000)],
    label: Annotated[str, Form(max_length=100)] = "",
) -> Response:
    """The first sign-in from a terminal: the one-time link's token sets
    the password, and a new API token comes back."""
    accounts = deps(request).service.accounts
    user = accounts.welcome(token)
    if user is None:
        raise HTTPException(404, LINK_GONE)
    try:
        accounts.set_password(user.id, password, token)
    except AccountError as e:
        raise HTTPException(400, str(e)) from None
    api_token = accounts.new_token(user.id, label or "terminal")
    return JSONResponse({"login": user.login, "token": api_token,
                         "device": deps(request).guard.new_device(user.login)},
                        status_code=201)  # fmt: skip


@router.post("/documents")
async def api_document(
    request: Request, user: ApiUser, file: Annotated[UploadFile, File()]
) -> Response:
    """The documentation, handed in apart from the program."""
    d = deps(request)
    data = await read_hand_in(user, file, d.service.course.max_doc_kb)
    try:
        name, arrived = file.filename or "", arrival(request)
        handed = await anyio.to_thread.run_sync(receive_document, d.service, user, name, data,
                                                arrived)  # fmt: skip
    except UploadRefused as e:
        return JSONResponse({"error": str(e)}, status_code=e.status)
    counts = not handed.late or d.service.course.late == "counted"
    return JSONResponse({"id": handed.document_id, "name": name, "size": len(data),
                         "late": handed.late, "counts": counts}, status_code=201)  # fmt: skip


def api_teacher(request: Request) -> User:
    """A teacher's API token, or 404 (teachers' routes do not exist for others)."""
    user = api_user(request)
    if not user.teacher:
        raise HTTPException(404, "no such route")
    return user


ApiTeacher = Annotated[User, Depends(api_teacher)]


@router.get("/export/{name}")
def api_export(request: Request, name: str, teacher: ApiTeacher) -> Response:
    """The class's grades for scripts: grades.csv, grades-wide.csv,
    class.json, moodle.csv, canvas.csv."""
    return export_of(request, name)


@router.post("/regrade")
def api_regrade(request: Request, teacher: ApiTeacher,
                login: Annotated[str, Form(max_length=64)] = "") -> Response:  # fmt: skip
    """Grade every counting upload (or one student's) again from scratch."""
    count = deps(request).queue.regrade([u.id for u in chosen_uploads(request, login)])
    return JSONResponse({"queued": count})


@router.post("/release")
def api_release(request: Request, teacher: ApiTeacher,
                withdraw: Annotated[bool, Form()] = False) -> Response:  # fmt: skip
    """Release every test's results to the students (or withdraw it)."""
    service = deps(request).service
    mailed = 0
    if withdraw:
        service.release(False)
    else:
        mailed = release_and_mail(request)
    return JSONResponse({"released": service.released(), "mailed": mailed})


@router.post("/students/{login}/extension")
def api_extension(request: Request, login: str, teacher: ApiTeacher,
                  until: Annotated[str, Form(max_length=40)] = "") -> Response:  # fmt: skip
    """Give a student a deadline of their own, read as the page reads it
    (empty: take it back); 400 for a date the service does not take."""
    service = deps(request).service
    user, when = grant_typed_extension(service, login, until, teacher.login)
    shown = service.course.deadline_text(service.deadline_for(user))
    return JSONResponse({"login": login, "deadline": when.isoformat() if when else None,
                         "shown": shown})  # fmt: skip


@router.get("/turns")
def api_turns(request: Request, teacher: ApiTeacher, after: int = 0) -> Response:
    """The fair share's last asks and turns (the most recent 2,000), in
    the order they happened: who waited and who ran, to check the bound."""
    events = deps(request).queue.share.events(after)
    return JSONResponse({"capacity": deps(request).queue.share.capacity,
                         "events": [{"number": e.number, "kind": e.kind, "login": e.student,
                                     "rank": e.rank, "upload": e.order, "round": e.round}
                                    for e in events]})  # fmt: skip
