"""The verdict layer: one p-value per claim, one false-alarm budget (Holm), the omnibus calibration
test, anytime-valid tests, each against an independent computation or a Monte Carlo of its null."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import theory
from boundcheck.claims.budget import HolmBudget, holm_adjusted, holm_shares
from boundcheck.claims.stats import (
    _mixture_cs,
    _mixture_pvalue,
    anderson_darling_normal,
    binomial_pvalue,
    calibration_pvalue,
    calibration_verdict,
    clopper_pearson,
    detectable_rate,
    deterministic_verdict,
    expectation_evidence,
    ljung_box,
    probability_evidence,
    probability_verdict,
    theorem_verdict,
)
from boundcheck.claims.table import ClaimSpec, judge


def test_clopper_pearson_known_values():
    lo, hi = clopper_pearson(0, 200)
    assert lo == 0 and hi == pytest.approx(1 - 0.025 ** (1 / 200), rel=1e-9)
    lo, hi = clopper_pearson(5, 10)
    assert lo == pytest.approx(0.187086, abs=1e-5) and hi == pytest.approx(0.812914, abs=1e-5)


def test_binomial_pvalue_is_the_exact_tail_and_dual_to_the_interval():
    # P(Bin(20, 0.1) ≥ 5) summed term by term
    direct = sum(math.comb(20, j) * 0.1**j * 0.9 ** (20 - j) for j in range(5, 21))
    assert binomial_pvalue(5, 20, 0.1) == pytest.approx(direct, rel=1e-12)
    assert binomial_pvalue(0, 20, 0.1) == 1.0
    # duality: the one-sided lower bound at 1 − a exceeds α exactly when p ≤ a
    for k in range(0, 21):
        p = binomial_pvalue(k, 20, 0.1)
        for a in (0.001, 0.01, 0.05):
            lo = clopper_pearson(k, 20, 2 * a)[0]
            assert (lo > 0.1) == (p <= a), (k, a)


def test_probability_verdicts_can_say_all_three():
    assert probability_verdict("c", "probability", np.zeros(200, bool), 0.05).verdict == "holds"
    assert probability_verdict("c", "probability", np.ones(200, bool), 0.05).verdict == "violated"
    r = probability_verdict("c", "probability", np.zeros(20, bool), 0.05)
    assert r.verdict == "inconclusive" and r.details["runs_needed"] >= 40


def test_deterministic_and_theorem_verdict():
    ok = deterministic_verdict("d", np.zeros(10, bool))
    bad = deterministic_verdict("d", np.eye(10, dtype=bool)[3])
    assert ok.verdict == "holds" and bad.verdict == "violated"
    assert bad.details["first_counterexample_run"] == 3
    assert theorem_verdict([ok, bad]) == "violated"
    assert theorem_verdict([ok]) == "holds"
    broken_identity = deterministic_verdict("s", np.ones(10, bool), kind="identity")
    assert theorem_verdict([ok, broken_identity]) == "holds"  # identities stay outside the verdict


# ------------------------------------------------------------------------------------------- Holm
def test_holm_adjusted_and_shares_against_the_step_down_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # by hand: sorted 0.005, 0.01, 0.03, 0.04 → 4·0.005, 3·0.01, 2·0.03, 1·0.04, running max
    np.testing.assert_allclose(holm_adjusted(p), [0.03, 0.06, 0.06, 0.02])
    A = 0.05
    sh = holm_shares(p, A)
    np.testing.assert_allclose(sh, [A / 3, A * 0.04 / 0.06, A / 2, A / 4])
    assert np.array_equal(p <= sh, holm_adjusted(p) <= A)
    rng = np.random.default_rng(3)
    for _ in range(500):
        q = rng.random(rng.integers(1, 9)) ** 3
        al = HolmBudget(0.02).allocate(q)
        assert np.array_equal(al.rejected, q <= al.shares)
        assert np.all(al.shares >= 0.02 / q.size - 1e-15) and np.all(al.shares <= 0.02 + 1e-15)


def test_budget_outside_unit_interval_is_refused():
    from boundcheck.errors import BoundcheckError

    for bad in (0.0, 1.0, -0.1, 2.0):
        with pytest.raises(BoundcheckError, match="false-alarm"):
            HolmBudget(bad)


def _claims(k_prob: int):
    C = theory.Claim
    return ([ClaimSpec(C(f"p{i}", "probability", "", "", 0.1)) for i in range(k_prob)]
            + [ClaimSpec(C("e", "expectation", "", "", expectation_bound=0.0)),
               ClaimSpec(C("k", "calibration", "", ""), sample="u")])


def test_null_simulation_of_the_verdict_layer_keeps_the_false_alarm_budget():
    """Every claim true and at its boundary (the worst case): the chance that judge() calls any claim violated
    is at most the budget (Monte Carlo, 600 verifies of 6 stochastic claims, budget 0.1; the benchmark
    benchmarks/bench_false_alarms.py runs the same null simulation at 10⁵ verifies and real verifies)."""
    rng = np.random.default_rng(0)
    specs = _claims(4)
    A, reps, n, hits = 0.1, 600, 60, 0
    for _ in range(reps):
        cols = {f"fail_p{i}": rng.random(n) < 0.1 for i in range(4)}
        cols["value_e"] = rng.normal(0.0, 1.0, n)
        u = rng.standard_normal((n, 12))
        res = judge(specs, pd.DataFrame(cols), lambda c, u=u: u, HolmBudget(A), 0.1)
        hits += any(r.verdict == "violated" for r in res)
    assert hits / reps <= A + 2 * math.sqrt(A * (1 - A) / reps), (hits, reps)  # ≤ A up to Monte Carlo error


def test_judge_reports_p_value_share_and_interval_consistently():
    rng = np.random.default_rng(1)
    specs = _claims(2)
    n = 300
    df = pd.DataFrame({"fail_p0": rng.random(n) < 0.3, "fail_p1": np.zeros(n, bool),
                       "value_e": rng.normal(-1, 1, n)})
    res = {r.id: r for r in judge(specs, df, lambda c: rng.standard_normal((n, 10)), HolmBudget(0.01), 0.1)}
    p0, p1 = res["p0"], res["p1"]
    assert p0.verdict == "violated" and p0.ci_low > 0.1 and p0.p_value <= p0.budget_share
    assert p1.verdict == "holds" and p1.ci_high <= 0.1
    assert res["e"].verdict == "holds" and res["k"].verdict == "holds"
    for r in res.values():
        assert r.test_size == pytest.approx(2 * r.budget_share) or r.kind == "calibration"
    # the interval is the two-sided Clopper–Pearson at 1 − 2·share, computed independently
    lo, hi = clopper_pearson(int(df.fail_p0.sum()), n, 2 * p0.budget_share)
    assert (p0.ci_low, p0.ci_high) == pytest.approx((lo, hi))


# ------------------------------------------------------------------------------------ calibration
def test_anderson_darling_statistic_and_critical_values():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(50)
    F = np.sort(stats.norm.cdf(x))  # the textbook formula with plain CDFs
    i = np.arange(1, 51)
    a2 = -50 - np.mean((2 * i - 1) * (np.log(F) + np.log(1 - F[::-1])))
    assert anderson_darling_normal(x)[0] == pytest.approx(a2, rel=1e-10)
    # asymptotic critical values of the fully specified case: 10 % 1.933, 5 % 2.492, 1 % 3.857
    from boundcheck.claims.stats import _adinf

    for z, p in ((1.933, 0.10), (2.492, 0.05), (3.857, 0.01)):
        assert 1 - _adinf(z) == pytest.approx(p, abs=1.5e-3)


def test_calibration_pvalue_is_uniform_under_the_null_and_sensitive():
    rng = np.random.default_rng(4)
    ps = np.array([calibration_pvalue([rng.standard_normal((20, 20))])[0] for _ in range(600)])
    assert np.mean(ps <= 0.05) <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 600)
    good = rng.standard_normal((100, 100))
    assert calibration_verdict("k", good).verdict == "holds"
    assert calibration_verdict("k", 1.1 * good).verdict == "violated"  # variance 1.21
    assert calibration_verdict("k", good + 0.1).verdict == "violated"  # mean shift
    ar = good.copy()
    for t in range(1, 100):
        ar[:, t] = 0.2 * ar[:, t - 1] + np.sqrt(1 - 0.04) * good[:, t]
    r = calibration_verdict("k", ar)
    assert r.verdict == "violated" and r.details["component_p_values"]["ljung_box"] < 1e-6
    assert r.details["component_p_values"]["anderson_darling"] > 1e-3  # the marginal law is still N(0, 1)


def test_ljung_box_against_a_direct_loop():
    rng = np.random.default_rng(5)
    u = rng.standard_normal((3, 30))
    u[1, 4] = np.nan
    q, p, h = ljung_box(u, lags=3)
    denom = np.nanmean(u**2)
    Q = 0.0
    for k in range(1, 4):
        pairs = [u[r, t] * u[r, t + k] for r in range(3) for t in range(30 - k)
                 if np.isfinite(u[r, t]) and np.isfinite(u[r, t + k])]
        Q += len(pairs) * (np.mean(pairs) / denom) ** 2
    assert q == pytest.approx(Q, rel=1e-12) and p == pytest.approx(stats.chi2.sf(Q, 3)) and h == 3


# ---------------------------------------------------------------------------------- anytime-valid
def test_mixture_evalue_pvalue_is_valid_under_peeking():
    """Ville: at the boundary rate the anytime p-value (max over all prefixes) stays ≤ a with prob ≤ a."""
    rng = np.random.default_rng(6)
    ps = np.array([_mixture_pvalue(rng.random(300) < 0.05, 0.05) for _ in range(1500)])
    assert np.mean(ps <= 0.05) <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 1500)
    # and it detects a rate three times the level
    assert _mixture_pvalue(rng.random(300) < 0.15, 0.05) < 1e-3
    lo, hi = _mixture_cs(rng.random(2000) < 0.1, 0.01)
    assert lo < 0.1 < hi and hi - lo < 0.05


def test_sequential_expectation_uses_the_range_or_looks():
    rng = np.random.default_rng(7)
    no_range = expectation_evidence("e", rng.uniform(0.2, 1.0, 400), 0.5, sequential=True, chunk=25)
    assert no_range.p_value < 1e-4 and "looks_schedule" in no_range.details  # t test at 25, 50, …, 400 runs
    below = expectation_evidence("e", rng.uniform(0, 0.6, 400), 0.5, sequential=True, value_range=(0, 1))
    above = expectation_evidence("e", rng.uniform(0.2, 1.0, 400), 0.5, sequential=True, value_range=(0, 1))
    assert below.p_value > 0.5 and above.p_value < 1e-4
    lo, hi = below.interval(0.01)
    assert lo < 0.3 < hi < 0.5


def test_detectable_rate_is_the_power_point_of_the_exact_test():
    n, alpha, a = 200, 0.1, 0.01 / 8
    r = detectable_rate(n, alpha, a)
    kcrit = next(k for k in range(n + 1) if binomial_pvalue(k, n, alpha) <= a)
    assert stats.binom.sf(kcrit - 1, n, r) == pytest.approx(0.9, abs=1e-6)
    assert probability_evidence("c", np.zeros(5, bool), alpha).p_value == 1.0


def test_claims_not_applicable_to_the_policy_take_no_share_of_the_budget():
    """judge(skip=...) (the per-policy "not applicable") with the false-alarm budget: Holm runs over the claims
    that apply only, so each of them gets the share it would get if the skipped claims did not exist."""
    rng = np.random.default_rng(2)
    specs = _claims(3)
    n = 200
    df = pd.DataFrame({"fail_p0": rng.random(n) < 0.3, "fail_p1": np.zeros(n, bool), "value_e": rng.normal(-1, 1, n)})
    u = rng.standard_normal((n, 10))
    skip = {"p2": "needs sigma", "k": "needs innov"}
    res = {r.id: r for r in judge(specs, df, lambda c: u, HolmBudget(0.01), 0.1, skip=skip)}
    alone = {r.id: r for r in judge([s for s in specs if s.id not in skip], df, lambda c: u, HolmBudget(0.01), 0.1)}
    for cid in skip:
        r = res[cid]
        assert r.verdict == "not applicable" and r.budget_share is None and r.details["reason"] == skip[cid]
        assert not r.in_verdict
    for cid, r in alone.items():
        assert res[cid].budget_share == r.budget_share and res[cid].p_adjusted == r.p_adjusted
        assert res[cid].verdict == r.verdict
    assert res["p0"].budget_share == pytest.approx(0.01 / 3)  # the smallest p of three live claims: A/3, not A/5
    assert theorem_verdict(list(res.values())) == "violated"


@pytest.mark.filterwarnings("ignore:Error in function boost")  # the same extreme beta quantiles warn on both sides
def test_distribution_functions_are_scipy_stats_bit_for_bit():
    """claims.stats.stats computes what scipy.stats does (the same scipy.special calls and edge cases) without
    importing scipy.stats: every verdict's p-value and interval is unchanged to the last bit."""
    import scipy.stats as ss

    from boundcheck.claims.stats import stats as laws

    x = np.concatenate([np.linspace(-40, 40, 301), [0.0, -0.0, 1e-300, -np.inf, np.inf, np.nan]])
    q = np.concatenate([np.linspace(0, 1, 201), [1e-300, 1e-12, 1 - 1e-12, -0.1, 1.1, np.nan]])
    dfs = [1, 2, 3.5, 7, 24, 199, 10_000]
    same = np.testing.assert_array_equal
    for f in ("cdf", "sf", "pdf"):
        same(getattr(laws.norm, f)(x), getattr(ss.norm, f)(x))
    for f in ("ppf", "isf"):
        same(getattr(laws.norm, f)(q), getattr(ss.norm, f)(q))
    for df in dfs:
        for f in ("cdf", "sf"):
            same(getattr(laws.t, f)(x, df), getattr(ss.t, f)(x, df))
            same(getattr(laws.chi2, f)(np.abs(x) * 3 - 5, df), getattr(ss.chi2, f)(np.abs(x) * 3 - 5, df))
        same(laws.t.ppf(q, df), ss.t.ppf(q, df))
    for a, b in [(1, 1), (0.5, 3), (7, 194), (200, 1), (3, 2.5)]:
        same(laws.beta.ppf(q, a, b), ss.beta.ppf(q, a, b))
    ks = np.arange(-3, 60)
    for n, p in [(1, 0.5), (50, 0.01), (50, 0.3), (200, 0.05), (57, 0.0), (57, 1.0)]:
        same(laws.binom.sf(ks - 1, n, p), ss.binom.sf(ks - 1, n, p))
    # scalars in, scalars out (as scipy.stats returns them)
    assert float(laws.t.ppf(0.975, 9)) == float(ss.t.ppf(0.975, 9))
    assert np.ndim(laws.binom.sf(3, 20, 0.1)) == 0 and float(laws.binom.sf(3, 20, 0.1)) == ss.binom.sf(3, 20, 0.1)
