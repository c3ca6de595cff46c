"""Error control: every statistical mechanism keeps its false-alarm rate on synthetic nulls and
catches a known alternative.

Each null check repeats the real test (``boundcheck.claims.stats`` / ``budget``) R times on synthetic data at a
fixed seed and counts rejections K. Under a valid level-a test K is stochastically below Bin(R, a), so the check
asserts K ≤ :func:`kmax` (R, a), the 1 − 10⁻⁴ quantile of Bin(R, a): a correct implementation fails it with
probability ≤ 10⁻⁴ (and never, at the fixed seed). A weakened mechanism (a union bound dropped, a budget not split)
moves the rate well above that line: the mutations of ``benchmarks/mutation.py`` (EC*) must each turn one test
here red. Power checks assert a known alternative is caught at least at a stated rate (the 10⁻⁴ binomial quantile
from below).

Everything is vectorised or small (no verify runs except one short side-by-side check): each test < ~3 s."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from boundcheck.claims import stats as st
from boundcheck.claims.budget import HolmBudget, holm_adjusted, holm_shares

TAIL = 1e-4  # chance that a correct implementation fails a null check at a random seed


def kmax(R: int, a: float) -> int:
    """Largest rejection count a valid level-``a`` test reaches in R independent tries, except w.p. ≤ TAIL."""
    return int(sps.binom.ppf(1 - TAIL, R, a))


def kmin(R: int, p: float) -> int:
    """Smallest detection count a test of power ≥ ``p`` reaches in R tries, except w.p. ≤ TAIL."""
    return int(sps.binom.ppf(TAIL, R, p))


# ------------------------------------------------------------------------------------ per-claim tests
def test_binomial_test_size_is_exact_and_power_at_three_times_the_level():
    """Probability claim "rate ≤ α": P(Bin(n, α) ≥ k) ≤ a for the rejected k, exactly (not simulated), and in a
    simulation; the interval says "holds" at the boundary rate α with probability ≤ a (each end one-sided 1 − a)."""
    n, alpha, a = 200, 0.05, 0.01
    ks = np.arange(n + 1)
    p = np.array([st.binomial_pvalue(int(k), n, alpha) for k in ks])
    size = sps.binom.pmf(ks, n, alpha)[p <= a].sum()
    assert 0.5 * a < size <= a  # exact size, not conservative by more than 2×
    holds = np.array([st.probability_evidence("c", np.arange(n) < k, alpha).interval(a)[1] <= alpha for k in ks])
    assert sps.binom.pmf(ks, n, alpha)[holds].sum() <= a  # wrongly "holds" at the boundary: ≤ a
    rng = np.random.default_rng(1)
    R = 2000
    k_null = rng.binomial(n, alpha, R)
    assert np.sum(p[k_null] <= a) <= kmax(R, a)
    k_alt = rng.binomial(n, 3 * alpha, R)
    assert np.sum(p[k_alt] <= a) >= kmin(R, 0.9)


def test_expectation_t_test_size_and_power():
    """Expectation claim "E[X] ≤ b": one-sided t test at the boundary mean (normal data: exact size)."""
    rng = np.random.default_rng(2)
    R, n, a = 2000, 15, 0.05
    x = rng.standard_normal((R, n))
    p = np.array([st.expectation_evidence("c", row, 0.0).p_value for row in x])
    assert np.sum(p <= a) <= kmax(R, a)
    p_alt = np.array([st.expectation_evidence("c", row + 1.0, 0.0).p_value for row in x])
    assert np.sum(p_alt <= a) >= kmin(R, 0.9)


def test_calibration_omnibus_size_and_power():
    """Calibration "u i.i.d. N(0, 1)": the Bonferroni-combined Anderson–Darling and Ljung–Box p-value."""
    rng = np.random.default_rng(3)
    R, a = 2000, 0.05  # two component tests: without their Bonferroni the rate is ≈ 2a
    null = [st.calibration_evidence("c", rng.standard_normal((8, 12))).p_value for _ in range(R)]
    assert np.sum(np.array(null) <= a) <= kmax(R, a)
    wide = [st.calibration_evidence("c", 1.5 * rng.standard_normal((8, 12))).p_value for _ in range(200)]
    assert np.sum(np.array(wide) <= a) >= kmin(200, 0.8)


def test_equality_two_sided_size_and_power():
    rng = np.random.default_rng(4)
    R, n, a = 2000, 12, 0.05
    x = rng.standard_normal((R, n))
    p = np.array([st.equality_evidence("c", row).p_value for row in x])
    assert np.sum(p <= a) <= kmax(R, a)
    assert np.sum(np.array([st.equality_evidence("c", -1.2 + row).p_value for row in x]) <= a) >= kmin(R, 0.9)


# ------------------------------------------------------------------------------ anytime (Bonferroni) form
def test_anytime_expectation_bonferroni_over_the_steps():
    """E[X_t] ≤ b at every t ≤ T: min_t p_t × T. Dropping the ×T takes the false-alarm rate at 0.01 from ≈ 0.006
    to ≈ 0.33 here (T = 40 independent steps at the boundary); a shift at one step is caught."""
    rng = np.random.default_rng(5)
    R, n, T, a = 1000, 20, 40, 0.01
    null = np.array([st.anytime_expectation_evidence("c", rng.standard_normal((n, T)), 0.0).p_value
                     for _ in range(R)])
    assert np.sum(null <= a) <= kmax(R, a)
    alt = []
    for _ in range(300):
        x = rng.standard_normal((n, T))
        x[:, 7] += 1.5  # one step whose mean exceeds the bound
        alt.append(st.anytime_expectation_evidence("c", x, 0.0).p_value)
    assert np.sum(np.array(alt) <= a) >= kmin(300, 0.8)
    # the interval is reported at the step the data select (the largest upper end): it covers that step's mean
    # only if every step's bounds are simultaneous (1 − a/T each); per-step 1 − a ends miss it ≈ T·a of the time
    R2 = 1000
    missed = sum(st.anytime_expectation_evidence("c", rng.standard_normal((n, T)), 0.0).interval(a)[0] > 0.0
                 for _ in range(R2))
    assert missed <= kmax(R2, a)


# ---------------------------------------------------------------------------- sequential (anytime) looks
def test_sequential_calibration_looks_are_union_bounded():
    """``--until-conclusive`` looks at calibration after 1, 2, 4, 8 chunks; each look's p-value is weighted
    (j+1)(j+2). Looks without the union bound take the rate at 0.05 from ≈ 0.04 to ≈ 0.15 here."""
    rng = np.random.default_rng(6)
    R, a = 500, 0.05
    p = np.array([st.calibration_evidence("c", rng.standard_normal((40, 10)), sequential=True, chunk=5).p_value
                  for _ in range(R)])
    assert np.sum(p <= a) <= kmax(R, a)
    alt = [st.calibration_evidence("c", 1.4 * rng.standard_normal((40, 10)), sequential=True, chunk=5).p_value
           for _ in range(100)]
    assert np.sum(np.array(alt) <= a) >= kmin(100, 0.8)


def test_sequential_t_looks_are_union_bounded():
    """Expectation claims without a declared range: the t test at looks 1, 2, 4, … chunks, union-bounded."""
    rng = np.random.default_rng(7)
    R, a = 1500, 0.05
    x = rng.standard_normal((R, 80))
    p = np.array([st.expectation_evidence("c", row, 0.0, sequential=True, chunk=5).p_value for row in x])
    assert np.sum(p <= a) <= kmax(R, a)
    p_alt = np.array([st.expectation_evidence("c", row + 0.8, 0.0, sequential=True, chunk=5).p_value
                      for row in x[:300]])
    assert np.sum(p_alt <= a) >= kmin(300, 0.8)


def test_mixture_and_betting_e_processes_are_anytime_valid():
    """The anytime-valid p-values (Ville): the probability mixture at the boundary rate and the betting
    e-process at the boundary mean keep the level over every prefix; both catch a clear excess."""
    rng = np.random.default_rng(8)
    R, n, a = 400, 300, 0.05
    fails = rng.random((R, n)) < 0.1
    p = np.array([st.probability_evidence("c", f, 0.1, sequential=True).p_value for f in fails])
    assert np.sum(p <= a) <= kmax(R, a)
    p_alt = np.array([st.probability_evidence("c", f, 0.1, sequential=True).p_value
                      for f in rng.random((100, n)) < 0.25])
    assert np.sum(p_alt <= a) >= kmin(100, 0.8)
    y = rng.beta(2.0, 2.0, (R, n))  # mean 0.5, in [0, 1]
    kw = dict(sequential=True, value_range=(0.0, 1.0), tune=a)
    p = np.array([st.expectation_evidence("c", row, 0.5, **kw).p_value for row in y])
    assert np.sum(p <= a) <= kmax(R, a)
    p_alt = np.array([st.expectation_evidence("c", row, 0.4, **kw).p_value for row in y[:100]])
    assert np.sum(p_alt <= a) >= kmin(100, 0.8)


# ----------------------------------------------------------------------------------------- the budget
def test_holm_controls_the_family_wise_error_and_rejects_what_it_should():
    """m = 8 claims, 5 true (uniform p-values) and 3 false (p ≈ 0): P(any true claim rejected) ≤ A; the false
    ones are rejected; the shares are dual to the adjusted p-values (violated ⟺ p ≤ share)."""
    rng = np.random.default_rng(9)
    R, A = 3000, 0.05
    p = rng.random((R, 8))
    p[:, 5:] = rng.random((R, 3)) * 1e-4
    bud = HolmBudget(A)
    rej = np.array([bud.allocate(row).rejected for row in p])
    assert np.sum(rej[:, :5].any(axis=1)) <= kmax(R, A)
    assert rej[:, 5:].all()
    for row in p[:200]:
        al = bud.allocate(row)
        np.testing.assert_array_equal(row <= al.shares, al.rejected)
        assert np.all(al.shares >= A / 8 - 1e-15) and np.all(al.shares <= A + 1e-15)
        np.testing.assert_array_equal(holm_adjusted(row) <= A, al.rejected)
        np.testing.assert_allclose(holm_shares(row, A), al.shares)


def test_holm_step_down_by_hand():
    """Adjusted p-values against Holm (1979) computed by hand on one set."""
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4·0.005, 3·0.01, 2·0.03, 1·0.04, running max
    np.testing.assert_allclose(holm_adjusted(p), [0.03, 0.06, 0.06, 0.02])


def test_budget_is_divided_between_checked_implementations():
    """k implementations checked in one verify: each judged by Holm at A/k, so that the verify as a whole keeps
    P(any false alarm) ≤ A. Not dividing doubles the rate here (≈ 0.05 → ≈ 0.10)."""
    rng = np.random.default_rng(10)
    R, A, k, m = 3000, 0.05, 2, 5
    each = HolmBudget(A).divided(k)
    assert each.total == pytest.approx(A / k)
    alarms = sum(any(each.allocate(rng.random(m)).rejected.any() for _ in range(k)) for _ in range(R))
    assert alarms <= kmax(R, A)


def test_verify_divides_the_budget_between_its_checked_implementations():
    """The same through ``verify``: two user implementations side by side, every share at most A/2."""
    import importlib.util
    from pathlib import Path

    from boundcheck.testing import run_check

    path = Path(__file__).resolve().parents[2] / "examples" / "gp_ucb.py"
    spec = importlib.util.spec_from_file_location("example_gp_ucb_errctl", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    class Twin(mod.MyGPUCB):
        pass

    A = 0.02
    s = run_check("gp_ucb", algorithm=[mod.MyGPUCB, Twin], runs=4, horizon=8, seed=1, false_alarm=A)
    assert len(s["checked"]) == 2
    for v in s["checked"].values():
        judged = [c for c in v["claims"] if c.get("budget_share") is not None]
        assert judged
        p = np.array([c["p_value"] for c in judged])
        # each implementation's claims are Holm at A/2: their shares are exactly Holm's at A/2 (at A: twice)
        np.testing.assert_allclose([c["budget_share"] for c in judged], holm_shares(p, A / 2), rtol=1e-12)


# ------------------------------------------------------------------------------------ runs-needed advice
def _cp_one_sided(k: int, m: int, a: float) -> tuple[float, float]:
    """One-sided Clopper–Pearson ends at confidence 1 − a each (independent of the library's helper)."""
    lo = 0.0 if k == 0 else float(sps.beta.ppf(a, k, m - k + 1))
    hi = 1.0 if k == m else float(sps.beta.ppf(1 - a, k + 1, m - k))
    return lo, hi


@pytest.mark.parametrize("k, n, alpha, share", [(3, 50, 0.1, 0.002), (9, 50, 0.1, 0.002), (0, 25, 0.05, 0.01),
                                                 (4, 40, 0.05, 0.0025), (2, 100, 0.01, 0.005)])
def test_runs_needed_advice_is_at_the_claims_share(k, n, alpha, share):
    """The advice for an inconclusive probability claim: the first doubling m of the runs at which the observed
    rate, persisting, would settle the claim with each interval end one-sided at the claim's share (the level
    its own test uses, ClaimResult.test_size = 2·share) — not at twice it (too few runs) nor half (too many)."""
    adv = st.probability_evidence("c", np.arange(n) < k, alpha).runs_needed(share)
    rate, m, want = k / n, n, None
    for _ in range(40):
        m *= 2
        lo, hi = _cp_one_sided(round(rate * m), m, share)
        if hi <= alpha or lo > alpha:
            want = m
            break
    assert adv == want
    if want is not None:  # the advice is the first doubling that settles: half of it does not
        lo, hi = _cp_one_sided(round(rate * want / 2), want // 2, share)
        assert want // 2 == n or not (hi <= alpha or lo > alpha)


def test_inconclusive_claims_carry_the_advice_at_their_share():
    """Through :func:`finish`: the details' runs_needed is the evidence's advice at the share the budget gave."""
    ev = st.probability_evidence("c", np.arange(50) < 4, 0.1)
    res = st.finish(ev, 0.002, False)
    assert res.verdict == "inconclusive" and res.details["runs_needed"] == ev.runs_needed(0.002)
    assert res.test_size == pytest.approx(0.004)
    lo, hi = _cp_one_sided(4, 50, 0.002)
    assert (res.ci_low, res.ci_high) == pytest.approx((lo, hi), rel=1e-9)


def test_smallest_detectable_rate_has_the_stated_power():
    """detectable_rate(n, α, share): at that rate the exact binomial test at the share rejects w.p. ≥ 0.9."""
    n, alpha, share = 200, 0.05, 0.005
    r = st.detectable_rate(n, alpha, share)
    ks = np.arange(n + 1)
    rej = np.array([st.binomial_pvalue(int(k), n, alpha) <= share for k in ks])
    assert sps.binom.pmf(ks, n, r)[rej].sum() >= st.POWER_TARGET - 1e-9
    assert sps.binom.pmf(ks, n, r * 0.97)[rej].sum() < st.POWER_TARGET
