"""End-to-end verification of PE-GP-UCB on small, deterministic Monte Carlo studies, with negative controls."""

import numpy as np
import pandas as pd
import pytest

from boundcheck.cli import main
from boundcheck.errors import BoundcheckError, IntegrityWarning
from boundcheck.papers.pe_gp_ucb.pe_gp_ucb import PEGPUCB
from boundcheck.policies import PolicySpec
from boundcheck.study.store import ResultStore
from boundcheck.testing import assert_bound_holds, format_claims, run_check


def claim(summary, cid):
    return next(c for c in summary["claims"] if c["id"] == cid)


@pytest.fixture(scope="module")
def in_theory():
    return run_check("pe_gp_ucb", runs=40, horizon=60, seed=1)


def test_in_theory_no_claim_violated(in_theory):
    s = in_theory
    assert s["in_theory"] and s["scenario"] == "pe_toy_tv"
    assert all(c["verdict"] != "violated" for c in s["claims"]), format_claims(s)
    # at T = 60 the explicit bound exceeds 2BT, the regret of the worst algorithm while |f| ≤ B: vacuous, so the
    # claim is shown as a sanity identity on that event, outside the budget and the verdict
    rb = claim(s, "regret_bound")
    assert rb["kind"] == "identity" and "vacuous" in rb["details"]["vacuous"] and rb["verdict"] == "holds"
    assert s["bound"]["at_horizon"] >= 2 * s["bound"]["B"] * s["horizon"]
    assert claim(s, "K1_calibration")["verdict"] == "holds"
    # one false-alarm budget: every stochastic claim has a p-value and a share; the shares lie in [A/m, A]
    stochastic = [c for c in s["claims"] if c["kind"] in ("probability", "expectation", "calibration")]
    assert s["false_alarm"] == 0.01 and len(stochastic) == 5
    for c in stochastic:
        assert 0 <= c["p_value"] <= 1 and 0.01 / 5 - 1e-15 <= c["budget_share"] <= 0.01
        assert "detectable" in c["details"]
    # 0/40 failures cannot settle a δ/2 = 0.05 claim at share 0.002: it says how many runs would
    ce = claim(s, "confidence_event")
    assert ce["verdict"] == "inconclusive" and ce["details"]["runs_needed"] >= 80
    assert 0 < s["tightness"]["max"] < 1
    assert s["bound"]["gamma_lower"] <= s["bound"]["gamma_upper"]
    assert set(s["regret"]) == {"pe_gp_ucb", "oracle_tv_gp_ucb", "mle", "fully_bayesian", "regret_balancing",
                                "random"}
    assert s["regret"]["random"]["mean"] > s["regret"]["pe_gp_ucb"]["mean"]


def test_beta_scaled_down_is_out_of_theory_and_violates_confidence():
    s = run_check("pe_gp_ucb", runs=30, horizon=40, seed=2, beta_scale=0.1)
    assert not s["in_theory"]
    assert any("β scaled" in r for r in s["out_of_theory_reasons"])
    assert claim(s, "confidence_event")["verdict"] == "violated"
    assert s["verdict"] == "violated"


def test_misspecified_sensors_not_applicable_unless_run_outside_the_theorem(tmp_path):
    from boundcheck.errors import NotApplicable

    with pytest.raises(NotApplicable, match="truth is drawn from a prior outside U"):
        run_check("pe_gp_ucb", scenario="pe_sensors_misspecified", runs=10, horizon=40, seed=3, out=tmp_path / "na")
    assert not (tmp_path / "na").exists()  # nothing simulated, nothing written
    s = run_check("pe_gp_ucb", scenario="pe_sensors_misspecified", runs=20, horizon=40, seed=3,
                  allow_out_of_theory=True)
    assert not s["in_theory"] and "outside U" in s["out_of_theory_reasons"][0]
    # the negative control keeps its teeth: calibration and the confidence event are violated
    assert claim(s, "K1_calibration")["verdict"] == "violated", format_claims(s)
    assert claim(s, "confidence_event")["verdict"] == "violated", format_claims(s)


def test_well_specified_sensors_hold():
    s = run_check("pe_gp_ucb", scenario="pe_sensors", runs=10, horizon=40, seed=3)
    assert s["in_theory"]
    assert all(c["verdict"] != "violated" for c in s["claims"]), format_claims(s)


def test_identical_for_any_number_of_workers(tmp_path):
    a = run_check("pe_gp_ucb", runs=30, horizon=25, seed=5, jobs=1, out=tmp_path / "a")
    b = run_check("pe_gp_ucb", runs=30, horizon=25, seed=5, jobs=2, out=tmp_path / "b")
    ra = ResultStore(tmp_path / "a" / "results").read_table("runs")
    rb = ResultStore(tmp_path / "b" / "results").read_table("runs")
    pd.testing.assert_frame_equal(ra, rb)
    sa = ResultStore(tmp_path / "a" / "results").read_table("steps")
    sb = ResultStore(tmp_path / "b" / "results").read_table("steps")
    pd.testing.assert_frame_equal(sa, sb)
    assert a["claims"] == b["claims"]


def test_resume_recomputes_nothing_stored(tmp_path):
    kw = dict(jobs=2, backend="threading")  # two workers (the chunks are the same for any number)
    run_check("pe_gp_ucb", runs=30, horizon=20, seed=6, out=tmp_path, **kw)
    store = ResultStore(tmp_path / "results")
    chunks = store.done_chunks()
    assert len(chunks) > 1
    files = sorted((tmp_path / "results" / "chunks").glob("*.parquet"))
    mtimes = {f: f.stat().st_mtime_ns for f in files}
    # simulate an interruption: chunk 1 never got written
    (tmp_path / "results" / "chunks" / "runs-00001.parquet").unlink()
    with pytest.warns(IntegrityWarning, match="stored chunk 1 is not used"):  # reported, then recomputed
        run_check("pe_gp_ucb", runs=30, horizon=20, seed=6, out=tmp_path)  # one worker now: same chunks
    for f in files:
        if f.name != "runs-00001.parquet" and f.name != "steps-00001.parquet":
            assert f.stat().st_mtime_ns == mtimes[f], f"{f.name} was recomputed"
    assert store.done_chunks() == chunks
    with pytest.raises(BoundcheckError, match="different configuration"):
        run_check("pe_gp_ucb", runs=30, horizon=20, seed=7, out=tmp_path)


def test_extending_runs_reuses_stored_chunks_and_matches_a_fresh_study(tmp_path):
    run_check("pe_gp_ucb", runs=30, horizon=15, seed=6, out=tmp_path / "grow")
    chunks = tmp_path / "grow" / "results" / "chunks"
    first = chunks / "runs-00000.parquet"
    mtime = first.stat().st_mtime_ns
    grown = run_check("pe_gp_ucb", runs=50, horizon=15, seed=6, out=tmp_path / "grow")  # chunk 1 grows 5 → 25
    assert first.stat().st_mtime_ns == mtime, "chunk 0 was recomputed"
    fresh = run_check("pe_gp_ucb", runs=50, horizon=15, seed=6, out=tmp_path / "fresh")
    assert grown["claims"] == fresh["claims"] and grown["regret"] == fresh["regret"] and grown["runs"] == 50
    pd.testing.assert_frame_equal(ResultStore(tmp_path / "grow" / "results").read_table("runs"),
                                  ResultStore(tmp_path / "fresh" / "results").read_table("runs"))
    # and back down: a smaller study on the same folder reads only its own runs
    small = run_check("pe_gp_ucb", runs=30, horizon=15, seed=6, out=tmp_path / "grow")
    assert small["runs"] == 30 and claim(small, "D4_information")["runs"] == 30


def test_chunk_size_changes_only_round_off():
    """Per-run results do not depend on how runs are grouped into chunks: the choices are identical and every
    value agrees to round-off (vectorised BLAS calls of different batch sizes may differ in the last bits)."""
    from boundcheck.api import build_study
    from boundcheck.study.runner import run_chunk

    tables = []
    for cs in (3, 10):
        spec = build_study("pe_gp_ucb", runs=10, horizon=20, seed=4, chunk_size=cs)
        inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
        steps = [run_chunk(spec, inst, c, ids)[1]["steps"] for c, ids in spec.chunks()]
        tables.append(pd.concat(steps).sort_values(["run", "algorithm", "t"], kind="stable", ignore_index=True))
    a, b = tables
    pd.testing.assert_series_equal(a["idx"], b["idx"])
    for col in a.columns:
        if a[col].dtype == float:
            np.testing.assert_allclose(a[col], b[col], rtol=1e-10, atol=1e-12, err_msg=col)


def test_until_conclusive_adds_chunks_and_resumes(tmp_path):
    s = run_check("gp_ucb", runs=25, horizon=15, seed=2, out=tmp_path, until_conclusive=True, max_runs=75)
    assert s["sequential"] and s["runs"] in (25, 50, 75)
    assert all(c["sequential"] for c in s["claims"] if c["kind"] in ("probability", "calibration"))
    undecided = [c["id"] for c in s["claims"] if c["verdict"] == "inconclusive"]
    assert s["runs"] == 75 or not undecided
    chunks = sorted((tmp_path / "results" / "chunks").glob("runs-*.parquet"))
    assert len(chunks) == s["runs"] // 25
    mtimes = [f.stat().st_mtime_ns for f in chunks]
    again = run_check("gp_ucb", runs=25, horizon=15, seed=2, out=tmp_path, until_conclusive=True, max_runs=75)
    assert again["claims"] == s["claims"] and [f.stat().st_mtime_ns for f in chunks] == mtimes


def test_assert_bound_holds_message_has_claims_table():
    with pytest.raises(AssertionError, match="confidence_event"):
        assert_bound_holds("pe_gp_ucb", runs=20, horizon=30, seed=4, beta_scale=0.1)


class Misprinted(PEGPUCB):
    """σ_i instead of σ_{i-1} in the elimination test (the paper's misprint, C8)."""

    def update(self, t, action, y):
        self.posterior.condition_batch(action, y)  # observe first: σ_i(x_i) instead of σ_{i-1}(x_i)
        sd_after = self.posterior.sd()[self._rows, self.p_t, action[:, 0]]
        self.w_t = self.ctx.beta[t] * sd_after
        self.posterior.condition_batch = lambda *a, **k: None  # already conditioned
        try:
            super().update(t, action, y)
        finally:
            del self.posterior.condition_batch


def test_deterministic_claims_catch_a_buggy_implementation():
    """The misprinted elimination test breaks p* preservation: the D1 implication must flag it. β is scaled
    so that eliminations happen within a short horizon. The buggy class is passed as an object."""
    policies = [PolicySpec("pe_gp_ucb", Misprinted), "oracle_tv_gp_ucb", "mle", "fully_bayesian",
                "regret_balancing", "random"]
    s = run_check("pe_gp_ucb", scenario="pe_toy", runs=25, horizon=60, seed=8, beta_scale=0.3, policies=policies)
    assert claim(s, "D1_preservation")["verdict"] == "violated", format_claims(s)


def test_cli_verify_json_and_exit_codes(tmp_path, capsys):
    import json

    rc = main(["verify", "--theorem", "pe_gp_ucb", "--runs", "8", "--horizon", "20", "--jobs", "1",
               "--out", str(tmp_path), "--json", "--no-report"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    for key in ("theorem", "scenario", "verdict", "in_theory", "runs", "horizon", "delta", "seed", "claims",
                "bound", "regret", "report"):
        assert key in out
    assert {"id", "kind", "level", "violations", "runs", "rate", "ci_low", "ci_high", "verdict"} <= set(
        out["claims"][0])
    assert {"at_horizon", "terms", "gamma_upper", "gamma_lower"} <= set(out["bound"])
    assert {"mean", "median", "max", "quantile_1_minus_delta"} == set(out["regret"]["pe_gp_ucb"])
    rc = main(["verify", "--theorem", "pe_gp_ucb", "--runs", "8", "--horizon", "20", "--jobs", "1",
               "--beta-scale", "0.05", "--out", str(tmp_path / "neg"), "--json", "--no-report"])
    assert rc == 1
    assert np.isfinite(out["bound"]["at_horizon"])


def test_dask_backend_matches_loky(tmp_path):
    pytest.importorskip("distributed")
    a = run_check("pe_gp_ucb", runs=30, horizon=15, seed=9, jobs=2, backend="dask", out=tmp_path / "dask")
    b = run_check("pe_gp_ucb", runs=30, horizon=15, seed=9, jobs=1, out=tmp_path / "loky")
    assert a["claims"] == b["claims"] and a["regret"] == b["regret"]


def test_regret_bound_claims_can_fail():
    """The bound checks are live: a bound 1000× too small is exceeded in every run (mechanism negative control)."""
    from dataclasses import replace

    from boundcheck.api import build_study
    from boundcheck.study.runner import run_chunk

    spec = build_study("pe_gp_ucb", "pe_toy", runs=5, horizon=30, seed=1)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    small = replace(inst, bound_T=inst.bound_T * 1e-3, anytime=inst.anytime * 1e-3)
    _, tables, _ = run_chunk(spec, small, 0, list(range(5)))
    pe = tables["runs"][tables["runs"]["algorithm"] == "pe_gp_ucb"]
    assert pe["fail_regret_bound"].all() and pe["fail_regret_bound_anytime"].all()
    _, tables, _ = run_chunk(spec, inst, 0, list(range(5)))
    pe = tables["runs"][tables["runs"]["algorithm"] == "pe_gp_ucb"]
    assert not pe["fail_regret_bound"].any() and not pe["fail_regret_bound_tight"].any()
