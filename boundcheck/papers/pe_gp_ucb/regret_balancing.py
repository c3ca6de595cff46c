"""Regret Balancing, Appendix D (Algorithm 2) of Ziomek et al. (2024): a baseline that balances the candidate
priors by how often each was used, in its corrected reading (C37)."""

from __future__ import annotations

import numpy as np

from boundcheck.model.dataspace import make_posterior
from boundcheck.policies.base import Policy, RunContext


class RegretBalancing(Policy):
    """Regret Balancing, Algorithm 2 of Ziomek et al. (2024), corrected reading (C37)::

        u_t = argmin_{p ∈ U_t} R^p(|S^p_{t-1}| + 1)          # R^p(t) = t: the least-used active prior
        x_t = argmax_{x ∈ X_t} UCB^{u_t}_{t-1}(x);  y_t = f(x_t,t) + ε_t
        if |S^p_t| > 0 for all p ∈ U_t:
            L_t(p) = ȳ_p − √(ξ_t / |S^p_t|)
            (i)  literal:  keep p iff L_t(p) + \\overline{βσ}_p ≥ max_{p'} L_t(p')
            (ii) default:  keep p iff ȳ_p + √(ξ_t/|S^p_t|) + \\overline{βσ}_p ≥ max_{p'} L_t(p')

    with \\overline{βσ}_p the mean over S^p_t of β^p_τ σ^p_{τ-1}(x_τ, τ). Reading (ii) is the standard
    regret-bound-balancing test (and what the authors' sister code implements)."""

    name = "regret_balancing"
    label = "Regret Balancing"
    provides_posterior = True
    one_arm = True
    description = "regret balancing over the candidate priors (Alg. 2 of paper 000)"
    records = frozenset({"prior", "mu", "sigma", "ucb", "n_active"})

    def __init__(self, reading: str = "ii", label: str | None = None) -> None:
        if reading not in ("i", "ii"):
            raise ValueError("reading must be 'i' (literal) or 'ii' (standard)")
        self.reading = reading
        if label is not None:
            self.label = label

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        m, P = ctx.runs, len(ctx.candidates)
        self.posterior = make_posterior(ctx.candidates, ctx.noise_var, m, max_data=ctx.max_observations)
        self.truth_prior = ctx.monitor_index
        self.active = np.ones((m, P), dtype=bool)
        self.count = np.zeros((m, P), dtype=np.int64)
        self.sum_y = np.zeros((m, P))
        self.sum_w = np.zeros((m, P))
        self._rows = np.arange(m)

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        post, r = self.posterior, self._rows
        u_t = np.argmin(np.where(self.active, self.count, np.iinfo(np.int64).max), axis=1)
        mu, sd = post.mean()[r, u_t], post.sd()[r, u_t]
        ucb = mu + self.ctx.beta[t] * sd
        x_t = self.ctx.actions.oracle(ucb, available)[:, 0]
        self.u_t, self.w_t = u_t, self.ctx.beta[t] * sd[r, x_t]
        self.record = {"prior": u_t, "mu": mu[r, x_t], "sigma": sd[r, x_t], "ucb": ucb[r, x_t],
                       "n_active": self.active.sum(axis=1)}
        return x_t[:, None]

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        r, u, y = self._rows, self.u_t, y[:, 0]
        self.count[r, u] += 1
        self.sum_y[r, u] += y
        self.sum_w[r, u] += self.w_t
        ready = np.all(self.count > 0, where=self.active, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            n = np.maximum(self.count, 1)
            ybar, width, wbar = self.sum_y / n, np.sqrt(self.ctx.xi[t] / n), self.sum_w / n
            L = np.where(self.active, ybar - width, -np.inf)
            Lmax = L.max(axis=1, keepdims=True)
            upper = (L + wbar) if self.reading == "i" else (ybar + width + wbar)
        keep = upper >= Lmax
        self.active &= np.where(ready[:, None], keep, True)
        self.posterior.condition_batch(action, y[:, None])
        self.posterior.propagate()
