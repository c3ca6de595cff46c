"""The page of a sweep: the explicit bound and the regret against each varied parameter (seaborn), the slack
ratio, and the cells' verdicts, as one self-contained HTML file (figures inlined) next to ``sweep.parquet``.

It reads the sweep table only (``boundcheck.study.sweep.sweep_table``): nothing is simulated here. The figure
is drawn apart (:func:`sweep_figure`); :func:`view_model` turns the table into numbers and words, and the
template ``report/templates/sweep/page.html.j2`` renders them (its ``body`` is what a notebook shows).
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..utils.io import atomic_write_text
from .templating import html_env

__all__ = ["write_sweep_page", "sweep_body", "sweep_figure", "view_model", "render_html", "page_css"]

_TEMPLATE = "sweep/page.html.j2"


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


def view_model(table: pd.DataFrame, meta: dict, figure: str) -> dict:
    """The sweep page as numbers and words: ``table`` (:func:`~boundcheck.study.sweep.sweep_table`), ``meta``
    (the content of ``sweep.json``) and ``figure`` (the drawn :func:`sweep_figure`, a base64 PNG)."""
    varied = [a["name"] for a in meta["vary"]]
    cells = _cells(table)
    rows = []
    for _, r in cells.iterrows():
        bad = table[(table["cell"] == r["cell"]) & (table["verdict"] == "violated")]["claim"].tolist()
        rows.append({"params": [str(r[p]) for p in varied], "verdict": r["theorem_verdict"],
                     "in_theory": "yes" if r["in_theory"] else "no", "bound": f"{r['bound']:.4g}",
                     "regret_q": f"{r['regret_q']:.4g}", "slack_ratio": f"{r['slack_ratio']:.3g}",
                     "random_q": f"{r['regret_uninformed_q']:.4g}", "vacuous": "yes" if r["vacuous"] else "no",
                     "violated": ", ".join(bad)})
    return {"title": f"boundcheck sweep: {meta['theorem']} on {meta['scenario']}", "count": len(cells),
            "axes": [{"name": a["name"], "levels": ", ".join(map(str, a["values"]))} for a in meta["vary"]],
            "algorithm": str(cells["algorithm"].iloc[0]), "verdict": meta["verdict"],
            "header": [*varied, "verdict", "in theory", "bound", "R_T q(1−δ)", "slack ratio", "random q(1−δ)",
                       "vacuous", "violated claims"],
            "cells": rows, "figure": figure}


def _view(table: pd.DataFrame, meta: dict) -> dict:
    return view_model(table, meta, _png(sweep_figure(table, [a["name"] for a in meta["vary"]])))


def render_html(view: dict) -> str:
    """The self-contained page (the figure inlined)."""
    return html_env().get_template(_TEMPLATE).render(v=view) + "\n"


def page_css() -> str:
    """The page's style sheet (a notebook's fragment carries it, scoped)."""
    return "\n" + html_env().get_template("sweep/page.css").render() + "\n"


def sweep_body(table: pd.DataFrame, meta: dict) -> str:
    """The sweep page's content (title, figure, cells' table): what :func:`write_sweep_page` writes inside its
    page, and a notebook shows (:mod:`boundcheck.report.notebook`)."""
    return str(html_env().get_template("sweep/sections.html.j2").module.body(_view(table, meta)))


def write_sweep_page(table: pd.DataFrame, meta: dict, out_dir: str | Path) -> Path:
    """Write ``out_dir/index.html`` for a sweep (its table and the content of ``sweep.json``)."""
    path = Path(out_dir) / "index.html"
    atomic_write_text(path, render_html(_view(table, meta)))
    return path
