"""Figures and paper-specific tables of a ``boundcheck reproduce`` report, drawn from the stored results only (PNG).

The common figures (regret curves, prior-selection histograms, claims' effects, explorations of unstated
settings) are drawn here for every paper; a paper's ``figures`` part adds its own figures
(``REPLICATION_FIGURES``) and tables (``REPLICATION_TABLES``) through the registry here, so that both reports
show them without knowing the paper. The list of figures: :func:`make_replication_figures`; the tables:
:func:`make_replication_tables`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from theory import plugins

from .figures import (
    COLOURS,
    DPI,
    MAX_WIDTH_IN,
    RC,
    ROLE_STYLES,
    UNINFORMED_COLOUR,
    VERDICT_COLOURS,
    FigureInfo,
    _new,
    _save,
    figure_failed,
)

__all__ = ["make_replication_figures", "EMPIRICAL_COLOURS", "EXPERIMENT_FIGURES", "register_replication_figure",
           "replication_figures_of", "ReplicationTable", "register_replication_table", "replication_tables_of",
           "make_replication_tables", "paper_figure_names"]

#: the figures every paper's experiments may draw (``<kind>_<experiment>``), in the order the reports show them;
#: a paper's own follow them
EXPERIMENT_FIGURES = ("regret", "priors")

_PAPER_FIGURES: dict[str, dict] = {}  # paper id -> {figure name: draw(ctx, exp, out)}
_PAPER_TABLES: dict[str, dict] = {}  # paper id -> {table name: build(ctx, exp)}


@dataclass
class ReplicationTable:
    """A table a paper adds to its experiments' reports: ``rows`` of ``columns`` (numbers or text; None: —),
    ``numeric`` the indices of the numeric columns (right-aligned)."""

    name: str
    title: str
    caption: str
    columns: Sequence[str]
    rows: list[list]
    numeric: set[int] = field(default_factory=set)


def _install(module) -> None:
    for name, draw in getattr(module, "REPLICATION_FIGURES", {}).items():
        register_replication_figure(module.PAPER_ID, name, draw)
    for name, build in getattr(module, "REPLICATION_TABLES", {}).items():
        register_replication_table(module.PAPER_ID, name, build)


_FIGURES = plugins.registry(
    "figures", _install, lambda key: ValueError(f"paper {key[0]!r} already has a replication figure {key[1]!r}"))


def register_replication_figure(paper: str, name: str, draw) -> None:
    """Draw ``draw(ctx, exp, out) -> FigureInfo | None`` for the experiments of ``paper`` that list ``name`` in
    their figures (after the common ones)."""
    _FIGURES.add((paper, name), draw)
    _PAPER_FIGURES.setdefault(paper, {})[name] = draw


def replication_figures_of(paper: str) -> dict:
    """The figures ``paper`` adds to its experiments' reports (imports its ``figures`` part only)."""
    _FIGURES.load_declaring(paper)
    return dict(_PAPER_FIGURES.get(paper, {}))


def register_replication_table(paper: str, name: str, build) -> None:
    """Build ``build(ctx, exp) -> ReplicationTable | None`` for the experiments of ``paper`` that list ``name`` in
    their tables."""
    _FIGURES.add((paper, f"table:{name}"), build)
    _PAPER_TABLES.setdefault(paper, {})[name] = build


def replication_tables_of(paper: str) -> dict:
    """The tables ``paper`` adds to its experiments' reports (imports its ``figures`` part only)."""
    _FIGURES.load_declaring(paper)
    return dict(_PAPER_TABLES.get(paper, {}))


def paper_figure_names(exp: dict) -> list[str]:
    """The names of an experiment's figures in the order the reports show them: the common ones, then the
    paper's own (``<kind>_<experiment>``)."""
    kinds = list(EXPERIMENT_FIGURES) + [k for k in exp.get("figures", ()) if k not in EXPERIMENT_FIGURES]
    return [f"{k}_{exp['name']}" for k in kinds]


def make_replication_tables(ctx) -> dict[str, list[ReplicationTable]]:
    """The paper's own tables of every experiment (experiment name -> tables), from the stored results; a table
    that cannot be built is a note, not a lost report.

    A paper's ``figures`` part may define ``REPLICATION_TABLES`` (name -> ``build(ctx, exp)`` returning a
    :class:`ReplicationTable` or None), built for the experiments that list the name in their ``tables``: the
    statistics of the paper's own experiments that are no claim (paper 001's stopping-time quantiles, paper 002's
    paired tests pooled over routes). Both reports show them after the experiment's claims.
    """
    out: dict[str, list[ReplicationTable]] = {}
    builders = replication_tables_of(ctx.paper["id"]) if any(e.get("tables") for e in ctx.experiments) else {}
    for exp in ctx.experiments:
        for name in exp.get("tables", ()):
            build = builders.get(name)
            if build is None:
                ctx.notes.append(f"table {name!r} of {exp['name']}: the paper defines no such table")
                continue
            try:
                t = build(ctx, exp)
            except Exception as exc:  # noqa: BLE001 - one bad table must not lose the whole report
                ctx.notes.append(f"table {name}_{exp['name']} could not be built: {type(exc).__name__}: {exc}")
                continue
            if t is not None:
                out.setdefault(exp["name"], []).append(t)
    return out

EMPIRICAL_COLOURS = {"reproduced": VERDICT_COLOURS["holds"], "not reproduced": VERDICT_COLOURS["violated"],
                     "inconclusive": VERDICT_COLOURS["inconclusive"], "not run": "#8c8c8c"}


def _palette(algorithms: list[str], roles: dict[str, str]) -> dict[str, str]:
    colours = iter(COLOURS * 2)
    return {a: UNINFORMED_COLOUR if roles.get(a) == "uninformed" else next(colours) for a in algorithms}


def _curves(ax, ctx, exp: dict, p: dict, algos: list[str], stats: pd.DataFrame, pal: dict, roles: dict,
            band: str, handles: dict) -> None:
    for a in algos:
        s = stats[stats["algorithm"] == a]
        width = s["sd"] if band == "sd" else s["sd"] / np.sqrt(s["n"])
        ax.fill_between(s["t"], s["mean"] - width, s["mean"] + width, color=pal[a], alpha=0.2, linewidth=0)
        (line,) = ax.plot(s["t"], s["mean"], color=pal[a], lw=2.0 if a == p["algorithms"][0] else 1.4,
                          ls=ROLE_STYLES.get(roles[a], "-"), label=ctx.label(exp["name"], p["name"], a))
        handles.setdefault(a, line)  # keyed by algorithm: two algorithms never share a legend entry
    ax.set_xlabel("step t")
    ax.set_ylabel("cumulative regret $R_t$")
    ax.set_xlim(1, int(stats["t"].max()))
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)


def fig_regret(ctx, exp: dict, out: Path) -> FigureInfo | None:
    if "regret" not in exp.get("figures", ("regret",)):
        return None
    panels = [p for p in exp.get("panel_results", []) if ctx.steps(exp["name"], p["name"]) is not None]
    if not panels:
        return None
    band = exp.get("band", "se")
    # one row per panel: every algorithm (as the paper plots it), and the same without the uninformed reference
    # (random search), whose regret would otherwise flatten the others
    fig = Figure(figsize=(MAX_WIDTH_IN, 3.5 * len(panels) + 0.7), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(panels), 2, squeeze=False)
    handles: dict = {}
    for row, p in zip(axes, panels, strict=True):
        steps = ctx.steps(exp["name"], p["name"])
        algos = [a for a in p["algorithms"] if a in set(steps["algorithm"].astype(str))]
        roles = {a: ctx.role(exp["name"], p["name"], a) for a in algos}
        pal = _palette(list(p["algorithms"]), roles)
        g = steps.groupby(["algorithm", "t"], observed=True)["cum_regret"]
        stats = pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "n": g.count()}).reset_index()
        stats["algorithm"] = stats["algorithm"].astype(str)
        _curves(row[0], ctx, exp, p, algos, stats, pal, roles, band, handles)
        row[0].set_title(f"{p['title']}: all algorithms ({p['runs']} runs)")
        informed = [a for a in algos if roles[a] != "uninformed"]
        _curves(row[1], ctx, exp, p, informed, stats, pal, roles, band, handles)
        row[1].set_title(f"{p['title']}: without random search")
    fig.legend(list(handles.values()), [h.get_label() for h in handles.values()], loc="outside lower center",
               ncols=min(4, len(handles)), frameon=False)
    name = f"regret_{exp['name']}"
    png = _save(fig, out, name)
    what = "± 1 standard error" if band == "se" else "± 1 standard deviation"
    return FigureInfo(
        name, f"{exp['title']}: cumulative regret",
        f"Mean cumulative regret R_t over the runs (lines), shaded {what} as the paper plots it ({exp['location']}); "
        "right: the same without random search. Every algorithm sees the same functions and noise in run r "
        "(common random numbers).", png)


def fig_priors(ctx, exp: dict, out: Path) -> FigureInfo | None:
    if "prior_selection" not in exp.get("figures", ()):
        return None
    panels = [p for p in exp.get("panel_results", []) if ctx.steps(exp["name"], p["name"]) is not None]
    panels = [p for p in panels if "prior" in ctx.steps(exp["name"], p["name"])]
    if not panels:
        return None
    p = panels[0]
    s = ctx.steps(exp["name"], p["name"])
    s = s[s["prior"].notna()]
    algos = [a for a in p["algorithms"] if a in set(s["algorithm"].astype(str))]
    if not algos:
        return None
    n_prior = len(p.get("candidate_names") or []) or int(s["prior"].max()) + 1
    freq = (s.assign(prior=s["prior"].astype(int), algorithm=s["algorithm"].astype(str))
            .groupby("algorithm")["prior"].value_counts(normalize=True).unstack(fill_value=0.0)
            .reindex(index=algos, columns=range(n_prior), fill_value=0.0))
    roles = {a: ctx.role(exp["name"], p["name"], a) for a in p["algorithms"]}
    pal = _palette(list(p["algorithms"]), roles)
    fig, ax = _new(MAX_WIDTH_IN, 3.8)
    width = 0.8 / len(algos)
    x = np.arange(n_prior)
    for i, a in enumerate(algos):
        ax.bar(x - 0.4 + (i + 0.5) * width, freq.loc[a].to_numpy(), width, color=pal[a],
               label=ctx.label(exp["name"], p["name"], a))
    tp = p.get("truth_index")
    if tp is not None:
        ax.axvspan(tp - 0.45, tp + 0.45, color="#c62828", alpha=0.08, lw=0)
        ax.text(tp, ax.get_ylim()[1] * 0.97, "true prior", ha="center", va="top", color="#c62828", fontsize=9)
    ax.set_xticks(x)
    ax.set_xticklabels([str(i) for i in x])
    ax.set_xlabel("candidate prior")
    ax.set_ylabel("share of (step, run) pairs")
    ax.set_ylim(0, 1.02)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(frameon=False, ncols=len(algos), loc="upper right")
    name = f"priors_{exp['name']}"
    png = _save(fig, out, name)
    return FigureInfo(
        name, f"{exp['title']}: prior selection",
        f"As the paper's histogram ({exp['location']}): the share of all (step, run) pairs at which each algorithm's "
        "model used each candidate prior (fully Bayesian: its most probable prior). Shaded: the true prior.",
        png)


def fig_claims(ctx, out: Path) -> FigureInfo | None:
    rows = [c for c in ctx.claims if c.get("verdict") != "not run" and c.get("kind") in
            ("less", "lowest", "noninferior", "similar") and c.get("relative") is not None]
    if not rows:
        return None
    fig, ax = _new(MAX_WIDTH_IN * 0.8, 1.2 + 0.24 * len(rows))
    y = np.arange(len(rows))[::-1]
    for yi, c in zip(y, rows, strict=True):
        mean_b = (c["details"].get("means") or {}).get(c["details"].get("comparator"))
        rel, col = c["relative"], EMPIRICAL_COLOURS[c["verdict"]]
        if mean_b:
            lo, hi = c["ci_low"] / mean_b, c["ci_high"] / mean_b
            ax.plot([lo, hi], [yi, yi], color=col, lw=2)
        ax.plot([rel], [yi], "o", color=col, ms=5)
    ax.axvline(0, color="#333", lw=1)
    ax.set_yticks(y)
    ax.set_yticklabels([c["id"] for c in rows], fontsize=8)
    ax.set_xlabel("mean paired difference (subject − comparator) / comparator's mean")
    lim = max(1.0, min(5.0, max(abs(c["relative"]) for c in rows) * 1.1))
    ax.set_xlim(-lim, lim)
    ax.grid(True, axis="x", alpha=0.3)
    from matplotlib.lines import Line2D

    ax.legend([Line2D([], [], color=v, lw=2) for v in EMPIRICAL_COLOURS.values()][:3], list(EMPIRICAL_COLOURS)[:3],
              frameon=False, loc="lower right", fontsize=8)
    png = _save(fig, out, "claims")
    return FigureInfo(
        "claims", "Paired effects of the ordering claims",
        "For every claim that compares algorithms: the mean paired difference of the metric (subject − comparator; "
        "for 'lowest', the closest competitor) relative to the comparator's mean, with its simultaneous interval at "
        "the run's false-alarm budget; negative = the subject did better. Colour: the verdict (Holm).", png)


def _split_axes(axes: list[dict]) -> tuple[list[dict], list[dict]]:
    """Columns: the first and the last axis of the grid; rows: the others."""
    if len(axes) <= 2:
        return axes[:1], axes[1:]
    return [axes[0], axes[-1]], axes[1:-1]


def fig_explore(ctx, exp_name: str, claim_id: str, ex: dict, out: Path) -> FigureInfo | None:
    block = ex["claims"][claim_id]
    cells, rows = ex["cells"], block["cells"]
    if not cells:
        return None
    claim = ctx.claim(claim_id) or {}
    paired = claim.get("kind") in ("less", "lowest", "noninferior", "similar")
    value = [r.get("relative") if paired else r.get("estimate") for r in rows]
    col_axes, row_axes = _split_axes(ex["axes"])

    def key(cell, axes):
        return " | ".join(f"{cell[a['name']]}" for a in axes)

    col_keys = list(dict.fromkeys(key(c, col_axes) for c in cells))
    row_keys = list(dict.fromkeys(key(c, row_axes) for c in cells))
    M = np.full((len(row_keys), len(col_keys)), np.nan)
    mark = np.full(M.shape, "", dtype=object)
    confirmed = {c["cell"] for c in block.get("confirmed") or [] if c["reproduces"]}
    for n, (c, r, v) in enumerate(zip(cells, rows, value, strict=True)):
        i, j = row_keys.index(key(c, row_axes)), col_keys.index(key(c, col_axes))
        if v is None and paired and r.get("estimate"):  # the comparator's mean regret is 0: off the scale
            v = float(np.sign(r["estimate"])) * 1e9
        M[i, j] = np.nan if v is None else v
        mark[i, j] = ("✓" if r["reproduces"] else ("×" if r["reversed"] else "")) + ("★" if n in confirmed else "")
    if paired:
        finite = np.abs(M[np.isfinite(M) & (np.abs(M) < 1e8)])
        lim = min(max(float(finite.max()) if finite.size else 1.0, 0.05), 3.0)
        M = np.clip(M, -lim, lim)
        cmap, vmin, vmax, centre = "RdBu_r", -lim, lim, 0.0
        cbar = "relative paired effect (negative: the subject did better)"
    else:
        thr = claim.get("details", {}).get("threshold")
        cmap, vmin, vmax, centre = "RdBu", 0.0, 1.0, thr
        cbar = "mean of the metric"
    h = 1.6 + 0.26 * len(row_keys)
    fig, ax = _new(MAX_WIDTH_IN, h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sns.heatmap(M, ax=ax, cmap=cmap, vmin=vmin, vmax=vmax, center=centre, annot=mark, fmt="",
                    annot_kws={"fontsize": 9, "color": "#111"}, linewidths=0.4, linecolor="white",
                    xticklabels=col_keys, yticklabels=row_keys, cbar_kws={"label": cbar, "shrink": 0.6})
    ax.set_xlabel(" | ".join(a["label"] for a in col_axes))
    ax.set_ylabel(" | ".join(a["label"] for a in row_axes))
    ax.tick_params(axis="x", rotation=30, labelsize=7.5)
    ax.tick_params(axis="y", rotation=0, labelsize=7.5)
    for lab in ax.get_xticklabels():
        lab.set_horizontalalignment("right")
    import textwrap

    ax.set_title("\n".join(textwrap.wrap(f"{claim_id}: reproduces {block['where']}", 110)), fontsize=10)
    name = f"explore_{claim_id}"
    png = _save(fig, out, name)
    return FigureInfo(
        name, f"Explored settings: {claim_id}",
        f"The claim '{claim.get('reading', claim_id)}' over the grid of unstated settings ({len(cells)} settings, "
        f"{ex.get('runs')} paired runs each). Colour: "
        + ("the mean paired difference relative to the comparator's mean (blue: the paper's ordering)"
           if paired else "the mean of the metric")
        + "; ✓: the claim reproduces there in the screen (Holm over the grid at the run's budget); ×: significantly "
        "reversed; ★: confirmed by a re-run on fresh seeds.",
        png)


def make_replication_figures(ctx, out: Path) -> list[FigureInfo]:
    """Every figure the stored results support, into ``out`` (PNG, used by both reports).

    * ``regret_<experiment>``: mean cumulative regret of every algorithm on each panel, shaded as the paper shades
      it (± 1 standard error for paper 000, ± 1 standard deviation for paper 004);
    * ``priors_<experiment>``: the prior-selection histogram of paper 000's Fig. 2b / 4b (share of all (step, run)
      pairs at which each algorithm used each candidate prior);
    * ``claims``: every judged claim's paired effect with its simultaneous interval, coloured by verdict;
    * ``explore_<claim>``: the paired effect of a claim over the grid of unstated settings, with the settings where
      the claim reproduces (Holm over the grid) marked;
    * the figures a paper adds for its own experiments (its ``figures`` part's ``REPLICATION_FIGURES``: name ->
      ``draw(ctx, exp, out)``, drawn when the experiment lists the name in its ``figures``), e.g. paper 001's
      ``stopping_times_<experiment>`` and paper 002's ``paths_<experiment>``.
    """
    from PIL import Image

    out.mkdir(parents=True, exist_ok=True)
    for old in list(out.glob("*.png")) + list(out.glob("*.pdf")):  # a rebuild leaves no stale figure behind
        old.unlink()
    figs: list[FigureInfo] = []
    jobs = []
    for exp in ctx.experiments:
        jobs.append((f"regret_{exp['name']}", lambda e=exp: fig_regret(ctx, e, out)))
        jobs.append((f"priors_{exp['name']}", lambda e=exp: fig_priors(ctx, e, out)))
        for kind, draw in replication_figures_of(ctx.paper["id"]).items():
            if kind in exp.get("figures", ()):
                jobs.append((f"{kind}_{exp['name']}", lambda e=exp, d=draw: d(ctx, e, out)))
    jobs.append(("claims", lambda: fig_claims(ctx, out)))
    for exp_name, ex in ctx.explore.items():
        for cid in (ex.get("claims") or {}):
            jobs.append((f"explore_{cid}", lambda e=exp_name, c=cid, x=ex: fig_explore(ctx, e, c, x, out)))
    with matplotlib.rc_context(RC), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        sns.set_theme(style="ticks", rc=RC)
        for name, fn in jobs:
            try:
                f = fn()
            except Exception as exc:  # noqa: BLE001 - one bad figure must not lose the whole report
                figure_failed(ctx.notes, name, exc)
                continue
            if f is not None:
                with Image.open(f.png) as im:
                    f.width_in = im.size[0] / DPI
                figs.append(f)
    return figs
