"""R-GP-UCB of Zhou & Shroff (2021), Algorithm 1 (frequentist, variation budget): IGP-UCB restarted every H rounds,
and the forgetting GP-UCB it shares with SW-GP-UCB (:class:`ForgettingGPUCB`: UCB on the exact posterior of the
retained samples).

The posterior is exact: :func:`~boundcheck.model.dataspace.make_posterior` picks the data-space form (O(H n) per step)
while 2H ≤ |D|, else the grid state (O(|D|²)); both reset."""

from __future__ import annotations

import numpy as np

from boundcheck.errors import BoundcheckError
from boundcheck.model.dataspace import make_posterior
from boundcheck.model.window_posterior import checksum_weights
from boundcheck.policies.base import RunContext
from boundcheck.policies.ucb import UCBPolicy
from boundcheck.utils.validation import check_int

__all__ = ["RestartGPUCB", "ForgettingGPUCB"]


class ForgettingGPUCB(UCBPolicy):
    """UCB on the exact posterior of the retained samples (the shared part of R-GP-UCB and SW-GP-UCB)."""

    provides_posterior = True
    records = frozenset({"mu", "sigma", "ucb", "width", "n_ret", "mu_dot", "var_dot"})
    window_name = "H"
    drops = False  # whether the oldest sample is ever removed (a sliding window) or only everything (restarts)

    def __init__(self, name: str, label: str, H: int | None = None) -> None:
        self.name, self.label = name, label
        self.H = None if H is None else check_int(f"{self.window_name} ({label})", H)

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        window = self.H if self.H is not None else (ctx.window if ctx.window is not None else ctx.horizon)
        if not 1 <= window <= ctx.horizon:
            raise BoundcheckError(f"{self.label}: {self.window_name} = {window} must lie in 1..T = {ctx.horizon}")
        self.window = int(window)
        # the cheaper exact form: data space while the retained data are short, else the grid state (restarts);
        # a sliding window always in data space (the oldest sample leaves by Givens rotations)
        if self.drops:
            self.posterior = make_posterior(ctx.candidates[:1], ctx.noise_var, ctx.runs, window=self.window)
        else:
            self.posterior = make_posterior(ctx.candidates[:1], ctx.noise_var, ctx.runs, max_data=self.window)
        self.truth_prior = 0
        self.beta = ctx.schedule(self.name)
        self._rows = np.arange(ctx.runs)
        self._c = checksum_weights(ctx.candidates[0].n)

    def width_at(self, t: int) -> float:
        return float(self.beta[t])

    def step_records(self, t, action, mu, sd, score) -> dict[str, np.ndarray]:
        return {"n_ret": self.posterior.n_obs.astype(float), "mu_dot": mu @ self._c, "var_dot": sd**2 @ self._c}


class RestartGPUCB(ForgettingGPUCB):
    """R-GP-UCB, Algorithm 1 of Zhou & Shroff (2021), with corrections ZS12 and ZS13 (``theory.r_sw_gp_ucb``)::

        for t = 1..T:
            if (t − 1) mod H = 0: forget every sample (t₀ = t)            # blocks {kH+1, …, min((k+1)H, T)}
            β_t = B + (R/√λ)√(2γ̄_{t−t₀} + 2 ln(N_B/δ))                   # Lemma 1 at δ/N_B (theory default)
            x_t = argmax_{x ∈ X_t} μ_{t−1}(x) + β_t σ_{t−1}(x)            # μ, σ from the samples t₀..t−1 only
            y_t = f_t(x_t) + η_t;  append (x_t, y_t)

    The reset rule is (t − 1) mod H = 0 (ZS13); the initial and after-restart posterior is the prior,
    σ₀ = √k(x,x) (ZS12). H comes from the scenario (``RunContext.window``, Remark (2)) unless given; λ is the
    study's model noise variance (1 or 1 + 2/H); β_t is the study's schedule for this policy's name (the
    theorem's, or the pseudocode's B + R√(2(γ̄ + 1 + ln(1/δ))) for ``r_gp_ucb_zs_pseudocode``). Registered as
    ``r_gp_ucb_zs`` (seed 001's Bayesian R-GP-UCB is a different algorithm).

    The restart is applied at the end of round t when round t + 1 opens a block, so that the state before every
    selection (what the engine's truth-side monitors read) is the posterior the algorithm uses."""

    label = "R-GP-UCB"
    description = "R-GP-UCB (Zhou & Shroff 2021): GP-UCB on the samples since the last restart, every H rounds"

    def __init__(self, name: str = "r_gp_ucb_zs", label: str = "R-GP-UCB", H: int | None = None) -> None:
        super().__init__(name, label, H)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition_batch(action, y)
        if t % self.window == 0:  # round t + 1 opens a block: (t + 1 − 1) mod H = 0
            self.posterior.reset()
