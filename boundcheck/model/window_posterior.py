"""A data-space GP posterior over a *window* of retained observations, batched over runs: append, reset and
drop-the-oldest, all exact (R-GP-UCB restarts, SW-GP-UCB's sliding window; Zhou & Shroff 2021).

Per run it keeps the Cholesky factor of the retained observations' Gram matrix, the gain rows, the whitened
residuals (and optional extra targets the verifiers replay), the mean and the variance on the whole domain.
Appending grows the factor by one row; dropping the oldest is a rank-1 *update* done with Givens rotations, so it
cannot lose positive definiteness and rounding errors do not grow; both cost O(p n), never an O(p³)
refactorisation. Runs may hold different numbers of observations (zero padding).

Implements :class:`~boundcheck.model.posterior.Posterior` (one static prior, ``P = G = 1``). The state and the
update formulas: docs/model.md, "The window form".
"""

from __future__ import annotations

import numpy as np

from ..errors import BoundcheckError
from .posterior import condition_in_turn
from .priors import GPPrior

__all__ = ["WindowPosterior", "exact_window_posterior", "checksum_weights"]

_LOG2PI = float(np.log(2.0 * np.pi))


def checksum_weights(n: int) -> np.ndarray:
    """Fixed pseudo-random weights c (n,): policies record μ·c and σ²·c so that a verifier can compare the whole
    posterior on the domain at every step without storing (runs × T × n) arrays."""
    return np.random.default_rng(20210212).standard_normal(n) / np.sqrt(n)


class WindowPosterior:
    """Exact data-space posterior of one static GP prior given each run's retained observations."""

    def __init__(self, prior: GPPrior, noise_var: float, runs: int, capacity: int = 16, targets: int = 0,
                 droppable: bool = True) -> None:
        if not noise_var > 0:
            raise BoundcheckError(f"noise variance λ must be positive, got {noise_var!r}")
        if prior.eps != 0.0:
            raise BoundcheckError("WindowPosterior models a static prior (ε = 0); forgetting is done by the window")
        self.priors = (prior,)
        self.group_of = np.zeros(1, dtype=np.int64)
        self.P = self.G = 1
        self.noise_var = float(noise_var)
        self.m, self.n = int(runs), prior.n
        self.K = prior.K
        self.kdiag = np.diag(self.K).copy()
        self.prior_mean = prior.mean
        self.k = int(targets)
        # the full factor L is needed only to drop observations; append-only use (restarts) keeps its diagonal
        self.droppable = bool(droppable)
        self._cap = max(1, int(capacity))
        self.reset()

    # ------------------------------------------------------------------ state
    def _alloc(self, cap: int) -> None:
        m, d = self.m, self.n + 1 + self.k
        # one array per run and retained observation i: [U_i· | V_i· | a_i | A_i·] with U = Lᵀ (so that column i of
        # L is a contiguous row): a Givens rotation of the factor and of every right-hand side is one operation
        self._u = cap if self.droppable else 0  # column where the rows part starts
        self.M = np.zeros((m, cap, self._u + d))
        if self.droppable:
            self.M[:, np.arange(cap), np.arange(cap)] = 1.0
        self.dL = np.ones((m, cap))  # diagonal of L (the only part of L an append-only window keeps)
        self.X = np.zeros((m, cap), dtype=np.int64)
        self._cap = cap

    @property
    def U(self) -> np.ndarray:
        """Lᵀ (m, cap, cap), upper triangular (the identity on unused rows); only a droppable window keeps it."""
        if not self.droppable:
            raise BoundcheckError("this window posterior keeps only the diagonal of its factor (droppable=False)")
        return self.M[..., : self._cap]

    @property
    def L(self) -> np.ndarray:
        return np.swapaxes(self.U, 1, 2)

    @property
    def rows(self) -> np.ndarray:
        return self.M[..., self._u:]

    @property
    def V(self) -> np.ndarray:
        return self.M[..., self._u: self._u + self.n]

    @property
    def a(self) -> np.ndarray:
        return self.M[..., self._u + self.n]

    @property
    def A(self) -> np.ndarray:
        return self.M[..., self._u + self.n + 1:]

    def _diag(self) -> np.ndarray:
        return np.diagonal(self.U, axis1=1, axis2=2) if self.droppable else self.dL

    def reset(self, runs: np.ndarray | None = None) -> None:
        """Forget all data (every run, or the runs selected by a boolean/int index)."""
        if runs is None:
            self._alloc(self._cap)
            self.mu = np.broadcast_to(self.prior_mean, (self.m, self.n)).copy()
            self.s2 = np.broadcast_to(self.kdiag, (self.m, self.n)).copy()
            self.loglik = np.zeros((self.m, 1))
            self.n_obs = np.zeros(self.m, dtype=np.int64)
            return
        sel = self._select(runs)
        fresh = np.zeros(self.M.shape[1:])
        if self.droppable:
            fresh[np.arange(self._cap), np.arange(self._cap)] = 1.0
        self.M[sel], self.X[sel], self.dL[sel] = fresh, 0, 1.0
        self.mu[sel], self.s2[sel] = self.prior_mean, self.kdiag
        self.loglik[sel], self.n_obs[sel] = 0.0, 0

    def _select(self, runs) -> np.ndarray:
        r = np.asarray(runs)
        return np.flatnonzero(r) if r.dtype == bool else r.astype(np.int64)

    def _grow(self) -> None:
        old, cap = self._cap, 2 * self._cap
        U = self.U.copy() if self.droppable else None
        rows, X, dL = self.rows.copy(), self.X, self.dL
        self._alloc(cap)
        if U is not None:
            self.M[:, :old, :old] = U
        self.M[:, :old, self._u:] = rows
        self.X[:, :old], self.dL[:, :old] = X, dL

    # --------------------------------------------------------------- queries
    def mean(self) -> np.ndarray:
        return self.mu[:, None, :]

    def group_var(self) -> np.ndarray:
        return np.maximum(self.s2, 0.0)[:, None, :]

    def var(self) -> np.ndarray:
        return self.group_var()

    def sd(self) -> np.ndarray:
        return np.sqrt(self.var())

    def cov_column(self, idx: np.ndarray, prior: int = 0) -> np.ndarray:
        """Σ_{t−1}[:, x] for x = ``idx[r]`` in every run: (m, n)."""
        idx = np.asarray(idx, dtype=np.int64)
        vx = self.V[np.arange(self.m), :, idx]  # (m, cap)
        return self.K[idx] - np.matmul(vx[:, None, :], self.V)[:, 0]

    def target_means(self) -> np.ndarray:
        """k(x)ᵀ(K_XX + λI)⁻¹ Z for every extra target column: (m, n, k)."""
        return np.matmul(np.swapaxes(self.V, 1, 2), self.A)

    def chain_var(self) -> np.ndarray:
        """σ̃²_{s−1}(x_s) = L_ss² − λ for the retained s (in window order; 0 on unused rows): (m, cap). The
        variance of x_s given the retained observations before it (the chain rule of the window's log det)."""
        d = self._diag()
        used = np.arange(self._cap)[None] < self.n_obs[:, None]
        return np.where(used, np.maximum(d * d - self.noise_var, 0.0), 0.0)

    def log_det(self) -> np.ndarray:
        """½ log det(I + K_XX/λ) of each run's retained data: (m,)."""
        d = self._diag()
        used = np.arange(self._cap)[None] < self.n_obs[:, None]
        return np.where(used, np.log(d) - 0.5 * np.log(self.noise_var), 0.0).sum(axis=1)

    # --------------------------------------------------------------- updates
    def condition(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None,
                  targets: np.ndarray | None = None) -> None:
        """Append ``y[r] = f(x_{idx[r]}) + noise`` to the window of every run (or of the selected ``runs``);
        ``targets`` (m, k): the extra target values at the new observation."""
        idx = np.asarray(idx, dtype=np.int64)
        y = np.asarray(y, dtype=np.float64)
        sel = np.arange(self.m) if runs is None else self._select(runs)
        if sel.size == 0:
            return
        if int(self.n_obs[sel].max()) >= self._cap:
            self._grow()
        x, p = idx[sel], self.n_obs[sel]
        n = self.n
        rows = self.rows if runs is None else self.rows[sel]
        l = rows[np.arange(sel.size), :, x]  # (s, cap): L⁻¹ k(X, x), zero beyond p
        lpp = np.sqrt(np.maximum(self.kdiag[x] + self.noise_var - np.einsum("rc,rc->r", l, l), 1e-300))
        b = np.empty((sel.size, rows.shape[2]))  # the new observation's right-hand sides [k(x, ·) | y − m(x) | z]
        b[:, :n] = self.K[x]
        b[:, n] = y[sel] - self.prior_mean[x]
        if self.k:
            b[:, n + 1:] = np.asarray(targets, dtype=np.float64)[sel]
        new = (b - np.matmul(l[:, None, :], rows)[:, 0]) / lpp[:, None]
        row, anew = new[:, :n], new[:, n]
        resid = anew * lpp  # y − μ_{t−1}(x)
        if self.droppable:
            self.M[sel, :, p] = l  # column p of U = row p of L (zero below: l vanishes beyond p)
            self.M[sel, p, p] = lpp
        self.dL[sel, p] = lpp
        self.M[sel, p, self._u:] = new
        self.X[sel, p] = x
        self.mu[sel] += anew[:, None] * row
        self.s2[sel] -= row * row
        v = lpp * lpp
        self.loglik[sel, 0] += -0.5 * (_LOG2PI + np.log(v) + resid * resid / v)
        self.n_obs[sel] += 1

    def condition_batch(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        """K observations per run (``idx``, ``y`` of shape (m, K)) as K rank-one updates in turn."""
        condition_in_turn(self, idx, y, runs)

    def propagate(self) -> None:
        """Static prior: nothing drifts between steps (forgetting is the window's job)."""

    def drop_oldest(self, runs: np.ndarray | None = None) -> None:
        """Remove the oldest retained observation of every run (or of the selected ``runs``) that has one."""
        sel = np.arange(self.m) if runs is None else self._select(runs)
        sel = sel[self.n_obs[sel] >= 1]
        if sel.size == 0:
            return
        if not self.droppable:
            raise BoundcheckError("drop_oldest needs a window posterior built with droppable=True")
        pmax = int(self.n_obs[sel].max()) - 1
        cap = self._cap
        every = sel.size == self.m
        M = self.M if every else self.M[sel]  # a view (in place) or a copy written back
        if pmax > 0:
            # M1 = [U₁₁ | rows₁] (row k: column k of L₁₁ and the k-th remaining row); ext = [x | dropped row]
            M1 = M[:, 1:pmax + 1, 1:]
            ext = M[:, 0, 1:].copy()
            for k in range(pmax):
                a = M1[:, k]
                r = np.hypot(a[:, k], ext[:, k])
                c, s = (a[:, k] / r)[:, None], (ext[:, k] / r)[:, None]
                new = c * a + s * ext  # entries left of k are zero in both (x is zeroed as it goes)
                ext = c * ext - s * a
                new[:, k], ext[:, k] = r, 0.0  # exactly, so that no round-off enters the factor's zero part
                M1[:, k] = new
            M[:, :pmax, : cap - 1] = M[:, 1:pmax + 1, 1:cap]  # the factor moves up-left, the rows move up
            M[:, :pmax, cap:] = M[:, 1:pmax + 1, cap:]
        M[:, pmax:, :] = 0.0
        M[:, :, pmax:cap] = 0.0
        M[:, np.arange(pmax, cap), np.arange(pmax, cap)] = 1.0
        if not every:
            self.M[sel] = M
        self.dL[sel] = np.diagonal(M[:, :, :cap], axis1=1, axis2=2)
        X = self.X[sel]
        X[:, :-1] = X[:, 1:]
        X[:, -1] = 0
        self.X[sel] = X
        self.n_obs[sel] -= 1
        # μ and σ² from the rotated rows: O(p n), the same order as the rotations, and no accumulated drift
        Vnew, anew = M[..., cap: cap + self.n], M[..., cap + self.n]
        self.mu[sel] = self.prior_mean + np.matmul(anew[:, None, :], Vnew)[:, 0]
        self.s2[sel] = self.kdiag - np.einsum("rcn,rcn->rn", Vnew, Vnew)


def exact_window_posterior(K: np.ndarray, mean: np.ndarray, X: np.ndarray, y: np.ndarray,
                           noise_var: float) -> tuple[np.ndarray, np.ndarray]:
    """Reference: μ and σ² on the whole domain from scratch (batched Cholesky of K_XX + λI), for runs that all
    hold ``p = X.shape[1]`` observations: ``X``, ``y`` (m, p) -> (m, n), (m, n). O(p³ + p² n) per run."""
    X = np.asarray(X, dtype=np.int64)
    m, p = X.shape
    n = K.shape[0]
    if p == 0:
        return np.broadcast_to(mean, (m, n)).copy(), np.broadcast_to(np.diag(K), (m, n)).copy()
    A = K[X[:, :, None], X[:, None, :]] + noise_var * np.eye(p)
    Linv = np.linalg.inv(np.linalg.cholesky(A))  # well conditioned: the eigenvalues of A are ≥ λ
    W = Linv @ K[X]  # (m, p, n): L⁻¹K_{X,D}
    a = (Linv @ (np.asarray(y, dtype=np.float64) - mean[X])[:, :, None])[:, :, 0]
    mu = mean + np.matmul(a[:, None, :], W)[:, 0]
    s2 = np.diag(K) - np.einsum("rpn,rpn->rn", W, W)
    return mu, s2
