"""HTML report of a paper-001 experiment (Fig. 2, Table 2, Table 3), from its saved tables only, and a temporary
command-line entry point until ``boundcheck reproduce`` exists (issue 11)::

    python -m boundcheck.papers.et_gp_ucb.et_report table2 [--runs 50] [--jobs 2] [--out reports/et_gp_ucb/table2]

The report shows the paper's numbers beside ours (± 2 SE), the paper's claims with their paired tests and
verdicts, what the paper leaves unstated and what was chosen, and the figures: normalised regret R_t/t (mean ± 1 sd)
and reset times (Fig. 2), the δ_B sensitivity against the paper (Table 2), the stopping-time histograms with
R-GP-UCB's period (Fig. 4). Bad input: one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from boundcheck.errors import BoundcheckError
from boundcheck.papers.et_gp_ucb.et_experiments import DEFAULT_RUNS, EXPERIMENTS, run_experiment

__all__ = ["write_experiment_report", "load_experiment", "main"]

COLOURS = {"ET-GP-UCB": "#0173b2", "R-GP-UCB": "#029e73", "TV-GP-UCB": "#de8f05", "GP-UCB": "#cc78bc",
           "et_gp_ucb": "#0173b2", "r_gp_ucb_tv": "#029e73", "tv_gp_ucb": "#de8f05", "gp_ucb": "#cc78bc"}
LABELS = {"et_gp_ucb": "ET-GP-UCB", "r_gp_ucb_tv": "R-GP-UCB", "tv_gp_ucb": "TV-GP-UCB", "gp_ucb": "GP-UCB"}


def load_experiment(tables_dir: Path) -> tuple[dict, dict[str, pd.DataFrame], pd.DataFrame]:
    """(metadata, tables, claims) saved by :meth:`ExperimentResult.save`."""
    tables_dir = Path(tables_dir)
    meta_path = tables_dir / "experiment.json"
    if not meta_path.exists():
        raise BoundcheckError(f"{tables_dir} holds no saved experiment (experiment.json missing)")
    meta = json.loads(meta_path.read_text())
    tables = {k: pd.read_parquet(tables_dir / f"{k}.parquet") for k in meta["tables"]}
    return meta, tables, pd.read_parquet(tables_dir / "claims.parquet")


def _png(fig: Figure) -> str:
    buf = io.BytesIO()
    FigureCanvasAgg(fig).print_png(buf)
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<img alt="" style="max-width:100%" src="data:image/png;base64,{data}">'


def _fmt(x) -> str:
    if isinstance(x, float | np.floating):
        if not np.isfinite(x):
            return "—"
        return f"{x:.4g}"
    if isinstance(x, bool | np.bool_):
        return "yes" if x else "no"
    return html.escape(str(x))


def _table(df: pd.DataFrame, columns: list[str] | None = None) -> str:
    df = df if columns is None else df[[c for c in columns if c in df]]
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    rows = "".join("<tr>" + "".join(f"<td>{_fmt(v)}</td>" for v in r) + "</tr>" for r in df.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _fig2_figures(tables: dict[str, pd.DataFrame]) -> list[str]:
    curves, resets = tables["curves"], tables["reset_times"]
    panels = list(dict.fromkeys(curves["panel"]))
    fig = Figure(figsize=(3.2 * len(panels), 5.6))
    for k, panel in enumerate(panels):
        ax = fig.add_subplot(2, len(panels), k + 1)
        for alg, g in curves[curves["panel"] == panel].groupby("algorithm"):
            c = COLOURS.get(alg)
            ax.plot(g["t"], g["mean"], color=c, label=LABELS.get(alg, alg), lw=1.4)
            ax.fill_between(g["t"], g["mean"] - g["std"], g["mean"] + g["std"], color=c, alpha=0.15, lw=0)
        ax.set_title(panel, fontsize=9)
        ax.set_xlabel("t")
        if k == 0:
            ax.set_ylabel("normalised regret R_t/t (± 1 sd)")
            ax.legend(fontsize=7)
        ax2 = fig.add_subplot(2, len(panels), len(panels) + k + 1)
        r = resets[resets["panel"] == panel]
        for j, alg in enumerate(("et_gp_ucb", "r_gp_ucb_tv")):
            rr = r[r["algorithm"] == alg]
            ax2.scatter(rr["t"], rr["run"] + 0.3 * j, s=3, color=COLOURS[alg], label=LABELS[alg])
        ax2.set_xlabel("reset time t")
        if k == 0:
            ax2.set_ylabel("run")
            ax2.legend(fontsize=7, markerscale=3)
    fig.tight_layout()
    return [_png(fig)]


def _table2_figures(tables: dict[str, pd.DataFrame]) -> list[str]:
    t2 = tables["table2"]
    fig = Figure(figsize=(9.5, 3.4))
    for j, (col, paper, lab) in enumerate((("resets", "paper_resets", "average number of resets"),
                                           ("regret", "paper_regret", "average R_T"))):
        ax = fig.add_subplot(1, 2, j + 1)
        for e, g in t2.groupby("eps"):
            x = np.arange(len(g))
            ax.errorbar(x, g[col], yerr=2 * g[f"{col}_se"], fmt="o-", ms=4, capsize=3, label=f"ours ε = {e:g}")
            ax.plot(x, g[paper], "k*", ms=7, label="paper" if e == t2["eps"].iloc[0] else None)
            ax.set_xticks(x, [f"{d:g}" for d in g["delta_B"]])
        ax.set_xlabel("δ_B")
        ax.set_ylabel(lab + " (± 2 SE)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    return [_png(fig)]


def _table3_figures(tables: dict[str, pd.DataFrame]) -> list[str]:
    h, st = tables["histogram"], tables["stopping_times"]
    fig = Figure(figsize=(9.5, 3.4))
    for j, (col, lab) in enumerate((("first_tau", "first stopping time τ"), ("inter_reset", "every inter-reset time"))):
        ax = fig.add_subplot(1, 2, j + 1)
        for (e, g), c in zip(h.groupby("eps"), ("#d55e00", "#6a3d9a"), strict=False):
            tot = max(g[col].sum(), 1)
            ax.step(g["t"], g[col] / tot, where="mid", color=c, label=f"ε = {e:g}")
            N = st.loc[st["eps"] == e, "R_GP_UCB_N"].iloc[0]
            ax.axvline(N, color=c, ls="--", lw=1)
        ax.set_xlabel(lab + " (dashed: R-GP-UCB's N)")
        ax.set_ylabel("fraction of runs" if j == 0 else "fraction of resets")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return [_png(fig)]


FIGURES = {"fig2": _fig2_figures, "table2": _table2_figures, "table3": _table3_figures}
TITLES = {"fig2": "Fig. 2 / Table 4: within-model comparison", "table2": "Table 2: sensitivity to δ_B",
          "table3": "Table 3 / Fig. 4: distribution of the stopping times"}

CSS = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
       "table{border-collapse:collapse;font-size:12px;margin:.6em 0}td,th{border:1px solid #ccc;padding:2px 6px;"
       "text-align:right}th{background:#f3f3f3}h1{font-size:22px}h2{font-size:17px;margin-top:1.6em}"
       ".small{font-size:12px;color:#555}")


def write_experiment_report(tables_dir: Path, out_html: Path) -> Path:
    """Render the saved experiment in ``tables_dir`` as one self-contained HTML file."""
    meta, tables, claims = load_experiment(tables_dir)
    name = meta["experiment"]
    parts = [f"<h1>Paper 001 (ET-GP-UCB) — {html.escape(TITLES.get(name, name))}</h1>",
             f"<p class='small'>boundcheck {html.escape(meta.get('version', ''))}; configuration "
             f"{html.escape(json.dumps(meta['config']))}; {meta.get('seconds', 0):.0f} s.</p>"]
    if len(claims):
        counts = claims["verdict"].value_counts().to_dict() if "verdict" in claims else {}
        parts.append("<h2>The paper's claims</h2><p>" + "; ".join(f"{v}: {n}" for v, n in counts.items()) + "</p>")
        parts.append(_table(claims))
    for k, df in tables.items():
        if k in ("curves", "reset_times", "histogram"):
            continue
        parts.append(f"<h2>{html.escape(k)}</h2>" + _table(df))
    parts.append("<h2>Figures</h2>" + "".join(FIGURES[name](tables)))
    parts.append("<h2>What the paper leaves unstated, and what was chosen</h2><ul>"
                 + "".join(f"<li>{html.escape(n)}</li>" for n in meta.get("notes", [])) + "</ul>")
    out_html = Path(out_html)
    out_html.parent.mkdir(parents=True, exist_ok=True)
    out_html.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(name)}</title>"
                        f"<style>{CSS}</style></head><body>{''.join(parts)}</body></html>", encoding="utf-8")
    return out_html


# ------------------------------------------------------------------------------ temporary entry point
class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        raise BoundcheckError(f"{self.prog}: {message}")


def _floats(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise BoundcheckError(f"expected comma-separated numbers, got {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    ap = _Parser(prog="python -m boundcheck.papers.et_gp_ucb.et_report",
                 description="Reproduce an experiment of paper 001 (ET-GP-UCB) and write its report.")
    ap.add_argument("experiment", help=f"one of {', '.join(EXPERIMENTS)}")
    ap.add_argument("--runs", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--grid", type=int, default=30, help="points per axis of the [0,1]² grid")
    ap.add_argument("--horizon", type=int)
    ap.add_argument("--eps", type=_floats)
    ap.add_argument("--delta-b", type=_floats, dest="delta_B")
    ap.add_argument("--c1", type=float, default=0.4)
    ap.add_argument("--c2", type=float, default=4.0)
    ap.add_argument("--out")
    ap.add_argument("--json", action="store_true")
    try:
        args = ap.parse_args(argv)
        if args.experiment not in EXPERIMENTS:
            raise BoundcheckError(f"unknown experiment {args.experiment!r}; choose one of {', '.join(EXPERIMENTS)}")
        kw = {"runs": args.runs or DEFAULT_RUNS[args.experiment], "seed": args.seed, "jobs": args.jobs,
              "points_per_axis": args.grid, "c1": args.c1, "c2": args.c2}
        if args.horizon is not None:
            kw["horizon"] = args.horizon
        if args.eps is not None:
            kw["eps"] = args.eps
        if args.delta_B is not None:
            if args.experiment == "fig2":
                raise BoundcheckError("--delta-b applies to table2 and table3")
            kw["delta_B"] = args.delta_B if args.experiment == "table2" else (
                args.delta_B[0] if len(args.delta_B) == 1 else _one(args.delta_B))
        out = Path(args.out) if args.out else Path("reports") / "et_gp_ucb" / args.experiment
        res = run_experiment(args.experiment, out=out, **kw)
        page = write_experiment_report(out / "tables", out / "index.html")
    except BoundcheckError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"experiment": res.name, "report": str(page), "claims": res.claims.to_dict("records"),
                          **{k: v.to_dict("records") for k, v in res.tables.items()
                             if k not in ("curves", "reset_times", "histogram")}}, default=str, indent=1))
    else:
        print(f"{res.name}: {len(res.claims)} claims "
              + (str(res.claims["verdict"].value_counts().to_dict()) if "verdict" in res.claims else "")
              + f"; report {page}")
    return 0


def _one(values: list[float]) -> float:
    raise BoundcheckError(f"table3 takes one δ_B, got {len(values)}")


if __name__ == "__main__":
    sys.exit(main())
