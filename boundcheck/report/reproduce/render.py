"""The reproduce report's view model rendered: ``index.html``, ``report.tex`` and ``tables/claims.tex``.

Rendering only: every number and word comes from :mod:`boundcheck.report.reproduce.model`; the markup lives in
``report/templates/reproduce/`` (LaTeX tables of fixed-width columns: one pdflatex pass gives the final PDF).
"""

from __future__ import annotations

from ..templating import html_env, tex_env
from .model import PRINTED_HEAD, PRINTED_NUMERIC, STAND_IN_HEAD

__all__ = ["render_html", "render_latex", "render_claims_table", "render_index", "claims_html", "extra_css"]

_HTML = {"stand_in_head": STAND_IN_HEAD, "printed_head": PRINTED_HEAD, "printed_numeric": PRINTED_NUMERIC}


def fixed(*widths: float | str) -> str:
    r"""A longtable spec of fixed-width columns: each width a fraction of ``\linewidth`` that *includes* the
    column's padding (``2\tabcolsep``), so fractions summing to at most 1 fit the line; a width given as
    ``"r0.1"`` is a right-aligned (numeric) column. Why fixed: longtable settles the width of an ``l``/``r``
    column only on a second pdflatex pass ("Table widths have changed. Rerun LaTeX.")."""
    out = []
    for w in widths:
        right = isinstance(w, str) and w.startswith("r")
        frac = float(w[1:]) if right else float(w)
        out.append(f">{{\\{'raggedleft' if right else 'raggedright'}\\arraybackslash}}"
                   f"p{{\\dimexpr {frac:.3f}\\linewidth-2\\tabcolsep\\relax}}")
    return "".join(out)


def paper_spec(t: dict) -> str:
    """A paper's own table: every column a wrapping paragraph column as wide as its longest word asks (a word
    cannot break: TeX does not hyphenate a cell's first word), so a wide table (paper 001's Table 3 has 18
    columns) fits the line; the numeric ones right-aligned."""
    cells = [t["columns"], *t["rows"]]
    n = len(t["columns"])
    need = [max([3, *(len(w) for row in cells if i < len(row) for w in str(row[i]).split())]) for i in range(n)]
    return fixed(*(f"r{x / sum(need)}" if i in t["numeric"] else x / sum(need) for i, x in enumerate(need)))


_TEX = {"stand_in_head": STAND_IN_HEAD, "printed_head": PRINTED_HEAD, "fixed": fixed, "paper_spec": paper_spec}


def render_html(view: dict) -> str:
    """The self-contained HTML page (figures inlined, no network)."""
    return html_env().get_template("reproduce/report.html.j2").render(v=view, **_HTML)


def render_latex(view: dict) -> str:
    """The standalone pdflatex document (pure ASCII); figures by paths relative to it."""
    return tex_env().get_template("reproduce/report.tex.j2").render(v=view, **_TEX)


def render_claims_table(view: dict) -> str:
    """Every judged claim as a longtable fragment to ``\\input`` in a paper (needs booktabs, longtable, array)."""
    return tex_env().get_template("reproduce/claims.tex.j2").render(rows=view["all_claims"], **_TEX)


def claims_html(rows: list[dict]) -> str:
    """The claims table of the HTML page alone (a notebook shows it)."""
    return str(html_env().get_template("reproduce/sections.html.j2").make_module(_HTML).claims(rows))


def render_index(view: dict) -> str:
    """The index page of ``reproduce --all`` (one self-contained HTML file, no figures)."""
    return html_env().get_template("reproduce/index.html.j2").render(v=view)


def extra_css() -> str:
    """The page's own style sheet, after the common one (a notebook's fragment carries it too)."""
    return html_env().get_template("reproduce/report.css").render()
