"""The claim table: one owner per claim.

Each :class:`ClaimSpec` joins a claim of the theory layer (statement, source, kind, the allowed failure
probability or expectation bound) with the statistic that measures it on every run (a method of the family's
chunk evaluator) and the policy records that statistic needs. :func:`judge` turns the stored per-run
statistics into :class:`~boundcheck.claims.stats.ClaimResult` objects: one p-value per stochastic claim, the
error budget deciding them together and giving each its share, recorded in the result with its interval.

Per-run columns in the ``runs`` table: ``fail_<id>`` (probability / deterministic / identity),
``premise_<id>`` (deterministic: the runs where the premise held), ``value_<id>`` (expectation, equality; with
``lo_<id>``/``hi_<id>``, its range known in advance). Calibration claims and anytime expectation claims (an
expectation claim with a ``sample``: E[X_t] ≤ b at every t) read their sample, one row per run, from one or more
columns of the ``steps`` table.
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

__all__ = ["ClaimSpec", "judge", "claim_columns", "level_of", "not_applicable", "NOT_APPLICABLE"]


@dataclass(frozen=True)
class ClaimSpec:
    """One claim: the theory's statement and the statistic that tests it.

    ``statistic(evaluator) -> {"fail": (m,), "premise": (m,)}`` (deterministic / identity), ``{"fail": (m,)}``
    (probability) or ``{"value": (m,)}`` (expectation; optionally ``"lo"``, ``"hi"``: the values' range known in
    advance, which the anytime-valid test of ``verify --until-conclusive`` needs). Calibration claims have no
    per-run statistic: their sample is the steps column ``sample`` (or a tuple of columns, tested together).
    ``needs``: the records of the theorem's algorithm (per-step records, final records or truth-side monitors)
    the statistic reads."""

    claim: Claim
    statistic: Callable[[object], dict[str, np.ndarray]] | None = None
    needs: frozenset[str] = frozenset()
    sample: str | tuple[str, ...] | None = None

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


def claim_columns(specs: Sequence[ClaimSpec], evaluator, skip: Collection[str] = ()) -> dict[str, np.ndarray]:
    """Evaluate every claim's statistic on one chunk: the runs-table columns, in table order (claims in ``skip``,
    not applicable to the policy, are left out)."""
    out: dict[str, np.ndarray] = {}
    for spec in specs:
        if spec.statistic is not None and spec.id not in skip:
            out.update(spec.columns(spec.statistic(evaluator)))
    return out


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
    :func:`~boundcheck.claims.stats.theorem_verdict` ignores them."""
    vacuous = dict(vacuous or {})
    skip = dict(skip or {})
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
            fail = main_runs[f"fail_{c.id}"].to_numpy(dtype=bool)
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
