"""The verify report's view model: the stored results of one study as numbers and words, no markup.

:func:`view_model` is pure (it reads a loaded :class:`~boundcheck.report.context.ReportContext` and the drawn
figures' descriptions, and writes nothing); the templates under ``report/templates/verify/`` turn it into the
HTML page and the LaTeX document. Each section has its own builder so a page that shows one section (the
notebook's fragment) builds only that one.
"""

from __future__ import annotations

from ..figure_info import MAX_WIDTH_IN
from ..wording import (
    KIND_HELP,
    OUTSIDE,
    VERDICT_HELP,
    bite_text,
    ci_label,
    fmt,
    headline,
    incompleteness_text,
    provenance,
    sensitivity_table,
    tightness_text,
    weak_link,
)

__all__ = ["view_model", "glance", "verdict_section", "claims_table", "figures", "GLOSSARY", "SECTIONS"]

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

SECTIONS = (("verdict", "Verdict"), ("sensitivity", "Sensitivity of this verification"),
            ("algorithms", "Algorithms compared"), ("theorem", "Theorem and bound"),
            ("assumptions", "Assumptions"), ("corrections", "Corrections ledger"), ("figures", "Figures"),
            ("provenance", "Configuration and provenance"), ("glossary", "Glossary"))

# the forms of the bound a family may store per run, and how the report names them
_FORMS = {"tightness": "the bound checked", "tightness_realised": "realised-block form (B)",
          "tightness_finite": "finite-domain form (C)", "tightness_printed": "the printed form",
          "tightness_min_tau": "the bound at the most favourable τ̄"}


def view_model(ctx, figs: list) -> dict:
    """Every section of the verify report, from the stored results ``ctx`` and the drawn figures ``figs``."""
    th = ctx.theorem
    return {
        "headline": headline(ctx),
        "status": "out" if not ctx.in_theory else ctx.verdict,
        "theorem_id": ctx.theorem_id, "scenario": ctx.scenario_name,
        "title": th.title if th is not None else ctx.theorem_id,
        "source": th.source if th is not None else None,
        "in_theory": ctx.in_theory, "reasons": list(ctx.reasons), "verdict": ctx.verdict,
        "main_algorithm": ctx.main_algorithm, "main_label": ctx.label(ctx.main_algorithm),
        "runs": ctx.summary.get("runs"), "error_budget": ctx.summary.get("error_budget", ""),
        "glance": glance(ctx),
        "verdict_section": verdict_section(ctx),
        "sensitivity": sensitivity(ctx),
        "regret": regret(ctx),
        "algorithms": [{"name": a, "label": ctx.label(a), "help": ctx.help(a)} for a in ctx.algorithms],
        "theorem": theorem(ctx),
        "assumptions": assumptions(ctx),
        "corrections": corrections(ctx),
        "figures": figures(figs),
        "provenance": [{"key": k, "value": v} for k, v in provenance(ctx)],
        "notes": list(ctx.notes),
        "glossary": GLOSSARY, "sections": SECTIONS,
        "tables": {"claims": claims_table(ctx), "bound_terms": bound_terms(ctx), "regret": regret(ctx)},
    }


def glance(ctx) -> dict:
    """The four answers at the top: does it hold, how tight, the weak link, the best algorithm."""
    s = ctx.summary
    mains = [c for c in ctx.claims if c.get("main")]
    mc = mains[0] if mains else None
    t = s.get("tightness") or {}
    weak, why = weak_link(ctx)
    best = None
    reg = ctx.regret_table()
    if not reg.empty:
        cands = reg[reg["algorithm"].map(ctx.role) != "oracle"].sort_values("mean")
        if not cands.empty:
            best = {"label": ctx.label(cands.iloc[0]["algorithm"]), "mean": fmt(cands.iloc[0]["mean"])}
    return {
        "verdict": ctx.verdict, "verdict_help": VERDICT_HELP.get(ctx.verdict, ""), "in_theory": ctx.in_theory,
        "hold": f"{mc['violations']}/{mc['runs']} runs above the bound" if mc else "",
        "theory": "in theory" if ctx.in_theory else f"{OUTSIDE}: not a theorem failure",
        "slack": f"{fmt(1 / t['median'], 3)}× slack" if t.get("median") else None,
        "tight": f"median R_T/Bound(T) = {fmt(t.get('median'), 3)}, max {fmt(t.get('max'), 3)}",
        "tightness": tightness_text(ctx) if t.get("median") else None,
        "weak": weak, "why": why, "best": best,
    }


def _note(c: dict) -> str | None:
    """The small line under a claim's verdict: what would settle it, or what its diagnostics read."""
    det = c.get("details") or {}
    note = None
    if c.get("verdict") == "inconclusive" and det.get("runs_needed"):
        note = f"needs ≈{det['runs_needed']} runs"
    if c.get("kind") == "deterministic" and "premise_held" in det:
        note = f"premise held in {det['premise_held']} runs"
    if c.get("kind") == "calibration" and det.get("component_p_values"):
        note = ", ".join(f"{k} {fmt(v, 2)}" for k, v in det["component_p_values"].items())
        diag = det.get("sample") or {}
        if diag:
            note += (f"; mean {fmt(diag.get('mean'), 2)}, variance {fmt(diag.get('variance'), 3)}, "
                     f"lag-1 {fmt(diag.get('lag1'), 2)}")
    if c.get("verdict") == "not applicable":
        note = f"{det.get('reason', '')} (not recorded by the policy)"
    return note


def _claim(c: dict, ctx=None) -> dict:
    """One claim's row: its numbers formatted, its words, and (with ``ctx``) its statement and source."""
    kind, verdict = c.get("kind"), c.get("verdict", "")
    det = c.get("details") or {}
    stmt, src = ctx.claim_meta(c["id"]) if ctx is not None else ("", "")
    label = verdict
    if kind == "identity":  # BROKEN only on a counterexample: an unrecorded identity stays "not applicable"
        label = {"holds": "identity ok", "violated": "identity BROKEN"}.get(verdict, verdict)
    return {
        "id": c["id"], "main": bool(c.get("main")), "kind": kind, "kind_help": KIND_HELP.get(kind, ""),
        "statement": stmt, "source": src, "verdict": verdict, "verdict_label": label,
        "verdict_help": VERDICT_HELP.get(verdict, ""),
        "level": fmt(c.get("level"), 3), "count": f"{c.get('violations')}/{c.get('runs')}",
        "applicable": verdict != "not applicable",
        "rate": fmt(c.get("rate"), 3) if kind != "calibration" else None,
        "p": None if c.get("p_value") is None else fmt(c["p_value"], 2), "p_fmt": fmt(c.get("p_value"), 2),
        "share": None if c.get("budget_share") is None else fmt(c["budget_share"], 2),
        "share_fmt": fmt(c.get("budget_share"), 2),
        "ci": None if c.get("ci_low") is None else {"low": fmt(c["ci_low"], 3), "high": fmt(c["ci_high"], 3),
                                                    "label": ci_label(c.get("test_size"))},
        "note": _note(c), "vacuous": det.get("vacuous"), "bite": bite_text(c),
    }


def verdict_section(ctx) -> dict:
    """The claims of the proof and their verdicts, the identities outside the verdict, what applied."""
    s = ctx.summary
    claims = [_claim(c, ctx) for c in ctx.claims]
    return {
        "false_alarm": fmt(s["false_alarm"]) if s.get("false_alarm") else None,
        "sequential": bool(s.get("sequential")), "in_theory": ctx.in_theory,
        "claims": [c for c in claims if c["kind"] != "identity"],
        "identities": [c for c in claims if c["kind"] == "identity"],
        "all_claims": claims,
        "applicability": applicability(ctx),
        "undecided": [{"id": i, "runs": n} for i, n in ctx.undecided()],
        "kinds": [{"kind": k, "help": v} for k, v in KIND_HELP.items() if any(c.get("kind") == k for c in ctx.claims)],
        "incomplete": incompleteness_text(s.get("incomplete")),
        "settled_otherwise": _settled_otherwise(s),
    }


def _settled_otherwise(s: dict) -> list[dict]:
    """Claims judged on the shadow's records or covered by conformance, grouped by the note that says so."""
    other = s.get("settled_otherwise") or {}
    return [{"ids": [k for k, v in other.items() if v == note], "note": note} for note in dict.fromkeys(other.values())]


def applicability(ctx) -> dict:
    """Which claims applied to a user's policy, why the others did not, and the verdicts of further checked
    implementations (``verify --algorithm`` repeated)."""
    s = ctx.summary
    main = s.get("main_algorithm", "")
    na = s.get("not_applicable") or {}
    also = []
    for name, info in (s.get("checked") or {}).items():
        if name == main:
            continue
        also.append({"name": name, "verdict": info.get("verdict", ""),
                     "verdict_help": VERDICT_HELP.get(info.get("verdict", ""), ""),
                     "violated": [c["id"] for c in info.get("claims", []) if c.get("verdict") == "violated"],
                     "not_applicable": list(info.get("not_applicable") or [])})
    return {"main": main, "incomplete": incompleteness_text(s.get("incomplete")),
            "settled_otherwise": _settled_otherwise(s),
            "applied": [c["id"] for c in ctx.claims if c.get("verdict") != "not applicable"] if na else [],
            "not_applicable": [{"id": k, "why": v} for k, v in na.items()], "also": also}


def claims_table(ctx) -> dict:
    """The fragment ``tables/claims.tex``: every claim, identities included."""
    return {"theorem_id": ctx.theorem_id, "scenario": ctx.scenario_name, "claims": [_claim(c) for c in ctx.claims]}


def sensitivity(ctx) -> dict:
    """How small a departure each claim would catch, and the planted defects it catches."""
    rows, note = sensitivity_table(ctx)
    return {"note": note, "rows": [{"claim": r["claim"], "detectable": r["detectable"], "measured": r["measured"],
                                    "catches": [{"defect": d, "p": fmt(p, 2)} for d, p in r["catches"]],
                                    "caught": ", ".join(f"{d} {fmt(p, 2)}" for d, p in r["catches"])}
                                   for r in rows]}


def regret(ctx) -> dict:
    """Regret statistics per algorithm and the paired difference to the checked one."""
    reg = ctx.regret_table()
    rows = []
    for _, r in reg.iterrows():
        missing = r["diff"] is None or r["diff"] != r["diff"]
        rows.append({"name": r["algorithm"], "label": ctx.label(r["algorithm"]), "help": ctx.help(r["algorithm"]),
                     "mean": fmt(r["mean"]), "median": fmt(r["median"]), "max": fmt(r["max"]), "q": fmt(r["q"]),
                     "diff": None if missing else f"{r['diff']:+.3g}",
                     "diff_ci": None if missing else f"{1.96 * r['diff_se']:.2g}"})
    return {"rows": rows, "quantile": f"{1 - float(ctx.summary.get('delta', 0.1)):.2g}",
            "main_label": ctx.label(ctx.main_algorithm)}


def theorem(ctx) -> dict:
    """The theorem as printed, the explicit bound's terms, schedules and values, and how loose it is."""
    th = ctx.theorem
    s = ctx.summary
    b = s.get("bound", {})
    if th is None:
        return {"known": False, "at_horizon": fmt(b.get("at_horizon"))}
    terms, vals = b.get("terms", {}), b.get("values", {})
    return {
        "known": True, "title": th.title, "source": th.source, "guarantee": th.guarantee.replace("_", " "),
        "high_probability": th.guarantee == "high_probability", "delta": s.get("delta"),
        "printed": th.printed, "bound": th.bound,
        "terms": [{"name": n, "expr": expr, "value": fmt(terms.get(n))} for n, expr in th.bound_terms.items()],
        "at_horizon": fmt(b.get("at_horizon")),
        "schedules": [{"name": n, "expr": expr,
                       "value": fmt(b.get(n)) if n in ("B", "C") and b.get(n) is not None
                       else fmt((b.get("schedules_at_T") or {})[n]) + " at T" if n in (b.get("schedules_at_T") or {})
                       else None}
                      for n, expr in th.schedules.items()],
        "symbols": [{"symbol": sym, "meaning": meaning, "value": fmt(vals.get(n))}
                    for n, (sym, meaning) in th.symbols.items()],
        "gamma_lower": fmt(b.get("gamma_lower")), "gamma_upper": fmt(b.get("gamma_upper")),
        "gamma_methods": [{"name": k, "value": fmt(v)} for k, v in (b.get("gamma_methods") or {}).items()],
        "anytime_note": th.anytime_note or None,
        "continuum": continuum(s.get("continuum")),
        "literal": literal(ctx.literal),
        "looseness": looseness(ctx),
    }


def continuum(c: dict | None) -> dict | None:
    """A box study's truth, its certified errors and the optimiser's witnessed misses (docs/compact.md)."""
    if not c:
        return None
    o = c["optimiser"]
    return {"truth": c["truth"], "tolerance": fmt(c["max_tolerance"]),
            "optimiser": (f"a fresh Sobol point beat the chosen x_t on {o['steps_missed']} of {o['run_steps']} "
                          f"run-steps (largest gap {fmt(o['max_gap'])}; the bound's slack at T "
                          f"{fmt(o['bound_slack'])})")}


def literal(cmp: dict | None) -> dict | None:
    """The paper's printed constants against the restored ones (theorems with a ``_literal`` sibling)."""
    if cmp is None:
        return None
    rows = []
    for name, rest, lit in [*cmp["rows"], ("Bound(T)", *cmp["total"])]:
        ratio = lit / rest if rest and rest == rest and lit == lit else float("nan")
        rows.append({"name": name, "restored": fmt(rest), "literal": fmt(lit),
                     "ratio": fmt(ratio) + (" (smaller)" if ratio < 1 else "")})
    return {"literal": cmp["literal"], "restored": cmp["restored"], "rows": rows}


def looseness(ctx) -> dict | None:
    """How far each form of the bound is from the regret, and from the trivial bound (family columns)."""
    runs = ctx.runs
    main = runs[runs["algorithm"] == ctx.main_algorithm] if "algorithm" in runs else runs
    rows = []
    for col, what in _FORMS.items():
        if col in main and main[col].notna().any():
            med = float(main[col].median())
            rows.append({"form": what, "ratio": fmt(med, 3), "inverse": fmt(1 / med, 3) if med > 0 else "—"})
    if len(rows) < 2 and "bound_over_trivial" not in main:
        return None
    trivial = None
    if "bound_over_trivial" in main and main["bound_over_trivial"].notna().any():
        r = float(main["bound_over_trivial"].median())
        trivial = {"verdict": "vacuous: above" if r > 1 else "below", "ratio": fmt(r, 3)}
    gaps = [{"name": c, "rate": fmt(float(main[c].astype(float).mean()), 3)}
            for c in main.columns if c.startswith("gap_")]  # proof gaps a family counts per run
    return {"rows": rows, "trivial": trivial, "gaps": gaps}


def bound_terms(ctx) -> dict:
    """The fragment ``tables/bound_terms.tex``: the stored terms at the horizon with their expressions."""
    b = ctx.summary.get("bound", {})
    th = ctx.theorem
    return {"terms": [{"name": n, "expr": th.bound_terms.get(n) if th is not None else None, "value": fmt(v)}
                      for n, v in b.get("terms", {}).items()], "at_horizon": fmt(b.get("at_horizon"))}


def assumptions(ctx) -> dict:
    """The scenario, each assumption of the theorem with its status, and why a run is outside the theorem."""
    sc = ctx.scenario_info
    return {"scenario": ctx.scenario_name, "description": sc.get("description") or None,
            "notes": list(sc.get("notes") or ()), "in_theory": ctx.in_theory, "reasons": "; ".join(ctx.reasons),
            "rows": [{"text": text, "ok": ok, "how": how} for text, ok, how in ctx.assumption_rows()]}


def corrections(ctx) -> list[dict]:
    """The corrections ledger: paper typos and gaps, what is implemented instead, and why."""
    th = ctx.theorem
    if th is None:
        return []
    return [{"id": c.id, "location": c.location, "paper": c.paper, "implemented": c.implemented, "reason": c.reason,
             "changes": bool(c.changes_computation)} for c in th.corrections]


def figures(figs: list) -> list[dict]:
    """The drawn figures: name, title, caption, file, and the width each report gives it."""
    out = []
    for f in figs:
        out.append({"name": f.name, "title": f.title, "caption": f.caption, "png": f.png, "file": f.png.name,
                    # shown at physical size (96 px per inch) in HTML; one scale for all in LaTeX (equal lettering)
                    "width_px": round(f.width_in * 96) if f.width_in else None,
                    "fraction": f"{min(1.0, (f.width_in or MAX_WIDTH_IN) / MAX_WIDTH_IN):.3f}"})
    return out
