"""The Jinja2 environments the reports render with: one for HTML (autoescaped), one for LaTeX.

Templates are package data under ``report/templates/``. The HTML environment escapes every value and offers
filters for what is not plain text (``rich`` scripts, ``mathml`` formulas, ``img`` data URIs); the LaTeX one
uses TeX-friendly delimiters (``\\VAR{x}``, ``\\BLOCK{for ...}``) and escapes through explicit filters
(``tex``, ``ident``), as pandas' Styler does, so a template's own macros stay unescaped.
"""

from __future__ import annotations

from functools import cache

import jinja2
import sympy as sp
from markupsafe import Markup

from . import html as h
from . import latex as t
from .wording import fmt

__all__ = ["html_env", "tex_env"]


def _mathml(expr, display: str = "block", lhs: str | None = None) -> Markup:
    return Markup(h.math_block(expr, display=display, lhs=lhs))


@cache
def html_env() -> jinja2.Environment:
    """The HTML templates' environment (autoescape on; cached: the templates compile once a process)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("boundcheck.report", "templates"), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters.update(rich=lambda s: Markup(h.rich(s)), mathml=_mathml,
                       math_latex=lambda s: Markup(h.math_latex(s)), img=h.img_src, fmt=fmt)
    env.globals.update(css=Markup(h.CSS), symbol=sp.Symbol)
    return env


@cache
def tex_env() -> jinja2.Environment:
    """The LaTeX templates' environment (no autoescape: values go through ``tex``/``ident``)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("boundcheck.report", "templates"), autoescape=False,
                             block_start_string=r"\BLOCK{", block_end_string="}", variable_start_string=r"\VAR{",
                             variable_end_string="}", comment_start_string=r"\#{", comment_end_string="}",
                             line_comment_prefix="%#", trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters.update(tex=t.tex, ident=t.ident, pdf=t.pdf_string, math=t.math, math_ascii=t.math_ascii,
                       fit=t.fit_math, fmt=fmt, mathrm=lambda name: r"\mathrm{" + t.tex_plain(name) + "}")
    env.globals.update(preamble=t.PREAMBLE, symbol=sp.Symbol, rhs=r"0.8\linewidth")
    return env
