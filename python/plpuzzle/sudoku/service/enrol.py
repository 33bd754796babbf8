"""Making a course's accounts (`plpuzzle sudoku accounts`): who is added,
who is renewed, where mail reaches them, the links file that loses no
link, and, with `send`, each new link mailed.

The command only parses and prints; this is the one place the steps are
taken, in order, so that a link is in the file before it is mailed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from plpuzzle.sudoku.service.accounts import WELCOME_DAYS, NewAccount
from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.links import LinksFile, link_of, merge, write_private
from plpuzzle.sudoku.service.mail import Outbox, link_mail
from plpuzzle.sudoku.service.roster import Entry
from plpuzzle.sudoku.service.store import User

#: How long `accounts --send` sends at most, by default (seconds).
SEND_WITHIN = 20.0


@dataclass
class Enrolled:
    """What `enrol` did."""

    made: list[NewAccount]
    links: LinksFile
    #: Links mailed now, left in the outbox (the service's postman sends
    #: them), and accounts with a new link and no address to mail it to.
    mailed: int = 0
    waiting: int = 0
    no_address: list[str] = field(default_factory=list)
    #: Why links wait: the server's last words about one, or that the
    #: time for sending ran out first ("" when none waits).
    why_waiting: str = ""

    @property
    def new(self) -> int:
        return sum(1 for a in self.made if a.token and not a.renewed)

    @property
    def renewed(self) -> int:
        return sum(1 for a in self.made if a.renewed)


def enrol(service: Service, roster: list[Entry], students: tuple[str, ...],
          teachers: tuple[str, ...], renew: bool, url: str, output: Path | None,
          send: bool = False, send_seconds: float = SEND_WITHIN) -> Enrolled:  # fmt: skip
    """Add the roster's students and the named ones (renewing the named
    with `renew`), keep the roster's addresses and names (and the addresses
    given with --student/--teacher, as roster entries), write the links file
    (`output`; None: no file) and, with `send`, mail the new links for
    `send_seconds` at most. AccountError for a login that cannot be one."""
    made = service.accounts.create(list(teachers), "teacher", renew)
    made += service.accounts.create(list(students), "student", renew)
    others = [e.login for e in roster if e.login not in students and e.login not in teachers]
    made += service.accounts.create(others, "student", renew=False)
    addresses = {e.login: e.address for e in roster if e.address}
    names = {e.login: e.name for e in roster if e.name}
    if addresses or names:
        with service.store.session() as db:
            for user in db.scalars(select(User).where(User.login.in_([*addresses, *names]))):
                user.email = addresses.get(user.login, user.email)
                user.name = names.get(user.login, user.name)
    links = merge(made, url, output, service.accounts.link_user,
                  lambda moment: service.course.local_text(moment, seconds=False))  # fmt: skip
    if output is not None:
        write_private(output, links.text())
    done = Enrolled(made, links)
    if send:
        mail_links(service, done, url, send_seconds)
    return done


def mail_links(service: Service, done: Enrolled, url: str, seconds: float) -> None:
    """Put each new link in the outbox and send, for `seconds` at most,
    what can be sent; the rest waits for the service's postman."""
    outbox = Outbox(service)
    queued: list[int] = []
    with service.store.session() as db:
        users = {u.login: u for u in db.scalars(select(User))}
    for account in done.made:
        if not account.token:
            continue
        address = service.address_of(users[account.login])
        if not address:
            done.no_address.append(account.login)
            continue
        subject, body = link_mail(service, users[account.login], link_of(url, account.token),
                                  WELCOME_DAYS)  # fmt: skip
        mail_id = outbox.put_one(address, subject, body, "link")
        if mail_id is not None:
            queued.append(mail_id)
    if seconds > 0 and queued:
        outbox.send_due(budget=seconds)
    mails = outbox.states(queued).values()
    done.mailed = sum(1 for m in mails if m.state == "sent")
    done.waiting = len(queued) - done.mailed
    words = [m.last_error for m in mails if m.state != "sent" and m.last_error]
    if words:
        done.why_waiting = words[0]
    elif done.waiting:
        done.why_waiting = f"not sent within {seconds:g} s" if seconds else "queued only"
