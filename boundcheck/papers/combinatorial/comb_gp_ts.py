"""Combinatorial GP-TS of paper 002 (Algorithm 1 with the Thompson-sampling index), and the experiments' per-edge
independent sampling (outside the theorem: the negative control of its identity a*_t | H_t =d a_t | H_t)."""

from __future__ import annotations

import numpy as np

from boundcheck.papers.combinatorial.comb_gp import CombinatorialGP

__all__ = ["CombGPTS", "CombGPTSIndependent"]


class CombGPTS(CombinatorialGP):
    """Combinatorial GP-TS, the index of Algorithm 1 (:class:`.comb_gp.CombinatorialGP`)::

        f̃_t ~ GP(μ_{t−1}, k_{t−1}) jointly on 𝒜_t       (``joint=True``, the theorem's algorithm; exact:
                                                         :class:`~boundcheck.papers.combinatorial.model.CountPathwiseSampler`)
        U_t(a) = f̃_t(a)                                 for every base arm a ∈ 𝒜_t
        a_t = argmax_{a ∈ 𝒮_t} Σ_{a ∈ a} U_t(a)         (the exact oracle)

    ``joint=False``: each f̃_t(a) from its posterior marginal independently (the experiments' variant)."""

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
