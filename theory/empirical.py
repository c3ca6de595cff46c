"""Empirical claims: the sentences of a paper's experiment sections, as data beside its theorems.

A theorem's :class:`~theory.core.Claim` is a mathematical statement checked against its level on every run.
An :class:`EmpiricalClaim` is what a paper says its *experiments* showed ("PE-GP-UCB has the lowest regret"):
the paper's wording and where it stands, the experiment (and panel) it belongs to, and the one statistic that
tests it. The verification layer (``boundcheck.claims.empirical``) turns the statistic into a verdict:
**reproduced**, **not reproduced** or **inconclusive**, inside one false-alarm budget per ``boundcheck reproduce``.

Kinds of test (``kind``: ``less``, ``lowest``, ``noninferior``, ``similar``, ``above``/``below``, ``interval``,
``increasing``/``decreasing``) compare a per-run ``metric`` (:data:`METRICS`) of the ``subject`` algorithm with
the ``others``, a threshold, a band or a trend across panels; what each tests: docs/extending/paper.md, "Empirical
claims". Pure Python: nothing here imports ``boundcheck``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from . import plugins
from .plugins import Registry

__all__ = ["EmpiricalClaim", "EmpiricalKind", "METRICS", "metric_description", "register_empirical",
           "empirical_claims", "KIND_TEXT"]

EmpiricalKind = Literal["less", "lowest", "noninferior", "similar", "above", "below", "interval", "increasing",
                        "decreasing"]
_KINDS = ("less", "lowest", "noninferior", "similar", "above", "below", "interval", "increasing", "decreasing")

KIND_TEXT = {
    "less": "one-sided paired t-test on the per-run difference (same functions and noise)",
    "lowest": "paired one-sided t-tests against each competitor; reproduced only if all are (intersection-union)",
    "noninferior": "one-sided paired t-test of m(A) − (1 + margin)·m(B) ≤ 0",
    "similar": "two one-sided paired tests (TOST) with a relative margin, both ways",
    "above": "one-sample one-sided t-test of the mean against the threshold",
    "below": "one-sample one-sided t-test of the mean against the threshold",
    "interval": "two one-sided tests that the mean lies inside the band the paper prints",
    "increasing": "one-sided t-test on the per-run least-squares slope across the ordered panels",
    "decreasing": "one-sided t-test on the per-run least-squares slope across the ordered panels",
}

#: metric id -> what it measures (per run). ``regret@F`` reads R_t at t = ⌈F·T⌉; ``col:NAME`` reads the
#: column NAME of the stored runs table (e.g. ``col:n_resets`` for an algorithm that records resets).
METRICS = {
    "regret": "cumulative regret R_T at the horizon",
    "regret@F": "cumulative regret R_t at t = ⌈F·T⌉",
    "late_share_truth": "share of the late steps (t > T/2) at which the algorithm's model used the true prior p*",
    "late_share_wrong_mode": ("share of the late steps (t > T/2) spent on the algorithm's most used wrong prior "
                              "(one prior ≠ p*): 1 = committed to one wrong prior"),
    "share_tv_uniform": ("total-variation distance between the algorithm's prior-usage frequencies over all steps "
                         "and the uniform distribution on U (0 = every prior equally often)"),
    "top2_share": "share of all steps on the algorithm's two most used priors",
    "col:NAME": "the per-run column NAME of the stored runs table",
}

_METRIC_RE = re.compile(r"^(regret|regret@(0(\.\d+)?|1(\.0+)?)|late_share_truth|late_share_wrong_mode|"
                        r"share_tv_uniform|top2_share|col:[A-Za-z_][A-Za-z0-9_]*)$")


def metric_description(metric: str) -> str:
    """What a metric id measures, in words."""
    if metric.startswith("regret@"):
        return f"cumulative regret R_t at t = ⌈{metric[7:]}·T⌉"
    if metric.startswith("col:"):
        return f"the per-run column {metric[4:]!r} of the stored runs table"
    return METRICS.get(metric, metric)


@dataclass(frozen=True)
class EmpiricalClaim:
    """One experimental sentence of a paper and the statistic that tests it (see the module docstring).

    ``wording`` is the paper's own sentence (verbatim, possibly shortened with "…"); ``reading`` is the precise
    statement tested; ``note`` says why this reading (a margin, a threshold, an adaptation to a stand-in).
    ``panels`` names the panel (study) of the experiment the claim is evaluated on (empty: the experiment's
    first panel); a trend names the ordered panels it runs across. A claim the paper makes of several panels
    is one claim per panel.
    ``adapted``: the claim is tested on a synthetic stand-in for data that cannot be used offline, in a form
    that makes sense there (e.g. a day's identity becomes "a wrong prior")."""

    id: str
    paper: str
    experiment: str
    location: str
    wording: str
    reading: str
    kind: EmpiricalKind
    metric: str
    subject: str
    others: tuple[str, ...] = ()
    panels: tuple[str, ...] = ()
    margin: float = 0.0
    threshold: float | None = None
    band: tuple[float, float] | None = None
    note: str = ""
    adapted: bool = False

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"empirical claim {self.id}: unknown kind {self.kind!r} (one of {', '.join(_KINDS)})")
        if not _METRIC_RE.match(self.metric):
            raise ValueError(f"empirical claim {self.id}: unknown metric {self.metric!r}")
        paired = self.kind in ("less", "lowest", "noninferior", "similar")
        if paired and not self.others:
            raise ValueError(f"empirical claim {self.id}: a {self.kind} claim compares with at least one algorithm")
        if self.kind in ("less", "noninferior", "similar") and len(self.others) != 1:
            raise ValueError(f"empirical claim {self.id}: a {self.kind} claim compares with exactly one algorithm")
        if self.kind in ("noninferior", "similar") and not self.margin > 0:
            raise ValueError(f"empirical claim {self.id}: a {self.kind} claim needs a relative margin > 0")
        if self.kind in ("above", "below") and self.threshold is None:
            raise ValueError(f"empirical claim {self.id}: a {self.kind} claim needs a threshold")
        if self.kind == "interval" and (self.band is None or not self.band[0] < self.band[1]):
            raise ValueError(f"empirical claim {self.id}: an interval claim needs a band (low < high)")
        if self.kind in ("increasing", "decreasing") and len(self.panels) < 2:
            raise ValueError(f"empirical claim {self.id}: a trend needs at least two ordered panels")
        if self.kind not in ("increasing", "decreasing") and len(self.panels) > 1:
            raise ValueError(f"empirical claim {self.id}: only trends span several panels")

    @property
    def algorithms(self) -> tuple[str, ...]:
        """Every algorithm whose runs the statistic reads."""
        return (self.subject, *self.others)

    @property
    def test_text(self) -> str:
        return KIND_TEXT[self.kind]


# --------------------------------------------------------------------------------------------- registry

def _install(module) -> None:
    for claim in getattr(module, "EMPIRICAL", ()):  # a paper without experiments has none
        register_empirical(claim)


# the sources are the papers' theory modules (their ``EMPIRICAL``), found through the entry points
_CLAIMS: Registry[EmpiricalClaim] = plugins.registry(
    "theory", _install,
    lambda key: ValueError(f"an empirical claim {key[1]!r} of paper {key[0]!r} is already registered"))


def register_empirical(claim: EmpiricalClaim, *, replace: bool = False) -> EmpiricalClaim:
    """Add an empirical claim (keyed by paper and id; ``replace=True`` to overwrite)."""
    if not isinstance(claim, EmpiricalClaim):
        raise TypeError(f"register_empirical() needs an EmpiricalClaim, got {type(claim).__name__}")
    return _CLAIMS.add((claim.paper, claim.id), claim, replace=replace)


def empirical_claims(paper: str | None = None, experiment: str | None = None) -> list[EmpiricalClaim]:
    """The registered empirical claims of a paper (and one of its experiments), in registration order."""
    items = _CLAIMS.load() if paper is None else _CLAIMS.load_declaring(paper)  # one paper: its module only
    return [c for c in items.values()
            if (paper is None or c.paper == paper) and (experiment is None or c.experiment == experiment)]
