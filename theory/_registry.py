"""The registry pattern every registry of the project shares (theorems, empirical claims, papers' experiments,
verification families): objects under a key, the built-in modules imported on first use, duplicates refused.

Pure Python (no sympy, no ``boundcheck``), so that both layers can use it; each registry keeps its own public
functions, error messages and exception types."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from importlib import import_module
from types import ModuleType
from typing import Generic, TypeVar

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Objects keyed by a hashable key, in registration order.

    Parameters
    ----------
    modules : tuple of str
        The built-in modules, imported (in this order) by :meth:`load` on first use.
    install : callable
        Registers what one built-in module defines (called with the imported module).
    duplicate : callable
        The exception to raise when a different object is registered under a key already taken (called with
        the key)."""

    def __init__(self, modules: tuple[str, ...], install: Callable[[ModuleType], object],
                 duplicate: Callable[[Hashable], Exception]) -> None:
        self.modules = modules
        self._install = install
        self._duplicate = duplicate
        self.items: dict[Hashable, T] = {}
        self._next = 0  # the built-in modules before this one are imported (always in order)
        self._busy = False  # a built-in module is being imported (a nested look-up sees what is registered)

    def add(self, key: Hashable, obj: T, *, replace: bool = False) -> T:
        """Register ``obj`` under ``key``; the same object again is a no-op, another one needs ``replace``."""
        if key in self.items and not replace and self.items[key] is not obj:
            raise self._duplicate(key)
        self.items[key] = obj
        return obj

    def load(self) -> dict[Hashable, T]:
        """Import the built-in modules once (re-entrant: a module may look the registry up while it loads) and
        return the registered objects by key."""
        while self._next < len(self.modules) and not self._busy:
            self._import_next()
        return self.items

    def find(self, key: Hashable) -> T | None:
        """The object under ``key`` (None if none), importing the built-in modules, in order, only until one
        registers it: a command about one theorem does not import every paper's module (≈ 0.5 s of sympy for
        ``verify --theorem pe_gp_ucb``). The registration order is that of :meth:`load` all the same."""
        while key not in self.items and self._next < len(self.modules) and not self._busy:
            self._import_next()
        return self.items.get(key)

    def _import_next(self) -> None:
        name = self.modules[self._next]
        self._next += 1  # a module that fails to import is not retried (as before: one attempt per process)
        self._busy = True
        try:
            self._install(import_module(name))
        finally:
            self._busy = False
