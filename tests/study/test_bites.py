"""Where a regret bound that is a sanity identity (vacuous) at the study's horizon would bite.

For PE-GP-UCB, GP-UCB and R-GP-UCB the computed T* is the smallest horizon with Bound(T*) < r_max·T*
(Bound(T*−1) ≥ r_max·(T*−1) in the module's own evaluation, the family's own instance at T* agrees), and the note
appears where the identity is shown: the verify table and JSON, the HTML and LaTeX reports, and ``boundcheck show``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from boundcheck import api
from boundcheck.claims import horizon as hz
from boundcheck.claims.families import family_for
from boundcheck.claims.families.instance_cache import instantiate
from boundcheck.cli import main


def _setup(theorem: str, scenario: str | None, horizon: int):
    th = api.resolve_theorem(theorem)
    fam = family_for(th)
    sc = api.resolve_scenario(scenario, th, horizon)
    inst = instantiate(fam, sc, horizon, sc.delta)
    return fam, sc, inst, hz.Horizons(fam, sc, inst)


def _spec(fam, cid: str):
    return next(s for s in fam.claims if s.id == cid)


def _margin(h: hz.Horizons, spec, T: int, r: float | None) -> float:
    """Bound(T) − r_max·T as the module evaluates it (γ at its upper end)."""
    b, why = h.claim_bound(spec, h.at(T, "up"))
    assert b is not None, why
    return b - (r if r is not None else h.r_max(T)) * T


def test_first_crossing_is_the_smallest_sign_change():
    assert hz.first_crossing(lambda T: 1000 - 3 * T, 10) == 334  # 1000 − 3·333 = 1 ≥ 0 > 1000 − 3·334
    assert hz.first_crossing(lambda T: 1000 - 3 * T, 10, cap=300) is None
    assert hz.first_crossing(lambda T: 1.0, 10) is None
    assert hz.first_crossing(lambda T: 5 - T, 1) == 6


def test_the_per_step_regret_is_what_each_identity_rule_compares_with():
    v = np.array([2.0, 1.25, 4.0])  # vacuity = Bound / Σ_t range per run: Σ range = 50, 80, 25
    assert hz.per_step_regret(100.0, v, 10, "probability") == pytest.approx(8.0)  # the largest run (every run ≥ 1)
    assert hz.per_step_regret(100.0, v, 10, "expectation") == pytest.approx((50 + 80 + 25) / 3 / 10)  # the mean
    assert hz.per_step_regret(100.0, np.array([np.nan]), 10, "probability") is None


def test_gamma_beyond_the_computed_horizon_is_extended_by_subadditivity():
    line = np.arange(1.0, 101.0)  # an additive curve γ_t = t: the extension is exact
    assert [hz._subadditive(line, T) for T in (1, 100, 101, 250, 10**6)] == [1.0, 100.0, 101.0, 250.0, 1e6]
    concave = np.sqrt(np.arange(1.0, 101.0))
    assert hz._subadditive(concave, 250) == pytest.approx(2 * 10.0 + math.sqrt(50))


def test_runs_to_hold_is_the_smallest_failure_free_sample_that_settles_the_claim():
    alpha, share = 0.1, 0.01 / 7
    n = hz.runs_to_hold(alpha, share)
    assert 1 - share ** (1 / n) <= alpha < 1 - share ** (1 / (n - 1))  # one-sided Clopper–Pearson upper end of 0/n


def test_gp_ucb_bites_where_bound_falls_below_r_max_T_and_the_rerun_agrees():
    fam, sc, inst, h = _setup("gp_ucb", None, 40)
    spec = _spec(fam, "regret_bound")
    r = inst.bound_T / 40 / 1.5  # a per-step regret the bound exceeds 1.5× at T = 40 (vacuous there)
    bite = hz.bites_from(h, spec, r)
    T = bite.T
    assert T is not None and T > 40 and bite.not_before == T  # γ computed there: both ends agree
    assert _margin(h, spec, T, r) < 0 <= _margin(h, spec, T - 1, r)
    again = fam.instantiate(sc, T, sc.delta)  # what a rerun with --horizon T computes
    assert again.bound_T == pytest.approx(h.at(T, "up").bound_T, rel=1e-3) and again.bound_T < r * T
    assert bite.message.startswith(f"bites from T ≈ {T:,}".replace(",", " ")) and f"--horizon {T}" in bite.message
    # the γ beyond what was computed is bracketed: its lower end never above the upper, the certified γ between
    for T2 in (3 * 4096, 10**5):
        assert h.gamma(T2, "lo") <= h.gamma(T2, "up")
    g = np.asarray(fam.instantiate(sc, 2000, sc.delta).gamma_used)[-1]
    h2 = hz.Horizons(fam, sc, inst, exact_horizon=256)
    h2.refine()
    assert h2.gamma(2000, "lo") <= g <= h2.gamma(2000, "up")


def test_pe_gp_ucb_never_bites_on_its_time_varying_default_and_bites_on_the_stationary_toy():
    fam, sc, inst, h = _setup("pe_gp_ucb", None, 40)  # pe_toy_tv: γ̃ grows linearly, Bound/T grows
    assert "regret_bound" in fam.vacuous_claims(sc, inst)
    spec = _spec(fam, "regret_bound")
    bite = hz.bites_from(h, spec)
    assert bite.T is None and bite.message.startswith("does not bite below T = 10^7")
    assert all(_margin(h, spec, 40 * 2**k, None) >= 0 for k in range(1, 19))  # the monotone form, to the cap
    assert _margin(h, spec, hz.CAP, None) >= 0
    fam, sc, inst, h = _setup("pe_gp_ucb", "pe_toy", 40)  # stationary: Bound/T falls, r_max = 2B(T) (a priori)
    for cid in ("regret_bound", "regret_bound_tight"):
        spec = _spec(fam, cid)
        bite = hz.bites_from(h, spec)
        T = bite.T
        assert T is not None and T > 40 and bite.r_max == pytest.approx(fam.max_step_regret(sc, inst)[0])
        assert _margin(h, spec, T, None) < 0 <= _margin(h, spec, T - 1, None)


def test_r_gp_ucb_bites_where_its_linear_bound_falls_below_r_max_T():
    fam, sc, inst, h = _setup("r_gp_ucb", None, 1000)
    spec = _spec(fam, "regret_bound")
    r = inst.bound_T / 1000 / 1.2
    bite = hz.bites_from(h, spec, r)
    T = bite.T
    assert T is not None and T > 1000
    assert _margin(h, spec, T, r) < 0 <= _margin(h, spec, T - 1, r)
    again = fam.instantiate(sc, T, sc.delta).bound_T  # γ_H of the window held at the study's certified value
    assert again == pytest.approx(h.at(T).bound_T, rel=1e-2) and again < r * T
    anytime = hz.bites_from(h, _spec(fam, "regret_bound_anytime"), r)  # its curve ends at the explicit bound
    assert anytime.T == T
    # at the runs' own per-step regret (the default study's) its bound does not bite: Bound/T stays above it
    assert hz.bites_from(h, spec, inst.bound_T / 1000 / 6.43).T is None


def test_a_bound_read_from_the_runs_data_is_not_extrapolated():
    from dataclasses import replace

    fam, sc, inst, h = _setup("gp_ucb", None, 40)
    spec = _spec(fam, "regret_bound")  # ET-GP-UCB's form (B): a per-run bound from the run's own σ
    realised = replace(spec, claim=replace(spec.claim, id="regret_bound_realised"), bound=lambda ev: ev.rhs_realised)
    bite = hz.bites_from(h, realised, 1.0)
    assert bite.T is None and "each run's data" in bite.reason and bite.message.startswith("bites from: not computed")
    # a constant the family computes only at the study's horizon (not a schedule of the theorem) is not held
    frozen = replace(inst, extra={**inst.extra, "frozen_bound": 1e6})
    spec_f = replace(spec, claim=replace(spec.claim, id="regret_bound_frozen"),
                     bound=lambda ev: ev.inst.extra["frozen_bound"])
    bite = hz.bites_from(hz.Horizons(fam, sc, frozen), spec_f, 1.0)
    assert bite.T is None and "frozen_bound" in bite.reason
    # a study whose bound is not the theorem's expression at its values (a family adding its own term) is not
    # extrapolated from that expression
    other = hz.Horizons(fam, sc, replace(inst, bound_T=1.5 * inst.bound_T))
    bite = hz.bites_from(other, spec, inst.bound_T / 40 / 2)
    assert bite.T is None and "does not give" in bite.reason


@pytest.fixture(scope="module")
def pe_toy_study(tmp_path_factory):
    out = tmp_path_factory.mktemp("bites_pe_toy")
    rc = main(["verify", "--theorem", "pe_gp_ucb", "--scenario", "pe_toy", "--runs", "6", "--horizon", "40",
               "--jobs", "1", "--out", str(out), "--no-report"])
    assert rc in (0, 1, 5)
    return out


def test_verify_says_where_the_vacuous_bound_bites(pe_toy_study, capsys):
    out = pe_toy_study
    summary = json.loads((out / "results" / "summary.json").read_text())
    rb = next(c for c in summary["claims"] if c["id"] == "regret_bound")
    assert rb["kind"] == "identity" and "vacuous" in rb["details"]["vacuous"]
    T = rb["details"]["bites_from_T"]
    assert isinstance(T, int) and T > 40 and rb["details"]["bites_from"]["T"] == T
    assert rb["details"]["bites_from"]["runs"] >= 6
    assert "|f| ≤ B" in rb["details"]["bites_from"]["r_max_source"]  # the family's a-priori r_max = 2B, as the rule
    # the resumed verify prints it beside the identity
    rc = main(["verify", "--theorem", "pe_gp_ucb", "--scenario", "pe_toy", "--runs", "6", "--horizon", "40",
               "--jobs", "1", "--out", str(out), "--no-report"])
    assert rc in (0, 1, 5)
    text = " ".join(capsys.readouterr().out.split())
    assert f"→ bites from T ≈ {T}" in text and f"rerun with --horizon {T}" in text


def test_the_reports_say_where_the_vacuous_bound_bites(pe_toy_study):
    from boundcheck.report.context import load
    from boundcheck.report.verify import html_section, model, render_latex, view_model
    from boundcheck.report.wording import headline

    ctx = load(pe_toy_study / "results")
    msg = next(c for c in ctx.claims if c["id"] == "regret_bound")["details"]["bites_from"]["message"]
    assert "rerun with --horizon" in msg
    html = html_section("verdict", model.verdict_section(ctx))
    assert "rerun with --horizon" in html and "bites from T" in html
    tex = render_latex(view_model(ctx, []))
    assert "rerun with {-}{-}horizon" in tex or "rerun with --horizon" in tex
    assert "bites from T" in headline(ctx)


def test_show_says_where_each_bound_bites(capsys):
    assert main(["show", "pe_gp_ucb"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Where the bound bites on pe_toy_tv (default horizon T = 200" in text
    assert "regret_bound: vacuous at T = 200; does not bite below T = 10^7" in text
    info = api.show_theorem("gp_ucb")["bites_from"]  # no a-priori r_max: estimated on a pilot of random search
    rb = info["claims"]["regret_bound"]
    assert rb["vacuous"] is False and rb["message"].startswith("tested at T = 200 (bites from T ≈")
    assert 1 <= rb["bites_from_T"] <= 200 and math.isfinite(rb["r_max"])
