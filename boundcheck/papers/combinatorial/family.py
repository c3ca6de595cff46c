"""Paper 002 (combinatorial volatile semi-bandits): Theorems 3.1 and 3.2 for GP-UCB, GP-BUCB and GP-TS.

These are **Bayesian-regret** theorems: f is drawn afresh from the prior in every run, and every claim is an
expectation over f, the noise, the availability and the algorithm's randomness (or a pathwise inequality).
Each run contributes one value per claim; the tests are across runs.

Per round :class:`RoundMonitor` records the truth-side quantities of App. A's proof; the claims then read the R1
chain Q₁ ≤ … ≤ Q₆ (Q₃ Rao–Blackwellised), Lemma A.4, the radius chain of Lemma A.3 and Lemma A.10 pathwise, the
TS identity, the decomposition A.1, the whitened innovations, per-arm coverage, the infinite-case lemmas and the
special-function identities. The bound itself is checked at every t ≤ T.

The schedules are numerical, in log space (ledger B3): :func:`width_ucb`, :func:`width_bucb` and, for the infinite
case, :func:`tau_schedule`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np
import sympy as sp
from scipy.special import erfinv, ndtri_exp

from boundcheck.claims.families.base import (
    ChunkEvaluator,
    Family,
    TheoremInstance,
    check_schedule,
    real_or_complex,
)
from boundcheck.claims.stats import exceeds
from boundcheck.claims.stats import (
    stats as _scipy_stats,  # scipy.stats's values without importing it (boundcheck.utils.laws)
)
from boundcheck.claims.table import ClaimSpec, bound_anytime, bound_at_horizon
from boundcheck.errors import BoundcheckError
from boundcheck.model.mig import gamma_bracket
from boundcheck.model.priors import GPPrior
from boundcheck.papers.combinatorial.model import RFFFeatures, innovation_stats, lambda_star_bounds
from boundcheck.papers.combinatorial.world import ContextualTopK, DAGPaths, check_enough_available
from boundcheck.world.actions import SingleArm, TopK
from boundcheck.world.scenario import Scenario
from theory import S
from theory import combinatorial as paper002

LOG_SQRT_2PI = 0.5 * float(np.log(2 * np.pi))
_PAPER = {th.id: th for th in paper002.THEOREMS}  # the theorems as the paper states them (their widths)
PROBE_TAU = 20  # the probe grid of the pathwise Lemma A.7 check (any τ works for that inequality)
_TOL = 1e-8


# ------------------------------------------------------------------------------------ numeric schedules
def width_ucb(t: np.ndarray, log_size: np.ndarray | float) -> np.ndarray:
    """√β_t = √(2 log(|𝒜| t²/√(2π))) with log|𝒜| = ``log_size`` (d log τ_t in the infinite case)."""
    return np.sqrt(2.0 * (np.asarray(log_size) + 2.0 * np.log(t) - LOG_SQRT_2PI))


def log_eta_bucb(t: np.ndarray, log_size, omega: float, xi: float) -> np.ndarray:
    """log η_t = ω log √(2π) − log 2 − ω log|𝒜| − ξ log t (Lemma 3.1)."""
    return omega * LOG_SQRT_2PI - np.log(2.0) - omega * np.asarray(log_size) - xi * np.log(t)


def width_bucb(t: np.ndarray, log_size, omega: float, xi: float) -> np.ndarray:
    """√β_t = Φ⁻¹(1 − η_t) = √2 erf⁻¹(1 − 2η_t), evaluated as −ndtri_exp(log η_t) (stable for tiny η)."""
    return -ndtri_exp(log_eta_bucb(t, log_size, omega, xi))


def C_omega(omega: float) -> float:
    """C_ω = ϑ^{−1/ω}, ϑ = √(2e/π)√(ω−1)/ω (ω > 1)."""
    return float((np.sqrt(np.pi) * omega / np.sqrt(2 * np.e * (omega - 1))) ** (1 / omega))


def S_ratio(T: np.ndarray, omega: float, xi: float) -> np.ndarray:
    """Lemma 3.1's bound on Σ_{t≤T} t^{−ξ/ω}."""
    T = np.asarray(T, dtype=float)
    r = xi / omega
    if r < 1:
        return omega / (omega - xi) * T ** (1 - r)
    if r == 1:
        return 1.0 + np.log(T)
    return np.full_like(T, xi / (xi - omega))


def tau_schedule(t: np.ndarray, K: int, d: int, C1: float, L: float, log_C2: float, C3: float, noise_sd: float,
                 width_of_log_tau) -> np.ndarray:
    """log τ_t: the smallest τ (an integer while τ < 2⁵³) meeting (6a)–(6d) and the corrected (6b″), (6c′)
    (Asm. 3.2, corrected: ledger I1, I2), for β_t = width_of_log_tau(t, log τ)². Bisection on log τ (each condition is
    monotone in τ for τ ≥ e: β grows like 2d log τ)."""
    t = np.asarray(t, dtype=float)
    s = noise_sd
    rhs_a = np.log(2 * t**2 * K * L * d * C1 * (1 + t * K / s))
    rhs_d = np.log(t**2 * K * d * C1 * C3 * (np.sqrt(np.log(d) + log_C2) + np.sqrt(np.pi) / 2))
    rhs_b = np.log(np.maximum(8 * t**4 * K**2 * L * d * C1, 24 * t**4.5 * K**2.5 * L * d * C1 / s))
    rhs_c = np.log(np.maximum(8.0, 12.0) * t**5 * K**3 * L**2 * d**2 * C1**2 / s**2)

    def ok(log_tau: np.ndarray) -> np.ndarray:
        lb = np.log(width_of_log_tau(t, log_tau) ** 2)
        return ((log_tau >= rhs_a) & (log_tau >= rhs_d) & (log_tau - lb >= rhs_b) & (2 * log_tau - lb >= rhs_c))

    lo, hi = np.ones_like(t), np.full_like(t, 400.0)  # τ ≥ e
    if not ok(hi).all():
        raise BoundcheckError("no discretisation size τ_t ≤ e^400 satisfies Assumption 3.2")
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        good = ok(mid)
        hi = np.where(good, mid, hi)
        lo = np.where(good, lo, mid)
    small = hi < np.log(2.0**53)
    ceil = np.log(np.ceil(np.exp(np.where(small, hi, 0.0))))
    return np.where(small & ok(ceil), ceil, hi)


def grid_round(X: np.ndarray, tau: np.ndarray | float, C1: float = 1.0) -> np.ndarray:
    """[x]_𝒟: the nearest point of the grid with τ points per dimension, {(i + ½)C₁/τ} (‖x − [x]‖₁ ≤ dC₁/τ)."""
    tau = np.asarray(tau, dtype=float)
    i = np.clip(np.floor(X * tau / C1), 0, tau - 1)
    return (i + 0.5) * C1 / tau


# ------------------------------------------------------------------------------------------ the monitor
@dataclass
class RoundMonitor:
    """Truth-side quantities of one round, for every policy with an ``arm_model`` (an
    :class:`~boundcheck.claims.families.base.Observer` the family registers on its theorem instance).

    The engine calls it before the update. It sees f, computes the exact oracle's a*_t on f and the analysis index
    U_t = μ_{t−1} + √β_t σ_{t−1} (the β_t of the theorem's algorithm; GP-TS's analysis β), and records::

        q1 = f(a*_t) − U_t(a*_t),  q2 = Σ_{a∈a*_t}(f(a) − U_t(a))₊,  sig_all = Σ_{a∈𝒜} σ_{t−1}(a),
        u_star = U_t(a*_t),  u_chosen = U_t(a_t),  mu_err = f(a_t) − μ_{t−1}(a_t),  sig_chosen = Σ_{a∈a_t} σ,
        var_chosen = Σ σ²,  n_chosen = |a_t|,  lam_chosen = λ_max(Σ_{t−1}(a_t)),
        logdet_chosen = ½ log det(I + ς⁻²Σ_{t−1}(a_t)),  cover = #{a ∈ 𝒜: f(a) > U_t(a)},  f_worst = min_a f(a)

    and, for contexts, the discretisation gaps of Lemmas A.6, 3.2 and the pathwise Lemma A.7."""

    needs: ClassVar[str] = "arm_model"

    width: np.ndarray  # (T+1,) √β_t of the analysis index U_t (scaled like the theorem's algorithm)
    width_theory: np.ndarray  # (T+1,) the theorem's √β_t (unscaled)
    noise_var: float
    infinite: bool = False
    tau_log: np.ndarray | None = None  # (T+1,) log τ_t of the theorem (Lemma 3.2)
    tau6d_log: np.ndarray | None = None  # (T+1,) log of the (6d) size (Lemma A.6)
    L: float = 0.0
    C1: float = 1.0

    def observe(self, t, models, f, avail, action, y, actions, cache) -> dict[str, np.ndarray]:
        model = models["arm_model"]
        exposes_posterior = "posterior" in models  # the engine records its innovations then (finite domains)
        mu, sd = model.mean_sd()
        w = float(self.width[t])
        U = mu + w * sd
        if "a_star" not in cache:
            cache["a_star"] = actions.oracle(f, avail)
            cache["f_worst"] = actions.value(f, actions.oracle(-f, avail))
        a_star = cache["a_star"]

        def take(X, idx):
            ok = idx >= 0
            return np.where(ok, np.take_along_axis(X, np.maximum(idx, 0), axis=1), 0.0)

        gap_star = take(f, a_star) - take(U, a_star)
        S = model.cov_block(action)
        valid = action >= 0
        lam = np.linalg.eigvalsh(S)[:, -1]
        logdet = 0.5 * np.linalg.slogdet(np.eye(S.shape[1])[None] + S / self.noise_var)[1]
        out = {
            "q1": gap_star.sum(axis=1), "q2": np.maximum(gap_star, 0.0).sum(axis=1),
            "u_star": take(U, a_star).sum(axis=1), "u_chosen": take(U, action).sum(axis=1),
            "u_best": actions.best_value(U, avail),  # max_{a∈𝒮_t} U_t(a), the action set's own exact maximum
            "mu_err": (take(f, action) - take(mu, action)).sum(axis=1), "sig_chosen": take(sd, action).sum(axis=1),
            "var_chosen": (take(sd, action) ** 2).sum(axis=1), "n_chosen": valid.sum(axis=1).astype(float),
            "lam_chosen": lam, "logdet_chosen": logdet, "f_worst": cache["f_worst"],
        }
        if not self.infinite:
            out["sig_all"] = sd.sum(axis=1)
            out["q2_all"] = np.maximum(f - U, 0.0).sum(axis=1)  # Σ_{a∈𝒜}(f(a) − U_t(a))₊
            out["cover"] = (f > U).sum(axis=1).astype(float)
            # probability integral transform at the theorem's threshold: v = Φ((f − U_t)/σ + √β_t) ~ U(0, 1) for
            # every arm when U_t uses the theorem's β_t and the posterior is the law of f given H_t
            # E[v²] = 1/3: the second moment sees a shifted law (β too small, f-dependent availability) and a
            # mis-scaled one (an overconfident posterior) alike, and weights the upper tail the claim is about
            z = (f - U) / np.maximum(sd, 1e-300) + float(self.width_theory[t])
            out["pit"] = (_scipy_stats.norm.cdf(z) ** 2 - 1.0 / 3.0).mean(axis=1)
        if not exposes_posterior or action.shape[1] == 1:  # what the engine does not record (it does K > 1)
            stats = innovation_stats(S, y - take(mu, action), valid, self.noise_var)
            if exposes_posterior:
                stats.pop("innov")  # the engine's own single-arm innovation stays
            out.update(stats)
        if self.infinite:
            out.update(self._infinite(t, model, avail, action, a_star, cache, U, mu, sd, w, actions))
        return out

    def _infinite(self, t, model, X, action, a_star, cache, U, mu, sd, w, actions) -> dict[str, np.ndarray]:
        feats = model.features
        rows = np.arange(X.shape[0])[:, None]
        wts = cache["draw"]  # the truth's weights: f = φᵀw anywhere
        # Lemma A.6: f(a*) − f([a*]) on the (6d) grid
        Xs = X[rows, a_star]
        tau6 = np.exp(self.tau6d_log[t])
        f_round = np.einsum("mkd,md->mk", feats(grid_round(Xs, tau6, self.C1)), wts)
        f_star = np.einsum("mkd,md->mk", feats(Xs), wts)
        # Lemma 3.2: U([a_t]) − U(a_t) on the theorem's grid
        Xa = X[rows, action]
        mu_r, sd_r = model.mean_sd_at(grid_round(Xa, np.exp(self.tau_log[t]), self.C1))
        l32 = (mu_r + w * sd_r).sum(axis=1) - np.take_along_axis(U, action, axis=1).sum(axis=1)
        # Lemma A.7 (pathwise) at every available context and its probe-grid neighbour
        Xp = grid_round(X, PROBE_TAU, self.C1)
        r = np.abs(Xp - X).sum(axis=2)  # ‖x − a‖₁
        mu_p, sd_p = model.mean_sd_at(Xp)
        N = model.post.n_obs[:, None].astype(float)
        res = np.sqrt(model.post.resid_sq)[:, None]
        s = np.sqrt(self.noise_var)
        mean_bound = self.L * r * (1 + np.sqrt(N) / s * res)
        var_bound = 2 / s * self.L * r * np.sqrt(N) + self.L**2 * r**2 * N / self.noise_var  # corrected (L_diag = 0)
        a7 = exceeds(np.abs(mu_p - mu), mean_bound) | exceeds(np.abs(sd_p**2 - sd**2), var_bound)
        eq67 = exceeds(sd_p - sd, np.sqrt(self.L * r + N * self.L**2 * r**2 / self.noise_var))  # as printed
        return {"a6_gap": (f_star - f_round).sum(axis=1), "l32_gap": l32, "a7_fail": a7.sum(axis=1).astype(float),
                "eq67_fail": eq67.sum(axis=1).astype(float)}


# ---------------------------------------------------------------------------------------- the evaluator
class CombEvaluator(ChunkEvaluator):
    """Per-run statistics of the claims of one chunk (the theorem's algorithm ``main``)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.tr = self.traj.algorithms[self.main]
        self.mon = self.tr.monitors
        self.w = self.inst.beta[1:]  # √β_t of the analysis index (scaled)
        self.b = self.w**2
        self.x = self.inst.extra
        self.s = self.x["s"]
        self.Rt = np.cumsum(self.tr.regret, axis=1)

    def M(self, name: str) -> np.ndarray:
        return self.mon[name]

    # ------------------------------------------------------------------ the bound
    def bayes_regret(self) -> dict:
        return {"value": self.Rt[:, -1] - self.inst.bound_T}

    # ------------------------------------------------------------------ R1 chain
    @cached_property
    def Q(self) -> dict[str, np.ndarray]:
        w = self.w
        phi, tail = _scipy_stats.norm.pdf(w), _scipy_stats.norm.sf(w)
        out = {"Q1": self.M("q1").sum(axis=1), "Q2": self.M("q2").sum(axis=1)}
        if "q2_all" in self.mon:
            out["Q2_all"] = self.M("q2_all").sum(axis=1)
        if "sig_all" in self.mon:
            sig_all = self.M("sig_all")
            out["Q3"] = (sig_all * (phi - w * tail)[None]).sum(axis=1)
            out["Q4"] = (sig_all * phi[None]).sum(axis=1)
            out["Q5"] = np.full(self.m, self.s * self.x["n_X"] * phi.sum())
        out["Q6"] = np.full(self.m, self.x["Q6"])
        return out

    def r1_left_term(self) -> dict:
        return {"value": self.Q["Q1"] - self.Q["Q6"]}

    def r1_chain_pathwise(self) -> dict:
        """The falsifiable steps of the R1 chain: Σ_a σ_{t−1}(a) ≤ s|𝒜| every round (Q₄ ≤ Q₅ termwise; a model
        wider than the prior breaks it) and Q₅ ≤ Q₆ (an index width below the theorem's breaks it)."""
        Q = self.Q
        bad = exceeds(Q["Q5"], Q["Q6"])
        bad |= exceeds(self.M("sig_all"), self.s * self.x["n_X"]).any(axis=1)  # Q₄ ≤ Q₅ round by round: σ ≤ s
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def r1_chain_identity(self) -> dict:
        """The steps true by construction (a sanity identity): Q₁ ≤ Q₂ (x ≤ x₊), Q₂ ≤ Σ_tΣ_{a∈𝒜}(f − U_t)₊ (more
        non-negative terms) and Q₃ ≤ Q₄ (√β Φ̄(√β) ≥ 0)."""
        Q = self.Q
        bad = exceeds(Q["Q1"], Q["Q2"]) | exceeds(Q["Q2"], Q["Q2_all"]) | exceeds(Q["Q3"], Q["Q4"])
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def r1_conditional(self) -> dict:
        """The Rao–Blackwell step Q₂ ≤ Q₃ in expectation: pathwise Q₂ ≤ Σ_tΣ_{a∈𝒜}(f − U_t)₊ (checked in the
        pathwise chain), whose expectation is Q₃ (tower property). Tested as E[Q₂ − Q₃] ≤ 0 (Q₃ is the exact
        conditional value, a Rao–Blackwellised, low-variance estimate; an equality test of E[Σ(f − U)₊] = Q₃
        would face the heavy right tail of the rare exceedances, skewness ≈ 20, and false alarms)."""
        return {"value": self.Q["Q2"] - self.Q["Q3"]}

    def coverage(self) -> dict:
        """Per-arm coverage P(f(a) > U_t(a)) = Φ̄(√β_t) at every (t, a), through the probability integral
        transform v = Φ((f(a) − U_t(a))/σ_{t−1}(a) + √β_t), U(0, 1) under the claim: E[v²] = 1/3 (a bounded
        statistic; the raw exceedance counts are heavy-tailed, clumped over correlated arms, and are reported
        as diagnostics)."""
        return {"value": self.M("pit").mean(axis=1)}

    @cached_property
    def expected_exceedances(self) -> float:
        return float(self.x["n_X"] * _scipy_stats.norm.sf(self.inst.schedules["beta_theory"][1:]).sum())

    # ------------------------------------------------------------------ radius chain, Lemma A.10
    @cached_property
    def radius(self) -> dict[str, np.ndarray]:
        t, w, b, K, s2 = self.t[None], self.w[None], self.b[None], self.x["K"], self.sc.model_noise_var
        var = np.cumsum(self.M("var_chosen"), axis=1)
        info = np.cumsum(self.M("logdet_chosen"), axis=1)
        lam_hat = np.maximum.accumulate(self.M("lam_chosen"), axis=1)
        return {
            "P1": np.cumsum(w * self.M("sig_chosen"), axis=1),
            "P2": np.sqrt(np.cumsum(self.M("n_chosen") * b, axis=1) * var),
            "P3": np.sqrt(t * K * b * var),
            "P4": np.sqrt(t * K * b * 2 * (lam_hat + s2) * info),
            "P5": np.sqrt(2 * (self.x["lambda_K"] + s2) * t * K * b * self.inst.gamma_upper[None]),
            "var": var, "info": info, "lam_hat": lam_hat,
        }

    def _radius_steps(self, steps: tuple[tuple[str, str], ...]) -> dict:
        r = self.radius
        bad = np.zeros(self.m, bool)
        for lo, hi in steps:
            bad |= exceeds(r[lo], r[hi]).any(axis=1)
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def radius_chain(self) -> dict:
        """Eq. (34)'s steps that depend on the posterior: Σσ² against the information gain and γ."""
        return self._radius_steps((("P3", "P4"), ("P4", "P5")))

    def radius_chain_identity(self) -> dict:
        """Eq. (34)'s first two steps, true for any numbers (Cauchy–Schwarz; |a_τ| ≤ K with β non-decreasing)."""
        return self._radius_steps((("P1", "P2"), ("P2", "P3")))

    def lemma_a10(self) -> dict:
        r, s2 = self.radius, self.sc.model_noise_var
        info_T, var_T, lam_T = r["info"][:, -1], r["var"][:, -1], r["lam_hat"][:, -1]
        direct = self.info_direct
        chain_err = np.abs(info_T - direct) / np.maximum(1.0, np.abs(direct))
        bad = exceeds(var_T, 2 * (lam_T + s2) * info_T) | exceeds(lam_T, self.x["lambda_K"]) | (chain_err > _TOL)
        bad |= exceeds(direct, self.inst.gamma_upper[-1]) | (direct < -1e-12)
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    @cached_property
    def info_direct(self) -> np.ndarray:
        """½ log det(I + ς⁻² K_{N_T}) of the multiset the algorithm chose, from the trajectory and the prior Gram
        (Sylvester: = ½ log det(I_n + ς⁻² diag(n_x) K)), independent of the policy's posterior. Contexts (the
        infinite case) are not stored: the policy's direct Φᵀ Φ accumulation is used there."""
        if self.x.get("infinite"):
            return self.tr.final["info_direct"]
        K, n, s2 = self.sc.candidates[0].K, self.sc.domain.n, self.sc.model_noise_var
        a = self.tr.actions.reshape(self.m, -1)
        out = np.empty(self.m)
        for i in range(self.m):
            counts = np.bincount(a[i][a[i] >= 0], minlength=n)
            out[i] = 0.5 * np.linalg.slogdet(np.eye(n) + counts[:, None] * K / s2)[1]
        return out

    # ------------------------------------------------------------------ UCB identities
    def lemma_a4(self) -> dict:
        return {"value": self.M("mu_err").sum(axis=1)}

    def decomposition(self) -> dict:
        """U_t(a*_t) ≤ max_a U_t(a) = U_t(a_t): the oracle returned a maximiser of the index."""
        bad = (exceeds(self.M("u_star"), self.M("u_best")) | exceeds(self.M("u_best"), self.M("u_chosen"))).any(axis=1)
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def special_functions(self) -> dict:
        used = self.tr.steps["width"]  # what the algorithm multiplied σ by
        theory = self.inst.schedules["beta_theory"][1:]
        bad = exceeds(np.abs(used - theory[None]), 1e-9 * np.abs(theory[None])).any(axis=1)
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def special_functions_identity(self) -> dict:
        """The schedule's formulas (no run enters them): the same answer on every run."""
        x, t = self.x, self.t
        theory = self.inst.schedules["beta_theory"][1:]
        ok = bool(np.all(np.diff(theory) >= -1e-12))  # β_t non-decreasing
        if x.get("bucb"):
            log_eta = x["log_eta"][1:]
            ok &= bool(np.all(log_eta < np.log(0.5)))
            eta = np.exp(log_eta)
            fin = eta > 1e-12  # where erf⁻¹(1 − 2η) is representable: the erf form must agree
            ok &= bool(np.allclose(np.sqrt(2) * erfinv(1 - 2 * eta[fin]), theory[fin], rtol=1e-6))
            om, xi = x["omega"], x["xi"]
            vartheta = np.sqrt(2 * np.e / np.pi) * np.sqrt(om - 1) / om
            # Lemma A.11 at u = 1 − 2η: e^{−erf⁻¹(u)²} = e^{−β/2} ≤ (2η/ϑ)^{1/ω}, in logs
            ok &= bool(np.all(-theory**2 / 2 <= (np.log(2) + log_eta - np.log(vartheta)) / om + 1e-12))
            # Lemma A.12 (ω' = ϑ' = 1): erf⁻¹(u) ≤ √(−log(1 − u))
            ok &= bool(np.all(theory / np.sqrt(2) <= np.sqrt(-(np.log(2) + log_eta)) + 1e-12))
            ok &= abs(vartheta ** (-1 / om) - C_omega(om)) <= 1e-12 * C_omega(om)
            ok &= bool(np.all(np.cumsum(t ** (-xi / om)) <= S_ratio(t, om, xi) * (1 + 1e-12)))
        elif not x.get("infinite"):
            ok &= bool(np.allclose(x["n_X"] * _scipy_stats.norm.pdf(theory), t**-2.0, rtol=1e-9))
        return {"fail": np.full(self.m, not ok), "premise": np.ones(self.m, bool)}

    # ------------------------------------------------------------------ TS
    def ts_identity(self) -> dict:
        return {"value": (self.M("u_star") - self.M("u_chosen")).sum(axis=1)}

    def ts_lcb(self) -> dict:
        lf = -self.M("mu_err") - self.w[None] * self.M("sig_chosen")
        return {"value": lf.sum(axis=1) - self.s * np.pi**2 / 6}

    def lemma_a5(self) -> dict:
        uf = self.w[None] * self.M("sig_chosen") - self.M("mu_err")
        return {"value": uf.sum(axis=1) - (self.inst.bound_terms["radius"] + self.s * np.pi**2 / 6)}

    # ------------------------------------------------------------------ infinite case
    def lemma_a6(self) -> dict:
        return {"value": self.M("a6_gap").sum(axis=1) - np.pi**2 / 6}

    def lemma_3_2(self) -> dict:
        return {"value": self.M("l32_gap").sum(axis=1) - np.pi**2 / 6}

    def lemma_a7(self) -> dict:
        return {"fail": self.M("a7_fail").sum(axis=1) > 0, "premise": np.ones(self.m, bool)}


# ------------------------------------------------------------------------------------------- the family
_BASE = frozenset({"q1", "q2", "u_star", "u_chosen", "mu_err", "sig_chosen", "var_chosen", "n_chosen",
                   "lam_chosen", "logdet_chosen", "f_worst"})


class CombinatorialFamily(Family):
    """One family class for the six theorems of paper 002 (``theorem.id`` picks the claims and schedules)."""

    evaluator_class = CombEvaluator
    step_columns = ("width", "n_arms")
    truth_types = (GPPrior,)  # Bayesian theorems: f is drawn from the prior (weights w for contexts)

    @property
    def infinite(self) -> bool:
        return self.theorem.id.endswith("_infinite")

    @property
    def kind(self) -> str:
        return {"comb_gp_ucb": "ucb", "comb_gp_bucb": "bucb", "comb_gp_ts": "ts"}[self.theorem.id.removesuffix(
            "_infinite")]

    @property
    def schedules_read(self) -> tuple[str, ...]:
        """√β_t of the theorem's algorithm (``width_t``: its UCB index, the analysis index U_t of every claim) on a
        finite domain; none in the infinite case, where β_t depends on τ_t, which is no bound symbol (solved by
        the family from (6a)–(6d))."""
        return () if self.infinite else ("width_t",)

    def _main_width(self, ws: dict, values: dict, T: int) -> np.ndarray:
        """√β_t (t = 0..T) of the theorem's algorithm: the theorem's ``width_t``. Where that is the paper's
        expression (every built-in theorem, and a theorem of your own that keeps it) the family's numerically
        stable form of it (log space, ledger B3) evaluates it; a theorem of your own with a width of its own runs
        that one, lambdified with SciPy's special functions (erfc⁻¹)."""
        main = ws["bucb" if self.kind == "bucb" else "ucb"]
        if self.infinite:
            return main
        th = self.theorem
        if th.schedules["width_t"] == _PAPER[th.id].schedules["width_t"]:
            return main
        t = np.maximum(np.arange(T + 1, dtype=float), 1.0)
        syms = [S.t, *(sym for sym, _ in th.symbols.values()), S.gamma_tm1]
        fn = sp.lambdify(syms, th.schedules["width_t"], ["scipy", "numpy"])
        with np.errstate(all="ignore"):  # a width that is not finite is refused by check_instance
            w = fn(t, *[values.get(n, 0.0) for n in th.symbols], 0.0)
        return np.broadcast_to(real_or_complex(w), t.shape).copy()

    def claim_table(self) -> list[ClaimSpec]:
        c, E, inf = self.theorem.claim, CombEvaluator, self.infinite
        specs = [ClaimSpec(c("bayes_regret"), E.bayes_regret, bound=bound_at_horizon),
                 ClaimSpec(c("bayes_regret_anytime"), None, sample="bound_excess", bound=bound_anytime),
                 ClaimSpec(c("R1_left_term"), E.r1_left_term, frozenset({"q1"}))]
        if not inf:
            specs += [ClaimSpec(c("R1_chain_pathwise"), E.r1_chain_pathwise, frozenset({"sig_all"})),
                      ClaimSpec(c("R1_chain_identity"), E.r1_chain_identity,
                                frozenset({"q1", "q2", "q2_all", "sig_all"})),
                      ClaimSpec(c("R1_conditional"), E.r1_conditional, frozenset({"q2_all", "sig_all"})),
                      ClaimSpec(c("coverage"), E.coverage, frozenset({"cover", "pit"}))]
        specs += [ClaimSpec(c("radius_chain"), E.radius_chain, _BASE),
                  ClaimSpec(c("radius_chain_identity"), E.radius_chain_identity, _BASE),
                  ClaimSpec(c("lemma_A10"), E.lemma_a10, _BASE | {"info_direct"}),
                  ClaimSpec(c("K1_innovations"), None, frozenset({"innov"}), sample="innov"),
                  ClaimSpec(c("K2_innovation_norms"), None, frozenset({"innov_norm"}), sample="innov_norm")]
        if self.kind == "ts":
            specs += [ClaimSpec(c("ts_identity"), E.ts_identity, frozenset({"u_star", "u_chosen"})),
                      ClaimSpec(c("ts_lcb"), E.ts_lcb, frozenset({"mu_err", "sig_chosen"})),
                      ClaimSpec(c("lemma_A5"), E.lemma_a5, frozenset({"mu_err", "sig_chosen"}))]
        else:
            specs += [ClaimSpec(c("lemma_A4"), E.lemma_a4, frozenset({"mu_err"})),
                      ClaimSpec(c("decomposition"), E.decomposition, frozenset({"u_star", "u_chosen", "u_best"})),
                      ClaimSpec(c("special_functions"), E.special_functions, frozenset({"width"})),
                      ClaimSpec(c("special_functions_identity"), E.special_functions_identity)]
        if inf:
            specs += [ClaimSpec(c("lemma_A6"), E.lemma_a6, frozenset({"a6_gap"})),
                      ClaimSpec(c("lemma_3_2"), E.lemma_3_2, frozenset({"l32_gap"})),
                      ClaimSpec(c("lemma_A7"), E.lemma_a7, frozenset({"a7_fail"}))]
        return specs

    # ------------------------------------------------------------------ validation and constants
    def check_scenario(self, scenario: Scenario) -> None:
        """Bad input is refused before anything runs (one line, exit 2): see :meth:`_check`."""
        super().check_scenario(scenario)
        self._check(scenario)

    def _check(self, sc: Scenario) -> None:
        acts = sc.actions
        contextual = isinstance(acts, ContextualTopK)
        if self.infinite != contextual:
            want = "a contextual (infinite 𝒜)" if self.infinite else "a finite"
            raise BoundcheckError(f"{self.theorem.id} needs {want} scenario; {sc.name!r} is "
                                  f"{'contextual' if contextual else 'finite'}")
        if not isinstance(acts, TopK | DAGPaths | SingleArm | ContextualTopK):
            raise BoundcheckError(f"scenario {sc.name!r}: {type(acts).__name__} has no exact oracle known to "
                                  f"{self.theorem.id} (use TopK, DAGPaths or ContextualTopK)")
        check_enough_available(acts)
        kappa = max(p.kappa for p in sc.candidates)
        if kappa > 1 + 1e-12 and not sc.params.get("rescale_prior", False):
            raise BoundcheckError(f"scenario {sc.name!r}: the kernel has k(a, a) = {kappa:.4g} > 1 and the theorem "
                                  "assumes k ≤ 1; normalise it or set params['rescale_prior'] = True (the scaled "
                                  "bound of ledger S5)")
        if not self.infinite and sc.domain.n < 3:
            raise BoundcheckError(f"|𝒜| = {sc.domain.n}: β_1 > 0 needs at least 3 base arms")
        if (sc.truth_index is None and sc.reference_index is None) or sc.model_noise != "R2":
            raise BoundcheckError(f"{self.theorem.id} is a Bayesian theorem: the model must be the prior f is drawn "
                                  "from (or, out of theory, name a reference prior), with the data's noise variance")
        if self.kind == "bucb" or "omega" in self.theorem.symbols:
            self._bucb_params(sc, strict=True)

    def _bucb_params(self, sc: Scenario, strict: bool) -> tuple[float, float]:
        om, xi = float(sc.params.get("omega", 1.1)), float(sc.params.get("xi", 2.2))
        if strict and not (om > 1 and xi > om):
            raise BoundcheckError(f"{self.theorem.id} (Theorem 3.{2 if self.infinite else 1}(ii)) needs ξ > ω > 1; "
                                  f"scenario {sc.name!r} gives ξ = {xi:g}, ω = {om:g}")
        return om, xi

    def _constants(self, sc: Scenario) -> dict:
        acts, prior = sc.actions, sc.candidates[0]
        K = int(acts.K)
        out: dict = {"K": K, "noise_var": sc.model_noise_var}
        if self.infinite:
            f: RFFFeatures = acts.features
            out.update(lambda_K=float(K), lambda_K_lower=float(K), d=f.d, L=f.L, C1=f.C1, log_C2=f.log_C2, C3=f.C3,
                       s=1.0)
            return out
        kappa = prior.kappa
        out["s"] = float(np.sqrt(kappa)) if sc.params.get("rescale_prior", False) else 1.0
        feasible = None
        if isinstance(acts, DAGPaths):
            rng = np.random.default_rng(0)
            feasible = acts.oracle(rng.standard_normal((64, prior.n)), np.ones(prior.n, dtype=bool))
        lo, up = lambda_star_bounds(prior.K, K, feasible)
        out.update(lambda_K=up, lambda_K_lower=lo, n_X=float(prior.n))
        return out

    def _widths(self, sc: Scenario, c: dict, T: int) -> dict[str, np.ndarray]:
        """√β_t (t = 0..T; entry 0 repeats t = 1) of every algorithm by name, and the infinite case's τ_t."""
        t = np.maximum(np.arange(T + 1, dtype=float), 1.0)
        om, xi = self._bucb_params(sc, strict=False)
        out: dict[str, np.ndarray] = {}
        if not self.infinite:
            logn = np.log(c["n_X"])
            out["ucb"], out["bucb"] = width_ucb(t, logn), width_bucb(t, logn, om, xi)
            out["log_eta"] = log_eta_bucb(t, logn, om, xi)
            return out
        args = (int(c["K"]), c["d"], c["C1"], c["L"], c["log_C2"], c["C3"], float(sc.noise))
        d = c["d"]
        tau_u = tau_schedule(t, *args, lambda tt, lt: width_ucb(tt, d * lt))
        tau_b = tau_schedule(t, *args, lambda tt, lt: width_bucb(tt, d * lt, om, xi))
        out["ucb"], out["bucb"] = width_ucb(t, d * tau_u), width_bucb(t, d * tau_b, om, xi)
        out["log_eta"] = log_eta_bucb(t, d * tau_b, om, xi)
        out["tau_ucb"], out["tau_bucb"] = tau_u, tau_b
        rhs_d = np.log(t**2 * c["K"] * d * c["C1"] * c["C3"] * (np.sqrt(np.log(d) + c["log_C2"]) + np.sqrt(np.pi) / 2))
        out["tau6d"] = np.log(np.ceil(np.exp(rhs_d)))
        return out

    @staticmethod
    def _experiment_schedules(c: dict, T: int) -> dict[str, np.ndarray]:
        """√β_t of the paper's experimental variants (§4, outside the theorems): GP-UCB's β_t, GP-BUCB with
        ω = 1 and ξ = 1 (Exps. 1–3) or ξ = 0.5 (Exp. 2), GP-UCB with β_t × 0.5 (Exp. 2)."""
        if "n_X" not in c:
            return {}
        t = np.maximum(np.arange(T + 1, dtype=float), 1.0)
        logn = np.log(c["n_X"])
        ucb, bucb = width_ucb(t, logn), width_bucb(t, logn, 1.0, 1.0)
        return {"comb_gp_ucb_alg2": ucb, "comb_bi_ucb_alg2": ucb, "comb_gp_bucb_alg2": bucb,
                "comb_bi_bucb_alg2": bucb, "comb_gp_bucb_half_alg2": width_bucb(t, logn, 1.0, 0.5),
                "comb_gp_ucb_half_alg2": np.sqrt(0.5) * ucb}

    def bound_values(self, scenario: Scenario, horizon: int, delta: float) -> dict[str, float]:
        self._check(scenario)
        c = self._constants(scenario)
        ws = self._widths(scenario, c, horizon)
        values = {"T": float(horizon), "R": float(scenario.noise), "K": float(c["K"]), "lambda_K": c["lambda_K"],
                  "beta_T": np.nan, "gamma_T": np.nan}
        if not self.infinite:
            values.update(n_X=c["n_X"], s=c["s"])
        if "omega" in self.theorem.symbols:
            values["omega"], values["xi"] = self._bucb_params(scenario, strict=True)
        values["beta_T"] = float(np.real(self._main_width(ws, values, horizon)[-1] ** 2))  # β_T of the bound
        return values

    def gamma_noise_var(self, scenario: Scenario) -> float:
        return scenario.model_noise_var

    def gamma_groups(self, scenario: Scenario) -> dict:
        p = scenario.candidates[0]
        return {p.kernel_key: (p.K, 0.0)}

    def instantiate(self, scenario: Scenario, horizon: int, delta: float, beta_scale: float = 1.0) -> TheoremInstance:
        th, T, sc = self.theorem, int(horizon), scenario
        self._check(sc)
        c = self._constants(sc)
        ws = self._widths(sc, c, T)
        values = self.bound_values(sc, T, delta)
        rounds = np.arange(1, T + 1)
        s2 = sc.model_noise_var
        if self.infinite:
            g_up = sc.actions.features.gamma_upper(rounds * c["K"], s2)
            g_lo = np.full(T, np.nan)
            methods = {"finite_features": float(g_up[-1])}
        else:
            # a scenario may ask for cheaper certified methods (large TK, e.g. the road network's experiments)
            br = gamma_bracket(sc.candidates[0].K, T, noise_var=s2, batch=int(c["K"]),
                               methods=sc.params.get("gamma_methods"))
            g_up, g_lo = br.upper, br.lower
            methods = {k: float(v[-1]) for k, v in br.methods.items()}
        values["gamma_T"] = float(g_up[-1])
        theory_width = self._main_width(ws, values, T)
        check_schedule(self.theorem_name, theory_width * beta_scale, delta=delta, beta_scale=beta_scale)
        anytime_vals = {**values, "T": rounds.astype(float), "beta_T": theory_width[1:] ** 2, "gamma_T": g_up}
        with np.errstate(all="ignore"):  # a bound that is not finite is refused below, in one line
            bound = th.evaluate(values)
            at = th.evaluate(anytime_vals)
        sched = {"comb_gp_ucb": ws["ucb"], "comb_gp_bucb": ws["bucb"], "comb_gp_ts": ws["ucb"],
                 "comb_gp_ts_independent": ws["ucb"], "comb_bi_ucb": ws["ucb"], "comb_bi_bucb": ws["bucb"],
                 "comb_bi_ts": ws["ucb"], **self._experiment_schedules(c, T)}
        sched["beta_theory"] = theory_width.copy()
        sched.pop(self.main, None)
        beta = theory_width * beta_scale
        self.check_instance(bound["terms"], at["terms"], T, beta, delta, beta_scale, sched)
        anytime = np.broadcast_to(np.asarray(at["value"], dtype=float), (T,)).copy()
        extra = {**{k: float(v) for k, v in c.items() if np.isscalar(v)}, "bucb": self.kind == "bucb",
                 "infinite": self.infinite, "log_eta": ws["log_eta"]}
        if self.kind == "bucb":
            om, xi = values["omega"], values["xi"]
            extra.update(omega=om, xi=xi, Q6=c["s"] * C_omega(om) * xi / (xi - om))
        else:
            extra["Q6"] = c["s"] * np.pi**2 / 6
        monitor = RoundMonitor(beta, theory_width, s2, self.infinite)
        if self.infinite:
            monitor.tau_log = ws["tau_bucb" if self.kind == "bucb" else "tau_ucb"]
            monitor.tau6d_log = ws["tau6d"]
            monitor.L, monitor.C1 = c["L"], c["C1"]
            extra["tau_T"] = float(np.exp(monitor.tau_log[-1]))
        return TheoremInstance(
            horizon=T, delta=float(delta), values=values, beta=beta, xi=np.zeros(T + 1), B=float("nan"),
            C=float("nan"), bound_T=float(bound["value"]), bound_terms={k: float(v) for k, v in bound["terms"].items()},
            anytime=anytime, gamma_upper=np.asarray(g_up, dtype=float), gamma_lower=np.asarray(g_lo, dtype=float),
            gamma_methods=methods, schedules=sched, gamma_used=np.asarray(g_up, dtype=float), extra=extra,
            observers=(monitor,))

    # ------------------------------------------------------------------ per-run columns
    def main_diagnostics(self, ev: CombEvaluator) -> dict[str, np.ndarray]:
        R_T = ev.Rt[:, -1]
        trivial = (ev.traj.f_opt - ev.M("f_worst")).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            any_ratio = (ev.Rt / ev.inst.anytime[None]).max(axis=1)
        out = {"regret": R_T, "tightness": R_T / ev.inst.bound_T, "max_anytime_ratio": any_ratio,
               "trivial_regret": trivial, "bound_over_trivial": ev.inst.bound_T / trivial,
               "realised_gain": ev.info_direct, "lambda_hat": ev.radius["lam_hat"][:, -1]}
        out.update(ev.Q)
        out.update(self._arm_counts(ev, ev.main))
        if not self.infinite:  # the tail counts behind the coverage claim
            out["exceedances"] = ev.M("cover").sum(axis=1)
            out["expected_exceedances"] = np.full(ev.m, ev.expected_exceedances)
        if self.infinite:
            out["eq67_violations"] = ev.M("eq67_fail").sum(axis=1)
        return out

    def _arm_counts(self, ev: CombEvaluator, name: str) -> dict[str, list]:
        """How often each base arm was chosen over the horizon, per run, as "c₀,c₁,…" (super arms on a fixed
        domain; drawn as the chosen paths of the experiments)."""
        if self.infinite:
            return {}
        a = ev.traj.algorithms[name].actions.reshape(ev.m, -1)
        n = ev.sc.domain.n
        return {"arm_counts": [",".join(map(str, np.bincount(r[r >= 0], minlength=n))) for r in a]}

    def baseline_columns(self, ev: CombEvaluator, name: str) -> dict[str, np.ndarray]:
        tr = ev.traj.algorithms[name]
        d = {**super().baseline_columns(ev, name), **self._arm_counts(ev, name)}
        d["trivial_regret"] = (ev.traj.f_opt - tr.monitors["f_worst"]).sum(axis=1) if "f_worst" in tr.monitors \
            else np.full(ev.m, np.nan)
        if "u_star" in tr.monitors:  # the GP policies' identities: the independent TS must fail the TS one
            d["value_ts_identity"] = (tr.monitors["u_star"] - tr.monitors["u_chosen"]).sum(axis=1)
            d["value_lemma_A4"] = tr.monitors["mu_err"].sum(axis=1)
        return d

    def derived_steps(self, ev: CombEvaluator) -> dict[str, np.ndarray]:
        """The steps column ``bound_excess`` = R_t − Bound(t) of a checked algorithm (the anytime claim's sample)."""
        return {"bound_excess": ev.Rt - ev.inst.anytime[None]}


FAMILIES = tuple(CombinatorialFamily(th) for th in paper002.THEOREMS)

__all__ = ["CombinatorialFamily", "CombEvaluator", "RoundMonitor", "width_ucb", "width_bucb", "log_eta_bucb",
           "C_omega", "S_ratio", "tau_schedule", "grid_round", "FAMILIES"]
