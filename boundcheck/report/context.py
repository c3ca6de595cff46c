"""Everything a report shows, read from a completed results directory (never recomputed).

:func:`load` gathers the stored summary, manifest, tables and the theorem's symbolic content into one
:class:`ReportContext`; the HTML and LaTeX writers and the figures only format what it holds, so both
formats say the same thing. :func:`parse_rich` turns the plain-text statements of the theory layer
(``S^p_t``, ``μ^{p*}_{t−1}``) into sub/superscript trees that each writer renders in its own markup.
"""

from __future__ import annotations

import functools
import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..study.store import ResultStore

__all__ = ["ReportContext", "load", "parse_rich", "render_rich", "fmt", "write_text", "KIND_HELP", "VERDICT_HELP",
           "ci_label", "OUTSIDE", "sensitivity_table", "describe_detectable",
           "incompleteness_text", "bite_text"]

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


# ------------------------------------------------------------------------------------------- rich text
_SUBSUP = re.compile(r"[_^]")
_TOKEN = re.compile(r"[^\W_]+[*']*|\*|'")


def parse_rich(text: str) -> list:
    """Split ``text`` into str pieces and ``("sub"|"sup", [children])`` nodes.

    ``X_t``, ``S^p_t``, ``μ^{p*}_{t−1}`` (braces nest) become sub/superscripts; an underscore or caret
    not followed by a word character or a brace stays literal.
    """
    out: list = []
    buf: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "_^" and i + 1 < n:
            kind = "sub" if ch == "_" else "sup"
            if text[i + 1] == "{":
                depth, j = 0, i + 1
                while j < n:
                    if text[j] == "{":
                        depth += 1
                    elif text[j] == "}":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                if j < n:
                    if buf:
                        out.append("".join(buf))
                        buf = []
                    out.append((kind, parse_rich(text[i + 2:j])))
                    i = j + 1
                    continue
            else:
                m = _TOKEN.match(text, i + 1)
                before = re.search(r"[^\W_]*$", text[:i]).group(0)
                # identifiers (pe_gp_ucb, mu_max, D1_preservation) keep their underscores
                ident = ch == "_" and m is not None and (len(m.group(0)) >= 3 or
                                                         (len(before) >= 2 and len(m.group(0)) >= 2))
                if m and i > 0 and not text[i - 1].isspace() and not ident:
                    if buf:
                        out.append("".join(buf))
                        buf = []
                    out.append((kind, [m.group(0)]))
                    i = m.end()
                    continue
        buf.append(ch)
        i += 1
    if buf:
        out.append("".join(buf))
    return out


def render_rich(text, plain, script) -> str:
    """``str(text)`` in one output format: ``plain(piece)`` for each text piece of :func:`parse_rich`,
    ``script(kind, inner)`` for each script (kind ``"sub"`` or ``"sup"``, ``inner`` already rendered)."""
    def render(nodes) -> str:
        return "".join(plain(n) if isinstance(n, str) else script(n[0], render(n[1])) for n in nodes)

    return render(parse_rich(str(text)))


# ------------------------------------------------------------------------------------------- context
@dataclass
class ReportContext:
    results_dir: Path
    summary: dict
    manifest: dict
    runs: pd.DataFrame
    steps: StepStats | None  # per-step aggregates, computed chunk by chunk (never the runs × T table)
    gamma: pd.DataFrame | None
    theorem: object | None  # theory.Theorem (formulas, corrections: the theory layer is read, never run)
    notes: list[str] = field(default_factory=list)  # problems met while loading (shown in the report)

    # ----------------------------------------------------------------- stored facts about the world
    @property
    def scenario_info(self) -> dict:
        """What the manifest says about the scenario (description, candidates, truth index)."""
        return dict(self.manifest.get("scenario_info") or {})

    @property
    def algorithm_info(self) -> dict[str, dict]:
        return {a["name"]: a for a in self.manifest.get("algorithm_info") or []}

    def label(self, name: str) -> str:
        """The readable name of an algorithm, as stored with the results."""
        return str(self.algorithm_info.get(name, {}).get("label") or name)

    def help(self, name: str) -> str:
        return str(self.algorithm_info.get(name, {}).get("description") or name)

    def role(self, name: str) -> str:
        return str(self.algorithm_info.get(name, {}).get("role") or "baseline")

    # ----------------------------------------------------------------- basic facts
    @property
    def theorem_id(self) -> str:
        return str(self.summary.get("theorem", "?"))

    @property
    def scenario_name(self) -> str:
        return str(self.summary.get("scenario", "?"))

    @property
    def in_theory(self) -> bool:
        return bool(self.summary.get("in_theory", True))

    @property
    def reasons(self) -> list[str]:
        return [str(r) for r in self.summary.get("out_of_theory_reasons", [])]

    @property
    def verdict(self) -> str:
        return str(self.summary.get("verdict", "inconclusive"))

    @property
    def claims(self) -> list[dict]:
        return list(self.summary.get("claims", []))

    @property
    def main_algorithm(self) -> str:
        """The algorithm whose runs the claims are checked on (stored with the results)."""
        algos = self.algorithms
        main = str(self.summary.get("main_algorithm") or self.manifest.get("main_algorithm") or "")
        return main if main in algos else (algos[0] if algos else "?")

    @property
    def algorithms(self) -> list[str]:
        cfg = self.manifest.get("config", {}).get("algorithms")
        if cfg:
            return [str(a) for a in cfg]
        return [str(a) for a in self.summary.get("regret", {})]

    @property
    def truth_index(self) -> int | None:
        return self.scenario_info.get("truth_index")

    def claim_meta(self, claim_id: str) -> tuple[str, str]:
        """(statement, source) of a claim from the theorem, empty when unknown."""
        th = self.theorem
        if th is None:
            return "", ""
        for c in th.claims:
            if c.id == claim_id:
                return c.statement, c.source
        return "", ""

    @functools.cached_property
    def literal(self) -> dict | None:
        """The paper's printed constants against the restored ones at the values used
        (:func:`boundcheck.report.literal.literal_comparison`), computed once for both reports; None when the
        theorem has no paper-literal sibling."""
        from .literal import literal_comparison

        return literal_comparison(self.theorem, (self.summary.get("bound") or {}).get("values", {}))

    # ----------------------------------------------------------------- the one-line answers
    def headline(self) -> str:
        """The report's first line: theory status first (out of theory runs say so), then the verdict."""
        s = self.summary
        tid, sc = self.theorem_id, self.scenario_name
        v = self.verdict
        setting = f"{s.get('runs')} runs, T = {s.get('horizon')}, δ = {s.get('delta')}"
        if s.get("false_alarm"):
            setting += f", false-alarm budget {s['false_alarm']:g}"
        if not self.in_theory:
            return (f"{OUTSIDE}: {tid} on {sc}, {'; '.join(self.reasons) or 'assumptions not met'}. "
                    f"Claims verdict: {v}, not a theorem failure (a negative control; {setting}).")
        mains = [c for c in self.claims if c.get("main") and c.get("kind") != "identity"]
        if not mains and any(c.get("main") for c in self.claims):
            setting += "; the explicit bound is vacuous here (no algorithm can exceed it)"
            bite = next((bite_text(c) for c in self.claims if c.get("main") and bite_text(c)), "")
            if bite:  # where the theorem's bound would be tested
                setting += f": it {bite}" if bite.startswith(("bites from T", "does not")) else f" ({bite})"
        if v == "holds":
            what = "the theorem holds: every claim of the proof holds"
        elif v == "violated":
            bad = [c["id"] for c in self.claims if c.get("verdict") == "violated"]
            what = f"the theorem is VIOLATED: {', '.join(bad)} failed"
        elif v == "incomplete":  # every judged claim holds, but not every claim was judged: no pass
            na = list((self.summary.get("incomplete") or {}).get("claims") or {})
            what = (f"INCOMPLETE: every judged claim holds, but {len(na)} claim{'s' if len(na) != 1 else ''} "
                    "could not be judged on the checked code")
        else:
            und = [c["id"] for c in self.claims if c.get("verdict") == "inconclusive"]
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

    def tightness_text(self) -> str:
        t = self.summary.get("tightness") or {}
        med, mx = t.get("median"), t.get("max")
        if med is None or not np.isfinite(med) or med <= 0:
            return "tightness unavailable"
        return (f"median R_T / Bound(T) = {fmt(med, 3)} (the bound is {fmt(1 / med, 3)}× the median "
                f"regret of {self.label(self.main_algorithm)}); worst run {fmt(mx, 3)}")

    def weak_link(self) -> tuple[str | None, str]:
        """(claim id, explanation) of the claim of the proof closest to failing."""
        best, score, why = None, -1.0, ""
        for c in self.claims:
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

    def undecided(self) -> list[tuple[str, int | None]]:
        """Inconclusive claims and the number of runs that would settle them."""
        return [(c["id"], (c.get("details") or {}).get("runs_needed")) for c in self.claims
                if c.get("verdict") == "inconclusive"]

    def regret_table(self) -> pd.DataFrame:
        """Per-algorithm regret statistics, plus the paired difference to the main algorithm."""
        reg = self.summary.get("regret", {})
        rows = []
        main = self.main_algorithm
        paired = None
        if "regret" in self.runs and "algorithm" in self.runs and "run" in self.runs:
            paired = self.runs.pivot_table(index="run", columns="algorithm", values="regret", observed=True)
        for a in self.algorithms:
            if a not in reg:
                continue
            s = reg[a]
            row = {"algorithm": a, "mean": s.get("mean"), "median": s.get("median"), "max": s.get("max"),
                   "q": s.get("quantile_1_minus_delta"), "diff": None, "diff_se": None}
            if paired is not None and a in paired and main in paired and a != main:
                d = (paired[a] - paired[main]).dropna()
                if len(d) > 1:
                    row["diff"], row["diff_se"] = float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))
            rows.append(row)
        return pd.DataFrame(rows)

    def assumption_rows(self) -> list[tuple[str, bool | None, str]]:
        """(assumption text, satisfied?, how the scenario meets it) for each of the theorem's assumptions."""
        return [(a.get("text", ""), a.get("ok"), a.get("how", "")) for a in self.manifest.get("assumptions") or []]

    def provenance(self) -> list[tuple[str, str]]:
        s, m = self.summary, self.manifest
        cfg = m.get("config", {})
        chunks = m.get("chunks", {})
        rows = [
            ("theorem", self.theorem_id),
            ("scenario", self.scenario_name),
            ("runs", fmt(s.get("runs"))),
            ("horizon T", fmt(s.get("horizon"))),
            ("δ (confidence parameter)", fmt(s.get("delta"))),
            ("seed", fmt(s.get("seed"))),
            ("β scale", fmt(s.get("beta_scale"))),
            ("false-alarm budget", str(s.get("error_budget", "—"))),
            ("sequential (anytime-valid)", "yes (--until-conclusive)" if s.get("sequential") else "no"),
            ("algorithms", ", ".join(self.algorithms)),
            ("chunk size", fmt(cfg.get("chunk_size"))),
            ("chunks stored", str(len(chunks))),
            ("configuration key", str(m.get("config_key", "—"))),
            ("boundcheck version", str(s.get("version", m.get("version", "—")))),
            ("Python / NumPy", f"{m.get('python', '—')} / {m.get('numpy', '—')}"),
            ("backend / workers", f"{m.get('backend', '—')} / {_workers_text(m)}"),
            ("time taken", f"{float(s.get('elapsed_s', m.get('elapsed_s', 0.0)) or 0.0):.1f} s"),
            ("results", "results/ (beside this report): summary.json, manifest.json, chunks/*.parquet"),
        ]
        return rows


def _workers_text(manifest: dict) -> str:
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


def _power_table(ctx: ReportContext) -> tuple[dict | None, str]:
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


def sensitivity_table(ctx: ReportContext) -> tuple[list[dict], str]:
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


def _read_columns(store: ResultStore, table: str, columns: list[str] | None) -> pd.DataFrame | None:
    """A stored table (only ``columns`` where given, to keep large step tables light), verified; None if absent."""
    if not store.has_table(table):
        return None
    return store.read_table(table, columns)


STEP_COLUMNS = ["run", "algorithm", "t", "cum_regret", "prior", "eliminated"]


@dataclass
class StepStats:
    """What the figures need from the per-step table, accumulated one stored chunk at a time.

    * ``regret``: per (algorithm, t) the mean and the 5 % / 95 % quantiles of R_t over runs (exact: the
      R_t matrix of one algorithm is runs × T floats, not the table's runs × T × columns rows);
    * ``prior_counts`` (algorithm → counts of each chosen prior), ``truth_by_t`` (algorithm → fraction of runs
      using the true prior at each t) for the algorithms that record a prior;
    * ``eliminations``: the (run, algorithm, t, prior) rows where a prior was eliminated."""

    algorithms: list[str]
    horizon: int
    regret: pd.DataFrame | None
    prior_counts: dict[str, np.ndarray]
    truth_by_t: dict[str, pd.Series]
    eliminations: pd.DataFrame | None


def _step_stats(store: ResultStore, runs: int, horizon: int, truth: int | None) -> StepStats | None:
    cols = ["run", "algorithm", "t", "cum_regret", "prior", "eliminated"]
    R: dict[str, np.ndarray] = {}
    counts: dict[str, np.ndarray] = {}
    truth_hits: dict[str, np.ndarray] = {}
    truth_n: dict[str, np.ndarray] = {}
    elim: list[pd.DataFrame] = []
    has_elim = False
    seen = False
    order: list[str] = []
    if not store.has_table("steps"):
        return None
    for df in store.iter_table("steps", cols):
        df = df[df["run"].to_numpy() < runs]  # the folder may hold a larger study's runs
        seen = True
        alg = df["algorithm"]
        if not isinstance(alg.dtype, pd.CategoricalDtype):
            alg = alg.astype("category")
        codes = alg.cat.codes.to_numpy()
        for code, a in enumerate(alg.cat.categories.astype(str)):
            mask = codes == code
            if not mask.any():
                continue
            if a not in order:
                order.append(a)
            sub = df[mask]
            r, t = sub["run"].to_numpy(np.int64), sub["t"].to_numpy(np.int64)
            if "cum_regret" in sub:
                if a not in R:
                    R[a] = np.full((runs, horizon), np.nan)
                R[a][r, t - 1] = sub["cum_regret"].to_numpy(float)
            if "prior" in sub:
                p = sub["prior"].to_numpy(float)
                ok = ~np.isnan(p)
                if ok.any():
                    pi = p[ok].astype(np.int64)
                    c = np.bincount(pi)
                    old = counts.get(a, np.zeros(0, np.int64))
                    size = max(c.size, old.size)
                    counts[a] = np.pad(old, (0, size - old.size)) + np.pad(c, (0, size - c.size))
                    if truth is not None:
                        truth_hits.setdefault(a, np.zeros(horizon))
                        truth_n.setdefault(a, np.zeros(horizon))
                        np.add.at(truth_hits[a], t[ok] - 1, (pi == truth).astype(float))
                        np.add.at(truth_n[a], t[ok] - 1, 1.0)
        if "eliminated" in df:
            has_elim = True
            e = df[df["eliminated"].to_numpy() == True]  # noqa: E712 - object column of True/False/None
            if len(e):
                elim.append(e[[c for c in ("run", "algorithm", "t", "prior") if c in e]].copy())
    if not seen:
        return None
    regret = None
    if R:
        frames = []
        for a in order:
            if a in R:
                Ra = R[a]
                full = not np.isnan(Ra).any()  # the vectorised quantile unless some run is missing
                q = (np.quantile if full else np.nanquantile)(Ra, [0.05, 0.95], axis=0)
                frames.append(pd.DataFrame({"algorithm": a, "t": np.arange(1, horizon + 1),
                                            "mean": (np.mean if full else np.nanmean)(Ra, axis=0),
                                            "lo": q[0], "hi": q[1]}))
        regret = pd.concat(frames, ignore_index=True)
    truth_by_t = {a: pd.Series(truth_hits[a] / np.maximum(truth_n[a], 1), index=np.arange(1, horizon + 1))[
        truth_n[a] > 0] for a in truth_hits}
    elims = None
    if has_elim:
        elims = (pd.concat(elim, ignore_index=True) if elim
                 else pd.DataFrame(columns=["run", "algorithm", "t", "prior"]))
        elims["algorithm"] = elims["algorithm"].astype(str)
    return StepStats(order, horizon, regret, counts, truth_by_t, elims)


def load(results_dir: Path) -> ReportContext:
    """Read a completed results directory into a :class:`ReportContext` (reads only)."""
    results_dir = Path(results_dir)
    store = ResultStore(results_dir)
    manifest = store.require_manifest()
    summary = store.read_json("summary")
    notes: list[str] = []
    runs = store.read_table("runs")
    runs = runs[runs["run"] < int(summary.get("runs", len(runs)))]  # the folder may hold a larger study's runs
    runs["algorithm"] = runs["algorithm"].astype(str)
    truth = (manifest.get("scenario_info") or {}).get("truth_index")
    steps = _step_stats(store, int(summary.get("runs") or runs["run"].max() + 1),
                        int(summary.get("horizon") or 1), truth)
    if steps is None:
        notes.append("no per-step table stored: curves over time are not drawn")
    gamma = store.read_result_table("gamma")
    th = None
    try:
        import theory

        th = theory.get(str(summary["theorem"]))
    except Exception as exc:  # noqa: BLE001 - an unknown theorem still gets a numeric report
        notes.append(f"theorem {summary.get('theorem')!r} not found in the theory layer: {exc}")
    return ReportContext(results_dir=results_dir, summary=summary, manifest=manifest, runs=runs, steps=steps,
                         gamma=gamma, theorem=th, notes=notes)


def write_text(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """Atomic write of a report file, readable by everyone (reports are meant to be shared)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode(encoding))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
