"""TV-GP-UCB (Bogunovic et al. 2016) with the *true* prior known: the oracle baseline of Ziomek et al. 2024, §6.

    x_t = argmax_{x ∈ X_t} μ_{t-1}(x,t) + β_t σ_{t-1}(x,t)      under p*, no prior selection

It uses the same β_t as PE-GP-UCB so that the comparison isolates the cost of not knowing the prior.
With ε = 0 it is GP-UCB (Srinivas et al. 2010).
"""

from __future__ import annotations

import numpy as np

from boundcheck.model.dataspace import make_posterior
from boundcheck.policies.base import RunContext
from boundcheck.policies.ucb import UCBPolicy


class OracleTVGPUCB(UCBPolicy):
    name = "oracle_tv_gp_ucb"
    label = "oracle TV-GP-UCB"
    provides_posterior = True
    role = "oracle"
    description = "time-varying GP-UCB told the true prior (a lower reference, not a competitor)"
    records = frozenset({"mu", "sigma", "ucb"})

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        self.posterior = make_posterior([ctx.truth], ctx.noise_var, ctx.runs, max_data=ctx.max_observations)
        self.truth_prior = 0
        self._rows = np.arange(ctx.runs)

    def width_at(self, t: int) -> float:
        return self.ctx.beta[t]  # PE-GP-UCB's β_t (the study's)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition_batch(action, y)
        self.posterior.propagate()
