"""Theorem 1 of paper 001 on the continuum (et_gp_ucb_compact): an independent reference of β_t and the bound, the
Assumption-3 constants against Monte Carlo, the default study without false alarms, the ε > 0 study reported
vacuous, and every planted defect caught by the claim it should trip."""

import math
from dataclasses import replace

import numpy as np
import pytest
from planted_catches import ET_GP_UCB_COMPACT_CATCHES

import theory
from boundcheck import api
from boundcheck.model.continuum.box import Box
from boundcheck.model.continuum.features import QuadratureFeatures
from boundcheck.model.continuum.paths import FeaturePaths
from boundcheck.papers.et_gp_ucb.compact import assumption3_box, pilot_first_stop_box, recompute_blocks
from boundcheck.testing import format_claims, run_check
from boundcheck.world.box_scenario import box_scenario


def _verdicts(s: dict) -> dict[str, str]:
    return {c["id"]: c["verdict"] for c in s["claims"]}


# --------------------------------------------------------------------------------- independent reference
def _beta_ref(t, d, r, delta, a1, b1):
    """Theorem 1's β_t written out by hand: 2 ln(4π²t²/(3δ)) + 2d ln(t² d b₁ r √(ln(4da₁π²t²/(3δ))))."""
    inner = math.log(4 * d * a1 * math.pi**2 * t**2 / (3 * delta))
    return 2 * math.log(4 * math.pi**2 * t**2 / (3 * delta)) + 2 * d * math.log(t**2 * d * b1 * r * math.sqrt(inner))


@pytest.mark.parametrize("eps, tau_bar", [(0.0, 40.0), (0.03, 17.5)])
def test_beta_and_the_bound_against_an_independent_reference(eps, tau_bar):
    """β_t, its split, L_t, ϑ_t, ȳ and the bound (A) recomputed by hand from the paper's formulas (eqs. 12–13)."""
    th = theory.get("et_gp_ucb_compact")
    T, delta, s2, d, r = 40.0, 0.2, 0.02, 2.0, 1.5
    a0, b0, a1, b1, g = 7.3, 2.9, 11.0, 14.0, 9.5
    v = dict(T=T, delta=delta, R=math.sqrt(s2), d=d, r=r, log_a0=math.log(a0), b0=b0, log_a1=math.log(a1), b1=b1,
             eps=eps, tau_bar=tau_bar, gamma_tau_bar=g)
    for t in (1.0, 7.0, 40.0):
        beta = _beta_ref(t, d, r, delta, a1, b1)
        assert th.schedule_values("beta_t", t, v) == pytest.approx(beta, rel=1e-12)
        conf = 2 * math.log(4 * math.pi**2 * t**2 / (3 * delta))
        assert th.schedule_values("beta_confidence_t", t, v) == pytest.approx(conf, rel=1e-12)
        assert th.schedule_values("beta_discretisation_t", t, v) == pytest.approx(beta - conf, rel=1e-12)
        L = b1 * math.sqrt(math.log(4 * d * a1 * math.pi**2 * t**2 / (3 * delta)))
        assert th.schedule_values("lipschitz_L_t", t, v) == pytest.approx(L, rel=1e-12)
        # L_t · rd/ϑ_t = 1/t² (the discretisation's 1/t²) and n_t = ⌈ϑ_t/2⌉ cell centres per side
        vt = float(th.schedule_values("tau_t", t, v))
        assert L * r * d / vt == pytest.approx(1 / t**2, rel=1e-12)
        assert th.schedule_values("grid_n_t", t, v) == math.ceil(vt / 2)
        ybar = (b0 + math.sqrt(2 * s2)) * math.sqrt(math.log(8 * (a0 + 1) * (math.pi**2 * t**2 / 6) / delta))
        assert th.schedule_values("ybar_t", t, v) == pytest.approx(ybar, rel=1e-12)
    bT = _beta_ref(T, d, r, delta, a1, b1)
    C1 = 8 / math.log(1 + 1 / s2)
    gg = 1 - (1 - eps) ** (tau_bar / 2)
    ybar_tau = (b0 + math.sqrt(2 * s2)) * math.sqrt(math.log(4 * (a0 + 1) * math.pi**2 * tau_bar**2 / (3 * delta)))
    phi = (2 * math.sqrt(bT * (3 / s2 + 1 / s2**2) * tau_bar**2 * gg)
           + 2 * (1 / s2 + 1 / s2**2) * tau_bar**2 * gg * ybar_tau)
    info = math.sqrt(C1 * T * bT * (T / tau_bar + 1) * g)
    out = th.evaluate(v)
    assert out["terms"]["discretisation"] == 2
    assert float(out["terms"]["information"]) == pytest.approx(info, rel=1e-12)
    assert float(out["terms"]["mismatch"]) == pytest.approx(T * phi, rel=1e-12, abs=1e-12)
    assert float(out["value"]) == pytest.approx(info + 2 + T * phi, rel=1e-12)
    if eps == 0.0:
        assert float(out["terms"]["mismatch"]) == 0.0
    else:  # the paper's mismatch term: vacuous by orders of magnitude (spec §3.10)
        assert T * phi > 1e5


# --------------------------------------------------------------------------------- Assumption 3 on the box
def test_assumption3_tails_against_monte_carlo():
    """P(sup|f| > L) ≤ a₀e^{−(L/b₀)²} and P(sup|f'| > L) ≤ a₁e^{−(L/b₁)²} on [0, 1] (SE ℓ = 0.2), and the proven
    means m ≥ E sup, against 2000 paths whose sups are overestimated (grid max + half a cell × a proven bound on
    the next derivative): a constant that were too small would fail here."""
    box = Box(1, 0.0, 1.0)
    sc = box_scenario("mc", lengthscale=0.2)
    c = assumption3_box(sc)
    feats = QuadratureFeatures.se(0.2, box, tol=1e-12)
    rng = np.random.default_rng(7)
    p = FeaturePaths(feats, rng.standard_normal((2000, feats.n_features)))
    n = 200
    xs = (np.arange(n) + 0.5) / n  # cell centres: every x within h/2 of one
    K = feats.weights.size
    W = p.weights
    amp = np.sqrt(W[:, :K] ** 2 + W[:, K:] ** 2) * feats.sqrt_weights  # √w_k √(u_k² + v_k²)
    om = np.abs(feats.frequencies[:, 0])
    f = p.values(np.broadcast_to(xs[None, :, None], (2000, n, 1)))
    sup0 = np.abs(f).max(axis=1) + 0.5 / n * (amp @ om)  # |f'| ≤ Σ√w|ω|√(u²+v²)
    phi_d = feats.phi_grad(xs[:, None])[:, :, 0]  # (n, F)
    fd = W @ phi_d.T
    sup1 = np.abs(fd).max(axis=1) + 0.5 / n * (amp @ om**2)  # |f''| ≤ Σ√w ω²√(u²+v²)
    v, g = feats.value_tails(), feats.derivative_tails()
    assert sup0.mean() <= v.mean_bound and sup1.mean() <= g.mean_bound
    for sup, la, b in ((sup0, c["log_a0"], c["b0"]), (sup1, c["log_a1"], c["b1"])):
        for q in (0.5, 0.9, 0.99):
            L = float(np.quantile(sup, q))
            tail = (sup > L).mean()
            assert tail <= math.exp(la - (L / b) ** 2) + 3 * math.sqrt(tail * (1 - tail) / sup.size) + 1e-9
    assert c["b0"] == pytest.approx(2 * math.sqrt(2), rel=1e-9) and c["b1"] == pytest.approx(2 * math.sqrt(2) / 0.2)


# --------------------------------------------------------------------------------- the study
def test_default_scenario_holds_without_false_alarms():
    """The correct algorithm: no claim violated, β_T's discretisation part reported, the bound's three terms."""
    s = run_check("et_gp_ucb_compact", runs=12, horizon=10, seed=3)
    assert s["in_theory"], s["out_of_theory_reasons"]
    assert "violated" not in _verdicts(s).values(), format_claims(s)
    at_T = s["bound"]["schedules_at_T"]
    assert at_T["beta_t"] == pytest.approx(at_T["beta_confidence_t"] + at_T["beta_discretisation_t"])


def test_recomputed_blocks_keep_the_triggering_point():
    """A jump in the data triggers a reset; the next data set is exactly the triggering point."""
    X = np.linspace(0.1, 0.9, 8)[:, None]
    y = np.array([0.0, 0.1, 0.0, 5.0, 5.1, 5.0, 4.9, 5.0])
    rho = 2 * np.log(math.pi**2 * np.maximum(np.arange(9), 1) ** 2 / (3 * 0.1))
    rc = recompute_blocks(X, y, X[:, None, :], 0.5, 0.02, rho)
    assert rc["reset"][3] and not rc["reset"][:3].any()
    assert rc["n_data"][4] == 1 and rc["start"][4] == 3 and rc["t_prime"][4] == 1
    assert list(rc["n_data"][:4]) == [0, 1, 2, 3]


def test_pilot_runs_do_not_depend_on_their_batch():
    """E[τ]'s pilot: each run's first trigger is the same drawn in a batch of 3 or one by one."""
    sc = replace(box_scenario("p", lengthscale=0.3, noise=math.sqrt(0.02), horizon=4, eps=0.3, sobol=16, starts=1),
                 horizon=4)
    th = theory.get("et_gp_ucb_compact")
    t = np.arange(5.0)
    t[0] = 1.0
    v = {"delta": 0.2, "d": 1.0, "r": 1.0, **assumption3_box(sc)}
    w = np.asarray(th.schedule_values("width_t", t, {k: v.get(k, 0.0) for k in th.symbols}), dtype=float)
    together = pilot_first_stop_box(sc, w, runs=3, chunk=3)
    alone = pilot_first_stop_box(sc, w, runs=3, chunk=1)
    assert np.array_equal(together, alone)


def test_a_drifting_chain_is_reported_vacuous():
    """ε > 0: the mismatch term Tφ_T makes the bound vacuous, and the report says so (outside the verdict)."""
    spec = api.build_study("et_gp_ucb_compact", "et_box_line_eps003", runs=2, horizon=4, seed=0)
    fam = spec.family
    fam.pilot_runs = 4
    inst = fam.instantiate(spec.scenario, 4, spec.delta)
    assert inst.bound_terms["mismatch"] > 1e3 * inst.bound_terms["information"]
    why = fam.vacuous_claims(spec.scenario, inst)
    assert "regret_bound" in why and "vacuous" in why["regret_bound"]


# --------------------------------------------------------------------------------- planted defects
# β too small, the trigger threshold halved, a dropped observation, the wrong prior lengthscale, the truth amplified
@pytest.mark.parametrize("defect, claim", ET_GP_UCB_COMPACT_CATCHES)
def test_each_planted_defect_is_caught(defect, claim):
    s = run_check("et_gp_ucb_compact", runs=8, horizon=10, seed=1, defects=[defect])
    assert _verdicts(s)[claim] == "violated", format_claims(s)


def test_claims_of_a_run_do_not_depend_on_its_batch():
    """Every per-run statistic (the recomputed blocks, the TV posterior, each claim) is the same whether the run is
    evaluated with others or alone, to 1e-12."""
    from boundcheck.study.continuum import simulate_box

    spec = api.build_study("et_gp_ucb_compact", runs=3, horizon=6, seed=2)
    fam, sc = spec.family, spec.scenario
    inst = fam.instantiate(sc, spec.horizon, spec.delta)
    together, _ = fam.evaluate(simulate_box(sc, spec.policies, [0, 1, 2], spec.seed, inst), sc, inst, spec.seed)
    for r in range(3):
        alone, _ = fam.evaluate(simulate_box(sc, spec.policies, [r], spec.seed, inst), sc, inst, spec.seed)
        a, b = alone.iloc[0], together[together["run"] == r].iloc[0]
        for col in alone.columns:
            if np.issubdtype(np.asarray(alone[col]).dtype, np.number):
                assert float(a[col]) == pytest.approx(float(b[col]), rel=1e-12, abs=1e-12, nan_ok=True), col
            else:
                assert a[col] == b[col], col


def test_a_truth_outside_the_chain_breaks_the_assumption():
    """box_eps_chain_truth: the default chain meets it; an amplified truth, a rougher one and an RKHS function do
    not (the study is then outside the theorem, with the reason)."""
    from boundcheck.world.box_scenario import rescaled_truth

    th = theory.get("et_gp_ucb_compact")
    sc = box_scenario("ok", lengthscale=0.2, noise=math.sqrt(0.02), eps=0.03)
    assert api.applicability(th, sc) == []
    for bad, fragment in ((rescaled_truth(box_scenario("amp", lengthscale=0.2), amplitude=5.0), "5 × a draw"),
                          (rescaled_truth(box_scenario("rough", lengthscale=0.2), lengthscale_factor=0.5),
                           "lengthscale 0.1"),
                          (box_scenario("rkhs", lengthscale=0.2, rkhs_norm=3.0, B=3.0), "RKHS")):
        reasons = api.applicability(th, bad)
        assert any(fragment in r for r in reasons), reasons
