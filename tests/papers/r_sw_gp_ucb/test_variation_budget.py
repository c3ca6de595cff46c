"""Drifting functions with a variation budget: R-GP-UCB and SW-GP-UCB (Zhou & Shroff 2021, paper 003).

The window posterior against recomputation (10 000 window shifts), the exact-norm / exact-budget sequences, the
noise laws, the explicit bounds against hand computation, Claim 1 in an explicit feature model, small seeded
verifications (defaults hold; every claim caught by a planted defect), and bad input."""

from dataclasses import replace

import numpy as np
import pytest
from planted_catches import R_SW_GP_UCB_CATCHES

import theory
from boundcheck.api import build_study
from boundcheck.claims.budget import PerClaimBudget
from boundcheck.claims.table import judge
from boundcheck.cli import main
from boundcheck.errors import BoundcheckError, NotApplicable
from boundcheck.model.dataspace import make_posterior
from boundcheck.model.kernels import RBF
from boundcheck.model.noise import draw_noise, parse_noise_law
from boundcheck.model.priors import GPPrior, clipped_root
from boundcheck.model.variation import VariationBudgetSequence
from boundcheck.model.window_posterior import WindowPosterior, exact_window_posterior
from boundcheck.papers.r_sw_gp_ucb.restart_gp_ucb import RestartGPUCB
from boundcheck.papers.r_sw_gp_ucb.sw_gp_ucb import SlidingWindowGPUCB
from boundcheck.policies import PolicySpec
from boundcheck.study.runner import run_chunk
from boundcheck.testing import check_policy, format_claims, run_check
from boundcheck.world import get_scenario

NEW = ("r_gp_ucb", "sw_gp_ucb")


def claim(summary, cid):
    return next(c for c in summary["claims"] if c["id"] == cid)


def _kernel(n=30, seed=0):
    x = np.sort(np.random.default_rng(seed).uniform(0, 1, n))[:, None]
    return RBF(0.2).gram(x)


# ------------------------------------------------------------------------------------ window posterior
def test_window_posterior_agrees_with_recomputation_over_10000_shifts():
    rng = np.random.default_rng(0)
    K = _kernel()
    prior = GPPrior("p", 0.1 * rng.normal(size=len(K)), K)
    m, w, lam = 3, 12, 1.0
    wp = WindowPosterior(prior, lam, m, capacity=2)  # grows as needed
    X, Y = [], []
    worst = 0.0
    for _ in range(10_000 + w):
        x, y = rng.integers(0, len(K), m), rng.normal(size=m)
        wp.condition(x, y)
        X.append(x)
        Y.append(y)
        if wp.n_obs[0] > w:
            wp.drop_oldest()
            X.pop(0)
            Y.pop(0)
            mu, s2 = exact_window_posterior(K, prior.mean, np.array(X).T, np.array(Y).T, lam)
            worst = max(worst, np.abs(mu - wp.mu).max(), np.abs(s2 - wp.s2).max())
    assert worst < 1e-9, worst
    # the factor itself, the log det and a covariance column
    Xr = np.array(X).T[1]
    A = K[np.ix_(Xr, Xr)] + lam * np.eye(w)
    np.testing.assert_allclose(wp.L[1, :w, :w], np.linalg.cholesky(A), atol=1e-12)
    assert wp.log_det()[1] == pytest.approx(0.5 * np.linalg.slogdet(A / lam)[1], abs=1e-12)
    S = K - K[:, Xr] @ np.linalg.solve(A, K[Xr])
    np.testing.assert_allclose(wp.cov_column(np.array([0, 5, 7]))[1], S[:, 5], atol=1e-12)


def test_window_posterior_per_run_lengths_targets_and_reset():
    rng = np.random.default_rng(1)
    K = _kernel(20)
    wp = WindowPosterior(GPPrior("p", np.zeros(20), K), 0.5, 3, capacity=2, targets=2)
    z = rng.normal(size=(6, 3, 2))
    for i in range(4):
        wp.condition(np.array([i, i + 1, i + 2]), np.full(3, 0.1 * i), targets=z[i])
    wp.condition(np.array([9, 9, 9]), np.ones(3), runs=np.array([True, False, False]), targets=z[4])
    wp.drop_oldest(runs=np.array([0, 1]))
    wp.reset(runs=np.array([False, False, True]))
    assert wp.n_obs.tolist() == [4, 3, 0]
    for r, (X, Z) in enumerate([([1, 2, 3, 9], [z[1, 0], z[2, 0], z[3, 0], z[4, 0]]),
                                ([2, 3, 4], [z[1, 1], z[2, 1], z[3, 1]])]):
        A = K[np.ix_(X, X)] + 0.5 * np.eye(len(X))
        np.testing.assert_allclose(wp.target_means()[r], K[:, X] @ np.linalg.solve(A, np.array(Z)), atol=1e-12)
    assert np.allclose(wp.mu[2], 0.0) and np.allclose(wp.s2[2], np.diag(K))


def test_append_only_window_keeps_only_the_diagonal_and_agrees():
    rng = np.random.default_rng(3)
    K = _kernel(15)
    prior = GPPrior("p", np.zeros(15), K)
    full, diag = (WindowPosterior(prior, 1.0, 2, capacity=2, droppable=d) for d in (True, False))
    for i in range(9):
        x, y = rng.integers(0, 15, 2), rng.normal(size=2)
        for wp in (full, diag):
            wp.condition(x, y)
            if i == 4:
                wp.reset(runs=np.array([True, False]))
    for f in ("mu", "s2"):
        np.testing.assert_allclose(getattr(full, f), getattr(diag, f), atol=1e-14)
    np.testing.assert_allclose(full.log_det(), diag.log_det(), atol=1e-14)
    np.testing.assert_allclose(full.chain_var(), diag.chain_var(), atol=1e-14)
    with pytest.raises(BoundcheckError):
        diag.drop_oldest()


def test_claim1_in_an_explicit_feature_model():
    """Mercer (Theorem 3): with explicit features φ (K = ΦΦᵀ on D): λφᵀV⁻¹φ = σ², ln det Ṽ = ln det(I + K/λ), and
    Claim 2's step ‖V⁻¹Σ_{s≤p}φ_sφ_sᵀ‖ ≤ λ⁻¹Σ_{s≤p}σ̃_{s−1}(x_s) (operator norm)."""
    rng = np.random.default_rng(2)
    K = _kernel(25)
    Phi = clipped_root(K)  # (n, r), ΦΦᵀ = K
    lam, X = 1.3, rng.integers(0, 25, 9)
    V = Phi[X].T @ Phi[X] + lam * np.eye(Phi.shape[1])
    wp = WindowPosterior(GPPrior("p", np.zeros(25), K), lam, 1)
    for x in X:
        wp.condition(np.array([x]), np.zeros(1))
    np.testing.assert_allclose(lam * np.einsum("ni,ij,nj->n", Phi, np.linalg.inv(V), Phi), wp.s2[0], atol=1e-10)
    assert np.linalg.slogdet(V / lam)[1] == pytest.approx(2 * wp.log_det()[0], abs=1e-9)
    sig = np.sqrt(wp.chain_var()[0, : len(X)])
    for p in range(len(X)):
        op = np.linalg.norm(np.linalg.solve(V, Phi[X[: p + 1]].T @ Phi[X[: p + 1]]), 2)
        assert op <= sig[: p + 1].sum() / lam + 1e-12


# ------------------------------------------------------------------------------------ sequences and noise
@pytest.mark.parametrize("kind", ["rotation", "switch", "random_walk"])
def test_sequences_have_exact_norms_and_budgets(kind):
    K = _kernel(40)
    seq = VariationBudgetSequence("s", K, kind, 2.0, 3.0, 60, anchors=np.arange(0, 40, 5))
    sampler = seq.make_sampler()
    rngs = [np.random.default_rng(i) for i in range(4)]
    fs = [sampler.start(rngs)] + [sampler.step(rngs) for _ in range(59)]
    info = sampler.info
    # ‖f_t‖²_k = αᵀK_Zα computed independently from the anchors' coefficients
    Z = seq.anchors
    s, U = np.linalg.eigh(K[np.ix_(Z, Z)])
    alpha = info["theta"] @ (U / np.sqrt(s)).T  # α_t = U s^{−1/2} θ_t
    np.testing.assert_allclose(np.stack(fs, axis=1), alpha @ K[Z], atol=1e-10)  # f_t = Σα_i k(z_i, ·) on D
    norms = np.sqrt(np.einsum("mti,ij,mtj->mt", alpha, K[np.ix_(Z, Z)], alpha))
    steps = np.sqrt(np.einsum("mti,ij,mtj->mt", np.diff(alpha, axis=1), K[np.ix_(Z, Z)], np.diff(alpha, axis=1)))
    np.testing.assert_allclose(steps.sum(axis=1), info["budget"], rtol=1e-9)
    assert np.all(norms <= 2.0 * (1 + 1e-9)) and np.allclose(info["max_norm"], norms.max(axis=1))
    if kind == "random_walk":
        assert np.all(info["budget"] <= 3.0 + 1e-12)
    else:
        np.testing.assert_allclose(norms, 2.0, rtol=1e-9)
        np.testing.assert_allclose(info["budget"], 3.0, rtol=1e-9)  # P_T set exactly
    if kind == "switch":
        assert np.count_nonzero(steps[0] > 1e-9) == seq.n_switches == 1


def test_sequence_bad_input_is_one_line_error():
    K = _kernel(10)
    for kw, msg in [({"B": 0.0}, "positive"), ({"P_T": -1.0}, "non-negative"), ({"P_T": 100.0}, "2B")]:
        args = {"B": 1.0, "P_T": 1.0, **kw}
        with pytest.raises(BoundcheckError, match=msg):
            VariationBudgetSequence("s", K, "rotation", args["B"], args["P_T"], 20)


def test_noise_laws():
    rngs = [np.random.default_rng(i) for i in range(3)]
    again = [np.random.default_rng(i) for i in range(3)]
    ref = 0.2 * np.stack([g.standard_normal(4) for g in again])
    assert np.array_equal(draw_noise("gaussian", 0.2, rngs, 4), ref)  # the engine's historical draw, bit for bit
    rad = draw_noise("rademacher", 0.2, rngs, 1000)
    assert set(np.unique(rad).tolist()) == {-0.2, 0.2} and abs(rad.mean()) < 0.03
    assert parse_noise_law("gaussian:3") == ("gaussian", 3.0)
    for bad in ("cauchy", "gaussian:x", "gaussian:-1"):
        with pytest.raises(BoundcheckError):
            parse_noise_law(bad)
    rep = get_scenario("vb_noise_exceeds").assumption_report()
    assert not rep["noise_sub_gaussian"][0]
    assert get_scenario("vb_rademacher").assumption_report()["noise_sub_gaussian"][0]


# ------------------------------------------------------------------------------------ theory
def test_bounds_match_hand_computation_and_literal_is_smaller():
    v = {"T": 1000, "delta": 0.1, "R": 0.1, "B": 1.0, "P_T": 5.0, "lam": 1.0}
    H, g = 28, 6.0
    c = 1 / np.log(2.0)
    NB = int(np.ceil(1000 / H))
    S = (NB - 1) * np.sqrt(H) + np.sqrt(1000 - (NB - 1) * H)
    beta = 1.0 + 0.1 * np.sqrt(2 * g + 2 * np.log(NB / 0.1))
    want = 2 * np.sqrt(2 * c * H * g) * (H - 1) * 5.0 + 2 * beta * np.sqrt(2 * c * g) * S
    got = theory.get("r_gp_ucb").evaluate({**v, "H": H, "gamma_H": g})
    assert float(got["value"]) == pytest.approx(want, rel=1e-12)
    lit = theory.get("r_gp_ucb_literal").evaluate({**v, "H": H, "gamma_H": g})
    b1 = 1.0 + 0.1 * np.sqrt(2 * g + 2 * np.log(10.0))
    assert float(lit["value"]) == pytest.approx(2 * H**1.5 * 5 * np.sqrt(g) + b1 * 1000 / H * np.sqrt(4 * (H + 2) * g))
    assert float(lit["value"]) < float(got["value"])  # the printed constants are smaller than the restored ones
    sw = theory.get("sw_gp_ucb").evaluate({**v, "w": H, "gamma_w": g})
    bsw = 1.0 + 0.1 * np.sqrt(2 * g + 2 * np.log(1000 / 0.1))
    assert float(sw["value"]) == pytest.approx(2 * np.sqrt(2 * c * H * g) * H * 5 + 2 * bsw * np.sqrt(2 * c * g) * S)
    assert float(theory.get("sw_gp_ucb_literal").evaluate({**v, "w": H, "gamma_w": g})["value"]) < float(sw["value"])


def test_report_compares_paper_literal_and_restored_constants():
    from boundcheck.report.literal import literal_comparison

    v = {"T": 1000, "delta": 0.1, "R": 0.1, "B": 1.0, "P_T": 5.0, "lam": 1.0, "w": 28, "gamma_w": 6.0}
    for tid in ("sw_gp_ucb", "sw_gp_ucb_literal"):
        cmp = literal_comparison(theory.get(tid), v)
        assert cmp["restored"] == "sw_gp_ucb" and cmp["literal"] == "sw_gp_ucb_literal"
        assert all(lit < rest for _, rest, lit in cmp["rows"]) and cmp["total"][1] < cmp["total"][0]
    assert literal_comparison(theory.get("igp_ucb"), {"T": 10}) is None


@pytest.mark.parametrize("bad, msg", [("H=0", "integer ≥ 1"), ("H=2000", "H <= T"), ("lam=0", "> 0"),
                                      ("lam=-1", "> 0"), ("B=-1", "> 0"), ("P_T=-2", "≥ 0"),
                                      ("H=2.5", "integer")])
def test_cli_bad_input_exit_2(bad, msg, capsys):
    base = {"T": "1000", "delta": "0.1", "R": "0.1", "B": "1", "P_T": "5", "H": "28", "lam": "1", "gamma_H": "6"}
    k, val = bad.split("=")
    base[k] = val
    rc = main(["bound", "r_gp_ucb", *[f"--set={a}={b}" for a, b in base.items()]])
    err = capsys.readouterr().err
    assert rc == 2 and msg in err and err.count("\n") == 1


def test_scenario_and_policy_bad_input():
    sc = get_scenario("vb_rotation", horizon=50)
    for kw in ({"window": 0}, {"window": 51}, {"B": 0.0}, {"P_T": -1.0}, {"noise_law": "laplace"}):
        with pytest.raises(BoundcheckError):
            replace(sc, **kw)
    with pytest.raises(BoundcheckError):
        RestartGPUCB(H=0)
    with pytest.raises(BoundcheckError):
        run_check("r_gp_ucb", scenario=replace(sc, window=40, window_rule=""), horizon=30, runs=2)  # H > T
    with pytest.raises(BoundcheckError, match="vb_"):
        build_study("r_gp_ucb", "rkhs_paper", runs=2).family.instantiate(get_scenario("rkhs_paper"), 20, 0.1)


# ------------------------------------------------------------------------------------ end to end
@pytest.mark.parametrize("theorem", NEW)
def test_default_scenario_in_theory_no_claim_violated(theorem):
    s = run_check(theorem, runs=16, horizon=120, seed=1)
    assert s["in_theory"], s["out_of_theory_reasons"]
    assert all(c["verdict"] != "violated" for c in s["claims"]), format_claims(s)
    assert all(c["verdict"] == "holds" for c in s["claims"] if c["kind"] == "deterministic"), format_claims(s)
    assert claim(s, "regret_bound")["violations"] == 0 and 0 < s["tightness"]["max"] < 1
    assert s["regret"]["random"]["mean"] > s["regret"][s["main_algorithm"]]["mean"]


def _chunk(theorem, scenario, runs, horizon, seed, *, policies=None, beta_scale=1.0, inst_changes=None,
           extra_changes=None):
    spec = build_study(theorem, scenario, runs=runs, horizon=horizon, seed=seed, policies=policies,
                       beta_scale=beta_scale)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    if extra_changes:
        inst = replace(inst, extra={**inst.extra, **extra_changes})
    if inst_changes:
        inst = replace(inst, **inst_changes)
    _, tables, _ = run_chunk(spec, inst, 0, list(range(runs)))
    runs_df = tables["runs"]
    main = runs_df[runs_df["algorithm"] == spec.main].sort_values("run")
    results = {r.id: r for r in judge(spec.family.claims, main, None, PerClaimBudget(), spec.delta)}
    return results, main


def test_abrupt_switch_planted_defects_and_the_paper_literal_lemma2():
    """On abrupt switches with P_T = 25: β × 0.1 and a radius without the drift term ξ·D_t are caught; Lemma 2 as
    printed (coefficient 1 on the drift, no ξ_w) is run on the same runs and reported (a finding about the paper)."""
    ok, main = _chunk("sw_gp_ucb", "vb_switch_p25", 12, 200, 4)
    assert all(r.verdict != "violated" for r in ok.values())
    no_drift, _ = _chunk("sw_gp_ucb", "vb_switch_p25", 12, 200, 4, extra_changes={"xi": 0.0})
    assert no_drift["confidence_event"].verdict == "violated"
    assert no_drift["D4_drift"].verdict == "violated"  # ξ = 0 also breaks the drift bound
    small, _ = _chunk("sw_gp_ucb", "vb_switch_p25", 12, 200, 4, beta_scale=0.1)
    assert small["confidence_event"].verdict == "violated"
    literal, _ = _chunk("sw_gp_ucb_literal", "vb_switch_p25", 12, 200, 4)
    # the finding: the printed Lemma 2 event held on these runs (drift term ≤ D_t), its printed bound too
    assert literal["confidence_event"].violations == 0 and not main["fail_paper_literal_confidence"].any()
    assert (main["max_drift_over_D"] < 1).all()
    literal_small, _ = _chunk("sw_gp_ucb_literal", "vb_switch_p25", 12, 200, 4, beta_scale=0.1)
    assert literal_small["confidence_event"].verdict == "violated"  # the literal event's check is live too
    rb, _ = _chunk("r_gp_ucb", "vb_switch_p25", 12, 200, 4, beta_scale=0.1)
    assert rb["confidence_event"].verdict == "violated" and rb["confidence_event_block"].verdict == "violated"


def test_mechanism_and_information_controls():
    """The regret bounds are live (a bound 1000× too small is exceeded), a γ̄ too small breaks D2, a ξ too small D4."""
    spec = build_study("r_gp_ucb", "vb_rotation_p25", runs=6, horizon=80, seed=6)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    res, _ = _chunk("r_gp_ucb", "vb_rotation_p25", 6, 80, 6,
                    inst_changes={"bound_T": inst.bound_T * 1e-3, "anytime": inst.anytime * 1e-3,
                                  "gamma_upper": inst.gamma_upper * 0.2},
                    extra_changes={"xi": inst.extra["xi"] * 0.01})
    for cid in ("regret_bound", "regret_bound_anytime", "D2_information", "D4_drift"):
        assert res[cid].verdict == "violated", cid


def test_noise_exceeding_R_violates_self_normalized():
    s = run_check("r_gp_ucb", scenario="vb_noise_exceeds", runs=12, horizon=100, seed=7, allow_out_of_theory=True)
    assert not s["in_theory"] and claim(s, "self_normalized")["verdict"] == "violated", format_claims(s)


def test_budget_exceeding_P_T_is_out_of_theory_even_when_the_scenario_claims_otherwise():
    sc = get_scenario("vb_budget_exceeds", horizon=40)
    ok, how = sc.assumption_report()["variation_budget_within"]
    assert not ok and "exceeds" in how
    liar = replace(sc, in_theory=True, out_of_theory_reason="")
    with pytest.raises(NotApplicable, match="variation budget"):  # refused by default: nothing simulated
        run_check("sw_gp_ucb", scenario=liar, runs=3, horizon=40, seed=8)
    s = run_check("sw_gp_ucb", scenario=liar, runs=3, horizon=40, seed=8, allow_out_of_theory=True)
    assert not s["in_theory"] and any("variation budget" in r for r in s["out_of_theory_reasons"])


class NoDrop(SlidingWindowGPUCB):
    """Planted bug: keeps w + 1 samples (the pseudocode's 1∨(t−w)..t read literally, ZS14)."""

    def start(self, ctx):
        super().start(ctx)
        self.posterior = make_posterior(ctx.candidates[:1], ctx.noise_var, ctx.runs, window=self.window + 1)


class LateRestart(RestartGPUCB):
    """Planted bug: restarts one round late (t mod H = 1 read as the start of round t + 1)."""

    def update(self, t, action, y):
        self.posterior.condition_batch(action, y)
        if t % self.window == 1:
            self.posterior.reset()


class MinimisesTheUCB(RestartGPUCB):
    """Planted bug: records the theorem's β_t but acts on the wrong rule (argmin of the UCB: a sign error)."""

    def select(self, t, available):
        x = super().select(t, available)
        mu, sd, r = self.posterior.mean()[:, 0], self.posterior.sd()[:, 0], np.arange(self.ctx.runs)
        ucb = mu + self.beta[t] * sd
        x = np.argmin(ucb, axis=1)
        self.record.update(mu=mu[r, x], sigma=sd[r, x], ucb=ucb[r, x])
        return x[:, None]


@pytest.mark.parametrize("theorem, cls, cid, scenario", [
    ("sw_gp_ucb", NoDrop, "D1_posterior", "vb_rotation"),
    ("r_gp_ucb", LateRestart, "D1_posterior", "vb_rotation"),
    ("r_gp_ucb", MinimisesTheUCB, "D5_regret_step", "vb_rotation_p0"),
])
def test_deterministic_claims_catch_planted_policy_bugs(theorem, cls, cid, scenario):
    name = theory.get(theorem).algorithm
    res, _ = _chunk(theorem, scenario, 6, 60, 9, policies=[PolicySpec(name, cls, {}), "random"])
    assert res[cid].verdict == "violated", {k: r.verdict for k, r in res.items()}


class HalfFeatures(VariationBudgetSequence):
    """Planted construction bug: features scaled by 5 (not RKHS-isometric), so ‖θ‖ understates ‖f‖_k."""

    @property
    def features(self):
        return 5.0 * super().features


def test_bias_bound_catches_a_truth_whose_norm_is_understated():
    sc = get_scenario("vb_rotation_p0", horizon=60)
    t = sc.truth
    bad = HalfFeatures(t.name, t.K, t.kind, t.B, t.P_T, t.horizon, anchors=t.anchors)
    res, _ = _chunk("r_gp_ucb", replace(sc, truth=bad), 6, 60, 10)
    assert res["D3_bias_noise"].verdict == "violated"


@pytest.mark.parametrize("name", ["r_gp_ucb_zs", "sw_gp_ucb"])
def test_new_policies_pass_check_policy(name):
    check_policy(name)


# ------------------------------------------------------------------------------------ paper 003's library defects
LIB_CASES = [(th, d, cs) for th, rows in R_SW_GP_UCB_CATCHES.items() for d, cs in rows]


@pytest.mark.parametrize("theorem, defect, claims", LIB_CASES, ids=[f"{c[0]}-{c[1]}" for c in LIB_CASES])
def test_library_defects_are_caught(theorem, defect, claims):
    s = run_check(theorem, runs=12, horizon=100, seed=3, policies=[theory.get(theorem).algorithm],
                  defects=[defect])
    assert not s["in_theory"] and any(defect in r for r in s["out_of_theory_reasons"])
    missed = [c for c in claims if claim(s, c)["verdict"] != "violated"]
    assert not missed, f"{defect} not caught by {missed}\n{format_claims(s)}"


def test_library_defects_apply_where_declared_and_leave_the_told_values():
    from boundcheck.claims.defects import defects_for, get_defect

    assert {"restart_late", "norm_understated"} <= {d.name for d in defects_for("r_gp_ucb")}
    assert {"window_off_by_one", "norm_understated"} <= {d.name for d in defects_for("sw_gp_ucb")}
    assert "window_off_by_one" not in {d.name for d in defects_for("r_gp_ucb")}
    assert not {"restart_late", "norm_understated"} & {d.name for d in defects_for("r_gp_ucb_literal")}
    sc = get_scenario("vb_rotation", horizon=50)
    bad = get_defect("norm_understated").scenario(sc)
    # the world's f_t has norm 3B; what the algorithms and the theorem are told (B, P_T, the window) is unchanged
    assert bad.truth.max_norm == 3 * sc.truth.max_norm and bad.B == sc.B
    assert bad.declared_budget() == sc.declared_budget() and bad.window == sc.window
    with pytest.raises(BoundcheckError, match="vb_"):
        get_defect("norm_understated").scenario(get_scenario("rkhs_paper"))


@pytest.mark.parametrize("theorem", NEW)
def test_bias_noise_and_drift_are_identities(theorem):
    """D3 and D4 hold on the replay for any choices (no defect of the checked algorithm can move them): sanity
    identities, outside the verdict; they still catch a wrong truth or ξ (tests above)."""
    fam = build_study(theorem, runs=2, horizon=20).family
    kinds = {c.id: c.kind for c in fam.claims}
    assert kinds["D3_bias_noise"] == kinds["D4_drift"] == "identity"
    assert kinds["D1_posterior"] == kinds["D2_information"] == "deterministic"
