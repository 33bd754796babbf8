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

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from itsdangerous import TimestampSigner
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from plpuzzle.sudoku.service import (
    routes_api,
    routes_ops,
    routes_people,
    routes_student,
    routes_teacher,
)
from plpuzzle.sudoku.service.accounts import HASH_SECONDS
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.guard import SignInGuard
from plpuzzle.sudoku.service.intake import Intake
from plpuzzle.sudoku.service.mail import Outbox
from plpuzzle.sudoku.service.queue import GradingQueue
from plpuzzle.sudoku.service.routing import (
    FORM_SLACK,
    PAGE_POLICY,
    SESSION_COOKIE,
    Deps,
    NeedSignIn,
    deps,
    page_environment,
    render,
)
from plpuzzle.sudoku.service.store import now

access_log = logging.getLogger("plpuzzle.service.access")

#: Load checks at once at least (each a sandbox, most of them short).
CHECK_SLOTS = 4


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
        limit, _ = self._for(scope)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await self._too_large(scope, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > limit:
                raise _TooLarge()
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await self._too_large(scope, send)

    async def _too_large(self, scope: Scope, send: Send) -> None:
        words = f"the file is larger than {self._for(scope)[1]} KB, the most this course takes"
        if scope["path"].startswith("/api/"):
            response: Response = JSONResponse({"error": words}, status_code=413)
        else:
            app = scope.get("app")
            pages = app.state.deps.pages if app is not None else page_environment()
            text = pages.get_template("error.html.j2").render(
                me=None, csrf="", course=None, message=words, back="/me"
            )
            response = HTMLResponse(text, status_code=413,
                                    headers={"Content-Security-Policy": PAGE_POLICY})  # fmt: skip
        await response(scope, _no_body, send)


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


class _TooLarge(Exception):
    pass


def create_app(service: Service, queue: GradingQueue | None = None, grade: bool = True) -> FastAPI:
    """The application of `service`; with `grade`, its queue runs with it."""
    queue = queue or GradingQueue(service)

    outbox = Outbox(service)
    queue.outbox = outbox

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if grade:
            queue.start()
            outbox.start()
        yield
        outbox.stop()
        queue.stop()
        intake.close()
        guard.close()

    # No redirect of Starlette's for a trailing slash: it names the host the
    # request's Host header gives; _every_request redirects to the path only.
    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None,
                  redirect_slashes=False)  # fmt: skip
    pages = page_environment()
    pages.globals["course_time"] = service.course.local_text  # times as the course writes them
    intake = Intake(service, queue, max(CHECK_SLOTS, service.settings.jobs))
    guard = SignInGuard(service.accounts.signer.secret_keys[-1], check_seconds=HASH_SECONDS)
    app.state.deps = Deps(service, queue, pages,
                          TimestampSigner(service.accounts.signer.secret_keys[-1], salt="pre"),
                          intake, guard, outbox)  # fmt: skip
    app.mount("/static", StaticFiles(packages=[("plpuzzle.sudoku.service", "static")]),
              name="static")  # fmt: skip
    for module in (routes_people, routes_student, routes_teacher, routes_api, routes_ops):
        app.include_router(module.router)
    app.middleware("http")(_every_request)
    app.add_exception_handler(NeedSignIn, _to_sign_in)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, _error_page)  # type: ignore[arg-type]
    course = service.course
    app.add_middleware(BodyLimit, limit=course.max_upload_kb * 1024 + FORM_SLACK,
                       shown_kb=course.max_upload_kb, doc_kb=course.max_doc_kb)  # fmt: skip
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
    request.state.arrived = now()  # an upload's time: before its body is read
    request.state.signed = deps(request).service.accounts.session_of(
        request.cookies.get(SESSION_COOKIE)
    )
    response = await call_next(request)
    response.headers.setdefault("Content-Security-Policy", PAGE_POLICY)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers.setdefault("Cache-Control", "no-store")
    response.headers["X-Request-Id"] = request.state.request_id
    route = request.scope.get("route")
    signed = request.state.signed
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


async def _error_page(request: Request, exc: HTTPException) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
    return render(request, "error.html.j2", status=exc.status_code, message=exc.detail)
