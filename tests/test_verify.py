"""End-to-end verification of PE-GP-UCB on small, deterministic Monte Carlo studies, with negative controls."""

import numpy as np
import pandas as pd
import pytest

from boundcheck.cli import main
from boundcheck.errors import BoundcheckError
from boundcheck.policies import PolicySpec
from boundcheck.policies.pe_gp_ucb import PEGPUCB
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
    assert claim(s, "regret_bound")["verdict"] == "holds"  # 0/40, CP upper 0.088 < δ = 0.1
    assert claim(s, "K1_calibration")["verdict"] == "holds"
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


def test_misspecified_sensors_calibration_violated():
    s = run_check("pe_gp_ucb", scenario="pe_sensors_misspecified", runs=10, horizon=40, seed=3)
    assert not s["in_theory"]
    assert claim(s, "K1_calibration")["verdict"] == "violated"


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
    kw = dict(jobs=2, backend="threading")  # two workers: four chunks
    run_check("pe_gp_ucb", runs=30, horizon=20, seed=6, out=tmp_path, **kw)
    store = ResultStore(tmp_path / "results")
    chunks = store.done_chunks()
    assert len(chunks) > 1
    files = sorted((tmp_path / "results" / "chunks").glob("*.parquet"))
    mtimes = {f: f.stat().st_mtime_ns for f in files}
    # simulate an interruption: chunk 1 never got written
    (tmp_path / "results" / "chunks" / "runs-00001.parquet").unlink()
    run_check("pe_gp_ucb", runs=30, horizon=20, seed=6, out=tmp_path)  # one worker now: same chunks
    for f in files:
        if f.name != "runs-00001.parquet" and f.name != "steps-00001.parquet":
            assert f.stat().st_mtime_ns == mtimes[f], f"{f.name} was recomputed"
    assert store.done_chunks() == chunks
    with pytest.raises(BoundcheckError, match="different configuration"):
        run_check("pe_gp_ucb", runs=30, horizon=20, seed=7, out=tmp_path)


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
