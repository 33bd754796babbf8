"""Taking uploads on the web's side: the upload written at its arrival,
then its load check, a job of the grading queue like any other (one
fair share of turns, one rule: see queue.py), answered when the check
ends or after a few seconds, whichever comes first (the check goes on;
the upload's page shows it when done).

So a student who uploads many slow-loading files at once holds one of
their own turns at a time, each check the course's check_seconds at
most, and their checks are charged to them like their tests; the
others' uploads are checked in the rotation. No page's thread waits for a check.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

import anyio

from plpuzzle.sudoku.service.core import Service
from plpuzzle.sudoku.service.queue import GradingQueue
from plpuzzle.sudoku.service.store import User
from plpuzzle.sudoku.service.uploads import Taken, receive

#: How long an upload's answer waits for its load check at most.
ANSWER_SECONDS = 10.0


class Intake:
    """Uploads taken, and handed to the queue for their load check."""

    def __init__(self, service: Service, queue: GradingQueue) -> None:
        self.service, self.queue = service, queue

    async def take(self, user: User, name: str, data: bytes, arrived: datetime) -> Taken:
        """Write the upload (UploadRefused if it is not taken), have it
        checked, and return once the check ended or ANSWER_SECONDS passed."""
        loop = asyncio.get_running_loop()
        checked: asyncio.Future[None] = loop.create_future()

        def settle() -> None:
            if not checked.done():
                checked.set_result(None)

        def done() -> None:  # from the queue's thread
            loop.call_soon_threadsafe(settle)

        def write() -> Taken:
            taken = receive(self.service, user, name, data, arrived)
            self.queue.cancel(taken.replaced)
            self.queue.when_checked(taken.upload_id, done)
            return taken

        taken = await anyio.to_thread.run_sync(write)
        self.queue.wake()
        try:
            await asyncio.wait({checked}, timeout=ANSWER_SECONDS)
        finally:
            self.queue.forget(taken.upload_id, done)
        return taken
