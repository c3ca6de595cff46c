"""Error budgets: how large an error each stochastic claim's test may make.

A budget maps the stochastic claims of a verify (probability, expectation, calibration) to test sizes.
Deterministic implications and sanity identities are outside every budget: one counterexample beyond
floating-point tolerance is a violation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["ErrorBudget", "PerClaimBudget", "STOCHASTIC", "holm_adjusted", "holm_reject"]

STOCHASTIC = ("probability", "expectation", "calibration", "equality")


class ErrorBudget:
    """Base class: ``sizes(kinds)`` gives the test size of each claim (None outside the budget)."""

    def sizes(self, kinds: Sequence[str]) -> list[float | None]:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True)
class PerClaimBudget(ErrorBudget):
    """Every interval claim at its own size ``interval`` (two-sided 1 − interval intervals), calibration at
    ``calibration``; no family-wise control."""

    interval: float = 0.05
    calibration: float = 0.01

    def sizes(self, kinds: Sequence[str]) -> list[float | None]:
        out: list[float | None] = []
        for k in kinds:
            if k in ("calibration", "equality"):  # hypothesis tests: violated when rejected
                out.append(self.calibration)
            elif k in ("probability", "expectation", "deterministic"):
                out.append(self.interval)  # deterministic: the descriptive interval on the counterexample rate
            else:
                out.append(None)
        return out

    def describe(self) -> str:
        return (f"each claim at its own size: intervals at {1 - self.interval:.0%}, calibration at "
                f"{self.calibration:g} (no family-wise control)")


def holm_adjusted(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values: claim i is rejected at family-wise level A iff adjusted[i] ≤ A.

    Sorted p_(1) ≤ … ≤ p_(m): adjusted_(j) = max_{i ≤ j} min(1, (m − i + 1) p_(i)). Controls the family-wise
    error rate at A under any dependence between the tests (Holm 1979)."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def holm_reject(pvalues: Sequence[float], total: float) -> np.ndarray:
    """Which null hypotheses Holm's procedure rejects at family-wise level ``total``."""
    return holm_adjusted(pvalues) <= total
