"""The package's architecture holds: lower layers never import higher ones
(the contracts in pyproject.toml, checked by import-linter's own
`lint-imports`), and no module of plpuzzle imports itself back through
others (no import cycle, lazy imports inside functions included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[1]


def test_the_layer_contracts_are_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    # --no-cache: the tests write nothing into the checkout.
    run = subprocess.run(
        [lint, "--no-cache"], capture_output=True, text=True, cwd=REPO, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "BROKEN" not in run.stdout and run.stdout.count("KEPT") >= 2, run.stdout


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in graph.find_modules_directly_imported_by(module):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_there_is_no_import_cycle() -> None:
    graph = grimp.build_graph("plpuzzle")
    assert cycles(graph) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    """The check can fail: a graph with a loop of three modules."""
    graph = grimp.ImportGraph()
    for name in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(name)
    for importer, imported in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a")):
        graph.add_import(importer=importer, imported=imported)
    assert cycles(graph) == [["p.a", "p.b", "p.c"]]
