"""The sandbox itself: bubblewrap, an unprivileged uid, and resource limits.

A sandbox is built the way contest graders build theirs: from nothing,
adding only what the program needs. Its root is an empty file system,
and into it go, read-only and at their usual paths:

- SWI-Prolog: its binary, its home folder (libraries, foreign
  libraries) and the shared objects that the binary and its foreign
  libraries load (found with `ldd`), and nothing else of /usr: no
  shell, interpreter or compiler;
- the loader and the SICStus layer at /sandbox, and the submission's
  files at /submission, both copied in from memory, so that no mount
  shows where they came from (no student id, no suite, no folder of
  the grading machine);
- its own /proc and /dev, and an empty, size-bounded /tmp, the only
  place it can write.

The arguments reach bubblewrap through a descriptor (`--args`), so the
sandbox's process 1 shows only a neutral command line, and the host
name is `sandbox`. It has no network, and its own PID, IPC, UTS, cgroup
and user namespaces. It runs under a uid of its own, never root, that
no other sandbox on the machine holds at the same time (`claim_slot`),
so whatever it can reach it can only read if the world may.

The limits come from the kernel, set before the sandbox starts: a memory
cap and a process cap on the sandbox's control group (see cgroups),
and per-process rlimits for CPU, file size and open files as a backstop.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from plpuzzle.confined import ProcessLimits, drop_to
from plpuzzle.confined import child_setup as confined_setup
from plpuzzle.sandbox.cgroups import Group
from plpuzzle.settings import DEFAULTS

#: Where things appear inside the sandbox.
SUBMISSION_MOUNT = "/submission"
LOADER_MOUNT = "/sandbox"

#: The uids sandboxes run under when the grader is root: one per slot, far
#: above any real account, so rlimits and file ownership never mix slots.
SANDBOX_UID_BASE = 2_146_400_000
#: How many slots (uids) the machine has for sandboxes.
SLOT_COUNT = 8192

#: The uid and gid a sandbox sees itself as (mapped onto its real uid).
INSIDE_UID = 1000

_SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


@dataclass(frozen=True)
class Limits:
    """What one sandbox may use; CPU and wall limits are per test."""

    cpu_seconds: float = 60.0
    wall_seconds: float = 125.0
    memory_mb: int = DEFAULTS.memory_mb
    max_processes: int = 64
    file_size_mb: int = 16
    open_files: int = 256
    #: Bounds on the replies of one run: in total, and for one line
    #: (an answer; the text of messages and exceptions is cut to a
    #: budget instead, see program.TEXT_BUDGET).
    reply_mb: int = 64
    line_kb: int = 256
    #: CPU seconds and wall-clock backstop for loading the submission
    #: (None: a test's). Loading is no test; a caller whose tests have a
    #: tight limit can give loading room of its own.
    load_cpu_seconds: float | None = None
    load_wall_seconds: float | None = None

    @property
    def loading(self) -> tuple[float, float]:
        """(CPU seconds, wall-clock seconds) for loading."""
        cpu = self.cpu_seconds if self.load_cpu_seconds is None else self.load_cpu_seconds
        wall = self.wall_seconds if self.load_wall_seconds is None else self.load_wall_seconds
        return cpu, wall


def own_paths(*extra: Path) -> list[Path]:
    """plpuzzle's own files (and `extra`), which a sandbox must not see even
    when they lie inside what it is shown."""
    import plpuzzle
    from plpuzzle.runtime import prolog_dir

    return [Path(plpuzzle.__file__).resolve().parent, prolog_dir(), *extra]


def sandbox_uid(slot: int) -> int | None:
    """The uid for a sandbox in `slot`, or None when we cannot change uid."""
    return SANDBOX_UID_BASE + slot if os.geteuid() == 0 else None


def _slot_folder() -> Path:
    """Where slots are claimed: one folder for the whole machine when root
    (uids are the machine's), else one per user (no uid changes then)."""
    if os.geteuid() == 0 and os.path.isdir("/run"):
        return Path("/run/plpuzzle-slots")
    return Path(tempfile.gettempdir()) / f"plpuzzle-slots-{os.geteuid()}"


class SlotsExhausted(OSError):
    """Every sandbox slot of the machine is held by a live grader."""


@contextlib.contextmanager
def claim_slot(base: int = 0) -> Iterator[int]:
    """A sandbox slot (hence uid) that no other process on this machine
    holds, from `base` up, held by a lock on a file until the block ends.

    Two graders on one machine, or a grader beside a Dask worker, never
    run sandboxes under the same uid. A killed holder's lock goes with it.
    """
    slot, fd = take_slot(base)
    try:
        yield slot
    finally:
        os.close(fd)


def take_slot(base: int = 0) -> tuple[int, int]:
    """(slot, fd of its lock): the slot is free again once fd is closed."""
    folder = _slot_folder()
    folder.mkdir(mode=0o700, exist_ok=True)
    for slot in range(base, SLOT_COUNT):
        fd = os.open(folder / str(slot), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return slot, fd
    raise SlotsExhausted(f"all sandbox slots from {base} to {SLOT_COUNT - 1} are in use")


# -- what of the machine a sandbox sees -------------------------------------------


@dataclass(frozen=True)
class SystemView:
    """SWI-Prolog and what it loads: the only files of the machine a sandbox sees."""

    #: Files and folders bound read-only at the same path.
    binds: tuple[str, ...]
    #: (target, path): symbolic links made inside (merged /usr, library names).
    links: tuple[tuple[str, str], ...]
    #: SWI-Prolog's home folder (its libraries), for the documentation.
    home: str


class SystemViewError(OSError):
    """What SWI-Prolog needs cannot be found (no swipl, no ldd)."""


def _runtime_variables(swipl: str) -> dict[str, str]:
    done = subprocess.run(
        [swipl, "--dump-runtime-variables"], capture_output=True, text=True, timeout=60
    )
    out = {}
    for line in done.stdout.splitlines():
        name, _, value = line.partition("=")
        out[name.strip()] = value.strip().rstrip(";").strip('"')
    return out


def _shared_objects(files: list[str]) -> set[str]:
    """The shared objects `files` load, as `ldd` resolves them."""
    ldd = shutil.which("ldd")
    if ldd is None:
        raise SystemViewError("ldd is missing, so SWI-Prolog's shared objects cannot be listed")
    found: set[str] = set()
    for path in files:
        try:
            out = subprocess.run([ldd, path], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        for line in out.splitlines():
            words = line.split()
            if "=>" in words:
                target = words[words.index("=>") + 1]
                if target.startswith("/"):
                    found.add(target)
            elif words and words[0].startswith("/"):
                found.add(words[0])  # the dynamic loader
    return found


def _canonical(path: str) -> str:
    """`path` with its folders' links resolved but not its own name."""
    folder, name = os.path.split(path)
    return os.path.join(os.path.realpath(folder), name)


@functools.cache
def system_view() -> SystemView:
    """What of this machine a sandbox needs to run SWI-Prolog (cached)."""
    swipl = shutil.which("swipl")
    if swipl is None:
        raise SystemViewError("SWI-Prolog (swipl) is not installed")
    home = _runtime_variables(swipl).get("PLBASE", "")
    if not home or not os.path.isdir(home):
        raise SystemViewError(f"{swipl} names no home folder (PLBASE)")
    home = os.path.realpath(home)
    binary = os.path.realpath(swipl)
    objects = [binary]
    for folder, _, names in os.walk(home):
        objects += [os.path.join(folder, n) for n in names if n.endswith(".so")]
    binds: set[str] = {home, binary}
    links: dict[str, str] = {}
    for path in [_canonical(swipl), *map(_canonical, sorted(_shared_objects(objects)))]:
        real = os.path.realpath(path)
        if not os.path.exists(real):
            continue
        binds.add(real)
        while path != real and os.path.islink(path):  # libgmp.so.10 -> libgmp.so.10.4.1
            target = os.readlink(path)
            links[path] = target
            path = _canonical(os.path.join(os.path.dirname(path), target))
    # Paths inside a bound folder need no bind of their own.
    kept = sorted(p for p in binds if not any(p != d and p.startswith(d + "/") for d in binds))
    for top in _SYSTEM_LINKS:  # merged /usr: /lib -> usr/lib, ...
        if os.path.islink(top):
            links[top] = os.readlink(top)
    return SystemView(tuple(kept), tuple(sorted((t, p) for p, t in links.items())), home)


# -- bubblewrap ---------------------------------------------------------------------------


@functools.cache
def _bwrap_works(uid: int | None) -> tuple[str | None, bool]:
    """(bwrap path if it builds a sandbox here, whether --disable-userns works)."""
    path = shutil.which("bwrap")
    if path is None:
        return None, False

    def attempt(extra: list[str]) -> bool:
        argv = [path, "--ro-bind", "/", "/", "--unshare-all", *extra, "--die-with-parent", "true"]
        try:
            done = subprocess.run(
                argv, capture_output=True, timeout=20, preexec_fn=lambda: drop_to(uid)
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0

    if not attempt(["--unshare-user", "--uid", str(INSIDE_UID), "--gid", str(INSIDE_UID)]):
        return None, False
    return path, attempt(["--unshare-user", "--disable-userns"])


def bubblewrap(uid: int | None = None) -> str | None:
    """The bwrap binary if it can build a sandbox here (as `uid`), else None."""
    return _bwrap_works(uid)[0]


def _memfd(name: str, data: bytes) -> int:
    """A descriptor holding `data`, read from its start (not a file on disk)."""
    fd = os.memfd_create(name, 0)  # no MFD_CLOEXEC: bubblewrap must inherit it
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@dataclass
class SandboxCommand:
    """bubblewrap's command line and the descriptors it reads its setup from.

    Start it with `pass_fds=fds`; once it has started, `close()` ours.
    """

    argv: list[str]
    fds: list[int] = field(default_factory=list)

    def close(self) -> None:
        fds, self.fds = self.fds, []
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def command(
    argv: list[str],
    files: Mapping[str, bytes],
    uid: int | None,
    tmp_mb: int,
    hidden: list[Path] | None = None,
) -> SandboxCommand:
    """`argv` wrapped in bubblewrap with the view described above.

    `files` maps paths inside the sandbox (under /submission or /sandbox)
    to their contents; they are copied into its read-only root. `hidden`
    are paths of ours that must not be seen, should one lie inside what
    the sandbox is shown.
    """
    bwrap, no_userns = _bwrap_works(uid)
    if bwrap is None:
        raise OSError("bubblewrap cannot build a sandbox on this machine")
    view = system_view()
    setup = [
        "--unshare-all",
        "--unshare-user", "--uid", str(INSIDE_UID), "--gid", str(INSIDE_UID),
        "--hostname", "sandbox",
        "--die-with-parent",
        "--new-session",
    ]  # fmt: skip
    if no_userns:
        setup.append("--disable-userns")
    for path in view.binds:
        setup += ["--ro-bind", path, path]
    for own in hidden or []:
        resolved = own.resolve()
        inside = any(resolved.is_relative_to(b) for b in view.binds)
        if inside and resolved.exists():
            setup += ["--tmpfs", str(resolved)] if resolved.is_dir() else [
                "--ro-bind", "/dev/null", str(resolved)]  # fmt: skip
    for target, path in view.links:
        setup += ["--symlink", target, path]
    setup += ["--proc", "/proc", "--dev", "/dev", "--size", str(tmp_mb << 20), "--tmpfs", "/tmp"]
    made = SandboxCommand([])
    try:
        folders = sorted(
            {str(d) for p in files for d in Path(p).parents if str(d) != "/"}
            | {SUBMISSION_MOUNT, LOADER_MOUNT}
        )
        for folder in folders:
            setup += ["--perms", "0555", "--dir", folder]
        for path, data in sorted(files.items()):
            fd = _memfd("file", data)
            made.fds.append(fd)
            setup += ["--perms", "0444", "--file", str(fd), path]
        setup += [
            "--remount-ro", "/",
            "--chdir", SUBMISSION_MOUNT,
            "--clearenv",
            "--setenv", "PATH", "/usr/bin",
            "--setenv", "HOME", "/tmp",
            "--setenv", "TMPDIR", "/tmp",
            "--setenv", "LANG", "C.UTF-8",
        ]  # fmt: skip
        args = _memfd("args", b"".join(a.encode() + b"\0" for a in setup))
        made.fds.append(args)
    except BaseException:
        made.close()
        raise
    made.argv = [bwrap, "--args", str(args), "--", *argv]
    return made


def child_setup(limits: Limits, group: Group | None, uid: int | None) -> Callable[[], None]:
    """What runs in the child between fork and exec (plpuzzle.confined
    puts the steps in the order that works): join the group (which needs
    our privileges), the rlimits, the uid, the parent-death signal."""
    controllers = group.controllers if group is not None else frozenset()
    # The parent stops a run at its CPU limit; this per-process limit is a
    # backstop (each forked child starts its own count; loading may have
    # its own, longer limit).
    cpu = int(max(limits.cpu_seconds, limits.loading[0])) + 6
    # Address space: the group caps real memory; without that this is all there is.
    memory = limits.memory_mb * 4 if "memory" in controllers else limits.memory_mb
    rlimits = ProcessLimits(
        cpu_seconds=cpu,
        memory_mb=memory,
        file_size_mb=limits.file_size_mb,
        open_files=limits.open_files,
        # No pids controller: the per-uid process limit instead.
        processes=None if "pids" in controllers else limits.max_processes,
    )
    return confined_setup(rlimits, uid, group.join_self if group is not None else None)
