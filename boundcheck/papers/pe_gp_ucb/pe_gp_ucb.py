"""PE-GP-UCB (prior elimination GP-UCB), Algorithm 1 of Ziomek, Adachi, Osborne (2024): the algorithm of
Theorem 4.1, in its corrected, executable form (ledger C5–C10)."""

from __future__ import annotations

import numpy as np

from boundcheck.model.dataspace import make_posterior
from boundcheck.policies.base import RunContext, masked_argmax
from boundcheck.policies.ucb import UCBPolicy


class PEGPUCB(UCBPolicy):
    """PE-GP-UCB, Algorithm 1 of Ziomek et al. (2024) with corrections C5–C10::

        for t = 1..T:
            UCB^p_{t-1}(x) = μ^p_{t-1}(x,t) + β^p_t σ^p_{t-1}(x,t)          for p ∈ U_{t-1}
            (x_t, p_t) = argmax_{(x,p) ∈ X_t × U_{t-1}} UCB^p_{t-1}(x)      # X_t, not X          (C5)
            w_t = β^{p_t}_t σ^{p_t}_{t-1}(x_t,t)                             # frozen before y_t   (C8)
            y_t = f(x_t,t) + ε_t;   η_t = y_t − μ^{p_t}_{t-1}(x_t,t)
            S^{p_t} ← S^{p_t} ∪ {t}
            if |Σ_{i∈S^{p_t}} η_i| > √(ξ_t |S^{p_t}|) + Σ_{i∈S^{p_t}} w_i:  U_t = U_{t-1} \\ {p_t}
    """

    name = "pe_gp_ucb"
    label = "PE-GP-UCB"
    provides_posterior = True
    description = "prior elimination GP-UCB (the algorithm of Theorem 4.1)"
    records = frozenset({"prior", "mu", "sigma", "ucb", "w", "n_active", "var_groups", "eta", "eliminated",
                         "critical"})
    final_records = frozenset({"eliminated_at", "count", "all_gone_blocked"})

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        m, P = ctx.runs, len(ctx.candidates)
        self.posterior = make_posterior(ctx.candidates, ctx.noise_var, m, max_data=ctx.max_observations)
        self.truth_prior = ctx.monitor_index
        self.active = np.ones((m, P), dtype=bool)  # U_{t-1}
        self.sum_eta = np.zeros((m, P))  # Σ_{i∈S^p} η_i
        self.sum_w = np.zeros((m, P))  # Σ_{i∈S^p} w_i
        self.count = np.zeros((m, P), dtype=np.int64)  # |S^p|
        self.eliminated_at = np.zeros((m, P), dtype=np.int64)  # 0 = never
        self.all_gone_blocked = np.zeros(m, dtype=bool)
        self._rows = np.arange(m)

    def width_at(self, t: int) -> float:
        return self.ctx.beta[t]  # β^p_t: one schedule for every prior

    def mean_sd(self, t: int, available) -> tuple[np.ndarray, np.ndarray]:
        return self.posterior.mean(), self.posterior.sd()  # (m, P, n): every candidate prior

    def argmax(self, score: np.ndarray, sd: np.ndarray, available) -> tuple[np.ndarray, tuple]:
        """(x_t, p_t) = argmax over X_t × U_{t−1} (C5: X_t, not X), ties to the lowest flat index."""
        n = self.posterior.n
        avail = np.broadcast_to(available, (score.shape[0], n))
        flat = masked_argmax(score, self.active[:, :, None] & avail[:, None, :])
        self.p_t, x_t = np.divmod(flat, n)
        return x_t[:, None], (self._rows, self.p_t, x_t)

    def locate(self, action: np.ndarray) -> tuple:
        """An implementation's x_t (as a shadow): p_t = argmax over U_{t−1} of UCB^p_{t−1}(x_t), ties to the lowest
        p, as the joint argmax breaks them."""
        x_t = action[:, 0]
        score = self._score[self._rows, :, x_t]  # (m, P)
        self.p_t = np.argmax(np.where(self.active, score, -np.inf), axis=1)
        return self._rows, self.p_t, x_t

    def choice_values(self, score: np.ndarray) -> np.ndarray:
        """max over the active priors U_{t−1} of U^p_t(x): the value of choosing x in the joint argmax."""
        return np.where(self.active[:, :, None], score, -np.inf).max(axis=1)

    def step_records(self, t, action, mu, sd, score) -> dict[str, np.ndarray]:
        self.w_t = self.ctx.beta[t] * self.sd_t  # frozen before y_t (C8)
        # σ² of every kernel group at x_t, for the chain-rule check of Lemma 5.3 (D4)
        self.var_groups_t = self.posterior.group_var()[self._rows, :, action[:, 0]]
        return {"prior": self.p_t, "w": self.w_t, "n_active": self.active.sum(axis=1),
                "var_groups": self.var_groups_t}

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        r, p = self._rows, self.p_t
        eta = y[:, 0] - self.mu_t
        self.sum_eta[r, p] += eta
        self.sum_w[r, p] += self.w_t
        self.count[r, p] += 1
        fails = np.abs(self.sum_eta[r, p]) > np.sqrt(self.ctx.xi[t] * self.count[r, p]) + self.sum_w[r, p]
        # [PROPOSED] never remove the last active prior (only possible off the good event); log it.
        last = self.active.sum(axis=1) == 1
        self.all_gone_blocked |= fails & last
        remove = fails & ~last
        self.active[r[remove], p[remove]] = False
        self.eliminated_at[r[remove], p[remove]] = t
        self.record.update({"eta": eta, "eliminated": remove, "critical": fails})
        self.posterior.condition_batch(action, y)
        self.posterior.propagate()

    def finish(self) -> dict[str, np.ndarray]:
        return {
            "eliminated_at": self.eliminated_at.copy(),
            "count": self.count.copy(),
            "all_gone_blocked": self.all_gone_blocked.copy(),
        }
