"""`python -m plpuzzle_lab count`: the search trees of three searches.

For each puzzle, one after the other on the same machine:

- our solver as it ships (sudoku/3): nodes, failures and lookahead trials,
  counted where its labeling reports them (count_search.pl wraps the
  labeling's search_event/1, which does nothing on its own);
- Gecode's default search on the bench's plain model (`fzn-gecode -a -p 1
  -s`, as the bench runs it, with its statistics);
- the Python engine: its nodes (roots and the children of its branches),
  failures and failed-literal trials, counted by wrapping its search's
  own functions in a child process.

Node counts do not depend on the machine's load, so they compare the
searches where seconds cannot. A node is a root or a child of a branch;
a failure is a node found dead. Under `oddsum` both our engines count
the parity stage and every half they search.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plpuzzle.runtime import prolog_file, quote_atom
from plpuzzle.sudoku.domain.model import Rules
from plpuzzle.sudoku.domain.textformat import load_puzzle
from plpuzzle_lab.peers import FZN_GECODE, flatzinc, run_peer

#: The Prolog side of the counts, beside this module.
COUNT_SEARCH = Path(__file__).with_name("count_search.pl")


@dataclass(frozen=True)
class Tree:
    """One search of one puzzle: None where it did not finish."""

    solutions: int
    nodes: int
    failures: int
    trials: int | None  # lookahead trials (Gecode makes none)
    trial_failures: int | None
    seconds: float


def ours(path: Path, rules: Rules, limit: float) -> Tree | None:
    """The tree of sudoku/3 as it ships."""
    term = load_puzzle(path).to_term()
    goal = f"""
        use_module({quote_atom(str(prolog_file("sudoku.pl")))}),
        use_module({quote_atom(str(COUNT_SEARCH))}),
        count_search({term}, {rules.value}, counts(S, N, F, T, TF, Sec)),
        format("~w ~w ~w ~w ~w ~w~n", [S, N, F, T, TF, Sec])
    """
    try:
        done = subprocess.run(
            ["swipl", "-g", goal, "-t", "halt"], capture_output=True, text=True, timeout=limit
        )
    except subprocess.TimeoutExpired:
        return None
    fields = done.stdout.split()
    if len(fields) != 6:
        return None
    s, n, f, t, tf = (int(x) for x in fields[:5])
    return Tree(s, n, f, t, tf, float(fields[5]))


def gecode(path: Path, rules: Rules, limit: float) -> Tree | None:
    """The tree of Gecode's default search, as the bench runs it."""
    run = run_peer([FZN_GECODE, "-a", "-p", "1", "-s"], flatzinc(load_puzzle(path), rules), limit)
    stats = dict(re.findall(r"%%%mzn-stat: (\w+)=(\S+)", run.output))
    if run.killed or "nodes" not in stats:
        return None
    return Tree(
        int(stats["solutions"]), int(stats["nodes"]), int(stats["failures"]), None, None, run.cpu
    )


def python(path: Path, rules: Rules, limit: float) -> Tree | None:
    """The tree of the Python engine, counted in a child process."""
    code = (
        f"from plpuzzle_lab.count import python_child; python_child({str(path)!r}, {rules.value!r})"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=limit
        )
    except subprocess.TimeoutExpired:
        return None
    try:
        return Tree(**json.loads(done.stdout))
    except (ValueError, TypeError):
        return None


def python_child(path: str, rules: str) -> None:
    """Solve with the Python engine, its search's functions wrapped to
    count, and print the counts as JSON (run by python() only)."""
    from plpuzzle.sudoku.engines import python_engine, python_search

    counts = {"roots": 0, "children": 0, "branched": 0, "leaves": 0, "trials": 0, "tfail": 0}

    def counted_start(real: Callable[..., Any]) -> Callable[..., Any]:
        def start(*args: Any) -> Any:
            counts["roots"] += 1
            return real(*args)

        return start

    def counted_split(real: Callable[..., Any]) -> Callable[..., Any]:
        def split(*args: Any) -> Any:
            branches = real(*args)
            if branches is None:
                counts["leaves"] += 1
            else:
                counts["branched"] += 1
                counts["children"] += len(branches)
            return branches

        return split

    def counted_trial(real: Callable[..., Any]) -> Callable[..., Any]:
        def trial(*args: Any) -> Any:
            counts["trials"] += 1
            reach = real(*args)
            if not reach:
                counts["tfail"] += 1
            return reach

        return trial

    python_search.start = counted_start(python_search.start)
    python_search.trial = counted_trial(python_search.trial)
    python_engine.split_values = counted_split(python_engine.split_values)
    python_engine.split_parity = counted_split(python_engine.split_parity)
    puzzle = load_puzzle(Path(path))
    began = time.process_time()
    solutions = python_engine.count_solutions(puzzle, Rules(rules))
    seconds = time.process_time() - began
    nodes = counts["roots"] + counts["children"]
    failures = nodes - counts["branched"] - counts["leaves"]
    tree = {
        "solutions": solutions, "nodes": nodes, "failures": failures,
        "trials": counts["trials"], "trial_failures": counts["tfail"], "seconds": seconds,
    }  # fmt: skip
    print(json.dumps(tree))


def count(puzzles: Sequence[tuple[Path, str, Rules]], limit: float) -> Iterator[str]:
    """The Markdown table, one row per puzzle as it is counted."""
    yield (
        "| puzzle | solutions | ours: nodes / failures | trials (failed) "
        "| Gecode: nodes / failures | Python: nodes / failures | trials (failed) "
        "| ours s | Gecode s | Python s |"
    )
    yield "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    start = time.monotonic()
    for path, name, rules in puzzles:
        trees = [ours(path, rules, limit), gecode(path, rules, limit), python(path, rules, limit)]
        sols = {t.solutions for t in trees if t is not None}
        cells = [name, "/".join(str(s) for s in sorted(sols)) or "-"]
        for i, t in enumerate(trees):
            if t is None:
                cells.append(f"> {limit:g} s")
                if i != 1:
                    cells.append("-")
                continue
            cells.append(f"{t.nodes:,} / {t.failures:,}")
            if i != 1:
                cells.append(f"{t.trials:,} ({t.trial_failures:,})")
        cells += [f"{t.seconds:.2f}" if t else "-" for t in trees]
        yield "| " + " | ".join(cells) + " |"
    yield ""
    yield f"({time.monotonic() - start:.0f} s, {limit:g} s limit per run)"
