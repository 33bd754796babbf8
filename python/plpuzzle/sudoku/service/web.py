"""The web application: its parts wired together, and what every request
goes through (size limit, security headers, an access log that never
holds a token, the signed-in user, CSRF).

The routes are in routes_*.py by reader: people (signing in, tokens),
students (their uploads), teachers (the class), and the JSON API.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from itsdangerous import BadSignature, TimestampSigner
from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from plpuzzle.sudoku.grading.report_html import GRADE_COLOURS, grade_slug, verdict_matrix
from plpuzzle.sudoku.service.accounts import SignedIn, same
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.queue import GradingQueue
from plpuzzle.sudoku.service.store import User

access_log = logging.getLogger("plpuzzle.service.access")

SESSION_COOKIE = "plpuzzle_session"
#: Before signing in: the double-submitted token of the sign-in form.
PRE_COOKIE = "plpuzzle_pre"
#: What a page may load: our style sheet and script, nothing inline, no frames.
PAGE_POLICY = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
#: Bytes of a request beyond the largest upload (the form's other fields).
FORM_SLACK = 64 * 1024


@dataclass
class Deps:
    """What the routes reach: the service, its queue, its pages."""

    service: Service
    queue: GradingQueue
    pages: Environment
    pre_signer: TimestampSigner
    #: Load checks at once (each a sandbox): at most this many at a time.
    checks: Any


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
    )  # fmt: skip
    env.globals.update(verdict_matrix=verdict_matrix, slug=grade_slug)
    return env


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A page, with the signed-in user and their CSRF token when there is one."""
    signed: SignedIn | None = getattr(request.state, "signed", None)
    d = deps(request)
    text = d.pages.get_template(template).render(
        me=signed.user if signed else None,
        csrf=signed.session.csrf if signed else "",
        course=d.service.course,
        **context,
    )
    return HTMLResponse(text, status_code=status)


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
        raise HTTPException(404, "no such page")
    return signed


async def check_csrf(request: Request) -> None:
    """Every form that changes something carries the session's token."""
    form = await request.form()
    signed: SignedIn | None = request.state.signed
    token = form.get("csrf")
    if signed is None or not isinstance(token, str) or not same(token, signed.session.csrf):
        raise HTTPException(403, "this form has expired: reload the page and try again")


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
    response.delete_cookie(PRE_COOKIE)


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
        raise HTTPException(401, "a valid API token is needed (Authorization: Bearer TOKEN)")
    return user


class BodyLimit:
    """Refuse a request whose body is larger than `limit` bytes, by its
    Content-Length or as it streams in, before anything is spooled."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await _too_large(self.limit, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge()
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await _too_large(self.limit, send)


class _TooLarge(Exception):
    pass


async def _too_large(limit: int, send: Send) -> None:
    body = f"the upload is larger than {limit // 1024} KB".encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})


def create_app(service: Service, queue: GradingQueue | None = None, grade: bool = True) -> FastAPI:
    """The application of `service`; with `grade`, its queue runs with it."""
    import threading

    from plpuzzle.sudoku.service import routes_api, routes_people, routes_student, routes_teacher

    queue = queue or GradingQueue(service)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if grade:
            queue.start()
        yield
        queue.stop()

    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.deps = Deps(service, queue, page_environment(),
                          TimestampSigner(service.accounts.signer.secret_keys[-1], salt="pre"),
                          threading.BoundedSemaphore(max(2, service.settings.jobs)))  # fmt: skip
    app.mount("/static", StaticFiles(packages=[("plpuzzle.sudoku.service", "static")]),
              name="static")  # fmt: skip
    for module in (routes_people, routes_student, routes_teacher, routes_api):
        app.include_router(module.router)
    app.middleware("http")(_every_request)
    app.add_exception_handler(NeedSignIn, _to_sign_in)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, _error_page)  # type: ignore[arg-type]
    app.add_middleware(BodyLimit, limit=service.course.max_upload_kb * 1024 + FORM_SLACK)
    return app


async def _every_request(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    start = time.perf_counter()
    request.state.signed = deps(request).service.accounts.session_of(
        request.cookies.get(SESSION_COOKIE)
    )
    response = await call_next(request)
    response.headers.setdefault("Content-Security-Policy", PAGE_POLICY)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers.setdefault("Cache-Control", "no-store")
    route = request.scope.get("route")
    signed = request.state.signed
    access_log.info(
        "%s %s %d %.0f ms user=%s", request.method, getattr(route, "path", "-"),
        response.status_code, (time.perf_counter() - start) * 1000,
        signed.user.id if signed else "-",
    )  # fmt: skip
    return response


async def _to_sign_in(request: Request, exc: NeedSignIn) -> Response:
    return RedirectResponse("/signin", status_code=303)


async def _error_page(request: Request, exc: HTTPException) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
    return render(request, "error.html.j2", status=exc.status_code, message=exc.detail)


def grade_styles() -> str:
    """The verdicts' colours, as the class report draws them."""
    return "".join(
        f".badge.g-{grade_slug(g)}{{background:{colour}}}\n" for g, colour in GRADE_COLOURS.items()
    )
