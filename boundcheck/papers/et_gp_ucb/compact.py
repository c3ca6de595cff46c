"""Theorem 1 of paper 001 on the continuum (``et_gp_ucb_compact``): ET-GP-UCB with Theorem 1's β_t on a box X =
[low, high]^d, f_t the ε chain of GP(0, k) feature paths, checked by the continuum engine.

Everything the claims read is recomputed from what was observed — the queried points, the observations, the
located maxima — never the policy's say-so: :func:`recompute_blocks` re-runs Algorithm 1's trigger on an
independent time-invariant posterior (resets, blocks, t', ψ, κ), and the time-varying posterior of the proof
(:class:`~boundcheck.model.continuum.posterior.TimeVaryingPosterior`) is refitted on the recomputed blocks, with
each datum stamped with its time. Assumption 3's constants come from :func:`assumption3_box`; E[τ] from a pilot on
the box (:func:`pilot_first_stop_box`). docs/papers/et_gp_ucb.md, "Theorem 1 on the continuum", has the details.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from boundcheck.claims.families.base import TheoremInstance, real_or_complex
from boundcheck.claims.families.continuum import OPTIMISER_TOL, BoxEvaluator, BoxFamily
from boundcheck.claims.stats import exceeds
from boundcheck.claims.table import ClaimSpec, bound_at_horizon
from boundcheck.errors import BoundcheckError
from boundcheck.model.continuum.gamma import gamma_upper_se
from boundcheck.model.continuum.posterior import TimeVaryingPosterior
from boundcheck.model.noise import draw_noise
from boundcheck.model.sampling import run_streams
from boundcheck.policies.box import BoxContext
from boundcheck.world.assumptions import register_predicate
from boundcheck.world.box_scenario import BoxScenario, is_box

from .et_gp_ucb import PAPER_DELTA_B
from .et_gp_ucb_box import ETGPUCBBox

__all__ = ["assumption3_box", "recompute_blocks", "pilot_first_stop_box", "trigger_halved", "ETCompactEvaluator",
           "ETCompactFamily", "PILOT_RUNS_BOX", "BOOK_TOL"]

PILOT_SEED = 20_220_823  # the finite pilot's seed: independent of every study's runs
PILOT_RUNS_BOX = 32
#: recorded vs recomputed μ, σ, κ (the policy's rank-one Cholesky updates against a fresh solve per step)
BOOK_TOL = 1e-7


# ------------------------------------------------------------------------------------------ Assumption 3
def assumption3_box(scenario: BoxScenario) -> dict[str, float]:
    """Assumption 3's constants on the box for the truth's law, as (ln a₀, b₀, ln a₁, b₁).

    Every f_t of the chain is marginally GP(0, k̂), k̂ the truth's quadrature-feature kernel (the weights advance
    as W' = √(1−ε)W + √εG, which keeps N(0, I)), so one pair serves every t. For a centred continuous Gaussian
    process h on the compact box with s² = sup Var h and m ≥ E sup|h|, Borell–TIS (applied to the process ±h on
    box × {±1}) gives P{sup|h| > m + u} ≤ exp(−u²/(2s²)). For L ≥ 2m, L − m ≥ L/2, so P{sup|h| > L} ≤
    exp(−L²/(8s²)) = exp(−(L/b)²) with b = 2√2 s; for L < 2m the right side a·exp(−(L/b)²) ≥ a·exp(−m²/(2s²)) ≥ 1
    with a = max{1, exp(m²/(2s²))}. Hence P{sup|h| > L} ≤ a e^{−(L/b)²} for every L ≥ 0.

    * (3), h = f: f(x) = Σ_k √w_k (u_k cos θ_k + v_k sin θ_k), u, v i.i.d. N(0, 1), so s² = Σw_k = 1 (to rounding)
      and |f(x)| ≤ Σ_k √w_k √(u_k² + v_k²) for every x, whose mean is m₀ = √(π/2) Σ_k √w_k (E√(u²+v²) = √(π/2)):
      E sup|f| ≤ m₀ (:meth:`QuadratureFeatures.value_tails`).
    * (4), h = ∂f/∂x_j: s² = Σ_k w_k ω_kj², m₁ = √(π/2) Σ_k √w_k |ω_kj| the same way, the maxima over j
      (:meth:`QuadratureFeatures.derivative_tails`).

    ln a is returned (a = e^{m²/(2s²)} overflows a float for moderate m/s). tests/papers/et_gp_ucb/test_compact.py
    checks both tails against Monte Carlo sups that are upper bounds (grid maximum plus the path's Lipschitz slack).
    """
    feats = scenario.features
    v, g = feats.value_tails(), feats.derivative_tails()
    return {"log_a0": float(v.log_a), "b0": float(v.b), "log_a1": float(g.log_a), "b1": float(g.b)}


@register_predicate("box_eps_chain_truth")
def _box_eps_chain_truth(sc) -> tuple[bool, str]:
    """The truth is the ε chain of GP(0, k) paths with the algorithms' own kernel (no scaling, no other ℓ)."""
    if not is_box(sc):
        return False, "the domain is a finite set of points, not a box"
    if sc.rkhs:
        return False, "f is a fixed RKHS function, not a GP sample path"
    if sc.truth_kernel is not None and sc.truth_kernel.lengthscale != sc.kernel.lengthscale:
        return False, (f"f is drawn with lengthscale {sc.truth_kernel.lengthscale:g}, the algorithm's prior has "
                       f"{sc.kernel.lengthscale:g}")
    if sc.truth_scale != 1.0:
        return False, f"f is {sc.truth_scale:g} × a draw of the prior (GP(0, {sc.truth_scale**2:g}k))"
    return True, (f"f_t the ε = {sc.eps:g} chain of GP(0, SE ℓ = {sc.kernel.lengthscale:g}) feature paths, the "
                  "algorithm's kernel")


# ------------------------------------------------------------------------------------------ recomputation
def _se(A: np.ndarray, B: np.ndarray, ell: float) -> np.ndarray:
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)
    return np.exp(-0.5 * d2 / ell**2)


def recompute_blocks(X: np.ndarray, y: np.ndarray, Q: np.ndarray, lengthscale: float, noise_var: float,
                     rho: np.ndarray) -> dict[str, np.ndarray]:
    """Algorithm 1 re-run on the observed data of one run, with its own time-invariant posterior (a fresh
    Cholesky solve per step, independent of the policy's code).

    X (T, d) the queried points, y (T,) the observations, Q (T, q, d) further points per step where μ_{D_t}, σ_{D_t}
    are wanted ([x*_t]_t), ``rho`` (T+1,) the trigger's ρ_{t'} (index t'). Returns per step: ``start`` (0-based index
    of D_t's first datum: D_t = s..t−2), ``n_data``, ``t_prime`` (t − t_r), ``mu``, ``sigma`` at x_t, ``mu_q``,
    ``sigma_q`` (T, q), ``psi``, ``kappa``, ``reset`` (ψ_t > κ_t, strict)."""
    T = y.size
    sn = math.sqrt(noise_var)
    out = {k: np.zeros(T) for k in ("mu", "sigma", "psi", "kappa")}
    out.update(start=np.zeros(T, np.int64), n_data=np.zeros(T, np.int64), t_prime=np.zeros(T, np.int64),
               reset=np.zeros(T, bool), mu_q=np.zeros(Q.shape[:2]), sigma_q=np.zeros(Q.shape[:2]))
    s, t_r = 0, 0
    for t in range(1, T + 1):
        P = np.vstack([X[t - 1:t], Q[t - 1]])
        Xd, yd = X[s:t - 1], y[s:t - 1]
        if Xd.shape[0]:
            L = np.linalg.cholesky(_se(Xd, Xd, lengthscale) + noise_var * np.eye(Xd.shape[0]))
            Kx = _se(Xd, P, lengthscale)
            V = np.linalg.solve(L, Kx)
            w = np.linalg.solve(L, yd)
            mu, var = V.T @ w, np.maximum(1.0 - (V * V).sum(axis=0), 0.0)
        else:
            mu, var = np.zeros(P.shape[0]), np.ones(P.shape[0])
        sd = np.sqrt(var)
        tp = t - t_r
        kappa = math.sqrt(rho[tp]) * (sd[0] + sn)
        psi = abs(y[t - 1] - mu[0])
        reset = psi > kappa
        out["start"][t - 1], out["n_data"][t - 1], out["t_prime"][t - 1] = s, t - 1 - s, tp
        out["mu"][t - 1], out["sigma"][t - 1], out["psi"][t - 1], out["kappa"][t - 1] = mu[0], sd[0], psi, kappa
        out["mu_q"][t - 1], out["sigma_q"][t - 1], out["reset"][t - 1] = mu[1:], sd[1:], reset
        if reset:  # D_{t+1} = {(x_t, y_t)}: the triggering point is kept
            s, t_r = t - 1, t
    return out


def trigger_rho_theory(T: int, delta_B: float) -> np.ndarray:
    """(T+1,) ρ_{t'} = 2 ln(π²t'²/(3δ_B)) for t' = 0..T (index 0 unused) from Lemma 3's theorem (``et_trigger``'s
    schedule ``rho_t``), not from the policy's own code."""
    import theory

    tp = np.arange(T + 1, dtype=float)
    tp[0] = 1.0
    rho = theory.get("et_trigger").schedule_values("rho_t", tp, {"delta": float(delta_B), "T": float(T), "R": 1.0})
    return np.broadcast_to(real_or_complex(rho), tp.shape).copy()


def _discretise(X: np.ndarray, bounds: np.ndarray, n: float) -> np.ndarray:
    """[x]_t: the nearest of the ``n``-per-side cell centres of the box (the engine's D_t, ledger EC1)."""
    n = max(1, int(n))
    lo, hi = bounds[:, 0], bounds[:, 1]
    h = (hi - lo) / n
    return lo + (np.clip(np.floor((X - lo) / h), 0, n - 1) + 0.5) * h


def pilot_first_stop_box(scenario: BoxScenario, width: np.ndarray, runs: int = PILOT_RUNS_BOX,
                         seed: int = PILOT_SEED, chunk: int = 16) -> np.ndarray:
    """First stopping times τ (τ := T without a trigger) of ET-GP-UCB on the box with the study's width, on
    ``runs`` runs of the scenario's chain seeded independently of every study (``seed``): E[τ] for Lemma 4's τ̄
    (ledger E_tau). Each batch stops once all its runs have triggered."""
    from boundcheck.model.continuum.paths import FeaturePaths

    sc, T = scenario, int(scenario.horizon)
    taus = []
    for lo in range(0, runs, chunk):
        ids = list(range(lo, min(runs, lo + chunk)))
        m = len(ids)
        streams = [run_streams(seed, r, 1) for r in ids]
        f_rngs = [s.f for s in streams]
        paths = FeaturePaths.draw(sc.features, f_rngs)
        noise = draw_noise(sc.noise_law, float(sc.noise), [s.noise for s in streams], T)
        pol = ETGPUCBBox(name="pilot")
        pol.start(BoxContext(runs=m, horizon=T, bounds=sc.box.bounds, kernel=sc.kernel, noise_sd=float(sc.noise),
                             noise_var=float(sc.model_noise_var), beta=np.asarray(width, dtype=float),
                             rngs=[s.algorithms[0] for s in streams], delta=float(sc.delta), sobol=sc.sobol,
                             starts=sc.starts, run_ids=tuple(ids)))
        tau, alive = np.full(m, T), np.ones(m, dtype=bool)
        for t in range(1, T + 1):
            if t > 1:
                paths = paths.advance(sc.eps, f_rngs)
            X = np.clip(pol.select(t), sc.box.bounds[:, 0], sc.box.bounds[:, 1])
            y = paths.values(X[:, None, :])[:, 0] + noise[:, t - 1]
            pol.update(t, X, y)
            hit = np.asarray(pol.record["reset"], dtype=bool) & alive
            tau[hit], alive = t, alive & ~hit
            if not alive.any():
                break
        taus.append(tau)
    return np.concatenate(taus)


def trigger_halved(pol) -> None:
    """Planted defect: ET-GP-UCB on the box with its threshold κ_t halved (ρ_{t'} quartered): it resets far too
    often, on noise alone."""
    start = pol.start

    def patched(ctx):
        start(ctx)
        pol.rho = 0.25 * pol.rho

    pol.start = patched


# ------------------------------------------------------------------------------------------ the evaluator
class ETCompactEvaluator(BoxEvaluator):
    """Per-chunk statistics of ``et_gp_ucb_compact`` (module docstring): the box family's, with the block data
    recomputed from the observations and the proof's time-varying posterior refitted on them."""

    def __init__(self, traj, scenario, inst, main) -> None:
        super().__init__(traj, scenario, inst, main)
        sc, T, m = self.sc, self.T, self.m
        self.lam = float(sc.model_noise_var)
        X, y = self.points(), np.asarray(self.alg.y, dtype=float)
        self.X, self.y = X, y
        bounds = sc.box.bounds
        grid_n = inst.schedules["grid_n_t"]
        xs = np.asarray(traj.truth["x_star"], dtype=float)
        self.x_disc = np.stack([_discretise(xs[:, t - 1], bounds, float(grid_n[t])) for t in range(1, T + 1)], axis=1)
        rho = inst.schedules["rho"]
        ell = float(sc.kernel.lengthscale)
        recs = [recompute_blocks(X[r], y[r], self.x_disc[r][:, None, :], ell, self.lam, rho) for r in range(m)]
        self.rec = {k: np.stack([rc[k] for rc in recs]) for k in recs[0]}
        # the proof's UCB step on the recomputed block posterior, with the width the algorithm ran with
        mu_x, sd_x = self.rec["mu"], self.rec["sigma"]
        mu_d, sd_d = self.rec["mu_q"][..., 0], self.rec["sigma_q"][..., 0]
        acq_x = mu_x + self.run_width * sd_x
        self.opt_gap = (mu_d + self.run_width * sd_d) - acq_x
        self.opt_allowed = OPTIMISER_TOL * (1.0 + np.abs(acq_x))
        self.opt_slack = np.clip(np.nan_to_num(self.opt_gap, nan=0.0), 0.0, self.opt_allowed)
        self._tv()

    def _tv(self) -> None:
        """μ̃_{D_t}, σ̃_{D_t} at x_t and [x*_t]_t (the recomputed blocks, each datum stamped with its time)."""
        sc, T, m, d = self.sc, self.T, self.m, self.X.shape[2]
        post = TimeVaryingPosterior(sc.kernel, self.lam, m, d, T, float(sc.eps))
        self.mu_tv, self.sd_tv = np.zeros((m, T)), np.zeros((m, T))
        self.mu_tv_d, self.sd_tv_d = np.zeros((m, T)), np.zeros((m, T))
        reset = self.rec["reset"]
        for t in range(1, T + 1):
            mu, sd = post.at(t).mean_sd(np.stack([self.X[:, t - 1], self.x_disc[:, t - 1]], axis=1))
            self.mu_tv[:, t - 1], self.sd_tv[:, t - 1] = mu[:, 0], sd[:, 0]
            self.mu_tv_d[:, t - 1], self.sd_tv_d[:, t - 1] = mu[:, 1], sd[:, 1]
            if reset[:, t - 1].any():
                post.reset(reset[:, t - 1])
            post.condition(self.X[:, t - 1], self.y[:, t - 1], times=float(t))

    # ------------------------------------------------------------------ recomputed quantities
    @cached_property
    def tau(self) -> np.ndarray:
        """(m,) the first recomputed trigger time (T without one)."""
        r = self.rec["reset"]
        return np.where(r.any(axis=1), r.argmax(axis=1) + 1, self.T)

    @cached_property
    def max_block(self) -> np.ndarray:
        """(m,) the longest recomputed block, in steps (a block: the steps between two resets; a reset step ends
        its block)."""
        out = np.zeros(self.m, np.int64)
        for r in range(self.m):
            ends = np.flatnonzero(self.rec["reset"][r]) + 1
            cuts = np.concatenate([[0], ends, [self.T]])
            out[r] = np.diff(np.unique(cuts)).max()
        return out

    @cached_property
    def r_max(self) -> float:
        """L = b₀√(ln(3Ta₀/δ)): sup_{t,x}|f_t| ≤ L except with probability ≤ δ/3 (Assumption 3 (3), union over t)."""
        v = self.inst.values
        return float(v["b0"] * math.sqrt(math.log(3.0 * self.T / self.inst.delta) + v["log_a0"]))

    @cached_property
    def f_bounded(self) -> np.ndarray:
        """(m,) runs on that event as observed: max f_t + tolerance ≤ L and f_t(x_t) ≥ −L at every t (then every
        r_t ≤ 2L)."""
        L = self.r_max
        return ((self.traj.f_opt + self.tol[:, None] <= L) & (self.f_x >= -L)).all(axis=1)

    @cached_property
    def innov_first(self) -> np.ndarray:
        """(m, T) TV innovations up to the first recomputed trigger (NaN after): exact, since D_t holds all data
        there and {t ≤ τ} is decided at t − 1."""
        u = (self.y - self.mu_tv) / np.sqrt(self.sd_tv**2 + self.lam)
        return np.where(self.t[None] <= self.tau[:, None], u, np.nan)

    # ------------------------------------------------------------------ claims
    def regret_bound(self) -> dict:
        return {"fail": self.regret_upper()[:, -1] > self.inst.bound_T, "premise": self.f_bounded}

    def confidence_at_query(self) -> dict:
        b5 = np.sqrt(self.inst.schedules["beta_lemma5_t"][1:])
        return {"fail": exceeds(np.abs(self.f_x - self.mu_tv), b5[None] * self.sd_tv).any(axis=1)}

    def confidence_at_optimum(self) -> dict:
        """At the located maximiser x̂*_t, where f_t = f_opt exactly (the event is uniform in x: ledger EC7)."""
        thr = self.width[None] * self.sd_tv_d + self.eps_t[None]
        return {"fail": exceeds(np.abs(self.traj.f_opt - self.mu_tv_d), thr).any(axis=1)}

    def lipschitz_t(self) -> dict:
        L = np.asarray(self.inst.schedules["lipschitz_L_t"], dtype=float)[1:]
        truth = self.traj.truth
        if "grad_sup_t" in truth:
            bad = (np.asarray(truth["grad_sup_t"]) > L[None]).any(axis=1)
        elif "grad_sup" in truth:  # a static f: the event at every t is sup|∂f| ≤ min_t L_t = L_1
            bad = np.asarray(truth["grad_sup"]) > L.min()
        else:
            raise BoundcheckError("the engine recorded no certified sup of the derivatives (grad_sup_t)")
        return {"fail": bad}

    def bounded_observations(self) -> dict:
        ybar = np.asarray(self.inst.schedules["ybar_t"], dtype=float)[1:]
        return {"fail": (np.abs(self.y) > ybar[None]).any(axis=1)}

    def stopping_time(self) -> dict:
        return {"fail": self.tau > self.inst.extra["tau_bar4"]}

    def blocks_short(self) -> dict:
        return {"fail": self.max_block > self.inst.extra["tau_bar4"]}

    def algorithm_bookkeeping(self) -> dict:
        """The algorithm's records against the recomputation from the observed data."""
        st, rc = self.alg.steps, self.rec
        mu, sig = np.asarray(st["mu"]), np.asarray(st["sigma"])
        kappa, psi = np.asarray(st["kappa"]), np.asarray(st["psi"])
        bad = np.asarray(st["t_prime"], dtype=np.int64) != rc["t_prime"]
        bad |= np.abs(sig - rc["sigma"]) > BOOK_TOL
        bad |= np.abs(mu - rc["mu"]) > BOOK_TOL * np.maximum(1.0, np.abs(rc["mu"]))
        bad |= np.abs(kappa - rc["kappa"]) > BOOK_TOL * np.maximum(1.0, rc["kappa"])
        bad |= np.abs(psi - rc["psi"]) > BOOK_TOL * np.maximum(1.0, rc["psi"])
        bad |= np.asarray(st["reset"], dtype=bool) != rc["reset"]
        return {"fail": bad.any(axis=1), "premise": np.ones(self.m, bool)}

    def optimiser_gap(self) -> dict:
        """UCB(x_t) ≥ UCB([x*_t]_t) within :data:`OPTIMISER_TOL` on the recomputed block posterior."""
        return {"fail": (self.opt_gap > self.opt_allowed).any(axis=1), "premise": np.ones(self.m, bool)}


def compact_claims(c) -> list[ClaimSpec]:
    """The claim table of ``et_gp_ucb_compact`` (ids as in ``theory.et_gp_ucb``)."""
    E = ETCompactEvaluator
    book = frozenset({"t_prime", "mu", "sigma", "psi", "kappa", "reset"})
    return [
        ClaimSpec(c("regret_bound"), E.regret_bound, bound=bound_at_horizon),
        ClaimSpec(c("confidence_at_query"), E.confidence_at_query),
        ClaimSpec(c("confidence_at_optimum"), E.confidence_at_optimum),
        ClaimSpec(c("lipschitz_event"), E.lipschitz_t),
        ClaimSpec(c("bounded_observations"), E.bounded_observations),
        ClaimSpec(c("stopping_time"), E.stopping_time),
        ClaimSpec(c("blocks_short"), E.blocks_short),
        ClaimSpec(c("algorithm_bookkeeping"), E.algorithm_bookkeeping, book),
        ClaimSpec(c("optimiser_gap"), E.optimiser_gap),
        ClaimSpec(c("K1_calibration"), None, sample="innov"),
    ]


# ------------------------------------------------------------------------------------------ the family
class ETCompactFamily(BoxFamily):
    """``et_gp_ucb_compact`` on a :class:`~boundcheck.world.box_scenario.BoxScenario` (module docstring)."""

    evaluator_class = ETCompactEvaluator
    pilot_runs = PILOT_RUNS_BOX
    SCHEDULES = ("beta_t", "width_t", "beta_confidence_t", "beta_discretisation_t", "lipschitz_L_t", "grid_n_t",
                 "beta_lemma5_t", "ybar_t")

    def __init__(self, theorem) -> None:
        super().__init__(theorem, claims=compact_claims)

    @property
    def schedules_read(self) -> tuple[str, ...]:
        return tuple(n for n in self.SCHEDULES if n in self.theorem.schedules)

    def bound_values(self, scenario: BoxScenario, horizon: int, delta: float) -> dict[str, float]:
        """The symbols the scenario fixes; at ε = 0 also τ̄ = T (no pilot: ledger E_tau), so that where a vacuous
        bound would bite is searched with τ̄ growing with T."""
        out = {"T": float(horizon), "delta": float(delta), "R": float(scenario.noise), "d": float(scenario.box.dim),
               "r": float(scenario.box.r), "eps": float(scenario.eps), **assumption3_box(scenario)}
        if scenario.eps == 0.0:
            out["tau_bar"] = float(horizon)
        return out

    def instantiate(self, scenario: BoxScenario, horizon: int, delta: float, beta_scale: float = 1.0
                    ) -> TheoremInstance:
        th, T = self.theorem, int(horizon)
        values = self.bound_values(scenario, T, delta)
        lam = float(scenario.model_noise_var)
        g_up = np.asarray(gamma_upper_se(scenario.kernel.lengthscale, scenario.box, T, lam), dtype=float)
        t = np.arange(T + 1, dtype=float)
        t[0] = 1.0
        vals = {k: values.get(k, float(T) if k == "tau_bar" else 0.0) for k in th.symbols}
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            sched = {name: np.broadcast_to(real_or_complex(th.schedule_values(name, t, vals)), t.shape).copy()
                     for name in self.schedules_read}
        sched["theory_width"] = sched["width_t"]
        width = sched["theory_width"] * beta_scale
        sched["rho"] = trigger_rho_theory(T, PAPER_DELTA_B)
        if scenario.eps == 0.0:  # E[τ] ≥ T(1 − Σ2Φ̄(√ρ)) ≥ δT (Lemma 3's corollary): τ̄ = T, no pilot (E_tau)
            tau_mean, tau_se, pilot = float(T), 0.0, 0
        else:
            taus = pilot_first_stop_box(scenario, width, runs=self.pilot_runs)
            tau_mean, tau_se, pilot = float(taus.mean()), float(taus.std(ddof=1) / math.sqrt(taus.size)), taus.size
        tau_bar = min(float(T), tau_mean / delta)
        gi = min(T, max(1, math.ceil(tau_bar - 1e-9))) - 1
        values.update(tau_bar=tau_bar, gamma_tau_bar=float(g_up[gi]))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            bound = th.evaluate({k: values[k] for k in th.symbols})
        self.check_instance(bound["terms"], None, T, width, delta, beta_scale, sched)
        C1 = 8.0 / math.log1p(1.0 / lam)
        extra = {"lipschitz_L": float(sched["lipschitz_L_t"][1]), "kernel_error": scenario.kernel_error,
                 "tau_mean": tau_mean, "tau_se": tau_se, "pilot_runs": float(pilot), "tau_bar": tau_bar,
                 "tau_bar4": min(float(T), 4.0 * tau_mean / delta), "C1": C1, "beta_scale": float(beta_scale)}
        return TheoremInstance(
            horizon=T, delta=float(delta), values=values, beta=width, xi=np.zeros(T + 1), B=float("nan"), C=C1,
            bound_T=float(bound["value"]), bound_terms={k: float(v) for k, v in bound["terms"].items()},
            anytime=np.full(T, np.nan), gamma_upper=g_up, gamma_lower=np.zeros(T),
            gamma_methods={"feature Hadamard bound": float(g_up[-1])}, schedules=sched, gamma_used=g_up, extra=extra)

    # ------------------------------------------------------------------ vacuity
    def max_step_regret(self, scenario: BoxScenario, inst: TheoremInstance) -> tuple[float, str] | None:
        v = inst.values
        L = float(v["b0"] * math.sqrt(math.log(3.0 * inst.horizon / inst.delta) + v["log_a0"]))
        return 2.0 * L, (f"while sup_(t,x)|f_t(x)| ≤ L = {L:.4g} = b₀√(ln(3Ta₀/δ)) (Assumption 3 (3) and a union "
                         "over t: probability ≥ 1 − δ/3; ledger EC8)")

    def vacuous_claims(self, scenario: BoxScenario, inst: TheoremInstance) -> dict[str, str]:
        out = super().vacuous_claims(scenario, inst)
        tau4 = inst.extra.get("tau_bar4")
        if tau4 is not None and tau4 >= inst.horizon:  # τ := T without a trigger: nothing exceeds τ̄₄ = T
            for cid in ("stopping_time", "blocks_short"):
                out[cid] = (f"vacuous at these settings: τ̄₄ = min{{T, 4Ê[τ]/δ}} = T = {inst.horizon} (Ê[τ] = "
                            f"{inst.extra.get('tau_mean', float('nan')):.4g}), and no stopping time or block can be "
                            "longer than T")
        return out

    # ------------------------------------------------------------------ reports
    def derived_steps(self, ev: ETCompactEvaluator) -> dict[str, np.ndarray]:
        return {"innov": ev.innov_first}

    def main_diagnostics(self, ev: ETCompactEvaluator) -> dict[str, np.ndarray]:
        R = ev.alg.regret.sum(axis=1)
        r_max, _ = self.max_step_regret(ev.sc, ev.inst)
        return {"regret": R, "tightness": R / ev.inst.bound_T, "max_tolerance": ev.tol,
                "n_resets": ev.rec["reset"].sum(axis=1), "tau_first": ev.tau, "max_block": ev.max_block,
                "bound_over_trivial": np.full(ev.m, ev.inst.bound_T / (r_max * ev.T)),
                "max_abs_y": np.abs(ev.y).max(axis=1)}


