"""The one registry of papers and of everything they define: the :class:`Paper` manifest, its discovery through
the ``boundcheck.papers`` entry points, and the :class:`Registry` every look-up by name reads.

A paper is one folder (``boundcheck/papers/<slug>/`` for the built-in ones, any package for a plugin) whose
manifest, a :class:`Paper`, says what the paper defines (theorem ids, policy and scenario names) and, by module
path, where each part of it lives. Built-in papers register exactly as an outside package does: one line in the
``[project.entry-points."boundcheck.papers"]`` table of ``pyproject.toml`` (``my_paper = "my_package:PAPER"``).

Discovery is lazy: the entry points are read on the first look-up, and a part is imported (``importlib``) only when
a look-up needs it (``verify --theorem pe_gp_ucb`` imports no other paper). Each layer's look-up functions
(``theory.get``, ``policies.policy_spec``, ``claims.families.family_for``…) are thin views made by
:func:`registry`: the layer says how to install what a part defines; finding, caching and refusing duplicates
live here. It sits in the theory layer, pure Python, because the theory layer reads theorems through it and never
imports ``boundcheck``. docs/architecture.md lists which file of a paper holds which part."""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from importlib import import_module, metadata
from pathlib import Path
from types import ModuleType
from typing import Generic, TypeVar

__all__ = ["Paper", "ENTRY_POINT_GROUP", "PARTS", "PART_FILES", "parts_in", "papers", "get_paper",
           "paper_of_theorem", "register_paper", "sources", "registry", "PluginError", "Registry", "Source"]

ENTRY_POINT_GROUP = "boundcheck.papers"


class PluginError(ValueError):
    """A paper manifest or a look-up of a paper is wrong (``boundcheck.errors`` turns it into exit 2)."""

#: part -> what its module defines (what the registry of that part reads)
PARTS = {
    "theory": "THEOREMS (theory.Theorem objects); EMPIRICAL (empirical claims), optional",
    "family": "FAMILIES (the theorems' verification families)",
    "policies": "POLICIES: (name, factory, kwargs) triples",
    "scenarios": "GENERATORS, FILE_FAMILIES, SCENARIOS (each optional); SCENARIO_DIR (its *.toml files)",
    "experiments": "EXPERIMENTS (boundcheck.study.experiments.Experiment objects)",
    "defects": "DEFECTS (planted defects), HOOKS (theorem id -> the defect hooks its algorithms take)",
    "figures": "PAPER_ID; REPLICATION_FIGURES, REPLICATION_TABLES (what its reproduce reports add)",
}

#: the file of each part in a paper's package: the folder convention of every built-in paper and of the example
#: (a built-in paper's ``theory`` part lives in ``theory/<slug>.py`` instead: the symbolic layer)
PART_FILES = {"theory": "theorems", "family": "family", "policies": "policies", "scenarios": "catalogue",
              "defects": "defects", "experiments": "experiments", "figures": "figures"}


def parts_in(package: str, *names: str, **paths: str) -> dict[str, str]:
    """The ``parts`` of a paper whose package ``package`` follows the folder convention: ``names`` are the parts
    it has (each in the file :data:`PART_FILES` names), ``paths`` parts elsewhere by module path (a built-in
    paper's ``theory="theory.<slug>"``). ``parts_in("my_paper", "family")`` is ``{"family": "my_paper.family"}``."""
    unknown = sorted(set(names) - set(PART_FILES))
    if unknown:
        raise PluginError(f"unknown part(s) {', '.join(unknown)}; the parts are {', '.join(PARTS)}")
    return {**{n: f"{package}.{PART_FILES[n]}" for n in names}, **paths}


#: a part's module path (``"my_package.family"``), or, for one more release, a zero-argument loader
Target = str | Callable[[], ModuleType]


def load_target(target: Target) -> ModuleType:
    """Import a part's module from its path (a loader, the old form, is called)."""
    return import_module(target) if isinstance(target, str) else target()


@dataclass(frozen=True)
class Paper:
    """The manifest of one paper: what it defines and how to import each part.

    Parameters
    ----------
    id : str
        The paper's slug: its folder, its theory module ``theory/<slug>.py`` (built-in papers), the id
        ``boundcheck reproduce`` takes and the name of its docs page.
    title, source : str
        The paper's title and citation (authors, year, venue, arXiv id, section).
    file : str
        The paper's text file, where one exists (``shared/papers/…`` for the built-in papers: outside the
        repository, never shown), or "".
    theorems, policies, scenarios : tuple of str
        The theorem ids, policy names and scenario names the paper registers (what a look-up by name uses to
        import only this paper).
    notes : tuple of str
        What a replication report says about the paper as a whole.
    parts : dict
        ``part -> module path`` (``{"family": "my_package.family"}``), imported on first use; :data:`PARTS` lists
        the parts and what each module defines. (A zero-argument loader in place of the path is still accepted,
        for one release.)
    scenario_dir, power_dir : Path or None
        The folder of the paper's scenario files (``*.toml``) and of its power tables (``<theorem>.json``).
    order : int
        Where the paper stands in listings (built-in papers first, in the order of the project's papers).
    reference : str
        The full reference shown for the paper and its theorems (``boundcheck show``, reproduce reports):
        authors (year), title, venue, arXiv id; "" where there is none."""

    id: str
    title: str
    source: str
    file: str = ""
    theorems: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()
    scenarios: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    parts: dict[str, Target] = field(default_factory=dict, compare=False, repr=False)
    scenario_dir: Path | None = None
    power_dir: Path | None = None
    order: int = 100
    reference: str = ""

    def __post_init__(self) -> None:
        unknown = set(self.parts) - set(PARTS)
        if unknown:
            raise PluginError(f"paper {self.id!r}: unknown part(s) {', '.join(sorted(unknown))}; the parts are "
                                  f"{', '.join(PARTS)}")
        bad = [k for k, v in self.parts.items() if not (isinstance(v, str) and v) and not callable(v)]
        if bad:
            raise PluginError(f"paper {self.id!r}: part(s) {', '.join(bad)} must name a module "
                              "(\"my_package.family\")")

    def part(self, name: str) -> ModuleType | None:
        """Import the paper's part ``name`` (None if the paper has none)."""
        target = self.parts.get(name)
        return load_target(target) if target is not None else None

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "source": self.source, "file": self.file,
                "reference": self.reference,
                "theorems": list(self.theorems), "notes": list(self.notes)}


# ------------------------------------------------------------------------------------------------ registry
T = TypeVar("T")


@dataclass(frozen=True)
class Source:
    """A module that registers objects when it is installed.

    Parameters
    ----------
    name : str
        What the source is (for messages): a module or a paper's part, e.g. ``"pe_gp_ucb:family"``.
    target : str or callable
        The module's path (or a zero-argument callable returning the module); :meth:`load` imports it and the
        registry's ``install`` reads what it defines.
    keys : frozenset or None
        The keys the source is declared to register; None when it does not say (then a look-up of any key it
        might hold imports it, in order)."""

    name: str
    target: Target
    keys: frozenset | None = None

    def load(self) -> ModuleType:
        return load_target(self.target)


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
            own = [Source(m, m) for m in self.modules]
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


# ------------------------------------------------------------------------------------------------ discovery
_PAPERS: dict[str, Paper] | None = None
_EXTRA: dict[str, Paper] = {}  # registered in this process (tests, notebooks), after the installed ones


def _discover() -> dict[str, Paper]:
    found: list[Paper] = []
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            paper = ep.load()
        except Exception as exc:  # a broken plugin must not take the built-in papers down
            print(f"boundcheck: the paper plugin {ep.name!r} ({ep.value}) failed to load: "
                  f"{type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        if not isinstance(paper, Paper):
            print(f"boundcheck: the entry point {ep.name!r} ({ep.value}) is not a boundcheck Paper; ignored",
                  file=sys.stderr)
            continue
        found.append(paper)
    found.sort(key=lambda p: (p.order, p.id))
    out: dict[str, Paper] = {}
    for p in found:
        if p.id in out:
            print(f"boundcheck: two installed papers have the id {p.id!r}; the second ({p.source}) is ignored",
                  file=sys.stderr)
            continue
        out[p.id] = p
    return out


def papers() -> dict[str, Paper]:
    """Every installed paper (entry points, read once) and every paper registered in this process, by id."""
    global _PAPERS
    if _PAPERS is None:
        _PAPERS = _discover()
    return {**_PAPERS, **_EXTRA}


def get_paper(paper_id: str) -> Paper:
    found = papers()
    try:
        return found[paper_id]
    except (KeyError, TypeError):
        raise PluginError(f"unknown paper {paper_id!r}; known: {', '.join(found)}") from None


def paper_of_theorem(theorem_id: str) -> Paper | None:
    """The paper that declares the theorem (None for a theorem registered by hand)."""
    for p in papers().values():
        if theorem_id in p.theorems:
            return p
    return None


def register_paper(paper: Paper, *, replace: bool = False) -> Paper:
    """Add a paper in this process (what an entry point does for an installed package), e.g. in a test or a
    notebook; its parts become visible to every registry."""
    if not isinstance(paper, Paper):
        raise TypeError(f"register_paper() needs a boundcheck Paper, got {type(paper).__name__}")
    if paper.id in papers() and not replace and papers()[paper.id] is not paper:
        raise PluginError(f"a paper with id {paper.id!r} is already registered")
    _EXTRA[paper.id] = paper
    for hook in _ON_NEW_PAPER:
        hook()
    return paper


_ON_NEW_PAPER: list[Callable[[], None]] = []  # registries re-read their sources after register_paper


_KEYS = {"theory": "theorems", "family": "theorems", "policies": "policies", "scenarios": "scenarios"}


def sources(part: str) -> Callable[[], Iterable[Source]]:
    """A provider of the sources of ``part``, one per paper that has it (for a registry's ``set_provider``)."""
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}")

    def provide() -> list[Source]:  # called by the registry on first use (and again after register_paper)
        out = []
        for p in papers().values():
            target = p.parts.get(part)
            if target is None:
                continue
            keys = frozenset({p.id, *getattr(p, _KEYS[part])}) if part in _KEYS else frozenset({p.id})
            out.append(Source(f"{p.id}:{part}", target, keys))
        return out

    return provide


def registry(part: str, install: Callable[[ModuleType], object], duplicate: Callable[[object], Exception],
             modules: tuple[str, ...] = ()) -> Registry:
    """The registry of one layer's view of the papers: its sources are ``modules`` (the layer's own built-ins)
    and then every paper's ``part``; ``install`` registers what one module defines, ``duplicate(key)`` is the
    layer's exception for a key taken twice. It reads the papers again when one is registered in this process."""
    reg: Registry = Registry(modules, install, duplicate, sources(part))
    _ON_NEW_PAPER.append(lambda: reg.set_provider(sources(part)))
    return reg
