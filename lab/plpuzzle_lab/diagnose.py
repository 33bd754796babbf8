"""`python -m plpuzzle_lab diagnose`: where the clpfd solver loses to Gecode.

For each puzzle, three runs on the same machine, one after the other:

- Gecode on the bench's plain model (peers.py), labelled in input order,
  smallest value first, with its own statistics: nodes, failures, and
  its CPU seconds;
- our propagators on the same plain model under Gecode's search (input
  order, smallest value, binary branching: same_search.pl), counting
  nodes and failures. Equal counts mean our propagation reaches Gecode's
  fixpoint at every node; the seconds then give the cost of a node;
- our solver as it ships (sudoku/3), and the values left in the open
  fields after root propagation of the plain model and of ours.

It prints a Markdown table (docs/engines.md shows one) and measures only.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from plpuzzle.runtime import prolog_file, quote_atom
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.textformat import load_puzzle
from plpuzzle_lab.peers import FZN_GECODE, flatzinc, run_peer

#: The Prolog side of the diagnosis, beside this module.
SAME_SEARCH = Path(__file__).with_name("same_search.pl")


@dataclass(frozen=True)
class Diagnosis:
    """One puzzle's figures; None where a run did not finish."""

    name: str
    rules: Rules
    open_fields: int
    plain_left: int
    full_left: int
    gecode_nodes: int | None
    gecode_failures: int | None
    gecode_seconds: float | None
    same_nodes: int | None
    same_failures: int | None
    same_seconds: float | None
    ours_seconds: float | None

    @property
    def node_cost(self) -> float | None:
        """Our time per node over Gecode's, on the same tree."""
        if None in (self.gecode_seconds, self.same_seconds, self.gecode_nodes, self.same_nodes):
            return None
        assert self.gecode_seconds and self.same_seconds and self.gecode_nodes and self.same_nodes
        return (self.same_seconds / self.same_nodes) / (self.gecode_seconds / self.gecode_nodes)


def gecode_stats(path: Path, rules: Rules, limit: float) -> tuple[int, int, float] | None:
    """Gecode's nodes, failures and CPU seconds, or None past the limit."""
    model = flatzinc(load_puzzle(path), rules, input_order=True)
    run = run_peer([FZN_GECODE, "-a", "-p", "1", "-s"], model, limit)
    stats = dict(re.findall(r"%%%mzn-stat: (\w+)=(\S+)", run.output))
    if run.killed or "nodes" not in stats:
        return None
    return int(stats["nodes"]), int(stats["failures"]), run.cpu


def prolog_stats(path: Path, rules: Rules, limit: float) -> tuple[int, ...] | None:
    """Ours: (open fields, values left plain, values left full, solutions,
    nodes, failures) and two times in microseconds (same search, sudoku/3),
    or None past the limit."""
    term = load_puzzle(path).to_term()
    goal = f"""
        use_module({quote_atom(str(prolog_file("sudoku.pl")))}),
        use_module({quote_atom(str(SAME_SEARCH))}),
        T = {term},
        diagnose(T, {rules.value}, report(PL, FL, O, S, N, F, Sec)),
        statistics(cputime, A),
        findall(x, sudoku:sudoku(T, _, [rules({rules.value})]), _),
        statistics(cputime, B),
        Us is round(Sec * 1e6), Ours is round((B - A) * 1e6),
        format("~w ~w ~w ~w ~w ~w ~w ~w~n", [O, PL, FL, S, N, F, Us, Ours])
    """
    try:
        done = subprocess.run(
            ["swipl", "-g", goal, "-t", "halt"], capture_output=True, text=True, timeout=limit
        )
    except subprocess.TimeoutExpired:
        return None
    fields = done.stdout.split()
    return tuple(int(f) for f in fields) if len(fields) == 8 else None


def suite_label(path: Path) -> str:
    """The bench's name for the suite a puzzle is in."""
    parts = path.resolve().parts
    if "bme-2013-oddsum" in parts:
        return "official"
    if "stress" in parts:
        return f"stress-{path.parent.name}"
    return path.parent.name


def diagnose(path: Path, rules: Rules, limit: float = 120.0) -> Diagnosis:
    """Every figure of one puzzle."""
    gecode = gecode_stats(path, rules, limit)
    ours = prolog_stats(path, rules, limit)
    name = f"{suite_label(path)}/{path.name.removesuffix('d.txt')}"
    g_nodes, g_fails, g_sec = gecode if gecode else (None, None, None)
    if ours is None:
        return Diagnosis(name, rules, 0, 0, 0, g_nodes, g_fails, g_sec, None, None, None, None)
    open_, plain, full, _, nodes, fails, same_us, ours_us = ours
    return Diagnosis(
        name, rules, open_, plain, full, g_nodes, g_fails, g_sec,
        nodes, fails, same_us / 1e6, ours_us / 1e6,
    )  # fmt: skip


def table(rows: Sequence[Diagnosis]) -> list[str]:
    """The Markdown table of the diagnoses."""

    def num(x: float | int | None, fmt: str = "{}") -> str:
        return "-" if x is None else fmt.format(x)

    lines = [
        "| puzzle | open fields | values left at root: plain / ours "
        "| Gecode nodes / failures | same search, ours: nodes / failures "
        "| Gecode s | same search s | per node, ours / Gecode | sudoku/3 s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for d in rows:
        lines.append(
            f"| {d.name} ({d.rules.value}) | {d.open_fields} | {d.plain_left} / {d.full_left} "
            f"| {num(d.gecode_nodes)} / {num(d.gecode_failures)} "
            f"| {num(d.same_nodes)} / {num(d.same_failures)} "
            f"| {num(d.gecode_seconds, '{:.3f}')} | {num(d.same_seconds, '{:.3f}')} "
            f"| {num(d.node_cost, '{:.0f}x')} | {num(d.ours_seconds, '{:.3f}')} |"
        )
    return lines


def main(puzzles: Sequence[tuple[Path, Rules]], limit: float) -> list[str]:
    """Diagnose each puzzle in turn; the table, with the time it took."""
    start = time.monotonic()
    rows = [diagnose(path, rules, limit) for path, rules in puzzles]
    return [*table(rows), "", f"({time.monotonic() - start:.0f} s, {limit:g} s limit per run)"]
