"""Mail through the course's SMTP server, never on a page's time.

Every mail goes into the outbox (a table of the service's database)
first; a postman thread sends what is due, and a mail the server refuses
or cannot take is tried again later (after 1, 5, 15 minutes, then every
hour), ten times in all, then left as failed: the status page lists the
failures, and nothing is lost (a sign-in link stays in the links file
too). `accounts --send` puts the links in the outbox and sends them for
a short while at most; what it leaves, the running service sends.

Whoever sends a mail (the postman of any service process, or `accounts
--send`) first claims it in the database, one atomic UPDATE that only
one sender can win, so that a mail is sent once however many senders
run; a claim holds for CLAIM_LEASE, longer than a sending can take
(SEND_SECONDS), so that only a sender that died loses its claims. A
round of sending uses one SMTP connection for all its mails (400 links
are not 400 connections, which servers throttle). A server that does not
answer ends the round: the mails after it wait for the next one instead
of each waiting out the server.

Every mail has Date: and a Message-ID: (made once, at its queuing, in
the course's mail domain), as RFC 5322 wants and spam filters check.

The SMTP password, if the server wants one, comes from
$PLPUZZLE_SMTP_PASSWORD, never from a file of the course.

The mails' words are made here (results_mail, release_mail, link_mail),
each in its recipient's language (Service.language_of: their own choice,
else the course's), never in that of the request that sent it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import smtplib
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import TYPE_CHECKING

from sqlalchemy import ColumnElement, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from plpuzzle.i18n import _, speaking
from plpuzzle.sudoku.grading.model import verdict_name
from plpuzzle.sudoku.grading.said import said
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.course import MailSettings
from plpuzzle.sudoku.service.store import Mail, Upload, User, now
from plpuzzle.untrusted import one_line

if TYPE_CHECKING:
    from plpuzzle.sudoku.service.grades import Grade

log = logging.getLogger("plpuzzle.service.mail")

#: Tries in all, and the waits between them (the last repeats).
TRIES = 10
WAITS = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=15), timedelta(hours=1))
PASSWORD_VARIABLE = "PLPUZZLE_SMTP_PASSWORD"
#: One step with the server at most (connecting with the greeting,
#: STARTTLS and the login; or one message): the connection is cut then.
SEND_SECONDS = 60.0
#: How long a sender's claim on a mail holds: well past SEND_SECONDS.
CLAIM_LEASE = timedelta(minutes=5)
#: Failures of one mail rather than of the server (the server answered).
_MAIL_ONLY = (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError, ValueError)


def mail_domain(settings: MailSettings) -> str:
    """The domain a Message-ID names: the course's mail domain, else the
    sender's."""
    return settings.domain or settings.sender.rpartition("@")[2] or "localhost"


def message_of(settings: MailSettings, to: str, subject: str, body: str,
               message_id: str | None = None) -> EmailMessage:  # fmt: skip
    """A mail as RFC 5322 wants it: Date and Message-ID with the rest (a
    mail without them is one spam filters mark down)."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = settings.sender, to, subject
    message["Date"] = formatdate(localtime=False, usegmt=True)
    message["Message-ID"] = message_id or make_msgid("plpuzzle", domain=mail_domain(settings))
    message.set_content(body)
    return message


def results_mail(service: Service, user: User, upload: Upload, grade: Grade,
                 base: str) -> tuple[str, str]:  # fmt: skip
    """The subject and body of an upload's results mail, in the student's
    language: the grade as the upload's page shows it, each test's verdict,
    what the course requirements found, and the page (`base`: the
    service's address, "" when it is not known)."""
    number = upload.number or upload.id
    with speaking(service.language_of(user)):
        lines = [f"{r['test']}  {verdict_name(r['grade'])}  {said(r['detail'])}".rstrip()
                 for r in grade.rows[:300]]  # fmt: skip
        found = [f"{name}: {what}" for name, what in grade.requirement_lines]
        page = (_("Its page: %(url)s") % {"url": f"{base}/uploads/{upload.id}"} if base
                else _("Its page: upload #%(number)s on your page of the service")
                % {"number": number})  # fmt: skip
        head = (_("Your upload #%(number)s (%(name)s) is graded.")
                % {"number": number, "name": upload.name})  # fmt: skip
        body = "\n".join([head, "", _("Score: %(score)s") % {"score": grade.score_text}, "",
                          *lines, "",
                          *([_("Course requirements:"), *found, ""] if found else []),
                          page])  # fmt: skip
        subject = _("%(course)s: upload #%(number)s graded") % {"course": service.course.name,
                                                                "number": number}  # fmt: skip
    return subject, body


def release_mail(service: Service, user: User, upload: Upload, base: str) -> tuple[str, str]:
    """The subject and body of the mail that the results are released, in
    the student's language: where their counting upload's page is."""
    number = upload.number or upload.id
    with speaking(service.language_of(user)):
        subject = _("%(course)s: results released") % {"course": service.course.name}
        body = _("Every test's result and the feedback of your upload that counts "
                 "(#%(number)s, %(name)s) are on its page now: %(url)s\n\n"
                 "All your uploads: %(mine)s\n") % {
            "number": number, "name": upload.name, "url": f"{base}/uploads/{upload.id}",
            "mine": f"{base}/me"}  # fmt: skip
    return subject, body


def link_mail(service: Service, user: User, link: str, days: int) -> tuple[str, str]:
    """The subject and body of a new account's sign-in link, in the
    user's language (a new account's: the course's)."""
    with speaking(service.language_of(user)):
        subject = _("%(course)s: your sign-in link") % {"course": service.course.name}
        body = _("Your account of %(course)s is %(login)s. Choose your password here (the "
                 "link works once, for %(days)s days):\n\n%(link)s\n") % {
            "course": service.course.name, "login": user.login, "days": days,
            "link": link}  # fmt: skip
    return subject, body


class Connection:
    """One SMTP connection for a round of mails. Each step (connecting with
    the greeting, STARTTLS and the login; then each mail) is cut off after
    the seconds it is given: a server that accepts and never answers, or
    answers a byte at a time, fails with TimeoutError then."""

    def __init__(self, settings: MailSettings) -> None:
        self.settings = settings
        self.smtp: smtplib.SMTP | None = None

    def _within(self, seconds: float, step: Callable[[smtplib.SMTP], object]) -> None:
        smtp = self.smtp
        assert smtp is not None
        smtp.timeout = max(0.1, min(30.0, seconds))
        if smtp.sock is not None:
            smtp.sock.settimeout(smtp.timeout)
        fired = threading.Event()
        cut = threading.Timer(seconds, _cut, (smtp, fired))
        cut.daemon = True
        ends = time.monotonic() + seconds
        cut.start()
        try:
            step(smtp)
        except (smtplib.SMTPException, OSError) as e:
            # The socket's own timeout may fire before the timer thread
            # runs (on a busy machine it is late): past the end, either
            # way, the step ran out of its seconds.
            if fired.is_set() or time.monotonic() >= ends:
                self.smtp = None
                smtp.close()
                raise TimeoutError(f"the mail server did not finish within {seconds:.0f} s") from e
            raise
        finally:
            cut.cancel()

    def open(self, seconds: float) -> None:
        """Connect, STARTTLS and log in, within `seconds`."""
        settings = self.settings
        self.smtp = smtplib.SMTP(timeout=max(0.1, min(30.0, seconds)))

        def hello(smtp: smtplib.SMTP) -> None:
            smtp.connect(settings.host, settings.port)
            if settings.starttls:
                smtp.starttls(context=ssl.create_default_context())
            password = os.environ.get(PASSWORD_VARIABLE)
            if password:
                smtp.login(settings.user or settings.sender, password)

        try:
            self._within(seconds, hello)
        except BaseException:
            self.close()
            raise

    def send(self, message: EmailMessage, seconds: float) -> None:
        """One mail on the open connection, within `seconds`."""
        if self.smtp is None:
            raise ConnectionError("the connection to the mail server is closed")
        self._within(seconds, lambda smtp: smtp.send_message(message))

    def close(self) -> None:
        """QUIT (the mails are sent: a QUIT the server does not answer
        changes nothing)."""
        smtp, self.smtp = self.smtp, None
        if smtp is None:
            return
        try:
            if smtp.sock is not None:
                smtp.sock.settimeout(5.0)
                smtp.quit()
        except (smtplib.SMTPException, OSError):
            smtp.close()


def smtp_send(settings: MailSettings, to: str, subject: str, body: str,
              seconds: float = SEND_SECONDS) -> None:  # fmt: skip
    """One mail on a connection of its own, the whole exchange within
    `seconds` (smtplib's errors, OSError and TimeoutError raise)."""
    end = time.monotonic() + seconds
    connection = Connection(settings)
    connection.open(seconds)
    try:
        connection.send(message_of(settings, to, subject, body),
                        max(0.1, end - time.monotonic()))  # fmt: skip
    finally:
        connection.close()


def _cut(smtp: smtplib.SMTP, fired: threading.Event) -> None:
    """End a step that took too long: what waits on the socket fails."""
    fired.set()
    sock = getattr(smtp, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


@dataclass(frozen=True)
class Sent:
    sent: int
    waiting: int
    failed: int


class Outbox:
    """The service's mail: put in, sent when due, tried again."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def put(self, to: str, subject: str, body: str, kind: str) -> bool:
        """Queue a mail (False: the course has no mail, or no address)."""
        return self.put_one(to, subject, body, kind) is not None

    def put_one(self, to: str, subject: str, body: str, kind: str) -> int | None:
        """Queue a mail; its id (None: the course has no mail, or no address)."""
        if self.service.mail is None or not to:
            return None
        with self.service.store.session() as db:
            mail = self._new(to, subject, body, kind, None)
            db.add(mail)
            db.flush()
            return mail.id

    def put_once(self, mails: list[tuple[str, str, str, str]], kind: str) -> int:
        """Queue each (once, to, subject, body) whose `once` no mail has had
        yet: the key a mail goes out once for (unique in the database, so
        that two senders at once queue it once too). How many were queued."""
        settings = self.service.mail
        wanted = {once: (to, subject, body) for once, to, subject, body in mails if to}
        if settings is None or not wanted:
            return 0
        with self.service.store.session() as db:
            had = set(db.scalars(select(Mail.once).where(Mail.once.in_(wanted))))
        fresh = [key for key in wanted if key not in had]
        try:
            with self.service.store.session() as db:
                db.add_all(self._new(*wanted[key], kind, key) for key in fresh)
            return len(fresh)
        except IntegrityError:  # queued meanwhile by another request: one at a time
            queued = 0
            for key in fresh:
                with contextlib.suppress(IntegrityError), self.service.store.session() as db:
                    db.add(self._new(*wanted[key], kind, key))
                    db.flush()
                    queued += 1
            return queued

    def _new(self, to: str, subject: str, body: str, kind: str, once: str | None) -> Mail:
        settings = self.service.mail
        assert settings is not None
        message_id = make_msgid("plpuzzle", domain=mail_domain(settings))
        return Mail(to_addr=to[:200], subject=subject[:200], body=body, kind=kind[:20],
                    next_try=now(), message_id=message_id[:200], once=once)  # fmt: skip

    def send_due(self, budget: float | None = None) -> Sent:
        """Send every mail that is due on one connection, one claimed mail
        at a time, until none is left, the server fails (the rest wait for
        the next round) or `budget` seconds have passed; what is left."""
        settings = self.service.mail
        if settings is None:
            return self.counts()
        end = None if budget is None else time.monotonic() + budget
        at = now()
        with self.service.store.session() as db:
            due = list(db.scalars(select(Mail.id).where(*_due(at)).order_by(Mail.id)))
        connection = Connection(settings)
        try:
            for mail_id in due:
                seconds = SEND_SECONDS if end is None else min(SEND_SECONDS, end - time.monotonic())
                if self._stop.is_set() or seconds < 0.5:
                    break
                if not self._send_one(connection, mail_id, seconds):
                    break
        finally:
            connection.close()
        return self.counts()

    def _claim(self, mail_id: int) -> Mail | None:
        """Claim a due mail for this process in the database (one UPDATE:
        of two senders, one wins); the mail."""
        at = now()
        with self.service.store.session() as db:
            won = db.execute(
                update(Mail).where(Mail.id == mail_id, *_due(at))
                .values(claimed_by=self.service.owner, claimed_until=at + CLAIM_LEASE)
            )  # fmt: skip
            if won.rowcount != 1:  # type: ignore[attr-defined]
                return None
            return db.get(Mail, mail_id)

    def _send_one(self, connection: Connection, mail_id: int, seconds: float) -> bool:
        """Claim and send one mail, on the round's connection (opened for
        the first mail claimed); False when the server failed (not the mail)."""
        mail = self._claim(mail_id)
        if mail is None:
            return True  # another sender has it, or sent it
        end = time.monotonic() + seconds
        try:
            message = message_of(connection.settings, mail.to_addr, mail.subject, mail.body,
                                 mail.message_id)  # fmt: skip
            if connection.smtp is None:
                connection.open(seconds)
            connection.send(message, max(0.1, end - time.monotonic()))
        except (smtplib.SMTPException, OSError, ValueError) as e:
            self._not_sent(mail, e)
            return isinstance(e, _MAIL_ONLY)
        with self.service.store.session() as db:
            sent = db.get(Mail, mail_id)
            if sent is not None:
                sent.state, sent.sent, sent.tries = "sent", now(), sent.tries + 1
                sent.claimed_by, sent.claimed_until = None, None
        return True

    def _not_sent(self, mail: Mail, e: Exception) -> None:
        """A try that failed: counted, and the next one's time set."""
        error = one_line(f"{type(e).__name__}: {e}", 300)
        log.warning("mail %d to %s not sent: %s", mail.id, mail.to_addr, error)
        with self.service.store.session() as db:
            row = db.get(Mail, mail.id)
            if row is not None and row.claimed_by == self.service.owner:
                row.tries += 1
                row.last_error = error
                wait = WAITS[min(row.tries - 1, len(WAITS) - 1)]
                row.next_try = now() + wait
                if row.tries >= TRIES:
                    row.state = "failed"
                row.claimed_by, row.claimed_until = None, None

    def states(self, ids: list[int]) -> dict[int, Mail]:
        """The mails of `ids` as they are now."""
        with self.service.store.session() as db:
            return {m.id: m for m in db.scalars(select(Mail).where(Mail.id.in_(ids)))}

    def counts(self) -> Sent:
        with self.service.store.session() as db:
            found = dict(db.execute(select(Mail.state, func.count()).group_by(Mail.state)).all())
        return Sent(found.get("sent", 0), found.get("waiting", 0), found.get("failed", 0))

    def troubles(self, limit: int = 20) -> list[Mail]:
        """The mails not sent (failed, or waiting after a failure), newest first."""
        with self.service.store.session() as db:
            return list(db.scalars(
                select(Mail).where(Mail.state != "sent", Mail.tries > 0)
                .order_by(Mail.id.desc()).limit(limit)))  # fmt: skip

    # -- the postman --------------------------------------------------------------

    def start(self) -> None:
        if self.service.mail is None:
            return
        self._thread = threading.Thread(target=self._run, name="postman", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(3.0):
            try:
                self.send_due()
            except Exception:  # the database away for a moment: next time
                log.exception("sending mail failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=40)


def _due(at: datetime) -> tuple[ColumnElement[bool], ...]:
    """A mail due at `at`: waiting, its time come, claimed by nobody (or
    by a sender whose claim lapsed: it died)."""
    return (Mail.state == "waiting", Mail.next_try <= at,
            or_(Mail.claimed_until.is_(None), Mail.claimed_until < at))  # fmt: skip
