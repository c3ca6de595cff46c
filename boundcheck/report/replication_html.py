"""Self-contained HTML of a ``boundcheck reproduce`` report (figures inlined, no network)."""

from __future__ import annotations

from .context import fmt
from .figures import FigureInfo
from .html import CSS, e, rich, table
from .html import img_src as _img
from .replication import (
    PRINTED_HEAD,
    PRINTED_NUMERIC,
    STAND_IN_HEAD,
    VERDICT_ORDER,
    ReplicationContext,
    best_setting_sentence,
    effect_text,
    explore_sentence,
    headline,
    printed_rows,
    replication_note,
    resolution_text,
    stand_in_rows,
    table_cell,
)
from .replication_figures import ReplicationTable, paper_figure_names

__all__ = ["render_html"]

EXTRA_CSS = """
.badge.reproduced { background: var(--ok); } .badge.not-reproduced { background: var(--bad); }
.badge.not-run { background: #8c8c8c; } .badge.stated { background: #1f5fa8; }
.badge.guessed { background: var(--warn); } .badge.deviates { background: #6a3d9a; }
.banner.replication { background: #1f3b57; }
blockquote { margin: 4px 0; padding: 2px 10px; border-left: 3px solid var(--line); color: #333; font-style: italic; }
details summary { cursor: pointer; color: #1f5fa8; }
.note h3 { margin-top: 14px; } .note li { margin: 3px 0; }
"""

VERDICT_HELP = {
    "reproduced": "the test of 'the claim is false' rejects within the run's false-alarm budget (Holm)",
    "not reproduced": "the test of 'the claim is true' rejects within the run's false-alarm budget (Holm)",
    "inconclusive": "neither test rejects: more runs needed",
    "not run": "the experiment cannot be run offline",
}


def vbadge(verdict: str) -> str:
    cls = verdict.replace(" ", "-")
    return f'<span class="badge {e(cls)}" title="{e(VERDICT_HELP.get(verdict, ""))}">{e(verdict)}</span>'


def _figure(f: FigureInfo, i: int) -> str:
    width = f' style="width: min(100%, {round(f.width_in * 96)}px)"' if f.width_in else ""
    return (f'<figure id="fig-{e(f.name)}"><h3>Figure {i}. {rich(f.title)}</h3>'
            f'<img src="{_img(f.png)}" alt="{e(f.title)}"{width}><figcaption>{rich(f.caption)}</figcaption></figure>')


def _note(ctx: ReplicationContext) -> str:
    out = ['<div class="note">']
    for head, lines in replication_note(ctx.summary):
        out.append(f"<h3>{e(head)}</h3><ul>" + "".join(f"<li>{rich(x)}</li>" for x in lines) + "</ul>")
    out.append("</div>")
    return "".join(out)


def _claims_table(claims: list[dict]) -> str:
    rows = []
    for c in claims:
        d = c.get("details") or {}
        extra = []
        if c.get("note"):
            extra.append(f"<span class='small mute'>{rich(c['note'])}</span>")
        if resolution_text(c):
            extra.append(f"<span class='small mute'>{e(resolution_text(c))}</span>")
        elif c.get("verdict") == "inconclusive" and d.get("runs_needed"):
            extra.append(f"<span class='small mute'>≈{e(d['runs_needed'])} runs would settle it</span>")
        pv = ("—" if c.get("p_adj_reproduced") is None else
              f"{fmt(c['p_adj_reproduced'], 2)} / {fmt(c['p_adj_not_reproduced'], 2)}")
        rows.append([
            f"<span class='id'>{e(c['id'])}</span><br><span class='small mute'>{e(c['location'])}</span>",
            f"<blockquote>{rich(c['wording'])}</blockquote>",
            rich(c["reading"]) + f"<br><span class='small mute'>{e(c.get('test', ''))}; "
            f"metric: {rich(d.get('metric', c.get('metric', '')))}</span>",
            rich(effect_text(c)) + (f"<br><span class='small mute'>d<sub>z</sub> = {fmt(c['d_z'], 3)}</span>"
                                    if c.get("d_z") is not None else ""),
            pv, vbadge(c["verdict"]) + ("<br>" + "<br>".join(extra) if extra else ""),
        ])
    return table(["claim", "the paper says", "tested as", "effect (simultaneous interval)",
                  "Holm p: false / true", "verdict"], rows, num={4})


def _settings_table(settings: list[dict]) -> str:
    rows = [[e(s["name"]), rich(s["value"]), f"<span class='badge {e(s['status'])}'>{e(s['status'])}</span>",
             rich(s.get("source", ""))] for s in settings]
    return table(["setting", "value", "status", "source / why"], rows)


def _panels_table(exp: dict) -> str:
    rows = []
    for p in exp.get("panel_results", []):
        theory = "in theory" if p["in_theory"] else "out of theory: " + "; ".join(p["out_of_theory_reasons"])
        rows.append([e(p["title"]), f"<span class='id'>{e(p['scenario'])}</span>", fmt(p["runs"]), fmt(p["horizon"]),
                     ", ".join(f"<span class='id'>{e(a)}</span>" for a in p["algorithms"]),
                     f"<span class='id'>{e(p['theorem'])}</span>: {e(p['theorem_verdict'])} ({e(theory)})",
                     f"<span class='id'>{e(p['results'])}</span>"])
    return table(["panel", "scenario", "runs", "T", "algorithms", "theorem checks on the way", "stored results"],
                 rows, num={2, 3})


def _explore_section(ctx: ReplicationContext, name: str, ex: dict, figs: dict[str, FigureInfo], counter) -> str:
    out = [f"<h3>Experiment <span class='id'>{e(name)}</span>: {len(ex['cells'])} settings, {ex['runs']} paired runs "
           f"each</h3>", f"<p class='small'>{rich(ex.get('note', ''))}</p>"]
    out.append(table(["axis", "levels (first: the default guess)", "meaning"],
                     [[e(a["label"]), e(", ".join(map(str, a["levels"]))), rich(a.get("meaning", ""))]
                      for a in ex["axes"]]))
    for cid, block in ex["claims"].items():
        c = ctx.claim(cid) or {}
        out.append(f"<h4><span class='id'>{e(cid)}</span> — {rich(c.get('reading', ''))}</h4>")
        out.append(f"<p>{rich(explore_sentence(cid, block, ex))}</p>")
        conf = block.get("confirmed") or []
        if conf:
            out.append(f"<p class='small'>Confirmation ({e(ex.get('confirm_runs'))} fresh runs per setting, Holm over "
                       "every confirmation of this run):</p>" + table(
                           ["setting", "effect", "relative", "Holm p (claim false)", "confirmed"],
                           [[e(", ".join(f"{k} = {v}" for k, v in c["settings"].items())), fmt(c.get("estimate"), 3),
                             fmt(c.get("relative"), 3), fmt(c["p_adj_reproduced"], 2),
                             "yes" if c["reproduces"] else "no"] for c in conf], num={1, 2, 3}))
        marg = []
        for a in ex["axes"]:
            for lv in a["levels"]:
                idx = [i for i, cell in enumerate(ex["cells"]) if cell[a["name"]] == lv]
                hits = sum(block["cells"][i]["reproduces"] for i in idx)
                rev = sum(block["cells"][i]["reversed"] for i in idx)
                marg.append([e(a["label"]), e(lv), f"{hits}/{len(idx)}", f"{rev}/{len(idx)}"])
        out.append("<details><summary>settings where it reproduces, by level of each axis</summary>"
                   + table(["axis", "level", "reproduces", "reversed"], marg, num={2, 3}) + "</details>")
        f = figs.get(f"explore_{cid}")
        if f is not None:
            out.append(_figure(f, counter()))
        best = sorted(range(len(ex["cells"])), key=lambda i: block["cells"][i]["p_reproduced"])[:10]
        rows = [[e(", ".join(f"{k} = {v}" for k, v in ex["cells"][i].items())),
                 fmt(block["cells"][i].get("estimate"), 3), fmt(block["cells"][i].get("relative"), 3),
                 fmt(block["cells"][i]["p_adj_reproduced"], 2), "yes" if block["cells"][i]["reproduces"] else "no"]
                for i in best]
        out.append("<details><summary>the 10 settings most favourable to the claim</summary>"
                   + table(["setting", "effect", "relative", "Holm p (claim false)", "reproduces"], rows,
                           num={1, 2, 3}) + "</details>")
    if ex.get("best_setting"):
        out.append(_best_setting(name, ex["best_setting"]))
    return "".join(out)


def _best_setting(name: str, best: dict) -> str:
    rows = [[f"<span class='id'>{e(c['id'])}</span>", rich(c["reading"]), rich(effect_text(c)), vbadge(c["verdict"])]
            for c in best["claims"]]
    return (f"<h4>Every claim at the setting that confirms the most</h4><p>{rich(best_setting_sentence(name, best))}"
            "</p>" + table(["claim", "tested as", "effect", "verdict"], rows))


def _paper_table(t: ReplicationTable) -> str:
    return (f"<h3>{rich(t.title)}</h3>" + table([e(c) for c in t.columns],
                                                [[e(table_cell(v)) for v in r] for r in t.rows], num=set(t.numeric))
            + f"<p class='small'>{rich(t.caption)}</p>")


def render_html(ctx: ReplicationContext, figs: list[FigureInfo],
                tables: dict[str, list[ReplicationTable]] | None = None) -> str:
    s, p = ctx.summary, ctx.paper
    head = headline(s)
    by_name = {f.name: f for f in figs}
    n = [0]

    def counter() -> int:
        n[0] += 1
        return n[0]

    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">', f"<title>{e(head)}</title>",
             f"<style>{CSS}{EXTRA_CSS}</style></head><body><main>",
             f'<div class="banner replication" id="headline">{e(head)}</div>',
             f"<h1>boundcheck reproduce: <span class='id'>{e(p['id'])}</span></h1>",
             f"<p class='sub'>{e(p['title'])} — {e(p['source'])}"
             + (f"<br>{e(p['reference'])}" if p.get("reference") else "") + "</p>"]
    cards = "".join(f'<div class="card"><h4>{e(v)}</h4><div class="big">{s["counts"].get(v, 0)}</div></div>'
                    for v in VERDICT_ORDER)
    parts.append(f'<div class="cards">{cards}</div>')
    parts.append('<section id="note"><h2>Replication note</h2>' + _note(ctx)
                 + "".join(f"<p class='small mute'>{rich(x)}</p>" for x in p.get("notes", [])) + "</section>")
    for exp in ctx.experiments:
        sec = [f'<section id="exp-{e(exp["name"])}"><h2>{e(exp["title"])} <span class="small mute">'
               f'({e(exp["location"])}; experiment <span class="id">{e(exp["name"])}</span>)</span></h2>',
               f"<p>{rich(exp['description'])}</p>"]
        if exp.get("offline_reason"):
            sec.append(f"<div class='out-note'><b>Not run:</b> {rich(exp['offline_reason'])}</div>")
        elif exp.get("stand_in"):
            sec.append(f"<div class='out-note'><b>Stand-in:</b> {rich(exp['stand_in'])}</div>")
        if exp.get("stand_in_rows"):
            sec.append("<h3>What stands in for the real data</h3>"
                       + table([e(h) for h in STAND_IN_HEAD], [[rich(c) for c in r] for r in stand_in_rows(exp)]))
        sec.append("<h3>Settings</h3>" + _settings_table(exp["settings"]))
        if exp.get("panel_results"):
            sec.append("<h3>Studies run</h3>" + _panels_table(exp))
        mine = [c for c in ctx.claims if c["experiment"] == exp["name"]]
        if mine:
            sec.append("<h3>Claims</h3>" + _claims_table(mine))
        if exp.get("printed_results"):
            sec.append("<h3>The paper's numbers beside ours</h3>"
                       + table([e(h) for h in PRINTED_HEAD], [[e(c) for c in r] for r in printed_rows(exp)],
                               num=set(PRINTED_NUMERIC)))
        for t in (tables or {}).get(exp["name"], []):
            sec.append(_paper_table(t))
        for key in paper_figure_names(exp):
            if key in by_name:
                sec.append(_figure(by_name[key], counter()))
        parts.append("".join(sec) + "</section>")
    if "claims" in by_name:
        parts.append('<section id="effects"><h2>Effects at a glance</h2>' + _figure(by_name["claims"], counter())
                     + "</section>")
    if ctx.explore:
        parts.append('<section id="explore"><h2>Sensitivity to the unstated settings</h2>'
                     + "".join(_explore_section(ctx, name, ex, by_name, counter) for name, ex in ctx.explore.items())
                     + "</section>")
    method = (
        "Each claim is one statistic on the stored runs: a per-run metric (R_T, R_t at a fraction of T, a share of "
        "steps on a prior, ...) of the algorithms it names. Run r of every algorithm saw the same function and "
        "noise, so comparisons are paired.",
        "Two one-sided t-tests per claim: 'the claim is false' (rejected: reproduced) and 'the claim is true' "
        "(rejected: not reproduced). Several conditions that must all hold (lowest regret, equivalence) combine by "
        "intersection-union; one of several that suffices by Bonferroni.",
        f"Budget: {s['budget']}. The probability that any verdict of this run is wrong is at most "
        f"{s['false_alarm']:g} (up to the t approximation).",
        "Intervals are simultaneous (Bonferroni) at the same budget: one excluding the null implies the Holm "
        "decision, but Holm may decide where the interval does not.",
        "Relative margins ('similar', 'reasonably well', 'competitive') and thresholds ('commits', 'roughly "
        "uniform') are boundcheck's readings of the paper's words, stated with each claim.")
    parts.append('<section id="method"><h2>How the verdicts are reached</h2><ul>'
                 + "".join(f"<li>{rich(x)}</li>" for x in method) + "</ul></section>")
    prov = [["boundcheck version", e(s.get("version"))], ["seed", e(s.get("seed"))],
            ["runs", e(s.get("runs") or "each experiment's default")], ["false-alarm budget", e(s.get("false_alarm"))],
            ["time taken", f"{float(s.get('elapsed_s', 0)):.1f} s"],
            ["results", "one results folder per panel (see 'Studies run'); reproduce.json beside this report"]]
    notes = ("<h3>Notes</h3><ul>" + "".join(f"<li>{e(x)}</li>" for x in ctx.notes) + "</ul>") if ctx.notes else ""
    parts.append('<section id="provenance"><h2>Configuration and provenance</h2>' + table(["", ""], prov) + notes
                 + "</section>")
    parts.append("</main></body></html>")
    return "\n".join(parts)
