"""The registry pattern every registry of the project shares (theorems, empirical claims, families, policies,
scenarios, papers' experiments): objects under a key, registered by *sources* (modules imported on first use),
duplicates refused.

Where the sources come from is not the registry's business: the discovery layer (``boundcheck.utils.plugins``,
which reads the ``boundcheck.papers`` entry-point group) hands each registry a provider, a zero-argument callable
that returns the :class:`Source` objects of every installed paper. A source may declare the keys it registers,
so that a look-up of one key imports only the source that has it.

Pure Python (no sympy, no ``boundcheck``), so that both layers can use it; each registry keeps its own public
functions, error messages and exception types."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import Generic, TypeVar

__all__ = ["Registry", "Source"]

T = TypeVar("T")


@dataclass(frozen=True)
class Source:
    """A module that registers objects when it is installed.

    Parameters
    ----------
    name : str
        What the source is (for messages): a module or a paper's part, e.g. ``"pe_gp_ucb:family"``.
    load : callable
        Imports and returns the module (the registry's ``install`` reads what it defines).
    keys : frozenset or None
        The keys the source is declared to register; None when it does not say (then a look-up of any key it
        might hold imports it, in order)."""

    name: str
    load: Callable[[], ModuleType]
    keys: frozenset | None = None


Provider = Callable[[], Iterable[Source]]


class Registry(Generic[T]):
    """Objects keyed by a hashable key, in registration order.

    Parameters
    ----------
    modules : tuple of str
        Modules imported (in this order) by :meth:`load` on first use, before the provider's sources (a
        registry whose own layer defines built-in objects names its modules here; a paper's objects come from
        the provider).
    install : callable
        Registers what one source defines (called with the imported module).
    duplicate : callable
        The exception to raise when a different object is registered under a key already taken (called with
        the key).
    provider : callable, optional
        Returns the sources to import after ``modules`` (see :meth:`set_provider`)."""

    def __init__(self, modules: tuple[str, ...], install: Callable[[ModuleType], object],
                 duplicate: Callable[[Hashable], Exception], provider: Provider | None = None) -> None:
        self.modules = modules
        self._install = install
        self._duplicate = duplicate
        self._provider = provider
        self._sources: list[Source] | None = None  # resolved from modules + provider on first use
        self._done: set[int] = set()  # indices of the sources installed (or tried: a failing one is not retried)
        self.items: dict[Hashable, T] = {}
        self._origin: dict[Hashable, int] = {}  # key -> index of the source that registered it (for the order)
        self._installing: int | None = None  # the source being installed
        self._busy = False  # a source is being imported (a nested look-up sees what is registered)

    def set_provider(self, provider: Provider | None) -> None:
        """Use ``provider`` for the sources after the built-in modules (the discovery layer calls this once).
        Sources already installed stay installed; the others are read again from the new provider."""
        self._provider = provider
        if self._sources is not None:
            installed = {self._sources[i].name for i in self._done}
            self._sources = None
            sources = self.sources()
            self._done = {i for i, s in enumerate(sources) if s.name in installed}

    def sources(self) -> list[Source]:
        if self._sources is None:
            own = [Source(m, lambda m=m: import_module(m)) for m in self.modules]
            self._sources = own + list(self._provider() if self._provider is not None else ())
        return self._sources

    def add(self, key: Hashable, obj: T, *, replace: bool = False) -> T:
        """Register ``obj`` under ``key``; the same object again is a no-op, another one needs ``replace``."""
        if key in self.items and not replace and self.items[key] is not obj:
            raise self._duplicate(key)
        self.items[key] = obj
        if key not in self._origin:  # registered by hand (not by a source): after every source
            self._origin[key] = self._installing if self._installing is not None else 1 << 30
        return obj

    def load(self) -> dict[Hashable, T]:
        """Install every source once (re-entrant: a source may look the registry up while it loads) and return
        the registered objects by key."""
        if not self._busy:
            for i in range(len(self.sources())):
                self._install_source(i)
            # the sources' order, whatever was looked up first (``find`` installs the source of its key first)
            order = sorted(self.items, key=lambda k: self._origin.get(k, 1 << 30))
            if order != list(self.items):
                self.items = {k: self.items[k] for k in order}
        return self.items

    def find(self, key: Hashable) -> T | None:
        """The object under ``key`` (None if none), installing only what is needed: first the sources that
        declare ``key``, then, in order, those that declare nothing, until one registers it. A command about one
        theorem does not import every paper's module (≈ 0.5 s of sympy for ``verify --theorem pe_gp_ucb``)."""
        if key in self.items or self._busy:
            return self.items.get(key)
        sources = self.sources()
        for i, s in enumerate(sources):
            if s.keys is not None and key in s.keys:
                self._install_source(i)
        for i, s in enumerate(sources):
            if key in self.items:
                break
            if s.keys is None:
                self._install_source(i)
        return self.items.get(key)

    def load_declaring(self, key: Hashable) -> dict[Hashable, T]:
        """Install the sources that declare ``key`` and those that declare nothing (not the others), and return
        the registered objects by key: what a look-up *by a group* needs (a paper's empirical claims)."""
        for i, s in enumerate(self.sources()):
            if s.keys is None or key in s.keys:
                self._install_source(i)
        return self.items

    def _install_source(self, i: int) -> None:
        if i in self._done or self._busy:
            return
        self._done.add(i)  # a source that fails to import is not retried (one attempt per process)
        self._busy, self._installing = True, i
        try:
            self._install(self.sources()[i].load())
        finally:
            self._busy, self._installing = False, None
