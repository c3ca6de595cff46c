"""The data-space form of the exact GP posterior: O(n·|D|) per observation when the data are short.

When the data an algorithm conditions on are short (since a reset in R-GP-UCB and ET-GP-UCB, inside a sliding
window, or simply T ≪ |X|) the posterior is cheaper in data space than on the grid. :class:`DataSpacePosterior`
keeps, per run and kernel group, the Cholesky factor of the data's Gram matrix (the exact spatio-temporal
kernel), the gain rows and the whitened residuals, lazily scaled in time as the grid-state form is; it conditions
by growing the factor one row, drops the oldest observation with Givens rotations (a rank-one update, never a
downdate) and resets selected runs.

:func:`make_posterior` picks this form or the grid-state :class:`~boundcheck.model.posterior.BatchedPosterior` by
cost; both implement :class:`~boundcheck.model.posterior.Posterior` and agree to round-off (tests: 1e-10 against
:func:`~boundcheck.model.posterior.naive_posterior`). The formulas: docs/model.md, "The data-space form".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import BoundcheckError
from ..utils.switches import EnvSwitch
from .posterior import BatchedPosterior, GroupedPosterior, Posterior, arithmetic, condition_in_turn, rows_of
from .priors import GPPrior

__all__ = ["DataSpacePosterior", "make_posterior", "choose_representation", "use_representation"]

_LOG2PI = float(np.log(2.0 * np.pi))


class DataSpacePosterior(GroupedPosterior):
    """Exact posterior of several GP priors for a batch of runs, in data space (docs/model.md).

    Parameters
    ----------
    priors : sequence of GPPrior
        Candidate priors on one domain; priors with the same ``(K, ε)`` share one factorisation.
    noise_var : float
        The model's likelihood variance λ.
    runs : int
        Number of runs m in the batch.
    max_data : int, optional
        Most observations a run may hold (e.g. the reset period, or T·K). Exceeding it is an error. The buffers
        start small and grow geometrically up to it (unbounded without it).
    window : int, optional
        Sliding window w: :meth:`condition` on a run that already holds w observations first drops its oldest
        one (SW-GP-UCB keeps the last w). :meth:`drop_oldest` does it explicitly.

    Implements :class:`~boundcheck.model.posterior.Posterior`; ``n_obs`` counts the observations the posterior
    conditions on (with a window, those still inside it).
    """

    representation = "dataspace"

    def __init__(self, priors: Sequence[GPPrior], noise_var: float, runs: int, *, max_data: int | None = None,
                 window: int | None = None, initial_capacity: int = 32) -> None:
        for name, v in (("window", window), ("max_data", max_data)):
            if v is not None and (int(v) != v or v < 1):
                raise BoundcheckError(f"{name} must be a positive integer, got {v!r}")
        self._setup(priors, noise_var, runs)
        self.window = None if window is None else int(window)
        self.max_data = None if max_data is None else int(max_data)
        self.limit = self.window if self.window is not None else self.max_data  # None: unbounded
        if self.window is not None and self.max_data is not None:
            self.limit = min(self.window, self.max_data)
        start = max(1, int(initial_capacity))
        self.capacity = start if self.limit is None else min(self.limit, start)
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
        self._cache.clear()
        if runs is None:
            self._allocate(self.capacity)
            self.c = np.ones(self.G)
            self.d = np.zeros(self.m, dtype=np.int64)
            self.ddiag = np.zeros((self.G, self.m, self.n))  # Σ_i V_i², so var = k(x,x) − c ddiag
            self.dev = np.zeros((self.m, self.P, self.n))
            self.loglik = np.zeros((self.m, self.P))
            return
        r = rows_of(runs, self.m)
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

    def keep_runs(self, keep: np.ndarray) -> None:
        """Retire the runs not in ``keep`` (boolean, one per run) from the batch (a study that stops runs at an
        event); the kept runs' states are unchanged (a run's arithmetic never reads another run's)."""
        keep = np.asarray(keep, dtype=bool)
        self._cache.clear()
        self.idx, self.times, self.y = self.idx[keep], self.times[keep], self.y[keep]
        self.L = self.L[:, keep]
        self.A = [A[keep] for A in self.A]
        self.d, self.ddiag, self.dev, self.loglik = self.d[keep], self.ddiag[:, keep], self.dev[keep], self.loglik[keep]
        self.m = int(keep.sum())
        self._rows = np.arange(self.m)

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
        self._allocate(2 * W if self.limit is None else min(2 * W, self.limit))
        self.idx[:, :W], self.times[:, :W], self.y[:, :W] = old[0], old[1], old[2]
        self.L[:, :, :W, :W] = old[3]
        for A, A_old in zip(self.A, old[4], strict=True):
            A[:, :W] = A_old

    # --------------------------------------------------------------- queries
    def _group_var(self) -> np.ndarray:
        v = self.kdiag[:, None, :] - self.c[:, None, None] * self.ddiag
        return np.maximum(np.moveaxis(v, 0, 1), 0.0)

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
        sel = rows_of(runs, self.m)
        if sel.size == 0:
            return
        full = self.d[sel] >= self.capacity
        if full.any():
            if self.limit is None or self.capacity < self.limit:
                self._grow()
            elif self.window is not None and self.limit == self.window:
                self.drop_oldest(sel[full])
            else:
                raise BoundcheckError(f"data-space posterior: more than max_data={self.max_data} observations "
                                      "since a reset")
        self._cache.clear()
        idx_s, y_s = idx[sel], y[sel]
        d_s = self.d[sel]
        top = int(d_s.max(initial=0))
        k = np.arange(sel.size)
        rows = None if every else sel
        mu_at = self._mean_at(sel, idx_s, every)  # posterior mean of every prior at the observed point
        lam, n = self.noise_var, self.n
        for g in range(self.G):
            c = self.c[g]
            s, col = self._column(g, rows, idx_s, top)  # Σ_τ[:, x], stored V[:, x]
            v = s[k, idx_s] + lam  # predictive variance of y
            sqv = np.sqrt(v)
            row = s * (1.0 / np.sqrt(c * v))[:, None]  # new stored V row: Σ_τ[x, :] / √(c v)
            # new row of L: (V_τ[:, x]ᵀ, √v)
            self.L[g, sel, d_s, :top] = np.sqrt(c) * col
            self.L[g, sel, d_s, d_s] = sqv
            A = self.A[g]
            A[sel, d_s, :n] = row
            if every:
                self.ddiag[g] += row * row
            else:
                self.ddiag[g][sel] += row * row
            resid = self._update_priors(g, sel, every, s / v[:, None], v, y_s, mu_at)
            A[sel, d_s, n:] = resid / sqv[:, None]  # z_p grows by the standardised innovation
        self.idx[sel, d_s], self.times[sel, d_s], self.y[sel, d_s] = idx_s, float(self.tau), y_s
        self.d[sel] += 1

    def condition_batch(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        """Observe K values per run at the same time (a semi-bandit round): ``idx``, ``y`` of shape (m, K);
        exact as K sequential rank-1 updates. A 1-d ``idx``/``y`` is one observation per run."""
        condition_in_turn(self, idx, y, runs)

    def drop_oldest(self, runs: np.ndarray | None = None) -> None:
        """Remove the oldest observation of every run (or of ``runs``) that holds one (sliding window).

        Givens rotations restore the Cholesky factor of the remaining data and carry V and z along (docs/model.md,
        "The data-space form"); the row they push out leaves Σ, μ and log p(D | p)."""
        sel = rows_of(runs, self.m)
        sel = sel[self.d[sel] > 0]
        if sel.size == 0:
            return
        self._cache.clear()
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
            ix = np.ix_(sel, self.members[g])
            self.dev[ix] -= vout[:, None, :] * out[:, n:, None]  # the row pushed out leaves the mean
            zz = R[:, :, n:]  # (k, top-1, P_g)
            self.loglik[ix] = -0.5 * (((self.d[sel] - 1) * _LOG2PI + logdet)[:, None]
                                      + np.einsum("kdp,kdp->kp", zz, zz))
        for buf in (self.idx, self.times, self.y):
            buf[sel, :top - 1] = buf[sel, 1:top]
        self.d[sel] -= 1

    def propagate(self) -> None:
        """One step of the ε Markov chain for every run: τ ← τ + 1 (K_τ ← √(1−ε) K_τ)."""
        self.tau += 1
        super().propagate()

    def _fold_scale(self, g: int) -> None:
        """Fold √c_g into V (c_g is then reset to 1) before new rows (∝ 1/√c_g) overflow."""
        self.A[g][:, :, :self.n] *= np.sqrt(self.c[g])
        self.ddiag[g] *= self.c[g]


# ---------------------------------------------------------------------------------------------- the factory
#: "auto" (by cost), or "grid" / "dataspace" forced for every posterior the factory makes (tests that the
#: representation changes nothing but round-off, benchmarks). Worker processes read the environment variable.
REPRESENTATIONS = ("auto", "grid", "dataspace")
_REPRESENTATION = EnvSwitch("BOUNDCHECK_POSTERIOR_REPRESENTATION", REPRESENTATIONS, "auto",
                            "posterior representation")


def use_representation(name: str):
    """Force the factory's choice in this process (and in pools started inside the block)."""
    return _REPRESENTATION.use(name)


def choose_representation(n: int, *, max_data: int | None = None, window: int | None = None,
                          typical_data: int | None = None) -> str:
    """``"dataspace"`` or ``"grid"``: the cheaper exact form for a domain of n points.

    Per observation the data-space form reads its d×n factor V once (Σ[:, x] = K[:, x] − VᵀV[:, x], ~2n·d
    flops at matrix-vector speed); the grid form folds rank-one rows into its n×n state at matrix-multiply
    speed (~2n² flops per observation, several times faster per flop) and reads up to ``block`` pending rows.
    ``benchmarks/bench_kernels.py`` measures both: data space wins while d ≲ n/4 (and always for a window,
    which the grid form cannot forget stably); its memory is m·d·n instead of m·n².

    ``typical_data``: how many observations a run usually holds when that is far below ``max_data`` (the data
    since the last reset of ET-GP-UCB: tens of points, though a run that never resets holds T)."""
    if window is not None:
        return "dataspace"
    d = typical_data if typical_data is not None else max_data
    if d is not None and 4 * int(d) <= n:
        return "dataspace"
    return "grid"


def make_posterior(priors: Sequence[GPPrior], noise_var: float, runs: int, *, max_data: int | None = None,
                   window: int | None = None, typical_data: int | None = None,
                   representation: str | None = None) -> Posterior:
    """The exact posterior in the cheaper representation (see :func:`choose_representation`).

    ``max_data``: the most observations a run holds at once (T·K without resets, the reset period for
    R-GP-UCB); ``window``: a sliding window (SW-GP-UCB); ``typical_data``: the usual number held when it is far
    below ``max_data`` (data since a reset). ``representation`` forces ``"grid"`` or
    ``"dataspace"`` (as does :func:`use_representation`). The reference arithmetic
    (:func:`~boundcheck.model.posterior.use_arithmetic`) is the grid form's, so it always gives the grid form
    unless a window needs data space."""
    n = priors[0].n if len(priors) else 0
    rep = representation or _REPRESENTATION.value
    if rep == "auto":
        rep = "grid" if arithmetic() == "reference" and window is None else \
            choose_representation(n, max_data=max_data, window=window, typical_data=typical_data)
    if rep == "dataspace":
        return DataSpacePosterior(priors, noise_var, runs, max_data=max_data, window=window)
    if rep == "grid":
        if window is not None:
            raise BoundcheckError("a sliding window needs the data-space posterior")
        return BatchedPosterior(priors, noise_var, runs)
    raise BoundcheckError(f"unknown posterior representation {rep!r}; choose grid or dataspace")
