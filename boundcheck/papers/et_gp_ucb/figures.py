"""Paper 001's figure and tables of a ``boundcheck reproduce`` report, drawn from the stored results only.

* ``stopping_times_<experiment>`` (figure): the distribution of ET-GP-UCB's first trigger time τ per panel (the
  paper's Fig. 4 / Table 3), against R-GP-UCB's fixed period N, with its mean, spread, quantiles and censored
  share;
* ``stopping_times`` (table, Table 3): the first τ and every inter-reset time per panel — mean ± SE, sd,
  quantiles, censored share, P(τ < N), coefficient of variation, the Markov identity and Lemma 4 as printed
  (strict) and corrected (corrections ledger of ``theory/et_gp_ucb.py``);
* ``delta_sensitivity`` (table, Table 2): "low sensitivity to δ_B" — paired two-sided differences of R_T to
  δ_B = 0.1 (the five δ_B panels of one ε share every function path and noise draw), Holm over the table;
* ``summary`` (table, Fig. 2): mean R_T ± 2 SE, sd and mean number of resets of every algorithm per panel.

The statistics are those of the detail tool these replaced (``tau_statistics``, ``paired_test``)."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from boundcheck.report.figures import COLOURS, MAX_WIDTH_IN, FigureInfo, _new, _save
from boundcheck.report.replication_figures import ReplicationTable

__all__ = ["fig_stopping_times", "REPLICATION_FIGURES", "REPLICATION_TABLES", "mean_se", "tau_statistics",
           "inter_reset_times", "paired_test", "table_stopping_times", "table_delta_sensitivity", "table_summary"]

#: Lemma 4's δ in the τ̄ of Table 3's check: τ̄ = min{T, E[τ]/δ}
LEMMA4_DELTA = 0.1
#: "the time between resets varies significantly" read as a coefficient of variation of the inter-reset times
#: above this (descriptive: a spread, not a test)
CV_VARIES = 0.25


# ---------------------------------------------------------------------------------------------- statistics
def mean_se(x) -> tuple[float, float]:
    """Mean and standard error (ddof 1) of a sample."""
    x = np.asarray(x, dtype=float)
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else float("nan")


def tau_statistics(tau: np.ndarray, censored: np.ndarray) -> dict:
    """Mean ± standard error, standard deviation, coefficient of variation, the 5/25/50/75/95 % quantiles and the
    censored share of first stopping times (τ := T where no trigger fired): Table 3's row, and the report's
    stopping-time figure."""
    tau = np.asarray(tau, dtype=float)
    n = tau.size
    mean, se = mean_se(tau) if n else (float("nan"), float("nan"))
    sd = float(tau.std(ddof=1)) if n > 1 else float("nan")
    q = np.quantile(tau, [0.05, 0.25, 0.5, 0.75, 0.95]) if n else np.full(5, np.nan)
    return {"n": n, "mean": mean, "se": se, "sd": sd, "cv": sd / mean if n > 1 else float("nan"),
            "quantiles": q.tolist(), "censored": float(np.mean(censored)) if n else float("nan")}


def inter_reset_times(run: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Every time between consecutive resets of a run (the first from t = 0), from the reset steps (run, t)."""
    order = np.lexsort((t, run))
    run, t = np.asarray(run)[order], np.asarray(t)[order]
    if not t.size:
        return np.empty(0)
    gaps = np.diff(np.concatenate([[0], t]))
    new_run = np.concatenate([[True], run[1:] != run[:-1]])
    return np.where(new_run, t, gaps)


def paired_test(a, b) -> dict:
    """One-sided paired t-test of mean(a) < mean(b) (a, b aligned by run): the difference b − a with its mean
    ± 2 SE, the fraction of runs where a < b, and the two one-sided p-values."""
    from scipy import stats

    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    n = d.size
    mean, se = mean_se(d)
    if n < 2:
        p_claim = p_opposite = float("nan")
    elif se > 0:
        tstat = mean / se
        p_claim = float(stats.t.sf(tstat, n - 1))  # H0: E[b − a] ≤ 0
        p_opposite = float(stats.t.cdf(tstat, n - 1))
    else:  # identical differences in every run
        p_claim, p_opposite = (0.0, 1.0) if mean > 0 else ((1.0, 0.0) if mean < 0 else (1.0, 1.0))
    return {"mean_diff": mean, "se": se, "lo": mean - 2 * se, "hi": mean + 2 * se, "frac_runs": float((d > 0).mean()),
            "p_claim": p_claim, "p_opposite": p_opposite, "runs": n}


def _runs(ctx, p: dict, columns: list[str]) -> pd.DataFrame:
    from boundcheck.study.store import ResultStore

    store = ResultStore(ctx.out_dir / p["results"])
    have = set(store.read_table("runs").columns)
    df = store.read_table("runs", [c for c in columns if c in have])
    df["algorithm"] = df["algorithm"].astype(str)
    return df


# ------------------------------------------------------------------------------------------------ figures
def fig_stopping_times(ctx, exp: dict, out: Path) -> FigureInfo | None:
    """Histograms of the first trigger time τ per panel (read from the stored runs tables)."""
    if "stopping_times" not in exp.get("figures", ()):
        return None
    from boundcheck.study.store import ResultStore

    rows = []
    for p in exp.get("panel_results", []):
        runs = ResultStore(ctx.out_dir / p["results"]).read_table("runs", ["algorithm", "tau_first", "censored"])
        runs = runs[runs["algorithm"].astype(str) == p["algorithms"][0]]
        if len(runs):
            rows.append((p, tau_statistics(runs["tau_first"].to_numpy(), runs["censored"].to_numpy(bool)),
                         runs["tau_first"].to_numpy(float)))
    if not rows:
        return None
    fig, axes = _new(MAX_WIDTH_IN, 3.4, ncols=len(rows), squeeze=False)
    lines = []
    for ax, (p, st, tau) in zip(axes[0], rows, strict=True):
        T = int(p["horizon"])
        ax.hist(tau, bins=np.arange(0.5, T + 1.5, max(1, T // 100)), color=COLOURS[0], alpha=0.8, density=True)
        ax.axvline(st["mean"], color="black", lw=1.2, label=f"mean τ = {st['mean']:.1f}")
        if p.get("reset_period"):
            ax.axvline(p["reset_period"], color=COLOURS[2], ls="--", lw=1.4,
                       label=f"R-GP-UCB's N = {p['reset_period']}")
        ax.set_title(f"{p['title']} ({st['n']} runs)")
        ax.set_xlabel("first trigger time τ")
        ax.set_ylabel("density")
        ax.set_xlim(0, T)
        ax.legend(frameon=False, fontsize=8)
        ax.grid(True, alpha=0.3)
        q = st["quantiles"]
        lines.append(f"{p['title']}: E[τ] = {st['mean']:.2f} ± {st['se']:.2f} (SE), sd {st['sd']:.1f}, coefficient of "
                     f"variation {st['cv']:.2f}, quantiles 5/25/50/75/95 % = {q[0]:g}/{q[1]:g}/{q[2]:g}/{q[3]:g}/"
                     f"{q[4]:g}, censored at T {100 * st['censored']:.2f} %"
                     + (f"; R-GP-UCB resets every N = {p['reset_period']} steps" if p.get("reset_period") else ""))
    name = f"stopping_times_{exp['name']}"
    png = _save(fig, out, name)
    return FigureInfo(
        name, f"{exp['title']}: first stopping times",
        f"As the paper's Fig. 4 ({exp['location']}): the distribution of ET-GP-UCB's first trigger time τ over the "
        "runs (τ := T without a trigger), against R-GP-UCB's constant period. " + "; ".join(lines) + ".", png)


# ------------------------------------------------------------------------------------------------- tables
def table_stopping_times(ctx, exp: dict) -> ReplicationTable | None:
    """Table 3: the first stopping time and every inter-reset time of ET-GP-UCB per panel."""
    from boundcheck.study.store import ResultStore

    rows, cv_text = [], []
    # runs stopped at their first trigger (the experiment's needs) hold no later reset: no inter-reset times
    first_only = bool((exp.get("needs") or {}).get("stop_at"))
    for p in exp.get("panel_results", []):
        alg = p["algorithms"][0]
        runs = _runs(ctx, p, ["run", "algorithm", "tau_first", "censored"])
        runs = runs[runs["algorithm"] == alg]
        if not len(runs):
            continue
        steps = ResultStore(ctx.out_dir / p["results"]).read_table("steps", ["run", "algorithm", "t", "reset"])
        steps = steps[(steps["algorithm"].astype(str) == alg) & steps["reset"].fillna(False).astype(bool)]
        tau, cens = runs["tau_first"].to_numpy(float), runs["censored"].to_numpy(bool)
        T, N = int(p["horizon"]), p.get("reset_period")
        ts = tau_statistics(tau, cens)
        m_tau, q = ts["mean"], ts["quantiles"]
        tb = min(T, m_tau / LEMMA4_DELTA)
        rows.append([p["title"], "first τ (censored at T)", m_tau, ts["se"], ts["sd"], *q, ts["censored"], tau.size,
                     N, float((tau < N).mean()) if N else None, ts["cv"],
                     float((tau >= m_tau / LEMMA4_DELTA).mean()), float((tau < tb).mean()), float((tau <= tb).mean())])
        gaps = np.empty(0) if first_only else inter_reset_times(steps["run"].to_numpy(), steps["t"].to_numpy())
        if gaps.size:
            qg = np.quantile(gaps, [0.05, 0.25, 0.5, 0.75, 0.95])
            mg, seg = mean_se(gaps)
            sdg = float(gaps.std(ddof=1)) if gaps.size > 1 else float("nan")
            cv = sdg / mg
            rows.append([p["title"], "every inter-reset time", mg, seg, sdg, *qg.tolist(), None, gaps.size, N,
                         float((gaps < N).mean()) if N else None, cv, None, None, None])
            cv_text.append(f"{p['title']}: {cv:.2f} ({'above' if cv > CV_VARIES else 'not above'} {CV_VARIES:g})")
    if not rows:
        return None
    return ReplicationTable(
        "stopping_times", f"{exp['title']}: stopping-time statistics (Table 3)",
        "ET-GP-UCB's first trigger time τ (τ := T without a trigger: censored) and every time between consecutive "
        "resets, over the runs of each panel; N: R-GP-UCB's period ⌈12ε^{−1/4}⌉. The Markov column is P{τ ≥ E[τ]/δ} "
        f"(δ = {LEMMA4_DELTA:g}), at most δ on any sample; Lemma 4 as printed, P{{τ < τ̄}} ≥ 1 − δ with "
        "τ̄ = min{T, E[τ]/δ}, fails whenever τ̄ = T and runs are censored; the corrected P{τ ≤ τ̄} ≥ 1 − δ holds "
        "(corrections ledger of theory/et_gp_ucb.py). 'The time between resets can vary significantly' read as a "
        f"coefficient of variation of the inter-reset times above {CV_VARIES:g} (descriptive): "
        + ("; ".join(cv_text) if cv_text else
           "not computed here: each run stopped at its first trigger" if first_only else "no resets") + ".",
        ["panel", "statistic", "mean", "SE", "sd", "5 %", "25 %", "median", "75 %", "95 %", "censored", "n", "N",
         "P(τ < N)", "CV", "Markov P(τ ≥ E[τ]/δ)", "Lemma 4 printed P(τ < τ̄)", "corrected P(τ ≤ τ̄)"],
        rows, numeric=set(range(2, 18)))


def table_delta_sensitivity(ctx, exp: dict) -> ReplicationTable | None:
    """Table 2's "low sensitivity to δ_B": R_T(δ_B) − R_T(0.1) per ε, paired over the shared runs, two-sided,
    Holm over the table; 'not reproduced' only where a difference is significant."""
    from boundcheck.claims.budget import holm_adjusted

    by_eps: dict[str, dict[float, pd.Series]] = {}
    for p in exp.get("panel_results", []):
        name = str(p["name"])  # eps{ε}_dB{δ_B}
        if not name.startswith("eps") or "_dB" not in name:
            continue
        eps, dB = name[3:].split("_dB")
        runs = _runs(ctx, p, ["run", "algorithm", "regret"])
        runs = runs[runs["algorithm"] == p["algorithms"][0]]
        by_eps.setdefault(eps, {})[float(dB)] = runs.set_index("run")["regret"].sort_index()
    rows = []
    for eps, reg in by_eps.items():
        ref = 0.1 if 0.1 in reg else min(reg)
        for d in sorted(reg):
            if d == ref:
                continue
            a, b = reg[ref].align(reg[d], join="inner")
            t = paired_test(a.to_numpy(), b.to_numpy())
            rows.append({"eps": eps, "dB": d, "ref": ref, **t,
                         "p_two_sided": min(1.0, 2 * min(t["p_claim"], t["p_opposite"]))})
    if not rows:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        adj = holm_adjusted(np.nan_to_num(np.array([r["p_two_sided"] for r in rows]), nan=1.0))
    out = [[f"ε = {r['eps']}", f"R_T(δ_B = {r['dB']:g}) − R_T(δ_B = {r['ref']:g})", r["mean_diff"], r["lo"], r["hi"],
            r["runs"], r["p_two_sided"], float(h),
            "not reproduced" if h <= 0.05 else "consistent (no significant difference)"]
           for r, h in zip(rows, adj, strict=True)]
    return ReplicationTable(
        "delta_sensitivity", f"{exp['title']}: low sensitivity of the regret to δ_B",
        "The paper: the regret is insensitive to δ_B (App. B). The δ_B panels of one ε share every function path "
        "and noise draw, so each difference is paired by run; two-sided paired t-tests, Holm over the table at "
        "0.05. A claim of no difference: it is reported as consistent unless a difference is significant.",
        ["ε", "difference", "mean", "−2 SE", "+2 SE", "runs", "p (two-sided)", "Holm p", "reading"],
        out, numeric={2, 3, 4, 5, 6, 7})


def table_summary(ctx, exp: dict) -> ReplicationTable | None:
    """Fig. 2 has no numbers: ours, per panel and algorithm (mean R_T ± 2 SE, sd, mean number of resets)."""
    rows = []
    for p in exp.get("panel_results", []):
        runs = _runs(ctx, p, ["run", "algorithm", "regret", "n_resets"])
        for alg in p["algorithms"]:
            r = runs[runs["algorithm"] == alg]
            if not len(r):
                continue
            m, se = mean_se(r["regret"])
            res = r["n_resets"].mean() if "n_resets" in r and r["n_resets"].notna().any() else None
            rows.append([p["title"], ctx.label(exp["name"], p["name"], alg), m, 2 * se,
                         float(r["regret"].std(ddof=1)) if len(r) > 1 else None, None if res is None else float(res),
                         len(r)])
    if not rows:
        return None
    return ReplicationTable(
        "summary", f"{exp['title']}: final regret and resets",
        "The paper's Fig. 2 prints no numbers: ours, the mean cumulative regret R_T over the runs ± 2 standard "
        "errors, its standard deviation and the mean number of resets (— for an algorithm that never resets or "
        "does not record them); the claims above test the paper's orderings.",
        ["panel", "algorithm", "mean R_T", "± 2 SE", "sd", "mean resets", "runs"], rows, numeric={2, 3, 4, 5, 6})


#: the paper these figures belong to, and the figures and tables its experiments' reports add (``reproduce``)
PAPER_ID = "et_gp_ucb"
REPLICATION_FIGURES = {"stopping_times": fig_stopping_times}
REPLICATION_TABLES = {"stopping_times": table_stopping_times, "delta_sensitivity": table_delta_sensitivity,
                      "summary": table_summary}
