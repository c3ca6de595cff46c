"""The papers' own policies and schedules against independent computations (the gaps that
benchmarks/mutation.py found).

Zhou & Shroff's R-GP-UCB and SW-GP-UCB (``theory.r_sw_gp_ucb``): the widths written out by hand from Lemmas 1–2
with the instance's certified γ̄ curve (never through the theory module's lambdified expressions or the family's
own retained counts, so that an index off by one there cannot stay consistent with itself), and every choice
recomputed from a Gaussian-process posterior refitted with ``numpy.linalg.solve`` on exactly the samples the
algorithm must retain (restart blocks {kH+1, …}, correction ZS13; the last w samples, correction ZS14).

The combinatorial paper's Algorithm 2: the rectified energy E[max(0, N(m, s²))] against numerical integration.
Chowdhury & Gopalan's GP-TS: the law of its draws at the recorded points, against a refitted posterior."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from boundcheck.api import build_study
from boundcheck.papers.combinatorial.policies import rectified_mean
from boundcheck.policies import policy_spec
from boundcheck.study.engine import simulate

T = 12


def _instance(theorem: str, horizon: int = T):
    spec = build_study(theorem, runs=2, horizon=horizon, seed=5)
    return spec, spec.family.instantiate(spec.scenario, horizon, spec.delta)


def _retained(kind: str, window: int, t: int) -> np.ndarray:
    """The 0-based indices of the samples held before choosing at step t (1-based): since the last restart, which
    happens when round t opens a block ((t − 1) mod H = 0, ZS13), or the last w (ZS14)."""
    start = ((t - 1) // window) * window if kind == "restart" else max(0, t - 1 - window)
    return np.arange(start, t - 1)


def _gamma_bar(inst, n: int) -> float:
    """γ̄_n from the certified upper curve (gamma_upper[i] = γ̄_{i+1}; γ̄_0 = 0)."""
    return 0.0 if n == 0 else float(inst.gamma_upper[n - 1])


@pytest.mark.parametrize("theorem, kind", [("r_gp_ucb", "restart"), ("sw_gp_ucb", "window")])
def test_widths_follow_lemmas_1_and_2_with_the_retained_count(theorem, kind):
    """β_t = B + (R/√λ)√(2γ̄_{n_t} + 2 ln(c/δ)), n_t the samples held before step t: c = N_B = ⌈T/H⌉ for
    R-GP-UCB (Lemma 1 at δ/N_B), c = T for SW-GP-UCB (Lemma 2); the pseudocode variants use
    B + R√(2(γ̄_{n_t} + 1 + ln(1/δ))); the policies record exactly these widths."""
    spec, inst = _instance(theorem)
    sc, d = spec.scenario, spec.delta
    B, R, lam, H = float(sc.B), float(sc.noise), float(sc.model_noise_var), int(sc.window)
    assert 1 < H < T  # the scenario must make the retained count differ from t − 1
    c = math.ceil(T / H) if kind == "restart" else T
    n = [_retained(kind, H, t).size for t in range(1, T + 1)]
    want = [B + R / math.sqrt(lam) * math.sqrt(2 * _gamma_bar(inst, k) + 2 * math.log(c / d)) for k in n]
    np.testing.assert_allclose(inst.beta[1:], want, rtol=1e-12)
    pseudo = [B + R * math.sqrt(2 * (_gamma_bar(inst, k) + 1 + math.log(1 / d))) for k in n]
    name = spec.main
    np.testing.assert_allclose(inst.schedules[f"{name}_pseudocode"][1:], pseudo, rtol=1e-12)
    traj = simulate(sc, spec.policies[:1], [0, 1], spec.seed, inst)
    used = np.asarray(traj.algorithms[name].steps["width"], dtype=float)
    np.testing.assert_allclose(used, np.broadcast_to(want, used.shape), rtol=1e-12)
    np.testing.assert_array_equal(traj.algorithms[name].steps["n_ret"], np.broadcast_to(n, used.shape))


def _ref_posterior(K: np.ndarray, mean: np.ndarray, X: np.ndarray, y: np.ndarray, lam: float):
    """μ, σ² on the whole domain of a static GP given y at the points X (independent of the library)."""
    if X.size == 0:
        return mean.copy(), np.diag(K).copy()
    A = K[np.ix_(X, X)] + lam * np.eye(X.size)
    kx = K[:, X]
    mu = mean + kx @ np.linalg.solve(A, y - mean[X])
    var = np.diag(K) - np.einsum("ij,ji->i", kx, np.linalg.solve(A, kx.T))
    return mu, np.maximum(var, 0.0)


@pytest.mark.parametrize("theorem, kind", [("r_gp_ucb", "restart"), ("sw_gp_ucb", "window")])
def test_choices_match_a_posterior_refitted_on_the_retained_samples(theorem, kind):
    """Algorithms 1–2 step by step: x_t = argmax over X_t of μ + β_t σ, from the retained samples only."""
    spec, inst = _instance(theorem)
    sc = spec.scenario
    H, lam, prior = int(sc.window), float(sc.model_noise_var), sc.candidates[0]
    ps = policy_spec(spec.main)
    tr = simulate(sc, [ps], [0, 1], spec.seed, inst).algorithms[ps.name]
    for r in range(tr.idx.shape[0]):
        X, y = tr.idx[r], tr.y[r]
        for t in range(1, T + 1):
            D = _retained(kind, H, t)
            mu, var = _ref_posterior(prior.K, prior.mean, X[D], y[D], lam)
            ucb = np.where(sc.availability.mask(t), mu + inst.beta[t] * np.sqrt(var), -np.inf)
            assert X[t - 1] == np.argmax(ucb), (r, t)
            np.testing.assert_allclose(tr.steps["mu"][r, t - 1], mu[X[t - 1]], atol=1e-9)
            np.testing.assert_allclose(tr.steps["sigma"][r, t - 1], np.sqrt(var[X[t - 1]]), atol=1e-9)


def test_rectified_energy_is_the_expectation_of_the_positive_part():
    """Algorithm 2's edge cost E[max(0, X)], X ~ N(m, s²), by quadrature of x·φ((x − m)/s)/s over x > 0, for
    means of both signs and far in the tails; s = 0 is max(m, 0)."""
    m = np.array([-3.0, -0.7, 0.0, 0.4, 2.5, -0.2])
    s = np.array([0.5, 1.0, 2.0, 0.3, 1.5, 0.01])
    got = rectified_mean(m, s)
    for mi, si, gi in zip(m, s, got, strict=True):
        want = integrate.quad(lambda x, mi=mi, si=si: x * stats.norm.pdf(x, mi, si), 0.0, np.inf,
                              epsabs=1e-13, epsrel=1e-11)[0]
        assert gi == pytest.approx(want, rel=1e-8, abs=1e-12), (mi, si)
    assert np.all(got > np.maximum(m, 0.0))  # Jensen, strict for s > 0: E max(0, X) > max(0, E X)
    with np.errstate(over="ignore"):  # np.where evaluates the s > 0 branch at s = 0 too (z² overflows to +inf)
        np.testing.assert_array_equal(rectified_mean(np.array([-1.0, 0.0, 2.0]), np.zeros(3)), [0.0, 0.0, 2.0])


def test_gp_ts_draws_are_n_mu_v2_sigma2_at_the_recorded_points():
    """Chowdhury & Gopalan's Algorithm 2: f_t ~ GP(μ_{t−1}, v_t² k_{t−1}). At x° (fixed in advance) and at x_{t−1}
    (known before the draw) the recorded draw, standardised by v_t and by μ, σ refitted here from the run's data,
    is N(0, 1), independently over the steps given the past: 300 runs × 5 steps, the sample mean and variance
    within 5 standard errors (a draw scaled by 0.05 has variance 0.0025, one conditioned on the wrong point is too
    narrow at x° = 0 and too wide at x_{t−1})."""
    runs, horizon = 300, 6
    spec, inst = _instance("gp_ts", horizon)
    sc = spec.scenario
    prior, lam = sc.candidates[0], float(sc.model_noise_var)
    ps = policy_spec(spec.main)
    tr = simulate(sc, [ps], list(range(runs)), spec.seed, inst).algorithms[ps.name]
    st = tr.steps
    for at, key in ((lambda X: 0, "fixed"), (lambda X: X[-1], "prev")):
        z = []
        for r in range(runs):
            X, y = tr.idx[r], tr.y[r]
            for t in range(2, horizon + 1):
                mu, var = _ref_posterior(prior.K, prior.mean, X[:t - 1], y[:t - 1], lam)
                x = at(X[:t - 1])
                z.append((st[f"draw_{key}"][r, t - 1] - mu[x]) / (inst.beta[t] * np.sqrt(var[x])))
        z = np.asarray(z)
        assert abs(z.mean()) < 5 / np.sqrt(z.size), (key, z.mean())
        assert abs(z.var() - 1.0) < 5 * np.sqrt(2 / z.size), (key, z.var())
