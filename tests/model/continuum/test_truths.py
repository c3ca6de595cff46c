"""The continuum truths: box, quadrature features (certified kernel error), exact GP paths (law, ε chain,
certified maximum, derivative tails), RKHS expansions (exact norm, certified maximum) and certified γ bounds.
Every certificate is checked against brute force, and a planted defect shows the check would catch a wrong one."""

import math

import numpy as np
import pytest
from scipy.stats import chi2

import boundcheck.model.continuum.rkhs as rkhs_mod
from boundcheck.errors import BoundcheckError
from boundcheck.model.continuum import (
    Box,
    FeaturePaths,
    QuadratureFeatures,
    RKHSExpansion,
    gamma_upper_features,
    gamma_upper_se,
)
from boundcheck.model.kernels import RBF, Matern
from boundcheck.model.mig import gamma_bracket

#: false-alarm probability of each Monte Carlo test below (asymptotic χ² of the likelihood-ratio statistic)
ALPHA = 1e-6


def rngs(seed, n):
    return [np.random.default_rng([seed, i]) for i in range(n)]


def se(X, Y, ell):
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    return np.exp(-0.5 * d2 / ell**2)


# ------------------------------------------------------------------------------------------------------ box
def test_box_validates_and_samples():
    for bad in [dict(dim=0), dict(dim=1.5), dict(dim=True), dict(dim=2, low=1.0, high=1.0),
                dict(dim=2, low=0.0, high=math.inf), dict(dim=2, low=math.nan)]:
        with pytest.raises(BoundcheckError):
            Box(**bad)
    b = Box(2, -1.0, 3.0)
    assert b.r == 4.0 and b.diameter == pytest.approx(4 * math.sqrt(2)) and b.bounds.shape == (2, 2)
    S = b.sobol(100, np.random.default_rng(0))
    assert S.shape == (100, 2) and b.contains(S).all()
    np.testing.assert_array_equal(S, b.sobol(100, np.random.default_rng(0)))
    G = b.grid(5)
    assert G.shape == (25, 2) and G.min() == -1.0 and G.max() == 3.0
    assert not b.contains(np.array([[3.1, 0.0]])).any() and b.contains(np.array([[3.1, 0.0]]), tol=0.2).all()
    np.testing.assert_array_equal(b.clip(np.array([[5.0, -7.0]])), [[3.0, -1.0]])


# ------------------------------------------------------------------------------------------------ features
@pytest.mark.parametrize("ell,d,low,high", [(0.2, 1, 0.0, 1.0), (0.3, 2, 0.0, 1.0), (0.5, 2, -1.0, 0.5),
                                            (0.8, 3, 0.0, 1.0)])
def test_kernel_error_certificate_holds_and_is_not_vacuous(ell, d, low, high):
    box = Box(d, low, high)
    f = QuadratureFeatures.se(ell, box, tol=1e-12)
    assert f.error <= 1e-12
    rng = np.random.default_rng(1)
    X, Y = box.sobol(3000, rng), box.sobol(3000, rng)
    X[:8] = low  # the largest differences: corner to corner and along the axes
    Y[:8] = high
    Y[4:8, 1:] = low
    K = se(X, Y, ell)
    Kh = f.kernel(X, Y)
    assert np.abs(Kh - K).max() <= f.error
    np.testing.assert_allclose(np.einsum("ij,ij->i", f.phi(X), f.phi(X)), 1.0, atol=1e-14)
    # fewer nodes: the largest rule whose observed error (largest along one axis spanning the box) exceeds tol
    # is within its own certificate, and at most 6 nodes per axis below the chosen one (the price of the bound)
    Xe, Ye = np.full((1, d), low), np.full((1, d), low)
    Ye[0, 0] = high
    for m in range(f.nodes_per_axis - 1, 0, -1):
        g = QuadratureFeatures.gauss_hermite(ell, box, m)
        err = abs(g.kernel(Xe, Ye)[0, 0] - se(Xe, Ye, ell)[0, 0])
        if err > 1e-12:
            break
    assert err <= g.error and f.nodes_per_axis - m <= 6
    assert np.abs(g.kernel(X, Y) - K).max() <= g.error


def test_features_api():
    box = Box(2)
    f = QuadratureFeatures.se(0.5, box, tol=1e-10)
    X = box.sobol(7, np.random.default_rng(0))
    P, D = f.phi(X), f.phi_grad(X)
    assert P.shape == (7, f.n_features) and D.shape == (7, f.n_features, 2)
    h = 1e-6
    for j in range(2):
        e = np.zeros(2)
        e[j] = h
        np.testing.assert_allclose(D[:, :, j], (f.phi(X + e) - f.phi(X - e)) / (2 * h), atol=1e-8)
    np.testing.assert_allclose(f.derivative_sd, 2.0, rtol=1e-12)
    # the merged ±ω pairs: K = ⌈m^d/2⌉ nodes, weights summing to 1
    assert len(f.weights) == (f.nodes_per_axis**2 + 1) // 2 and abs(f.weights.sum() - 1) < 1e-14
    with pytest.raises(BoundcheckError):
        QuadratureFeatures.se(0.01, Box(3), tol=1e-12)
    with pytest.raises(BoundcheckError):
        QuadratureFeatures.se(0.5, box, tol=0.0)


# --------------------------------------------------------------------------------------------------- paths
def lrt(Y, Sigma):
    """Likelihood-ratio statistic of N(0, Sigma) for the columns of Y (p × N, known zero mean) and its
    1 − ALPHA quantile (asymptotically χ² with p(p+1)/2 degrees of freedom)."""
    p, N = Y.shape
    S = Y @ Y.T / N
    M = np.linalg.solve(Sigma, S)
    stat = N * (np.trace(M) - np.linalg.slogdet(M)[1] - p)
    return stat, chi2.isf(ALPHA, p * (p + 1) // 2)


def test_path_law_is_khat_and_the_eps_chain_is_exact():
    box = Box(2)
    ell = 0.5
    f = QuadratureFeatures.se(ell, box, tol=1e-10)
    X = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0.5, 0.5], [0.2, 0.7]], dtype=float)
    N = 20000
    P0 = FeaturePaths.draw(f, rngs(7, N))
    Y0 = P0.values(X).T
    Kh, K = f.kernel(X), se(X, X, ell)
    assert np.abs(Kh - K).max() <= f.error
    for Sigma in (Kh, K):
        stat, crit = lrt(Y0, Sigma)
        assert stat < crit, (stat, crit)
    stat, crit = lrt(Y0, se(X, X, 1.1 * ell))  # power: a 10 % wrong lengthscale is rejected
    assert stat > crit
    eps = 0.3
    P1 = P0.advance(eps, rngs(8, N))
    Y = np.vstack([Y0, P1.values(X).T])
    c = math.sqrt(1 - eps)
    stat, crit = lrt(Y, np.block([[Kh, c * Kh], [c * Kh, Kh]]))
    assert stat < crit, (stat, crit)
    stat, crit = lrt(Y, np.block([[Kh, (1 - eps) * Kh], [(1 - eps) * Kh, Kh]]))  # the wrong lag-1 factor
    assert stat > crit
    with pytest.raises(BoundcheckError):
        P0.advance(1.5, rngs(8, N))


def test_path_gradients_match_finite_differences():
    box = Box(2)
    f = QuadratureFeatures.se(0.3, box, tol=1e-10)
    P = FeaturePaths.draw(f, rngs(3, 4))
    X = box.sobol(9, np.random.default_rng(2))
    G = P.gradients(X)
    h = 1e-6
    for j in range(2):
        e = np.zeros(2)
        e[j] = h
        np.testing.assert_allclose(G[:, :, j], (P.values(X + e) - P.values(X - e)) / (2 * h), atol=1e-6)
    # per-run points, and the jet (Hessian by differences of gradients)
    Xr = np.stack([X + 0.01 * r for r in range(4)])
    np.testing.assert_allclose(P.values(Xr)[2], P.values(Xr[2])[2], atol=1e-13)
    np.testing.assert_allclose(P.gradients(Xr)[3], P.gradients(Xr[3])[3], atol=1e-12)
    runs = np.arange(4).repeat(9) % 4
    Xj = np.tile(X, (4, 1))
    v, g, H = P.jet(runs, Xj)
    np.testing.assert_allclose(v, P.values(Xj)[runs, np.arange(36)], atol=1e-13)
    for j in range(2):
        e = np.zeros(2)
        e[j] = h
        dg = (P.jet(runs, Xj + e, False)[1] - P.jet(runs, Xj - e, False)[1]) / (2 * h)
        np.testing.assert_allclose(H[:, :, j], dg, atol=1e-4)


@pytest.mark.parametrize("d,ell", [(1, 0.2), (2, 0.3)])
def test_path_maximum_is_certified(d, ell):
    box = Box(d)
    f = QuadratureFeatures.se(ell, box, tol=1e-10)
    P = FeaturePaths.draw(f, rngs(11, 12))
    tol = 1e-3
    x, fs, fu = P.maximum(tol=tol, rng=0)
    brute = P.values(box.grid(20001 if d == 1 else 301)).max(axis=1)
    assert box.contains(x).all()
    np.testing.assert_allclose(P.values(x[:, None, :])[:, 0], fs, atol=1e-12)
    assert (brute <= fu).all() and (fu - fs <= tol).all() and (fs <= fu).all()
    assert (fs >= brute - tol).all()
    # planted defect: constants 20× too small must let the 'certificate' fall below the brute-force maximum
    P.lipschitz, P.hessian_bound, P.third_bound = P.lipschitz / 20, P.hessian_bound / 20, P.third_bound / 20
    _, _, fu_bad = P.maximum(tol=0.05, rng=0, n_candidates=2, n_starts=1, grid=2)
    assert (brute > fu_bad).any()


def test_path_constants_bound_what_is_attained():
    box = Box(2)
    f = QuadratureFeatures.se(0.4, box, tol=1e-10)
    P = FeaturePaths.draw(f, rngs(5, 6))
    G = box.grid(81)
    g = P.gradients(G)
    assert (np.linalg.norm(g, axis=2).max(axis=1) <= P.lipschitz).all()
    assert (np.abs(P.values(G)).max(axis=1) <= P.sup_bound).all()
    low = P.sup_abs_gradient_lower()
    assert (low >= 0.99 * np.abs(g).max(axis=1)).all()  # the search is about as good as a fine grid
    assert (low <= P.lipschitz[:, None]).all()


def test_batching_invariance():
    box = Box(2)
    f = QuadratureFeatures.se(0.3, box, tol=1e-10)
    B = FeaturePaths.draw(f, rngs(21, 3)).advance(0.2, rngs(22, 3))
    X = box.sobol(5, np.random.default_rng(0))
    xb, fb, ub = B.maximum(rng=1)
    gb = B.sup_abs_gradient_lower(rng=1)
    for r in range(3):
        one = FeaturePaths.draw(f, [np.random.default_rng([21, r])]).advance(0.2, [np.random.default_rng([22, r])])
        np.testing.assert_array_equal(one.weights[0], B.weights[r])
        np.testing.assert_allclose(one.values(X)[0], B.values(X)[r], atol=1e-13)
        x1, f1, u1 = one.maximum(rng=1)
        np.testing.assert_allclose(x1[0], xb[r], atol=1e-12)
        np.testing.assert_allclose([f1[0], u1[0]], [fb[r], ub[r]], atol=1e-12)
        np.testing.assert_allclose(one.sup_abs_gradient_lower(rng=1)[0], gb[r], atol=1e-12)
    R = RKHSExpansion.draw(RBF(0.2), box, 6, 1.5, rngs(31, 3))
    xr, lr, ur = R.certified_max(tol=1e-6)
    for r in range(3):
        one = RKHSExpansion.draw(RBF(0.2), box, 6, 1.5, [np.random.default_rng([31, r])])
        np.testing.assert_array_equal(one.alpha[0], R.alpha[r])
        x1, l1, u1 = one.certified_max(tol=1e-6)
        np.testing.assert_allclose([l1[0], u1[0]], [lr[r], ur[r]], atol=1e-12)


def test_derivative_tails_dominate_the_empirical_tails():
    box = Box(1)
    f = QuadratureFeatures.se(0.3, box, tol=1e-10)
    P = FeaturePaths.draw(f, rngs(41, 2000))
    G = box.grid(801)
    sup_d = np.maximum(np.abs(P.gradients(G)[:, :, 0]).max(axis=1), P.sup_abs_gradient_lower(n_candidates=16)[:, 0])
    sup_f = np.abs(P.values(G)).max(axis=1)
    for tails, sup in ((f.derivative_tails(), sup_d), (f.value_tails(), sup_f)):
        assert tails.mean_bound >= sup.mean()
        for q in (0.5, 0.9, 0.99):
            L = np.quantile(sup, q)
            assert np.mean(sup > L) <= min(1.0, math.exp(tails.log_a - (L / tails.b) ** 2))
        L = tails.level(0.01)
        assert np.mean(sup > L) <= 0.01 and tails.a == pytest.approx(math.exp(tails.log_a))
    assert f.derivative_tails().sd == pytest.approx(1 / 0.3)


# ---------------------------------------------------------------------------------------------------- RKHS
@pytest.mark.parametrize("kernel", [RBF(0.2), Matern(2.5, 0.25), RBF(0.3, variance=2.0)])
def test_rkhs_norm_gradients_and_certified_max(kernel):
    for d in (1, 2):
        box = Box(d, -0.5, 0.5)
        R = RKHSExpansion.draw(kernel, box, 12, 2.0, rngs(51 + d, 8))
        for r in range(R.n_runs):
            a, c = R.alpha[r], R.centres[r]
            assert math.sqrt(a @ kernel(c, c) @ a) == pytest.approx(2.0, rel=1e-12)
        np.testing.assert_allclose(R.norm, 2.0, rtol=1e-12)
        X = box.sobol(6, np.random.default_rng(0))
        h = 1e-6
        for j in range(d):
            e = np.zeros(d)
            e[j] = h
            np.testing.assert_allclose(R.gradients(X)[:, :, j], (R.values(X + e) - R.values(X - e)) / (2 * h),
                                       atol=1e-6)
        np.testing.assert_allclose(R.values(X), np.einsum("mnj,mj->mn", np.stack(
            [kernel(X, c) for c in R.centres]), R.alpha), atol=1e-13)
        tol = 1e-6
        x, lo, up = R.certified_max(tol=tol)
        brute = R.values(box.grid(20001 if d == 1 else 401)).max(axis=1)
        assert (brute <= up).all() and (lo >= brute - tol).all() and (up - lo <= tol).all()
        assert (R.values(x[:, None, :])[:, 0] >= lo).all()


def test_rkhs_planted_defect_is_caught_and_budget_guarded(monkeypatch):
    orig = rkhs_mod._constants
    monkeypatch.setattr(rkhs_mod, "_constants", lambda k: tuple(None if c is None else 0.2 * c for c in orig(k)))
    box = Box(1)
    R = RKHSExpansion.draw(RBF(0.2), box, 10, 1.0, rngs(100, 30))
    _, _, up = R.certified_max(tol=1e-2, n_candidates=4, n_starts=1, grid=2)
    assert (R.values(box.grid(4001)).max(axis=1) > up).any()
    monkeypatch.setattr(rkhs_mod, "_constants", orig)
    R = RKHSExpansion.draw(RBF(0.2), box, 10, 1.0, rngs(100, 3))
    with pytest.raises(BoundcheckError, match="not reached"):
        R.certified_max(tol=1e-9, max_cells=100)
    with pytest.raises(BoundcheckError):
        RKHSExpansion.draw(Matern(1.5, 0.2), box, 5, 1.0, rngs(1, 1))


# --------------------------------------------------------------------------------------------------- gamma
def half_logdet(K, lam):
    return 0.5 * np.linalg.slogdet(np.eye(len(K)) + K / lam)[1]


def greedy(K, lam, T):
    """Greedy information-gain maximisation over the candidate set of K: gains ½ log(1 + σ²_{t−1}(x)/λ)."""
    n = len(K)
    var = np.diag(K).copy()
    L = np.zeros((n, 0))
    picks = []
    for _ in range(T):
        i = int(np.argmax(var))
        picks.append(i)
        col = (K[:, i] - L @ L[i]) / math.sqrt(var[i] + lam)
        L = np.column_stack([L, col])
        var = var - col**2
    return picks


@pytest.mark.parametrize("d,ell,lam", [(1, 0.1, 0.01), (2, 0.3, 0.05)])
def test_gamma_bounds_dominate_random_and_greedy_designs(d, ell, lam):
    box = Box(d)
    T = 50
    f = QuadratureFeatures.se(ell, box, tol=1e-10)
    uf = gamma_upper_features(f, T, lam)
    us = gamma_upper_se(ell, box, T, lam)
    assert np.all(np.diff(us) >= -1e-12) and us[-1] <= 0.5 * T * math.log1p(1 / lam)
    C = box.grid(401 if d == 1 else 31)
    Kh, K = f.kernel(C), se(C, C, ell)
    picks_h, picks = greedy(Kh, lam, T), greedy(K, lam, T)
    rng = np.random.default_rng(3)
    for t in (1, 5, 20, 50):
        for _ in range(5):
            Xr = box.sobol(t, rng)
            assert half_logdet(f.kernel(Xr), lam) <= uf[t - 1] + 1e-9
            assert half_logdet(se(Xr, Xr, ell), lam) <= us[t - 1] + 1e-9
        assert half_logdet(Kh[np.ix_(picks_h[:t], picks_h[:t])], lam) <= uf[t - 1] + 1e-9
        assert half_logdet(K[np.ix_(picks[:t], picks[:t])], lam) <= us[t - 1] + 1e-9
    # a finite grid of the box: the certified lower end of its γ lies below the box's upper bound
    g = box.grid(40 if d == 1 else 8)
    br = gamma_bracket(se(g, g, ell), 20, noise_var=lam)
    assert (br.lower <= us[:20] + 1e-9).all()
    # and the bound is informative: it reaches the greedy value within a stated factor at t = 50
    assert us[-1] <= 6 * half_logdet(K[np.ix_(picks, picks)], lam)
