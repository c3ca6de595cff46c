"""The vacuity rule by the claim's kind (boundcheck.claims.table): a bound claim that cannot fail on the runs at
hand is a sanity identity, outside the verdict; a claim that can fail is never one.

* per run for claims on each run (probability): vacuous only when the bound is at least the largest regret any
  algorithm could incur (Σ_t max − min of f_t over X_t) on *every* run; one run below is a run where it can fail;
* on the mean for expectation claims (E[R_t] ≤ Bound(t)): the sample mean of the regret cannot exceed the bound
  when the mean over runs of the largest regret does not (mean of 1/vacuity ≤ 1), although single runs may; the
  identity is then one of the sample mean (a run above the bound is no counterexample);
* the range it reads is max − min of f_t over X_t (the engine's ``f_range``), and the ratio of an anytime bound
  is its minimum over t.

Direct tests of the functions on made-up runs (cheap), and the motivating example: comb_gp_ucb on comb_topk, T = 100,
25 runs (bound / Σ range per run: mean 1.89, min 0.92), whose Bayes-regret claims are identities.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sympy as sp

from boundcheck import api
from boundcheck.claims.budget import HolmBudget
from boundcheck.claims.table import (
    ClaimSpec,
    judge,
    vacuity,
    vacuous_on_every_run,
    vacuous_on_the_mean,
)
from theory import Claim


def _bound_claim(kind: str, cid: str = "regret_bound") -> ClaimSpec:
    if kind == "probability":
        claim = Claim(cid, "probability", "P(R_T > Bound) ≤ δ", "test", alpha=sp.Float(0.1), main=True)
    else:
        claim = Claim(cid, "expectation", "E[R_T] ≤ Bound(T)", "test", expectation_bound=sp.Integer(0), main=True)
    return ClaimSpec(claim, bound=lambda ev: 1.0)


def _runs(cid: str, vac, value=None, fail=None) -> pd.DataFrame:
    d = {"run": np.arange(len(vac)), f"vacuity_{cid}": np.asarray(vac, dtype=float)}
    if value is not None:
        d[f"value_{cid}"] = np.asarray(value, dtype=float)
    if fail is not None:
        d[f"fail_{cid}"] = np.asarray(fail, dtype=bool)
    return pd.DataFrame(d)


def _judge(spec: ClaimSpec, runs: pd.DataFrame, sample=None, **kw):
    (res,) = judge([spec], runs, sample or (lambda col: None), HolmBudget(), 0.1, **kw)
    return res


# ------------------------------------------------------------------------------------------ the ratio itself
def test_vacuity_of_an_anytime_bound_is_its_smallest_ratio_over_t():
    """Bound(t) = 5 against Σ_{s≤t} range = 2, 4, 6: the ratios are 2.5, 1.25, 0.83 — the bound bites at t = 3,
    so the run's vacuity is 5/6 (below 1), not the 2.5 of t = 1."""
    f_range = np.array([[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]])
    v = vacuity(np.array([5.0, 5.0, 5.0]), f_range)
    np.testing.assert_allclose(v, [5.0 / 6.0, 5.0 / 3.0])
    np.testing.assert_allclose(vacuity(3.0, f_range), [0.5, 1.0])  # a bound on R_T: t = T only
    np.testing.assert_allclose(vacuity(np.array([[12.0], [1.5]]), f_range), [2.0, 0.5])  # per-run bounds on R_T


def test_the_engine_records_max_minus_min_of_f_over_the_available_arms():
    """f_range (what the vacuity rule sums) is max − min of f_t over X_t, step by step, on a static truth."""
    from boundcheck.study.engine import simulate

    spec = api.build_study("gp_ucb", runs=3, horizon=4, seed=5, policies=["gp_ucb"])
    inst = spec.family.instantiate(spec.scenario, 4, spec.delta)
    traj = simulate(spec.scenario, spec.policies, [0, 1, 2], 5, inst)
    f = traj.truth["f"]  # (m, n): a static truth, every arm available
    assert (f.min(axis=1) < 0).any() and (f.max(axis=1) > 0).any()  # a sign slip (max + min) would show
    np.testing.assert_allclose(traj.f_range, np.repeat((f.max(axis=1) - f.min(axis=1))[:, None], 4, axis=1),
                               rtol=1e-12, atol=1e-12)
    assert (traj.algorithms["gp_ucb"].regret <= traj.f_range + 1e-12).all()


# ------------------------------------------------------------------------------- probability claims: per run
def test_a_probability_claim_with_one_run_below_one_is_judged():
    """Vacuity 1.5, 0.9, 2, 2: the bound can be exceeded on run 1, so the claim is judged (not an identity), even
    though its mean ratio (and the mean of 1/ratio) says the *mean* regret could not reach it."""
    spec = _bound_claim("probability")
    runs = _runs(spec.id, [1.5, 0.9, 2.0, 2.0], fail=[False, True, False, False])
    assert vacuous_on_every_run([spec], runs) == {}
    assert vacuous_on_the_mean([spec], runs) == {}  # the mean rule is for expectation claims only
    res = _judge(spec, runs)
    assert res.kind == "probability" and res.violations == 1


def test_a_probability_claim_above_one_on_every_run_is_an_identity():
    spec = _bound_claim("probability")
    runs = _runs(spec.id, [1.5, 1.0, 2.0], fail=[False, False, False])
    assert spec.id in vacuous_on_every_run([spec], runs)
    res = _judge(spec, runs)
    assert res.kind == "identity" and res.verdict == "holds" and "on every run" in res.details["vacuous"]


# ------------------------------------------------------------------------------- expectation claims: the mean
def test_an_expectation_claim_vacuous_on_the_mean_is_an_identity_of_the_mean():
    """Vacuity 0.8, 2, 2, 2, 2: the mean of 1/vacuity is 0.65 ≤ 1, so the sample mean of R_T − Bound is ≤ 0
    whatever the algorithm: an identity. Run 0's value is above the bound (allowed on a run: the claim is on the
    mean), which is no counterexample."""
    spec = _bound_claim("expectation", "bayes_regret")
    runs = _runs(spec.id, [0.8, 2.0, 2.0, 2.0, 2.0], value=[0.2, -0.5, -0.6, -0.4, -0.5])
    assert vacuous_on_every_run([spec], runs) == {}
    assert "on the mean" in vacuous_on_the_mean([spec], runs)[spec.id]
    res = _judge(spec, runs)
    assert res.kind == "identity" and res.verdict == "holds" and res.violations == 0
    assert "on the mean" in res.details["vacuous"] and res.details["claimed_kind"] == "expectation"
    # the identity is the sample mean's: were it above the bound (only broken code can do that), every run is part
    # of the counterexample
    bad = _judge(spec, _runs(spec.id, [0.8, 2.0, 2.0, 2.0, 2.0], value=[3.0, -0.5, -0.6, -0.4, -0.5]))
    assert bad.kind == "identity" and bad.verdict == "violated"


def test_an_expectation_claim_whose_mean_can_exceed_the_bound_is_judged():
    """Vacuity 0.3 and 3: the mean ratio is 1.65 but the mean of 1/vacuity is 1.83 > 1 — an algorithm could have
    a mean regret above the bound on these runs, so the claim is judged (the mean of the ratios is not the rule)."""
    spec = _bound_claim("expectation", "bayes_regret")
    runs = _runs(spec.id, [0.3, 3.0] * 4, value=[0.5, -0.6] * 4)
    assert vacuous_on_the_mean([spec], runs) == {}
    res = _judge(spec, runs)
    assert res.kind == "expectation"


def test_with_looks_every_prefix_the_test_reads_is_held_to_the_rule():
    """--until-conclusive without a declared range looks at the first 25, 50, … runs: if the first look's runs
    could have a mean regret above the bound, the claim can fail there and is judged; without looks it is an
    identity."""
    spec = _bound_claim("expectation", "bayes_regret")
    vac = [0.8] * 25 + [4.0] * 25  # first 25: mean of 1/v = 1.25; all 50: 0.75
    runs = _runs(spec.id, vac, value=[-0.1] * 50)
    assert spec.id in vacuous_on_the_mean([spec], runs)
    assert vacuous_on_the_mean([spec], runs, sequential=True, chunk=25) == {}
    assert _judge(spec, runs, sequential=True, chunk=25).kind == "expectation"
    assert _judge(spec, runs).kind == "identity"


def test_an_anytime_expectation_claim_reads_its_sample_at_every_t():
    spec = ClaimSpec(Claim("bayes_regret_anytime", "expectation", "E[R_t] ≤ Bound(t)", "test",
                           expectation_bound=sp.Integer(0)), None, sample="bound_excess", bound=lambda ev: 1.0)
    x = np.array([[0.1, 0.3], [-0.5, -0.6], [-0.4, -0.5]])  # R_t − Bound(t): run 0 above at both t
    runs = _runs(spec.id, [0.9, 3.0, 3.0])  # mean of 1/v = 0.59
    res = _judge(spec, runs, sample=lambda col: x)
    assert res.kind == "identity" and res.verdict == "holds" and res.violations == 0
    assert vacuous_on_the_mean([spec], _runs(spec.id, [0.5, 0.9, 3.0]), lambda col: x) == {}


def test_comb_gp_ucb_bayes_regret_at_t_100_is_an_identity():
    """The motivating example: comb_gp_ucb on comb_topk, T = 100, 25 runs (seed 3: bound / Σ range per run has mean
    1.89, median 1.92, min 0.92). The sample mean of the regret can never reach the bound: both Bayes-regret claims
    are sanity identities (on the mean), outside the verdict."""
    s = api.verify("comb_gp_ucb", "comb_topk", runs=25, horizon=100, seed=3, jobs=1, report=False,
                   policies=["comb_gp_ucb"])
    claims = {c["id"]: c for c in s["claims"]}
    for cid in ("bayes_regret", "bayes_regret_anytime"):
        c = claims[cid]
        assert c["kind"] == "identity" and c["verdict"] == "holds", c
        assert "on the mean" in c["details"]["vacuous"]


@pytest.mark.parametrize("v", [[np.nan, 2.0], [-1.0, 5.0], [0.0, 5.0]])
def test_a_bound_that_can_be_exceeded_or_is_unknown_is_never_vacuous(v):
    spec = _bound_claim("expectation", "bayes_regret")
    runs = _runs(spec.id, v, value=[0.0, -1.0])
    assert vacuous_on_every_run([spec], runs) == {} and vacuous_on_the_mean([spec], runs) == {}
