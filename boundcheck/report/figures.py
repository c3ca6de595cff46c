r"""Report figures (matplotlib on the Agg canvas; no pyplot state), each drawn once and saved once, as a
PNG at 150 dpi that both reports use (inlined in the HTML, ``\includegraphics`` in LaTeX): one render per figure
instead of a PNG and a PDF, the report's dominant cost.

Every figure is drawn from stored results only. Generic figures: cumulative regret against the anytime
bound, the R_T/bound distribution, claim failure rates against their levels, the certified γ_t
bracket. Family-specific (candidate priors, PE-GP-UCB): prior-selection frequencies and elimination times.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path

import matplotlib
import matplotlib.ticker
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .context import ReportContext
from .figure_info import DPI, MAX_WIDTH_IN, FigureInfo, register_figure, registered_figure
from .png import write_png
from .wording import ci_label, fmt


def fig_r1_chain(ctx: ReportContext, out: Path):
    """Paper 002's R1 chain: drawn by the function its module registered (:func:`register_figure`), if any."""
    if not {"Q1", "Q2", "Q3", "Q4", "Q5", "Q6"} <= set(ctx.runs.columns):  # not paper 002's results
        return None
    draw = registered_figure("r1_chain")
    return None if draw is None else draw(ctx, out)

__all__ = ["FigureInfo", "FIGURES", "warm_up", "DPI", "MAX_WIDTH_IN", "register_figure"]

VERDICT_COLOURS = {"holds": "#2e7d32", "inconclusive": "#ef6c00", "violated": "#c62828"}
BOUND_COLOUR = "#222222"
RC = {
    "font.size": 10.5, "axes.titlesize": 11, "axes.labelsize": 10.5, "legend.fontsize": 9.5,
    "xtick.labelsize": 9.5, "ytick.labelsize": 9.5, "pdf.fonttype": 3,
    "axes.spines.top": False, "axes.spines.right": False, "figure.dpi": 100,
}


# One colour per algorithm, the same in every figure (colour-blind safe), by position in the study's list of
# algorithms (the theorem's own first); the uninformed reference (random search) grey and dotted, an oracle
# (told the truth) dashed. Roles come from the stored results.
COLOURS = ("#0173b2", "#029e73", "#de8f05", "#cc78bc", "#6a3d9a", "#d55e00", "#56b4e9", "#ca9161", "#949494",
           "#ece133")
UNINFORMED_COLOUR = "#8c8c8c"
ROLE_STYLES = {"oracle": (0, (5, 2)), "uninformed": (0, (1, 1.5))}


def _palette(ctx: ReportContext) -> dict[str, str]:
    colours = iter(COLOURS * 2)
    return {a: UNINFORMED_COLOUR if ctx.role(a) == "uninformed" else next(colours) for a in ctx.algorithms}


def _style(ctx: ReportContext, a: str):
    return ROLE_STYLES.get(ctx.role(a), "-")


def _new(width: float, height: float, ncols: int = 1, **kw) -> tuple[Figure, object]:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")  # laid out at the output dpi (_save)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, **kw)
    return fig, axes


def figure_failed(notes: list[str], name: str, exc: Exception) -> None:
    """A figure that raised: the report says so in a note and goes on (one bad figure must not lose the whole
    report) — unless ``BOUNDCHECK_STRICT_FIGURES=1`` (the test suite sets it), where the error propagates, so
    that a broken figure fails a test instead of hiding behind a note."""
    if os.environ.get("BOUNDCHECK_STRICT_FIGURES") == "1":
        raise exc
    notes.append(f"figure {name} could not be drawn: {type(exc).__name__}: {exc}")


def _save(fig: Figure, out: Path, name: str) -> Path:
    png = out / f"{name}.png"
    # savefig with a layout engine draws the whole figure twice (a dry draw that runs the constrained layout,
    # then the real one); running the layout once at the output dpi ourselves and drawing the Agg canvas with the
    # engine off draws it once, for about a third less work. The canvas's pixels are written by the report's
    # own PNG writer (boundcheck.report.png: RGB, zlib level 1), the pixels print_png writes, in a fifth of the
    # time (tests/report/test_drawing.py)
    fig.set_dpi(DPI)
    engine = fig.get_layout_engine()
    if engine is not None and fig.axes:
        engine.execute(fig)
        fig.set_layout_engine("none")
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()  # with the renderer (and its text metrics) the layout used
    write_png(png, canvas.buffer_rgba(), DPI)
    return png


def _empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, fontsize=10, color="#555",
            wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])
    for s in ax.spines.values():
        s.set_visible(False)


# ----------------------------------------------------------------------------------------- regret
def fig_regret(ctx: ReportContext, out: Path) -> FigureInfo | None:
    steps = ctx.steps
    if steps is None or steps.regret is None:
        return None
    stats = steps.regret  # mean and 5–95 % quantiles per (algorithm, t), accumulated chunk by chunk
    algos = [a for a in ctx.algorithms if a in set(stats["algorithm"])]
    pal = _palette(ctx)
    fig, (ax1, ax2) = _new(MAX_WIDTH_IN, 4.4, ncols=2)
    for a in algos:
        s = stats[stats["algorithm"] == a]
        lw = 2.2 if a == ctx.main_algorithm else 1.4
        for ax in (ax1, ax2):
            ax.fill_between(s["t"], s["lo"], s["hi"], color=pal[a], alpha=0.18, linewidth=0)
            ax.plot(s["t"], s["mean"], color=pal[a], lw=lw, ls=_style(ctx, a), label=ctx.label(a))
    gam = ctx.gamma
    bound_T = ctx.summary.get("bound", {}).get("at_horizon")
    if gam is not None and "bound_anytime" in gam:
        ax1.plot(gam["t"], gam["bound_anytime"], color=BOUND_COLOUR, lw=2, ls="--",
                 label="explicit bound $\\mathrm{Bound}_T(t)$ (anytime)")
    if bound_T:
        ax1.plot([ctx.summary.get("horizon")], [bound_T], "o", color=BOUND_COLOUR, ms=6,
                 label=f"Bound(T) = {fmt(bound_T)}")
    ax1.set_yscale("log")
    # start the log axis where the curves have left their first few steps, not at the first tiny regret
    t0 = max(2, int(stats["t"].max()) // 20)
    early = stats.loc[(stats["t"] == t0) & (stats["mean"] > 0), "mean"]
    if not early.empty:
        ax1.set_ylim(bottom=float(early.min()) / 3)
    ax1.set_title("(a) regret against the explicit bound (log scale)")
    ax2.set_title("(b) algorithms compared (linear scale, bound off-scale)")
    for ax in (ax1, ax2):
        ax.set_xlabel("step t")
        ax.set_ylabel("cumulative regret $R_t$")
        ax.set_xlim(1, int(stats["t"].max()))
        ax.grid(True, which="major", alpha=0.3)
    ax2.set_ylim(bottom=0)
    h1, l1 = ax1.get_legend_handles_labels()
    fig.legend(h1, l1, loc="outside lower center", ncols=min(4, len(l1)), frameon=False)
    png = _save(fig, out, "regret")
    n = ctx.summary.get("runs")
    return FigureInfo(
        "regret", "Cumulative regret against the bound",
        f"Mean cumulative regret over {n} runs (lines) with the 5–95% quantile band across runs, for every "
        "algorithm; all algorithms see the same functions and noise (common random numbers). Dashed: the "
        "anytime form of the explicit bound, with the certified upper bound on γ_t. Panel (b) drops the "
        "bound so the algorithms can be compared.", png)


# -------------------------------------------------------------------------------------- tightness
def fig_tightness(ctx: ReportContext, out: Path) -> FigureInfo | None:
    main = ctx.main_algorithm
    r = ctx.runs[ctx.runs["algorithm"] == main]
    if "tightness" not in r or r["tightness"].dropna().empty:
        return None
    fig, ax = _new(7.0, 3.6)
    data = {"$R_T$ / Bound(T)": r["tightness"].to_numpy(float)}
    if "max_anytime_ratio" in r and r["max_anytime_ratio"].notna().any():
        data["$\\max_t R_t$ / Bound$_T(t)$"] = r["max_anytime_ratio"].to_numpy(float)
    df = pd.concat([pd.DataFrame({"ratio": v, "statistic": k}) for k, v in data.items()], ignore_index=True)
    df = df[np.isfinite(df["ratio"])]
    bins = min(30, max(8, int(np.sqrt(len(r))) * 2))
    edges = np.histogram_bin_edges(df["ratio"].to_numpy(), bins=bins)  # common bins for both statistics
    for (k, _), colour in zip(data.items(), ("#1f77b4", "#9467bd"), strict=False):
        v = df.loc[df["statistic"] == k, "ratio"].to_numpy()
        ax.hist(v, bins=edges, histtype="step", color=colour, lw=1.6, label=k)
        ax.hist(v, bins=edges, histtype="stepfilled", color=colour, alpha=0.15, lw=0)
    ax.legend(frameon=False)
    med = float(np.median(data["$R_T$ / Bound(T)"]))
    ax.axvline(med, color="#1f77b4", lw=1, ls=":")
    xmax = float(df["ratio"].max())
    if xmax >= 0.5:
        ax.axvline(1.0, color="#c62828", lw=1.5)
        ax.text(1.0, 0.98, " bound attained (ratio 1)", color="#c62828", transform=ax.get_xaxis_transform(),
                va="top", ha="left", fontsize=9)
        ax.set_xlim(left=0)
    else:
        ax.text(0.98, 0.6, f"ratio 1 (bound attained) is off-scale:\nthe bound is {fmt(1 / med, 3)}× the "
                "median regret" if med > 0 else "", transform=ax.transAxes, ha="right", va="top", fontsize=9,
                color="#c62828")
    ax.set_xlabel(f"regret of {ctx.label(main)} relative to the explicit bound")
    ax.set_ylabel("runs")
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_title(f"How tight is the bound? (median ratio {fmt(med, 3)}, dotted)")
    png = _save(fig, out, "tightness")
    return FigureInfo(
        "tightness", "Distribution of R_T / Bound(T)",
        f"Per-run ratio of the final regret of {ctx.label(main)} to the explicit bound at the horizon, and "
        "the largest ratio to the anytime bound over all prefixes t ≤ T. A ratio above 1 is a failure of the "
        "regret claim.", png)


# ------------------------------------------------------------------------------------------ claims
def fig_claims(ctx: ReportContext, out: Path) -> FigureInfo | None:
    claims = [c for c in ctx.claims if c.get("kind") == "probability" and c.get("level") is not None
              and c.get("ci_high") is not None]
    if not claims:
        return None
    h = 1.4 + 0.38 * len(claims)
    fig, ax = _new(8.5, max(h, 2.8))
    ys = np.arange(len(claims))[::-1]
    for y, c in zip(ys, claims, strict=True):
        col = VERDICT_COLOURS.get(c["verdict"], "#555")
        ax.plot([c["ci_low"], c["ci_high"]], [y, y], color=col, lw=3, solid_capstyle="butt", alpha=0.8)
        ax.plot([c["rate"]], [y], "o", color=col, ms=6, zorder=3)
        ax.plot([c["level"]], [y], marker="|", color="#000", ms=18, mew=2.2, zorder=4)
        ax.text(1.01, y, f"{c['violations']}/{c['runs']} {c['verdict']}", fontsize=9, color=col, va="center",
                ha="left", transform=ax.get_yaxis_transform())
    ax.set_yticks(ys, [c["id"] + (" (theorem)" if c.get("main") else "") for c in claims])
    hi = max(max(c["ci_high"] for c in claims), max(c["level"] for c in claims))
    ax.set_xlim(-0.01 * hi, min(hi * 1.3, 1.04))
    ax.set_ylim(-0.7, len(claims) - 0.3)
    ax.set_xlabel("failure probability")
    ax.grid(True, axis="x", alpha=0.3)
    from matplotlib.lines import Line2D

    conf = sorted({ci_label(c.get("test_size")) for c in claims})
    handles = [Line2D([], [], color="#555", lw=3, marker="o",
                      label="observed rate, Clopper–Pearson interval at the claim's share"),
               Line2D([], [], color="#000", lw=0, marker="|", ms=14, mew=2.2, label="allowed level")]
    handles += [Line2D([], [], color=v, lw=3, label=k) for k, v in VERDICT_COLOURS.items()]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, frameon=False)
    ax.set_title("Claims of the proof: failure rate against the allowed level")
    ax.text(1.01, 1.0, "failures/runs", transform=ax.transAxes, fontsize=9, ha="left", va="bottom", color="#555")
    png = _save(fig, out, "claims")
    return FigureInfo(
        "claims", "Claim failure rates against their levels",
        "For every probability claim: failures/runs (dot) with its Clopper–Pearson interval, each end a one-sided "
        f"bound at 1 − the claim's share of the false-alarm budget ({', '.join(conf)} two-sided) "
        "(bar) and the level the proof allows (black tick). Holds: the whole interval is below the level; "
        "violated: the budget (Holm) rejects the claim, and the interval lies above the level; otherwise "
        "inconclusive (more runs needed). Bounds no algorithm can reach at these settings are not drawn "
        "(sanity identities).", png)


# ------------------------------------------------------------------------------------------- gamma
def fig_gamma(ctx: ReportContext, out: Path) -> FigureInfo | None:
    g = ctx.gamma
    if g is None or not {"gamma_upper", "gamma_lower"} <= set(g):
        return None
    fig, ax = _new(7.0, 3.6)
    ax.fill_between(g["t"], g["gamma_lower"], g["gamma_upper"], color="#8da0cb", alpha=0.35, linewidth=0,
                    label="certified bracket")
    ax.plot(g["t"], g["gamma_upper"], color="#3949ab", lw=2, label="certified upper end (enters the bound)")
    ax.plot(g["t"], g["gamma_lower"], color="#3949ab", lw=1.3, ls="--", label="lower end (greedy value)")
    ax.set_xlabel("t")
    ax.set_ylabel("maximum information gain $\\gamma_t$")
    ax.set_xlim(1, int(g["t"].max()))
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", frameon=False)
    ratio = float(g["gamma_upper"].iloc[-1]) / max(float(g["gamma_lower"].iloc[-1]), 1e-300)
    ax.set_title(f"Certified $\\gamma_t$ bracket (upper/lower = {ratio:.2f} at t = T)")
    png = _save(fig, out, "gamma")
    return FigureInfo(
        "gamma", "The γ_t bracket",
        "Certified bracket on the maximum information gain γ_t over t = 1..T: the bound uses the upper end "
        "(never an estimate from below); the greedy value is a valid lower end.", png)


# ------------------------------------------------------------------------------- prior selection
def fig_prior_selection(ctx: ReportContext, out: Path) -> FigureInfo | None:
    st = ctx.steps
    if st is None or not st.prior_counts:  # only the algorithms that choose a prior record it
        return None
    algos = [a for a in ctx.algorithms if a in st.prior_counts]
    width = max(c.size for c in st.prior_counts.values())
    n_prior = int(ctx.scenario_info.get("n_candidates") or width)
    freq = pd.DataFrame([np.pad(st.prior_counts[a], (0, max(0, n_prior - st.prior_counts[a].size)))[:n_prior]
                         / max(1, st.prior_counts[a].sum()) for a in algos], index=algos, columns=range(n_prior))
    tp = ctx.truth_index
    height = 1.0 + 0.55 * len(algos) + 1.6
    if tp is not None:
        fig, (ax1, ax2) = _new(MAX_WIDTH_IN, height, ncols=2, width_ratios=[1.45, 1.0])
    else:  # misspecified: no true prior to follow over time, the heatmap alone
        fig, ax1 = _new(0.62 * MAX_WIDTH_IN, height)
        ax2 = None
    labels = [ctx.label(a) for a in algos]
    pct = freq.to_numpy() * 100
    annot = np.where((pct > 0) & (pct < 0.5), "<1", np.char.mod("%.0f", pct))
    # a heatmap: cell (i, j) spans [j, j+1] × [i, i+1], row 0 on top
    im = ax1.imshow(pct, cmap="Blues", vmin=0, vmax=100, aspect="auto", interpolation="nearest",
                    extent=(0, n_prior, len(algos), 0))
    for i in range(len(algos)):
        for j in range(n_prior):
            # inside its cell: out of the layout, which would otherwise measure every cell's text (same pixels)
            ax1.text(j + 0.5, i + 0.5, annot[i, j], ha="center", va="center", fontsize=8,
                     color="white" if pct[i, j] > 60 else "#222", in_layout=False)
    ax1.set_xticks(np.arange(n_prior) + 0.5, [str(i) for i in range(n_prior)])
    ax1.set_yticks(np.arange(len(algos)) + 0.5, labels)
    ax1.set_xticks(np.arange(n_prior + 1), minor=True)
    ax1.set_yticks(np.arange(len(algos) + 1), minor=True)
    ax1.grid(which="minor", color="white", lw=1.0)
    ax1.tick_params(which="minor", length=0)
    for sp in ax1.spines.values():
        sp.set_visible(False)
    fig.colorbar(im, ax=ax1, shrink=0.8, label="% of (run, t)")
    ax1.set_xlabel("candidate prior" + (f" (true prior p* = {tp}, outlined)" if tp is not None else ""))
    ax1.set_ylabel("")
    ax1.tick_params(axis="y", rotation=0)
    if tp is not None and tp < n_prior:
        from matplotlib.patches import Rectangle

        ax1.add_patch(Rectangle((tp, 0), 1, len(algos), fill=False, edgecolor="#c62828", lw=2.2,
                                clip_on=False, zorder=5))
    ax1.set_title(("(a) " if tp is not None else "") + "how often each prior was chosen (% of all steps)")
    pal = _palette(ctx)
    if tp is not None:
        T = int(st.horizon)
        w = max(1, T // 20)
        for a in algos:
            frac = st.truth_by_t.get(a, pd.Series(dtype=float))
            sm = frac.rolling(w, min_periods=1, center=True).mean()
            ax2.plot(sm.index, sm.to_numpy() * 100, color=pal.get(a), lw=1.8, label=ctx.label(a))
        ax2.set_ylim(-2, 102)
        ax2.set_xlim(1, T)
        ax2.set_xlabel("step t")
        ax2.set_ylabel("% of runs choosing p*")
        ax2.grid(True, alpha=0.3)
        ax2.set_title("(b) % of runs using p*, by step")
        h, lab = ax2.get_legend_handles_labels()
        fig.legend(h, lab, loc="outside lower right", ncols=len(lab), frameon=False)
    else:
        ax1.set_xlabel("candidate prior (the truth is in none of them: misspecified)")
    png = _save(fig, out, "prior_selection")
    return FigureInfo(
        "prior_selection", "Prior selection",
        "Algorithms that select among the candidate priors: (a) the percentage of all (run, step) pairs at "
        "which each prior was the one used"
        + ("; (b) the percentage of runs using the true prior p* at each step (moving average over 5% of the "
           "horizon)" if tp is not None else " (no candidate is the truth: a misspecified scenario)")
        + ". MLE: maximum marginal likelihood.", png)


def _eliminations(ctx: ReportContext) -> pd.DataFrame | None:
    s = ctx.steps
    if s is not None and s.eliminations is not None:
        return s.eliminations.copy()
    r = ctx.runs
    if "eliminated_at" in r:  # fall back: comma-separated elimination step per prior (0: never)
        rows = []
        for _, row in r[r["eliminated_at"].notna()].iterrows():
            for p, v in enumerate(str(row["eliminated_at"]).split(",")):
                if v.strip() and int(float(v)) > 0:
                    rows.append({"run": row["run"], "algorithm": row["algorithm"], "t": int(float(v)),
                                 "prior": p})
        return pd.DataFrame(rows, columns=["run", "algorithm", "t", "prior"])
    return None


def fig_eliminations(ctx: ReportContext, out: Path) -> FigureInfo | None:
    e = _eliminations(ctx)
    if e is None:
        return None
    T = int(ctx.summary.get("horizon") or (e["t"].max() if len(e) else 1))
    n_runs = ctx.summary.get("runs")
    fig, ax = _new(7.0, 1.1 if e.empty else 3.6)  # an empty histogram only needs its sentence
    if e.empty:
        _empty(ax, f"no prior was eliminated in any of the {n_runs} runs\n"
                   "(every candidate prior stayed active up to T)")
    else:
        tp = ctx.truth_index
        truth = (e["prior"] == tp) if (tp is not None and "prior" in e) else pd.Series(False, index=e.index)
        e = e.assign(algorithm=e["algorithm"].astype(str), truth=truth.to_numpy())
        e["who"] = e["algorithm"].map(ctx.label) + np.where(e["truth"], ": true prior p*", ": other priors")
        pal = _palette(ctx)
        order = sorted(e["who"].unique(), key=lambda w: ("true prior" in w, w))
        colours = {w: "#c62828" if "true prior" in w else pal.get(a, "#555")
                   for w, a in zip(e["who"], e["algorithm"], strict=True)}
        bins = np.linspace(0.5, T + 0.5, min(T, 40) + 1)
        ax.hist([e.loc[e["who"] == w, "t"].to_numpy(float) for w in order], bins=bins, stacked=True,
                color=[colours[w] for w in order], label=order, edgecolor="white", lw=0.5)
        ax.legend(frameon=False)
        ax.set_xlim(0.5, T + 0.5)
        ax.set_xlabel("step t at which a prior was eliminated")
        ax.set_ylabel("eliminations (all runs)")
        n_ev = len(e)
        ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_title(f"Elimination times ({n_ev} elimination{'s' if n_ev != 1 else ''} in {n_runs} runs)")
    png = _save(fig, out, "eliminations")
    return FigureInfo(
        "eliminations", "Elimination times",
        "Histogram over all runs of the steps at which a candidate prior was eliminated (removed from the "
        "active set U_t), split by algorithm and by whether it was the true prior (which the theorem's "
        "good event never eliminates).", png)


FIGURES: tuple[Callable[[ReportContext, Path], FigureInfo | None], ...] = (
    fig_regret, fig_tightness, fig_claims, fig_gamma, fig_prior_selection, fig_eliminations, fig_r1_chain)


def _draw(fn: Callable[[ReportContext, Path], FigureInfo | None], ctx: ReportContext, out: Path
          ) -> tuple[FigureInfo | None, list[str]]:
    """One figure under the report's style; (its info or None, the notes it adds)."""
    notes: list[str] = []
    with matplotlib.rc_context(RC), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            f = fn(ctx, out)
        except Exception as exc:  # noqa: BLE001 - one bad figure must not lose the whole report
            figure_failed(notes, fn.__name__[4:], exc)
            f = None
    return f, notes


def warm_up() -> None:
    """Pay matplotlib's first-use costs in this process ahead of the report: its imports (this module's), the font
    lookup and the mathtext parser (≈ 0.03 s, the only first-use cost a figure shows; drawing a whole figure ahead
    costs six times that and saves no more). The report package registers it with the runtime
    (:mod:`boundcheck.runtime.warmup`, stage ``"parent"``): the study's parent calls it while its workers
    simulate. Safe in a background thread (no global state is changed)."""
    from matplotlib.font_manager import FontProperties, findfont
    from matplotlib.mathtext import MathTextParser

    prop = FontProperties(size=RC["font.size"])
    findfont(prop)
    MathTextParser("agg").parse("$R_t$ / Bound$_T(t)$ $\\gamma_t$", DPI, prop)
