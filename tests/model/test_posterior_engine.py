"""The posterior engine against a naive refit, the sampler against its covariance, seeds and CRN."""

import numpy as np
import pytest

from boundcheck.errors import BoundcheckError
from boundcheck.model.domains import grid
from boundcheck.model.kernels import RBF, EmpiricalCovariance, Matern, spatio_temporal_gram, time_factor
from boundcheck.model.posterior import BatchedPosterior, naive_posterior
from boundcheck.model.priors import GPPrior
from boundcheck.model.sampling import ChainSampler, run_streams


def _priors(eps=0.05):
    d = grid(25)
    rng = np.random.default_rng(1)
    K1, K2 = RBF(0.1)(d.points), Matern(1.5, 0.2)(d.points)
    return [GPPrior("a", rng.normal(size=25), K1, eps), GPPrior("b", np.zeros(25), K1, eps),
            GPPrior("c", np.ones(25), K2, 2 * eps)]


@pytest.mark.parametrize("eps", [0.0, 0.05, 0.3])
def test_posterior_matches_naive_refit(eps):
    priors = _priors(eps)
    m, T, R2 = 3, 60, 0.01
    post = BatchedPosterior(priors, R2, m)
    assert post.G == 2  # priors a and b share one covariance
    rng = np.random.default_rng(2)
    idx, y = rng.integers(0, 25, (m, T)), rng.normal(size=(m, T))
    for t in range(T):
        post.condition(idx[:, t], y[:, t])
        post.propagate()
    mean, var = post.mean(), post.var()
    for r in range(m):
        for p, pr in enumerate(priors):
            mu_ref, var_ref = naive_posterior(pr.K, pr.mean, pr.eps, idx[r], np.arange(1, T + 1.0), y[r], T + 1, R2)
            np.testing.assert_allclose(mean[r, p], mu_ref, atol=1e-8)
            np.testing.assert_allclose(var[r, p], var_ref, atol=1e-8)


def test_loglik_is_marginal_likelihood():
    from scipy.stats import multivariate_normal

    pr = _priors(0.1)[0]
    post = BatchedPosterior([pr], 0.04, 1)
    rng = np.random.default_rng(3)
    idx, y = rng.integers(0, 25, 15), rng.normal(size=15)
    for i in range(15):
        post.condition(idx[i:i + 1], y[i:i + 1])
        post.propagate()
    K = spatio_temporal_gram(pr.K, idx, np.arange(1, 16.0), pr.eps) + 0.04 * np.eye(15)
    ref = multivariate_normal(pr.mean[idx], K).logpdf(y)
    assert post.loglik[0, 0] == pytest.approx(ref, rel=1e-10)


def test_reset_returns_to_prior():
    pr = _priors()[0]
    post = BatchedPosterior([pr], 0.01, 2)
    post.condition(np.array([3, 4]), np.array([1.0, 2.0]))
    post.reset(np.array([True, False]))
    np.testing.assert_allclose(post.mean()[0, 0], pr.mean)
    np.testing.assert_allclose(post.var()[0, 0], np.diag(pr.K))
    assert not np.allclose(post.var()[1, 0], np.diag(pr.K))


def test_sampler_covariance_matches_time_varying_kernel():
    d = grid(6)
    K = RBF(0.3)(d.points)
    eps, T, runs = 0.2, 5, 20000
    pr = GPPrior("p", np.zeros(6), K, eps)
    samp = ChainSampler(pr)
    rngs = [np.random.default_rng(i) for i in range(runs)]
    F = [samp.start(rngs)] + [samp.step(rngs) for _ in range(T - 1)]
    F = np.stack(F, axis=1).reshape(runs, -1)  # (runs, T*n), time-major
    emp = np.cov(F, rowvar=False)
    ref = np.kron(time_factor(eps, np.arange(T)), K)
    assert np.abs(emp - ref).max() < 0.05  # Monte Carlo error ~ 3/sqrt(20000) ≈ 0.02
    # and a wrong ε is detected by the same comparison (the check can fail)
    wrong = np.kron(time_factor(0.5, np.arange(T)), K)
    assert np.abs(emp - wrong).max() > 0.1


def test_run_streams_depend_only_on_seed_and_run():
    """A run's streams are a function of (seed, run) alone, equal to the run-th child of SeedSequence(seed).spawn
    (how chunk size and worker count leave results unchanged is tested end to end in tests/study/test_verify.py)."""
    a = run_streams(7, 5, 2).f.standard_normal(3)
    b = run_streams(7, 5, 2).f.standard_normal(3)
    c = run_streams(7, 6, 2).f.standard_normal(3)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    ss_child = np.random.SeedSequence(7).spawn(6)[5]
    assert ss_child.spawn_key == np.random.SeedSequence(7, spawn_key=(5,)).spawn_key


def test_kernel_validation():
    with pytest.raises(BoundcheckError):
        RBF(-1.0)
    with pytest.raises(BoundcheckError):
        EmpiricalCovariance(np.array([[1.0, 2.0], [2.0, 1.0]]))  # not PSD
    with pytest.raises(BoundcheckError):
        GPPrior("bad", np.zeros(2), np.eye(2), eps=1.5)
    with pytest.raises(BoundcheckError):
        time_factor(-0.1, np.arange(3))
    # paper parameterisation: l is a squared lengthscale
    x = np.array([[0.0], [0.3]])
    assert RBF.paper(0.04)(x)[0, 1] == pytest.approx(np.exp(-0.09 / (2 * 0.04)))
    assert RBF(0.2)(x)[0, 1] == pytest.approx(np.exp(-0.09 / (2 * 0.04)))


@pytest.mark.parametrize("d", [1, 2, 3, 6, 8])
def test_kernels_distances_are_cdists_bit_for_bit(d):
    """The kernels compute ||x − y||² themselves (not importing scipy.spatial): the same numbers as cdist's
    "sqeuclidean" and "euclidean", bit for bit, so every pinned Gram matrix and result stays what it was."""
    from scipy.spatial.distance import cdist

    from boundcheck.model.kernels import sq_distances

    rng = np.random.default_rng(d)
    for scale in (1e-3, 1.0, 1e3):
        X, Y = rng.random((57, d)) * scale, rng.random((31, d)) * scale - scale / 2
        assert np.array_equal(sq_distances(X, Y), cdist(X, Y, "sqeuclidean"))
        assert np.array_equal(np.sqrt(sq_distances(X, Y)), cdist(X, Y, "euclidean"))
        assert np.array_equal(sq_distances(X, X), cdist(X, X, "sqeuclidean"))
    x = rng.random((40, d))
    for k, want in ((RBF(lengthscale=0.3, variance=2.0), lambda r2: 2.0 * np.exp(-0.5 * r2 / 0.3**2)),
                    (Matern(nu=1.5, lengthscale=0.4), None)):
        got = k(x)
        if want is not None:
            assert np.array_equal(got, want(cdist(x, x, "sqeuclidean")))
        else:
            s = np.sqrt(3.0) * (cdist(x, x, "euclidean") / 0.4)
            assert np.array_equal(got, (1.0 + s) * np.exp(-s))
