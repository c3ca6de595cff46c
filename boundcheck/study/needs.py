"""What a study measures, so that the engine does only that work.

A study that checks a theorem needs every step of every run; an experiment that estimates one quantity may need
much less (paper 001's Table 3 estimates ET-GP-UCB's first trigger time: a run is needed up to its first reset,
and neither the regret nor any truth-side monitor is read). An experiment says so with :class:`StudyNeeds`
(``Experiment.needs``), and :func:`with_needs` turns its study into one that stops each run at its event and
retires it from the batch, skips the regret and the monitors (drawing the truth only where a run observes it),
and checks no claim (:class:`StoppedFamily`), storing each run's event time and whether it was censored.

Every run draws from its own streams exactly as in the full study, so its choices and its event's time are the
full study's and the estimator is unchanged (``tests/papers/et_gp_ucb/test_et_stopping_time.py``).
Details: docs/study.md, "Studies that measure less".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..claims.families.base import Family, TheoremInstance
from ..errors import BoundcheckError
from ..world.scenario import Scenario
from ..world.trajectory import Trajectories

__all__ = ["StudyNeeds", "StoppedFamily", "with_needs", "stop_times", "STOPPED_CHUNK"]

#: runs per stored chunk of a study whose runs stop at an event (its tables hold one row per run)
STOPPED_CHUNK = 250


@dataclass(frozen=True)
class StudyNeeds:
    """What a study measures (see the module docstring).

    Attributes
    ----------
    stop_at : str or None
        A boolean per-step record of the checked algorithm (e.g. ET-GP-UCB's ``reset``): each run stops after
        the first step at which it is true. None: every run goes to the horizon.
    regret : bool
        False: the engine computes neither max f_t nor the regret (stored as NaN).
    monitors : bool
        False: no truth-side monitor is recorded and the engine keeps no reference posterior.
    stop_column : str
        The runs-table column holding the event's time (T where it never fired).
    """

    stop_at: str | None = None
    regret: bool = True
    monitors: bool = True
    stop_column: str = "stop_t"

    @classmethod
    def of(cls, needs: StudyNeeds | Mapping[str, object] | None) -> StudyNeeds | None:
        """A :class:`StudyNeeds` from itself, a mapping of its fields, or None."""
        if needs is None or isinstance(needs, StudyNeeds):
            return needs
        unknown = set(needs) - {"stop_at", "regret", "monitors", "stop_column"}
        if unknown:
            raise BoundcheckError(f"unknown study needs {', '.join(sorted(unknown))}; known: stop_at, regret, "
                                  "monitors, stop_column")
        return cls(**dict(needs))  # type: ignore[arg-type]

    @property
    def full(self) -> bool:
        """True when nothing is skipped (the engine's ordinary study)."""
        return self.stop_at is None and self.regret and self.monitors

    def to_json(self) -> dict:
        return {"stop_at": self.stop_at, "regret": self.regret, "monitors": self.monitors,
                "stop_column": self.stop_column}


def stop_times(traj: Trajectories) -> tuple[np.ndarray, np.ndarray]:
    """Per run, the step of the event (T where it never fired) and whether it never fired (censored at T)."""
    stop = traj.stopped_at
    if stop is None:
        stop = np.zeros(traj.run_ids.size, dtype=np.int64)
    fired = stop > 0
    return np.where(fired, stop, traj.horizon), ~fired


class StoppedFamily(Family):
    """A theorem's family without its claims, for a study that measures only what its :class:`StudyNeeds`
    says. Instantiation (widths, schedules) is the wrapped family's, so every algorithm runs exactly as in the
    full study. Per run: the event's time and ``censored``, the regret where it was computed (NaN otherwise);
    steps: the event's step of each run that has one."""

    def __init__(self, inner: Family, needs: StudyNeeds) -> None:  # no super().__init__: no claim table
        self.inner = inner
        self.needs_ = needs
        self.theorem = inner.theorem
        self.claims = ()
        self.step_columns = inner.step_columns
        self.evaluator_class = inner.evaluator_class

    # the wrapped family's instantiation, premises and checks
    def check_scenario(self, scenario: Scenario) -> None:
        self.inner.check_scenario(scenario)

    def out_of_theory_reasons(self, scenario: Scenario, beta_scale: float = 1.0, *args, **kw) -> list[str]:
        return self.inner.out_of_theory_reasons(scenario, beta_scale, *args, **kw)

    def assumption_rows(self, scenario: Scenario, beta_scale: float = 1.0, *args, **kw):
        return self.inner.assumption_rows(scenario, beta_scale, *args, **kw)

    def instantiate(self, scenario: Scenario, horizon: int, delta: float, beta_scale: float = 1.0) -> TheoremInstance:
        """The wrapped family's instance; its cheaper ``stop_instance`` where it has one (the algorithms' widths
        and schedules without what only the claims read: γ curves, pilots, the bound)."""
        cheap = getattr(self.inner, "stop_instance", None)
        if cheap is not None:
            return cheap(scenario, horizon, delta, beta_scale)
        return self.inner.instantiate(scenario, horizon, delta, beta_scale)

    def vacuous_claims(self, scenario: Scenario, inst: TheoremInstance) -> dict[str, str]:
        return {}

    def inapplicable_claims(self, scenario: Scenario, inst: TheoremInstance) -> dict[str, str]:
        return {}

    def evaluate(self, traj: Trajectories, scenario: Scenario, inst: TheoremInstance, seed: int,
                 main: str | None = None, *, checked: Sequence[str] | None = None,
                 skip: Mapping[str, Mapping[str, str]] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
        stop, censored = stop_times(traj)
        m = traj.run_ids.size
        frames, steps = [], []
        rows = np.flatnonzero(~censored)
        at = stop[rows] - 1  # the event's step (0-based) of every run that has one
        for name, tr in traj.algorithms.items():
            regret = tr.regret.sum(axis=1) if self.needs_.regret else np.full(m, np.nan)
            frames.append(pd.DataFrame({"run": traj.run_ids, "seed": seed, "algorithm": name,
                                        self.needs_.stop_column: stop, "censored": censored, "regret": regret,
                                        "tightness": regret / inst.bound_T}))
            d = {"run": traj.run_ids[rows], "algorithm": name, "t": stop[rows]}
            if traj.noise_arms.shape[-1] == 1:
                d["idx"] = tr.idx[rows, at]
                d["noise"] = traj.noise[rows, at]
            d["regret"] = tr.regret[rows, at]
            d["cum_regret"] = np.cumsum(tr.regret, axis=1)[rows, at] if self.needs_.regret else np.full(rows.size,
                                                                                                         np.nan)
            d["beta"] = inst.beta[1:][at]
            for k in self.step_columns:
                if k in tr.steps:
                    d[k] = np.asarray(tr.steps[k])[rows, at]
            for k, v in tr.monitors.items():
                if k not in d:
                    d[k] = np.asarray(v, dtype=float)[rows, at]
            steps.append(pd.DataFrame(d))
        out = pd.concat(steps, ignore_index=True)
        out["algorithm"] = out["algorithm"].astype("category")
        return pd.concat(frames, ignore_index=True), out


def with_needs(spec, needs: StudyNeeds | Mapping[str, object] | None):
    """The study ``spec`` (a :class:`~boundcheck.study.spec.StudySpec`) measuring only what ``needs`` says: the
    engine is told (``spec.needs``) and the family checks no claim (:class:`StoppedFamily`). Unchanged when
    ``needs`` is None or asks for everything."""
    needs = StudyNeeds.of(needs)
    if needs is None or needs.full:
        return spec
    # runs that stop early store one row each: larger chunks, so that storing, hashing and reading back the many
    # tiny tables of a large study (Table 3: 30 000 runs per panel) costs little beside the simulation
    chunk = spec.chunk_size if needs.stop_at is None else max(spec.chunk_size, STOPPED_CHUNK)
    return replace(spec, needs=needs, family=StoppedFamily(spec.family, needs), chunk_size=chunk)
