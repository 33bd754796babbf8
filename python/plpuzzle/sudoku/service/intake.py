"""Taking uploads on the web's side: the upload written at its arrival,
then its load check in a pool of its own, one check at a time per
student, answered when the check ends or after a few seconds, whichever
comes first (the check goes on; the upload's page shows it when done).

A student who uploads many slow-loading files at once holds one check
slot at most, each for CHECK_SECONDS at most; the others' uploads find
the other slots free. No page's thread waits for a check.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import anyio

from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.queue import GradingQueue
from plpuzzle.sudoku.service.store import User
from plpuzzle.sudoku.service.uploads import Taken, check, queue_unchecked, receive

log = logging.getLogger("plpuzzle.service")

#: How long an upload's answer waits for its load check at most.
ANSWER_SECONDS = 10.0


class Intake:
    """Load checks: `slots` at once, one per student."""

    def __init__(self, service: Service, queue: GradingQueue, slots: int) -> None:
        self.service, self.queue = service, queue
        self.pool = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="load-check")
        self._turns: dict[int, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def take(self, user: User, name: str, data: bytes, arrived: datetime) -> Taken:
        """Write the upload (UploadRefused if it is not taken), start its
        check, and return once the check ended or ANSWER_SECONDS passed."""
        taken = await anyio.to_thread.run_sync(receive, self.service, user, name, data, arrived)
        self.queue.cancel(taken.replaced)
        task = asyncio.create_task(self._check(user.id, taken.upload_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        await asyncio.wait({task}, timeout=ANSWER_SECONDS)
        return taken

    async def _check(self, user_id: int, upload_id: int) -> None:
        turn = self._turns.setdefault(user_id, asyncio.Lock())
        loop = asyncio.get_running_loop()
        try:
            async with turn:
                await loop.run_in_executor(self.pool, check, self.service, upload_id)
        except Exception:  # the check's fault, never the upload's: grading will load it
            log.exception("the load check of upload %d failed", upload_id)
            await loop.run_in_executor(self.pool, queue_unchecked, self.service, upload_id)
        finally:
            self.queue.wake()

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
