"""Every check can fail: for every claim in the verdict of every theorem, a planted defect that the claim
catches, at small settings with a fixed seed. The defects are wrappers around the checked algorithm, scenario
transforms or bound transforms (boundcheck.claims.defects), never switches inside the algorithms.

Power at the default run count (N = 200, T = 200) is measured by ``boundcheck power`` /
``benchmarks/bench_power.py`` (docs/verdicts.md, "Sensitivity and false alarms"); here each pair is a fixed-seed
check that the claim says "violated" on the defect, with the same small N at which the in-theory tests say
"not violated". The shipped power tables (``boundcheck/papers/*/power/<theorem>.json``) must show every verdict
claim caught by some planted defect (detection probability ≥ the power target): a claim nothing catches cannot
tell a correct implementation from a broken one. Tables with a known gap are ``xfail(strict=True)``
(:data:`STALE`), so the list cannot go stale itself."""

import json
from pathlib import Path

import pytest

import theory
from boundcheck import api
from boundcheck.claims.conformance import CONFORMANCE
from boundcheck.claims.defects import DEFECTS, Defect, defects_for, wrap_policy
from boundcheck.claims.families import family_for
from boundcheck.cli import main
from boundcheck.testing import format_claims, run_check
from theory import plugins

# GP-TS's Lemma 10 step needs a sampler far too narrow to break within a few short runs: v_t/33 (the library's
# beta_small, v_t/10, breaks it in ≈2 % of runs, caught with probability ≈ 0.99 at N = 200, T = 200)
NARROW_TS = Defect("v_over_33", "GP-TS samples with v_t/33", ("gp_ts",), policy=wrap_policy("beta_scaled", factor=0.03))

# (theorem, runs, horizon) -> [(defect, claims it must catch)]
CATCHES = {
    ("pe_gp_ucb", 30, 40): [
        ("bound_understated", ["regret_bound", "regret_bound_anytime", "regret_bound_tight"]),
        ("no_prediction_step", ["confidence_event", "D4_information", "K1_calibration"]),
        ("noise_doubled", ["noise_event", "K1_calibration"]),
        ("sigma_after_update", ["prior_preserved", "D1_preservation"]),
        ("truth_outside_model", ["confidence_event", "bounded_function", "K1_calibration"]),
        ("beta_small", ["prior_preserved", "D1_preservation", "D2_optimism"]),
        ("dropped_observation", ["D3_intermediate", "D4_information", "K1_calibration"]),
        ("usage_double_counted", ["D5_bookkeeping"]),
        ("stale_action", ["confidence_event", "D4_information", "K1_calibration"]),
    ],
    ("gp_ucb", 24, 40): [
        ("bound_understated", ["regret_bound", "regret_bound_anytime"]),
        ("beta_small", ["D1_optimism"]),
        ("dropped_observation", ["D3_information"]),
        ("stale_action", ["confidence_event", "D3_information", "K1_calibration"]),
        ("truth_outside_model", ["confidence_event", "K1_calibration"]),
    ],
    ("gp_ucb_compact", 20, 25): [  # Srinivas et al. Theorem 2 on the box [0,1] (the continuum engine)
        ("bound_understated", ["regret_bound", "regret_bound_anytime"]),
        ("beta_small", ["D1_optimism", "optimiser_gap"]),
        ("crude_optimiser", ["optimiser_gap"]),
        ("dropped_observation_box", ["D3_information"]),
        ("noise_var_small", ["D3_information"]),
        ("stale_action", ["confidence_chosen", "confidence_discretised", "D3_information", "K1_calibration"]),
        ("prior_lengthscale_wrong", ["confidence_chosen", "confidence_discretised", "K1_calibration"]),
        ("truth_amplified", ["confidence_chosen", "lipschitz_event", "confidence_discretised", "K1_calibration"]),
        ("truth_rougher", ["confidence_discretised", "K1_calibration"]),
        ("noise_doubled", ["K1_calibration"]),
    ],
    ("tv_gp_ucb_compact", 20, 25): [  # TV-GP-UCB on the box [0,1], an ε = 0.02 chain (paper 001's folder)
        ("bound_understated", ["regret_bound", "regret_bound_anytime"]),
        ("eps_told_zero_box", ["confidence_chosen", "confidence_discretised", "D3_information", "K1_calibration"]),
        ("beta_small", ["optimiser_gap"]),
        ("argmin_box", ["D1_optimism", "optimiser_gap"]),
        ("dropped_observation_box", ["D3_information", "K1_calibration"]),
        ("prior_lengthscale_wrong", ["D3_information", "K1_calibration"]),
        ("stale_action", ["confidence_chosen", "confidence_discretised", "D3_information", "K1_calibration"]),
        ("chain_rougher", ["lipschitz_event", "confidence_discretised", "K1_calibration"]),
    ],
    ("igp_ucb_compact", 20, 25): [  # Chowdhury & Gopalan's Theorem 3 on the box [0,1] (an RKHS truth)
        ("bound_understated", ["regret_bound", "regret_bound_anytime"]),
        ("rkhs_norm_tripled", ["confidence_chosen"]),
        ("noise_doubled", ["self_normalized"]),
        ("beta_small", ["D1_optimism", "optimiser_gap"]),
        ("crude_optimiser", ["optimiser_gap"]),
        ("dropped_observation_box", ["D3_information"]),
        ("stale_action", ["D3_information"]),
        ("prior_lengthscale_wrong", ["D3_information"]),
    ],
    ("gp_ts_compact", 20, 25): [  # Chowdhury & Gopalan's Theorem 4 on the box [0,1] (grids D_t, an RKHS truth)
        ("rkhs_norm_tripled", ["confidence_chosen", "discretisation"]),
        ("grid_schedule_halved", ["discretisation"]),
        ("ts_box_grid_coarse", ["decision_set"]),
        ("beta_small", ["ts_sample_calibration"]),
        ("noise_doubled", ["self_normalized"]),
        ("dropped_observation_box", ["D3_information"]),
        ("stale_action", ["confidence_chosen", "D3_information"]),
    ],
    ("gp_ucb_rkhs_compact", 20, 25): [  # Srinivas et al. Theorem 3 on the box (its β_t far too wide for the rest)
        ("rkhs_norm_1000x", ["confidence_chosen"]),
        ("crude_optimiser", ["optimiser_gap"]),
        ("width_1e-4", ["optimiser_gap"]),
        ("dropped_observation_box", ["D3_information"]),
        ("noise_var_small", ["D3_information"]),
    ],
    ("igp_ucb_confidence", 24, 40): [
        ("rkhs_norm_tripled", ["confidence_event", "confidence_data_dependent"]),
        ("noise_doubled", ["self_normalized", "self_normalized_ay"]),
        ("dropped_observation", ["D1_decomposition", "D2_information"]),
    ],
    ("igp_ucb", 24, 40): [
        ("bound_understated", ["regret_bound", "regret_bound_anytime"]),
        ("rkhs_norm_tripled", ["confidence_event"]),
        ("noise_doubled", ["self_normalized"]),
        ("beta_small", ["D1_optimism"]),
        ("dropped_observation", ["D3_information"]),
    ],
    ("gp_ts", 24, 40): [
        ("rkhs_norm_tripled", ["confidence_event"]),
        ("noise_doubled", ["self_normalized"]),
        ("ts_scale_small", ["ts_sample_calibration", "ts_anticoncentration"]),
        ("ts_prior_draws", ["ts_sample_calibration", "ts_sample_concentration"]),
        (NARROW_TS, ["D2_ts_step", "ts_sample_calibration"]),
        ("dropped_observation", ["D3_information"]),
    ],
}
CASES = [(th, n, T, d, claims) for (th, n, T), rows in CATCHES.items() for d, claims in rows]


def _name(d) -> str:
    return d if isinstance(d, str) else d.name


@pytest.mark.parametrize("theorem, runs, horizon, defect, claims", CASES,
                         ids=[f"{c[0]}-{_name(c[3])}" for c in CASES])
def test_planted_defect_is_caught(theorem, runs, horizon, defect, claims):
    alg = theory.get(theorem).algorithm
    s = run_check(theorem, runs=runs, horizon=horizon, seed=1, policies=[alg], defects=[defect])
    assert not s["in_theory"] and any(_name(defect) in r for r in s["out_of_theory_reasons"])
    verdicts = {c["id"]: c["verdict"] for c in s["claims"]}
    missed = [c for c in claims if verdicts[c] != "violated"]
    assert not missed, f"{_name(defect)} not caught by {missed}\n{format_claims(s)}"
    assert s["verdict"] == "violated"


@pytest.mark.parametrize("theorem, runs, horizon", list(CATCHES))
def test_every_claim_in_the_verdict_has_a_defect_that_catches_it(theorem, runs, horizon):
    """The table above covers every claim of the theorem except sanity identities and claims the bound makes
    vacuous at these settings (shown outside the verdict, with why)."""
    fam = family_for(theory.get(theorem))
    spec = api.build_study(theorem, runs=runs, horizon=horizon, seed=1)
    inst = fam.instantiate(spec.scenario, spec.horizon, spec.delta)
    vacuous = fam.vacuous_claims(spec.scenario, inst)
    covered = {c for _, cs in CATCHES[(theorem, runs, horizon)] for c in cs}
    need = {c.id for c in fam.claims if c.kind != "identity"} - set(vacuous)
    assert need <= covered, need - covered
    if theorem == "gp_ts":  # its bound is ≈ 5000× the largest regret any algorithm can incur
        # (conformance: a sanity identity when no shadow runs, the plain verify's case:
        # tests/claims/test_conformance.py)
        assert set(vacuous) - {"conformance"} == {"regret_bound", "regret_bound_anytime"}


def test_every_library_defect_applies_to_some_theorem_and_catches_something_there():
    from planted_catches import COMBINATORIAL_CATCHES, ET_GP_UCB_CATCHES, R_SW_GP_UCB_CATCHES

    caught = {_name(d) for rows in CATCHES.values() for d, _ in rows}
    caught |= {d for _, _, rows in ET_GP_UCB_CATCHES.values() for d, _ in rows}
    caught |= {d for rows in R_SW_GP_UCB_CATCHES.values() for d, _ in rows}
    caught |= {d for _, d in COMBINATORIAL_CATCHES}
    from planted_catches import ET_GP_UCB_COMPACT_CATCHES

    caught |= {d for d, _ in ET_GP_UCB_COMPACT_CATCHES}
    from theory import plugins

    def builtin(paper) -> bool:  # a built-in paper's theory part is theory.<slug> (a module path)
        target = paper.parts["theory"]
        module = target if isinstance(target, str) else target.__module__
        return module.startswith(("theory.", "boundcheck."))

    def outside(d) -> bool:  # a defect of an installed paper plugin (its own tests show what it catches)
        papers = {plugins.paper_of_theorem(t) for t in d.theorems}
        return bool(papers) and all(p is not None and not builtin(p) for p in papers)

    for name, d in DEFECTS.items():
        if outside(d):
            continue
        assert d.applies_to, name
        assert name in caught or name in ("noise_var_small", "argmin", "ts_scale_large", "ts_mean_dropped"), name
    assert {d.name for d in defects_for("gp_ts")} >= {"ts_scale_small", "ts_prior_draws", "ts_mean_dropped"}


def test_gp_ts_sampler_scaled_by_0_05_is_violated_on_the_command_line(tmp_path, capsys):
    """Acceptance: GP-TS with its sampler scaled by 0.05 → violated (exit 1), outside the theorem."""
    rc = main(["verify", "--theorem", "gp_ts", "--defect", "ts_scale_small", "--runs", "20", "--horizon", "30",
               "--jobs", "1", "--out", str(tmp_path), "--json", "--no-report"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["verdict"] == "violated" and not out["in_theory"]
    cal = next(c for c in out["claims"] if c["id"] == "ts_sample_calibration")
    assert cal["verdict"] == "violated" and cal["p_value"] < 1e-10


def test_power_table_structure_and_files(tmp_path):
    t = api.power("gp_ucb", runs=8, horizon=10, seed=2, defects=["stale_action", "beta_small"], jobs=1,
                  out=tmp_path, subsets=10)
    assert (tmp_path / "power.json").exists() and set(t["defects"]) == {"none", "stale_action", "beta_small"}
    assert t["pool"] == 16 and t["runs"] == 8
    assert "D3_information" in t["defects"]["stale_action"]["caught_by"]
    assert "D1_optimism" in t["claims"] and "beta_small" in t["claims"]["D1_optimism"]["catches"]
    assert t["claims"]["K1_calibration"]["detectable"]["scale_factor"] > 1
    assert all(p == 0.0 for p in t["defects"]["none"]["probability"].values())  # no false alarm here
    assert "D2_intermediate" in t["identities"]


@pytest.mark.parametrize("argv, fragment", [
    (["verify", "--theorem", "gp_ucb", "--defect", "nope"], "unknown defect"),
    (["verify", "--theorem", "gp_ucb", "--defect", "ts_scale_small"], "does not apply"),
    (["power", "--theorem", "gp_ucb", "--defect", "nope"], "unknown defect"),
    (["power", "--theorem", "gp_ucb", "--false-alarm", "1.5"], "false-alarm"),
])
def test_bad_defect_input_one_line_exit_2_nothing_written(argv, fragment, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(argv + ["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("theorem", ["r_gp_ucb", "sw_gp_ucb"])
def test_library_defects_reach_the_variation_budget_theorems(theorem):
    """The generic wrappers apply to R-/SW-GP-UCB too (same posterior interface, β from the study's schedule);
    paper 003's own planted defects for every claim of these theorems are in
    tests/papers/r_sw_gp_ucb/test_variation_budget.py."""
    alg = theory.get(theorem).algorithm
    assert {"dropped_observation", "noise_doubled", "bound_understated"} <= {d.name for d in defects_for(theorem)}
    s = run_check(theorem, runs=8, horizon=60, seed=1, policies=[alg], defects=["dropped_observation"])
    verdicts = {c["id"]: c["verdict"] for c in s["claims"]}
    assert verdicts["D1_posterior"] == "violated", format_claims(s)  # the posterior against the replay
    assert not s["in_theory"] and s["verdict"] == "violated"


# ---------------------------------------------------------------- the shipped power tables
#: theorem -> why its shipped table does not yet show every verdict claim caught (regenerate it:
#: ``python benchmarks/bench_power.py --theorem <id>``)
STALE: dict[str, str] = {}


def _tables() -> list[Path]:
    out = []
    for paper in plugins.papers().values():
        if paper.power_dir is not None and Path(paper.power_dir).is_dir():
            out += sorted(Path(paper.power_dir).glob("*.json"))
    return out


def uncaught(table: dict) -> list[str]:
    """The verdict claims of the table's theorem (its current claim table) that no planted defect catches, or
    that the table never measured (sorted)."""
    fam = family_for(table["theorem"])
    # conformance is an identity wherever the checked code is the theorem's own algorithm, as in a power study
    outside = set(table.get("identities") or ()) | set(table.get("vacuous") or {}) | {CONFORMANCE}
    measured = table.get("claims") or {}
    return sorted(c.id for c in fam.claims
                  if c.kind != "identity" and c.id not in outside and not (measured.get(c.id) or {}).get("catches"))


def _params():
    for path in _tables():
        theorem = path.stem
        marks = [pytest.mark.xfail(strict=True, reason=f"stale power table: {STALE[theorem]}")] \
            if theorem in STALE else []
        yield pytest.param(path, id=theorem, marks=marks)


@pytest.mark.parametrize("path", list(_params()))
def test_every_verdict_claim_is_caught_by_a_planted_defect(path):
    table = json.loads(path.read_text())
    assert table["theorem"] == path.stem
    missing = uncaught(table)
    assert not missing, (f"{path.name}: claims in the verdict that no planted defect catches at "
                         f"{table['runs']} runs, T = {table['horizon']}: {', '.join(missing)}")


def test_uncaught_is_what_an_incomplete_verdict_names():
    """The summary's list of planted defects no remaining claim catches reads the same shipped tables."""
    from boundcheck.study.summary import uncaught_defects

    table = json.loads((plugins.paper_of_theorem("gp_ucb").power_dir / "gp_ucb.json").read_text())
    every = {d for d in table["defects"] if d != "none"}
    assert uncaught_defects("gp_ucb", set(table["claims"])) == sorted(every - {
        d for c in table["claims"].values() for d in c["catches"]})
    assert set(uncaught_defects("gp_ucb", set())) == every
