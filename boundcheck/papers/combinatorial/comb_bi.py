"""The independent-Bayesian (BI) baselines of paper 002's experiments (Åkerblom et al. 2023; prior [PROPOSED]):
BI-UCB, BI-BUCB, BI-TS. They ignore the correlations between base arms: outside the theorems."""

from __future__ import annotations

import numpy as np

from boundcheck.papers.combinatorial.comb_gp import min_cost, rectified_mean
from boundcheck.policies.base import Policy, RunContext

__all__ = ["CombBI"]


class CombBI(Policy):
    """Independent Bayesian inference per base arm (BI-UCB / BI-BUCB / BI-TS), prior N(μ(a), k(a, a)), known
    noise ς²::

        σ²_a = (1/k(a,a) + n_a/ς²)⁻¹,   μ_a = σ²_a (μ(a)/k(a,a) + S_a/ς²)     (n_a pulls of a, S_a their sum)
        U_t(a) = μ_a + √β_t σ_a   (UCB, BUCB: the schedule of the name)   or   μ_a + σ_a Z_a, Z_a ~ N(0, 1)  (TS)
        a_t = argmax_{a ∈ 𝒮_t} Σ_{a ∈ a} U_t(a)       (or Algorithm 2's rectified Dijkstra, ``rectify=True``)"""

    name = "comb_bi_ucb"
    label = "BI-UCB"
    description = ("independent-Bayesian per-arm baseline (Åkerblom et al. 2023): ignores correlations; outside "
                   "the theorems")
    records = frozenset({"n_arms"})

    def __init__(self, index: str = "ucb", name: str | None = None, label: str | None = None,
                 rectify: bool = False, rectify_sd: str = "posterior", monitored: bool = True) -> None:
        self.index, self.monitored = index, bool(monitored)  # monitored=False: no engine reference posterior
        self.name = name or {"ucb": "comb_bi_ucb", "bucb": "comb_bi_bucb", "ts": "comb_bi_ts"}[index]
        self.label = label or {"ucb": "BI-UCB", "bucb": "BI-BUCB", "ts": "BI-TS"}[index]
        self.rectify, self.rectify_sd = bool(rectify), rectify_sd

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        prior = ctx.candidates[0]
        self.mu0, self.v0 = prior.mean, np.diag(prior.K).copy()
        self.n = np.zeros((ctx.runs, prior.n))
        self.S = np.zeros((ctx.runs, prior.n))
        self.width = ctx.schedule(self.name)

    def select(self, t: int, available) -> np.ndarray:
        s2 = self.ctx.noise_var
        var = 1.0 / (1.0 / self.v0[None] + self.n / s2)
        mu = var * (self.mu0[None] / self.v0[None] + self.S / s2)
        sd = np.sqrt(var)
        if self.index == "ts":
            score = mu + sd * np.stack([g.standard_normal(mu.shape[1]) for g in self.ctx.rngs])
        else:
            score = mu + self.width[t] * sd
        acts = self.ctx.actions
        if self.rectify:
            s = sd if self.rectify_sd == "posterior" else np.full_like(sd, np.sqrt(s2))
            action = min_cost(acts, rectified_mean(-score, s), available)
        else:
            action = acts.oracle(score, available)
        self.record = {"n_arms": (action >= 0).sum(axis=1)}
        return action

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        rows = np.broadcast_to(np.arange(action.shape[0])[:, None], action.shape)
        ok = action >= 0
        np.add.at(self.n, (rows[ok], action[ok]), 1.0)
        np.add.at(self.S, (rows[ok], action[ok]), y[ok])
