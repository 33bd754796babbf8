"""The machine a benchmark ran on, for its report: CPU, cores, memory,
OS, versions and load, since timings mean little without them."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path


def _first_line_with(path: str, prefix: str) -> str | None:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip() if ":" in line else line
    except OSError:
        return None
    return None


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.platform()


def _ram() -> str:
    total = _first_line_with("/proc/meminfo", "MemTotal")
    if not total:
        return "unknown"
    return f"{int(total.split()[0]) / 1024 / 1024:.1f} GiB"


def _swipl_version() -> str:
    swipl = shutil.which("swipl")
    if swipl is None:
        return "not found"
    done = subprocess.run([swipl, "--version"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def _package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def load_average() -> tuple[float, ...] | None:
    """The 1, 5 and 15 minute load averages: others' work skews wall times."""
    try:
        return os.getloadavg()
    except (AttributeError, OSError):
        return None


#: How long the bench waits, by default, for the load to fall to the cores.
QUIET_WAIT_SECONDS = 90.0


def wait_until_quiet(
    cores: int,
    most: float = QUIET_WAIT_SECONDS,
    every: float = 5.0,
    read: Callable[[], tuple[float, ...] | None] = load_average,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[float, ...] | None:
    """Wait up to `most` seconds for the 1-minute load average to come down
    to `cores`, and return the last one read (None if unknown).

    A wall-clock timing made just after a parallel run would still see
    that run's load in the average, and be judged unreliable for it; the
    average takes a few seconds to fall once the run is over."""
    waited = 0.0
    load = read()
    while load and load[0] > cores and waited < most:
        sleep(every)
        waited += every
        load = read()
    return load


def load_text(load: tuple[float, ...] | None) -> str:
    return ", ".join(f"{x:.2f}" for x in load) if load else "unknown"


def machine_markdown(info: list[tuple[str, str]] | None = None) -> list[str]:
    """`info` (default: machine_info() now) as Markdown list lines."""
    return [f"- {label}: {value}" for label, value in info or machine_info()]


def machine_info() -> list[tuple[str, str]]:
    """What the numbers were measured on, as (label, value) lines."""
    cores = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    return [
        ("CPU", _first_line_with("/proc/cpuinfo", "model name") or platform.processor() or "?"),
        ("Cores", f"{cores} logical, {usable} usable by this process"),
        ("RAM", _ram()),
        ("OS", f"{_os_name()} (kernel {platform.release()})"),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("SWI-Prolog", _swipl_version()),
        ("pyswip", _package_version("pyswip")),
        ("matplotlib", _package_version("matplotlib")),
        ("Load average at start", load_text(load_average())),
        ("Date", datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
    ]
