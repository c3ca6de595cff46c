"""``tv_gp_ucb_compact`` (TV-GP-UCB on a compact box): β_t and the bound against a reference written here in plain
``math`` (never through the sympy that computes them), the δ budget's union-bound arithmetic per step, the
certified γ̃_t over the box against exact determinants, brute force and greedy point sets, the box policy (its
posterior is the chain's, batch-invariant, told the study's ε) and the family's checks on a short in-theory study."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import theory
from boundcheck.model.continuum.box import Box
from boundcheck.model.continuum.features import QuadratureFeatures
from boundcheck.model.continuum.gamma import gamma_upper_se
from boundcheck.model.continuum.gamma_tv import (
    ar1_logdet,
    block_bound,
    gamma_lower_greedy_tv,
    gamma_upper_features_tv,
    gamma_upper_se_tv,
)
from boundcheck.model.kernels import RBF
from boundcheck.papers.et_gp_ucb.tv_box_family import decay_matrix

TH = theory.get("tv_gp_ucb_compact")
RTOL = 1e-12


# ------------------------------------------------------------------------------------------- references
def ref_L(t, delta, d, a, b):
    """L_t = b √(ln(4 d a π_t/δ)), π_t = π²t²/6."""
    return b * math.sqrt(math.log(4 * d * a * (math.pi**2 * t * t / 6) / delta))


def ref_beta(t, delta, d, r, a, b):
    """2 ln(2t²π²/(3δ)) + 2d ln(t² d r L_t)."""
    conf = 2 * math.log(2 * t * t * math.pi**2 / (3 * delta))
    return conf + 2 * d * math.log(t * t * d * r * ref_L(t, delta, d, a, b))


def ref_bound(T, delta, R, d, r, a, b, gamma):
    """√(8/ln(1+σ⁻²) · T β_T γ̃_T) + 2."""
    return math.sqrt(8 / math.log(1 + R**-2) * T * ref_beta(T, delta, d, r, a, b) * gamma) + 2


SETS = [(100, 0.2, 0.15, 1, 1.0, 111.4, 14.14, 139.0, 17, 30.0),
        (300, 0.05, 0.3, 2, 2.0, 3.0, 5.0, 400.0, 250, 350.0)]


def _vals(T, delta, R, d, r, a, b, g):
    return {"T": T, "delta": delta, "R": R, "d": d, "r": r, "log_a": math.log(a), "b_tail": b, "eps": 0.02,
            "gamma_T": g}


@pytest.mark.parametrize("T, delta, R, d, r, a, b, g, t, gt", SETS)
def test_beta_and_bound_against_the_plain_math_reference(T, delta, R, d, r, a, b, g, t, gt):
    vals = _vals(T, delta, R, d, r, a, b, g)
    steps = np.array([1.0, float(t), float(T)])
    np.testing.assert_allclose(TH.schedule_values("beta_t", steps, vals),
                               [ref_beta(s, delta, d, r, a, b) for s in steps], rtol=RTOL)
    conf = TH.schedule_values("beta_confidence_t", steps, vals)
    disc = TH.schedule_values("beta_discretisation_t", steps, vals)
    np.testing.assert_allclose(conf, [2 * math.log(2 * s * s * math.pi**2 / (3 * delta)) for s in steps], rtol=RTOL)
    np.testing.assert_allclose(conf + disc, TH.schedule_values("beta_t", steps, vals), rtol=RTOL)
    np.testing.assert_allclose(TH.schedule_values("lipschitz_L_t", steps, vals),
                               [ref_L(s, delta, d, a, b) for s in steps], rtol=RTOL)
    n = TH.schedule_values("grid_n_t", steps, vals)
    np.testing.assert_array_equal(n, [math.ceil(s * s * d * r * ref_L(s, delta, d, a, b) / 2) for s in steps])
    ev = TH.evaluate(vals)
    assert float(ev["value"]) == pytest.approx(ref_bound(T, delta, R, d, r, a, b, g), rel=RTOL)
    assert float(ev["terms"]["discretisation"]) == 2.0
    at = TH.evaluate_anytime(vals, np.array([float(t)]), np.array([gt]))
    assert float(at["value"][0]) == pytest.approx(ref_bound(t, delta, R, d, r, a, b, gt), rel=RTOL)


@pytest.mark.parametrize("T, delta, R, d, r, a, b, g, t, gt", SETS)
def test_the_delta_budget_per_step(T, delta, R, d, r, a, b, g, t, gt):
    """Lipschitz at every t: d a e^{−(L_t/b)²} = δ/(4π_t) (sums to δ/4); L_t rd/τ_t = 1/t²; Lemma 5.6 on D_t:
    τ_t^d e^{−β_t/2} = δ/(4π_t); Lemma 5.5: e^{−β_t/2} ≤ δ/(2π_t). Srinivas' one level L = b√ln(4da/δ) would
    spend δ/4 at EVERY step (T·δ/4 in all): the per-step form is what the chain needs."""
    vals = _vals(T, delta, R, d, r, a, b, g)
    steps = np.arange(1.0, 60.0)
    pi_t = math.pi**2 * steps**2 / 6
    L = TH.schedule_values("lipschitz_L_t", steps, vals)
    np.testing.assert_allclose(np.log(d * a) - (L / b) ** 2, np.log(delta / (4 * pi_t)), rtol=1e-12, atol=1e-12)
    tau = TH.schedule_values("tau_t", steps, vals)
    np.testing.assert_allclose(L * r * d / tau, 1 / steps**2, rtol=1e-12)
    beta = TH.schedule_values("beta_t", steps, vals)
    np.testing.assert_allclose(d * np.log(tau) - beta / 2, np.log(delta / (4 * pi_t)), rtol=1e-12, atol=1e-12)
    assert np.all(-beta / 2 <= np.log(delta / (2 * pi_t)))
    assert np.all(np.diff(beta) > 0)  # Lemma 5.4 uses β_s ≤ β_t for s ≤ t
    assert float(sum(delta / (4 * p) for p in math.pi**2 * np.arange(1, 10**6) ** 2 / 6)) < delta / 4


def test_the_discretisation_part_is_a_schedule_of_its_own_and_the_ledger_is_complete():
    """What ``boundcheck show tv_gp_ucb_compact`` prints: β_t's two parts, L_t, τ_t, D_t's size, the TVK ledger."""
    for s in ("beta_confidence_t", "beta_discretisation_t", "lipschitz_L_t", "tau_t", "grid_n_t", "width_t", "C1"):
        assert s in TH.schedules, s
    assert [c.id for c in TH.corrections] == [f"TVK{i}" for i in range(1, 7)]
    assert TH.bound_terms["discretisation"] == 2 and TH.constraints


# ------------------------------------------------------------------------------------------- γ̃ over the box
def _logdet_gain(X, eps, lam, ell=0.2):
    K = RBF(ell)(X, X) * decay_matrix(len(X), eps)
    return 0.5 * np.linalg.slogdet(np.eye(len(X)) + K / lam)[1]


@pytest.mark.parametrize("eps", [0.0, 0.05, 0.5, 1.0])
def test_ar1_logdet_is_the_exact_determinant(eps):
    a = np.array([0.3, 2.0, 17.0])
    got = ar1_logdet(a, eps, 12)
    for t in (1, 5, 12):
        D = decay_matrix(t, eps)
        want = sum(0.5 * np.linalg.slogdet(np.eye(t) + ak * D)[1] for ak in a)
        assert got[t - 1] == pytest.approx(want, rel=1e-12)


def test_gamma_tv_at_eps_zero_is_the_static_bound_and_grows_with_eps():
    box = Box(1, 0.0, 1.0)
    feat = QuadratureFeatures.se(0.2, box, tol=1e-12)
    from boundcheck.model.continuum.gamma import gamma_upper_features

    np.testing.assert_allclose(gamma_upper_features_tv(feat, 40, 0.02, 0.0), gamma_upper_features(feat, 40, 0.02),
                               rtol=1e-12)
    curves = [gamma_upper_se_tv(0.2, box, 40, 0.02, e)[0] for e in (0.0, 0.01, 0.1, 1.0)]
    np.testing.assert_allclose(curves[0], gamma_upper_se(0.2, box, 40, 0.02), rtol=1e-12)
    assert all(np.all(b >= a - 1e-12) for a, b in itertools.pairwise(curves))


@pytest.mark.parametrize("eps", [0.02, 0.3])
def test_gamma_tv_is_above_brute_force_greedy_and_random_designs(eps):
    """Certified: above the exact maximum over a 9-point grid for t ≤ 3 (all 9^t sequences), above a greedy
    sequence on a 201-point grid for t ≤ 30 (a point set that is attained: γ̃_t ≥ its gain) and above random
    designs. The test has teeth: the static bound (ε = 0) is below the greedy gain at ε = 0.3."""
    box, lam, T = Box(1, 0.0, 1.0), 0.0225, 30
    up, _ = gamma_upper_se_tv(0.2, box, T, lam, eps)
    G = np.linspace(0, 1, 9)[:, None]
    for t in (1, 2, 3):
        best = max(_logdet_gain(G[list(idx)], eps, lam) for idx in itertools.product(range(9), repeat=t))
        assert best <= up[t - 1] * (1 + 1e-12)
    grid = np.linspace(0, 1, 201)[:, None]
    chosen, greedy = [], []
    for _ in range(T):
        gains = [_logdet_gain(np.vstack([*chosen, g]) if chosen else g[None], eps, lam) for g in grid]
        k = int(np.argmax(gains))
        chosen.append(grid[k])
        greedy.append(gains[k])
    assert np.all(np.array(greedy) <= up * (1 + 1e-12))
    rng = np.random.default_rng(3)
    for _ in range(20):
        X = rng.random((T, 1))
        assert _logdet_gain(X, eps, lam) <= up[-1]
    if eps == 0.3:
        assert greedy[-1] > gamma_upper_se(0.2, box, T, lam)[-1]
    low = gamma_lower_greedy_tv(0.2, box, T, lam, eps, points_per_axis=201)
    assert np.all(np.diff(low) >= 0) and np.all(low <= up * (1 + 1e-12))
    assert low[-1] > 0.5 * greedy[-1]  # uncertainty sampling: an attained design, near the log-det greedy


def test_block_bound_is_bogunovic_form_on_the_static_curve():
    U = np.array([1.0, 1.8, 2.4, 2.9])
    got = block_bound(U, 0.5, 0.1)
    N = np.arange(1, 5)
    for t in range(1, 5):
        want = min(math.ceil(t / n) * (U[n - 1] + 0.25 / 0.5 * n**2.5 * 0.1) for n in N)
        assert got[t - 1] == pytest.approx(want, rel=1e-12)


# ------------------------------------------------------------------------------------------- the policy
def _ctx(runs, eps, seeds, T=8):
    from boundcheck.policies.box import BoxContext

    t = np.arange(T + 1.0)
    return BoxContext(runs=runs, horizon=T, bounds=np.array([[0.0, 1.0]]), kernel=RBF(0.2), noise_sd=0.15,
                      noise_var=0.0225, beta=np.sqrt(2 * np.log(1 + t)), rngs=[np.random.default_rng(s) for s in seeds],
                      schedules={"tv_eps": np.full(T + 1, eps)}, sobol=32, starts=3)


def _drive(seeds, eps=0.05, T=8):
    from boundcheck.papers.et_gp_ucb.tv_gp_ucb_box import TVGPUCBBox

    pol = TVGPUCBBox()
    pol.start(_ctx(len(seeds), eps, seeds, T))
    f = lambda X, t: np.sin(6 * X[:, 0] + 0.3 * t)  # noqa: E731
    xs = []
    for t in range(1, T + 1):
        X = pol.select(t)
        xs.append(X.copy())
        pol.update(t, X, f(X, t))
    return pol, np.stack(xs, axis=1)


def test_policy_is_batch_invariant_and_its_posterior_is_the_chains():
    pol, X = _drive([11, 12, 13])
    for i, s in enumerate([11, 12, 13]):
        _, Xi = _drive([s])
        np.testing.assert_array_equal(X[i], Xi[0])
    post = pol.posterior.at(9)
    assert pol.eps_told == 0.05 and post.eps == 0.05
    # the dense spatio-temporal formula at time 9 from the data stamped 1..8
    Xd, yd = post.data()[0]
    D = decay_matrix(9, 0.05)
    Kd = RBF(0.2)(Xd, Xd) * D[:8, :8]
    q = np.array([[0.1], [0.77]])
    kq = RBF(0.2)(q, Xd) * D[8, :8][None]
    mu = kq @ np.linalg.solve(Kd + 0.0225 * np.eye(8), yd)
    var = 1 - np.einsum("ij,ji->i", kq, np.linalg.solve(Kd + 0.0225 * np.eye(8), kq.T))
    m, s = post.mean_sd(q[None], rows=np.array([0]))
    np.testing.assert_allclose(m[0], mu, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(s[0], np.sqrt(var), rtol=1e-9, atol=1e-12)


def test_policy_told_nothing_is_gp_ucb_and_says_so():
    from boundcheck.papers.et_gp_ucb.tv_gp_ucb_box import TVGPUCBBox

    ctx = _ctx(1, 0.1, [1])
    ctx.schedules = {}
    pol = TVGPUCBBox()
    pol.start(ctx)
    pol.select(1)
    assert pol.eps_told == 0.0 and pol.posterior.eps == 0.0 and pol.record["eps_told"][0] == 0.0
    assert TVGPUCBBox(eps=0.3).eps == 0.3


# ------------------------------------------------------------------------------------------- the family
def test_short_in_theory_study_no_claim_violated_and_gain_below_gamma():
    from boundcheck.testing import format_claims, run_check

    s = run_check("tv_gp_ucb_compact", runs=6, horizon=20, seed=3, policies=["tv_gp_ucb_box"])
    assert s["in_theory"], s["out_of_theory_reasons"]
    verdicts = {c["id"]: c["verdict"] for c in s["claims"]}
    assert "violated" not in verdicts.values(), format_claims(s)
    for c in ("D1_optimism", "optimiser_gap", "D3_information"):
        assert verdicts[c] == "holds", format_claims(s)


def test_a_rougher_chain_is_out_of_theory_and_keeps_the_models_lipschitz_levels():
    from boundcheck import api
    from boundcheck.claims.families import family_for
    from boundcheck.papers.et_gp_ucb.tv_box_defects import chain_rougher

    spec = api.build_study("tv_gp_ucb_compact", runs=2, horizon=10, seed=1)
    fam = family_for(TH)
    rough = chain_rougher(spec.scenario)
    assert any("tv_box_chain" in r for r in fam.unmet_assumptions(rough))
    a = fam.instantiate(spec.scenario, 10, 0.2)
    b = fam.instantiate(rough, 10, 0.2)
    np.testing.assert_array_equal(a.schedules["lipschitz_L_t"], b.schedules["lipschitz_L_t"])
    np.testing.assert_array_equal(a.schedules["tv_eps"], np.full(11, 0.02))


def _gamma_tenth(inst):
    from dataclasses import replace

    return replace(inst, gamma_upper=inst.gamma_upper * 0.1)


def test_d3_fails_when_the_certified_gamma_is_understated():
    """The comparison of the realised gain with γ̃_t can fail: with γ̃ a tenth of the certified value (a defect of
    the verification itself) D3_information is violated and nothing else is."""
    from boundcheck.claims.defects import Defect
    from boundcheck.testing import format_claims, run_check

    d = Defect("gamma_tenth", "γ̃_t evaluated 10× too small", ("tv_gp_ucb_compact",), instance=_gamma_tenth)
    s = run_check("tv_gp_ucb_compact", runs=6, horizon=20, seed=3, policies=["tv_gp_ucb_box"], defects=[d])
    verdicts = {c["id"]: c["verdict"] for c in s["claims"]}
    assert verdicts["D3_information"] == "violated", format_claims(s)
    assert [k for k, v in verdicts.items() if v == "violated"] == ["D3_information"], format_claims(s)


def test_the_engine_records_each_steps_tolerance_and_the_regret_claims_read_it():
    """A chain's certified maximum has its own tolerance at every step (sum = the run's); the regret the claims
    compare with the bound adds them step by step."""
    from boundcheck import api
    from boundcheck.claims.families import family_for
    from boundcheck.papers.et_gp_ucb.tv_box_family import TVBoxEvaluator
    from boundcheck.study.continuum import simulate_box

    spec = api.build_study("tv_gp_ucb_compact", runs=2, horizon=6, seed=2)
    fam = family_for(TH)
    inst = fam.instantiate(spec.scenario, 6, spec.delta)
    traj = simulate_box(spec.scenario, spec.policies, [0, 1], spec.seed, inst)
    tol_t = traj.truth["max_tolerance_t"]
    assert tol_t.shape == (2, 6) and np.all(tol_t >= 0) and np.any(tol_t > 0)
    np.testing.assert_allclose(tol_t.sum(axis=1), traj.truth["max_tolerance"], rtol=1e-12)
    ev = TVBoxEvaluator(traj, spec.scenario, inst, "tv_gp_ucb_box")
    want = np.cumsum(traj.algorithms["tv_gp_ucb_box"].regret + tol_t - ev.opt_slack, axis=1)
    np.testing.assert_allclose(ev.regret_upper(), want, rtol=1e-12)
    assert traj.truth["grad_sup_t"].shape == (2, 6)
    assert np.all(ev.lipschitz_event() == (traj.truth["grad_sup_t"] <= ev.L_t[None]).all(axis=1))


def test_a_chain_study_is_the_same_run_by_run_as_in_a_batch():
    """Each run's truth, noise, choices and monitors are functions of that run alone (one Generator per run)."""
    from boundcheck import api
    from boundcheck.claims.families import family_for
    from boundcheck.study.continuum import simulate_box

    spec = api.build_study("tv_gp_ucb_compact", runs=3, horizon=5, seed=4)
    inst = family_for(TH).instantiate(spec.scenario, 5, spec.delta)
    together = simulate_box(spec.scenario, spec.policies, [0, 1, 2], spec.seed, inst)
    for r in range(3):
        alone = simulate_box(spec.scenario, spec.policies, [r], spec.seed, inst)
        for name, tr in alone.algorithms.items():
            np.testing.assert_array_equal(tr.regret[0], together.algorithms[name].regret[r])
            for k in ("mu_x", "sd_x", "mu_disc", "sd_disc", "x0"):
                np.testing.assert_array_equal(tr.monitors[k][0], together.algorithms[name].monitors[k][r])
        np.testing.assert_array_equal(alone.truth["grad_sup_t"][0], together.truth["grad_sup_t"][r])
