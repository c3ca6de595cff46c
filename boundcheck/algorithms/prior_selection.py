"""Prior-selection baselines of Ziomek et al. (2024), §6 (spec 000 §2.4–2.5).

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

from ..posterior import BatchedPosterior
from .base import Policy, RunContext, masked_argmax


class _PriorSelection(Policy):
    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        self.posterior = BatchedPosterior(ctx.candidates, ctx.noise_sd**2, ctx.runs)
        self.truth_prior = ctx.truth_index if ctx.truth_index is not None else ctx.reference_index
        self._rows = np.arange(ctx.runs)

    def update(self, t: int, idx: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition(idx, y)
        self.posterior.propagate()


class MLE(_PriorSelection):
    name = "mle"
    label = "MLE"

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        post, r = self.posterior, self._rows
        p_t = np.argmax(post.loglik, axis=1)  # lowest index on ties (all equal at t = 1)
        mu, sd = post.mean()[r, p_t], post.sd()[r, p_t]
        ucb = mu + self.ctx.beta[t] * sd
        x_t = masked_argmax(ucb, np.broadcast_to(available, ucb.shape))
        self.record = {"prior": p_t, "mu": mu[r, x_t], "sigma": sd[r, x_t], "ucb": ucb[r, x_t]}
        return x_t


class FullyBayesian(_PriorSelection):
    name = "fully_bayesian"
    label = "Fully Bayesian"

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        post, r = self.posterior, self._rows
        weights = softmax(post.loglik, axis=1)  # P(p | D_{t-1}) with a uniform hyperprior, log-sum-exp
        ucb_p = post.mean() + self.ctx.beta[t] * post.sd()  # (m, P, n)
        score = np.einsum("mp,mpn->mn", weights, ucb_p)
        x_t = masked_argmax(score, np.broadcast_to(available, score.shape))
        self.record = {"prior": np.argmax(weights, axis=1), "ucb": score[r, x_t]}
        return x_t
