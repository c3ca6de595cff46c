"""The claim table: one owner per claim.

Each :class:`ClaimSpec` joins a claim of the theory layer (statement, source, kind, the allowed failure
probability or expectation bound) with the statistic that measures it on every run (a method of the family's
chunk evaluator) and the policy records that statistic needs. :func:`judge` turns the stored per-run
statistics into :class:`~boundcheck.claims.stats.ClaimResult` objects: one p-value per stochastic claim, the
error budget deciding them together.

Per-run columns in the ``runs`` table: ``fail_<id>``, ``premise_<id>``, ``value_<id>`` (with ``lo_<id>`` /
``hi_<id>``), ``vacuity_<id>``; calibration and anytime expectation claims read their sample from the ``steps``
table. **The vacuity rule**, one for every family: a bound claim that no algorithm could violate on the sample at
hand (:func:`vacuous_on_every_run` for a claim on each run, :func:`vacuous_on_the_mean` for an expectation claim)
is shown as a sanity identity, outside the budget and the verdict; families add their theorem's trivial bound
through ``vacuous_claims``. The rule by the claim's kind: docs/verdicts.md, "Verdicts that can be trusted".
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import sympy as sp

from theory import Claim, S

from .budget import STOCHASTIC, ErrorBudget, PerClaimBudget
from .stats import (
    NOT_APPLICABLE,
    ClaimResult,
    Evidence,
    anytime_expectation_evidence,
    calibration_evidence,
    deterministic_verdict,
    equality_evidence,
    expectation_evidence,
    finish,
    identity_verdict,
    probability_evidence,
)

__all__ = ["ClaimSpec", "judge", "claim_columns", "level_of", "not_applicable", "NOT_APPLICABLE", "vacuity",
           "vacuous_on_every_run", "vacuous_on_the_mean", "bound_at_horizon", "bound_anytime"]


@dataclass(frozen=True)
class ClaimSpec:
    """One claim: the theory's statement and the statistic that tests it.

    ``statistic(evaluator) -> {"fail": (m,), "premise": (m,)}`` (deterministic / identity), ``{"fail": (m,)}``
    (probability) or ``{"value": (m,)}`` (expectation; optionally ``"lo"``, ``"hi"``: the values' range known in
    advance, which the anytime-valid test of ``verify --until-conclusive`` needs). Calibration claims have no
    per-run statistic: their sample is the steps column ``sample`` (or a tuple of columns, tested together).
    ``needs``: the records of the theorem's algorithm (per-step records, final records or truth-side monitors)
    the statistic reads. ``bound(evaluator)``: for a regret-bound claim, its bound — a number or (m, 1) per-run
    values bounding R_T, or a (T,) / (m, T) curve bounding R_t at every t (anytime) — for the vacuity rule (see
    the module docstring); None for claims that bound no regret."""

    claim: Claim
    statistic: Callable[[object], dict[str, np.ndarray]] | None = None
    needs: frozenset[str] = frozenset()
    sample: str | tuple[str, ...] | None = None
    bound: Callable[[object], np.ndarray | float] | None = None

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def kind(self) -> str:
        return self.claim.kind

    @property
    def samples(self) -> tuple[str, ...]:
        if self.sample is None:
            return ()
        return (self.sample,) if isinstance(self.sample, str) else tuple(self.sample)

    def columns(self, stats: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The runs-table columns of this claim from its statistic's output."""
        return {f"{key}_{self.id}": value for key, value in stats.items()}


def bound_at_horizon(evaluator) -> float:
    """The theorem's explicit bound on R_T (``inst.bound_T``): the ``bound`` of an a-priori regret claim."""
    return float(evaluator.inst.bound_T)


def bound_anytime(evaluator) -> np.ndarray:
    """The theorem's anytime curve Bound_T(t), t = 1..T (``inst.anytime``): the ``bound`` of an anytime claim."""
    return np.asarray(evaluator.inst.anytime, dtype=np.float64)


def vacuity(bound, f_range: np.ndarray) -> np.ndarray:
    """min_t Bound(t) / Σ_{s≤t} range_s per run: (m,).

    ``bound``: a number or (m, 1) per-run values (a bound on R_T: only t = T), or a (T,) / (m, T) curve
    (anytime); ``f_range``: (m, T) max − min of f_t over X_t. ≥ 1: no algorithm could violate the bound on that
    run (a step where nothing can be lost yet counts as +inf)."""
    f_range = np.asarray(f_range, dtype=np.float64)
    m, T = f_range.shape
    trivial = np.cumsum(f_range, axis=1)
    b = np.asarray(bound, dtype=np.float64)
    if b.ndim == 0 or (b.ndim == 2 and b.shape[1] == 1):  # a bound on R_T: only t = T
        b, trivial = np.broadcast_to(b.reshape(-1, 1), (m, 1)), trivial[:, -1:]
    elif b.ndim == 1:  # one curve for every run
        b = b[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(trivial > 0, b / np.where(trivial > 0, trivial, 1.0), np.where(b >= 0, np.inf, -np.inf))
    return ratio.min(axis=1)


def claim_columns(specs: Sequence[ClaimSpec], evaluator, skip: Collection[str] = ()) -> dict[str, np.ndarray]:
    """Evaluate every claim's statistic on one chunk: the runs-table columns, in table order (claims in ``skip``,
    not applicable to the policy, are left out), and the vacuity of every bound claim (where the engine recorded
    the truth's range)."""
    out: dict[str, np.ndarray] = {}
    f_range = getattr(getattr(evaluator, "traj", None), "f_range", None)
    for spec in specs:
        if spec.id in skip:
            continue
        if spec.statistic is not None:
            out.update(spec.columns(spec.statistic(evaluator)))
        if spec.bound is not None and f_range is not None:
            out[f"vacuity_{spec.id}"] = vacuity(spec.bound(evaluator), f_range)
    return out


def vacuous_on_every_run(specs: Sequence[ClaimSpec], main_runs: pd.DataFrame) -> dict[str, str]:
    """Claim id -> why, for every bound claim whose bound is at least the largest regret any algorithm could
    incur on every run (``vacuity_<id>`` ≥ 1 on all runs; see the module docstring)."""
    out = {}
    for spec in specs:
        col = f"vacuity_{spec.id}"
        if col not in main_runs or not len(main_runs):
            continue
        v = main_runs[col].to_numpy(dtype=np.float64)
        if np.all(v >= 1.0):
            out[spec.id] = (f"vacuous on every run ({len(v)}/{len(v)}): the bound is at least "
                            f"{float(v.min()):.3g}× the largest regret any algorithm could incur there "
                            "(Σ_t max − min of f_t over X_t), so no algorithm can violate it")
    return out


def _looks(n: int, sequential: bool, chunk: int) -> list[int]:
    """The numbers of runs (first k, in run order) at which :func:`~boundcheck.claims.stats.expectation_evidence`
    compares a sample mean with the bound: all n (fixed-N t test), or every look after 1, 2, 4, … chunks of
    ``chunk`` runs (``--until-conclusive`` without a declared range), and all n besides."""
    if not sequential or chunk <= 0:
        return [n]
    return sorted({n, *(k for k in (chunk * 2**j for j in range(64)) if k <= n)})


def vacuous_on_the_mean(specs: Sequence[ClaimSpec], main_runs: pd.DataFrame,
                        sample: Callable[[str], np.ndarray] | None = None, *, sequential: bool = False,
                        chunk: int = 25) -> dict[str, str]:
    """Claim id -> why, for every expectation claim (E[X_t] ≤ b, X = R − Bound) that cannot fail on this sample
    although some run's vacuity is below 1: the mean over runs of the largest regret any algorithm could incur
    is at most the bound (at every t, over the runs the test reads at t).

    Soundness. On run r, R_{r,t} ≤ Σ_{s≤t} range_{r,s} ≤ Bound(t) / vacuity_r for every t (vacuity_r is the
    minimum over t of Bound(t) / Σ range), so mean_r R_{r,t} ≤ Bound(t) · mean_r (1 / vacuity_r): when that mean
    is ≤ 1, the *sample mean* of X_t is ≤ 0 at every t, deterministically (exact for a bound on R_T alone,
    conservative for a curve). No confidence bound on the mean is needed, and none would be right: what is
    decided is whether the test can reject on the sample at hand, and the t tests (fixed N, the anytime one over
    t, the looks of ``--until-conclusive``) reject only where a sample mean exceeds the bound, which here none
    can (every look's prefix of runs is held to the rule). A wider rule (a confidence bound on E[Σ range]) would
    leave claims that cannot fail counted as "holds"; a narrower one (per run) is the rule of probability claims,
    for which one run below 1 is a run where the claim can fail. Not applied where the test can reject with a
    mean below the bound: the betting e-process of ``--until-conclusive`` with a declared range (there only the
    per-run rule of :func:`vacuous_on_every_run` applies). The bound of an expectation claim is one number or one
    curve for every run (:func:`bound_at_horizon`, :func:`bound_anytime`)."""
    out: dict[str, str] = {}
    for spec in specs:
        col, cid = f"vacuity_{spec.id}", spec.id
        if spec.kind != "expectation" or col not in main_runs or not len(main_runs):
            continue
        v = main_runs[col].to_numpy(dtype=np.float64)
        if not np.all(v > 0.0):  # a bound ≤ 0 where regret is possible (or not recorded): the claim can fail
            continue
        share = 1.0 / v  # per run: the largest regret any algorithm could incur, as a fraction of the bound
        if spec.samples:  # the anytime claim: a mean at every t over the runs with a value at t
            if sample is None:
                continue
            x = np.asarray(sample(spec.samples[0]), dtype=np.float64)
            x = x if x.ndim == 2 else x[:, None]
            if x.shape[0] != v.size:
                continue
            has = np.isfinite(x)
            with np.errstate(invalid="ignore", divide="ignore"):
                means = (share @ has) / has.sum(axis=0)
            worst = float(np.nanmax(means)) if has.any() else np.inf
        else:
            if sequential and _range(main_runs, cid) is not None:
                continue  # the betting e-process can reject with a sample mean below the bound
            val = main_runs.get(f"value_{cid}")
            keep = np.ones(v.size, bool) if val is None else np.isfinite(val.to_numpy(dtype=np.float64))
            s = share[keep]
            worst = max((float(s[:k].mean()) for k in _looks(s.size, sequential, chunk) if k), default=np.inf)
        if worst <= 1.0:
            ratio = f"{1.0 / worst:.3g}× " if worst > 0 else ""
            out[cid] = (f"vacuous on the mean over runs ({len(v)} runs): the bound is at least {ratio}the mean over "
                        "runs of the largest regret any algorithm could incur (Σ_t max − min of f_t over X_t; "
                        f"below it on {int((v < 1.0).sum())}/{len(v)} runs, down to {float(v.min()):.3g}×), so the "
                        "sample mean of the regret cannot exceed it")
    return out


def _identity_fail(spec: ClaimSpec, main_runs: pd.DataFrame, sample: Callable[[str], np.ndarray],
                   delta: float) -> np.ndarray:
    """A vacuous claim's per-run counterexamples, checked as a sanity identity: its ``fail`` column, else its
    value above its expectation bound (per run), else its sample above the bound at some t."""
    c = spec.claim
    if f"fail_{c.id}" in main_runs:
        return main_runs[f"fail_{c.id}"].to_numpy(dtype=bool)
    level = level_of(c.expectation_bound, delta) or 0.0
    if f"value_{c.id}" in main_runs:
        return main_runs[f"value_{c.id}"].to_numpy(dtype=np.float64) > level
    if spec.samples:
        return (np.asarray(sample(spec.samples[0]), dtype=np.float64) > level).any(axis=1)
    return np.zeros(len(main_runs), dtype=bool)


def _mean_identity_fail(spec: ClaimSpec, main_runs: pd.DataFrame, sample: Callable[[str], np.ndarray],
                        delta: float) -> np.ndarray:
    """A claim vacuous on the mean (:func:`vacuous_on_the_mean`), checked as an identity of the sample mean: every
    run is part of the counterexample when the mean of its value (or of its sample, at some t) exceeds the
    expectation bound — which no correct regret can make happen; single runs above the bound are no
    counterexample of an expectation claim."""
    level = level_of(spec.claim.expectation_bound, delta) or 0.0
    m = len(main_runs)
    if spec.samples:
        x = np.asarray(sample(spec.samples[0]), dtype=np.float64)
        x = x if x.ndim == 2 else x[:, None]
        has = np.isfinite(x)
        n_t = has.sum(axis=0)
        sums = np.where(has, x, 0.0).sum(axis=0)
        above = bool(np.any(sums[n_t > 0] / n_t[n_t > 0] > level))
    else:
        x = main_runs[f"value_{spec.id}"].to_numpy(dtype=np.float64)
        above = bool(np.isfinite(x).any() and x[np.isfinite(x)].mean() > level)
    return np.full(m, above)


def not_applicable(specs: Sequence[ClaimSpec], recorded: Collection[str]) -> dict[str, str]:
    """Claim id -> why it does not apply to a policy that records only ``recorded`` (its declared per-step and
    final records and the truth-side monitors it gets)."""
    have = frozenset(recorded)
    return {s.id: "needs " + ", ".join(sorted(s.needs - have)) for s in specs if s.needs - have}


def level_of(expr, delta: float) -> float | None:
    """A claim's α or expectation bound (a sympy expression in δ) as a number."""
    if expr is None:
        return None
    return float(sp.sympify(expr).subs(S.delta, delta))


def _range(main_runs: pd.DataFrame, cid: str) -> tuple[float, float] | None:
    lo, hi = f"lo_{cid}", f"hi_{cid}"
    if lo in main_runs and hi in main_runs:
        return float(np.nanmin(main_runs[lo].to_numpy())), float(np.nanmax(main_runs[hi].to_numpy()))
    return None


def judge(specs: Sequence[ClaimSpec], main_runs: pd.DataFrame, sample: Callable[[str], np.ndarray],
          budget: ErrorBudget, delta: float, *, sequential: bool = False, chunk: int = 25,
          vacuous: Mapping[str, str] | None = None, skip: Mapping[str, str] | None = None) -> list[ClaimResult]:
    """Verdicts of every claim from the runs of the theorem's algorithm (``main_runs``, sorted by run) and
    ``sample(column)`` ((runs × T) array from the steps table, for calibration claims).

    Every stochastic claim gives one p-value; the budget decides them together (Holm for the default
    :class:`~boundcheck.claims.budget.HolmBudget`) and gives each its share, at which its interval is reported.
    Deterministic implications and sanity identities are decided on their own, outside the budget.
    ``sequential``: anytime-valid p-values and confidence sequences (``verify --until-conclusive``; the
    calibration looks are after 1, 2, 4, … chunks of ``chunk`` runs). ``vacuous``: claims (id -> why) this
    instance makes true by construction (a regret bound above r_max·t): checked as sanity identities on their
    premise column, outside the budget and the verdict. ``skip``: claim id -> reason, for claims that do not
    apply to the checked policy (it does not record what they read): their verdict is "not applicable" with the
    reason; they take no share of the budget (Holm runs over the remaining claims only) and
    :func:`~boundcheck.claims.stats.theorem_verdict` ignores them. Bound claims that cannot fail on these runs
    (the vacuity rule of the module docstring: on every run, or on the mean for expectation claims) join
    ``vacuous``."""
    skip = dict(skip or {})
    per_run = vacuous_on_every_run(specs, main_runs)
    # expectation claims vacuous only on the mean (not per run, nor by the family's r_max·t): identities of the
    # sample mean, since single runs may exceed their bound
    rest = [s for s in specs if s.id not in per_run and s.id not in (vacuous or {}) and s.id not in skip]
    on_mean = vacuous_on_the_mean(rest, main_runs, sample, sequential=sequential, chunk=chunk)
    vacuous = {**{k: v for k, v in {**per_run, **on_mean}.items() if k not in skip}, **dict(vacuous or {})}
    stochastic = [s for s in specs if s.kind in STOCHASTIC and s.id not in vacuous and s.id not in skip]
    tune = budget.tuning_share(len(stochastic))
    results: dict[str, ClaimResult] = {}
    evidence: list[tuple[ClaimSpec, Evidence]] = []
    for spec in specs:
        c = spec.claim
        if c.id in skip:
            level = (level_of(c.alpha if c.kind == "probability" else c.expectation_bound, delta)
                     if c.kind in ("probability", "expectation") else None)
            results[c.id] = ClaimResult(c.id, c.kind, level, 0, 0, None, None, None, NOT_APPLICABLE,
                                        statement=c.statement, source=c.source, main=c.main,
                                        details={"reason": skip[c.id]})
            continue
        if c.id in vacuous:
            fail = (_mean_identity_fail if c.id in on_mean else _identity_fail)(spec, main_runs, sample, delta)
            prem_col = f"premise_{c.id}"
            premise = main_runs[prem_col].to_numpy(dtype=bool) if prem_col in main_runs else np.ones(fail.size, bool)
            res = identity_verdict(c.id, fail & premise, premise, statement=c.statement, source=c.source,
                                   main=c.main, details={"vacuous": vacuous[c.id], "claimed_kind": c.kind,
                                                         "failures_off_premise": int((fail & ~premise).sum())})
            results[c.id] = res
            continue
        if c.kind == "probability":
            evidence.append((spec, probability_evidence(c.id, main_runs[f"fail_{c.id}"].to_numpy(),
                                                        level_of(c.alpha, delta), sequential=sequential)))
        elif c.kind == "expectation" and spec.samples:  # E[X_t] ≤ b at every t ≤ T (a steps column)
            evidence.append((spec, anytime_expectation_evidence(c.id, sample(spec.samples[0]),
                                                                level_of(c.expectation_bound, delta))))
        elif c.kind == "equality":
            evidence.append((spec, equality_evidence(c.id, main_runs[f"value_{c.id}"].to_numpy())))
        elif c.kind == "expectation":
            evidence.append((spec, expectation_evidence(c.id, main_runs[f"value_{c.id}"].to_numpy(),
                                                        level_of(c.expectation_bound, delta), sequential=sequential,
                                                        value_range=_range(main_runs, c.id), tune=tune,
                                                        chunk=chunk)))
        elif c.kind == "calibration":
            evidence.append((spec, calibration_evidence(c.id, [sample(col) for col in spec.samples],
                                                        sequential=sequential, chunk=chunk)))
        elif c.kind in ("deterministic", "identity"):
            fn = deterministic_verdict if c.kind == "deterministic" else identity_verdict
            res = fn(c.id, main_runs[f"fail_{c.id}"].to_numpy(), main_runs[f"premise_{c.id}"].to_numpy(),
                     statement=c.statement, source=c.source, main=c.main)
            pos = res.details.get("first_counterexample_run")
            if pos is not None and f"first_{c.id}" in main_runs:  # the step, where the statistic reports it
                res.details["first_counterexample_step"] = int(main_runs[f"first_{c.id}"].iloc[pos])
            if f"gap_{c.id}" in main_runs:  # the largest gap over the runs (conformance: is it round-off?)
                res.details["max_gap"] = float(np.nanmax(main_runs[f"gap_{c.id}"].to_numpy(dtype=float)))
            results[c.id] = res
        else:
            raise ValueError(f"claim {c.id}: no test for kind {c.kind!r}")
    if evidence:
        pvals = [ev.p_value for _, ev in evidence]
        if isinstance(budget, PerClaimBudget):
            alloc = budget.allocate(pvals, [ev.kind for _, ev in evidence])
        else:
            alloc = budget.allocate(pvals)
        for (spec, ev), share, adj, rej in zip(evidence, alloc.shares, alloc.adjusted, alloc.rejected, strict=True):
            c = spec.claim
            results[c.id] = finish(ev, float(share), bool(rej), float(adj), statement=c.statement, source=c.source,
                                   main=c.main)
    return [results[s.id] for s in specs]
