"""A paper's experiments as objects: what ``boundcheck reproduce PAPER`` runs.

An :class:`Experiment` is one figure (or table) of a paper's experiment section: its location, the settings the
paper states and the ones boundcheck had to guess (:class:`Setting`), the studies it runs (:class:`Panel`: a
scenario, the theorem whose family runs it, the algorithms), the figures the report draws, what stands in for
data that cannot be used offline, and optionally a grid of the unstated settings to explore
(:class:`Explore`), the numbers the paper prints (:class:`Printed`: shown beside ours in the report) and the
paper's own tables the report adds. Its empirical claims live in the theory layer (``theory.empirical``), keyed by
the paper id and the experiment's name. A paper's experiments are listed under its id (its :class:`theory.plugins.Paper`
manifest's ``id``: ``pe_gp_ucb``, ``igp_ucb_gp_ts``, ...), the id ``reproduce`` takes.

Registry: a paper's ``experiments`` part defines ``EXPERIMENTS`` (``boundcheck/papers/<slug>/experiments.py``
for the built-in papers); :func:`register_experiment` adds one by hand; :func:`get_paper`,
:func:`experiments_of`, :func:`paper_ids`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import theory.empirical as empirical
from theory import plugins
from theory.plugins import Paper

from ...errors import BoundcheckError
from ...world.scenario import Scenario
from ..needs import StudyNeeds

__all__ = ["Setting", "Printed", "Panel", "ExploreAxis", "Explore", "Experiment", "Paper", "register_paper",
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
class Printed:
    """One number the paper prints: the mean of ``metric`` (a :data:`theory.empirical.METRICS` id) for
    ``algorithm`` on ``panel``. The report shows it beside ours (mean ± 2 standard errors over the runs); whether
    it reproduces is an empirical claim's business (an ``interval`` claim), not this row's."""

    panel: str
    algorithm: str
    metric: str
    value: float
    label: str

    def to_json(self) -> dict:
        return {"panel": self.panel, "algorithm": self.algorithm, "metric": self.metric, "value": self.value,
                "label": self.label}


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
    figures: tuple[str, ...] = ("regret",)  # "regret", "prior_selection", and the paper's own (its figures part)
    tables: tuple[str, ...] = ()  # the paper's own tables (its figures part's REPLICATION_TABLES)
    printed: tuple[Printed, ...] = ()  # the numbers the paper prints, shown beside ours
    stand_in: str = ""  # what stands in for data that cannot be used offline ("" = the paper's own setting)
    offline_reason: str = ""  # non-empty: the experiment cannot be run offline at all (real data, no stand-in)
    explore: Explore | None = None
    #: what the experiment measures, when less than every step of every run (a
    #: :class:`~boundcheck.study.needs.StudyNeeds` or a mapping of its fields, e.g. ``{"stop_at": "reset",
    #: "regret": False}``): its studies then stop runs at their event and skip what no table reads, and check
    #: none of the theorem's claims
    needs: StudyNeeds | Mapping[str, object] | None = None
    horizon: int | None = None  # the panels' horizon T (None: each scenario's own)
    chunk_size: int = 25  # runs per stored chunk (smaller: a few long runs still split over the workers)
    #: ``reproduce --quick``: a smaller run (horizon, runs), with these settings rows replacing those of the same
    #: name, so that every page says so; None: the experiment has no quick form (it runs as it is)
    quick: tuple[int | None, int | None] | None = None
    quick_settings: tuple[Setting, ...] = ()

    def at_quick(self) -> Experiment:
        """The ``--quick`` form of this experiment (itself when it has none): its quick horizon and runs, the
        default chunking (25 runs), the quick settings rows in place of the full ones."""
        if self.quick is None:
            return self
        from dataclasses import replace

        horizon, runs = self.quick
        rows = {s.name: s for s in self.quick_settings}
        settings = tuple(rows.pop(s.name, s) for s in self.settings) + tuple(rows.values())
        return replace(self, horizon=horizon, default_runs=runs if runs is not None else self.default_runs,
                       chunk_size=25, quick=None, quick_settings=(), settings=settings)
    # what the paper reports about its real data, by property (boundcheck.world.stand_in.STAND_IN_ROWS keys), and
    # what the stand-in's kernel is built from: the report shows them beside the stand-in's measured properties
    stand_in_paper: tuple[tuple[str, str], ...] = ()
    stand_in_data: str = ""

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
                "tables": list(self.tables), "printed": [x.to_json() for x in self.printed],
                "stand_in": self.stand_in, "offline_reason": self.offline_reason, "runnable": self.runnable,
                "stand_in_paper": dict(self.stand_in_paper), "stand_in_data": self.stand_in_data,
                "default_runs": self.default_runs, "horizon": self.horizon,
                "needs": None if StudyNeeds.of(self.needs) is None else StudyNeeds.of(self.needs).to_json(),
                "settings": [s.to_json() for s in self.settings],
                "panels": [{"name": p.name, "title": p.title, "theorem": p.theorem, "algorithms": list(p.algorithms),
                            "beta_scale": p.beta_scale} for p in self.panels]}


# ------------------------------------------------------------------------------------------------- registry
_BY_PAPER: dict[str, list[Experiment]] = {}


def _install(module) -> None:
    for exp in module.EXPERIMENTS:
        register_experiment(exp)


# the papers' ``experiments`` parts (``EXPERIMENTS``), imported on the first look-up of the paper's experiments
_EXPERIMENTS = plugins.registry(
    "experiments", _install,
    lambda key: BoundcheckError(f"paper {key[0]!r} already has an experiment {key[1]!r}"))


def register_paper(paper: Paper, *, replace: bool = False) -> Paper:
    """Add a paper in this process (see :func:`theory.plugins.register_paper`)."""
    return plugins.register_paper(paper, replace=replace)


def register_experiment(experiment: Experiment, *, replace: bool = False) -> Experiment:
    """Add an experiment to its (registered) paper."""
    if experiment.paper not in plugins.papers():
        raise BoundcheckError(f"register the paper {experiment.paper!r} before its experiments")
    _EXPERIMENTS.add((experiment.paper, experiment.name), experiment, replace=replace)
    exps = _BY_PAPER.setdefault(experiment.paper, [])
    names = [e.name for e in exps]
    if experiment.name in names:
        exps[names.index(experiment.name)] = experiment
    else:
        exps.append(experiment)
    return experiment


def paper_ids() -> list[str]:
    """The papers that have experiments (what ``reproduce`` takes)."""
    _EXPERIMENTS.load()
    return [pid for pid in plugins.papers() if _BY_PAPER.get(pid)]


def get_paper(paper_id: str) -> Paper:
    """The paper ``paper_id``, with its experiments loaded."""
    try:
        paper = plugins.get_paper(paper_id)
    except plugins.PluginError:
        raise BoundcheckError(f"unknown paper {paper_id!r}; known: {', '.join(paper_ids())}") from None
    _EXPERIMENTS.load_declaring(paper.id)
    return paper


def experiments_of(paper_id: str) -> list[Experiment]:
    return list(_BY_PAPER.get(get_paper(paper_id).id, ()))


def get_experiment(paper_id: str, name: str) -> Experiment:
    exps = experiments_of(paper_id)
    for e in exps:
        if e.name == name:
            return e
    raise BoundcheckError(f"paper {paper_id!r} has no experiment {name!r}; experiments: "
                          f"{', '.join(e.name for e in exps)}")
