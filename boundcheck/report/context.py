"""Everything a report shows, read from a completed results directory (never recomputed).

:func:`load` gathers the stored summary, manifest, tables and the theorem's symbolic content into one
:class:`ReportContext`. Loading only: the words the reports say about it are :mod:`boundcheck.report.wording`'s,
the markup the templates'. :func:`parse_rich` turns the plain-text statements of the theory layer
(``S^p_t``, ``μ^{p*}_{t−1}``) into sub/superscript trees that each writer renders in its own markup.
"""

from __future__ import annotations

import functools
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..study.store import ResultStore

__all__ = ["ReportContext", "load", "parse_rich", "render_rich", "write_text"]

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
