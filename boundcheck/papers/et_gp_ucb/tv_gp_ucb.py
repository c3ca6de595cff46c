"""TV-GP-UCB (Bogunovic, Scarlett, Cevher 2016): GP-UCB on the exact posterior of the ε chain, told the true prior
(the oracle baseline of paper 000) or a given ε (paper 001's baseline)."""

from __future__ import annotations

import numpy as np

from boundcheck.model.dataspace import make_posterior
from boundcheck.model.priors import GPPrior
from boundcheck.policies.base import Policy, RunContext
from boundcheck.policies.ucb import UCBPolicy
from boundcheck.utils.validation import check_unit_interval

__all__ = ["OracleTVGPUCB", "TVGPUCB"]


class OracleTVGPUCB(UCBPolicy):
    """TV-GP-UCB told the *true* prior, with PE-GP-UCB's β_t (the oracle of Ziomek et al. 2024, §6: the
    comparison isolates the cost of not knowing the prior; with ε = 0 it is GP-UCB, Srinivas et al. 2010)::

        x_t = argmax_{x ∈ X_t} μ_{t-1}(x,t) + β_t σ_{t-1}(x,t)      under p*, no prior selection
        condition on y_t, then predict: m ← √(1−ε) m,  Σ ← (1−ε) Σ + ε K      (kernel k(x,x')(1−ε)^{|t−s|/2})"""

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


class TVGPUCB(OracleTVGPUCB):
    """TV-GP-UCB told the true ε (the default) or an assumed one: the oracle's rule on the posterior of the ε chain
    with that ε, all data, and the width √β_t of its own name. The told ε is the argument, else the study's
    ``tv_eps`` schedule (the family computes it from the scenario), else the truth's."""

    name = "tv_gp_ucb"
    label = "TV-GP-UCB"
    role = "baseline"
    description = "time-varying GP-UCB (Bogunovic et al. 2016): exact posterior of the ε chain with a told ε"
    records = frozenset({"mu", "sigma", "ucb", "width", "eps_told"})

    def __init__(self, eps: float | None = None, name: str = "tv_gp_ucb", label: str = "TV-GP-UCB") -> None:
        self.eps = None if eps is None else check_unit_interval("eps", eps)
        self.name, self.label = name, label

    def start(self, ctx: RunContext) -> None:
        Policy.start(self, ctx)
        model = ctx.candidates[0]
        if self.eps is not None:
            eps = self.eps
        elif "tv_eps" in ctx.schedules:
            eps = float(ctx.schedules["tv_eps"][0])
        else:
            eps = float(ctx.truth.eps)
        if eps != model.eps:
            model = GPPrior(f"{model.name}, told ε = {eps:g}", model.mean, model.K, eps)
        self.eps_told = eps
        self.posterior = make_posterior([model], ctx.noise_var, ctx.runs, max_data=ctx.horizon)
        self.truth_prior = 0
        self.width = ctx.schedule(self.name)
        self._rows = np.arange(ctx.runs)

    def width_at(self, t: int) -> float:
        return self.width[t]  # its own schedule (the oracle's is the study's β)

    def step_records(self, t, action, mu, sd, score) -> dict[str, np.ndarray]:
        return {"eps_told": np.full(self._rows.size, self.eps_told)}
