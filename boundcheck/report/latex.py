"""Standalone LaTeX report (pdflatex, standard packages only) and ``tables/*.tex`` fragments to ``\\input``.

All text goes through :func:`tex` (escapes LaTeX specials, maps the theory layer's Unicode to ASCII
LaTeX, renders ``X_t``/``S^p`` as text sub/superscripts), so the output is pure ASCII. Paths are relative
to ``report.tex``; formulas are ``sympy.latex`` of the expressions the engine evaluates.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import sympy as sp

from .context import (
    KIND_HELP,
    ReportContext,
    bite_text,
    ci_label,
    fmt,
    incompleteness_text,
    render_rich,
    sensitivity_table,
    write_text,
)
from .drawing import MAX_WIDTH_IN, FigureInfo
from .html import GLOSSARY

__all__ = ["tex", "write_latex", "render_latex", "prepare_latex", "finish_latex", "claims_table",
           "bound_terms_table", "regret_table"]

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


def _math(expr) -> str:
    return math_ascii(sp.latex(expr))


# the widest right-hand side of an align* row: the line less room for a short left-hand side and the "="
_RHS = r"0.8\linewidth"


def _fit_math(src: str, width: str = r"\linewidth") -> str:
    r"""Display math ``src`` as one box, scaled down to ``width`` when wider (:data:`PREAMBLE`'s ``\bcfit``)."""
    return r"\bcfit{" + width + r"}{$\displaystyle " + src + "$}"


def _tabular(spec: str, header: list[str], rows: list[list[str]]) -> str:
    lines = ["% \\input this inside a table environment; needs \\usepackage{booktabs} (and amsmath)",
             f"\\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(header) + r" \\", r"\midrule"]
    lines += [" & ".join(r) + r" \\" for r in rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------------------------- tables
def claims_table(ctx: ReportContext) -> str:
    """Claims verdict table (booktabs tabular): the fragment ``tables/claims.tex``."""
    rows = []
    for c in ctx.claims:
        ci = "--" if c.get("ci_low") is None or c.get("kind") in ("deterministic", "identity") else (
            f"[{tex(fmt(c['ci_low'], 3))}, {tex(fmt(c['ci_high'], 3))}] ({tex(ci_label(c.get('test_size')))})")
        rate = tex(fmt(c.get("rate"), 3)) if c.get("kind") != "calibration" else "--"
        verdict = c.get("verdict", "")
        if c.get("kind") == "identity":
            # BROKEN only on a counterexample: an identity the checked code does not record stays "not applicable"
            verdict = {"holds": "identity ok", "violated": "identity BROKEN"}.get(verdict, verdict)
        v = r"\textbf{" + tex(verdict) + "}" if verdict not in ("holds", "identity ok", "not applicable") \
            else tex(verdict)
        pv = "--" if c.get("p_value") is None else tex(fmt(c["p_value"], 2))
        sh = "--" if c.get("budget_share") is None else tex(fmt(c["budget_share"], 2))
        rows.append([ident(c["id"]) + (r"$^{\ast}$" if c.get("main") else ""), tex(c.get("kind", "")),
                     tex(fmt(c.get("level"), 3)), f"{c.get('violations')}/{c.get('runs')}", rate, pv, sh, ci, v])
    return (f"% claims of {tex(ctx.theorem_id)} on {tex(ctx.scenario_name)}; * = the theorem's own conclusion\n"
            + _tabular("llrrrrrcl", ["claim", "kind", "level", "failures/runs", "rate", "p", "share",
                                     "CI (confidence)", "verdict"], rows))


def bound_terms_table(ctx: ReportContext) -> str:
    """Terms of the explicit bound with their values at T: the fragment ``tables/bound_terms.tex``."""
    b = ctx.summary.get("bound", {})
    terms = b.get("terms", {})
    th = ctx.theorem
    rows = []
    for name, val in terms.items():
        expr = th.bound_terms.get(name) if th is not None else None
        rows.append([ident(name), f"$\\displaystyle {_math(expr)}$" if expr is not None else "",
                     tex(fmt(val))])
    rows.append([r"\textbf{Bound(T)}", "sum of the terms", r"\textbf{" + tex(fmt(b.get("at_horizon"))) + "}"])
    return "% terms of the explicit bound at the horizon\n" + _tabular("llr", ["term", "expression", "value at $T$"],
                                                                           rows)


def regret_table(ctx: ReportContext) -> str:
    """Regret statistics per algorithm and the paired difference: the fragment ``tables/regret.tex``."""
    reg = ctx.regret_table()
    q = 1 - float(ctx.summary.get("delta", 0.1))
    rows = []
    for _, r in reg.iterrows():
        diff = ("--" if r["diff"] is None or r["diff"] != r["diff"]
                else f"${r['diff']:+.3g} \\pm {1.96 * r['diff_se']:.2g}$")
        rows.append([tex(ctx.label(r["algorithm"])), tex(fmt(r["mean"])), tex(fmt(r["median"])),
                     tex(fmt(r["max"])), tex(fmt(r["q"])), diff])
    head = ["algorithm", "mean $R_T$", "median", "max", f"{q:.2g}-quantile",
            f"vs {tex(ctx.label(ctx.main_algorithm))}"]
    return "% final regret R_T per algorithm; last column: paired mean difference +- 1.96 s.e.\n" + _tabular(
        "lrrrrr", head, rows)


# -------------------------------------------------------------------------------------------- report
PREAMBLE = r"""\documentclass[10pt]{article}
% T1 with Latin Modern when installed (searchable underscores); otherwise the default OT1 Computer Modern,
% which needs no font generation
\IfFileExists{lmodern.sty}{\usepackage[T1]{fontenc}\usepackage{lmodern}}{}
\usepackage{amsmath,amssymb}
\usepackage{booktabs,longtable,array}
\usepackage{graphicx}
\usepackage[margin=2cm]{geometry}
\usepackage[hidelinks]{hyperref}
% bookmark writes the PDF outline in the same pass (hyperref alone needs a second run for it); with no \label
% (nothing refers to one) a single pdflatex pass gives the final PDF
\usepackage{bookmark}
\setlength{\parindent}{0pt}
\setlength{\parskip}{4pt}
\setlength{\emergencystretch}{3em}
\renewcommand{\arraystretch}{1.15}
% an identifier may break after an underscore: a long claim id (confidence\_data\_dependent) fits its column
\makeatletter\DeclareRobustCommand{\_}{\ifmmode\nfss@text{\textunderscore}\else\textunderscore\allowbreak\fi}
\makeatother
% \bcfit{W}{material}: the material at its natural size, or scaled down to width W when wider (a theorem's
% long formula or the nine-column claims table would otherwise run into the margin: an overfull box)
\newsavebox{\bcfitbox}
\newcommand{\bcfit}[2]{\sbox{\bcfitbox}{#2}%
  \ifdim\wd\bcfitbox>#1\resizebox{#1}{!}{\usebox{\bcfitbox}}\else\usebox{\bcfitbox}\fi}
"""


def _longtable(spec: str, header: list[str], rows: list[list[str]], *, raw: bool = False) -> str:
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


def _short_table(spec: str, header: list[str], rows: list[list[str]]) -> str:
    """A table that never breaks across pages (a few rows), centred, ragged-right text columns."""
    spec = spec.replace("p{", r">{\raggedright\arraybackslash}p{")
    lines = [r"\begin{center}", f"\\begin{{tabular}}{{{spec}}}", r"\toprule"]
    if any(header):
        lines += [" & ".join(header) + r" \\", r"\midrule"]
    lines += [" & ".join(r) + r" \\" for r in rows]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{center}"]
    return "\n".join(lines)


def render_latex(ctx: ReportContext, figs: list[FigureInfo], fig_rel: str = "figures",
                 tab_rel: str = "tables") -> str:
    return _latex_tail(_latex_head(ctx, tab_rel), ctx, figs, fig_rel)


def _latex_head(ctx: ReportContext, tab_rel: str = "tables") -> list[str]:
    """The report's lines up to its figures (none of them depends on the figures)."""
    th = ctx.theorem
    s = ctx.summary
    b = s.get("bound", {})
    title = th.title if th is not None else ctx.theorem_id
    head = ctx.headline()
    L: list[str] = [PREAMBLE]
    L.append(f"\\hypersetup{{pdftitle={{{pdf_string(head)}}}}}")
    L.append(r"\begin{document}")
    # First line of the body: the theory status and the verdict (out-of-theory runs say so first).
    first = tex(head)
    for name in {ctx.theorem_id, ctx.scenario_name}:  # identifiers in typewriter, as everywhere else
        first = first.replace(tex(name), ident(name))
    L.append(r"\noindent\textbf{" + first + r"}\par")
    L.append(r"\medskip")
    L.append(r"{\LARGE boundcheck report: " + ident(ctx.theorem_id) + " on " + ident(ctx.scenario_name) + r"}\par")
    L.append(r"{\large " + tex(title) + (f" --- {tex(th.source)}" if th is not None else "") + r"}\par")
    L.append(r"\medskip")

    # ---- at a glance
    t = s.get("tightness") or {}
    weak, why = ctx.weak_link()
    reg = ctx.regret_table()
    best = ""
    if not reg.empty:
        cands = reg[reg["algorithm"].map(ctx.role) != "oracle"].sort_values("mean")
        if not cands.empty:
            best = f"{tex(ctx.label(cands.iloc[0]['algorithm']))} (mean $R_T$ = {tex(fmt(cands.iloc[0]['mean']))})"
    L.append(r"\section*{At a glance}")
    L.append(r"\begin{itemize}")
    L.append(r"\item \textbf{Does the theorem hold here?} " + tex(ctx.verdict)
             + ("" if ctx.in_theory else r" --- \textbf{outside the theorem}, not a theorem failure") + ".")
    if t.get("median"):
        L.append(r"\item \textbf{How tight is it?} " + tex(ctx.tightness_text()) + ".")
    L.append(r"\item \textbf{Weak link of the proof:} " + (ident(weak) + ": " if weak else "") + tex(why) + ".")
    if best:
        L.append(r"\item \textbf{Best algorithm} (oracle excluded): " + best + ".")
    L.append(r"\end{itemize}")
    if not ctx.in_theory:
        L.append(r"\fbox{\parbox{0.96\linewidth}{\textbf{Outside the theorem:} " + tex("; ".join(ctx.reasons))
                 + r". The run is computed the same way, but its failures are not theorem failures.}}")

    # ---- verdict
    L.append(r"\section{Verdict}")
    L.append(r"\begin{table}[htbp]\centering")
    L.append(f"\\bcfit{{\\linewidth}}{{\\input{{{tab_rel}/claims.tex}}}}")
    L.append(r"\caption{Claims of the proof, checked on the runs of " + ident(ctx.main_algorithm)
             + r" ($^{\ast}$: the theorem's own conclusion). "
             + tex(f"Every run is {'in theory' if ctx.in_theory else 'OUTSIDE THE THEOREM'}. ")
             + tex(f"{s.get('error_budget', '')}.") + "}")
    L.append(r"\end{table}")
    srows, snote = sensitivity_table(ctx)
    if srows:
        L.append(r"\subsection*{Sensitivity of this verification}")
        L.append(_short_table(r"p{0.22\linewidth}p{0.36\linewidth}p{0.34\linewidth}",
                              ["claim", "smallest detectable effect", "planted defects caught (probability)"],
                              [[ident(r["claim"]), tex(r["detectable"]),
                                tex(", ".join(f"{d} {fmt(p, 2)}" for d, p in r["catches"])
                                    or ("nothing" if r["measured"] else "--"))] for r in srows]))
        L.append(r"\par\emph{" + tex(snote) + ".}")
    gap = incompleteness_text(s.get("incomplete"))
    if gap:  # "holds" means every claim was judged
        L.append(r"\par\noindent\textbf{" + tex(gap) + r"}\par")
    other = s.get("settled_otherwise") or {}
    for note in dict.fromkeys(other.values()):  # judged on the shadow's records, or covered by conformance
        L.append(r"\par " + ", ".join(ident(k) for k, v in other.items() if v == note) + tex(f": {note}.") + r"\par")
    idents = [(c["id"], (c.get("details") or {}).get("vacuous"), bite_text(c)) for c in ctx.claims
              if c.get("kind") == "identity"]
    if any(why for _, why, _ in idents):  # why a claim is outside the verdict (vacuous here, or true by construction)
        L.append(tex("Sanity identities, outside the verdict: ") + "; ".join(  # and where a vacuous bound would bite
            ident(i) + (tex(f" ({why}; {bite})" if bite else f" ({why})") if why else tex(" (true by construction)"))
            for i, why, bite in idents) + ".")
    und = ctx.undecided()
    if und:
        L.append(tex("Inconclusive claims (the interval straddles the level): ")
                 + "; ".join(ident(i) + (tex(f" needs about {n} runs") if n else "") for i, n in und)
                 + tex(" at the observed failure rate."))
    kinds = [k for k in KIND_HELP if any(c.get("kind") == k for c in ctx.claims)]
    L.append(r"\textit{Kinds.} " + "; ".join(r"\textbf{" + tex(k) + "}: " + tex(KIND_HELP[k]) for k in kinds)
             + ". " + tex("The theorem is violated if any claim is, holds if all hold, else inconclusive."))
    rows = []
    for c in ctx.claims:
        stmt, src = ctx.claim_meta(c["id"])
        rows.append([ident(c["id"]), tex(stmt) + (f" \\emph{{({tex(src)})}}" if src else "")])
    if any(r[1] for r in rows):
        L.append(r"\subsection*{What each claim states}")
        L.append(_short_table(r"p{0.22\linewidth}p{0.72\linewidth}", ["claim", "statement (source)"], rows))

    # ---- algorithms
    L.append(r"\section{Algorithms compared}")
    L.append(r"\begin{table}[htbp]\centering")
    L.append(f"\\bcfit{{\\linewidth}}{{\\input{{{tab_rel}/regret.tex}}}}")
    L.append(r"\caption{Final regret $R_T$ over " + tex(s.get("runs")) + r" runs. Last column: mean paired "
             r"difference $R_T(\text{algorithm}) - R_T(\text{" + tex(ctx.label(ctx.main_algorithm))
             + r"})$ $\pm$ 1.96 standard errors (common random numbers: every algorithm sees the same "
               r"functions and noise in run $r$); negative means lower regret.}")
    L.append(r"\end{table}")
    L.append(r"\begin{itemize}")
    for a in ctx.algorithms:
        L.append(r"\item \textbf{" + tex(ctx.label(a)) + "} (" + ident(a) + "): " + tex(ctx.help(a)))
    L.append(r"\end{itemize}")

    # ---- theorem
    L.append(r"\section{Theorem and explicit bound}")
    if th is not None:
        L.append(r"\textbf{" + tex(th.title) + "} --- " + tex(th.source) + "; guarantee: "
                 + tex(th.guarantee.replace("_", " "))
                 + (tex(f" (probability at least 1 − δ, δ = {s.get('delta')})")
                    if th.guarantee == "high_probability" else "") + ".")
        L.append(r"\subsection*{As stated in the paper}")
        L.append(r"\[ " + _fit_math(math_ascii(th.printed)) + r" \]")
        L.append(r"\subsection*{The explicit bound checked}")
        L.append(r"\[ " + _fit_math(r"R_T \le \mathrm{Bound}(T) = " + " + ".join(
            r"\mathrm{" + _plain(name) + "}" for name in th.bound_terms)) + r" \]")
        L.append("where")
        L.append(r"\begin{align*}")
        L.append(r" \\ ".join(r"\mathrm{" + _plain(name) + "} &= " + _fit_math(_math(expr), _RHS)
                               for name, expr in th.bound_terms.items()))
        L.append(r"\end{align*}")
        L.append(r"\begin{table}[htbp]\centering")
        L.append(f"\\bcfit{{\\linewidth}}{{\\input{{{tab_rel}/bound_terms.tex}}}}")
        L.append(r"\caption{Terms of the explicit bound and their values at the horizon.}")
        L.append(r"\end{table}")
        sched = []
        for name, expr in th.schedules.items():
            val = b.get(name) if name in ("B", "C") else None
            sched.append(_math(sp.Symbol(name)) + " &= " + _fit_math(
                _math(expr) + (r" \approx " + tex(fmt(val)) if val is not None else ""), _RHS))
        if sched:  # an empty align* is a LaTeX error (the infinite-domain combinatorial theorems have none)
            L += [r"\subsection*{Schedules and constants}", r"\begin{align*}", r" \\ ".join(sched), r"\end{align*}"]
        vals = b.get("values", {})
        vrows = [[f"${_math(sym)}$", tex(meaning), tex(fmt(vals.get(name)))]
                 for name, (sym, meaning) in th.symbols.items()]
        L.append(r"\subsection*{Values used}")
        L.append(_short_table(r"lp{0.62\linewidth}r", ["symbol", "meaning", "value"], vrows))
        gm = b.get("gamma_methods") or {}
        L.append(tex(f"γ_T bracket: [{fmt(b.get('gamma_lower'))}, {fmt(b.get('gamma_upper'))}]; the bound uses "
                     "the certified upper end")
                 + ("; value at T of each method: " + ", ".join(ident(k) + tex(f": {fmt(v)}") for k, v in gm.items())
                    if gm else "") + ".")
        if th.anytime_note:
            L.append(r"\par Anytime form: " + tex(th.anytime_note))
        L.extend(_literal_lines(ctx.literal))
    else:
        L.append(tex(f"The theorem is not in the theory layer; stored bound value {fmt(b.get('at_horizon'))}."))

    # ---- assumptions
    L.append(r"\section{Assumptions}")
    sc = ctx.scenario_info
    if sc.get("description"):
        L.append(r"\textbf{Scenario} " + ident(ctx.scenario_name) + ": " + tex(sc["description"]))
        for note in sc.get("notes") or ():
            L.append(r"\par\emph{Note:} " + tex(note))
    arows = []
    for text, ok, how in ctx.assumption_rows():
        status = "not checked" if ok is None else ("met" if ok else r"\textbf{NOT met}")
        arows.append([tex(text), status, tex(how)])
    if arows:
        L.append(_short_table(r"p{0.42\linewidth}lp{0.38\linewidth}",
                            ["assumption of the theorem", "status", "how this scenario meets it"], arows))
    if not ctx.in_theory:
        L.append(r"\textbf{Outside the theorem:} " + tex("; ".join(ctx.reasons)) + ".")

    # ---- corrections
    L.append(r"\section{Corrections ledger}")
    if th is not None and th.corrections:
        L.append(tex("Paper typos and gaps, what boundcheck implements instead, and why; "
                     "[PROPOSED] marks a choice the paper leaves open; * = changes the numbers."))
        crows = [[tex(c.id) + ("*" if c.changes_computation else ""), tex(c.location), tex(c.paper),
                  tex(c.implemented), tex(c.reason)] for c in th.corrections]
        L.append(r"{\small")
        L.append(_longtable(r"p{0.1\linewidth}p{0.12\linewidth}p{0.2\linewidth}p{0.25\linewidth}"
                            r"p{0.19\linewidth}", ["id", "where", "the paper", "implemented", "why"], crows))
        L.append("}")
    else:
        L.append("No corrections recorded.")

    return L


def _latex_tail(head: list[str], ctx: ReportContext, figs: list[FigureInfo], fig_rel: str = "figures") -> str:
    """The whole report: ``head`` (:func:`_latex_head`), the figures and the provenance."""
    L = list(head)
    # ---- figures (on fresh pages: a section title never waits alone at the foot of a page)
    L.append(r"\clearpage")
    L.append(r"\section{Figures}")
    for f in figs:
        L.append(r"\begin{figure}[htbp]\centering")
        frac = min(1.0, (f.width_in or MAX_WIDTH_IN) / MAX_WIDTH_IN)  # same scale for every figure
        L.append(f"\\includegraphics[width={frac:.3f}\\linewidth,height=0.45\\textheight,keepaspectratio]"
                 f"{{{fig_rel}/{f.png.name}}}")
        L.append(r"\caption{\textbf{" + tex(f.title) + ".} " + tex(f.caption) + "}")
        L.append(r"\end{figure}")
    if not figs:
        L.append("No figures could be drawn from the stored results.")
    L.append(r"\clearpage")

    # ---- provenance
    L.append(r"\section{Configuration and provenance}")
    L.append(_short_table(r"lp{0.64\linewidth}", ["", ""], [[tex(k), tex(v)] for k, v in ctx.provenance()]))
    if ctx.notes:
        L.append(r"\subsection*{Notes}\begin{itemize}" + "".join(r"\item " + tex(n) for n in ctx.notes)
                 + r"\end{itemize}")
    L.append(r"\section*{Glossary}")
    L.append(_short_table(r"p{0.26\linewidth}p{0.66\linewidth}", ["", ""], [[r"\textbf{" + tex(a) + "}", tex(b_)]
                                                        for a, b_ in GLOSSARY]))
    L.append(r"\end{document}")
    return "\n".join(L) + "\n"


def _literal_lines(cmp: dict | None) -> list[str]:
    """The paper's printed constants against the restored ones (theorems with a ``_literal`` sibling)."""
    if cmp is None:
        return []
    rows = []
    for name, rest, lit in [*cmp["rows"], ("Bound(T)", *cmp["total"])]:
        ratio = lit / rest if rest and rest == rest and lit == lit else float("nan")
        rows.append([ident(name), tex(fmt(rest)), tex(fmt(lit)), tex(fmt(ratio) + (" (smaller)" if ratio < 1 else ""))])
    return [r"\subsection*{Paper-literal constants}",
            tex(f"The bound as printed ({cmp['literal']}) against the constants restored from the proof "
                f"({cmp['restored']}), at the values used."),
            _short_table("lrrr", ["term", "restored", "paper-literal", "literal / restored"], rows)]


def prepare_latex(ctx: ReportContext, out_dir: Path) -> list[str]:
    """Write ``tables/{claims,bound_terms,regret}.tex`` under ``out_dir`` and render the report's lines that do
    not depend on the figures (while they are drawn); :func:`finish_latex` completes ``report.tex``."""
    tables = out_dir / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    for name, fn in (("claims", claims_table), ("bound_terms", bound_terms_table), ("regret", regret_table)):
        write_text(tables / f"{name}.tex", fn(ctx), encoding="ascii")
    return _latex_head(ctx)


def finish_latex(prepared: list[str], ctx: ReportContext, figs: list[FigureInfo], out_dir: Path) -> Path:
    """``report.tex`` under ``out_dir``: :func:`prepare_latex`'s lines, the figures and the provenance."""
    return write_text(out_dir / "report.tex", _latex_tail(prepared, ctx, figs), encoding="ascii")


def write_latex(ctx: ReportContext, figs: list[FigureInfo], out_dir: Path) -> Path:
    """``report.tex`` and ``tables/{claims,bound_terms,regret}.tex`` under ``out_dir``."""
    return finish_latex(prepare_latex(ctx, out_dir), ctx, figs, out_dir)
