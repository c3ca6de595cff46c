"""Reports of a completed ``boundcheck verify`` study, built from the stored results only.

``write_reports(results_dir, out_dir)`` reads straight down: load the stored results (:mod:`.context`), draw the
figures (:mod:`.figures`), build the view model (:mod:`.verify.model`: numbers and words), render it with the
Jinja2 templates under ``templates/`` into ``out_dir/index.html`` (self-contained: figures inlined, MathML
formulas) and ``out_dir/report.tex`` with ``out_dir/tables/{claims,bound_terms,regret}.tex`` (standalone
pdflatex, standard packages), and write them. Nothing is simulated or recomputed here.

After a parallel study the idle worker draws part of the figures (:mod:`boundcheck.report.drawing`).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_reports"]


def write_reports(results_dir: Path, out_dir: Path) -> dict[str, Path]:
    """Write the HTML and LaTeX reports of ``results_dir`` into ``out_dir``; return their paths.

    After a parallel study, part of the figures are drawn in the pool's idle workers while this process draws
    its own share (:mod:`boundcheck.report.drawing`); the files are the same either way."""
    from .context import load, write_text
    from .drawing import paused_gc, start
    from .verify import render_html, render_latex, render_tables, view_model

    results_dir, out_dir = Path(results_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with paused_gc():  # many small objects, none of them kept: the collector's passes would be wasted
        ctx = load(results_dir)  # the stored results
        figs = start(ctx, out_dir / "figures").finish()  # the figures (their failures become notes)
        view = view_model(ctx, figs)  # numbers and words
        html = render_html(view)
        tex = render_latex(view)
        tables = render_tables(view)
    for name, text in tables.items():
        write_text(out_dir / "tables" / f"{name}.tex", text, encoding="ascii")
    return {"html": write_text(out_dir / "index.html", html),
            "tex": write_text(out_dir / "report.tex", tex, encoding="ascii")}
