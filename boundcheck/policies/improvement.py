"""GP-EI and GP-PI, the baselines of Chowdhury & Gopalan (2017) §6 (the paper gives no formulas; [PROPOSED],
correction CG18):

    incumbent μ⁺_{t−1} = max_{s<t} μ_{t−1}(x_s)          (0 = max μ_0 before any data)
    z_t(x) = (μ_{t−1}(x) − μ⁺_{t−1} − ξ) / σ_{t−1}(x),   ξ = 0.01
    GP-PI:  x_t = argmax Φ(z_t(x))
    GP-EI:  x_t = argmax (μ_{t−1}(x) − μ⁺ − ξ) Φ(z_t(x)) + σ_{t−1}(x) φ(z_t(x))

Both use the scenario's model (kernel and likelihood variance λ), like every algorithm of the family.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from ..model.dataspace import make_posterior
from .base import Policy, RunContext

_SQRT_2PI = np.sqrt(2 * np.pi)


def _pdf(z: np.ndarray) -> np.ndarray:
    """Standard normal density, as scipy.stats.norm.pdf computes it (without importing scipy.stats)."""
    return np.exp(-z**2 / 2.0) / _SQRT_2PI


class _Improvement(Policy):
    provides_posterior = True
    one_arm = True
    xi = 0.01
    records = frozenset({"mu", "sigma"})

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        self.posterior = make_posterior(ctx.candidates[:1], ctx.noise_var, ctx.runs, max_data=ctx.max_observations)
        self.truth_prior = 0
        self.visited = np.zeros((ctx.runs, self.posterior.n), dtype=bool)
        self._rows = np.arange(ctx.runs)

    def _score(self, diff: np.ndarray, sd: np.ndarray, z: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        r = self._rows
        mu, sd = self.posterior.mean()[:, 0], self.posterior.sd()[:, 0]
        inc = np.where(self.visited, mu, -np.inf).max(axis=1)
        inc = np.where(np.isfinite(inc), inc, mu.max(axis=1))
        diff = mu - inc[:, None] - self.xi
        sdp = np.maximum(sd, 1e-150)
        score = self._score(diff, sdp, diff / sdp)
        x_t = self.ctx.actions.oracle(score, available)[:, 0]
        self.record = {"mu": mu[r, x_t], "sigma": sd[r, x_t]}
        return x_t[:, None]

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.visited[self._rows[:, None], action] = True
        self.posterior.condition_batch(action, y)


class GPEI(_Improvement):
    name = "gp_ei"
    label = "GP-EI"
    description = "GP expected improvement"

    def _score(self, diff, sd, z):
        return diff * ndtr(z) + sd * _pdf(z)


class GPPI(_Improvement):
    name = "gp_pi"
    label = "GP-PI"
    description = "GP probability of improvement"

    def _score(self, diff, sd, z):
        return ndtr(z)
