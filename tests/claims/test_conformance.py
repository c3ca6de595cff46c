"""Conformance observed from the outside (boundcheck.claims.conformance), and how finely it tells near misses.

Every checked implementation runs beside a shadow of the theorem's own algorithm, told only the implementation's
actions and observations. Built-in algorithms given as a harmless copy (a factory of our own, so that the study
sees code other than the theorem's algorithm) conform at their defaults; code that is wrong in ways the other
claims cannot see without records is violated: an ask/tell GP-TS whose draw is 0.05 as wide, GP-UCB with
β × 0.05 and IGP-UCB with λ × 25, none of them declaring records. ``--no-conformance`` turns the claim off and
labels the study out of theory; a plain verify shows the claim as a sanity identity.

What it reports is exact: a GP-UCB whose width is 0.99× the theorem's is violated at 50 runs (relative tolerance
1e-6; one of 1e-2 passes it); GP-TS's randomised rank is exactly U(0, 1) even where ties are the rule (a 3-point
domain: the V of the randomised rank is needed, a mid-rank would pile the ranks up); the first non-conforming step
is reported 1-based (a deviation planted at step 5 is reported at step 5).
"""

import json
from dataclasses import replace
from pathlib import Path

import asktell_policies
import numpy as np
import pytest
from asktell_policies import TS, UCB, BetaSmallUCB, LambdaLargeUCB, NarrowTS, OffAtStep5, Width099
from scipy import stats

import theory
from boundcheck import api
from boundcheck.cli import main
from boundcheck.policies import PolicySpec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SMALL = {"runs": 20, "horizon": 20, "jobs": 1, "report": False}


def _conformance(summary: dict) -> dict:
    return next(c for c in summary["claims"] if c["id"] == "conformance")


def _copy(theorem: str) -> PolicySpec:
    """The theorem's own algorithm behind a factory of ours: the same code, but not the theorem's spec."""
    own = api.resolve_policy(theory.get(theorem).algorithm)
    factory = own.factory

    def make(**kw):
        return factory(**kw)

    return PolicySpec(own.name, make, dict(own.kwargs), own.label)


@pytest.mark.parametrize("theorem, kind", [
    ("gp_ucb", "deterministic"), ("igp_ucb", "deterministic"), ("gp_ts", "calibration"),
    ("pe_gp_ucb", "deterministic"), ("r_gp_ucb", "deterministic"), ("sw_gp_ucb", "deterministic"),
    ("et_r_gp_ucb", "deterministic"), ("comb_gp_ucb", "deterministic"), ("comb_gp_bucb", "deterministic"),
    ("comb_gp_ts", "calibration"),
])
def test_every_builtin_algorithm_conforms_as_checked_code(theorem, kind):
    s = api.verify(theorem, algorithm=_copy(theorem), policies=[], seed=3, allow_out_of_theory=True, **SMALL)
    c = _conformance(s)
    assert c["kind"] == kind and c["verdict"] == "holds", c


# ---------------------------------------------------------------- user code, in the documented ask/tell form
@pytest.mark.parametrize("theorem, algo", [("gp_ucb", UCB), ("igp_ucb", UCB), ("gp_ts", TS)])
def test_correct_user_code_without_records_conforms(theorem, algo):
    s = api.verify(theorem, algorithm=algo, policies=[], seed=1, **SMALL)
    assert _conformance(s)["verdict"] == "holds"
    assert s["verdict"] != "violated"


@pytest.mark.parametrize("theorem, algo", [("gp_ucb", BetaSmallUCB), ("igp_ucb", LambdaLargeUCB),
                                           ("gp_ts", NarrowTS)])
def test_wrong_user_code_without_records_is_violated(theorem, algo):
    s = api.verify(theorem, algorithm=algo, policies=[], seed=1, **SMALL)
    na = s.get("not_applicable") or {}
    assert "conformance" not in na.get(algo.__name__, {})
    c = _conformance(s)
    assert c["verdict"] == "violated"
    assert s["verdict"] == "violated" and s["in_theory"]
    if c["kind"] == "deterministic":  # the message can name where: the first run and step off the algorithm
        assert c["details"]["first_counterexample_step"] >= 1


def test_example_gp_ucb_conforms_on_the_command_line(tmp_path, capsys):
    rc = main(["verify", "--theorem", "gp_ucb", "--algorithm", f"{EXAMPLES}/gp_ucb.py:MyGPUCB", "--runs", "20",
               "--horizon", "30", "--jobs", "1", "--out", str(tmp_path), "--json", "--no-report"])
    out = json.loads(capsys.readouterr().out)
    c = _conformance(out)
    assert c["kind"] == "deterministic" and c["verdict"] == "holds" and c["violations"] == 0
    assert rc in (0, 3) and out["verdict"] != "violated"


def test_no_conformance_is_out_of_theory(tmp_path, capsys):
    rc = main(["verify", "--theorem", "gp_ucb", "--algorithm", f"{asktell_policies.__file__}:BetaSmallUCB",
               "--runs", "20", "--horizon", "20", "--jobs", "1", "--out", str(tmp_path), "--json", "--no-report",
               "--no-conformance"])
    out = json.loads(capsys.readouterr().out)
    assert _conformance(out)["verdict"] == "not applicable"
    assert not out["in_theory"] and any("not the theorem's algorithm" in r for r in out["out_of_theory_reasons"])
    assert rc != 1 or out["verdict"] == "violated"  # only another claim could call it violated


def test_a_plain_verify_shows_conformance_as_a_sanity_identity():
    s = api.verify("gp_ucb", policies=["gp_ucb"], seed=2, **SMALL)
    c = _conformance(s)
    assert c["kind"] == "identity" and c["violations"] == 0


def test_the_shadow_changes_nothing_the_checked_code_does():
    """The shadow has a stream of its own: the checked code's regret is the same with the claim off."""
    on = api.verify("gp_ts", algorithm=_copy("gp_ts"), policies=["igp_ucb"], seed=4, **SMALL)
    off = api.verify("gp_ts", algorithm=_copy("gp_ts"), policies=["igp_ucb"], seed=4, conformance=False, **SMALL)
    assert on["regret"] == off["regret"]


def test_a_runs_shadow_ranks_do_not_depend_on_its_batch():
    """Results are bit-identical for any number of workers: a run's conform_z is the same in any batch."""
    from boundcheck.study.engine import simulate

    spec, shadows = api.conformance_shadows(api.build_study("gp_ts", algorithm=_copy("gp_ts"), policies=[],
                                                            runs=8, horizon=12))
    assert spec.shadowed == ("gp_ts",)
    inst = replace(spec.family.instantiate(spec.scenario, spec.horizon, spec.delta), shadows=shadows)
    whole = simulate(spec.scenario, spec.policies, list(range(8)), 0, inst).algorithms["gp_ts"].monitors
    part = simulate(spec.scenario, spec.policies, list(range(5, 8)), 0, inst).algorithms["gp_ts"].monitors
    assert np.array_equal(whole["conform_z"][5:], part["conform_z"])


# ---------------------------------------------------------------- how finely it tells near misses, exactly
def test_a_gp_ucb_with_99_percent_of_the_width_is_violated():
    s = api.verify("gp_ucb", algorithm=Width099, policies=[], runs=50, horizon=20, seed=0, jobs=1, report=False)
    c = _conformance(s)
    assert c["kind"] == "deterministic" and c["verdict"] == "violated", c
    assert c["violations"] >= 25  # most runs leave the algorithm within 20 steps (35/50 at this seed)
    assert s["verdict"] == "violated"


def test_the_first_non_conforming_step_is_the_planted_one():
    s = api.verify("gp_ucb", algorithm=OffAtStep5, policies=[], runs=3, horizon=7, seed=1, jobs=1, report=False)
    c = _conformance(s)
    assert c["verdict"] == "violated" and c["violations"] == 3
    assert c["details"]["first_counterexample_step"] == 5


def test_gp_ts_conformance_ranks_are_uniform_where_ties_are_the_rule(tmp_path):
    """The theorem's GP-TS as checked code (behind a factory of ours) on 3 points: the shadow's M choices tie with
    the code's most of the time, and u_t = (below + V·(same + 1)) / (M + 1) must still be U(0, 1) (KS test on 600
    ranks; a mid-rank 0.5 in place of V gives p ≈ 1e-6 here)."""
    from boundcheck.study.engine import simulate

    text = (ROOT / "boundcheck/papers/igp_ucb_gp_ts/scenarios/rkhs_paper_matern.toml").read_text()
    assert "uniform = {n = 100, dim = 1, seed = 2017}" in text
    path = tmp_path / "three_points.toml"
    path.write_text(text.replace('name = "rkhs_paper_matern"', 'name = "three_points"').replace(
        "uniform = {n = 100, dim = 1, seed = 2017}", "uniform = {n = 3, dim = 1, seed = 2017}"))
    own = api.resolve_policy(theory.get("gp_ts").algorithm)
    factory = own.factory
    copy = PolicySpec(own.name, lambda **kw: factory(**kw), dict(own.kwargs), own.label)
    spec, shadows = api.conformance_shadows(api.build_study("gp_ts", str(path), algorithm=copy, policies=[],
                                                            runs=20, horizon=30))
    assert spec.scenario.domain.n == 3 and spec.shadowed == ("gp_ts",)
    inst = replace(spec.family.instantiate(spec.scenario, spec.horizon, spec.delta), shadows=shadows)
    z = simulate(spec.scenario, spec.policies, list(range(20)), 0, inst).algorithms["gp_ts"].monitors["conform_z"]
    u = stats.norm.cdf(np.asarray(z)).ravel()
    assert u.size == 600 and np.isfinite(u).all()
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    counts = np.histogram(u, bins=10, range=(0.0, 1.0))[0]
    assert stats.chisquare(counts).pvalue > 1e-3
