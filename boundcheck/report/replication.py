"""The report of ``boundcheck reproduce``: one HTML file and a standalone LaTeX document per paper.

It reads ``reproduce.json`` (the verdicts, the experiments' settings, the paper's printed numbers beside ours, the
explored grid) and the panels' stored tables (for the curves, histograms and the paper's own tables), and nothing
else: no simulation, and no verdict is recomputed. Both
formats open with the same line and carry the **replication note**: what reproduced, what did not, which
settings were guessed, which experiments cannot be run offline and what stands in for them, and where in the
grid of unstated settings a claim that did not reproduce does appear.

This module holds the context and the text both formats share; :mod:`boundcheck.report.replication_reports`
writes the reports (it imports the formats, which import this module).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..claims.empirical import resolution_text
from ..study.store import ResultStore
from ..utils.io import read_json
from .context import _read_columns, fmt

__all__ = ["ReplicationContext", "load_replication", "replication_note",
           "effect_text", "headline", "explore_sentence", "best_setting_sentence", "PRINTED_HEAD", "PRINTED_NUMERIC",
           "printed_rows", "table_cell", "resolution_text", "quick_text", "STAND_IN_HEAD",
           "stand_in_rows"]

VERDICT_ORDER = ("reproduced", "not reproduced", "inconclusive", "not run")
_STEPS = ["run", "algorithm", "t", "cum_regret", "prior"]


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


# ---------------------------------------------------------------------------------------------- context
@dataclass
class ReplicationContext:
    out_dir: Path
    summary: dict
    notes: list[str] = field(default_factory=list)
    _steps: dict = field(default_factory=dict)
    _manifests: dict = field(default_factory=dict)

    @property
    def paper(self) -> dict:
        return self.summary["paper"]

    @property
    def experiments(self) -> list[dict]:
        return list(self.summary.get("experiments", []))

    @property
    def claims(self) -> list[dict]:
        return list(self.summary.get("claims", []))

    @property
    def explore(self) -> dict:
        return {k: v for k, v in (self.summary.get("explore") or {}).items() if "claims" in v}

    def claim(self, claim_id: str) -> dict | None:
        return next((c for c in self.claims if c["id"] == claim_id), None)

    def _panel(self, exp: str, panel: str) -> dict | None:
        for e in self.experiments:
            if e["name"] == exp:
                return next((p for p in e.get("panel_results", []) if p["name"] == panel), None)
        return None

    def steps(self, exp: str, panel: str) -> pd.DataFrame | None:
        key = (exp, panel)
        if key not in self._steps:
            p = self._panel(exp, panel)
            df = None
            if p is not None:
                try:
                    df = _read_columns(ResultStore(self.out_dir / p["results"]), "steps", _STEPS)
                except Exception as exc:  # noqa: BLE001 - a missing panel still gets a report
                    self.notes.append(f"steps of {exp}/{panel} could not be read: {exc}")
            self._steps[key] = df
        return self._steps[key]

    def _algorithm_info(self, exp: str, panel: str) -> dict:
        key = (exp, panel)
        if key not in self._manifests:
            p = self._panel(exp, panel)
            info = {}
            if p is not None:
                m = ResultStore(self.out_dir / p["results"]).read_manifest() or {}
                info = {a["name"]: a for a in m.get("algorithm_info") or []}
            self._manifests[key] = info
        return self._manifests[key]

    def label(self, exp: str, panel: str, algorithm: str) -> str:
        return str(self._algorithm_info(exp, panel).get(algorithm, {}).get("label") or algorithm)

    def role(self, exp: str, panel: str, algorithm: str) -> str:
        return str(self._algorithm_info(exp, panel).get(algorithm, {}).get("role") or "baseline")


def load_replication(out_dir: Path) -> ReplicationContext:
    out_dir = Path(out_dir)
    path = out_dir / "reproduce.json"
    if not path.exists():
        from ..errors import BoundcheckError

        raise BoundcheckError(f"{out_dir} has no reproduce.json: not a `boundcheck reproduce` output folder")
    return ReplicationContext(out_dir=out_dir, summary=read_json(path, "reproduce summary"))
