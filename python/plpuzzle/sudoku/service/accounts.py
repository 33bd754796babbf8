"""Accounts, sign-in and tokens: who may see what.

Passwords are kept as argon2 hashes; one-time sign-in links, sessions and
API tokens as the SHA-256 of a random token, so that the database alone
lets nobody in. A session's cookie is the token signed with the service's
secret (itsdangerous), so a forged or stale cookie is refused before the
database is asked.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, TimestampSigner
from sqlalchemy import delete, select

from plpuzzle.i18n import _
from plpuzzle.sudoku.grading.intake import id_problem
from plpuzzle.sudoku.service.store import ApiToken, Store, User, WebSession, now

#: How long a session lasts without signing in again.
SESSION_HOURS = 12
#: How long a one-time sign-in link stays valid.
WELCOME_DAYS = 14
#: The shortest password a user may set.
MIN_PASSWORD = 10

#: The environment variable that chooses the hashes' cost (see hasher).
COST_VARIABLE = "PLPUZZLE_PASSWORD_COST"
#: `standard`: argon2-cffi's default parameters (RFC 9106's low-memory
#: profile, 64 MiB and 3 passes), with one lane: a check takes one core,
#: never both (argon2's default of four lanes runs threads), so that the
#: password pool of one thread (guard.py) leaves the other cores to the
#: pages whatever the flood of tries. `cheapest`: the library's profile made
#: for test suites (a hash in microseconds), which the project's tests use
#: so that hundreds of sign-ins do not cost minutes; never for a course.
COSTS = {
    "standard": PasswordHasher(parallelism=1),
    "cheapest": PasswordHasher.from_parameters(profiles.CHEAPEST),
}


def hasher() -> PasswordHasher:
    """The password hasher of the cost PLPUZZLE_PASSWORD_COST names
    (`standard` when unset); a name it does not know is an AccountError."""
    name = os.environ.get(COST_VARIABLE, "standard")
    if name not in COSTS:
        raise AccountError(f"{COST_VARIABLE}={name!r}: the password cost is one of "
                           + ", ".join(COSTS))  # fmt: skip
    return COSTS[name]


@functools.cache
def _dummy(chosen: PasswordHasher) -> tuple[str, float]:
    """A hash verified against when a login turns out unknown in the middle
    of a check (the guard answers unknown logins without a hash: see
    has_password), and what making it took: what one hash takes here, which
    the guard's answer for an unknown login waits until real checks have
    been measured. Made on first use, not when the module loads, so that a
    command that never checks a password does not pay for one."""
    started = time.perf_counter()
    made = chosen.hash(secrets.token_urlsafe(16))
    return made, time.perf_counter() - started


def hash_seconds() -> float:
    """What one hash of the chosen cost takes on this machine."""
    return _dummy(hasher())[1]


class AccountError(Exception):
    """A request about accounts that cannot be met; the message says why."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class NewAccount:
    login: str
    role: str
    #: The one-time sign-in token (None: the account existed already).
    token: str | None
    #: An existing account given a new link (its sessions and tokens ended).
    renewed: bool = False
    #: When the link stops working.
    expires: datetime | None = None


@dataclass(frozen=True)
class SignedIn:
    user: User
    session: WebSession


class Accounts:
    """The accounts of one service's database."""

    def __init__(self, store: Store, secret: bytes) -> None:
        self.store = store
        self.signer = TimestampSigner(secret, salt="plpuzzle-session")

    def create(self, logins: list[str], role: str, renew: bool = False) -> list[NewAccount]:
        """Accounts for `logins` (each a student id), each with a one-time
        sign-in token; an existing account gets a new token only with
        `renew`: its password is cleared and every session and API token
        of it ends, so that whoever held them is out."""
        for login in logins:
            if (problem := id_problem(login)) is not None:
                raise AccountError(f"{login!r} cannot be a login ({problem})")
        made = []
        with self.store.session() as db:
            for login in logins:
                user = db.scalar(select(User).where(User.login == login))
                if user is not None and not renew:
                    made.append(NewAccount(login, user.role, None))
                    continue
                renewed = user is not None
                if user is None:
                    user = User(login=login, role=role)
                    db.add(user)
                    db.flush()
                else:
                    db.execute(delete(WebSession).where(WebSession.user_id == user.id))
                    db.execute(delete(ApiToken).where(ApiToken.user_id == user.id))
                token = secrets.token_urlsafe(32)
                user.password_hash = None
                user.welcome_digest = digest(token)
                user.welcome_expires = now() + timedelta(days=WELCOME_DAYS)
                made.append(NewAccount(login, user.role, token, renewed, user.welcome_expires))
        return made

    def link_user(self, token: str) -> str | None:
        """The login a still-unused sign-in token belongs to (for keeping
        the links not mailed yet)."""
        user = self.welcome(token)
        return None if user is None else user.login

    def welcome(self, token: str) -> User | None:
        """The user a valid, unused one-time token belongs to."""
        with self.store.session() as db:
            user = db.scalar(select(User).where(User.welcome_digest == digest(token)))
            if user is None or user.welcome_expires is None or user.welcome_expires < now():
                return None
            return user

    def set_password(self, user_id: int, password: str, token: str | None = None) -> None:
        """Set a password (a welcome token, if given, is used up)."""
        if len(password) < MIN_PASSWORD:
            raise AccountError(_("a password has at least %(count)d characters")
                               % {"count": MIN_PASSWORD})  # fmt: skip
        with self.store.session() as db:
            user = db.get(User, user_id)
            if user is None:
                raise AccountError("no such account")
            if token is not None and user.welcome_digest != digest(token):
                raise AccountError(_("this sign-in link has been used already"))
            user.password_hash = hasher().hash(password)
            user.welcome_digest = None
            user.welcome_expires = None

    def has_password(self, login: str) -> bool:
        """Whether `login` is an account with a password (a cheap look-up:
        a try for any other login needs no hash)."""
        with self.store.session() as db:
            stored = db.scalar(select(User.password_hash).where(User.login == login))
            return bool(stored)

    def check_password(self, login: str, password: str) -> User | None:
        """The user, when `password` is theirs (a hash made with other
        parameters is made again with ours)."""
        with self.store.session() as db:
            user = db.scalar(select(User).where(User.login == login))
            chosen = hasher()
            dummy = _dummy(chosen)[0]
            stored = user.password_hash if user is not None and user.password_hash else dummy
            try:
                chosen.verify(stored, password)
            except (VerificationError, InvalidHashError):
                return None
            if user is None or stored is dummy:
                return None
            if chosen.check_needs_rehash(stored):
                user.password_hash = chosen.hash(password)
            return user

    def open_session(self, user: User) -> tuple[str, WebSession]:
        """A new session (a sign-in always makes a new one: a session id
        known before signing in is worth nothing after); its cookie value."""
        token = secrets.token_urlsafe(32)
        with self.store.session() as db:
            db.execute(delete(WebSession).where(WebSession.expires < now()))
            session = WebSession(
                digest=digest(token), user_id=user.id, csrf=secrets.token_urlsafe(32),
                expires=now() + timedelta(hours=SESSION_HOURS),
            )  # fmt: skip
            db.add(session)
        return self.signer.sign(token).decode(), session

    def session_of(self, cookie: str | None) -> SignedIn | None:
        """Who a session cookie belongs to, when it is valid."""
        if not cookie:
            return None
        try:
            token = self.signer.unsign(cookie, max_age=SESSION_HOURS * 3600).decode()
        except (BadSignature, UnicodeDecodeError):
            return None
        with self.store.session() as db:
            session = db.get(WebSession, digest(token))
            if session is None or session.expires < now():
                return None
            user = db.get(User, session.user_id)
            return None if user is None else SignedIn(user, session)

    def close_session(self, cookie: str | None) -> None:
        if (signed := self.session_of(cookie)) is not None:
            with self.store.session() as db:
                db.execute(delete(WebSession).where(WebSession.digest == signed.session.digest))

    def new_token(self, user_id: int, label: str, days: int | None = None) -> str:
        """A new API token of the user (shown once: only its digest is
        kept), good for `days` days, or until revoked."""
        token = "plp_" + secrets.token_urlsafe(32)
        expires = now() + timedelta(days=days) if days else None
        with self.store.session() as db:
            db.add(ApiToken(user_id=user_id, digest=digest(token), label=label[:100],
                            expires=expires))  # fmt: skip
        return token

    def token_user(self, token: str) -> User | None:
        """The user of a valid API token (not revoked, not expired)."""
        with self.store.session() as db:
            row = db.scalar(select(ApiToken).where(ApiToken.digest == digest(token)))
            if row is None or (row.expires is not None and row.expires < now()):
                return None
            row.last_used = now()
            return db.get(User, row.user_id)

    def sessions(self, user_id: int) -> list[WebSession]:
        """The user's signed-in browsers, newest first."""
        with self.store.session() as db:
            found = db.scalars(select(WebSession).where(
                WebSession.user_id == user_id, WebSession.expires >= now()))  # fmt: skip
            return sorted(found, key=lambda s: s.created, reverse=True)

    def end_session(self, user_id: int, key: str) -> None:
        """End one of the user's sessions, named by the start of its digest."""
        if len(key) < 16:
            return
        named = WebSession.digest.startswith(key, autoescape=True)
        with self.store.session() as db:
            db.execute(delete(WebSession).where(WebSession.user_id == user_id, named))

    def end_other_sessions(self, user_id: int, keep: str) -> None:
        """End every session of the user but the one of digest `keep`."""
        with self.store.session() as db:
            db.execute(delete(WebSession).where(
                WebSession.user_id == user_id, WebSession.digest != keep))  # fmt: skip

    def tokens(self, user_id: int) -> list[ApiToken]:
        with self.store.session() as db:
            return list(db.scalars(select(ApiToken).where(ApiToken.user_id == user_id)))

    def revoke_token(self, user_id: int, token_id: int) -> None:
        with self.store.session() as db:
            db.execute(delete(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == user_id))


def same(a: str, b: str) -> bool:
    """Compare secrets in constant time."""
    return hmac.compare_digest(a.encode(), b.encode())
