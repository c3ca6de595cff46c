"""Prior-selection baselines of Ziomek et al. (2024), §6 (ledger C35): GP-UCB under the prior of maximum
marginal likelihood (:class:`MLE`) or under the posterior mixture over the candidate priors
(:class:`FullyBayesian`). Both share PE-GP-UCB's β (C35) and break ties to the lowest index."""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from boundcheck.model.dataspace import make_posterior
from boundcheck.policies.base import RunContext
from boundcheck.policies.ucb import UCBPolicy


class _PriorSelection(UCBPolicy):
    """What both baselines share: one posterior per candidate prior, conditioned on every observation, whose
    running log P(D_{t-1} | p) is the engine's sum of one-step predictive log densities (chain rule), which equals
    the usual marginal likelihood for the spatio-temporal kernel; the width is PE-GP-UCB's β (C35)."""

    provides_posterior = True
    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        self.posterior = make_posterior(ctx.candidates, ctx.noise_var, ctx.runs, max_data=ctx.max_observations)
        self.truth_prior = ctx.monitor_index
        self._rows = np.arange(ctx.runs)

    def width_at(self, t: int) -> float:
        return self.ctx.beta[t]  # PE-GP-UCB's β (C35)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition_batch(action, y)
        self.posterior.propagate()


class MLE(_PriorSelection):
    """MLE (type-II maximum likelihood) prior selection::

        p_t = argmax_{p ∈ U} log P(D_{t-1} | p);   x_t = argmax_{x ∈ X_t} UCB^{p_t}_{t-1}(x)

    ties to the lowest index."""

    name = "mle"
    label = "MLE prior selection"
    description = "GP-UCB with the prior of maximum marginal likelihood at each step"
    records = frozenset({"prior", "mu", "sigma", "ucb"})

    def mean_sd(self, t: int, available) -> tuple[np.ndarray, np.ndarray]:
        post, r = self.posterior, self._rows
        self.p_t = np.argmax(post.loglik, axis=1)  # lowest index on ties (all equal at t = 1)
        return post.mean()[r, self.p_t], post.sd()[r, self.p_t]

    def step_records(self, t, action, mu, sd, score) -> dict[str, np.ndarray]:
        return {"prior": self.p_t}


class FullyBayesian(_PriorSelection):
    """Fully Bayesian prior selection::

        x_t = argmax_{x ∈ X_t} Σ_p UCB^p_{t-1}(x) P(p | D_{t-1}),   P(p | D) ∝ P(D | p) / |U|

    The prior it "chose" (the ``prior`` record) is [PROPOSED] argmax_p P(p | D_{t-1})."""

    name = "fully_bayesian"
    label = "fully Bayesian"
    description = "GP-UCB under the posterior mixture over the candidate priors"
    records = frozenset({"prior", "ucb"})

    def mean_sd(self, t: int, available) -> tuple[np.ndarray, np.ndarray]:
        return self.posterior.mean(), self.posterior.sd()  # (m, P, n)

    def index(self, t: int, mu: np.ndarray, sd: np.ndarray, width: float) -> np.ndarray:
        """Σ_p UCB^p_{t−1}(x) P(p | D_{t−1})."""
        self.weights = softmax(self.posterior.loglik, axis=1)  # P(p | D_{t-1}), uniform hyperprior, log-sum-exp
        return np.einsum("mp,mpn->mn", self.weights, mu + width * sd)

    def step_records(self, t, action, mu, sd, score) -> dict[str, np.ndarray]:
        return {"prior": np.argmax(self.weights, axis=1)}
