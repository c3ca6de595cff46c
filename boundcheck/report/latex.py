"""LaTeX escaping for the report templates (the ``tex`` filter, as pandas' Styler escapes its cells).

:func:`tex` escapes LaTeX specials, maps the theory layer's Unicode to ASCII LaTeX and renders ``X_t``/``S^p``
as text sub/superscripts, so the reports are pure ASCII; formulas are ``sympy.latex`` of the expressions the
engine evaluates. ``PREAMBLE`` (``templates/preamble.tex``) is the reports' one document preamble: standard
packages only, one pdflatex pass.
"""

from __future__ import annotations

import unicodedata
from importlib import resources

import sympy as sp

from .context import render_rich

__all__ = ["tex", "tex_plain", "ident", "pdf_string", "math_ascii", "math", "fit_math", "tabular", "longtable",
           "short_table", "PREAMBLE"]

PREAMBLE = resources.files(__package__).joinpath("templates", "preamble.tex").read_text(encoding="ascii")

_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
    ">": r"\textgreater{}", "|": r"\textbar{}",
}
_MATH = {
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon", "ζ": r"\zeta",
    "η": r"\eta", "θ": r"\theta", "ι": r"\iota", "κ": r"\kappa", "λ": r"\lambda", "μ": r"\mu", "ν": r"\nu",
    "ξ": r"\xi", "π": r"\pi", "ρ": r"\rho", "σ": r"\sigma", "τ": r"\tau", "υ": r"\upsilon", "φ": r"\phi",
    "χ": r"\chi", "ψ": r"\psi", "ω": r"\omega", "Γ": r"\Gamma", "Δ": r"\Delta", "Θ": r"\Theta",
    "Λ": r"\Lambda", "Ξ": r"\Xi", "Π": r"\Pi", "Σ": r"\Sigma", "Φ": r"\Phi", "Ψ": r"\Psi", "Ω": r"\Omega",
    "≤": r"\le", "≥": r"\ge", "≠": r"\ne", "≈": r"\approx", "≡": r"\equiv", "∈": r"\in", "∉": r"\notin",
    "⊆": r"\subseteq", "⊂": r"\subset", "∩": r"\cap", "∪": r"\cup", "→": r"\to", "←": r"\leftarrow",
    "⇒": r"\Rightarrow", "⇔": r"\Leftrightarrow", "↔": r"\leftrightarrow", "√": r"\surd", "∞": r"\infty",
    "⟺": r"\Longleftrightarrow",
    "×": r"\times", "·": r"\cdot", "±": r"\pm", "∓": r"\mp", "−": "-", "‖": r"\|", "ℓ": r"\ell",
    "∑": r"\sum", "∏": r"\prod", "∂": r"\partial", "∇": r"\nabla", "∀": r"\forall", "∃": r"\exists",
    "ℝ": r"\mathbb{R}", "ℕ": r"\mathbb{N}", "½": r"\tfrac12", "⌈": r"\lceil", "⌉": r"\rceil",
    "⌊": r"\lfloor", "⌋": r"\rfloor", "∼": r"\sim", "∝": r"\propto", "°": r"^\circ", "′": r"'",
    "≪": r"\ll", "≫": r"\gg", "⟨": r"\langle", "⟩": r"\rangle", "∘": r"\circ", "…": r"\dots",
    "≲": r"\lesssim", "≳": r"\gtrsim", "≍": r"\asymp", "≃": r"\simeq", "≅": r"\cong", "∖": r"\setminus",
    "⊤": r"\top", "⊥": r"\perp", "∗": "*", "⋅": r"\cdot", "∣": r"\mid", "ϕ": r"\phi", "ϑ": r"\vartheta",
    "ℋ": r"\mathcal{H}", "ℱ": r"\mathcal{F}", "ℒ": r"\mathcal{L}", "𝔼": r"\mathbb{E}", "ℙ": r"\mathbb{P}",
    "∫": r"\int", "⊗": r"\otimes", "⊕": r"\oplus", "⊙": r"\odot", "⋯": r"\cdots", "⋮": r"\vdots",
    "↦": r"\mapsto", "⟶": r"\longrightarrow", "⇐": r"\Leftarrow", "↑": r"\uparrow", "↓": r"\downarrow",
    "∅": r"\emptyset", "∧": r"\wedge", "∨": r"\vee", "¬": r"\neg", "⊇": r"\supseteq", "⊃": r"\supset",
    "≺": r"\prec", "≻": r"\succ", "⪯": r"\preceq", "⪰": r"\succeq", "∥": r"\parallel", "≜": r"\triangleq",
    "≔": ":=", "ℏ": r"\hbar", "†": r"\dagger", "★": r"\star", "⋆": r"\star", "□": r"\square",
    "∎": r"\blacksquare", "ı": r"\imath", "∠": r"\angle", "ς": r"\varsigma", "≼": r"\preceq", "″": "''",
}
_TEXT = {
    "–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''", "§": r"\S{}", "¶": r"\P{}",
    "\u00a0": "~", "ȳ": r"\={y}", "é": r"\'e", "è": r"\`e", "ê": r"\^e", "ë": r"\"e", "á": r"\'a",
    "à": r"\`a", "ä": r"\"a", "ö": r"\"o", "ü": r"\"u", "ñ": r"\~n", "ç": r"\c{c}", "ß": r"\ss{}",
    "É": r"\'E", "Ö": r"\"O", "Ü": r"\"U", "Ä": r"\"A", "✓": "yes", "✗": "no",
}
_ACCENT = {"\u0304": "bar", "\u0305": "bar", "\u0303": "tilde", "\u0302": "hat", "\u0307": "dot",
           "\u0308": "ddot", "\u20d7": "vec", "\u0306": "breve", "\u030c": "check"}
_SUP = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9",
        "⁺": "+", "⁻": "-", "⁽": "(", "⁾": ")", "ⁿ": "n", "ᵀ": "T", "ⁱ": "i"}
_SUB = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9",
        "₊": "+", "₋": "-", "ₜ": "t", "ᵢ": "i", "ₚ": "p"}


def _plain(text: str) -> str:
    """Escape one run of text (no sub/superscript markup) into ASCII LaTeX."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if i + 1 < n and text[i + 1] in _ACCENT and ch not in _SPECIAL:  # x̄, c̃: combining accents
            base = _MATH.get(ch, ch if ch.isascii() else "?")
            out.append(f"\\ensuremath{{\\{_ACCENT[text[i + 1]]}{{{base}}}}}")
            i += 2
            continue
        if unicodedata.combining(ch):  # a stray combining mark: drop it
            i += 1
            continue
        if ch in _SUP or ch in _SUB:
            table, cmd = (_SUP, r"\textsuperscript") if ch in _SUP else (_SUB, r"\textsubscript")
            j = i
            while j < n and text[j] in table:
                j += 1
            inner = "".join(table[c] for c in text[i:j]).replace("-", r"\ensuremath{-}")
            out.append(f"{cmd}{{{inner}}}")
            i = j
            continue
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch in _MATH:
            out.append(f"\\ensuremath{{{_MATH[ch]}}}")
        elif ch in _TEXT:
            out.append(_TEXT[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append(_plain(base) if base else "?")
        i += 1
    return "".join(out)


_NAMES = {"δ": "delta", "β": "beta", "γ": "gamma", "ε": "eps", "ξ": "xi", "μ": "mu", "σ": "sigma", "≤": "<=",
          "≥": ">=", "×": "x", "−": "-", "–": "-", "—": "-"}


def tex_plain(text) -> str:
    """``str(text)`` escaped as it is, ``_`` and ``^`` included (a bound term's name inside ``\\mathrm``)."""
    return _plain(str(text))


def pdf_string(text: str) -> str:
    """Plain ASCII for PDF metadata (no macros): Greek spelled out, specials dropped."""
    s = "".join(_NAMES.get(c, c) for c in str(text))
    s = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()
    return "".join(c for c in s if c not in "\\{}$&%#^~").replace("_", r"\_")


_SCRIPT = {"sub": r"\textsubscript", "sup": r"\textsuperscript"}


def tex(text) -> str:
    """Any value as ASCII LaTeX text: specials escaped, Unicode mapped, ``X_t``/``S^p`` as scripts."""
    return render_rich(text, _plain, lambda kind, inner: _SCRIPT[kind] + "{" + inner + "}")


def ident(text: str) -> str:
    """An identifier (claim id, algorithm name) in typewriter, underscores escaped, never scripted."""
    return r"\texttt{" + _plain(str(text)) + "}"


def math_ascii(src: str) -> str:
    """LaTeX math source made ASCII (a Unicode symbol name or a pasted μ becomes its macro)."""
    out = []
    for ch in src:
        if ch.isascii():
            out.append(ch)
        elif ch in _MATH:
            out.append(f"{{{_MATH[ch]}}}")
        else:
            base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append(base or "?")
    return "".join(out)


def math(expr) -> str:
    """A sympy expression as ASCII LaTeX math source."""
    return math_ascii(sp.latex(expr))


# the widest right-hand side of an align* row: the line less room for a short left-hand side and the "="
_RHS = r"0.8\linewidth"


def fit_math(src: str, width: str = r"\linewidth") -> str:
    r"""Display math ``src`` as one box, scaled down to ``width`` when wider (:data:`PREAMBLE`'s ``\bcfit``)."""
    return r"\bcfit{" + width + r"}{$\displaystyle " + src + "$}"


def tabular(spec: str, header: list[str], rows: list[list[str]]) -> str:
    lines = ["% \\input this inside a table environment; needs \\usepackage{booktabs} (and amsmath)",
             f"\\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(header) + r" \\", r"\midrule"]
    lines += [" & ".join(r) + r" \\" for r in rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def longtable(spec: str, header: list[str], rows: list[list[str]], *, raw: bool = False) -> str:
    """A longtable; its ``p{}`` columns made ragged-right unless ``raw`` (the spec says how each column is set)."""
    if not raw:
        spec = spec.replace("p{", r">{\raggedright\arraybackslash}p{")
    if any(header):
        lines = [f"\\begin{{longtable}}{{{spec}}}", r"\toprule", " & ".join(header) + r" \\", r"\midrule",
                 r"\endhead", r"\bottomrule", r"\endlastfoot"]
    else:
        lines = [f"\\begin{{longtable}}{{{spec}}}", r"\toprule", r"\endhead", r"\bottomrule", r"\endlastfoot"]
    # a long formula of the ledger (log(1+σ⁻²s²)/log(1+σ⁻²)) may break after a slash: its column is narrow
    lines += [" & ".join(c.replace("/", r"/\allowbreak{}") for c in r) + r" \\" for r in rows]
    lines.append(r"\end{longtable}")
    return "\n".join(lines)


def short_table(spec: str, header: list[str], rows: list[list[str]]) -> str:
    """A table that never breaks across pages (a few rows), centred, ragged-right text columns."""
    spec = spec.replace("p{", r">{\raggedright\arraybackslash}p{")
    lines = [r"\begin{center}", f"\\begin{{tabular}}{{{spec}}}", r"\toprule"]
    if any(header):
        lines += [" & ".join(header) + r" \\", r"\midrule"]
    lines += [" & ".join(r) + r" \\" for r in rows]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{center}"]
    return "\n".join(lines)
