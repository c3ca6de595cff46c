"""TV-GP-UCB (Bogunovic et al. 2016) with the *true* prior known: the oracle baseline of spec 000 §2.3.

    x_t = argmax_{x ∈ X_t} μ_{t-1}(x,t) + β_t σ_{t-1}(x,t)      under p*, no prior selection

It uses the same β_t as PE-GP-UCB so that the comparison isolates the cost of not knowing the prior.
With ε = 0 it is GP-UCB (Srinivas et al. 2010).
"""

from __future__ import annotations

import numpy as np

from ..posterior import BatchedPosterior
from .base import Policy, RunContext, masked_argmax


class OracleTVGPUCB(Policy):
    name = "oracle_tv_gp_ucb"
    label = "TV-GP-UCB (oracle prior)"

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        self.posterior = BatchedPosterior([ctx.truth], ctx.noise_sd**2, ctx.runs)
        self.truth_prior = 0
        self._rows = np.arange(ctx.runs)

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        mu, sd = self.posterior.mean()[:, 0], self.posterior.sd()[:, 0]
        x_t = masked_argmax(mu + self.ctx.beta[t] * sd, np.broadcast_to(available, mu.shape))
        r = self._rows
        self.record = {"mu": mu[r, x_t], "sigma": sd[r, x_t], "ucb": mu[r, x_t] + self.ctx.beta[t] * sd[r, x_t]}
        return x_t

    def update(self, t: int, idx: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition(idx, y)
        self.posterior.propagate()
