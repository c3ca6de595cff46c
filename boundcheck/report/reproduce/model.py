"""The ``boundcheck reproduce`` report as a view model: numbers and words, no markup.

:func:`view_model` turns the stored results (:class:`~.context.ReplicationContext`) and the drawn figures into
one dict that the templates under ``report/templates/reproduce/`` render as HTML and LaTeX; :func:`index_model`
does the same for the index page of ``reproduce --all``. Both formats open with the same headline and carry the
**replication note**: what reproduced, what did not, which settings were guessed, what cannot be run offline and
what stands in for it, and where in the grid of unstated settings a claim that did not reproduce does appear.
The sentences here are also the terminal's (``effect_text``, ``headline``, ``printed_rows``).
"""

from __future__ import annotations

import os
from pathlib import Path

from ...claims.empirical import resolution_text
from ..figures import MAX_WIDTH_IN, FigureInfo
from ..replication_figures import ReplicationTable, paper_figure_names
from ..wording import fmt

__all__ = ["view_model", "index_model", "claim_view", "replication_note", "effect_text", "headline",
           "explore_sentence", "best_setting_sentence", "PRINTED_HEAD", "PRINTED_NUMERIC", "printed_rows",
           "table_cell", "resolution_text", "quick_text", "STAND_IN_HEAD", "stand_in_rows", "VERDICT_ORDER",
           "VERDICT_HELP"]

VERDICT_ORDER = ("reproduced", "not reproduced", "inconclusive", "not run")
VERDICT_HELP = {
    "reproduced": "the test of 'the claim is false' rejects within the run's false-alarm budget (Holm)",
    "not reproduced": "the test of 'the claim is true' rejects within the run's false-alarm budget (Holm)",
    "inconclusive": "neither test rejects: more runs needed",
    "not run": "the experiment cannot be run offline",
}


# ---------------------------------------------------------------------------------------------- text
def effect_text(c: dict, short: bool = False) -> str:
    """The effect size of one judged claim, in words and numbers (``short``: one terminal column)."""
    if c.get("verdict") == "not run" or c.get("estimate") is None:
        return "—"
    d = c.get("details") or {}
    ci = f"[{fmt(c.get('ci_low'), 3)}, {fmt(c.get('ci_high'), 3)}]"
    kind = c.get("kind")
    if kind in ("less", "lowest", "noninferior", "similar"):
        comp = d.get("comparator") or (c.get("others") or ["?"])[0]
        rel = c.get("relative")
        if short:
            return (f"{c['estimate']:+.3g} {ci}" + (f" ({rel:+.0%})" if rel is not None else "") + f" vs {comp}"
                    + (f", better in {c['frac_subject_better']:.0%}" if c.get("frac_subject_better") is not None
                       else ""))
        out = f"{c['subject']} − {comp}: {c['estimate']:+.4g} {ci}"
        if rel is not None:
            out += f" ({rel:+.0%} of {comp})"
        if c.get("frac_subject_better") is not None:
            out += f"; {c['subject']} better in {c['frac_subject_better']:.0%} of runs"
        return out
    if kind in ("increasing", "decreasing"):
        return f"mean slope {c['estimate']:+.4g} per panel {ci}"
    ref = d.get("threshold") if kind in ("above", "below") else d.get("band")
    return f"mean {fmt(c['estimate'], 3)} {ci} ({'vs' if short else 'threshold'} {ref})"


PRINTED_HEAD = ["printed number", "panel", "the paper", "ours: mean ± 2 SE (runs)", "difference (ours − paper)",
                "z (ours − paper) / (√2 SE)", "relative difference", "paper within ± 2 SE"]
#: the columns of PRINTED_HEAD that hold numbers (right-aligned)
PRINTED_NUMERIC = frozenset({2, 3, 4, 5, 6})


def _signed(v, digits: int) -> str:
    return "—" if v is None else f"{v:+.{digits}g}"


def printed_rows(exp: dict) -> list[list[str]]:
    """The paper's printed numbers beside ours, one row per printed number (plain text cells; the reports escape
    them): the paper, ours ± 2 SE (runs), the difference, z and the relative difference."""
    rows = []
    for r in exp.get("printed_results") or []:
        ours = "—" if r.get("ours") is None else (f"{fmt(r['ours'], 4)} ± {fmt(2 * r['se'], 3)} ({r['runs']})"
                                                  if r.get("se") is not None else fmt(r["ours"], 4))
        diff = r.get("difference")
        if diff is None and r.get("ours") is not None:  # a reproduce.json written before the column existed
            diff = r["ours"] - r["paper"]
        rel = r.get("relative")
        if rel is None and diff is not None and r.get("paper"):
            rel = diff / abs(r["paper"])
        rows.append([str(r["label"]), str(r["panel"]), fmt(r["paper"], 5), ours, _signed(diff, 3),
                     _signed(r.get("z"), 3), "—" if rel is None else f"{rel:+.1%}", fmt(r.get("within_2se"))])
    return rows


STAND_IN_HEAD = ["property", "the paper's real data (as the paper reports it)", "boundcheck's stand-in (measured)"]


def stand_in_rows(exp: dict) -> list[list[str]]:
    """What stands in for the real data: each property, the paper's data beside the stand-in (plain text)."""
    return [[str(r["property"]), str(r["paper"]), str(r["ours"])] for r in exp.get("stand_in_rows") or []]


def table_cell(v) -> str:
    """One cell of a paper's own table as plain text (numbers compact, None as —)."""
    return v if isinstance(v, str) else fmt(v, 4)


def explore_sentence(cid: str, block: dict, ex: dict) -> str:
    """What the explored grid says about one claim: the screen, the direction of the mean effect, the
    confirmation on fresh seeds."""
    out = (f"{cid}: in the screen ({len(ex['cells'])} settings × {ex['runs']} runs, Holm over the grid) it reproduces "
           f"{block['where']}; its mean effect points the paper's way {block.get('favourable_where', '?')}; it is "
           f"significantly reversed {block['reversed_where']}.")
    if block.get("confirmation"):
        out += f" Confirmation: {block['confirmation']}."
    return out


def best_setting_sentence(experiment: str, best: dict) -> str:
    """Every claim of an experiment at the explored setting that confirms the most of them."""
    n = best["counts"]
    where = ", ".join(f"{k} = {v}" for k, v in best["settings"].items())
    bad = [c["id"] for c in best["claims"] if c["verdict"] != "reproduced"]
    return (f"{experiment}: at the setting that confirms the most claims ({where}; {best['runs']} fresh runs), every "
            f"claim of the experiment: {n['reproduced']} reproduced, {n['not reproduced']} not reproduced, "
            f"{n['inconclusive']} inconclusive" + (f" (not reproduced or undecided: {', '.join(bad)})" if bad else "")
            + ". Descriptive: the setting was chosen with these runs.")


def quick_text(summary: dict) -> str:
    """What a ``--quick`` run left out ("" for a run at the paper's settings): every page says it."""
    q = summary.get("quick")
    if not q:
        return ""
    own = q.get("own_form") or []
    runs = f"{q['runs']} runs per panel" + (f" ({', '.join(own)}: their own smaller form)" if own else "")
    return (f"QUICK RUN (--quick): {runs} and horizons capped at {q['max_horizon']}, not the paper's settings; "
            "the verdicts are a smoke test, not a replication")


def headline(summary: dict) -> str:
    p, n = summary["paper"], summary["counts"]
    judged = sum(n.get(v, 0) for v in VERDICT_ORDER[:3])
    parts = [f"{n.get(v, 0)} {v}" for v in VERDICT_ORDER[:3]]
    tail = f"; {n['not run']} not run (data not available offline)" if n.get("not run") else ""
    quick = quick_text(summary)
    return ((f"[{quick}] " if quick else "") + f"{p['id']} ({p['source']}): of {judged} empirical claims, "
            + ", ".join(parts) + tail + f" (family-wise false-alarm budget {summary['false_alarm']:g}).")


def replication_note(summary: dict) -> list[tuple[str, list[str]]]:
    """The replication note as (heading, lines): the verdicts, guessed settings, deviations, what cannot be run
    offline and what stands in for it, and the explored settings."""
    claims = summary["claims"]
    out: list[tuple[str, list[str]]] = []
    for v, head in (("reproduced", "Reproduced"), ("not reproduced", "Not reproduced"),
                    ("inconclusive", "Inconclusive (more runs needed)")):
        lines = []
        for c in claims:
            if c["verdict"] != v:
                continue
            extra = ""
            unresolved = resolution_text(c)
            if unresolved:
                extra = f"; {unresolved}"
            elif v == "inconclusive" and (c.get("details") or {}).get("runs_needed"):
                extra = f"; about {c['details']['runs_needed']} runs would settle it if the effect persisted"
            lines.append(f"{c['id']} ({c['location']}): {c['reading']}. Effect: {effect_text(c)}{extra}.")
        if lines:
            out.append((head, lines))
    guessed, deviates, offline = [], [], []
    for e in summary["experiments"]:
        g = [s for s in e["settings"] if s["status"] == "guessed"]
        if g:
            guessed.append(f"{e['name']} ({e['location']}): " + "; ".join(f"{s['name']}: {s['value']}" for s in g)
                           + ".")
        d = [s for s in e["settings"] if s["status"] == "deviates"]
        if d:
            deviates.append(f"{e['name']}: " + "; ".join(f"{s['name']}: {s['value']} ({s['source']})" for s in d)
                            + ".")
        if e.get("offline_reason"):
            offline.append(f"{e['name']} ({e['location']}) is not run: {e['offline_reason']}.")
        elif e.get("stand_in"):
            offline.append(f"{e['name']} ({e['location']}) runs on a stand-in: {e['stand_in']}")
    if guessed:
        out.append(("Settings the paper does not state (boundcheck's guesses)", guessed))
    if deviates:
        out.append(("Stated settings run otherwise", deviates))
    if offline:
        out.append(("Real data that cannot be used offline", offline))
    exp_lines = []
    for name, ex in (summary.get("explore") or {}).items():
        if "claims" not in ex:
            exp_lines.append(f"{name}: {ex.get('note', '')}.")
            continue
        for cid, block in ex["claims"].items():
            exp_lines.append(explore_sentence(cid, block, ex))
        if ex.get("best_setting"):
            exp_lines.append(best_setting_sentence(name, ex["best_setting"]))
    if exp_lines:
        out.append(("Sensitivity to the unstated settings (--explore)", exp_lines))
    elif any(c["verdict"] in ("not reproduced", "inconclusive") for c in claims):
        out.append(("Sensitivity to the unstated settings",
                    ["not explored in this run: `boundcheck reproduce ... --explore` re-tests the claims that did "
                     "not reproduce over a grid of the settings the paper does not state"]))
    return out




# ---------------------------------------------------------------------------------------------- view model
def claim_view(c: dict) -> dict:
    """One judged claim as the tables show it (the report's, the notebook's and the best setting's)."""
    d = c.get("details") or {}
    resolution = resolution_text(c)
    return {"id": c["id"], "location": c["location"], "wording": c["wording"], "reading": c["reading"],
            "test": c.get("test", ""), "metric": d.get("metric", c.get("metric", "")), "effect": effect_text(c),
            "d_z": None if c.get("d_z") is None else fmt(c["d_z"], 3),
            "p_false": None if c.get("p_adj_reproduced") is None else fmt(c["p_adj_reproduced"], 2),
            "p_true": None if c.get("p_adj_reproduced") is None else fmt(c["p_adj_not_reproduced"], 2),
            "verdict": c["verdict"], "verdict_help": VERDICT_HELP.get(c["verdict"], ""), "note": c.get("note"),
            "resolution": resolution,
            "runs_needed": (d.get("runs_needed") if not resolution and c.get("verdict") == "inconclusive"
                            else None)}


def _figure(f: FigureInfo, number: int | None) -> dict:
    """A figure: the HTML numbers it and sizes it in CSS pixels, the LaTeX as a fraction of the line."""
    return {"name": f.name, "number": number, "title": f.title, "caption": f.caption, "png": f.png,
            "file": f.png.name, "width_px": round(f.width_in * 96) if f.width_in else None,
            "frac": min(1.0, (f.width_in or MAX_WIDTH_IN) / MAX_WIDTH_IN)}


def _paper_table(t: ReplicationTable) -> dict:
    return {"title": t.title, "caption": t.caption, "columns": [str(c) for c in t.columns],
            "rows": [[table_cell(v) for v in r] for r in t.rows], "numeric": set(t.numeric)}


def _setting(cell: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in cell.items())


def _experiment(ctx, exp: dict, tables: dict, by_name: dict, number) -> dict:
    panels = [{"title": p["title"], "scenario": p["scenario"], "runs": fmt(p["runs"]), "horizon": fmt(p["horizon"]),
               "algorithms": list(p["algorithms"]), "theorem": p["theorem"], "theorem_verdict": p["theorem_verdict"],
               "theory": ("in theory" if p["in_theory"]
                          else "out of theory: " + "; ".join(p["out_of_theory_reasons"])),
               "results": p["results"]} for p in exp.get("panel_results", [])]
    return {"name": exp["name"], "title": exp["title"], "location": exp["location"],
            "description": exp["description"], "offline_reason": exp.get("offline_reason"),
            "stand_in": exp.get("stand_in"), "stand_in_rows": stand_in_rows(exp) if exp.get("stand_in_rows") else [],
            "settings": [{"name": s["name"], "value": s["value"], "status": s["status"],
                          "source": s.get("source", "")} for s in exp["settings"]],
            "panels": panels,
            "claims": [claim_view(c) for c in ctx.claims if c["experiment"] == exp["name"]],
            "printed": printed_rows(exp) if exp.get("printed_results") else [],
            "tables": [_paper_table(t) for t in tables.get(exp["name"], [])],
            "figures": [_figure(by_name[k], number()) for k in paper_figure_names(exp) if k in by_name]}


def _explored_claim(ctx, cid: str, block: dict, ex: dict, by_name: dict, number) -> dict:
    cells = ex["cells"]
    margins = []
    for a in ex["axes"]:
        for lv in a["levels"]:
            idx = [i for i, cell in enumerate(cells) if cell[a["name"]] == lv]
            margins.append([a["label"], lv, f"{sum(block['cells'][i]['reproduces'] for i in idx)}/{len(idx)}",
                            f"{sum(block['cells'][i]['reversed'] for i in idx)}/{len(idx)}"])
    best = sorted(range(len(cells)), key=lambda i: block["cells"][i]["p_reproduced"])[:10]
    f = by_name.get(f"explore_{cid}")
    return {"id": cid, "reading": (ctx.claim(cid) or {}).get("reading", ""),
            "sentence": explore_sentence(cid, block, ex),
            "confirmed": [[_setting(c["settings"]), fmt(c.get("estimate"), 3), fmt(c.get("relative"), 3),
                           fmt(c["p_adj_reproduced"], 2), "yes" if c["reproduces"] else "no"]
                          for c in block.get("confirmed") or []],
            "margins": margins, "figure": None if f is None else _figure(f, number()),
            "best": [[_setting(cells[i]), fmt(block["cells"][i].get("estimate"), 3),
                      fmt(block["cells"][i].get("relative"), 3), fmt(block["cells"][i]["p_adj_reproduced"], 2),
                      "yes" if block["cells"][i]["reproduces"] else "no"] for i in best]}


def _explored(ctx, name: str, ex: dict, by_name: dict, number) -> dict:
    best = ex.get("best_setting")
    return {"name": name, "cells": len(ex["cells"]), "runs": ex["runs"], "note": ex.get("note", ""),
            "confirm_runs": ex.get("confirm_runs"),
            "axes": [{"label": a["label"], "levels": ", ".join(map(str, a["levels"])),
                      "meaning": a.get("meaning", "")} for a in ex["axes"]],
            "claims": [_explored_claim(ctx, cid, block, ex, by_name, number) for cid, block in ex["claims"].items()],
            "best_setting": None if not best else {"sentence": best_setting_sentence(name, best),
                                                   "claims": [claim_view(c) for c in best["claims"]]}}


def view_model(ctx, figs: list[FigureInfo], tables: dict[str, list[ReplicationTable]] | None = None) -> dict:
    """The report of a ``boundcheck reproduce`` output folder as numbers and words, in the order it is read:
    headline, counts, replication note, each experiment, the effects, the explored settings, the method and
    the provenance. Figures are numbered in that order."""
    s, p = ctx.summary, ctx.paper
    by_name = {f.name: f for f in figs}
    count = [0]

    def number() -> int:
        count[0] += 1
        return count[0]

    experiments = [_experiment(ctx, exp, tables or {}, by_name, number) for exp in ctx.experiments]
    effects = _figure(by_name["claims"], number()) if "claims" in by_name else None
    explore = [_explored(ctx, name, ex, by_name, number) for name, ex in ctx.explore.items()]
    return {
        "headline": headline(s),
        "paper": {"id": p["id"], "title": p["title"], "source": p["source"], "reference": p.get("reference"),
                  "notes": list(p.get("notes", []))},
        "counts": [(v, s["counts"].get(v, 0)) for v in VERDICT_ORDER],
        "note": replication_note(s),
        "experiments": experiments, "effects": effects, "explore": explore,
        "all_claims": [claim_view(c) for c in ctx.claims],
        "method": [
            "Each claim is one statistic on the stored runs: a per-run metric (R_T, R_t at a fraction of T, a share "
            "of steps on a prior, ...) of the algorithms it names. Run r of every algorithm saw the same function "
            "and noise, so comparisons are paired.",
            "Two one-sided t-tests per claim: 'the claim is false' (rejected: reproduced) and 'the claim is true' "
            "(rejected: not reproduced). Several conditions that must all hold (lowest regret, equivalence) combine "
            "by intersection-union; one of several that suffices by Bonferroni.",
            f"Budget: {s['budget']}. The probability that any verdict of this run is wrong is at most "
            f"{s['false_alarm']:g} (up to the t approximation).",
            "Intervals are simultaneous (Bonferroni) at the same budget: one excluding the null implies the Holm "
            "decision, but Holm may decide where the interval does not.",
            "Relative margins ('similar', 'reasonably well', 'competitive') and thresholds ('commits', 'roughly "
            "uniform') are boundcheck's readings of the paper's words, stated with each claim."],
        "method_short": ("Two one-sided paired t-tests per claim ('the claim is false': reproduced; 'the claim is "
                         "true': not reproduced); intersection-union for conditions that must all hold, Bonferroni "
                         f"for one of several. Budget: {s['budget']}. Intervals are simultaneous (Bonferroni) at "
                         "the same budget."),
        "provenance": [("boundcheck version", s.get("version")), ("seed", s.get("seed")),
                       ("runs", s.get("runs") or "each experiment's default"),
                       ("false-alarm budget", s.get("false_alarm")),
                       ("time taken", f"{float(s.get('elapsed_s', 0)):.1f} s")],
        "notes": list(ctx.notes),
    }


def _link(out_dir: Path, target: str | None) -> str | None:
    """A report's path relative to the index page (absolute on another drive), or None."""
    if not target:
        return None
    try:
        rel = os.path.relpath(target, out_dir)
    except ValueError:  # another drive (Windows): the absolute path
        rel = str(target)
    return Path(rel).as_posix()


def index_model(summary: dict, out_dir: Path) -> dict:
    """The index page of a ``reproduce --all`` summary (:func:`boundcheck.api.reproduce_all`) as numbers and
    words: every paper's counts, time and report link, and every claim's verdict with its effect."""
    n = summary["counts"]
    head = ("reproduce --all: " + ", ".join(f"{n.get(v, 0)} {v}" for v in VERDICT_ORDER)
            + f" over {len(summary['papers'])} papers; total time {summary['elapsed_s']:.0f} s")
    papers = [{"id": p["id"], "link": _link(Path(out_dir), (p.get("report") or {}).get("html")),
               "title": p["title"], "source": p["source"], "counts": [p["counts"].get(v, 0) for v in VERDICT_ORDER],
               "time": f"{p['elapsed_s']:.0f} s",
               "claims": [{"id": c["id"], "experiment": c["experiment"], "reading": c.get("reading", ""),
                           "effect": c.get("effect", ""), "resolution": resolution_text(c), "verdict": c["verdict"]}
                          for c in p["claims"]]} for p in summary["papers"]]
    return {"headline": head, "quick": summary.get("quick_text") or "", "verdicts": VERDICT_ORDER,
            "papers": papers, "seed": summary.get("seed"),
            "runs": summary.get("runs") or "each experiment of each paper its own (the paper’s settings)",
            "total": f"{summary['elapsed_s']:.1f}"}
