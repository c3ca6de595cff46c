"""Sweep over the variation budget P_T and the horizon T for R-GP-UCB / SW-GP-UCB (Zhou & Shroff 2021): regret of
each algorithm on common random numbers, the restored bounds of ``r_gp_ucb`` and ``sw_gp_ucb``, the regret/bound
ratio, and where the bound is vacuous (≥ 2B·T, what any algorithm achieves since |f_t| ≤ B). Also the scaling
sanity check (not a verdict): log–log slopes of R(T) against T (Remark (2) predicts T^{3/4} for
H = w tuned to P_T; IGP-UCB, which never forgets, should approach slope 1 when P_T is large) and against P_T.

Writes ``OUT/sweep.csv``, ``OUT/sweep.md`` (tables and slopes) and ``OUT/sweep.png`` (R(T) against T per P_T with the
bounds and the trivial 2BT line; regret/bound ratio). Runs through :func:`boundcheck.api.verify`, one study per
cell (when the generic ``boundcheck sweep`` lands, it runs the same cells: vary ``P_T`` through
``paper003.vb_scenario`` and the horizon).

Usage: python benchmarks/sweep_variation_budget.py [--runs 20] [--horizons 250,500,1000,2000]
       [--budgets 0,1,5,25] [--kind rotation] [--jobs 2] [--out reports/variation_budget_sweep]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from boundcheck import api
from boundcheck.claims.families import family_for
from boundcheck.papers.r_sw_gp_ucb.catalogue import vb_scenario

ALGS = ("r_gp_ucb_zs", "sw_gp_ucb", "igp_ucb", "random")


def cell(kind: str, P_T: float, T: int, runs: int, jobs: int, seed: int) -> dict:
    sc = vb_scenario(f"sweep_{kind}_p{P_T:g}_T{T}", kind, P_T, horizon=T, B=1.0 if kind != "switch" else 3.0)
    s = api.verify("r_gp_ucb", sc, runs=runs, seed=seed, jobs=jobs, policies=list(ALGS), report=False)
    sw = family_for("sw_gp_ucb").instantiate(sc, T, sc.delta)
    row = {"kind": kind, "P_T": P_T, "T": T, "H": sc.window, "B": sc.B, "runs": runs,
           "bound_r": s["bound"]["at_horizon"], "bound_sw": sw.bound_T, "trivial_2BT": 2 * sc.B * T,
           "verdict_r": s["verdict"]}
    for a in ALGS:
        row[f"R_{a}"] = s["regret"][a]["mean"]
    row["ratio_r"] = row["R_r_gp_ucb_zs"] / row["bound_r"]
    row["ratio_sw"] = row["R_sw_gp_ucb"] / row["bound_sw"]
    row["vacuous_r"] = row["bound_r"] >= row["trivial_2BT"]
    row["vacuous_sw"] = row["bound_sw"] >= row["trivial_2BT"]
    return row


def markdown(df: pd.DataFrame) -> str:
    """A GitHub markdown table (no extra dependency)."""

    def fmt(v):
        return f"{v:.4g}" if isinstance(v, float | np.floating) else str(v)

    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def slopes(df: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (kind, P), g in df.groupby(["kind", "P_T"]):
        g = g.sort_values("T")
        for a in ALGS[:3]:
            b = np.polyfit(np.log(g["T"]), np.log(g[f"R_{a}"]), 1)[0]
            out.append({"kind": kind, "against": "T", "at": f"P_T = {P:g}", "algorithm": a, "slope": b})
    for (kind, T), g in df[df["P_T"] > 0].groupby(["kind", "T"]):
        g = g.sort_values("P_T")
        if len(g) >= 2:
            for a in ALGS[:3]:
                b = np.polyfit(np.log(g["P_T"]), np.log(g[f"R_{a}"]), 1)[0]
                out.append({"kind": kind, "against": "P_T", "at": f"T = {T}", "algorithm": a, "slope": b})
    return pd.DataFrame(out)


def _ticks(ax, horizons) -> None:
    from matplotlib.ticker import NullLocator

    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(sorted(horizons))
    ax.set_xticklabels([str(int(t)) for t in sorted(horizons)])


def figure(df: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    budgets = sorted(df["P_T"].unique())
    fig, axes = plt.subplots(1, len(budgets) + 1, figsize=(4 * (len(budgets) + 1), 3.6))
    colors = {"r_gp_ucb_zs": "C0", "sw_gp_ucb": "C1", "igp_ucb": "C2", "random": "C7"}
    for ax, P in zip(axes, budgets, strict=False):
        g = df[df["P_T"] == P].sort_values("T")
        for a in ALGS:
            ax.loglog(g["T"], g[f"R_{a}"], "o-", color=colors[a], label=a, ms=3)
        ax.loglog(g["T"], g["bound_r"], "--", color="C0", label="bound r_gp_ucb")
        ax.loglog(g["T"], g["bound_sw"], "--", color="C1", label="bound sw_gp_ucb")
        ax.loglog(g["T"], g["trivial_2BT"], ":", color="k", label="2BT (trivial)")
        ax.set_title(f"P_T = {P:g}")
        ax.set_xlabel("T")
        _ticks(ax, g["T"])
    axes[0].set_ylabel("mean regret R(T)")
    axes[0].legend(fontsize=6)
    ax = axes[-1]
    for P in budgets:
        g = df[df["P_T"] == P].sort_values("T")
        ax.loglog(g["T"], g["ratio_r"], "o-", label=f"R-GP-UCB, P_T = {P:g}", ms=3)
        ax.loglog(g["T"], g["ratio_sw"], "s--", label=f"SW-GP-UCB, P_T = {P:g}", ms=3)
    ax.set_title("regret / restored bound")
    ax.set_xlabel("T")
    _ticks(ax, df["T"].unique())
    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--horizons", default="250,500,1000,2000")
    ap.add_argument("--budgets", default="0,1,5,25")
    ap.add_argument("--kind", default="rotation", choices=["rotation", "switch", "random_walk"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="reports/variation_budget_sweep")
    ap.add_argument("--plot-only", action="store_true", help="redraw OUT/sweep.png from OUT/sweep.csv")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.plot_only:
        figure(pd.read_csv(out / "sweep.csv"), out / "sweep.png")
        return
    rows = []
    t0 = time.perf_counter()
    for P in [float(p) for p in args.budgets.split(",")]:
        for T in [int(t) for t in args.horizons.split(",")]:
            rows.append(cell(args.kind, P, T, args.runs, args.jobs, args.seed))
            r = rows[-1]
            print(f"P_T = {P:5g}  T = {T:5d}  H = {r['H']:4d}  R(T): R-GP-UCB {r['R_r_gp_ucb_zs']:8.1f}  "
                  f"SW {r['R_sw_gp_ucb']:8.1f}  IGP {r['R_igp_ucb']:8.1f}  random {r['R_random']:8.1f}  "
                  f"bound r/sw {r['bound_r']:9.4g}/{r['bound_sw']:9.4g}  (2BT = {r['trivial_2BT']:g})", flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(out / "sweep.csv", index=False)
    sl = slopes(df)
    figure(df, out / "sweep.png")
    cols = ["P_T", "T", "H", "R_r_gp_ucb_zs", "R_sw_gp_ucb", "R_igp_ucb", "R_random", "bound_r", "bound_sw",
            "trivial_2BT", "ratio_r", "ratio_sw", "vacuous_r", "vacuous_sw"]
    md = [f"# Variation-budget sweep ({args.kind}, {args.runs} runs per cell, seed {args.seed})", "",
          markdown(df[cols]), "", "## Log-log slopes (scaling sanity, not a verdict)", "", markdown(sl), "",
          f"{time.perf_counter() - t0:.0f} s"]
    (out / "sweep.md").write_text("\n".join(md) + "\n")
    print(sl.to_string(index=False))
    print(f"wrote {out / 'sweep.csv'}, {out / 'sweep.md'}, {out / 'sweep.png'} in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
