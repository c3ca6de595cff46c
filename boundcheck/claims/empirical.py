"""Empirical (paper) claims: their per-run metrics, the tests, and verdicts inside one false-alarm budget.

A :class:`theory.empirical.EmpiricalClaim` names a metric, a kind of test and the algorithms it compares. Here the
metric is computed per run from the stored tables of the experiment's panel (:class:`PanelData`), and each claim
becomes two one-sided tests: "the claim is false" (rejecting it: **reproduced**) and "the claim is true"
(rejecting it: **not reproduced**); a claim whose two tests both stay above the budget is **inconclusive**, with
the runs that would settle it.

Every test is a paired t-test on a per-run contrast (run r of every algorithm saw the same function and noise);
intersection-union tests combine contrasts that must all hold, Bonferroni those of which one suffices. All the
p-values of a ``boundcheck reproduce`` go through one Holm budget (:class:`~.budget.HolmBudget`), so the chance
that *any* verdict of the run is wrong is at most A; the intervals shown are simultaneous (Bonferroni) at the same
budget, so an interval that excludes the null implies the Holm decision.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from theory.empirical import EmpiricalClaim, metric_description

from ..errors import BoundcheckError
from .budget import HolmBudget
from .families.base import Family
from .stats import stats

__all__ = ["PanelData", "EmpiricalResult", "metric_values", "judge_empirical", "explore_claim", "MIN_RUNS",
           "VERDICTS", "describe_region", "RegretOnlyFamily", "cell_tests", "printed_beside_ours",
           "band_resolution", "resolution_text"]

VERDICTS = ("reproduced", "not reproduced", "inconclusive")
#: the fewest runs a paired t-test is given (fewer leave too few degrees of freedom to decide anything)
MIN_RUNS = 5


@dataclass
class PanelData:
    """What the metrics of one panel (study) read: its stored tables and a few facts about its scenario."""

    runs: pd.DataFrame  # one row per (run, algorithm): run, algorithm, regret, ...
    steps: pd.DataFrame | None  # one row per (run, algorithm, t): cum_regret, prior (where recorded)
    horizon: int
    truth_index: int | None
    n_candidates: int
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def runs_of(self, algorithm: str) -> pd.DataFrame:
        """The runs-table rows of one algorithm, indexed by run (split once per panel)."""
        if "runs" not in self._cache:
            r = self.runs.assign(algorithm=self.runs["algorithm"].astype(str))
            self._cache["runs"] = {a: g.set_index("run").sort_index() for a, g in r.groupby("algorithm")}
        out = self._cache["runs"].get(algorithm)
        if out is None:
            raise BoundcheckError(f"algorithm {algorithm!r} was not run in this experiment")
        return out

    def steps_of(self, algorithm: str) -> pd.DataFrame | None:
        if "steps" not in self._cache:
            s = self.steps
            self._cache["steps"] = {} if s is None else {
                a: g for a, g in s.assign(algorithm=s["algorithm"].astype(str)).groupby("algorithm")}
        return self._cache["steps"].get(algorithm)


# ----------------------------------------------------------------------------------------------- metrics
def _steps_of(data: PanelData, algorithm: str, column: str) -> pd.DataFrame:
    if data.steps is None or column not in data.steps:
        raise BoundcheckError(f"no per-step {column!r} stored: the metric needs the steps table")
    s = data.steps_of(algorithm)
    if s is None or s.empty or s[column].isna().all():
        raise BoundcheckError(f"algorithm {algorithm!r} records no {column!r} in this experiment")
    return s


def _prior_counts(data: PanelData, algorithm: str, late: bool) -> pd.DataFrame:
    """(runs × priors) counts of the steps at which the algorithm used each prior (late half only if asked)."""
    s = _steps_of(data, algorithm, "prior")
    if late:
        s = s[s["t"] > data.horizon / 2]
    counts = pd.crosstab(s["run"], s["prior"].astype(int))
    return counts.reindex(columns=range(max(data.n_candidates, int(counts.columns.max()) + 1)), fill_value=0)


def metric_values(metric: str, data: PanelData, algorithm: str) -> pd.Series:
    """Per-run values of ``metric`` for ``algorithm`` on one panel, indexed by run (see
    :data:`theory.empirical.METRICS`)."""
    runs = data.runs_of(algorithm)
    if metric == "regret":
        return runs["regret"].astype(float)
    if metric.startswith("col:"):
        col = metric[4:]
        if col not in runs or runs[col].isna().all():
            raise BoundcheckError(f"algorithm {algorithm!r} has no per-run column {col!r}")
        return runs[col].astype(float)
    if metric.startswith("regret@"):
        t_star = min(max(1, math.ceil(float(metric[7:]) * data.horizon)), data.horizon)
        s = _steps_of(data, algorithm, "cum_regret")
        return s[s["t"] == t_star].set_index("run")["cum_regret"].astype(float).sort_index()
    late = metric.startswith("late_")
    counts = _prior_counts(data, algorithm, late)
    total = counts.sum(axis=1).astype(float)
    tp = data.truth_index
    if metric in ("late_share_truth", "late_share_wrong_mode") and tp is None:
        raise BoundcheckError(f"metric {metric!r} needs a true prior among the candidates (misspecified scenario)")
    if metric == "late_share_truth":
        out = counts[tp] / total
    elif metric == "late_share_wrong_mode":
        out = counts.drop(columns=[tp]).max(axis=1) / total
    elif metric == "share_tv_uniform":
        P = counts.shape[1]
        out = 0.5 * (counts.div(total, axis=0) - 1.0 / P).abs().sum(axis=1)
    elif metric == "top2_share":
        top = np.sort(counts.to_numpy(), axis=1)[:, -2:].sum(axis=1)
        out = pd.Series(top, index=counts.index) / total
    else:
        raise BoundcheckError(f"unknown metric {metric!r}")
    return out.astype(float).sort_index()


def printed_beside_ours(printed: Sequence, panels: Mapping[str, PanelData]) -> list[dict]:
    """The numbers a paper prints beside ours: for each printed number (an object with ``panel``, ``algorithm``,
    ``metric``, ``value``, ``label``: :class:`boundcheck.study.experiments.Printed`), our mean of the metric over the
    runs of its panel (``panels``: panel name -> data), its standard error, whether the paper's number lies within
    ours ± 2 SE, the difference ours − paper, z = (ours − paper) / (√2 SE) (the paper's own mean has about the same
    standard error as ours, same run count, and it prints none) and the relative difference (ours − paper) / |paper|.
    Descriptive: the verdict on a printed number is its ``interval`` claim's."""
    out = []
    for x in printed:
        row = {"panel": x.panel, "algorithm": x.algorithm, "metric": x.metric, "label": x.label, "paper": x.value,
               "ours": None, "se": None, "runs": 0, "within_2se": None, "z": None, "difference": None,
               "relative": None}
        data = panels.get(x.panel)
        if data is not None:
            try:
                v = metric_values(x.metric, data, x.algorithm).to_numpy(float)
            except BoundcheckError:  # the metric was not recorded: the row says so (ours: —)
                v = np.empty(0)
            if v.size:
                mean = float(v.mean())
                se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else float("nan")
                row.update(ours=mean, se=se, runs=int(v.size), difference=mean - x.value,
                           relative=(mean - x.value) / abs(x.value) if x.value != 0 else None)
                if math.isfinite(se):
                    row["within_2se"] = bool(abs(mean - x.value) <= 2 * se)
                    row["z"] = (mean - x.value) / (math.sqrt(2.0) * se) if se > 0 else None
        out.append(row)
    return out


# ------------------------------------------------------------------------------------------------- tests
@dataclass
class _Contrast:
    """One per-run contrast v (paired over runs) and its one-sided p-values for E[v] < 0 and E[v] > 0."""

    label: str
    v: np.ndarray
    p_lt: float = 1.0  # evidence that E[v] < 0 (H0: E[v] ≥ 0)
    p_gt: float = 1.0  # evidence that E[v] > 0 (H0: E[v] ≤ 0)

    def __post_init__(self) -> None:
        v = self.v[np.isfinite(self.v)]
        self.v, n = v, v.size
        if n < 2:
            return
        mean, sd = float(v.mean()), float(v.std(ddof=1))
        if sd <= 1e-12 * max(1.0, abs(mean)):
            # no spread (e.g. a share that is 1 in every run): the exact sign test, 2^-n for n runs of one sign
            if mean < 0:
                self.p_lt = 0.5**n
            elif mean > 0:
                self.p_gt = 0.5**n
            return
        tstat = mean / (sd / math.sqrt(n))
        self.p_lt = float(stats.t.cdf(tstat, n - 1))
        self.p_gt = float(stats.t.sf(tstat, n - 1))

    @property
    def n(self) -> int:
        return int(self.v.size)

    def interval(self, one_sided: float) -> tuple[float, float]:
        """Two-sided interval on E[v], each end at level ``one_sided``."""
        n = self.n
        if n < 2:
            return (float("nan"), float("nan"))
        mean, se = float(self.v.mean()), float(self.v.std(ddof=1)) / math.sqrt(n)
        half = float(stats.t.ppf(1 - one_sided, n - 1)) * se
        return mean - half, mean + half

    def runs_needed(self, level: float) -> int | None:
        """Runs at which the observed standardised effect would decide at one-sided ``level``."""
        n = self.n
        if n < 2:
            return None
        mean, sd = float(self.v.mean()), float(self.v.std(ddof=1))
        if sd == 0 or mean == 0:
            return None
        z = float(stats.norm.isf(level))
        return max(n + 1, int(math.ceil((z * sd / abs(mean)) ** 2)))


@dataclass
class EmpiricalResult:
    """The verdict on one empirical claim, with its effect size and the tests behind it."""

    id: str
    paper: str
    experiment: str
    panels: list[str]
    location: str
    wording: str
    reading: str
    kind: str
    metric: str
    subject: str
    others: list[str]
    verdict: str  # reproduced | not reproduced | inconclusive | not run
    runs: int = 0
    estimate: float | None = None  # the effect: mean difference, mean, or mean slope
    ci_low: float | None = None
    ci_high: float | None = None
    relative: float | None = None  # mean difference relative to the comparator's mean (paired kinds)
    d_z: float | None = None  # standardised paired effect: mean / sd of the per-run contrast
    frac_subject_better: float | None = None  # share of runs where the subject did strictly better
    p_reproduced: float | None = None
    p_not_reproduced: float | None = None
    p_adj_reproduced: float | None = None
    p_adj_not_reproduced: float | None = None
    test: str = ""
    note: str = ""
    adapted: bool = False
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)


def _paired(data: PanelData, metric: str, a: str, b: str) -> tuple[pd.Series, pd.Series]:
    xa, xb = metric_values(metric, data, a), metric_values(metric, data, b)
    common = xa.index.intersection(xb.index)
    return xa.loc[common], xb.loc[common]


def _trend_values(claim: EmpiricalClaim, panels: Mapping[str, PanelData]) -> tuple[np.ndarray, list[float]]:
    """Per-run least-squares slope of the metric against the panel's position, paired by run."""
    series = [metric_values(claim.metric, panels[p], claim.subject) for p in claim.panels]
    common = series[0].index
    for s in series[1:]:
        common = common.intersection(s.index)
    Y = np.column_stack([s.loc[common].to_numpy() for s in series])  # (runs, k)
    x = np.arange(Y.shape[1], dtype=float)
    xc = x - x.mean()
    return (Y - Y.mean(axis=1, keepdims=True)) @ xc / float(xc @ xc), [float(c) for c in Y.mean(axis=0)]


def _contrasts(claim: EmpiricalClaim, panels: Mapping[str, PanelData]) -> tuple[list[_Contrast], dict]:
    """The claim's contrasts, how its two p-values combine them, and descriptive numbers."""
    kind, m = claim.kind, claim.margin
    info: dict = {}
    if kind in ("increasing", "decreasing"):
        slopes, means = _trend_values(claim, panels)
        info["panel_means"] = dict(zip(claim.panels, means, strict=True))
        return [_Contrast("slope", slopes)], info
    data = panels[claim.panels[0]]
    if kind in ("less", "lowest", "noninferior", "similar"):
        out = []
        for b in claim.others:
            xa, xb = _paired(data, claim.metric, claim.subject, b)
            A, B = xa.to_numpy(), xb.to_numpy()
            info.setdefault("means", {})[claim.subject] = float(A.mean()) if A.size else None
            info["means"][b] = float(B.mean()) if B.size else None
            info.setdefault("frac_better", {})[b] = float((A < B).mean()) if A.size else None
            info.setdefault("diff", {})[b] = A - B
            if kind == "similar":
                out += [_Contrast(f"{claim.subject} − (1+m)·{b}", A - (1 + m) * B),
                        _Contrast(f"{b} − (1+m)·{claim.subject}", B - (1 + m) * A)]
            else:
                out.append(_Contrast(f"{claim.subject} − {'(1+m)·' if m else ''}{b}", A - (1 + m) * B))
        return out, info
    x = metric_values(claim.metric, data, claim.subject).to_numpy()
    info["mean"] = float(x.mean()) if x.size else None
    if kind in ("above", "below"):
        return [_Contrast(f"m − {claim.threshold:g}", x - float(claim.threshold))], info
    lo, hi = claim.band
    return [_Contrast(f"m − {lo:g}", x - lo), _Contrast(f"m − {hi:g}", x - hi)], info


def _two_pvalues(kind: str, cs: list[_Contrast]) -> tuple[float, float]:
    """(p for "the claim is false", p for "the claim is true") from the claim's contrasts."""
    if kind in ("less", "noninferior", "below", "decreasing"):
        return cs[0].p_lt, cs[0].p_gt
    if kind in ("above", "increasing"):
        return cs[0].p_gt, cs[0].p_lt
    if kind in ("lowest", "similar"):  # every contrast < 0: intersection-union / Bonferroni
        return max(c.p_lt for c in cs), min(1.0, len(cs) * min(c.p_gt for c in cs))
    if kind == "interval":  # m − lo > 0 and m − hi < 0
        return max(cs[0].p_gt, cs[1].p_lt), min(1.0, 2 * min(cs[0].p_lt, cs[1].p_gt))
    raise ValueError(kind)


def _describe(claim: EmpiricalClaim, cs: list[_Contrast], info: dict, one_sided: float) -> dict:
    """The effect size of the claim, and its simultaneous interval."""
    kind = claim.kind
    out: dict = {"runs": min((c.n for c in cs), default=0)}
    if kind in ("less", "lowest", "noninferior", "similar"):
        # the effect is the plain paired difference m(subject) − m(other); for several competitors, the one
        # closest to contradicting the claim (the largest mean difference)
        worst = max(claim.others, key=lambda b: float(np.mean(info["diff"][b])) if info["diff"][b].size else -np.inf)
        d = _Contrast("diff", info["diff"][worst])
        lo, hi = d.interval(one_sided)
        mean_b = info["means"][worst]
        sd = float(d.v.std(ddof=1)) if d.n > 1 else float("nan")
        out.update(estimate=float(d.v.mean()) if d.n else None, ci_low=lo, ci_high=hi,
                   relative=(float(d.v.mean()) / mean_b) if mean_b not in (None, 0.0) and d.n else None,
                   d_z=(float(d.v.mean()) / sd) if sd and np.isfinite(sd) and sd > 0 else None,
                   frac_subject_better=info["frac_better"][worst], comparator=worst,
                   means=info["means"], frac_better=info["frac_better"])
        if kind == "lowest":
            out["differences"] = {b: float(np.mean(v)) if v.size else None for b, v in info["diff"].items()}
        return out
    c = cs[0]
    if kind in ("increasing", "decreasing"):
        lo, hi = c.interval(one_sided)
        sd = float(c.v.std(ddof=1)) if c.n > 1 else float("nan")
        out.update(estimate=float(c.v.mean()), ci_low=lo, ci_high=hi, panel_means=info["panel_means"],
                   d_z=float(c.v.mean()) / sd if sd and np.isfinite(sd) and sd > 0 else None)
        return out
    shift = float(claim.threshold) if kind in ("above", "below") else float(claim.band[0])
    lo, hi = c.interval(one_sided)
    sd = float(c.v.std(ddof=1)) if c.n > 1 else float("nan")
    ref = float(claim.threshold) if kind in ("above", "below") else float(np.mean(claim.band))
    out.update(estimate=info["mean"], ci_low=lo + shift, ci_high=hi + shift,
               d_z=(info["mean"] - ref) / sd if sd and np.isfinite(sd) and sd > 0 else None)
    return out


def _budget(false_alarm: float | HolmBudget) -> HolmBudget:
    """The run's family-wise budget (a number A in (0, 1), or the budget object ``verify`` uses)."""
    if isinstance(false_alarm, HolmBudget):
        return false_alarm
    if not 0 < false_alarm < 1:
        raise BoundcheckError(f"the false-alarm budget must lie in (0, 1), got {false_alarm}")
    return HolmBudget(float(false_alarm))


def judge_empirical(claims: Sequence[EmpiricalClaim], panels: Mapping[tuple[str, str], PanelData],
                    false_alarm: float | HolmBudget) -> list[EmpiricalResult]:
    """Verdicts on ``claims`` inside one family-wise budget ``false_alarm`` (Holm over every test, through
    :meth:`HolmBudget.allocate`, as the claims of a verify).

    ``panels`` maps (experiment, panel) to its data; a claim whose experiment has no data is "not run"."""
    budget = _budget(false_alarm)
    false_alarm = budget.total
    prepared = []
    for c in claims:
        names = list(c.panels) if c.panels else None
        mine = {p: d for (e, p), d in panels.items() if e == c.experiment}
        if not mine:
            prepared.append((c, None, None, None))
            continue
        if names is None:
            names = [next(iter(mine))]
        missing = [p for p in names if p not in mine]
        if missing:
            raise BoundcheckError(f"empirical claim {c.id}: experiment {c.experiment!r} has no panel "
                                  f"{', '.join(missing)}")
        cs, info = _contrasts(_with_panels(c, names), mine)
        prepared.append((c, names, cs, info))
    pvals = []
    for _c, _n, cs, _i in prepared:
        if cs is not None:
            pvals += list(_two_pvalues(_c.kind, cs))
    H = len(pvals)
    alloc = budget.allocate(pvals)
    adjusted, rejected = alloc.adjusted, alloc.rejected
    one_sided = false_alarm / max(H, 1)
    results, k = [], 0
    for c, names, cs, info in prepared:
        base = dict(id=c.id, paper=c.paper, experiment=c.experiment, panels=names or list(c.panels),
                    location=c.location, wording=c.wording, reading=c.reading, kind=c.kind, metric=c.metric,
                    subject=c.subject, others=list(c.others), test=c.test_text, note=c.note, adapted=c.adapted)
        if cs is None:
            results.append(EmpiricalResult(**base, verdict="not run"))
            continue
        p_rep, p_not = _two_pvalues(c.kind, cs)
        a_rep, a_not = float(adjusted[k]), float(adjusted[k + 1])
        rej_rep, rej_not = bool(rejected[k]), bool(rejected[k + 1])
        k += 2
        if rej_rep and not rej_not:
            verdict = "reproduced"
        elif rej_not and not rej_rep:
            verdict = "not reproduced"
        else:
            verdict = "inconclusive"
        desc = _describe(_with_panels(c, names), cs, info, one_sided)
        details = {k2: v for k2, v in desc.items() if k2 not in ("runs", "estimate", "ci_low", "ci_high",
                                                                  "relative", "d_z", "frac_subject_better")}
        details["metric"] = metric_description(c.metric)
        details["interval_level"] = f"simultaneous (Bonferroni) at {false_alarm:g} over {H} tests"
        if c.margin:
            details["margin"] = c.margin
        if c.threshold is not None:
            details["threshold"] = c.threshold
        if c.band is not None:
            details["band"] = list(c.band)
        if verdict == "inconclusive":
            details["runs_needed"] = _runs_needed(c.kind, cs, p_rep <= p_not, one_sided)
        if c.kind == "interval":
            details["resolution"] = band_resolution(cs, c.band, one_sided)
        results.append(EmpiricalResult(
            **base, verdict=verdict, runs=desc.get("runs", 0), estimate=desc.get("estimate"),
            ci_low=desc.get("ci_low"), ci_high=desc.get("ci_high"), relative=desc.get("relative"),
            d_z=desc.get("d_z"), frac_subject_better=desc.get("frac_subject_better"), p_reproduced=p_rep,
            p_not_reproduced=p_not, p_adj_reproduced=a_rep, p_adj_not_reproduced=a_not, details=_plain(details)))
    return results


def band_resolution(cs: list[_Contrast], band: tuple[float, float], one_sided: float) -> dict:
    """Whether an ``interval`` claim's band can be resolved at the claim's run count.

    The equivalence test says "reproduced" only when both one-sided tests reject, i.e. when the interval
    mean ± t*·sd/√n (t* at the claim's one-sided level ``one_sided``) lies inside the band. Even with the mean at
    the band's centre that needs t*·sd/√n < w, the band's half-width: a narrower band is *unresolvable* at n runs,
    whatever the data, and its claim can only be "inconclusive" or "not reproduced". Returns the half-width
    ``half_width`` of that interval at n runs, ``margin`` (w), ``resolvable`` and ``runs_to_resolve`` (the
    fewest runs at which the band would be resolvable at the observed sd; None without spread)."""
    c = cs[0]
    n, w = c.n, (float(band[1]) - float(band[0])) / 2.0
    out: dict = {"margin": w, "runs": n, "half_width": None, "resolvable": None, "runs_to_resolve": None}
    if n < 2:
        return out
    sd = float(c.v.std(ddof=1))

    def half(k: int) -> float:
        return float(stats.t.ppf(1 - one_sided, k - 1)) * sd / math.sqrt(k)

    h = half(n)
    out.update(half_width=h, resolvable=bool(h < w))
    if sd > 0 and w > 0:
        # the normal approximation first, then upward until the t quantile agrees (t* > z: never below it)
        k = max(2, int(math.ceil((float(stats.norm.isf(one_sided)) * sd / w) ** 2)))
        while half(k) >= w and k < 10_000_000:
            k = max(k + 1, int(k * 1.02))
        while k > 2 and half(k - 1) < w:
            k -= 1
        out["runs_to_resolve"] = k
    return out


def resolution_text(c: dict, short: bool = False) -> str:
    """"cannot be resolved at N runs; N′ would" for a claim whose band its run count cannot resolve ("" else;
    ``short``: one terminal cell)."""
    r = (c.get("details") or {}).get("resolution") or {}
    if r.get("resolvable") is not False:
        return ""
    need = r.get("runs_to_resolve")
    if short:
        return (f"cannot be resolved at {r['runs']} runs (±{r['half_width']:.3g} > ±{r['margin']:.3g})"
                + (f"; {need} would" if need else ""))
    return (f"cannot be resolved at {r['runs']} runs: even with the mean at the band's centre the simultaneous "
            f"interval's half-width {r['half_width']:.3g} exceeds the band's ±{r['margin']:.3g}"
            + (f"; {need} runs would resolve it" if need else ""))


def _rep_signs(kind: str, k: int) -> list[int]:
    """The sign each contrast's mean must have for the claim to hold."""
    if kind in ("above", "increasing"):
        return [1] * k
    if kind == "interval":
        return [1, -1]
    return [-1] * k


def _runs_needed(kind: str, cs: list[_Contrast], toward_reproduced: bool, level: float) -> int | None:
    """Runs that would settle an inconclusive claim if the observed effects persisted: every contrast the
    claim needs (toward "reproduced"), or the cheapest one that contradicts it (toward "not reproduced")."""
    signs = _rep_signs(kind, len(cs))
    means = [float(c.v.mean()) if c.n else 0.0 for c in cs]
    if toward_reproduced:
        if not all(m * s > 0 for m, s in zip(means, signs, strict=True)):
            return None
        need = [c.runs_needed(level) for c in cs]
        return None if any(n is None for n in need) else max(need)
    need = [c.runs_needed(level) for c, m, s in zip(cs, means, signs, strict=True) if m * s < 0]
    need = [n for n in need if n is not None]
    return min(need) if need else None


def _with_panels(c: EmpiricalClaim, names: list[str]) -> EmpiricalClaim:
    from dataclasses import replace

    return c if list(c.panels) == names else replace(c, panels=tuple(names))


def _plain(obj):
    """JSON-friendly copy (numpy scalars and arrays to Python)."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return None
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


# ----------------------------------------------------------------------------------------------- explore
def cell_tests(items: Sequence[tuple[EmpiricalClaim, PanelData]], false_alarm: float | HolmBudget) -> list[dict]:
    """One test per (claim, data) pair, in the claim's "reproduced" direction only, with Holm over all the
    pairs at ``false_alarm``: a pair *reproduces* when its adjusted p-value is within the budget, so "the claim
    reproduces in some setting" has family-wise error at most ``false_alarm``. Each pair also gets its effect
    (as in :func:`judge_empirical`) and ``favourable``: the mean effect points the paper's way (descriptive)."""
    budget = _budget(false_alarm)
    false_alarm = budget.total
    rows, pv = [], []
    for claim, data in items:
        name = claim.panels[0] if claim.panels else "cell"
        c = _with_panels(claim, [name])
        cs, info = _contrasts(c, {name: data})
        p_rep, p_not = _two_pvalues(c.kind, cs)
        desc = _describe(c, cs, info, 0.025)
        pv.append(p_rep)
        rows.append({"p_reproduced": p_rep, "p_not_reproduced": p_not, "estimate": desc.get("estimate"),
                     "relative": desc.get("relative"), "d_z": desc.get("d_z"), "runs": desc.get("runs"),
                     "frac_subject_better": desc.get("frac_subject_better"), "favourable": bool(p_rep < 0.5),
                     "means": _plain(desc.get("means") or {})})
    alloc = budget.allocate(pv)
    for r, a, rej in zip(rows, alloc.adjusted, alloc.rejected, strict=True):
        r["p_adj_reproduced"] = float(a)
        r["reproduces"] = bool(rej)
        r["reversed"] = bool(r["p_not_reproduced"] <= false_alarm / max(len(rows), 1))  # Bonferroni, descriptive
    return rows


def explore_claim(claim: EmpiricalClaim, cells: Sequence[PanelData], false_alarm: float) -> list[dict]:
    """Where in a grid of settings does ``claim`` reproduce? :func:`cell_tests` over the grid's cells."""
    return cell_tests([(claim, d) for d in cells], false_alarm)


def describe_region(axes: Mapping[str, Sequence], cells: Sequence[Mapping], hit: Sequence[bool]) -> str:
    """One sentence on where in a grid the hits are: "in none of the N settings tried", or "in k of N
    settings, only when a ∈ {…} and b ∈ {…}" (the axes whose every hit lies in a strict subset of the levels)."""
    n = len(cells)
    k = int(sum(bool(h) for h in hit))
    if k == 0:
        return f"in none of the {n} settings tried"
    if k == n:
        return f"in all {n} settings tried"
    conds = []
    for name, levels in axes.items():
        got = [lv for lv in levels if any(h and c[name] == lv for c, h in zip(cells, hit, strict=True))]
        if len(got) < len(levels):
            conds.append(f"{name} ∈ {{{', '.join(map(_fmt_level, got))}}}")
    if not conds:
        return f"in {k} of {n} settings (no single setting decides it)"
    where = f", only when {' and '.join(conds)}"
    matching = sum(all(c[name] in [lv for lv in axes[name] if any(h and cc[name] == lv for cc, h in
                                                                  zip(cells, hit, strict=True))]
                       for name in axes) for c in cells)
    tail = "" if matching == k else f" (and then in {k} of the {matching} such settings)"
    return f"in {k} of {n} settings{where}{tail}"


def _fmt_level(v) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


# ------------------------------------------------------------------------------------- regret-only studies
class RegretOnlyFamily(Family):
    """A theorem's family without its claims: the studies behind empirical claims where the theorem's own
    checks are not wanted (the cells of ``reproduce --explore``). Instantiation (schedules β_t, ξ_t, γ, the
    bound) is the wrapped family's, so every algorithm runs exactly as in the full study; per run only the
    regret of every algorithm is stored, with the family's steps table (cumulative regret, the prior used)."""

    def __init__(self, inner: Family) -> None:  # no super().__init__: there is no claim table to match
        self.inner = inner
        self.theorem = inner.theorem
        self.claims = ()
        self.step_columns = inner.step_columns

    def bound_values(self, scenario, horizon, delta):
        return self.inner.bound_values(scenario, horizon, delta)

    def gamma_groups(self, scenario):
        return self.inner.gamma_groups(scenario)

    def gamma_noise_var(self, scenario):
        return self.inner.gamma_noise_var(scenario)

    def gamma_used(self, scenario, gamma_upper):
        return self.inner.gamma_used(scenario, gamma_upper)

    def schedules(self, scenario, values, gamma_used):
        return self.inner.schedules(scenario, values, gamma_used)

    def extra_constants(self, values):
        return self.inner.extra_constants(values)

    def main_diagnostics(self, ev) -> dict[str, np.ndarray]:
        return self.baseline_columns(ev, ev.main)
