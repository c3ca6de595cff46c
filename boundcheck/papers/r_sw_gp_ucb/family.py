"""Drifting RKHS functions with a variation budget: R-GP-UCB and SW-GP-UCB (Zhou & Shroff 2021; ``r_gp_ucb``,
``sw_gp_ucb``) and the paper-literal forms (``r_gp_ucb_literal``, ``sw_gp_ucb_literal``).

The evaluator (:class:`VBEvaluator`) *replays* the checked algorithm's run on the retained samples (restart blocks
or sliding window) and splits the posterior error into bias, drift and noise at every step.

Claims (Thms 1–2): probability — the regret bound and its anytime form, Lemma 1's event horizon-wide (δ/N_B) or
Lemma 2's corrected event (ξ_w), the self-normalised noise bound (δ/N_B per block, or δ/T per t); expectation —
the fraction of blocks where Lemma 1 at level δ fails; deterministic — posterior, information and regret-step
implications at every step; identities — the bias/noise and drift bounds, which hold on the replay for any choices
(so no defect of the checked algorithm can move them: they guard the replay, the truth's exact θ_t and γ̄).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

import theory
from boundcheck.claims.families.base import ChunkEvaluator, Family, TheoremInstance, real_or_complex
from boundcheck.claims.stats import exceeds
from boundcheck.claims.table import ClaimSpec
from boundcheck.errors import BoundcheckError
from boundcheck.model.variation import VariationBudgetSequence, certified_gamma
from boundcheck.model.window_posterior import WindowPosterior, checksum_weights, exact_window_posterior
from boundcheck.world.scenario import Scenario
from theory import r_sw_gp_ucb as zhou_shroff

from .compact import COMPACT_IDS, VBBoxFamily

__all__ = ["VariationBudgetFamily", "VBEvaluator", "SCRATCH_FULL"]

_TOL = 1e-8  # replay vs records vs from-scratch (design: agree to ~1e-8)
SCRATCH_FULL = 64  # from-scratch recomputation at every step while at most this many samples are retained
SCRATCH_BIG = 256  # above this many retained samples: ~10 sampled from-scratch checks, one run per chunk
STEP_COLUMNS = ("mu", "sigma", "ucb", "width", "n_ret")


def _retained(kind: str, window: int, T: int) -> np.ndarray:
    """n_t, the number of samples the algorithm holds before choosing at t = 0..T (index 0 unused)."""
    t = np.arange(T + 1)
    n = (t - 1) % window if kind == "restart" else np.minimum(t - 1, window)
    n[0] = 0
    return n


def _gamma_at(curve: np.ndarray, n: np.ndarray) -> np.ndarray:
    """γ̄_n for counts n (γ̄_0 = 0)."""
    padded = np.concatenate([[0.0], curve])
    return padded[np.asarray(n, dtype=np.int64)]


def _values(th: theory.Theorem, sc: Scenario, T: int, delta: float, window: int, gamma: np.ndarray) -> dict:
    wname = "H" if "H" in th.symbols else "w"
    return {"T": float(T), "delta": float(delta), "R": float(sc.noise), "B": float(sc.B),
            "P_T": float(sc.declared_budget()), wname: float(window), "lam": float(sc.model_noise_var),
            f"gamma_{wname}": float(gamma[window - 1])}


class VBEvaluator(ChunkEvaluator):
    """Per-chunk statistics of the checked algorithm, from a replay of its run on the retained samples.

    The replay is an exact data-space posterior on the retained samples (restart blocks or sliding window) that
    carries three extra right-hand sides — the noise N, the truth at the sample times f_s(x_s), and the truth's
    features Φ(x_s) — so that at every step and for every x ∈ D it has::

        μ_{t−1}(x) − f_t(x) = [k(x)ᵀ(K+λI)⁻¹f_t(X) − f_t(x)] + k(x)ᵀ(K+λI)⁻¹δ^{(t)} + k(x)ᵀ(K+λI)⁻¹N
                                 bias                          drift (δ_s = f_s(x_s) − f_t(x_s))   noise

    (f_t(X) = Φ_X θ_t: the truth's exact θ_t, with ‖f_t‖_k = ‖θ_t‖). Everything is reduced over x at once (never
    a runs × T × |D| array). The replay is checked against the algorithm's own records at every step and against a
    from-scratch Cholesky recomputation (every step while at most ``SCRATCH_FULL`` samples are retained, else at
    ~100 evenly spread steps and after every restart; beyond ``SCRATCH_BIG`` samples at ~10 steps, on one run per
    chunk)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        sc, inst, ex = self.sc, self.inst, self.inst.extra
        self.lam = float(ex["lam"])
        self.K = sc.candidates[0].K
        self.kappa_ok = sc.candidates[0].kappa <= 1.0 + 1e-12
        self.kind, self.window = ex["kind"], int(ex["window"])
        self.xi = float(ex["xi"])
        self.tr = self.traj.algorithms[self.main]
        truth = self.traj.truth
        if "theta" not in truth:
            raise BoundcheckError("the variation-budget claims need a truth with exact θ_t (a vb_* scenario)")
        self.theta, self.Phi = truth["theta"], truth["features"]
        self.gamma = inst.gamma_upper
        self.n_t = _retained(self.kind, self.window, self.T)[1:]
        self.conf = inst.schedules["conf_width"][1:]  # the lemma's β^conf_t (scaled with --beta-scale)
        self.block = inst.schedules["block_width"][1:]  # Lemma 1 at level δ (one block)
        self.width = self.tr.steps["width"] if "width" in self.tr.steps else self.inst.beta[None, 1:]

    # ------------------------------------------------------------------------------------------ the replay
    @cached_property
    def replay(self) -> dict[str, np.ndarray]:
        tr, T, m, lam, K = self.tr, self.T, self.m, self.lam, self.K
        idx, y, N = tr.idx, tr.y, self.traj.noise
        theta, Phi = self.theta, self.Phi
        n, r = Phi.shape
        prior = self.sc.candidates[0]
        g = np.einsum("mtr,mtr->mt", Phi[idx], theta)  # f_s(x_s) from the truth's θ_s
        delta_step = np.zeros((m, T))
        delta_step[:, :-1] = np.linalg.norm(np.diff(theta, axis=1), axis=2)  # Δ_s = ‖f_{s+1} − f_s‖_k
        norms = np.linalg.norm(theta, axis=2)  # ‖f_t‖_k
        wp = WindowPosterior(prior, lam, m, capacity=self.window + 1, targets=2 + r,
                             droppable=self.kind == "window" and self.window < T)
        c = checksum_weights(n)
        rows = np.arange(m)
        widths = np.stack([self.conf, self.block], axis=1)
        out = {k: np.zeros((m, T)) for k in ("mu_x", "sd_x", "mu_dot", "var_dot", "D", "drift_path", "drift_max",
                                                   "q", "gain", "S2", "decomp", "scratch", "gain_err")}
        out["exc"] = np.zeros((m, T, 2))
        out["bias_bad"] = np.zeros((m, T), bool)
        out["noise_bad"] = np.zeros((m, T), bool)
        scratch_steps = np.zeros(T, bool)
        stride = max(1, T // 100)
        sig_rec = tr.steps.get("sigma")
        for t in range(1, T + 1):
            if self.kind == "restart" and (t - 1) % self.window == 0:
                wp.reset()
            p = int(wp.n_obs[0])
            s0 = t - 1 - p  # 0-based index of the oldest retained sample (time t₀ = t − p)
            mu, s2 = wp.mu, wp.s2
            sd = np.sqrt(np.maximum(s2, 0.0))
            f_t = theta[:, t - 1] @ Phi.T
            i = t - 1
            x_t = idx[:, i]
            out["mu_x"][:, i], out["sd_x"][:, i] = mu[rows, x_t], sd[rows, x_t]
            out["mu_dot"][:, i], out["var_dot"][:, i] = mu @ c, sd**2 @ c
            absdev = np.abs(mu - f_t)
            out["exc"][:, i] = (absdev[:, :, None] - widths[i][None, None, :] * sd[:, :, None]).max(axis=1)
            if p:
                tm = wp.target_means()  # (m, n, 2 + r): noise part, Σ f_s(x_s) part, features part
                noise, gpart = tm[..., 0], tm[..., 1]
                ptheta = np.matmul(tm[..., 2:], theta[:, i, :, None])[..., 0]
                bias, drift = ptheta - f_t, gpart - ptheta
                aN = wp.A[:, :p, 0]
                q = (N[:, s0:i] ** 2).sum(axis=1) - lam * (aN**2).sum(axis=1)  # NᵀK(K+λI)⁻¹N
                out["q"][:, i] = q
                out["bias_bad"][:, i] = exceeds(np.abs(bias), norms[:, i, None] * sd).any(axis=1)
                out["noise_bad"][:, i] = exceeds(np.abs(noise), sd * np.sqrt(np.maximum(q, 0.0) / lam)[:, None]).any(
                    axis=1)
                out["drift_max"][:, i] = np.abs(drift).max(axis=1)
                scale = np.maximum(1.0, np.abs(mu).max(axis=1))
                out["decomp"][:, i] = np.abs(mu - prior.mean - gpart - noise).max(axis=1) / scale
                sig_chain = np.sqrt(wp.chain_var()[:, :p])  # σ̃_{s−1}(x_s) on the retained samples, in time order
                dwin = delta_step[:, s0:i]  # Δ_{t₀}, …, Δ_{t−1}
                out["drift_path"][:, i] = (dwin * np.cumsum(sig_chain, axis=1)).sum(axis=1) / lam
                out["D"][:, i] = dwin.sum(axis=1)
                out["S2"][:, i] = (sig_chain**2).sum(axis=1)
                gain = wp.log_det()
                out["gain"][:, i] = gain
                if self.kind == "restart" and sig_rec is not None:  # chain rule against the algorithm's own σ
                    chain = 0.5 * np.log1p(sig_rec[:, s0:i] ** 2 / lam).sum(axis=1)
                    out["gain_err"][:, i] = np.abs(chain - gain) / np.maximum(1.0, gain)
                sampled = t % (stride if p <= SCRATCH_BIG else 10 * stride) == 0
                if p <= SCRATCH_FULL or sampled or (self.kind == "restart" and p == 1):
                    scratch_steps[i] = True
                    # beyond SCRATCH_BIG retained samples only the chunk's first run (O(p³) each)
                    sub = rows if p <= SCRATCH_BIG else rows[:1]
                    Xw = idx[sub, s0:i]
                    if not np.array_equal(Xw, wp.X[sub, :p]):
                        out["scratch"][sub, i] = np.inf  # the replay holds other samples than the window
                    else:
                        mu_s, s2_s = exact_window_posterior(K, prior.mean, Xw, y[sub, s0:i], lam)
                        err = np.maximum(np.abs(mu_s - mu[sub]).max(axis=1) / scale[sub],
                                         np.abs(s2_s - s2[sub]).max(axis=1))
                        _, logdet = np.linalg.slogdet(np.eye(p) + K[Xw[:, :, None], Xw[:, None, :]] / lam)
                        out["scratch"][sub, i] = err
                        rel = np.abs(0.5 * logdet - gain[sub]) / np.maximum(1.0, gain[sub])
                        out["gain_err"][sub, i] = np.maximum(out["gain_err"][sub, i], rel)
            z = np.concatenate([N[:, i, None], g[:, i, None], Phi[x_t]], axis=1)
            wp.condition(x_t, y[:, i], targets=z)
            if self.kind == "window" and sig_rec is not None:
                # the chain rule's newest term with the algorithm's own σ_{t−1}(x_t) (Claim 1): a window's
                # samples leave one by one, so its gain is not one running sum as in a restart block
                after = wp.log_det()
                chain = out["gain"][:, i] + 0.5 * np.log1p(sig_rec[:, i] ** 2 / lam)
                out["gain_err"][:, i] = np.maximum(out["gain_err"][:, i],
                                                   np.abs(chain - after) / np.maximum(1.0, after))
            if self.kind == "window" and wp.n_obs[0] > self.window:
                wp.drop_oldest()
        out["scratch_steps"] = scratch_steps
        out["norms"] = norms
        return out

    # ------------------------------------------------------------------------------------------ events
    @cached_property
    def event(self) -> np.ndarray:
        """E_t: Lemma 1/2's event at step t (all x ∈ D) with the theorem's ξ and β^conf: (m, T)."""
        rp = self.replay
        return rp["exc"][:, :, 0] <= self.xi * rp["D"]

    @cached_property
    def rt(self) -> np.ndarray:
        return np.cumsum(self.tr.regret, axis=1)

    def realised(self) -> tuple[np.ndarray, np.ndarray]:
        return self.traj.truth["budget"], self.traj.truth["max_norm"]

    @cached_property
    def in_assumptions(self) -> np.ndarray:
        """Runs whose realised budget and norms respect what the theorem was given (premise of the implications)."""
        budget, max_norm = self.realised()
        P = float(self.inst.extra["P_T"])
        return (budget <= P * (1 + 1e-9) + 1e-12) & (max_norm <= float(self.sc.B) * (1 + 1e-9))

    # ------------------------------------------------------------------------------------------ probability
    def bound_curve(self) -> tuple[float, np.ndarray]:
        """The bound for the checked algorithm: (β̄_max + β^conf_max) in the information term (= 2β^conf_max for
        the theorem's own algorithm)."""
        ex = self.inst.extra
        extra = max(0.0, float(np.max(self.width)) - float(ex["beta_conf_max"])) if "info_factor" in ex else 0.0
        bound = self.inst.bound_T + extra * float(ex.get("info_factor", 0.0))
        anytime = self.inst.anytime + extra * np.asarray(ex.get("info_factor_t", np.zeros(self.T)))
        return bound, anytime

    def regret_bound(self) -> dict:
        return {"fail": self.rt[:, -1] > self.bound_curve()[0]}

    def regret_bound_anytime(self) -> dict:
        return {"fail": (self.rt > self.bound_curve()[1][None]).any(axis=1)}

    def confidence_event(self) -> dict:
        return {"fail": ~self.event.all(axis=1)}

    def confidence_event_block(self) -> dict:
        """Fraction of blocks in which Lemma 1's event at level δ (one block) fails."""
        rp = self.replay
        ok = rp["exc"][:, :, 1] <= self.xi * rp["D"]
        block = (np.arange(self.T)) // self.window
        nb = int(block.max()) + 1
        failed = np.zeros((self.m, nb), bool)
        for k in range(nb):
            failed[:, k] = ~ok[:, block == k].all(axis=1)
        return {"value": failed.mean(axis=1)}

    def self_normalized(self) -> dict:
        rp = self.replay
        thr = 2 * self.sc.noise**2 * (rp["gain"] + float(self.inst.extra["sn_log"]))
        return {"fail": (rp["q"] > thr).any(axis=1)}

    # ------------------------------------------------------------------------------------------ deterministic
    def posterior(self) -> dict:
        rp, st = self.replay, self.tr.steps
        scale = np.maximum(1.0, np.abs(rp["mu_x"]))
        bad = (np.abs(st["mu"] - rp["mu_x"]) > _TOL * scale) | (np.abs(st["sigma"] - rp["sd_x"]) > _TOL)
        if "mu_dot" in st:
            bad |= np.abs(st["mu_dot"] - rp["mu_dot"]) > _TOL * np.maximum(1.0, np.abs(rp["mu_dot"]))
            bad |= np.abs(st["var_dot"] - rp["var_dot"]) > _TOL
        bad |= (rp["scratch"] > _TOL) | (rp["decomp"] > _TOL)
        return {"fail": bad.any(axis=1), "premise": np.ones(self.m, bool)}

    def information(self) -> dict:
        rp, lam = self.replay, self.lam
        g_n = _gamma_at(self.gamma, self.n_t)[None]
        c_lam = 1.0 / np.log1p(1.0 / lam)
        bad = (rp["gain_err"] > _TOL) | exceeds(rp["gain"], g_n) | exceeds(rp["S2"], 2 * c_lam * rp["gain"])
        bad |= exceeds(2 * c_lam * rp["gain"], 2 * (1 + lam) * g_n)
        return {"fail": bad.any(axis=1) & self.kappa_ok, "premise": np.full(self.m, self.kappa_ok)}

    def bias_noise(self) -> dict:
        rp = self.replay
        return {"fail": (rp["bias_bad"] | rp["noise_bad"]).any(axis=1), "premise": np.ones(self.m, bool)}

    def drift(self) -> dict:
        rp = self.replay
        bad = exceeds(rp["drift_max"], rp["drift_path"]) | exceeds(rp["drift_path"], self.xi * rp["D"])
        ok = self.kappa_ok & self.in_assumptions
        return {"fail": bad.any(axis=1) & ok, "premise": ok}

    def regret_step(self) -> dict:
        """On E_t with β̄_t ≥ β^conf_t: r_t ≤ 2ξD_t + (β̄_t + β^conf_t)σ_{t−1}(x_t); on E at every step the summed
        chain down to the bound (ledger ZS5–ZS7), at every t."""
        rp, ex = self.replay, self.inst.extra
        E = self.event
        dominated = self.width >= self.conf[None] * (1 - 1e-12)
        rhs_t = 2 * self.xi * rp["D"] + (self.width + self.conf[None]) * rp["sd_x"]
        step_ok = E & dominated
        bad_step = (step_ok & exceeds(self.tr.regret, rhs_t)).any(axis=1)
        # the summed chain, for runs where the event and β̄ ≥ β^conf hold at every step
        allE = E.all(axis=1) & dominated.all(axis=1) & self.in_assumptions & self.kappa_ok
        path = np.cumsum(rhs_t, axis=1)
        sumD = np.cumsum(rp["D"], axis=1)
        drift_cap = float(ex["drift_sum_cap"])  # (H − 1)P_T or wP_T
        # Σ_{s ≤ t} σ_{s−1}(x_s) block by block against √(2c_λ H_k γ̄_{H_k}) (blocks of length H or w)
        c_lam = 1.0 / np.log1p(1.0 / self.lam)
        block = np.arange(self.T) // self.window
        sig_sum_bad = np.zeros(self.m, bool)
        for k in range(int(block.max()) + 1):
            sel = block == k
            cs = np.cumsum(rp["sd_x"][:, sel], axis=1)
            L = np.arange(1, sel.sum() + 1)
            sig_sum_bad |= exceeds(cs, np.sqrt(2 * c_lam * L * _gamma_at(self.gamma, L)[None])).any(axis=1)
        _, anytime = self.bound_curve()
        chain_bad = exceeds(self.rt, path).any(axis=1) | exceeds(sumD, drift_cap).any(axis=1) | sig_sum_bad
        if self.inst.extra.get("has_anytime"):
            chain_bad |= exceeds(self.rt, anytime[None]).any(axis=1)
        return {"fail": bad_step | (allE & chain_bad), "premise": step_ok.any(axis=1) | allE}


_REC = frozenset({"mu", "sigma"})  # μ·c and σ²·c over D (mu_dot, var_dot) are compared too when recorded


def _final(ev: VBEvaluator) -> float:
    """The bound on R_T of the checked algorithm (the vacuity rule's ``bound``: :mod:`boundcheck.claims.table`)."""
    return ev.bound_curve()[0]


class VariationBudgetFamily(Family):
    """The family of one of the four paper-003 theorems (``theorem.id`` picks the algorithm kind and claims)."""

    evaluator_class = VBEvaluator
    step_columns = STEP_COLUMNS
    truth_types = (VariationBudgetSequence,)  # a drifting RKHS sequence with exact norms and budget

    def __init__(self, theorem: theory.Theorem) -> None:
        self.kind = "restart" if "H" in theorem.symbols else "window"
        super().__init__(theorem)

    @property
    def schedules_read(self) -> tuple[str, ...]:
        """The algorithm's β_t (also β^conf_t of the confidence claims), ξ (Lemma 1's drift factor) and, for a
        restarting algorithm, Lemma 1's width at level δ for one block."""
        return ("beta_t", "xi", "beta_block_t") if self.kind == "restart" else ("beta_t", "xi")

    def claim_table(self) -> list[ClaimSpec]:
        c, E = self.theorem.claim, VBEvaluator
        if self.theorem.id.endswith("_literal"):
            return [ClaimSpec(c("regret_bound"), E.regret_bound, bound=_final),
                    ClaimSpec(c("confidence_event"), E.confidence_event)]
        rows = [ClaimSpec(c("regret_bound"), E.regret_bound, bound=_final),
                ClaimSpec(c("regret_bound_anytime"), E.regret_bound_anytime, bound=lambda ev: ev.bound_curve()[1]),
                ClaimSpec(c("confidence_event"), E.confidence_event)]
        if self.kind == "restart":
            rows.append(ClaimSpec(c("confidence_event_block"), E.confidence_event_block))
        rows += [ClaimSpec(c("self_normalized"), E.self_normalized),
                 ClaimSpec(c("D1_posterior"), E.posterior, _REC),
                 ClaimSpec(c("D2_information"), E.information, frozenset({"sigma"})),
                 ClaimSpec(c("D3_bias_noise"), E.bias_noise),
                 ClaimSpec(c("D4_drift"), E.drift),
                 ClaimSpec(c("D5_regret_step"), E.regret_step, frozenset({"width", "sigma"}))]
        return rows

    # ------------------------------------------------------------------------------------------ instantiation
    def bound_values(self, scenario: Scenario, horizon: int, delta: float) -> dict[str, float]:
        """Checks what the bound needs of the scenario (the values themselves come with the certified γ̄ in
        :meth:`instantiate`); called by the pre-flight validation before anything is written."""
        th, sc, T = self.theorem, scenario, int(horizon)
        if not hasattr(sc.truth, "budget_bound"):
            raise BoundcheckError(f"scenario {sc.name!r} has no drifting RKHS truth with an exact budget: "
                                  f"{th.id} needs one (pick a vb_* scenario)")
        if sc.B is None or sc.window is None:
            raise BoundcheckError(f"scenario {sc.name!r} gives no B or no window H: {th.id} needs both")
        if not 1 <= sc.window <= T:
            raise BoundcheckError(f"H / w = {sc.window} must lie in 1..T = {T}")
        return {}

    def instantiate(self, scenario: Scenario, horizon: int, delta: float, beta_scale: float = 1.0) -> TheoremInstance:
        th, sc, T = self.theorem, scenario, int(horizon)
        self.bound_values(sc, T, delta)
        lam, window = float(sc.model_noise_var), int(sc.window)
        br = certified_gamma(sc.candidates[0].K, T, lam)
        g_up, g_lo = br.upper, br.lower
        values = _values(th, sc, T, delta, window, g_up)
        t = np.arange(T + 1, dtype=float)
        t[0] = 1.0

        def full(x):  # complex kept: refused by check_instance, not truncated by numpy
            return np.broadcast_to(real_or_complex(x), t.shape).copy()

        def beta_of(source: theory.Theorem, name: str, kind: str, win: int) -> np.ndarray:
            vals = _values(source, sc, T, delta, win, g_up)
            gprev = _gamma_at(g_up, _retained(kind, win, T))
            return full(source.schedule_values(name, t, vals, gprev))

        # the checked algorithm's β, Lemma 1's one-block width and ξ are the theorem's own (a theorem of your own
        # checked like this one: yours, schedules_read); the baselines run with the widths their theorems state
        own = beta_of(th, "beta_t", self.kind, window)
        restart, window_th = theory.get("r_gp_ucb"), theory.get("sw_gp_ucb")
        sched = {
            "r_gp_ucb_zs": beta_of(restart, "beta_t", "restart", window),
            "r_gp_ucb_zs_pseudocode": beta_of(restart, "beta_pseudocode_t", "restart", window),
            "sw_gp_ucb": beta_of(window_th, "beta_t", "window", window),
            "sw_gp_ucb_pseudocode": beta_of(window_th, "beta_pseudocode_t", "window", window),
            "igp_ucb": beta_of(restart, "beta_t", "restart", T),  # IGP-UCB = R-GP-UCB with H = T (never forgets)
        }
        sched[self.main] = own  # the theorem's algorithm uses the theorem's β (popped into the study's β)
        block = (beta_of(th, "beta_block_t", "restart", window) if self.kind == "restart" else own)
        sched["conf_width"] = own * beta_scale
        sched["block_width"] = block * beta_scale
        beta = sched.pop(self.main) * beta_scale
        xi_t = full(th.schedule_values("xi", t, values))
        steps = np.arange(1, T + 1, dtype=float)
        has_anytime = th.anytime_terms is not None
        with np.errstate(all="ignore"):  # a bound that is not finite is refused below, in one line
            bound = th.evaluate(values)
            at = th.evaluate_anytime(values, steps, g_up) if has_anytime else None
        self.check_instance(bound["terms"], None if at is None else at["terms"], T, beta, delta, beta_scale,
                            {"xi": xi_t, **sched})
        anytime = at["value"] if has_anytime else np.full(T, np.nan)
        wname = "H" if self.kind == "restart" else "w"
        restored = theory.get("r_gp_ucb" if self.kind == "restart" else "sw_gp_ucb")
        nb = int(np.ceil(T / window))
        c_lam = 1.0 / np.log1p(1.0 / lam)
        g_w = float(g_up[window - 1])

        def sqrt_blocks(h):
            k = np.ceil(h / window)
            return (k - 1) * np.sqrt(window) + np.sqrt(h - (k - 1) * window)

        P = float(sc.declared_budget())
        extra = {
            "kind": self.kind, "window": window, "lam": lam, "beta_scale": float(beta_scale), "P_T": P,
            "xi": float(xi_t[1]), "xi_restored": float(restored.schedule_values("xi", 1.0, values)),
            "n_blocks": nb, "c_lambda": c_lam, "has_anytime": has_anytime,
            "beta_conf_max": float(own.max()) * beta_scale,
            "drift_sum_cap": ((window - 1) if self.kind == "restart" else window) * P,
            "sn_log": float(np.log((nb if self.kind == "restart" else T) / delta)),
            wname: window,
        }
        if not th.id.endswith("_literal"):  # (β̄_max + β^conf_max)·factor: the information term of §3.7
            extra["info_factor"] = float(np.sqrt(2 * c_lam * g_w) * sqrt_blocks(T))
            extra["info_factor_t"] = np.sqrt(2 * c_lam * g_w) * sqrt_blocks(steps)
        return TheoremInstance(
            horizon=T, delta=float(delta), values=values, beta=beta, xi=xi_t, B=float(sc.B), C=float("nan"),
            bound_T=float(bound["value"]), bound_terms={k: float(v) for k, v in bound["terms"].items()},
            anytime=np.asarray(anytime, dtype=float), gamma_upper=g_up, gamma_lower=g_lo,
            gamma_methods={k: (float(v[-1]) if np.isfinite(v[-1]) else float("nan")) for k, v in br.methods.items()},
            group_gamma_upper={sc.candidates[0].kernel_key: g_up}, schedules=sched, gamma_used=g_up, extra=extra)

    # ------------------------------------------------------------------------------------------ per-run columns
    def _common(self, ev: VBEvaluator) -> dict[str, np.ndarray]:
        budget, max_norm = ev.realised()
        ex = ev.inst.extra
        return {"realised_budget": budget, "max_norm": max_norm, "B": np.full(ev.m, float(ev.sc.B)),
                "P_T": np.full(ev.m, ex["P_T"]), "window": np.full(ev.m, float(ex["window"])),
                "model_noise_var": np.full(ev.m, ev.lam)}

    def main_diagnostics(self, ev: VBEvaluator) -> dict[str, np.ndarray]:
        bound, anytime = ev.bound_curve()
        Rt = ev.rt
        out = {"regret": Rt[:, -1], "tightness": Rt[:, -1] / bound, **self._common(ev),
               "bound_main": np.full(ev.m, bound), "vacuous": np.full(ev.m, bound >= 2 * float(ev.sc.B) * ev.T)}
        if self.theorem.anytime_terms is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                out["max_anytime_ratio"] = (Rt / anytime[None]).max(axis=1)
        rp = ev.replay
        # Lemma 2 as printed (ξ = 1) / Lemma 1 at level δ read horizon-wide: diagnostics, not claims of this theorem
        xi_lit = 1.0 if self.kind == "window" else float(zhou_shroff.XI_H_PAPER.subs(
            {zhou_shroff.lam: ev.lam, zhou_shroff.H: ev.window,
             zhou_shroff.gamma_H: float(ev.gamma[ev.window - 1])}))
        out["fail_paper_literal_confidence"] = ~(rp["exc"][:, :, 1] <= xi_lit * rp["D"]).all(axis=1)
        out["fail_no_drift_radius"] = ~(rp["exc"][:, :, 0] <= 0.0).all(axis=1)  # |μ − f| ≤ β^conf σ alone
        with np.errstate(divide="ignore", invalid="ignore"):  # how close the drift term comes to D_t (ξ = 1)
            ratio = np.where(rp["D"] > 0, rp["drift_max"] / rp["D"], 0.0)
        out["max_drift_over_D"] = ratio.max(axis=1)
        out["scratch_checked_steps"] = np.full(ev.m, float(rp["scratch_steps"].sum()))
        out["max_self_normalized_ratio"] = (rp["q"] / (2 * ev.sc.noise**2 * (rp["gain"] + ev.inst.extra["sn_log"]))
                                            ).max(axis=1)
        return out

    def baseline_columns(self, ev: VBEvaluator, name: str) -> dict[str, np.ndarray]:
        return {**super().baseline_columns(ev, name), **self._common(ev)}


FAMILIES = tuple(VariationBudgetFamily(th) for th in zhou_shroff.THEOREMS if th.id not in COMPACT_IDS) + tuple(
    VBBoxFamily(th) for th in zhou_shroff.COMPACT_THEOREMS)  # the compact theorems run on the continuum engine
