"""Everything a report shows, read from a completed results directory (never recomputed).

:func:`load` gathers the stored summary, manifest, tables and the theorem's symbolic content into one
:class:`ReportContext`; the HTML and LaTeX writers and the figures only format what it holds, so both
formats say the same thing. :func:`parse_rich` turns the plain-text statements of the theory layer
(``S^p_t``, ``μ^{p*}_{t−1}``) into sub/superscript trees that each writer renders in its own markup.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import BoundcheckError
from ..store import ResultStore

__all__ = ["ReportContext", "load", "parse_rich", "fmt", "algo_label", "write_text", "ALGO_LABELS", "KIND_HELP",
           "VERDICT_HELP"]

# Readable names of the algorithms (abbreviations are spelled out in the reports' glossary).
ALGO_LABELS = {
    "pe_gp_ucb": "PE-GP-UCB",
    "oracle_tv_gp_ucb": "oracle TV-GP-UCB",
    "mle": "MLE prior selection",
    "fully_bayesian": "fully Bayesian",
    "regret_balancing": "regret balancing",
    "random": "random search",
    "regret_balancing_literal": "regret balancing (literal reading)",
    "gp_ucb": "GP-UCB",
    "igp_ucb": "IGP-UCB",
    "gp_ts": "GP-TS",
    "gp_ei": "GP-EI",
    "gp_pi": "GP-PI",
    "tv_gp_ucb": "TV-GP-UCB",
}
ALGO_HELP = {
    "pe_gp_ucb": "prior elimination GP-UCB (the algorithm of the theorem)",
    "oracle_tv_gp_ucb": "time-varying GP-UCB told the true prior (a lower reference, not a competitor)",
    "mle": "GP-UCB with the prior of maximum marginal likelihood at each step",
    "fully_bayesian": "GP-UCB under the posterior mixture over the candidate priors",
    "regret_balancing": "regret balancing over the candidate priors (Alg. 2 of the paper)",
    "random": "uniformly random queries (an upper reference)",
    "regret_balancing_literal": "regret balancing with the paper's literal line 11 (reading (i))",
    "gp_ucb": "GP upper confidence bound",
    "igp_ucb": "improved GP-UCB",
    "gp_ts": "GP Thompson sampling",
    "gp_ei": "GP expected improvement",
    "gp_pi": "GP probability of improvement",
    "tv_gp_ucb": "time-varying GP-UCB",
}
KIND_HELP = {
    "probability": "the event may fail with probability at most the level; failures/runs with a "
                   "two-sided 95% Clopper-Pearson interval",
    "deterministic": "an implication that must hold in every run where its premise holds; any "
                     "counterexample is a violation",
    "expectation": "a bound on an expectation, checked with a one-sided interval on the mean",
    "calibration": "a distributional identity tested at the given size (KS, mean, variance, lag-1)",
}
VERDICT_HELP = {
    "holds": "the interval lies below the level (or no counterexample)",
    "violated": "the interval lies above the level (or a counterexample exists)",
    "inconclusive": "the interval straddles the level: more runs are needed",
}


def algo_label(name: str) -> str:
    return ALGO_LABELS.get(name, name)


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


# ------------------------------------------------------------------------------------------- context
@dataclass
class ReportContext:
    results_dir: Path
    summary: dict
    manifest: dict
    runs: pd.DataFrame
    steps: pd.DataFrame | None
    gamma: pd.DataFrame | None
    theorem: object | None  # theory.Theorem
    scenario: object | None  # boundcheck.scenarios.Scenario
    notes: list[str] = field(default_factory=list)  # problems met while loading (shown in the report)

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
        """The algorithm the theorem is about (its family's MAIN), on whose runs the claims are checked."""
        algos = self.algorithms
        try:
            from ..families import family

            main = str(family(self.theorem_id).MAIN)
        except Exception:  # noqa: BLE001 - no family: fall back on the first algorithm
            main = ""
        if main in algos:
            return main
        return "pe_gp_ucb" if "pe_gp_ucb" in algos else (algos[0] if algos else "?")

    @property
    def algorithms(self) -> list[str]:
        cfg = self.manifest.get("config", {}).get("algorithms")
        if cfg:
            return [str(a) for a in cfg]
        return [str(a) for a in self.summary.get("regret", {})]

    @property
    def truth_index(self) -> int | None:
        sc = self.scenario
        if sc is None:
            return None
        return getattr(sc, "truth_index", None)

    def claim_meta(self, claim_id: str) -> tuple[str, str]:
        """(statement, source) of a claim from the theorem, empty when unknown."""
        th = self.theorem
        if th is None:
            return "", ""
        for c in th.claims:
            if c.id == claim_id:
                return c.statement, c.source
        return "", ""

    # ----------------------------------------------------------------- the one-line answers
    def headline(self) -> str:
        """The report's first line: theory status first (out of theory runs say so), then the verdict."""
        s = self.summary
        tid, sc = self.theorem_id, self.scenario_name
        v = self.verdict
        setting = f"{s.get('runs')} runs, T = {s.get('horizon')}, δ = {s.get('delta')}"
        if not self.in_theory:
            return (f"OUT OF THEORY: {tid} on {sc}, {'; '.join(self.reasons) or 'assumptions not met'}. "
                    f"Claims verdict: {v}, not a theorem failure (a negative control; {setting}).")
        mains = [c for c in self.claims if c.get("main")]
        if v == "holds":
            what = "the theorem holds: every claim of the proof holds"
        elif v == "violated":
            bad = [c["id"] for c in self.claims if c.get("verdict") == "violated"]
            what = f"the theorem is VIOLATED: {', '.join(bad)} failed"
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
                f"regret of {algo_label(self.main_algorithm)}); worst run {fmt(mx, 3)}")

    def weak_link(self) -> tuple[str | None, str]:
        """(claim id, explanation) of the claim of the proof closest to failing."""
        best, score, why = None, -1.0, ""
        for c in self.claims:
            v, k, n = c.get("verdict"), c.get("violations", 0) or 0, c.get("runs", 0) or 0
            if c.get("kind") == "calibration":
                rej = (c.get("details") or {}).get("rejected") or []
                sc = 10.0 if v == "violated" else (0.5 if rej else 0.0)
                text = (f"calibration tests rejected: {', '.join(rej)}" if rej
                        else "calibration tests passed")
            elif c.get("kind") == "deterministic" or c.get("level") in (None, 0):
                sc = 100.0 + k if k > 0 else 0.0
                text = f"{k}/{n} counterexamples"
            else:
                level = float(c["level"])
                rate = k / n if n else 0.0
                sc = (rate / level) if k > 0 else 0.0
                if v == "violated":
                    sc += 10.0
                text = (f"{k}/{n} failures (rate {fmt(rate, 3)}, 95% CI [{fmt(c.get('ci_low'), 3)}, "
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
        th = self.theorem
        if th is None:
            return []
        report: dict = {}
        if self.scenario is not None:
            try:
                report = dict(self.scenario.assumption_report())
            except Exception as exc:  # a user scenario with a broken report must not break the report
                self.notes.append(f"scenario assumption report failed: {exc}")
        bs = float(self.summary.get("beta_scale", 1.0))
        report.setdefault("theoretical_schedules",
                          (bs == 1.0, "β_t and ξ_t as in the theorem" if bs == 1.0
                           else f"β_t scaled by {bs:g} (--beta-scale)"))
        rows = []
        for a in th.assumptions:
            ok, how = report.get(a.predicate, (None, "not checked by this scenario"))
            rows.append((a.text, ok, how))
        return rows

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
            ("algorithms", ", ".join(self.algorithms)),
            ("chunk size", fmt(cfg.get("chunk_size"))),
            ("chunks stored", str(len(chunks))),
            ("configuration key", str(m.get("config_key", "—"))),
            ("boundcheck version", str(s.get("version", m.get("version", "—")))),
            ("Python / NumPy", f"{m.get('python', '—')} / {m.get('numpy', '—')}"),
            ("backend / jobs", f"{m.get('backend', '—')} / {m.get('jobs', '—')}"),
            ("time taken", f"{float(s.get('elapsed_s', m.get('elapsed_s', 0.0)) or 0.0):.1f} s"),
            ("results", "results/ (beside this report): summary.json, manifest.json, chunks/*.parquet"),
        ]
        return rows


def _read_columns(store: ResultStore, table: str, columns: list[str] | None) -> pd.DataFrame | None:
    """A stored table (only ``columns`` where given, to keep large step tables light); None if absent."""
    files = sorted((store.root / "chunks").glob(f"{table}-*.parquet"))
    if not files:
        return None
    if columns is None:
        return store.read_table(table)
    frames = []
    for f in files:
        import pyarrow.parquet as pq

        have = set(pq.read_schema(f).names)
        frames.append(pd.read_parquet(f, columns=[c for c in columns if c in have]))
    df = pd.concat(frames, ignore_index=True)
    if "algorithm" in df:  # categorical: a large step table stays light
        df["algorithm"] = df["algorithm"].astype("category")
    keys = [k for k in ("run", "algorithm", "t") if k in df]
    return df.sort_values(keys, kind="stable", ignore_index=True) if keys else df


STEP_COLUMNS = ["run", "algorithm", "t", "cum_regret", "prior", "eliminated"]


def load(results_dir: Path) -> ReportContext:
    """Read a completed results directory into a :class:`ReportContext` (reads only)."""
    results_dir = Path(results_dir)
    store = ResultStore(results_dir)
    manifest = store.read_manifest()
    if manifest is None:
        raise BoundcheckError(f"{results_dir} has no manifest.json: not a boundcheck results directory")
    summary = store.read_json("summary")
    notes: list[str] = []
    runs = store.read_table("runs")
    runs["algorithm"] = runs["algorithm"].astype(str)
    steps = _read_columns(store, "steps", STEP_COLUMNS)
    if steps is None:
        notes.append("no per-step table stored: curves over time are not drawn")
    gpath = results_dir / "gamma.parquet"
    gamma = pd.read_parquet(gpath) if gpath.exists() else None
    th = sc = None
    try:
        import theory

        th = theory.get(str(summary["theorem"]))
    except Exception as exc:  # noqa: BLE001 - an unknown theorem still gets a numeric report
        notes.append(f"theorem {summary.get('theorem')!r} not found in the theory layer: {exc}")
    try:
        from ..scenarios import get_scenario

        sc = get_scenario(str(summary["scenario"]))
    except Exception as exc:  # noqa: BLE001 - user scenarios may not be loadable any more
        notes.append(f"scenario {summary.get('scenario')!r} could not be loaded: {exc}")
    return ReportContext(results_dir=results_dir, summary=summary, manifest=manifest, runs=runs, steps=steps,
                         gamma=gamma, theorem=th, scenario=sc, notes=notes)


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
