"""Papers as plugins: the :class:`Paper` manifest and its discovery through the ``boundcheck.papers`` entry
points (pure Python: the theory layer reads them, and so does every registry above it).

A paper is one folder (``boundcheck/papers/<slug>/`` for the built-in ones, any package for a plugin) whose
manifest, a :class:`Paper`, says what the paper defines — theorem ids, policy names, scenario names — and how to
import each part of it (its theory module, family, policies, scenario catalogue, experiments, planted defects,
report figures, power tables). The built-in papers register themselves exactly as an outside package does: one
line in the ``[project.entry-points."boundcheck.papers"]`` table of ``pyproject.toml``::

    [project.entry-points."boundcheck.papers"]
    my_paper = "my_package:PAPER"

The manifest class lives in the lowest layer because every registry needs it, the theory layer's included
(which never imports ``boundcheck``): reading the entry points is the plugin mechanism, not an import of a
higher layer. Discovery is lazy: the entry points are read on the first look-up of anything a paper defines,
and a paper's part is imported only when it is needed (``verify --theorem pe_gp_ucb`` imports no other paper). Each core
registry (theorems, empirical claims, families, policies, scenarios, experiments, defects, figures) receives a
provider of :class:`~theory._registry.Source` objects built from the manifests; the core never imports a paper
by name.

Which part each registry reads, and what the part's module must define:

=============  =======================  =====================================================================
part           registry                 the module defines
=============  =======================  =====================================================================
``theory``     theorems, empirical      ``THEOREMS`` (tuple of :class:`theory.Theorem`), ``EMPIRICAL`` (opt.)
``family``     claims.families          ``FAMILIES`` (family objects, keyed by their theorem's id)
``policies``   policies                 ``POLICIES``: ``(name, factory, kwargs)`` triples
``scenarios``  world.catalogue          ``GENERATORS``, ``FILE_FAMILIES``, ``SCENARIOS`` (opt.); TOML files in
                                        ``SCENARIO_DIR``
``experiments`` study.experiments       ``EXPERIMENTS`` (:class:`~boundcheck.study.experiments.Experiment`)
``defects``    claims.defects           ``DEFECTS`` (planted defects)
``figures``    report.figures           ``FIGURES`` (report figures the paper adds)
=============  =======================  =====================================================================
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import ModuleType

from ._registry import Registry, Source

__all__ = ["Paper", "ENTRY_POINT_GROUP", "PARTS", "papers", "get_paper", "paper_of_theorem", "register_paper",
           "sources", "registry", "PluginError"]

ENTRY_POINT_GROUP = "boundcheck.papers"


class PluginError(ValueError):
    """A paper manifest or a look-up of a paper is wrong (``boundcheck.errors`` turns it into exit 2)."""

PARTS = ("theory", "family", "policies", "scenarios", "experiments", "defects", "figures")

Loader = Callable[[], ModuleType]


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
        ``part -> loader``: a zero-argument callable that imports and returns the module of that part (see the
        module docstring for the parts).
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
    parts: dict[str, Loader] = field(default_factory=dict, compare=False, repr=False)
    scenario_dir: Path | None = None
    power_dir: Path | None = None
    order: int = 100
    reference: str = ""

    def __post_init__(self) -> None:
        unknown = set(self.parts) - set(PARTS)
        if unknown:
            raise PluginError(f"paper {self.id!r}: unknown part(s) {', '.join(sorted(unknown))}; the parts are "
                                  f"{', '.join(PARTS)}")

    def part(self, name: str) -> ModuleType | None:
        """Import the paper's part ``name`` (None if the paper has none)."""
        loader = self.parts.get(name)
        return loader() if loader is not None else None

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "source": self.source, "file": self.file,
                "reference": self.reference,
                "theorems": list(self.theorems), "notes": list(self.notes)}


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
            loader = p.parts.get(part)
            if loader is None:
                continue
            keys = frozenset({p.id, *getattr(p, _KEYS[part])}) if part in _KEYS else frozenset({p.id})
            out.append(Source(f"{p.id}:{part}", loader, keys))
        return out

    return provide


def registry(part: str, install: Callable[[ModuleType], object], duplicate: Callable[[object], Exception],
             modules: tuple[str, ...] = ()) -> Registry:
    """A registry whose sources are ``modules`` (the layer's own built-ins) and then the papers' ``part``; it
    reads the papers again when one is registered in this process."""
    reg: Registry = Registry(modules, install, duplicate, sources(part))
    _ON_NEW_PAPER.append(lambda: reg.set_provider(sources(part)))
    return reg
