"""Paper 001's figure of a ``boundcheck reproduce`` report: the distribution of ET-GP-UCB's first trigger time τ
per panel (the paper's Fig. 4 / Table 3), against R-GP-UCB's fixed period N, with its mean, spread, quantiles and
censored share (``stopping_times_<experiment>``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from boundcheck.report.figures import COLOURS, MAX_WIDTH_IN, FigureInfo, _new, _save

__all__ = ["fig_stopping_times", "REPLICATION_FIGURES"]


def fig_stopping_times(ctx, exp: dict, out: Path) -> FigureInfo | None:
    """Histograms of the first trigger time τ per panel (read from the stored runs tables)."""
    if "stopping_times" not in exp.get("figures", ()):
        return None
    from boundcheck.study.store import ResultStore

    from .et_experiments import tau_statistics

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


#: the paper these figures belong to, and the figures its experiments' reports add (``reproduce``)
PAPER_ID = "et_gp_ucb"
REPLICATION_FIGURES = {"stopping_times": fig_stopping_times}
