"""Mail through the course's SMTP server, never on a page's time.

Every mail goes into the outbox (a table of the service's database)
first; a postman thread sends what is due, and a mail the server refuses
or cannot take is tried again later (after 1, 5, 15 minutes, then every
hour), ten times in all, then left as failed: the status page lists the
failures, and nothing is lost (a sign-in link stays in the links file
too). `accounts --send` puts the links in the outbox and sends them at
once; what it cannot send, the running service tries again.

The SMTP password, if the server wants one, comes from
$PLPUZZLE_SMTP_PASSWORD, never from a file of the course.
"""

from __future__ import annotations

import logging
import os
import smtplib
import ssl
import threading
from dataclasses import dataclass
from datetime import timedelta
from email.message import EmailMessage

from sqlalchemy import func, select

from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.course import MailSettings
from plpuzzle.sudoku.service.store import Mail, now
from plpuzzle.untrusted import one_line

log = logging.getLogger("plpuzzle.service.mail")

#: Tries in all, and the waits between them (the last repeats).
TRIES = 10
WAITS = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=15), timedelta(hours=1))
PASSWORD_VARIABLE = "PLPUZZLE_SMTP_PASSWORD"


def smtp_send(settings: MailSettings, to: str, subject: str, body: str) -> None:
    """One mail through the server (smtplib's errors and OSError raise)."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = settings.sender, to, subject
    message.set_content(body)
    with smtplib.SMTP(settings.host, settings.port, timeout=30) as smtp:
        if settings.starttls:
            smtp.starttls(context=ssl.create_default_context())
        password = os.environ.get(PASSWORD_VARIABLE)
        if password:
            smtp.login(settings.user or settings.sender, password)
        smtp.send_message(message)


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
        self._sending = threading.Lock()

    def put(self, to: str, subject: str, body: str, kind: str) -> bool:
        """Queue a mail (False: the course has no mail, or no address)."""
        if self.service.mail is None or not to:
            return False
        with self.service.store.session() as db:
            db.add(Mail(to_addr=to[:200], subject=subject[:200], body=body, kind=kind[:20],
                        next_try=now()))  # fmt: skip
        return True

    def send_due(self) -> Sent:
        """Send every mail that is due, one at a time; what is left."""
        settings = self.service.mail
        if settings is None:
            return self.counts()
        with self._sending:  # the CLI's call and the postman's never send one twice
            waiting = (Mail.state == "waiting", Mail.next_try <= now())
            with self.service.store.session() as db:
                due = list(db.scalars(select(Mail.id).where(*waiting).order_by(Mail.id)))
            for mail_id in due:
                if self._stop.is_set():
                    break
                self._send_one(settings, mail_id)
        return self.counts()

    def _send_one(self, settings: MailSettings, mail_id: int) -> None:
        with self.service.store.session() as db:
            mail = db.get(Mail, mail_id)
            if mail is None or mail.state != "waiting":
                return
            to, subject, body = mail.to_addr, mail.subject, mail.body
        try:
            smtp_send(settings, to, subject, body)
        except (smtplib.SMTPException, OSError, ValueError) as e:
            error = one_line(f"{type(e).__name__}: {e}", 300)
            log.warning("mail %d to %s not sent: %s", mail_id, to, error)
            with self.service.store.session() as db:
                mail = db.get(Mail, mail_id)
                if mail is not None:
                    mail.tries += 1
                    mail.last_error = error
                    wait = WAITS[min(mail.tries - 1, len(WAITS) - 1)]
                    mail.next_try = now() + wait
                    if mail.tries >= TRIES:
                        mail.state = "failed"
            return
        with self.service.store.session() as db:
            mail = db.get(Mail, mail_id)
            if mail is not None:
                mail.state, mail.sent, mail.tries = "sent", now(), mail.tries + 1

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
