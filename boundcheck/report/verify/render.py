"""The verify report's view model rendered: ``index.html``, ``report.tex`` and its ``tables/*.tex``.

Rendering only: every number and word comes from :mod:`boundcheck.report.verify.model`; the markup lives in
``report/templates/verify/``.
"""

from __future__ import annotations

from ..latex import ident, tex
from ..templating import html_env, tex_env

__all__ = ["render_html", "render_latex", "render_tables", "html_section", "TABLES"]

TABLES = ("claims", "bound_terms", "regret")


def html_section(name: str, *args) -> str:
    """One section of the HTML page (a macro of ``verify/sections.html.j2``), e.g. ``"verdict"``."""
    return str(getattr(html_env().get_template("verify/sections.html.j2").module, name)(*args))


def render_html(view: dict) -> str:
    """The self-contained HTML page (figures inlined, MathML formulas, no network)."""
    return html_env().get_template("verify/report.html.j2").render(v=view)


def _first_line(view: dict) -> str:
    """The headline as LaTeX, its identifiers in typewriter as everywhere else."""
    first = tex(view["headline"])
    for name in {view["theorem_id"], view["scenario"]}:
        first = first.replace(tex(name), ident(name))
    return first


def render_latex(view: dict, fig_rel: str = "figures", tab_rel: str = "tables") -> str:
    """The standalone pdflatex document; figures and tables by paths relative to it."""
    return tex_env().get_template("verify/report.tex.j2").render(v=view, first_line=_first_line(view),
                                                                 fig_rel=fig_rel, tab_rel=tab_rel)


def render_tables(view: dict) -> dict[str, str]:
    """The fragments ``tables/{claims,bound_terms,regret}.tex`` to ``\\input`` in a paper (booktabs)."""
    return {name: tex_env().get_template(f"verify/{name}.tex.j2").render(t=view["tables"][name]) for name in TABLES}
