"""SW-GP-UCB of Zhou & Shroff (2021), Algorithm 2: GP-UCB on the last w samples only (sliding window)."""

from __future__ import annotations

import numpy as np

from boundcheck.papers.r_sw_gp_ucb.restart_gp_ucb import ForgettingGPUCB

__all__ = ["SlidingWindowGPUCB"]


class SlidingWindowGPUCB(ForgettingGPUCB):
    """SW-GP-UCB, Algorithm 2 of Zhou & Shroff (2021), with correction ZS14::

        for t = 1..T:
            β_t = B + (R/√λ)√(2γ̄_{min(t−1, w)} + 2 ln(T/δ))               # Lemma 2 (union over t ≤ T)
            x_t = argmax_{x ∈ X_t} μ_{t−1}(x) + β_t σ_{t−1}(x)            # μ, σ from the samples max(1, t−w)..t−1
            y_t = f_t(x_t) + η_t;  append (x_t, y_t); if more than w samples: drop the oldest

    ZS14: the posterior after round t uses max(1, t−w+1)..t (w samples), as Lemma 2 does; the pseudocode's
    1∨(t−w)..t keeps w + 1. Dropping the oldest sample is an exact, stable rank-1 *update* of the data-space
    Cholesky factor by Givens rotations (:meth:`~boundcheck.model.dataspace.DataSpacePosterior.drop_oldest`,
    O(w(w + n))). w comes from the scenario (Remark (2)) unless given; β_t is the study's schedule for this
    policy's name (the theorem's, or the pseudocode's for ``sw_gp_ucb_pseudocode``)."""

    label = "SW-GP-UCB"
    description = "SW-GP-UCB (Zhou & Shroff 2021): GP-UCB on the last w samples (sliding window)"
    window_name = "w"
    drops = True

    def __init__(self, name: str = "sw_gp_ucb", label: str = "SW-GP-UCB", w: int | None = None) -> None:
        super().__init__(name, label, w)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition_batch(action, y)  # a full window drops its oldest sample first
