"""Policies on a compact box X = [low, high]^d: the protocol the continuum engine (:mod:`boundcheck.study.continuum`)
drives, and the uniform random baseline.

A box policy acts on a batch of m runs, like a finite one, but chooses points, not indices: ``select(t)`` returns
(m, d) coordinates inside the box and ``update(t, X, y)`` receives them back with their observations. A policy that
keeps a GP model exposes it as ``posterior`` (a :class:`~boundcheck.model.continuum.posterior.ContinuousPosterior`
of the theorem's prior), which the engine reads — never the policy's records — for the truth-side monitors
(confidence events at x_t and at the discretised maximiser, the innovations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..model.kernels import RBF
from .continuum import ContinuousUCB

__all__ = ["BoxContext", "BoxPolicy", "RandomBox", "GPUCBBox", "POLICIES"]


@dataclass
class BoxContext:
    """What a box policy is given at the start of a batch of runs."""

    runs: int  # m
    horizon: int  # T
    bounds: np.ndarray  # (d, 2) the box
    kernel: RBF  # the algorithms' prior kernel (k(x, x) = 1)
    noise_sd: float  # R
    noise_var: float  # λ, the model's likelihood variance
    beta: np.ndarray  # (T+1,) the width √β_t of the theorem's algorithm (scaling applied); entry 0 unused
    rngs: list[np.random.Generator] = field(default_factory=list)  # this policy's stream per run
    schedules: dict[str, np.ndarray] = field(default_factory=dict)
    delta: float = 0.1
    sobol: int = 256  # candidate points per step for the optimiser's starts
    starts: int = 6  # L-BFGS-B starts per run and step
    certify: bool = False  # record a proven upper bound on the optimiser's gap at every step
    run_ids: tuple[int, ...] = ()

    @property
    def dim(self) -> int:
        return int(self.bounds.shape[0])

    def schedule(self, name: str) -> np.ndarray:
        """The width schedule of the policy ``name``: its own when the study gives one, else ``beta``."""
        return np.asarray(self.schedules.get(name, self.beta), dtype=float)


class BoxPolicy:
    """Base class of the box protocol: ``start(ctx)``, then per step ``select(t) -> (m, d)`` and ``update(t, X, y)``
    (X (m, d), y (m,)), then ``finish()``. Per-step diagnostics go to ``self.record`` (declared in ``records``)."""

    name: str = "box_policy"
    label: str = "box policy"
    records: ClassVar[frozenset[str]] = frozenset()
    final_records: ClassVar[frozenset[str]] = frozenset()
    monitors: ClassVar[frozenset[str]] = frozenset()
    conformance_monitors: ClassVar[frozenset[str]] = frozenset()
    provides_posterior: ClassVar[bool] = False
    role: ClassVar[str] = "baseline"
    one_arm: ClassVar[bool] = True
    description: ClassVar[str] = ""
    domain_kind: ClassVar[str] = "box"
    posterior = None
    monitored: bool = True

    def start(self, ctx: BoxContext) -> None:
        self.ctx = ctx
        self.record: dict[str, np.ndarray] = {}

    def select(self, t: int) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def update(self, t: int, X: np.ndarray, y: np.ndarray) -> None:
        return None

    def finish(self) -> dict[str, np.ndarray]:
        return {}


class RandomBox(BoxPolicy):
    """Uniform random search on the box: x_t ~ U([low, high]^d), independently of the data (the uninformed
    reference every regret bound should beat in the long run)."""

    name = "random_box"
    label = "Random"
    role = "uninformed"
    description = "uniform random points of the box"

    def select(self, t: int) -> np.ndarray:
        lo, hi = self.ctx.bounds[:, 0], self.ctx.bounds[:, 1]
        return np.stack([lo + (hi - lo) * g.random(self.ctx.dim) for g in self.ctx.rngs])


class GPUCBBox(ContinuousUCB, BoxPolicy):
    """GP-UCB on the box (Srinivas et al. 2010, Theorem 2's algorithm)::

        x_t = argmax_{x ∈ X} μ_{t−1}(x) + √β_t σ_{t−1}(x)         # on the continuum: multi-start quasi-Newton
        y_t = f(x_t) + ε_t;  μ, σ ← the exact posterior given (x_1, y_1), …, (x_t, y_t)

    √β_t is the study's width schedule for this policy (the theorem's); the optimiser's starts are the best
    ``ctx.starts`` of ``ctx.sobol`` Sobol candidates, the incumbent and the previous choice
    (:class:`~boundcheck.policies.continuum.ContinuousUCB`, which records the optimiser's witnessed gap and, with
    ``ctx.certify``, a proven upper bound on it)."""

    name = "gp_ucb_box"
    label = "GP-UCB"
    provides_posterior = True
    conformance_monitors = frozenset({"conform_gap"})
    description = "GP-UCB with the acquisition maximised on the continuum (multi-start quasi-Newton)"
    records = frozenset(ContinuousUCB.records)

    def __init__(self, name: str = "gp_ucb_box", label: str = "GP-UCB") -> None:
        self.name, self.label = name, label

    def start(self, ctx: BoxContext) -> None:
        BoxPolicy.start(self, ctx)
        ContinuousUCB.__init__(self, n_candidates=ctx.sobol, n_starts=ctx.starts, certify_every=int(ctx.certify))
        ContinuousUCB.start(self, ctx.runs, ctx.bounds, ctx.kernel, ctx.noise_var, self.width_schedule(ctx),
                            ctx.rngs)

    def width_schedule(self, ctx: BoxContext) -> np.ndarray:
        """√β_t, t = 0..T: the study's schedule for this policy."""
        return ctx.schedule(self.name)

    def conformance(self, t: int, X: np.ndarray) -> dict[str, np.ndarray]:
        """As a shadow of a checked box policy: ``conform_gap`` = (U_t(x̂_t) − U_t(x_t)) / (1 + |U_t(x̂_t)|), x̂_t
        this algorithm's own argmax of its UCB U_t (from its own starts), x_t the checked code's point: ≤ 0 when
        the code's point is at least as good as the shadow's, positive when the code chose a point the theorem's
        algorithm would not (its acquisition below the shadow's maximum)."""
        own = self.select(t)
        u_own = self.record["ucb"]
        mu, sd = self.posterior.mean_sd(np.asarray(X, dtype=np.float64)[:, None, :])
        u_x = mu[:, 0] + self.width[t] * sd[:, 0]
        del own
        return {"conform_gap": (u_own - u_x) / (1.0 + np.abs(u_own))}


#: the box policies every compact-domain theorem shares (a paper's own come from its ``policies`` part)
POLICIES = (
    ("gp_ucb_box", GPUCBBox, {}),
    ("igp_ucb_box", GPUCBBox, {"name": "igp_ucb_box", "label": "IGP-UCB"}),  # the width is its theorem's β_t
    ("gp_ucb_rkhs_box", GPUCBBox, {"name": "gp_ucb_rkhs_box", "label": "GP-UCB"}),  # Srinivas' Theorem 3
    ("random_box", RandomBox, {}),
)
