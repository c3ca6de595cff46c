"""Prior-selection baselines of Ziomek et al. (2024), §6 (ledger C35).

MLE (type-II maximum likelihood):
    p_t = argmax_{p ∈ U} log P(D_{t-1} | p);   x_t = argmax_{x ∈ X_t} UCB^{p_t}_{t-1}(x)
Fully Bayesian:
    x_t = argmax_{x ∈ X_t} Σ_p UCB^p_{t-1}(x) P(p | D_{t-1}),   P(p | D) ∝ P(D | p) / |U|
log P(D_{t-1} | p) is the posterior engine's running sum of one-step predictive log densities (chain rule),
which equals the usual marginal likelihood for the spatio-temporal kernel. β is the PE-GP-UCB β (C35);
ties go to the lowest index. The prior FB "chose" is [PROPOSED] argmax_p P(p | D_{t-1}).
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from boundcheck.model.dataspace import make_posterior
from boundcheck.policies.base import Policy, RunContext


class _PriorSelection(Policy):
    provides_posterior = True
    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        self.posterior = make_posterior(ctx.candidates, ctx.noise_var, ctx.runs, max_data=ctx.max_observations)
        self.truth_prior = ctx.monitor_index
        self._rows = np.arange(ctx.runs)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition_batch(action, y)
        self.posterior.propagate()


class MLE(_PriorSelection):
    name = "mle"
    label = "MLE prior selection"
    description = "GP-UCB with the prior of maximum marginal likelihood at each step"
    records = frozenset({"prior", "mu", "sigma", "ucb"})

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        post, r = self.posterior, self._rows
        p_t = np.argmax(post.loglik, axis=1)  # lowest index on ties (all equal at t = 1)
        mu, sd = post.mean()[r, p_t], post.sd()[r, p_t]
        ucb = mu + self.ctx.beta[t] * sd
        x_t = self.ctx.actions.oracle(ucb, available)[:, 0]
        self.record = {"prior": p_t, "mu": mu[r, x_t], "sigma": sd[r, x_t], "ucb": ucb[r, x_t]}
        return x_t[:, None]


class FullyBayesian(_PriorSelection):
    name = "fully_bayesian"
    label = "fully Bayesian"
    description = "GP-UCB under the posterior mixture over the candidate priors"
    records = frozenset({"prior", "ucb"})

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        post, r = self.posterior, self._rows
        weights = softmax(post.loglik, axis=1)  # P(p | D_{t-1}) with a uniform hyperprior, log-sum-exp
        ucb_p = post.mean() + self.ctx.beta[t] * post.sd()  # (m, P, n)
        score = np.einsum("mp,mpn->mn", weights, ucb_p)
        x_t = self.ctx.actions.oracle(score, available)[:, 0]
        self.record = {"prior": np.argmax(weights, axis=1), "ucb": score[r, x_t]}
        return x_t[:, None]
