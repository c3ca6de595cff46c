r"""Certified brackets on the maximum information gain γ_T of a finite domain (stationary, time-varying, batch).

:func:`gamma_bracket` returns, for every ``t ≤ T`` in one pass, a lower end attained by an actual point set (the
greedy) and an upper end: the minimum of certified bounds (:mod:`~boundcheck.model.mig_certificates`), closed
under monotonicity and subadditivity. Every bound is a theorem plus floating-point rounding; nothing is
estimated. The definitions, each method and its proof, and the costs are in docs/gamma.md.

This module holds the greedy, the drivers, the disk cache with the checks an entry passes before it is used, the
brute-force reference (tests) and :func:`gamma_for_grid`.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.linalg import LinAlgError
from threadpoolctl import threadpool_limits

from ..errors import BoundcheckError
from ..runtime.cache import cache
from ..utils.validation import check_int, check_positive, check_square_matrix, check_unit_interval
from .domains import grid
from .information import gain_increments
from .kernels import check_psd, make_kernel, spatio_temporal_gram
from .mig_certificates import (  # noqa: F401 (_tv_design_certificates: the tests reach it through this module)
    _block_bounds,
    _envelope,
    _kronecker_tv,
    _monotone,
    _relaxation_stationary,
    _relaxation_tv,
    _Spectrum,
    _subadditive,
    _tv_design_certificates,
)

__all__ = [
    "GammaBracket",
    "gamma_bracket",
    "exact_gamma_bruteforce",
    "gamma_for_grid",
    "METHODS",
    "UPPER_METHODS",
]

UPPER_METHODS = (
    "greedy_submodular",
    "seq_greedy_2x",
    "greedy_online",
    "relaxation",
    "conditioning",
    "kronecker",
    "block",
    "block_hadamard",
)
METHODS = ("greedy",) + UPPER_METHODS
_STATIONARY_ONLY = {"greedy_submodular"}
_TV_ONLY = {"block", "block_hadamard"}

_E_FACTOR = 1.0 - 1.0 / math.e
_MAX_GRID_POINTS = 6000  # gamma_for_grid: n×n matrices and O(n³) steps beyond this are impractical
_MAX_BRUTEFORCE = 300_000  # exact_gamma_bruteforce: candidate sets enumerated at most
_EXACT_PREFIX_MAX = 3000  # Cholesky recomputation of the greedy value up to this many observations


#: Run the bracket with single-threaded BLAS (restored afterwards, via threadpoolctl). The work is thousands
#: of small (≤ n×n) factorisations, where multi-threaded OpenBLAS on a busy machine is 10–100× slower.
LIMIT_BLAS_THREADS = True


def _blas_single_thread():
    return threadpool_limits(limits=1, user_api="blas") if LIMIT_BLAS_THREADS else contextlib.nullcontext()


# ---------------------------------------------------------------------------------------------- result
@dataclass(frozen=True)
class GammaBracket:
    """``lower[t-1] ≤ γ_t ≤ upper[t-1]`` for ``t = 1..horizon``; per-method curves in ``methods``; ``design``: the
    greedy picks (indices into the domain, ``horizon·batch`` in order, round ``t`` holding ``batch`` of them)
    whose information is the lower end (None where unknown)."""

    horizon: int
    lower: np.ndarray
    upper: np.ndarray
    methods: dict[str, np.ndarray]
    design: np.ndarray | None = field(default=None, repr=False, compare=False)

    def _index(self, t: int | None) -> int:
        t = self.horizon if t is None else t
        if isinstance(t, bool) or not float(t).is_integer() or not (1 <= int(t) <= self.horizon):
            raise BoundcheckError(f"t must be an integer in 1..{self.horizon}, got {t!r}")
        return int(t) - 1

    def at(self, t: int) -> tuple[float, float]:
        """``(lower, upper)`` at ``t``."""
        i = self._index(t)
        return float(self.lower[i]), float(self.upper[i])

    def to_dict(self, t: int | None = None) -> dict:
        """``{"lower", "upper", "methods": {name: value}}`` at ``t`` (default: the horizon).

        Methods that do not apply to the definition in force have the value ``None`` (JSON ``null``).
        """
        i = self._index(t)
        meth = {}
        for name, curve in self.methods.items():
            v = float(curve[i])
            meth[name] = v if np.isfinite(v) else None
        return {"lower": float(self.lower[i]), "upper": float(self.upper[i]), "methods": meth}


# ------------------------------------------------------------------------------------------ validation
def _check_K(K) -> np.ndarray:
    K = check_square_matrix("kernel matrix K", K)
    if K.shape[0] < 1:
        raise BoundcheckError("kernel matrix K must not be empty")
    check_psd(K, name="kernel matrix K")
    return 0.5 * (K + K.T)


def _validate(K, horizon, noise_var, eps, batch):
    return (_check_K(K), check_int("horizon", horizon), check_positive("noise_var", noise_var),
            check_unit_interval("eps", eps), check_int("batch", batch))


# --------------------------------------------------------------------------------------------- greedy
def _greedy_stationary(K: np.ndarray, s2: float, steps: int):
    """Plain greedy on multisets (max posterior variance), ``steps`` picks.

    Returns picks, gains δ_j (δ_{j+1} = max_x ½log(1+σ²_j/s2) *before* pick j+1, so also the online-bound
    slope after j picks), and the Frank–Wolfe lines (a_j, b_j) of the greedy count vectors for j = 0..steps.
    """
    n = K.shape[0]
    S = K.copy()
    counts = np.zeros(n)
    picks = np.empty(steps, dtype=np.int64)
    gains = np.empty(steps)
    fw_a = np.empty(steps + 1)
    fw_b = np.empty(steps + 1)
    G = 0.0
    for j in range(steps + 1):
        d = np.clip(np.diag(S), 0.0, None)
        g = d / (2.0 * s2)
        fw_a[j] = G - float(counts @ g)
        fw_b[j] = float(g.max())
        if j == steps:
            break
        i = int(np.argmax(d))
        gain = 0.5 * math.log1p(d[i] / s2)
        picks[j] = i
        gains[j] = gain
        G += gain
        counts[i] += 1.0
        v = S[:, i].copy()
        S -= np.outer(v, v / (s2 + v[i]))
    return picks, gains, fw_a, fw_b


def _greedy_tv(K: np.ndarray, s2: float, eps: float, T: int, Kb: int):
    """Sequential greedy under the time-varying kernel: Kalman predict Σ ← (1−ε)Σ + εK, then ``Kb`` rank-1
    conditionings per round. Returns picks (T·Kb), per-pick gains, and per-round filtered max gains
    max_x ½log(1 + σ²_{τ|τ}(x)/s2) (after the round's picks)."""
    S = K.copy()
    picks = np.empty(T * Kb, dtype=np.int64)
    gains = np.empty(T * Kb)
    filt = np.empty(T)
    j = 0
    for t in range(T):
        if t > 0 and eps > 0:
            S *= 1.0 - eps
            S += eps * K
        for _ in range(Kb):
            d = np.clip(np.diag(S), 0.0, None)
            i = int(np.argmax(d))
            picks[j] = i
            gains[j] = 0.5 * math.log1p(d[i] / s2)
            j += 1
            v = S[:, i].copy()
            S -= np.outer(v, v / (s2 + v[i]))
        filt[t] = 0.5 * math.log1p(float(np.clip(np.diag(S), 0.0, None).max()) / s2)
    return picks, gains, filt


def _prefix_info(K: np.ndarray, s2: float, eps: float, picks: np.ndarray, times: np.ndarray,
                 gains: np.ndarray) -> np.ndarray:
    """I(y_{A_j}; f) for every prefix j of the greedy multiset, recomputed directly by one Cholesky factor of
    I + s2⁻¹K̃_A (prefix blocks of a Cholesky factor are the factors of the prefixes). Falls back to the
    greedy's own running sums when the set is large."""
    m = len(picks)
    if m <= _EXACT_PREFIX_MAX:
        G = spatio_temporal_gram(K, picks, times, eps) if eps > 0 else K[np.ix_(picks, picks)]
        try:
            return np.cumsum(gain_increments(G, s2))
        except LinAlgError:  # pragma: no cover - I + PSD/s2 is PD; only pathological rounding lands here
            pass
    return np.cumsum(gains)



# --------------------------------------------------------------------------------------------- drivers
def _stationary_curves(K: np.ndarray, spec: _Spectrum, s2: float, m_max: int, want: set[str],
                       light: bool = False):
    """Curves indexed by the number of observations m = 1..m_max (stationary kernel), and the greedy's first
    ``m_max`` picks (the design that attains the ``greedy`` curve).

    ``light``: fewer relaxation iterations (used for the block bound's inner stationary curve).
    """
    extra = min(m_max // 2, 1000)
    picks, gains, fw_a, fw_b = _greedy_stationary(K, s2, m_max + extra)
    m = np.arange(1, m_max + 1, dtype=np.float64)
    lower = _prefix_info(K, s2, 0.0, picks[:m_max], np.zeros(m_max), gains[:m_max])
    curves: dict[str, np.ndarray] = {"greedy": lower}
    if "greedy_submodular" in want:
        curves["greedy_submodular"] = lower / _E_FACTOR
    if "seq_greedy_2x" in want:
        curves["seq_greedy_2x"] = 2.0 * lower
    Gj = np.concatenate([[0.0], np.cumsum(gains)])
    if "greedy_online" in want:
        curves["greedy_online"] = _envelope(np.stack([Gj[:-1], gains], axis=1), m)
    if "relaxation" in want or "conditioning" in want:
        fw_r, cond_r = (_relaxation_stationary(spec, s2, m_max, max_iter=12, n_budgets=6) if light
                        else _relaxation_stationary(spec, s2, m_max))
        tail = spec.tail(m, s2)
        if "relaxation" in want:
            greedy_fw = _envelope(np.stack([fw_a, fw_b], axis=1), m)
            curves["relaxation"] = np.minimum(greedy_fw, _envelope(fw_r, m) + tail)
        if "conditioning" in want:
            curves["conditioning"] = np.minimum(_envelope(np.stack([Gj[:-1], gains], axis=1), m),
                                                _envelope(cond_r, m) + tail)
    if "kronecker" in want:
        lam = spec.lam[spec.lam > 0]
        curves["kronecker"] = 0.5 * np.log1p(m[:, None] * lam[None, :] / s2).sum(1) if lam.size else 0 * m
    return curves, picks[:m_max]


def _combine(curves: dict[str, np.ndarray], T: int, requested: list[str], applies: set[str],
             design: np.ndarray) -> GammaBracket:
    lower = np.maximum.accumulate(np.asarray(curves["greedy"], dtype=np.float64))
    methods = {"greedy": lower}
    upper = np.full(T, np.inf)
    for name in requested:
        if name == "greedy":
            continue
        if name in applies and name in curves:
            c = _monotone(np.asarray(curves[name], dtype=np.float64))
            methods[name] = c
            upper = np.minimum(upper, c)
        else:
            methods[name] = np.full(T, np.nan)
    upper = _monotone(_subadditive(_monotone(upper)))
    # rounding: a certified bound can coincide with an attained value (e.g. t = 1)
    slack = 1e-9 * np.maximum(np.abs(lower), 1.0)
    bad = upper < lower - slack
    if np.any(bad):  # pragma: no cover - would mean a bug in a certificate
        t = int(np.flatnonzero(bad)[0]) + 1
        raise RuntimeError(f"internal error: certified upper {upper[t - 1]:.6g} < attained {lower[t - 1]:.6g} "
                           f"at t = {t}")
    upper = np.maximum(upper, lower)
    return GammaBracket(horizon=T, lower=lower, upper=upper, methods=methods, design=design)


def gamma_bracket(K: np.ndarray, horizon: int, *, noise_var: float, eps: float = 0.0, batch: int = 1,
                  methods: Sequence[str] | None = None) -> GammaBracket:
    """Certified bracket ``lower[t-1] ≤ γ_t ≤ upper[t-1]`` for every ``t = 1..horizon``.

    ``K``: the n×n Gram matrix of k_X on the domain (symmetric PSD). ``noise_var``: ``s2`` (``R²`` or ``λ``).
    ``eps``: 0 for the stationary γ, ``> 0`` for the time-varying γ̃ of Bogunovic et al. ``batch``: ``K``
    observations per round (γ_{TK}; the curve is indexed by rounds). ``methods``: the upper-bound methods to
    compute (default: all). The lower end, ``"greedy"``, is always computed. See docs/gamma.md for
    the definitions and the proof behind each method.
    """
    K, T, s2, eps, Kb = _validate(K, horizon, noise_var, eps, batch)
    if methods is None:
        requested = list(METHODS)
    else:
        if isinstance(methods, str):
            methods = [methods]
        requested = list(dict.fromkeys(["greedy", *methods]))
        unknown = [m for m in requested if m not in METHODS]
        if unknown:
            raise BoundcheckError(f"unknown γ method(s) {', '.join(map(repr, unknown))}; choose from "
                                  f"{', '.join(UPPER_METHODS)}")
        if len(requested) == 1:
            raise BoundcheckError(f"methods must include at least one upper-bound method ({', '.join(UPPER_METHODS)})")
    key = _cache_key(K, T, s2, eps, Kb, requested)
    cached = _cache_load(key, K, T, s2, eps, Kb, requested)
    if cached is not None:
        return cached
    with _blas_single_thread():
        result = _bracket(K, T, s2, eps, Kb, requested)
    _cache_store(key, result, eps, Kb)
    return result


# ------------------------------------------------------------------------------------------------ disk cache
# A bracket is a pure function of (K, T, s2, eps, batch, methods) and of this code: it is kept on disk between
# commands (a verify on a 900-point domain otherwise spends seconds on it every time). The key hashes the inputs'
# bytes, the sources of the modules that compute it and the numpy/scipy versions, so any change recomputes it.
# The folder is the runtime's cache "gamma" (boundcheck.runtime.cache: ~/.cache/boundcheck/gamma);
# BOUNDCHECK_GAMMA_CACHE: another folder, or "off".
#
# The bracket enters every bound, so an entry decides verdicts: it is accepted only when (1) the runtime cache's
# HMAC tag verifies (a per-user secret outside the cache folders: nobody else can write an entry this process
# reads) and (2) its content passes independent checks against this instance (_entry_problem): the lower end is
# re-attained by the stored greedy design, the curves derived from it are recomputed, the upper end is the closure
# of the stored method curves and lies between the lower end and the trivial bound. (2) costs one Cholesky factor
# of the design's T·batch observations (milliseconds, see docs/performance.md), not the bracket's seconds; it
# catches an entry of another instance even with the right tag. An entry that fails either is reported (one
# CacheIntegrityWarning line naming the file and the reason), recomputed and rewritten.
_CACHE_ENTRIES = 256  # most brackets kept (the oldest are removed)
_CACHE = cache("gamma", "BOUNDCHECK_GAMMA_CACHE", _CACHE_ENTRIES)
_CHECK_RTOL = 1e-9  # recomputed values must agree with the stored ones to this relative tolerance


@functools.lru_cache(maxsize=1)
def _code_fingerprint() -> bytes:
    import scipy

    from . import domains, information, kernels, mig_certificates

    h = hashlib.sha256(f"{np.__version__}|{scipy.__version__}|{LIMIT_BLAS_THREADS}".encode())
    for mod in (__file__, mig_certificates.__file__, domains.__file__, information.__file__, kernels.__file__):
        h.update(Path(mod).read_bytes())
    return h.digest()


def _cache_key(K: np.ndarray, T: int, s2: float, eps: float, Kb: int, requested: list[str]) -> str:
    h = hashlib.sha256(_code_fingerprint())
    h.update(repr((K.shape, T, float(s2), float(eps), Kb, tuple(requested))).encode())
    h.update(np.ascontiguousarray(K, dtype=np.float64).tobytes())
    return h.hexdigest()


def _design_times(T: int, eps: float, Kb: int) -> np.ndarray:
    """The time of each greedy observation, as :func:`_prefix_info` takes it (round t: ``Kb`` at time t)."""
    return np.repeat(np.arange(1, T + 1, dtype=np.float64), Kb) if eps > 0 else np.zeros(T * Kb)


def _design_gains(K: np.ndarray, s2: float, eps: float, picks: np.ndarray, Kb: int) -> np.ndarray:
    """½ log(1 + σ²(x_j)/s2) of each pick given the earlier ones, by the greedy's own rank-one updates (and, for
    ``eps > 0``, its Kalman predictions) along a given design: what :func:`_prefix_info` falls back to beyond
    ``_EXACT_PREFIX_MAX`` observations, re-attained without the greedy's argmax.

    Only the covariance among the points the design visits is needed (conditioning on an observation at a
    visited point and the prediction act on that block entry by entry, with the same arithmetic as on the whole
    matrix), so the cost is O(T·batch·d²) for d distinct picks, not O(T·batch·n²)."""
    visited, local = np.unique(picks, return_inverse=True)
    Kd = K[np.ix_(visited, visited)]
    S = Kd.copy()
    gains = np.empty(len(picks))
    for j, i in enumerate(local):
        i = int(i)
        if j and j % Kb == 0 and eps > 0:
            S *= 1.0 - eps
            S += eps * Kd
        d = max(float(S[i, i]), 0.0)
        gains[j] = 0.5 * math.log1p(d / s2)
        v = S[:, i].copy()
        S -= np.outer(v, v / (s2 + v[i]))
    return gains


def _disagree(stored: np.ndarray, recomputed: np.ndarray) -> bool:
    """Whether a stored curve differs from its recomputation by more than ``_CHECK_RTOL`` relative."""
    with np.errstate(invalid="ignore"):  # inf − inf: equal infinities agree
        close = (stored == recomputed) | (np.abs(stored - recomputed) <= _CHECK_RTOL * np.abs(recomputed))
    return not bool(np.all(close))


def _entry_problem(K: np.ndarray, T: int, s2: float, eps: float, Kb: int, requested: list[str],
                   lower: np.ndarray, upper: np.ndarray, methods: dict[str, np.ndarray], picks: np.ndarray,
                   times: np.ndarray) -> str | None:
    """Why a stored bracket is not the bracket of this instance, or None when it passes every check.

    The checks need none of the bracket's certificates: the lower end must be the information of the stored
    design (an admissible multiset for this K, T, ε and batch; recomputed by :func:`_prefix_info`, so it is
    attained), the curves that follow from it (``greedy_submodular``, ``seq_greedy_2x``) must be the stored ones,
    the upper end must be the monotone and subadditive closure of the stored method curves (as
    :func:`_combine` makes it), each of which is at least the lower end, and the upper end must not exceed the
    trivial bound ``t·batch·½ log(1 + κ/s2)`` (κ = max diag K: no observation adds more) where the methods
    computed guarantee it. A forged entry can then only move the upper end within [lower, min(certificates
    derived from the lower end, trivial bound)]; the tag of :mod:`boundcheck.runtime.cache` is what excludes it.
    """
    n, m = K.shape[0], T * Kb
    arrays = [lower, upper, *methods.values()]
    if any(np.shape(v) != (T,) for v in arrays) or np.shape(picks) != (m,) or np.shape(times) != (m,):
        return "its arrays do not have this instance's shapes"
    if not (np.issubdtype(picks.dtype, np.integer) and all(np.issubdtype(v.dtype, np.floating) for v in arrays)):
        return "its arrays do not have the expected types"
    # +inf is the upper end where no requested method applies (e.g. only "block" at ε = 0): the closure below
    # decides whether it is that
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper) | (upper == np.inf))):
        return "its bracket is not finite"
    if m and (picks.min() < 0 or picks.max() >= n):
        return f"its design names points outside the domain of {n}"
    if not np.array_equal(times, _design_times(T, eps, Kb)):
        return "its design's times are not those of this horizon and batch"
    rounds = np.arange(1, T + 1) * Kb - 1
    if m <= _EXACT_PREFIX_MAX:  # one Cholesky factor; NaN gains: a factorisation that fails rejects the entry
        info = _prefix_info(K, s2, eps, picks, times, np.full(m, np.nan))
    else:  # beyond it the bracket itself used the greedy's running sums: the same updates, along the design
        info = np.cumsum(_design_gains(K, s2, eps, picks, Kb))
    raw = info[rounds]
    if _disagree(lower, np.maximum.accumulate(raw)) or _disagree(methods.get("greedy", lower), lower):
        return "its lower end is not the information of its stored design"
    if np.any(upper[1:] < upper[:-1]) or np.any(upper < lower):
        return "its upper end is below the lower end or decreasing"
    applies = set(METHODS) - (_TV_ONLY if eps == 0.0 else _STATIONARY_ONLY)
    derived = {"greedy_submodular": raw / _E_FACTOR, "seq_greedy_2x": 2.0 * raw}
    slack = 1e-9 * np.maximum(np.abs(lower), 1.0)  # as _combine's: a certificate may touch the attained value
    closure = np.full(T, np.inf)
    for name in requested[1:]:
        curve = methods[name]
        if name not in applies:
            if not np.all(np.isnan(curve)):
                return f"it has values for method {name}, which does not apply here"
            continue
        if not np.all(np.isfinite(curve)) or np.any(curve[1:] < curve[:-1]) or np.any(curve < lower - slack):
            return f"its method {name} is not a non-decreasing curve above the lower end"
        if name in derived and _disagree(curve, _monotone(derived[name])):
            return f"its method {name} is not the one its lower end gives"
        closure = np.minimum(closure, curve)
    if _disagree(upper, np.maximum(_monotone(_subadditive(_monotone(closure))), lower)):
        return "its upper end is not the closure of its method curves"
    # greedy_online's first line (stationary), block_hadamard's one-round blocks (time-varying) are the trivial bound
    if ("greedy_online" if eps == 0.0 else "block_hadamard") in requested:
        kappa = max(float(np.max(np.diag(K))), 0.0)
        trivial = np.arange(1, T + 1) * Kb * 0.5 * math.log1p(kappa / s2)
        if np.any(upper > trivial * (1.0 + _CHECK_RTOL)):
            return "its upper end exceeds the trivial bound t·batch·½ log(1 + κ/s2)"
    return None


def _cache_load(key: str, K: np.ndarray, T: int, s2: float, eps: float, Kb: int,
                requested: list[str]) -> GammaBracket | None:
    """The stored bracket of this instance, or None: no entry, or one that is not authentic or fails
    :func:`_entry_problem` (reported, then recomputed and rewritten by the caller)."""
    payload = _CACHE.read_bytes(key, ".npz")  # None: no entry, or not authentic (reported by the cache)
    if payload is None:
        return None
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as z:
            lower, upper, picks, times = z["lower"], z["upper"], z["design"], z["times"]
            methods = {name: z[f"m_{name}"] for name in requested}
    except Exception:  # noqa: BLE001 - authentic but unreadable (another layout): computed again
        _CACHE.reject(key, ".npz", "it cannot be read as a γ bracket")
        return None
    with _blas_single_thread():
        problem = _entry_problem(K, T, s2, eps, Kb, requested, lower, upper, methods, picks, times)
    if problem is not None:
        _CACHE.reject(key, ".npz", problem)
        return None
    return GammaBracket(horizon=T, lower=lower, upper=upper, methods=methods, design=picks)


def _cache_store(key: str, result: GammaBracket, eps: float, Kb: int) -> None:
    arrays = {"lower": result.lower, "upper": result.upper, "design": np.asarray(result.design, dtype=np.int64),
              "times": _design_times(result.horizon, eps, Kb),
              **{f"m_{name}": curve for name, curve in result.methods.items()}}
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    _CACHE.write_bytes(key, ".npz", buf.getvalue())  # a read-only or full disk only costs the recomputation


def _bracket(K: np.ndarray, T: int, s2: float, eps: float, Kb: int, requested: list[str]) -> GammaBracket:
    want = set(requested)
    spec = _Spectrum(K)
    rounds = np.arange(1, T + 1)
    if eps == 0.0:
        applies = set(METHODS) - _TV_ONLY
        curves, design = _stationary_curves(K, spec, s2, T * Kb, want)
        curves = {k: v[rounds * Kb - 1] for k, v in curves.items()}
        return _combine(curves, T, requested, applies, design)

    applies = set(METHODS) - _STATIONARY_ONLY
    picks, gains, filt = _greedy_tv(K, s2, eps, T, Kb)
    times = np.repeat(np.arange(1, T + 1, dtype=np.float64), Kb)
    lower_all = _prefix_info(K, s2, eps, picks, times, gains)
    lower = lower_all[rounds * Kb - 1]
    curves: dict[str, np.ndarray] = {"greedy": lower}
    if "seq_greedy_2x" in want:
        curves["seq_greedy_2x"] = 2.0 * lower
    if "greedy_online" in want:
        curves["greedy_online"] = np.cumsum(gains)[rounds * Kb - 1] + Kb * np.cumsum(filt)
    if "relaxation" in want or "conditioning" in want:
        fw, cond = _relaxation_tv(spec, s2, eps, T, Kb, "relaxation" in want, "conditioning" in want)
        if "relaxation" in want:
            curves["relaxation"] = fw
        if "conditioning" in want:
            curves["conditioning"] = cond
    if "kronecker" in want:
        curves["kronecker"] = _kronecker_tv(spec.lam, s2, eps, T, Kb)
    if want & _TV_ONLY:
        stat_want = {"greedy_submodular", "greedy_online", "relaxation", "conditioning", "kronecker"}
        sc, _ = _stationary_curves(K, spec, s2, T * Kb, stat_want, light=True)
        stat_up = np.min(np.stack([sc[k] for k in stat_want]), axis=0)
        stat_up = _monotone(_subadditive(_monotone(stat_up)))
        curves.update(_block_bounds(stat_up, spec.kappa, s2, eps, T, Kb, want & _TV_ONLY))
    return _combine(curves, T, requested, applies, picks)


# ------------------------------------------------------------------------------------------ brute force
def exact_gamma_bruteforce(K: np.ndarray, horizon: int, *, noise_var: float, eps: float = 0.0,
                           batch: int = 1) -> float:
    """Exact γ at ``horizon`` by enumeration (tiny domains only; for tests).

    Stationary: all multisets of ``horizon·batch`` points. Time-varying: all sequences of per-round
    multisets of size ``batch``.
    """
    K, T, s2, eps, Kb = _validate(K, horizon, noise_var, eps, batch)
    n = K.shape[0]
    if eps == 0.0:
        m = T * Kb
        count = math.comb(n + m - 1, m)
        if count > _MAX_BRUTEFORCE:
            raise BoundcheckError(f"brute force would enumerate {count} multisets (limit {_MAX_BRUTEFORCE})")
        sets = itertools.combinations_with_replacement(range(n), m)
        weights = None
    else:
        rounds = list(itertools.combinations_with_replacement(range(n), Kb))
        count = len(rounds) ** T
        if count > _MAX_BRUTEFORCE:
            raise BoundcheckError(f"brute force would enumerate {count} sequences (limit {_MAX_BRUTEFORCE})")
        sets = (tuple(itertools.chain.from_iterable(seq)) for seq in itertools.product(rounds, repeat=T))
        times = np.repeat(np.arange(1, T + 1, dtype=np.float64), Kb)
        weights = spatio_temporal_gram(np.ones((1, 1)), np.zeros(T * Kb, dtype=np.int64), times, eps)
    best = -np.inf
    m = T * Kb
    eye = np.eye(m)
    while True:
        chunk = list(itertools.islice(sets, 20_000))
        if not chunk:
            break
        idx = np.asarray(chunk, dtype=np.int64)
        KA = K[idx[:, :, None], idx[:, None, :]]
        if weights is not None:
            KA = KA * weights
        _, logdet = np.linalg.slogdet(eye + KA / s2)
        best = max(best, float(np.max(logdet)))
    return 0.5 * best


# ------------------------------------------------------------------------------------------------- grid
def gamma_for_grid(kernel: str, lengthscale: float, grid_n: int, dim: int, noise: float, horizon: int,
                   eps: float = 0.0, batch: int = 1) -> GammaBracket:
    """γ bracket on the regular ``grid_n^dim`` grid in [0,1]^dim (what ``boundcheck gamma`` calls).

    ``noise`` is the noise standard deviation R (noise_var = R²); the RBF is the usual
    ``exp(-d²/(2ℓ²))``.
    """
    lengthscale = check_positive("lengthscale", lengthscale)
    noise = check_positive("noise", noise)
    grid_n = check_int("grid_n", grid_n)
    dim = check_int("dim", dim)
    if grid_n**dim > _MAX_GRID_POINTS:
        raise BoundcheckError(f"grid of {grid_n}^{dim} = {grid_n**dim} points is too large for an exact n×n "
                              f"treatment (limit {_MAX_GRID_POINTS})")
    X = grid(grid_n, dim).points
    k = make_kernel(kernel, lengthscale)
    K = k.gram(X)
    return gamma_bracket(K, horizon, noise_var=noise**2, eps=eps, batch=batch)

