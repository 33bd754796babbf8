"""What measures a sandbox, and which count of CPU time the reports state.

The CPU limit must count every process a submission starts, however it
starts them and whoever reaps them. Only the kernel can keep such a
count: a control group does (cgroup v1's cpuacct, or cgroup v2's
cpu.stat, which every v2 group has, delegated to a user or not). Where
no group can be made, nothing the grader can read is such a count, so
the sandbox is charged wall time times the cores it may run on instead,
an upper bound that no arrangement of processes escapes (see proctree).
`accounting()` says which of the two is used here, in words the reports
show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from plpuzzle.sandbox import cgroups
from plpuzzle.sandbox.proctree import usable_cores


class Meter(Protocol):
    """What the sandbox reads and does through its meter."""

    name: str
    controllers: frozenset[str]

    def look(self) -> float: ...
    def cpu_seconds(self) -> float: ...
    def memory_peak_mb(self) -> float: ...
    def reset_peak(self) -> None: ...
    def oom_kills(self) -> int: ...
    def pids(self) -> list[int]: ...
    def kill_all(self, patience: float = 10.0) -> bool: ...
    def remove(self) -> str | None: ...


@dataclass(frozen=True)
class Accounting:
    """How CPU time is counted on this machine, for this grader."""

    #: The kernel counts every process's time (a control group).
    by_kernel: bool
    #: The cores a sandbox may run on (what wall time is multiplied by).
    cores: int
    #: One line for the reports.
    words: str
    #: Why the time is charged rather than counted ("" when counted).
    why_charged: str = ""


#: What a grader without control groups can do about it.
WITHOUT_GROUPS = (
    "no control group could be made for the sandbox here; run as root, or in a cgroup "
    "v2 group delegated to your user (systemd-run --user --scope -p Delegate=yes), "
    "for the kernel's count"
)


def accounting() -> Accounting:
    """Which count of CPU time sandboxes get here (not cached: tests vary it)."""
    cores = usable_cores()
    where = cgroups.layout()
    if where is not None:
        whose = ", delegated to this user" if where.delegated else ""
        memory = (
            "memory capped for the whole group"
            if "memory" in where.controllers
            else "memory sampled and capped per process"
        )
        return Accounting(
            True,
            cores,
            f"CPU time counted by the kernel over every process of the sandbox, in its "
            f"control group (cgroup v{where.version}{whose}); {memory}",
        )
    return Accounting(
        False,
        cores,
        f"CPU time charged as wall time x {cores} core(s), the cores a sandbox may use, "
        f"since {WITHOUT_GROUPS}; memory sampled and capped per process",
        "no kernel count of CPU time here",
    )
