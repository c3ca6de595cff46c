"""A paper's experiments as objects: what ``boundcheck reproduce PAPER`` runs.

An :class:`Experiment` is one figure (or table) of a paper's experiment section: its location, the settings the
paper states and the ones boundcheck had to guess (:class:`Setting`), the studies it runs (:class:`Panel`: a
scenario, the theorem whose family runs it, the algorithms), the figures the report draws, what stands in for
data that cannot be used offline, and optionally a grid of the unstated settings to explore
(:class:`Explore`). Its empirical claims live in the theory layer (``theory.empirical``), keyed by the paper id
and the experiment's name. A :class:`Paper` groups a paper's experiments under the id ``reproduce`` takes
(``pe_gp_ucb``, ``igp_ucb_gp_ts``, ...).

Registry: :func:`register_paper` and :func:`register_experiment` (an issue adding a paper writes
``boundcheck/study/experiments/<paper>.py`` with ``PAPER`` and ``EXPERIMENTS`` and lists the module in
``_BUILTIN_MODULES``); :func:`get_paper`, :func:`experiments_of`, :func:`paper_ids`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import theory.empirical as empirical
from theory._registry import Registry

from ...errors import BoundcheckError
from ...world.scenario import Scenario

__all__ = ["Setting", "Panel", "ExploreAxis", "Explore", "Experiment", "Paper", "register_paper",
           "register_experiment", "get_paper", "experiments_of", "get_experiment", "paper_ids"]

SettingStatus = Literal["stated", "guessed", "deviates"]


@dataclass(frozen=True)
class Setting:
    """One setting of an experiment: ``stated`` by the paper, ``guessed`` by boundcheck (the paper is silent;
    ``source`` says where the guess comes from), or ``deviates`` (stated, but run otherwise, and why)."""

    name: str
    value: str
    status: SettingStatus
    source: str = ""

    def to_json(self) -> dict:
        return {"name": self.name, "value": self.value, "status": self.status, "source": self.source}


@dataclass(frozen=True)
class Panel:
    """One study of an experiment (a panel of its figure): a scenario run with some algorithms.

    ``theorem`` names the theorem whose family runs the study (its claims are checked on the way and stored
    with the results); ``algorithms`` are policy names, the theorem's algorithm first; ``scenario`` builds the
    scenario (called once, in the parent process)."""

    name: str
    title: str
    theorem: str
    scenario: Callable[[], Scenario]
    algorithms: tuple[str, ...]
    beta_scale: float = 1.0


@dataclass(frozen=True)
class ExploreAxis:
    """One unstated setting and the levels ``--explore`` tries (the first is the experiment's own choice)."""

    name: str
    label: str
    levels: tuple
    meaning: str = ""


@dataclass(frozen=True)
class Explore:
    """A grid of the settings a paper did not state: every combination of the axes' levels is one cell,
    ``build(cell)`` returns the cell's scenario and β scale. ``panel`` is the panel whose claims it explores.

    Two stages: a *screen* of every cell with ``runs`` paired runs (Holm over the cells), then a *confirmation*:
    for each claim, the ``confirm`` cells most favourable to it in the screen are re-run with ``confirm_runs``
    runs on seeds independent of the screen, and tested again (Holm over all the confirmations). Choosing the
    cells on the screen's data and testing them on fresh data keeps the confirmation valid."""

    axes: tuple[ExploreAxis, ...]
    build: Callable[[Mapping[str, object]], tuple[Scenario, float]]
    panel: str
    note: str = ""
    runs: int = 30
    confirm: int = 3  # per claim, the most favourable settings re-run on fresh seeds to confirm the screen
    confirm_runs: int = 100

    def cells(self) -> list[dict]:
        import itertools

        names = [a.name for a in self.axes]
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(a.levels for a in self.axes))]


@dataclass(frozen=True)
class Experiment:
    """One experiment of a paper (see the module docstring)."""

    paper: str
    name: str
    title: str
    location: str
    description: str
    panels: tuple[Panel, ...]
    settings: tuple[Setting, ...]
    default_runs: int = 30
    band: Literal["se", "sd"] = "se"  # what the paper shades around its mean curves
    figures: tuple[str, ...] = ("regret",)  # "regret", "prior_selection", "paths" (paper 002's road network)
    stand_in: str = ""  # what stands in for data that cannot be used offline ("" = the paper's own setting)
    offline_reason: str = ""  # non-empty: the experiment cannot be run offline at all (real data, no stand-in)
    explore: Explore | None = None

    @property
    def runnable(self) -> bool:
        return not self.offline_reason and bool(self.panels)

    @property
    def claims(self) -> list[empirical.EmpiricalClaim]:
        return empirical.empirical_claims(self.paper, self.name)

    def panel(self, name: str) -> Panel:
        for p in self.panels:
            if p.name == name:
                return p
        raise BoundcheckError(f"experiment {self.name!r} has no panel {name!r}")

    def to_json(self) -> dict:
        return {"paper": self.paper, "name": self.name, "title": self.title, "location": self.location,
                "description": self.description, "band": self.band, "figures": list(self.figures),
                "stand_in": self.stand_in, "offline_reason": self.offline_reason, "runnable": self.runnable,
                "default_runs": self.default_runs,
                "settings": [s.to_json() for s in self.settings],
                "panels": [{"name": p.name, "title": p.title, "theorem": p.theorem, "algorithms": list(p.algorithms),
                            "beta_scale": p.beta_scale} for p in self.panels]}


@dataclass(frozen=True)
class Paper:
    """A paper whose experiments ``reproduce`` runs: its id (the paper's slug), citation and notes."""

    id: str
    title: str
    source: str
    file: str  # in shared/papers
    theorems: tuple[str, ...]
    notes: tuple[str, ...] = ()
    experiments: list[Experiment] = field(default_factory=list, compare=False)

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "source": self.source, "file": self.file,
                "theorems": list(self.theorems), "notes": list(self.notes)}


# ------------------------------------------------------------------------------------------------- registry
_BUILTIN_MODULES = (f"{__name__}.paper000", f"{__name__}.paper004", f"{__name__}.paper001",
                    f"{__name__}.paper002")


def _install(module) -> None:
    register_paper(module.PAPER)
    for exp in module.EXPERIMENTS:
        register_experiment(exp)


_PAPERS: Registry[Paper] = Registry(
    _BUILTIN_MODULES, _install, lambda pid: BoundcheckError(f"a paper with id {pid!r} is already registered"))


def register_paper(paper: Paper, *, replace: bool = False) -> Paper:
    return _PAPERS.add(paper.id, paper, replace=replace)


def register_experiment(experiment: Experiment, *, replace: bool = False) -> Experiment:
    """Add an experiment to its (registered) paper."""
    paper = _PAPERS.load().get(experiment.paper)
    if paper is None:
        raise BoundcheckError(f"register the paper {experiment.paper!r} before its experiments")
    names = [e.name for e in paper.experiments]
    if experiment.name in names:
        if not replace:
            raise BoundcheckError(f"paper {paper.id!r} already has an experiment {experiment.name!r}")
        paper.experiments[names.index(experiment.name)] = experiment
    else:
        paper.experiments.append(experiment)
    return experiment


def paper_ids() -> list[str]:
    return list(_PAPERS.load())


def get_paper(paper_id: str) -> Paper:
    papers = _PAPERS.load()
    try:
        return papers[paper_id]
    except (KeyError, TypeError):
        raise BoundcheckError(f"unknown paper {paper_id!r}; known: {', '.join(papers)}") from None


def experiments_of(paper_id: str) -> list[Experiment]:
    return list(get_paper(paper_id).experiments)


def get_experiment(paper_id: str, name: str) -> Experiment:
    paper = get_paper(paper_id)
    for e in paper.experiments:
        if e.name == name:
            return e
    raise BoundcheckError(f"paper {paper_id!r} has no experiment {name!r}; experiments: "
                          f"{', '.join(e.name for e in paper.experiments)}")
