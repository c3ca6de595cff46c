"""Kernelized bandits on a finite domain: GP-UCB (Srinivas et al. 2010, Theorem 1; ``gp_ucb``) and the three
theorems of Chowdhury & Gopalan (2017) (``igp_ucb_confidence``, ``igp_ucb``, ``gp_ts``).

One family class serves the four theorems; each instance holds its theorem and the claim table and width
schedules its paper declares (``boundcheck/papers/srinivas/family.py``, ``boundcheck/papers/igp_ucb_gp_ts/family.py``),
built from the statistics of :class:`KernelEvaluator`: the confidence events from the engine's truth-side monitor
and from one Cholesky factor of K_T + λI per run (every prefix a leading block); deterministic implications;
expectation claims on the algorithm's own draws (GP-TS lemmas, with their range for the anytime-valid test);
calibration of the innovations (GP-UCB) or the standardised draws (GP-TS); and sanity identities (Cauchy–Schwarz,
Lemma 4's arithmetic, Lemma 12's supermartingale), outside the verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property

import numpy as np
import sympy as sp
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.special import ndtr

import theory
from theory import Theorem

from ...errors import BoundcheckError
from ...model.information import gain_increments
from ...world.scenario import Scenario
from ..stats import exceeds
from ..table import ClaimSpec
from .base import ChunkEvaluator, Family, real_or_complex

P_ANTI = float(1.0 / (4.0 * np.e * np.sqrt(np.pi)))  # p of Lemma 8
PHI_BAR_1 = float(ndtr(-1.0))  # P[Z > 1]: the corrected Lemma 7 step (CG4), ≥ p
_TOL_IMPL = 1e-8  # engine vs batch formulas (design: agree to ~1e-8)
STEP_COLUMNS = ("mu", "sigma", "ucb", "width", "sample", "ts_dev")
TS_DRAWS = ("z_draw_fixed", "z_draw_prev", "z_draw_star")  # GP-TS's standardised draws (derived steps columns)


def _prev(curve: np.ndarray) -> np.ndarray:
    """γ_{t−1} aligned with t = 0..T (γ_0 = 0; index 0 unused): [0, 0, γ_1, …, γ_{T−1}]."""
    out = np.zeros(curve.size + 1)
    out[2:] = curve[:-1]
    return out


#: beyond this horizon the claim statistics that factorise the T × T matrix K_T + λI per run (Theorem 1's
#: self-normalised quantities, the realised information gain, the batch formulas (2)–(4) at t = T) are computed
#: on the grid instead: the same numbers by the chain rule, O(n²) per step (:func:`grid_chain`); at T = 30 000
#: the factorisation would hold 7 GB and cost ~10¹³ flops per run. Up to here the pinned results are unchanged
GRID_CLAIMS_HORIZON = 1000


def grid_chain(K: np.ndarray, idx: np.ndarray, y: np.ndarray, noise_var: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """GP(0, K) on a finite domain conditioned in turn on y[:, s] at idx[:, s] (likelihood variance λ =
    ``noise_var``), for every run at once on the grid-state posterior: (v, e, μ_T, σ²_T) with the predictive
    variances v[:, s] = σ²_{s−1}(x_s) + λ and innovations e[:, s] = y_s − μ_{s−1}(x_s) (m, T), and the posterior
    mean and variance after the last step (m, n).

    By the chain rule, with L the Cholesky factor of K_t + λI (K_t = K[x_{1:t}, x_{1:t}]): L_ss = √v_s and
    (L⁻¹y)_s = e_s / √v_s, so every prefix t of log det(K_t + λI) and of yᵀ(K_t + λI)⁻¹y is a cumulative sum,
    and μ_T = k_Tᵀ(K_T + λI)⁻¹y, σ²_T = k − k_Tᵀ(K_T + λI)⁻¹k_T: the data-space quantities at O(n²) per
    step instead of one O(T³) factorisation (tests/papers/igp_ucb_gp_ts/test_long_horizon.py compares both)."""
    from ...model.posterior import BatchedPosterior
    from ...model.priors import GPPrior

    m, T = idx.shape
    n = K.shape[0]
    post = BatchedPosterior([GPPrior("chain", np.zeros(n), K)], noise_var, m)
    rows = np.arange(m)
    v, e = np.empty((m, T)), np.empty((m, T))
    for s in range(T):
        x = idx[:, s]
        v[:, s] = post.group_var()[rows, 0, x] + noise_var
        e[:, s] = y[:, s] - post.mean()[rows, 0, x]
        post.condition(x, y[:, s])
    return v, e, post.mean()[:, 0].copy(), post.var()[:, 0].copy()


def paper_gamma(scenario: Scenario, horizon: int, rates: dict, symbols: dict) -> np.ndarray:
    """The paper's unit-constant rate γ_t, t = 1..T (the paper's §6; ledger CG3): not a certified bound. ``rates``
    (kernel kind -> sympy expression in t) and ``symbols`` (parameter name -> sympy symbol) come from the paper
    that states them (``theory.igp_ucb_gp_ts.PAPER_GAMMA_RATES``), handed to the family by its paper."""
    kind = scenario.gamma_rule.split(":", 1)[1]
    if kind not in rates:
        raise BoundcheckError(f"no paper rate γ_t for {kind!r} (known: {', '.join(rates)})")
    expr = rates[kind].subs({symbols[k]: v for k, v in scenario.gamma_rate_params.items()})
    fn = sp.lambdify(theory.S.t, expr, "numpy")
    t = np.arange(1, horizon + 1, dtype=float)
    return np.broadcast_to(np.asarray(fn(t), dtype=float), t.shape).copy()


class KernelEvaluator(ChunkEvaluator):
    """Per-chunk computations shared by the claims of the four theorems (statistics of the main algorithm)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        sc = self.sc
        self.lam = sc.model_noise_var
        self.eta = 2.0 / self.T
        self.R, self.delta = sc.noise, self.inst.delta
        self.K = sc.candidates[0].K
        self.kappa_ok = sc.candidates[0].kappa <= 1.0 + 1e-12
        self.beta = self.inst.beta[1:]  # the theorem's algorithm's width (scaled)
        self.gamma_cert = self.inst.gamma_upper  # certified γ_t (whatever the schedules used)
        self.tr = self.traj.algorithms[self.main]
        self._cache: dict[str, dict] = {}

    # ---------------------------------------------------------------- data-space factorisations per algorithm
    @property
    def on_grid(self) -> bool:
        """The K_T + λI statistics are computed on the grid (beyond :data:`GRID_CLAIMS_HORIZON`)."""
        return KernelizedFamily.claims_on_grid(self.T)

    @cached_property
    def _grid(self) -> dict[str, dict[str, np.ndarray]]:
        """The grid-state chains behind :meth:`data` and :attr:`_batch` at long horizons, for every algorithm at
        once (one batch: the per-step overhead is paid once): Theorem 1's chain (likelihood variance 1 + η, noise
        ε) for every algorithm; for the checked one also the chain with λ on ε and on f(x_s) (the bias part)."""
        names = list(self.traj.algorithms)
        eps = self.traj.noise[..., 0] if self.traj.noise.ndim == 3 else self.traj.noise
        idx = {a: self.traj.algorithms[a].idx for a in names}
        f_all = self.traj.truth.get("f")
        out: dict[str, dict[str, np.ndarray]] = {a: {} for a in names}
        sn_var = 1.0 + self.eta
        lam_rows = [idx[self.main]] * (2 if f_all is not None else 1)
        lam_y = [eps] + ([np.take_along_axis(f_all, idx[self.main], axis=1)] if f_all is not None else [])
        same = abs(self.lam - sn_var) <= 1e-15 * self.lam  # one chain serves both (λ = 1 + η)
        if same:
            lam_rows = [idx[a] for a in names] + lam_rows[1:]
            lam_y = [eps] * len(names) + lam_y[1:]
        else:
            v, e, _, _ = grid_chain(self.K, np.concatenate([idx[a] for a in names]), np.tile(eps, (len(names), 1)),
                                    sn_var)
            for j, a in enumerate(names):
                out[a]["sn"] = (v[j * self.m:(j + 1) * self.m], e[j * self.m:(j + 1) * self.m])
        v, e, mu, var = grid_chain(self.K, np.concatenate(lam_rows), np.concatenate(lam_y), self.lam)
        m, off = self.m, 0
        if same:
            for j, a in enumerate(names):
                out[a]["sn"] = out[a]["lam"] = (v[j * m:(j + 1) * m], e[j * m:(j + 1) * m])
            off = (names.index(self.main)) * m
            if f_all is not None:
                k = len(names) * m
                out[self.main]["mu_f"] = mu[k:k + m]
        else:
            out[self.main]["lam"] = (v[:m], e[:m])
            if f_all is not None:
                out[self.main]["mu_f"] = mu[m:2 * m]
        out[self.main]["mu_e"], out[self.main]["var"] = mu[off:off + m], var[off:off + m]
        return out

    def _data_grid(self, name: str) -> dict[str, np.ndarray]:
        """:meth:`data` from the grid chains (:func:`grid_chain`): the same quantities by the chain rule. For
        an algorithm other than the checked one only Theorem 1's (``sn_*``), which is all its columns read."""
        g, R, lam = self._grid[name], self.R, self.lam
        e2 = np.cumsum(self.traj.noise.reshape(self.m, self.T) ** 2, axis=1)
        v, e = g["sn"]
        sn_q = e2 - np.cumsum(e**2 / v, axis=1)
        sn_thr = 2 * R**2 * (np.cumsum(0.5 * np.log(v), axis=1) + np.log(1.0 / self.delta))
        out = {"sn_q": sn_q, "sn_thr": sn_thr, "sn_fail": exceeds(sn_q, sn_thr).any(axis=1),
               "sn_ratio": (sn_q / sn_thr).max(axis=1)}
        if "lam" in g:
            v, e = g["lam"]
            gain_dir = np.cumsum(0.5 * np.log(v / lam), axis=1)
            ay_q = e2 - lam * np.cumsum(e**2 / v, axis=1)
            ay_thr = 2 * R**2 * (gain_dir + np.log(1.0 / self.delta))
            out.update({"gain_dir": gain_dir, "ay_q": ay_q, "ay_thr": ay_thr,
                        "ay_fail": exceeds(ay_q, ay_thr).any(axis=1)})
            tr = self.traj.algorithms[name]
            if "sigma" in tr.steps:
                gain_on = np.cumsum(0.5 * np.log1p(tr.steps["sigma"] ** 2 / lam), axis=1)
                out["gain_on"] = gain_on
                out["chain_err"] = (np.abs(gain_on - gain_dir) / np.maximum(1.0, np.abs(gain_dir))).max(axis=1)
        return out

    def data(self, name: str) -> dict[str, np.ndarray]:
        """Per run: realised information gain (direct, every prefix), Theorem 1's and AY's quantities."""
        if name in self._cache:
            return self._cache[name]
        if self.on_grid:
            self._cache[name] = self._data_grid(name)
            return self._cache[name]
        tr, T, m, lam, eta, R = self.traj.algorithms[name], self.T, self.m, self.lam, self.eta, self.R
        eps = self.traj.noise
        gain_dir = np.zeros((m, T))
        sn_q, sn_thr = np.zeros((m, T)), np.zeros((m, T))
        ay_q = np.zeros((m, T))
        log1d = np.log(1.0 / self.delta)
        for i in range(m):
            KX = self.K[np.ix_(tr.idx[i], tr.idx[i])]
            gain_dir[i] = np.cumsum(gain_increments(KX, lam))  # ½ log det(I + K_t/λ), every prefix
            L = cholesky(KX + lam * np.eye(T), lower=True)
            w = solve_triangular(L, eps[i], lower=True)
            e2 = np.cumsum(eps[i] ** 2)
            ay_q[i] = e2 - lam * np.cumsum(w**2)  # ε_{1:t}ᵀK_t(K_t+λI)⁻¹ε_{1:t} = ‖ε‖² − λ‖L_t⁻¹ε‖²
            if abs(lam - (1.0 + eta)) > 1e-15 * lam:
                L = cholesky(KX + (1.0 + eta) * np.eye(T), lower=True)
                w = solve_triangular(L, eps[i], lower=True)
            logd = np.log(np.diag(L))
            # ‖ε‖²_{((K+ηI)⁻¹+I)⁻¹} = εᵀ(K+ηI)(K+(1+η)I)⁻¹ε = ‖ε‖² − ‖L_η⁻¹ε‖²
            sn_q[i] = e2 - np.cumsum(w**2)
            sn_thr[i] = 2 * R**2 * (np.cumsum(logd) + log1d)  # 2R² ln(√det((1+η)I+K_t)/δ)
        ay_thr = 2 * R**2 * (gain_dir + log1d)
        out = {"gain_dir": gain_dir, "sn_q": sn_q, "sn_thr": sn_thr, "sn_fail": exceeds(sn_q, sn_thr).any(axis=1),
               "sn_ratio": (sn_q / sn_thr).max(axis=1), "ay_q": ay_q, "ay_thr": ay_thr,
               "ay_fail": exceeds(ay_q, ay_thr).any(axis=1)}
        if "sigma" in tr.steps:
            gain_on = np.cumsum(0.5 * np.log1p(tr.steps["sigma"] ** 2 / lam), axis=1)
            out["gain_on"] = gain_on
            out["chain_err"] = (np.abs(gain_on - gain_dir) / np.maximum(1.0, np.abs(gain_dir))).max(axis=1)
        self._cache[name] = out
        return out

    def conf_fail(self, name: str) -> np.ndarray | None:
        tr = self.traj.algorithms[name]
        if "z_all" not in tr.monitors:
            return None
        return (tr.monitors["z_all"] > self.beta[None]).any(axis=1)

    # ---------------------------------------------------------------- shared pieces of the UCB claims
    @cached_property
    def optimism(self) -> tuple[np.ndarray, np.ndarray]:
        """(ok, E): the confidence event at each step, and at every step."""
        ok = self.tr.monitors["z_all"] <= self.beta[None]
        return ok, ok.all(axis=1)

    @cached_property
    def rt(self) -> np.ndarray:
        return np.cumsum(self.tr.regret, axis=1)

    # ---------------------------------------------------------------- claim statistics
    def regret_bound(self) -> dict:
        return {"fail": self.rt[:, -1] > self.inst.bound_T, "premise": self.norm_ok}

    def regret_bound_anytime(self) -> dict:
        return {"fail": (self.rt > self.inst.anytime[None]).any(axis=1), "premise": self.norm_ok}

    @cached_property
    def norm_ok(self) -> np.ndarray:
        """Runs whose f has ‖f‖_k ≤ B exactly (so |f| ≤ B√κ); GP samples (no norm) count as not known."""
        norms = self.traj.truth.get("rkhs_norm", np.full(self.m, np.nan))
        B = np.inf if self.sc.B is None else float(self.sc.B)
        with np.errstate(invalid="ignore"):
            return np.isfinite(norms) & (norms <= B * (1 + 1e-9))

    def confidence_event(self) -> dict:
        """|f − μ_{t−1}| ≤ width_t σ_{t−1} everywhere, for every t (Lemma 5.1 / Theorem 2 / Lemma 6)."""
        return {"fail": self.conf_fail(self.main)}

    def confidence_data_dependent(self) -> dict:
        """General-λ data-dependent width (Theorem 2's proof) with λ₀ = λ/(1+η), η = 2/T, at t = 1..T (uses K_{t−1})."""
        d = self.data(self.main)
        g_prev = np.concatenate([np.zeros((self.m, 1)), d["gain_dir"][:, :-1]], axis=1)  # ½ log det(I+K_{t−1}/λ)
        w = self.sc.B + self.R / np.sqrt(self.lam) * np.sqrt(
            2 * g_prev + (self.t[None] - 1) * np.log1p(self.eta) + 2 * np.log(1 / self.delta))
        return {"fail": (self.tr.monitors["z_all"] > w).any(axis=1)}

    def self_normalized(self) -> dict:
        return {"fail": self.data(self.main)["sn_fail"]}

    def self_normalized_ay(self) -> dict:
        return {"fail": self.data(self.main)["ay_fail"]}

    def information(self) -> dict:
        """Lemma 3: the chain rule between the algorithm's σ_{s−1}(x_s) and the queried points' Gram matrix with
        the scenario's λ (1e−8), and 0 ≤ realised gain ≤ certified γ_t."""
        d = self.data(self.main)
        g = d["gain_on"]
        bad = d["chain_err"] > _TOL_IMPL
        bad |= (d["gain_dir"] < -1e-12).any(axis=1) | exceeds(d["gain_dir"], self.gamma_cert[None]).any(axis=1)
        bad |= (g < -1e-12).any(axis=1)
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def lemma4(self) -> dict:
        """Lemma 4's arithmetic on the algorithm's σ (sanity identity; σ² ≤ k ≤ 1 needed: the premise)."""
        d, lam = self.data(self.main), self.lam
        sig = self.tr.steps["sigma"]
        S1, S2 = np.cumsum(sig, axis=1), np.cumsum(sig**2, axis=1)
        g = d["gain_on"]
        bad = exceeds(S1, np.sqrt(self.t[None] * S2)).any(axis=1)
        bad |= exceeds(S2, 2 * g / np.log1p(1 / lam)).any(axis=1)
        if lam >= 1.0:
            bad |= exceeds(S1, np.sqrt(4 * self.t[None] * lam * np.maximum(g, self.gamma_cert[None]))).any(axis=1)
        return {"fail": bad & self.kappa_ok, "premise": np.full(self.m, self.kappa_ok)}

    @cached_property
    def _batch(self) -> dict[str, np.ndarray]:
        """At t = T, per run, from the batch formulas (2)–(4) with the scenario's λ (independent of the
        algorithm's posterior): the bias and noise parts of μ_T and σ_T."""
        tr, lam, T = self.tr, self.lam, self.T
        f_all = self.traj.truth.get("f")
        n = self.K.shape[0]
        out = {k: np.full((self.m, n), np.nan) for k in ("mu_f", "mu_e", "var")}
        if f_all is None:
            return out
        if self.on_grid:
            g = self._grid[self.main]
            return {"mu_f": g["mu_f"], "mu_e": g["mu_e"], "var": np.maximum(g["var"], 0.0)}
        kdiag = np.diag(self.K)
        for i in range(self.m):
            X = tr.idx[i]
            Kdx = self.K[:, X]
            c = (cholesky(self.K[np.ix_(X, X)] + lam * np.eye(T), lower=True), True)
            out["mu_f"][i] = Kdx @ cho_solve(c, f_all[i, X])
            out["mu_e"][i] = Kdx @ cho_solve(c, self.traj.noise[i])
            out["var"][i] = np.maximum(kdiag - np.einsum("nt,tn->n", Kdx, cho_solve(c, Kdx.T)), 0.0)
        return out

    def decomposition(self) -> dict:
        """At t = T, per run: the algorithm's μ_T, σ²_T against the batch formulas (2)–(4), and the bias part
        |f − k_Tᵀ(K_T+λI)⁻¹f_{1:T}| ≤ ‖f‖_k σ_T with the truth's stated exact norm. Premise: f known per run."""
        tr = self.tr
        f_all = self.traj.truth.get("f")
        norms = self.traj.truth.get("rkhs_norm", np.full(self.m, np.nan))
        if f_all is None or "mu_final" not in tr.final:
            return {"fail": np.zeros(self.m, bool), "premise": np.zeros(self.m, bool)}
        b = self._batch
        scale = np.maximum(1.0, np.abs(tr.final["mu_final"]).max(axis=1))
        bad = np.abs(b["mu_f"] + b["mu_e"] - tr.final["mu_final"]).max(axis=1) > _TOL_IMPL * scale
        bad |= np.abs(b["var"] - tr.final["var_final"]).max(axis=1) > _TOL_IMPL
        sd = np.sqrt(b["var"])
        ok_norm = np.isfinite(norms)
        bias = exceeds(np.abs(f_all - b["mu_f"]), np.where(ok_norm, norms, np.inf)[:, None] * sd).any(axis=1)
        return {"fail": bad | (bias & ok_norm), "premise": np.ones(self.m, bool)}

    def noise_cauchy_schwarz(self) -> dict:
        """|k_T(x)ᵀ(K_T+λI)⁻¹ε| ≤ λ^{−1/2}σ_T(x)√(εᵀK_T(K_T+λI)⁻¹ε) (sanity identity)."""
        if self.traj.truth.get("f") is None:
            return {"fail": np.zeros(self.m, bool), "premise": np.zeros(self.m, bool)}
        b = self._batch
        ay_T = np.maximum(self.data(self.main)["ay_q"][:, -1], 0.0)
        bad = exceeds(np.abs(b["mu_e"]), np.sqrt(b["var"]) * np.sqrt(ay_T / self.lam)[:, None]).any(axis=1)
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def ucb_optimism(self) -> dict:
        """On the confidence event at step t: UCB_{t−1}(x_t) ≥ max f and r_t ≤ 2 width_t σ_{t−1}(x_t)."""
        tr, w = self.tr, self.beta
        ok, _ = self.optimism
        sig, r = tr.steps["sigma"], tr.regret
        d1 = (ok & (exceeds(self.traj.f_opt, tr.steps["ucb"]) | exceeds(r, 2 * w[None] * sig))).any(axis=1)
        return {"fail": d1, "premise": ok.any(axis=1)}

    def srinivas_intermediate(self) -> dict:
        """GP-UCB on the confidence event: R_t ≤ √(tΣr²) ≤ √(C₁tβ_t·gain_t) chain (Lemma 5.4, Cauchy–Schwarz)."""
        tr, w = self.tr, self.beta
        _, E = self.optimism
        sig, r = tr.steps["sigma"], tr.regret
        g = self.data(self.main)["gain_on"]
        Rt, r2 = self.rt, np.cumsum(r**2, axis=1)
        wsig = np.cumsum(w[None] ** 2 * sig**2, axis=1)
        S2 = np.cumsum(sig**2, axis=1)
        C1 = 8.0 / np.log1p(1.0 / self.lam)
        d2 = (exceeds(Rt, np.sqrt(self.t[None] * r2)) | exceeds(r2, 4 * wsig) | exceeds(wsig, w[None] ** 2 * S2)
              | exceeds(S2, 2 * g / np.log1p(1.0 / self.lam))
              | exceeds(Rt, np.sqrt(C1 * self.t[None] * w[None] ** 2 * g))).any(axis=1)
        return {"fail": E & d2 & self.kappa_ok, "premise": E & self.kappa_ok}

    def igp_intermediate(self) -> dict:
        """IGP-UCB on the confidence event: R_t ≤ 2Σβσ ≤ 2β_tΣσ ≤ 2β_t√(tΣσ²) ≤ 2β_t√(2t·gain_t/ln(1+1/λ))."""
        tr, w = self.tr, self.beta
        _, E = self.optimism
        sig = tr.steps["sigma"]
        wsum = 2 * np.cumsum(w[None] * sig, axis=1)
        S1, S2 = np.cumsum(sig, axis=1), np.cumsum(sig**2, axis=1)
        d2 = (exceeds(self.rt, wsum) | exceeds(wsum, 2 * w[None] * S1)
              | exceeds(S1, np.sqrt(self.t[None] * S2))
              | exceeds(S2, 2 * self.data(self.main)["gain_on"] / np.log1p(1.0 / self.lam))).any(axis=1)
        return {"fail": E & d2 & self.kappa_ok, "premise": E & self.kappa_ok}

    # ---------------------------------------------------------------- GP-TS (Lemmas 5–13), on the draws made
    @cached_property
    def ts(self) -> dict[str, np.ndarray]:
        v = self.beta  # the theorem's v_t (scaled with --beta-scale, like the algorithm's)
        ctil = self.inst.schedules["gp_ts_ctilde"][1:]
        ef = self.tr.monitors["z_all"] <= v[None]  # E^f(t)
        eft = self.tr.steps["draw_dev"] / v[None] <= ctil[None]  # E^{f_t}(t), on the draw with the theorem's v_t
        return {"v": v, "ctil": ctil, "c": v * (1.0 + ctil), "ef": ef, "eft": eft, "late": self.t >= 5}

    def ts_draws(self) -> dict[str, np.ndarray]:
        """(m, T) standardised draws (f_t(x) − μ_{t−1}(x)) / (v_t σ_{t−1}(x)) at x° and at x_{t−1}."""
        st, mon, v = self.tr.steps, self.tr.monitors, self.beta[None]
        with np.errstate(invalid="ignore", divide="ignore"):
            return {"z_draw_fixed": (st["draw_fixed"] - st["mu_fixed"]) / (v * st["sigma_fixed"]),
                    "z_draw_prev": (st["draw_prev"] - st["mu_prev"]) / (v * st["sigma_prev"]),
                    "z_draw_star": (mon["draw_star"] - mon["mu_star"]) / (v * mon["sigma_star"])}

    def ts_confidence_event(self) -> dict:
        # E^f(t) for every t, from z_all alone (the same test as ts["ef"], which also needs the TS records)
        return {"fail": ~(self.tr.monitors["z_all"] <= self.beta[None]).all(axis=1)}

    def ts_sample_concentration(self) -> dict:
        basel = float(np.sum(1.0 / self.t**2))
        return {"value": (~self.ts["eft"]).sum(axis=1) - basel, "lo": np.full(self.m, -basel),
                "hi": np.full(self.m, self.T - basel)}

    def ts_anticoncentration(self) -> dict:
        """Σ_t w_t 1{E^f(t)}(Φ̄(1) − 1{f_t(x*) > f(x*)}) / Σ_t w_t, w_t = 1/t: mean ≤ 0 when the draws have the
        right law (any fixed weights are valid; 1/t weighs the steps where σ_{t−1}(x*) is still large)."""
        ts = self.ts
        hit = self.tr.monitors["anti_hit"].astype(bool)
        w = 1.0 / self.t
        val = (ts["ef"] * (PHI_BAR_1 - hit) * w[None]).sum(axis=1) / w.sum()
        return {"value": val, "lo": np.full(self.m, -1.0), "hi": np.full(self.m, PHI_BAR_1)}

    def ts_supermartingale(self) -> dict:
        """Y_T ≤ 0 in every run (sanity identity)."""
        ts, t, B = self.ts, self.t, float(self.sc.B)
        r, sig = self.tr.regret, self.tr.steps["sigma"]
        Y = (ts["late"][None] * (r * ts["ef"] - 11 * ts["c"][None] / P_ANTI * sig - 2 * B / t[None] ** 2)).sum(axis=1)
        return {"fail": exceeds(Y, 0.0), "premise": np.ones(self.m, bool)}

    def ts_triangle(self) -> dict:
        """On E^f ∩ E^{f_t}: |f_t − f| ≤ c_t σ_{t−1} everywhere (sanity identity)."""
        ts = self.ts
        both = ts["ef"] & ts["eft"]
        c = np.broadcast_to(ts["c"][None], both.shape)
        return {"fail": (both & exceeds(self.tr.monitors["fdev"], c)).any(axis=1), "premise": both.any(axis=1)}

    def ts_step(self) -> dict:
        """On E^f ∩ E^{f_t}: r_t ≤ c_t(2σ(x̄_t) + σ(x_t)) (needs x_t = argmax of the draw)."""
        ts = self.ts
        both = ts["ef"] & ts["eft"]
        d2 = both & exceeds(self.tr.regret, self.tr.monitors["lemma10_rhs"])
        return {"fail": d2.any(axis=1), "premise": both.any(axis=1)}


#: records of the claims that read the algorithm's σ_{t−1}(x_t) (information, Lemma 4)
INFO_NEEDS = frozenset({"sigma"})
#: records of the UCB claims (optimism, the intermediate regret chains)
UCB_NEEDS = frozenset({"z_all", "sigma", "ucb"})
#: GP-TS's draw records (the sample-calibration claim's columns are derived from them)
TS_DRAW_RECORDS = frozenset({"draw_fixed", "mu_fixed", "sigma_fixed", "draw_prev", "mu_prev", "sigma_prev",
                             "draw_star", "mu_star", "sigma_star"})

ClaimTable = Callable[[Callable[[str], object]], Sequence[ClaimSpec]]
#: policy name -> the schedule it runs with: a schedule's name (read from the theorem the family holds) or
#: (theorem, name) (a baseline's width, from the theorem of the paper that states it)
Schedules = Mapping[str, "str | tuple[Theorem, str]"]


class KernelizedFamily(Family):
    """The family of one kernelized theorem. What differs between the theorems is declared, never looked up by
    the theorem's id: the paper's family module hands over the claim table and the width schedules, and the
    theorem itself says the rest (an RKHS norm bound ``B`` among its symbols: a frequentist theorem; a
    ``regret_bound`` claim; claims that read GP-TS's draws)."""

    evaluator_class = KernelEvaluator
    step_columns = STEP_COLUMNS

    def __init__(self, theorem: Theorem, claims: ClaimTable, schedules: Schedules,
                 gamma_rates: tuple[dict, dict] | None = None) -> None:
        """Parameters
        ----------
        theorem : Theorem
            The theorem checked.
        claims : callable
            ``claims(theorem.claim)``: the claim table (:class:`ClaimSpec` in the order of the theorem's claims),
            built from :class:`KernelEvaluator`'s statistics.
        schedules : mapping
            Policy name -> the (T+1,) schedule it runs with (t = 0..T, t[0] = 1; a schedule in ``S.gamma_tm1``
            gets γ_{t−1}). A name, e.g. ``"width_t"``: that schedule *of the theorem the family holds*, which for a
            theorem of your own checked like this one is yours; the theorem's own algorithm's entry must be one
            (it becomes the study's ``beta``), and so must every schedule a claim reads (GP-TS's c̃_t,
            ``"gp_ts_ctilde"``). A pair (theorem, name): a baseline's width, as the paper that states it gives
            it (Srinivas et al.'s β_t for the GP-UCB run beside IGP-UCB), whatever the theorem checked says.
            The names are :attr:`schedules_read`: what a theorem checked like this one must define.
        gamma_rates : tuple, optional
            (rates, symbols) of the paper's own rate γ_t, for scenarios in its replication mode
            (``gamma_rule = "paper:<kind>"``); None where the paper states none (certified γ only)."""
        if callable(schedules) or not isinstance(schedules, Mapping):
            raise TypeError(f"family of {theorem.id}: schedules is a mapping policy name -> schedule name (read "
                            "from the theorem checked) or (theorem, schedule name) (a baseline's); a function of "
                            "the values is no longer taken, since it could read the paper's module instead of the "
                            "theorem checked")
        if not isinstance(schedules.get(theorem.algorithm), str):
            raise TypeError(f"family of {theorem.id}: the width of its algorithm {theorem.algorithm!r} must be a "
                            "schedule of the theorem checked (a name, not a (theorem, name) pair)")
        self._claims_of, self._schedules_of = claims, dict(schedules)
        super().__init__(theorem)
        self.gamma_rates = gamma_rates
        ids = {c.id for c in self.claims}
        #: the theorem bounds |f| through ‖f‖_k ≤ B (a frequentist theorem: Theorem 1's self-normalised bound and
        #: the confidence events hold for any predictable query rule, and every r_t ≤ 2B√κ)
        self.rkhs = "B" in theorem.symbols
        #: the theorem bounds the regret (else it is a confidence statement: its tightness is max z/width)
        self.bounds_regret = "regret_bound" in ids
        #: the claims read GP-TS's draws (its diagnostics and the standardised draws of the calibration claim)
        self.reads_draws = any("draw_dev" in c.needs for c in self.claims)

    def claim_table(self) -> list[ClaimSpec]:
        return list(self._claims_of(self.theorem.claim))

    @property
    def schedules_read(self) -> tuple[str, ...]:
        """The schedules named in the family's mapping, and the constants B and C the base instantiation reads
        where the theorem states them (the RKHS norm bound of paper 004's theorems, reported with the bound)."""
        named = (v for v in self._schedules_of.values() if isinstance(v, str))
        return tuple(dict.fromkeys([*named, *(c for c in ("B", "C") if c in self.theorem.schedules)]))

    @staticmethod
    def claims_on_grid(horizon: int) -> bool:
        """Whether the claims at ``horizon`` are computed from grid chains instead of T × T factorisations
        (:data:`GRID_CLAIMS_HORIZON`; the memory estimate asks)."""
        return int(horizon) > GRID_CLAIMS_HORIZON

    # ------------------------------------------------------------------------------ instantiation
    def bound_values(self, scenario: Scenario, horizon: int, delta: float) -> dict[str, float]:
        values = {"T": float(horizon), "delta": float(delta), "R": scenario.noise, "n_X": float(scenario.domain.n)}
        if "B" in self.theorem.symbols:
            if scenario.B is None:
                raise BoundcheckError(f"scenario {scenario.name!r} gives no RKHS norm bound B: "
                                      f"{self.theorem.id} needs one (pick an RKHS scenario)")
            values["B"] = float(scenario.B)
        return values

    def gamma_groups(self, scenario: Scenario) -> dict[str, tuple[np.ndarray, float]]:
        model = scenario.candidates[0]
        return {model.kernel_key: (model.K, model.eps)}

    def gamma_noise_var(self, scenario: Scenario) -> float:
        """γ uses the same likelihood variance as the posterior: λ (= R² for Srinivas, 1 + 2/T for 004 theory)."""
        return scenario.model_noise_var

    def gamma_used(self, scenario: Scenario, gamma_upper: np.ndarray) -> np.ndarray:
        if scenario.gamma_rule == "certified":
            return gamma_upper
        if self.gamma_rates is None:
            raise BoundcheckError(f"{self.theorem.id}: the scenario asks for the paper's rate γ_t "
                                  f"({scenario.gamma_rule}), and this theorem's paper states none")
        return paper_gamma(scenario, gamma_upper.size, *self.gamma_rates)

    def schedules(self, scenario: Scenario, values: dict, gamma_used: np.ndarray) -> dict[str, np.ndarray]:
        T = int(values["T"])
        t = np.arange(T + 1, dtype=float)
        t[0] = 1.0
        gprev = _prev(gamma_used)

        def full(x):  # complex kept: refused by the instance's check, not truncated by numpy
            return np.broadcast_to(real_or_complex(x), t.shape).copy()

        sched = {}
        for policy, source in self._schedules_of.items():
            # a name: the theorem held (a theorem of your own, under CheckedAs); a pair: a baseline's paper's
            th, name = (self.theorem, source) if isinstance(source, str) else source
            sched[policy] = full(th.schedule_values(name, t, values, gprev))
        sched["beta"] = sched.pop(self.main)  # the theorem's algorithm uses the (scaled) study β
        return sched

    # ------------------------------------------------------------------------------ per-run columns
    def _common(self, ev: KernelEvaluator) -> dict[str, np.ndarray]:
        tr = ev.traj.truth
        return {"rkhs_norm": tr.get("rkhs_norm", np.full(ev.m, np.nan)),
                "B": np.full(ev.m, np.nan if ev.sc.B is None else float(ev.sc.B)),
                "model_noise_var": np.full(ev.m, ev.lam)}

    def main_diagnostics(self, ev: KernelEvaluator) -> dict[str, np.ndarray]:
        d, w = ev.data(ev.main), ev.beta
        z = ev.tr.monitors.get("z_all", np.full((ev.m, ev.T), np.nan))
        out = self._common(ev)
        if not self.bounds_regret:  # a confidence theorem: its tightness is how close z comes to the width
            ratio = (z / w[None]).max(axis=1)
            out.update({"regret": ev.tr.regret.sum(axis=1), "tightness": ratio, "max_z_over_width": ratio,
                        "max_self_normalized_ratio": d["sn_ratio"]})
        else:
            Rt = ev.rt
            with np.errstate(divide="ignore", invalid="ignore"):  # a paper's rate γ_1 = 0 makes Bound(1) = 0
                anytime_ratio = (Rt / ev.inst.anytime[None]).max(axis=1)
            out.update({"regret": Rt[:, -1], "tightness": Rt[:, -1] / ev.inst.bound_T,
                        "max_anytime_ratio": anytime_ratio, "max_z_over_width": (z / w[None]).max(axis=1)})
        if self.reads_draws and "draw_dev" in ev.tr.steps and "unsaturated" in ev.tr.monitors:
            out["n_sample_event_failures"] = (~ev.ts["eft"]).sum(axis=1)
            out["frac_unsaturated"] = ev.tr.monitors["unsaturated"].astype(bool).mean(axis=1)
            if "anti_hit" in ev.tr.monitors:
                out["frac_anti_hit"] = ev.tr.monitors["anti_hit"].astype(bool).mean(axis=1)
        if "gain_on" in d:  # the policy reports σ_{t−1}(x_t) (user policies may not)
            out.update({"realised_gain": d["gain_on"][:, -1], "chain_rule_rel_err": d["chain_err"]})
        return out

    def max_step_regret(self, scenario: Scenario, inst) -> tuple[float, str] | None:
        """Frequentist theorems: |f(x)| ≤ ‖f‖_k √k(x,x) ≤ B√κ, so r_t ≤ 2B√κ whenever ‖f‖_k ≤ B."""
        if scenario.B is None or not self.rkhs:
            return None
        kappa = float(scenario.candidates[0].kappa)
        return 2.0 * float(scenario.B) * np.sqrt(kappa), "since |f(x)| ≤ ‖f‖_k √k(x,x) ≤ B√κ"

    def derived_steps(self, ev: KernelEvaluator) -> dict[str, np.ndarray]:
        if not self.reads_draws:
            return {}
        st, mon = ev.tr.steps, ev.tr.monitors
        have = {k for k in ("draw_fixed", "mu_fixed", "sigma_fixed", "draw_prev", "mu_prev", "sigma_prev") if k in st}
        have |= {k for k in ("draw_star", "mu_star", "sigma_star") if k in mon}
        return ev.ts_draws() if len(have) == 9 else {}  # a user GP-TS without the draw records: claim not applicable

    def baseline_columns(self, ev: KernelEvaluator, name: str) -> dict[str, np.ndarray]:
        d = {**super().baseline_columns(ev, name), **self._common(ev)}
        conf = ev.conf_fail(name)
        if conf is not None:  # the confidence events hold for any predictable query rule: free extra checks
            d["fail_confidence_event"] = conf
        if self.rkhs:  # Theorem 1 holds for any predictable x_t (random search too)
            d["fail_self_normalized"] = ev.data(name)["sn_fail"]
        return d


