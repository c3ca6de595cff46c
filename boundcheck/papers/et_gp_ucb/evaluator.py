"""Paper 001's independent recomputation (what :mod:`.family`'s claims read): for every run and step, the data
set D_t is the last |D_t| observations (the algorithm's ``n_data`` record), and :func:`block_quantities` refits
both posteriors of the proof on it from scratch, one Cholesky factor per block of steps that share their data's
first step (the data of step t are a prefix of the block's data, and prefixes of a triangular solve are the solves
of the prefixes). :class:`TVEvaluator` turns them, per chunk of runs, into the statistics of the four theorems'
claims. Split from the family module, which builds the theorem instances and the claim tables."""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np
from scipy.linalg import cholesky, solve_triangular

from boundcheck.claims.families.base import ChunkEvaluator
from boundcheck.claims.stats import exceeds
from boundcheck.claims.stats import (
    stats as _scipy_stats,  # scipy.stats's values without importing it (boundcheck.utils.laws)
)
from boundcheck.errors import BoundcheckError
from boundcheck.model.information import gain_increments
from boundcheck.model.kernels import spatio_temporal_gram
from boundcheck.world.scenario import Scenario

__all__ = ["block_quantities", "data_segments", "f_abs_bound", "TVEvaluator"]

_TOL = 1e-7  # independent recomputation vs the algorithm's own posterior (grid-state updates vs one Cholesky)


def f_abs_bound(scenario: Scenario, horizon: int, delta: float) -> float:
    """L with P(max_{t≤T, x∈X} |f_t(x)| > L) ≤ δ/3 for the scenario's truth: every f_t of the (stationary) ε chain
    is marginally GP(μ, k), so a union bound over the M grid points and the T steps gives T·M·2Φ̄((L − max|μ|)/√κ)
    = δ/3, κ = max_x k(x, x). On that event every instantaneous regret is at most 2L."""
    truth = scenario.truth
    kappa = float(np.max(np.diag(truth.K)))
    M, T = int(scenario.domain.n), int(horizon)
    return float(np.max(np.abs(truth.mean))) + math.sqrt(kappa) * float(_scipy_stats.norm.isf(delta / (6.0 * T * M)))


# ------------------------------------------------------------------------------------------ data blocks
def data_segments(n_data: np.ndarray) -> list[tuple[int, int, int]]:
    """Maximal runs of steps that share their data's first step: ``(s, t_a, t_b)`` (1-based) with
    D_t = observations s..t−1 for every t ∈ [t_a, t_b] (so |D_t| = t − s)."""
    T = n_data.size
    start = np.arange(1, T + 1) - np.asarray(n_data, dtype=np.int64)
    if (start < 1).any() or (start > np.arange(1, T + 1)).any():
        raise BoundcheckError("n_data record is inconsistent: |D_t| must lie in 0..t−1")
    cuts = np.flatnonzero(np.diff(start) != 0) + 1
    out, a = [], 0
    for b in [*cuts.tolist(), T]:
        out.append((int(start[a]), a + 1, b))
        a = b
    return out


def _prefix_solves(Lc: np.ndarray, Kx: np.ndarray, yd: np.ndarray, scale_rows: np.ndarray | None = None):
    """Rows j = 0..L of (Σ_{i<j} V_i², Σ_{i<j} V_i w_i) for V = Lc⁻¹(scale ∘ Kx), w = Lc⁻¹ y."""
    U = Kx if scale_rows is None else Kx * scale_rows[:, None]
    V = solve_triangular(Lc, U, lower=True, check_finite=False)
    w = solve_triangular(Lc, yd, lower=True, check_finite=False)
    zero = np.zeros((1, U.shape[1]))
    return (np.vstack([zero, np.cumsum(V * V, axis=0)]), np.vstack([zero, np.cumsum(V * w[:, None], axis=0)]))


def _tv_prefixes(K: np.ndarray, Xd: np.ndarray, yd: np.ndarray, cols: np.ndarray, lam: float, eps: float):
    """Time-varying posterior of f_{s+j} on ``cols`` given the first j data (times s..s+j−1), j = 0..L:
    (var (L+1, c), mean (L+1, c)). k̃_{t}(x)_i = k(x_i, x) a^{t−τ_i}, a = √(1−ε); t − τ_i = j − i.

    The common factor a^{j−j0} is taken out per window of predictions [j0, j1] so that no power overflows."""
    L, c = Xd.size, cols.size
    kd = np.diag(K)[cols]
    if eps >= 1.0:  # no correlation across time: the prior at every step
        return np.tile(kd, (L + 1, 1)), np.zeros((L + 1, c))
    la = 0.5 * math.log1p(-eps)  # log a < 0 (or 0 at ε = 0)
    i = np.arange(L)
    A = K[np.ix_(Xd, Xd)] * np.exp(la * np.abs(i[:, None] - i[None, :])) + lam * np.eye(L)
    Lt = cholesky(A, lower=True, check_finite=False)
    Kx = K[np.ix_(Xd, cols)]
    var, mean = np.empty((L + 1, c)), np.empty((L + 1, c))
    width = L + 1 if la == 0.0 else max(1, int(200.0 / -la))
    j0 = 0
    while j0 <= L:
        j1 = min(L, j0 + width)
        if j1 == 0:
            var[0], mean[0] = kd, 0.0
            j0 = 1
            continue
        S2, MU = _prefix_solves(Lt[:j1, :j1], Kx[:j1], yd[:j1], np.exp(la * (j0 - i[:j1])))
        js = np.arange(j0, j1 + 1)
        sc = np.exp(la * (js - j0))[:, None]
        var[js] = kd[None] - sc**2 * S2[js]
        mean[js] = sc * MU[js]
        j0 = j1 + 1
    return var, mean


def block_quantities(K: np.ndarray, lam: float, eps: float, idx: np.ndarray, y: np.ndarray, n_data: np.ndarray,
                     x_star: np.ndarray | None = None, grid_mismatch: bool = True) -> dict[str, np.ndarray]:
    """Independent recomputation, per run (rows) and step (columns), of both posteriors of the proof on the data
    D_t = the last ``n_data[t]`` observations: ``mu_x``, ``var_x`` (time-invariant, at x_t), ``mu_tv_x``,
    ``var_tv_x`` (time-varying with ``eps``), the same at ``x_star`` (``*_star``), the sup-mismatches ``dsig``,
    ``dmu`` over the grid (ε > 0 and ``grid_mismatch``; 0 at ε = 0 where both posteriors coincide), ``ymax``
    (max_{i∈D_t} |y_i|), and ``block`` (the index of the step's block in its run)."""
    m, T = idx.shape
    n = K.shape[0]
    kd = np.diag(K)
    keys = ("mu_x", "var_x", "mu_tv_x", "var_tv_x", "mu_star", "var_star", "mu_tv_star", "var_tv_star", "dsig",
            "dmu", "ymax")
    out = {k: np.zeros((m, T)) for k in keys}
    out["block"] = np.zeros((m, T), dtype=np.int64)
    tv = eps > 0.0
    for r in range(m):
        for b, (s, ta, tb) in enumerate(data_segments(n_data[r])):
            steps = np.arange(ta, tb + 1)
            js = steps - s
            L = tb - s  # data used by the last step of the block
            Xd, yd = idx[r, s - 1:tb - 1], y[r, s - 1:tb - 1]
            xs = idx[r, steps - 1]
            xst = x_star[r, steps - 1] if x_star is not None else xs
            full = tv and grid_mismatch
            cols = np.arange(n) if full else np.unique(np.concatenate([xs, xst]))
            pos = {int(c): k for k, c in enumerate(cols)}
            px = np.array([pos[int(c)] for c in xs])
            ps = np.array([pos[int(c)] for c in xst])
            sl = (r, steps - 1)
            out["block"][sl] = b
            if L == 0:
                var, mean = np.tile(kd[cols], (1, 1)), np.zeros((1, cols.size))
            else:
                Lc = cholesky(K[np.ix_(Xd, Xd)] + lam * np.eye(L), lower=True, check_finite=False)
                S2, MU = _prefix_solves(Lc, K[np.ix_(Xd, cols)], yd)
                var, mean = kd[cols][None] - S2, MU
            if tv and L > 0:
                var_t, mean_t = _tv_prefixes(K, Xd, yd, cols, lam, eps)
            else:
                var_t, mean_t = var, mean
            out["mu_x"][sl], out["var_x"][sl] = mean[js, px], var[js, px]
            out["mu_tv_x"][sl], out["var_tv_x"][sl] = mean_t[js, px], var_t[js, px]
            out["mu_star"][sl], out["var_star"][sl] = mean[js, ps], var[js, ps]
            out["mu_tv_star"][sl], out["var_tv_star"][sl] = mean_t[js, ps], var_t[js, ps]
            if full and L > 0:
                sd, sd_t = np.sqrt(np.maximum(var[js], 0.0)), np.sqrt(np.maximum(var_t[js], 0.0))
                out["dsig"][sl] = np.abs(sd_t - sd).max(axis=1)
                out["dmu"][sl] = np.abs(mean_t[js] - mean[js]).max(axis=1)
            ay = np.abs(yd)
            cm = np.concatenate([[0.0], np.maximum.accumulate(ay)]) if L > 0 else np.zeros(1)
            out["ymax"][sl] = cm[js]
    for k in ("var_x", "var_tv_x", "var_star", "var_tv_star"):
        np.maximum(out[k], 0.0, out=out[k])
    return out


# ---------------------------------------------------------------------------------------------- evaluator
class TVEvaluator(ChunkEvaluator):
    """Per-chunk quantities shared by the claims of the four theorems (statistics of the checked algorithm)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        sc, inst = self.sc, self.inst
        self.tr = self.traj.algorithms[self.main]
        self.lam = sc.model_noise_var
        self.sigma_n = math.sqrt(self.lam)
        self.K = sc.candidates[0].K
        self.eps = float(sc.truth.eps)
        self.w = inst.beta[1:]  # the checked algorithm's width (scaled by --beta-scale)
        self.sched = inst.schedules
        self.steps = self.tr.steps
        self.R_t = np.cumsum(self.tr.regret, axis=1)

    # ------------------------------------------------------------------ records with defaults
    @cached_property
    def n_data(self) -> np.ndarray:
        if "n_data" in self.steps:
            return np.asarray(self.steps["n_data"], dtype=np.int64)
        return np.tile(np.arange(self.T, dtype=np.int64), (self.m, 1))  # keeps everything

    @cached_property
    def reset(self) -> np.ndarray:
        return np.asarray(self.steps.get("reset", np.zeros((self.m, self.T), bool)), dtype=bool)

    @cached_property
    def x_star(self) -> np.ndarray | None:
        return self.tr.monitors.get("x_star")

    @cached_property
    def blk(self) -> dict[str, np.ndarray]:
        xs = None if self.x_star is None else np.asarray(self.x_star, dtype=np.int64)
        return block_quantities(self.K, self.lam, self.eps, self.tr.idx, self.tr.y, self.n_data, xs)

    @cached_property
    def f_x(self) -> np.ndarray:
        """f_t(x_t) = y_t − w_t (the engine's noise)."""
        return self.tr.y - self.traj.noise

    @cached_property
    def blocks(self) -> list[np.ndarray]:
        """Lengths n_b (in steps) of every run's blocks."""
        return [np.array([tb - ta + 1 for _, ta, tb in data_segments(self.n_data[r])]) for r in range(self.m)]

    @cached_property
    def tau(self) -> tuple[np.ndarray, np.ndarray]:
        """First stopping time τ (T when no trigger) and whether it was censored."""
        any_reset = self.reset.any(axis=1)
        first = np.where(any_reset, self.reset.argmax(axis=1) + 1, self.T)
        return first, ~any_reset

    @cached_property
    def gain_rec(self) -> np.ndarray:
        """½ log(1 + σ²_rec/λ) per step, from the algorithm's recorded σ_{D_t}(x_t)."""
        return 0.5 * np.log1p(np.asarray(self.steps["sigma"]) ** 2 / self.lam)

    @cached_property
    def block_gain(self) -> list[np.ndarray]:
        """Realised I_b per block (from the recorded σ)."""
        return [np.bincount(self.blk["block"][r], weights=self.gain_rec[r]) for r in range(self.m)]

    def lemma8(self, N: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Ni = np.asarray(N, dtype=np.int64)
        return self.sched["lemma8_sigma_N"][Ni], self.sched["lemma8_mu_coef_N"][Ni]

    # ------------------------------------------------------------------ regret bounds
    @cached_property
    def f_bounded(self) -> np.ndarray:
        """Runs on the event max_{t,x}|f_t(x)| ≤ L of :func:`f_abs_bound` (the premise under which a bound above
        2L·T is vacuous)."""
        return self.traj.f_abs_max <= f_abs_bound(self.sc, self.T, self.inst.delta)

    def regret_bound(self) -> dict:
        return {"fail": self.R_t[:, -1] > self.inst.bound_T, "premise": self.f_bounded}

    def regret_bound_finite(self) -> dict:
        return {"fail": self.R_t[:, -1] > self.inst.extra["bound_C"], "premise": self.f_bounded}

    def regret_bound_printed(self) -> dict:
        return {"fail": self.R_t[:, -1] > self.inst.extra["bound_printed"], "premise": self.f_bounded}

    @cached_property
    def rhs_realised(self) -> np.ndarray:
        """(B): √(T C₁ β_T Σ_b I_b) + Σ t⁻² + Σ_t [2 coef(N_t) Y_t + 2√β_t L8σ(N_t)] (β: the theorem's)."""
        beta = self.sched["width_theory"][1:] ** 2
        C1 = self.inst.extra["C1"]
        info = np.array([g.sum() for g in self.block_gain])
        sig, coef = self.lemma8(self.n_data)
        mis = (2 * coef * self.blk["ymax"] + 2 * np.sqrt(beta)[None] * sig).sum(axis=1)
        return np.sqrt(self.T * C1 * beta[-1] * info) + np.sum(1.0 / self.t**2) + mis

    def regret_bound_realised(self) -> dict:
        return {"fail": self.R_t[:, -1] > self.rhs_realised}

    def regret_bound_anytime(self) -> dict:
        return {"fail": (self.R_t > self.inst.anytime[None]).any(axis=1), "premise": self.f_bounded}

    # ------------------------------------------------------------------ lemma events
    def confidence_at_query(self) -> dict:
        b, bt = self.blk, np.sqrt(self.sched["beta_lemma5"][1:])
        return {"fail": exceeds(np.abs(self.f_x - b["mu_tv_x"]), bt[None] * np.sqrt(b["var_tv_x"])).any(axis=1)}

    def confidence_at_optimum(self) -> dict:
        b, bt = self.blk, np.sqrt(self.sched["beta_lemma7"][1:])
        dev = np.abs(self.traj.f_opt - b["mu_tv_star"])
        return {"fail": exceeds(dev, bt[None] * np.sqrt(b["var_tv_star"])).any(axis=1)}

    def bounded_observations(self) -> dict:
        return {"fail": (np.abs(self.tr.y) > self.sched["ybar"][1:][None]).any(axis=1)}

    def stopping_time(self) -> dict:
        return {"fail": self.tau[0] > self.inst.extra["tau_bar4"]}

    def blocks_short(self) -> dict:
        return {"fail": np.array([nb.max() for nb in self.blocks]) > self.inst.extra["tau_bar4"]}

    # ------------------------------------------------------------------ deterministic steps
    def lemma8_mismatch(self) -> dict:
        b = self.blk
        sig, coef = self.lemma8(self.n_data)
        bad = exceeds(b["dsig"], sig) | exceeds(b["dmu"], coef * b["ymax"])
        # the pointwise mismatches at x_t and x*_t are bounded by the same sups (checked without the grid too)
        for a, c in (("x", "tv_x"), ("star", "tv_star")):
            bad |= exceeds(np.abs(np.sqrt(b[f"var_{c}"]) - np.sqrt(b[f"var_{a}"])), sig)
            bad |= exceeds(np.abs(b[f"mu_{c}"] - b[f"mu_{a}"]), coef * b["ymax"])
        return {"fail": bad.any(axis=1), "premise": np.ones(self.m, bool)}

    def regret_decomposition(self) -> dict:
        """Where the events hold at t with the algorithm's width w_t (upper side at x*_t, lower side at x_t):
        r_t ≤ 2w_tσ(x_t) + |μ̃−μ|(x*) + |μ̃−μ|(x_t) + w_t(|σ̃−σ|(x*) + |σ̃−σ|(x_t)), all recomputed."""
        b, w = self.blk, self.w[None]
        sd, sd_t = np.sqrt(b["var_x"]), np.sqrt(b["var_tv_x"])
        ss, ss_t = np.sqrt(b["var_star"]), np.sqrt(b["var_tv_star"])
        upper = self.traj.f_opt <= b["mu_tv_star"] + w * ss_t
        lower = self.f_x >= b["mu_tv_x"] - w * sd_t
        prem = upper & lower
        rhs = (2 * w * sd + np.abs(b["mu_tv_star"] - b["mu_star"]) + np.abs(b["mu_tv_x"] - b["mu_x"])
               + w * (np.abs(ss_t - ss) + np.abs(sd_t - sd)))
        return {"fail": (prem & exceeds(self.tr.regret, rhs)).any(axis=1), "premise": prem.any(axis=1)}

    @cached_property
    def chain_error(self) -> np.ndarray:
        """max_t |σ_rec − σ_{D_t}(x_t)| and the same for μ (relative), per run."""
        b = self.blk
        es = np.abs(np.asarray(self.steps["sigma"]) - np.sqrt(b["var_x"])).max(axis=1)
        if "mu" in self.steps:
            mu = np.asarray(self.steps["mu"])
            es = np.maximum(es, (np.abs(mu - b["mu_x"]) / np.maximum(1.0, np.abs(b["mu_x"]))).max(axis=1))
        return es

    def information_steps(self) -> dict:
        bad = self.chain_error > _TOL
        g_up = self.inst.gamma_upper
        for r in range(self.m):
            nb = self.blocks[r]
            bad[r] |= bool(exceeds(self.block_gain[r], g_up[nb - 1]).any())
            if "period_N" in self.inst.extra:  # Theorem 2: blocks of length N, Σ_b I_b ≤ (T/N + 1)γ_N
                N = int(self.inst.extra["period_N"])
                bad[r] |= bool(exceeds(self.block_gain[r].sum(), (self.T / N + 1) * g_up[N - 1]))
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def information_steps_identity(self) -> dict:
        """Eq. (41), s² ≤ C₂ log(1 + s²) summed: true of the formula for any recorded σ."""
        sig2 = np.asarray(self.steps["sigma"]) ** 2
        bad = exceeds(sig2.sum(axis=1), self.lam * self.inst.extra["C2"] * 2 * self.gain_rec.sum(axis=1))
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def algorithm_bookkeeping(self) -> dict:
        """Algorithm 1 as executed, from the records against independent recomputation."""
        st, b, m = self.steps, self.blk, self.m
        reset, nd = self.reset, self.n_data
        psi, kappa = np.asarray(st["psi"]), np.asarray(st["kappa"])
        mu, sig = np.asarray(st["mu"]), np.asarray(st["sigma"])
        # t' = t − t_r with t_r the last reset strictly before t (0 if none), from the reset flags
        last = np.where(reset, self.t[None].astype(np.int64), 0)
        t_r = np.concatenate([np.zeros((m, 1), np.int64), np.maximum.accumulate(last, axis=1)[:, :-1]], axis=1)
        tp = self.t[None].astype(np.int64) - t_r
        rho = self.sched["rho"][tp]
        kappa_exp = np.sqrt(rho) * (np.sqrt(b["var_x"]) + self.sigma_n)
        bad = np.asarray(st["t_prime"], dtype=np.int64) != tp
        bad |= np.abs(sig - np.sqrt(b["var_x"])) > _TOL
        bad |= np.abs(mu - b["mu_x"]) > _TOL * np.maximum(1.0, np.abs(b["mu_x"]))
        bad |= np.abs(kappa - kappa_exp) > _TOL * np.maximum(1.0, kappa_exp)
        bad |= exceeds(np.abs(psi - np.abs(self.tr.y - mu)), 0.0, 1e-12)
        bad |= reset != (psi > kappa)  # strict, on the recorded numbers themselves
        nd_next = np.where(reset, 1, nd + 1)
        bad[:, 1:] |= nd[:, 1:] != nd_next[:, :-1]
        bad[:, 0] |= nd[:, 0] != 0
        return {"fail": bad.any(axis=1), "premise": np.ones(m, bool)}

    def reset_schedule(self) -> dict:
        N = int(self.inst.extra["period_N"])
        t = self.t[None].astype(np.int64)
        bad = self.n_data != (t - 1) % N
        bad |= self.reset != ((t > 1) & ((t - 1) % N == 0))
        if "period" in self.steps:
            bad |= np.asarray(self.steps["period"]) != N
        return {"fail": bad.any(axis=1), "premise": np.ones(self.m, bool)}

    # ------------------------------------------------------------------ Lemma 3 (first segment)
    @cached_property
    def first_segment(self) -> np.ndarray:
        """(m, T): steps up to and including the first trigger (all steps without one)."""
        return self.t[None] <= self.tau[0][:, None]

    def false_reset(self) -> dict:
        return {"fail": self.reset.any(axis=1)}

    def lemma1_part(self) -> dict:
        b, rho = self.blk, self.sched["rho"][1:]
        dev = np.abs(self.f_x - b["mu_x"]) > np.sqrt(rho)[None] * np.sqrt(b["var_x"])
        return {"fail": (dev & self.first_segment).any(axis=1)}

    def lemma2_part(self) -> dict:
        wbar = self.sigma_n * np.sqrt(self.sched["rho"][1:])
        return {"fail": ((np.abs(self.traj.noise) > wbar[None]) & self.first_segment).any(axis=1)}

    @cached_property
    def compensator(self) -> np.ndarray:
        """Σ_{t≤τ} p_t, p_t = P(|y_t − μ_rec| > κ_rec | history) under the model: y_t − μ_rec ~ N(μ_{D_t}(x_t) − μ_rec,
        σ²_{D_t}(x_t) + σ_n²) with the independently recomputed posterior of the data."""
        b = self.blk
        s = np.sqrt(b["var_x"] + self.lam)
        off = b["mu_x"] - np.asarray(self.steps["mu"])
        kappa = np.asarray(self.steps["kappa"])
        p = _scipy_stats.norm.sf((kappa - off) / s) + _scipy_stats.norm.sf((kappa + off) / s)
        return np.where(self.first_segment, p, 0.0).sum(axis=1)

    @cached_property
    def innov_first(self) -> np.ndarray:
        b = self.blk
        u = (self.tr.y - b["mu_x"]) / np.sqrt(b["var_x"] + self.lam)
        return np.where(self.first_segment, u, np.nan)

    # ------------------------------------------------------------------ TV-GP-UCB (exact Kalman posterior)
    @cached_property
    def gains_tv(self) -> tuple[np.ndarray, np.ndarray]:
        """Online gain from the recorded σ̃ and the direct ½log|I + λ⁻¹K̃| on the spatio-temporal Gram (true ε)."""
        on = np.cumsum(self.gain_rec, axis=1)
        direct = np.zeros_like(on)
        for r in range(self.m):
            G = spatio_temporal_gram(self.K, self.tr.idx[r], self.t, self.eps)
            direct[r] = np.cumsum(gain_increments(G, self.lam))
        return on, direct

    @cached_property
    def event(self) -> np.ndarray:
        return self.tr.monitors["z_all"] <= self.w[None]

    def confidence_event(self) -> dict:
        return {"fail": ~self.event.all(axis=1)}

    def d1_optimism(self) -> dict:
        ok, st = self.event, self.steps
        bad = exceeds(self.traj.f_opt, np.asarray(st["ucb"])) | exceeds(self.tr.regret,
                                                                      2 * self.w[None] * np.asarray(st["sigma"]))
        return {"fail": (ok & bad).any(axis=1), "premise": ok.any(axis=1)}

    def d2_intermediate(self) -> dict:
        E = self.event.all(axis=1)
        w, sig, r = self.w[None], np.asarray(self.steps["sigma"]), self.tr.regret
        g = self.gains_tv[0]
        r2, wsig, S2 = np.cumsum(r**2, axis=1), np.cumsum(w**2 * sig**2, axis=1), np.cumsum(sig**2, axis=1)
        C1 = self.inst.extra["C1"]
        bad = (exceeds(r2, 4 * wsig) | exceeds(wsig, w**2 * S2)
               | exceeds(S2, 2 * g / np.log1p(1.0 / self.lam))
               | exceeds(self.R_t, np.sqrt(C1 * self.t[None] * w**2 * g))).any(axis=1)
        return {"fail": E & bad, "premise": E}

    def d2_cauchy_schwarz(self) -> dict:
        """R_t ≤ √(tΣr²): Cauchy–Schwarz, true of any regrets."""
        r2 = np.cumsum(self.tr.regret**2, axis=1)
        bad = exceeds(self.R_t, np.sqrt(self.t[None] * r2)).any(axis=1)
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def d3_information(self) -> dict:
        on, direct = self.gains_tv
        err = (np.abs(on - direct) / np.maximum(1.0, np.abs(direct))).max(axis=1)
        bad = (err > 1e-8) | (on < -1e-12).any(axis=1) | exceeds(on, self.inst.gamma_upper[None]).any(axis=1)
        return {"fail": bad, "premise": np.ones(self.m, bool)}
