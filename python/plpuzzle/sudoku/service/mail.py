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
server that does not answer ends the round: the mails after it wait for
the next one instead of each waiting out the server.

The SMTP password, if the server wants one, comes from
$PLPUZZLE_SMTP_PASSWORD, never from a file of the course.
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
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage

from sqlalchemy import ColumnElement, func, or_, select, update

from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.course import MailSettings
from plpuzzle.sudoku.service.store import Mail, now
from plpuzzle.untrusted import one_line

log = logging.getLogger("plpuzzle.service.mail")

#: Tries in all, and the waits between them (the last repeats).
TRIES = 10
WAITS = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=15), timedelta(hours=1))
PASSWORD_VARIABLE = "PLPUZZLE_SMTP_PASSWORD"
#: One mail's whole exchange with the server at most (connecting, the
#: greeting, STARTTLS, the login, the message): the connection is cut then.
SEND_SECONDS = 60.0
#: How long a sender's claim on a mail holds: well past SEND_SECONDS.
CLAIM_LEASE = timedelta(minutes=5)
#: Failures of one mail rather than of the server (the server answered).
_MAIL_ONLY = (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError, ValueError)


def smtp_send(settings: MailSettings, to: str, subject: str, body: str,
              seconds: float = SEND_SECONDS) -> None:  # fmt: skip
    """One mail through the server (smtplib's errors and OSError raise),
    the whole exchange within `seconds`: a server that accepts and never
    answers, or answers a byte at a time, is cut off then (TimeoutError)."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = settings.sender, to, subject
    message.set_content(body)
    smtp = smtplib.SMTP(timeout=max(0.1, min(30.0, seconds)))
    fired = threading.Event()
    cut = threading.Timer(seconds, _cut, (smtp, fired))
    cut.daemon = True
    cut.start()
    try:
        smtp.connect(settings.host, settings.port)
        if settings.starttls:
            smtp.starttls(context=ssl.create_default_context())
        password = os.environ.get(PASSWORD_VARIABLE)
        if password:
            smtp.login(settings.user or settings.sender, password)
        smtp.send_message(message)
    except (smtplib.SMTPException, OSError) as e:
        if fired.is_set():
            raise TimeoutError(f"the mail server did not finish within {seconds:.0f} s") from e
        raise
    finally:
        cut.cancel()
    try:  # the mail is sent: a QUIT the server does not answer changes nothing
        smtp.quit()
    except (smtplib.SMTPException, OSError):
        smtp.close()


def _cut(smtp: smtplib.SMTP, fired: threading.Event) -> None:
    """End a sending that took too long: what waits on the socket fails."""
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
            mail = Mail(to_addr=to[:200], subject=subject[:200], body=body, kind=kind[:20],
                        next_try=now())  # fmt: skip
            db.add(mail)
            db.flush()
            return mail.id

    def send_due(self, budget: float | None = None) -> Sent:
        """Send every mail that is due, one claimed mail at a time, until
        none is left, the server fails (the rest wait for the next round)
        or `budget` seconds have passed; what is left."""
        settings = self.service.mail
        if settings is None:
            return self.counts()
        end = None if budget is None else time.monotonic() + budget
        at = now()
        with self.service.store.session() as db:
            due = list(db.scalars(select(Mail.id).where(*_due(at)).order_by(Mail.id)))
        for mail_id in due:
            seconds = SEND_SECONDS if end is None else min(SEND_SECONDS, end - time.monotonic())
            if self._stop.is_set() or seconds < 0.5:
                break
            if not self._send_one(settings, mail_id, seconds):
                break
        return self.counts()

    def _claim(self, mail_id: int) -> tuple[str, str, str] | None:
        """Claim a due mail for this process in the database (one UPDATE:
        of two senders, one wins); its address, subject and body."""
        at = now()
        with self.service.store.session() as db:
            won = db.execute(
                update(Mail).where(Mail.id == mail_id, *_due(at))
                .values(claimed_by=self.service.owner, claimed_until=at + CLAIM_LEASE)
            )  # fmt: skip
            if won.rowcount != 1:  # type: ignore[attr-defined]
                return None
            mail = db.get(Mail, mail_id)
            assert mail is not None
            return mail.to_addr, mail.subject, mail.body

    def _send_one(self, settings: MailSettings, mail_id: int, seconds: float) -> bool:
        """Claim and send one mail; False when the server failed (not the mail)."""
        claimed = self._claim(mail_id)
        if claimed is None:
            return True  # another sender has it, or sent it
        to, subject, body = claimed
        try:
            smtp_send(settings, to, subject, body, seconds)
        except (smtplib.SMTPException, OSError, ValueError) as e:
            error = one_line(f"{type(e).__name__}: {e}", 300)
            log.warning("mail %d to %s not sent: %s", mail_id, to, error)
            with self.service.store.session() as db:
                mail = db.get(Mail, mail_id)
                if mail is not None and mail.claimed_by == self.service.owner:
                    mail.tries += 1
                    mail.last_error = error
                    wait = WAITS[min(mail.tries - 1, len(WAITS) - 1)]
                    mail.next_try = now() + wait
                    if mail.tries >= TRIES:
                        mail.state = "failed"
                    mail.claimed_by, mail.claimed_until = None, None
            return isinstance(e, _MAIL_ONLY)
        with self.service.store.session() as db:
            mail = db.get(Mail, mail_id)
            if mail is not None:
                mail.state, mail.sent, mail.tries = "sent", now(), mail.tries + 1
                mail.claimed_by, mail.claimed_until = None, None
        return True

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
