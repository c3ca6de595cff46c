"""GP-UCB (Srinivas et al. 2010) and IGP-UCB (Chowdhury & Gopalan 2017, Algorithm 1): one rule, two β schedules.

    for t = 1..T:
        x_t = argmax_{x ∈ X_t} μ_{t−1}(x) + β_t σ_{t−1}(x)
        y_t = f(x_t) + ε_t;  update μ_t, σ_t with (2)–(4) and likelihood variance λ

* GP-UCB, Bayesian (Srinivas Theorem 1, finite D): β_t = √(2 log(|D| t² π²/(6δ))), λ = σ² (= R²).
* GP-UCB as the RKHS baseline of paper 004 (Srinivas Theorem 3): β̃_t = √(2B² + 300 γ_{t−1} ln³(t/δ)).
* IGP-UCB: β_t = B + R√(2(γ_{t−1} + 1 + ln(1/δ))), λ = 1 + 2/T in theory (λ = R² in the paper's experiments);
  γ_{t−1} comes from the certified upper γ curve of the study (γ_0 = 0).

The width schedule is the study's ``beta`` when the policy is the theorem's algorithm, else the schedule
named after the policy (``RunContext.schedules``). Ties go to the lowest index.
"""

from __future__ import annotations

import numpy as np

from ..model.dataspace import make_posterior
from .base import RunContext
from .ucb import UCBPolicy


class GPUCB(UCBPolicy):
    provides_posterior = True
    description = "GP upper confidence bound (GP-UCB; IGP-UCB with paper 004's β_t)"
    records = frozenset({"mu", "sigma", "ucb", "width"})
    final_records = frozenset({"mu_final", "var_final"})

    def __init__(self, name: str = "gp_ucb", label: str = "GP-UCB") -> None:
        self.name, self.label = name, label

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        self.posterior = make_posterior(ctx.candidates[:1], ctx.noise_var, ctx.runs, max_data=ctx.max_observations)
        self.truth_prior = 0  # the model is the reference for the truth-side monitors
        self.width = ctx.schedule(self.name)
        self._rows = np.arange(ctx.runs)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition_batch(action, y)

    def finish(self) -> dict[str, np.ndarray]:
        """μ_T and σ²_T on the whole domain (checked against the batch formulas (2)–(4))."""
        return {"mu_final": self.posterior.mean()[:, 0].copy(), "var_final": self.posterior.var()[:, 0].copy()}
