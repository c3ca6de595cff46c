"""Derivative-tail constants from spectral moments: chaining against Monte Carlo of the derivative process."""

import math

import numpy as np
import pytest

from boundcheck.errors import BoundcheckError
from boundcheck.model.continuum import Box
from boundcheck.model.continuum.tails import chaining_sup_mean, derivative_tails, spectral_moments, value_tails


def _derivative_cov(kind, ell, tau):
    """Cov(f'(x), f'(x + τ)) = −k''(τ) in 1-d."""
    tau = np.abs(tau)
    if kind == "se":
        return (1 - tau**2 / ell**2) * np.exp(-0.5 * tau**2 / ell**2) / ell**2
    a = math.sqrt(5) / ell
    return (a**2 / 3) * (1 + a * tau - a**2 * tau**2) * np.exp(-a * tau)


def _sup_abs_draws(kind, ell, n_draws=3000, n_grid=801, seed=0):
    g = np.linspace(0, 1, n_grid)
    C = _derivative_cov(kind, ell, g[:, None] - g[None, :])
    w, V = np.linalg.eigh(C)
    root = V * np.sqrt(np.clip(w, 0, None))
    Z = np.random.default_rng(seed).standard_normal((n_grid, n_draws))
    return np.abs(root @ Z).max(axis=0)  # a grid max: below the true sup, so a fair test of an upper bound


@pytest.mark.parametrize("kind", ["se", "matern52"])
def test_moments_match_the_kernel_derivatives(kind):
    ell = 0.3
    lam2, lam4 = spectral_moments(kind, ell)
    assert _derivative_cov(kind, ell, np.array(0.0)) == pytest.approx(lam2, rel=1e-12)
    # λ₄ = −c''(0) of the derivative process c = −k'': a central difference
    h = 1e-4
    c0, c1 = _derivative_cov(kind, ell, np.array(0.0)), _derivative_cov(kind, ell, np.array(h))
    assert -2 * (c1 - c0) / h**2 == pytest.approx(lam4, rel=1e-3)


@pytest.mark.parametrize("kind", ["se", "matern52"])
def test_tails_bound_monte_carlo_of_the_derivative_sup(kind):
    """E sup|f'| ≤ the chaining bound, and the empirical tail ≤ a e^{−(L/b)²}, on 1-d paths with ℓ = 0.2."""
    sup = _sup_abs_draws(kind, 0.2)
    tails = derivative_tails(kind, 0.2, Box(1))
    se = sup.std() / math.sqrt(sup.size)
    assert sup.mean() + 4 * se <= tails.mean_bound
    for L in np.quantile(sup, [0.5, 0.9, 0.99]):
        assert (sup > L).mean() <= tails.a * math.exp(-(L / tails.b) ** 2) + 0.01


def test_a_tail_bound_with_a_planted_small_scale_fails_monte_carlo():
    """The check has power: the Matérn-5/2 bound computed for half the derivative's scale (λ₂ and λ₄ a quarter of
    the true ones, e.g. a forgotten factor) is below the Monte Carlo mean of sup|f'| (the test above fails on it)."""
    sup = _sup_abs_draws("matern52", 0.2)
    lam2, lam4 = spectral_moments("matern52", 0.2)
    assert chaining_sup_mean(math.sqrt(lam2) / 2, math.sqrt(lam4) / 2, Box(1)) < sup.mean()


def test_value_tails_bound_monte_carlo_of_the_sup():
    g = np.linspace(0, 1, 801)
    C = np.exp(-0.5 * (g[:, None] - g[None, :]) ** 2 / 0.2**2)
    w, V = np.linalg.eigh(C)
    sup = np.abs((V * np.sqrt(np.clip(w, 0, None))) @ np.random.default_rng(1).standard_normal((801, 3000))).max(0)
    assert sup.mean() <= value_tails("se", 0.2, Box(1)).mean_bound


def test_chaining_is_monotone_in_its_inputs_and_refuses_bad_ones():
    b = Box(2)
    assert chaining_sup_mean(1.0, 5.0, b) < chaining_sup_mean(1.0, 10.0, b) < chaining_sup_mean(2.0, 10.0, b)
    assert chaining_sup_mean(1.0, 5.0, Box(1)) < chaining_sup_mean(1.0, 5.0, b)
    with pytest.raises(BoundcheckError):
        chaining_sup_mean(-1.0, 1.0, b)
    with pytest.raises(BoundcheckError):
        spectral_moments("matern32", 0.2)


def test_chaining_bound_against_an_independent_reference():
    """The bound's value recomputed from its stated formula with plain loops (a link 2× off is caught here)."""
    def ref(s, lip, d, r):
        best = math.inf
        for k0 in range(40):
            v = s * math.sqrt(2 * math.log(2 * 2 ** (k0 * d)))
            for i in range(k0 + 1, k0 + 400):
                v += min(lip * math.sqrt(d) * r / 2 ** (i + 1), 2 * s) * math.sqrt(2 * math.log(2 * 2 ** (i * d)))
            best = min(best, v)
        return best

    for s, lip, d, r in [(5.0, 15.0, 1, 1.0), (6.45, 125.0, 2, 1.0), (1.0, 3.0, 3, 2.0)]:
        assert chaining_sup_mean(s, lip, Box(d, 0.0, r)) == pytest.approx(ref(s, lip, d, r), rel=1e-9)
    t = derivative_tails("matern52", 0.2, Box(1))
    lam2, lam4 = 5 / (3 * 0.04), 25 / 0.2**4
    m = ref(math.sqrt(lam2), math.sqrt(lam4), 1, 1.0)
    assert t.mean_bound == pytest.approx(m, rel=1e-9) and t.b == pytest.approx(2 * math.sqrt(2 * lam2))
    assert t.log_a == pytest.approx(m * m / (2 * lam2), rel=1e-9)


def test_feature_path_tails_take_the_sharper_proven_mean_and_bound_monte_carlo_in_2d():
    """GP(0, k̂) paths on [0,1]²: the features' E sup|∂_j f| bound is the smaller of its two proofs (chaining in 2-d,
    half the first-moment bound) and still above the Monte Carlo mean of a grid max over 150 paths."""
    from boundcheck.model.continuum import FeaturePaths, QuadratureFeatures

    q = QuadratureFeatures.se(0.2, Box(2), tol=1e-9)
    t = q.derivative_tails()
    crude = math.sqrt(math.pi / 2) * float(q.sqrt_weights @ np.abs(q.frequencies[:, 0]))
    assert t.mean_bound < 0.6 * crude
    P = FeaturePaths.draw(q, [np.random.default_rng(i) for i in range(150)])
    g = np.linspace(0, 1, 41)
    G = np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2)
    sup = np.abs(P.gradients(G)[..., 0]).max(axis=1)
    assert sup.mean() + 4 * sup.std() / math.sqrt(150) <= t.mean_bound
    v = q.value_tails()
    assert np.abs(P.values(G)).max(axis=1).mean() <= v.mean_bound


def test_feature_tails_against_an_independent_reference():
    """The features' derivative-tail mean: min(first-moment bound, chaining with d_h ≤ √((d+2)/ℓ⁴)‖x − x'‖), the
    Gauss–Hermite rule integrating Σ_k w_k ω_kj²‖ω_k‖² = (3 + (d−1))/ℓ⁴ exactly."""
    from boundcheck.model.continuum import QuadratureFeatures

    for d, ell in [(1, 0.2), (2, 0.2), (2, 0.5)]:
        q = QuadratureFeatures.se(ell, Box(d), tol=1e-9)
        crude = math.sqrt(math.pi / 2) * float(q.sqrt_weights @ np.abs(q.frequencies[:, 0]))
        ref = min(crude, chaining_sup_mean(1 / ell, math.sqrt(d + 2) / ell**2, Box(d)))
        assert q.derivative_tails().mean_bound == pytest.approx(ref, rel=1e-8)
        ref0 = min(math.sqrt(math.pi / 2) * float(np.sum(q.sqrt_weights)),
                   chaining_sup_mean(1.0, math.sqrt(d) / ell, Box(d)))
        assert q.value_tails().mean_bound == pytest.approx(ref0, rel=1e-8)
