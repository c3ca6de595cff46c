"""Reports of a completed ``boundcheck verify`` study, built from the stored results only.

``write_reports(results_dir, out_dir)`` writes

* ``out_dir/index.html`` — one self-contained file (figures inlined, MathML formulas, no network);
* ``out_dir/report.tex`` — a standalone pdflatex document (standard packages), with
  ``out_dir/tables/{claims,bound_terms,regret}.tex`` fragments to ``\\input`` in a paper;
* ``out_dir/figures/*.png`` (each figure rendered once, used by both reports).

Both formats open with the same line: the theory status (an out-of-theory run says so first) and the
verdict. Nothing is simulated or recomputed here: the numbers come from ``summary.json``, the chunk
tables and ``gamma.parquet``, the formulas from the theory layer's sympy expressions.

After a parallel study the idle worker draws part of the figures (:mod:`boundcheck.report.drawing`).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_reports"]


def write_reports(results_dir: Path, out_dir: Path) -> dict[str, Path]:
    """Write the HTML and LaTeX reports of ``results_dir`` into ``out_dir``; return their paths.

    After a parallel study, part of the figures are drawn in the pool's idle workers while this process renders
    the text, then draws its own share (:mod:`boundcheck.report.drawing`); the files are the same either way."""
    from .context import load
    from .drawing import paused_gc, start
    from .html import prepare_html, write_html
    from .latex import finish_latex, prepare_latex

    results_dir, out_dir = Path(results_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with paused_gc():  # many small objects, none of them kept: the collector's passes would be wasted
        ctx = load(results_dir)
        drawing = start(ctx, out_dir / "figures")  # the workers' share of the figures starts now
        latex = prepare_latex(ctx, out_dir)  # the text meanwhile (matplotlib is not needed yet)
        html = prepare_html(ctx)
        figs = drawing.finish()  # the parent's share, then the workers'
        tex_path = finish_latex(latex, ctx, figs, out_dir)
        html_path = write_html(ctx, figs, out_dir / "index.html", prepared=html)
    return {"html": html_path, "tex": tex_path}

