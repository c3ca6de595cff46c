"""The studies page's view model rendered: ``studies.html``, ``studies-table.tex`` and ``studies.tex``.

Rendering only: every number and word comes from :mod:`boundcheck.report.overview.model`; the markup lives in
``report/templates/overview/``. The LaTeX table has fixed-width columns (:data:`TEX_COLUMNS`): longtable then
needs no second pdflatex pass to settle the widths, and the table fills the line without running into the
margin (identifiers break after an underscore on a narrow page).
"""

from __future__ import annotations

from ..templating import html_env, tex_env

__all__ = ["render_html", "render_table", "render_tex", "MARK", "TABLE_NAME", "TEX_COLUMNS"]

#: in the first lines of every file the index writes: a later index may overwrite it (and only it)
MARK = "boundcheck report --index"
TABLE_NAME = "studies-table.tex"

#: (header, width, alignment) of the LaTeX columns: the short ones in em (their widest entry: a bold
#: "inconclusive", "outside", 30000, 1.73e-04), the identifiers' ones a share of what is left of the line
_FIXED = r"20em-16\tabcolsep"  # subtracted from the line: the short columns and every column's padding
TEX_COLUMNS = (("theorem", rf"\dimexpr(\linewidth-{_FIXED})*36/100\relax", "raggedright"),
               ("scenario", rf"\dimexpr(\linewidth-{_FIXED})*32/100\relax", "raggedright"),
               ("verdict", "6.2em", "raggedright"), ("theory", "4em", "raggedright"),
               ("runs", "2.6em", "raggedleft"), ("$T$", "2.8em", "raggedleft"),
               (r"tight\-ness", "4.4em", "raggedleft"),
               ("weak link", rf"\dimexpr(\linewidth-{_FIXED})*31/100\relax", "raggedright"))


def render_html(view: dict) -> str:
    """The index page: self-contained (no network: the sorting is a few lines of inline JavaScript)."""
    return html_env().get_template("overview/studies.html.j2").render(v=view, mark=MARK)


def render_table(view: dict) -> str:
    """The studies as a ``longtable`` fragment to ``\\input`` in a paper's appendix (booktabs, longtable, array)."""
    spec = "".join(f">{{\\{al}\\arraybackslash}}p{{{w}}}" for _, w, al in TEX_COLUMNS)
    return tex_env().get_template("overview/studies-table.tex.j2").render(
        v=view, mark=MARK, spec=spec, headers=[h for h, _, _ in TEX_COLUMNS])


def render_tex(view: dict) -> str:
    """A standalone pdflatex document around :data:`TABLE_NAME`."""
    return tex_env().get_template("overview/studies.tex.j2").render(v=view, mark=MARK, table=TABLE_NAME)
