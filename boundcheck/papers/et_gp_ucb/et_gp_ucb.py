"""ET-GP-UCB (event-triggered GP-UCB), Algorithm 1 of Brunzema, von Rohr, Solowjow, Trimpe (2022), in executable
form: the conventions the paper leaves open are fixed here (ledger E25, E_kappa, E36 in theory/et_gp_ucb.py).

Beside the algorithm (:class:`ETGPUCB`, its pseudocode in the class docstring): the trigger's ρ_{t'}
(:func:`trigger_rho`) and the time-invariant block posterior (:func:`block_posterior`), which ET-GP-UCB and
R-GP-UCB share."""

from __future__ import annotations

import math

import numpy as np

from boundcheck.model.dataspace import make_posterior
from boundcheck.model.posterior import Posterior
from boundcheck.model.priors import GPPrior
from boundcheck.policies.base import RunContext
from boundcheck.policies.ucb import UCBPolicy
from boundcheck.utils.validation import check_probability

__all__ = ["ETGPUCB", "trigger_rho", "block_posterior"]

PAPER_DELTA_B = 0.1


def trigger_rho(t_prime: np.ndarray, delta_B: float) -> np.ndarray:
    """ρ_{t'} = 2 log(2π_{t'}/δ_B) = 2 log(π² t'² / (3 δ_B)) (π_{t'} = π²t'²/6), for t' ≥ 1."""
    tp = np.asarray(t_prime, dtype=float)
    return 2.0 * np.log(math.pi**2 * tp**2 / (3.0 * delta_B))


def block_posterior(prior: GPPrior, noise_var: float, runs: int, horizon: int, max_data: int | None = None,
                    representation: str | None = None, typical_data: int | None = None) -> Posterior:
    """The time-invariant posterior of a block of data, with per-run resets (``Posterior.reset(runs)``), built by
    the one factory (:func:`~boundcheck.model.dataspace.make_posterior`), which picks the cheaper representation
    for blocks of at most ``max_data`` (default: the horizon) observations — usually ``typical_data`` — and
    honours the arithmetic mode and :func:`~boundcheck.model.dataspace.use_representation`; ``representation``
    forces one (tests, benchmarks). Data-space buffers are allocated for ``max_data`` once (growing them copies
    every run's state). The model never propagates, so it is time-invariant whatever ε the prior carries (the
    algorithm does not know ε)."""
    cap = int(horizon if max_data is None else max_data)
    return make_posterior([prior], noise_var, runs, max_data=cap, typical_data=typical_data,
                          representation=representation)


class ETGPUCB(UCBPolicy):
    """Event-triggered GP-UCB, Algorithm 1 of Brunzema et al. (2022)::

        D ← ∅;  t_r ← 0                                          # t_r: time of the last reset (0 = none)
        for t = 1..T:
            μ, σ ← time-invariant posterior of D                 # eqs. (5)–(6): no forgetting inside a block
            x_t = argmax_x μ(x) + √β_t σ(x)                      # grid: exact argmax, ties to the lowest index
            y_t = f_t(x_t) + w_t
            t' = t − t_r                                         # time since the previous reset (= t before any)
            ρ_{t'} = 2 log(π² t'² / (3 δ_B))
            ψ_t = |y_t − μ(x_t)|,   κ_t = √ρ_{t'} (σ(x_t) + σ_n)   # PRE-update posterior (eqs. 10–11 simplified)
            if ψ_t > κ_t:                                        # strict
                D ← {(x_t, y_t)};  t_r ← t                       # the reset keeps the triggering point
            else:
                D ← D ∪ {(x_t, y_t)}

    Per step it records what Algorithm 1 computes (t', |D_t|, μ and σ at x_t, ψ_t, κ_t, ρ_{t'}, the reset flag,
    √β_t and the innovation under its own block posterior, ``innov_block`` = (y_t − μ(x_t))/√(σ² + σ_n²): the
    engine's ``innov`` monitor is the innovation under the posterior of the true prior, a different quantity);
    x_t, y_t, f_t(x_t) = y_t − w_t, max f_t and r_t are in the engine's record. The truth-side monitors ``x_star``
    (argmax f_t) and ``f_absmax`` (max|f_t|) let the claims check Lemma 7 at x*_t and compare the bound with the
    trivial 2Σ_t max|f_t|; the algorithm never reads them.

    Where the numbers come from: √β_t is the study's width schedule for this policy (the theorem's β, or the
    practical c₁ log(c₂ t)); ρ_{t'} is the study's ``rho`` schedule when it gives one (computed by the family from
    the theory module with the scenario's δ_B), otherwise :func:`trigger_rho` with ``delta_B`` (default 0.1, the
    paper's). An explicit ``delta_B`` argument always wins. σ_n is the model's noise, √λ."""

    name = "et_gp_ucb"
    label = "ET-GP-UCB"
    role = "baseline"
    description = "event-triggered GP-UCB: time-invariant model, data reset when |y − μ| > √ρ(σ + σ_n)"
    records = frozenset({"t_prime", "n_data", "mu", "sigma", "ucb", "width", "psi", "kappa", "rho", "reset",
                         "innov_block"})
    final_records = frozenset({"n_resets"})
    monitors = frozenset({"x_star", "f_absmax"})

    def __init__(self, delta_B: float | None = None, name: str = "et_gp_ucb", label: str = "ET-GP-UCB",
                 representation: str | None = None) -> None:
        self.delta_B = None if delta_B is None else check_probability("delta_B", delta_B)
        self.name, self.label = name, label
        self.representation = representation  # None: by cost; "grid" / "dataspace" force one (benchmarks, tests)

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        m, T = ctx.runs, ctx.horizon
        self.model = block_posterior(ctx.candidates[0], ctx.noise_var, m, T, representation=self.representation)
        self.sigma_n = math.sqrt(ctx.noise_var)
        self.width = ctx.schedule(self.name)
        tp = np.arange(T + 1, dtype=float)
        tp[0] = 1.0
        if self.delta_B is not None:
            self.rho = trigger_rho(tp, self.delta_B)
        elif "rho" in ctx.schedules:
            self.rho = np.asarray(ctx.schedules["rho"], dtype=float)
        else:
            self.rho = trigger_rho(tp, PAPER_DELTA_B)
        self.t_r = np.zeros(m, dtype=np.int64)
        self.n_resets = np.zeros(m, dtype=np.int64)
        self._rows = np.arange(m)

    def models(self) -> dict[str, object]:
        return {"block": self.model}  # the block posterior is not the posterior of p*: the engine keeps its own

    def mean_sd(self, t: int, available) -> tuple[np.ndarray, np.ndarray]:
        return self.model.mean()[:, 0], self.model.sd()[:, 0]  # the block posterior of D

    def step_records(self, t, action, mu, sd, score) -> dict[str, np.ndarray]:
        return {"n_data": self.model.n_obs.copy(), "t_prime": t - self.t_r}  # μ_t, σ_t at x_t: self.mu_t, self.sd_t

    def truth_monitors(self, t: int, f_t: np.ndarray, action: np.ndarray) -> dict[str, np.ndarray]:
        return {"x_star": np.argmax(f_t, axis=1), "f_absmax": np.abs(f_t).max(axis=1)}

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        y_t = y[:, 0]
        t_prime = t - self.t_r
        rho = self.rho[t_prime]
        kappa = np.sqrt(rho) * (self.sd_t + self.sigma_n)  # from the pre-update posterior
        psi = np.abs(y_t - self.mu_t)
        reset = psi > kappa  # strict
        innov = (y_t - self.mu_t) / np.sqrt(self.sd_t**2 + self.sigma_n**2)
        self.model.reset(reset)  # D ← ∅ for the triggering runs ...
        self.model.condition(action[:, 0], y_t)  # ... then D ← D ∪ {(x_t, y_t)}: the point is kept
        self.t_r[reset] = t
        self.n_resets += reset
        self.record.update({"psi": psi, "kappa": kappa, "rho": rho, "reset": reset, "innov_block": innov})

    def keep_runs(self, keep: np.ndarray) -> bool:
        """Retire finished runs (Table 3 stops each run at its first trigger): the block posterior, t_r and the
        counters of the kept runs are theirs alone, so they go on as in the full batch."""
        if not hasattr(self.model, "keep_runs"):
            return False
        keep = np.asarray(keep, dtype=bool)
        self.model.keep_runs(keep)
        self.t_r, self.n_resets = self.t_r[keep], self.n_resets[keep]
        self._rows = np.arange(int(keep.sum()))
        return True

    def finish(self) -> dict[str, np.ndarray]:
        return {"n_resets": self.n_resets.copy()}
