"""The one information-gain helper: I(y_A; f_A) = ½ log det(I + λ⁻¹K_A) and its chain-rule increments.

For a sequence of points A = (x_1, …, x_m) with Gram matrix K_A (spatio-temporal for a drifting f) and
likelihood variance λ, the Cholesky factor L of I + λ⁻¹K_A gives every prefix at once:
log L_ss = ½ log(1 + λ⁻¹σ²_{s−1}(x_s)) (the chain rule, Srinivas et al. Lemma 5.3), so
I(y_{1:j}; f) = Σ_{s≤j} log L_ss. Used by the certified γ bracket (realised greedy values) and by the claim
checks (realised gains of what an algorithm did, compared with the posterior's online σ²).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cholesky

__all__ = ["gain_increments"]


def gain_increments(K_A: np.ndarray, noise_var: float) -> np.ndarray:
    """½ log(1 + σ²_{s−1}(x_s)/λ) for s = 1..m, from one Cholesky factor of I + K_A/λ (``K_A`` symmetric PSD).

    Their cumulative sum is the information gain of every prefix of A."""
    m = K_A.shape[0]
    return np.log(np.diag(cholesky(np.eye(m) + K_A / noise_var, lower=True)))
