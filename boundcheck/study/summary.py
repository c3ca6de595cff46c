"""The study's summary, from the stored chunks only: claim verdicts (through the claim table and the error
budget), regret statistics, paired comparisons, the γ curves; written as ``summary.json``, ``claims.parquet``
and ``gamma.parquet`` (the JSON of ``verify --json``, documented in docs/cli.md).

Only the study's runs (run < ``spec.runs``) are read: a results folder may hold more runs from an earlier,
larger study with the same key. Each claim also gets its *smallest detectable effect* at this number of runs
(``details["detectable"]``): the effect its test flags with probability 0.9 even at the smallest share the
budget can give it (A/m)."""

from __future__ import annotations

from collections.abc import Callable, Collection

import numpy as np
import pandas as pd

from .. import __version__
from ..claims.budget import STOCHASTIC, ErrorBudget, HolmBudget
from ..claims.families import TheoremInstance
from ..claims.horizon import attach as attach_bites
from ..claims.stats import NOT_APPLICABLE, POWER_TARGET, ClaimResult, smallest_detectable, theorem_verdict
from ..claims.table import judge
from .spec import StudySpec
from .store import ResultStore

__all__ = ["summarize", "paired_regret", "settled", "read_study_tables", "incompleteness", "INCOMPLETE",
           "uncaught_defects"]

#: the verdict of a study whose every judged claim holds but some claim of the theorem was not judged on the
#: checked code (it does not record what the claim reads): "holds" means every claim was judged
INCOMPLETE = "incomplete"

# probability claims whose failure is "a ratio exceeds 1": the runs-table column holding the ratio
_RATIO_COLUMNS = {"regret_bound": "tightness", "regret_bound_anytime": "max_anytime_ratio"}


def _finite_or_none(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def read_study_tables(store: ResultStore, spec: StudySpec,
                      algorithm: str | None = None) -> tuple[pd.DataFrame, Callable[[str], np.ndarray]]:
    """The study's runs table (run < spec.runs) and a ``sample(column)`` reader of the (runs × T) steps columns
    of a checked algorithm (default the first; the steps table is read one column at a time, and only if a
    calibration claim asks)."""
    runs = store.read_table("runs")
    runs = runs[runs["run"] < spec.runs].reset_index(drop=True)
    return runs, _sampler(store, spec, algorithm or spec.main)


def _sampler(store: ResultStore, spec: StudySpec, algorithm: str) -> Callable[[str], np.ndarray]:
    def sample(column: str) -> np.ndarray:
        """(runs × T) of one steps column of ``algorithm``, read chunk by chunk (only that column, nothing
        cached): memory stays O(runs × T) floats of this column, never the whole steps table."""
        parts = []
        for df in store.iter_table("steps", ["run", "algorithm", "t", column]):
            s = df[(df["algorithm"] == algorithm) & (df["run"] < spec.runs)]
            if len(s):
                parts.append(s.pivot(index="run", columns="t", values=column))
        return pd.concat(parts).sort_index().to_numpy()

    return sample


def _detectable(results: list[ClaimResult], main: pd.DataFrame, budget: ErrorBudget) -> None:
    """Attach each claim's smallest detectable effect at this number of runs (see the module docstring)."""
    m = sum(r.kind in STOCHASTIC and r.verdict != NOT_APPLICABLE for r in results)
    floor = budget.tuning_share(m)
    for r in results:
        if r.verdict == NOT_APPLICABLE:
            continue
        det = smallest_detectable(r, floor)
        if det is None:
            continue
        col = _RATIO_COLUMNS.get(r.id)
        rate = det.get("failure_rate")
        if col is not None and col in main and rate is not None:
            ratio = main[col].to_numpy(dtype=float)
            ratio = ratio[np.isfinite(ratio)]
            if ratio.size:  # a bound κ× its value fails in ≥ `rate` of runs when κ ≤ this quantile
                det["bound_factor"] = float(np.quantile(ratio, 1.0 - rate))
        r.details["detectable"] = det


def power_table(theorem_id: str) -> dict | None:
    """The theorem's shipped power table (its paper's ``power_dir``), None where the paper ships none."""
    import json

    from theory import plugins

    paper = plugins.paper_of_theorem(theorem_id)
    if paper is None or paper.power_dir is None:
        return None
    try:
        return json.loads((paper.power_dir / f"{theorem_id}.json").read_text())
    except (OSError, ValueError):
        return None


def uncaught_defects(theorem_id: str, judged: set[str]) -> list[str] | None:
    """The planted defects of the theorem's shipped power table that no claim in ``judged`` catches (a claim
    catches a defect when it flags it with probability ≥ the power target there); None where the paper ships no
    table for the theorem."""
    table = power_table(theorem_id)
    if table is None:
        return None
    caught = {d for cid, c in (table.get("claims") or {}).items() if cid in judged for d in c.get("catches") or ()}
    return sorted(d for d in (table.get("defects") or {}) if d != "none" and d not in caught)


def covered_by_conformance(theorem_id: str, judged: set[str], missing: Collection[str]) -> dict[str, str]:
    """The claims in ``missing`` (not judged on the checked code) whose every planted defect the judged
    conformance claim catches, by the theorem's shipped power table (measured with shadows): claim id -> which
    defects. A claim that catches no defect there, or a table without the conformance claim, covers nothing."""
    from ..claims.conformance import CONFORMANCE

    table = power_table(theorem_id) if CONFORMANCE in judged else None
    claims = (table or {}).get("claims") or {}
    conf = set((claims.get(CONFORMANCE) or {}).get("catches") or ())
    out = {}
    for cid in missing:
        need = set((claims.get(cid) or {}).get("catches") or ())
        if need and need <= conf:
            out[cid] = ("covered by the conformance claim's law test of the choices, which catches every planted "
                        f"defect this claim catches ({', '.join(sorted(need))}; power table)")
    return out


def incompleteness(theorem_id: str, results: list[ClaimResult], not_applicable: dict[str, str]) -> dict | None:
    """Why a verdict is incomplete: the claims of the verdict not judged on the checked code (id -> reason) and
    the planted defects (of the shipped power table) that no remaining claim catches; None when every claim was
    judged, or covered: a claim not judged whose every planted defect the judged conformance claim catches
    (:func:`covered_by_conformance`; GP-TS's claims on the code's own draws, which no shadow can supply). A
    conformance claim turned off on purpose (``--no-conformance``) does not count: that verdict is already out of
    theory."""
    from ..claims.conformance import OFF_REASON

    identities = {r.id for r in results if r.kind == "identity"}  # outside the verdict: they cannot fail
    missing = {cid: why for cid, why in not_applicable.items() if why != OFF_REASON and cid not in identities}
    if not missing:
        return None
    judged = {r.id for r in results if r.kind != "identity" and r.verdict != NOT_APPLICABLE}
    covered = covered_by_conformance(theorem_id, judged, missing)
    missing = {cid: why for cid, why in missing.items() if cid not in covered}
    if not missing:
        return None
    return {"claims": missing, "uncaught_defects": uncaught_defects(theorem_id, judged)}


def coverage(theorem_id: str, results: list[ClaimResult], not_applicable: dict[str, str],
             on_shadow: Collection[str]) -> dict[str, str]:
    """How each claim that the checked code's own records could not settle was settled instead: judged on the
    shadow's records (``on_shadow``), or covered by the conformance claim (claim id -> the note shown beside it)."""
    from ..claims.conformance import ON_SHADOW

    judged = {r.id for r in results if r.kind != "identity" and r.verdict != NOT_APPLICABLE}
    out = {cid: ON_SHADOW for cid in on_shadow if cid in judged}
    return out | covered_by_conformance(theorem_id, judged, not_applicable)


def _complete(verdict: str, gap: dict | None) -> str:
    """A "holds" whose claims were not all judged is "incomplete" (violated and inconclusive stay)."""
    return INCOMPLETE if verdict == "holds" and gap is not None else verdict


def settled(summary: dict) -> bool:
    """Every probability and expectation claim is decided (holds or violated)."""
    tables = [v["claims"] for v in summary["checked"].values()] if summary.get("checked") else [summary["claims"]]
    return all(c["verdict"] != "inconclusive" for claims in tables for c in claims
               if c["kind"] in ("probability", "expectation"))


def continuum_summary(spec: StudySpec, inst: TheoremInstance, main: pd.DataFrame) -> dict:
    """A box study's truth and its stated errors (every report shows them): how f is represented and the certified
    kernel error, the largest certified tolerance of the regret's maximum (summed over the steps of a run), and the
    checked algorithm's optimiser: steps where a fresh Sobol point beat its choice (a proven miss), the largest such
    gap, against the bound's slack at T."""
    sc = spec.scenario

    def col(name: str) -> np.ndarray:
        return main[name].to_numpy(dtype=float) if name in main else np.zeros(len(main))

    misses, gaps = col("optimiser_misses"), col("optimiser_max_gap")
    slack = float(inst.bound_T) - float(np.max(col("regret"))) if len(main) else float("nan")
    return {"box": {"dim": int(sc.box.dim), "low": float(sc.box.low), "high": float(sc.box.high)},
            "truth": sc.describe_truth(),
            "kernel_error": None if sc.rkhs else float(sc.kernel_error),
            "max_tolerance": float(np.max(col("max_tolerance"))) if len(main) else 0.0,
            "optimiser": {"steps_missed": int(misses.sum()), "run_steps": int(len(main) * spec.horizon),
                          "max_gap": float(np.max(gaps)) if len(gaps) else 0.0, "bound_slack": slack}}


def summarize(store: ResultStore, spec: StudySpec, inst: TheoremInstance, *, in_theory: bool, reasons: list[str],
              budget: ErrorBudget | None = None, sequential: bool = False) -> dict:
    """Claims table, regret statistics and the JSON summary, from the stored chunks only.

    With several checked implementations (``spec.checked``), the budget is split evenly between them (each is
    judged by Holm at A/k), so that the verify as a whole keeps its false-alarm probability ≤ A; the verdict is
    the worst of theirs."""
    budget = budget or HolmBudget()
    fam = spec.family
    runs = store.read_table("runs")
    runs = runs[runs["run"] < spec.runs].reset_index(drop=True)
    vacuous = fam.vacuous_claims(spec.scenario, inst)
    inapplicable = fam.inapplicable_claims(spec.scenario, inst)  # premises this instance misses: outside the verdict
    checked = spec.checked_algorithms
    each = budget.divided(len(checked))

    def judged(name: str) -> tuple[pd.DataFrame, list[ClaimResult]]:
        """The runs of a checked algorithm and its claim verdicts."""
        rows = runs[runs["algorithm"] == name].sort_values("run")
        res = judge(fam.claims, rows, _sampler(store, spec, name), each, spec.delta, sequential=sequential,
                    chunk=spec.chunk_size, vacuous=vacuous,
                    skip={**inapplicable, **(spec.not_applicable.get(name) or {})})
        _detectable(res, rows, each)
        attach_bites(res, fam, spec.scenario, inst, rows, each, beta_scale=spec.beta_scale)  # where vacuous bounds bite
        return rows, res

    main, results = judged(spec.main)
    gaps = {spec.main: incompleteness(spec.theorem.id, results, spec.not_applicable.get(spec.main) or {})}
    verdict = _complete(theorem_verdict(results), gaps[spec.main])
    others = {name: judged(name)[1] for name in checked[1:]}
    rank = {"holds": 0, INCOMPLETE: 1, "inconclusive": 2, "violated": 3}  # the worst of several implementations
    for name, res in others.items():
        gaps[name] = incompleteness(spec.theorem.id, res, spec.not_applicable.get(name) or {})
        v = _complete(theorem_verdict(res), gaps[name])
        if rank.get(v, 2) > rank.get(verdict, 2):
            verdict = v
    settled_otherwise = {name: coverage(spec.theorem.id, res, spec.not_applicable.get(name) or {},
                                        spec.on_shadow.get(name) or {})
                         for name, res in ((spec.main, results), *others.items())}
    claims_df = pd.DataFrame([r.to_json() | {"in_theory": in_theory, "algorithm": name}
                              for name, res in ((spec.main, results), *others.items()) for r in res])
    if "details" in claims_df:  # a family without claims (reproduce --explore cells) stores an empty table
        claims_df["details"] = claims_df["details"].map(str)
    store.write_table("claims", claims_df)
    q = 1.0 - spec.delta
    regret = {
        a: {"mean": float(g.mean()), "median": float(g.median()), "max": float(g.max()),
            "quantile_1_minus_delta": float(g.quantile(q))}
        for a, g in runs.groupby("algorithm", sort=False, observed=True)["regret"]
    }
    store.write_table("gamma", pd.DataFrame({
        "t": np.arange(1, spec.horizon + 1), "gamma_upper": inst.gamma_upper, "gamma_lower": inst.gamma_lower,
        "bound_anytime": inst.anytime,
        "gamma_used": inst.gamma_upper if inst.gamma_used is None else inst.gamma_used}))
    manifest = store.read_manifest() or {}
    summary = {
        "theorem": spec.theorem.id, "scenario": spec.scenario.name, "main_algorithm": spec.main, "verdict": verdict,
        "in_theory": in_theory,
        "out_of_theory_reasons": list(reasons),
        "runs": int(main["run"].nunique()), "horizon": spec.horizon, "delta": spec.delta, "seed": spec.seed,
        "beta_scale": spec.beta_scale,
        "error_budget": budget.describe() + (f"; split evenly between the {len(checked)} checked implementations"
                                             if len(checked) > 1 else ""),
        "false_alarm": float(budget.total), "sequential": bool(sequential),
        "power_target": POWER_TARGET,
        "claims": [r.to_json() for r in results],
        "bound": {"at_horizon": inst.bound_T, "terms": inst.bound_terms, "gamma_upper": float(inst.gamma_upper[-1]),
                  "gamma_lower": float(inst.gamma_lower[-1]), "gamma_methods": inst.gamma_methods,
                  "values": inst.values, "B": _finite_or_none(inst.B), "C": _finite_or_none(inst.C),
                  "gamma_used": None if inst.gamma_used is None else float(inst.gamma_used[-1]),
                  # every schedule of the instance at t = T (a compact theorem's β_T split into its confidence and
                  # discretisation parts among them)
                  "schedules_at_T": {k: float(np.asarray(v)[-1]) for k, v in inst.schedules.items()
                                     if np.ndim(v) == 1 and len(v) == spec.horizon + 1
                                     and np.isfinite(np.asarray(v, dtype=float)[-1])}},
        # the width the theorem's algorithm ran with (its theorem's schedule, × --beta-scale): a theorem of your own
        # runs its own (docs/extending.md), and this says which ran
        "width": {"at_1": float(inst.beta[1]), "at_horizon": float(inst.beta[-1])},
        "tightness": {"median": float(main["tightness"].median()), "max": float(main["tightness"].max())},
        "regret": regret,
        "paired_regret": paired_regret(runs, spec.main, q=0.05),
        "not_applicable": dict(spec.not_applicable.get(spec.main, {})),
        "settled_otherwise": settled_otherwise[spec.main],
        "incomplete": gaps[spec.main],
        "elapsed_s": float(manifest.get("elapsed_s", 0.0)),  # this run's wall time (not summed over resumes)
        "compute_s_total": float(manifest.get("compute_s_total", manifest.get("elapsed_s", 0.0))),
        "version": __version__,
        "report": {"html": None, "tex": None},
    }
    if getattr(spec.scenario, "box", None) is not None:  # a compact box: what the truth is, its errors, the optimiser
        summary["continuum"] = continuum_summary(spec, inst, main)
    if others:
        summary["checked"] = {
            name: {"verdict": _complete(theorem_verdict(res), gaps[name]), "claims": [r.to_json() for r in res],
                   "not_applicable": dict(spec.not_applicable.get(name, {})),
                   "settled_otherwise": settled_otherwise[name], "incomplete": gaps[name]}
            for name, res in ((spec.main, results), *others.items())}
    store.write_json("summary", summary)
    return summary


def paired_regret(runs: pd.DataFrame, main: str, q: float = 0.05) -> dict:
    """Paired comparison on common random numbers: R_T(algorithm) − R_T(main) run by run, its mean with a
    two-sided Student-t interval at 1 − q, and the fraction of runs where the theorem's algorithm did better."""
    from ..utils.laws import stats  # scipy.stats's values without its import

    wide = runs.pivot(index="run", columns="algorithm", values="regret")
    out = {}
    if main not in wide:
        return out
    for alg in wide.columns:
        if alg == main:
            continue
        d = (wide[alg] - wide[main]).dropna().to_numpy()
        n = d.size
        if n == 0:
            continue
        half = float(stats.t.ppf(1 - q / 2, n - 1) * d.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
        out[str(alg)] = {"mean_diff": float(d.mean()), "ci_low": float(d.mean() - half),
                         "ci_high": float(d.mean() + half), "frac_main_better": float((d > 0).mean()), "runs": n}
    return out
