"""A Dask LocalCluster set up for grading: one big machine, many workers.

Each worker is a process with one thread, so a run that takes its
worker down takes nobody else's run with it, and the scheduler gives up
on such a run after it killed two workers (allowed-failures = 1). Each
worker holds at most one run at a time (worker-saturation = 1.0), so a
dying worker is blamed only on the run it was executing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from plpuzzle.cluster.client_side import require_dask

if TYPE_CHECKING:
    from distributed import LocalCluster

#: Scheduler settings for grading (also what the README asks of `dask scheduler`).
SCHEDULER_CONFIG = {
    "distributed.scheduler.allowed-failures": 1,
    "distributed.scheduler.worker-saturation": 1.0,
}


def local_cluster(
    workers: int, threads: int = 1, host: str = "127.0.0.1", port: int = 0
) -> LocalCluster:
    """Start a scheduler here and `workers` worker processes beside it."""
    require_dask()
    import dask
    from distributed import LocalCluster

    with dask.config.set(SCHEDULER_CONFIG):
        return LocalCluster(
            n_workers=workers,
            threads_per_worker=threads,
            processes=True,
            host=host,
            scheduler_port=port,
            dashboard_address=":0",  # any free port: never a clash with another cluster
        )
