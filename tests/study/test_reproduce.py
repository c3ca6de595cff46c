"""`boundcheck reproduce`: empirical claims with paired tests, and the exploration of unstated settings.

The statistics are tested on synthetic per-run data (no simulation); the command end to end on tiny run counts
and horizons. The full experiments run from the command, not here."""

import json
import re
import shutil
import subprocess
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from boundcheck import api
from boundcheck.claims.empirical import PanelData, describe_region, explore_claim, judge_empirical, metric_values
from boundcheck.cli import main
from boundcheck.papers.pe_gp_ucb.experiments import toy_variant
from boundcheck.report.replication_figures import ReplicationTable, register_replication_table
from boundcheck.study.experiments import (
    Experiment,
    Explore,
    ExploreAxis,
    Panel,
    Paper,
    Printed,
    experiments_of,
    get_experiment,
    get_paper,
    paper_ids,
    register_experiment,
    register_paper,
)
from boundcheck.world import get_scenario
from theory.empirical import EmpiricalClaim, empirical_claims, register_empirical


# ------------------------------------------------------------------------------------------ helpers
def _panel(values: dict[str, np.ndarray], horizon: int = 10, priors: dict | None = None) -> PanelData:
    """A panel with per-run final regrets ``values[alg]`` (and optional per-step priors (runs, T))."""
    runs = pd.DataFrame({"run": np.concatenate([np.arange(len(v)) for v in values.values()]),
                         "algorithm": np.repeat(list(values), [len(v) for v in values.values()]),
                         "regret": np.concatenate([np.asarray(v, float) for v in values.values()])})
    steps = []
    for alg, P in (priors or {}).items():
        for r in range(P.shape[0]):
            for t in range(P.shape[1]):
                steps.append({"run": r, "algorithm": alg, "t": t + 1, "cum_regret": 0.0, "prior": P[r, t]})
    return PanelData(runs=runs, steps=pd.DataFrame(steps) if steps else None, horizon=horizon,
                     truth_index=2, n_candidates=5)


def _claim(id, kind, subject, others=(), **kw) -> EmpiricalClaim:
    return EmpiricalClaim(id=id, paper="unit", experiment="e", location="here", wording="the paper says",
                          reading="tested", kind=kind, metric=kw.pop("metric", "regret"), subject=subject,
                          others=tuple(others), **kw)


def _verdicts(claims, panels, alpha=0.05):
    return {r.id: r.verdict for r in judge_empirical(claims, panels, alpha)}


RNG = np.random.default_rng(0)
N = 40
BASE = 10 + RNG.standard_normal(N)


# ------------------------------------------------------------------------------------------ statistics
def test_orderings_reproduced_not_reproduced_inconclusive():
    panel = {("e", "p"): _panel({"a": BASE - 1 + 0.3 * RNG.standard_normal(N), "b": BASE,
                                 "c": BASE + 0.01 * RNG.standard_normal(N), "d": BASE + 2})}
    v = _verdicts([_claim("a_beats_b", "less", "a", ["b"]), _claim("b_beats_a", "less", "b", ["a"]),
                   _claim("c_beats_b", "less", "c", ["b"]), _claim("a_lowest", "lowest", "a", ["b", "d"]),
                   _claim("b_lowest", "lowest", "b", ["a", "d"]),
                   _claim("b_similar_c", "similar", "b", ["c"], margin=0.1),
                   _claim("b_similar_d", "similar", "b", ["d"], margin=0.1),
                   _claim("d_noninferior_b", "noninferior", "d", ["b"], margin=0.5),
                   _claim("d_noninferior_b_tight", "noninferior", "d", ["b"], margin=0.05)], panel)
    assert v == {"a_beats_b": "reproduced", "b_beats_a": "not reproduced", "c_beats_b": "inconclusive",
                 "a_lowest": "reproduced", "b_lowest": "not reproduced", "b_similar_c": "reproduced",
                 "b_similar_d": "not reproduced", "d_noninferior_b": "reproduced",
                 "d_noninferior_b_tight": "not reproduced"}


def test_effect_size_and_interval_reported():
    panel = {("e", "p"): _panel({"a": BASE - 1 + 0.3 * RNG.standard_normal(N), "b": BASE})}
    (r,) = judge_empirical([_claim("a_beats_b", "less", "a", ["b"])], panel, 0.05)
    assert r.estimate == pytest.approx(-1, abs=0.2) and r.ci_low < r.estimate < r.ci_high < 0
    assert r.relative == pytest.approx(r.estimate / BASE.mean()) and r.frac_subject_better > 0.9 and r.d_z < -2
    assert r.p_adj_reproduced <= 0.05 < r.p_adj_not_reproduced


def test_thresholds_bands_trends_and_a_spread_free_sample():
    share = np.clip(0.8 + 0.05 * RNG.standard_normal(N), 0, 1)
    panels = {("e", "p"): _panel({"a": share, "b": np.ones(N)}),
              ("e", "q"): _panel({"a": share + 0.1 + 0.01 * RNG.standard_normal(N), "b": np.ones(N)})}
    v = _verdicts([_claim("above", "above", "a", threshold=0.5, panels=("p",)),
                   _claim("below", "below", "a", threshold=0.5, panels=("p",)),
                   _claim("band", "interval", "a", band=(0.7, 0.9), panels=("p",)),
                   _claim("band_off", "interval", "a", band=(0.1, 0.3), panels=("p",)),
                   _claim("up", "increasing", "a", panels=("p", "q")),
                   _claim("down", "decreasing", "a", panels=("p", "q")),
                   _claim("constant_above", "above", "b", threshold=0.5, panels=("p",))], panels)
    assert v == {"above": "reproduced", "below": "not reproduced", "band": "reproduced", "band_off": "not reproduced",
                 "up": "reproduced", "down": "not reproduced", "constant_above": "reproduced"}


def test_printed_numbers_beside_ours():
    """An experiment's printed numbers: ours (mean, SE over the runs) beside the paper's, within ± 2 SE or not,
    z with √2 SE; a metric the panel did not record leaves ours empty (no traceback)."""
    from boundcheck.claims.empirical import printed_beside_ours
    from boundcheck.study.experiments import Printed

    v = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    rows = printed_beside_ours([Printed("p", "a", "regret", 3.5, "near"), Printed("p", "a", "regret", 10.0, "far"),
                                Printed("p", "a", "col:n_resets", 1.0, "missing"),
                                Printed("q", "a", "regret", 1.0, "no panel")], {"p": _panel({"a": v})})
    se = v.std(ddof=1) / np.sqrt(5)
    assert rows[0]["ours"] == 3.0 and rows[0]["se"] == pytest.approx(se) and rows[0]["within_2se"] is True
    assert rows[0]["z"] == pytest.approx(-0.5 / (np.sqrt(2) * se)) and rows[1]["within_2se"] is False
    assert rows[2]["ours"] is None and rows[3]["ours"] is None and rows[3]["runs"] == 0
    assert rows[0]["difference"] == pytest.approx(-0.5) and rows[0]["relative"] == pytest.approx(-0.5 / 3.5)
    assert rows[2]["difference"] is None and rows[2]["relative"] is None


def test_printed_rows_show_every_column_in_every_format():
    """paper | ours ± 2 SE | difference | z | relative difference, for every row (also for a reproduce.json
    written before the difference was stored)."""
    from boundcheck.report.reproduce.model import PRINTED_HEAD, printed_rows

    exp = {"printed_results": [
        {"label": "R", "panel": "p", "paper": 200.0, "ours": 180.0, "se": 5.0, "runs": 50, "within_2se": False,
         "z": -20 / (np.sqrt(2) * 5), "difference": -20.0, "relative": -0.1},
        {"label": "old", "panel": "p", "paper": 10.0, "ours": 11.0, "se": 1.0, "runs": 50, "within_2se": True,
         "z": 0.707}]}
    rows = printed_rows(exp)
    assert len(PRINTED_HEAD) == len(rows[0]) == 8
    assert rows[0][4] == "-20" and rows[0][5] == "-2.83" and rows[0][6] == "-10.0%"
    assert rows[1][4] == "+1" and rows[1][6] == "+10.0%"
    from boundcheck.cli.reproduce import printed_table

    head, same = printed_table(exp)
    assert head == PRINTED_HEAD and same == rows


def test_a_band_too_narrow_for_the_runs_says_so_and_how_many_would_do():
    """An ``interval`` claim whose band is narrower than the simultaneous interval at N runs cannot be
    "reproduced" whatever the data: the verdict says so, with the runs that would resolve it."""
    from boundcheck.claims.empirical import resolution_text

    x = 0.8 + 0.05 * RNG.standard_normal(N)
    panels = {("e", "p"): _panel({"a": x})}
    narrow, wide = judge_empirical([_claim("narrow", "interval", "a", band=(0.79, 0.81), panels=("p",)),
                                    _claim("wide", "interval", "a", band=(0.6, 1.0), panels=("p",))], panels, 0.05)
    r = narrow.details["resolution"]
    assert narrow.verdict == "inconclusive" and r["resolvable"] is False
    assert r["half_width"] > r["margin"] == pytest.approx(0.01)
    assert r["runs_to_resolve"] > N
    text = resolution_text(narrow.to_json())
    assert f"cannot be resolved at {N} runs" in text and f"{r['runs_to_resolve']} runs would" in text
    assert wide.verdict == "reproduced" and wide.details["resolution"]["resolvable"] is True
    assert resolution_text(wide.to_json()) == ""
    # at the runs it names, a band that wide is resolvable (the interval's half-width is below the margin)
    from scipy import stats

    n2 = r["runs_to_resolve"]
    half = stats.t.ppf(1 - 0.05 / 4, n2 - 1) * x.std(ddof=1) / np.sqrt(n2)
    assert half < 0.01


def test_prior_metrics_from_the_steps_table():
    T, tp = 10, 2
    P = np.full((3, T), tp)
    P[0, T // 2:] = 4  # run 0: the late half on one wrong prior
    P[1] = np.arange(T) % 5  # run 1: round robin over the 5 priors
    data = _panel({"m": np.zeros(3)}, horizon=T, priors={"m": P})
    np.testing.assert_allclose(metric_values("late_share_wrong_mode", data, "m"), [1.0, 0.2, 0.0])
    np.testing.assert_allclose(metric_values("late_share_truth", data, "m"), [0.0, 0.2, 1.0])
    np.testing.assert_allclose(metric_values("share_tv_uniform", data, "m"), [0.6, 0.0, 0.8])
    np.testing.assert_allclose(metric_values("top2_share", data, "m"), [1.0, 0.4, 1.0])


def test_family_wise_false_alarms_within_the_budget():
    """On the boundary of every claim (no true difference), a wrong "reproduced" verdict anywhere among 6
    claims happens at most at the budget's rate (Holm), up to Monte Carlo error."""
    rng = np.random.default_rng(1)
    claims = [_claim(f"c{i}", "less", "a", [f"b{i}"]) for i in range(6)]
    alpha, reps, wrong = 0.1, 100, 0
    for _ in range(reps):
        x = {"a": rng.standard_normal(30)} | {f"b{i}": rng.standard_normal(30) for i in range(6)}
        wrong += any(r.verdict == "reproduced" for r in judge_empirical(claims, {("e", "p"): _panel(x)}, alpha))
    assert wrong / reps <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / reps)


def test_grid_cells_tested_with_holm():
    claim = _claim("a_beats_b", "less", "a", ["b"])
    strong = _panel({"a": BASE - 1 + 0.3 * RNG.standard_normal(N), "b": BASE})
    null = _panel({"a": BASE + 0.3 * RNG.standard_normal(N), "b": BASE})
    reverse = _panel({"a": BASE + 1 + 0.3 * RNG.standard_normal(N), "b": BASE})
    rows = explore_claim(claim, [strong, null, reverse], 0.05)
    assert [r["reproduces"] for r in rows] == [True, False, False]
    assert [r["reversed"] for r in rows] == [False, False, True]
    assert rows[0]["favourable"] and not rows[2]["favourable"]
    assert all(r["p_adj_reproduced"] >= r["p_reproduced"] for r in rows)


def test_describe_region():
    axes = {"beta": [1.0, 0.1], "noise": [0.1, 0.01]}
    cells = [{"beta": b, "noise": n} for b in axes["beta"] for n in axes["noise"]]
    assert describe_region(axes, cells, [False] * 4) == "in none of the 4 settings tried"
    assert describe_region(axes, cells, [False, False, True, True]) == "in 2 of 4 settings, only when beta ∈ {0.1}"
    assert "in 1 of 4 settings, only when beta ∈ {0.1} and noise ∈ {0.01}" in describe_region(
        axes, cells, [False, False, False, True])


def test_claims_are_validated():
    with pytest.raises(ValueError, match="margin"):
        _claim("x", "similar", "a", ["b"])
    with pytest.raises(ValueError, match="unknown metric"):
        _claim("x", "less", "a", ["b"], metric="happiness")
    with pytest.raises(ValueError, match="two ordered panels"):
        _claim("x", "increasing", "a", panels=("p",))


# ------------------------------------------------------------------------------------------ the registry
def test_every_experiment_claim_names_its_algorithms_and_panels():
    """Static consistency: each runnable experiment's claims read algorithms its panels run, on panels it has;
    every claim of a paper belongs to one of its experiments (nothing is simulated here)."""
    assert {"pe_gp_ucb", "igp_ucb_gp_ts"} <= set(paper_ids())
    for pid in ("pe_gp_ucb", "igp_ucb_gp_ts"):
        names = {e.name for e in experiments_of(pid)}
        assert {c.experiment for c in empirical_claims(pid)} <= names
        for exp in experiments_of(pid):
            assert exp.claims, exp.name
            if not exp.runnable:
                continue
            for c in exp.claims:
                panels = [exp.panel(p) for p in c.panels] or [exp.panels[0]]
                for p in panels:
                    assert set(c.algorithms) <= set(p.algorithms), (c.id, p.name)


# ------------------------------------------------------------------------------------------ end to end
PLANTED = "test_planted"


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A tiny experiment on the toy problem (T = 30) with claims that are false and true by construction."""
    try:
        get_paper(PLANTED)
    except Exception:  # noqa: BLE001 - first use in this session
        register_paper(Paper(PLANTED, "planted claims", "a test", "none", ("pe_gp_ucb",)))
        cells = ExploreAxis("beta_scale", "β scale", (1.0, 0.1)), ExploreAxis("noise", "noise R", (0.1, 0.01))
        cell0 = {"kernel_variance": 1.0, "heights": "2 / 0.5", "width": 0.03, "lengthscale": 0.01,
                 "restricted": "|x−0.1| > 0.05 on even t"}

        def build(cell):
            sc, bs = toy_variant(cell0 | dict(cell))
            return sc.at(horizon=30), bs

        register_experiment(Experiment(
            paper=PLANTED, name="toy", title="toy, T = 30", location="nowhere", description="planted claims",
            panels=(Panel("toy", "toy (T = 30)", "pe_gp_ucb", lambda: get_scenario("pe_toy").at(horizon=30),
                          ("pe_gp_ucb", "oracle_tv_gp_ucb", "mle", "random")),),
            settings=(), default_runs=12, figures=("regret", "prior_selection"),
            explore=Explore(axes=cells, build=build, panel="toy", runs=6, confirm=1, confirm_runs=10),
            printed=(Printed("toy", "random", "regret", 12.5, "toy printed number"),),
            tables=("run_count", "undefined")))

        def run_count(ctx, exp):
            return ReplicationTable("run_count", "runs per panel", "a paper's own table", ["panel", "runs"],
                                    [[p["title"], p["runs"]] for p in exp["panel_results"]], numeric={1})

        register_replication_table(PLANTED, "run_count", run_count)
        common = dict(paper=PLANTED, experiment="toy", location="planted", wording="by construction")
        for c in (
            EmpiricalClaim(id="random_beats_oracle", reading="E[R_T(random) − R_T(oracle)] < 0", kind="less",
                           metric="regret", subject="random", others=("oracle_tv_gp_ucb",), **common),
            EmpiricalClaim(id="oracle_beats_random", reading="E[R_T(oracle) − R_T(random)] < 0", kind="less",
                           metric="regret", subject="oracle_tv_gp_ucb", others=("random",), **common),
            EmpiricalClaim(id="random_regret_negative", reading="E[R_T(random)] < 0", kind="below", metric="regret",
                           subject="random", threshold=0.0, **common),
            EmpiricalClaim(id="mle_stuck", reading="MLE late share on one wrong prior > 0.9", kind="above",
                           metric="late_share_wrong_mode", subject="mle", threshold=0.9, **common),
        ):
            register_empirical(c, replace=True)
    out = tmp_path_factory.mktemp("reproduce")
    summary = api.reproduce(PLANTED, runs=8, seed=3, jobs=1, out=out, explore=True, report=True)
    return summary, out


def test_planted_false_claims_are_not_reproduced(planted):
    summary, _ = planted
    v = {c["id"]: c for c in summary["claims"]}
    assert v["random_beats_oracle"]["verdict"] == "not reproduced"
    assert v["random_regret_negative"]["verdict"] == "not reproduced"
    assert v["oracle_beats_random"]["verdict"] == "reproduced"
    for c in v.values():  # every claim has its verdict and its effect size
        assert c["verdict"] in ("reproduced", "not reproduced", "inconclusive")
        assert c["estimate"] is not None and c["ci_low"] <= c["ci_high"]
    assert summary["counts"]["not reproduced"] >= 2


def test_explore_grid_and_reports(planted):
    summary, out = planted
    ex = summary["explore"]["toy"]
    assert len(ex["cells"]) == 4 and "random_beats_oracle" in ex["claims"]
    block = ex["claims"]["random_beats_oracle"]
    assert block["where"] == "in none of the 4 settings tried"
    assert all(c["p_adj_reproduced"] >= c["p_reproduced"] for c in block["cells"])
    assert "oracle_beats_random" not in ex["claims"]  # reproduced claims are not explored
    assert block["confirmed"] == [] and "nothing to confirm" in block["confirmation"]  # never favourable
    assert ex["confirm_runs"] == 10 and ex["confirm_seed"] != 3
    saved = json.loads((out / "reproduce.json").read_text())
    assert saved["counts"] == summary["counts"]
    html = (out / "index.html").read_text()
    assert "Replication note" in html and "random_beats_oracle" in html and "data:image/png;base64," in html
    for fig in ("regret_toy", "priors_toy", "claims", "explore_random_beats_oracle"):
        assert (out / "figures" / f"{fig}.png").exists(), fig  # drawn once, as PNG, for both reports
        assert not (out / "figures" / f"{fig}.pdf").exists(), fig
    tex = (out / "report.tex").read_text()
    assert tex.isascii() and "figures/regret_toy.png" in tex
    for text in (html, tex):  # the paper's printed number beside ours, the paper's own table, the missing one
        assert "numbers beside ours" in text and "runs per panel" in text and "toy printed number" in text
        assert "the paper defines no such table" in text
    (row,) = saved["experiments"][0]["printed_results"]
    assert row["paper"] == 12.5 and row["runs"] == 8 and row["ours"] > 0


def test_an_explored_grid_on_two_jobs_equals_one_job_and_leaves_nothing_in_shm(planted, tmp_path):
    """The grid's cells on the runtime's pool (``--jobs 2``): the same cells, the same numbers, no file left in
    /dev/shm (joblib's memmapping is off: it left "leaked file objects" at exit; tests/runtime/test_pool_exit.py
    checks the exit itself)."""
    import glob
    import os

    summary, _ = planted
    before = set(glob.glob("/dev/shm/joblib_memmapping_folder_*"))
    two = api.reproduce(PLANTED, runs=8, seed=3, jobs=2, out=tmp_path, explore=True, report=False)
    for key in ("cells", "claims"):
        assert two["explore"]["toy"][key] == summary["explore"]["toy"][key], key
    assert {c["id"]: c["estimate"] for c in two["claims"]} == {c["id"]: c["estimate"] for c in summary["claims"]}
    # joblib makes (empty) folders for its executors and removes them at exit: no file may be in one
    mine = [p for p in set(glob.glob("/dev/shm/joblib_memmapping_folder_*")) - before if f"_{os.getpid()}_" in p]
    assert not [f for p in mine for f in os.listdir(p)]


def test_rerun_resumes_from_the_store(planted):
    summary, out = planted
    stamp = {p: p.stat().st_mtime_ns for p in out.rglob("chunks/*.parquet")}
    again = api.reproduce(PLANTED, runs=8, seed=3, jobs=1, out=out, explore=True, report=False)
    assert {p: p.stat().st_mtime_ns for p in out.rglob("chunks/*.parquet")} == stamp
    assert [c["verdict"] for c in again["claims"]] == [c["verdict"] for c in summary["claims"]]


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not on PATH")
def test_replication_latex_compiles(planted, tmp_path):
    _, out = planted
    shutil.copytree(out / "figures", tmp_path / "figures")
    shutil.copy(out / "report.tex", tmp_path / "report.tex")
    res = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout[-2000:]
    # one pass is the whole build, as for a verify's report.tex: nothing asks for a rerun (longtable
    # widths, labels), and nothing runs into the margin
    log = (tmp_path / "report.log").read_text(errors="replace")
    assert not re.search(r"Rerun LaTeX|Rerun to get|Label\(s\) may have changed|widths have changed", log), log[-3000:]
    overfull = re.findall(r"^Overfull \\[hv]box.*$", log, re.M)
    assert not overfull, overfull


@pytest.mark.parametrize("argv, fragment", [
    (["reproduce", "nope"], "unknown paper"),
    (["reproduce", "pe_gp_ucb", "--experiment", "nope"], "no experiment"),
    (["reproduce", "pe_gp_ucb", "--runs", "3"], "at least 5"),
    (["reproduce", "pe_gp_ucb", "--runs", "x"], "is not an integer"),
    (["reproduce", "pe_gp_ucb", "--explore-runs", "1"], "at least 5"),
    (["reproduce", "pe_gp_ucb", "--false-alarm", "1.5"], "false-alarm"),
])
def test_bad_input_one_line_exit_2(argv, fragment, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err


def test_cli_json_and_exit_code(planted, capsys):
    _, out = planted
    rc = main(["reproduce", PLANTED, "--runs", "8", "--seed", "3", "--jobs", "1", "--out", str(out), "--json",
               "--no-report"])
    summary = json.loads(capsys.readouterr().out)
    assert rc == 1 and summary["counts"]["not reproduced"] >= 1  # exit 1: some claim not reproduced
    assert {c["id"] for c in summary["claims"]} >= {"random_beats_oracle", "oracle_beats_random"}


def test_toy_variant_builds_the_cell():
    cell = {"beta_scale": 0.1, "kernel_variance": 0.1, "heights": "1 / 0.5", "width": 0.01, "lengthscale": 0.001,
            "noise": 0.01, "restricted": "never"}
    sc, bs = toy_variant(cell)
    base = get_scenario("pe_toy")
    assert bs == 0.1 and sc.noise == 0.01 and len(sc.candidates) == 11 and sc.truth is sc.candidates[2]
    assert np.max(np.diag(sc.candidates[0].K)) == pytest.approx(0.1)
    assert sc.availability.mask(2).all() and not base.availability.mask(2).all()
    assert replace(sc, name="x").horizon == base.horizon


def test_the_result_is_the_summary_with_tables(planted):
    """api.reproduce returns its JSON summary with the notebook views (boundcheck.results): the claims, and every
    panel's stored tables led by the experiment and the panel."""
    from boundcheck.report.notebook import SCOPE
    from boundcheck.results import ReproduceResult

    summary, out = planted
    assert isinstance(summary, ReproduceResult) and summary.folder == out
    assert summary.claims["claim"].tolist() == [c["id"] for c in summary["claims"]]
    runs, regret = summary.runs, summary.regret
    assert set(runs["panel"]) == {"toy"} and list(runs.columns[:2]) == ["experiment", "panel"]
    assert len(runs) == 8 * 4 and len(regret) == len(runs) * 30
    html = summary._repr_html_()
    assert f'class="{SCOPE}"' in html and "random_beats_oracle" in html


def test_panels_side_by_side_on_two_jobs_store_the_same_chunks_as_one_job(tmp_path, monkeypatch):
    """With ``--jobs 2`` the panels of a reproduce go whole to the parent and a worker (api._run_panels: here the
    two panels of paper 004's Fig. 1, quick form, shortened): every stored chunk is bit-identical (sha256) to a
    ``--jobs 1`` run's, and so are the judged claims."""
    import boundcheck.commands.reproduce as api_mod

    calls = []
    real = api_mod._run_spec
    monkeypatch.setattr(api_mod, "_run_spec", lambda *a, **k: calls.append(a[2].jobs) or real(*a, **k))
    orig = get_experiment("igp_ucb_gp_ts", "fig1_rkhs")
    register_experiment(replace(orig.at_quick(), horizon=40), replace=True)
    try:
        one = api.reproduce("igp_ucb_gp_ts", "fig1_rkhs", runs=6, seed=5, jobs=1, out=tmp_path / "one",
                            report=False)
        two = api.reproduce("igp_ucb_gp_ts", "fig1_rkhs", runs=6, seed=5, jobs=2, out=tmp_path / "two",
                            report=False)
    finally:
        register_experiment(orig, replace=True)
    assert calls == [1, 1, 1]  # jobs 1: both panels in turn; jobs 2: one panel here (the other in the worker)
    hashes = {}
    for run in ("one", "two"):
        for m in sorted((tmp_path / run).rglob("results/manifest.json")):
            chunks = json.loads(m.read_text())["chunks"]
            hashes.setdefault(m.relative_to(tmp_path / run).as_posix(), []).append(
                {c: {k: v["sha256"] for k, v in info["files"].items()} for c, info in chunks.items()})
    assert len(hashes) == 2 and all(len(v) == 2 and v[0] == v[1] for v in hashes.values()), hashes
    strip = [{k: c[k] for k in ("id", "verdict", "estimate")} for c in one["claims"]]
    assert strip == [{k: c[k] for k in ("id", "verdict", "estimate")} for c in two["claims"]]


def test_panels_side_by_side_never_start_more_workers_than_cores(tmp_path, monkeypatch):
    """``reproduce --jobs 4096``: the panels side by side ask the pool for at most cores − 1 workers (the parent
    is one process): a --jobs far above the machine starts no idle processes."""
    import os

    import boundcheck.commands.reproduce as api_mod
    from boundcheck import runtime
    from boundcheck.study.runner import RunOptions

    asked = []

    class Stop(Exception):
        pass

    def fake_pool(workers):
        asked.append(workers)
        raise Stop

    monkeypatch.setattr(runtime, "pool", fake_pool)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    specs = [api.build_study("gp_ucb", runs=4, horizon=5, seed=s) for s in (0, 1, 2)]
    with pytest.raises(Stop):
        api_mod._run_panels([(sp, tmp_path / str(i), None) for i, sp in enumerate(specs)],
                            RunOptions(jobs=4096, backend="loky"))
    assert asked == [1]
