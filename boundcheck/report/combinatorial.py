"""Figures of paper 002 (combinatorial semi-bandits).

* :func:`fig_r1_chain` — a verify report's R1 chain Q₁ ≤ Q₂ ≤ … ≤ Q₆ (Lemma A.2 / 3.1): the run means with
  95 % intervals, from the stored ``runs`` table (registered among the report's figures; drawn only for
  results that have the Q columns).
* :func:`experiment_figures` — the reproduction of the paper's experiments on the synthetic road network: the
  cumulative regret (mean ± 1 SE) per route (Figs. 2–3), the β_t schedules (Fig. 3), the final regret against
  the lengthscale (Figs. 4–5), and the chosen paths drawn on the network (Figs. 6–9).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.collections import LineCollection

from ..utils.laws import stats  # scipy.stats.t without importing scipy.stats
from .context import ReportContext
from .figure_info import register_figure

__all__ = ["fig_r1_chain", "experiment_figures"]

_Q = ("Q1", "Q2", "Q3", "Q4", "Q5", "Q6")


def fig_r1_chain(ctx: ReportContext, out: Path):
    from .figures import FigureInfo, _new, _save

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


register_figure("r1_chain", fig_r1_chain)  # a verify report's figure (boundcheck.report.figures)


def experiment_figures(results: dict, out: Path) -> list[Path]:
    """Draw the reproduction figures of every experiment in ``results`` (name → ExperimentResult) into ``out``
    (PNG); returns the paths."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..world.catalogue.paper002 import road_network, routes

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    colours = dict(zip(["gp_ucb", "gp_bucb", "gp_ts", "bi_ucb", "bi_bucb", "bi_ts", "gp_bucb_half", "gp_ucb_scaled"],
                       ["#0173b2", "#029e73", "#d55e00", "#56b4e9", "#8fd175", "#e69f00", "#cc78bc", "#6a3d9a"],
                       strict=True))

    def save(fig, name):
        FigureCanvasAgg(fig)
        p = out / f"{name}.png"
        fig.savefig(p, dpi=130, bbox_inches="tight")
        paths.append(p)

    with matplotlib.rc_context({"font.size": 9}):
        for name, res in results.items():
            labels = res.settings.get("labels", {})
            rts = sorted(res.curves["route"].unique())
            if name in ("algorithms", "bucb"):
                fig = Figure(figsize=(3.2 * len(rts), 3.0), layout="constrained")
                axes = fig.subplots(1, len(rts), squeeze=False)[0]
                for ax, r in zip(axes, rts, strict=True):
                    for alg, g in res.curves[(res.curves["route"] == r) & (res.curves["setting"] == 1.0)].groupby(
                            "algorithm", sort=False):
                        c = colours.get(alg)
                        ax.plot(g["t"], g["mean"], color=c, label=labels.get(alg, alg), lw=1.3)
                        ax.fill_between(g["t"], g["mean"] - g["se"], g["mean"] + g["se"], color=c, alpha=0.2, lw=0)
                    ax.set_title(f"route {r}")
                    ax.set_xlabel("t")
                axes[0].set_ylabel("cumulative regret (Wh), mean ± 1 SE")
                axes[0].legend(fontsize=7)
                save(fig, f"{name}_regret")
            if name == "bucb" and not res.schedules.empty:
                fig = Figure(figsize=(4.0, 3.0), layout="constrained")
                ax = fig.subplots()
                s = res.schedules[res.schedules["route"] == rts[0]]
                for alg, g in s.groupby("algorithm", sort=False):
                    ax.plot(g["t"], g["beta"], color=colours.get(alg), label=labels.get(alg, alg))
                ax.set_xlabel("t")
                ax.set_ylabel("β_t")
                ax.legend(fontsize=7)
                save(fig, "bucb_beta")
            if name == "lengthscale":
                fig = Figure(figsize=(4.5, 3.2), layout="constrained")
                ax = fig.subplots()
                f = res.final
                for alg, g in f.groupby("algorithm", sort=False):
                    per = g.groupby("setting")["regret"]
                    m, se = per.mean(), per.std(ddof=1) / np.sqrt(per.count())
                    ax.errorbar(m.index, m.values, yerr=se.values, fmt="o-", color=colours.get(alg),
                                label=labels.get(alg, alg), capsize=3)
                ax.set_xscale("log")
                ax.set_xlabel("model lengthscale")
                ax.set_ylabel("R_T, mean ± 1 SE over routes and runs")
                ax.legend(fontsize=7)
                save(fig, "lengthscale_final")
            if name == "algorithms":  # the chosen paths on the network (Figs. 6–9)
                net = road_network()
                r = rts[0]
                v = res.visits[(res.visits["route"] == r) & (res.visits["setting"] == 1.0)]
                algs = list(v["algorithm"].unique())
                fig = Figure(figsize=(2.8 * len(algs), 3.0), layout="constrained")
                axes = fig.subplots(1, len(algs), squeeze=False)[0]
                seg = np.stack([net.xy[net.tail], net.xy[net.head]], axis=1)
                route = routes(net)[r - 1]
                for ax, alg in zip(axes, algs, strict=True):
                    ax.add_collection(LineCollection(seg, colors="#dddddd", linewidths=0.5))
                    g = v[v["algorithm"] == alg]
                    w = g["count"].to_numpy(float)
                    ax.add_collection(LineCollection(seg[g["edge"].to_numpy()], colors=colours.get(alg, "#333"),
                                                     linewidths=0.3 + 3.5 * w / max(w.max(), 1), alpha=0.85))
                    ax.plot(*net.xy[route.start], "k^", ms=6)
                    ax.plot(*net.xy[route.goal], "k*", ms=8)
                    ax.set_title(labels.get(alg, alg), fontsize=8)
                    ax.set_aspect("equal")
                    ax.autoscale()
                    ax.set_xticks([])
                    ax.set_yticks([])
                save(fig, "chosen_paths")
    return paths


def fig_paths(ctx, exp: dict, out: Path):
    """``boundcheck reproduce`` figure (experiments with "paths" in their figures): the chosen paths of every
    algorithm on each route, drawn on the network with line width ∝ how often each road was driven (the stored
    ``arm_counts`` of every run), as the paper's Figs. 6–9."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..study.store import ResultStore
    from ..world.catalogue.paper002 import road_network, routes
    from .figures import MAX_WIDTH_IN, FigureInfo, _save

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
