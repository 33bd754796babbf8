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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from plpuzzle.i18n import N_, _, speaking
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
    #: The control group's cgroup version (0: none), whether it is
    #: delegated to this user, and whether it caps the group's memory.
    cgroup: int = 0
    delegated: bool = False
    group_memory: bool = False
    #: Why the time is charged rather than counted ("" when counted).
    why_charged: str = ""

    def facts(self) -> dict[str, Any]:
        """What a report stores of it: data, put in words as the report
        is read (accounting_words), in the reader's language."""
        return {"by_kernel": self.by_kernel, "cores": self.cores, "cgroup": self.cgroup,
                "delegated": self.delegated, "group_memory": self.group_memory}  # fmt: skip

    @property
    def words(self) -> str:
        """One line for the reports, in English (as grades.json keeps it)."""
        with speaking("en"):
            return accounting_words(self.facts())


#: What a grader without control groups can do about it.
WITHOUT_GROUPS = N_(
    "no control group could be made for the sandbox here; run as root, or in a cgroup "
    "v2 group delegated to your user (systemd-run --user --scope -p Delegate=yes), "
    "for the kernel's count"
)


def accounting_words(facts: Mapping[str, Any]) -> str:
    """An Accounting's facts (as a report stores them) in words, in the
    language in force."""
    if not facts.get("by_kernel"):
        return _(
            "CPU time charged as wall time x %(cores)s core(s), the cores a sandbox may use, "
            "since %(why)s; memory sampled and capped per process"
        ) % {"cores": facts.get("cores"), "why": _(WITHOUT_GROUPS)}
    group = {"version": facts.get("cgroup")}
    return _(
        "CPU time counted by the kernel over every process of the sandbox, in its control "
        "group (%(group)s); %(memory)s"
    ) % {
        "group": (_("cgroup v%(version)s, delegated to this user") if facts.get("delegated")
                  else _("cgroup v%(version)s")) % group,
        "memory": _("memory capped for the whole group") if facts.get("group_memory")
        else _("memory sampled and capped per process"),
    }  # fmt: skip


def accounting() -> Accounting:
    """Which count of CPU time sandboxes get here (not cached: tests vary it)."""
    cores = usable_cores()
    where = cgroups.layout()
    if where is not None:
        return Accounting(True, cores, where.version, where.delegated,
                          "memory" in where.controllers)  # fmt: skip
    return Accounting(False, cores, why_charged="no kernel count of CPU time here")
