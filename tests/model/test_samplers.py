"""Every sampler's joint law: the empirical mean and covariance of many draws against the law
it must sample, computed here independently from the kernel matrix (never from the code under test).

Tolerance: with N independent draws the empirical covariance entry (i, j) has standard error
√((Σ_ii Σ_jj + Σ_ij²)/N) and the mean √(Σ_ii/N); every entry must lie within 5 standard errors (a correct sampler
fails one of ≤ 100 entries with probability < 10⁻⁴; the seeds are fixed). Each test also shows that the comparison
can fail: a plausible wrong law (arms observed several times counted once, the prior instead of the posterior) lies
far outside the same band."""

from __future__ import annotations

import numpy as np
from sampler_bands import band

from boundcheck.model.kernels import RBF
from boundcheck.model.posterior import BatchedPosterior, PathwiseSampler
from boundcheck.model.priors import GPPrior, RKHSFamily
from boundcheck.model.sampling import ChainSampler, RKHSSampler

Z = 5.0  # standard errors allowed per entry


def _posterior_cov(K: np.ndarray, X: np.ndarray, lam: float) -> np.ndarray:
    """K − K_{DX}(K_XX + λI)⁻¹K_{XD}: the posterior covariance after observing the multiset X (repeats count)."""
    return K - K[:, X] @ np.linalg.solve(K[np.ix_(X, X)] + lam * np.eye(X.size), K[X, :])


def _kernel(n: int, ell: float = 0.35, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).uniform(size=(n, 1))
    return RBF(ell)(x, x)


def test_pathwise_sampler_on_arms_observed_several_times():
    """GP-TS's sampler (pathwise conditioning): h ~ N(0, Σ_t) jointly, with arms 1 and 4 observed three times."""
    n, lam, N = 6, 0.1, 40000
    K = _kernel(n)
    post = BatchedPosterior([GPPrior("p", np.zeros(n), K)], lam, N)
    paths = PathwiseSampler(post, capacity=4)
    X = np.array([1, 4, 1, 4, 1, 4, 2])
    y = np.random.default_rng(1).normal(size=X.size)
    for xt, yt in zip(X, y, strict=True):
        paths.observe(np.full(N, xt))
        post.condition(np.full(N, xt), np.full(N, yt))
    h = paths.draw([np.random.default_rng(10_000 + i) for i in range(N)])
    Sigma = _posterior_cov(K, X, lam)
    dm, dc = band(h, np.zeros(n), Sigma)
    assert dm < Z and dc < Z, (dm, dc)
    once = _posterior_cov(K, np.unique(X), lam)  # repeats counted once: a wrong law
    assert band(h, np.zeros(n), once)[1] > 4 * Z


def test_count_pathwise_sampler_joint_law_with_repeated_arms():
    """Combinatorial GP-TS's sampler: arms observed n_x times enter through their counts (Λ⁻¹ = diag(n_x)/ς²)."""
    from boundcheck.papers.combinatorial.model import BlockPosterior, CountPathwiseSampler

    n, lam, N = 6, 0.2, 30000
    K = _kernel(n, seed=2)
    post = BlockPosterior(GPPrior("p", np.zeros(n), K), lam, N)
    smp = CountPathwiseSampler(post)
    rounds = [np.array([0, 3, -1]), np.array([3, 3, 5]), np.array([0, 5, 3])]  # −1: padding
    rng = np.random.default_rng(3)
    for idx in rounds:
        I = np.broadcast_to(idx, (N, idx.size))
        smp.observe(I)
        post.condition_batch(I, np.broadcast_to(rng.normal(size=idx.size), (N, idx.size)))
    X = np.concatenate([r[r >= 0] for r in rounds])
    h = smp.draw([np.random.default_rng(20_000 + i) for i in range(N)])
    Sigma = _posterior_cov(K, X, lam)
    dm, dc = band(h, np.zeros(n), Sigma)
    assert dm < Z and dc < Z, (dm, dc)
    assert band(h, np.zeros(n), _posterior_cov(K, np.unique(X), lam))[1] > 4 * Z


def test_chain_sampler_mean_and_time_covariance():
    """The ε chain with a non-zero prior mean: E f_t = μ and Cov(f_t, f_s) = k(x, x')(1 − ε)^{|t−s|/2}, for both
    factorisations (Cholesky and the clipped eigen-root)."""
    n, eps, T, N = 5, 0.3, 3, 30000
    K = _kernel(n, seed=4)
    mu = np.linspace(-1.0, 2.0, n)
    lag = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    law = np.kron((1 - eps) ** (lag / 2), K)
    for factor in ("cholesky", "eigen"):
        prior = GPPrior("p", mu, K, eps)
        if factor == "eigen":
            object.__setattr__(prior, "sampling_factor", "eigen")
        smp = ChainSampler(prior)
        rngs = [np.random.default_rng(30_000 + i) for i in range(N)]
        F = np.concatenate([smp.start(rngs)] + [smp.step(rngs) for _ in range(T - 1)], axis=1)  # (N, T·n)
        dm, dc = band(F, np.tile(mu, T), law)
        assert dm < Z and dc < Z, (factor, dm, dc)
        assert band(F, np.tile(mu, T), np.kron(np.ones((T, T)), K))[1] > 4 * Z  # a static f: wrong


def test_rkhs_sampler_posterior_mean_members():
    """Paper 004's RKHS members: y ~ N(0, K), f = K(K + λI)⁻¹y, so Cov f = K(K+λI)⁻¹K(K+λI)⁻¹K and ‖f‖²_k =
    αᵀKα; with ``scale_to`` every member has exactly that norm."""
    n, lam, N = 6, 0.05, 30000
    K = _kernel(n, seed=5)
    fam = RKHSFamily("r", K, generator="posterior_mean", gen_noise_var=lam)
    smp = RKHSSampler(fam)
    f = smp.start([np.random.default_rng(40_000 + i) for i in range(N)])
    G = np.linalg.solve(K + lam * np.eye(n), K)  # (K + λI)⁻¹K
    law = G.T @ K @ G  # Cov(Kα) = K(K+λI)⁻¹K(K+λI)⁻¹K
    dm, dc = band(f, np.zeros(n), law)
    assert dm < Z and dc < Z, (dm, dc)
    alpha = np.linalg.solve(K, f[:50].T).T  # f = Kα (K invertible here)
    np.testing.assert_allclose(smp.info["rkhs_norm"][:50], np.sqrt(np.einsum("ri,ij,rj->r", alpha, K, alpha)),
                               rtol=1e-6)
    scaled = RKHSSampler(RKHSFamily("s", K, generator="posterior_mean", gen_noise_var=lam, scale_to=2.5))
    scaled.start([np.random.default_rng(i) for i in range(20)])
    np.testing.assert_allclose(scaled.info["rkhs_norm"], 2.5, rtol=1e-12)
