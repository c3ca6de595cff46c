"""The words of the verify report (and of the pages that quote it): verdicts, headline, weak link, provenance.

Every function reads a loaded :class:`~boundcheck.report.context.ReportContext` (or a stored summary's parts)
and returns plain text and numbers, no markup: the view models (:mod:`boundcheck.report.verify.model`, the
studies page, the notebook's fragments) and the CLI's tables say the same thing in the same words.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["KIND_HELP", "VERDICT_HELP", "OUTSIDE", "bite_text", "incompleteness_text", "ci_label", "fmt",
           "headline", "tightness_text", "weak_link", "provenance", "workers_text", "describe_detectable",
           "sensitivity_table"]

KIND_HELP = {
    "probability": "the event may fail with probability at most the level; p-value: exact one-sided binomial "
                   "test of 'failure rate ≤ level'; interval: Clopper-Pearson, each end a one-sided bound at "
                   "1 − share",
    "deterministic": "an implication that must hold in every run where its premise holds; any "
                     "counterexample is a violation (outside the false-alarm budget)",
    "expectation": "a bound on an expectation; p-value: one-sided t test of 'mean ≤ bound'; interval: each end "
                   "a one-sided bound at 1 − share",
    "calibration": "a distributional identity (i.i.d. N(0,1)); one omnibus p-value (Anderson-Darling against "
                   "N(0,1) and Ljung-Box within runs), compared with its share; mean, variance, lag-1 are "
                   "diagnostics",
    "identity": "a sanity identity, true by construction (or a bound that no algorithm can reach at these "
                "settings): shown, but outside the verdict",
    "equality": "a stochastic identity E[X] = 0 (X centred per run); p-value: two-sided t test; violated when "
                "the budget rejects it, holds otherwise",
}
VERDICT_HELP = {
    "holds": "the interval lies below the level (or no counterexample)",
    "violated": "the false-alarm budget (Holm) rejects the claim: its p-value is below its share (or a "
                "counterexample exists)",
    "inconclusive": "the interval straddles the level: more runs are needed",
    "not applicable": "the claim does not apply to the checked algorithm",
    "incomplete": "every judged claim holds, but some claims were not judged on the checked code (it does not "
                  "record what they read): not a pass",
}


def bite_text(claim: dict) -> str:
    """Where a bound claim judged as a vacuous identity would be tested ("bites from T ≈ …; rerun with --horizon …",
    :mod:`boundcheck.claims.horizon`); "" for other claims."""
    bite = (claim.get("details") or {}).get("bites_from")
    return str(bite.get("message") or "") if isinstance(bite, dict) else ""


def incompleteness_text(gap: dict | None) -> str:
    """One sentence naming the claims an incomplete verdict did not judge and the planted defects (of the shipped
    power table) that no remaining claim catches; "" when the verdict is complete."""
    if not gap:
        return ""
    unc = gap.get("uncaught_defects")
    return ("Incomplete: not judged on the checked code: " + ", ".join(gap.get("claims") or {})
            + ("; planted defects no remaining claim catches (power table): " + (", ".join(unc) or "none")
               if unc is not None else "; no power table says which planted defects stay uncaught") + ".")
OUTSIDE = "OUTSIDE THE THEOREM"


def ci_label(test_size) -> str:
    """'95%' for a test of size 0.05: the confidence of a claim's interval, read from its stored result."""
    if test_size is None:
        return ""
    return f"{100 * (1 - float(test_size)):.4g}%"


def fmt(x, digits: int = 4) -> str:
    """A compact human number: 12383.67 -> '12384', 0.012345 -> '0.01235', 3e-05 -> '3.000e-05'."""
    if x is None:
        return "—"
    if isinstance(x, bool | np.bool_):
        return "yes" if x else "no"
    if isinstance(x, int | np.integer):
        return str(int(x))
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(v):
        return "—"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v == int(v) and abs(v) < 1e9:
        return str(int(v))
    if 10**digits <= abs(v) < 1e9:
        return f"{v:.0f}"
    if 1e-3 <= abs(v) < 10**digits:
        return f"{v:.{digits}g}"
    return f"{v:.{max(digits - 1, 1)}e}"


# ------------------------------------------------------------------------------------------- one-line answers
def headline(ctx) -> str:
    """A verify report's's first line: theory status first (out of theory runs say so), then the verdict."""
    s = ctx.summary
    tid, sc = ctx.theorem_id, ctx.scenario_name
    v = ctx.verdict
    setting = f"{s.get('runs')} runs, T = {s.get('horizon')}, δ = {s.get('delta')}"
    if s.get("false_alarm"):
        setting += f", false-alarm budget {s['false_alarm']:g}"
    if not ctx.in_theory:
        return (f"{OUTSIDE}: {tid} on {sc}, {'; '.join(ctx.reasons) or 'assumptions not met'}. "
                f"Claims verdict: {v}, not a theorem failure (a negative control; {setting}).")
    mains = [c for c in ctx.claims if c.get("main") and c.get("kind") != "identity"]
    if not mains and any(c.get("main") for c in ctx.claims):
        setting += "; the explicit bound is vacuous here (no algorithm can exceed it)"
        bite = next((bite_text(c) for c in ctx.claims if c.get("main") and bite_text(c)), "")
        if bite:  # where the theorem's bound would be tested
            setting += f": it {bite}" if bite.startswith(("bites from T", "does not")) else f" ({bite})"
    if v == "holds":
        what = "the theorem holds: every claim of the proof holds"
    elif v == "violated":
        bad = [c["id"] for c in ctx.claims if c.get("verdict") == "violated"]
        what = f"the theorem is VIOLATED: {', '.join(bad)} failed"
    elif v == "incomplete":  # every judged claim holds, but not every claim was judged: no pass
        na = list((ctx.summary.get("incomplete") or {}).get("claims") or {})
        what = (f"INCOMPLETE: every judged claim holds, but {len(na)} claim{'s' if len(na) != 1 else ''} "
                "could not be judged on the checked code")
    else:
        und = [c["id"] for c in ctx.claims if c.get("verdict") == "inconclusive"]
        held = [c for c in mains if c.get("verdict") == "holds"]
        what = "inconclusive"
        if mains and len(held) == len(mains):
            m0 = mains[0]
            what += (f": the regret bound held in {m0['runs'] - m0['violations']}/{m0['runs']} runs, but "
                     f"{len(und)} claim{'s' if len(und) != 1 else ''} need{'' if len(und) != 1 else 's'} "
                     "more runs")
        else:
            what += f": {len(und)} claim{'s' if len(und) != 1 else ''} undecided"
    return f"In theory: {tid} on {sc}, {what} ({setting})."

def tightness_text(ctx) -> str:
    """The bound's tightness in words: median and worst R_T / Bound(T)."""
    t = ctx.summary.get("tightness") or {}
    med, mx = t.get("median"), t.get("max")
    if med is None or not np.isfinite(med) or med <= 0:
        return "tightness unavailable"
    return (f"median R_T / Bound(T) = {fmt(med, 3)} (the bound is {fmt(1 / med, 3)}× the median "
            f"regret of {ctx.label(ctx.main_algorithm)}); worst run {fmt(mx, 3)}")

def weak_link(ctx) -> tuple[str | None, str]:
    """(claim id, explanation) of the claim of the proof closest to failing."""
    best, score, why = None, -1.0, ""
    for c in ctx.claims:
        v, k, n = c.get("verdict"), c.get("violations", 0) or 0, c.get("runs", 0) or 0
        if c.get("kind") == "identity":
            continue
        if c.get("kind") == "calibration":
            p = c.get("p_value")
            sc = 10.0 if v == "violated" else 0.0
            text = ("calibration rejected" if v == "violated" else "calibration passed") + (
                f" (omnibus p = {fmt(p, 2)})" if p is not None else "")
        elif c.get("kind") == "expectation":  # a claim on the mean: a run above the bound is no failure
            det = c.get("details") or {}
            sc = {"violated": 10.0, "inconclusive": 1.0}.get(v, 0.0)
            text = (f"mean {fmt(det.get('mean'), 3)} against the bound {fmt(det.get('bound'), 3)}"
                    + (f" (p = {fmt(c.get('p_value'), 2)})" if c.get("p_value") is not None else ""))
        elif c.get("kind") == "deterministic" or c.get("level") in (None, 0):
            sc = 100.0 + k if k > 0 else 0.0
            text = f"{k}/{n} counterexamples"
        else:
            level = float(c["level"])
            rate = k / n if n else 0.0
            sc = (rate / level) if k > 0 else 0.0
            if v == "violated":
                sc += 10.0
            text = (f"{k}/{n} failures (rate {fmt(rate, 3)}, {ci_label(c.get('test_size'))} CI "
                    f"[{fmt(c.get('ci_low'), 3)}, "
                    f"{fmt(c.get('ci_high'), 3)}]) against level {fmt(level, 3)}")
        if sc > score:
            best, score, why = c["id"], sc, text
    if score <= 0:
        return None, "no claim of the proof failed in any run"
    return best, why


def provenance(ctx) -> list[tuple[str, str]]:
    """(key, value) rows of the configuration and provenance section."""
    s, m = ctx.summary, ctx.manifest
    cfg = m.get("config", {})
    chunks = m.get("chunks", {})
    rows = [
        ("theorem", ctx.theorem_id),
        ("scenario", ctx.scenario_name),
        ("runs", fmt(s.get("runs"))),
        ("horizon T", fmt(s.get("horizon"))),
        ("δ (confidence parameter)", fmt(s.get("delta"))),
        ("seed", fmt(s.get("seed"))),
        ("β scale", fmt(s.get("beta_scale"))),
        ("false-alarm budget", str(s.get("error_budget", "—"))),
        ("sequential (anytime-valid)", "yes (--until-conclusive)" if s.get("sequential") else "no"),
        ("algorithms", ", ".join(ctx.algorithms)),
        ("chunk size", fmt(cfg.get("chunk_size"))),
        ("chunks stored", str(len(chunks))),
        ("configuration key", str(m.get("config_key", "—"))),
        ("boundcheck version", str(s.get("version", m.get("version", "—")))),
        ("Python / NumPy", f"{m.get('python', '—')} / {m.get('numpy', '—')}"),
        ("backend / workers", f"{m.get('backend', '—')} / {workers_text(m)}"),
        ("time taken", f"{float(s.get('elapsed_s', m.get('elapsed_s', 0.0)) or 0.0):.1f} s"),
        ("results", "results/ (beside this report): summary.json, manifest.json, chunks/*.parquet"),
    ]
    return rows


def workers_text(manifest: dict) -> str:
    """The number of workers a study ran on: the resolved count the manifest stores (``--jobs -1`` is every
    core of the machine that ran it, unknown to whoever rebuilds the report elsewhere), else what was asked."""
    workers, jobs = manifest.get("workers"), manifest.get("jobs")
    if isinstance(workers, int):
        asked = f" (jobs = {jobs})" if isinstance(jobs, int) and jobs != workers else ""
        return f"{workers} worker{'s' if workers != 1 else ''}{asked}"
    if isinstance(jobs, int) and jobs < 0:
        return f"jobs = {jobs}: every core (the count was not stored)"
    return "—" if jobs is None else str(jobs)


def describe_detectable(det: dict | None) -> str:
    """One line for a claim's smallest detectable effect (see ``boundcheck.claims.stats.smallest_detectable``)."""
    if not det:
        return "—"
    if det.get("failure_rate") is not None:
        out = f"failure rate ≥ {fmt(det['failure_rate'], 3)}"
        if det.get("bound_factor") is not None:
            out += f"; a bound ≤ {fmt(det['bound_factor'], 3)}× its value"
        return out
    if det.get("mean_excess") is not None:
        return f"mean above the bound by ≥ {fmt(det['mean_excess'], 3)}"
    if det.get("mean_difference") is not None:  # an equality claim (two-sided)
        return f"|mean| ≥ {fmt(det['mean_difference'], 3)}"
    if det.get("mean_shift") is not None:
        return (f"≈ mean shift {fmt(det['mean_shift'], 2)} sd, scale ×{fmt(det['scale_factor'], 4)} or lag-1 "
                f"correlation {fmt(det['lag1'], 2)}")
    if det.get("counterexample_rate") is not None:
        return f"a counterexample in ≥ {fmt(det['counterexample_rate'], 3)} of runs"
    return "—"


def _power_table(ctx) -> tuple[dict | None, str]:
    """The measured power of this theorem's claims: ``power/power.json`` beside the report when
    ``boundcheck power`` stored one, else the precomputed table its paper ships (``power_dir``)."""
    stored = ctx.results_dir.parent / "power" / "power.json"
    candidates = [(stored, "measured by `boundcheck power` for this report folder")]
    from theory import plugins

    paper = plugins.paper_of_theorem(ctx.theorem_id)
    if paper is not None and paper.power_dir is not None:  # shipped with the theorem's paper
        candidates.append((paper.power_dir / f"{ctx.theorem_id}.json",
                           "precomputed (benchmarks/bench_power.py; see docs/verdicts.md)"))
    import json

    for path, what in candidates:
        try:
            if path.is_file():
                table = json.loads(path.read_text())
                if table.get("theorem") == ctx.theorem_id:
                    return table, what
        except (OSError, ValueError):
            continue
    return None, ""


def sensitivity_table(ctx) -> tuple[list[dict], str]:
    """Rows {claim, detectable (this verify), catches (defect: probability), power_runs} and a one-line source
    note: the 'sensitivity of this verification' the reports show."""
    table, source = _power_table(ctx)
    rows = []
    for c in ctx.claims:
        if c.get("kind") == "identity" or c.get("verdict") == "not applicable":
            continue
        catches = []
        if table is not None and c["id"] in table.get("claims", {}):
            for d in table["claims"][c["id"]].get("catches", []):
                catches.append((d, float(table["defects"][d]["probability"][c["id"]])))
        rows.append({"claim": c["id"], "detectable": describe_detectable((c.get("details") or {}).get("detectable")),
                     "catches": catches, "measured": table is not None and c["id"] in table.get("claims", {})})
    if table is None:
        return rows, "no power table found: run `boundcheck power --theorem " + ctx.theorem_id + "`"
    return rows, (f"defects caught with probability ≥ {table.get('power_target', 0.9):g} by a verify of "
                  f"N = {table.get('runs')} runs, T = {table.get('horizon')} on {table.get('scenario')} "
                  f"({source}); smallest detectable effects are for this verify's {ctx.summary.get('runs')} runs")
