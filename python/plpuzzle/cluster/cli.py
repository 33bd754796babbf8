"""`plpuzzle cluster`: start a Dask cluster to grade on (the commands only)."""

from __future__ import annotations

import os
import time

import click

from plpuzzle.clitools import Interrupted, SetupError, format_option, note, warn, write_json


@click.group(
    short_help="Dask clusters to grade on: start one on this machine.",
)
def cluster() -> None:
    """Dask clusters to grade on: start one on this machine.

    `plpuzzle sudoku grade --scheduler tcp://HOST:PORT` grades on any Dask
    cluster. On lab machines start one with Dask's own commands, after
    installing plpuzzle with its dask extra on each machine:

    \b
      DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1 dask scheduler
      dask worker tcp://SCHEDULER:8786 --nworkers 4 --nthreads 1   # on each machine, as root

    On one big machine, `plpuzzle cluster local` does both.
    """


@cluster.command("local", short_help="Start a scheduler and worker processes here, until Ctrl-C.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=os.cpu_count() or 1,
    show_default="number of cores",
    help="Worker processes to start (each runs one test at a time).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address the scheduler listens on (0.0.0.0: let other machines' workers join).",
)
@click.option(
    "--port",
    type=click.IntRange(min=0, max=65535),
    default=8786,
    show_default=True,
    help="The scheduler's port (0: any free port).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Start the cluster, report which workers can grade, and stop (exit 3 if none).",
)
@format_option(("text", "json"), "text: one line; json: the scheduler and its workers on stdout.")
def local(workers: int, host: str, port: int, check: bool, fmt: str) -> None:
    """Start a Dask scheduler and WORKERS worker processes here, until Ctrl-C.

    Prints the scheduler's address to give to `sudoku grade --scheduler`.
    Each worker process runs one test at a time; a test that brings its
    worker down is tried on a second worker, and graded crashed when that
    one dies too. Workers must be able to sandbox (bubblewrap, control
    groups: run as root); those that cannot are named at start. Exit code
    130 when stopped by Ctrl-C, 0 after --check with a usable worker, 2
    for bad options, 3 when the scheduler cannot start or no worker can
    sandbox.
    """
    from plpuzzle.cluster.client_side import ClusterError, admit
    from plpuzzle.cluster.local import local_cluster

    try:
        started = local_cluster(workers, host=host, port=port)
    except ClusterError as e:
        raise SetupError(str(e)) from None
    except OSError as e:
        why = e.strerror or e
        raise SetupError(f"cannot start the scheduler on {host}:{port}: {why}") from None
    try:
        from distributed import Client

        with Client(started, set_as_default=False) as client:
            try:
                admission = admit(client)
            except ClusterError as e:
                raise SetupError(str(e)) from None
            for problem in admission.problems() + admission.notes:
                warn(problem)
            address = started.scheduler_address
            ready = len(admission.usable)
            if fmt == "json":
                write_json(
                    {
                        "scheduler": address,
                        "workers": workers,
                        "ready": admission.usable,
                        "refused": admission.refused,
                        "notes": admission.notes,
                    }
                )
            else:
                click.echo(f"scheduler at {address} with {ready} of {workers} worker(s) ready")
            if check:
                return
            note(f"grade on it: plpuzzle sudoku grade SUBMISSIONS --scheduler {address}")
            note("Ctrl-C stops the cluster")
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        raise Interrupted() from None
    finally:
        started.close()
