"""Combinatorial GP-UCB and GP-BUCB of paper 002 (Algorithm 1 with the UCB / Bayes-UCB index): one rule with two
β schedules, which the study gives each by name."""

from __future__ import annotations

import numpy as np

from boundcheck.papers.combinatorial.comb_gp import CombinatorialGP
from boundcheck.policies.base import RunContext
from boundcheck.policies.ucb import UCBPolicy

__all__ = ["CombGPUCB"]


class CombGPUCB(CombinatorialGP, UCBPolicy):
    """Combinatorial GP-UCB / GP-BUCB, the index of Algorithm 1 (:class:`.comb_gp.CombinatorialGP`)::

        U_t(a) = μ_{t−1}(a) + √β_t σ_{t−1}(a)           for every base arm a ∈ 𝒜_t
            GP-UCB:  β_t = 2 log(|𝒜| t² / √(2π))
            GP-BUCB: √β_t = √2 erf⁻¹(1 − 2η_t)           (U_t(a) = Q(1 − η_t, N(μ_{t−1}(a), σ²_{t−1}(a))))
        a_t = argmax_{a ∈ 𝒮_t} Σ_{a ∈ a} U_t(a)         (the exact oracle; Algorithm 2 with ``rectify=True``)

    The width √β_t is the study's schedule of the policy's name (the theorem's own algorithm: its ``beta``)."""

    name = "comb_gp_ucb"
    label = "GP-UCB"
    description = "combinatorial GP-UCB (GP-BUCB with the quantile schedule): exact oracle on Σ μ + √β σ"
    records = frozenset({"width", "n_arms"})

    def __init__(self, name: str = "comb_gp_ucb", label: str = "GP-UCB", **kw) -> None:
        super().__init__(**kw)
        self.name, self.label = name, label

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        self.width = ctx.schedule(self.name)

    def mean_sd(self, t: int, available) -> tuple[np.ndarray, np.ndarray]:
        self.arm_model.begin_round(available)  # 𝒜_t: the round's base arms (contexts: their features)
        return self.arm_model.mean_sd()

    def argmax(self, score: np.ndarray, sd: np.ndarray, available) -> tuple[np.ndarray, None]:
        return self.choose(score, sd, available), None  # a super arm: the exact oracle (or Algorithm 2)

    def step_records(self, t, action, mu, sd, score) -> dict[str, np.ndarray]:
        return {"n_arms": (action >= 0).sum(axis=1)}
