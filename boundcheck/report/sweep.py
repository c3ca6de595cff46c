"""The page of a sweep: the explicit bound and the regret against each varied parameter (seaborn), the slack
ratio, and the cells' verdicts, as one self-contained HTML file (figures inlined) next to ``sweep.parquet``.

It reads the sweep table only (``boundcheck.study.sweep.sweep_table``): nothing is simulated here."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..utils.io import atomic_write_text

__all__ = ["write_sweep_page", "sweep_body", "sweep_figure"]

_CSS = """
body { font: 15px/1.5 system-ui, "DejaVu Sans", sans-serif; color: #1d232a; margin: 0; background: #f6f7f9; }
main { max-width: 1180px; margin: 0 auto; padding: 8px 24px 48px; background: #fff; }
h1 { font-size: 23px; } h2 { font-size: 19px; border-bottom: 2px solid #d9dee3; padding-bottom: 4px; }
table { border-collapse: collapse; font-size: 14px; margin: 8px 0; }
th, td { border-bottom: 1px solid #d9dee3; padding: 4px 10px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.holds { color: #2e7d32; font-weight: 600; } .violated { color: #c62828; font-weight: 600; }
.inconclusive { color: #ef6c00; font-weight: 600; } .mute { color: #5b6570; font-size: 13px; }
img { max-width: 100%; }
"""


def _cells(table: pd.DataFrame) -> pd.DataFrame:
    """One row per cell (the bound and regret columns are the same on every claim row of a cell)."""
    return table.drop_duplicates("cell").reset_index(drop=True)


def sweep_figure(table: pd.DataFrame, varied: list[str]) -> Figure:
    """Row 1: bound (dashed) and the regret quantiles of the checked algorithm (solid; random search dotted)
    against each varied parameter, log scale; row 2: the slack ratio bound / regret quantile."""
    cells = _cells(table)
    ncol = max(1, len(varied))
    fig = Figure(figsize=(4.6 * ncol, 7.0), layout="constrained")
    FigureCanvasAgg(fig)
    axes = np.atleast_2d(fig.subplots(2, ncol, squeeze=False))
    palette = sns.color_palette("colorblind", 10)
    for j, p in enumerate(varied):
        others = [o for o in varied if o != p]
        groups = cells.groupby(others, sort=True) if others else [((), cells)]
        top, bottom = axes[0, j], axes[1, j]
        for k, (key, g) in enumerate(groups):
            key = key if isinstance(key, tuple) else (key,)
            label = ", ".join(f"{o}={v}" for o, v in zip(others, key, strict=True)) or None
            g = g.sort_values(p)
            x = g[p].astype(float) if pd.api.types.is_numeric_dtype(g[p]) else g[p].astype(str)
            c = palette[k % len(palette)]
            top.plot(x, g["bound"], ls="--", color=c, marker="o", ms=3)
            top.plot(x, g["regret_q"], ls="-", color=c, marker="o", ms=3, label=label)
            if g["regret_uninformed_q"].notna().any():
                top.plot(x, g["regret_uninformed_q"], ls=":", color=c, lw=1)
            bottom.plot(x, g["slack_ratio"], color=c, marker="o", ms=3, label=label)
        top.set_yscale("log")
        top.set_xlabel(p)
        top.set_ylabel("R_T (1−δ quantile, solid) and bound (dashed)")
        top.set_title(f"bound and regret against {p}", fontsize=11)
        bottom.set_yscale("log")
        bottom.axhline(1.0, color="#c62828", lw=1)
        bottom.set_xlabel(p)
        bottom.set_ylabel("slack ratio = bound / R_T quantile")
        if others:
            top.legend(fontsize=8, title=None)
    return fig


def _png(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode()


def sweep_body(table: pd.DataFrame, meta: dict) -> str:
    """The sweep page's content (title, figure, cells' table): what :func:`write_sweep_page` writes inside its
    page, and a notebook shows (:mod:`boundcheck.report.notebook`)."""
    e = html.escape
    varied = [a["name"] for a in meta["vary"]]
    cells = _cells(table)
    head = "".join(f"<th>{e(c)}</th>" for c in [*varied, "verdict", "in theory", "bound", "R_T q(1−δ)",
                                                   "slack ratio", "random q(1−δ)", "vacuous", "violated claims"])
    body = []
    for _, r in cells.iterrows():
        bad = table[(table["cell"] == r["cell"]) & (table["verdict"] == "violated")]["claim"].tolist()
        vals = "".join(f"<td>{e(str(r[p]))}</td>" for p in varied)
        body.append(f"<tr>{vals}<td class='{e(r['theorem_verdict'])}'>{e(r['theorem_verdict'])}</td>"
                    f"<td>{'yes' if r['in_theory'] else 'no'}</td><td>{r['bound']:.4g}</td><td>{r['regret_q']:.4g}</td>"
                    f"<td>{r['slack_ratio']:.3g}</td><td>{r['regret_uninformed_q']:.4g}</td>"
                    f"<td>{'yes' if r['vacuous'] else 'no'}</td><td>{e(', '.join(bad))}</td></tr>")
    fig = sweep_figure(table, varied)
    title = f"boundcheck sweep: {meta['theorem']} on {meta['scenario']}"
    axes = ", ".join(f'<b>{e(a["name"])}</b> ∈ {{{e(", ".join(map(str, a["values"])))}}}' for a in meta["vary"])
    return f"""<h1>{e(title)}</h1>
<p>{len(cells)} cells over {axes}; checked algorithm <b>{e(str(cells['algorithm'].iloc[0]))}</b>;
overall: <span class="{e(meta['verdict'])}">{e(meta['verdict'])}</span>.</p>
<h2>Where the bound becomes vacuous</h2>
<p class="mute">Top: the explicit bound at T (dashed) and the (1 − δ)-quantile of the checked algorithm's regret
R_T (solid); random search's (dotted) when it ran. Bottom: the slack ratio bound / R_T quantile (the red line is 1:
below it the bound fails). A bound at or above random search's regret (<i>vacuous</i> in the table) says nothing
that guessing does not already guarantee.</p>
<img alt="bound and regret against the varied parameters" src="data:image/png;base64,{_png(fig)}">
<h2>Cells</h2>
<table><tr>{head}</tr>{''.join(body)}</table>
<p class="mute">The tidy table (one row per cell × claim) is <code>sweep.parquet</code>; each cell's results are in
<code>cells/&lt;cell&gt;/results</code> (<code>boundcheck report</code> builds a cell's full report).</p>
"""


def write_sweep_page(table: pd.DataFrame, meta: dict, out_dir: str | Path) -> Path:
    """Write ``out_dir/index.html`` for a sweep (its table and the content of ``sweep.json``)."""
    out_dir = Path(out_dir)
    title = f"boundcheck sweep: {meta['theorem']} on {meta['scenario']}"
    page = f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_CSS}</style></head><body><main>
{sweep_body(table, meta)}</main></body></html>
"""
    path = out_dir / "index.html"
    atomic_write_text(path, page)
    return path
