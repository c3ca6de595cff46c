"""The data-space form of the exact GP posterior: O(n·|D|) per observation when the data are short.

When the data an algorithm conditions on are short — since a reset (R-GP-UCB, ET-GP-UCB), inside a sliding
window (SW-GP-UCB), or simply T ≪ |X| — the posterior is cheaper in data space than on the grid. For each run
and kernel group g, with the data D = ((x_1, t_1, y_1), …, (x_d, t_d, y_d)) (oldest first), prediction time τ
and a = 1 − ε_g:

* the data Gram matrix  C = K_X[X_D, X_D] ⊙ a^{|t_i − t_j|/2} + λI = L Lᵀ  (exact spatio-temporal kernel);
* the cross-covariance to the prediction time  K_τ[i, x] = K_X[x_i, x] a^{(τ − t_i)/2};
* V_τ = L⁻¹ K_τ  (d, n), so that  Σ_τ = K_X − V_τᵀ V_τ  and  var_τ(x) = k(x, x) − ‖V_τ[:, x]‖²;
* z_p = L⁻¹ (y − μ_p(X_D))  per prior p, so that the mean deviation is  μ_τ − μ_p = V_τᵀ z_p;
* log p(D | p) = −½ (d log 2π + 2 Σ log L_ii + ‖z_p‖²).

Storage is lazy in time exactly as in the grid-state form: ``V_τ = √c_g · V`` with a per-group scalar c_g, so
:meth:`propagate` (τ ← τ + 1 multiplies K_τ by √a) is ``c_g ← a c_g`` and costs O(1) (plus O(P n) for the mean).
L does not depend on τ.

Operations (per run and group; m runs are processed at once, never in a Python loop):

* :meth:`condition` — the Cholesky factor grows by one row. The new row of L is ``(V_τ[:, x]ᵀ, √v)`` with
  v = σ²_τ(x) + λ, the new row of V_τ is ``Σ_τ[x, :] / √v``, the new z entry is the innovation over √v: O(n d).
* :meth:`drop_oldest` — removing the first observation leaves ``C̃ = L₂₂L₂₂ᵀ + l₂₁l₂₁ᵀ``, a rank-one *update*
  (never a downdate) of the trailing factor. d − 1 Givens rotations ``[L₂₂, l₂₁] Q = [L̃, 0]`` restore the
  triangle; the same orthogonal Q applied to the rows of ``[V₂; v₁]`` and ``[z₂; z₁]`` gives Ṽ and z̃, and the
  row it pushes out is exactly what leaves Σ and μ. Orthogonal, so stable: O(d² + n d) per drop.
* :meth:`reset` — forget the data of selected runs (ET-GP-UCB may condition again right away: it keeps its
  triggering point).

:func:`make_posterior` picks this form or the grid-state :class:`~boundcheck.model.posterior.BatchedPosterior`
by cost; both implement :class:`~boundcheck.model.posterior.Posterior` and agree to round-off (tests: 1e-10
against :func:`~boundcheck.model.posterior.naive_posterior`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import BoundcheckError
from .posterior import BatchedPosterior, Posterior
from .priors import GPPrior

__all__ = ["DataSpacePosterior", "make_posterior", "choose_representation"]

_LOG2PI = float(np.log(2.0 * np.pi))
_RENORM = 1e-150  # c_g below this: fold √c_g into V before it overflows


def _rows_of(runs: np.ndarray | None, m: int) -> np.ndarray:
    """Integer run indices from None (all), a boolean mask or an integer index."""
    if runs is None:
        return np.arange(m)
    r = np.asarray(runs)
    if r.dtype == bool:
        return np.flatnonzero(r)
    return r.astype(np.int64, copy=False).ravel()


class DataSpacePosterior:
    """Exact posterior of several GP priors for a batch of runs, in data space (see the module docstring).

    Parameters
    ----------
    priors : sequence of GPPrior
        Candidate priors on one domain; priors with the same ``(K, ε)`` share one factorisation.
    noise_var : float
        The model's likelihood variance λ.
    runs : int
        Number of runs m in the batch.
    max_data : int, optional
        Most observations a run may hold (e.g. the reset period, or T·K). Exceeding it is an error. Without it
        (and without ``window``) the buffers grow geometrically.
    window : int, optional
        Sliding window w: :meth:`condition` on a run that already holds w observations first drops its oldest
        one (SW-GP-UCB keeps the last w). :meth:`drop_oldest` does it explicitly.

    Implements :class:`~boundcheck.model.posterior.Posterior`; ``n_obs`` counts the observations the posterior
    conditions on (with a window, those still inside it).
    """

    representation = "dataspace"

    def __init__(self, priors: Sequence[GPPrior], noise_var: float, runs: int, *, max_data: int | None = None,
                 window: int | None = None) -> None:
        if len(priors) == 0:
            raise BoundcheckError("DataSpacePosterior needs at least one prior")
        if not noise_var > 0:
            raise BoundcheckError(f"noise variance must be positive, got {noise_var!r}")
        n = priors[0].n
        if any(p.n != n for p in priors):
            raise BoundcheckError("all priors must live on the same domain")
        for name, v in (("window", window), ("max_data", max_data)):
            if v is not None and (int(v) != v or v < 1):
                raise BoundcheckError(f"{name} must be a positive integer, got {v!r}")
        self.priors = tuple(priors)
        self.noise_var = float(noise_var)
        self.m, self.n, self.P = int(runs), n, len(priors)
        keys: dict[str, int] = {}
        self.group_of = np.asarray([keys.setdefault(p.kernel_key, len(keys)) for p in priors], dtype=np.int64)
        self.G = len(keys)
        first = {g: self.priors[int(np.argmax(self.group_of == g))] for g in range(self.G)}
        self.K = np.stack([first[g].K for g in range(self.G)])  # (G, n, n)
        self.kdiag = np.ascontiguousarray(np.diagonal(self.K, axis1=1, axis2=2))  # (G, n)
        self.eps = np.array([first[g].eps for g in range(self.G)])
        self.members = [np.flatnonzero(self.group_of == g) for g in range(self.G)]
        self.prior_mean = np.stack([p.mean for p in priors])  # (P, n)
        self.window = None if window is None else int(window)
        self.max_data = None if max_data is None else int(max_data)
        if self.window is not None:
            self.capacity = self.window if self.max_data is None else min(self.window, self.max_data)
        else:
            self.capacity = self.max_data if self.max_data is not None else 16
        self.tau = 1  # prediction time of the current state (observations are stamped with it)
        self.reset()

    # ------------------------------------------------------------------ state
    def _allocate(self, W: int) -> None:
        m, n, G = self.m, self.n, self.G
        self.capacity = W
        self.idx = np.zeros((m, W), dtype=np.int64)
        self.times = np.zeros((m, W))
        self.y = np.zeros((m, W))
        self.L = np.zeros((G, m, W, W))  # Cholesky factor of the data Gram matrix, per group (rows ≥ d are 0)
        # per group: rows are V (first n columns, V_τ = √c V) and z_p of the group's priors (last P_g columns)
        self.A = [np.zeros((m, W, n + self.members[g].size)) for g in range(G)]

    def reset(self, runs: np.ndarray | None = None) -> None:
        """Forget all data, for every run or for the runs selected by a boolean/int index."""
        if runs is None:
            self._allocate(self.capacity)
            self.c = np.ones(self.G)
            self.d = np.zeros(self.m, dtype=np.int64)
            self.ddiag = np.zeros((self.G, self.m, self.n))  # Σ_i V_i², so var = k(x,x) − c ddiag
            self.dev = np.zeros((self.m, self.P, self.n))
            self.loglik = np.zeros((self.m, self.P))
            return
        r = _rows_of(runs, self.m)
        if r.size == 0:
            return
        top = int(self.d[r].max(initial=0))
        self.L[:, r, :top] = 0.0
        for A in self.A:
            A[r, :top] = 0.0
        self.ddiag[:, r] = 0.0
        self.dev[r] = 0.0
        self.loglik[r] = 0.0
        self.d[r] = 0

    @property
    def n_obs(self) -> np.ndarray:
        """(m,) observations the posterior conditions on (since the last reset, inside the window)."""
        return self.d

    def data(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The data held per run, oldest first: (idx (m, W), times (m, W), y (m, W), d (m,)); entries past
        ``d[r]`` are meaningless."""
        return self.idx, self.times, self.y, self.d

    def _grow(self) -> None:
        old = (self.idx, self.times, self.y, self.L, self.A)
        W = self.capacity
        self._allocate(2 * W)
        self.idx[:, :W], self.times[:, :W], self.y[:, :W] = old[0], old[1], old[2]
        self.L[:, :, :W, :W] = old[3]
        for A, A_old in zip(self.A, old[4], strict=True):
            A[:, :W] = A_old

    # --------------------------------------------------------------- queries
    def mean(self) -> np.ndarray:
        """Posterior means μ^p_{t-1}(·, t): (m, P, n)."""
        return self.prior_mean[None] + self.dev

    def group_var(self) -> np.ndarray:
        """Posterior variances per kernel group: (m, G, n), clipped at 0 against round-off."""
        v = self.kdiag[:, None, :] - self.c[:, None, None] * self.ddiag
        return np.maximum(np.moveaxis(v, 0, 1), 0.0)

    def var(self) -> np.ndarray:
        return self.group_var()[:, self.group_of]

    def sd(self) -> np.ndarray:
        return np.sqrt(self.var())

    def _V(self, g: int, rows: np.ndarray | None = None, top: int | None = None) -> np.ndarray:
        """Stored V rows of group g, (k, top, n) (a view when ``rows`` is None)."""
        top = int(self.d.max(initial=0)) if top is None else top
        A = self.A[g]
        return A[:, :top, :self.n] if rows is None else A[rows, :top, :self.n]

    def cov(self, prior: int = 0) -> np.ndarray:
        """Full posterior covariance (m, n, n) of one prior (materialised; for tests and diagnostics)."""
        g = self.group_of[prior]
        V = self._V(g)
        return self.K[g][None] - self.c[g] * np.matmul(np.swapaxes(V, 1, 2), V)

    def _column(self, g: int, rows: np.ndarray | None, x: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
        """(Σ_τ[:, x_r] for each run, the stored V[:, x_r]): (k, n), (k, top)."""
        V = self._V(g, rows, top)
        k = np.arange(x.size)
        col = V[k, :, x]  # (k, top): V[:, x_r]
        s = self.K[g][x] - self.c[g] * np.matmul(col[:, None, :], V)[:, 0, :]
        return s, col

    def cov_column(self, idx: np.ndarray, prior: int = 0) -> np.ndarray:
        """Σ_{t−1}[:, x] for x = ``idx[r]`` in every run r: (m, n), in O(n d)."""
        idx = np.asarray(idx, dtype=np.int64)
        return self._column(self.group_of[prior], None, idx, int(self.d.max(initial=0)))[0]

    # --------------------------------------------------------------- updates
    def condition(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        """Observe ``y[r] = f(x_{idx[r]}) + noise`` at the current time τ in every run r (or in ``runs``)."""
        idx = np.asarray(idx, dtype=np.int64)
        y = np.asarray(y, dtype=np.float64)
        every = runs is None
        sel = _rows_of(runs, self.m)
        if sel.size == 0:
            return
        full = self.d[sel] >= self.capacity
        if full.any():
            if self.window is not None and self.capacity == self.window:
                self.drop_oldest(sel[full])
            elif self.max_data is not None:
                raise BoundcheckError(f"data-space posterior: more than max_data={self.max_data} observations "
                                      "since a reset")
            else:
                self._grow()
        idx_s, y_s = idx[sel], y[sel]
        d_s = self.d[sel]
        top = int(d_s.max(initial=0))
        k = np.arange(sel.size)
        rows = None if every else sel
        # posterior mean of every prior at the observed point, before the update
        mu_at = self.prior_mean[:, idx_s].T + self.dev[sel[:, None], np.arange(self.P)[None], idx_s[:, None]]
        lam = self.noise_var
        for g in range(self.G):
            c = self.c[g]
            s, col = self._column(g, rows, idx_s, top)  # Σ_τ[:, x], stored V[:, x]
            v = s[k, idx_s] + lam  # predictive variance of y
            sqv = np.sqrt(v)
            row = s / np.sqrt(c * v)[:, None]  # new stored V row: Σ_τ[x, :] / √(c v)
            # new row of L: (V_τ[:, x]ᵀ, √v)
            self.L[g, sel, d_s, :top] = np.sqrt(c) * col
            self.L[g, sel, d_s, d_s] = sqv
            A = self.A[g]
            A[sel, d_s, :self.n] = row
            self.ddiag[g, sel] += row * row
            gain = s / v[:, None]
            for j, p in enumerate(self.members[g]):
                resid = y_s - mu_at[:, p]
                A[sel, d_s, self.n + j] = resid / sqv  # z_p grows by the standardised innovation
                self.dev[sel, p] += gain * resid[:, None]
                self.loglik[sel, p] += -0.5 * (_LOG2PI + np.log(v) + resid * resid / v)
        self.idx[sel, d_s], self.times[sel, d_s], self.y[sel, d_s] = idx_s, float(self.tau), y_s
        self.d[sel] += 1

    def condition_batch(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        """Observe K values per run at the same time (a semi-bandit round): ``idx``, ``y`` of shape (m, K);
        exact as K sequential rank-1 updates. A 1-d ``idx``/``y`` is one observation per run."""
        idx, y = np.asarray(idx), np.asarray(y)
        if idx.ndim == 1:
            self.condition(idx, y, runs)
            return
        for j in range(idx.shape[1]):
            self.condition(idx[:, j], y[:, j], runs)

    def drop_oldest(self, runs: np.ndarray | None = None) -> None:
        """Remove the oldest observation of every run (or of ``runs``) that holds one (sliding window).

        Givens rotations restore the Cholesky factor of the remaining data and carry V and z along (see the
        module docstring); the row they push out leaves Σ, μ and log p(D | p)."""
        sel = _rows_of(runs, self.m)
        sel = sel[self.d[sel] > 0]
        if sel.size == 0:
            return
        top = int(self.d[sel].max())
        n = self.n
        for g in range(self.G):
            c = self.c[g]
            Lg = self.L[g, sel, :top, :top]  # (k, top, top) copy
            M = Lg[:, 1:, 1:]  # L₂₂, made lower triangular again below
            x = Lg[:, 1:, 0].copy()  # l₂₁: the column that leaves
            A = self.A[g][sel, :top]  # (k, top, n + P_g) copy
            R, out = A[:, 1:], A[:, 0].copy()  # [V₂; v₁] (and z)
            for j in range(top - 1):
                Ljj, xj = M[:, j, j], x[:, j]
                r = np.hypot(Ljj, xj)
                live = r > 0  # rows past a run's data are all zero: no rotation
                rr = np.where(live, r, 1.0)
                cs = np.where(live, Ljj / rr, 1.0)[:, None]
                sn = np.where(live, xj / rr, 0.0)[:, None]
                colj = M[:, j:, j].copy()
                M[:, j:, j] = cs * colj + sn * x[:, j:]
                x[:, j:] = cs * x[:, j:] - sn * colj
                Rj = R[:, j].copy()
                R[:, j] = cs * Rj + sn * out
                out = cs * out - sn * Rj
            # write back, shifted by one row; the last row/column of each run's block becomes zero
            self.L[g, sel, :top - 1, :top - 1] = M
            self.L[g, sel, top - 1, :top] = 0.0
            self.L[g, sel, :top, top - 1] = 0.0
            self.A[g][sel, :top - 1] = R
            self.A[g][sel, top - 1] = 0.0
            Vn = R[:, :, :n]
            self.ddiag[g, sel] = np.einsum("kdn,kdn->kn", Vn, Vn)  # recomputed, not downdated: no drift
            vout = np.sqrt(c) * out[:, :n]
            logdet = 2.0 * np.log(np.where(np.arange(top - 1)[None] < (self.d[sel] - 1)[:, None],
                                           np.diagonal(M, axis1=1, axis2=2), 1.0)).sum(axis=1)
            for j, p in enumerate(self.members[g]):
                self.dev[sel, p] -= vout * out[:, n + j][:, None]
                zz = R[:, :, n + j]
                self.loglik[sel, p] = -0.5 * ((self.d[sel] - 1) * _LOG2PI + logdet + np.einsum("kd,kd->k", zz, zz))
        for buf in (self.idx, self.times, self.y):
            buf[sel, :top - 1] = buf[sel, 1:top]
        self.d[sel] -= 1

    def propagate(self) -> None:
        """One step of the ε Markov chain for every run: τ ← τ + 1 (K_τ ← √(1−ε) K_τ)."""
        self.tau += 1
        for g in range(self.G):
            e = self.eps[g]
            if e == 0.0:
                continue
            self.c[g] *= 1.0 - e
            if self.c[g] < _RENORM:  # fold √c into V before new rows (∝ 1/√c) overflow
                self.A[g][:, :, :self.n] *= np.sqrt(self.c[g])
                self.ddiag[g] *= self.c[g]
                self.c[g] = 1.0
            self.dev[:, self.members[g]] *= np.sqrt(1.0 - e)


# ---------------------------------------------------------------------------------------------- the factory
def choose_representation(n: int, *, max_data: int | None = None, window: int | None = None) -> str:
    """``"dataspace"`` or ``"grid"``: the cheaper exact form for a domain of n points.

    Per observation the grid-state form costs ~2n² (a rank-1 update of every run's n×n covariance, memory
    bound) and the data-space form ~4n·d (a column Σ[:, x] = K[:, x] − VᵀV[:, x] and the new row), with
    d ≤ the longest data a run can hold; its memory is m·d·n instead of m·n². A window always needs data space
    (the grid form cannot forget stably)."""
    if window is not None:
        return "dataspace"
    if max_data is not None and 2 * int(max_data) <= n:
        return "dataspace"
    return "grid"


def make_posterior(priors: Sequence[GPPrior], noise_var: float, runs: int, *, max_data: int | None = None,
                   window: int | None = None, representation: str | None = None) -> Posterior:
    """The exact posterior in the cheaper representation (see :func:`choose_representation`).

    ``max_data``: the most observations a run holds at once (T·K without resets, the reset period for
    R-GP-UCB); ``window``: a sliding window (SW-GP-UCB). ``representation`` forces ``"grid"`` or
    ``"dataspace"`` (tests, benchmarks)."""
    n = priors[0].n if len(priors) else 0
    rep = representation or choose_representation(n, max_data=max_data, window=window)
    if rep == "dataspace":
        return DataSpacePosterior(priors, noise_var, runs, max_data=max_data, window=window)
    if rep == "grid":
        if window is not None:
            raise BoundcheckError("a sliding window needs the data-space posterior")
        return BatchedPosterior(priors, noise_var, runs)
    raise BoundcheckError(f"unknown posterior representation {rep!r}; choose grid or dataspace")
