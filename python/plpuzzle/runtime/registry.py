"""One engine protocol and one registry, shared by every puzzle.

Every puzzle's engines have a name, run in a worker of their own and are
closed when done (the `Engine` protocol; a puzzle's own protocol adds its
solving methods). A puzzle lists its engines once, in an `EngineRegistry`:
the command-line choices, the error for an unknown name and the making of
an engine with a fresh worker all come from that one list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, Self, TypeVar

from plpuzzle.runtime.worker import Worker


class Engine(Protocol):
    """What every engine of every puzzle is: named, closable, a context."""

    name: str

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...


E = TypeVar("E", bound=Engine, covariant=True)

#: Makes an engine on a worker; puzzle-specific options come as keywords
#: (a factory takes the ones it knows and ignores the rest).
Factory = Callable[..., E]


class EngineRegistry(Generic[E]):
    """A puzzle's engines by name, in the order its commands list them."""

    def __init__(self, puzzle: str, factories: Mapping[str, Factory[E]]) -> None:
        self.puzzle = puzzle
        self._factories = dict(factories)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._factories)

    def make(self, name: str, show_stderr: bool = False, **options: Any) -> E:
        """A fresh engine with a worker of its own: use it in a `with`
        block, or close() it when done. ValueError for an unknown name."""
        factory = self._factories.get(name)
        if factory is None:
            raise ValueError(f"unknown engine {name!r}; choose from {', '.join(self.names)}")
        return factory(Worker(show_stderr=show_stderr), **options)
