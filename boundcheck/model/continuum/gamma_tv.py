"""Certified upper bounds on the time-varying maximum information gain over a box,

    γ̃_t = max_{x_1..x_t ∈ box} ½ log det(I_t + K̃_t/λ),   K̃_t = [k(x_s, x_s') (1−ε)^{|s−s'|/2}]_{s,s' ≤ t},

one point per time s = 1..t (the ε chain of Bogunovic et al. 2016), for the exact SE kernel k: the feature form
(:func:`gamma_upper_features_tv`, proof there) plus the kernel-error term, Bogunovic et al.'s block argument in the
proved form of docs/gamma.md (``block``) on the certified static box curve, and the trivial bound; the smallest.
:func:`gamma_lower_greedy_tv` is the bracket's lower end, the gain of an attained (greedy) design.
"""

from __future__ import annotations

import math

import numpy as np

from ...utils.validation import check_unit_interval
from ..kernels import RBF, check_lengthscale
from .box import Box
from .features import QuadratureFeatures
from .gamma import _check, gamma_upper_se

__all__ = ["ar1_logdet", "gamma_upper_features_tv", "gamma_upper_se_tv", "block_bound", "gamma_lower_greedy_tv"]


def ar1_logdet(a: np.ndarray, eps: float, horizon: int) -> np.ndarray:
    """``(T,)``: ``Σ_k ½ log det(I_t + a_k D_t)`` for ``t = 1..T``, ``(D_t)_{ss'} = (1−ε)^{|s−s'|/2}``.

    D_t is the covariance of a stationary AR(1) z_{s+1} = ρ z_s + √(1−ρ²) ξ (ρ² = 1−ε, Var z = 1), so
    ``det(I + a D_t) = Π_s (1 + a p_s)`` with p_s the Kalman predictive variance of z_s given a z_{s'} + noise of
    variance 1, s' < s (chain rule of the Gaussian log-determinant): p_1 = 1, p_{s+1} = ρ² p_s/(1 + a p_s) + ε."""
    a = np.asarray(a, dtype=np.float64).ravel()
    a = a[a > 0]
    out = np.zeros(int(horizon))
    p = np.ones_like(a)
    rho2 = 1.0 - float(eps)
    for s in range(int(horizon)):
        out[s] = 0.5 * float(np.log1p(a * p).sum())
        p = rho2 * p / (1.0 + a * p) + float(eps)
    return np.cumsum(out)


def gamma_upper_features_tv(features: QuadratureFeatures, horizon: int, noise_var: float, eps: float) -> np.ndarray:
    """``(T,)``: ``u_t ≥ γ̃_t(k̂)`` for ``t = 1..T``, ``k̂ = φᵀφ`` the quadrature kernel.

    Proof. K̃_t = Σ_j Φ_j D_t Φ_j with Φ_j = diag(φ_j(x_1), …, φ_j(x_t)) (K̂ ∘ D = Σ_j φ_jφ_jᵀ ∘ D), so
    K̃_t = B Bᵀ with B = [Φ_1 D^{½}, …, Φ_J D^{½}] and, by Sylvester, det(I + K̃/λ) = det(I + BᵀB/λ), a PSD
    matrix of J blocks of size t whose diagonal blocks are D^{½}Φ_j²D^{½}. Fischer's inequality over the blocks of
    each frequency node (its cosine and sine features: one block pair) bounds log det by the sum of the pairs'
    log dets, and a pair's is at most g(P) + g(Q) with g(P) = log det(I + D^{½}PD^{½}/λ) (Fischer again, within the
    pair), P = w_k diag(cos²), Q = w_k diag(sin²), P + Q = w_k I. g is concave (log det of an affine map), so
    g(P) + g(Q) ≤ 2 g(w_k I/2) = 2 log det(I + (w_k/(2λ)) D_t). The zero node has no sine: g(w_0 I). Hence
    γ̃_t(k̂) ≤ Σ_{k ≠ 0} log det(I + (w_k/(2λ))D_t) + ½ log det(I + (w_0/λ)D_t), each computed exactly by
    :func:`ar1_logdet`. At ε = 0 (D = J, rank one) this is the static bound of
    :func:`~boundcheck.model.continuum.gamma.gamma_upper_features` term by term. Also γ̃_t ≤ (t/2) log(1 +
    max k̂/λ) (Hadamard on I + K̃/λ, diagonal entries ≤ 1 + max k̂/λ); the smaller is returned."""
    T, lam = _check(horizon, noise_var)
    eps = check_unit_interval("eps", eps)
    t = np.arange(1, T + 1, dtype=np.float64)
    w = features.weights
    zero = ~np.any(features.frequencies != 0.0, axis=1)
    u = 2.0 * ar1_logdet(w[~zero] / (2.0 * lam), eps, T) + ar1_logdet(w[zero] / lam, eps, T)
    diag = float(np.sum(w))
    return np.minimum(u, 0.5 * t * math.log1p(diag / lam))


def block_bound(static_upper: np.ndarray, noise_var: float, eps: float) -> np.ndarray:
    """``(T,)``: ``⌈t/N⌉ (U_N + ¼ λ⁻¹ N^{5/2} ε)`` minimised over N ≤ T, ``U`` a certified static curve (γ_N ≤ U_N
    over the same domain, k ≤ 1) — Bogunovic et al.'s block argument in the proved form of docs/gamma.md (``block``:
    Fischer over blocks of N consecutive times, then the concavity of log det and ‖E‖_* ≤ N^{3/2} max|E_ij| with
    |E_ij| ≤ N ε/2 for the block's K ∘ (J − D)); the proof uses no finiteness of the domain."""
    U = np.asarray(static_upper, dtype=np.float64)
    T = U.size
    N = np.arange(1, T + 1, dtype=np.float64)
    corr = 0.25 / float(noise_var) * N**2.5 * float(eps)
    t = np.arange(1, T + 1)
    nblocks = -(-t[:, None] // np.arange(1, T + 1)[None, :])
    return (nblocks * (U + corr)[None, :]).min(axis=1)


def gamma_upper_se_tv(lengthscale: float, box: Box, horizon: int, noise_var: float, eps: float, *,
                      rules: int = 16) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``(T,)`` ``u_t ≥ γ̃_t`` of the exact SE kernel on the box for the ε chain, and the curves it is the
    minimum of (by name).

    The feature bound of :func:`gamma_upper_features_tv` for k̂ holds for the exact k with ``t² error/(2λ)``
    added: K̃ − K̂̃ = (K − K̂) ∘ D has entries ≤ ``error`` (|D_ij| ≤ 1), and the argument of
    :func:`~boundcheck.model.continuum.gamma.gamma_upper_se` (log det is 1-Lipschitz in the nuclear norm on PSD
    perturbations of I) applies unchanged. The minimum over the last ``rules`` quadrature rules (each a valid
    bound), the block bound on :func:`~boundcheck.model.continuum.gamma.gamma_upper_se` and the trivial
    ``(t/2) log(1 + 1/λ)``; then the running minimum from the right (γ̃_t is non-decreasing in t)."""
    T, lam = _check(horizon, noise_var)
    ell = check_lengthscale(lengthscale)
    eps = check_unit_interval("eps", eps)
    t = np.arange(1, T + 1, dtype=np.float64)
    trivial = 0.5 * t * math.log1p(1.0 / lam)
    feat_best = np.full(T, np.inf)
    m_max = QuadratureFeatures.se(ell, box, tol=1e-12).nodes_per_axis if box.r / ell < 60 else int(
        1e6 ** (1 / box.dim))
    m_max = min(int(m_max), int(math.floor(1e6 ** (1.0 / box.dim) + 1e-9)))
    for m in range(max(1, m_max - rules + 1), m_max + 1):
        feat = QuadratureFeatures.gauss_hermite(ell, box, m)
        feat_best = np.minimum(feat_best, gamma_upper_features_tv(feat, T, lam, eps) + t * t * feat.error / (2 * lam))
    static = gamma_upper_se(ell, box, T, lam)
    block = block_bound(static, lam, eps) if eps > 0 else static
    curves = {"feature (Fischer + AR(1) determinants)": feat_best, "block ⌈t/N⌉(γ_N + ¼σ⁻²N^{5/2}ε)": block,
              "trivial (t/2)log(1+σ⁻²)": trivial}
    best = np.minimum(np.minimum(feat_best, block), trivial)
    return np.minimum.accumulate(best[::-1])[::-1], curves


def gamma_lower_greedy_tv(lengthscale: float, box: Box, horizon: int, noise_var: float, eps: float,
                          points_per_axis: int | None = None) -> np.ndarray:
    """``(T,)``: ``l_t ≤ γ̃_t`` of the exact SE kernel, the gain of an attained design: the greedy sequence on the
    box's regular grid of ``points_per_axis`` points per axis (default 65, 33, 13 in 1, 2, 3 dimensions),
    x_s = argmax σ̃_{s−1}(x) at time s (uncertainty sampling on the spatio-temporal GP), whose gain
    ½Σ_s log(1 + σ̃²_{s−1}(x_s)/λ) is ½ log det(I + K̃/λ) of those points (chain rule) and so at most the maximum
    γ̃_t. The lower end of the bracket (never used as a bound)."""
    from .posterior import TimeVaryingPosterior

    T, lam = _check(horizon, noise_var)
    G = box.grid(int(points_per_axis or {1: 65, 2: 33}.get(box.dim, 13)))
    post = TimeVaryingPosterior(RBF(check_lengthscale(lengthscale)), lam, 1, box.dim, T, check_unit_interval(
        "eps", eps))
    gains = np.empty(T)
    for s in range(1, T + 1):
        _, sd = post.at(s).mean_sd(G[None])
        k = int(np.argmax(sd[0]))
        gains[s - 1] = 0.5 * math.log1p(sd[0, k] ** 2 / lam)
        post.condition(G[k][None], np.zeros(1), times=float(s))
    return np.cumsum(gains)
