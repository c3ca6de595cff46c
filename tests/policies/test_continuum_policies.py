"""The box optimiser and ContinuousUCB: argmax against brute-force grids, batching invariance, the gap
certificate against a fine grid (and a planted too-small Lipschitz constant caught)."""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from boundcheck.errors import BoundcheckError
from boundcheck.model.kernels import RBF, Matern
from boundcheck.policies.continuum import ContinuousUCB, grid_certificate, maximize, sobol_starts


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """BLAS on one thread, as the engine runs every chunk: a threaded BLAS on small solves is slow on a
    loaded machine and rounds differently."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield

LAM = 0.01


def _policy(d, m, seed, kernel=None, n_data=10, T=20, width=2.0, **kw):
    """A ContinuousUCB of m runs on [-1, 2]^d (d = 1) or [0, 1]×[-1, 1], conditioned on n_data random points."""
    bounds = np.array([[-1.0, 2.0]]) if d == 1 else np.array([[0.0, 1.0], [-1.0, 1.0]])
    pol = ContinuousUCB(**kw)
    pol.start(m, bounds, kernel or RBF(0.25, 1.0), LAM, np.full(T + 1, width),
              [np.random.default_rng([seed, r]) for r in range(m)])
    rng = np.random.default_rng(seed)
    for _ in range(n_data):
        X = bounds[:, 0] + rng.uniform(size=(m, d)) * (bounds[:, 1] - bounds[:, 0])
        pol.update(0, X, np.sin(4 * X.sum(axis=1)) + 0.1 * rng.normal(size=m))
    return pol


def _grid(bounds, n):
    axes = [np.linspace(lo, hi, n) for lo, hi in bounds]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, len(bounds))


def _on_grid(pol, t, G):
    """U_t on the grid G (N, d) for every run: (m, N)."""
    acq = pol.acquisition(t)
    Gm = np.broadcast_to(G, (pol.m, *G.shape))
    return acq(Gm, np.arange(pol.m), grad=False)[0]


@pytest.mark.parametrize(("d", "n_grid", "kernel"), [(1, 20001, RBF(0.25, 1.0)), (2, 401, RBF(0.25, 1.0)),
                                                     (2, 401, Matern(2.5, 0.3, 1.0))], ids=["1d", "2d", "2d-m52"])
def test_the_argmax_is_at_least_the_brute_force_grid_maximum(d, n_grid, kernel):
    pol = _policy(d, 4, seed=1, kernel=kernel)
    x = pol.select(1)
    G = _grid(pol.bounds, n_grid)
    best = _on_grid(pol, 1, G).max(axis=1)
    v = pol.record["ucb"]
    # the grid's points are real: the argmax may not be beaten by one of them (beyond round-off) ...
    assert np.all(v >= best - 1e-10), v - best
    # ... and beats them by at most the grid's resolution (the Lipschitz bound over the half spacing)
    rho = 0.5 * np.sqrt(d) * np.max(np.diff(pol.bounds, axis=1)) / (n_grid - 1)
    assert np.all(v - best <= pol.acquisition_lipschitz(1) * rho)
    assert np.all((x >= pol.bounds[:, 0]) & (x <= pol.bounds[:, 1]))
    np.testing.assert_allclose(pol.record["mu"] + 2.0 * pol.record["sigma"], v, rtol=0, atol=1e-12)
    assert np.all(pol.record["witness_gap"] >= 0) and np.all(np.isnan(pol.record["gap_upper"]))


@pytest.mark.parametrize("method", ["batched", "per_run"])
def test_a_run_s_choices_do_not_depend_on_its_batch(method):
    """Three runs together, and each alone (its own Generator): the same choices, bit for bit, over steps."""
    m, T = 3, 6

    def trajectory(runs):
        pol = ContinuousUCB(n_candidates=32, n_check=16, method=method)
        bounds = np.array([[0.0, 1.0], [0.0, 1.0]])
        pol.start(len(runs), bounds, RBF(0.2, 1.0), LAM, np.full(T + 1, 1.5),
                  [np.random.default_rng([3, r]) for r in runs])
        noise = [np.random.default_rng([4, r]) for r in runs]
        out = []
        for t in range(1, T + 1):
            X = pol.select(t)
            out.append((X.copy(), pol.record["ucb"].copy()))
            pol.update(t, X, np.cos(5 * X[:, 0]) * X[:, 1] + 0.1 * np.array([g.normal() for g in noise]))
        return out

    together = trajectory(range(m))
    for r in range(m):
        alone = trajectory([r])
        for (X, v), (X1, v1) in zip(together, alone, strict=True):
            np.testing.assert_array_equal(X[r], X1[0])
            np.testing.assert_array_equal(v[r], v1[0])


def test_the_optimiser_reaches_the_grid_maximum_from_raw_sobol_starts_and_keeps_runs_apart():
    pol = _policy(2, 5, seed=2, n_data=15)
    acq = pol.acquisition(1)
    rows = np.arange(5)
    starts = np.stack([sobol_starts(pol.bounds, 8, np.random.default_rng([5, r])) for r in range(5)])
    res = {meth: maximize(acq, pol.bounds, starts, method=meth) for meth in ("batched", "per_run", "joint")}
    best = _on_grid(pol, 1, _grid(pol.bounds, 401)).max(axis=1)
    assert np.all(res["batched"][1] >= best - 1e-10)
    for meth in ("per_run", "joint"):  # local ascents: never below the best start
        assert np.all(res[meth][1] >= acq(starts, rows, grad=False)[0].max(axis=1))
    x, v, info = res["batched"]
    assert info["max_pg"].shape == (5,) and info["n_points"].shape == (5,)
    np.testing.assert_allclose(acq(x[:, None], rows)[0][:, 0], v, rtol=1e-13)
    for r in (0, 3):  # the run alone, through rows: the same bits
        x1, v1, _ = maximize(lambda X, rr, r=r: acq(X, np.array([r])[rr]), pol.bounds, starts[r : r + 1])
        np.testing.assert_array_equal(x1[0], x[r])
    with pytest.raises(BoundcheckError, match="method"):
        maximize(acq, pol.bounds, starts, method="newton")


def _certificate_vs_fine_grid(seed, shrinks=(1.0, 1e-3)):
    """gap_upper of a deliberately poor choice (a random point), computed with the policy's Lipschitz constant
    times each of ``shrinks``, and the gap measured on a 601² grid (a lower bound on the true gap)."""
    pol = _policy(2, 3, seed=seed, kernel=RBF(0.15, 1.0), n_data=12)
    acq = pol.acquisition(1)
    rows = np.arange(3)
    rng = np.random.default_rng(seed + 100)
    x = pol.bounds[:, 0] + rng.uniform(size=(3, 2)) * np.diff(pol.bounds, axis=1)[:, 0]
    achieved = acq(x[:, None], rows, grad=False)[0][:, 0]
    uppers = [grid_certificate(lambda G: acq(G, rows, grad=False)[0], pol.bounds,
                               k * pol.acquisition_lipschitz(1), achieved, n_per_axis=11) for k in shrinks]
    return uppers, _on_grid(pol, 1, _grid(pol.bounds, 601)).max(axis=1) - achieved


def test_the_gap_certificate_bounds_the_true_gap_and_a_planted_small_lipschitz_fails():
    caught = False
    for seed in range(4):
        (upper, small), fine = _certificate_vs_fine_grid(seed)
        assert np.all(upper >= fine), (seed, upper, fine)
        caught |= bool(np.any(small < fine))
    assert caught  # a constant 1000 times too small would have been found out


def test_certify_every_records_a_bound_on_certified_steps_only():
    pol = _policy(1, 2, seed=3, certify_every=2, certify_grid=2001)
    pol.select(1)
    assert np.all(np.isnan(pol.record["gap_upper"]))
    pol.select(2)
    gap = pol.record["gap_upper"]
    assert np.all(np.isfinite(gap)) and np.all(gap >= pol.record["witness_gap"])
    assert set(pol.record) == set(ContinuousUCB.records)


def test_sobol_points_and_refusals():
    b = np.array([[0.0, 2.0], [-1.0, 1.0], [5.0, 6.0]])
    P = sobol_starts(b, 16, np.random.default_rng(0))
    assert P.shape == (16, 3) and np.all((P >= b[:, 0]) & (P <= b[:, 1]))
    np.testing.assert_array_equal(P, sobol_starts(b, 16, np.random.default_rng(0)))
    with pytest.raises(BoundcheckError, match="low < high"):
        sobol_starts(np.array([[1.0, 0.0]]), 4, np.random.default_rng(0))
    with pytest.raises(BoundcheckError, match="one Generator per run"):
        ContinuousUCB().start(2, b, RBF(), LAM, np.ones(3), [np.random.default_rng(0)])
