"""Statistical tests: turn per-run booleans, per-run values and pooled samples into claim verdicts.

Every stochastic claim is reduced to **one p-value** for the null hypothesis "the claim is true"; the error
budget (:mod:`boundcheck.claims.budget`) splits the verify's false-alarm budget across those p-values with
Holm's step-down procedure and gives each claim its share (the level its test is compared with). A claim is
**violated** only if the procedure rejects it; it **holds** when its interval at its share lies below its level;
otherwise it is **inconclusive** (with the runs that would settle it).

Probability claims use an exact binomial test and Clopper–Pearson bounds, expectation claims a Student-t test,
calibration one omnibus p-value (Anderson–Darling and Ljung–Box, Bonferroni-combined); deterministic
implications are counterexamples outside the budget. ``verify --until-conclusive`` uses anytime-valid versions
(a mixture martingale, a betting e-process, union-bounded looks). Each test: docs/verdicts.md, "How each claim
is tested".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from ..utils.laws import special, stats  # scipy.special on first use; scipy.stats's values without its import

__all__ = [
    "REL_TOL",
    "NOT_APPLICABLE",
    "ClaimResult",
    "Evidence",
    "clopper_pearson",
    "binomial_pvalue",
    "anderson_darling_normal",
    "ljung_box",
    "calibration_pvalue",
    "probability_evidence",
    "expectation_evidence",
    "calibration_evidence",
    "finish",
    "probability_verdict",
    "deterministic_verdict",
    "identity_verdict",
    "expectation_verdict",
    "calibration_verdict",
    "equality_evidence",
    "anytime_expectation_evidence",
    "theorem_verdict",
    "exceeds",
    "detectable_rate",
    "smallest_detectable",
    "POWER_TARGET",
    "SEQUENTIAL_LOOKS",
]

REL_TOL = 1e-9
POWER_TARGET = 0.9  # "smallest detectable effect": the effect caught with this probability
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
    verdict: str  # holds | violated | inconclusive | not applicable (identities: holds | violated)
    statement: str = ""
    source: str = ""
    main: bool = False
    details: dict = field(default_factory=dict)
    test_size: float | None = None  # the interval [ci_low, ci_high] has confidence 1 − test_size
    p_value: float | None = None  # the claim's own p-value for "the claim is true" (stochastic claims)
    p_adjusted: float | None = None  # Holm-adjusted: violated iff p_adjusted ≤ the verify's budget
    budget_share: float | None = None  # a: the level the claim's test was compared with (each interval end
    #                                    is a one-sided 1 − a bound, so test_size = 2a)
    sequential: bool = False  # anytime-valid p-value and confidence sequence (verify --until-conclusive)

    @property
    def in_verdict(self) -> bool:
        return self.kind != "identity" and self.verdict != NOT_APPLICABLE

    def to_json(self) -> dict:
        d = asdict(self)
        return {k: d[k] for k in ("id", "kind", "level", "violations", "runs", "rate", "ci_low", "ci_high",
                                  "verdict")} | {"main": self.main, "test_size": self.test_size,
                                                 "p_value": self.p_value, "p_adjusted": self.p_adjusted,
                                                 "budget_share": self.budget_share,
                                                 "sequential": self.sequential, "details": self.details}


# --------------------------------------------------------------------------------------------- binomial
def clopper_pearson(k: int, n: int, a: float = 0.05) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval for a binomial proportion at confidence 1 − a."""
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


def binomial_pvalue(k: int, n: int, alpha: float) -> float:
    """Exact one-sided p-value of "failure rate ≤ α" given k failures in n runs: P(Bin(n, α) ≥ k)."""
    if k <= 0:
        return 1.0
    return float(stats.binom.sf(k - 1, n, alpha))


def _runs_needed_rate(k: int, n: int, alpha: float, share: float) -> int | None:
    """Runs that would settle a probability claim if the observed failure rate persisted."""
    rate = k / n
    if abs(rate - alpha) < 1e-12 or n == 0:
        return None
    m = n
    for _ in range(40):
        m *= 2
        kk = round(rate * m)
        lo, hi = clopper_pearson(kk, m, 2 * share)
        if hi <= alpha or lo > alpha:
            return m
    return None


def detectable_rate(n: int, alpha: float, share: float, power: float = POWER_TARGET) -> float | None:
    """The smallest failure rate a probability claim at level ``alpha`` flags as violated with probability
    ``power`` with ``n`` runs when its test gets the share ``share`` (exact binomial calculation)."""
    if n <= 0 or not 0 < alpha < 1:
        return None
    ks = np.arange(n + 1)
    ok = stats.binom.sf(ks - 1, n, alpha) <= share
    if not ok.any():
        return None
    kcrit = int(ks[ok][0])  # the fewest failures that reject
    lo, hi = alpha, 1.0
    if stats.binom.sf(kcrit - 1, n, hi) < power:
        return None
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if stats.binom.sf(kcrit - 1, n, mid) >= power:
            hi = mid
        else:
            lo = mid
    return hi


# ------------------------------------------------------------------------------ anytime-valid: rates
def _log_mixture_evalue(k: np.ndarray, n: np.ndarray, q: float, side: str) -> np.ndarray:
    """log E_n of the uniform-mixture likelihood ratio against the boundary rate q.

    side "above": evidence that the rate exceeds q (H0: rate ≤ q); side "below": that it is under q."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    a, b = k + 1.0, n - k + 1.0
    q = float(np.clip(q, 1e-300, 1 - 1e-16))
    with np.errstate(divide="ignore"):
        if side == "above":
            mass = np.log(special.betaincc(a, b, q)) - np.log1p(-q)
        else:
            mass = np.log(special.betainc(a, b, q)) - np.log(q)
        return special.betaln(a, b) + mass - k * np.log(q) - (n - k) * np.log1p(-q)


def _mixture_pvalue(fail: np.ndarray, alpha: float) -> float:
    """Anytime-valid p-value of "rate ≤ α": 1 / max over every prefix of runs of the mixture e-value."""
    fail = np.asarray(fail, dtype=bool)
    n = np.arange(1, fail.size + 1)
    k = np.cumsum(fail)
    logE = _log_mixture_evalue(k, n, alpha, "above")
    return float(min(1.0, math.exp(-max(0.0, float(np.max(logE)))))) if fail.size else 1.0


def _mixture_cs(fail: np.ndarray, share: float) -> tuple[float, float]:
    """Running intersection of the mixture confidence sequences at share a (each end one-sided 1 − a)."""
    fail = np.asarray(fail, dtype=bool)
    if fail.size == 0:
        return 0.0, 1.0
    n = np.arange(1, fail.size + 1)
    k = np.cumsum(fail)
    thr = math.log(1.0 / share)

    def rejected(q: float, side: str) -> bool:
        return bool(np.max(_log_mixture_evalue(k, n, q, side)) >= thr)

    return _rejection_interval(rejected, 1e-12)


def _rejection_interval(rejected, edge: float) -> tuple[float, float]:
    """The ends of a confidence sequence on [0, 1] by bisection (50 halvings) of a monotone test:
    ``rejected(q, "above")`` rejects "value ≤ q" and ``rejected(q, "below")`` "value ≥ q" (some prefix's
    evidence reaches the threshold). Lower end sup{q : rejected(q, "above")} (0 when not even ``edge`` is
    rejected), upper end inf{q : rejected(q, "below")} (1 when not even 1 − ``edge`` is)."""
    lo, hi = 0.0, 1.0
    if rejected(edge, "above"):
        a_, b_ = edge, 1.0
        for _ in range(50):
            mid = 0.5 * (a_ + b_)
            a_, b_ = (mid, b_) if rejected(mid, "above") else (a_, mid)
        lo = a_
    if rejected(1 - edge, "below"):
        a_, b_ = 0.0, 1 - edge
        for _ in range(50):
            mid = 0.5 * (a_ + b_)
            a_, b_ = (a_, mid) if rejected(mid, "below") else (mid, b_)
        hi = b_
    return lo, hi


# ------------------------------------------------------------------------------ anytime-valid: means
def _betting_log_capital(y: np.ndarray, m: float, side: str, tune: float) -> np.ndarray:
    """log K_n, n = 1..N, of the hedged-capital bet against "mean ≤ m" (side "above") or "mean ≥ m" (side
    "below") for values y in [0, 1]; predictable plug-in bets (Waudby-Smith & Ramdas 2023, PrPl) tuned to
    level ``tune`` and truncated at half the largest admissible bet."""
    y = np.asarray(y, dtype=float)
    N = y.size
    i = np.arange(1, N + 1, dtype=float)
    mu_all = (0.5 + np.cumsum(y)) / (i + 1)  # μ̂_i, including y_i (a prior pseudo-observation 1/2)
    dev = np.concatenate([[0.0], np.cumsum((y - mu_all) ** 2)[:-1]])
    var_prev = (0.25 + dev) / i  # σ̂²_{i−1}: predictable
    lam = np.sqrt(2 * math.log(1.0 / tune) / (var_prev * i * np.log1p(i)))
    if side == "above":
        lam = np.minimum(lam, 0.5 / max(m, 1e-12))
        return np.cumsum(np.log1p(lam * (y - m)))
    lam = np.minimum(lam, 0.5 / max(1.0 - m, 1e-12))
    return np.cumsum(np.log1p(-lam * (y - m)))


def _betting_pvalue(y: np.ndarray, m: float, tune: float) -> float:
    if y.size == 0:
        return 1.0
    if m >= 1.0:
        return 1.0
    if m < 0.0:
        return 0.0
    logK = _betting_log_capital(y, m, "above", tune)
    return float(min(1.0, math.exp(-max(0.0, float(np.max(logK))))))


def _betting_cs(y: np.ndarray, share: float, tune: float) -> tuple[float, float]:
    """Running-intersection confidence sequence for the mean of y ∈ [0, 1] at share a (each end 1 − a)."""
    thr = math.log(1.0 / share)

    def rej(m: float, side: str) -> bool:
        return bool(np.max(_betting_log_capital(y, m, side, tune)) >= thr)

    return _rejection_interval(rej, 1e-9) if y.size else (0.0, 1.0)


# --------------------------------------------------------------------------------- calibration tests
def _adinf(z: float) -> float:
    """Asymptotic CDF of the Anderson–Darling statistic (Marsaglia & Marsaglia 2004)."""
    if z <= 0:
        return 0.0
    if z < 2.0:
        return math.exp(-1.2337141 / z) / math.sqrt(z) * (
            2.00012 + (0.247105 - (0.0649821 - (0.0347962 - (0.011672 - 0.00168691 * z) * z) * z) * z) * z)
    return math.exp(-math.exp(1.0776 - (2.30695 - (0.43424 - (0.082433 - (0.008056 - 0.0003146 * z) * z) * z)
                                        * z) * z))


def _ad_cdf(n: int, z: float) -> float:
    """P(A²_n < z) for a fully specified continuous distribution (Marsaglia & Marsaglia 2004, AD(n, z))."""
    x = _adinf(z)
    if x > 0.8:
        v = (-130.2137 + (745.2337 - (1705.091 - (1950.646 - (1116.360 - 255.7844 * x) * x) * x) * x) * x) / n
        return min(1.0, x + v)
    c = 0.01265 + 0.1757 / n
    if x < c:
        v = x / c
        v = math.sqrt(v) * (1.0 - v) * (49 * v - 102)
        return x + v * (0.0037 / (n * n) + 0.00078 / n + 0.00006) / n
    v = (x - c) / (0.8 - c)
    v = -0.00022633 + (1.59056 - (5.03456 - (6.70145 - (3.3171 - 0.64564 * v) * v) * v) * v) * v
    return x + v * (0.04213 / n + 0.01365 / (n * n))


def anderson_darling_normal(x: np.ndarray) -> tuple[float, float]:
    """(A², p-value) of the Anderson–Darling test of i.i.d. N(0, 1) (fully specified, no estimated
    parameters); log-CDFs keep far tails finite."""
    x = np.sort(np.asarray(x, dtype=float).ravel())
    n = x.size
    if n == 0:
        return float("nan"), 1.0
    i = np.arange(1, n + 1)
    logF = special.log_ndtr(x)
    logS = special.log_ndtr(-x[::-1])  # log(1 − F(x_(n+1−i)))
    a2 = float(-n - np.sum((2 * i - 1) * (logF + logS)) / n)
    p = 1.0 - _ad_cdf(n, a2)
    if a2 > 8.0:  # beyond the table's accuracy the asymptotic tail is exp(−exp(…)); keep it positive
        p = max(0.0, 1.0 - _adinf(a2))
    return a2, float(min(1.0, max(0.0, p)))


def ljung_box(u: np.ndarray, lags: int = 5) -> tuple[float, float, int]:
    """(Q, p-value, lags) of a Ljung–Box test of serial dependence within the rows of ``u`` (runs × steps)
    pooled over runs, for values whose mean (0) and variance (1) are known under the null:
    r_k = mean(u_t u_{t+k}) / mean(u²) over all within-run pairs, Q = Σ_k N_k r_k² ~ χ²_h."""
    u = np.asarray(u, dtype=float)
    u = u if u.ndim == 2 else u[None, :]
    finite = np.isfinite(u)
    denom = np.mean(u[finite] ** 2) if finite.any() else float("nan")
    h = min(lags, u.shape[1] - 1)
    if h < 1 or not np.isfinite(denom) or denom <= 0:
        return float("nan"), 1.0, 0
    Q = 0.0
    for k in range(1, h + 1):
        a, b = u[:, :-k], u[:, k:]
        ok = np.isfinite(a) & np.isfinite(b)
        nk = int(ok.sum())
        if nk == 0:
            continue
        r = float(np.sum(a[ok] * b[ok]) / nk / denom)
        Q += nk * r * r
    return float(Q), float(stats.chi2.sf(Q, h)), h


def calibration_pvalue(samples: Sequence[np.ndarray]) -> tuple[float, dict]:
    """One omnibus p-value for "every sample (runs × steps) is i.i.d. N(0, 1)": per sample an Anderson–Darling
    and a Ljung–Box p-value, Bonferroni-combined over all of them; plus the diagnostics."""
    comp, diag = {}, {}
    for j, u in enumerate(samples):
        u = np.asarray(u, dtype=float)
        u2 = u if u.ndim == 2 else u[None, :]
        flat = u2[np.isfinite(u2)]
        tag = "" if len(samples) == 1 else f"[{j}]"
        a2, p_ad = anderson_darling_normal(flat)
        q, p_lb, h = ljung_box(u2)
        comp[f"anderson_darling{tag}"], comp[f"ljung_box{tag}"] = p_ad, p_lb
        N = flat.size
        d = {"n": int(N), "anderson_darling": a2, "ljung_box": q, "ljung_box_lags": h}
        if N > 1:
            mean, var = float(flat.mean()), float(flat.var(ddof=1))
            u0, u1 = u2[:, :-1].ravel(), u2[:, 1:].ravel()
            ok = np.isfinite(u0) & np.isfinite(u1)
            r1 = float(np.sum(u0[ok] * u1[ok]) / np.sqrt(np.sum(u0[ok] ** 2) * np.sum(u1[ok] ** 2))) if ok.any() \
                else float("nan")
            chi = (N - 1) * var
            d.update(mean=mean, variance=var, lag1=r1, diagnostic_p_values={
                "mean": float(2 * stats.norm.sf(abs(mean) * np.sqrt(N))),
                "variance": float(2 * min(stats.chi2.cdf(chi, N - 1), stats.chi2.sf(chi, N - 1))),
                "lag1": float(2 * stats.norm.sf(abs(r1) * np.sqrt(max(int(ok.sum()), 1)))),
            })
        diag[f"sample{tag}" if tag else "sample"] = d
    p = float(min(1.0, len(comp) * min(comp.values()))) if comp else 1.0
    return p, {"component_p_values": comp, **diag}


SEQUENTIAL_LOOKS = "chunks 1, 2, 4, 8, … (weights 1/((j+1)(j+2)))"


def _sequential_calibration_pvalue(samples: Sequence[np.ndarray], chunk: int) -> tuple[float, dict]:
    """Anytime-valid omnibus p-value: the fixed-N p-value at looks after 2^j chunks of runs, union-bounded."""
    runs = np.asarray(samples[0]).shape[0]
    best, details, j = 1.0, {}, 0
    while (2**j) * chunk <= runs:
        n = (2**j) * chunk
        p, det = calibration_pvalue([np.asarray(s)[:n] for s in samples])
        best = min(best, p * (j + 1) * (j + 2))
        details = det
        j += 1
    if j == 0:  # fewer runs than one chunk: look at what there is (first look, weight 2)
        p, details = calibration_pvalue(samples)
        best = min(best, 2 * p)
    return float(min(1.0, best)), details | {"looks": j}


# ------------------------------------------------------------------------------------- evidence
@dataclass
class Evidence:
    """What one stochastic claim's data say before the budget is split: its p-value and, for any share a,
    its interval and how many runs would settle it."""

    id: str
    kind: str
    level: float
    p_value: float
    violations: int
    runs: int
    rate: float | None
    interval: Callable[[float], tuple[float | None, float | None]]
    runs_needed: Callable[[float], int | None] = lambda a: None
    details: dict = field(default_factory=dict)
    sequential: bool = False
    settles: bool = True  # False: "holds" is decided by the interval (probability, expectation)


def probability_evidence(claim_id: str, failures: np.ndarray, alpha: float, *, sequential: bool = False) -> Evidence:
    failures = np.asarray(failures, dtype=bool)
    k, n = int(failures.sum()), int(failures.size)
    if sequential:
        p = _mixture_pvalue(failures, alpha)
        interval = lambda a: _mixture_cs(failures, a)  # noqa: E731
    else:
        p = binomial_pvalue(k, n, alpha)
        interval = lambda a: clopper_pearson(k, n, 2 * a)  # noqa: E731
    return Evidence(claim_id, "probability", float(alpha), p, k, n, k / n if n else None, interval,
                    runs_needed=lambda a: _runs_needed_rate(k, n, alpha, a), sequential=sequential, settles=False)


def _t_pvalue(x: np.ndarray, bound: float) -> float:
    """One-sided Student-t p-value of "mean ≤ bound" (constant values: 0 or 1)."""
    n = x.size
    if n < 2:
        return 1.0
    mean, se = float(x.mean()), float(x.std(ddof=1)) / math.sqrt(n)
    if se > 0:
        return float(stats.t.sf((mean - bound) / se, n - 1))
    return 0.0 if mean > bound else 1.0


def expectation_evidence(claim_id: str, values: np.ndarray, bound: float, *, sequential: bool = False,
                         value_range: tuple[float, float] | None = None, tune: float = 0.01,
                         chunk: int = 25) -> Evidence:
    """E[X] ≤ ``bound`` from per-run values. ``violations`` counts runs whose X exceeds the bound (descriptive:
    single runs may exceed an expectation bound). Sequential mode uses a betting e-process when the values'
    range is declared, else the t test at looks after 1, 2, 4, … chunks, union-bounded like calibration."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = int(x.size)
    mean = float(x.mean()) if n else float("nan")
    sd = float(x.std(ddof=1)) if n > 1 else float("nan")
    details = {"mean": mean, "sd": sd if n > 1 else None, "bound": float(bound)}
    if sequential and value_range is None:
        p, j = 1.0, 0
        while (2**j) * chunk <= n:
            p = min(p, _t_pvalue(x[:(2**j) * chunk], bound) * (j + 1) * (j + 2))
            j += 1
        if j == 0:
            p = min(1.0, 2 * _t_pvalue(x, bound))
        details["looks_schedule"] = SEQUENTIAL_LOOKS
        se = sd / math.sqrt(n) if n > 1 else float("inf")

        def interval(a: float) -> tuple[float, float]:  # the fixed-N interval at the share, Bonferroni over looks
            if n <= 1 or not np.isfinite(se):
                return -math.inf, math.inf
            jj = max(j - 1, 0)
            half = float(stats.t.ppf(1 - a / ((jj + 1) * (jj + 2)), n - 1) * se)
            return mean - half, mean + half
        return Evidence(claim_id, "expectation", float(bound), float(min(1.0, p)), int((x > bound).sum()), n, mean,
                        interval, details=details, sequential=True, settles=False)
    if sequential:
        lo_r, hi_r = float(value_range[0]), float(value_range[1])
        span = max(hi_r - lo_r, 1e-300)
        y = np.clip((x - lo_r) / span, 0.0, 1.0)
        m = (float(bound) - lo_r) / span
        p = _betting_pvalue(y, m, tune)
        details["range"] = [lo_r, hi_r]

        def interval(a: float) -> tuple[float, float]:
            lo, hi = _betting_cs(y, a, tune)
            return lo_r + lo * span, lo_r + hi * span
    else:
        se = sd / math.sqrt(n) if n > 1 else float("inf")
        p = _t_pvalue(x, bound)

        def interval(a: float) -> tuple[float, float]:
            if n <= 1:
                return -math.inf, math.inf
            half = float(stats.t.ppf(1 - a, n - 1) * se) if se > 0 else 0.0
            return mean - half, mean + half
    return Evidence(claim_id, "expectation", float(bound), p, int((x > bound).sum()), n, mean, interval,
                    details=details, sequential=sequential, settles=False)


def calibration_evidence(claim_id: str, samples: np.ndarray | Sequence[np.ndarray], *, sequential: bool = False,
                         chunk: int = 25) -> Evidence:
    """Innovations (or standardised draws) must be i.i.d. N(0,1); ``samples``: one (runs × steps) array or a
    list of them (tested together, one omnibus p-value)."""
    if isinstance(samples, np.ndarray):
        samples = [samples]
    samples = [np.asarray(s, dtype=float) for s in samples]
    samples = [s if s.ndim == 2 else s[None, :] for s in samples]
    if sequential:
        p, det = _sequential_calibration_pvalue(samples, chunk)
        det["looks_schedule"] = SEQUENTIAL_LOOKS
    else:
        p, det = calibration_pvalue(samples)
    runs = int(samples[0].shape[0])
    return Evidence(claim_id, "calibration", 0.0, p, 0, runs, None, lambda a: (None, None), details=det,
                    sequential=sequential, settles=True)


def finish(ev: Evidence, share: float, rejected: bool, p_adjusted: float | None = None, **meta) -> ClaimResult:
    """The claim's result once the budget gave it ``share`` and decided whether it is ``rejected``."""
    lo, hi = ev.interval(share)
    details = dict(meta.pop("details", {})) | ev.details
    if rejected:
        verdict = "violated"
    elif ev.settles:
        verdict = "holds"  # calibration: no evidence against the identity at its share
    elif hi is not None and hi <= ev.level:
        verdict = "holds"
    else:
        verdict = "inconclusive"
        if not ev.sequential:
            details["runs_needed"] = ev.runs_needed(share)
    level = ev.level
    if ev.kind == "calibration":
        details.setdefault("rejected", ["omnibus"] if rejected else [])
        level = float(share)  # a calibration test's level is its own size (compared with its p-value)
    return ClaimResult(ev.id, ev.kind, level, int(rejected) if ev.kind == "calibration" else ev.violations,
                       ev.runs, ev.p_value if ev.kind == "calibration" else ev.rate,
                       None if lo is None else float(lo), None if hi is None else float(hi), verdict,
                       details=details, test_size=None if ev.kind == "calibration" else 2 * float(share),
                       p_value=float(ev.p_value), p_adjusted=None if p_adjusted is None else float(p_adjusted),
                       budget_share=float(share), sequential=ev.sequential, **meta)


# ------------------------------------------------------------------ single-claim verdicts (compatibility)
def probability_verdict(claim_id: str, kind: str, failures: np.ndarray, alpha: float, a: float = 0.05,
                        **meta) -> ClaimResult:
    """One probability claim tested on its own with a two-sided (1 − a) Clopper–Pearson interval."""
    ev = probability_evidence(claim_id, failures, alpha)
    res = finish(ev, a / 2, ev.p_value <= a / 2, **meta)
    res.kind = kind
    return res


def expectation_verdict(claim_id: str, values: np.ndarray, bound: float, a: float = 0.05, **meta) -> ClaimResult:
    """One expectation claim tested on its own with a two-sided (1 − a) Student-t interval."""
    ev = expectation_evidence(claim_id, values, bound)
    return finish(ev, a / 2, ev.p_value <= a / 2, **meta)


def calibration_verdict(claim_id: str, u: np.ndarray, a: float = 0.01, **meta) -> ClaimResult:
    """One calibration claim tested on its own at size ``a`` (the omnibus p-value)."""
    ev = calibration_evidence(claim_id, u)
    return finish(ev, a, ev.p_value <= a, **meta)


def deterministic_verdict(claim_id: str, counterexamples: np.ndarray, applicable: np.ndarray | None = None,
                          a: float = 0.05, kind: str = "deterministic", **meta) -> ClaimResult:
    """Any counterexample is a violation; ``applicable`` counts the runs where the premise held. The interval
    on the counterexample rate (two-sided, 1 − a) is descriptive: the claim is outside the budget."""
    bad = np.asarray(counterexamples, dtype=bool)
    k, n = int(bad.sum()), int(bad.size)
    lo, hi = clopper_pearson(k, n, a)
    details = dict(meta.pop("details", {}))
    if applicable is not None:
        details["premise_held"] = int(np.asarray(applicable, dtype=bool).sum())
    if k:
        details["first_counterexample_run"] = int(np.flatnonzero(bad)[0])
    return ClaimResult(claim_id, kind, None, k, n, k / n if n else None, lo, hi,
                       "violated" if k else "holds", details=details, test_size=a, **meta)


def identity_verdict(claim_id: str, counterexamples: np.ndarray, applicable: np.ndarray | None = None,
                     **meta) -> ClaimResult:
    """A sanity identity (true by construction): computed like a deterministic claim, outside the verdict."""
    return deterministic_verdict(claim_id, counterexamples, applicable, kind="identity", **meta)


def smallest_detectable(r: ClaimResult, share: float, power: float = POWER_TARGET) -> dict | None:
    """The smallest effect claim ``r`` flags with probability ``power`` at its number of runs when its test gets
    ``share`` of the budget: a failure rate (probability), an excess of the mean over the bound in the claim's
    units (expectation, at the observed spread), a counterexample rate (deterministic), or normal-theory
    equivalents of the omnibus test (calibration: mean shift, scale factor, lag-1 correlation)."""
    n = int(r.runs or 0)
    if n <= 0:
        return None
    zb = float(stats.norm.ppf(power))
    if r.kind == "probability" and r.level is not None:
        return {"failure_rate": detectable_rate(n, float(r.level), share, power), "share": share}
    if r.kind == "expectation":
        sd = r.details.get("sd")
        scale = max(abs(float(r.details.get("mean") or 0.0)), abs(float(r.level or 0.0)), 1e-300)
        if sd is None or not np.isfinite(sd) or n < 2 or sd <= 1e-9 * scale:
            return None  # constant values: no spread to scale an effect by
        return {"mean_excess": float((stats.t.ppf(1 - share, n - 1) + zb) * sd / math.sqrt(n)), "share": share}
    if r.kind == "calibration":
        comps = r.details.get("component_p_values") or {}
        sizes = [d["n"] for k, d in r.details.items() if k.startswith("sample") and isinstance(d, dict) and "n" in d]
        if not sizes:
            return None
        nv = min(sizes)
        za = float(stats.norm.isf(share / max(len(comps), 1) / 2))
        eff = (za + zb) / math.sqrt(nv)
        return {"mean_shift": eff, "scale_factor": float(math.exp((za + zb) / math.sqrt(2 * nv))), "lag1": eff,
                "share": share, "values": int(nv), "approximate": True}
    if r.kind in ("deterministic", "identity"):
        return {"counterexample_rate": float(1 - (1 - power) ** (1 / n))}
    if r.kind == "equality":  # two-sided t test of E[X] = 0: the smallest |mean| flagged
        sd = r.details.get("sd")
        if sd is None or not np.isfinite(sd) or n < 2 or sd <= 0:
            return None
        return {"mean_difference": float((stats.t.ppf(1 - share / 2, n - 1) + zb) * sd / math.sqrt(n)),
                "share": share}
    return None


def equality_evidence(claim_id: str, values: np.ndarray) -> Evidence:
    """E[X] = 0 from per-run values of X (a stochastic identity, centred): two-sided one-sample t test. Like a
    calibration test it *settles*: violated when the budget rejects it, holds otherwise; ``rate`` is the mean,
    the interval its t interval at the share (each end one-sided)."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = int(x.size)
    mean = float(x.mean()) if n else float("nan")
    sd = float(x.std(ddof=1)) if n > 1 else float("nan")
    se = sd / math.sqrt(n) if n > 1 else float("inf")
    scale = max(float(np.abs(x).max()) if n else 0.0, 1e-300)
    if n > 1 and sd > 1e-12 * scale:
        p = float(2 * stats.t.sf(abs(mean) / se, n - 1))
    else:  # no spread: the identity holds exactly iff every value is 0 (to round-off)
        p = 1.0 if n and abs(mean) <= 1e-9 * scale else (0.0 if n else 1.0)

    def interval(a: float) -> tuple[float, float]:
        if n <= 1 or not np.isfinite(se):
            return -math.inf, math.inf
        half = float(stats.t.ppf(1 - a, n - 1) * se)
        return mean - half, mean + half

    details = {"mean": mean, "sd": sd if n > 1 else None, "effect": mean / sd if n > 1 and sd > 0 else None}
    return Evidence(claim_id, "equality", 0.0, p, int(p <= 0.0), n, mean, interval, details=details, settles=True)


def anytime_expectation_evidence(claim_id: str, sample: np.ndarray, bound: float = 0.0) -> Evidence:
    """E[X_t] ≤ ``bound`` for every column t of ``sample`` (runs × T) at once. p-value: the smallest one-sided
    t-test p-value over t, times T (Bonferroni over the steps); interval at share a: every step's one-sided
    bounds at 1 − a/T, reported at the step with the largest upper end (holds iff that end is below the bound)."""
    x = np.asarray(sample, dtype=np.float64)
    x = x if x.ndim == 2 else x[:, None]
    n, T = x.shape
    mean = np.nanmean(x, axis=0)
    sd = np.nanstd(x, axis=0, ddof=1) if n > 1 else np.full(T, np.inf)
    se = sd / math.sqrt(max(n, 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        tstat = np.where(se > 0, (mean - bound) / se, np.where(mean > bound, np.inf, -np.inf))
    p_t = stats.t.sf(tstat, max(n - 1, 1)) if n > 1 else np.ones(T)
    p = float(min(1.0, np.min(p_t) * T))

    def interval(a: float) -> tuple[float, float]:
        if n <= 1:
            return -math.inf, math.inf
        half = stats.t.ppf(1 - a / T, n - 1) * se
        worst = int(np.argmax(mean + half))
        return float(mean[worst] - half[worst]), float(mean[worst] + half[worst])

    worst_mean = int(np.argmax(mean))
    details = {"worst_t": worst_mean + 1, "steps": T, "bound": float(bound),
               "max_mean": float(mean[worst_mean]), "steps_above_bound": int(np.sum(mean > bound))}
    return Evidence(claim_id, "expectation", float(bound), p, int(np.sum(np.nanmax(x, axis=1) > bound)), n,
                    float(mean[worst_mean]), interval, details=details, settles=False)


def theorem_verdict(results: list[ClaimResult]) -> str:
    """Violated if any claim of the verdict is; holds if all hold; else inconclusive. Sanity identities and
    claims not applicable to the checked policy stay outside."""
    verdicts = [r.verdict for r in results if r.kind != "identity" and r.verdict != NOT_APPLICABLE]
    if "violated" in verdicts:
        return "violated"
    if not verdicts:  # nothing was checked (every claim needs a record the policy lacks): no grounds for "holds"
        return "inconclusive"
    return "holds" if all(v == "holds" for v in verdicts) else "inconclusive"
