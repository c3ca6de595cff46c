"""The report of one ``boundcheck reproduce`` run, and the index page of ``reproduce --all``.

:func:`write_reports` reads straight down: load the stored results (:mod:`.context`), draw the figures and the
paper's own tables (:mod:`boundcheck.report.replication_figures`), build the view model (:mod:`.model`: numbers
and words), render it with the Jinja2 templates under ``templates/reproduce/`` (:mod:`.render`) and write
``index.html`` (self-contained), ``report.tex`` (standalone pdflatex) and ``tables/claims.tex``.
"""

from __future__ import annotations

from pathlib import Path

from ..context import write_text
from ..replication_figures import make_replication_figures, make_replication_tables
from .context import ReplicationContext, load_replication
from .model import index_model, view_model
from .render import render_claims_table, render_html, render_index, render_latex

__all__ = ["write_reports", "write_index", "load_replication", "ReplicationContext", "view_model", "index_model",
           "render_html", "render_latex", "render_claims_table", "render_index"]


def write_reports(out_dir: Path) -> dict[str, Path]:
    """``out_dir/index.html`` and ``out_dir/report.tex`` (+ ``figures/``, ``tables/claims.tex``)."""
    ctx = load_replication(out_dir)  # the stored results
    figs = make_replication_figures(ctx, ctx.out_dir / "figures")  # the figures (their failures become notes)
    tables = make_replication_tables(ctx)  # the paper's own tables
    view = view_model(ctx, figs, tables)  # numbers and words
    html = render_html(view)
    tex = render_latex(view)
    claims = render_claims_table(view)
    html_path = write_text(ctx.out_dir / "index.html", html)
    (ctx.out_dir / "tables").mkdir(parents=True, exist_ok=True)
    write_text(ctx.out_dir / "tables" / "claims.tex", claims, encoding="ascii")
    return {"html": html_path, "tex": write_text(ctx.out_dir / "report.tex", tex, encoding="ascii")}


def write_index(summary: dict, out_dir: Path) -> Path:
    """``out_dir/index.html``: the index page of ``reproduce --all``."""
    return write_text(Path(out_dir) / "index.html", render_index(index_model(summary, Path(out_dir))))
