"""The time-varying baselines of paper 001 (Bogunovic, Scarlett, Cevher 2016), for the ε Markov chain:

* **R-GP-UCB**: GP-UCB on the time-invariant posterior whose data are forgotten every N steps,
  N = ⌈min{T, 12 ε^{−1/4}}⌉ (Prop. 4.1) from the true or an assumed ε, or a given N (Fig. 2 d: 68)::

      for t = 1..T:
          if t > 1 and (t − 1) mod N = 0:  D ← ∅              # before x_t is chosen [PROPOSED, ledger R_reset]
          x_t = argmax_x μ_D(x) + √β_t σ_D(x);   D ← D ∪ {(x_t, y_t)}

  Blocks are {1..N}, {N+1..2N}, …; unlike ET-GP-UCB nothing is carried over.
* **TV-GP-UCB**: GP-UCB on the exact posterior of the spatio-temporal kernel k(x,x')(1−ε)^{|t−s|/2} with the true
  or an assumed ε (a Kalman filter on the grid: condition on y_t, then m ← √(1−ε) m, Σ ← (1−ε)Σ + εK), all data.

The study's schedules, when present, give N (``reset_period``) and the told ε (``tv_eps``) — the family computes
them from the scenario; explicit arguments win. Widths √β_t come from the study's schedule of each policy's name.
"""

from __future__ import annotations

import numpy as np

from boundcheck.model.dataspace import make_posterior
from boundcheck.model.priors import GPPrior
from boundcheck.papers.et_gp_ucb.et_gp_ucb import block_posterior
from boundcheck.papers.et_gp_ucb.tv_gp_ucb import OracleTVGPUCB
from boundcheck.papers.et_gp_ucb.world import reset_period
from boundcheck.policies.base import Policy, RunContext
from boundcheck.policies.ucb import UCBPolicy
from boundcheck.utils.validation import check_int, check_unit_interval

__all__ = ["RGPUCB", "RGPUCBAfter", "TVGPUCB", "bogunovic_period"]


#: N = ⌈min{T, 12 ε^{−1/4}}⌉ (Bogunovic et al. 2016, Prop. 4.1); N = T at ε = 0 — the world's one definition
bogunovic_period = reset_period


class RGPUCB(UCBPolicy):
    """R-GP-UCB with a fixed reset period (see the module docstring)."""

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


class TVGPUCB(OracleTVGPUCB):
    """TV-GP-UCB told the true ε (the default) or an assumed one (see the module docstring)."""

    name = "tv_gp_ucb"
    label = "TV-GP-UCB"
    role = "baseline"
    description = "time-varying GP-UCB (Bogunovic et al. 2016): exact posterior of the ε chain with a told ε"
    records = frozenset({"mu", "sigma", "ucb", "width", "eps_told"})

    def __init__(self, eps: float | None = None, name: str = "tv_gp_ucb", label: str = "TV-GP-UCB") -> None:
        self.eps = None if eps is None else check_unit_interval("eps", eps)
        self.name, self.label = name, label

    def start(self, ctx: RunContext) -> None:
        Policy.start(self, ctx)
        model = ctx.candidates[0]
        if self.eps is not None:
            eps = self.eps
        elif "tv_eps" in ctx.schedules:
            eps = float(ctx.schedules["tv_eps"][0])
        else:
            eps = float(ctx.truth.eps)
        if eps != model.eps:
            model = GPPrior(f"{model.name}, told ε = {eps:g}", model.mean, model.K, eps)
        self.eps_told = eps
        self.posterior = make_posterior([model], ctx.noise_var, ctx.runs, max_data=ctx.horizon)
        self.truth_prior = 0
        self.width = ctx.schedule(self.name)
        self._rows = np.arange(ctx.runs)

    def width_at(self, t: int) -> float:
        return self.width[t]  # its own schedule (the oracle's is the study's β)

    def step_records(self, t, action, mu, sd, score) -> dict[str, np.ndarray]:
        return {"eps_told": np.full(self._rows.size, self.eps_told)}
