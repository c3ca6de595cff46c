"""HTML pieces the report templates use as filters: escaping, ``X_t`` scripts, MathML formulas, images.

The formulas are MathML printed by sympy from the very expressions the engine evaluates (or the paper's LaTeX
converted by latex2mathml); figures are inlined as base64, so a page needs no network. ``CSS`` is the reports'
one style sheet (``templates/report.css``, package data).
"""

from __future__ import annotations

import base64
import html
import re
import xml.etree.ElementTree as ET
from html.entities import name2codepoint
from importlib import resources
from pathlib import Path

import sympy as sp
from sympy.printing.mathml import mathml

from .context import render_rich

__all__ = ["CSS", "e", "rich", "math_block", "math_latex", "img_src"]

CSS = "\n" + resources.files(__package__).joinpath("templates", "report.css").read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------------- helpers
def e(text) -> str:
    return html.escape(str(text), quote=True)


def rich(text: str) -> str:
    """Plain-text statement with ``_``/``^`` scripts rendered as <sub>/<sup>."""
    return render_rich(text, e, lambda kind, inner: f"<{kind}>{inner}</{kind}>")


def _entities_to_numeric(s: str) -> str:
    def rep(m):
        name = m.group(1)
        if name in ("lt", "gt", "amp", "quot", "apos"):
            return m.group(0)
        cp = name2codepoint.get(name)
        if cp is None:
            cp = {"InvisibleTimes": 0x2062, "ApplyFunction": 0x2061, "CenterDot": 0xB7}.get(name)
        return f"&#{cp};" if cp is not None else m.group(0)

    return re.sub(r"&([A-Za-z]+);", rep, s)


def _no_mfenced(markup: str) -> str:
    """Older sympy prints <mfenced>, which MathML Core browsers do not render: rewrite it as <mrow>."""
    if "<mfenced" not in markup:
        return markup
    root = ET.fromstring("<root>" + _entities_to_numeric(markup) + "</root>")
    for parent in list(root.iter()):
        for i, child in enumerate(list(parent)):
            if child.tag != "mfenced":
                continue
            row = ET.Element("mrow")
            op = ET.SubElement(row, "mo")
            op.text = child.get("open", "(")
            seps = child.get("separators", ",").strip() or ","
            kids = list(child)
            for j, k in enumerate(kids):
                row.append(k)
                if j < len(kids) - 1:
                    s = ET.SubElement(row, "mo")
                    s.text = seps[min(j, len(seps) - 1)]
            cl = ET.SubElement(row, "mo")
            cl.text = child.get("close", ")")
            row.tail = child.tail
            parent.remove(child)
            parent.insert(i, row)
    return "".join(ET.tostring(c, encoding="unicode") for c in root)


def math_block(expr: sp.Basic | str, display: str = "block", lhs: str | None = None) -> str:
    """<math> for a sympy expression (sympy's presentation printer); ``lhs``: MathML put before it."""
    body = _no_mfenced(mathml(expr, printer="presentation")) if not isinstance(expr, str) else expr
    if lhs:
        body = f"<mrow>{lhs}{body}</mrow>"
    # inline formulas (table cells) keep display style, so fractions are not shrunk to script size
    style = ' displaystyle="true"' if display == "inline" else ""
    return f'<math display="{display}"{style}>{body}</math>'


def math_latex(tex: str, display: str = "block") -> str:
    """The paper's printed (LaTeX) statement as MathML, or the LaTeX source if no converter is installed."""
    try:
        from latex2mathml.converter import convert
    except ImportError:
        return f"<code>{e(tex)}</code>"
    try:
        out = convert(tex, display=display)
    except Exception:  # noqa: BLE001 - any conversion problem: show the source
        return f"<code>{e(tex)}</code>"
    out = re.sub(r'\s+xmlns="[^"]*"', "", out)
    # |U| as printed: bars hug their content (latex2mathml spaces them like relations)
    return out.replace('<mo stretchy="false">&#x0007C;</mo>', '<mo stretchy="false" lspace="0" rspace="0">|</mo>')


def img_src(path: Path) -> str:
    """A PNG file as a ``data:`` URI (the page carries its figures)."""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
