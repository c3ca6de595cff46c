"""The claim table: one owner per claim.

Each :class:`ClaimSpec` joins a claim of the theory layer (statement, source, kind, the allowed failure
probability or expectation bound) with the statistic that measures it on every run (a method of the family's
chunk evaluator) and the policy records that statistic needs. :func:`judge` turns the stored per-run
statistics into :class:`~boundcheck.claims.stats.ClaimResult` objects, with each test's size taken from the
error budget and recorded in the result.

Per-run columns in the ``runs`` table: ``fail_<id>`` (probability / deterministic), ``premise_<id>``
(deterministic: the runs where the premise held) and ``value_<id>`` (expectation, equality). Calibration claims
and anytime expectation claims (an expectation claim with a ``sample``) read their sample, one row per run,
from a column of the ``steps`` table.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import sympy as sp

from theory import Claim, S

from .budget import ErrorBudget
from .stats import (
    NOT_APPLICABLE,
    ClaimResult,
    anytime_expectation_verdict,
    calibration_verdict,
    deterministic_verdict,
    equality_verdict,
    expectation_verdict,
    probability_verdict,
)

__all__ = ["ClaimSpec", "judge", "claim_columns", "level_of", "not_applicable", "NOT_APPLICABLE"]


@dataclass(frozen=True)
class ClaimSpec:
    """One claim: the theory's statement and the statistic that tests it.

    ``statistic(evaluator) -> {"fail": (m,), "premise": (m,)}`` (deterministic), ``{"fail": (m,)}``
    (probability) or ``{"value": (m,)}`` (expectation). Calibration claims have no per-run statistic: their
    sample is the steps column ``sample``. ``needs``: the records of the theorem's algorithm (per-step records,
    final records or truth-side monitors) the statistic reads."""

    claim: Claim
    statistic: Callable[[object], dict[str, np.ndarray]] | None = None
    needs: frozenset[str] = frozenset()
    sample: str | None = None

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def kind(self) -> str:
        return self.claim.kind

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


def judge(specs: Sequence[ClaimSpec], main_runs: pd.DataFrame, sample: Callable[[str], np.ndarray],
          budget: ErrorBudget, delta: float, skip: Mapping[str, str] | None = None) -> list[ClaimResult]:
    """Verdicts of every claim from the runs of the theorem's algorithm (``main_runs``, sorted by run) and
    ``sample(column)`` ((runs × T) array from the steps table, for calibration claims).

    ``skip``: claim id -> reason, for claims that do not apply to the checked policy (it does not record what
    they read): their verdict is "not applicable" with the reason, they take no share of the error budget and
    :func:`~boundcheck.claims.stats.theorem_verdict` ignores them."""
    skip = dict(skip or {})
    live = [s for s in specs if s.id not in skip]
    size_of = dict(zip([s.id for s in live], budget.sizes([s.kind for s in live]), strict=True))
    results = []
    for spec in specs:
        c = spec.claim
        meta = {"statement": c.statement, "source": c.source, "main": c.main}
        if c.id in skip:
            level = level_of(c.alpha if c.kind == "probability" else c.expectation_bound, delta) \
                if c.kind in ("probability", "expectation") else None
            results.append(ClaimResult(c.id, c.kind, level, 0, 0, None, None, None, NOT_APPLICABLE,
                                       details={"reason": skip[c.id]}, **meta))
            continue
        a = size_of[c.id]
        if c.kind == "probability":
            results.append(probability_verdict(c.id, c.kind, main_runs[f"fail_{c.id}"].to_numpy(),
                                               level_of(c.alpha, delta), a, **meta))
        elif c.kind == "deterministic":
            results.append(deterministic_verdict(c.id, main_runs[f"fail_{c.id}"].to_numpy(),
                                                 main_runs[f"premise_{c.id}"].to_numpy(), a, **meta))
        elif c.kind == "expectation" and spec.sample is not None:  # E[X_t] ≤ b at every t (steps column)
            results.append(anytime_expectation_verdict(c.id, sample(spec.sample), level_of(c.expectation_bound, delta),
                                                       a, **meta))
        elif c.kind == "equality":
            results.append(equality_verdict(c.id, main_runs[f"value_{c.id}"].to_numpy(), a, **meta))
        elif c.kind == "expectation":
            results.append(expectation_verdict(c.id, main_runs[f"value_{c.id}"].to_numpy(),
                                               level_of(c.expectation_bound, delta), a, **meta))
        elif c.kind == "calibration":
            results.append(calibration_verdict(c.id, sample(spec.sample), a, **meta))
        else:
            raise ValueError(f"claim {c.id}: no test for kind {c.kind!r}")
    return results
