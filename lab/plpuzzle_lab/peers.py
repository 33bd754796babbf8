"""Gecode and Choco, the classical constraint solvers, as peers of the bench.

clpfd belongs to their family (propagation and search), so they show what
a propagation solver reaches on the same puzzles. Both get the same plain
model, written here from the rules alone: a variable per field over 1..N,
the givens and parities as domains, a domain-consistent all-different on
every row, column and box, and each `s`/`w` info as a table of the value
pairs it allows. Neither shares code or reasoning with our engines.

- Gecode runs as `fzn-gecode` (Debian's `flatzinc`) on FlatZinc written
  here, one thread, every solution, Gecode's default search (no search
  annotation; the diagnosis asks for input order instead).
  Writing FlatZinc directly names Gecode's own propagators
  (`all_different_int :: domain`, `gecode_table_int`), where a MiniZinc
  model compiled against a library of another version can decompose them
  without a word. Its CPU time is the process's, from the kernel.
- Choco runs through `pychoco` (the `peers` extra of the lab) in a worker
  process, with its default search.

Each puzzle is a process of its own, under the same limit as our engines'
workers: killed once its CPU time passes the time limit, or at their
wall-clock backstop. A peer that is not installed is reported by
`missing_peers`, and the bench skips it with a note.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from pathlib import Path
from typing import Self

from plpuzzle.procstat import backstop, process_cpu_seconds, run_queue_seconds
from plpuzzle.runtime.status import default_message
from plpuzzle.settings import DEFAULTS
from plpuzzle.sudoku.domain.model import Grid, Puzzle, Rules, box_cells, grid_from_lists
from plpuzzle.sudoku.domain.results import SolveResult, Status
from plpuzzle.sudoku.domain.textformat import parse_puzzle, puzzle_to_text

#: The peers this module provides, in report order.
PEER_NAMES = ("gecode", "choco")

#: The Gecode FlatZinc interpreter.
FZN_GECODE = "fzn-gecode"


def missing_peers() -> dict[str, str]:
    """The peers that cannot run here, with what to install."""
    missing = {}
    if shutil.which(FZN_GECODE) is None:
        missing["gecode"] = f"no `{FZN_GECODE}` on PATH (Debian: apt-get install flatzinc)"
    if find_spec("pychoco") is None:
        missing["choco"] = "no `pychoco` (pip install -e './lab[peers]')"
    return missing


def peer_versions() -> dict[str, str]:
    """What the report says of each peer that can run here: Gecode's version
    as fzn-gecode prints it, pychoco's as installed ("?" when unknown)."""
    missing = missing_peers()
    out = {}
    if "gecode" not in missing:
        try:
            done = subprocess.run(
                [FZN_GECODE, "-help"], capture_output=True, text=True, timeout=30, check=False
            )
            found = re.search(r"Version:\s*(\S+)", done.stdout + done.stderr)
        except (OSError, subprocess.SubprocessError):
            found = None
        out["gecode"] = f"Gecode {found.group(1) if found else '?'}"
    if "choco" not in missing:
        try:
            out["choco"] = f"pychoco {version('pychoco')}"
        except PackageNotFoundError:
            out["choco"] = "pychoco ?"
    return out


# --- the plain model ---------------------------------------------------------------


def cell_domains(puzzle: Puzzle) -> list[list[list[int]]]:
    """Each field's values allowed by its own infos (given value, parity)."""
    n = puzzle.n
    out = []
    for row in puzzle.fields:
        cells = []
        for field in row:
            values = list(range(1, n + 1))
            if field.value is not None:
                values = [v for v in values if v == field.value]
            if field.odd:
                values = [v for v in values if v % 2 == 1]
            if field.even:
                values = [v for v in values if v % 2 == 0]
            cells.append(values)
        out.append(cells)
    return out


def allowed_pairs(n: int, rules: Rules) -> list[tuple[int, int]]:
    """The value pairs an `s`/`w` info allows under `rules`."""
    return [(a, b) for a in range(1, n + 1) for b in range(1, n + 1) if rules.related(a, b)]


def units(puzzle: Puzzle) -> Iterator[list[tuple[int, int]]]:
    """Every row, column and box, as lists of (row, column)."""
    n, k = puzzle.n, puzzle.k
    for i in range(n):
        yield [(i, c) for c in range(n)]
        yield [(r, i) for r in range(n)]
        yield box_cells(i, k)


# --- Gecode --------------------------------------------------------------------------


#: The search annotation of `flatzinc(..., input_order=True)`.
INPUT_ORDER = "int_search(grid, input_order, indomain_min, complete)"


def flatzinc(puzzle: Puzzle, rules: Rules, input_order: bool = False) -> str:
    """The plain model as FlatZinc for fzn-gecode: with Gecode's own default
    search (the bench's peer), or labelled in input order, smallest value
    first (the diagnosis, which follows the same tree with our propagators)."""
    n = puzzle.n
    name = {(r, c): f"x{r}_{c}" for r in range(n) for c in range(n)}
    lines = []
    for r, row in enumerate(cell_domains(puzzle)):
        for c, values in enumerate(row):
            domain = "{" + ",".join(map(str, values)) + "}" if values else "1..0"
            lines.append(f"var {domain}: {name[r, c]};")
    every = ",".join(name[r, c] for r in range(n) for c in range(n))
    lines.append(
        f"array [1..{n * n}] of var int: grid :: output_array([1..{n},1..{n}]) = [{every}];"
    )
    for unit in units(puzzle):
        vars_ = ",".join(name[cell] for cell in unit)
        lines.append(f"constraint all_different_int([{vars_}]) :: domain;")
    table = ",".join(f"{a},{b}" for a, b in allowed_pairs(n, rules))
    for a, b, _ in puzzle.neighbour_pairs():
        lines.append(f"constraint gecode_table_int([{name[a]},{name[b]}],[{table}]);")
    lines.append(f"solve :: {INPUT_ORDER} satisfy;" if input_order else "solve satisfy;")
    return "\n".join(lines) + "\n"


_GRID = re.compile(r"grid = array2d\([^\[]*\[([^\]]*)\]\);")


def parse_gecode(output: str, n: int) -> tuple[list[Grid], bool]:
    """The solutions fzn-gecode printed, and whether it finished the search."""
    grids = []
    for match in _GRID.finditer(output):
        values = [int(v) for v in match.group(1).split(",")]
        grids.append(grid_from_lists([values[i : i + n] for i in range(0, n * n, n)]))
    done = "==========" in output or "=====UNSATISFIABLE=====" in output
    return grids, done


#: How often a peer's process is looked at while it runs (at most).
_POLL_SECONDS = 0.02


def run_peer(command: Sequence[str], text: str, time_limit: float) -> PeerRun:
    """A peer's process, given `text` in a file named last on its command
    line: its output, CPU and wall seconds, peak memory, and whether the
    time limit stopped it (its process group is killed then).

    The limit is CPU time, as for our engines' workers: the process is
    killed once its CPU time passes `time_limit`, or at the same wall-clock
    backstop as theirs (moved out by its wait for a free core), so a peer
    on a busy machine is judged by its CPU time too. Output goes to a file
    (a search may print far more than a pipe holds); the CPU time is the
    process's own, from wait4."""
    wall_limit = DEFAULTS.wall_limit(time_limit)
    with tempfile.TemporaryDirectory(prefix="plpuzzle-peer-") as tmp:
        source, sink = Path(tmp, "in.txt"), Path(tmp, "out.txt")
        source.write_text(text)
        with source.open("rb") as inp, sink.open("wb") as out:
            start = time.monotonic()
            proc = subprocess.Popen(
                [*command, str(source)],
                stdin=inp,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            killed, pause, peak = False, 0.001, None
            # Polled with WNOHANG in this thread: the process is reaped here
            # only, so its group is never signalled after it is gone.
            while True:
                pid, _, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                peak = _high_water_kb(proc.pid) or peak
                waited = run_queue_seconds([proc.pid]).get(proc.pid, 0.0)
                late = time.monotonic() - start > backstop(wall_limit, waited)
                if process_cpu_seconds(proc.pid) > time_limit or late:
                    killed = True
                    os.killpg(proc.pid, signal.SIGKILL)
                    _, _, usage = os.wait4(proc.pid, 0)
                    break
                time.sleep(pause)
                pause = min(2 * pause, _POLL_SECONDS)
            proc.returncode = 0  # reaped by wait4
            wall = time.monotonic() - start
        cpu = usage.ru_utime + usage.ru_stime
        # A run that ended before a poll saw it: the kernel's own figure.
        peak = peak or usage.ru_maxrss or None
        return PeerRun(sink.read_text(errors="replace"), cpu, wall, killed, peak)


def _high_water_kb(pid: int) -> int | None:
    """The process's peak resident memory so far (VmHWM, KiB), None when
    unknown. Not wait4's ru_maxrss: that counts the memory of the process
    that started it too (fork copies it, and exec keeps its high water)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


@dataclass(frozen=True)
class PeerRun:
    """What one run of a peer's process left: its output, CPU and wall
    seconds, whether the time limit stopped it, and its peak memory (KiB)
    as last seen while it ran (None for one too quick to be seen)."""

    output: str
    cpu: float
    wall: float
    killed: bool
    peak_rss_kb: int | None


class PeerEngine:
    """A peer as a sudoku engine of the bench: a process of its own per
    puzzle, killed at the time limit (no worker needed). `peak_rss_kb` is
    the last process's peak memory, as a worker's is for our engines."""

    name = ""
    peak_rss_kb: int | None = None

    def command(self) -> list[str]:
        """The peer's command line, without the input file."""
        raise NotImplementedError

    def model(self, puzzle: Puzzle, rules: Rules) -> str:
        """The input file's text."""
        raise NotImplementedError

    def read(self, output: str, puzzle: Puzzle, cpu: float) -> tuple[list[Grid], bool, float]:
        """The solutions, whether the search finished, and its CPU seconds."""
        raise NotImplementedError

    def solve(self, puzzle: Puzzle, rules: Rules, time_limit: float) -> SolveResult:
        run = run_peer(self.command(), self.model(puzzle, rules), time_limit)
        output, cpu, wall, killed = run.output, run.cpu, run.wall, run.killed
        self.peak_rss_kb = run.peak_rss_kb
        try:
            grids, done, cpu = self.read(output, puzzle, cpu)
        except ValueError:
            grids, done = [], False
        if killed or cpu > time_limit:
            words = default_message(Status.TIMEOUT, "time_limit", time_limit)
            if wall > time_limit and cpu <= time_limit:
                words = f"stopped at the wall-clock backstop ({wall:.0f} s)"
            return SolveResult(self.name, Status.TIMEOUT, grids, [], cpu, wall, words)
        if not done:
            tail = " / ".join(output.strip().splitlines()[-3:])
            return SolveResult(self.name, Status.ERROR, grids, [], cpu, wall, tail)
        return SolveResult(self.name, Status.OK, grids, [], cpu, wall)

    def close(self) -> None:
        """Nothing to close: each solve is a process of its own."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GecodeEngine(PeerEngine):
    """fzn-gecode on the plain model; its CPU time is the whole process's."""

    name = "gecode"

    def command(self) -> list[str]:
        return [FZN_GECODE, "-a", "-p", "1"]

    def model(self, puzzle: Puzzle, rules: Rules) -> str:
        return flatzinc(puzzle, rules)

    def read(self, output: str, puzzle: Puzzle, cpu: float) -> tuple[list[Grid], bool, float]:
        grids, done = parse_gecode(output, puzzle.n)
        return grids, done, cpu


# --- Choco ---------------------------------------------------------------------------


def choco_solutions(puzzle: Puzzle, rules: Rules) -> list[list[list[int]]]:
    """Every solution of the plain model, by Choco's default search."""
    from pychoco import Model

    model = Model()
    domains = cell_domains(puzzle)
    if any(not values for row in domains for values in row):
        return []
    cells = [[model.intvar(values) for values in row] for row in domains]
    for unit in units(puzzle):
        model.all_different([cells[r][c] for r, c in unit]).post()
    pairs = [list(p) for p in allowed_pairs(puzzle.n, rules)]
    for (r1, c1), (r2, c2), _ in puzzle.neighbour_pairs():
        model.table([cells[r1][c1], cells[r2][c2]], pairs).post()
    found = model.get_solver().find_all_solutions()
    return [[[s.get_int_val(x) for x in row] for row in cells] for s in found]


class ChocoEngine(PeerEngine):
    """pychoco in a Python process of its own, which reports the CPU time
    of building and solving the model (not of starting Python)."""

    name = "choco"

    def command(self) -> list[str]:
        return [sys.executable, "-m", __name__]

    def model(self, puzzle: Puzzle, rules: Rules) -> str:
        return json.dumps({"rules": rules.value, "puzzle": puzzle_to_text(puzzle)})

    def read(self, output: str, puzzle: Puzzle, cpu: float) -> tuple[list[Grid], bool, float]:
        lines = output.strip().splitlines()
        reply = json.loads(lines[-1]) if lines else {}
        if not isinstance(reply, dict) or "grids" not in reply:
            return [], False, cpu
        return [grid_from_lists(g) for g in reply["grids"]], True, float(reply["cpu"])


def make_peer(name: str) -> PeerEngine:
    """A peer engine by name (see PEER_NAMES)."""
    engines: dict[str, type[PeerEngine]] = {"gecode": GecodeEngine, "choco": ChocoEngine}
    if name not in engines:
        raise ValueError(f"unknown peer {name!r}")
    return engines[name]()


def main(argv: Sequence[str]) -> None:
    """`python -m plpuzzle_lab.peers FILE`: Choco on the puzzle in FILE
    (JSON: rules, puzzle text); prints JSON with the solutions and CPU."""
    request = json.loads(Path(argv[0]).read_text())
    puzzle = parse_puzzle(request["puzzle"])
    # Loaded before the clock starts, as our engines load their solver
    # before their first timed test (some 30 ms).
    import pychoco  # noqa: F401

    start = time.process_time()
    grids = choco_solutions(puzzle, Rules(request["rules"]))
    print(json.dumps({"grids": grids, "cpu": time.process_time() - start}))


if __name__ == "__main__":
    main(sys.argv[1:])
