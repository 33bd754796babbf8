"""The client's side of a cluster: connecting, admitting workers, shipping content.

Nothing here decides a grade; it only gets runs to workers that can
sandbox them and their observations back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from plpuzzle import __version__
from plpuzzle.cluster.worker_side import allowed_failures, worker_status

if TYPE_CHECKING:
    from distributed import Client, Future, Scheduler

#: What to install for --scheduler and `plpuzzle cluster`.
INSTALL_HINT = "pip install 'plpuzzle[dask]' (Dask distributed)"


class ClusterError(Exception):
    """A cluster we cannot grade on; the message says why, naming the worker."""


def require_dask() -> None:
    """Raise ClusterError when Dask distributed is not installed here."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ClusterError(f"grading on a cluster needs Dask: {INSTALL_HINT}") from None


def connect(address: str, timeout: float = 15) -> Client:
    """A client of the scheduler at `address` (tcp://HOST:PORT)."""
    require_dask()
    from distributed import Client
    from distributed.comm.addressing import parse_address, parse_host_port

    if "://" not in address:
        address = f"tcp://{address}"
    try:
        parse_host_port(parse_address(address)[1])
    except ValueError:
        raise ClusterError(
            f"--scheduler: {address!r} is not a scheduler address (tcp://HOST:PORT)"
        ) from None
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address} ({e}); start one with "
            "`dask scheduler` or `plpuzzle cluster local`"
        ) from None


@dataclass
class Admission:
    """Which workers may take runs, which are refused and why."""

    usable: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    #: Things about the cluster the user should know (not errors).
    notes: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return [
            f"Dask worker {addr} refused, no run goes to it: {why}"
            for addr, why in sorted(self.refused.items())
        ]


def admit(client: Client) -> Admission:
    """Install the sandbox gate on every worker and report who passed.

    Workers that join later are checked by the gate as they join. Raises
    ClusterError when no worker can take runs.
    """
    out = Admission()
    info = client.scheduler_info()
    if not info.get("workers"):
        raise ClusterError(
            f"the Dask scheduler at {info.get('address')} has no worker: start some "
            "with `dask worker ADDRESS` (see the README)"
        )
    from plpuzzle.cluster.gate import SandboxGate  # Dask itself: only now

    try:
        client.register_plugin(SandboxGate())
    except Exception as e:  # a worker without plpuzzle cannot unpickle the gate
        out.notes.append(f"the sandbox gate could not be installed on every worker ({e})")
    statuses: dict[str, Any] = client.run(worker_status, on_error="return")
    for address, status in sorted(statuses.items()):
        if isinstance(status, BaseException):
            out.refused[address] = (
                f"it cannot run plpuzzle ({type(status).__name__}: {status}); install "
                f"plpuzzle {__version__} with its dask extra there"
            )
        elif status["version"] != __version__:
            out.refused[address] = (
                f"it runs plpuzzle {status['version']}, this client {__version__}: grades "
                "would not be comparable"
            )
        elif status["problem"]:
            out.refused[address] = f"{status['problem']} (on {status['host']})"
        else:
            out.usable.append(address)
    if not out.usable:
        why = "; ".join(out.problems())
        raise ClusterError(f"no Dask worker can sandbox submissions, so none is graded: {why}")
    try:
        retries = client.run_on_scheduler(allowed_failures)
    except Exception:  # a scheduler without plpuzzle: nothing to learn
        retries = None
    if retries is not None and retries != 1:
        out.notes.append(
            f"the scheduler tries a run that kills its worker {retries + 1} times before it "
            "is graded crashed; start it with DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1 "
            "to give up after two"
        )
    return out


def ship(client: Client, kind: str, digest: str, payload: object) -> Future:
    """Put `payload` on the cluster under a key made of its digest.

    The scheduler then moves it to each worker that needs it, once, and
    keeps it there while the returned future is held. It is a task whose
    result is the payload, not scattered data: data scattered to a worker
    that dies is lost with it, while a task is simply run again. The task
    is toolz's identity, which every Dask worker can run.
    """
    from toolz import identity  # type: ignore[import-untyped]

    return client.submit(identity, payload, key=f"plpuzzle-{kind}-{digest}", pure=False)


def nudge_stuck(client: Client, prefix: str) -> int:
    """Have the scheduler look again for a worker for our runs it found none for.

    A worker gets plpuzzle's resource from the gate after it has joined,
    and Dask does not look again at the tasks it could not place when a
    worker's resources grow, only when a worker joins. So runs left with
    no worker (every worker died at once, and came back) would wait
    forever. How many tasks were looked at again.
    """

    def look_again(dask_scheduler: Scheduler) -> int:
        # Sent by value (a nested function): the scheduler needs no plpuzzle.
        stuck = [ts.key for ts in list(dask_scheduler.unrunnable) if str(ts.key).startswith(prefix)]
        if stuck:
            dask_scheduler.transitions(
                dict.fromkeys(stuck, "processing"), stimulus_id=f"{prefix}look-again"
            )
        return len(stuck)

    try:
        return int(client.run_on_scheduler(look_again))
    except Exception:  # an older or newer scheduler: it may not need it
        return 0
