"""Error budgets: how the false-alarm budget of a verify is split across its stochastic claims.

A verify's stochastic claims (probability, expectation, calibration) each give one p-value for "the claim is
true"; a budget turns them into decisions. :class:`HolmBudget` (the default, ``--false-alarm A``) controls the
family-wise error: the probability that a verify of a correct theorem on correct code calls *any* claim
violated is at most A, under any dependence between the claims (Holm 1979). Deterministic implications and
sanity identities are outside every budget: one counterexample beyond floating-point tolerance is a violation.

Each claim gets a **share** a_i: the level its own p-value is compared with, so that "violated" ⟺ p_i ≤ a_i
⟺ Holm rejects it. For Holm, a_i = A · p_i / p̃_i with p̃_i the Holm-adjusted p-value: A/(m − j + 1) for the
claim ranked j-th when the adjusted values do not tie back to an earlier claim (always ≥ A/m, the Bonferroni
share, and ≤ A). Its interval is reported at that share (each end a one-sided 1 − a_i bound), so the interval
lies above the level exactly when the claim is violated; "holds" is declared when it lies below the level,
an error of at most a_i ≤ A for that claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..utils.settings import DEFAULT_FALSE_ALARM
from ..utils.validation import check_probability

__all__ = ["ErrorBudget", "HolmBudget", "PerClaimBudget", "Allocation", "STOCHASTIC", "DEFAULT_FALSE_ALARM",
           "holm_adjusted", "holm_reject", "holm_shares"]

STOCHASTIC = ("probability", "expectation", "calibration", "equality")


@dataclass(frozen=True)
class Allocation:
    """The budget's decision for m stochastic claims: per claim its share, adjusted p-value and rejection."""

    shares: np.ndarray
    adjusted: np.ndarray
    rejected: np.ndarray


class ErrorBudget:
    """Base class: ``allocate(pvalues)`` decides the stochastic claims of one verify."""

    total: float = DEFAULT_FALSE_ALARM

    def allocate(self, pvalues: Sequence[float]) -> Allocation:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover
        raise NotImplementedError

    def tuning_share(self, m: int) -> float:
        """A share fixed before the data (the smallest a claim can get): tunes anytime-valid bets."""
        return self.total / max(m, 1)

    def divided(self, k: int) -> ErrorBudget:
        """The budget of one of ``k`` families judged separately within one verify (several checked
        implementations): family-wise budgets get total/k each (Bonferroni across the families)."""
        return self


@dataclass(frozen=True)
class HolmBudget(ErrorBudget):
    """Family-wise false-alarm probability ≤ ``total`` over every stochastic claim of a verify (Holm)."""

    total: float = DEFAULT_FALSE_ALARM

    def __post_init__(self) -> None:
        check_probability("false-alarm budget", self.total)

    def allocate(self, pvalues: Sequence[float]) -> Allocation:
        p = np.asarray(pvalues, dtype=float)
        adj = holm_adjusted(p)
        return Allocation(holm_shares(p, self.total), adj, adj <= self.total)

    def divided(self, k: int) -> HolmBudget:
        return self if k <= 1 else HolmBudget(self.total / k)

    def describe(self) -> str:
        return (f"false-alarm budget {self.total:g} over all stochastic claims (Holm step-down; the chance that a "
                f"verify of a correct theorem calls any claim violated is at most {self.total:g})")


@dataclass(frozen=True)
class PerClaimBudget(ErrorBudget):
    """Every claim at its own fixed share (no family-wise control); kept for comparisons and old callers."""

    interval: float = 0.05  # a two-sided (1 − interval) interval for probability / expectation claims
    calibration: float = 0.01

    @property
    def total(self) -> float:  # type: ignore[override]
        return self.interval / 2

    def sizes(self, kinds: Sequence[str]) -> list[float | None]:
        """Each claim's test size by kind (an older interface; ``allocate`` decides claims now)."""
        return [self.calibration if k in ("calibration", "equality") else self.interval
                if k in ("probability", "expectation", "deterministic") else None for k in kinds]

    def allocate(self, pvalues: Sequence[float], kinds: Sequence[str] | None = None) -> Allocation:
        p = np.asarray(pvalues, dtype=float)
        kinds = list(kinds) if kinds is not None else ["probability"] * p.size
        shares = np.array([self.calibration if k in ("calibration", "equality") else self.interval / 2
                           for k in kinds])
        return Allocation(shares, p.copy(), p <= shares)

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


def holm_shares(pvalues: Sequence[float], total: float) -> np.ndarray:
    """Each claim's share a_i = A p_i / p̃_i (see the module docstring): p_i ≤ a_i ⟺ Holm rejects claim i."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    adj = np.empty(m)  # the adjusted p-values before the cap at 1 (the cap would distort the share)
    adj[order] = np.maximum.accumulate((m - np.arange(m)) * p[order])
    rank_share = np.empty(m)
    rank_share[order] = total / (m - np.arange(m))  # A/(m − j + 1) for rank j
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where((p > 0) & (adj > 0), total * p / adj, rank_share)
    return np.clip(share, total / m, total)
