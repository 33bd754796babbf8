"""One running service: its course, its data folder and what lives there.

DATA/service.sqlite   accounts, sessions, tokens, uploads (store.py)
DATA/grades.sqlite    the grading gradebook: every test's result
DATA/blobs/ab/abcd…   every uploaded file, once, by its SHA-256
DATA/reports/ID/N/    upload ID's Nth grading on every test: grades.json, feedback/
DATA/reports/ID/N.public/  the same grading's first stage, on the public tests
DATA/secret.key       signs the session cookies (made at first start)
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import socket
import threading
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, select, text

from plpuzzle import i18n
from plpuzzle.sandbox.workspace import new_run_id, run_is_alive
from plpuzzle.sudoku.grading.grader import GradingRequest, resolve
from plpuzzle.sudoku.grading.model import GradeSettings
from plpuzzle.sudoku.runs.suite import SuiteError, discover
from plpuzzle.sudoku.runs.suite_config import Points, RequirementsPolicy, load_manifest
from plpuzzle.sudoku.service.accounts import Accounts
from plpuzzle.sudoku.service.course import CourseRules, MailSettings, load_course
from plpuzzle.sudoku.service.store import (
    CourseState,
    Document,
    Extension,
    Store,
    Upload,
    User,
    now,
)


@dataclass(frozen=True)
class ServiceSettings:
    """How a service runs (the options of `plpuzzle sudoku serve`)."""

    suite: Path
    data: Path
    #: A SQLAlchemy URL; None: DATA/service.sqlite.
    database_url: str | None = None
    jobs: int = 1
    #: A Dask scheduler (tcp://HOST:PORT) to grade on; None: this machine.
    scheduler: str | None = None
    #: Mark cookies Secure (behind a TLS proxy).
    secure_cookies: bool = False
    #: The service's address as users reach it (None: the one each request came to).
    url: str | None = None


class Blobs:
    """Uploaded files by content: stored once, never executed, never served
    as anything a browser would run."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, digest: str) -> Path:
        return self.folder / digest[:2] / digest

    @staticmethod
    def digest_of(data: bytes) -> str:
        """The name a file is kept under: its SHA-256."""
        return hashlib.sha256(data).hexdigest()

    def put(self, data: bytes) -> str:
        digest = self.digest_of(data)
        path = self.path(digest)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{secrets.token_hex(4)}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        return digest

    def read(self, digest: str) -> bytes:
        return self.path(digest).read_bytes()


#: How long another machine's service process may go without a heartbeat
#: before the uploads it claimed are taken over.
CLAIM_LEASE = timedelta(minutes=3)


def _secret(path: Path) -> bytes:
    """The service's signing key, made once (readable by its owner only)."""
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(32))
    return path.read_bytes()


class Service:
    """The course, the database and the files of one running service."""

    def __init__(self, settings: ServiceSettings) -> None:
        self.settings = settings
        self.suite = settings.suite
        if not settings.suite.is_dir():
            raise SuiteError(f"{settings.suite}: no such course folder (a suite with suite.toml)")
        self.course: CourseRules = load_course(settings.suite)
        #: The course's mail settings ([course.mail]); None: no mail.
        self.mail: MailSettings | None = self.course.mail
        self.grade_settings, self.points = self._grading()
        #: The tests that count, in suite order.
        self.tests = [c.name for c in discover(self.suite) if self.points.counts(c.name)]
        settings.data.mkdir(parents=True, exist_ok=True)
        self.data = settings.data.resolve()
        url = settings.database_url or f"sqlite:///{self.data / 'service.sqlite'}"
        self.store = Store(url)
        self.accounts = Accounts(self.store, _secret(self.data / "secret.key"))
        self.blobs = Blobs(self.data / "blobs")
        self.gradebook = self.data / "grades.sqlite"
        self.judge_lateness()  # suite.toml's deadline and extensions may have changed
        #: This process, as it claims uploads (HOST:RUN-ID).
        self.owner = f"{socket.gethostname()}:{new_run_id()}"
        self._student_locks: dict[int, threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def _grading(self) -> tuple[GradeSettings, Points]:
        """The settings and points the suite declares (suite.toml)."""
        request = GradingRequest(self.suite, self.suite, GradeSettings(), self.suite,
                                 given=frozenset())  # fmt: skip
        settings, points, _ = resolve(request)
        return settings, points

    def reports_folder(self, upload_id: int, attempt: int, stage: str = "rest") -> Path:
        name = f"{attempt}.public" if stage == "public" else str(attempt)
        return self.data / "reports" / str(upload_id) / name

    def stages(self) -> tuple[str, ...]:
        """An upload's gradings, in order: its public tests first when
        some tests are public and some are not ("public"), then every
        test ("rest"); a course whose tests are all public, or none,
        grades every test at once."""
        public = set(self.course.public_tests)
        return ("public", "rest") if public and set(self.tests) - public else ("rest",)

    def all_public(self) -> bool:
        """Whether students see every test's result before the release."""
        return bool(self.tests) and set(self.tests) <= set(self.course.public_tests)

    def student_lock(self, user_id: int) -> threading.Lock:
        """Held while one student's upload is taken (the hourly limit is
        counted and the upload written under it, so a burst cannot pass it)."""
        with self._locks_lock:
            return self._student_locks.setdefault(user_id, threading.Lock())

    def released(self, when: datetime | None = None) -> bool:
        """Whether students see every test's result (else the public ones)."""
        if self.course.release is not None and (when or now()) >= self.course.release:
            return True
        with self.store.session() as db:
            state = db.scalar(select(CourseState).where(CourseState.key == "released"))
            return state is not None and state.value == "yes"

    def address_of(self, user: User) -> str:
        """Where mail reaches a user: the address given (the roster's, or
        `accounts --teacher LOGIN=ADDRESS`), else for a student LOGIN@ the
        course's mail domain (the students' domain, never a teacher's),
        else "" (no mail)."""
        if user.email:
            return user.email
        if user.teacher:
            return ""
        domain = self.mail.domain if self.mail is not None else ""
        return f"{user.login}@{domain}" if domain else ""

    def language_of(self, user: User) -> str:
        """The language of a user's mails: their own choice, kept with the
        account, else the course's. Never a request's (a mail may go out
        on a teacher's click, or from the grader)."""
        return user.language if user.language in i18n.LANGUAGES else self.course.language

    def claim_is_dead(self, owner: str | None, heartbeat: datetime | None) -> bool:
        """Whether the process that claimed an upload is gone: one of this
        machine that no longer runs, or any whose heartbeat is older than
        CLAIM_LEASE (another machine's, which cannot be asked)."""
        if owner is None:
            return True
        host, _, run_id = owner.partition(":")
        if host == socket.gethostname() and (alive := run_is_alive(run_id)) is not None:
            return not alive
        return heartbeat is None or now() - heartbeat > CLAIM_LEASE

    def deadline_for(self, user: User) -> datetime | None:
        """A student's deadline: an extension granted on the service, else
        the suite.toml's [course.extensions] one, else the course's."""
        with self.store.session() as db:
            granted = db.get(Extension, user.id)
        if granted is not None:
            return granted.until
        return self.course.extensions.get(user.login, self.course.deadline)

    def extension_of(self, user: User) -> tuple[datetime, str] | None:
        """A student's own deadline and where it comes from, if any (in
        the language in force; "in suite.toml" as it is, for the page)."""
        with self.store.session() as db:
            granted = db.get(Extension, user.id)
        if granted is not None:
            when = self.course.local_text(granted.granted_at, seconds=False)
            return granted.until, i18n._("granted by %(who)s on %(when)s") % {
                "who": granted.granted_by, "when": when}  # fmt: skip
        if user.login in self.course.extensions:
            return self.course.extensions[user.login], "in suite.toml"
        return None

    def grant_extension(self, user: User, until: datetime | None, by: str) -> None:
        """Give a student a deadline of their own (None: take it back), and
        judge their uploads late or on time by it again."""
        with self.store.session() as db:
            db.execute(delete(Extension).where(Extension.user_id == user.id))
            if until is not None:
                db.add(Extension(user_id=user.id, until=until, granted_by=by))
        self.judge_lateness(user.id)

    def judge_lateness(self, user_id: int | None = None) -> int:
        """Mark each upload (one student's, or everyone's) late or on time
        by its student's deadline now: extensions change with the file and
        the pages. How many changed."""
        changed = 0
        with self.store.session() as db:
            users = db.scalars(select(User) if user_id is None
                               else select(User).where(User.id == user_id)).all()  # fmt: skip
            for user in users:
                due = self.deadline_for(user)
                uploads = db.scalars(select(Upload).where(Upload.user_id == user.id))
                documents = db.scalars(select(Document).where(Document.user_id == user.id))
                handed = [*uploads, *documents]
                for item in handed:
                    late = due is not None and item.created > due
                    if item.late != late:
                        item.late, changed = late, changed + 1
        return changed

    def release(self, shown: bool = True) -> None:
        """Release every test's results to the students (or withdraw it)."""
        with self.store.session() as db:
            db.merge(CourseState(key="released", value="yes" if shown else "no"))

    def disk_used(self) -> int:
        """Bytes under the data folder."""
        return sum(p.stat().st_size for p in self.data.rglob("*") if p.is_file())

    def summary(self) -> dict[str, Any]:
        """What `serve --check` reports: the course's rules as read, and
        what the data folder holds (accounts by role, uploads by state)."""
        c = self.course
        with self.store.session() as db:
            roles = dict(db.execute(select(User.role, func.count()).group_by(User.role)).all())
            states = dict(
                db.execute(select(Upload.state, func.count()).group_by(Upload.state)).all()
            )
        return {
            "course": str(self.suite),
            "name": c.name,
            "data": str(self.data),
            "deadline": c.deadline.astimezone(c.zone).isoformat() if c.deadline else None,
            "deadline_shown": c.deadline_text(),
            "public_tests": list(c.public_tests),
            "release": c.release.isoformat() if c.release else "manual",
            "released": self.released(),
            "late": c.late,
            "uploads_per_hour": c.uploads_per_hour,
            "max_upload_kb": c.max_upload_kb,
            "accounts": {role: roles.get(role, 0) for role in ("student", "teacher")},
            "uploads": {state: states.get(state, 0) for state in
                        ("checking", "queued", "running", "done", "failed", "replaced")},
            **self._parts(),
        }  # fmt: skip

    def _parts(self) -> dict[str, Any]:
        """What `serve --check` says of the database, the mail, the
        extensions and the requirements policy."""
        url = self.store.engine.url
        with self.store.session() as db:
            granted = db.scalar(select(func.count(Extension.user_id))) or 0
            revision = db.execute(text("SELECT version_num FROM alembic_version")).scalar()
        mail = self.mail
        manifest = load_manifest(self.suite)
        policy = (manifest.requirements if manifest else None) or RequirementsPolicy()
        return {
            "database": {"url": url.render_as_string(hide_password=True),
                         "kind": url.get_backend_name(), "revision": revision},
            "mail": None if mail is None else {
                "host": mail.host, "port": mail.port, "from": mail.sender,
                "domain": mail.domain, "starttls": mail.starttls, "user": mail.user,
                "password_set": bool(os.environ.get("PLPUZZLE_SMTP_PASSWORD"))},
            "extensions": {"in_suite_toml": len(self.course.extensions), "granted": granted},
            "requirements": asdict(policy),
        }  # fmt: skip

    def close(self) -> None:
        self.store.close()


def place_upload(service: Service, digest: str, suffix: str, login: str, folder: Path) -> Path:
    """Put an uploaded file into `folder` as a class entry of `login`, the
    way intake reads it: a .pl file as the student's sudoku.pl (so that
    messages name it so), an archive as it came. The entry's path."""
    target = folder / login / "sudoku.pl" if suffix == ".pl" else folder / f"{login}{suffix}"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(service.blobs.path(digest), target)
    return target
