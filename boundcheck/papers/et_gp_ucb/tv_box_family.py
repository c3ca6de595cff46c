"""``tv_gp_ucb_compact``: TV-GP-UCB on a compact box, checked on what the continuum engine observed
(:mod:`boundcheck.study.continuum`), as :class:`~boundcheck.claims.families.continuum.BoxFamily` checks Srinivas'
Theorem 2, with what the chain changes: the regret against each f_t's certified maximum (its tolerance step by
step), the Lipschitz event per step (the engine's certified sup|∂f_t/∂x_j| against L_t), the chain rule on the
spatio-temporal Gram of the queried (x_s, s) with the true ε, γ̃_t certified for the chain
(:mod:`boundcheck.model.continuum.gamma_tv`), and the policy told the scenario's ε through the ``tv_eps`` schedule.
"""

from __future__ import annotations

import numpy as np

from boundcheck.claims.families.base import TheoremInstance, real_or_complex
from boundcheck.claims.families.continuum import CHAIN_RULE_TOL, BoxEvaluator, BoxFamily, box_claims
from boundcheck.claims.table import ClaimSpec
from boundcheck.model.continuum.features import QuadratureFeatures
from boundcheck.model.continuum.gamma_tv import gamma_lower_greedy_tv, gamma_upper_se_tv
from boundcheck.papers.et_gp_ucb import world as _world  # noqa: F401 (registers told_true_eps, tv_theoretical_…)
from boundcheck.world.assumptions import register_predicate
from boundcheck.world.box_scenario import BoxScenario, is_box

__all__ = ["TVBoxEvaluator", "TVBoxFamily", "tv_box_claims", "decay_matrix", "GAMMA_TOL"]

#: relative round-off allowed when a realised gain is compared with the certified γ̃_t (both are sums of logs)
GAMMA_TOL = 1e-12


def decay_matrix(T: int, eps: float) -> np.ndarray:
    """(T, T) D with D_ss' = (1−ε)^{|s−s'|/2}: the time factor of the chain's kernel k̃ (0^0 = 1 at ε = 1)."""
    lag = np.abs(np.arange(T)[:, None] - np.arange(T)[None, :]).astype(float)
    if eps == 1.0:
        return (lag == 0).astype(float)
    return np.exp(0.5 * lag * np.log1p(-eps))


@register_predicate("tv_box_chain")
def _tv_box_chain(sc) -> tuple[bool, str]:
    if not is_box(sc):
        return False, "the domain is not a compact box"
    if sc.rkhs:
        return False, "f is a fixed RKHS function, not an ε chain of GP paths"
    if sc.truth_kernel is not None:
        return False, (f"the chain's kernel (SE ℓ = {sc.truth_kernel.lengthscale:g}) differs from the algorithm's "
                       f"(ℓ = {sc.kernel.lengthscale:g})")
    if sc.truth_scale != 1.0:
        return False, f"f is {sc.truth_scale:g} × a draw of the prior"
    return True, (f"f_t the ε = {sc.eps:g} chain of GP(0, k̂), k̂ quadrature features of SE ℓ = "
                  f"{sc.kernel.lengthscale:g} (sup|k̂ − k| ≤ {sc.kernel_error:.1e}), a fresh chain per run")


class TVBoxEvaluator(BoxEvaluator):
    """Per-chunk statistics of ``tv_gp_ucb_compact`` (see the module docstring); the events and claims it does not
    override are :class:`~boundcheck.claims.families.continuum.BoxEvaluator`'s, which read the overridden events."""

    def __init__(self, traj, scenario, inst, main) -> None:
        super().__init__(traj, scenario, inst, main)
        tol_t = traj.truth.get("max_tolerance_t")
        # each step's own certified tolerance of max f_t (an even spread of the sum would understate R_t at early t)
        self.tol_t = (np.asarray(tol_t, dtype=float) if tol_t is not None
                      else np.broadcast_to(self.tol[:, None] / self.T, (self.m, self.T)))
        self.L_t = np.asarray(inst.schedules["lipschitz_L_t"], dtype=float)[1:]

    def regret_upper(self) -> np.ndarray:
        """(m, T) cumulative regret against the certified upper bound of each max f_t, less the tolerated g_t."""
        return np.cumsum(self.alg.regret + self.tol_t - self.opt_slack, axis=1)

    def lipschitz_event(self) -> np.ndarray:
        """(m,) sup_X |∂f_t/∂x_j| ≤ L_t for every j and t (certified upper bounds of the sup: the engine's
        ``grad_sup_t``); a static chain (ε = 0) has one f, held to the smallest level L_1."""
        g = self.traj.truth.get("grad_sup_t")
        if g is None:
            g = self.traj.truth.get("grad_sup", np.zeros(self.m))[:, None]
        g = np.asarray(g, dtype=float)
        return (g <= (self.L_t[None, :] if g.shape[1] == self.T else self.L_t[0])).all(axis=1)

    def optimism(self) -> dict:
        """Lemma 5.8 on the events: r_t ≤ 2√β_t σ̃_{t−1}(x_t) + 1/t² (+ g_t), r_t with its step's tolerance."""
        r = self.alg.regret + self.tol_t
        fail = (r > 2 * self.width * self.sd_x + self.eps_t + self.opt_slack + 1e-12).any(axis=1)
        prem = self.events()
        return {"fail": fail & prem, "premise": prem}

    def realised_gain(self) -> tuple[np.ndarray, np.ndarray]:
        """((m, T) ½Σ_{s≤t} log(1 + σ̃²_{s−1}(x_s)/λ) from the algorithm's σ̃, (m,) ½ log det(I + K̃_T/λ) afresh on
        the spatio-temporal Gram of the queried (x_s, s) with the scenario's (true) ε)."""
        lam = float(self.sc.model_noise_var)
        chain = np.cumsum(0.5 * np.log1p(self.sd_x**2 / lam), axis=1)
        X = self.points()
        D = decay_matrix(self.T, float(self.sc.eps))
        direct = np.empty(self.m)
        for r in range(self.m):
            K = self.sc.kernel(X[r], X[r]) * D
            direct[r] = 0.5 * np.linalg.slogdet(np.eye(self.T) + K / lam)[1]
        return chain, direct

    def information(self) -> dict:
        """Chain rule against a fresh log-determinant (CHAIN_RULE_TOL) and 0 ≤ gain_t ≤ certified γ̃_t ∀t."""
        chain, direct = self.realised_gain()
        bad_chain = np.abs(chain[:, -1] - direct) > CHAIN_RULE_TOL * np.maximum(1.0, np.abs(direct))
        g = np.asarray(self.inst.gamma_upper, dtype=float)
        over = (chain > g[None] * (1 + GAMMA_TOL)).any(axis=1) | (direct > g[-1] * (1 + GAMMA_TOL))
        return {"fail": bad_chain | over | (direct < -1e-12), "premise": np.ones(self.m, bool)}


def tv_box_claims(c) -> list[ClaimSpec]:
    """The claim table of ``tv_gp_ucb_compact`` (ids as in theory.et_gp_ucb's TVK_CLAIMS): the compact GP-UCB table,
    computed by :class:`TVBoxEvaluator`."""
    return box_claims(c, TVBoxEvaluator)


class TVBoxFamily(BoxFamily):
    """``tv_gp_ucb_compact`` on a :class:`~boundcheck.world.box_scenario.BoxScenario` with an ε chain."""

    evaluator_class = TVBoxEvaluator

    def __init__(self, theorem) -> None:
        super().__init__(theorem, tv_box_claims, width="width_t")

    @property
    def schedules_read(self) -> tuple[str, ...]:
        names = ("beta_t", "width_t", "beta_confidence_t", "beta_discretisation_t", "lipschitz_L_t", "tau_t",
                 "grid_n_t")
        return tuple(n for n in names if n in self.theorem.schedules)

    def bound_values(self, scenario: BoxScenario, horizon: int, delta: float) -> dict[str, float]:
        """The box's values, ε, and the derivative tails (a, b) of the ALGORITHM's prior GP(0, k) (the theorem's
        β_t is the algorithm's; a truth rougher than the prior must not move the levels L_t it is held to)."""
        values = super().bound_values(scenario, horizon, delta)
        values["eps"] = float(scenario.eps)
        if scenario.truth_kernel is not None:
            model = QuadratureFeatures.se(scenario.kernel.lengthscale, scenario.box, tol=scenario.kernel_tol)
            tails = model.derivative_tails()
            values.update(log_a=float(tails.log_a), b_tail=float(tails.b))
        return values

    def instantiate(self, scenario: BoxScenario, horizon: int, delta: float, beta_scale: float = 1.0
                    ) -> TheoremInstance:
        th, T = self.theorem, int(horizon)
        values = self.bound_values(scenario, T, delta)
        lam = float(scenario.model_noise_var)
        g_up, curves = gamma_upper_se_tv(scenario.kernel.lengthscale, scenario.box, T, lam, float(scenario.eps))
        values["gamma_T"] = float(g_up[-1])
        # an attained design's gain: the lower end of the bracket reported beside the certified upper end
        g_low = gamma_lower_greedy_tv(scenario.kernel.lengthscale, scenario.box, T, lam, float(scenario.eps))
        t = np.arange(T + 1, dtype=float)
        t[0] = 1.0
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            sched = {name: real_or_complex(th.schedule_values(name, t, values)) for name in self.schedules_read}
            sched["theory_width"] = sched[self.width_name]
            sched["tv_eps"] = np.full(T + 1, float(scenario.eps))  # what TV-GP-UCB is told (the true ε)
            width = sched["theory_width"] * beta_scale
            bound = th.evaluate(values)
            at = th.evaluate_anytime(values, np.arange(1, T + 1, dtype=float), g_up)
        self.check_instance(bound["terms"], at["terms"], T, width, delta, beta_scale, sched)
        return TheoremInstance(
            horizon=T, delta=float(delta), values=values, beta=width, xi=np.zeros(T + 1), B=np.nan, C=float("nan"),
            bound_T=float(bound["value"]), bound_terms={k: float(v) for k, v in bound["terms"].items()},
            anytime=np.asarray(at["value"], dtype=float).reshape(T).copy(), gamma_upper=g_up,
            gamma_lower=np.minimum(g_low, g_up), gamma_methods={k: float(v[-1]) for k, v in curves.items()},
            schedules=sched, gamma_used=g_up,
            # the smallest level: the engine's shortcut for a static f, and a static chain's one Lipschitz event
            extra={"lipschitz_L": float(sched["lipschitz_L_t"][1]), "kernel_error": scenario.kernel_error})
