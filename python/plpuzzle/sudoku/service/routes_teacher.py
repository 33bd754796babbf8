"""The teacher's pages: the class as it grades, a student's history,
regrading, the release, exports, similarity and the service's status."""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from markupsafe import Markup
from sqlalchemy import case, func, select

from plpuzzle.i18n import _, ngettext
from plpuzzle.sudoku import api
from plpuzzle.sudoku.grading.pages import script_digest
from plpuzzle.sudoku.grading.report import to_csv, to_wide_csv
from plpuzzle.sudoku.grading.report_html import render_html, verdict_matrix
from plpuzzle.sudoku.grading.similarity.html import page as similarity_page
from plpuzzle.sudoku.grading.similarity.report import summary as similarity_summary
from plpuzzle.sudoku.service.accounts import SignedIn
from plpuzzle.sudoku.service.class_table import (
    SHOWS,
    SORTS,
    Query,
    Row,
    chosen,
    class_rows,
    summary,
)
from plpuzzle.sudoku.service.core import Service, place_upload
from plpuzzle.sudoku.service.exports import canvas_csv, class_json, moodle_csv
from plpuzzle.sudoku.service.grades import class_grades, class_report
from plpuzzle.sudoku.service.mail import release_mail
from plpuzzle.sudoku.service.results import counting_uploads, late_only
from plpuzzle.sudoku.service.routes_student import student_page
from plpuzzle.sudoku.service.routing import (
    check_csrf,
    deps,
    done_redirect,
    render,
    server_url,
    teacher,
)
from plpuzzle.sudoku.service.store import Document, Extension, Mail, Upload, User, now
from plpuzzle.untrusted import one_line

router = APIRouter()

Teacher = Annotated[SignedIn, Depends(teacher)]


#: The class view is made again at most this often while the class changes:
#: at the deadline rush, making it (every counting upload's report read,
#: the verdict matrix drawn) for each request would cost more than grading.
CLASS_VIEW_SECONDS = 5.0


@dataclass(frozen=True)
class ClassView:
    """The class as its pages show it, made once for a version of it."""

    version: str
    report: dict[str, Any]
    #: The students' table's rows (class_table.py), by login.
    rows: list[Row]
    #: What the class page's changing part is drawn from, beside the rows
    #: chosen for a request.
    context: dict[str, Any]
    made: float


_class_lock = threading.Lock()


def class_view(request: Request, current: bool = False) -> ClassView:
    """The class view: the one made last while it is current, or (for a
    page, not `current`) younger than CLASS_VIEW_SECONDS; else made again,
    one request at a time. Exports and the class report ask for `current`."""
    d = deps(request)
    with _class_lock:
        kept: ClassView | None = getattr(request.app.state, "class_view", None)
        young = kept is not None and time.monotonic() - kept.made < CLASS_VIEW_SECONDS
        if kept is not None and young and not current:
            return kept
        version = class_version(d.service)
        if kept is not None and kept.version == version:
            kept = replace(kept, made=time.monotonic())
        else:
            grades = class_grades(d.service, True)
            report = class_report(d.service, grades=grades)
            rows = class_rows(d.service, grades, late_only(d.service))
            kept = ClassView(version, report, rows, _live_context(d.service, report, version),
                             time.monotonic())  # fmt: skip
        request.app.state.class_view = kept
        return kept


def _live_context(service: Service, report: dict[str, Any], version: str) -> dict[str, Any]:
    """What the class page's changing part shows besides the rows: the
    verdict matrix (a row a student, by login), the grades met, the queue."""
    used = [g for g in report["grades"]
            if any(st["counts"].get(g) for st in report["students"])]  # fmt: skip
    results = {st["id"]: st["results"] for st in report["students"]}
    matrix = verdict_matrix(report)[0] if len(report["tests"]) > MATRIX_TABLE_TESTS else None
    pictures = {r["id"]: r for r in matrix["rows"]} if matrix is not None else None
    return {"report": report, "results": results, "pictures": pictures, "matrix": matrix,
            "version": version, "queued": _queued(service), "course": service.course,
            "used": used, "deduct": bool(report.get("requirements"))}  # fmt: skip


#: Up to this many tests the verdict matrix is a table (a cell a test,
#: named); past it, a picture a student.
MATRIX_TABLE_TESTS = 40


def live_of(request: Request, view: ClassView) -> Markup:
    """The class page's changing part, with the rows the request's query
    asks for (class_table.chosen)."""
    query = Query.of(request.query_params)
    rows = chosen(view.rows, query)
    page = deps(request).pages.get_template("class_live.html.j2")
    return Markup(page.render(**view.context, rows=rows, query=query, everyone=view.rows,
                              summary=summary(view.rows), sorts=SORTS))  # fmt: skip


def class_version(service: Service) -> str:
    """Changes whenever anything the class page shows may have changed."""
    with service.store.session() as db:
        row = db.execute(
            select(func.count(Upload.id), func.max(Upload.id), func.max(Upload.graded),
                   func.sum(Upload.attempt), func.sum(case((Upload.late, 1), else_=0)))
        ).one()  # fmt: skip
        states = db.execute(select(Upload.state, func.count()).group_by(Upload.state)).all()
        # A document counts for a requirement; an extension moves a deadline.
        papers = db.execute(select(func.count(Document.id), func.max(Document.id))).one()
        granted = db.execute(
            select(func.count(Extension.user_id), func.max(Extension.granted_at))
        ).one()
    return (f"{tuple(row)}{sorted(tuple(s) for s in states)}{tuple(papers)}{tuple(granted)}"
            f"{service.released()}")  # fmt: skip


def _queued(service: Service) -> int:
    with service.store.session() as db:
        found = db.scalar(select(func.count()).where(Upload.state.in_(("queued", "running"))))
    return int(found or 0)


@router.get("/class")
def class_page(request: Request, signed: Teacher) -> Response:
    view = class_view(request)
    service = deps(request).service
    query = Query.of(request.query_params)
    return render(request, "class.html.j2", live=live_of(request, view), version=view.version,
                  released=service.released(), manual=service.course.release is None,
                  query=query, shows=SHOWS, exports=EXPORTS)  # fmt: skip


@router.get("/class/live")
def class_live(request: Request, signed: Teacher) -> Response:
    return HTMLResponse(live_of(request, class_view(request)))


@router.get("/class/status.json")
def class_status(request: Request, signed: Teacher) -> Response:
    return JSONResponse({"version": class_view(request).version})


@router.get("/class/report")
def class_report_page(request: Request, signed: Teacher) -> Response:
    """The class report, as `sudoku grade` writes it, of the counting uploads."""
    report = class_view(request, current=True).report
    page = render_html(report, back=("/class", _("the class page")))
    policy = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
              f"script-src {script_digest('report.js')}")  # fmt: skip
    return HTMLResponse(page, headers={"Content-Security-Policy": policy})


@router.get("/students/{login}")
def student(request: Request, login: str, signed: Teacher) -> Response:
    with deps(request).service.store.session() as db:
        user = db.scalar(select(User).where(User.login == login))
    if user is None:
        raise HTTPException(404, _("no such student"))
    return student_page(request, user, "student.html.j2")


def chosen_uploads(request: Request, login: str) -> list[Upload]:
    """The counting uploads of everyone, or of one student (404 if none such)."""
    everyone = counting_uploads(deps(request).service)
    if login and login not in everyone:
        raise HTTPException(404, _("no such student"))
    return [u for k, u in everyone.items() if u is not None and (not login or k == login)]


def typed_deadline(service: Service, until: str) -> datetime | None:
    """An extension's date as typed on the page or sent to the API (empty:
    none), or a 400 saying why it is none."""
    try:
        return service.course.parse_typed(until) if until.strip() else None
    except ValueError as e:
        raise HTTPException(400, one_line(str(e), 200)) from None


def grant_typed_extension(service: Service, login: str, until: str,
                          by: str) -> tuple[User, datetime | None]:  # fmt: skip
    """The one way a teacher grants (or, empty, takes back) an extension,
    from the page or the API: 404 for no such student, 400 for a date the
    service does not take; the student and the deadline granted."""
    with service.store.session() as db:
        user = db.scalar(select(User).where(User.login == login, User.role == "student"))
    if user is None:
        raise HTTPException(404, _("no such student"))
    when = typed_deadline(service, until)
    service.grant_extension(user, when, by)
    return user, when


@router.post("/students/{login}/extension", dependencies=[Depends(check_csrf)])
def extension(request: Request, login: str, signed: Teacher,
              until: Annotated[str, Form(max_length=40)] = "") -> Response:  # fmt: skip
    """Give a student a deadline of their own (empty: take it back)."""
    service = deps(request).service
    _user, when = grant_typed_extension(service, login, until, signed.user.login)
    done = (_("%(login)s's deadline is now %(when)s")
            % {"login": login, "when": service.course.deadline_text(when)} if when
            else _("%(login)s's extension was taken back") % {"login": login})  # fmt: skip
    return done_redirect(request, f"/students/{login}", done)


@router.get("/regrade")
def regrade_confirm(request: Request, signed: Teacher, login: str = "") -> Response:
    """What a regrade would do, and the button that does it."""
    count = {"count": len(chosen_uploads(request, login)), "login": login}
    words = (_("Grade again, from scratch, %(count)s counting upload(s) of %(login)s: after a "
               "fix of the suite, say. Their results are replaced as the new gradings end; "
               "students' own uploads are graded first.") if login else
             _("Grade again, from scratch, %(count)s counting upload(s) (one per student who "
               "has one): after a fix of the suite, say. Their results are replaced as the new "
               "gradings end; students' own uploads are graded first."))  # fmt: skip
    title = _("Regrade %(login)s") % count if login else _("Regrade everyone")
    return render(request, "confirm.html.j2", action="/regrade", login=login, title=title,
                  words=words % count, button=_("Regrade"))  # fmt: skip


@router.post("/regrade", dependencies=[Depends(check_csrf)])
def regrade(request: Request, signed: Teacher,
            login: Annotated[str, Form(max_length=64)] = "") -> Response:  # fmt: skip
    """Grade again, from scratch, every student's counting upload (or one
    student's): after a fix of the suite, say."""
    count = deps(request).queue.regrade([u.id for u in chosen_uploads(request, login)])
    done = _("%(count)s counting upload(s) queued to be graded again") % {"count": count}
    target = f"/students/{login}" if login else "/class"
    return done_redirect(request, target, done)


@router.post("/uploads/{upload_id:rowid}/grade", dependencies=[Depends(check_csrf)])
def grade_one(request: Request, upload_id: int, signed: Teacher) -> Response:
    """Grade one upload in full from scratch: one a newer upload replaced
    before it was graded, or one whose grading failed."""
    d = deps(request)
    if not d.queue.regrade([upload_id]):
        raise HTTPException(404, _("no such upload"))
    return RedirectResponse(f"/uploads/{upload_id}", status_code=303)


@router.get("/release")
def release_confirm(request: Request, signed: Teacher) -> Response:
    service = deps(request).service
    students = sum(1 for u in counting_uploads(service).values() if u)
    mails = len(release_mails(service, server_url(request)))
    mailing = (
        _(
            "It mails the %(count)s of them with an address who were not mailed about that "
            "upload yet; students without an upload that counts get no mail."
        )
        % {"count": mails}
        if service.mail is not None
        else _("The course has no mail: nobody is mailed.")
    )
    words = " ".join([
        _("Show every student every test's result and feedback (%(count)s student(s) have an "
          "upload that counts).") % {"count": students}, mailing,
        _("You can withdraw the release later, but students may have seen the results "
          "by then.")])  # fmt: skip
    return render(request, "confirm.html.j2", action="/release", login="",
                  title=_("Release full results"), words=words,
                  button=_("Release and mail %(count)s") % {"count": mails} if mails
                  else _("Release"))  # fmt: skip


@router.post("/release", dependencies=[Depends(check_csrf)])
def release(request: Request, signed: Teacher) -> Response:
    mailed = release_and_mail(request)
    done = _("results released: students see every test's result and feedback")
    if mailed:
        done = _(
            "results released: students see every test's result and feedback; "
            "%(count)s student(s) will be mailed"
        ) % {"count": mailed}
    return done_redirect(request, "/class", done)


def release_and_mail(request: Request) -> int:
    """Release the results, and mail each student whose upload counts
    that it is released, once per counting upload (a release withdrawn
    and made again mails nobody twice); how many mails were queued."""
    d = deps(request)
    d.service.release()
    mails = release_mails(d.service, server_url(request))
    return d.outbox.put_once([(key, *mail) for key, mail in mails.items()], "release")


def release_mails(service: Service, base: str) -> dict[str, tuple[str, str, str]]:
    """The release's mails not queued yet, by what they are about
    (release:LOGIN:UPLOAD): (address, subject, body) for each student with
    an upload that counts and an address."""
    if service.mail is None:
        return {}
    counting = {login: u for login, u in counting_uploads(service).items() if u is not None}
    with service.store.session() as db:
        users = {u.login: u for u in db.scalars(select(User).where(User.login.in_(counting)))}
        had = set(db.scalars(select(Mail.once).where(Mail.once.like("release:%"))))
    out = {}
    for login, upload in counting.items():
        key, address = f"release:{login}:{upload.id}", service.address_of(users[login])
        if key in had or not address:
            continue
        out[key] = (address, *release_mail(service, users[login], upload, base))
    return out


@router.post("/release/withdraw", dependencies=[Depends(check_csrf)])
def withdraw_release(request: Request, signed: Teacher) -> Response:
    service = deps(request).service
    service.release(False)
    done = _("release withdrawn: students see the public tests' results only")
    if service.released():  # a release date in suite.toml decides
        done = _("the release date of suite.toml has passed: results stay released")
    return done_redirect(request, "/class", done)


#: The exports of the class, by file name.
EXPORTS = ("grades.csv", "grades-wide.csv", "class.json", "moodle.csv", "canvas.csv")


def export_of(request: Request, name: str) -> Response:
    """One export of the counting uploads' grades (404 for no such)."""
    if name not in EXPORTS:
        raise HTTPException(404, _("no such export: %(names)s") % {"names": ", ".join(EXPORTS)})
    service = deps(request).service
    report = exported_report(request)
    if name == "class.json":
        return JSONResponse(class_json(report))
    with service.store.session() as db:
        users = list(db.scalars(select(User).where(User.role == "student")))
    emails = {u.login: service.address_of(u) for u in users}
    subjects = {u.login: u.subject or "" for u in users}
    names = {u.login: u.name or "" for u in users}
    item = service.course.name
    writers = {"grades.csv": to_csv, "grades-wide.csv": to_wide_csv,
               "moodle.csv": lambda r: moodle_csv(r, item, emails),
               "canvas.csv": lambda r: canvas_csv(r, item, subjects, names)}  # fmt: skip
    text = writers[name](report)
    if name in FOR_EXCEL:
        text = "\ufeff" + text
    return Response(text.encode("utf-8"), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})  # fmt: skip


#: The exports an LMS or Excel imports: UTF-8 with a byte order mark, or
#: Excel reads them in the machine's old code page ("DeklaratÃ­v").
FOR_EXCEL = ("moodle.csv", "canvas.csv")


def exported_report(request: Request) -> dict[str, Any]:
    """The class as the exports hold it: until the release, only what the
    students see themselves (the public tests, and what the course
    requirements take off), so that a nightly pull into an LMS shows
    students nothing early; every test once released."""
    service = deps(request).service
    if service.released():
        return class_view(request, current=True).report
    return class_report(service, everything=False)


@router.get("/export/{name}")
def export(request: Request, name: str, signed: Teacher) -> Response:
    """The grades of the counting uploads: grades.csv, grades-wide.csv,
    class.json, and Moodle's and Canvas's import files."""
    return export_of(request, name)


_similarity_lock = threading.Lock()


@router.get("/similarity")
def similarity(request: Request, signed: Teacher) -> Response:
    """The latest comparison's pairs at or above the threshold, its groups,
    and the whole report's link; the part that changes is kept current by
    the page's script (service.js), while a comparison runs and after."""
    version, context = _similarity_state(deps(request).service)
    live = deps(request).pages.get_template("similarity_live.html.j2").render(**context)
    return render(request, "similarity.html.j2", live=Markup(live), version=version)


@router.get("/similarity/live")
def similarity_live(request: Request, signed: Teacher) -> Response:
    _version, context = _similarity_state(deps(request).service)
    return render(request, "similarity_live.html.j2", **context)


@router.get("/similarity/status.json")
def similarity_status(request: Request, signed: Teacher) -> Response:
    return JSONResponse({"version": _similarity_state(deps(request).service)[0]})


def _similarity_state(service: Service) -> tuple[str, dict[str, Any]]:
    """The comparison as the page shows it, and a version that changes
    with it (a comparison started, ended or failed)."""
    data = service.data
    state = data / "similarity.state"
    try:
        found = json.loads((data / "similarity.json").read_text(encoding="utf-8"))
        made = datetime.fromisoformat(found["made"])
    except (OSError, ValueError, KeyError, TypeError):
        found, made = None, None
    kept = state.read_text() if state.is_file() else ""
    ready = (data / "similarity.html").is_file()
    version = f"{kept}|{made.isoformat() if made else ''}|{ready}"
    return version, {"ready": ready, "found": found, "made": made, "state": _state_words(kept)}


def _state_words(kept: str) -> str:
    """The comparison's state file as the reader's language says it: the
    file holds "comparing", or "failed: " and the error, in no language
    (the thread that writes it answers no reader)."""
    if kept == "comparing":
        return _("comparing the counting uploads...")
    if kept.startswith("failed: "):
        return _("the comparison failed: %(error)s") % {"error": kept[len("failed: ") :]}
    return kept


@router.get("/similarity/report")
def similarity_report(request: Request, signed: Teacher) -> Response:
    found = deps(request).service.data / "similarity.html"
    if not found.is_file():
        raise HTTPException(404, _("the similarity report has not been made yet"))
    policy = "default-src 'none'; style-src 'unsafe-inline'"
    return HTMLResponse(found.read_text(encoding="utf-8"),
                        headers={"Content-Security-Policy": policy})  # fmt: skip


@router.post("/similarity", dependencies=[Depends(check_csrf)])
def compare(request: Request, signed: Teacher) -> Response:
    """Compare the counting uploads, in the background."""
    service = deps(request).service
    if _similarity_lock.acquire(blocking=False):
        threading.Thread(target=_compare, args=(service,), daemon=True).start()
    return RedirectResponse("/similarity", status_code=303)


def _compare(service: Service) -> None:
    state = service.data / "similarity.state"
    try:
        state.write_text("comparing")
        with tempfile.TemporaryDirectory(prefix="plpuzzle-similar-") as tmp:
            folder = Path(tmp) / "class"
            folder.mkdir()
            for login, upload in counting_uploads(service).items():
                if upload is not None:
                    place_upload(service, upload.blob, upload.suffix, login, folder)
            sim = api.similar(folder, dialect=service.grade_settings.dialect,
                              jobs=service.settings.jobs)  # fmt: skip
            out = service.data / "similarity.html.tmp"
            out.write_text(similarity_page(sim), encoding="utf-8")
            shutil.move(out, service.data / "similarity.html")
            found = service.data / "similarity.json.tmp"
            found.write_text(json.dumps({"made": now().isoformat(), **similarity_summary(sim)}),
                             encoding="utf-8")  # fmt: skip
            shutil.move(found, service.data / "similarity.json")
        state.write_text("")
    except Exception as e:  # said on the page, never the service's end
        state.write_text(f"failed: {one_line(f'{type(e).__name__}: {e}', 300)}")
    finally:
        _similarity_lock.release()


@router.get("/status")
def status(request: Request, signed: Teacher) -> Response:
    d = deps(request)
    with d.service.store.session() as db:
        states = dict(db.execute(select(Upload.state, func.count()).group_by(Upload.state)).all())
        users = db.scalar(select(func.count(User.id))) or 0
        running = dict(d.queue.progress)
        numbers = dict(db.execute(select(Upload.id, Upload.number)
                                  .where(Upload.id.in_(list(running)))).all())  # fmt: skip
    jobs = d.service.settings.jobs
    where = d.service.settings.scheduler or (
        ngettext("this machine, %(count)s job", "this machine, %(count)s jobs", jobs)
        % {"count": jobs}
    )
    return render(request, "status.html.j2", states=states, users=users, where=where,
                  mail=d.outbox.counts() if d.service.mail else None,
                  mail_troubles=d.outbox.troubles() if d.service.mail else [],
                  rate=d.queue.rate(), disk=d.service.disk_used(),
                  running=running, numbers=numbers, queue=d.queue.queue_by_student(),
                  share=d.queue.share.snapshot(), sign_ins=d.guard.counts)  # fmt: skip
