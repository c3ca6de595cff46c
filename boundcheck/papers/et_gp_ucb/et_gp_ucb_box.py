"""ET-GP-UCB on the continuum: Algorithm 1 of Brunzema et al. (2022) with x_t maximised over X = [0, 1]² itself, as
the paper's experiments on [0,1]² do (§5, App. B), instead of over a grid (:mod:`.et_gp_ucb`, the same trigger)."""

from __future__ import annotations

import math

import numpy as np

from boundcheck.policies.box import BoxContext, GPUCBBox
from boundcheck.utils.validation import check_positive, check_probability

from .et_gp_ucb import PAPER_DELTA_B, trigger_rho

__all__ = ["ETGPUCBBox"]


class ETGPUCBBox(GPUCBBox):
    """Event-triggered GP-UCB on the box, Algorithm 1 of Brunzema et al. (2022)::

        D ← ∅;  t_r ← 0
        for t = 1..T:
            x_t = argmax_{x ∈ X} μ_D(x) + √β_t σ_D(x)              # the continuum: multi-start quasi-Newton
            y_t = f_t(x_t) + w_t
            t' = t − t_r;  ρ_{t'} = 2 log(π² t'² / (3 δ_B))
            ψ_t = |y_t − μ_D(x_t)|,  κ_t = √ρ_{t'} (σ_D(x_t) + σ_n)  # the PRE-update posterior
            if ψ_t > κ_t:  D ← {(x_t, y_t)};  t_r ← t                # the reset keeps the triggering point
            else:          D ← D ∪ {(x_t, y_t)}

    √β_t: the paper's practical c₁ log(c₂ t) (Table 4: c₁ = 0.4, c₂ = 4) when ``c1`` is given, else the study's
    width schedule. Records what Algorithm 1 computes (t', ψ_t, κ_t, ρ_{t'}, the reset flag) beside
    :class:`~boundcheck.policies.box.GPUCBBox`'s; ``n_resets`` per run at the end."""

    name = "et_gp_ucb_box"
    label = "ET-GP-UCB"
    description = "event-triggered GP-UCB on the continuum: data reset when |y − μ| > √ρ(σ + σ_n)"
    records = GPUCBBox.records | {"t_prime", "psi", "kappa", "rho", "reset"}
    final_records = frozenset({"n_resets"})

    def __init__(self, delta_B: float = PAPER_DELTA_B, c1: float | None = None, c2: float = 4.0,
                 name: str = "et_gp_ucb_box", label: str = "ET-GP-UCB") -> None:
        super().__init__(name=name, label=label)
        self.delta_B = check_probability("delta_B", delta_B)
        self.c1 = None if c1 is None else check_positive("c1", c1)
        self.c2 = check_positive("c2", c2)

    def width_schedule(self, ctx: BoxContext) -> np.ndarray:
        if self.c1 is None:
            return super().width_schedule(ctx)
        t = np.arange(ctx.horizon + 1, dtype=float)
        t[0] = 1.0
        return np.sqrt(self.c1 * np.log(self.c2 * t))

    def start(self, ctx: BoxContext) -> None:
        super().start(ctx)
        tp = np.arange(ctx.horizon + 1, dtype=float)
        tp[0] = 1.0
        self.rho = trigger_rho(tp, self.delta_B)
        self.sigma_n = math.sqrt(ctx.noise_var)
        self.t_r = np.zeros(ctx.runs, dtype=np.int64)
        self.n_resets = np.zeros(ctx.runs, dtype=np.int64)

    def after_update(self, t: int, X: np.ndarray, y: np.ndarray) -> None:
        mu, sd = self.record["mu"], self.record["sigma"]  # μ_D(x_t), σ_D(x_t) before the update (select's)
        t_prime = t - self.t_r
        rho = self.rho[t_prime]
        kappa = np.sqrt(rho) * (sd + self.sigma_n)
        psi = np.abs(y - mu)
        reset = psi > kappa  # strict
        if reset.any():  # D ← {(x_t, y_t)}: empty the triggering runs' data, then keep the point
            self.posterior.reset(reset)
            self.posterior.condition(X, y, runs=reset)
        self.t_r[reset] = t
        self.n_resets += reset
        self.record.update({"t_prime": t_prime.astype(float), "psi": psi, "kappa": kappa, "rho": rho,
                            "reset": reset.astype(float)})

    def finish(self) -> dict[str, np.ndarray]:
        return {"n_resets": self.n_resets.copy()}
