"""Random Search: x_t ~ Unif(X_t) (named but not described by Ziomek et al.; [PROPOSED] spec 000 §2.7)."""

from __future__ import annotations

import numpy as np

from .base import Policy


class RandomSearch(Policy):
    name = "random"
    label = "Random Search"

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        choices = np.flatnonzero(available)
        self.record = {}
        return np.array([choices[g.integers(choices.size)] for g in self.ctx.rngs], dtype=np.int64)

    def update(self, t: int, idx: np.ndarray, y: np.ndarray) -> None:
        pass
