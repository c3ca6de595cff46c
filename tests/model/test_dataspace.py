"""The data-space posterior against a refit from scratch (naive_posterior), the grid-state form, resets, runs
with different data lengths and the sliding window over 10 000 shifts."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from boundcheck.errors import BoundcheckError
from boundcheck.model.dataspace import DataSpacePosterior, choose_representation, make_posterior
from boundcheck.model.domains import grid
from boundcheck.model.kernels import RBF, Matern, spatio_temporal_gram
from boundcheck.model.posterior import BatchedPosterior, PathwiseSampler, Posterior, naive_posterior
from boundcheck.model.priors import GPPrior

N = 25


def _priors(eps=0.05):
    d = grid(N)
    rng = np.random.default_rng(1)
    K1, K2 = RBF(0.1)(d.points), Matern(1.5, 0.2)(d.points)
    return [GPPrior("a", rng.normal(size=N), K1, eps), GPPrior("b", np.zeros(N), K1, eps),
            GPPrior("c", np.ones(N), K2, 2 * eps)]


def _check_against_naive(post, priors, data, t_pred, R2, tol=1e-10):
    """data[r] = (idx, times, y) held by run r."""
    mean, var = post.mean(), post.var()
    for r, (idx, times, y) in enumerate(data):
        for p, pr in enumerate(priors):
            mu_ref, var_ref = naive_posterior(pr.K, pr.mean, pr.eps, np.asarray(idx, int), np.asarray(times, float),
                                              np.asarray(y, float), t_pred, R2)
            np.testing.assert_allclose(mean[r, p], mu_ref, atol=tol, rtol=0)
            np.testing.assert_allclose(var[r, p], var_ref, atol=tol, rtol=0)
            if len(idx):
                C = spatio_temporal_gram(pr.K, np.asarray(idx, int), np.asarray(times, float), pr.eps)
                ll = multivariate_normal(pr.mean[np.asarray(idx, int)], C + R2 * np.eye(len(idx))).logpdf(y)
                assert post.loglik[r, p] == pytest.approx(ll, rel=1e-10, abs=1e-10)
            else:
                assert post.loglik[r, p] == 0.0


@pytest.mark.parametrize("eps", [0.0, 0.05, 0.3])
def test_dataspace_matches_naive_and_grid(eps):
    priors = _priors(eps)
    m, T, R2 = 3, 40, 0.01
    ds = DataSpacePosterior(priors, R2, m)
    gr = BatchedPosterior(priors, R2, m)
    assert isinstance(ds, Posterior) and ds.G == 2 and ds.P == 3
    rng = np.random.default_rng(2)
    idx, y = rng.integers(0, N, (m, T)), rng.normal(size=(m, T))
    for t in range(T):
        if t == 25:  # cov_column before an update, against the grid form
            for p in range(3):
                np.testing.assert_allclose(ds.cov_column(idx[:, t], p), gr.cov_column(idx[:, t], p), atol=1e-10)
        for post in (ds, gr):
            post.condition(idx[:, t], y[:, t])
            post.propagate()
    data = [(idx[r], np.arange(1, T + 1.0), y[r]) for r in range(m)]
    _check_against_naive(ds, priors, data, T + 1, R2)
    np.testing.assert_allclose(ds.var(), gr.var(), atol=1e-10)
    np.testing.assert_allclose(ds.mean(), gr.mean(), atol=1e-10)
    np.testing.assert_allclose(ds.loglik, gr.loglik, rtol=1e-10)
    np.testing.assert_allclose(ds.cov(2), gr.cov(2), atol=1e-10)
    assert ds.capacity >= T  # grew geometrically from 16


def test_reset_subset_different_lengths_and_recondition():
    """Runs reset at different times (so hold data of different lengths); ET-GP-UCB keeps its triggering
    point: reset, then condition again at the same time; batches of K observations at one time."""
    priors = _priors(0.05)
    m, T, R2 = 4, 30, 0.02
    ds = DataSpacePosterior(priors, R2, m, max_data=64)
    rng = np.random.default_rng(5)
    held = [([], [], []) for _ in range(m)]
    for t in range(1, T + 1):
        x, yy = rng.integers(0, N, m), rng.normal(size=m)
        trig = rng.random(m) < 0.15
        ds.condition(x, yy, runs=~trig)
        ds.reset(trig)
        ds.condition(x, yy, runs=trig)  # the triggering point is kept
        for r in range(m):
            if trig[r]:
                held[r] = ([], [], [])
            for lst, v in zip(held[r], (x[r], t, yy[r]), strict=True):
                lst.append(v)
        if t % 7 == 0:  # a semi-bandit round for runs 0 and 2 (K = 2 observations at time t)
            xb, yb = rng.integers(0, N, (m, 2)), rng.normal(size=(m, 2))
            mask = np.array([True, False, True, False])
            ds.condition_batch(xb, yb, runs=mask)
            for r in np.flatnonzero(mask):
                for j in range(2):
                    for lst, v in zip(held[r], (xb[r, j], t, yb[r, j]), strict=True):
                        lst.append(v)
        ds.propagate()
    assert len({len(h[0]) for h in held}) > 1  # the runs really hold data of different lengths
    np.testing.assert_array_equal(ds.n_obs, [len(h[0]) for h in held])
    _check_against_naive(ds, priors, held, T + 1, R2)
    with pytest.raises(BoundcheckError):
        small = DataSpacePosterior(priors, R2, 1, max_data=2)
        for _ in range(3):
            small.condition(np.array([1]), np.array([0.0]))


@pytest.mark.parametrize("eps", [0.0, 0.1])
def test_sliding_window_10000_shifts_agree_with_recomputation(eps):
    """10 000 window shifts (Givens downdates) agree with a refit on the window to 1e-9; the runs' windows are
    out of phase (one run resets midway) and ε > 0 crosses many renormalisations of c."""
    priors = _priors(eps)
    m, w, T, R2 = 2, 6, 10_000, 0.01
    ds = DataSpacePosterior(priors, R2, m, window=w)
    rng = np.random.default_rng(7)
    X, Y = rng.integers(0, N, (T, m)), rng.normal(size=(T, m))
    start = np.zeros(m, dtype=int)
    worst = 0.0
    for t in range(1, T + 1):
        if t == 4000:
            ds.reset(np.array([1]))
            start[1] = t - 1
        ds.condition(X[t - 1], Y[t - 1])
        ds.propagate()
        if t % 997 == 0 or t == T:
            data = []
            for r in range(m):
                lo = max(start[r], t - w)
                data.append((X[lo:t, r], np.arange(lo + 1, t + 1.0), Y[lo:t, r]))
            _check_against_naive(ds, priors, data, t + 1, R2, tol=1e-9)
            for g, pr in ((0, priors[0]), (1, priors[2])):  # L is the Cholesky factor of the window's Gram
                for r in range(m):
                    idx, times, _ = data[r]
                    C = spatio_temporal_gram(pr.K, idx, times, pr.eps) + R2 * np.eye(len(idx))
                    d = len(idx)
                    worst = max(worst, np.abs(ds.L[g, r, :d, :d] - np.linalg.cholesky(C)).max())
    assert worst < 1e-9
    assert np.all(ds.n_obs == w)


def test_explicit_drop_oldest_to_empty():
    priors = _priors(0.0)
    ds = DataSpacePosterior(priors, 0.01, 2, max_data=8)
    for x in (3, 7, 11):
        ds.condition(np.array([x, x + 1]), np.array([1.0, -1.0]))
    for _ in range(3):
        ds.drop_oldest(np.array([True, False]))
    np.testing.assert_allclose(ds.mean()[0], ds.prior_mean, atol=1e-12)
    np.testing.assert_allclose(ds.var()[0, 0], np.diag(priors[0].K), atol=1e-12)
    assert ds.loglik[0, 0] == pytest.approx(0.0, abs=1e-12) and ds.n_obs.tolist() == [0, 3]
    ds.drop_oldest(np.array([True, False]))  # nothing left to drop: a no-op
    ds.condition(np.array([5, 5]), np.array([0.5, 0.5]))
    _check_against_naive(ds, priors, [([5], [1.0], [0.5]), ([4, 8, 12, 5], [1.0] * 4, [-1.0] * 3 + [0.5])],
                         1, 0.01)


def test_eps_one_forgets_everything():
    priors = _priors(0.0)
    pr = GPPrior("one", priors[0].mean, priors[0].K, 1.0)
    ds = DataSpacePosterior([pr], 0.01, 1)
    ds.condition(np.array([3]), np.array([2.0]))
    ds.propagate()
    np.testing.assert_allclose(ds.var()[0, 0], np.diag(pr.K), atol=1e-14)
    ds.condition(np.array([4]), np.array([1.0]))
    _check_against_naive(ds, [pr], [([3, 4], [1.0, 2.0], [2.0, 1.0])], 2, 0.01)


def test_pathwise_sampler_on_dataspace():
    """Thompson draws read cov_column only: the data-space form gives the same draws (to round-off)."""
    priors = _priors(0.0)[:1]
    m, T, R2 = 2, 12, 0.05
    ds, gr = DataSpacePosterior(priors, R2, m), BatchedPosterior(priors, R2, m)
    sd, sg = PathwiseSampler(ds), PathwiseSampler(gr)
    rng = np.random.default_rng(3)
    for _ in range(T):
        x, y = rng.integers(0, N, m), rng.normal(size=m)
        for s, p in ((sd, ds), (sg, gr)):
            s.observe(x)
            p.condition(x, y)
    a = sd.draw([np.random.default_rng(i) for i in range(m)])
    b = sg.draw([np.random.default_rng(i) for i in range(m)])
    np.testing.assert_allclose(a, b, atol=1e-9)


def test_factory_picks_by_cost():
    priors = _priors(0.0)
    assert choose_representation(900, max_data=200) == "dataspace"
    assert choose_representation(100, max_data=200) == "grid"
    assert choose_representation(100) == "grid"
    assert choose_representation(100, window=50) == "dataspace"
    assert choose_representation(900, max_data=400, typical_data=40) == "dataspace"  # short data since resets
    assert isinstance(make_posterior(priors, 0.01, 2, max_data=5), DataSpacePosterior)
    assert isinstance(make_posterior(priors, 0.01, 2), BatchedPosterior)
    assert isinstance(make_posterior(priors, 0.01, 2, max_data=5, representation="grid"), BatchedPosterior)
    with pytest.raises(BoundcheckError):
        make_posterior(priors, 0.01, 2, window=3, representation="grid")
    with pytest.raises(BoundcheckError):
        DataSpacePosterior(priors, 0.01, 2, window=0)
