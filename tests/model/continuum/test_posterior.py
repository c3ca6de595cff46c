"""ContinuousPosterior against the dense formulas, its gradients against finite differences, batching invariance,
and the Lipschitz constants of kernel_constants against brute force."""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from boundcheck.errors import BoundcheckError
from boundcheck.model.continuum.posterior import ContinuousPosterior, kernel_constants
from boundcheck.model.kernels import RBF, Linear, Matern


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """BLAS on one thread, as the engine runs every chunk: a threaded BLAS on small solves is slow on a
    loaded machine and rounds differently."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield

KERNELS = [RBF(0.3, 1.7), Matern(2.5, 0.4, 0.6)]
LAM = 0.02


def _filled(kernel, lengths, d=2, seed=0, capacity=30):
    """A posterior of len(lengths) runs, run r conditioned on lengths[r] random points (appended in turn)."""
    rng = np.random.default_rng(seed)
    m = len(lengths)
    post = ContinuousPosterior(kernel, LAM, m, d, capacity)
    for i in range(max(lengths)):
        mask = np.array([i < n for n in lengths])
        post.condition(rng.uniform(-1, 1, (m, d)), rng.normal(size=m), runs=mask)
    return post


def _dense(kernel, X, y, Xq):
    """μ, σ by numpy.linalg.solve on K + λI."""
    if len(y) == 0:
        return np.zeros(len(Xq)), np.full(len(Xq), np.sqrt(kernel.variance))
    A = kernel(X, X) + LAM * np.eye(len(y))
    kx = kernel(Xq, X)
    var = kernel.variance - np.einsum("ij,ji->i", kx, np.linalg.solve(A, kx.T))
    return kx @ np.linalg.solve(A, y), np.sqrt(np.maximum(var, 0.0))


@pytest.mark.parametrize("kernel", KERNELS, ids=["se", "matern52"])
def test_mean_sd_match_the_dense_formula_with_different_lengths_and_after_resets(kernel):
    post = _filled(kernel, [7, 0, 19, 3])
    rng = np.random.default_rng(1)
    post.reset(np.array([False, False, True, False]))
    for _ in range(5):  # run 2 starts again, run 0 grows on
        post.condition(rng.uniform(-1, 1, (4, 2)), rng.normal(size=4), runs=np.array([True, False, True, False]))
    assert post.n_obs.tolist() == [12, 0, 5, 3]
    Xq = rng.uniform(-1.2, 1.2, (4, 9, 2))
    mu, sd = post.mean_sd(Xq)
    for r, (X, y) in enumerate(post.data()):
        mu_ref, sd_ref = _dense(kernel, X, y, Xq[r])
        np.testing.assert_allclose(mu[r], mu_ref, rtol=0, atol=1e-10)
        np.testing.assert_allclose(sd[r], sd_ref, rtol=0, atol=1e-10)
    assert np.all(sd >= 0) and np.all(sd <= np.sqrt(kernel.variance) + 1e-15)
    np.testing.assert_array_equal(post.sd_at(Xq[:, 0]), sd[:, 0])
    # α and the cheap means at the data: K α = y − λ α
    X0, y0 = post.data()[0]
    np.testing.assert_allclose(post.alpha(0), np.linalg.solve(kernel(X0, X0) + LAM * np.eye(12), y0), atol=1e-10)


@pytest.mark.parametrize("kernel", KERNELS, ids=["se", "matern52"])
def test_gradients_match_central_differences(kernel):
    post = _filled(kernel, [10, 4, 0], d=3, seed=2)
    rng = np.random.default_rng(3)
    Xq = rng.uniform(-1, 1, (3, 6, 3))
    mu, sd, dmu, dsd = post.mean_sd_grad(Xq)
    np.testing.assert_array_equal((mu, sd), post.mean_sd(Xq))
    h = 1e-6
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        mp, sp = post.mean_sd(Xq + e)
        mm, sm = post.mean_sd(Xq - e)
        np.testing.assert_allclose(dmu[..., j], (mp - mm) / (2 * h), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(dsd[..., j], (sp - sm) / (2 * h), rtol=1e-6, atol=1e-8)
    assert np.all(dmu[2] == 0) and np.all(dsd[2] == 0)  # no data: the prior, flat


def test_a_run_does_not_depend_on_its_batch():
    """The same run alone, or among others of other lengths, or queried through ``rows``: the same bits."""
    kernel = KERNELS[0]
    lengths = [6, 15, 1, 9]
    big = _filled(kernel, lengths, seed=4)
    rng = np.random.default_rng(5)
    Xq = rng.uniform(-1, 1, (4, 5, 2))
    full = big.mean_sd_grad(Xq)
    for r in range(4):
        alone = ContinuousPosterior(kernel, LAM, 1, 2, 30)
        X, y = big.data()[r]
        for i in range(len(y)):
            alone.condition(X[i : i + 1], y[i : i + 1])
        one = alone.mean_sd_grad(Xq[r : r + 1])
        sub = big.mean_sd_grad(Xq[r : r + 1], rows=np.array([r]))
        for a, b, c in zip(full, one, sub, strict=True):
            np.testing.assert_array_equal(a[r], b[0])
            np.testing.assert_array_equal(a[r], c[0])


def test_keep_runs_and_capacity_and_refusals():
    post = _filled(KERNELS[1], [3, 5, 2], capacity=5)
    Xq = np.random.default_rng(6).uniform(-1, 1, (3, 4, 2))
    mu, sd = post.mean_sd(Xq)
    post.keep_runs(np.array([True, False, True]))
    mu2, sd2 = post.mean_sd(Xq[[0, 2]])
    np.testing.assert_array_equal(mu2, mu[[0, 2]])
    assert post.n_obs.tolist() == [3, 2]
    with pytest.raises(BoundcheckError, match="capacity"):
        full = _filled(RBF(), [5], capacity=5)
        full.condition(np.zeros((1, 2)), np.zeros(1))
    for bad in (Linear(), Matern(1.5)):
        with pytest.raises(BoundcheckError, match="RBF or a Matern"):
            ContinuousPosterior(bad, LAM, 1, 2, 5)
    with pytest.raises(ValueError, match="read-only"):
        post.data()[0][0][0, 0] = 1.0  # read-only views
    post.reset()
    assert post.n_obs.tolist() == [0, 0]
    np.testing.assert_array_equal(post.L[0], np.eye(5))  # the identity padding is restored


@pytest.mark.parametrize("kernel", KERNELS, ids=["se", "matern52"])
def test_kernel_constants_bound_the_gradient_and_the_canonical_metric(kernel):
    c = kernel_constants(kernel)
    r = np.linspace(1e-9, 10 * c.lengthscale, 200001)
    k = kernel(np.zeros((1, 1)), r[:, None])[0]
    dk = np.abs(np.diff(k) / np.diff(r))
    assert dk.max() <= c.grad_sup * (1 + 1e-9) and dk.max() >= c.grad_sup * (1 - 1e-4)  # tight
    far = r > 1e-2 * c.lengthscale  # below, 2(s² − k) is round-off
    dist = np.sqrt(2 * (c.variance - k[far]))
    assert np.all(dist <= c.sd_lipschitz * r[far] * (1 + 1e-9))
    assert (dist / r[far]).max() >= c.sd_lipschitz * (1 - 1e-3)  # tight at r → 0


def test_sd_is_lipschitz_with_the_stated_constant():
    """|σ(x) − σ(x')| ≤ L_σ ‖x − x'‖ on random pairs of a posterior with close data (a planted 0.5 L_σ fails)."""
    for kernel in KERNELS:
        post = _filled(kernel, [25], seed=7)
        rng = np.random.default_rng(8)
        X = rng.uniform(-1, 1, (1, 4000, 2))
        Y = X + rng.normal(scale=0.02, size=X.shape)
        _, s1 = post.mean_sd(X)
        _, s2 = post.mean_sd(Y)
        ratio = np.abs(s1 - s2) / np.linalg.norm(X - Y, axis=-1)
        L = kernel_constants(kernel).sd_lipschitz
        assert ratio.max() <= L
        assert ratio.max() > 0.5 * L
