"""Derivative-tail constants of stationary GP priors on a box, from spectral moments alone (no features needed):
``P{sup_box |∂f/∂x_j| > L} ≤ a exp(−(L/b)²)`` — the a, b of Srinivas et al.'s Theorem 2 and of Assumption 3 (4)
of paper 001 — for the squared-exponential and Matérn-5/2 kernels, by chaining (:func:`chaining_sup_mean`) and
Borell–TIS. The SE truths of the continuum studies use their features' own constants
(:meth:`~boundcheck.model.continuum.features.QuadratureFeatures.derivative_tails`); this module states the
Matérn-5/2 ones, whose sample paths have no quadrature features here.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ...errors import BoundcheckError
from .box import Box

__all__ = ["TailConstants", "chaining_sup_mean", "spectral_moments", "derivative_tails", "value_tails"]


class TailConstants(NamedTuple):
    """``P{sup_box |g| > L} ≤ a exp(−(L/b)²)`` for all ``L ≥ 0`` (``log_a = log a``; ``a`` may be ``inf``);
    ``mean_bound ≥ E sup |g|``, ``sd² = sup Var g`` (maxima over the axes for a derivative)."""

    a: float
    log_a: float
    b: float
    mean_bound: float
    sd: float

    def level(self, delta: float) -> float:
        """The ``L`` with ``a exp(−(L/b)²) = δ``: ``sup|g| ≤ L`` with probability ≥ 1 − δ."""
        if not 0.0 < delta < 1.0:
            raise BoundcheckError(f"delta must lie in (0, 1), got {delta!r}")
        return self.b * math.sqrt(self.log_a - math.log(delta))


def _borell_tis(s: float, mean: float) -> TailConstants:
    log_a = max(0.0, mean * mean / (2.0 * s * s)) if s > 0 else 0.0
    a = math.exp(log_a) if log_a < 700 else math.inf
    return TailConstants(a=a, log_a=log_a, b=2.0 * math.sqrt(2.0) * s, mean_bound=mean, sd=s)


def spectral_moments(kind: str, lengthscale: float) -> tuple[float, float]:
    """(λ₂, λ₄) of k(r) = ∫cos(ωr) dμ(ω) along an axis, i.e. λ₂ = −k''(0), λ₄ = k''''(0), k(0) = 1.

    * SE, k = e^{−r²/(2ℓ²)} = 1 − r²/(2ℓ²) + r⁴/(8ℓ⁴) − …: λ₂ = 1/ℓ², λ₄ = 3/ℓ⁴.
    * Matérn-5/2, k = (1 + ar + a²r²/3)e^{−ar}, a = √5/ℓ: the series of e^{−ar} gives k = 1 − a²r²/6 + 0·r³ +
      a⁴r⁴/24 − (2/15)a⁵|r|⁵ + …, so k is C⁴ at 0 with λ₂ = a²/3 = 5/(3ℓ²), λ₄ = a⁴ = 25/ℓ⁴ (ν = 5/2 > 2: the
      fourth spectral moment is finite and the paths are twice mean-square differentiable).
    """
    ell = float(lengthscale)
    if not (math.isfinite(ell) and ell > 0):
        raise BoundcheckError(f"lengthscale must be positive, got {lengthscale!r}")
    if kind == "se":
        return 1.0 / ell**2, 3.0 / ell**4
    if kind == "matern52":
        a2 = 5.0 / ell**2
        return a2 / 3.0, a2 * a2
    raise BoundcheckError(f"spectral moments are known for 'se' and 'matern52', got {kind!r}")


def chaining_sup_mean(s: float, lip: float, box: Box, max_level: int = 60) -> float:
    """A proven upper bound of E sup_{x∈box} |h(x)| for a centred Gaussian process h with continuous paths,
    sup_x Var h(x) ≤ s² and canonical metric d_h(x, x') = √E(h(x) − h(x'))² ≤ lip · ‖x − x'‖₂.

    Proof (chaining on cell centres). G_k: the n = 2^k per side cell centres of the box (2^{kd} points); every
    y ∈ G_k, k ≥ 1, has a parent π(y) ∈ G_{k−1} (the centre of the cell containing y's cell) with
    ‖y − π(y)‖₂ = √d r/2^{k+1}. By continuity, sup_box |h| = sup over the dense set ∪_k G_k, and for any level k₀
    and y ∈ G_k, k > k₀: |h(y)| ≤ |h(π^{k−k₀}y)| + Σ_{i=k₀+1}^{k} |h(π^{k−i}y) − h(π^{k−i+1}y)|, so by monotone
    convergence E sup|h| ≤ E max_{G_{k₀}} |h| + Σ_{i>k₀} E max_{y∈G_i} |h(y) − h(π(y))|. For N centred Gaussians
    of sd ≤ σ (any dependence), E max |Z_j| ≤ σ√(2 ln(2N)) (Jensen on e^{λ max|Z|} ≤ Σ(e^{λZ} + e^{−λZ}), λ =
    √(2 ln 2N)/σ). The links have sd ≤ σ_i = min(lip √d r 2^{−(i+1)}, 2s) (and ≤ 2s since both ends have sd ≤ s),
    the roots sd ≤ s. The bound is minimised over k₀ ∈ [0, ``max_level``); the series is summed to i = k₀ + 200,
    its remainder bounded by a geometric series.
    """
    if not (s >= 0 and lip >= 0 and math.isfinite(s) and math.isfinite(lip)):
        raise BoundcheckError(f"chaining needs finite s ≥ 0 and lip ≥ 0, got s={s!r}, lip={lip!r}")
    d, r = box.dim, box.r
    ln2 = math.log(2.0)

    def link(i: int) -> float:
        sig = min(lip * math.sqrt(d) * r * 2.0 ** -(i + 1), 2.0 * s)
        return sig * math.sqrt(2.0 * (ln2 + i * d * ln2))  # N_i = 2^{id} links: √(2 ln(2N_i))

    best = math.inf
    for k0 in range(max_level):
        root = s * math.sqrt(2.0 * (ln2 + k0 * d * ln2))
        head = math.fsum(link(i) for i in range(k0 + 1, k0 + 201))
        # beyond i = k₀ + 200 the links are at most lip√d r 2^{−(i+1)} √(2 ln 2 (1 + id)), consecutive ratio
        # (1/2)√(1 + d/(1 + id)) ≤ (1/2)√(1 + 1/i) < 3/4 for i ≥ 201: the remainder is ≤ 4 × its first term
        tail = 4.0 * lip * math.sqrt(d) * r * 2.0 ** -(k0 + 202) * math.sqrt(2.0 * (ln2 + (k0 + 201) * d * ln2))
        best = min(best, root + head + tail)
    return best


def derivative_tails(kind: str, lengthscale: float, box: Box) -> TailConstants:
    """``P{sup_box |∂f/∂x_j| > L} ≤ a exp(−(L/b)²)`` for every axis j and L ≥ 0, f ~ GP(0, k) with k(0) = 1.

    h = ∂_j f is a centred Gaussian process with Var h = λ₂ (:func:`spectral_moments`) and, f being twice
    mean-square differentiable, d_h(x, x')² = E(∫₀¹ ∂_u h(x + s(x' − x)) ds)² ‖x' − x‖² ≤ sup_u E(∂_u ∂_j f)² ·
    ‖x' − x‖², u the unit direction. For an isotropic spectral measure E(∂_u∂_j f)² = ∫(u·ω)²ω_j² dμ =
    u_j² ∫ω_j⁴ + Σ_{i≠j} u_i² ∫ω_i²ω_j² ≤ ∫ω_j⁴ = λ₄ (odd moments vanish; ∫ω_i²ω_j² = λ₄/3 ≤ λ₄), so
    lip = √λ₄. With m = :func:`chaining_sup_mean` (λ₂^{1/2}, √λ₄) ≥ E sup|h|, Borell–TIS on ±h gives the a, b of
    :func:`~boundcheck.model.continuum.features._borell_tis` (b = 2√2 √λ₂, log a = max{0, m²/(2λ₂)}).
    """
    lam2, lam4 = spectral_moments(kind, lengthscale)
    s = math.sqrt(lam2)
    return _borell_tis(s, chaining_sup_mean(s, math.sqrt(lam4), box))


def value_tails(kind: str, lengthscale: float, box: Box) -> TailConstants:
    """As :func:`derivative_tails` for sup_box |f| (Assumption 3 (3) of paper 001): Var f = 1 and
    d_f(x, x') ≤ √λ₂ ‖x − x'‖₂ (the same argument one derivative lower)."""
    lam2, _ = spectral_moments(kind, lengthscale)
    return _borell_tis(1.0, chaining_sup_mean(1.0, math.sqrt(lam2), box))
