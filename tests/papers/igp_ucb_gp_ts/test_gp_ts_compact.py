"""gp_ts_compact (Chowdhury & Gopalan 2017, Theorem 4 on a box): the bound against plain-math arithmetic, the grid
D_t and eq. (7)'s certificate against brute force, the policy's draws (law, batch invariance, refusals)."""

import math

import numpy as np
import pytest

import theory
from boundcheck.errors import BoundcheckError
from boundcheck.model.continuum.box import Box
from boundcheck.model.continuum.rkhs import RKHSExpansion
from boundcheck.model.kernels import RBF
from boundcheck.papers.igp_ucb_gp_ts.gp_ts_box import GPTSBox, grid_points, law_error
from boundcheck.papers.igp_ucb_gp_ts.ts_box_family import cell_sup
from boundcheck.policies.box import BoxContext
from boundcheck.study.continuum import discretise

TH = theory.get("gp_ts_compact")
VALUES = {"T": 30.0, "delta": 0.1, "R": 0.15, "B": 3.0, "gamma_T": 6.2, "d": 1.0, "r": 1.0, "L": 5.0}


def _reference_bound(T, delta, R, B, gamma_T, d, r, L):
    """Lemma 13 + Lemma 4 + 8B (CG5), α_t = 2B + 11c_t/p + (2B + 1)/t² (CG6), in plain math."""
    p = 1.0 / (4.0 * math.e * math.sqrt(math.pi))
    v = B + R * math.sqrt(2.0 * (gamma_T + 1.0 + math.log(2.0 / delta)))
    ct = math.sqrt(4.0 * math.log(T) + 2.0 * d * math.log(B * L * r * d * T**2))
    c = v * (1.0 + ct)
    a, b = 2 * B + 11 * c / p, 2 * B + 1
    azuma = math.sqrt(2 * math.log(2 / delta) * (T * a * a + 2 * a * b * math.pi**2 / 6 + b * b * math.pi**4 / 90))
    info = 11 * c / p * math.sqrt(4 * (T + 2) * gamma_T)
    return {"warmup": 8 * B, "information": info, "basel": 2 * B * math.pi**2 / 6,
            "discretisation": math.pi**2 / 6, "azuma": azuma}


@pytest.mark.parametrize("values", [VALUES, {**VALUES, "T": 500.0, "gamma_T": 40.0, "d": 2.0, "B": 1.0, "L": 2.0}])
def test_bound_against_plain_math(values):
    got = TH.evaluate(values)
    want = _reference_bound(**values)
    for k, w in want.items():
        assert float(got["terms"][k]) == pytest.approx(w, rel=1e-12), k
    assert float(got["value"]) == pytest.approx(sum(want.values()), rel=1e-12)
    # Azuma's Σα_t² bound (CGT5) dominates the exact sum with c_t ≤ c_T
    T = int(values["T"])
    p = 1.0 / (4.0 * math.e * math.sqrt(math.pi))
    t = np.arange(1, T + 1)
    v = values["B"] + values["R"] * math.sqrt(2 * (values["gamma_T"] + 1 + math.log(2 / values["delta"])))
    ct = np.sqrt(4 * np.log(t) + 2 * values["d"] * np.log(values["B"] * values["L"] * values["r"] * values["d"] * t**2))
    alpha = 2 * values["B"] + 11 * v * (1 + ct) / p + (2 * values["B"] + 1) / t**2
    assert math.sqrt(2 * math.log(2 / values["delta"]) * np.sum(alpha**2)) <= want["azuma"]


def test_schedules_grid_and_ctilde():
    t = np.array([1.0, 2.0, 30.0])
    n = TH.schedule_values("grid_n_t", t, VALUES)
    assert n.tolist() == [8.0, 30.0, 6750.0]  # ⌈15 t²/2⌉
    # ‖x − [x]_t‖₁ ≤ rd/(2n_t) ≤ 1/(BLt²) and |D_t| = n_t^d ≤ (BLrdt²)^d
    assert np.all(1.0 / (2 * n) <= 1.0 / (15 * t**2)) and np.all(n <= 15 * t**2)
    ct = TH.schedule_values("ctilde_t", t, VALUES)
    assert np.allclose(ct, np.sqrt(4 * np.log(t) + 2 * np.log(15 * t**2)), rtol=1e-14)
    assert "discretisation" in TH.bound_terms


def test_grid_points_are_what_the_engine_rounds_to():
    bounds = np.array([[0.0, 1.0], [0.0, 1.0]])
    G = grid_points(bounds, 7)
    assert G.shape == (49, 2) and np.array_equal(discretise(G, bounds, 7), G)
    x = np.random.default_rng(0).random((500, 2))
    assert np.all(np.abs(discretise(x, bounds, 7) - x) <= 0.5 / 7 + 1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_eq7_certificate_bounds_the_brute_force_sup(seed):
    """cell_sup ≥ the sup over a 2·10⁵-point grid (≥ the true sup less O(1e−5)), and within 2 % of it at k = 8."""
    box, k = Box(1, 0.0, 1.0), RBF(0.2)
    f = RKHSExpansion.draw(k, box, 8, 3.0, [np.random.default_rng(seed)])
    M3 = 3.0 * math.sqrt(15.0) / 0.2**3
    xs = np.linspace(0.0, 1.0, 200_001)[:, None]
    fx = f.values(xs)[0]
    for n in (3, 4, 8, 30):
        c = (np.clip(np.floor(xs[:, 0] * n), 0, n - 1) + 0.5) / n
        brute = np.max(np.abs(fx - f.values(c[:, None])[0]))
        b1, b8 = cell_sup(f, box.bounds, n, M3, 1), cell_sup(f, box.bounds, n, M3, 8)
        assert b1 >= brute and b8 >= brute and b8 <= 1.02 * brute + 1e-9
        # eq. (7): with ‖f‖_k = B = 3, L = 1/ℓ = 5 the proof's Lipschitz bound B L h/2 holds as well
        assert brute <= 3.0 * 5.0 * 0.5 / n


def _ctx(runs, rngs, T=6, grid=None, bounds=((0.0, 1.0),)):
    b = np.array(bounds, dtype=float)
    t = np.arange(T + 1, dtype=float)
    t[0] = 1.0
    sched = {"grid_n_t": np.ceil(15 * t**2 / 2) if grid is None else grid}
    return BoxContext(runs=runs, horizon=T, bounds=b, kernel=RBF(0.2), noise_sd=0.15, noise_var=1.0 + 2 / T,
                      beta=np.full(T + 1, 2.0), rngs=rngs, schedules=sched)


def _run(seeds, T=6):
    pol = GPTSBox()
    pol.start(_ctx(len(seeds), [np.random.default_rng(s) for s in seeds], T))
    f = RKHSExpansion.draw(RBF(0.2), Box(1, 0.0, 1.0), 8, 3.0, [np.random.default_rng(99)])
    out, recs = [], []
    for t in range(1, T + 1):
        X = pol.select(t)
        out.append(X.copy())
        recs.append(pol.record["draw_fixed"].copy())
        pol.update(t, X, np.array([f.values(x[None])[0, 0] for x in X]))
    return np.stack(out, 1), np.stack(recs, 1)


def test_batch_of_three_equals_three_single_runs():
    X3, d3 = _run([1, 2, 3])
    for i, s in enumerate([1, 2, 3]):
        X1, d1 = _run([s])
        assert np.array_equal(X1[0], X3[i]) and np.allclose(d1[0], d3[i], rtol=0, atol=1e-12)


def test_draws_have_the_posterior_law():
    """At x° the draws standardised by v σ are N(0, 1) (one step after 3 observations, 4000 draws)."""
    m, v = 4000, 2.0
    pol = GPTSBox()
    pol.start(_ctx(m, [np.random.default_rng(s) for s in range(m)], T=4))
    for t, x in enumerate([[0.2], [0.45], [0.9]], start=1):
        pol.posterior.condition(np.full((m, 1), x[0]), np.full(m, 0.3 * t))
    pol._prev[:] = 0.2
    pol.select(4)
    z = (pol.record["draw_fixed"] - pol.record["mu_fixed"]) / (v * pol.record["sigma_fixed"])
    zp = (pol.record["draw_prev"] - pol.record["mu_prev"]) / (v * pol.record["sigma_prev"])
    for w in (z, zp):
        assert abs(w.mean()) < 4 / math.sqrt(m) and abs(w.var() - 1) < 0.1
    assert np.corrcoef(z, zp)[0, 1] == pytest.approx(  # the joint draw: corr = k_t(x°, x_{t−1})/(σσ)
        _post_corr(pol, 0.5, 0.2), abs=0.06)


def _post_corr(pol, a, b):
    k = pol.ctx.kernel
    X = pol.posterior.X[0, :3]
    A = np.linalg.inv(k(X, X) + pol.ctx.noise_var * np.eye(3))
    p = np.array([[a], [b]])
    C = k(p, p) - k(p, X) @ A @ k(X, p)
    return C[0, 1] / math.sqrt(C[0, 0] * C[1, 1])


def test_law_error_is_tiny_and_grows_with_t():
    e = law_error(np.full(31, 3.0), np.arange(31), 2.4e-13, 1.0 + 2 / 30)
    assert e[1] == pytest.approx(9 * 2.4e-13) and np.all(np.diff(e[1:]) > 0) and e[-1] < 1e-8


def test_refusals():
    with pytest.raises(BoundcheckError, match="exceed"):
        GPTSBox().start(_ctx(1, [np.random.default_rng(0)], T=200))
    ctx = _ctx(1, [np.random.default_rng(0)])
    ctx.schedules.pop("grid_n_t")
    with pytest.raises(BoundcheckError, match="grid_n_t"):
        GPTSBox().start(ctx)
