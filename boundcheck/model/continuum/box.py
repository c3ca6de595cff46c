"""The compact domain X = [low, high]^d of the continuum studies, and the two searches every truth shares:
a batched local ascent (polish) and a certified branch and bound for the maximum of a smooth function on it.

Both searches treat every point (and every run) independently, so a result never depends on how runs are
batched. The branch and bound is the only source of a *certified* maximum; the ascent only finds good points.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...errors import BoundcheckError

__all__ = ["Box", "MaxCertificate", "JetCells", "local_ascent", "certified_maximum"]

#: a jet: (runs (n,), X (n, d), hess) -> (value (n,), gradient (n, d), Hessian (n, d, d) or None when not hess),
#: point i evaluated under run runs[i]
Jet = Callable[[np.ndarray, np.ndarray, bool], tuple[np.ndarray, np.ndarray, np.ndarray | None]]


@dataclass(frozen=True)
class Box:
    """The cube ``[low, high]^dim``. Theorems assume ``X ⊂ [0, r]^d`` after a shift, with ``r = high − low``."""

    dim: int
    low: float = 0.0
    high: float = 1.0

    def __post_init__(self) -> None:
        if isinstance(self.dim, bool) or not isinstance(self.dim, int | np.integer) or self.dim < 1:
            raise BoundcheckError(f"box dim must be an integer ≥ 1, got {self.dim!r}")
        for name in ("low", "high"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating) or not math.isfinite(v):
                raise BoundcheckError(f"box {name} must be a finite number, got {v!r}")
        if not self.low < self.high:
            raise BoundcheckError(f"box low must be below high, got [{self.low!r}, {self.high!r}]")
        object.__setattr__(self, "dim", int(self.dim))
        object.__setattr__(self, "low", float(self.low))
        object.__setattr__(self, "high", float(self.high))

    @property
    def r(self) -> float:
        """Side length ``high − low``."""
        return self.high - self.low

    @property
    def bounds(self) -> np.ndarray:
        """``(d, 2)`` array of ``[low, high]`` rows (scipy.optimize's ``bounds``)."""
        return np.tile([self.low, self.high], (self.dim, 1)).astype(np.float64)

    @property
    def diameter(self) -> float:
        """Euclidean diameter ``r √d``."""
        return self.r * math.sqrt(self.dim)

    @property
    def centre(self) -> np.ndarray:
        """``(d,)`` centre."""
        return np.full(self.dim, 0.5 * (self.low + self.high))

    def sobol(self, n: int, rng: np.random.Generator | int) -> np.ndarray:
        """``(n, d)`` scrambled Sobol points in the box (the first ``n`` of the sequence)."""
        from scipy.stats import qmc

        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise BoundcheckError(f"number of Sobol points must be an integer ≥ 1, got {n!r}")
        with warnings.catch_warnings():  # n not a power of two: the balance warning says nothing we rely on
            warnings.simplefilter("ignore", UserWarning)
            U = qmc.Sobol(self.dim, scramble=True, rng=rng).random(int(n))
        return self.low + self.r * U

    def grid(self, n_per_axis: int) -> np.ndarray:
        """``(n^d, d)`` regular grid including the faces (C order: the last axis varies fastest)."""
        if isinstance(n_per_axis, bool) or not isinstance(n_per_axis, int | np.integer) or n_per_axis < 2:
            raise BoundcheckError(f"grid points per axis must be an integer ≥ 2, got {n_per_axis!r}")
        ax = np.linspace(self.low, self.high, int(n_per_axis))
        mesh = np.meshgrid(*([ax] * self.dim), indexing="ij")
        return np.stack([g.ravel() for g in mesh], axis=1)

    def contains(self, X: np.ndarray, tol: float = 0.0) -> np.ndarray:
        """Whether each point (last axis = coordinates) lies in the box enlarged by ``tol``."""
        X = np.asarray(X, dtype=np.float64)
        return np.all((X >= self.low - tol) & (X <= self.high + tol), axis=-1)

    def clip(self, X: np.ndarray) -> np.ndarray:
        """The nearest points of the box."""
        return np.clip(np.asarray(X, dtype=np.float64), self.low, self.high)


# ------------------------------------------------------------------------------------------------ local ascent
def local_ascent(jet: Jet, runs: np.ndarray, X0: np.ndarray, box: Box, iters: int = 30
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Maximise each point's own function from ``X0`` (n, d) by damped Newton steps kept in the box.

    Step ``p = (μ I − ∇²f)^{-1} ∇f`` with ``μ = max(λ_max(∇²f), 0) + τ`` (an ascent direction; Newton's when
    ``f`` is concave there and ``τ → 0``), the trial point clipped to the box and accepted only if ``f`` grows;
    ``τ`` is divided by 4 on success and multiplied by 4 on failure (Levenberg–Marquardt). One evaluation per
    iteration for all points, and every point's path depends only on its own function: batch invariant. Used
    instead of per-run L-BFGS-B, whose per-call overhead (~1 ms) alone exceeds the budget of a 50-run step.
    Returns ``(X, f)``: values never below those at ``X0``.
    """
    X = box.clip(X0)
    f, g, H = jet(runs, X, True)
    d = X.shape[1]
    eye = np.eye(d)
    tau = 10.0 * np.linalg.norm(g, axis=1) / box.diameter + 1e-12
    active = np.ones(len(X), dtype=bool)
    for _ in range(iters):
        a = np.flatnonzero(active)
        if not len(a):
            break
        lam = np.linalg.eigvalsh(H[a])[:, -1]
        mu = np.maximum(lam, 0.0) + tau[a]
        p = np.linalg.solve(mu[:, None, None] * eye - H[a], g[a][:, :, None])[:, :, 0]
        Xn = box.clip(X[a] + p)
        move = np.linalg.norm(Xn - X[a], axis=1)
        fn, gn, Hn = jet(runs[a], Xn, True)
        ok = fn > f[a]
        i = a[ok]
        X[i], f[i], g[i], H[i] = Xn[ok], fn[ok], gn[ok], Hn[ok]
        tau[a] = np.where(ok, np.maximum(tau[a] / 4.0, 1e-14), tau[a] * 4.0)
        # a point stops when its proposed move is negligible (converged, or τ has grown past any gain)
        active[a] = move >= 1e-9 * box.r
    return X, f


# ------------------------------------------------------------------------------------------ branch and bound
@dataclass(frozen=True)
class MaxCertificate:
    """``lower ≤ sup_box f_r ≤ upper`` per run; ``x``: a point with ``f_r(x) ≥ lower``; ``cells``: cells
    evaluated; ``complete``: whether ``upper − lower ≤ tol`` was reached within the budget (per run)."""

    x: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    cells: int
    complete: np.ndarray


def _group_argmax(keys: np.ndarray, values: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group g in 0..m-1: (max value (−inf if empty), index of the max (−1 if empty))."""
    order = np.lexsort((values, keys))
    k = keys[order]
    last = np.flatnonzero(np.r_[k[1:] != k[:-1], True])
    best = np.full(m, -np.inf)
    idx = np.full(m, -1)
    best[k[last]] = values[order[last]]
    idx[k[last]] = order[last]
    return best, idx


class JetCells:
    """The cells' evaluator of :func:`certified_maximum`: the jet at every cell centre, computed afresh.
    Subclasses may reuse a parent's work for its children (:meth:`split`), as the paths' trigonometric
    recurrence does."""

    def __init__(self, jet: Jet) -> None:
        self.jet = jet

    def start(self, runs: np.ndarray, X: np.ndarray, hess: bool):
        """The jet at the first cells' centres ``X`` (n, d), cell i under run ``runs[i]``."""
        self.runs, self.X = runs, X
        return self.jet(runs, X, hess)

    def split(self, parents: np.ndarray, offsets: np.ndarray, hess: bool):
        """The jet at the children ``X[parents[i]] + offsets[c]`` (i major, c minor) of the last cells."""
        X = (self.X[parents][:, None, :] + offsets[None]).reshape(-1, self.X.shape[1])
        runs = np.repeat(self.runs[parents], len(offsets))
        return self.start(runs, X, hess)


def certified_maximum(jet: Jet | JetCells, box: Box, x0: np.ndarray, f0: np.ndarray, lipschitz: np.ndarray,
                      hessian: np.ndarray, fp_margin: np.ndarray, *, third: np.ndarray | None = None,
                      tol: float, grid: int = 8, max_cells: int = 200_000, polish: Jet | None = None
                      ) -> MaxCertificate:
    """Certified bracket of ``sup_box f_r`` for m functions by branch and bound over sub-cubes.

    The box is tiled by ``grid^d`` cubes; on a cube with centre ``c`` and half-width ``h`` (per axis)

        sup f ≤ U = min{ f(c) + L √d h,  f(c) + Σ_j |g_j| h + ½ H d h²,  f(c) + q + T (√d h)³/6 }

    with ``g = ∇f(c)``, ``Q = ∇²f(c)`` and ``q`` = the smaller of ``Σ_j |g_j| h + ½ max(λ_max(Q), 0) d h²`` and,
    when ``Q ≺ 0``, ``½ gᵀ(−Q)^{-1} g`` (the unconstrained maximum of the quadratic), by Taylor's theorem with
    ``‖∇f‖ ≤ L``, ``‖∇²f‖_op ≤ H``, resp. ``|D³f(y)[v, v, v]| ≤ T ‖v‖³`` everywhere (integral remainder
    ``∫₀¹ (1−s) vᵀ(∇²f(c+sv) − ∇²f(c))v ds ≤ T‖v‖³/6``) and ``‖x − c‖² ≤ d h²``: the caller's proven
    constants ``lipschitz``, ``hessian`` and ``third`` per run (``third`` None: not used). Cubes with ``U ≤`` the
    best value found are dropped (they cannot hold a larger one); cubes with ``U > best + tol`` are split in
    ``2^d``; the others are settled. The cubes kept always cover the box less dropped parts, so ``upper = max(best,
    U over kept)`` bounds the supremum; ``lower`` is the best centre value (or ``f0``, attained at ``x0``).
    ``fp_margin`` (per run, ≥ the rounding error of one evaluation) widens both ends. When the cubes evaluated would
    exceed ``max_cells`` the search stops with the (valid, wider) bracket so far and ``complete`` False for the runs
    not done.
    ``jet``: a :data:`Jet` or a :class:`JetCells` evaluator. ``polish``: a jet with Hessians; if given, each
    level's best centre of every run still splitting is polished by :func:`local_ascent` (a few steps) — the
    best value then reaches a maximum on a face, where centres approach it only like ``|∇f| h``.
    """
    m, d = np.shape(x0)
    evaluator = jet if isinstance(jet, JetCells) else JetCells(jet)
    hess = third is not None
    runs = np.repeat(np.arange(m), grid**d)
    h = box.r / (2 * grid)
    ax = box.low + (2 * np.arange(grid) + 1) * h
    centres = np.stack([a.ravel() for a in np.meshgrid(*([ax] * d), indexing="ij")], axis=1)
    X = np.tile(centres, (m, 1))
    best_f = np.asarray(f0, dtype=np.float64).copy()
    best_x = np.asarray(x0, dtype=np.float64).copy()
    settled = np.full(m, -np.inf)
    corners = np.array(np.meshgrid(*([[-1.0, 1.0]] * d), indexing="ij")).reshape(d, -1).T  # (2^d, d)
    cells = 0
    complete = np.ones(m, dtype=bool)
    f, g, Q = evaluator.start(runs, X, hess)
    while True:
        cells += len(runs)
        lin = np.abs(g).sum(axis=1) * h
        U = np.minimum(f + lin + 0.5 * hessian[runs] * d * h * h, f + lipschitz[runs] * math.sqrt(d) * h)
        if third is not None:
            lam = np.linalg.eigvalsh(Q)
            q = lin + 0.5 * np.maximum(lam[:, -1], 0.0) * d * h * h
            nd = lam[:, -1] < 0
            if nd.any():
                step = np.linalg.solve(-Q[nd], g[nd][:, :, None])[:, :, 0]
                q[nd] = np.minimum(q[nd], 0.5 * np.einsum("ij,ij->i", g[nd], step))
            U = np.minimum(U, f + q + third[runs] * (math.sqrt(d) * h) ** 3 / 6.0)
        bf, bi = _group_argmax(runs, f, m)
        better = bf > best_f
        best_f[better], best_x[better] = bf[better], X[bi[better]]
        if polish is not None:
            open_runs = np.unique(runs[U > best_f[runs] + tol])
            if len(open_runs):
                Xp, fp = local_ascent(polish, open_runs, X[bi[open_runs]], box, iters=8)
                better = fp > best_f[open_runs]
                best_f[open_runs[better]], best_x[open_runs[better]] = fp[better], Xp[better]
        keep = U > best_f[runs]
        split = U > best_f[runs] + tol
        done = keep & ~split
        np.maximum.at(settled, runs[done], U[done])
        if not split.any():
            break
        n_next = int(split.sum()) * 2**d
        if cells + n_next > max_cells:
            np.maximum.at(settled, runs[split], U[split])
            complete[np.unique(runs[split])] = False
            break
        h *= 0.5
        parents = np.flatnonzero(split)
        X = (X[parents][:, None, :] + h * corners[None]).reshape(-1, d)
        runs = np.repeat(runs[parents], 2**d)
        f, g, Q = evaluator.split(parents, h * corners, hess)
    upper = np.maximum(best_f, settled) + fp_margin
    return MaxCertificate(x=best_x, lower=best_f - fp_margin, upper=upper, cells=cells, complete=complete)
