"""Algorithm 1 of paper 002 (combinatorial GP bandits with volatile arms and semi-bandit feedback): the loop its
three GP indices share (:class:`CombinatorialGP`), and Algorithm 2's rectified oracle for road networks
(:func:`rectified_mean`, :func:`min_cost`), which the independent-Bayesian baselines use too."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from boundcheck.papers.combinatorial.model import FeatureArms, GridArms
from boundcheck.policies.base import Policy, RunContext

__all__ = ["CombinatorialGP", "COMB_MONITORS", "INFINITE_MONITORS", "rectified_mean", "min_cost"]

#: truth-side quantities of a round the paper-002 family computes from a policy's ``arm_model``
COMB_MONITORS = frozenset({"q1", "q2", "q2_all", "sig_all", "u_star", "u_chosen", "u_best", "mu_err", "sig_chosen",
                           "var_chosen", "n_chosen", "lam_chosen", "logdet_chosen", "cover", "pit", "f_worst",
                           "innov", "innov_norm", "innov_sq"})
INFINITE_MONITORS = frozenset({"a6_gap", "l32_gap", "a7_fail", "eq67_fail"})
_SQRT_2PI = float(np.sqrt(2 * np.pi))


def rectified_mean(m: np.ndarray, s: np.ndarray) -> np.ndarray:
    """E[max(0, X)] for X ~ N(m, s²): m Φ(m/s) + s φ(m/s) (s > 0), max(m, 0) for s = 0."""
    s = np.asarray(s, dtype=np.float64)
    safe = np.maximum(s, 1e-300)
    z = m / safe
    return np.where(s > 0, m * ndtr(z) + s * np.exp(-0.5 * z * z) / _SQRT_2PI, np.maximum(m, 0.0))


def min_cost(acts, cost: np.ndarray, available) -> np.ndarray:
    """The super arm of least total non-negative cost: Dijkstra where the action set is a road graph
    (Algorithm 2), otherwise its exact oracle on −cost."""
    if hasattr(acts, "shortest_path"):
        return acts.shortest_path(cost, available)
    return acts.oracle(-cost, available)


def _arm_model(ctx: RunContext, joint: bool):
    if getattr(ctx.actions, "features", None) is not None:  # contexts (ContextualTopK, or a wrapper of it)
        return FeatureArms(ctx.actions.features, ctx.noise_var, ctx.runs)
    return GridArms(ctx.candidates[0], ctx.noise_var, ctx.runs, joint=joint, first_run=ctx.first_run)


class CombinatorialGP(Policy):
    """Algorithm 1, the loop; a subclass gives the base-arm indices U_t (:mod:`.comb_gp_ucb`, :mod:`.comb_gp_ts`)::

        for t = 1..T:
            (𝒜_t, 𝒮_t) ← ObserveAvailableArms                     # the engine's exogenous draw
            U_t ← GetBaseArmIndices(t, θ_{t−1})                   # the subclass
            a_t ← SelectOptimalSuperArm(𝒮_t, U_t)                 # exact oracle: argmax_a Σ_{a∈a} U_t(a)
            r_t ← ObserveRewards(a_t)                             # one value per chosen base arm
            θ_t ← UpdateParameters(a_t, r_t, θ_{t−1})             # exact GP posterior, all K values at once

    ``rectify=True`` is Algorithm 2 (energies are costs; rewards are negated energies): the energy index ẽ = −U_t
    is rectified, U_e = E[max(0, N(ẽ_e, s_e²))] with s_e the posterior sd (the text; Algorithm 2 has ς² there:
    ``rectify_sd="noise"``), and the path is Dijkstra's on U_e ≥ 0: not covered by the theorems. The model is
    exposed as ``arm_model`` (and, on a finite domain, ``posterior``): the family computes its truth-side round
    monitors from it (declared in ``monitors``)."""

    provides_posterior = True
    one_arm = False  # super arms (CombGPUCB lists this class before UCBPolicy, which chooses one point)
    monitors = COMB_MONITORS | INFINITE_MONITORS
    final_records = frozenset({"info_direct"})
    joint = False

    def __init__(self, rectify: bool = False, rectify_sd: str = "posterior", monitored: bool = True) -> None:
        self.rectify, self.rectify_sd, self.monitored = bool(rectify), rectify_sd, bool(monitored)

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        self.arm_model = _arm_model(ctx, self.joint)
        # ``monitored=False`` (experiments): the engine skips the truth-side monitors of this policy
        self.posterior = self.arm_model.post if self.arm_model.finite else None
        self.truth_prior = 0 if self.arm_model.finite else None
        self._rows = np.arange(ctx.runs)

    def models(self) -> dict[str, object]:
        return {**super().models(), "arm_model": self.arm_model}

    def choose(self, score: np.ndarray, sd: np.ndarray, available) -> np.ndarray:
        """The super arm maximising Σ score: the exact oracle, or (``rectify``) Dijkstra on the rectified
        energies E[max(0, N(−score, s²))] (Algorithm 2)."""
        acts = self.ctx.actions
        if not self.rectify:
            return acts.oracle(score, available)
        s = sd if self.rectify_sd == "posterior" else np.full_like(sd, np.sqrt(self.ctx.noise_var))
        return min_cost(acts, rectified_mean(-score, s), available)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.arm_model.update(action, y)

    def finish(self) -> dict[str, np.ndarray]:
        return {"info_direct": self.arm_model.info_gain()}
