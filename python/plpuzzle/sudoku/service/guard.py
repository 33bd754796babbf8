"""Password checks kept off the pages' threads, guesses slowed down, and
the owner of a login always let through.

Checking a password costs an argon2 hash on purpose (64 MiB, most of a
second of CPU). So the checks run in one lane of their own (`workers`
threads), and the pages, served by other threads, stay fast whatever
the flood. Tries wait for the lane in two lines: *trusted* tries (a
browser or terminal that signed in to this login before, by its device
cookie, or a client address this login signed in from before) go
first, with `reserved` places of their own; the others get what is
left, `backlog` places; beyond, a try is answered 429 at once. A login
that does not exist costs no hash: its try is answered after about as
long as a real check would take, without taking the lane.

Failures are counted (OWASP's authentication guidance, "device cookies"):
- per client (an IPv4 address, or an IPv6 /64: one subscriber's network)
  whatever the login, so that one client cannot try many logins;
- per login and client, so that a client guessing at a login is slowed
  on that login without touching anyone else;
- per login, from the first few failures of each client, so that a
  login guessed at from many clients is slowed for clients it does not
  trust; a trusted try is not held by it, so nobody can lock the owner
  out of their own login;
- per device cookie, so that a stolen cookie buys a few guesses only.
After a few failures each new try must wait a time that doubles with
every failure (up to a cap), counted from the last one; a try that must
wait is answered 429 with the seconds to wait, before any hash. An hour
without a failure forgets a record; what is kept is bounded (the least
recently failed records go first).
"""

from __future__ import annotations

import asyncio
import ipaddress
import random
import secrets
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from itsdangerous import BadSignature, TimestampSigner

T = TypeVar("T")

#: Failures forgotten after this long without one.
FORGET_SECONDS = 3600.0
#: Records of each kind kept at most; beyond, the least recently failed
#: are dropped (a flood of made-up logins must not fill the memory).
MAX_RECORDS = 100_000
#: How long a device cookie, and an address a login signed in from, are trusted.
TRUST_DAYS = 180
#: Trusted tries of one login waiting or running at once at most; more
#: are tries like any other (a cookie cannot buy a flood priority).
TRUSTED_PER_LOGIN = 2
#: The failures of each client on a login that count against the login.
SHARE_OF_CLIENT = 3


@dataclass(frozen=True)
class Backoff:
    """Failures allowed free, then waits from `first` s doubling up to `cap` s."""

    free: int
    first: float
    cap: float

    def wait(self, failures: int) -> float:
        if failures < self.free:
            return 0.0
        return float(min(self.cap, self.first * 2 ** (failures - self.free)))


#: Per client, whatever the login (a classroom may share one address).
BY_CLIENT = Backoff(free=10, first=1.0, cap=900.0)
#: Per login and client.
BY_PAIR = Backoff(free=5, first=1.0, cap=300.0)
#: Per login, counting at most SHARE_OF_CLIENT failures of each client:
#: four clients at least. Holds untrusted tries only.
BY_LOGIN = Backoff(free=10, first=2.0, cap=300.0)
#: Per device cookie (its holder's own mistakes, or a thief's guesses).
BY_DEVICE = Backoff(free=5, first=1.0, cap=300.0)


def client_key(address: str) -> str:
    """Whose tries these are: an IPv4 address as it is, an IPv6 address by
    its /64 (a home or a host is given the whole prefix, so one address
    of it is worth nothing), an IPv4 one written as IPv6 as the IPv4;
    anything else (no address) as it is, cut short."""
    try:
        ip = ipaddress.ip_address(address.strip().partition("%")[0])
    except ValueError:
        return address.strip()[:100]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def login_key(login: str) -> str:
    """A login as counted: `Alice`, ` alice ` and alice in full-width
    letters are one login's guesses (they cannot open another's account,
    and must not escape its count)."""
    return unicodedata.normalize("NFKC", login).strip().casefold()[:100]


class Busy(Exception):
    """Too many tries: `seconds` to wait before the next one."""

    def __init__(self, seconds: float, why: str) -> None:
        super().__init__(why)
        self.seconds = max(1, round(seconds))


#: Why a try must wait, by the record that holds it.
_WHY = {
    "client": "too many failed sign-ins from your address",
    "pair": "too many failed sign-ins for this login from your address",
    "login": "too many failed sign-ins for this login from elsewhere (a browser or terminal "
             "that signed in to it before is let through)",
}  # fmt: skip
BUSY = "the service is checking many passwords at the moment"


class _Record:
    __slots__ = ("failures", "last")

    def __init__(self) -> None:
        self.failures = 0
        self.last = 0.0


class _Failures:
    """Failures by key under one rule, at most MAX_RECORDS of them."""

    def __init__(self, rule: Backoff) -> None:
        self.rule = rule
        self.records: dict[Hashable, _Record] = {}

    def get(self, key: Hashable, at: float) -> _Record | None:
        record = self.records.get(key)
        if record is not None and at - record.last > FORGET_SECONDS:
            del self.records[key]
            return None
        return record

    def wait(self, key: Hashable, at: float) -> float:
        record = self.get(key, at)
        return 0.0 if record is None else record.last + self.rule.wait(record.failures) - at

    def fail(self, key: Hashable, at: float) -> int:
        """Count a failure; how many there were before it."""
        record = self.get(key, at)
        if record is None:
            record = _Record()
        else:
            del self.records[key]  # to the end: the order is the order of last failures
        self.records[key] = record
        before, record.failures, record.last = record.failures, record.failures + 1, at
        while len(self.records) > MAX_RECORDS:
            del self.records[next(iter(self.records))]
        return before

    def forget(self, key: Hashable) -> int:
        """Forget a key's failures; how many there were."""
        record = self.records.pop(key, None)
        return 0 if record is None else record.failures


@dataclass(frozen=True)
class Try:
    """One sign-in try as the guard sees it."""

    client: str
    login: str
    #: The device cookie's id, when the try carries a valid one for this login.
    device: str | None
    #: Whether it goes first: a device cookie or an address known to the login.
    trusted: bool


class _Lane:
    """`workers` password checks at once; the others wait in two lines,
    the trusted one first, each of bounded length."""

    def __init__(self, workers: int, backlog: int, reserved: int) -> None:
        self.workers = workers
        self.running = 0
        self.limits = {True: reserved, False: backlog}
        self.lines: dict[bool, deque[asyncio.Future[None]]] = {True: deque(), False: deque()}
        #: Tries of unknown logins answering after a pretended wait, by line.
        self.pretending = {True: 0, False: 0}

    def waiting(self, trusted: bool) -> int:
        return len(self.lines[trusted]) + self.pretending[trusted]

    def full(self, trusted: bool) -> bool:
        """Whether a new try of this line would be refused now."""
        if self.running < self.workers and not self.lines[True] and not self.lines[False]:
            return False
        return self.waiting(trusted) >= self.limits[trusted]

    async def enter(self, trusted: bool) -> None:
        """Wait for the lane (Busy when the line is full)."""
        if self.full(trusted):
            raise Busy(5, BUSY)
        if self.running < self.workers and not self.lines[True] and not self.lines[False]:
            self.running += 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.lines[trusted].append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.leave()  # the lane was handed over just as the try was given up
            elif turn in self.lines[trusted]:
                self.lines[trusted].remove(turn)
            raise

    def leave(self) -> None:
        """Hand the lane to the first trusted try waiting, else the first other."""
        for trusted in (True, False):
            line = self.lines[trusted]
            while line:
                turn = line.popleft()
                if not turn.done():
                    turn.set_result(None)
                    return
        self.running -= 1


class SignInGuard:
    """The lane that checks passwords, the failures it has seen, and the
    device cookies that let an owner through."""

    def __init__(self, secret: bytes, workers: int = 1, backlog: int = 4, reserved: int = 4,
                 check_seconds: float = 0.5,
                 clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="password")
        self.lane = _Lane(workers, backlog, reserved)
        self.devices = TimestampSigner(secret, salt="plpuzzle-device")
        self._failures = {"client": _Failures(BY_CLIENT), "pair": _Failures(BY_PAIR),
                          "login": _Failures(BY_LOGIN), "device": _Failures(BY_DEVICE)}  # fmt: skip
        #: (login, client) -> when the login last signed in from that client.
        self._known: dict[tuple[str, str], float] = {}
        self._trusted_now: dict[str, int] = {}
        #: What a check takes, as measured (what an unknown login's answer waits).
        self.check_seconds = check_seconds
        #: Passwords checked (hashes computed), unknown logins answered without, tries refused.
        self.counts = {"checked": 0, "pretended": 0, "refused": 0}
        #: Seconds, monotonic: what failures are stamped with and waits are
        #: counted on (a test moves a clock of its own past a wait instead
        #: of sleeping it out).
        self.clock = clock

    # -- device cookies ------------------------------------------------------------

    def new_device(self, login: str) -> str:
        """A device cookie for a browser or terminal that just signed in to
        `login`: signed, naming the login, with an id of its own."""
        return self.devices.sign(f"{secrets.token_urlsafe(12)}:{login_key(login)}").decode()

    def device_id(self, value: str | None, login: str) -> str | None:
        """The id of a device cookie, when it is ours, not older than
        TRUST_DAYS, and made for this login (another's is worth nothing)."""
        if not value or len(value) > 300:
            return None
        try:
            text = self.devices.unsign(value, max_age=TRUST_DAYS * 86400).decode()
        except (BadSignature, UnicodeDecodeError):
            return None
        device, _, named = text.partition(":")
        return device if device and named == login_key(login) else None

    # -- the rule -----------------------------------------------------------------

    def _try(self, address: str, login: str, device: str | None, at: float) -> Try:
        """Who this try is: trusted by a device cookie whose own failures do
        not hold it, or by a client this login signed in from (while it
        makes few failures on it); and not more than TRUSTED_PER_LOGIN
        trusted tries of a login at once."""
        client, name = client_key(address), login_key(login)
        device_id = self.device_id(device, login)
        if device_id is not None and self._failures["device"].wait(device_id, at) > 0:
            device_id = None
        known = self._known.get((name, client))
        if known is not None and at - known > TRUST_DAYS * 86400:
            del self._known[(name, client)]
            known = None
        pair = self._failures["pair"].get((name, client), at)
        if pair is not None and pair.failures >= BY_PAIR.free:
            known = None  # a known client guessing at the login is known no more
        trusted = (device_id is not None or known is not None) and \
            self._trusted_now.get(name, 0) < TRUSTED_PER_LOGIN  # fmt: skip
        return Try(client, name, device_id if trusted else None, trusted)

    def _wait(self, t: Try, at: float) -> tuple[float, str]:
        """The longest wait that holds this try now, and why: a device
        cookie's try waits for nothing else; a known client's for its
        failures on the login; any other for the client's, the pair's and
        the login's."""
        if t.device is not None:
            return 0.0, ""
        held: list[tuple[str, Hashable]] = [("pair", (t.login, t.client))]
        if not t.trusted:
            held += [("client", t.client), ("login", t.login)]
        waits = [(self._failures[kind].wait(key, at), _WHY[kind]) for kind, key in held]
        return max(waits)

    def _count(self, t: Try, ok: bool) -> None:
        at, failures = self.clock(), self._failures
        pair = (t.login, t.client)
        if ok and t.device is not None:
            # The device is the owner's; the address may be a guesser's too:
            # its failures stay, and it becomes known only when it has none.
            failures["device"].forget(t.device)
            if failures["pair"].get(pair, at) is None:
                self._know(pair, at)
            return
        if ok:
            forgiven = failures["pair"].forget(pair)
            client = failures["client"].get(t.client, at)
            if client is not None:  # that login's mistakes, not the client's other ones
                client.failures = max(0, client.failures - forgiven)
            self._know(pair, at)
            return
        failures["client"].fail(t.client, at)
        if t.device is not None:
            failures["device"].fail(t.device, at)
            return
        if failures["pair"].fail(pair, at) < SHARE_OF_CLIENT and not t.trusted:
            failures["login"].fail(t.login, at)

    def _know(self, pair: tuple[str, str], at: float) -> None:
        self._known.pop(pair, None)
        self._known[pair] = at
        while len(self._known) > MAX_RECORDS:
            del self._known[next(iter(self._known))]

    async def check(
        self, address: str, login: str, device: str | None,
        exists: Callable[[], bool], verify: Callable[[], T | None],
    ) -> T | None:  # fmt: skip
        """Run `verify` (a password check: its result, or None when it
        failed) in the lane, unless this try must wait or its line is full
        (Busy); `exists` says (cheaply) whether the login has a password
        at all: when not, no hash is computed. The outcome is counted."""
        t = self._try(address, login, device, self.clock())
        left, why = self._wait(t, self.clock())
        if left > 0 or self.lane.full(t.trusted):
            self.counts["refused"] += 1
            raise Busy(left, why) if left > 0 else Busy(5, BUSY)
        if t.trusted:
            self._trusted_now[t.login] = self._trusted_now.get(t.login, 0) + 1
        try:
            if await asyncio.to_thread(exists):
                found = await self._run(t, verify)
            else:
                await self._pretend(t)
                found = None
        except Busy:
            self.counts["refused"] += 1
            raise
        finally:
            if t.trusted and (others := self._trusted_now[t.login] - 1) > 0:
                self._trusted_now[t.login] = others
            elif t.trusted:
                del self._trusted_now[t.login]
        self._count(t, found is not None)
        return found

    def _still(self, t: Try) -> None:
        """Busy if failures counted while this try waited now hold it (tries
        sent at once are not all checked on the count they started with)."""
        left, why = self._wait(t, self.clock())
        if left > 0:
            raise Busy(left, why)

    async def _run(self, t: Try, verify: Callable[[], T | None]) -> T | None:
        await self.lane.enter(t.trusted)
        try:
            self._still(t)
            self.counts["checked"] += 1
            start = time.perf_counter()
            found = await asyncio.get_running_loop().run_in_executor(self.pool, verify)
            took = time.perf_counter() - start
            self.check_seconds += (min(took, 10 * self.check_seconds) - self.check_seconds) / 5
            return found
        finally:
            self.lane.leave()

    async def _pretend(self, t: Try) -> None:
        """An unknown login's answer, after about as long as its check would
        take behind the tries waiting: without a hash, without the lane."""
        if self.lane.full(t.trusted):
            raise Busy(5, BUSY)
        ahead = len(self.lane.lines[t.trusted]) + (not t.trusted) * len(self.lane.lines[True])
        self.lane.pretending[t.trusted] += 1
        self.counts["pretended"] += 1
        try:
            turns = ahead + (0.5 if self.lane.running else 0.0) + 1
            await asyncio.sleep(turns * self.check_seconds * random.uniform(0.85, 1.15))
        finally:
            self.lane.pretending[t.trusted] -= 1
        self._still(t)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
