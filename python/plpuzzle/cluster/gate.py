"""The worker plugin that admits a Dask worker to plpuzzle's runs.

Apart from worker_side so that importing plpuzzle's cluster code (the
grader does, to know of clusters at all) does not import Dask: only a
client that grades on a cluster installs the gate, and only then is
Dask loaded.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from distributed import WorkerPlugin

from plpuzzle.cluster.worker_side import RESOURCE, close_everything, forget_task, probe_sandbox

if TYPE_CHECKING:
    from distributed import Worker

logger = logging.getLogger("plpuzzle.cluster.worker_side")


class SandboxGate(WorkerPlugin):
    """Admits a worker to plpuzzle's runs once it is found able to sandbox them.

    Installed on every worker of the cluster, present and future (a worker
    restarted after a crash is checked again); on teardown it closes the
    sandboxes the worker still holds.
    """

    name = "plpuzzle-sandbox-gate"
    idempotent = True

    async def setup(self, worker: Worker) -> None:
        # The probe starts bwrap: not on the worker's event loop.
        problem = await asyncio.get_running_loop().run_in_executor(None, probe_sandbox)
        if problem is None:
            await worker.set_resources(**{RESOURCE: worker.state.nthreads})
        else:
            logger.warning("plpuzzle refuses this worker: %s", problem)

    def transition(self, key: object, start: str, finish: str, **kwargs: object) -> None:
        # A run nobody wants any more (its client cancelled it or went away)
        # keeps its thread until it ends: end it now, by killing its sandbox.
        if start == "executing" and finish in ("cancelled", "released", "forgotten"):
            forget_task(str(key))

    def teardown(self, worker: Worker) -> None:
        close_everything()
