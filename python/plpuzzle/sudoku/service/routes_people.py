"""Signing in and out, the one-time welcome link, API tokens."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from plpuzzle import i18n
from plpuzzle.sudoku.grading.pages import asset_text
from plpuzzle.sudoku.service.accounts import MIN_PASSWORD, WELCOME_DAYS, AccountError, SignedIn
from plpuzzle.sudoku.service.guard import Busy
from plpuzzle.sudoku.service.routing import (
    DEVICE_COOKIE,
    SESSION_COOKIE,
    check_csrf,
    check_pre_token,
    check_sign_in,
    deps,
    grade_styles,
    render,
    server_url,
    set_device,
    set_pre_cookie,
    set_session,
    signed_in,
)
from plpuzzle.sudoku.service.store import User

router = APIRouter()


@router.get("/")
def home(request: Request) -> Response:
    signed = request.state.signed
    if signed is None:
        return RedirectResponse("/signin", status_code=303)
    return RedirectResponse("/class" if signed.user.teacher else "/me", status_code=303)


def _sign_in_page(request: Request, status: int = 200, error: str = "") -> HTMLResponse:
    token = secrets.token_urlsafe(24)
    page = render(request, "signin.html.j2", status=status, error=error, pre=token)
    set_pre_cookie(request, page, token)
    return page


@router.get("/grades.css")
def grade_css() -> Response:
    return Response(grade_styles(), media_type="text/css",
                    headers={"Cache-Control": "max-age=3600"})  # fmt: skip


@router.get("/feedback.css")
def feedback_css() -> Response:
    """The grader's feedback style, kept to the feedback part of a page."""
    return Response(scoped_css(asset_text("feedback.css"), ".feedback"), media_type="text/css",
                    headers={"Cache-Control": "max-age=3600"})  # fmt: skip


def scoped_css(text: str, scope: str) -> str:
    """Every rule of a simple style sheet (no @-rules) kept to `scope`:
    `body` becomes the scope itself."""
    out = []
    for rule in text.split("}"):
        if "{" not in rule:
            continue
        selectors, body = rule.split("{", 1)
        scoped = [scope if s.strip() == "body" else f"{scope} {s.strip()}"
                  for s in selectors.split(",")]  # fmt: skip
        out.append(f"{', '.join(scoped)} {{{body}}}")
    return "\n".join(out) + "\n"


@router.get("/signin")
def sign_in_form(request: Request) -> Response:
    if request.state.signed is not None:
        return RedirectResponse("/", status_code=303)
    return _sign_in_page(request)


@router.post("/signin")
async def sign_in(
    request: Request,
    login: Annotated[str, Form(max_length=64)],
    password: Annotated[str, Form(max_length=1000)],
    pre: Annotated[str, Form(max_length=100)] = "",
) -> Response:
    if not check_pre_token(request, pre):
        return _sign_in_page(request, 403, i18n._("the sign-in form expired: please try again"))
    try:
        user = await check_sign_in(request, login, password, request.cookies.get(DEVICE_COOKIE, ""))
    except Busy as e:
        words = i18n._("%(why)s: please wait %(seconds)s s and try again")
        page = _sign_in_page(request, 429, words % {"why": e, "seconds": e.seconds})
        page.headers["Retry-After"] = str(e.seconds)
        return page
    if user is None:
        return _sign_in_page(request, 401, i18n._("wrong login or password"))
    cookie, _ = deps(request).service.accounts.open_session(user)
    response = RedirectResponse("/", status_code=303)
    set_session(request, response, cookie)
    set_device(request, response, user.login)
    return response


@router.post("/signout", dependencies=[Depends(check_csrf)])
def sign_out(request: Request) -> Response:
    deps(request).service.accounts.close_session(request.cookies.get(SESSION_COOKIE))
    response = RedirectResponse("/signin", status_code=303)
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="lax",
                           secure=deps(request).service.settings.secure_cookies)  # fmt: skip
    return response


#: What a user whose link does not work should do (in the reader's language: link_gone).
LINK_GONE = i18n.N_(
    "this sign-in link is not valid: it was used already, or it expired (a link lasts "
    "%(days)d days). If you have set your password, sign in with it; if not, or if "
    "you forgot it, ask your teacher for a new link"
)


def link_gone() -> str:
    return i18n._(LINK_GONE) % {"days": WELCOME_DAYS}


@router.get("/welcome/{token}")
def welcome_form(request: Request, token: str) -> Response:
    user = deps(request).service.accounts.welcome(token)
    if user is None:
        raise HTTPException(404, link_gone())
    return render(request, "welcome.html.j2", login=user.login, token=token,
                  min_password=MIN_PASSWORD, error="", expires=user.welcome_expires)  # fmt: skip


@router.post("/welcome/{token}")
def welcome(
    request: Request,
    token: str,
    password: Annotated[str, Form(max_length=1000)],
    again: Annotated[str, Form(max_length=1000)],
) -> Response:
    accounts = deps(request).service.accounts
    user = accounts.welcome(token)
    if user is None:
        raise HTTPException(404, link_gone())
    try:
        if password != again:
            raise AccountError(i18n._("the two passwords differ"))
        accounts.set_password(user.id, password, token)
    except AccountError as e:
        return render(request, "welcome.html.j2", status=400, login=user.login, token=token,
                      min_password=MIN_PASSWORD, error=str(e),
                      expires=user.welcome_expires)  # fmt: skip
    cookie, _ = accounts.open_session(user)
    response = RedirectResponse("/", status_code=303)
    set_session(request, response, cookie)
    set_device(request, response, user.login)
    return response


def tokens_page(request: Request, signed: SignedIn, new_token: str = "",
                error: str = "", status: int = 200) -> Response:  # fmt: skip
    """The user's API tokens and signed-in browsers, with how to use a token."""
    accounts = deps(request).service.accounts
    return render(request, "tokens.html.j2", status=status, tokens=accounts.tokens(signed.user.id),
                  sessions=accounts.sessions(signed.user.id), this=signed.session.digest,
                  new_token=new_token, server=server_url(request), error=error)  # fmt: skip


@router.get("/tokens")
def tokens(request: Request, signed: Annotated[SignedIn, Depends(signed_in)]) -> Response:
    return tokens_page(request, signed)


@router.post("/tokens", dependencies=[Depends(check_csrf)])
def new_token(
    request: Request,
    signed: Annotated[SignedIn, Depends(signed_in)],
    label: Annotated[str, Form(max_length=100)] = "",
    days: Annotated[str, Form(max_length=5)] = "",
) -> Response:
    if days.strip() and not (days.strip().isdigit() and 1 <= int(days) <= 3650):
        words = i18n._("days: a whole number from 1 to 3650, or nothing for a token that "
                       "lasts until revoked")  # fmt: skip
        return tokens_page(request, signed, error=words, status=400)
    token = deps(request).service.accounts.new_token(
        signed.user.id, label or "token", int(days) if days.strip() else None
    )
    return tokens_page(request, signed, new_token=token)


@router.post("/tokens/{token_id:rowid}/revoke", dependencies=[Depends(check_csrf)])
def revoke_token(
    request: Request, token_id: int, signed: Annotated[SignedIn, Depends(signed_in)]
) -> Response:
    deps(request).service.accounts.revoke_token(signed.user.id, token_id)
    return RedirectResponse("/tokens", status_code=303)


@router.post("/sessions/end", dependencies=[Depends(check_csrf)])
def end_session(
    request: Request,
    signed: Annotated[SignedIn, Depends(signed_in)],
    session: Annotated[str, Form(max_length=64)] = "",
) -> Response:
    """End one signed-in browser of the user's (`session`: the start of its
    digest), or every other one (`session` empty)."""
    accounts = deps(request).service.accounts
    if session:
        accounts.end_session(signed.user.id, session)
    else:
        accounts.end_other_sessions(signed.user.id, signed.session.digest)
    return RedirectResponse("/tokens", status_code=303)


@router.post("/language", dependencies=[Depends(check_csrf)])
def choose_language(
    request: Request,
    signed: Annotated[SignedIn, Depends(signed_in)],
    language: Annotated[str, Form(max_length=8)] = "",
    back: Annotated[str, Form(max_length=300)] = "/",
) -> Response:
    """The user's own language for their pages and mails, kept with the
    account ("" : none, their browser's or the course's); back to the page
    the choice was made on (a path of ours only)."""
    if language and language not in i18n.LANGUAGES:
        raise HTTPException(400, i18n._("no such language"))
    with deps(request).service.store.session() as db:
        user = db.get(User, signed.user.id)
        if user is not None:
            user.language = language or None
    target = back if back.startswith("/") and not back.startswith(("//", "/\\")) else "/"
    return RedirectResponse(target, status_code=303)
