"""Random Search: x_t ~ Unif(X_t) (named but not described by Ziomek et al.; boundcheck's choice [PROPOSED]); for
super arms of K base arms, K distinct available arms uniformly at random."""

from __future__ import annotations

import numpy as np

from .base import Policy


class RandomSearch(Policy):
    name = "random"
    label = "Random Search"
    role = "uninformed"
    description = "uniformly random queries (an upper reference)"

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        K = self.ctx.actions.K
        self.record = {}
        avail = np.asarray(available)
        if avail.ndim == 1 and K == 1:
            choices = np.flatnonzero(avail)
            return np.array([[choices[g.integers(choices.size)]] for g in self.ctx.rngs], dtype=np.int64)
        avail = np.broadcast_to(avail, (len(self.ctx.rngs), avail.shape[-1]))
        # K distinct available arms uniformly at random, per run (its own stream)
        return np.array([g.choice(np.flatnonzero(a), size=K, replace=False) for g, a in zip(self.ctx.rngs, avail,
                                                                                         strict=True)],
                        dtype=np.int64)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        pass
