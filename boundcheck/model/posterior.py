"""The exact GP posterior over a finite domain, batched over runs, float64: the grid-state form.

:class:`BatchedPosterior` holds, for ``m`` runs and ``P`` candidate priors in ``G`` kernel groups, the posterior
covariance of each group (stored as ``K_g − c_g D_g``, so the ε chain's Kalman predict is an O(1) scalar update),
the mean deviations and the log marginal likelihoods; :meth:`condition`, :meth:`propagate` and :meth:`reset` cost
O(n²) per observation and group. The data-space form is :mod:`~boundcheck.model.dataspace`; joint posterior draws
for Thompson sampling come from :class:`PathwiseSampler` and :class:`SqrtSampler` (:func:`joint_sampler`).

Convention: before step t's selection the state is the posterior given D_{t-1} *predicting time t*; after
observing y_t call ``condition`` then ``propagate``. The state, the operations and their costs: docs/model.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import BoundcheckError
from .arithmetic import _ARITHMETIC, ARITHMETICS, arithmetic, use_arithmetic  # noqa: F401 - re-exported
from .priors import GPPrior, clipped_root

__all__ = ["Posterior", "GroupedPosterior", "BatchedPosterior", "PathwiseSampler", "SqrtSampler", "naive_posterior",
           "arithmetic", "use_arithmetic", "rows_of", "condition_in_turn", "default_block", "joint_sampler",
           "PATHWISE_MAX_HORIZON"]

_LOG2PI = float(np.log(2.0 * np.pi))
_RENORM = 1e-150  # c_g below this: fold it into the state before the entries scaled by 1/c_g overflow


@runtime_checkable
class Posterior(Protocol):
    """What policies and the engine may call on a posterior (batched over ``m`` runs, ``P`` priors in ``G``
    kernel groups, ``n`` domain points). Every representation (grid-state, data-space) implements it."""

    m: int
    n: int
    P: int
    G: int
    priors: tuple[GPPrior, ...]
    group_of: np.ndarray  # (P,) kernel group of each prior
    noise_var: float  # the model's likelihood variance λ
    loglik: np.ndarray  # (m, P) log p(D | p)
    n_obs: np.ndarray  # (m,) observations since the last reset

    def mean(self) -> np.ndarray: ...  # (m, P, n)
    def var(self) -> np.ndarray: ...  # (m, P, n)
    def sd(self) -> np.ndarray: ...  # (m, P, n)
    def group_var(self) -> np.ndarray: ...  # (m, G, n)
    def cov_column(self, idx: np.ndarray, prior: int = 0) -> np.ndarray: ...  # (m, n)
    def condition(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None: ...
    def condition_batch(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None: ...
    def propagate(self) -> None: ...
    def reset(self, runs: np.ndarray | None = None) -> None: ...


# ------------------------------------------------------------------------------------------ arithmetic
# "fast" (the blocked in-place kernels below) or "reference" (the first engine's): boundcheck.model.arithmetic


def rows_of(runs: np.ndarray | None, m: int) -> np.ndarray:
    """Integer run indices from None (all runs), a boolean mask or an integer index."""
    if runs is None:
        return np.arange(m)
    r = np.asarray(runs)
    if r.dtype == bool:
        return np.flatnonzero(r)
    return r.astype(np.int64, copy=False).ravel()


def condition_in_turn(post: Posterior, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
    """``post.condition_batch`` as K rank-one updates in turn: ``idx``, ``y`` of shape (m, K), or (m,) for one.

    Conditioning on K observations taken at the same time is exact as K sequential rank-1 updates (the joint
    Gaussian update factorises by the chain rule); no propagation happens in between."""
    idx, y = np.asarray(idx), np.asarray(y)
    if idx.ndim == 1:
        post.condition(idx, y, runs)
        return
    for k in range(idx.shape[1]):
        post.condition(idx[:, k], y[:, k], runs)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class GroupedPosterior:
    """What every representation shares: the priors grouped by kernel, the mean deviation ``dev`` (m, P, n)
    and ``loglik`` (m, P), per-state caches of the queries, and the vectorised per-prior mean update.

    Queries return read-only arrays cached until the next update (the engine and a policy both read the
    posterior at every step); square roots are taken per kernel group, not per prior."""

    representation = "?"

    def _setup(self, priors: Sequence[GPPrior], noise_var: float, runs: int) -> None:
        if len(priors) == 0:
            raise BoundcheckError(f"{type(self).__name__} needs at least one prior")
        if not noise_var > 0:
            raise BoundcheckError(f"noise variance must be positive, got {noise_var!r}")
        n = priors[0].n
        if any(p.n != n for p in priors):
            raise BoundcheckError("all priors must live on the same domain")
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
        self._all_members = [bool(np.array_equal(mb, np.arange(self.P))) for mb in self.members]
        self.prior_mean = np.stack([p.mean for p in priors])  # (P, n)
        self._cache: dict[str, np.ndarray] = {}
        self._rows = np.arange(self.m)  # run indices (reused: called every step)
        self._identity_groups = self.G == self.P and bool(np.array_equal(self.group_of, np.arange(self.P)))

    # --------------------------------------------------------------- queries
    def _group_var(self) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def mean(self) -> np.ndarray:
        """Posterior means μ^p_{t-1}(·, t): (m, P, n), read-only."""
        out = self._cache.get("mean")
        if out is None:
            out = self._cache["mean"] = _readonly(self.prior_mean[None] + self.dev)
        return out

    def group_var(self) -> np.ndarray:
        """Posterior variances per kernel group: (m, G, n), clipped at 0 against round-off; read-only."""
        out = self._cache.get("group_var")
        if out is None:
            out = self._cache["group_var"] = _readonly(self._group_var())
        return out

    def group_sd(self) -> np.ndarray:
        """Posterior standard deviations per kernel group: (m, G, n), read-only."""
        out = self._cache.get("group_sd")
        if out is None:
            out = self._cache["group_sd"] = _readonly(np.sqrt(self.group_var()))
        return out

    def _per_prior(self, a: np.ndarray) -> np.ndarray:
        if self._identity_groups:
            return a
        if self.G == 1:  # a broadcast view: no (m, P, n) copy of a per-group quantity
            return np.broadcast_to(a, (self.m, self.P, self.n))
        return a[:, self.group_of]

    def var(self) -> np.ndarray:
        """Posterior variances σ²^p_{t-1}(·, t) per prior: (m, P, n), read-only (a view of the groups')."""
        return self._per_prior(self.group_var())

    def sd(self) -> np.ndarray:
        """Posterior standard deviations per prior: (m, P, n), read-only (square roots taken per group)."""
        return self._per_prior(self.group_sd())

    # --------------------------------------------------------------- shared update pieces
    def _fold_scale(self, g: int) -> None:  # pragma: no cover
        raise NotImplementedError

    def propagate(self) -> None:
        """One step of the ε Markov chain for every run (Kalman predict): Σ_g's scale c_g ← (1 − ε_g)c_g, folded
        into the representation's state when it gets small, and the mean deviations shrink by √(1 − ε_g)."""
        for g in range(self.G):
            e = self.eps[g]
            if e == 0.0:
                continue
            self._cache.clear()
            self.c[g] *= 1.0 - e
            if self.c[g] < _RENORM:
                self._fold_scale(g)
                self.c[g] = 1.0
            if self._all_members[g]:
                self.dev *= np.sqrt(1.0 - e)
            else:
                self.dev[:, self.members[g]] *= np.sqrt(1.0 - e)

    def _mean_at(self, sel: np.ndarray, idx_s: np.ndarray, every: bool) -> np.ndarray:
        """μ^p_{t-1}(x_r) for every selected run r and prior p: (k, P)."""
        rows = self._rows if every else sel
        return self.prior_mean[:, idx_s].T + self.dev[rows, :, idx_s]

    def _update_priors(self, g: int, sel: np.ndarray, every: bool, gain: np.ndarray, v: np.ndarray,
                       y_s: np.ndarray, mu_at: np.ndarray) -> np.ndarray:
        """Mean and log-likelihood update of the priors of group g (all at once); returns the residuals."""
        mb = self.members[g]
        resid = y_s[:, None] - mu_at[:, mb]  # (k, P_g)
        dl = -0.5 * (_LOG2PI + np.log(v)[:, None] + resid * resid / v[:, None])
        upd = gain[:, None, :] * resid[:, :, None]
        if every and self._all_members[g]:
            self.dev += upd
            self.loglik += dl
        else:
            ix = np.ix_(sel, mb)
            self.dev[ix] += upd
            self.loglik[ix] += dl
        return resid


class BatchedPosterior(GroupedPosterior):
    """Exact posterior of several GP priors, for a batch of runs, on a finite domain (grid-state form).

    Storage: ``Σ_g = K_g − c_g (D_g + U_gᵀU_g)``: the folded matrix D_g (m, n, n) and up to ``block`` pending
    rank-one rows U_g (m, block, n). An observation appends one row (O(n·block) to read Σ[:, x]); every
    ``block`` observations the rows are folded into D_g by one in-place BLAS ``dgemm`` per run (rank-``block``
    update at matrix-multiply speed, no (m, n, n) temporary). The diagonal of D_g + U_gᵀU_g is kept
    incrementally, so variances cost O(n).

    Implements :class:`Posterior`."""

    representation = "grid"

    def __init__(self, priors: Sequence[GPPrior], noise_var: float, runs: int, *, block: int | None = None) -> None:
        self._setup(priors, noise_var, runs)
        self.arithmetic = _ARITHMETIC.value
        self.block = 0 if self.arithmetic == "reference" else int(block or default_block(self.n))
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self, runs: np.ndarray | None = None) -> None:
        """Forget all data, for every run or for the runs selected by a boolean/int index."""
        self._cache.clear()
        if runs is None:
            G, m, n = self.G, self.m, self.n
            self.D = np.zeros((G, m, n, n))  # folded part of Σ_g = K_g − c_g (D_g + U_gᵀU_g)
            self.U = np.zeros((G, m, max(self.block, 1), n))  # pending rank-one rows
            self.k = np.zeros(m, dtype=np.int64)  # pending rows per run
            self.ddiag = np.zeros((G, m, n))  # diag(D_g + U_gᵀU_g)
            self.c = np.ones(G)
            self.dev = np.zeros((m, self.P, n))
            self.loglik = np.zeros((m, self.P))
            self.n_obs = np.zeros(m, dtype=np.int64)
            return
        self.D[:, runs] = 0.0
        self.U[:, runs] = 0.0
        self.k[runs] = 0
        self.ddiag[:, runs] = 0.0
        self.dev[runs] = 0.0
        self.loglik[runs] = 0.0
        self.n_obs[runs] = 0

    def keep_runs(self, keep: np.ndarray) -> None:
        """Retire the runs not in ``keep`` (boolean, one per run) from the batch; the kept runs' states are
        unchanged (a run's arithmetic never reads another run's)."""
        keep = np.asarray(keep, dtype=bool)
        self._cache.clear()
        self.D, self.U, self.ddiag = self.D[:, keep], self.U[:, keep], self.ddiag[:, keep]
        self.k, self.dev, self.loglik, self.n_obs = self.k[keep], self.dev[keep], self.loglik[keep], self.n_obs[keep]
        self.m = int(keep.sum())
        self._rows = np.arange(self.m)

    # --------------------------------------------------------------- queries
    def _group_var(self) -> np.ndarray:
        ddiag = np.diagonal(self.D, axis1=2, axis2=3) if self.arithmetic == "reference" else self.ddiag
        v = self.kdiag[:, None, :] - self.c[:, None, None] * ddiag
        return np.maximum(np.moveaxis(v, 0, 1), 0.0)

    def _pending(self, g: int, rows: np.ndarray | None, idx: np.ndarray) -> np.ndarray | None:
        """(U_gᵀU_g)[x_r, :] for each run: (k, n), or None when nothing is pending."""
        kmax = int(self.k.max(initial=0) if rows is None else self.k[rows].max(initial=0))
        if kmax == 0:
            return None
        Ug = self.U[g][:, :kmax] if rows is None else self.U[g][rows, :kmax]
        ucol = Ug[self._rows if idx.size == self.m else np.arange(idx.size), :, idx]  # (k, kmax): U[:, x_r]
        return np.matmul(ucol[:, None, :], Ug)[:, 0, :]

    def cov(self, prior: int = 0) -> np.ndarray:
        """Full posterior covariance (m, n, n) of one prior (materialised; for tests and diagnostics)."""
        g = self.group_of[prior]
        D = self.D[g] + np.matmul(np.swapaxes(self.U[g], 1, 2), self.U[g])
        return self.K[g][None] - self.c[g] * D

    def cov_column(self, idx: np.ndarray, prior: int = 0) -> np.ndarray:
        """Σ_{t−1}[:, x] for x = ``idx[r]`` in every run r: (m, n), without materialising Σ."""
        g = self.group_of[prior]
        idx = np.asarray(idx, dtype=np.int64)
        d = self.D[g][self._rows, idx]
        pend = self._pending(g, None, idx)
        return self.K[g][idx] - self.c[g] * (d if pend is None else d + pend)

    # --------------------------------------------------------------- updates
    def condition(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        """Observe ``y[r] = f(x_{idx[r]}) + noise`` in every run r (or only in ``runs``, a boolean mask)."""
        idx = np.asarray(idx, dtype=np.int64)
        y = np.asarray(y, dtype=np.float64)
        every = runs is None
        sel = self._rows if every else rows_of(runs, self.m)
        if sel.size == 0:
            return
        self._cache.clear()
        idx_s, y_s = (idx, y) if every else (idx[sel], y[sel])
        k = self._rows if every else np.arange(sel.size)
        mu_at = self._mean_at(sel, idx_s, every)  # posterior mean of every prior at the observed point
        if self.arithmetic == "reference":
            self._condition_reference(sel, every, idx_s, y_s, mu_at)
        else:
            kk = self.k[sel]
            for g in range(self.G):
                c = self.c[g]
                d = self.D[g][k, idx_s] if every else self.D[g][sel, idx_s]  # rows x of D_g (contiguous)
                pend = self._pending(g, None if every else sel, idx_s)
                s = self.K[g][idx_s] - c * (d if pend is None else d + pend)  # (k, n): Σ[:, x]
                v = s[k, idx_s] + self.noise_var  # predictive variance of y
                u = s * (1.0 / np.sqrt(c * v))[:, None]  # Σ_new = K − c(D + UᵀU + u uᵀ)
                self.U[g][sel, kk] = u
                if every:
                    self.ddiag[g] += u * u
                else:
                    self.ddiag[g][sel] += u * u
                self._update_priors(g, sel, every, s / v[:, None], v, y_s, mu_at)
            self.k[sel] += 1
            full = sel[self.k[sel] >= self.block]
            if full.size:
                self._fold(full)
        self.n_obs[sel] += 1

    def _fold(self, runs: np.ndarray) -> None:
        """D_g += U_gᵀU_g in place, one BLAS dgemm per run (rank-``block`` update), then clear U."""
        from scipy.linalg.blas import dgemm

        for g in range(self.G):
            for r in runs:
                Ut = self.U[g, r].T  # (n, block), Fortran-contiguous view
                dgemm(1.0, Ut, Ut, beta=1.0, c=self.D[g, r].T, trans_b=1, overwrite_c=1)
        self.U[:, runs] = 0.0
        self.k[runs] = 0

    def _condition_reference(self, sel, every, idx_s, y_s, mu_at) -> None:
        """The first engine's arithmetic, operation for operation (pinned by tests/study/test_regression.py)."""
        k = np.arange(sel.size)
        for g in range(self.G):
            D, c = self.D[g], self.c[g]
            s = self.K[g][idx_s] - c * (D[sel, :, idx_s] if not every else D[k, idx_s])  # (k, n): Σ[:, x]
            v = s[k, idx_s] + self.noise_var  # predictive variance of y
            gain = s / v[:, None]
            upd = gain[:, :, None] * (s / c)[:, None, :]
            if every:
                D += upd
            else:
                D[sel] += upd
            self._update_priors(g, sel, every, gain, v, y_s, mu_at)

    def condition_batch(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        """Observe K values per run at once (a semi-bandit round): ``idx``, ``y`` of shape (m, K), exact as K
        rank-one updates in turn (:func:`condition_in_turn`). A 1-d ``idx``/``y`` is one observation per run."""
        condition_in_turn(self, idx, y, runs)

    def _fold_scale(self, g: int) -> None:
        """Fold c_g into D_g and U_g (c_g is then reset to 1) before D_g's entries (∝ 1/c_g) overflow."""
        self.D[g] *= self.c[g]
        self.U[g] *= np.sqrt(self.c[g])
        self.ddiag[g] *= self.c[g]


def default_block(n: int) -> int:
    """Pending rows before a fold: large enough for the fold to run at matrix-multiply speed, small enough
    that reading Σ[:, x] (O(n·block)) stays below the fold's amortised O(n²)."""
    return int(min(64, max(8, n // 8)))


class PathwiseSampler:
    """Exact joint draws from N(μ_{t−1}, s² Σ_{t−1}) on the domain, batched over runs (pathwise conditioning).

    For a stationary prior (ε = 0) with Gram matrix K and likelihood variance λ, given the queried points
    X = (x_1..x_t): with g = A z ~ N(0, K) (``A`` from the clipped eigendecomposition of K, computed once; no
    jitter) and e ~ N(0, λ I_t) independent,

        h = g − W_t (g_X + e),   W_t = K_{DX}(K_XX + λI)⁻¹,   Cov(h) = K − K_{DX}(K_XX + λI)⁻¹K_{XD} = Σ_t.

    ``W_t`` follows the same rank-1 recursion as the posterior (its gains do not depend on y):
    W_t = [W_{t−1} − k_t W_{t−1}[x_t, :], k_t] with k_t = Σ_{t−1}[:, x_t] / (σ²_{t−1}(x_t) + λ).
    Call :meth:`observe` with x_t *before* ``posterior.condition`` (it reads Σ_{t−1}).
    """

    def __init__(self, posterior: Posterior, prior: int = 0, capacity: int = 64, first_run: int = 0) -> None:
        g = posterior.group_of[prior]
        if posterior.eps[g] != 0.0:
            raise BoundcheckError("pathwise sampling is implemented for static priors (ε = 0) only")
        self.post, self.prior, self.first_run = posterior, prior, int(first_run)
        self.A = clipped_root(posterior.K[g])  # (n, r), A Aᵀ = K
        m, n = posterior.m, posterior.n
        self.t = 0
        self.W = np.zeros((m, n, capacity))
        self.X = np.zeros((m, capacity), dtype=np.int64)

    def observe(self, idx: np.ndarray) -> None:
        post, t = self.post, self.t
        idx = np.asarray(idx, dtype=np.int64)
        rows = np.arange(post.m)
        if t == self.W.shape[2]:  # grow geometrically
            self.W = np.concatenate([self.W, np.zeros_like(self.W)], axis=2)
            self.X = np.concatenate([self.X, np.zeros_like(self.X)], axis=1)
        s = post.cov_column(idx, self.prior)  # Σ_{t−1}[:, x_t]
        gain = s / (s[rows, idx] + post.noise_var)[:, None]
        W = self.W[:, :, :t]
        W -= gain[:, :, None] * W[rows, idx][:, None, :]
        self.W[:, :, t] = gain
        self.X[:, t] = idx
        self.t = t + 1

    def draw(self, rngs: list[np.random.Generator]) -> np.ndarray:
        """h ~ N(0, Σ_t) jointly on the domain for every run: (m, n). One stream per run."""
        t, r = self.t, self.A.shape[1]
        z = np.stack([g.standard_normal(r + t) for g in rngs])  # prior draw and pseudo-noise, per run
        from .sampling import rows_matmul

        gvals = rows_matmul(z[:, :r], self.A.T, self.first_run)  # (m, n) ~ N(0, K)
        if t == 0:
            return gvals
        rows = np.arange(self.post.m)[:, None]
        u = gvals[rows, self.X[:, :t]] + np.sqrt(self.post.noise_var) * z[:, r:]
        return gvals - np.einsum("mnt,mt->mn", self.W[:, :, :t], u)


    def draws(self, rngs: list[np.random.Generator], k: int) -> np.ndarray:
        """k independent h ~ N(0, Σ_t) per run: (m, k, n), as :meth:`draw` k times but in one pass (a shadow's
        draws, :meth:`boundcheck.policies.gp_ts.GPTS.conformance`). The products are stacked per run
        (``np.matmul`` multiplies each run's (k, ·) slice on its own), so a run's values never depend on how many
        runs share the call."""
        t, r = self.t, self.A.shape[1]
        z = np.stack([g.standard_normal((k, r + t)) for g in rngs])  # (m, k, r + t)
        gvals = np.matmul(z[:, :, :r], np.broadcast_to(self.A.T, (z.shape[0],) + self.A.T.shape))  # (m, k, n)
        if t == 0:
            return gvals
        X = np.broadcast_to(self.X[:, None, :t], (z.shape[0], k, t))
        u = np.take_along_axis(gvals, X, axis=2) + np.sqrt(self.post.noise_var) * z[:, :, r:]
        return gvals - np.matmul(u, np.swapaxes(self.W[:, :, :t], 1, 2))


class SqrtSampler:
    """Exact joint draws from N(0, Σ_t) on the domain through a square-root factor updated by rank one per
    observation: O(n r) per step and run, whatever t (the long-horizon form of GP-TS's sampler).

    With S_0 = A (``A Aᵀ = K``, the clipped eigendecomposition of K, computed once; no jitter) and, for an
    observation at x with likelihood variance λ, a = S_{t−1}[x, :]ᵀ, s = S_{t−1} a = Σ_{t−1}[:, x] and
    v = ‖a‖² + λ = σ²_{t−1}(x) + λ::

        S_t = S_{t−1} − β s aᵀ,   β = 1 / (v + √(λ v)),

    so that S_t S_tᵀ = S_{t−1}(I − β a aᵀ)² S_{t−1}ᵀ = S_{t−1}(I − a aᵀ / v)S_{t−1}ᵀ = Σ_{t−1} − s sᵀ / v = Σ_t
    ((I − β a aᵀ)² = I − (2β − β²‖a‖²) a aᵀ and 2β − β²‖a‖² = 1/v for this β: Potter's square-root
    measurement update). A draw is h = S_t z with z ~ N(0, I_r) from the run's stream. Unlike a Cholesky
    factor of Σ_t, S_t needs no factorisation per step and no positive definiteness (Σ_t of a smooth kernel on
    100 points is numerically singular). Unlike :class:`PathwiseSampler` (O(n r + n t) per step, an (m, n, t)
    gain buffer) its cost does not grow with t.

    Storage, as the grid posterior's: ``S_t = S_b − P Qᵀ`` with the folded factor S_b (m, n, r) and up to
    ``block`` pending updates (columns β s of P, a of Q), folded into S_b by one matrix product per run every
    ``block`` observations, so that a step costs O((n + r)·block) besides the draw's S_b z. s = Σ_{t−1}[:, x]
    is read from the posterior (:meth:`Posterior.cov_column`, any representation), as :class:`PathwiseSampler`
    does: call :meth:`observe` before ``posterior.condition``.

    Same interface as :class:`PathwiseSampler` (``A``, :meth:`observe`, :meth:`draw`, :meth:`draws`)."""

    def __init__(self, posterior: Posterior, prior: int = 0, first_run: int = 0, block: int | None = None) -> None:
        g = posterior.group_of[prior]
        if posterior.eps[g] != 0.0:
            raise BoundcheckError("square-root sampling is implemented for static priors (ε = 0) only")
        self.post, self.prior, self.first_run = posterior, prior, int(first_run)
        self.noise_var = float(posterior.noise_var)
        self.A = clipped_root(posterior.K[g])  # (n, r), A Aᵀ = K
        m, (n, r) = posterior.m, self.A.shape
        self.block = int(block or default_block(n))
        self.Sb = np.ascontiguousarray(np.broadcast_to(self.A, (m, n, r)))  # folded factor
        self.P = np.zeros((m, n, self.block))  # pending β s (columns)
        self.Q = np.zeros((m, r, self.block))  # pending a (columns)
        self.k = 0  # pending updates (every run observes at every step)
        self._rows = np.arange(m)
        self.t = 0

    def _row(self, idx: np.ndarray) -> np.ndarray:
        """S_{t−1}[x, :] for x = ``idx[r]`` in every run: (m, r)."""
        a = self.Sb[self._rows, idx]
        if self.k:
            a = a - np.matmul(self.P[self._rows, idx, None, :self.k], np.swapaxes(self.Q[:, :, :self.k], 1, 2))[:, 0]
        return a

    def observe(self, idx: np.ndarray) -> None:
        """The rank-one update of the factor for an observation at ``idx[r]`` in every run r."""
        idx = np.asarray(idx, dtype=np.int64)
        a = self._row(idx)
        s = self.post.cov_column(idx, self.prior)  # Σ_{t−1}[:, x] = S_{t−1} a
        v = s[self._rows, idx] + self.noise_var
        beta = 1.0 / (v + np.sqrt(self.noise_var * v))
        self.P[:, :, self.k] = beta[:, None] * s
        self.Q[:, :, self.k] = a
        self.k += 1
        self.t += 1
        if self.k == self.block:
            self._fold()

    def _fold(self) -> None:
        """S_b −= P Qᵀ in place, one BLAS dgemm per run (rank-``block`` update at matrix-multiply speed)."""
        from scipy.linalg.blas import dgemm

        for i in range(self.Sb.shape[0]):
            # on the transposes (Fortran-contiguous views): S_bᵀ −= Q Pᵀ
            dgemm(-1.0, self.Q[i, :, :self.k], self.P[i, :, :self.k], beta=1.0, c=self.Sb[i].T, trans_b=1,
                  overwrite_c=1)
        self.k = 0

    def factor(self) -> np.ndarray:
        """S_t (m, n, r), materialised (tests and diagnostics)."""
        return self.Sb - np.matmul(self.P[:, :, :self.k], np.swapaxes(self.Q[:, :, :self.k], 1, 2))

    def cov(self) -> np.ndarray:
        """S_t S_tᵀ = Σ_t (m, n, n), materialised (tests and diagnostics)."""
        S = self.factor()
        return np.matmul(S, np.swapaxes(S, 1, 2))

    def _apply(self, z: np.ndarray) -> np.ndarray:
        """S_t z for z (m, r, j): (m, n, j); each run's product is its own (one BLAS product per run: a stacked
        ``np.matmul`` with j = 1 runs outside BLAS, ~10× slower), so a run's values never depend on the batch."""
        out = np.empty((z.shape[0], self.Sb.shape[1], z.shape[2]))
        for i in range(z.shape[0]):
            np.dot(self.Sb[i], z[i], out=out[i])
        if self.k:
            out -= np.matmul(self.P[:, :, :self.k], np.matmul(np.swapaxes(self.Q[:, :, :self.k], 1, 2), z))
        return out

    def draw(self, rngs: list[np.random.Generator]) -> np.ndarray:
        """h ~ N(0, Σ_t) jointly on the domain for every run: (m, n). One stream per run."""
        z = np.stack([g.standard_normal(self.A.shape[1]) for g in rngs])
        return self._apply(z[:, :, None])[:, :, 0]

    def draws(self, rngs: list[np.random.Generator], k: int) -> np.ndarray:
        """k independent h ~ N(0, Σ_t) per run: (m, k, n), as :meth:`draw` k times in one pass."""
        z = np.stack([g.standard_normal((k, self.A.shape[1])) for g in rngs])  # (m, k, r)
        return np.swapaxes(self._apply(np.swapaxes(z, 1, 2)), 1, 2)


#: the longest horizon GP-TS draws with :class:`PathwiseSampler`; beyond it :class:`SqrtSampler`. Pathwise costs
#: O(n(r + t)) per step and holds an (m, n, T) gain buffer, the square-root factor O(n r) whatever t: at
#: T = 1000 pathwise is already ~2× the cost, and every horizon up to here keeps the draws (and the results
#: pinned at T ≤ 1000) it always had
PATHWISE_MAX_HORIZON = 1000


def joint_sampler(posterior: Posterior, horizon: int, prior: int = 0, first_run: int = 0):
    """GP-TS's joint sampler of N(0, Σ_t) for a study of ``horizon`` steps: :class:`PathwiseSampler` up to
    :data:`PATHWISE_MAX_HORIZON`, :class:`SqrtSampler` beyond (both exact; see there)."""
    if int(horizon) <= PATHWISE_MAX_HORIZON:
        return PathwiseSampler(posterior, prior, capacity=max(1, int(horizon)), first_run=first_run)
    return SqrtSampler(posterior, prior, first_run=first_run)


def naive_posterior(
    K_X: np.ndarray, mean: np.ndarray, eps: float, idx: np.ndarray, times: np.ndarray, y: np.ndarray,
    t_pred: int, noise_var: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Reference: refit from scratch on the explicit spatio-temporal kernel matrix (what papers' code does).

    Returns the posterior mean and variance on the whole domain at time ``t_pred`` given observations
    ``y`` at domain indices ``idx`` and times ``times``. O(t³); for tests and benchmarks only.
    """
    from scipy.linalg import cho_factor, cho_solve

    from .kernels import time_factor  # noqa: PLC0415 - a reference for tests and benchmarks only

    n = K_X.shape[0]
    if len(idx) == 0:
        return mean.copy(), np.diag(K_X).copy()
    Kd = K_X[np.ix_(idx, idx)] * time_factor(eps, times)
    Ks = K_X[:, idx] * time_factor(eps, np.full(n, t_pred), times)
    c = cho_factor(Kd + noise_var * np.eye(len(idx)), lower=True)
    mu = mean + Ks @ cho_solve(c, y - mean[idx])
    var = np.diag(K_X) - np.einsum("ij,ji->i", Ks, cho_solve(c, Ks.T))
    return mu, var
