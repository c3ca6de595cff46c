"""R-GP-UCB (Bogunovic, Scarlett, Cevher 2016), paper 001's restarting baseline on the ε Markov chain, with the
two readings of "reset every N". The study's ``reset_period`` schedule, when present, gives N (the family computes
it from the scenario; explicit arguments win); widths √β_t come from the study's schedule of each policy's name."""

from __future__ import annotations

import numpy as np

from boundcheck.papers.et_gp_ucb.et_gp_ucb import block_posterior
from boundcheck.papers.et_gp_ucb.world import reset_period
from boundcheck.policies.base import RunContext
from boundcheck.policies.ucb import UCBPolicy
from boundcheck.utils.validation import check_int, check_unit_interval

__all__ = ["RGPUCB", "RGPUCBAfter", "bogunovic_period"]


#: N = ⌈min{T, 12 ε^{−1/4}}⌉ (Bogunovic et al. 2016, Prop. 4.1); N = T at ε = 0 — the world's one definition
bogunovic_period = reset_period


class RGPUCB(UCBPolicy):
    """R-GP-UCB: GP-UCB on the time-invariant posterior whose data are forgotten every N steps,
    N = ⌈min{T, 12 ε^{−1/4}}⌉ (Prop. 4.1) from the true or an assumed ε, or a given N (Fig. 2 d: 68)::

        for t = 1..T:
            if t > 1 and (t − 1) mod N = 0:  D ← ∅          # before x_t is chosen [PROPOSED, ledger R_reset]
            x_t = argmax_x μ_D(x) + √β_t σ_D(x);   D ← D ∪ {(x_t, y_t)}

    Blocks are {1..N}, {N+1..2N}, …; unlike ET-GP-UCB nothing is carried over."""

    name = "r_gp_ucb_tv"
    label = "R-GP-UCB"
    description = "GP-UCB whose data are forgotten every N steps, N = ⌈min{T, 12ε^{−1/4}}⌉ (Bogunovic et al. 2016)"
    records = frozenset({"n_data", "mu", "sigma", "ucb", "width", "reset", "period"})
    monitors = frozenset({"x_star", "f_absmax"})

    def __init__(self, N: int | None = None, eps: float | None = None, name: str = "r_gp_ucb_tv",
                 label: str = "R-GP-UCB") -> None:
        self.N = None if N is None else check_int("reset period N", N)
        self.eps = None if eps is None else check_unit_interval("eps", eps)
        self.name, self.label = name, label

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        m, T = ctx.runs, ctx.horizon
        if self.N is not None:
            self.period = self.N
        elif self.eps is not None:
            self.period = bogunovic_period(self.eps, T)
        elif "reset_period" in ctx.schedules:
            self.period = int(ctx.schedules["reset_period"][0])
        else:
            self.period = bogunovic_period(float(ctx.truth.eps), T)
        self.model = block_posterior(ctx.candidates[0], ctx.noise_var, m, T, max_data=self.period)
        self.width = ctx.schedule(self.name)
        self._rows = np.arange(m)

    def models(self) -> dict[str, object]:
        return {"block": self.model}  # the block posterior is not the posterior of p*: the engine keeps its own

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        self._reset_now = t > 1 and (t - 1) % self.period == 0
        if self._reset_now:
            self.model.reset()  # before x_t is chosen: the block starts from the prior
        return super().select(t, available)

    def mean_sd(self, t: int, available) -> tuple[np.ndarray, np.ndarray]:
        return self.model.mean()[:, 0], self.model.sd()[:, 0]  # the block posterior of the data since the reset

    def step_records(self, t, action, mu, sd, score) -> dict[str, np.ndarray]:
        m = self._rows.size
        return {"n_data": self.model.n_obs.copy(), "reset": np.full(m, self._reset_now),
                "period": np.full(m, self.period)}

    def truth_monitors(self, t: int, f_t: np.ndarray, action: np.ndarray) -> dict[str, np.ndarray]:
        return {"x_star": np.argmax(f_t, axis=1), "f_absmax": np.abs(f_t).max(axis=1)}

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.model.condition(action[:, 0], y[:, 0])


class RGPUCBAfter(RGPUCB):
    """R-GP-UCB with the other reading of "reset every N" (docs/papers/et_gp_ucb.md): the first point of a block is
    chosen with the old data, and the reset then keeps it (D ← {(x_t, y_t)} at t = kN + 1). Not the algorithm
    of Theorem 2; a baseline that shows how much the convention matters (the block's first choice from a flat
    prior costs about E[max f] per reset)."""

    name = "r_gp_ucb_after"
    label = "R-GP-UCB (reset after the choice)"
    description = "R-GP-UCB whose block starts with the point chosen from the old data (the other reading of the reset)"

    def __init__(self, N: int | None = None, eps: float | None = None, name: str = "r_gp_ucb_after",
                 label: str = "R-GP-UCB (reset after the choice)") -> None:
        super().__init__(N, eps, name, label)

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        self._due = self._reset_now = t > 1 and (t - 1) % self.period == 0  # the reset waits for the update
        return UCBPolicy.select(self, t, available)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        if self._due:
            self.model.reset()
        self.model.condition(action[:, 0], y[:, 0])
