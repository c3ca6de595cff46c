"""The compact-box theorems (Srinivas et al. Theorem 2, ``gp_ucb_compact``; Chowdhury & Gopalan Theorem 3 on a box,
``igp_ucb_compact``) against references written here by hand in plain ``math`` from the printed statements, never
through the sympy that computes them; the union-bound arithmetic of the δ budget, so that a schedule with the wrong
share of δ (Lemma 5.7's own 2da/δ at the theorem's δ) fails; and the finite-domain theorems of both modules pinned
to their values before the compact ones were added."""

from __future__ import annotations

import hashlib
import json
import math
import pickle

import numpy as np
import pytest
import sympy as sp

from theory import igp_ucb_gp_ts, srinivas
from theory.core import S

GP = srinivas.COMPACT_THEOREM
IGP = igp_ucb_gp_ts.COMPACT_THEOREM
RTOL = 1e-12


# ------------------------------------------------------------------------------------------- references
def ref_beta_confidence(t: float, delta: float) -> float:
    """Srinivas Theorem 2, first part of β_t: 2 ln(2t²π²/(3δ))."""
    return 2.0 * math.log(2.0 * t * t * math.pi**2 / (3.0 * delta))


def ref_beta_discretisation(t: float, delta: float, d: int, r: float, a: float, b: float) -> float:
    """Srinivas Theorem 2, second part of β_t, with a itself: 2d ln(t² d b r √(ln(4da/δ)))."""
    return 2.0 * d * math.log(t * t * d * b * r * math.sqrt(math.log(4.0 * d * a / delta)))


def ref_beta_discretisation_log(t: float, delta: float, d: int, r: float, log_a: float, b: float) -> float:
    """The same with ln a given (ln(4da/δ) = ln(4d/δ) + ln a): usable where a overflows a float."""
    return 2.0 * d * math.log(t * t * d * b * r * math.sqrt(math.log(4.0 * d / delta) + log_a))


def ref_srinivas_bound(T: float, delta: float, R: float, d: int, r: float, a: float, b: float, gamma: float) -> float:
    """√(C₁ T β_T γ_T) + 2, C₁ = 8/ln(1 + σ⁻²) (also the anytime form at t with γ_t)."""
    beta = ref_beta_confidence(T, delta) + ref_beta_discretisation(T, delta, d, r, a, b)
    return math.sqrt(8.0 / math.log(1.0 + R**-2) * T * beta * gamma) + 2.0


def ref_igp_width(B: float, R: float, gamma: float, delta: float) -> float:
    """Chowdhury & Gopalan: B + R√(2(γ + 1 + ln(1/δ)))."""
    return B + R * math.sqrt(2.0 * (gamma + 1.0 + math.log(1.0 / delta)))


def ref_igp_bound(T: float, delta: float, R: float, B: float, gamma_T: float) -> float:
    """R_T ≤ 2β_T √(4(T+2)γ_T)."""
    return 2.0 * ref_igp_width(B, R, gamma_T, delta) * math.sqrt(4.0 * (T + 2.0) * gamma_T)


def ref_igp_anytime(t: float, T: float, delta: float, R: float, B: float, gamma_t: float) -> float:
    """Bound_T(t) = 2β_t √(4tλγ_t), λ = 1 + 2/T."""
    return 2.0 * ref_igp_width(B, R, gamma_t, delta) * math.sqrt(4.0 * t * (1.0 + 2.0 / T) * gamma_t)


# (T, δ, R, d, r, a, b, γ_T, t, γ_t); b = 2√2/ℓ is the Borell–TIS b of an SE prior with lengthscale ℓ
GP_SETS = [
    (50, 0.1, 0.3, 1, 1.0, 1.0, 2 * math.sqrt(2) / 0.2, 12.5, 7, 3.25),
    (200, 0.05, 0.1, 2, 2.0, 5.0, 3.0, 40.0, 33, 20.0),
    (1000, 0.01, 1.0, 3, 0.5, 1.7, 8.0, 90.0, 999, 89.0),
]
# (T, δ, R, B, γ_T, t, γ_t, γ_{t−1})
IGP_SETS = [
    (50, 0.1, 0.3, 2.0, 12.5, 7, 3.25, 3.0),
    (300, 0.05, 0.1, 1.0, 41.0, 120, 30.5, 30.1),
    (2000, 0.001, 2.0, 5.0, 150.0, 1999, 149.9, 149.8),
]


def _gp_values(T, delta, R, d, r, a, b, gamma_T) -> dict:
    return {"T": T, "delta": delta, "R": R, "d": d, "r": r, "log_a": math.log(a), "b_tail": b, "gamma_T": gamma_T}


# ------------------------------------------------------------------------------------------- gp_ucb_compact
@pytest.mark.parametrize("T, delta, R, d, r, a, b, gamma_T, t, gamma_t", GP_SETS)
def test_gp_ucb_compact_values_against_the_printed_theorem(T, delta, R, d, r, a, b, gamma_T, t, gamma_t):
    vals = _gp_values(T, delta, R, d, r, a, b, gamma_T)
    steps = np.array([1.0, float(t), float(T)])
    conf = GP.schedule_values("beta_confidence_t", steps, vals)
    disc = GP.schedule_values("beta_discretisation_t", steps, vals)
    beta = GP.schedule_values("beta_t", steps, vals)
    width = GP.schedule_values("width_t", steps, vals)
    want_conf = [ref_beta_confidence(s, delta) for s in steps]
    want_disc = [ref_beta_discretisation(s, delta, d, r, a, b) for s in steps]
    np.testing.assert_allclose(conf, want_conf, rtol=RTOL)
    np.testing.assert_allclose(disc, want_disc, rtol=RTOL)
    np.testing.assert_allclose(beta, np.add(want_conf, want_disc), rtol=RTOL)
    np.testing.assert_allclose(width, np.sqrt(np.add(want_conf, want_disc)), rtol=RTOL)
    assert float(GP.schedule_values("C1", steps, vals)) == pytest.approx(8 / math.log(1 + R**-2), rel=RTOL)

    ev = GP.evaluate(vals)
    assert float(ev["value"]) == pytest.approx(ref_srinivas_bound(T, delta, R, d, r, a, b, gamma_T), rel=RTOL)
    assert float(ev["terms"]["discretisation"]) == 2.0
    any_ = GP.evaluate_anytime(vals, np.array([float(t)]), np.array([gamma_t]))
    assert float(any_["value"][0]) == pytest.approx(ref_srinivas_bound(t, delta, R, d, r, a, b, gamma_t), rel=RTOL)


@pytest.mark.parametrize("T, delta, R, d, r, a, b, gamma_T, t, gamma_t", GP_SETS)
def test_union_bound_arithmetic_of_the_delta_budget(T, delta, R, d, r, a, b, gamma_T, t, gamma_t):
    """The schedules spend exactly the δ the claims say: d a e^{−(L/b)²} = δ/4 (Lipschitz), L·rd/τ_t = 1/t²,
    τ_t^d e^{−β_t/2} = δ/(4π_t) (Lemma 5.6 on D_t, summing to δ/4), e^{−β_t/2} ≤ δ/(2π_t) (Lemma 5.5 at δ/2).
    With Lemma 5.7's own L = b√(ln(2da/δ)) at the theorem's δ the first identity gives δ/2 and fails."""
    vals = _gp_values(T, delta, R, d, r, a, b, gamma_T)
    steps = np.arange(1.0, 40.0)
    L = float(GP.schedule_values("lipschitz_L", steps, vals))
    assert d * a * math.exp(-((L / b) ** 2)) == pytest.approx(delta / 4, rel=1e-12)
    assert d * a * math.exp(-(math.log(2 * d * a / delta))) != pytest.approx(delta / 4, rel=1e-3)  # the lemma's form
    tau = GP.schedule_values("tau_t", steps, vals)
    np.testing.assert_allclose(L * r * d / tau, 1.0 / steps**2, rtol=1e-12)
    beta = GP.schedule_values("beta_t", steps, vals)
    pi_t = math.pi**2 * steps**2 / 6
    log_lhs = d * np.log(tau) - beta / 2  # ln(τ_t^d e^{−β_t/2}) (the product itself may underflow)
    np.testing.assert_allclose(log_lhs, np.log(delta / (4 * pi_t)), rtol=1e-12, atol=1e-12)
    assert np.all(-beta / 2 <= np.log(delta / (2 * pi_t)) + 1e-12)
    # the claims' shares: confidence at x_t δ/2 + discretised confidence δ/2 (Lipschitz δ/4 and D_t δ/4 inside)
    alpha = {c.id: c.alpha for c in GP.claims if c.kind == "probability"}
    assert alpha["confidence_chosen"] == S.delta / 2 and alpha["confidence_discretised"] == S.delta / 2
    assert alpha["lipschitz_event"] == S.delta / 4
    assert sp.simplify(alpha["confidence_chosen"] + alpha["confidence_discretised"] - S.delta) == 0
    assert alpha["regret_bound"] == alpha["regret_bound_anytime"] == S.delta


def test_discretisation_part_is_positive_and_grows_like_2d_ln_t_squared():
    for T, delta, R, d, r, a, b, gamma_T, _, _ in GP_SETS:
        vals = _gp_values(T, delta, R, d, r, a, b, gamma_T)
        steps = np.array([1.0, 2.0, 10.0, 1000.0, 1e6])
        disc = GP.schedule_values("beta_discretisation_t", steps, vals)
        assert np.all(disc > 0)
        np.testing.assert_allclose(disc - disc[0], 2 * d * np.log(steps**2), rtol=1e-12, atol=1e-9)


def test_tau_below_one_is_refused():
    """2d ln τ_t < 0 when τ_t < 1 while |D_t| ≥ 1: such values violate the theorem's constraint τ_1 ≥ 1."""
    from boundcheck.errors import BoundcheckError
    from boundcheck.utils.validation import check_symbol_values

    ok = _gp_values(*GP_SETS[0][:8])
    check_symbol_values(GP, ok)
    tiny = {**ok, "r": 1e-3}  # τ_1 = d b r √(ln(4da/δ)) ≈ 0.026
    assert GP.schedule_values("beta_discretisation_t", np.array([1.0]), tiny)[0] < 0
    with pytest.raises(BoundcheckError, match="violate"):
        check_symbol_values(GP, tiny)


@pytest.mark.parametrize("tau", [1.0, 1.5, 2.0, 3.9, 7.3, 40.2])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_cell_centred_grid_is_a_valid_D_t(tau, d):
    """D_t = cell centres, ⌈τ/2⌉ per side of [0, r]^d: at most τ^d points (τ ≥ 1), every x within rd/τ in ℓ₁ of its
    nearest grid point (brute force over random points and the box's corners)."""
    r = 1.7
    n = math.ceil(tau / 2)
    assert n**d <= tau**d
    centres = r * (2 * np.arange(n) + 1) / (2 * n)
    grid = np.stack(np.meshgrid(*([centres] * d), indexing="ij"), axis=-1).reshape(-1, d)
    rng = np.random.default_rng(7)
    corners = r * np.stack(np.meshgrid(*([np.array([0.0, 1.0])] * d), indexing="ij"), axis=-1).reshape(-1, d)
    x = np.vstack([rng.uniform(0, r, size=(400, d)), corners])
    dist = np.abs(x[:, None, :] - grid[None, :, :]).sum(axis=-1).min(axis=1)
    assert dist.max() <= r * d / tau + 1e-12
    # the schedule's grid size is that n
    vals = {**_gp_values(*GP_SETS[0][:8]), "d": d}
    steps = np.array([1.0, 3.0])
    tau_t = GP.schedule_values("tau_t", steps, vals)
    np.testing.assert_array_equal(GP.schedule_values("grid_n_t", steps, vals), np.ceil(tau_t / 2))


def test_log_a_formulation_equals_the_a_formulation_and_survives_huge_a():
    for T, delta, _, d, r, a, b, _, _, _ in GP_SETS:
        for s in (1.0, 17.0, float(T)):
            assert ref_beta_discretisation_log(s, delta, d, r, math.log(a), b) == pytest.approx(
                ref_beta_discretisation(s, delta, d, r, a, b), rel=1e-14)
    # sympy: the schedule with ln a substituted for log_a is ln(4da/δ) written with a
    a_sym = sp.Symbol("a_tail", positive=True)
    expr = srinivas.beta_discretisation(S.t, sp.log(a_sym))
    direct = 2 * srinivas.d * sp.log(S.t**2 * srinivas.d * srinivas.b_tail * srinivas.r
                                     * sp.sqrt(sp.log(4 * srinivas.d * a_sym / S.delta)))
    point = {S.t: 3, srinivas.d: 2, srinivas.b_tail: 5, srinivas.r: sp.Rational(3, 2), S.delta: sp.Rational(1, 20),
             a_sym: sp.Rational(7, 2)}
    assert abs(float((expr - direct).subs(point).evalf(30))) < 1e-25
    # a = e^{10⁵} is not a float; its logarithm is
    T, delta, R, d, r, _, b, gamma_T, _, _ = GP_SETS[1]
    vals = {**_gp_values(T, delta, R, d, r, 1.0, b, gamma_T), "log_a": 1e5}
    got = GP.schedule_values("beta_discretisation_t", np.array([5.0]), vals)[0]
    assert got == pytest.approx(ref_beta_discretisation_log(5.0, delta, d, r, 1e5, b), rel=RTOL)
    assert math.isfinite(float(GP.evaluate(vals)["value"]))


def test_confidence_part_is_the_finite_beta_of_four_points():
    """2 ln(2t²π²/(3δ)) = Theorem 1's β_t with |D| = 4: Lemma 5.6 at δ/4 before the |D_t| factor."""
    diff = srinivas.beta(S.t).subs(S.n_X, 4) - srinivas.beta_confidence(S.t)
    assert sp.simplify(sp.expand_log(diff, force=True)) == 0


def test_gp_ucb_compact_shape():
    assert GP.id == "gp_ucb_compact" and srinivas.COMPACT_THEOREMS[0] is GP
    assert set(GP.bound_terms) == {"information", "discretisation"} == set(GP.anytime_terms)
    assert {"beta_t", "width_t", "C1", "beta_confidence_t", "beta_discretisation_t", "lipschitz_L",
            "tau_t"} <= set(GP.schedules)
    assert [c.id for c in GP.claims] == ["regret_bound", "regret_bound_anytime", "confidence_chosen",
                                         "lipschitz_event", "confidence_discretised", "D1_optimism", "optimiser_gap",
                                         "D3_information", "K1_calibration"]
    assert {a.predicate for a in GP.assumptions} == {
        "compact_box_domain", "model_is_truth", "static_truth", "kernel_bounded_by_one", "noise_matches",
        "lambda_is_noise", "theoretical_schedules", "derivative_tails_certified"}
    assert {"SC1", "SC2", "SC3", "SC4", "SC5"} <= {c.id for c in GP.corrections}
    changes = {c.id: c.changes_computation for c in GP.corrections}
    assert changes["SC2"] is False and changes["SC3"] is True and changes["SC4"] is True
    assert (GP.default_scenario, GP.scenarios, GP.algorithms) == (
        "gp_sample_se_box", ("gp_sample_se_box", "gp_sample_se_box2"), ("gp_ucb_box", "random_box"))
    assert "0912.3995" in GP.paper and "0912.3995" in GP.reference
    # the Domain mechanism: d an integer ≥ 1, r and b > 0, log_a ≥ 0
    assert GP.domain("d").contains(2) and not GP.domain("d").contains(1.5) and not GP.domain("d").contains(0)
    assert GP.domain("log_a").contains(0) and not GP.domain("log_a").contains(-0.1)
    assert not GP.domain("r").contains(0) and not GP.domain("b_tail").contains(0) and GP.domain("r").contains(1e-3)
    # the free symbols of the bound are the theorem's symbols
    assert GP.bound.free_symbols <= {s for s, _ in GP.symbols.values()}


# ------------------------------------------------------------------------------------------- igp_ucb_compact
@pytest.mark.parametrize("T, delta, R, B, gamma_T, t, gamma_t, gamma_tm1", IGP_SETS)
def test_igp_ucb_compact_values_against_the_printed_theorem(T, delta, R, B, gamma_T, t, gamma_t, gamma_tm1):
    vals = {"T": T, "delta": delta, "R": R, "B": B, "gamma_T": gamma_T}
    assert float(IGP.evaluate(vals)["value"]) == pytest.approx(ref_igp_bound(T, delta, R, B, gamma_T), rel=RTOL)
    got = IGP.evaluate_anytime(vals, np.array([float(t)]), np.array([gamma_t]))["value"][0]
    assert float(got) == pytest.approx(ref_igp_anytime(t, T, delta, R, B, gamma_t), rel=RTOL)
    beta = IGP.schedule_values("beta_t", np.array([float(t)]), vals, gamma_tm1=np.array([gamma_tm1]))[0]
    assert float(beta) == pytest.approx(ref_igp_width(B, R, gamma_tm1, delta), rel=RTOL)
    assert float(IGP.schedule_values("lambda", np.array([1.0]), vals)) == pytest.approx(1 + 2 / T, rel=RTOL)


def test_igp_ucb_compact_is_the_finite_form_but_for_the_domain():
    fin = igp_ucb_gp_ts._BY_ID["igp_ucb"]
    assert IGP.id == "igp_ucb_compact" and igp_ucb_gp_ts.COMPACT_THEOREMS[0] == IGP  # then gp_ts_compact
    assert dict(IGP.bound_terms) == dict(fin.bound_terms) and dict(IGP.anytime_terms) == dict(fin.anytime_terms)
    assert dict(IGP.schedules) == dict(fin.schedules)
    assert [s for s, _ in IGP.symbols.values()] == [s for s, _ in fin.symbols.values()]
    assert IGP.symbols["gamma_T"][1] != fin.symbols["gamma_T"][1] and "box" in IGP.symbols["gamma_T"][1]
    preds, fin_preds = [a.predicate for a in IGP.assumptions], [a.predicate for a in fin.assumptions]
    assert set(preds) - set(fin_preds) == {"compact_box_domain"}
    assert set(fin_preds) - set(preds) == {"fixed_decision_set"}
    ids = [c.id for c in IGP.claims]
    assert "confidence_event" not in ids and {"confidence_chosen", "optimiser_gap"} <= set(ids)
    assert set(ids) - {"confidence_chosen", "optimiser_gap"} <= {c.id for c in fin.claims}
    assert IGP.claim("confidence_chosen").alpha == S.delta
    assert (IGP.default_scenario, IGP.algorithms) == ("rkhs_se_box", ("igp_ucb_box", "random_box"))


# ------------------------------------------------------------------------------------------- nothing else moved
PINNED_FINGERPRINTS = {  # sha256 of each finite theorem's fingerprint, computed before the compact ones existed
    "gp_ucb": "68b91ecd9218004ef1dfa91b2e6b3dbc96c3613d51ad2a2b9ee80c1b8ebafb90",
    "igp_ucb_confidence": "ad9e2e078d57456e0f8c7a9b77613d010774d1a70ab31d915d50a6c48aee8a0d",
    "igp_ucb": "520ce608435ee83ad447bf2d69f0ec8fcb71c0cfc2c91892738ab4080d1da460",
    "gp_ts": "262f56ec38fdc7ae4d40097542c766786f559144a0ae9518aedc8adab60074f3",
}


def test_finite_theorems_unchanged():
    # the compact theorems are registered after the finite ones, which are unchanged
    assert tuple(t.id for t in srinivas.THEOREMS) == ("gp_ucb", "gp_ucb_compact", "gp_ucb_rkhs_compact")
    assert tuple(t.id for t in igp_ucb_gp_ts.THEOREMS) == ("igp_ucb_confidence", "igp_ucb", "gp_ts",
                                                           "igp_ucb_compact", "gp_ts_compact")
    for th in srinivas.THEOREMS[:1] + igp_ucb_gp_ts.THEOREMS[:3]:
        fp = json.dumps(th.__fingerprint__(), sort_keys=True, ensure_ascii=False)
        assert hashlib.sha256(fp.encode()).hexdigest() == PINNED_FINGERPRINTS[th.id], th.id
    gp = srinivas.THEOREM
    v = {"T": 50, "delta": 0.1, "R": 0.3, "n_X": 400, "gamma_T": 12.5}
    assert float(gp.evaluate(v)["value"]) == pytest.approx(258.1080887548155, rel=1e-14)
    assert float(gp.evaluate_anytime(v, np.array([7.0]), np.array([3.25]))["value"][0]) == pytest.approx(
        43.02416899931851, rel=1e-14)
    np.testing.assert_allclose(gp.schedule_values("beta_t", np.array([1.0, 7.0]), v),
                               [17.583499885145546, 25.3671404813668], rtol=1e-14)
    igp = igp_ucb_gp_ts._BY_ID["igp_ucb"]
    v2 = {"T": 50, "delta": 0.1, "R": 0.3, "B": 2.0, "gamma_T": 12.5}
    assert float(igp.evaluate(v2)["value"]) == pytest.approx(375.9562435480734, rel=1e-14)
    assert float(igp.evaluate_anytime(v2, np.array([7.0]), np.array([3.25]))["value"][0]) == pytest.approx(
        60.04374534223358, rel=1e-14)
    np.testing.assert_allclose(igp.schedule_values("beta_t", np.array([1.0, 7.0]), v2, gamma_tm1=np.array([0.0, 3.0])),
                               [2.7710157694489315, 3.0651128187844368], rtol=1e-14)


def test_compact_theorems_pickle_and_fingerprint():
    """Theorems cross process boundaries (workers rebuild the lambdified functions)."""
    for th in (GP, IGP):
        back = pickle.loads(pickle.dumps(th))
        assert back.__fingerprint__() == th.__fingerprint__()
        assert back.id in {t.id for t in srinivas.COMPACT_THEOREMS + igp_ucb_gp_ts.COMPACT_THEOREMS}


# ---------------------------------------------------------------------------------------- gp_ucb_rkhs_compact
@pytest.mark.parametrize("T, delta, R, B, gamma_T, t, gamma_t", [
    (100, 0.1, 0.15, 3.0, 30.0, 7.0, 4.5), (400, 0.05, 0.3, 1.0, 55.0, 123.0, 20.0),
    (20, 0.5, 1.0, 10.0, 5.0, 1.0, 0.7)])
def test_gp_ucb_rkhs_compact_values_against_the_printed_theorem(T, delta, R, B, gamma_T, t, gamma_t):
    """Srinivas et al. Theorem 3 by hand: β_t = 2B² + 300γ_T ln³(t/δ) (B the norm; γ_T for γ_t, correction SR3),
    R_T ≤ √(C₁Tβ_Tγ_T), the anytime form √(C₁tβ_tγ_t), C₁ = 8/ln(1 + σ⁻²)."""
    th = srinivas.RKHS_THEOREM
    v = {"T": T, "delta": delta, "R": R, "B": B, "gamma_T": gamma_T}
    C1 = 8 / math.log(1 + R**-2)

    def beta(s):
        return 2 * B**2 + 300 * gamma_T * math.log(s / delta) ** 3

    assert float(th.evaluate(v)["value"]) == pytest.approx(math.sqrt(C1 * T * beta(T) * gamma_T), rel=1e-12)
    got = th.evaluate_anytime(v, np.array([t]), np.array([gamma_t]))["value"][0]
    assert float(got) == pytest.approx(math.sqrt(C1 * t * beta(t) * gamma_t), rel=1e-12)
    assert float(th.schedule_values("beta_t", t, v)) == pytest.approx(beta(t), rel=1e-12)
    assert float(th.schedule_values("width_t", t, v)) == pytest.approx(math.sqrt(beta(t)), rel=1e-12)
