"""The power of a verification: which claims catch which planted defect, and with what probability.

For each defect of the library (:mod:`boundcheck.claims.defects`) that applies to the theorem, and for the
correct algorithm as a baseline (its rejections are false alarms), a study of ``pool × N`` runs of the checked
algorithm alone is simulated and stored (resumable). The probability that a verify of N runs calls a claim
violated is estimated by judging B random subsets of N of those runs, drawn without replacement: each subset
is an i.i.d. sample of N runs, so the fraction of subsets in which the claim is violated is an unbiased
estimate of its detection probability at N runs (the subsets overlap, so the estimate's own error is set by
the pool, not by B). Every claim is judged exactly as in ``verify`` (one false-alarm budget, Holm).

A claim *catches* a defect when its detection probability is at least 0.9 (the power target); each claim's
smallest detectable effect at N runs comes from the baseline study's summary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..claims.budget import ErrorBudget, HolmBudget
from ..claims.defects import Defect
from ..claims.families import TheoremInstance
from ..claims.stats import POWER_TARGET
from ..claims.table import judge
from ..policies import PolicySpec
from ..world.assumptions import Conditions
from .runner import RunOptions, run_study
from .spec import StudySpec
from .store import ResultStore
from .summary import read_study_tables

__all__ = ["apply_defects", "defect_instance", "run_power", "BASELINE"]

BASELINE = "none"


def apply_defects(spec: StudySpec, defects: Sequence[Defect]) -> StudySpec:
    """The study with every defect applied: the checked algorithm wrapped, the scenario transformed."""
    policies, sc = list(spec.policies), spec.scenario
    for d in defects:
        if d.policy is not None:
            policies[0] = d.policy(policies[0])
        if d.scenario is not None:
            sc = d.scenario(sc)
    return replace(spec, scenario=sc, policies=tuple(policies))


def defect_instance(inst: TheoremInstance, defects: Sequence[Defect]) -> TheoremInstance:
    for d in defects:
        if d.instance is not None:
            inst = d.instance(inst)
    return inst


def _detection(store: ResultStore, spec: StudySpec, n: int, budget: ErrorBudget, subsets: int,
               rng: np.random.Generator, vacuous: dict[str, str],
               skip: dict[str, str] | None = None) -> dict[str, float]:
    """Per claim, the fraction of ``subsets`` random n-run subsets of the stored runs in which it is violated."""
    runs, sample = read_study_tables(store, spec)
    main = runs[runs["algorithm"] == spec.main].sort_values("run").reset_index(drop=True)
    pool = len(main)
    # a claim shown as an identity here reads no sample (conformance without a shadow records no conform_z)
    cols = {col: sample(col) for s in spec.family.claims if s.id not in vacuous for col in s.samples}
    hits = {s.id: 0 for s in spec.family.claims}
    draws = subsets if pool > n else 1
    for _ in range(draws):
        idx = np.sort(rng.choice(pool, size=n, replace=False)) if pool > n else np.arange(pool)
        sub = main.iloc[idx].reset_index(drop=True)
        res = judge(spec.family.claims, sub, lambda c, idx=idx: cols[c][idx], budget, spec.delta,
                    chunk=spec.chunk_size, vacuous=vacuous, skip=skip)
        for r in res:
            hits[r.id] += r.verdict == "violated"
    return {k: v / draws for k, v in hits.items()}


def run_power(base: StudySpec, inst: TheoremInstance, defects: Sequence[Defect], out: Path, options: RunOptions, *,
              budget: ErrorBudget | None = None, pool: int = 2, subsets: int = 200, seed: int = 0,
              on_study: Callable[[str, int, int], None] | None = None, shadow: PolicySpec | None = None) -> dict:
    """Run the theorem's claims against each defect (and the correct algorithm); returns the power table.

    ``base``: the study of N runs of the correct algorithm (only its first policy is run); ``inst``: its
    theorem instance; results go to ``out/<defect>/results`` (resumable). ``shadow``: the theorem's algorithm
    as a conformance shadow, run beside the checked algorithm of every study (the correct one too, whose
    conformance rejections are false alarms), so that the table credits the conformance claim with the defects
    it catches; None where the algorithm cannot run as one (the claim is then an identity here)."""
    budget = budget or HolmBudget()
    n = base.runs
    fam = base.family
    main_only = replace(base, policies=base.policies[:1], runs=n * pool)
    verdict_ids = [c.id for c in fam.claims if c.kind != "identity"]  # vacuous ones report probability 0
    table: dict[str, dict] = {}
    entries: list[tuple[str, str, list[Defect]]] = [(BASELINE, "the correct algorithm (rejections are false alarms)",
                                                     [])]
    entries += [(d.name, d.description, [d]) for d in defects]
    for i, (name, description, ds) in enumerate(entries):
        if on_study:
            on_study(name, i, len(entries))
        spec = apply_defects(main_only, ds)
        d_inst = defect_instance(inst, ds)  # defects never change the models the algorithm is given
        if shadow is not None:
            spec = replace(spec, shadowed=(spec.main,))
            d_inst = replace(d_inst, shadows={spec.main: shadow})
        cond = Conditions(beta_scale=spec.beta_scale, defects=tuple(d.name for d in ds))
        reasons = fam.out_of_theory_reasons(spec.scenario, spec.beta_scale, cond)
        results = Path(out) / name / "results"
        run_study(spec, d_inst, results, options, in_theory=not reasons, reasons=reasons, budget=budget)
        store = ResultStore(results)
        at_n = replace(spec, runs=n)  # the verify this power is about: its first N runs
        vacuous = fam.vacuous_claims(spec.scenario, d_inst)
        skip = fam.inapplicable_claims(spec.scenario, d_inst)  # as verify: outside the verdict
        prob = _detection(store, spec, n, budget, subsets, np.random.default_rng([seed, i]), vacuous, skip)
        first = _first_n(store, at_n, budget, vacuous, skip)
        table[name] = {"description": description, "probability": {c: prob[c] for c in verdict_ids},
                       "verdict_at_n": {c["id"]: c["verdict"] for c in first["claims"]},
                       "caught_by": sorted(c for c in verdict_ids if prob[c] >= POWER_TARGET)}
        if name == BASELINE:
            detectable = {c["id"]: c["details"].get("detectable") for c in first["claims"]}
            shares = {c["id"]: c.get("budget_share") for c in first["claims"]}
            # and the bound claims the claim table's vacuity rule judged identities on these runs
            base_vacuous = {**vacuous, **{c["id"]: c["details"]["vacuous"] for c in first["claims"]
                                          if c["kind"] == "identity" and "vacuous" in (c["details"] or {})}}
    claims = {}
    for c in fam.claims:
        if c.kind == "identity" or c.id in base_vacuous:
            continue
        catches = [d for d in table if d != BASELINE and table[d]["probability"][c.id] >= POWER_TARGET]
        claims[c.id] = {"kind": c.kind, "catches": catches, "detectable": detectable.get(c.id),
                        "false_alarm": table[BASELINE]["probability"][c.id], "share_at_n": shares.get(c.id)}
    return {
        "theorem": fam.theorem.id, "scenario": base.scenario.name, "runs": n, "horizon": base.horizon,
        "delta": base.delta, "seed": base.seed, "pool": n * pool, "subsets": subsets,
        "false_alarm": float(budget.total), "power_target": POWER_TARGET,
        "identities": [c.id for c in fam.claims if c.kind == "identity"],
        "vacuous": base_vacuous,
        "defects": table, "claims": claims,
        "method": (f"detection probability at N = {n} runs: the fraction of {subsets} random N-run subsets of "
                   f"{n * pool} simulated runs in which the claim is violated (one false-alarm budget "
                   f"{budget.total:g}, Holm); a claim catches a defect at probability ≥ {POWER_TARGET:g}"),
    }


def _first_n(store: ResultStore, spec: StudySpec, budget: ErrorBudget, vacuous: dict[str, str],
             skip: dict[str, str] | None = None) -> dict:
    """The summary of the first N runs (what ``verify --runs N`` on this defect reports), without writing."""
    from .summary import _detectable  # noqa: PLC0415 - shared helper, kept private to the summary

    runs, sample = read_study_tables(store, spec)
    main = runs[runs["algorithm"] == spec.main].sort_values("run")
    res = judge(spec.family.claims, main, sample, budget, spec.delta, chunk=spec.chunk_size, vacuous=vacuous,
                skip=skip)
    _detectable(res, main, budget)
    return {"claims": [r.to_json() for r in res]}
