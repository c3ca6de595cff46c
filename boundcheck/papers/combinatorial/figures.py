"""Figures of paper 002 (combinatorial semi-bandits).

* :func:`fig_r1_chain` — a verify report's R1 chain Q₁ ≤ Q₂ ≤ … ≤ Q₆ (Lemma A.2 / 3.1): the run means with
  95 % intervals, from the stored ``runs`` table (registered among the report's figures; drawn only for
  results that have the Q columns).
* the figures and tables of a ``boundcheck reproduce combinatorial`` report (``REPLICATION_FIGURES``,
  ``REPLICATION_TABLES``), drawn from the stored runs of the experiments' panels: the chosen paths on the network
  (``paths``: Figs. 6–9), the β_t schedules of Exp. 2 (``beta``: Fig. 3), the final regret against the model
  lengthscale (``lengthscale``: Figs. 4–5) and the paper's orderings tested over the (route, run) pairs of all
  routes together (``pooled_tests``), on every run and on the paper-sized sample (its first 5 runs per route)
  apart. The regret curves per route (Figs. 2–3) are the report's common ``regret`` figure.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection

from boundcheck.report.context import ReportContext
from boundcheck.report.figure_info import register_figure
from boundcheck.utils.laws import stats  # scipy.stats.t without importing scipy.stats

__all__ = ["fig_r1_chain", "fig_paths", "fig_beta", "fig_lengthscale", "paired_test", "pooled_tests",
           "table_pooled_tests", "PAPER_RUNS", "REPLICATION_FIGURES", "REPLICATION_TABLES"]

_Q = ("Q1", "Q2", "Q3", "Q4", "Q5", "Q6")


def fig_r1_chain(ctx: ReportContext, out: Path):
    from boundcheck.report.figures import FigureInfo, _new, _save

    r = ctx.runs[ctx.runs["algorithm"] == ctx.main_algorithm]
    if not set(_Q) <= set(r.columns) or r[list(_Q)].dropna().empty:
        return None
    vals = r[list(_Q)].to_numpy(dtype=float)
    n = vals.shape[0]
    mean = vals.mean(axis=0)
    half = stats.t.ppf(0.975, max(n - 1, 1)) * vals.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(6)
    fig, ax = _new(8.0, 3.6)
    x = np.arange(6)
    ax.errorbar(x, mean, yerr=half, fmt="o-", color="#0173b2", capsize=4, lw=1.6)
    ax.axhline(0.0, color="#999", lw=0.8)
    ax.set_xticks(x, ["Q₁ E[f(a*)−U(a*)]", "Q₂ Σ(f−U)₊ on a*", "Q₃ Rao–Blackwell", "Q₄ φ(√β)Σσ",
                      "Q₅ s|A|Σφ(√β)", "Q₆ bound"], rotation=12)
    ax.set_yscale("symlog", linthresh=1e-2)
    ax.set_ylabel("sum over t ≤ T")
    mono = bool(np.all(np.diff(mean) >= -1e-9 * np.maximum(1, np.abs(mean[1:]))))
    ax.set_title("R1 chain of Lemma A.2 / 3.1 (run means, 95% t-intervals): "
                 + ("monotone" if mono else "NOT monotone"))
    ax.grid(True, axis="y", alpha=0.3)
    png = _save(fig, out, "r1_chain")
    return FigureInfo(
        "r1_chain", "The R1 chain of the left term (Lemma A.2 / 3.1)",
        f"Means over {n} runs of the six quantities that bound Σ_t E[f(a*_t) − U_t(a*_t)]: Q₁ itself, the "
        "positive part over the optimal super arm Q₂, the exact conditional expectation over every base arm Q₃, "
        "its Gaussian-tail bound Q₄, σ ≤ s (Q₅) and the theorem's constant Q₆ (π²/6, or C_ω ξ/(ξ−ω)). The proof "
        "needs Q₁ ≤ … ≤ Q₆; symmetric-log scale.", png)


def fig_paths(ctx, exp: dict, out: Path):
    """``boundcheck reproduce`` figure (experiments with "paths" in their figures): the chosen paths of every
    algorithm on each route, drawn on the network with line width ∝ how often each road was driven (the stored
    ``arm_counts`` of every run), as the paper's Figs. 6–9."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from boundcheck.papers.combinatorial.roads import road_network, routes
    from boundcheck.report.figures import MAX_WIDTH_IN, FigureInfo, _save
    from boundcheck.study.store import ResultStore

    if "paths" not in exp.get("figures", ()):
        return None
    net = road_network()
    seg = np.stack([net.xy[net.tail], net.xy[net.head]], axis=1)
    rows = []
    for p in exp.get("panel_results", []):
        if not str(p.get("scenario", "")).startswith("comb_road_"):
            continue
        r = int(str(p["scenario"]).split("_")[2])
        runs = ResultStore(ctx.out_dir / p["results"]).read_table("runs")
        if "arm_counts" not in runs:
            continue
        counts = {}
        for alg, g in runs.groupby(runs["algorithm"].astype(str)):
            vals = [np.array(s.split(","), dtype=float) for s in g["arm_counts"].dropna()]
            if vals:
                counts[alg] = np.sum(vals, axis=0)
        rows.append((p, routes(net)[r - 1], counts))
    if not rows:
        return None
    algos = list(dict.fromkeys(a for p, _, c in rows for a in p.get("algorithms", sorted(c)) if a in c))
    fig = Figure(figsize=(MAX_WIDTH_IN, MAX_WIDTH_IN / len(algos) * len(rows) + 0.6), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(rows), len(algos), squeeze=False)
    for row, (p, route, counts) in zip(axes, rows, strict=True):
        for ax, alg in zip(row, algos, strict=True):
            ax.add_collection(LineCollection(seg, colors="#dddddd", linewidths=0.4))
            c = counts.get(alg)
            if c is not None and c.max() > 0:
                used = c > 0
                ax.add_collection(LineCollection(seg[route.edges[used]], colors="#0173b2",
                                                 linewidths=0.3 + 3.0 * c[used] / c.max(), alpha=0.85))
            ax.plot(*net.xy[route.start], "k^", ms=4)
            ax.plot(*net.xy[route.goal], "k*", ms=6)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_aspect("equal")
            ax.autoscale()
            ax.set_title(f"{p['title']}: {ctx.label(exp['name'], p['name'], alg)}", fontsize=6)
    name = f"paths_{exp['name']}"
    png = _save(fig, out, name)
    return FigureInfo(name, f"{exp['title']}: chosen paths",
                      "Roads driven by each algorithm on each route over all runs and rounds (line width ∝ count; "
                      "grey: the rest of the synthetic network; triangle: start, star: goal), as the paper's "
                      "exploration plots (Figs. 6–9).", png)


# ------------------------------------------------------------------------ pooled over routes, paper-sized runs
#: the paper ran 5 runs per route: the first 5 runs of every panel are the paper-sized sample
PAPER_RUNS = 5

#: the short names of the pooled tests -> boundcheck's policy ids (Algorithm 2 variants, theory.combinatorial)
_KEYS = {"gp_ucb": "comb_gp_ucb_alg2", "gp_bucb": "comb_gp_bucb_alg2", "gp_ts": "comb_gp_ts_alg2",
         "bi_ucb": "comb_bi_ucb_alg2", "bi_bucb": "comb_bi_bucb_alg2", "bi_ts": "comb_bi_ts_alg2",
         "gp_bucb_half": "comb_gp_bucb_half_alg2", "gp_ucb_scaled": "comb_gp_ucb_half_alg2"}


def paired_test(diff: np.ndarray, claim: str, statement: str, alpha: float = 0.05) -> dict:
    """Two-sided paired t-test of E[diff] = 0 with diff = R_T(expected worse) − R_T(expected better) per
    (route, run) pair: **reproduced** if significant and positive, **contradicted** if significant and negative,
    else **inconclusive**. Effect size d = mean/sd."""
    from scipy import stats as sstats

    d = np.asarray(diff, dtype=float)
    n = d.size
    mean, sd = float(d.mean()), float(d.std(ddof=1)) if n > 1 else float("nan")
    if n > 1 and sd > 0:
        res = sstats.ttest_1samp(d, 0.0)
        p = float(res.pvalue)
        half = float(sstats.t.ppf(1 - alpha / 2, n - 1) * sd / np.sqrt(n))
    else:
        p, half = float("nan"), float("nan")
    verdict = ("reproduced" if p < alpha and mean > 0 else "contradicted" if p < alpha and mean < 0
               else "inconclusive")
    return {"claim": claim, "statement": statement, "pairs": n, "mean_diff": mean, "ci_low": mean - half,
            "ci_high": mean + half, "effect_size": mean / sd if sd else float("nan"), "p_value": p, "verdict": verdict,
            "frac_better": float((d > 0).mean())}


def _panel_route(name: str) -> tuple[int, float]:
    """(route, model lengthscale) of a panel named ``route{r}`` or ``route{r}_l{ℓ}``."""
    head, _, ell = name.partition("_l")
    return int(head.removeprefix("route")), float(ell) if ell else 1.0


def _finals(ctx, exp: dict) -> pd.DataFrame:
    """(route, setting, algorithm, run, regret) of every panel of the experiment, algorithms by short name."""
    from boundcheck.study.store import ResultStore

    back = {v: k for k, v in _KEYS.items()}
    parts = []
    for p in exp.get("panel_results", []):
        if not str(p["name"]).startswith("route"):
            continue
        route, ell = _panel_route(str(p["name"]))
        r = ResultStore(ctx.out_dir / p["results"]).read_table("runs", ["run", "algorithm", "regret"])
        r["algorithm"] = r["algorithm"].astype(str).map(back)
        r = r.dropna(subset=["algorithm"])
        parts.append(r.assign(route=route, setting=ell)[["route", "setting", "algorithm", "run", "regret"]])
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=["route", "setting", "algorithm", "run", "regret"])


def pooled_tests(name: str, final: pd.DataFrame, paper_runs: int = PAPER_RUNS) -> pd.DataFrame:
    """The paper's orderings of experiment ``name`` tested over the (route, run) pairs of every route together:
    one row per claim and sample (``all`` runs, and the ``paper``-sized first ``paper_runs`` runs)."""
    rows = []

    def pairs(setting, worse, better, group):
        f = final[(final["setting"] == setting)]
        if group == "paper":
            f = f[f["run"] < paper_runs]
        w = f.pivot_table(index=["route", "run"], columns="algorithm", values="regret")
        return (w[worse] - w[better]).to_numpy()

    def add(claim, statement, setting, worse, better):
        for group in ("all", "paper"):
            rows.append({**paired_test(pairs(setting, worse, better, group), claim, statement), "sample": group,
                         "comparison": f"R_T({worse}) − R_T({better})"})

    if name == "algorithms":
        s = 1.0
        for fam in ("gp", "bi"):
            add(f"{fam}_ts_lt_bucb", f"{fam.upper()}-TS has lower regret than {fam.upper()}-BUCB", s, f"{fam}_bucb",
                f"{fam}_ts")
            add(f"{fam}_ts_lt_ucb", f"{fam.upper()}-TS has lower regret than {fam.upper()}-UCB", s, f"{fam}_ucb",
                f"{fam}_ts")
        for idx in ("ucb", "bucb", "ts"):
            add(f"gp_lt_bi_{idx}", f"GP-{idx.upper()} has lower regret than BI-{idx.upper()}", s, f"bi_{idx}",
                f"gp_{idx}")
        add("gp_bucb_lt_ucb", "GP-BUCB has lower regret than GP-UCB", s, "gp_ucb", "gp_bucb")
    elif name == "bucb":
        add("bucb_half_lt_bucb", "GP-BUCB with ξ = 0.5 (lower β) has lower regret than ξ = 1", 1.0, "gp_bucb",
            "gp_bucb_half")
        add("bucb_lt_ucb", "GP-BUCB (ξ = 1, smaller β) has lower regret than GP-UCB", 1.0, "gp_ucb", "gp_bucb")
        add("ucb_scaled_lt_ucb", "GP-UCB with β × 0.5 has lower regret than GP-UCB", 1.0, "gp_ucb", "gp_ucb_scaled")
    else:
        for alg, direction in (("gp_bucb", "GP"), ("gp_ts", "GP"), ("bi_bucb", "BI"), ("bi_ts", "BI")):
            for group in ("all", "paper"):
                f = final[final["algorithm"] == alg]
                if group == "paper":
                    f = f[f["run"] < paper_runs]
                w = f.pivot_table(index=["route", "run"], columns="setting", values="regret")
                x = np.log(np.asarray(w.columns, dtype=float))
                xc = x - x.mean()
                slopes = (w.to_numpy() - w.to_numpy().mean(axis=1, keepdims=True)) @ xc / (xc @ xc)
                stmt = ("regret increases with the lengthscale" if direction == "GP"
                        else "no discernible lengthscale pattern (reported; not a directional claim)")
                row = paired_test(slopes, f"lengthscale_trend_{alg}", f"{alg}: {stmt}")
                if direction == "BI":  # 'no pattern': consistent when the slope is not significant either way
                    row["verdict"] = "reproduced" if not row["p_value"] < 0.05 else "contradicted"
                rows.append({**row, "sample": group, "comparison": "slope of R_T on log ℓ per (route, run)"})
    return pd.DataFrame(rows)


def table_pooled_tests(ctx, exp: dict):
    """The paper's orderings pooled over the routes (every run, and the paper-sized first 5 runs apart)."""
    from boundcheck.report.replication_figures import ReplicationTable

    final = _finals(ctx, exp)
    if final.empty:
        return None
    with warnings.catch_warnings():  # a tiny sample of identical differences: the row says "inconclusive"
        warnings.simplefilter("ignore", RuntimeWarning)
        tests = pooled_tests(exp["name"], final)
    rows = [[r["statement"], r["comparison"], r["sample"], r["pairs"], r["mean_diff"], r["ci_low"], r["ci_high"],
             r["effect_size"], r["p_value"], r["frac_better"], r["verdict"]] for r in tests.to_dict("records")]
    return ReplicationTable(
        "pooled_tests", f"{exp['title']}: the orderings pooled over the routes",
        "The paper's claims tested over the (route, run) pairs of all routes together (two-sided paired t-tests, "
        "95 % intervals, not Holm-adjusted: descriptive beside the per-route claims above), on every run ('all') "
        f"and on the paper-sized sample, the first {PAPER_RUNS} runs of each route ('paper'). Difference: the "
        "expected worse minus the expected better (positive: the paper's ordering); fraction: of the pairs where "
        "it is positive. The lengthscale rows test the per-(route, run) slope of R_T on log ℓ; BI's "
        "'no discernible pattern' is consistent when that slope is not significant.",
        ["claim", "difference", "sample", "pairs", "mean", "95 % low", "95 % high", "d", "p", "fraction > 0",
         "reading"], rows, numeric={3, 4, 5, 6, 7, 8, 9})


def fig_beta(ctx, exp: dict, out: Path):
    """Fig. 3's β_t schedules of the GP-BUCB parametrisation (ω = 1, ξ ∈ {1, 0.5}; GP-UCB and β × 0.5) on the
    experiment's first route: the widths the family gives the policies, squared."""
    from boundcheck.papers.combinatorial.family import width_bucb, width_ucb
    from boundcheck.papers.combinatorial.roads import road_network, routes
    from boundcheck.report.figures import MAX_WIDTH_IN, FigureInfo, _new, _save

    if "beta" not in exp.get("figures", ()):
        return None
    panels = [p for p in exp.get("panel_results", []) if str(p["name"]).startswith("route")]
    if not panels:
        return None
    p = panels[0]
    route, _ = _panel_route(str(p["name"]))
    T = int(p["horizon"])
    t = np.maximum(np.arange(T + 1, dtype=float), 1.0)
    logn = np.log(len(routes(road_network())[route - 1].edges))
    ucb = width_ucb(t, logn)
    widths = {"comb_gp_bucb_alg2": width_bucb(t, logn, 1.0, 1.0),
              "comb_gp_bucb_half_alg2": width_bucb(t, logn, 1.0, 0.5),
              "comb_gp_ucb_alg2": ucb, "comb_gp_ucb_half_alg2": np.sqrt(0.5) * ucb}
    fig, ax = _new(MAX_WIDTH_IN * 0.6, 3.2)
    for alg in p["algorithms"]:
        if alg in widths:
            ax.plot(t[1:], widths[alg][1:] ** 2, lw=1.5, label=ctx.label(exp["name"], p["name"], alg))
    ax.set_xlabel("step t")
    ax.set_ylabel("β_t")
    ax.grid(True, alpha=0.3)
    ax.legend(frameon=False, fontsize=8)
    name = f"beta_{exp['name']}"
    png = _save(fig, out, name)
    return FigureInfo(name, f"{exp['title']}: the β_t schedules",
                      f"β_t of the four parametrisations on {p['title']} (|𝒜| = its edges), as the paper's Fig. 3: "
                      "GP-BUCB with ω = 1 and ξ = 1 or 0.5, GP-UCB's β_t and the same scaled by 0.5.", png)


def fig_lengthscale(ctx, exp: dict, out: Path):
    """Figs. 4–5: the final regret of every algorithm against the model's lengthscale, over routes and runs."""
    from boundcheck.report.figures import MAX_WIDTH_IN, FigureInfo, _new, _save

    if "lengthscale" not in exp.get("figures", ()):
        return None
    final = _finals(ctx, exp)
    if final.empty:
        return None
    fig, ax = _new(MAX_WIDTH_IN * 0.6, 3.4)
    p0 = exp["panel_results"][0]
    for key, g in final.groupby("algorithm", sort=False):
        per = g.groupby("setting")["regret"]
        m, se = per.mean(), per.std(ddof=1) / np.sqrt(per.count())
        ax.errorbar(m.index, m.values, yerr=se.values, fmt="o-", capsize=3,
                    label=ctx.label(exp["name"], p0["name"], _KEYS[key]))
    ax.set_xscale("log")
    ax.set_xlabel("model lengthscale ℓ")
    ax.set_ylabel("R_T, mean ± 1 SE")
    ax.grid(True, alpha=0.3)
    ax.legend(frameon=False, fontsize=8)
    name = f"lengthscale_{exp['name']}"
    png = _save(fig, out, name)
    return FigureInfo(name, f"{exp['title']}: final regret against the lengthscale",
                      "Mean cumulative regret R_T over every route and run (± 1 SE) at each model lengthscale (the "
                      "environment's fixed at 1), as the paper's Figs. 4–5.", png)


register_figure("r1_chain", fig_r1_chain)  # a verify report's figure (boundcheck.report.figures draws it)

#: the paper these figures belong to, and the figures and tables its experiments' reports add (``reproduce``)
PAPER_ID = "combinatorial"
REPLICATION_FIGURES = {"paths": fig_paths, "beta": fig_beta, "lengthscale": fig_lengthscale}
REPLICATION_TABLES = {"pooled_tests": table_pooled_tests}
