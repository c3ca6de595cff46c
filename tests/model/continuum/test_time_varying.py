"""The time-varying posterior on the continuum against a dense solve of the spatio-temporal GP."""

import numpy as np
import pytest

from boundcheck.errors import BoundcheckError
from boundcheck.model.continuum.posterior import ContinuousPosterior, TimeVaryingPosterior
from boundcheck.model.kernels import RBF, Matern


def _dense(kernel, X, S, y, lam, eps, Q, t):
    """μ̃_t, σ̃_t at Q from the spatio-temporal kernel k(x, x')(1−ε)^{|s−s'|/2}, by a dense solve."""
    def kst(A, sa, B, sb):
        return kernel(A, B) * (1 - eps) ** (np.abs(sa[:, None] - sb[None, :]) / 2)

    K = kst(X, S, X, S) + lam * np.eye(len(y))
    kq = kst(Q, np.full(len(Q), float(t)), X, S)
    mu = kq @ np.linalg.solve(K, y)
    var = 1.0 - np.einsum("ij,ji->i", kq, np.linalg.solve(K, kq.T))
    return mu, np.sqrt(np.maximum(var, 0.0))


@pytest.mark.parametrize("kernel", [RBF(lengthscale=0.3), Matern(lengthscale=0.4, nu=2.5)])
def test_matches_dense_spatio_temporal_posterior(kernel):
    rng = np.random.default_rng(3)
    m, d, n, eps, lam = 2, 2, 9, 0.07, 0.05
    post = TimeVaryingPosterior(kernel, lam, m, d, 20, eps)
    X, y = rng.random((m, n, d)), rng.normal(size=(m, n))
    for s in range(n):
        post.at(s + 1).condition(X[:, s], y[:, s])
    Q = rng.random((m, 5, d))
    t = n + 1
    mu, sd = post.at(t).mean_sd(Q)
    for r in range(m):
        mu_d, sd_d = _dense(kernel, X[r], np.arange(1.0, n + 1), y[r], lam, eps, Q[r], t)
        np.testing.assert_allclose(mu[r], mu_d, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(sd[r], sd_d, rtol=1e-10, atol=1e-12)
    # the gradients against central differences
    mu0, sd0, dmu, dsd = post.mean_sd_grad(Q)
    h = 1e-6
    for j in range(d):
        E = np.zeros(d)
        E[j] = h
        mp, sp_ = post.mean_sd(Q + E)
        mm, sm = post.mean_sd(Q - E)
        np.testing.assert_allclose(dmu[..., j], (mp - mm) / (2 * h), atol=1e-6)
        np.testing.assert_allclose(dsd[..., j], (sp_ - sm) / (2 * h), atol=1e-6)


def test_eps_zero_is_the_static_posterior_bit_for_bit():
    rng = np.random.default_rng(4)
    k = RBF(lengthscale=0.25)
    a, b = ContinuousPosterior(k, 0.1, 3, 1, 10), TimeVaryingPosterior(k, 0.1, 3, 1, 10, 0.0)
    for s in range(6):
        x, y = rng.random((3, 1)), rng.normal(size=3)
        a.condition(x, y)
        b.at(s + 1).condition(x, y)
    Q = rng.random((3, 4, 1))
    for u, v in zip(a.mean_sd_grad(Q), b.at(7).mean_sd_grad(Q), strict=True):
        assert np.array_equal(u, v)


def test_reset_forgets_and_stamps_restart():
    rng = np.random.default_rng(5)
    k = RBF(lengthscale=0.25)
    post = TimeVaryingPosterior(k, 0.1, 2, 1, 10, 0.2)
    for s in range(4):
        post.at(s + 1).condition(rng.random((2, 1)), rng.normal(size=2))
    post.reset(np.array([True, False]))
    assert post.n_obs.tolist() == [0, 4]
    post.at(5).condition(np.array([[0.5], [0.5]]), np.array([1.0, 1.0]), runs=np.array([True, False]))
    mu, sd = post.at(6).mean_sd(np.array([[[0.5]], [[0.5]]]))
    mu_d, sd_d = _dense(k, np.array([[0.5]]), np.array([5.0]), np.array([1.0]), 0.1, 0.2, np.array([[0.5]]), 6)
    np.testing.assert_allclose([mu[0, 0], sd[0, 0]], [mu_d[0], sd_d[0]], rtol=1e-12)


def test_eps_out_of_range_is_refused():
    with pytest.raises(BoundcheckError, match="eps"):
        TimeVaryingPosterior(RBF(lengthscale=0.2), 0.1, 1, 1, 5, 1.5)
