"""Statistical tests: turn per-run booleans and pooled statistics into claim verdicts (design: "Claims and
verdicts"). Each test takes the size it may err with (``a``) from the error budget; results record it.

* probability claim "E fails w.p. ≤ α": k failures of N, Clopper–Pearson interval at confidence 1 − a;
  **violated** if its lower end > α, **holds** if its upper end ≤ α, else **inconclusive** (with the number
  of runs that would settle it at the observed rate).
* expectation claim "E[X] ≤ b": per-run values of X, a two-sided Student-t interval on the mean at
  confidence 1 − a; **violated** if its lower end > b, **holds** if its upper end ≤ b, else **inconclusive**.
* deterministic implication: any counterexample (beyond a relative tolerance of 1e-9) is **violated**.
* calibration: innovations must be i.i.d. N(0,1): KS, mean, variance and lag-1 autocorrelation tests,
  Bonferroni-combined at size ``a``.
* theorem: violated if any claim is; holds if all hold; else inconclusive.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats

__all__ = [
    "REL_TOL",
    "NOT_APPLICABLE",
    "ClaimResult",
    "clopper_pearson",
    "probability_verdict",
    "deterministic_verdict",
    "expectation_verdict",
    "calibration_verdict",
    "equality_verdict",
    "anytime_expectation_verdict",
    "theorem_verdict",
    "exceeds",
]

REL_TOL = 1e-9
NOT_APPLICABLE = "not applicable"  # a claim the checked policy does not record enough for (ignored in verdicts)


def exceeds(lhs: np.ndarray, rhs: np.ndarray, rel_tol: float = REL_TOL) -> np.ndarray:
    """``lhs > rhs`` beyond a relative tolerance (for deterministic implications)."""
    lhs, rhs = np.asarray(lhs, dtype=np.float64), np.asarray(rhs, dtype=np.float64)
    scale = np.maximum(np.maximum(np.abs(lhs), np.abs(rhs)), 1.0)
    return lhs - rhs > rel_tol * scale


@dataclass
class ClaimResult:
    id: str
    kind: str
    level: float | None
    violations: int
    runs: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None
    verdict: str  # holds | violated | inconclusive | identity | not applicable
    statement: str = ""
    source: str = ""
    main: bool = False
    details: dict = field(default_factory=dict)
    test_size: float | None = None  # the error the test was allowed (its interval has confidence 1 − test_size)

    def to_json(self) -> dict:
        d = asdict(self)
        return {k: d[k] for k in ("id", "kind", "level", "violations", "runs", "rate", "ci_low", "ci_high",
                                  "verdict")} | {"main": self.main, "test_size": self.test_size,
                                                 "details": self.details}


def clopper_pearson(k: int, n: int, a: float = 0.05) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval for a binomial proportion at confidence 1 − a."""
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


def _runs_needed(k: int, n: int, alpha: float, a: float) -> int | None:
    """Runs that would settle the claim if the observed failure rate persisted (None: cannot tell)."""
    rate = k / n
    if abs(rate - alpha) < 1e-12:
        return None
    m = n
    for _ in range(40):
        m *= 2
        kk = round(rate * m)
        lo, hi = clopper_pearson(kk, m, a)
        if hi <= alpha or lo > alpha:
            return m
    return None


def probability_verdict(claim_id: str, kind: str, failures: np.ndarray, alpha: float, a: float = 0.05,
                        **meta) -> ClaimResult:
    failures = np.asarray(failures, dtype=bool)
    k, n = int(failures.sum()), int(failures.size)
    lo, hi = clopper_pearson(k, n, a)
    verdict = "violated" if lo > alpha else ("holds" if hi <= alpha else "inconclusive")
    details = dict(meta.pop("details", {}))
    if verdict == "inconclusive":
        details["runs_needed"] = _runs_needed(k, n, alpha, a)
    return ClaimResult(claim_id, kind, float(alpha), k, n, k / n, lo, hi, verdict, details=details, test_size=a,
                       **meta)


def expectation_verdict(claim_id: str, values: np.ndarray, bound: float, a: float = 0.05, **meta) -> ClaimResult:
    """E[X] ≤ ``bound`` from per-run values of X: Student-t interval on the mean at confidence 1 − a.

    ``violations`` counts the runs whose X exceeds the bound (descriptive only: single runs may exceed an
    expectation bound); the verdict comes from the interval."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = int(x.size)
    mean = float(x.mean()) if n else float("nan")
    if n > 1:
        half = float(stats.t.ppf(1 - a / 2, n - 1) * x.std(ddof=1) / np.sqrt(n))
    else:
        half = float("inf")
    lo, hi = mean - half, mean + half
    verdict = "violated" if lo > bound else ("holds" if hi <= bound else "inconclusive")
    details = dict(meta.pop("details", {}))
    details.update(mean=mean, sd=float(x.std(ddof=1)) if n > 1 else None, bound=float(bound))
    return ClaimResult(claim_id, "expectation", float(bound), int((x > bound).sum()), n, mean, lo, hi, verdict,
                       details=details, test_size=a, **meta)


def deterministic_verdict(claim_id: str, counterexamples: np.ndarray, applicable: np.ndarray | None = None,
                          a: float = 0.05, **meta) -> ClaimResult:
    """Any counterexample is a violation; ``applicable`` counts the runs where the premise held."""
    bad = np.asarray(counterexamples, dtype=bool)
    k, n = int(bad.sum()), int(bad.size)
    lo, hi = clopper_pearson(k, n, a)
    details = dict(meta.pop("details", {}))
    if applicable is not None:
        details["premise_held"] = int(np.asarray(applicable, dtype=bool).sum())
    if k:
        details["first_counterexample_run"] = int(np.flatnonzero(bad)[0])
    return ClaimResult(claim_id, "deterministic", None, k, n, k / n, lo, hi,
                       "violated" if k else "holds", details=details, test_size=a, **meta)


def calibration_verdict(claim_id: str, u: np.ndarray, a: float = 0.01, **meta) -> ClaimResult:
    """Test that the rows of ``u`` (runs × steps) are i.i.d. N(0,1) innovations."""
    u = np.asarray(u, dtype=np.float64)
    u2 = u if u.ndim == 2 else u[None, :]
    flat = u2[np.isfinite(u2)]
    N = flat.size
    p = {}
    p["ks"] = float(stats.kstest(flat, "norm").pvalue)
    p["mean"] = float(2 * stats.norm.sf(abs(flat.mean()) * np.sqrt(N)))
    chi = (N - 1) * flat.var(ddof=1)
    p["variance"] = float(2 * min(stats.chi2.cdf(chi, N - 1), stats.chi2.sf(chi, N - 1)))
    u0, u1 = u2[:, :-1].ravel(), u2[:, 1:].ravel()
    ok = np.isfinite(u0) & np.isfinite(u1)
    r1 = float(np.sum(u0[ok] * u1[ok]) / np.sqrt(np.sum(u0[ok] ** 2) * np.sum(u1[ok] ** 2)))
    p["lag1"] = float(2 * stats.norm.sf(abs(r1) * np.sqrt(ok.sum())))
    adjusted = {k: min(1.0, v * len(p)) for k, v in p.items()}  # Bonferroni
    rejected = [k for k, v in adjusted.items() if v < a]
    details = dict(meta.pop("details", {}))
    details.update(n=N, mean=float(flat.mean()), variance=float(flat.var(ddof=1)), lag1=r1,
                   p_values=p, rejected=rejected)
    return ClaimResult(claim_id, "calibration", float(a), len(rejected), int(u2.shape[0]),
                       float(min(adjusted.values())), None, None, "violated" if rejected else "holds",
                       details=details, test_size=float(a), **meta)


def equality_verdict(claim_id: str, values: np.ndarray, a: float = 0.01, **meta) -> ClaimResult:
    """E[X] = 0 from per-run values of X (a stochastic identity, centred): two-sided one-sample t-test of size
    ``a``; **violated** when rejected, **holds** otherwise (like a calibration test). ``rate`` is the mean, the
    interval the (1 − a) t-interval on it; ``details`` has the p-value and the standardised effect."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = int(x.size)
    mean = float(x.mean()) if n else float("nan")
    sd = float(x.std(ddof=1)) if n > 1 else float("nan")
    scale = max(float(np.abs(x).max()) if n else 0.0, 1e-300)
    if n > 1 and sd > 1e-12 * scale:
        tstat = mean / (sd / np.sqrt(n))
        p = float(2 * stats.t.sf(abs(tstat), n - 1))
        half = float(stats.t.ppf(1 - a / 2, n - 1) * sd / np.sqrt(n))
    else:  # no spread: the identity holds exactly iff every value is 0 (to round-off)
        p = 1.0 if abs(mean) <= 1e-9 * scale else 0.0
        half = 0.0
    verdict = "violated" if p < a else "holds"
    details = dict(meta.pop("details", {}))
    details.update(mean=mean, sd=sd, p_value=p, effect=(mean / sd if sd and np.isfinite(sd) and sd > 0 else None))
    return ClaimResult(claim_id, "equality", 0.0, int(verdict == "violated"), n, mean, mean - half, mean + half,
                       verdict, details=details, test_size=float(a), **meta)


def anytime_expectation_verdict(claim_id: str, sample: np.ndarray, bound: float = 0.0, a: float = 0.05,
                                **meta) -> ClaimResult:
    """E[X_t] ≤ ``bound`` for every column t of ``sample`` (runs × T), simultaneously: Student-t intervals at
    confidence 1 − a/T each (Bonferroni over t). **violated** if some lower end exceeds the bound, **holds** if
    every upper end is below it. ``rate`` is the largest mean; ``details`` names the worst step."""
    x = np.asarray(sample, dtype=np.float64)
    x = x if x.ndim == 2 else x[:, None]
    n, T = x.shape
    mean = np.nanmean(x, axis=0)
    sd = np.nanstd(x, axis=0, ddof=1) if n > 1 else np.full(T, np.inf)
    q = float(stats.t.ppf(1 - a / (2 * T), n - 1)) if n > 1 else float("inf")
    half = q * sd / np.sqrt(n)
    lo, hi = mean - half, mean + half
    worst = int(np.nanargmax(hi))
    verdict = "violated" if np.any(lo > bound) else ("holds" if np.all(hi <= bound) else "inconclusive")
    details = dict(meta.pop("details", {}))
    details.update(worst_t=worst + 1, bound=float(bound), steps=T, per_step_size=a / T,
                   violated_steps=int(np.sum(lo > bound)))
    return ClaimResult(claim_id, "expectation", float(bound), int(np.sum(np.nanmean(x > bound, axis=0) > 0)), n,
                       float(mean[worst]), float(lo[worst]), float(hi[worst]), verdict, details=details,
                       test_size=float(a), **meta)


def theorem_verdict(results: list[ClaimResult]) -> str:
    verdicts = [r.verdict for r in results if r.kind != "identity" and r.verdict != NOT_APPLICABLE]
    if "violated" in verdicts:
        return "violated"
    return "holds" if all(v == "holds" for v in verdicts) else "inconclusive"
