"""The service's database: accounts, sessions, API tokens, uploads and the
course's state, through SQLAlchemy (SQLite by default, any URL it takes).

Results are not kept here: a test's grade lives in the grading gradebook
(grades.sqlite, the one `sudoku grade` keeps), and an upload row only says
where its grading's reports are and what they summed up to, written once
per grading from those reports. The schema is made and upgraded by the
migrations beside this module (alembic), never by create_all.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    ColumnElement,
    DateTime,
    Engine,
    ForeignKey,
    String,
    Text,
    TypeDecorator,
    and_,
    create_engine,
    event,
    or_,
)
from sqlalchemy.engine.interfaces import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

MIGRATIONS = Path(__file__).with_name("migrations")


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, whatever the database
    keeps (SQLite keeps no offset)."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the database")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


def now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class User(Base):
    """A student or a teacher; a student's login is their id in the reports."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(primary_key=True)
    login: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    password_hash: Mapped[str | None] = mapped_column(String(200))
    #: The SHA-256 of the one-time sign-in token, until it is used.
    welcome_digest: Mapped[str | None] = mapped_column(String(64), unique=True)
    welcome_expires: Mapped[datetime | None] = mapped_column(UtcDateTime())
    created: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    #: Where mail reaches the user (None: LOGIN@ the course's mail domain).
    email: Mapped[str | None] = mapped_column(String(200))
    #: The user's identity elsewhere (an LMS's subject, an SIS id), if known.
    subject: Mapped[str | None] = mapped_column(String(200))
    #: The student's name, as the roster gives it (for the LMS exports).
    name: Mapped[str | None] = mapped_column(String(200))
    #: Mail the user their results as they come (their choice).
    mail_results: Mapped[bool] = mapped_column(default=False)
    #: The service's address as the user's browser reached it when they
    #: asked for their results by mail: the links of those mails, when
    #: serve has no --url.
    mail_base: Mapped[str | None] = mapped_column(String(200))
    #: The language the user chose for their pages and mails (i18n.LANGUAGES;
    #: None: their browser's, else the course's).
    language: Mapped[str | None] = mapped_column(String(8))

    @property
    def teacher(self) -> bool:
        return self.role == "teacher"


class WebSession(Base):
    """A signed-in browser; the cookie holds the token, this its digest."""

    __tablename__ = "sessions"
    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    expires: Mapped[datetime] = mapped_column(UtcDateTime())


class ApiToken(Base):
    """A token for scripts (`sudoku submit`); only its digest is kept."""

    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(100))
    created: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    last_used: Mapped[datetime | None] = mapped_column(UtcDateTime())
    #: After this the token is refused (None: until revoked).
    expires: Mapped[datetime | None] = mapped_column(UtcDateTime())


class Upload(Base):
    """One hand-in: its file (stored by content hash), its state in the
    queue, and where its grading's reports are.

    Its life: `checking` (taken at its arrival, its load check running),
    `queued` and `running` once per stage (the public tests, then the
    rest), then `done`; or `failed` (plpuzzle's fault, said in `error`),
    or `replaced` (a newer upload of the same student came before it was
    graded in full; what was graded stays shown)."""

    __tablename__ = "uploads"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    #: When its file had arrived in full (the request's last byte): the
    #: deadline, the hourly limit and the order of uploads go by it.
    created: Mapped[datetime] = mapped_column(UtcDateTime(), default=now, index=True)
    #: The student's own number for it: their first upload is 1.
    number: Mapped[int | None]
    #: The file name as uploaded (shown escaped, never used as a path).
    name: Mapped[str] = mapped_column(String(300))
    #: ".pl", ".zip", ".tar.gz" or ".tgz": how intake reads the file.
    suffix: Mapped[str] = mapped_column(String(10))
    size: Mapped[int]
    blob: Mapped[str] = mapped_column(String(64))
    late: Mapped[bool] = mapped_column(default=False)
    #: checking, queued, running, done, failed, replaced (see above).
    state: Mapped[str] = mapped_column(String(16), default="queued", index=True)
    #: The stage queued or running: "public" (the public tests) or "rest"
    #: (every test, the public ones taken from the gradebook).
    stage: Mapped[str] = mapped_column(String(8), default="public")
    #: The newer upload that replaced this one before it was graded in full.
    replaced_by: Mapped[int | None]
    #: Queued by a teacher (a regrade, or grading a replaced upload): after
    #: every student's own uploads.
    regrade: Mapped[bool] = mapped_column(default=False)
    #: The service process checking or grading it (HOST:RUN-ID), and when
    #: that process last said it still was: several processes may share
    #: the database, and only a dead one's work is taken over.
    claimed_by: Mapped[str | None] = mapped_column(String(100))
    heartbeat: Mapped[datetime | None] = mapped_column(UtcDateTime())
    #: When the load check ended, and when the public results were ready.
    checked: Mapped[datetime | None] = mapped_column(UtcDateTime())
    public_graded: Mapped[datetime | None] = mapped_column(UtcDateTime())
    #: Bumped by a regrade: a grading of an older attempt is not recorded.
    attempt: Mapped[int] = mapped_column(default=0)
    #: Whether the sandbox loaded it at upload time, and what loading said.
    loaded: Mapped[bool | None]
    load_messages: Mapped[str] = mapped_column(Text, default="")
    #: Regrade from scratch (a teacher's regrade), not from the gradebook.
    fresh: Mapped[bool] = mapped_column(default=False)
    error: Mapped[str] = mapped_column(Text, default="")
    #: What intake noted (a misnamed file...), one note a line.
    notes: Mapped[str] = mapped_column(Text, default="")
    #: The sums of its latest grading's report: on every test, and on the
    #: public ones (what a student sees before the release).
    score: Mapped[float | None]
    max_score: Mapped[float | None]
    public_score: Mapped[float | None]
    public_max: Mapped[float | None]
    #: The folder of this upload's latest reports on every test, and of
    #: its public stage's (the public tests only), relative to the data folder.
    reports: Mapped[str | None] = mapped_column(String(300))
    early: Mapped[str | None] = mapped_column(String(300))
    graded: Mapped[datetime | None] = mapped_column(UtcDateTime())


class Document(Base):
    """A student's documentation, handed in apart from the program: the
    last one before the deadline counts."""

    __tablename__ = "documents"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    #: When its file had arrived in full, as an upload's.
    created: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    name: Mapped[str] = mapped_column(String(300))
    size: Mapped[int]
    blob: Mapped[str] = mapped_column(String(64))
    late: Mapped[bool] = mapped_column(default=False)


#: A student's hand-ins: their uploads, or their documentation files.
HandIn = Upload | Document


def arrival_key(row: HandIn) -> tuple[datetime, int]:
    """The one order of a student's hand-ins: by arrival, the id breaking a
    tie. Not by id alone: a file that arrived first may be written last
    (its writer waited for a lock, or another process wrote first)."""
    return row.created, row.id


def by_arrival(table: type[HandIn], newest_first: bool = False) -> tuple[Any, Any]:
    """`arrival_key` as an ORDER BY."""
    if newest_first:
        return table.created.desc(), table.id.desc()
    return table.created, table.id


def arrived_before(table: type[HandIn], row: HandIn) -> ColumnElement[bool]:
    """The rows of `table` that arrived before `row` (by `arrival_key`)."""
    return or_(table.created < row.created,
               and_(table.created == row.created, table.id < row.id))  # fmt: skip


def arrived_after(table: type[HandIn], row: HandIn) -> ColumnElement[bool]:
    """The rows of `table` that arrived after `row` (by `arrival_key`)."""
    return or_(table.created > row.created,
               and_(table.created == row.created, table.id > row.id))  # fmt: skip


class Extension(Base):
    """A student's own deadline, granted on the teacher's page of them."""

    __tablename__ = "extensions"
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    until: Mapped[datetime] = mapped_column(UtcDateTime())
    granted_by: Mapped[str] = mapped_column(String(64))
    granted_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)


class Mail(Base):
    """One mail of the outbox (mail.py): waiting, sent or failed."""

    __tablename__ = "mails"
    id: Mapped[int] = mapped_column(primary_key=True)
    to_addr: Mapped[str] = mapped_column(String(200))
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    #: What it is: link, release, results.
    kind: Mapped[str] = mapped_column(String(20))
    state: Mapped[str] = mapped_column(String(10), default="waiting", index=True)
    tries: Mapped[int] = mapped_column(default=0)
    next_try: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    last_error: Mapped[str] = mapped_column(Text, default="")
    created: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    sent: Mapped[datetime | None] = mapped_column(UtcDateTime())
    #: The process sending it now (HOST:RUN-ID), and until when that claim
    #: holds: a mail is sent only by the one that claimed it in the
    #: database, and a dead sender's claim lapses (mail.py).
    claimed_by: Mapped[str | None] = mapped_column(String(100))
    claimed_until: Mapped[datetime | None] = mapped_column(UtcDateTime())
    #: Its Message-ID, made when it is queued: the same on every try.
    message_id: Mapped[str | None] = mapped_column(String(200))
    #: What it is about, for a mail that goes out once only (the release
    #: of one counting upload: release:LOGIN:UPLOAD); unique.
    once: Mapped[str | None] = mapped_column(String(120), unique=True)


class CourseState(Base):
    """What the teacher decided while the service ran (e.g. a release)."""

    __tablename__ = "course_state"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


def _sqlite_pragmas(dbapi_connection: object, _record: object) -> None:
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def open_engine(url: str) -> Engine:
    """An engine for `url`; SQLite gets foreign keys, WAL and a busy timeout,
    so the web server's threads and the grading loop can share it. A
    plain postgresql:// URL goes through psycopg (3), the driver the
    serve extra installs."""
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    engine = create_engine(url, future=True, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (a no-op when it is there)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:
            # SQLite alters a table by making it anew and dropping the old one;
            # with foreign keys on, that drop would cascade and delete the rows
            # that refer to it (every upload of a student). Off, outside a
            # transaction (SQLite ignores it inside one), and checked after.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        try:
            with connection.begin():
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
                if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                    raise RuntimeError("the migration left rows that refer to nothing")
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()


class Store:
    """The database of one service: sessions of the ORM, one per unit of work."""

    def __init__(self, url: str) -> None:
        self.engine = open_engine(url)
        migrate(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A unit of work: committed when the block ends, rolled back on error."""
        with self._sessions.begin() as session:
            yield session

    def close(self) -> None:
        self.engine.dispose()
