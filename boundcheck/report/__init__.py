"""Reports of a completed ``boundcheck verify`` study, built from the stored results only.

``write_reports(results_dir, out_dir)`` writes

* ``out_dir/index.html`` — one self-contained file (figures inlined, MathML formulas, no network);
* ``out_dir/report.tex`` — a standalone pdflatex document (standard packages), with
  ``out_dir/tables/{claims,bound_terms,regret}.tex`` fragments to ``\\input`` in a paper;
* ``out_dir/figures/*.png`` (each figure rendered once, used by both reports).

Both formats open with the same line: the theory status (an out-of-theory run says so first) and the
verdict. Nothing is simulated or recomputed here: the numbers come from ``summary.json``, the chunk
tables and ``gamma.parquet``, the formulas from the theory layer's sympy expressions.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_reports"]


def write_reports(results_dir: Path, out_dir: Path) -> dict[str, Path]:
    """Write the HTML and LaTeX reports of ``results_dir`` into ``out_dir``; return their paths."""
    from .context import load
    from .figures import make_figures
    from .html import write_html
    from .latex import write_latex

    results_dir, out_dir = Path(results_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ctx = load(results_dir)
    figs = make_figures(ctx, out_dir / "figures")
    tex_path = write_latex(ctx, figs, out_dir)
    html_path = write_html(ctx, figs, out_dir / "index.html")
    return {"html": html_path, "tex": tex_path}
