"""The uniformly random super arm of paper 002's comparisons (an upper reference)."""

from __future__ import annotations

import numpy as np

from boundcheck.papers.combinatorial.world import ContextualTopK
from boundcheck.policies.base import Policy

__all__ = ["CombRandom"]


class CombRandom(Policy):
    """A uniformly random feasible super arm: the exact oracle on i.i.d. scores (its own stream)::

        a_t = argmax_{a ∈ 𝒮_t} Σ_{a ∈ a} Z_t(a),   Z_t(a) ~ N(0, 1)"""

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
