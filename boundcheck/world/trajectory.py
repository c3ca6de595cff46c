"""What a chunk of simulated runs produced: the record every claim is computed from.

Shapes: ``m`` runs, horizon ``T``, ``K`` base arms per action. Single-arm views (``idx``, ``y``, ``noise``)
exist for K = 1, which every single-arm theorem uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["AlgorithmTrajectory", "Trajectories"]


def _single(a: np.ndarray, what: str) -> np.ndarray:
    if a.shape[-1] != 1:
        raise ValueError(f"{what}: actions have K = {a.shape[-1]} base arms; use the (m, T, K) array")
    return a[..., 0]


@dataclass
class AlgorithmTrajectory:
    name: str
    label: str
    actions: np.ndarray  # (m, T, K) chosen base arms
    regret: np.ndarray  # (m, T) r_t = max_a f_t(a) − f_t(a_t)
    obs: np.ndarray  # (m, T, K) observations, one per chosen base arm
    steps: dict[str, np.ndarray] = field(default_factory=dict)  # policy records, (m, T, ...)
    monitors: dict[str, np.ndarray] = field(default_factory=dict)  # truth-side monitors, (m, T)
    final: dict[str, np.ndarray] = field(default_factory=dict)  # per-run diagnostics from finish()

    @property
    def idx(self) -> np.ndarray:
        """(m, T) chosen point (K = 1)."""
        return _single(self.actions, self.name)

    @property
    def y(self) -> np.ndarray:
        """(m, T) observations (K = 1)."""
        return _single(self.obs, self.name)


@dataclass
class Trajectories:
    run_ids: np.ndarray  # (m,)
    horizon: int
    noise_arms: np.ndarray  # (m, T, K) ε_t per base arm (common to every algorithm)
    f_opt: np.ndarray  # (m, T) max_a f_t(a) over the available actions
    f_abs_max: np.ndarray  # (m,) max_{t,x} |f_t(x)|
    algorithms: dict[str, AlgorithmTrajectory]
    truth: dict[str, np.ndarray] = field(default_factory=dict)  # per-run facts from the sampler (f, rkhs_norm)
    #: (m, T) max_a f_t(a) − min_a f_t(a) over the available actions: the largest regret any algorithm could
    #: incur at step t (its cumulative sum feeds the claim table's vacuity rule); None where not recorded
    f_range: np.ndarray | None = None
    #: (m,) the step at which each run stopped at its event (0: it never fired, the run went to T), in a study
    #: that stops runs early (:class:`~boundcheck.study.needs.StudyNeeds`); None otherwise. A stopped run's later
    #: steps hold no data (actions −1, NaN values, records 0)
    stopped_at: np.ndarray | None = None

    @property
    def noise(self) -> np.ndarray:
        """(m, T) ε_t (K = 1)."""
        return _single(self.noise_arms, "noise")
