"""Certified upper bounds on the maximum information gain ``γ_t = max_{x_1..x_t ∈ box} ½ log det(I + K_t/λ)`` on
the box, for the quadrature kernel k̂ (Hadamard in its feature basis) and for the exact SE kernel (k̂'s bound
plus the kernel-error term)."""

from __future__ import annotations

import math

import numpy as np

from ...errors import BoundcheckError
from ..kernels import check_lengthscale
from .box import Box
from .features import QuadratureFeatures

__all__ = ["gamma_upper_features", "gamma_upper_se"]


def _check(horizon, noise_var) -> tuple[int, float]:
    if isinstance(horizon, bool) or not isinstance(horizon, int | np.integer) or horizon < 1:
        raise BoundcheckError(f"horizon must be an integer ≥ 1, got {horizon!r}")
    if not (isinstance(noise_var, int | float) and noise_var > 0 and math.isfinite(noise_var)):
        raise BoundcheckError(f"noise_var must be a positive number, got {noise_var!r}")
    return int(horizon), float(noise_var)


def gamma_upper_features(features: QuadratureFeatures, horizon: int, noise_var: float) -> np.ndarray:
    """``(T,)``: ``u_t ≥ γ_t(k̂)`` for ``t = 1..T``, ``k̂ = φᵀφ`` the quadrature kernel.

    With ``Φ`` the ``t × F`` feature matrix of any ``x_1..x_t``, ``½ log det(I_t + ΦΦᵀ/λ) = ½ log det(I_F +
    ΦᵀΦ/λ) ≤ ½ Σ_f log(1 + (ΦᵀΦ)_ff/λ)`` (Sylvester, then Hadamard for the PD matrix). A node's cosine and sine
    features share ``w_k`` and ``cos² + sin² = 1``: their diagonal entries are ``w_k c`` and ``w_k (t − c)``,
    ``0 ≤ c ≤ t``, whose two terms are at most ``log(1 + t w_k/(2λ))`` (concavity of log). The zero node (sine
    feature 0) contributes ``½ log(1 + t w_0/λ)``. Also ``γ_t ≤ (t/2) log(1 + max k̂(x,x)/λ)`` (Hadamard on
    ``I + K_t/λ``); the smaller of the two is returned.
    """
    T, lam = _check(horizon, noise_var)
    t = np.arange(1, T + 1, dtype=np.float64)
    w = features.weights
    zero = ~np.any(features.frequencies != 0.0, axis=1)
    u = np.log1p(np.outer(t, w[~zero]) / (2.0 * lam)).sum(axis=1)
    u += 0.5 * np.log1p(np.outer(t, w[zero]) / lam).sum(axis=1)
    diag = float(np.sum(w))  # k̂(x, x) = Σ w_k for every x
    return np.minimum(u, 0.5 * t * math.log1p(diag / lam))


def gamma_upper_se(lengthscale: float, box: Box, horizon: int, noise_var: float, *,
                   max_nodes_per_axis: int | None = None, rules: int = 16) -> np.ndarray:
    """``(T,)``: ``u_t ≥ γ_t`` of the exact SE kernel ``exp(−‖x−x'‖²/(2ℓ²))`` on the box, ``t = 1..T``.

    For any points, ``A = K/λ`` and ``B = K̂/λ`` are PSD and ``log det(I+A) − log det(I+B) = ∫₀¹ tr(M_s (A−B)) ds``
    with ``M_s = (I + B + s(A−B))^{-1}``, ``0 ≺ M_s ⪯ I``, so ``|½ log det(I+A) − ½ log det(I+B)| ≤ ½ ‖A−B‖_*
    ≤ ½ t ‖A−B‖_op ≤ ½ t · t max|A−B|_ij ≤ t² error/(2λ)``, ``error`` the certified ``sup|k̂ − k|`` on the box.
    Hence ``γ_t ≤ γ_t(k̂) + t² error/(2λ)`` for every quadrature rule; the minimum over the rules with 1 ..
    ``max_nodes_per_axis`` nodes per axis (default: until the error is below 1e-12, at most 10⁶ nodes; only the
    last ``rules`` of them are tried — any set of rules gives a valid bound) and the trivial ``(t/2) log(1 + 1/λ)``
    is returned.
    """
    T, lam = _check(horizon, noise_var)
    ell = check_lengthscale(lengthscale)
    t = np.arange(1, T + 1, dtype=np.float64)
    best = 0.5 * t * math.log1p(1.0 / lam)
    m_max = max_nodes_per_axis
    if m_max is None:
        try:
            m_max = QuadratureFeatures.se(ell, box, tol=1e-12).nodes_per_axis if (
                box.r / ell < 60) else int(1e6 ** (1 / box.dim))
        except BoundcheckError:  # 1e-12 out of reach within 10⁶ nodes (4-d and up): the largest rule allowed
            m_max = int(1e6 ** (1 / box.dim))
    m_max = min(int(m_max), int(math.floor(1e6 ** (1.0 / box.dim) + 1e-9)))
    for m in range(max(1, m_max - rules + 1), m_max + 1):
        feat = QuadratureFeatures.gauss_hermite(ell, box, m)
        u = gamma_upper_features(feat, T, lam) + t * t * feat.error / (2.0 * lam)
        best = np.minimum(best, u)
    return best
