"""The family of compact-domain theorems of GP-UCB type (Srinivas et al. 2010, Theorem 2, and those checked like it):
claims computed from what the continuum engine (:mod:`boundcheck.study.continuum`) observed on a box.

What each statistic reads, all observed, none taken from the algorithm's say-so: the regret against the truth's
located maximum plus its certified tolerance (so a "holds" cannot rest on a maximum found too low); μ and σ of the
algorithm's own posterior at x_t and at [x*_t]_t, read by the engine before the update; the located sup of
|∂f/∂x_j| (the Lipschitz event of the proof); the queried points themselves (the chain rule of the information
gain against a fresh log-determinant of their Gram matrix). γ_t over the box is the certified feature bound of
:mod:`boundcheck.model.continuum.gamma`; a, b of the derivative tails come from the scenario's feature prior.
"""

from __future__ import annotations

import numpy as np

from ...errors import BoundcheckError
from ...model.continuum.gamma import gamma_upper_se
from ...world.box_scenario import BoxScenario
from ..table import ClaimSpec, bound_anytime, bound_at_horizon
from .base import ChunkEvaluator, Family, TheoremInstance, real_or_complex

__all__ = ["BoxFamily", "BoxEvaluator", "CHAIN_RULE_TOL", "OPTIMISER_TOL"]

#: relative tolerance of the chain rule ½Σlog(1 + σ⁻²σ²_{t−1}(x_t)) = ½ log det(I + σ⁻²K_T) (round-off of a rank-one
#: Cholesky update against a fresh factorisation; a dropped or altered observation moves it by ≫ 1e−8)
CHAIN_RULE_TOL = 1e-8
#: the numerical argmax's stated tolerance: x_t may fall short of the UCB's value at the proof's comparison point
#: ([x*]_t, or x*) by g_t ≤ OPTIMISER_TOL·(1 + |UCB(x_t)|) — near-ties of two basins (3.6e−6 apart on one run of
#: igp_ucb_compact's defaults) are not the algorithm's fault; the proofs then give r_t ≤ … + g_t, so the regret bounds
#: and the optimism step are checked with the observed tolerated g_t added (docs/compact.md); beyond it,
#: optimiser_gap fails
OPTIMISER_TOL = 1e-5


class BoxEvaluator(ChunkEvaluator):
    """Per-chunk statistics of a compact-domain GP-UCB theorem (see the module docstring)."""

    def __init__(self, traj, scenario, inst, main) -> None:
        super().__init__(traj, scenario, inst, main)
        self.alg = traj.algorithms[main]
        mon = self.alg.monitors
        # the theorem's width (√β_t of Srinivas et al., β_t itself of IGP-UCB), t = 1..T, unscaled
        self.width = np.asarray(inst.schedules["theory_width"], dtype=float)[1:]
        self.run_width = np.asarray(inst.beta, dtype=float)[1:]  # the width the algorithm ran with
        self.f_x, self.mu_x, self.sd_x = mon["f_x"], mon["mu_x"], mon["sd_x"]
        self.mu_d, self.sd_d = mon["mu_disc"], mon["sd_disc"]
        self.tol = traj.truth.get("max_tolerance", np.zeros(self.m))
        self.eps_t = 1.0 / self.t**2  # the discretisation's 1/t² (Lemma 5.7)
        # g_t = UCB(comparison point) − UCB(x_t), with the width the algorithm ran with, and its tolerated part
        acq_x = self.mu_x + self.run_width * self.sd_x
        self.opt_gap = (self.mu_d + self.run_width * self.sd_d) - acq_x
        self.opt_allowed = OPTIMISER_TOL * (1.0 + np.abs(acq_x))
        self.opt_slack = np.clip(np.nan_to_num(self.opt_gap, nan=0.0), 0.0, self.opt_allowed)

    # -------------------------------------------------------------------------------------- events
    def regret_upper(self) -> np.ndarray:
        """(m, T) cumulative regret against the certified upper bound of each max f_t (located + tolerance)."""
        tol_t = np.broadcast_to(self.tol[:, None] / self.T, (self.m, self.T))  # spread: only the sum is used
        # less the optimiser's tolerated shortfall: the theorem with a g_t-approximate argmax bounds R_T + Σ g_t less
        return np.cumsum(self.alg.regret + tol_t - self.opt_slack, axis=1)

    def chosen_event(self) -> np.ndarray:
        """(m, T) |f(x_t) − μ_{t−1}(x_t)| ≤ √β_t σ_{t−1}(x_t) (Lemma 5.5)."""
        return np.abs(self.f_x - self.mu_x) <= self.width * self.sd_x

    def disc_event(self) -> np.ndarray:
        """(m, T) |f(x*_t) − μ_{t−1}([x*]_t)| ≤ √β_t σ_{t−1}([x*]_t) + 1/t² (Lemma 5.7), with f(x*_t) the located
        maximum (a true maximum above it only by the stated tolerance)."""
        return np.abs(self.traj.f_opt - self.mu_d) <= self.width * self.sd_d + self.eps_t

    def lipschitz_event(self) -> np.ndarray:
        """(m,) sup_x |∂f/∂x_j| ≤ L for every j (Lemma 5.6), with the located sup."""
        L = float(self.inst.extra.get("lipschitz_L", np.inf))
        return self.traj.truth.get("grad_sup", np.zeros(self.m)) <= L

    def events(self) -> np.ndarray:
        return self.chosen_event().all(axis=1) & self.disc_event().all(axis=1) & self.lipschitz_event()

    # -------------------------------------------------------------------------------------- claims
    def regret_bound(self) -> dict:
        return {"fail": self.regret_upper()[:, -1] > self.inst.bound_T}

    def regret_bound_anytime(self) -> dict:
        return {"fail": (self.regret_upper() > self.inst.anytime[None, :]).any(axis=1)}

    def confidence_chosen(self) -> dict:
        return {"fail": ~self.chosen_event().all(axis=1)}

    def lipschitz(self) -> dict:
        return {"fail": ~self.lipschitz_event()}

    def confidence_discretised(self) -> dict:
        return {"fail": ~self.disc_event().all(axis=1)}

    def optimism(self) -> dict:
        """Lemma 5.8 on the events: r_t ≤ 2√β_t σ_{t−1}(x_t) + 1/t² at every step (regret with the tolerance)."""
        r = self.alg.regret + self.tol[:, None] / self.T
        fail = (r > 2 * self.width * self.sd_x + self.eps_t + self.opt_slack + 1e-12).any(axis=1)
        prem = self.events()  # not the optimiser's gap: a choice below the UCB's max over D_t is what this catches
        return {"fail": fail & prem, "premise": prem}

    def optimiser_gap(self) -> dict:
        """The step Lemma 5.8 takes from the UCB rule: UCB_{t−1}(x_t) ≥ UCB_{t−1}([x*]_t), with the width the
        algorithm ran with and its posterior as the engine read it (a counterexample is a point of D_t the
        optimiser missed by more than its stated tolerance :data:`OPTIMISER_TOL`)."""
        gap = self.opt_gap
        prem = np.isfinite(gap).all(axis=1)
        return {"fail": (gap > self.opt_allowed).any(axis=1) & prem, "premise": prem}

    # ------------------------------------------------------------------------ IGP-UCB on a box (frequentist)
    def norm_ok(self) -> np.ndarray:
        """Runs whose f has ‖f‖_k ≤ B exactly (GP samples: not known)."""
        norms = self.traj.truth.get("rkhs_norm", np.full(self.m, np.nan))
        B = np.inf if self.sc.B is None else float(self.sc.B)
        with np.errstate(invalid="ignore"):
            return np.isfinite(norms) & (norms <= B * (1 + 1e-9))

    def regret_bound_rkhs(self) -> dict:
        return {**self.regret_bound(), "premise": self.norm_ok()}

    def regret_bound_anytime_rkhs(self) -> dict:
        return {**self.regret_bound_anytime(), "premise": self.norm_ok()}

    def self_normalized(self) -> dict:
        """Chowdhury & Gopalan's Theorem 1 (η = 2/T) on the noise the engine drew at the queried points:
        ‖ε_{1:t}‖²_{((K_t+ηI)⁻¹+I)⁻¹} = ‖ε‖² − ‖L⁻¹ε‖² ≤ 2R² ln(√det((1+η)I+K_t)/δ), L L^T = K_t + (1+η)I."""
        from scipy.linalg import cholesky, solve_triangular

        eta, R, eps = 2.0 / self.T, float(self.sc.noise), self.traj.noise
        X = self.points()
        fail = np.zeros(self.m, bool)
        for r in range(self.m):
            L = cholesky(self.sc.kernel(X[r], X[r]) + (1.0 + eta) * np.eye(self.T), lower=True)
            w = solve_triangular(L, eps[r], lower=True)
            q = np.cumsum(eps[r] ** 2) - np.cumsum(w**2)
            thr = 2 * R**2 * (np.cumsum(np.log(np.diag(L))) + np.log(1.0 / self.inst.delta))
            fail[r] = bool((q > thr * (1 + 1e-12)).any())
        return {"fail": fail}

    def igp_optimism(self) -> dict:
        """On the confidence event at x_t and x* at step t: UCB_{t−1}(x_t) ≥ max f and r_t ≤ 2β_t σ_{t−1}(x_t)."""
        ok = self.chosen_event() & (np.abs(self.traj.f_opt - self.mu_d) <= self.width * self.sd_d)
        ucb = self.mu_x + self.run_width * self.sd_x
        r = self.alg.regret + self.tol[:, None] / self.T
        g = self.opt_slack
        bad = (ucb < self.traj.f_opt - g - 1e-12) | (r > 2 * self.width * self.sd_x + g + 1e-12)
        return {"fail": (ok & bad).any(axis=1), "premise": ok.any(axis=1)}

    def _sigma_sums(self):
        lam = float(self.sc.model_noise_var)
        sig = self.sd_x
        gain = np.cumsum(0.5 * np.log1p(sig**2 / lam), axis=1)
        return lam, sig, gain

    def igp_intermediate(self) -> dict:
        """On the confidence event at every step: R_t ≤ 2Σβσ ≤ 2β_tΣσ ≤ 2β_t√(tΣσ²) ≤ 2β_t√(2t·gain_t/ln(1+1/λ))."""
        lam, sig, gain = self._sigma_sums()
        w = self.width[None]
        E = (self.chosen_event() & (np.abs(self.traj.f_opt - self.mu_d) <= self.width * self.sd_d)).all(axis=1)
        Rt = np.cumsum(self.alg.regret, axis=1)
        wsum = 2 * np.cumsum(w * sig, axis=1)
        S1, S2 = np.cumsum(sig, axis=1), np.cumsum(sig**2, axis=1)
        tol = 1e-9
        bad = ((Rt > wsum + tol) | (wsum > 2 * w * S1 * (1 + tol)) | (S1 > np.sqrt(self.t[None] * S2) * (1 + tol))
               | (S2 > 2 * gain / np.log1p(1.0 / lam) * (1 + tol))).any(axis=1)
        return {"fail": E & bad, "premise": E}

    def lemma4(self) -> dict:
        """Lemma 4's arithmetic on the algorithm's σ (a sanity identity)."""
        lam, sig, gain = self._sigma_sums()
        S1, S2 = np.cumsum(sig, axis=1), np.cumsum(sig**2, axis=1)
        tol = 1e-9
        bad = ((S1 > np.sqrt(self.t[None] * S2) * (1 + tol)) | (S2 > 2 * gain / np.log1p(1 / lam) * (1 + tol))
               ).any(axis=1)
        if lam >= 1.0:
            g = np.maximum(gain, np.asarray(self.inst.gamma_upper)[None])
            bad |= (S1 > np.sqrt(4 * self.t[None] * lam * g) * (1 + tol)).any(axis=1)
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def points(self) -> np.ndarray:
        """(m, T, d) the queried points x_t."""
        return np.stack([self.alg.monitors[f"x{j}"] for j in range(self.sc.box.dim)], axis=-1)

    def information(self) -> dict:
        """Chain rule at the queried points against a fresh log-determinant, and 0 ≤ gain ≤ certified γ_T."""
        lam = float(self.sc.model_noise_var)
        chain = 0.5 * np.log1p(self.sd_x**2 / lam).sum(axis=1)
        X = self.points()
        k = self.sc.kernel
        direct = np.empty(self.m)
        for r in range(self.m):
            K = k(X[r], X[r])
            direct[r] = 0.5 * np.linalg.slogdet(np.eye(self.T) + K / lam)[1]
        bad_chain = np.abs(chain - direct) > CHAIN_RULE_TOL * np.maximum(1.0, np.abs(direct))
        over = direct > float(self.inst.gamma_upper[-1]) * (1 + 1e-12)
        return {"fail": bad_chain | over | (direct < -1e-12), "premise": np.ones(self.m, bool)}


def box_claims(c, E: type[BoxEvaluator] = BoxEvaluator) -> list[ClaimSpec]:
    """The claim table of a compact-domain GP-UCB theorem (ids as in ``theory.srinivas``'s ``gp_ucb_compact``), each
    claim computed by ``E``'s method (a subclass's overrides serve a theorem checked like it)."""
    return [
        ClaimSpec(c("regret_bound"), E.regret_bound, bound=bound_at_horizon),
        ClaimSpec(c("regret_bound_anytime"), E.regret_bound_anytime, bound=bound_anytime),
        ClaimSpec(c("confidence_chosen"), E.confidence_chosen),
        ClaimSpec(c("lipschitz_event"), E.lipschitz),
        ClaimSpec(c("confidence_discretised"), E.confidence_discretised),
        ClaimSpec(c("D1_optimism"), E.optimism),
        ClaimSpec(c("optimiser_gap"), E.optimiser_gap),
        ClaimSpec(c("D3_information"), E.information),
        ClaimSpec(c("K1_calibration"), None, sample="innov"),
    ]


class BoxFamily(Family):
    """A compact-domain GP-UCB theorem on a :class:`~boundcheck.world.box_scenario.BoxScenario` (the module
    docstring says what each claim reads)."""

    evaluator_class = BoxEvaluator
    domain_kind = "box"
    step_columns = ("mu_x", "sd_x")

    def __init__(self, theorem, claims=box_claims, width: str = "width_t") -> None:
        """``claims(theorem.claim)``: the claim table; ``width``: the theorem's schedule that multiplies σ in its
        algorithm (``width_t`` = √β_t of Srinivas et al., ``beta_t`` of IGP-UCB)."""
        self._claims, self.width_name = claims, width
        super().__init__(theorem)

    def claim_table(self):
        return self._claims(self.theorem.claim)

    @property
    def schedules_read(self) -> tuple[str, ...]:
        names = ("beta_t", self.width_name, "beta_confidence_t", "beta_discretisation_t", "lipschitz_L", "grid_n_t")
        return tuple(n for n in dict.fromkeys(names) if n in self.theorem.schedules)

    def bound_values(self, scenario: BoxScenario, horizon: int, delta: float) -> dict[str, float]:
        values = {"T": float(horizon), "delta": float(delta), "R": float(scenario.noise),
                  "d": float(scenario.box.dim), "r": float(scenario.box.r)}
        if "log_a" in self.theorem.symbols:  # the derivative tails of a GP sample path (Srinivas et al. Thm 2)
            tails = scenario.features.derivative_tails()
            values.update(log_a=float(tails.log_a), b_tail=float(tails.b))
        if "B" in self.theorem.symbols:
            if scenario.B is None:
                raise BoundcheckError(f"scenario {scenario.name!r} gives no RKHS norm bound B: {self.theorem.id} "
                                      "needs one (pick an RKHS scenario)")
            values["B"] = float(scenario.B)
        return values

    def instantiate(self, scenario: BoxScenario, horizon: int, delta: float, beta_scale: float = 1.0
                    ) -> TheoremInstance:
        th, T = self.theorem, int(horizon)
        values = self.bound_values(scenario, T, delta)
        lam = float(scenario.model_noise_var)
        g_up = np.asarray(gamma_upper_se(scenario.kernel.lengthscale, scenario.box, T, lam), dtype=float)
        values["gamma_T"] = float(g_up[-1])
        t = np.arange(T + 1, dtype=float)
        t[0] = 1.0
        gprev = np.zeros(T + 1)  # γ_{t−1} aligned with t = 0..T (IGP-UCB's β_t reads it)
        gprev[2:] = g_up[:-1]
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            sched = {name: real_or_complex(th.schedule_values(name, t, values, gprev))
                     for name in self.schedules_read if name != "lipschitz_L"}  # a constant: extra
            sched["theory_width"] = sched[self.width_name]
            width = sched["theory_width"] * beta_scale
            bound = th.evaluate(values)
            at = th.evaluate_anytime(values, np.arange(1, T + 1, dtype=float), g_up)
        self.check_instance(bound["terms"], at["terms"], T, width, delta, beta_scale, sched)
        L = float(th.schedule_values("lipschitz_L", 1.0, values)) if "lipschitz_L" in th.schedules else np.inf
        return TheoremInstance(
            horizon=T, delta=float(delta), values=values, beta=width, xi=np.zeros(T + 1), B=values.get("B", np.nan),
            C=float("nan"),
            bound_T=float(bound["value"]), bound_terms={k: float(v) for k, v in bound["terms"].items()},
            anytime=np.asarray(at["value"], dtype=float).reshape(T).copy(), gamma_upper=g_up,
            gamma_lower=np.zeros(T), gamma_methods={"feature Hadamard bound": float(g_up[-1])},
            schedules=sched, gamma_used=g_up, extra={"lipschitz_L": L, "kernel_error": scenario.kernel_error})

    def max_step_regret(self, scenario: BoxScenario, inst: TheoremInstance) -> tuple[float, str] | None:
        """An RKHS truth with ‖f‖_k ≤ B and k(x, x) ≤ 1: |f| ≤ B everywhere, so r_t ≤ 2B (GP paths: unbounded)."""
        if not getattr(scenario, "rkhs", False) or scenario.B is None:
            return None
        B = float(scenario.B)
        return 2.0 * B, f"(|f(x)| ≤ ‖f‖_k √k(x, x) ≤ B = {B:g}, so r_t ≤ 2B)"

    def derived_steps(self, ev: BoxEvaluator) -> dict[str, np.ndarray]:
        lam = float(ev.sc.model_noise_var)
        return {"innov": (ev.alg.y - ev.mu_x) / np.sqrt(ev.sd_x**2 + lam)}

    def main_diagnostics(self, ev: BoxEvaluator) -> dict[str, np.ndarray]:
        R = ev.alg.regret.sum(axis=1)
        out = {"regret": R, "tightness": R / ev.inst.bound_T, "max_tolerance": ev.tol}
        if "reset" in ev.alg.steps:  # an event-triggered algorithm (paper 001's Table 2 on the continuum)
            out["n_resets"] = np.asarray(ev.alg.steps["reset"], dtype=bool).sum(axis=1)
        if "witness_gap" in ev.alg.steps:  # steps where a fresh Sobol point beat the optimiser (a proven miss)
            wg = np.asarray(ev.alg.steps["witness_gap"])
            out["optimiser_misses"], out["optimiser_max_gap"] = (wg > 0).sum(axis=1), wg.max(axis=1)
        return out
