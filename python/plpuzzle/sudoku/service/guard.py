"""Password checks kept off the pages' threads, and guesses slowed down.

Checking a password costs an argon2 hash on purpose (64 MiB, most of a
second of CPU). So the checks run in a pool of their own, `workers`
threads wide, and no more than `backlog` wait for it: beyond that a try
is answered 429 at once, and the pages, served by other threads, stay
fast whatever the flood.

Guessing is slowed per client address and per login: after a few
failures, each new try must wait a time that doubles with every failure
(up to a cap), counted from the last one; a success forgets the
failures of that address and that login, and an hour without a failure
forgets them too. A try that must wait is answered 429 with the seconds
to wait, before any hash is computed.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

#: Failures forgotten after this long without one.
FORGET_SECONDS = 3600.0
#: Records kept at most; beyond, the stale ones are dropped (a flood of
#: made-up logins must not fill the memory).
MAX_RECORDS = 100_000


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


#: Per client address (a classroom may share one), and per login.
BY_ADDRESS = Backoff(free=10, first=1.0, cap=900.0)
BY_LOGIN = Backoff(free=5, first=1.0, cap=300.0)


class Busy(Exception):
    """Too many tries: `seconds` to wait before the next one."""

    def __init__(self, seconds: float, why: str) -> None:
        super().__init__(why)
        self.seconds = max(1, round(seconds))


@dataclass
class _Record:
    failures: int = 0
    last: float = 0.0


class SignInGuard:
    """The pool that checks passwords, and the failures it has seen."""

    def __init__(self, workers: int = 1, backlog: int = 4) -> None:
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="password")
        self.backlog = workers + backlog
        self._lock = threading.Lock()
        self._pending = 0
        self._records: dict[tuple[str, str], _Record] = {}

    def _waits(self, address: str, login: str, at: float) -> tuple[float, str]:
        """The longest wait that applies now, and why."""
        waits = []
        for kind, key, rule in (("address", address, BY_ADDRESS), ("login", login, BY_LOGIN)):
            record = self._records.get((kind, key))
            if record is None:
                continue
            if at - record.last > FORGET_SECONDS:
                del self._records[(kind, key)]
                continue
            left = record.last + rule.wait(record.failures) - at
            if left > 0:
                why = ("too many failed sign-ins from your address" if kind == "address"
                       else "too many failed sign-ins for this login")  # fmt: skip
                waits.append((left, why))
        return max(waits, default=(0.0, ""))

    async def check(self, address: str, login: str, verify: Callable[[], T | None]) -> T | None:
        """Run `verify` (a password check: its result, or None when it
        failed) in the pool, unless this try must wait or the pool is full
        (Busy); a failure is counted against the address and the login."""
        with self._lock:
            left, why = self._waits(address, login, time.monotonic())
            if left > 0:
                raise Busy(left, why)
            if self._pending >= self.backlog:
                raise Busy(5, "the service is checking many passwords at the moment")
            self._pending += 1
        try:
            found = await asyncio.get_running_loop().run_in_executor(self.pool, verify)
        finally:
            with self._lock:
                self._pending -= 1
        with self._lock:
            at = time.monotonic()
            if len(self._records) > MAX_RECORDS:
                self._records = {k: r for k, r in self._records.items()
                                 if at - r.last <= FORGET_SECONDS}  # fmt: skip
            for kind, key in (("address", address), ("login", login)):
                if found is None:
                    record = self._records.setdefault((kind, key), _Record())
                    record.failures += 1
                    record.last = at
                else:
                    self._records.pop((kind, key), None)
        return found

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
