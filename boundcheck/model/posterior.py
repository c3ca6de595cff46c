"""ONE exact GP posterior engine over a finite domain, batched over runs, float64.

State for a batch of ``m`` runs and ``P`` candidate priors grouped into ``G`` kernel groups (priors with the
same ``(K, ε)`` share a covariance, PE-GP-UCB's toy problem has G = 1 for 11 priors):

* ``Σ_g``: (m, n, n) posterior covariance of f_t on the domain under group g (stored as K_g − c_g D_g);
* ``dev``: (m, P, n) posterior mean minus prior mean;
* ``loglik``: (m, P) log marginal likelihood log p(D | p), accumulated from one-step predictive densities
  (chain rule), used by the MLE and fully Bayesian baselines.

Storage: ``Σ_g = K_g − c_g D_g`` with a per-group scalar ``c_g``. The Kalman predict of the ε chain,
``Σ ← (1−ε)Σ + εK``, is then ``D ← (1−ε) D``, i.e. the O(1) update ``c ← (1−ε)c`` (D is renormalised
when c underflows), so a time step costs one rank-1 update and nothing else.

Operations (grid-state form, O(n²) per observation and group):

* :meth:`condition` — rank-1 update with one observation per run (call it K times for a semi-bandit round:
  sequential conditioning is exact). Uses the model noise variance ``noise_var`` (R², or λ for IGP-UCB).
* :meth:`propagate` — Kalman predict of the ε Markov chain: ``dev ← √(1-ε) dev``,
  ``Σ ← (1-ε) Σ + ε K``. Exact for the kernel ``k_X (1-ε)^{|t-t'|/2}``.
* :meth:`reset` — back to the prior for selected runs (R-GP-UCB, ET-GP-UCB).

The data-space form (O(n·|D|) per observation, resets and sliding windows) is
:class:`~boundcheck.model.dataspace.DataSpacePosterior`; :func:`~boundcheck.model.dataspace.make_posterior`
picks the cheaper form by cost.

Joint posterior draws (Thompson sampling) come from :class:`PathwiseSampler`: Matheron's rule
``h = g − K_{DX}(K_XX + λI)⁻¹(g_X + e)`` with a prior draw ``g`` from a factor of K computed once and the
data-space gain ``W_t = K_{DX}(K_XX + λI)⁻¹`` updated in O(n t) per step, so a draw costs O(n r + n t) per run
instead of a per-step O(n³) factorisation of the posterior covariance.

Convention: before step t's selection the state is the posterior given D_{t-1} *predicting time t*;
after observing y_t call ``condition`` then ``propagate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import BoundcheckError
from .priors import GPPrior, clipped_root

__all__ = ["Posterior", "BatchedPosterior", "PathwiseSampler", "naive_posterior"]

_LOG2PI = float(np.log(2.0 * np.pi))


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


class BatchedPosterior:
    """Exact posterior of several GP priors, for a batch of runs, on a finite domain (grid-state form).

    Implements :class:`Posterior`."""

    def __init__(self, priors: Sequence[GPPrior], noise_var: float, runs: int) -> None:
        if len(priors) == 0:
            raise BoundcheckError("BatchedPosterior needs at least one prior")
        if not noise_var > 0:
            raise BoundcheckError(f"noise variance must be positive, got {noise_var!r}")
        n = priors[0].n
        if any(p.n != n for p in priors):
            raise BoundcheckError("all priors must live on the same domain")
        self.priors = tuple(priors)
        self.noise_var = float(noise_var)
        self.m, self.n, self.P = int(runs), n, len(priors)
        keys: dict[str, int] = {}
        group_of = []
        for p in priors:
            group_of.append(keys.setdefault(p.kernel_key, len(keys)))
        self.group_of = np.asarray(group_of, dtype=np.int64)
        self.G = len(keys)
        first = {g: self.priors[int(np.argmax(self.group_of == g))] for g in range(self.G)}
        self.K = np.stack([first[g].K for g in range(self.G)])  # (G, n, n)
        self.eps = np.array([first[g].eps for g in range(self.G)])
        self.members = [np.flatnonzero(self.group_of == g) for g in range(self.G)]
        self.prior_mean = np.stack([p.mean for p in priors])  # (P, n)
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self, runs: np.ndarray | None = None) -> None:
        """Forget all data, for every run or for the runs selected by a boolean/int index."""
        if runs is None:
            self.D = np.zeros((self.G, self.m, self.n, self.n))  # Σ_g = K_g − c_g D_g
            self.c = np.ones(self.G)
            self.dev = np.zeros((self.m, self.P, self.n))
            self.loglik = np.zeros((self.m, self.P))
            self.n_obs = np.zeros(self.m, dtype=np.int64)
            return
        self.D[:, runs] = 0.0
        self.dev[runs] = 0.0
        self.loglik[runs] = 0.0
        self.n_obs[runs] = 0

    # --------------------------------------------------------------- queries
    def mean(self) -> np.ndarray:
        """Posterior means μ^p_{t-1}(·, t): (m, P, n)."""
        return self.prior_mean[None] + self.dev

    def group_var(self) -> np.ndarray:
        """Posterior variances per kernel group: (m, G, n), clipped at 0 against round-off."""
        kdiag = np.diagonal(self.K, axis1=1, axis2=2)  # (G, n)
        ddiag = np.diagonal(self.D, axis1=2, axis2=3)  # (G, m, n)
        v = kdiag[:, None, :] - self.c[:, None, None] * ddiag
        return np.maximum(np.moveaxis(v, 0, 1), 0.0)

    def var(self) -> np.ndarray:
        """Posterior variances σ²^p_{t-1}(·, t) per prior: (m, P, n)."""
        return self.group_var()[:, self.group_of]

    def sd(self) -> np.ndarray:
        return np.sqrt(self.var())

    def cov(self, prior: int = 0) -> np.ndarray:
        """Full posterior covariance (m, n, n) of one prior (materialised; for tests and diagnostics)."""
        g = self.group_of[prior]
        return self.K[g][None] - self.c[g] * self.D[g]

    def cov_column(self, idx: np.ndarray, prior: int = 0) -> np.ndarray:
        """Σ_{t−1}[:, x] for x = ``idx[r]`` in every run r: (m, n), without materialising Σ."""
        g = self.group_of[prior]
        idx = np.asarray(idx, dtype=np.int64)
        return self.K[g][idx] - self.c[g] * self.D[g][np.arange(self.m), idx]

    # --------------------------------------------------------------- updates
    def condition(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        """Observe ``y[r] = f(x_{idx[r]}) + noise`` in every run r (or only in ``runs``, a boolean mask)."""
        idx = np.asarray(idx, dtype=np.int64)
        y = np.asarray(y, dtype=np.float64)
        every = runs is None
        sel = np.arange(self.m) if every else np.flatnonzero(runs)
        if sel.size == 0:
            return
        idx_s, y_s = idx[sel], y[sel]
        k = np.arange(sel.size)
        # posterior mean of every prior at the observed point, per selected run
        mu_at = self.prior_mean[:, idx_s].T + self.dev[sel[:, None], np.arange(self.P)[None], idx_s[:, None]]
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
            for p in self.members[g]:
                resid = y_s - mu_at[:, p]
                self.dev[sel, p] += gain * resid[:, None]
                self.loglik[sel, p] += -0.5 * (_LOG2PI + np.log(v) + resid * resid / v)
        self.n_obs[sel] += 1

    def condition_batch(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        """Observe K values per run at once (a semi-bandit round): ``idx``, ``y`` of shape (m, K).

        Conditioning on K observations taken at the same time is exact as K sequential rank-1 updates (the
        joint Gaussian update factorises by the chain rule); no propagation happens in between. A 1-d
        ``idx``/``y`` is one observation per run."""
        idx, y = np.asarray(idx), np.asarray(y)
        if idx.ndim == 1:
            self.condition(idx, y, runs)
            return
        for k in range(idx.shape[1]):
            self.condition(idx[:, k], y[:, k], runs)

    def propagate(self) -> None:
        """One step of the ε Markov chain for every run (Kalman predict)."""
        for g in range(self.G):
            e = self.eps[g]
            if e == 0.0:
                continue
            self.c[g] *= 1.0 - e
            if self.c[g] < 1e-150:  # renormalise before D overflows
                self.D[g] *= self.c[g]
                self.c[g] = 1.0
            self.dev[:, self.members[g]] *= np.sqrt(1.0 - e)


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

    def __init__(self, posterior: Posterior, prior: int = 0, capacity: int = 64) -> None:
        g = posterior.group_of[prior]
        if posterior.eps[g] != 0.0:
            raise BoundcheckError("pathwise sampling is implemented for static priors (ε = 0) only")
        self.post, self.prior = posterior, prior
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
        gvals = z[:, :r] @ self.A.T  # (m, n) ~ N(0, K)
        if t == 0:
            return gvals
        rows = np.arange(self.post.m)[:, None]
        u = gvals[rows, self.X[:, :t]] + np.sqrt(self.post.noise_var) * z[:, r:]
        return gvals - np.einsum("mnt,mt->mn", self.W[:, :, :t], u)


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
