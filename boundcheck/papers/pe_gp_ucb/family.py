"""PE-GP-UCB (paper 000, Theorem 4.1 case A): bound inputs and the per-run statistic of every claim."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from boundcheck.claims.families.base import ChunkEvaluator, Family, check_bound
from boundcheck.claims.stats import exceeds
from boundcheck.claims.table import ClaimSpec, bound_anytime, bound_at_horizon
from boundcheck.model.information import gain_increments
from boundcheck.model.kernels import spatio_temporal_gram
from boundcheck.model.priors import GPPrior
from boundcheck.world.scenario import Scenario
from theory import pe_gp_ucb as paper000

STEP_COLUMNS = ("prior", "mu", "sigma", "ucb", "w", "eta", "eliminated", "critical", "n_active")


class PEEvaluator(ChunkEvaluator):
    """Shared quantities of one chunk: the events E_A and E_B, per-prior index sets, realised gains."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        inst, sc = self.inst, self.sc
        self.beta, self.xi = inst.beta[1:], inst.xi[1:]  # (T,) β_t as used (scaled), ξ_t
        self.pe = self.traj.algorithms[self.main]
        self.tp = sc.monitor_index
        self.P = len(sc.candidates)
        self.prior = self.pe.steps["prior"]  # (m, T)
        self.critical = self.pe.steps["critical"]
        self.elim_at = self.pe.final["eliminated_at"]  # (m, P)
        self.R_t = np.cumsum(self.pe.regret, axis=1)

    # ---------------------------------------------------------------- events
    @cached_property
    def ea_fail(self) -> np.ndarray:
        """E_A fails (sub-event t' = t, all x)."""
        return (self.pe.monitors["z_all"] > self.beta[None]).any(axis=1)

    @cached_property
    def S_count(self) -> np.ndarray:
        onehot = self.prior[:, :, None] == np.arange(self.P)[None, None, :]  # (m, T, P)
        self._onehot = onehot
        return np.cumsum(onehot, axis=1)

    @cached_property
    def eb_fail_p(self) -> np.ndarray:
        """(m, T, P): |Σ_{i∈S^p_t} ε_i| > √(ξ_t |S^p_t|)."""
        S_count = self.S_count
        S_noise = np.cumsum(self._onehot * self.traj.noise[:, :, None], axis=1)
        return np.abs(S_noise) > np.sqrt(self.xi[None, :, None] * S_count)

    @cached_property
    def eb_fail(self) -> np.ndarray:
        return self.eb_fail_p.any(axis=(1, 2))

    @cached_property
    def bounded_fail(self) -> np.ndarray:
        return self.traj.f_abs_max > self.inst.B

    @cached_property
    def gains(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(gain_step, gain_final, chain_err): the contribution of step t to Σ_p ½log|I + R⁻²K^p_{A^p_t}|, the
        realised gain of each prior, and the chain-rule error per kernel group (online σ² vs direct)."""
        sc, pe, T, m, P = self.sc, self.pe, self.T, self.m, self.P
        R2 = sc.noise**2
        first: dict = {}
        for p in sc.candidates:  # one representative per kernel group, in the posterior's group order
            first.setdefault(p.kernel_key, p)
        reps = list(first.values())
        gain_step, gain_final, chain_err = np.zeros((m, T)), np.zeros((m, P)), np.zeros(m)
        t_axis = np.arange(1, T + 1, dtype=float)
        for i in range(m):
            for p in range(P):
                steps_p = np.flatnonzero(self.prior[i] == p)
                if steps_p.size == 0:
                    continue
                pr = sc.candidates[p]
                contrib = gain_increments(spatio_temporal_gram(pr.K, pe.idx[i, steps_p], steps_p + 1.0, pr.eps), R2)
                gain_step[i, steps_p] = contrib
                gain_final[i, p] = contrib.sum()
            for g, rep in enumerate(reps):
                direct = 2.0 * gain_increments(spatio_temporal_gram(rep.K, pe.idx[i], t_axis, rep.eps), R2).sum()
                online = np.log1p(pe.steps["var_groups"][i, :, g] / R2).sum()
                chain_err[i] = max(chain_err[i], abs(online - direct) / max(1.0, abs(direct)))
        return gain_step, gain_final, chain_err

    @cached_property
    def E(self) -> np.ndarray:
        return ~self.ea_fail & ~self.eb_fail

    # ---------------------------------------------------------------- claim statistics
    # the premise columns say where |f| ≤ B held: on it every r_t ≤ 2B (used when the bound is vacuous)
    def regret_bound(self) -> dict:
        return {"fail": self.R_t[:, -1] > self.inst.bound_T, "premise": ~self.bounded_fail}

    def regret_bound_anytime(self) -> dict:
        return {"fail": (self.R_t > self.inst.anytime[None]).any(axis=1), "premise": ~self.bounded_fail}

    def regret_bound_tight(self) -> dict:
        return {"fail": self.R_t[:, -1] > self.inst.extra["bound_tight"], "premise": ~self.bounded_fail}

    def confidence_event(self) -> dict:
        return {"fail": self.ea_fail}

    def noise_event(self) -> dict:
        return {"fail": self.eb_fail}

    def prior_preserved(self) -> dict:
        return {"fail": self.elim_at[:, self.tp] > 0}

    def bounded_function(self) -> dict:
        return {"fail": self.bounded_fail}

    def d1_preservation(self) -> dict:
        """E_A at the queried points of S^{p*} and E_B for p* ⇒ p* never eliminated."""
        ea_queried_truth = ~((self.pe.monitors["z_chosen"] > self.beta[None]) & (self.prior == self.tp)).any(axis=1)
        premise = ea_queried_truth & ~self.eb_fail_p[:, :, self.tp].any(axis=1)
        return {"fail": premise & (self.elim_at[:, self.tp] > 0), "premise": premise}

    @cached_property
    def _truth_active(self) -> np.ndarray:
        """(m, T): p* ∈ U_{t−1} and E_A holds (the premise of D2 at step t)."""
        tp = self.tp
        truth_active = (self.elim_at[:, tp, None] == 0) | (self.elim_at[:, tp, None] >= self.t[None])
        return (~self.ea_fail)[:, None] & truth_active

    def d2_optimism(self) -> dict:
        """On E_A with p* ∈ U_{t-1}: the algorithm's UCB at its choice is at least the optimum over X_t."""
        bad = exceeds(self.traj.f_opt, self.pe.steps["ucb"])
        return {"fail": (self._truth_active & bad).any(axis=1), "premise": ~self.ea_fail}

    def s1_eq4_and_2b(self) -> dict:
        """Sanity identity: eq. (4) r_t ≤ w_t − η_t + ε_t where optimism holds (an identity given η's definition),
        and r_t ≤ 2B where max|f| ≤ B."""
        pe = self.pe
        eta, w = pe.steps["eta"], pe.steps["w"]
        optimistic = ~exceeds(self.traj.f_opt, pe.steps["ucb"])
        bad = optimistic & exceeds(pe.regret, w - eta + self.traj.noise)
        bad |= exceeds(pe.regret, 2 * self.inst.B) & (~self.bounded_fail)[:, None]
        return {"fail": (self._truth_active & bad).any(axis=1), "premise": ~self.ea_fail}

    def d3_intermediate(self) -> dict:
        """On E, (I1) and (I2) at every prefix t."""
        pe, critical, xi = self.pe, self.critical, self.xi
        w = pe.steps["w"]
        crit_r = np.cumsum(np.where(critical, pe.regret, 0.0), axis=1)
        w_nc = np.cumsum(np.where(critical, 0.0, w), axis=1)
        i1 = crit_r + 2 * np.sqrt(xi[None, :, None] * self.S_count).sum(axis=2) + 2 * w_nc
        gain_prefix = np.cumsum(self.gains[0], axis=1)
        i2 = self.beta[None] * np.sqrt(self.t[None] * self.inst.C * gain_prefix)
        return {"fail": self.E & (exceeds(self.R_t, i1) | exceeds(w_nc, i2)).any(axis=1), "premise": self.E}

    def d4_information(self) -> dict:
        """Variance sum ≤ C Σ_p gain_p; chain rule to 1e-8; 0 ≤ gain_p ≤ certified γ^p_T."""
        _, gain_final, chain_err = self.gains
        var_nc = np.where(self.critical, 0.0, self.pe.steps["sigma"] ** 2).sum(axis=1)
        gam_up = np.array([self.inst.group_gamma_upper[p.kernel_key][-1] for p in self.sc.candidates])
        bad = exceeds(var_nc, self.inst.C * gain_final.sum(axis=1)) | (chain_err > 1e-8)
        bad |= (gain_final < -1e-12).any(axis=1) | exceeds(gain_final, gam_up[None]).any(axis=1)
        return {"fail": bad, "premise": np.ones(self.m, bool)}

    def d5_bookkeeping(self) -> dict:
        """U_t non-increasing; only p_t removed at t, never used again; |C| ≤ |U|−1 on E; Σ|S^p_T| = T."""
        m, prior, elim_at = self.m, self.prior, self.elim_at
        bad = (np.diff(self.pe.steps["n_active"], axis=1) > 0).any(axis=1)
        bad |= self.pe.final["count"].sum(axis=1) != self.T
        for p in range(self.P):
            t_e = elim_at[:, p]
            at_choice = prior[np.arange(m), np.maximum(t_e - 1, 0)] == p
            used_after = ((prior == p) & (self.t[None] > t_e[:, None])).any(axis=1)
            bad |= (t_e > 0) & (~at_choice | used_after)
        bad |= self.E & (self.critical.sum(axis=1) > self.P - 1)
        return {"fail": bad, "premise": np.ones(m, bool)}


class PEGPUCBFamily(Family):
    evaluator_class = PEEvaluator
    step_columns = STEP_COLUMNS
    truth_types = (GPPrior,)  # the truth is one of the candidate priors (or a prior outside them)

    # PEEvaluator reads the prior choices, critical steps and eliminations for every claim
    requires = frozenset({"prior", "critical", "eliminated_at", "count", "all_gone_blocked", "var_groups"})

    def claim_table(self) -> list[ClaimSpec]:
        c = self.theorem.claim
        E = PEEvaluator
        return [
            ClaimSpec(c("regret_bound"), E.regret_bound, bound=bound_at_horizon),
            ClaimSpec(c("regret_bound_anytime"), E.regret_bound_anytime, bound=bound_anytime),
            ClaimSpec(c("regret_bound_tight"), E.regret_bound_tight, bound=lambda ev: ev.inst.extra["bound_tight"]),
            ClaimSpec(c("confidence_event"), E.confidence_event, frozenset({"z_all"})),
            ClaimSpec(c("noise_event"), E.noise_event, frozenset({"prior"})),
            ClaimSpec(c("prior_preserved"), E.prior_preserved, frozenset({"eliminated_at"})),
            ClaimSpec(c("bounded_function"), E.bounded_function),
            ClaimSpec(c("D1_preservation"), E.d1_preservation,
                      frozenset({"z_chosen", "prior", "eliminated_at"})),
            ClaimSpec(c("D2_optimism"), E.d2_optimism, frozenset({"z_all", "ucb", "eliminated_at"})),
            ClaimSpec(c("D3_intermediate"), E.d3_intermediate,
                      frozenset({"z_all", "prior", "critical", "w", "var_groups"})),
            ClaimSpec(c("D4_information"), E.d4_information, frozenset({"prior", "critical", "sigma", "var_groups"})),
            ClaimSpec(c("D5_bookkeeping"), E.d5_bookkeeping,
                      frozenset({"prior", "critical", "n_active", "eliminated_at", "count"})),
            ClaimSpec(c("K1_calibration"), None, frozenset({"innov"}), sample="innov"),
            ClaimSpec(c("S1_eq4_and_2B"), E.s1_eq4_and_2b, frozenset({"z_all", "eta", "w", "ucb", "eliminated_at"})),
        ]

    def bound_values(self, scenario: Scenario, horizon: int, delta: float) -> dict[str, float]:
        """Values of the bound's symbols except gamma_T (filled in from the certified γ curve)."""
        return {
            "T": float(horizon), "delta": float(delta), "R": scenario.noise, "n_X": float(scenario.domain.n),
            "n_U": float(len(scenario.candidates)), "mu_max": float(np.max(np.abs(scenario.truth.mean))),
        }

    def gamma_groups(self, scenario: Scenario) -> dict[str, tuple[np.ndarray, float]]:
        """The distinct (K, ε) of the candidate priors: γ_T = max_p γ^p_T is a max over these."""
        return {p.kernel_key: (p.K, p.eps) for p in scenario.candidates}

    def gamma_noise_var(self, scenario: Scenario) -> float:
        """γ_T of Theorem 4.1 uses the noise variance R² (Theorem 4.1; Lemma 5.3)."""
        return scenario.noise**2

    @property
    def schedules_read(self) -> tuple[str, ...]:
        """β_t and ξ_t (the algorithm's width, the noise event's threshold), B and C (the bounded-function event, the
        information chain) and the tight form of the bound: each from the theorem held."""
        return ("beta_t", "xi_t", "B", "C", "bound_tight")

    def extra_constants(self, values: dict) -> dict[str, float]:
        with np.errstate(all="ignore"):  # one that is not finite is refused below, in one line
            tight = self.theorem.schedule_values("bound_tight", 1.0, values)
        # regret_bound_tight compares the regret with it: validated as the explicit bound is
        check_bound(self.theorem_name, {"bound_tight": tight}, [int(values["T"])], horizon=int(values["T"]),
                    form="the tight form of the bound")
        return {"bound_tight": float(np.real(tight))}

    def max_step_regret(self, scenario: Scenario, inst) -> tuple[float, str]:
        return 2.0 * inst.B, "while max_{t,x}|f| ≤ B (the bounded_function event, probability ≥ 1 − δ/2)"

    def main_diagnostics(self, ev: PEEvaluator) -> dict[str, np.ndarray]:
        R_T = ev.R_t[:, -1]
        _, gain_final, chain_err = ev.gains
        elim_at = ev.elim_at
        return {
            "regret": R_T, "tightness": R_T / ev.inst.bound_T,
            "max_anytime_ratio": (ev.R_t / ev.inst.anytime[None]).max(axis=1),
            "n_eliminations": (elim_at > 0).sum(axis=1), "n_critical": ev.critical.sum(axis=1),
            "truth_eliminated_at": elim_at[:, ev.tp], "all_gone_blocked": ev.pe.final["all_gone_blocked"],
            "realised_gain": gain_final.sum(axis=1), "chain_rule_rel_err": chain_err,
            "frac_truth_prior": (ev.prior == ev.tp).mean(axis=1),
            "eliminated_at": [",".join(map(str, row)) for row in elim_at],
        }

    def baseline_columns(self, ev: PEEvaluator, name: str) -> dict[str, np.ndarray]:
        tr = ev.traj.algorithms[name]
        d = super().baseline_columns(ev, name)
        if "z_all" in tr.monitors:  # Theorem 3.1 holds for any data-collection rule: a free extra check
            d["fail_confidence_event"] = (tr.monitors["z_all"] > ev.beta[None]).any(axis=1)
        if "prior" in tr.steps:
            d["frac_truth_prior"] = (tr.steps["prior"] == ev.tp).mean(axis=1)
        return d


FAMILIES = (PEGPUCBFamily(paper000.THEOREM),)
