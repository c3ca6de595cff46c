"""Kernelized bandits on a finite domain: GP-UCB (Srinivas et al. 2010, Theorem 1; ``gp_ucb``) and the three
theorems of Chowdhury & Gopalan (2017) (``igp_ucb_confidence``, ``igp_ucb``, ``gp_ts``).

One family class serves the four theorem ids (``FAMILIES``); each instance names the theorem's algorithm
(``MAIN``) and the algorithms simulated with it on common random numbers (``ALGORITHMS``).

Every claim of a theorem is evaluated per run from the trajectories:

* probability claims: ``fail_<id>`` per run (the confidence events from the engine's truth-side monitor
  max_x |f − μ_{t−1}|/σ_{t−1}, Theorem 1's self-normalised quantity and its Abbasi-Yadkori form from one
  Cholesky factor of K_T + λI per run — every prefix t is a leading block, so all t cost one factorisation);
* deterministic implications: ``fail_<id>`` (a counterexample at some step where the premise held) and
  ``premise_<id>``;
* expectation claims (GP-TS lemmas): ``value_<id>`` per run, with E[value] ≤ 0 to be checked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import sympy as sp
from scipy.linalg import cho_solve, cholesky, solve_triangular

import theory

from ..checks import exceeds
from ..engine import Trajectories
from ..errors import BoundcheckError
from ..scenarios import Scenario
from ..study import StudyContext
from .common import steps_table

P_ANTI = float(1.0 / (4.0 * np.e * np.sqrt(np.pi)))  # p of Lemma 8
_TOL_IMPL = 1e-8  # engine vs batch formulas (design: agree to ~1e-8)
STEP_COLUMNS = ("mu", "sigma", "ucb", "width", "sample", "ts_dev")
_CG_ALGORITHMS = ("igp_ucb", "gp_ucb", "gp_ts", "gp_ei", "gp_pi", "random")


def _prev(curve: np.ndarray) -> np.ndarray:
    """γ_{t−1} aligned with t = 0..T (γ_0 = 0; index 0 unused): [0, 0, γ_1, …, γ_{T−1}]."""
    out = np.zeros(curve.size + 1)
    out[2:] = curve[:-1]
    return out


def paper_gamma(scenario: Scenario, horizon: int) -> np.ndarray:
    """The paper's unit-constant rate γ_t, t = 1..T (spec §6.1, §8 item 3): not a certified bound."""
    from theory.chowdhury_gopalan import PAPER_GAMMA_RATES, RATE_SYMBOLS

    kind = scenario.gamma_rule.split(":", 1)[1]
    expr = PAPER_GAMMA_RATES[kind].subs({RATE_SYMBOLS[k]: v for k, v in scenario.gamma_rate_params.items()})
    fn = sp.lambdify(theory.S.t, expr, "numpy")
    t = np.arange(1, horizon + 1, dtype=float)
    return np.broadcast_to(np.asarray(fn(t), dtype=float), t.shape).copy()


class KernelizedFamily:
    """Family glue for one theorem id (the interface of ``families/pe_gp_ucb.py``, as an object)."""

    def __init__(self, theorem_id: str, main: str, algorithms: tuple[str, ...]) -> None:
        self.theorem_id, self.MAIN, self.ALGORITHMS = theorem_id, main, algorithms

    # ------------------------------------------------------------------------------ study inputs
    def bound_values(self, scenario: Scenario, horizon: int, delta: float) -> dict[str, float]:
        values = {"T": float(horizon), "delta": float(delta), "R": scenario.noise, "n_X": float(scenario.domain.n)}
        if self.theorem_id != "gp_ucb":
            if scenario.B is None:
                raise BoundcheckError(f"scenario {scenario.name!r} gives no RKHS norm bound B: "
                                      f"{self.theorem_id} needs one (pick an RKHS scenario)")
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
        return paper_gamma(scenario, gamma_upper.size)

    def schedules(self, th, scenario: Scenario, values: dict, gamma_used: np.ndarray) -> dict[str, np.ndarray]:
        T = int(values["T"])
        t = np.arange(T + 1, dtype=float)
        t[0] = 1.0
        gprev = _prev(gamma_used)

        def full(x):
            return np.broadcast_to(np.asarray(x, dtype=float), t.shape).copy()

        if self.theorem_id == "gp_ucb":
            return {"beta": full(th.schedule_values("width_t", t, values))}
        cg, ts = theory.get("igp_ucb"), theory.get("gp_ts")
        sched = {
            "igp_ucb": full(cg.schedule_values("beta_t", t, values, gprev)),
            "gp_ucb": full(cg.schedule_values("beta_gp_ucb_t", t, values, gprev)),
            "gp_ts": full(ts.schedule_values("v_t", t, values, gprev)),
            "gp_ts_ctilde": full(ts.schedule_values("ctilde_t", t, values)),
        }
        sched["beta"] = sched.pop(self.MAIN)  # the theorem's algorithm uses the (scaled) study β
        return sched

    # ------------------------------------------------------------------------------ evaluation
    def evaluate(self, traj: Trajectories, scenario: Scenario, ctx: StudyContext, seed: int):
        ev = _Evaluator(traj, scenario, ctx)
        main = getattr(ev, f"main_{self.theorem_id}")()
        base = dict(run=traj.run_ids, seed=seed)
        frames = [pd.DataFrame({**base, "algorithm": self.MAIN, **ev.common_columns(), **main})]
        for name in traj.algorithms:
            if name != self.MAIN:
                frames.append(pd.DataFrame({**base, "algorithm": name, **ev.baseline_columns(name)}))
        return pd.concat(frames, ignore_index=True), steps_table(traj, ctx, STEP_COLUMNS)


class _Evaluator:
    """Per-chunk computations shared by the claims of the four theorems."""

    def __init__(self, traj: Trajectories, scenario: Scenario, ctx: StudyContext) -> None:
        self.traj, self.sc, self.ctx = traj, scenario, ctx
        self.m, self.T = traj.run_ids.size, traj.horizon
        self.t = np.arange(1, self.T + 1, dtype=float)
        self.lam = scenario.model_noise_var
        self.eta = 2.0 / self.T
        self.R, self.delta = scenario.noise, ctx.config.delta
        self.K = scenario.candidates[0].K
        self.kappa_ok = scenario.candidates[0].kappa <= 1.0 + 1e-12
        self.beta = ctx.beta[1:]  # the theorem's algorithm's width (scaled)
        self.gamma_cert = ctx.gamma_upper  # certified γ_t (whatever the schedules used)
        self._cache: dict[str, dict] = {}

    # ---------------------------------------------------------------- data-space factorisations per algorithm
    def data(self, name: str) -> dict[str, np.ndarray]:
        """Per run: realised information gain (direct, every prefix), Theorem 1's and AY's quantities."""
        if name in self._cache:
            return self._cache[name]
        tr, T, m, lam, eta, R = self.traj.algorithms[name], self.T, self.m, self.lam, self.eta, self.R
        eps = self.traj.noise
        gain_dir = np.zeros((m, T))
        sn_q, sn_thr = np.zeros((m, T)), np.zeros((m, T))
        ay_q = np.zeros((m, T))
        log1d = np.log(1.0 / self.delta)
        for i in range(m):
            KX = self.K[np.ix_(tr.idx[i], tr.idx[i])]
            L = cholesky(KX + lam * np.eye(T), lower=True)
            logd = np.log(np.diag(L))
            gain_dir[i] = np.cumsum(logd - 0.5 * np.log(lam))  # ½ log det(I + K_t/λ), every prefix
            w = solve_triangular(L, eps[i], lower=True)
            e2 = np.cumsum(eps[i] ** 2)
            ay_q[i] = e2 - lam * np.cumsum(w**2)  # ε_{1:t}ᵀK_t(K_t+λI)⁻¹ε_{1:t} = ‖ε‖² − λ‖L_t⁻¹ε‖²
            if abs(lam - (1.0 + eta)) > 1e-15 * lam:
                L = cholesky(KX + (1.0 + eta) * np.eye(T), lower=True)
                logd = np.log(np.diag(L))
                w = solve_triangular(L, eps[i], lower=True)
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

    # ---------------------------------------------------------------- shared claim pieces
    def information(self, name: str) -> np.ndarray:
        """Lemma 3 chain rule, 0 ≤ gain ≤ certified γ_t, Lemma 4 chain (σ² ≤ k ≤ 1 needed: the premise)."""
        tr, d, lam = self.traj.algorithms[name], self.data(name), self.lam
        sig = tr.steps["sigma"]
        S1, S2 = np.cumsum(sig, axis=1), np.cumsum(sig**2, axis=1)
        g = d["gain_on"]
        bad = d["chain_err"] > _TOL_IMPL
        bad |= (g < -1e-12).any(axis=1) | exceeds(g, self.gamma_cert[None]).any(axis=1)
        bad |= exceeds(S1, np.sqrt(self.t[None] * S2)).any(axis=1)
        bad |= exceeds(S2, 2 * g / np.log1p(1 / lam)).any(axis=1)
        if lam >= 1.0:
            bad |= exceeds(S1, np.sqrt(4 * self.t[None] * lam * self.gamma_cert[None])).any(axis=1)
        return bad & self.kappa_ok

    def decomposition(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """At t = T, per run: the engine's μ_T, σ²_T against the batch formulas (2)–(4); bias ≤ ‖f‖σ_T;
        |noise part| ≤ λ^{−1/2}σ_T √(εᵀK(K+λI)⁻¹ε). Premise: f known per run (static truth)."""
        tr, lam, T = self.traj.algorithms[name], self.lam, self.T
        f_all = self.traj.truth.get("f")
        norms = self.traj.truth.get("rkhs_norm", np.full(self.m, np.nan))
        bad = np.zeros(self.m, bool)
        premise = np.zeros(self.m, bool)
        if f_all is None or "mu_final" not in tr.final:
            return bad, premise
        ay_T = self.data(name)["ay_q"][:, -1]
        kdiag = np.diag(self.K)
        for i in range(self.m):
            X = tr.idx[i]
            Kdx = self.K[:, X]
            c = (cholesky(self.K[np.ix_(X, X)] + lam * np.eye(T), lower=True), True)
            mu_f = Kdx @ cho_solve(c, f_all[i, X])
            mu_e = Kdx @ cho_solve(c, self.traj.noise[i])
            var = np.maximum(kdiag - np.einsum("nt,tn->n", Kdx, cho_solve(c, Kdx.T)), 0.0)
            sd = np.sqrt(var)
            scale = max(1.0, float(np.abs(tr.final["mu_final"][i]).max()))
            b = np.abs(mu_f + mu_e - tr.final["mu_final"][i]).max() > _TOL_IMPL * scale
            b |= np.abs(var - tr.final["var_final"][i]).max() > _TOL_IMPL
            b |= bool(exceeds(np.abs(mu_e), sd * np.sqrt(max(ay_T[i], 0.0) / lam)).any())
            if np.isfinite(norms[i]):
                b |= bool(exceeds(np.abs(f_all[i] - mu_f), norms[i] * sd).any())
            bad[i], premise[i] = b, True
        return bad, premise

    def data_dependent_width_fail(self, name: str) -> np.ndarray:
        """General-λ data-dependent width (spec §4.3) with λ₀ = λ/(1+η), η = 2/T, at t = 1..T (uses K_{t−1})."""
        tr, d = self.traj.algorithms[name], self.data(name)
        g_prev = np.concatenate([np.zeros((self.m, 1)), d["gain_dir"][:, :-1]], axis=1)  # ½ log det(I+K_{t−1}/λ)
        w = self.sc.B + self.R / np.sqrt(self.lam) * np.sqrt(
            2 * g_prev + (self.t[None] - 1) * np.log1p(self.eta) + 2 * np.log(1 / self.delta))
        return (tr.monitors["z_all"] > w).any(axis=1)

    def regret_claims(self, name: str) -> dict[str, np.ndarray]:
        Rt = np.cumsum(self.traj.algorithms[name].regret, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):  # a paper's rate γ_1 = 0 makes Bound(1) = 0
            ratio = (Rt / self.ctx.anytime[None]).max(axis=1)
        return {"regret": Rt[:, -1], "tightness": Rt[:, -1] / self.ctx.bound_T, "max_anytime_ratio": ratio,
                "fail_regret_bound": Rt[:, -1] > self.ctx.bound_T,
                "fail_regret_bound_anytime": (Rt > self.ctx.anytime[None]).any(axis=1)}

    def common_columns(self) -> dict[str, np.ndarray]:
        tr = self.traj.truth
        return {"rkhs_norm": tr.get("rkhs_norm", np.full(self.m, np.nan)),
                "B": np.full(self.m, np.nan if self.sc.B is None else float(self.sc.B)),
                "model_noise_var": np.full(self.m, self.lam)}

    def baseline_columns(self, name: str) -> dict[str, np.ndarray]:
        Rr = self.traj.algorithms[name].regret.sum(axis=1)
        d = {"regret": Rr, "tightness": Rr / self.ctx.bound_T, **self.common_columns()}
        conf = self.conf_fail(name)
        if conf is not None:  # the confidence events hold for any predictable query rule: free extra checks
            d["fail_confidence_event"] = conf
        if self.ctx.config.theorem != "gp_ucb":  # Theorem 1 holds for any predictable x_t (random search too)
            d["fail_self_normalized"] = self.data(name)["sn_fail"]
        return d

    # ---------------------------------------------------------------- per theorem
    def main_gp_ucb(self) -> dict[str, np.ndarray]:
        name = "gp_ucb"
        tr, w = self.traj.algorithms[name], self.beta
        z, sig, r = tr.monitors["z_all"], tr.steps["sigma"], tr.regret
        ok = z <= w[None]
        E = ok.all(axis=1)
        d1 = (ok & (exceeds(self.traj.f_opt, tr.steps["ucb"]) | exceeds(r, 2 * w[None] * sig))).any(axis=1)
        g = self.data(name)["gain_on"]
        Rt, r2 = np.cumsum(r, axis=1), np.cumsum(r**2, axis=1)
        wsig = np.cumsum(w[None] ** 2 * sig**2, axis=1)
        S2 = np.cumsum(sig**2, axis=1)
        C1 = 8.0 / np.log1p(1.0 / self.lam)
        d2 = (exceeds(Rt, np.sqrt(self.t[None] * r2)) | exceeds(r2, 4 * wsig) | exceeds(wsig, w[None] ** 2 * S2)
              | exceeds(S2, 2 * g / np.log1p(1.0 / self.lam))
              | exceeds(Rt, np.sqrt(C1 * self.t[None] * w[None] ** 2 * g))).any(axis=1)
        return {
            **self.regret_claims(name),
            "fail_confidence_event": ~E,
            "fail_D1_optimism": d1, "premise_D1_optimism": ok.any(axis=1),
            "fail_D2_intermediate": E & d2 & self.kappa_ok, "premise_D2_intermediate": E & self.kappa_ok,
            "fail_D3_information": self.information(name), "premise_D3_information": np.full(self.m, self.kappa_ok),
            "max_z_over_width": (z / w[None]).max(axis=1),
            "realised_gain": g[:, -1], "chain_rule_rel_err": self.data(name)["chain_err"],
        }

    def main_igp_ucb_confidence(self) -> dict[str, np.ndarray]:
        name = "igp_ucb"
        tr, d = self.traj.algorithms[name], self.data(name)
        ratio = (tr.monitors["z_all"] / self.beta[None]).max(axis=1)
        dec_bad, dec_prem = self.decomposition(name)
        Rr = tr.regret.sum(axis=1)
        return {
            "regret": Rr, "tightness": ratio, "max_z_over_width": ratio,
            "fail_confidence_event": self.conf_fail(name),
            "fail_confidence_data_dependent": self.data_dependent_width_fail(name),
            "fail_self_normalized": d["sn_fail"], "max_self_normalized_ratio": d["sn_ratio"],
            "fail_self_normalized_ay": d["ay_fail"],
            "fail_D1_decomposition": dec_bad, "premise_D1_decomposition": dec_prem,
            "fail_D2_information": self.information(name), "premise_D2_information": np.full(self.m, self.kappa_ok),
            "realised_gain": d["gain_on"][:, -1], "chain_rule_rel_err": d["chain_err"],
        }

    def main_igp_ucb(self) -> dict[str, np.ndarray]:
        name = "igp_ucb"
        tr, d, w = self.traj.algorithms[name], self.data(name), self.beta
        z, sig, r = tr.monitors["z_all"], tr.steps["sigma"], tr.regret
        ok = z <= w[None]
        E = ok.all(axis=1)
        d1 = (ok & (exceeds(self.traj.f_opt, tr.steps["ucb"]) | exceeds(r, 2 * w[None] * sig))).any(axis=1)
        Rt = np.cumsum(r, axis=1)
        wsum = 2 * np.cumsum(w[None] * sig, axis=1)
        S1, S2 = np.cumsum(sig, axis=1), np.cumsum(sig**2, axis=1)
        d2 = (exceeds(Rt, wsum) | exceeds(wsum, 2 * w[None] * S1)
              | exceeds(S1, np.sqrt(self.t[None] * S2))
              | exceeds(S2, 2 * d["gain_on"] / np.log1p(1.0 / self.lam))).any(axis=1)
        return {
            **self.regret_claims(name),
            "fail_confidence_event": ~E, "fail_self_normalized": d["sn_fail"],
            "fail_D1_optimism": d1, "premise_D1_optimism": ok.any(axis=1),
            "fail_D2_intermediate": E & d2 & self.kappa_ok, "premise_D2_intermediate": E & self.kappa_ok,
            "fail_D3_information": self.information(name), "premise_D3_information": np.full(self.m, self.kappa_ok),
            "max_z_over_width": (z / w[None]).max(axis=1),
            "realised_gain": d["gain_on"][:, -1], "chain_rule_rel_err": d["chain_err"],
        }

    def main_gp_ts(self) -> dict[str, np.ndarray]:
        name = "gp_ts"
        tr, d, v = self.traj.algorithms[name], self.data(name), self.beta
        ctil = self.ctx.schedules["gp_ts_ctilde"][1:]
        c = v * (1.0 + ctil)
        z, sig, r, mon = tr.monitors["z_all"], tr.steps["sigma"], tr.regret, tr.monitors
        ef = z <= v[None]  # E^f(t)
        eft = tr.steps["ts_dev"] <= ctil[None]  # E^{f_t}(t)
        late = self.t >= 5
        B, p, t = float(self.sc.B), P_ANTI, self.t
        sample_conc = (~eft).sum(axis=1) - np.sum(1.0 / t**2)
        unsat = mon["unsaturated"].astype(bool)
        lemma9 = (late[None] & ef) * ((p - 1.0 / t[None] ** 2) - unsat)
        Y = (late[None] * (r * ef - 11 * c[None] / p * sig - 2 * B / t[None] ** 2)).sum(axis=1)
        d1 = (ef & exceeds(p, mon["lemma8_p"])).any(axis=1)
        both = ef & eft
        d2 = (both & (exceeds(mon["fdev"], np.broadcast_to(c[None], z.shape)) | exceeds(r, mon["lemma10_rhs"])))
        return {
            **self.regret_claims(name),
            "fail_confidence_event": ~ef.all(axis=1), "fail_self_normalized": d["sn_fail"],
            "value_ts_sample_concentration": sample_conc,
            "value_ts_unsaturated": lemma9.sum(axis=1),
            "value_ts_supermartingale": Y,
            "fail_D1_anticoncentration": d1, "premise_D1_anticoncentration": ef.any(axis=1),
            "fail_D2_ts_step": d2.any(axis=1), "premise_D2_ts_step": both.any(axis=1),
            "fail_D3_information": self.information(name), "premise_D3_information": np.full(self.m, self.kappa_ok),
            "max_z_over_width": (z / v[None]).max(axis=1), "n_sample_event_failures": (~eft).sum(axis=1),
            "frac_unsaturated": unsat.mean(axis=1),
            "realised_gain": d["gain_on"][:, -1], "chain_rule_rel_err": d["chain_err"],
        }


FAMILIES = {
    "gp_ucb": KernelizedFamily("gp_ucb", "gp_ucb", ("gp_ucb", "gp_ei", "gp_pi", "random")),
    "igp_ucb_confidence": KernelizedFamily("igp_ucb_confidence", "igp_ucb", _CG_ALGORITHMS),
    "igp_ucb": KernelizedFamily("igp_ucb", "igp_ucb", _CG_ALGORITHMS),
    "gp_ts": KernelizedFamily("gp_ts", "gp_ts", ("gp_ts", "igp_ucb", "gp_ucb", "gp_ei", "gp_pi", "random")),
}
