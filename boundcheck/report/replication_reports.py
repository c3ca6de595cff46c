"""Writing the report of ``boundcheck reproduce`` (:mod:`boundcheck.report.replication`): the HTML file, the
standalone LaTeX document and its claims table, from the figures drawn once for both."""

from __future__ import annotations

from pathlib import Path

from .context import write_text
from .replication import load_replication
from .replication_figures import make_replication_figures, make_replication_tables
from .replication_html import render_html
from .replication_latex import claims_table, render_latex

__all__ = ["write_replication_reports"]


def write_replication_reports(out_dir: Path) -> dict[str, Path]:
    """``out_dir/index.html`` and ``out_dir/report.tex`` (+ ``figures/``, ``tables/claims.tex``)."""
    ctx = load_replication(out_dir)
    figs = make_replication_figures(ctx, ctx.out_dir / "figures")
    tables = make_replication_tables(ctx)
    html_path = write_text(ctx.out_dir / "index.html", render_html(ctx, figs, tables))
    (ctx.out_dir / "tables").mkdir(parents=True, exist_ok=True)
    write_text(ctx.out_dir / "tables" / "claims.tex", claims_table(ctx), encoding="ascii")
    tex_path = write_text(ctx.out_dir / "report.tex", render_latex(ctx, figs, tables), encoding="ascii")
    return {"html": html_path, "tex": tex_path}
