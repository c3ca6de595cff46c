"""Self-contained HTML report: one file, no network (PNG figures inlined as base64, formulas as MathML
printed by sympy from the very expressions the engine evaluates)."""

from __future__ import annotations

import base64
import html
import re
import xml.etree.ElementTree as ET
from html.entities import name2codepoint
from pathlib import Path

import sympy as sp
from sympy.printing.mathml import mathml

from .context import (
    KIND_HELP,
    OUTSIDE,
    VERDICT_HELP,
    ReportContext,
    bite_text,
    ci_label,
    fmt,
    incompleteness_text,
    render_rich,
    sensitivity_table,
    write_text,
)
from .drawing import FigureInfo

__all__ = ["write_html", "render_html", "prepare_html", "finish_html", "math_block", "GLOSSARY"]

GLOSSARY = (
    ("GP", "Gaussian process"),
    ("UCB", "upper confidence bound"),
    ("PE-GP-UCB", "prior-elimination GP-UCB, the algorithm of the theorem"),
    ("TV-GP-UCB", "time-varying GP-UCB; “oracle” = told the true prior"),
    ("MLE", "maximum (marginal) likelihood estimate of the prior"),
    ("R_T", "cumulative regret after T steps, Σ_{t≤T} (f(x*_t, t) − f(x_t, t))"),
    ("Bound(T), Bound_T(t)", "the explicit bound at the horizon, and its anytime form at step t ≤ T"),
    ("γ_T", "maximum information gain (MIG); the report brackets it, and the bound uses the certified upper end"),
    ("δ", "confidence parameter: the theorem holds with probability at least 1 − δ"),
    ("p*, U", "the true prior and the set of candidate priors"),
    ("CI", "confidence interval: Clopper–Pearson for failure rates, Student t for means; each end a one-sided "
           "bound at 1 − share, so the interval's confidence is 1 − 2·share"),
    ("false-alarm budget", "the probability that a verify of a correct theorem on correct code calls any claim "
                           "violated (default 0.01), split across the stochastic claims by Holm's step-down "
                           "procedure"),
    ("p-value, share", "a claim's own p-value for 'the claim is true'; its share of the budget is the level its "
                       "p-value is compared with (violated ⟺ p ≤ share ⟺ Holm rejects it)"),
    ("AD, LB", "Anderson–Darling test against N(0,1); Ljung–Box test of serial dependence"),
    ("in theory / outside the theorem", "whether the scenario and the algorithm's configuration meet every "
                                        "assumption of the theorem; a verify outside the theorem runs only when "
                                        "asked (--allow-out-of-theory, a negative control) and never counts as a "
                                        "theorem failure"),
)

CSS = """
:root { --ok:#2e7d32; --warn:#ef6c00; --bad:#c62828; --ink:#1d232a; --mute:#5b6570; --line:#d9dee3; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--ink); margin: 0; background: #f6f7f9; }
main { max-width: 1320px; margin: 0 auto; padding: 0 24px 48px; background: #fff; }
.banner { margin: 0 -24px 0; padding: 14px 24px; font-size: 18px; font-weight: 600; color: #fff; }
.banner.holds { background: var(--ok); } .banner.violated { background: var(--bad); }
.banner.inconclusive { background: var(--warn); }
.banner.out { background: repeating-linear-gradient(135deg, #7a5200, #7a5200 18px, #8d6100 18px,
                                                   #8d6100 36px); }
h1 { font-size: 24px; margin: 22px 0 2px; }
h2 { font-size: 20px; margin: 34px 0 10px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 22px 0 6px; }
.sub { color: var(--mute); margin: 0 0 14px; }
.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; margin: 16px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; background: #fbfcfd; }
.card h4 { margin: 0 0 4px; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--mute); }
.card .big { font-size: 20px; font-weight: 650; } .card p { margin: 4px 0 0; font-size: 13px; color: var(--mute); }
table { border-collapse: collapse; width: 100%; margin: 8px 0 12px; font-size: 14px; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f4; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.claims th { white-space: normal; } table.claims td.stmt { min-width: 18em; width: 36%; }
table.claims th, table.claims td { padding: 5px 6px; } table.claims td.num { white-space: normal; }
table.claims .id { white-space: nowrap; }  /* an id broken mid-word reads as two */
code, .id { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; color: #fff; font-size: 12px; font-weight: 600; }
.badge.holds, .badge.yes { background: var(--ok); } .badge.violated, .badge.no { background: var(--bad); }
.badge.inconclusive, .badge.unknown, .badge.incomplete { background: var(--warn); }
.badge.identity, .badge.na { background: #546e7a; }
.out-note { border-left: 5px solid #8d6100; background: #fff6e0; padding: 8px 12px; margin: 10px 0; }
.eq { overflow-x: auto; padding: 8px 0; font-size: 17px; }
math[display="block"] { margin: 6px 0; } td math { font-size: 1.15em; }
figure { margin: 18px 0 26px; } figure img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--mute); font-size: 13.5px; margin-top: 4px; }
.mute { color: var(--mute); } .small { font-size: 13px; }
nav { font-size: 13.5px; margin: 8px 0 0; } nav a { margin-right: 12px; color: #1f5fa8; }
@media (max-width: 900px) { .cards { grid-template-columns: 1fr 1fr; } }
"""


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


def badge(verdict: str) -> str:
    cls = "na" if verdict == "not applicable" else verdict
    return f'<span class="badge {e(cls)}" title="{e(VERDICT_HELP.get(verdict, ""))}">{e(verdict)}</span>'


def yes_no(ok: bool | None) -> str:
    if ok is None:
        return '<span class="badge unknown">not checked</span>'
    return '<span class="badge yes">met</span>' if ok else '<span class="badge no">NOT met</span>'


def table(headers: list[str], rows: list[list[str]], num: set[int] = frozenset(), cls: str = "",
          col_cls: dict[int, str] | None = None) -> str:
    """An HTML table; ``num`` columns are right-aligned numbers, ``col_cls`` gives a column a CSS class (its
    width, e.g. ``"stmt"``), ``cls`` the table one."""
    col_cls = col_cls or {}

    def attr(i: int) -> str:
        names = " ".join(n for n in ("num" if i in num else "", col_cls.get(i, "")) if n)
        return f' class="{names}"' if names else ""

    th = "".join(f"<th{attr(i)}>{h}</th>" for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f"<td{attr(i)}>{c}</td>" for i, c in enumerate(r)) + "</tr>" for r in rows)
    head = f"<thead><tr>{th}</tr></thead>" if any(headers) else ""
    open_tag = f'<table class="{cls}">' if cls else "<table>"
    return f"{open_tag}{head}<tbody>{body}</tbody></table>"


def _img(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


# ------------------------------------------------------------------------------------------ sections
def _glance(ctx: ReportContext) -> str:
    s = ctx.summary
    main_claims = [c for c in ctx.claims if c.get("main")]
    mc = main_claims[0] if main_claims else None
    v = ctx.verdict
    hold = (f"{mc['violations']}/{mc['runs']} runs above the bound" if mc else "")
    weak, why = ctx.weak_link()
    t = s.get("tightness") or {}
    reg = ctx.regret_table()
    best = ""
    if not reg.empty:
        cands = reg[reg["algorithm"].map(ctx.role) != "oracle"].sort_values("mean")
        if not cands.empty:
            b = cands.iloc[0]
            best = f"{e(ctx.label(b['algorithm']))}"
            best_p = f"lowest mean R_T = {fmt(b['mean'])} (oracle excluded)"
    theory_p = ("in theory" if ctx.in_theory else f"{OUTSIDE}: not a theorem failure")
    cards = [
        ("Does the theorem hold here?", f"{badge(v)}",
         f"all claims: {e(v)}; {e(hold)}; {e(theory_p)}"),
        ("How tight is it?", e(f"{fmt(1 / t['median'], 3)}× slack") if t.get("median") else "—",
         e(f"median R_T/Bound(T) = {fmt(t.get('median'), 3)}, max {fmt(t.get('max'), 3)}")),
        ("Weak link of the proof", f'<span class="id">{e(weak)}</span>' if weak else "none",
         e(why)),
        ("Algorithms compared", best or "—", e(best_p) if best else ""),
    ]
    return '<div class="cards">' + "".join(
        f'<div class="card"><h4>{h}</h4><div class="big">{b}</div><p>{p}</p></div>' for h, b, p in cards
    ) + "</div>"


def _verdict_section(ctx: ReportContext) -> str:
    rows, idents = [], []
    for c in ctx.claims:
        stmt, src = ctx.claim_meta(c["id"])
        det = c.get("details") or {}
        statement = rich(stmt) + (f" <span class='mute small'>— {e(src)}</span>" if src else "")
        if c.get("kind") == "identity":
            why = det.get("vacuous") or "true by construction"
            na = c.get("verdict") == "not applicable"  # the checked code does not record what it reads
            bite = bite_text(c)  # where a vacuous bound would be tested
            idents.append([f'<span class="id">{e(c["id"])}</span>', statement, rich(why)
                           + (f"<br><span class='small'>→ {e(bite)}</span>" if bite else ""),
                           "—" if na else f"{c.get('violations')}/{c.get('runs')}",
                           badge(str(c.get("verdict", "")))])
            continue
        ci = "" if c.get("ci_low") is None or c.get("kind") == "deterministic" else (
            f"[{fmt(c['ci_low'], 3)}, {fmt(c['ci_high'], 3)}]<br><span class='small mute'>"
            f"({ci_label(c.get('test_size'))})</span>")
        note = ""
        if c.get("verdict") == "inconclusive" and det.get("runs_needed"):
            note = f"<br><span class='small mute'>needs ≈{e(det['runs_needed'])} runs</span>"
        if c.get("kind") == "deterministic" and "premise_held" in det:
            note = f"<br><span class='small mute'>premise held in {e(det['premise_held'])} runs</span>"
        if c.get("kind") == "calibration" and det.get("component_p_values"):
            pv = ", ".join(f"{k} {fmt(v, 2)}" for k, v in det["component_p_values"].items())
            diag = det.get("sample") or {}
            if diag:
                pv += (f"; mean {fmt(diag.get('mean'), 2)}, variance {fmt(diag.get('variance'), 3)}, "
                       f"lag-1 {fmt(diag.get('lag1'), 2)}")
            note = f"<br><span class='small mute'>{e(pv)}</span>"
        if c.get("verdict") == "not applicable":
            note = f"<br><span class='small mute'>{e(det.get('reason', ''))} (not recorded by the policy)</span>"
        rate = fmt(c.get("rate"), 3) if c.get("kind") != "calibration" else "—"
        rows.append([
            f'<span class="id">{e(c["id"])}</span>' + (" <b>(theorem)</b>" if c.get("main") else ""),
            f'<span title="{e(KIND_HELP.get(c.get("kind"), ""))}">{e(c.get("kind"))}</span>', statement,
            fmt(c.get("level"), 3),
            "—" if c.get("verdict") == "not applicable" else f"{c.get('violations')}/{c.get('runs')}", rate,
            fmt(c.get("p_value"), 2), fmt(c.get("budget_share"), 2), ci,
            badge(c.get("verdict", "")) + note,
            "in" if ctx.in_theory else "<b>outside</b>",
        ])
    head = ["claim", "kind", "statement", "level", "failures/runs", "rate", "p-value", "share",
            "interval (confidence)", "verdict", "theorem"]
    s = ctx.summary
    out = []
    if s.get("false_alarm"):
        out.append(f"<p class='small'>One false-alarm budget of {e(fmt(s['false_alarm']))} for the whole verify: "
                   "every stochastic claim gives one p-value and Holm's step-down procedure splits the budget, so "
                   "a correct theorem on correct code is called violated (any claim) with probability at most "
                   f"{e(fmt(s['false_alarm']))}. Deterministic implications are outside the budget"
                   + ("; p-values and intervals are anytime-valid (--until-conclusive)" if s.get("sequential")
                      else "") + ".</p>")
    # the statement gets its width (.stmt): left to the browser it is squeezed by the nine narrow columns
    out.append(table(head, rows, num={3, 4, 5, 6, 7, 8}, cls="claims", col_cls={2: "stmt"}))
    out.append(_applicability(ctx))
    und = ctx.undecided()
    if und:
        out.append("<p class='small'>Inconclusive: the interval straddles the level. "
                   + "; ".join(f"<span class='id'>{e(i)}</span>" + (f" needs about {e(n)} runs" if n else "")
                               for i, n in und) + " at the observed failure rate.</p>")
    if idents:
        out.append("<h3>Sanity identities (outside the verdict)</h3>")
        out.append(table(["claim", "statement", "why it is outside the verdict", "counterexamples/runs", ""],
                         idents, cls="claims", col_cls={1: "stmt"}))
    out.append("<p class='small mute'>Kinds: " + "; ".join(f"<b>{e(k)}</b>: {e(v)}" for k, v in KIND_HELP.items()
                                                           if any(c.get('kind') == k for c in ctx.claims))
               + ". The theorem is violated if any claim is, holds if all hold, else inconclusive.</p>")
    return "".join(out)


def _sensitivity_section(ctx: ReportContext) -> str:
    rows, note = sensitivity_table(ctx)
    if not rows:
        return "<p>No claim in the verdict.</p>"
    body = []
    for r in rows:
        caught = ", ".join(f"<span class='id'>{e(d)}</span> {fmt(p, 2)}" for d, p in r["catches"])
        if not caught:
            caught = "<b>nothing</b>" if r["measured"] else "—"
        body.append([f'<span class="id">{e(r["claim"])}</span>', e(r["detectable"]), caught])
    return ("<p class='small'>How small a departure each claim would catch: its smallest detectable effect at "
            "this number of runs (probability ≥ 0.9, at the smallest share the budget can give it), and the "
            "planted defects (boundcheck.claims.defects) it catches with the probability measured by "
            "<code>boundcheck power</code>.</p>"
            + table(["claim", "smallest detectable effect", "planted defects caught (probability)"], body)
            + f"<p class='small mute'>{e(note)}.</p>")


def _applicability(ctx: ReportContext) -> str:
    """Which claims applied to a user's policy, why the others did not, and the verdicts of further checked
    implementations (``verify --algorithm`` repeated)."""
    out = []
    main = ctx.summary.get("main_algorithm", "")
    na = ctx.summary.get("not_applicable") or {}
    gap = incompleteness_text(ctx.summary.get("incomplete"))
    if gap:  # "holds" means every claim was judged
        out.append(f"<p class='out-note'>{e(gap)}</p>")
    other = ctx.summary.get("settled_otherwise") or {}
    for note in dict.fromkeys(other.values()):  # judged on the shadow's records, or covered by conformance
        ids = [k for k, v in other.items() if v == note]
        out.append(f"<p class='small'>{', '.join(f'<span class=id>{e(k)}</span>' for k in ids)}: {e(note)}.</p>")
    if na:
        applied = [c["id"] for c in ctx.claims if c.get("verdict") != "not applicable"]
        out.append(f"<p class='small'>Checked on <b>{e(main)}</b>: {', '.join(map(e, applied))} applied. Not "
                   "applicable (the policy does not record what they read; an ask/tell policy turns them on by "
                   "reporting the extras in its <code>records</code>): "
                   + "; ".join(f"<span class='id'>{e(k)}</span> {e(v)}" for k, v in na.items()) + ".</p>")
    for name, info in (ctx.summary.get("checked") or {}).items():
        if name == main:
            continue
        bad = [c["id"] for c in info.get("claims", []) if c.get("verdict") == "violated"]
        out.append(f"<p class='small'>Also checked: <b>{e(name)}</b> {badge(info.get('verdict', ''))}"
                   + (f" — violated: {', '.join(map(e, bad))}" if bad else "")
                   + (f"; not applicable: {', '.join(map(e, info['not_applicable']))}"
                      if info.get("not_applicable") else "") + " (its claims: <code>results/claims.parquet</code>, "
                   "column <code>algorithm</code>).</p>")
    return "".join(out)


def _regret_section(ctx: ReportContext) -> str:
    reg = ctx.regret_table()
    if reg.empty:
        return "<p>No regret statistics stored.</p>"
    q = 1 - float(ctx.summary.get("delta", 0.1))
    main = ctx.main_algorithm
    rows = []
    for _, r in reg.iterrows():
        diff = ("—" if r["diff"] is None or r["diff"] != r["diff"]
                else f"{r['diff']:+.3g} ± {1.96 * r['diff_se']:.2g}")
        rows.append([f"<b>{e(ctx.label(r['algorithm']))}</b><br><span class='small mute'>"
                     f"{e(ctx.help(r['algorithm']))}</span>",
                     fmt(r["mean"]), fmt(r["median"]), fmt(r["max"]), fmt(r["q"]), diff])
    head = ["algorithm", "mean R_T", "median", "max", f"{q:.2g}-quantile",
            f"paired difference to {e(ctx.label(main))} (± 95%)"]
    return (table(head, rows, num={1, 2, 3, 4, 5})
            + "<p class='small mute'>Every algorithm sees the same function draws and noise in run r (common "
              "random numbers), so differences are paired: mean of R_T(algorithm) − R_T("
            + e(ctx.label(main)) + ") over runs, ± 1.96 standard errors. Negative = lower regret.</p>")


def _theorem_section(ctx: ReportContext) -> str:
    th = ctx.theorem
    b = ctx.summary.get("bound", {})
    if th is None:
        return ("<p>The theorem is not in the theory layer; the stored bound value is "
                f"{e(fmt(b.get('at_horizon')))}.</p>")
    out = [f"<p><b>{e(th.title)}</b> — {e(th.source)}; guarantee: {e(th.guarantee.replace('_', ' '))}"
           + (f" (probability ≥ 1 − δ, δ = {e(ctx.summary.get('delta'))})" if th.guarantee == "high_probability"
              else "") + ".</p>"]
    out.append("<h3>As stated in the paper</h3>")
    out.append(f'<div class="eq">{math_latex(th.printed)}</div>')
    out.append("<h3>The explicit bound checked</h3>")
    lhs = "<msub><mi>R</mi><mi>T</mi></msub><mo>≤</mo>"
    out.append(f'<div class="eq">{math_block(th.bound, lhs=lhs)}</div>')
    terms = b.get("terms", {})
    rows = []
    for name, expr in th.bound_terms.items():
        rows.append([f'<span class="id">{e(name)}</span>', math_block(expr, display="inline"),
                     fmt(terms.get(name))])
    rows.append(["<b>Bound(T)</b>", "sum of the terms", f"<b>{e(fmt(b.get('at_horizon')))}</b>"])
    out.append(table(["term", "expression", "value at T"], rows, num={2}))
    vals = b.get("values", {})
    srows = []
    for name, expr in th.schedules.items():
        sym = sp.Symbol(name)
        val = b.get(name) if name in ("B", "C") else None
        srows.append([math_block(sym, display="inline"), math_block(expr, display="inline"),
                      fmt(val) if val is not None else "(per step)"])
    out.append("<h3>Schedules and constants</h3>")
    out.append(table(["name", "expression", "value"], srows, num={2}))
    vrows = [[math_block(sym, display="inline"), rich(meaning), fmt(vals.get(name))]
             for name, (sym, meaning) in th.symbols.items()]
    out.append("<h3>Values used</h3>")
    out.append(table(["symbol", "meaning", "value"], vrows, num={2}))
    gm = b.get("gamma_methods") or {}
    out.append(f"<p class='small'>γ<sub>T</sub> bracket: [{e(fmt(b.get('gamma_lower')))}, "
               f"{e(fmt(b.get('gamma_upper')))}]; the bound uses the certified upper end"
               + ("; value at T of each method: " + ", ".join(f"<span class='id'>{e(k)}</span>: {e(fmt(v))}"
                                                              for k, v in gm.items()) if gm else "")
               + ".</p>")
    if th.anytime_note:
        out.append(f"<p class='small'>Anytime form: {rich(th.anytime_note)}</p>")
    out.append(_literal_section(ctx.literal))
    out.append(_looseness(ctx))
    return "".join(out)


_FORMS = {"tightness": "the bound checked", "tightness_realised": "realised-block form (B)",
          "tightness_finite": "finite-domain form (C)", "tightness_printed": "the printed form",
          "tightness_min_tau": "the bound at the most favourable τ̄"}


def _looseness(ctx: ReportContext) -> str:
    """How far each form of the bound is from the regret, and from the trivial bound (family columns)."""
    runs = ctx.runs
    main = runs[runs["algorithm"] == ctx.main_algorithm] if "algorithm" in runs else runs
    rows = []
    for col, what in _FORMS.items():
        if col in main and main[col].notna().any():
            med = float(main[col].median())
            rows.append([e(what), fmt(med, 3), fmt(1 / med, 3) if med > 0 else "—"])
    if len(rows) < 2 and "bound_over_trivial" not in main:
        return ""
    out = ["<h3>How loose is it?</h3>", table(["form", "median R_T / RHS", "RHS / R_T (×)"], rows, num={1, 2})]
    if "bound_over_trivial" in main and main["bound_over_trivial"].notna().any():
        r = float(main["bound_over_trivial"].median())
        verdict = "vacuous: above" if r > 1 else "below"
        out.append(f"<p><b>The bound is {e(verdict)} the trivial bound</b> R<sub>T</sub> ≤ 2Σ<sub>t</sub> "
                   f"max<sub>x</sub>|f<sub>t</sub>(x)| of this scenario (median ratio {e(fmt(r, 3))}).</p>")
    gaps = [c for c in main.columns if c.startswith("gap_")]  # proof gaps a family counts per run
    if gaps:
        out.append("<p class='small'>Proof gaps, fraction of runs where they open: " + "; ".join(
            f"<span class='id'>{e(c)}</span> {e(fmt(float(main[c].astype(float).mean()), 3))}" for c in gaps)
            + ".</p>")
    return "".join(out)


def _literal_section(cmp: dict | None) -> str:
    """The paper's printed constants against the restored ones (theorems with a ``_literal`` sibling)."""
    if cmp is None:
        return ""
    rows = []
    for name, rest, lit in [*cmp["rows"], ("Bound(T)", *cmp["total"])]:
        ratio = lit / rest if rest and rest == rest and lit == lit else float("nan")
        mark = " (smaller)" if ratio < 1 else ""
        rows.append([f'<span class="id">{e(name)}</span>', fmt(rest), fmt(lit), e(fmt(ratio) + mark)])
    return (f"<h3>Paper-literal constants</h3><p class='small'>The bound as printed "
            f"(<span class='id'>{e(cmp['literal'])}</span>) against the constants restored from the proof "
            f"(<span class='id'>{e(cmp['restored'])}</span>), at the values used. Where the literal value is "
            "smaller, the paper's printed constant is not supported by its proof.</p>"
            + table(["term", "restored", "paper-literal", "literal / restored"], rows, num={1, 2, 3}))


def _assumptions_section(ctx: ReportContext) -> str:
    out = []
    sc = ctx.scenario_info
    if sc.get("description"):
        out.append(f"<p><b>Scenario <span class='id'>{e(ctx.scenario_name)}</span>:</b> {rich(sc['description'])}</p>")
        for n in sc.get("notes") or ():
            out.append(f"<p class='small mute'>Note: {rich(n)}</p>")
    rows = [[rich(text), yes_no(ok), rich(how)] for text, ok, how in ctx.assumption_rows()]
    if rows:
        out.append(table(["assumption of the theorem", "status", "how this scenario meets it"], rows))
    if not ctx.in_theory:
        out.append("<div class='out-note'><b>Outside the theorem:</b> " + e("; ".join(ctx.reasons))
                   + ". The run is computed the same way, but its failures are not theorem failures.</div>")
    return "".join(out)


def _corrections_section(ctx: ReportContext) -> str:
    th = ctx.theorem
    if th is None or not th.corrections:
        return "<p>No corrections recorded.</p>"
    rows = [[f'<span class="id">{e(c.id)}</span>', rich(c.location), rich(c.paper), rich(c.implemented),
             rich(c.reason), "yes" if c.changes_computation else "no (presentation)"] for c in th.corrections]
    return ("<p class='small mute'>Paper typos and gaps, what boundcheck implements instead, and why. "
            "[PROPOSED] marks a choice the paper leaves open.</p>"
            + table(["id", "where", "the paper", "implemented", "why", "changes numbers"], rows))


def _figures_section(figs: list[FigureInfo]) -> str:
    if not figs:
        return "<p>No figures could be drawn from the stored results.</p>"
    out = []
    for i, f in enumerate(figs, 1):
        # shown at its physical size (96 px per inch) so every figure's lettering has the same size
        width = f' style="width: min(100%, {round(f.width_in * 96)}px)"' if f.width_in else ""
        out.append(f'<figure id="fig-{e(f.name)}"><h3>Figure {i}. {rich(f.title)}</h3>'
                   f'<img src="{_img(f.png)}" alt="{e(f.title)}"{width}>'
                   f"<figcaption>{rich(f.caption)}</figcaption></figure>")
    return "".join(out)


def _provenance_section(ctx: ReportContext) -> str:
    rows = [[e(k), e(v)] for k, v in ctx.provenance()]
    out = table(["", ""], rows)
    if ctx.notes:
        out += "<h3>Notes</h3><ul>" + "".join(f"<li>{e(n)}</li>" for n in ctx.notes) + "</ul>"
    return out


def _glossary() -> str:
    return "<table><tbody>" + "".join(f"<tr><td><b>{rich(a)}</b></td><td>{rich(b)}</td></tr>"
                                      for a, b in GLOSSARY) + "</tbody></table>"


SECTIONS = (("verdict", "Verdict"), ("sensitivity", "Sensitivity of this verification"),
            ("algorithms", "Algorithms compared"), ("theorem", "Theorem and bound"),
            ("assumptions", "Assumptions"), ("corrections", "Corrections ledger"), ("figures", "Figures"),
            ("provenance", "Configuration and provenance"), ("glossary", "Glossary"))


def prepare_html(ctx: ReportContext) -> dict:
    """Everything of the HTML report that does not depend on the figures (rendered while they are drawn):
    the page's head and every section but the figures and the provenance (whose notes the figures may add to);
    :func:`finish_html` completes it."""
    head = ctx.headline()
    cls = "out" if not ctx.in_theory else ctx.verdict
    th = ctx.theorem
    title = th.title if th is not None else ctx.theorem_id
    body = {
        "verdict": _verdict_section(ctx),
        "sensitivity": _sensitivity_section(ctx),
        "algorithms": _regret_section(ctx),
        "theorem": _theorem_section(ctx),
        "assumptions": _assumptions_section(ctx),
        "corrections": _corrections_section(ctx),
        "figures": None,
        "provenance": None,
        "glossary": _glossary(),
    }
    nav = "<nav>" + "".join(f'<a href="#{k}">{e(v)}</a>' for k, v in SECTIONS) + "</nav>"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(head)}</title>",
        f"<style>{CSS}</style></head><body><main>",
        f'<div class="banner {e(cls)}" id="headline">{e(head)}</div>',
        f"<h1>boundcheck: <span class='id'>{e(ctx.theorem_id)}</span> on "
        f"<span class='id'>{e(ctx.scenario_name)}</span></h1>",
        f"<p class='sub'>{e(title)}" + (f" — {e(th.source)}" if th is not None else "") + "</p>",
        nav,
        _glance(ctx),
    ]
    return {"parts": parts, "body": body}


def finish_html(prepared: dict, ctx: ReportContext, figs: list[FigureInfo]) -> str:
    """The HTML report: :func:`prepare_html`'s text with the figures and the provenance."""
    body = {**prepared["body"], "figures": _figures_section(figs), "provenance": _provenance_section(ctx)}
    parts = list(prepared["parts"])
    for key, name in SECTIONS:
        parts.append(f'<section id="{key}"><h2>{e(name)}</h2>{body[key]}</section>')
    parts.append("</main></body></html>")
    return "\n".join(parts)


def render_html(ctx: ReportContext, figs: list[FigureInfo]) -> str:
    return finish_html(prepare_html(ctx), ctx, figs)


def write_html(ctx: ReportContext, figs: list[FigureInfo], path: Path, prepared: dict | None = None) -> Path:
    return write_text(path, finish_html(prepared or prepare_html(ctx), ctx, figs))
