"""What every route reaches: the service and its pages (`deps`), the
signed-in user, rendering a page, CSRF and the sign-in form's token.

Apart from web.py (which wires the routes together) so that the routes
modules import this and web.py imports them, never the other way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fastapi import HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from itsdangerous import BadSignature, TimestampSigner, URLSafeTimedSerializer
from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.convertors import Convertor, register_url_convertor

from plpuzzle import i18n
from plpuzzle.sudoku.grading.model import verdict_name
from plpuzzle.sudoku.grading.report_html import GRADE_COLOURS, grade_slug, verdict_matrix
from plpuzzle.sudoku.grading.said import said
from plpuzzle.sudoku.service.accounts import SignedIn, same
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.guard import TRUST_DAYS, SignInGuard
from plpuzzle.sudoku.service.intake import Intake
from plpuzzle.sudoku.service.mail import Outbox
from plpuzzle.sudoku.service.queue import GradingQueue
from plpuzzle.sudoku.service.store import User
from plpuzzle.untrusted import one_line


class RowId(Convertor[int]):
    """A row's id in a path: 1 to 18 digits, so that anything a database
    could not hold (SQLite's 64-bit integers) matches no route: 404."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("rowid", RowId())

SESSION_COOKIE = "plpuzzle_session"
#: A browser that signed in before (guard.py): sent to the sign-in form only.
DEVICE_COOKIE = "plpuzzle_device"
#: Before signing in: the double-submitted token of the sign-in form.
PRE_COOKIE = "plpuzzle_pre"
#: A success message for the next page of the session (done_redirect).
FLASH_COOKIE = "plpuzzle_done"
FLASH_SECONDS = 120
#: What a page may load: our style sheet and script, nothing inline, no frames.
PAGE_POLICY = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
#: Bytes of a request beyond the largest upload (the form's other fields).
FORM_SLACK = 64 * 1024
#: Where web.BodyClock keeps the moment a request's body arrived in full.
ARRIVED = "arrived"


@dataclass
class Deps:
    """What the routes reach: the service, its queue, its pages."""

    service: Service
    queue: GradingQueue
    pages: Environment
    pre_signer: TimestampSigner
    #: Uploads taken, and their load checks.
    intake: Intake
    #: Password checks, off the pages' threads, and guesses slowed down.
    guard: SignInGuard
    #: The course's mail, sent off the pages' time.
    outbox: Outbox


def deps(request: Request) -> Deps:
    return request.app.state.deps


def page_environment() -> Environment:
    """The service's templates, with the grader's (macros, the class report)."""
    env = Environment(
        loader=ChoiceLoader([
            PackageLoader("plpuzzle.sudoku.service", "templates"),
            PackageLoader("plpuzzle.sudoku.grading.pages", "templates"),
        ]),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )  # fmt: skip
    # One environment for every reader: `_` translates into the language
    # in force for the request (or the mail) being rendered.
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=i18n._, ngettext=i18n.ngettext, newstyle=True
    )
    env.globals.update(verdict_matrix=verdict_matrix, slug=grade_slug,
                       languages=i18n.LANGUAGE_NAMES, language=i18n.current,
                       verdict_name=verdict_name, said=said)  # fmt: skip
    return env


def page_language(request: Request, user: User | None) -> str:
    """The language a request is answered in, the first of these that
    says: the user's own choice, the browser's Accept-Language, the
    course's default."""
    service = deps(request).service
    if user is not None and user.language in i18n.LANGUAGES:
        return service.language_of(user)
    asked = i18n.browser_language(request.headers.get("accept-language", "")[:500])
    return asked or service.course.language


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A page, with the signed-in user and their CSRF token when there is
    one, and the flash message left for it (shown once)."""
    signed: SignedIn | None = getattr(request.state, "signed", None)
    d = deps(request)
    done = _flash_of(request, signed)
    text = d.pages.get_template(template).render(
        me=signed.user if signed else None,
        csrf=signed.session.csrf if signed else "",
        course=d.service.course,
        done=done,
        here=request.url.path,
        **context,
    )
    response = HTMLResponse(text, status_code=status)
    if FLASH_COOKIE in request.cookies:
        response.delete_cookie(FLASH_COOKIE)
    return response


def _flasher(request: Request) -> URLSafeTimedSerializer:
    secret = deps(request).service.accounts.signer.secret_keys[-1]
    return URLSafeTimedSerializer(secret, salt="plpuzzle-flash")


def done_redirect(request: Request, target: str, done: str) -> Response:
    """To `target` (a path of ours), which says `done` once as a success:
    the words travel in a cookie the service signs for this session, so
    that no link can make a page say anything."""
    response = RedirectResponse(target, status_code=303)
    signed: SignedIn | None = getattr(request.state, "signed", None)
    if signed is not None:
        value = _flasher(request).dumps([signed.session.digest[:16], one_line(done, 300)])
        response.set_cookie(FLASH_COOKIE, value, max_age=FLASH_SECONDS, httponly=True,
                            samesite="strict", secure=_secure(request))  # fmt: skip
    return response


def _flash_of(request: Request, signed: SignedIn | None) -> str:
    """The success words left for this session's next page ("" : none)."""
    cookie = request.cookies.get(FLASH_COOKIE)
    if not cookie or signed is None:
        return ""
    try:
        session, words = _flasher(request).loads(cookie, max_age=FLASH_SECONDS)
    except (BadSignature, ValueError, TypeError):
        return ""
    mine = isinstance(session, str) and same(session, signed.session.digest[:16])
    return words if mine and isinstance(words, str) else ""


class NeedSignIn(Exception):
    """A page that needs a signed-in user was asked without one."""


def signed_in(request: Request) -> SignedIn:
    """The signed-in user of a page request (else to the sign-in page)."""
    signed: SignedIn | None = request.state.signed
    if signed is None:
        raise NeedSignIn()
    return signed


def teacher(request: Request) -> SignedIn:
    signed = signed_in(request)
    if not signed.user.teacher:
        raise HTTPException(404, i18n._("no such page"))
    return signed


async def check_csrf(request: Request) -> None:
    """Every form that changes something carries the session's token."""
    form = await request.form()
    signed: SignedIn | None = request.state.signed
    token = form.get("csrf")
    if signed is None or not isinstance(token, str) or not same(token, signed.session.csrf):
        raise HTTPException(403, i18n._("this form has expired: reload the page and try again"))


def set_pre_cookie(request: Request, response: Response, token: str) -> None:
    """The sign-in form's token, double-submitted: in the form and, signed,
    in a cookie of its own."""
    response.set_cookie(PRE_COOKIE, deps(request).pre_signer.sign(token).decode(),
                        httponly=True, samesite="strict", secure=_secure(request))  # fmt: skip


def check_pre_token(request: Request, token: object) -> bool:
    cookie = request.cookies.get(PRE_COOKIE, "")
    try:
        value = deps(request).pre_signer.unsign(cookie, max_age=3600).decode()
    except (BadSignature, UnicodeDecodeError):
        return False
    return isinstance(token, str) and same(token, value)


def _secure(request: Request) -> bool:
    return deps(request).service.settings.secure_cookies


def set_session(request: Request, response: Response, cookie: str) -> None:
    response.set_cookie(SESSION_COOKIE, cookie, httponly=True, samesite="lax",
                        secure=_secure(request), max_age=12 * 3600)  # fmt: skip
    # Cleared as it was set: behind TLS every Set-Cookie says Secure.
    response.delete_cookie(PRE_COOKIE, httponly=True, samesite="strict", secure=_secure(request))


def set_device(request: Request, response: Response, login: str) -> None:
    """A new device cookie for the browser that just signed in to `login`."""
    response.set_cookie(DEVICE_COOKIE, deps(request).guard.new_device(login), path="/signin",
                        httponly=True, samesite="strict", secure=_secure(request),
                        max_age=TRUST_DAYS * 86400)  # fmt: skip


async def check_sign_in(request: Request, login: str, password: str, device: str) -> User | None:
    """The user of a login and password, checked by the guard (Busy when
    the try must wait); the client is the connection's (or the proxy's
    X-Forwarded-For, only from a proxy uvicorn trusts)."""
    d, name = deps(request), login.strip()
    accounts = d.service.accounts
    address = request.client.host if request.client else ""
    return await d.guard.check(address, name, device, lambda: accounts.has_password(name),
                               lambda: accounts.check_password(name, password))  # fmt: skip


def server_url(request: Request) -> str:
    """The service's address as users reach it: serve --url, else the
    address this request came to."""
    configured = deps(request).service.settings.url
    return (configured or str(request.base_url)).rstrip("/")


def api_user(request: Request) -> User:
    """The user of an API request, by its bearer token."""
    header = request.headers.get("authorization", "")
    kind, _, token = header.partition(" ")
    user = (
        deps(request).service.accounts.token_user(token.strip())
        if kind.lower() == "bearer"
        else None
    )
    if user is None:
        raise HTTPException(
            401, "the service does not know this API token: it was revoked, it expired, "
            "its account was renewed, or it is mistyped; make a new one on the service's "
            "'Sign-ins and API tokens' page, or run `plpuzzle sudoku login SERVER`",
        )  # fmt: skip
    return user


def arrival(request: Request) -> datetime:
    """A hand-in's time: when its request's last byte arrived (web.BodyClock
    stamps it), not when the request began, so that a file that arrives
    after the deadline is late however early its upload was opened."""
    stamp = request.scope.get("state", {}).get(ARRIVED)
    if not isinstance(stamp, datetime):  # a route asked before reading its body: a bug
        raise RuntimeError("a hand-in's time asked before its body arrived")
    return stamp


async def read_hand_in(user: User, file: UploadFile, limit_kb: int) -> bytes:
    """A student's file, read to one byte past the limit (enough to tell
    that it is too large, never more); teachers do not hand in."""
    if user.teacher:
        raise HTTPException(403, i18n._("teachers do not hand in"))
    return await file.read(limit_kb * 1024 + 1)


def grade_styles() -> str:
    """The verdicts' colours, as the class report draws them: the badges,
    and the class page's verdict cells (white on the colour)."""
    return "".join(
        f".badge.g-{slug}{{background:{colour}}}\n"
        f"td.cell.g-{slug}{{background:{colour};color:#fff;border-color:#fff}}\n"
        for slug, colour in ((grade_slug(g), c) for g, c in GRADE_COLOURS.items())
    )
