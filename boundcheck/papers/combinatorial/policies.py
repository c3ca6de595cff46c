"""Combinatorial GP-UCB, GP-BayesUCB and GP-TS with volatile arms and semi-bandit feedback (paper 002,
Algorithm 1), the independent-Bayesian (BI) baselines of the experiments, and Algorithm 2's rectified indices:

    for t = 1..T:
        (𝒜_t, 𝒮_t) ← ObserveAvailableArms                         # the engine's exogenous draw
        U_t ← GetBaseArmIndices(t, θ_{t−1})                       # per base arm a:
              GP-UCB:  μ_{t−1}(a) + √β_t σ_{t−1}(a)                 #   β_t = 2 log(|𝒜|t²/√(2π))
              GP-BUCB: Q(1 − η_t, N(μ_{t−1}(a), σ²_{t−1}(a)))      #   = μ + √2 erf⁻¹(1 − 2η_t) σ
              GP-TS:   f̃_t(a), f̃_t ~ GP(μ_{t−1}, k_{t−1}) jointly on 𝒜_t
        a_t ← SelectOptimalSuperArm(𝒮_t, U_t)                     # exact oracle: argmax_a Σ_{a∈a} U_t(a)
        r_t ← ObserveRewards(a_t)                                 # one value per chosen base arm
        θ_t ← UpdateParameters(a_t, r_t, θ_{t−1})                 # exact GP posterior, all K values at once

GP-UCB and GP-BUCB are one rule with two β schedules (the study gives each its width √β_t by name; the
theorem's own algorithm uses the study's ``beta``). The GP-TS of the theorem draws one *joint* posterior sample
(:class:`~boundcheck.papers.combinatorial.model.CountPathwiseSampler`, exact); ``joint=False`` is the experiments'
per-edge independent sampling (Nuara et al. 2018), outside the theorem and the negative control of its
identity a*_t | H_t =d a_t | H_t.

``rectify=True`` is Algorithm 2 for road networks (energies are costs; rewards are negated energies): the
energy index ẽ = −U_t is rectified, U_e = E[max(0, N(ẽ_e, s_e²))] with s_e the posterior sd (the text; Algorithm 2
has ς² there: ``rectify_sd="noise"`` for the pseudocode's ς), and the path is Dijkstra's on U_e ≥ 0. Rectification
changes the indices: not covered by the theorems.

The BI baselines (Åkerblom et al. 2023; prior [PROPOSED]) model every base arm independently with the prior's
marginals N(μ(a), k(a, a)) and conjugate updates.

Policies that keep the GP model expose it as ``arm_model`` (and, on a finite domain, ``posterior``): the
verification family computes its truth-side round monitors from it (declared in ``monitors``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from boundcheck.papers.combinatorial.model import FeatureArms, GridArms
from boundcheck.papers.combinatorial.world import ContextualTopK
from boundcheck.policies.base import Policy, RunContext
from boundcheck.policies.ucb import UCBPolicy

__all__ = ["CombGPUCB", "CombGPTS", "CombGPTSIndependent", "CombBI", "CombRandom", "COMB_MONITORS", "INFINITE_MONITORS",
           "rectified_mean"]

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


def _min_cost(acts, cost: np.ndarray, available) -> np.ndarray:
    """The super arm of least total non-negative cost: Dijkstra where the action set is a road graph
    (Algorithm 2), otherwise its exact oracle on −cost."""
    if hasattr(acts, "shortest_path"):
        return acts.shortest_path(cost, available)
    return acts.oracle(-cost, available)


def _arm_model(ctx: RunContext, joint: bool):
    if getattr(ctx.actions, "features", None) is not None:  # contexts (ContextualTopK, or a wrapper of it)
        return FeatureArms(ctx.actions.features, ctx.noise_var, ctx.runs)
    return GridArms(ctx.candidates[0], ctx.noise_var, ctx.runs, joint=joint, first_run=ctx.first_run)


class _Combinatorial(Policy):
    """Shared parts: the model, the oracle (exact, or Algorithm 2's rectified Dijkstra), the records."""

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
        return _min_cost(acts, rectified_mean(-score, s), available)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.arm_model.update(action, y)

    def finish(self) -> dict[str, np.ndarray]:
        return {"info_direct": self.arm_model.info_gain()}


class CombGPUCB(_Combinatorial, UCBPolicy):
    """Combinatorial GP-UCB / GP-BUCB: U_t(a) = μ_{t−1}(a) + √β_t σ_{t−1}(a), a_t = oracle(U_t)."""

    name = "comb_gp_ucb"
    label = "GP-UCB"
    description = "combinatorial GP-UCB (GP-BUCB with the quantile schedule): exact oracle on Σ μ + √β σ"
    records = frozenset({"width", "n_arms"})

    def __init__(self, name: str = "comb_gp_ucb", label: str = "GP-UCB", **kw) -> None:
        super().__init__(**kw)
        self.name, self.label = name, label

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        self.width = ctx.schedule(self.name)

    def mean_sd(self, t: int, available) -> tuple[np.ndarray, np.ndarray]:
        self.arm_model.begin_round(available)  # 𝒜_t: the round's base arms (contexts: their features)
        return self.arm_model.mean_sd()

    def argmax(self, score: np.ndarray, sd: np.ndarray, available) -> tuple[np.ndarray, None]:
        return self.choose(score, sd, available), None  # a super arm: the exact oracle (or Algorithm 2)

    def step_records(self, t, action, mu, sd, score) -> dict[str, np.ndarray]:
        return {"n_arms": (action >= 0).sum(axis=1)}


class CombGPTS(_Combinatorial):
    """Combinatorial GP-TS: f̃_t ~ GP(μ_{t−1}, k_{t−1}) jointly on 𝒜_t (``joint=True``, the theorem's algorithm)
    or independently per base arm (``joint=False``, the experiments' variant), a_t = oracle(f̃_t)."""

    name = "comb_gp_ts"
    label = "GP-TS"
    description = "combinatorial GP Thompson sampling (one joint posterior draw per round, exact)"
    records = frozenset({"n_arms"})
    randomised = True
    conformance_monitors = frozenset({"conform_z"})
    #: independent draws of the super arm per round when running as a shadow (the rank is among M + 1)
    shadow_draws = 16

    def __init__(self, joint: bool = True, name: str | None = None, label: str | None = None, **kw) -> None:
        super().__init__(**kw)
        self.joint = bool(joint)
        self.name = name or ("comb_gp_ts" if joint else "comb_gp_ts_independent")
        self.label = label or ("GP-TS" if joint else "GP-TS (independent per arm)")

    def _sample(self, mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
        """One draw f̃_t of the round's base arms (jointly, or per arm independently)."""
        if self.joint:
            return mu + self.arm_model.joint_draw(self.ctx.rngs)
        # each base arm from its posterior marginal, independently (outside the theorem)
        z = np.stack([g.standard_normal(mu.shape[1]) for g in self.ctx.rngs])
        return mu + sd * z

    def select(self, t: int, available) -> np.ndarray:
        model = self.arm_model
        model.begin_round(available)
        mu, sd = model.mean_sd()
        action = self.choose(self._sample(mu, sd), sd, available)
        self.record = {"n_arms": (action >= 0).sum(axis=1)}
        return action

    def conformance(self, t: int, available, action: np.ndarray) -> dict[str, np.ndarray]:
        """``conform_z`` = Φ⁻¹(u_t), u_t the randomised rank of the implementation's super arm among M
        independent super arms of this algorithm given the same history (as
        :meth:`boundcheck.policies.gp_ts.GPTS.conformance`); super arms are ordered by Σ μ_{t−1} over their base
        arms, ties by their sorted base arms (lexicographic), a history-measurable total order."""
        from boundcheck.utils.laws import stats

        model = self.arm_model
        model.begin_round(available)
        mu, sd = model.mean_sd()

        def canon(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # (sorted base arms, Σ μ)
            a = np.sort(a, axis=1)
            return a, np.where(a >= 0, np.take_along_axis(mu, np.maximum(a, 0), axis=1), 0.0).sum(axis=1)

        a, key_a = canon(np.asarray(action))
        r = np.arange(a.shape[0])
        below = np.zeros(r.size)
        same = np.zeros(r.size)
        for _ in range(self.shadow_draws):
            x, key_x = canon(self.choose(self._sample(mu, sd), sd, available))
            diff = x != a
            first = diff.argmax(axis=1)
            differs = diff.any(axis=1)
            below += (key_x < key_a) | ((key_x == key_a) & differs & (x[r, first] < a[r, first]))
            same += ~differs
        V = np.array([g.random() for g in self.ctx.rngs])
        u = (below + V * (same + 1.0)) / (self.shadow_draws + 1.0)
        return {"conform_z": stats.norm.ppf(np.clip(u, 1e-300, 1.0 - 1e-16))}


class CombGPTSIndependent(CombGPTS):
    """The experiments' GP-TS: each base arm sampled from its posterior marginal independently (Nuara et al.
    2018). Outside Theorem 3.1: a*_t | H_t and a_t | H_t differ in law (the TS identity's negative control)."""

    description = "GP-TS sampling each base arm independently (the paper's experiments; outside the theorem)"

    def __init__(self, name: str | None = None, label: str | None = None, **kw) -> None:
        super().__init__(joint=False, name=name, label=label, **kw)


class CombBI(Policy):
    """Independent Bayesian inference per base arm (BI-UCB / BI-BUCB / BI-TS): prior N(μ(a), k(a, a)), known
    noise ς², conjugate updates σ²_a = (1/k(a,a) + n_a/ς²)⁻¹, μ_a = σ²_a(μ(a)/k(a,a) + S_a/ς²)."""

    name = "comb_bi_ucb"
    label = "BI-UCB"
    description = ("independent-Bayesian per-arm baseline (Åkerblom et al. 2023): ignores correlations; outside "
                   "the theorems")
    records = frozenset({"n_arms"})

    def __init__(self, index: str = "ucb", name: str | None = None, label: str | None = None,
                 rectify: bool = False, rectify_sd: str = "posterior", monitored: bool = True) -> None:
        self.index, self.monitored = index, bool(monitored)  # monitored=False: no engine reference posterior
        self.name = name or {"ucb": "comb_bi_ucb", "bucb": "comb_bi_bucb", "ts": "comb_bi_ts"}[index]
        self.label = label or {"ucb": "BI-UCB", "bucb": "BI-BUCB", "ts": "BI-TS"}[index]
        self.rectify, self.rectify_sd = bool(rectify), rectify_sd

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        prior = ctx.candidates[0]
        self.mu0, self.v0 = prior.mean, np.diag(prior.K).copy()
        self.n = np.zeros((ctx.runs, prior.n))
        self.S = np.zeros((ctx.runs, prior.n))
        self.width = ctx.schedule(self.name)

    def select(self, t: int, available) -> np.ndarray:
        s2 = self.ctx.noise_var
        var = 1.0 / (1.0 / self.v0[None] + self.n / s2)
        mu = var * (self.mu0[None] / self.v0[None] + self.S / s2)
        sd = np.sqrt(var)
        if self.index == "ts":
            score = mu + sd * np.stack([g.standard_normal(mu.shape[1]) for g in self.ctx.rngs])
        else:
            score = mu + self.width[t] * sd
        acts = self.ctx.actions
        if self.rectify:
            s = sd if self.rectify_sd == "posterior" else np.full_like(sd, np.sqrt(s2))
            action = _min_cost(acts, rectified_mean(-score, s), available)
        else:
            action = acts.oracle(score, available)
        self.record = {"n_arms": (action >= 0).sum(axis=1)}
        return action

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        rows = np.broadcast_to(np.arange(action.shape[0])[:, None], action.shape)
        ok = action >= 0
        np.add.at(self.n, (rows[ok], action[ok]), 1.0)
        np.add.at(self.S, (rows[ok], action[ok]), y[ok])


class CombRandom(Policy):
    """A uniformly random feasible super arm: the exact oracle on i.i.d. N(0, 1) scores (its own stream)."""

    name = "comb_random"
    label = "Random"
    role = "uninformed"
    description = "the oracle on random scores (a random feasible super arm; an upper reference)"

    def select(self, t: int, available) -> np.ndarray:
        acts = self.ctx.actions
        n = np.asarray(available).shape[1] if isinstance(acts, ContextualTopK) else self.ctx.candidates[0].n
        self.record = {}
        return acts.oracle(np.stack([g.standard_normal(n) for g in self.ctx.rngs]), available)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        pass


#: (name, factory, kwargs): the paper's policies (its manifest's ``policies`` part)
POLICIES = (
    ("comb_gp_ucb", CombGPUCB, {"name": "comb_gp_ucb", "label": "GP-UCB"}),
    ("comb_gp_bucb", CombGPUCB, {"name": "comb_gp_bucb", "label": "GP-BUCB"}),
    ("comb_gp_ts", CombGPTS, {"joint": True}),
    ("comb_gp_ts_independent", CombGPTSIndependent, {}),
    ("comb_bi_ucb", CombBI, {"index": "ucb"}),
    ("comb_bi_bucb", CombBI, {"index": "bucb"}),
    ("comb_bi_ts", CombBI, {"index": "ts"}),
    ("comb_random", CombRandom, {}),
    # the paper's experiments (§4): Algorithm 2's rectified indices and Dijkstra, unmonitored, outside the theorems;
    # their β_t (ω = 1, ξ ∈ {1, 0.5}; UCB scaled by 0.5) come from the family's schedules under these names
    *((f"{n}_alg2", cls, {**kw, "name": f"{n}_alg2", "label": lab, "rectify": True, "monitored": False})
      for n, cls, kw, lab in (
          ("comb_gp_ucb", CombGPUCB, {}, "GP-UCB (Alg. 2)"),
          ("comb_gp_bucb", CombGPUCB, {}, "GP-BUCB ω=1, ξ=1 (Alg. 2)"),
          ("comb_gp_bucb_half", CombGPUCB, {}, "GP-BUCB ω=1, ξ=0.5 (Alg. 2)"),
          ("comb_gp_ucb_half", CombGPUCB, {}, "GP-UCB β×0.5 (Alg. 2)"),
          ("comb_gp_ts", CombGPTSIndependent, {}, "GP-TS per edge (Alg. 2)"),
          ("comb_bi_ucb", CombBI, {"index": "ucb"}, "BI-UCB (Alg. 2)"),
          ("comb_bi_bucb", CombBI, {"index": "bucb"}, "BI-BUCB (Alg. 2)"),
          ("comb_bi_ts", CombBI, {"index": "ts"}, "BI-TS (Alg. 2)"))),
)
