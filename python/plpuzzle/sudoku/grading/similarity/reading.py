"""Reading hand-ins with SWI-Prolog's own reader, in a process of its own.

The files are untrusted: huge, deeply nested, full of operator tricks, or
made to hang a reader. Reading executes none of them (see
prolog/similarity_reader.pl: terms are read, never called; an op/3
directive acts on a module of that file's own), and the reader runs in a
separate `swipl` process under limits the parent sets and watches:

- where bubblewrap can build a sandbox (as for grading), the process sees
  SWI-Prolog, the reader and nothing else of the machine, with no network,
  under an unprivileged uid of its own when we are root;
- always: CPU time, address space, open files and the size of what it
  writes (its standard output is a file, capped by RLIMIT_FSIZE) are
  limited by the kernel, a wall-clock deadline kills it, each file has a
  time limit inside the reader, and at most MAX_TOKENS tokens are kept.

Many files go through one process (a batch), for speed. A file that takes
the process down (a limit, a crash) gets no reply; the batch then starts
again after it, without it, so one hostile file cannot spoil the others'
results, and that file is read by the tokenizer (tokens.py) instead.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

from plpuzzle.confined import ProcessLimits, child_setup
from plpuzzle.runtime import Dialect, prolog_file
from plpuzzle.sandbox import jail
from plpuzzle.sudoku.grading.similarity.tokens import (
    MAX_TOKENS,
    NAME,
    RawClause,
    RawToken,
    count_tokens,
    tokenize,
)

READER = "similarity_reader.pl"

#: Limits of one reader process: wall-clock seconds per file inside the
#: reader, and for the whole batch (startup, then per file); address space;
#: what it may write in all.
FILE_SECONDS = 10
BATCH_STARTUP_SECONDS = 30
MEMORY_MB = 2048
STACK_MB = 512
OUTPUT_MB = 256

#: Files and characters per batch (a process of its own).
BATCH_FILES = 64
BATCH_CHARS = 2_000_000

#: How each file was read.
PROLOG, PARTLY, TOKENS = "prolog", "partly as tokens", "as tokens"

#: One file to read: its id, its text, the tokens to keep, and whether
#: clpfd's operators are known from its start.
Item = tuple[int, str, int, bool]

#: Directives that load a library, as the tokenizer sees them.
_LOADERS = frozenset({"use_module", "ensure_loaded", "reexport", "consult", "load_files"})


class ReaderUnavailable(Exception):
    """SWI-Prolog cannot run the reader here (not installed, or broken)."""


@dataclass
class FileRead:
    """One file's clauses, how it was read, and notes for the report."""

    clauses: list[RawClause]
    how: str = PROLOG
    notes: list[str] = field(default_factory=list)


@functools.cache
def vocabulary() -> frozenset[str]:
    """The names that belong to Prolog and its libraries (built-in and
    library predicates, operators, module names), from SWI-Prolog itself:
    kept as they are when a file's own names are renamed. Our own code
    only runs here, with no student input."""
    swipl = shutil.which("swipl")
    if swipl is None:
        raise ReaderUnavailable("SWI-Prolog (swipl) is not installed")
    argv = [swipl, "-q", "-f", "none", "--no-packs", "-g", "similarity_reader:vocabulary",
            "-t", "halt", str(prolog_file(READER))]  # fmt: skip
    try:
        done = subprocess.run(argv, capture_output=True, timeout=120, check=False)
        names = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        raise ReaderUnavailable(f"SWI-Prolog did not list its vocabulary: {e}") from None
    if done.returncode != 0 or not isinstance(names, list):
        tail = done.stderr.decode(errors="replace")[-300:]
        raise ReaderUnavailable(f"SWI-Prolog did not list its vocabulary: {tail}")
    return frozenset(n for n in names if isinstance(n, str))


# -- one reader process -------------------------------------------------------------


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, max(0, offset)) + 1


def _child_limits(cpu_seconds: int, uid: int | None) -> Callable[[], None]:
    """What runs between fork and exec (plpuzzle.confined): the kernel's
    limits, the uid, and death with the parent."""
    limits = ProcessLimits(
        cpu_seconds=cpu_seconds, memory_mb=MEMORY_MB, file_size_mb=OUTPUT_MB, open_files=64
    )
    return child_setup(limits, uid)


@dataclass
class _Batch:
    """What one process answered: replies by file id, whether it started,
    and why it stopped early (None: it read every file)."""

    replies: dict[int, dict[str, Any]]
    started: bool
    stopped: str | None
    stderr: str = ""


class Reader:
    """Runs reader processes for one dialect; `sandboxed` says whether
    bubblewrap confines them (else the kernel's limits alone do)."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.swipl = shutil.which("swipl")
        if self.swipl is None:
            raise ReaderUnavailable("SWI-Prolog (swipl) is not installed")
        self.sandboxed = jail.bubblewrap(jail.sandbox_uid(0)) is not None
        if self.sandboxed:
            try:
                jail.system_view()
            except OSError:
                self.sandboxed = False
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self._stopped = False

    @contextlib.contextmanager
    def _slot(self) -> Iterator[int | None]:
        """An unprivileged uid for the process when we are root, else None."""
        if os.geteuid() != 0:
            yield None
            return
        with jail.claim_slot() as slot:
            yield jail.sandbox_uid(slot)

    def _argv(self, reader: str) -> list[str]:
        return [
            "swipl", "-q", "-f", "none", "--no-packs", "--no-threads", f"--stack-limit={STACK_MB}m",
            "-g", "similarity_reader:main", "-t", "halt", reader, "--",
            self.dialect, str(FILE_SECONDS), str(MAX_TOKENS),
        ]  # fmt: skip

    def _run(self, items: Sequence[Item]) -> _Batch:
        """One process over `items` (id, text, tokens to read, whether
        clpfd's operators are known from the start)."""
        deadline = BATCH_STARTUP_SECONDS + FILE_SECONDS * len(items)
        with contextlib.ExitStack() as stack:
            files = [stack.enter_context(tempfile.TemporaryFile()) for _ in range(3)]
            stdin, stdout, stderr = files
            for ident, text, budget, clpfd in items:
                options = "[clpfd]" if clpfd else "[]"
                header = f"file({ident}, {len(text)}, {budget}, {options}).\n"
                stdin.write(header.encode() + text.encode() + b"\n")
            stdin.seek(0)
            uid = stack.enter_context(self._slot())
            reader_bytes = prolog_file(READER).read_bytes()
            wrapped: jail.SandboxCommand | None = None
            if self.sandboxed:
                path = f"{jail.LOADER_MOUNT}/{READER}"
                wrapped = jail.command(
                    self._argv(path), {path: reader_bytes}, uid, 16, jail.own_paths()
                )
                argv = wrapped.argv
            else:
                argv = [str(self.swipl), *self._argv(str(prolog_file(READER)))[1:]]
            try:
                proc = subprocess.Popen(
                    argv,
                    stdin=stdin,
                    stdout=stdout,
                    stderr=stderr,
                    start_new_session=True,
                    pass_fds=wrapped.fds if wrapped else (),
                    preexec_fn=_child_limits(deadline, uid if self.sandboxed else None),
                    env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                )
            finally:
                if wrapped is not None:
                    wrapped.close()
            with self._lock:
                self._live.add(proc)
                if self._stopped:  # Ctrl-C came while it started
                    os.killpg(proc.pid, signal.SIGKILL)
            stopped: str | None = None
            try:
                proc.wait(timeout=deadline)
            except subprocess.TimeoutExpired:
                stopped = f"the reader's wall-clock limit ({deadline} s for its batch)"
            finally:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                with self._lock:
                    self._live.discard(proc)
            if os.fstat(stdout.fileno()).st_size >= OUTPUT_MB << 20:
                stopped = "the reader's output size limit"
            elif stopped is None and proc.returncode != 0:
                stopped = _how_it_ended(proc.returncode)
            replies, started = _replies(stdout)
            stderr.seek(0, os.SEEK_END)
            stderr.seek(max(0, stderr.tell() - 2000))
            tail = stderr.read().decode(errors="replace")
        if stopped is None and len(replies) < len(items):
            stopped = "the reader stopped without a reply"
        return _Batch(replies, started, stopped, tail)

    def abort(self) -> None:
        """Kill every reader process, and start no more (on Ctrl-C)."""
        with self._lock:
            self._stopped = True
            live = list(self._live)
        for proc in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)

    def read_batch(self, items: Sequence[Item]) -> dict[int, dict[str, Any]]:
        """Replies for every item: the reader's, or {"failed": why} for a
        file that took a process down (the rest are read again without it)."""
        out: dict[int, dict[str, Any]] = {}
        pending = list(items)
        while pending and not self._stopped:
            batch = self._run(pending)
            if not batch.started:
                raise ReaderUnavailable(
                    f"SWI-Prolog's reader did not start ({batch.stopped}): {batch.stderr.strip()}"
                )
            out.update(batch.replies)
            rest = [item for item in pending if item[0] not in batch.replies]
            if rest:
                out[rest[0][0]] = {"failed": batch.stopped or "the reader stopped"}
            pending = rest[1:]
        return out


def _how_it_ended(code: int) -> str:
    """In words; bubblewrap reports a child killed by signal N as 128 + N."""
    if code > 128:
        code = 128 - code
    if code < 0:
        limits = {signal.SIGXCPU: "CPU time", signal.SIGXFSZ: "output size"}
        name = {int(s): n for s, n in limits.items()}.get(-code, "")
        return f"the reader's {name} limit" if name else f"the reader died (signal {-code})"
    return f"the reader ended with status {code}"


def _replies(stdout: IO[bytes]) -> tuple[dict[int, dict[str, Any]], bool]:
    """The replies a process wrote (its last line may be cut off), and
    whether it said it was ready."""
    stdout.seek(0)
    replies: dict[int, dict[str, Any]] = {}
    started = False
    for raw in stdout:
        try:
            reply = json.loads(raw)
        except ValueError:
            break
        if not isinstance(reply, dict):
            break
        if reply.get("ready") is True:
            started = True
        elif isinstance(reply.get("id"), int):
            replies[reply["id"]] = reply
    return replies, started


# -- from replies to clauses -------------------------------------------------------------


def _clauses(reply: dict[str, Any], text: str, file: int, budget: int = MAX_TOKENS) -> FileRead:
    """A reader's reply as clauses: the clauses it read, and its syntax
    errors' stretches of text read as tokens, `budget` tokens in all."""
    if reply.get("failed"):
        why = str(reply["failed"])
        return FileRead(
            tokenize(text, file=file, budget=budget), TOKENS, [f"read as tokens: {why}"]
        )
    clauses = []
    for c in reply.get("clauses", []):
        tokens = [RawToken(str(k), v, int(a), int(b)) for k, v, a, b in c["tokens"]]
        head = c.get("head")
        clauses.append(RawClause(tokens, str(head[0]) if head else None, file))
    notes = []
    errors = [(e[0], e[1], e[2], e[3] if len(e) > 3 else e[0] + 1) for e in reply.get("errors", [])]
    # One budget of tokens for the whole file, the reader's and the
    # tokenizer's together: a file of many broken clauses gets no more.
    left = budget - count_tokens(clauses)
    for start, end, _message, _at in errors:
        if left <= 0:
            break
        more = tokenize(text, int(start), int(end), file, left)
        left -= count_tokens(more)
        clauses += more
    how = PROLOG
    if errors:
        how = PARTLY
        _, _, message, at = errors[0]
        notes.append(
            f"{len(errors)} clause(s) with syntax errors, which SWI-Prolog does not load, "
            f"read as tokens (the first at line {_line(text, int(at))}: {message})"
        )
    if reply.get("truncated") or left <= 0:
        notes.append(f"read up to {budget:,} tokens")
    return FileRead(clauses, how, notes)


def loads_clpfd(text: str) -> bool:
    """Whether a directive of `text` loads library(clpfd), by its tokens
    (comments are no directives)."""
    if "clpfd" not in text:
        return False
    for clause in tokenize(text):
        names = [str(t.value) for t in clause.tokens if t.kind == NAME]
        if names[:1] == [":-"] and _LOADERS & set(names):
            pairs = itertools.pairwise(names)
            if any(a == "library" and b == "clpfd" for a, b in pairs):
                return True
    return False


def clpfd_elsewhere(groups: Sequence[Sequence[str]]) -> list[bool]:
    """For each text of each group (a hand-in's files), whether another
    text of its group loads library(clpfd): its operators are then known
    when the file loads after it."""
    out = []
    for texts in groups:
        loading = [loads_clpfd(t) for t in texts]
        out += [sum(loading) - own > 0 for own in loading]
    return out


def read_texts(
    texts: Sequence[str],
    dialect: Dialect,
    jobs: int = 1,
    reader: Reader | None = None,
    budgets: Sequence[int] | None = None,
    clpfd: Sequence[bool] | None = None,
) -> list[FileRead]:
    """Every text read by SWI-Prolog in `dialect` (clauses that do not
    read, and files it cannot read, by the tokenizer), in `jobs` processes
    at a time; of text i, at most budgets[i] tokens (default MAX_TOKENS)
    are kept, by the reader and the tokenizer together; clpfd[i] gives
    text i clpfd's operators from its start (else only from the
    directive that loads the library). Raises ReaderUnavailable when
    SWI-Prolog cannot run."""
    reader = reader or Reader(dialect)
    limits = [min(MAX_TOKENS, b) for b in budgets] if budgets else [MAX_TOKENS] * len(texts)
    known = list(clpfd) if clpfd else [False] * len(texts)
    batches: list[list[Item]] = [[]]
    size = 0
    for ident, text in enumerate(texts):
        if batches[-1] and (len(batches[-1]) >= BATCH_FILES or size + len(text) > BATCH_CHARS):
            batches.append([])
            size = 0
        batches[-1].append((ident, text, limits[ident], known[ident]))
        size += len(text)
    out: dict[int, FileRead] = {}

    def read_batch(batch: list[Item]) -> dict[int, FileRead]:
        # Each batch's replies become clauses at once: no raw reply of
        # the whole class is ever held.
        replies = reader.read_batch(batch)
        return {
            i: _clauses(replies.get(i, {"failed": "no reply"}), text, 0, budget)
            for i, text, budget, _ in batch
        }

    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        for done in pool.map(read_batch, [b for b in batches if b]):
            out.update(done)
    except BaseException:
        reader.abort()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return [out[i] for i in range(len(texts))]
