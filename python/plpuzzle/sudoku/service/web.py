"""The web application: its parts wired together, and what every request
goes through (size limit, security headers, an access log that never
holds a token, the signed-in user, CSRF).

The routes are in routes_*.py by reader: people (signing in, tokens),
students (their uploads), teachers (the class), and the JSON API; what
they share in routing.py.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from itsdangerous import TimestampSigner
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from plpuzzle import i18n
from plpuzzle.i18n import N_
from plpuzzle.sudoku.service import (
    routes_api,
    routes_ops,
    routes_people,
    routes_student,
    routes_teacher,
)
from plpuzzle.sudoku.service.accounts import hash_seconds
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.guard import SignInGuard
from plpuzzle.sudoku.service.intake import Intake
from plpuzzle.sudoku.service.mail import Outbox
from plpuzzle.sudoku.service.queue import GradingQueue
from plpuzzle.sudoku.service.routing import (
    ARRIVED,
    FORM_SLACK,
    PAGE_POLICY,
    SESSION_COOKIE,
    Deps,
    NeedSignIn,
    deps,
    page_environment,
    page_language,
    render,
)
from plpuzzle.sudoku.service.store import now

access_log = logging.getLogger("plpuzzle.service.access")

#: How long a request's body may take to arrive, counted from its headers:
#: the course's body_seconds, or its size at BODY_RATE bytes a second if
#: that is longer, BODY_LONGEST times body_seconds at most (and for a body
#: of no stated size).
BODY_RATE = 16 * 1024
BODY_LONGEST = 4


def body_seconds(length: int | None, shortest: float) -> float:
    """How long a body of `length` bytes (None: not stated) may take, when
    the shortest bound is `shortest` seconds (the course's body_seconds)."""
    longest = BODY_LONGEST * shortest
    if length is None:
        return longest
    return min(longest, max(shortest, length / BODY_RATE))


class BodyClock:
    """Stamp the moment a request's body has arrived in full (its last
    byte read: `routing.arrival`, a hand-in's time), and refuse with 408 a
    body that has not arrived within `body_seconds` of the headers, however
    it trickles; nothing of it is kept. A response to a request whose body
    was not read to its end closes the connection, so that no client holds
    one open with a body that never ends."""

    def __init__(self, app: ASGIApp, shortest: float) -> None:
        self.app, self.shortest = app, shortest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length", b"")
        stated = int(length) if length.isdigit() else None
        seconds = body_seconds(stated, self.shortest)
        until = anyio.current_time() + seconds
        state = scope.setdefault("state", {})
        ended = not stated and b"transfer-encoding" not in headers
        if ended:  # no body: all of it arrived with the headers
            state[ARRIVED] = now()
        refused = False

        async def timed() -> Message:
            nonlocal ended, refused
            if ended:
                return await receive()
            with anyio.move_on_after(until - anyio.current_time()):
                message = await receive()
                if message["type"] != "http.request" or not message.get("more_body", False):
                    ended = True
                    if message["type"] == "http.request":
                        state[ARRIVED] = now()
                return message
            # Too slow: answered here and now; to the application, the client
            # has left (and what it answers to that is not sent).
            too_slow = N_("the request's body did not arrive within %(seconds)d s: nothing of "
                          "it was kept; send it again")  # fmt: skip
            await _refusal(scope, 408, too_slow, seconds=round(seconds))(scope, _no_body, closing)
            refused = True
            return {"type": "http.disconnect"}

        async def closing(message: Message) -> None:
            if refused:
                return
            if message["type"] == "http.response.start" and not ended:
                closed = [*message.get("headers", []), (b"connection", b"close")]
                message = {**message, "headers": closed}
            await send(message)

        await self.app(scope, timed, closing)


def _refusal(scope: Scope, status: int, message: str, **places: object) -> Response:
    """A refusal before the application answered, `message` (filled with
    `places`) in the request's language: the site's error page, or JSON
    for the API."""
    app = scope.get("app")
    with i18n.speaking(_scope_language(scope) if app is not None else "en"):
        words = i18n._(message) % places
        if scope["path"].startswith("/api/"):
            return JSONResponse({"error": words}, status_code=status)
        pages = app.state.deps.pages if app is not None else page_environment()
        text = pages.get_template("error.html.j2").render(
            me=None, csrf="", course=None, message=words, back="/me"
        )
    return HTMLResponse(text, status_code=status,
                        headers={"Content-Security-Policy": PAGE_POLICY})  # fmt: skip


def _scope_language(scope: Scope) -> str:
    """The language of a request refused before the application answered,
    as page_language decides any request's: the signed-in user's choice
    (their session cookie), the browser's, the course's."""
    request = Request(scope)
    signed = deps(request).service.accounts.session_of(request.cookies.get(SESSION_COOKIE))
    return page_language(request, signed.user if signed else None)


class BodyLimit:
    """Refuse a request whose body is larger than `limit` bytes, by its
    Content-Length or as it streams in, before anything is spooled; the
    answer names the course's own limit (`shown_kb`), as the site's page
    or, for the API, as JSON."""

    def __init__(self, app: ASGIApp, limit: int, shown_kb: int, doc_kb: int) -> None:
        self.app, self.limit, self.shown_kb, self.doc_kb = app, limit, shown_kb, doc_kb

    def _for(self, scope: Scope) -> tuple[int, int]:
        """(bytes, KB shown) a request to this path may send: documentation
        has a limit of its own."""
        if scope["path"] in ("/documents", "/api/documents"):
            return self.doc_kb * 1024 + (self.limit - self.shown_kb * 1024), self.doc_kb
        return self.limit, self.shown_kb

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit, shown_kb = self._for(scope)

        def too_large(scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
            big = N_("the file is larger than %(kb)d KB, the most this course takes")
            return _refusal(scope, 413, big, kb=shown_kb)(scope, receive, send)

        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            if length.isdigit():
                await _drain(receive, int(length))
            await too_large(scope, _no_body, send)
            return
        seen, refused = 0, False

        async def counted() -> Message:
            # Past the limit (a body in chunks, of no stated size): answered
            # here and now; to the application, the client has left. An
            # exception would reach the form parser, which answers 400.
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > limit:
                refused = True
                if message.get("more_body"):
                    await _drain(receive, DRAIN_BYTES)
                await too_large(scope, _no_body, send)
                return {"type": "http.disconnect"}
            return message

        async def unless_refused(message: Message) -> None:
            if not refused:
                await send(message)

        await self.app(scope, counted, unless_refused)


#: How much of a refused body is read and dropped before the answer, and
#: for how long: a proxy still sending it when the connection closes with
#: data unread gets a reset, and answers 502 instead of the refusal.
DRAIN_BYTES, DRAIN_SECONDS = 8 * 1024 * 1024, 3.0


async def _drain(receive: Receive, declared: int) -> None:
    """Read and drop a refused body, if it is no larger than DRAIN_BYTES
    and arrives within DRAIN_SECONDS; a larger or slower one is left."""
    if declared > DRAIN_BYTES:
        return
    got = 0
    with anyio.move_on_after(DRAIN_SECONDS):
        while got <= DRAIN_BYTES:
            message = await receive()
            got += len(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body"):
                return


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def server_config(app: FastAPI, **more: Any) -> Any:
    """uvicorn's settings for the service, `serve`'s and the tests' that
    serve the application in their own process (`more`: where to listen,
    how long requests under way get at a stop)."""
    import uvicorn

    return uvicorn.Config(app, access_log=False, log_level="warning", server_header=False,
                          **more)  # fmt: skip


def create_app(service: Service, queue: GradingQueue | None = None, grade: bool = True) -> FastAPI:
    """The application of `service`; with `grade`, its queue runs with it."""
    queue = queue or GradingQueue(service)

    outbox = Outbox(service)
    queue.outbox = outbox

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        queue.start(grading=grade)  # without grading, uploads are checked only
        if grade:
            outbox.start()
        yield
        outbox.stop()
        queue.stop()
        guard.close()

    # No redirect of Starlette's for a trailing slash: it names the host the
    # request's Host header gives; _every_request redirects to the path only.
    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None,
                  redirect_slashes=False)  # fmt: skip
    pages = page_environment()
    pages.globals["course_time"] = service.course.local_text  # times as the course writes them
    intake = Intake(service, queue)
    guard = SignInGuard(service.accounts.signer.secret_keys[-1], check_seconds=hash_seconds())
    app.state.deps = Deps(service, queue, pages,
                          TimestampSigner(service.accounts.signer.secret_keys[-1], salt="pre"),
                          intake, guard, outbox)  # fmt: skip
    app.mount("/static", StaticFiles(packages=[("plpuzzle.sudoku.service", "static")]),
              name="static")  # fmt: skip
    for module in (routes_people, routes_student, routes_teacher, routes_api, routes_ops):
        app.include_router(module.router)
    app.middleware("http")(_every_request)
    app.add_exception_handler(NeedSignIn, _to_sign_in)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, _error_page)  # type: ignore[arg-type]
    course = service.course
    app.add_middleware(BodyLimit, limit=course.max_upload_kb * 1024 + FORM_SLACK,
                       shown_kb=course.max_upload_kb, doc_kb=course.max_doc_kb)  # fmt: skip
    # Outermost: the stamp and the bound see every byte.
    app.add_middleware(BodyClock, shortest=course.body_seconds)
    return app


async def _every_request(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    start = time.perf_counter()
    request.state.request_id = secrets.token_hex(8)  # ours: a client's is not trusted
    path = request.url.path
    if len(path) > 1 and path.endswith("/") and request.method in ("GET", "HEAD"):
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse("/" + path.strip("/") + query, status_code=307)
    request.state.signed = deps(request).service.accounts.session_of(
        request.cookies.get(SESSION_COOKIE)
    )
    signed = request.state.signed
    i18n.choose(page_language(request, signed.user if signed else None))
    response = await call_next(request)
    response.headers.setdefault("Content-Security-Policy", PAGE_POLICY)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers.setdefault("Cache-Control", "no-store")
    response.headers["X-Request-Id"] = request.state.request_id
    route = request.scope.get("route")
    # One JSON line a request: the route's pattern, never its path or query
    # (a sign-in link's token), nor any header or body (passwords, tokens).
    access_log.info(json.dumps({
        "time": now().isoformat(timespec="milliseconds"), "id": request.state.request_id,
        "method": request.method, "route": getattr(route, "path", "-"),
        "status": response.status_code, "ms": round((time.perf_counter() - start) * 1000),
        "user": signed.user.id if signed else None,
        "client": request.client.host if request.client else None,
    }))  # fmt: skip
    return response


async def _to_sign_in(request: Request, exc: NeedSignIn) -> Response:
    return RedirectResponse("/signin", status_code=303)


async def _error_page(request: Request, exc: StarletteHTTPException) -> Response:
    """An error as its reader takes it: JSON for the API and for a client
    that asks for JSON (not HTML), else the site's page; a path no route
    has (Starlette's 404, which is no FastAPI exception) too."""
    accept = request.headers.get("accept", "")
    wants_json = "application/json" in accept and "text/html" not in accept
    if request.url.path.startswith("/api/") or wants_json:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code,
                            headers=exc.headers)  # fmt: skip
    if not hasattr(request.state, "signed"):  # refused before the middleware
        request.state.signed = None
    words = i18n._("no such page") if exc.detail == "Not Found" else exc.detail
    page = render(request, "error.html.j2", status=exc.status_code, message=words)
    for name, value in (exc.headers or {}).items():
        page.headers[name] = value
    return page
