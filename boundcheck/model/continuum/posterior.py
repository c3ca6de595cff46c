"""The exact GP posterior on a box, in data space, for m Monte Carlo runs at once, with analytic x-gradients.

:class:`ContinuousPosterior` keeps per run the data (x_i ∈ R^d, y_i) and the growing lower Cholesky factor of
K_t + λI; it answers μ, σ and their gradients at any batch of points per run, which is what an acquisition
optimiser on the continuum needs. The kernel facts a Lipschitz certificate needs (sup ‖∇k‖, the Lipschitz
constant of σ) are here as well (:func:`kernel_constants`), with their proofs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular

from ...errors import BoundcheckError
from ...utils.validation import check_positive
from ..kernels import RBF, Kernel, Matern

__all__ = ["ContinuousPosterior", "TimeVaryingPosterior", "KernelConstants", "kernel_constants", "SD_FLOOR_REL"]

#: σ below SD_FLOOR_REL · s (s² the prior variance) counts as 0: its gradient is reported as 0 there (σ = √q with
#: q ≥ 0 smooth has 0 in its Clarke subdifferential at a zero of q), never −(∂k)ᵀw/σ with σ ≈ 0
SD_FLOOR_REL = 1e-10
_GOLDEN = (1.0 + np.sqrt(5.0)) / 2.0


@dataclass(frozen=True)
class KernelConstants:
    """What the Lipschitz certificate of an acquisition needs to know about a stationary kernel k(r) = s² f(r/ℓ).

    ``grad_sup`` = sup_{x,x'} ‖∇_x k(x, x')‖; ``sd_lipschitz`` = L_σ with |σ_t(x) − σ_t(x')| ≤ L_σ ‖x − x'‖ for
    every posterior (any data, any λ > 0), proofs in :func:`kernel_constants`.
    """

    kind: str  # "se" or "matern52"
    lengthscale: float
    variance: float
    grad_sup: float
    sd_lipschitz: float


def kernel_constants(kernel: Kernel) -> KernelConstants:
    """The kernel's family, parameters and Lipschitz facts; refuses every kernel but SE and Matérn-5/2.

    * SE, k = s² exp(−r²/(2ℓ²)): ‖∇_x k‖ = s² (r/ℓ²) e^{−r²/(2ℓ²)}, maximal at r = ℓ: ``grad_sup`` = s² e^{−1/2}/ℓ.
    * Matérn-5/2, k = s² (1 + u + u²/3) e^{−u}, u = √5 r/ℓ: dk/dr = −s² (a/3) u(1 + u) e^{−u} with a = √5/ℓ;
      u(1+u)e^{−u} is maximal where 1 + u − u² = 0, u = φ (golden ratio): ``grad_sup`` = s² (√5/(3ℓ)) φ³ e^{−φ}.

    σ's Lipschitz constant. Let f ~ GP(0, k), y_i = f(x_i) + ε_i. The posterior mean E[f(x) | y] is the L²
    projection P f(x) of f(x) onto span{y_i}, and σ_t(x) = ‖(I − P) f(x)‖_{L²}. Since I − P is a projection,
    |σ_t(x) − σ_t(x')| ≤ ‖(I − P)(f(x) − f(x'))‖ ≤ ‖f(x) − f(x')‖ = d_k(x, x'), the canonical metric,
    d_k² = 2(s² − k(r)). SE: 1 − e^{−v} ≤ v gives d_k² ≤ s² r²/ℓ², L_σ = s/ℓ. Matérn-5/2: g(u) = u²/6 − 1 + f(u)
    has g(0) = 0 and g'(u) = (u/3)(1 − (1 + u)e^{−u}) ≥ 0 (e^u ≥ 1 + u), so 1 − f(u) ≤ u²/6 and
    d_k² ≤ s² u²/3 = (5/3) s² r²/ℓ², L_σ = √(5/3) s/ℓ.
    """
    if isinstance(kernel, RBF):
        ell, s2 = float(kernel.lengthscale), float(kernel.variance)
        return KernelConstants("se", ell, s2, s2 * np.exp(-0.5) / ell, np.sqrt(s2) / ell)
    if isinstance(kernel, Matern) and kernel.nu == 2.5:
        ell, s2 = float(kernel.lengthscale), float(kernel.variance)
        grad = s2 * np.sqrt(5.0) / (3.0 * ell) * _GOLDEN**3 * np.exp(-_GOLDEN)
        return KernelConstants("matern52", ell, s2, grad, np.sqrt(5.0 / 3.0) * np.sqrt(s2) / ell)
    raise BoundcheckError(f"the continuum posterior takes an RBF or a Matern(nu=2.5) kernel, got {kernel!r}")


class ContinuousPosterior:
    """Exact GP posterior of m runs, each given its own data D_t = {(x_i, y_i)}, x_i ∈ R^d, in data space::

        μ_t(x)  = k_t(x)ᵀ (K_t + λI)⁻¹ y_t
        σ²_t(x) = k(x, x) − k_t(x)ᵀ (K_t + λI)⁻¹ k_t(x)
        ∇μ_t(x) = (∂k_t(x))ᵀ α_t,              α_t = (K_t + λI)⁻¹ y_t
        ∇σ_t(x) = −(∂k_t(x))ᵀ w_t(x) / σ_t(x),  w_t(x) = (K_t + λI)⁻¹ k_t(x)   (0 where σ_t < SD_FLOOR_REL·s)

    with k_t(x) = (k(x, x_i))_i, K_t = (k(x_i, x_j))_ij, ∂k(x, x_i)/∂x = −q(‖x − x_i‖)(x − x_i) (SE:
    q = k/ℓ²; Matérn-5/2: q = s² (a²/3)(1 + ar)e^{−ar}, a = √5/ℓ).

    State per run: the data and the lower Cholesky factor L of K_t + λI (capacity T preallocated, (m, T, T)),
    grown by one row per observation (ℓ = L⁻¹b, L_tt = √(k(x,x) + λ − ‖ℓ‖²)), and z = L⁻¹y, so μ = (L⁻¹k_t)ᵀz.
    The unused part of every factor is kept equal to the identity (a reset restores it): any leading block
    L[:s, :s] with s ≥ n_obs is then a nonsingular triangular matrix whose solve leaves zero-padded right-hand
    sides zero in the padded rows, so one solve of size max n_obs could serve runs of different lengths. The
    queries do not use it: they solve per run on the run's own n_obs rows (a loop over runs, never over points),
    so a run's numbers are bit for bit the same whatever other runs share its batch.

    Parameters
    ----------
    kernel : RBF or Matern(nu=2.5)
    noise_var : float
        λ > 0.
    runs : int
        m.
    dim : int
        d.
    capacity : int
        T, the most observations a run may hold.
    """

    def __init__(self, kernel: Kernel, noise_var: float, runs: int, dim: int, capacity: int) -> None:
        self.constants = kernel_constants(kernel)
        self.kernel = kernel
        self.noise_var = check_positive("noise_var", noise_var)
        for name, v in (("runs", runs), ("dim", dim), ("capacity", capacity)):
            if int(v) != v or v < 1:
                raise BoundcheckError(f"{name} must be a positive integer, got {v!r}")
        self.m, self.d, self.T = int(runs), int(dim), int(capacity)
        self._ell2 = self.constants.lengthscale**2
        self._s2 = self.constants.variance
        self._a = np.sqrt(5.0) / self.constants.lengthscale
        self.X = np.zeros((self.m, self.T, self.d))
        self.y = np.zeros((self.m, self.T))
        self.z = np.zeros((self.m, self.T))
        self.L = np.zeros((self.m, self.T, self.T))
        self.L[:, np.arange(self.T), np.arange(self.T)] = 1.0
        self._n = np.zeros(self.m, dtype=np.int64)
        self._alpha: list[np.ndarray | None] = [None] * self.m

    # ------------------------------------------------------------------------------------------------ state
    @property
    def n_obs(self) -> np.ndarray:
        """(m,) observations each run's posterior conditions on (since its last reset)."""
        return self._n.copy()

    @property
    def prior_var(self) -> float:
        """k(x, x) = s²."""
        return self._s2

    def _rows(self, runs) -> np.ndarray:
        if runs is None:
            return np.arange(self.m)
        r = np.asarray(runs)
        if r.dtype == bool:
            if r.shape != (self.m,):
                raise BoundcheckError(f"a run mask must have shape ({self.m},), got {r.shape}")
            return np.flatnonzero(r)
        return r.astype(np.int64).ravel()

    def data(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per run the (n_obs, d) points and (n_obs,) observations it conditions on (read-only views)."""
        out = []
        for r in range(self.m):
            X, y = self.X[r, : self._n[r]], self.y[r, : self._n[r]]
            X.flags.writeable = y.flags.writeable = False
            out.append((X, y))
        return out

    def condition(self, X_new: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        """Append one observation (x, y) to each selected run (X_new (m, d), y (m,); rows of unselected runs are
        ignored): a rank-one growth of the run's Cholesky factor, O(n_obs²)."""
        X_new = np.asarray(X_new, dtype=np.float64).reshape(self.m, self.d)
        y = np.asarray(y, dtype=np.float64).reshape(self.m)
        rows = self._rows(runs)
        if not (np.all(np.isfinite(X_new[rows])) and np.all(np.isfinite(y[rows]))):
            raise BoundcheckError("condition: points and observations must be finite")
        if rows.size and self._n[rows].max() >= self.T:
            raise BoundcheckError(f"a run already holds its capacity of {self.T} observations")
        for r in rows:
            t = self._n[r]
            x = X_new[r]
            if t:
                b = self._k(self._sq(X_new[r : r + 1, None, :], self.X[r : r + 1, :t])[0, 0])
                ell = solve_triangular(self.L[r, :t, :t], b, lower=True, check_finite=False)
                piv = self._s2 + self.noise_var - ell @ ell
                self.L[r, t, :t] = ell
                zt = (y[r] - ell @ self.z[r, :t])
            else:
                piv, zt = self._s2 + self.noise_var, y[r]
            if not piv > 0.0:  # cannot happen for λ > 0 but in a badly scaled round-off
                raise BoundcheckError(f"run {r}: K + λI lost positive definiteness at observation {t + 1}")
            self.L[r, t, t] = np.sqrt(piv)
            self.z[r, t] = zt / self.L[r, t, t]
            self.X[r, t], self.y[r, t] = x, y[r]
            self._n[r] = t + 1
            self._alpha[r] = None

    def reset(self, runs: np.ndarray | None = None) -> None:
        """Forget the data of the selected runs (all when None): ET-GP-UCB's resets, R-GP-UCB's restarts."""
        for r in self._rows(runs):
            t = self._n[r]
            self.L[r, :t, :t] = np.eye(t)
            self.X[r, :t] = 0.0
            self.y[r, :t] = self.z[r, :t] = 0.0
            self._n[r] = 0
            self._alpha[r] = None

    def keep_runs(self, keep: np.ndarray) -> None:
        """Retire the runs not in ``keep`` (boolean, (m,)); the kept runs' states are unchanged."""
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (self.m,):
            raise BoundcheckError(f"keep must have shape ({self.m},), got {keep.shape}")
        self.X, self.y, self.z, self.L, self._n = self.X[keep], self.y[keep], self.z[keep], self.L[keep], self._n[keep]
        self._alpha = [a for a, k in zip(self._alpha, keep, strict=True) if k]
        self.m = int(keep.sum())

    def alpha(self, r: int) -> np.ndarray:
        """α = (K_t + λI)⁻¹ y_t of run r, (n_obs,) (cached until the run's data change)."""
        if self._alpha[r] is None:
            t = self._n[r]
            self._alpha[r] = solve_triangular(self.L[r, :t, :t], self.z[r, :t], lower=True, trans="T",
                                              check_finite=False)
        return self._alpha[r]

    def alpha_l1(self) -> np.ndarray:
        """(m,) ‖α_t‖₁ per run: ‖∇μ_t‖ ≤ ‖α_t‖₁ · ``constants.grad_sup`` everywhere."""
        return np.array([np.abs(self.alpha(r)).sum() for r in range(self.m)])

    # ------------------------------------------------------------------------------------------------ kernel
    def _sq(self, X: np.ndarray, D: np.ndarray) -> np.ndarray:
        """(k, n, t) squared distances between X (k, n, d) and D (k, t, d), summed over coordinates in order
        (elementwise, so an entry's bits do not depend on the array's shape)."""
        d2 = np.zeros((X.shape[0], X.shape[1], D.shape[1]))
        for j in range(self.d):
            diff = X[:, :, None, j] - D[:, None, :, j]
            d2 += diff * diff
        return d2

    def _k(self, d2: np.ndarray) -> np.ndarray:
        if self.constants.kind == "se":
            return self._s2 * np.exp(-0.5 * d2 / self._ell2)
        u = self._a * np.sqrt(d2)
        return self._s2 * (1.0 + u + u * u / 3.0) * np.exp(-u)

    def _kq(self, d2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """k and q with ∂k(x, x_i)/∂x = −q (x − x_i)."""
        if self.constants.kind == "se":
            k = self._s2 * np.exp(-0.5 * d2 / self._ell2)
            return k, k / self._ell2
        u = self._a * np.sqrt(d2)
        e = np.exp(-u)
        return self._s2 * (1.0 + u + u * u / 3.0) * e, self._s2 * (self._a**2 / 3.0) * (1.0 + u) * e

    # ------------------------------------------------------------------------------------------------ queries
    def _query(self, X: np.ndarray, rows, grad: bool):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 3 or X.shape[2] != self.d:
            raise BoundcheckError(f"query points must have shape (runs, n, {self.d}), got {X.shape}")
        rows = self._rows(rows)
        if X.shape[0] != rows.size:
            raise BoundcheckError(f"query points for {rows.size} runs, got {X.shape[0]}")
        k_runs, n = X.shape[:2]
        mu, sd = np.zeros((k_runs, n)), np.full((k_runs, n), np.sqrt(self._s2))
        dmu, dsd = (np.zeros((k_runs, n, self.d)), np.zeros((k_runs, n, self.d))) if grad else (None, None)
        floor = SD_FLOOR_REL * np.sqrt(self._s2)
        tmax = int(self._n[rows].max(initial=0))
        if tmax == 0:
            return mu, sd, dmu, dsd
        d2 = self._sq(X, self.X[rows, :tmax])  # (k, n, tmax), one batched kernel evaluation
        if grad:
            kx, q = self._kq(d2)
        else:
            kx, q = self._k(d2), None
        for i, r in enumerate(rows):
            t = self._n[r]
            if t == 0:
                continue
            Kt = kx[i, :, :t].T  # (t, n)
            Lr = self.L[r, :t, :t]
            v = solve_triangular(Lr, Kt, lower=True, check_finite=False)
            var = np.maximum(self._s2 - np.einsum("ij,ij->j", v, v), 0.0)
            s = np.sqrt(var)
            sd[i] = s
            a = self.alpha(r)
            mu[i] = a @ Kt
            if grad:
                Q, Xr, x = q[i, :, :t], self.X[r, :t], X[i]  # Q (n, t)
                aq = Q * a  # ∇μ = Σ α_i ∂k_i = −Σ α_i q_i (x − x_i)
                dmu[i] = aq @ Xr - aq.sum(axis=1)[:, None] * x
                w = solve_triangular(Lr, v, lower=True, trans="T", check_finite=False)  # (t, n)
                wq = Q * w.T  # ∇σ = Σ w_i q_i (x − x_i) / σ
                num = wq.sum(axis=1)[:, None] * x - wq @ Xr
                ok = s > floor
                dsd[i, ok] = num[ok] / s[ok, None]
        return mu, sd, dmu, dsd

    def mean_sd(self, X: np.ndarray, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """μ_t and σ_t at X (k, n, d), k = m or len(rows) (the runs the batch's rows belong to): (k, n) each."""
        mu, sd, _, _ = self._query(X, rows, False)
        return mu, sd

    def mean_sd_grad(self, X: np.ndarray, rows: np.ndarray | None = None):
        """μ, σ (k, n) and their x-gradients ∇μ, ∇σ (k, n, d) at X (k, n, d) (formulas in the class docstring)."""
        return self._query(X, rows, True)

    def sd_at(self, X: np.ndarray) -> np.ndarray:
        """σ_t at one point per run, X (m, d): (m,)."""
        return self.mean_sd(np.asarray(X, dtype=np.float64).reshape(self.m, 1, self.d))[1][:, 0]

    def mean_lipschitz(self) -> np.ndarray:
        """(m,) L_μ with |μ_t(x) − μ_t(x')| ≤ L_μ ‖x − x'‖: ‖∇μ_t‖ = ‖Σ α_i ∇k(·, x_i)‖ ≤ ‖α_t‖₁ sup‖∇k‖."""
        return self.alpha_l1() * self.constants.grad_sup


class TimeVaryingPosterior(ContinuousPosterior):
    """The exact posterior of f_t for the ε Markov chain f_{s+1} = √(1−ε) f_s + √ε g_{s+1} (g_s ~ GP(0, k) i.i.d.),
    given observations y_i = f_{s_i}(x_i) + w_i at times s_i, in data space (Bogunovic et al. 2016, eqs. (7)–(8) of
    Brunzema et al. 2022 with the time index of ledger E4)::

        k̃((x, s), (x', s')) = k(x, x') (1−ε)^{|s−s'|/2}
        μ̃_t(x)  = k̃_t(x)ᵀ (K̃ + λI)⁻¹ y,             k̃_t(x)_i = k(x, x_i) (1−ε)^{(t−s_i)/2}
        σ̃²_t(x) = k(x, x) − k̃_t(x)ᵀ (K̃ + λI)⁻¹ k̃_t(x)

    The Gram matrix K̃ among the data does not depend on the query time t, so its Cholesky factor grows by one row
    per observation exactly as :class:`ContinuousPosterior`'s; a query at time t scales each datum's column of
    k_t(x) (and of its x-gradient) by the decay w_i = (1−ε)^{(t−s_i)/2}. The query time is :attr:`time` (set it
    with :meth:`at`); observations are stamped with the time given to :meth:`condition`. At ε = 0 every weight is 1
    and the numbers are :class:`ContinuousPosterior`'s bit for bit.

    Parameters
    ----------
    kernel, noise_var, runs, dim, capacity
        As :class:`ContinuousPosterior`.
    eps : float
        ε ∈ [0, 1], the chain's rate of change (the value the model is told).
    """

    def __init__(self, kernel: Kernel, noise_var: float, runs: int, dim: int, capacity: int, eps: float) -> None:
        super().__init__(kernel, noise_var, runs, dim, capacity)
        eps = float(eps)
        if not 0.0 <= eps <= 1.0:
            raise BoundcheckError(f"eps must lie in [0, 1], got {eps!r}")
        self.eps = eps
        self.S = np.zeros((self.m, self.T))  # the time stamp s_i of every datum
        self.time = 1.0  # the time t the queries are about

    def at(self, t: float) -> TimeVaryingPosterior:
        """Set the query time t (≥ every stamp held) and return self."""
        self.time = float(t)
        return self

    def _decay(self, lags: np.ndarray) -> np.ndarray:
        """(1−ε)^{lag/2} for lags ≥ 0, with 0^0 = 1 (ε = 1: only the same time correlates)."""
        if self.eps == 0.0:
            return np.ones_like(lags)
        if self.eps == 1.0:
            return (lags == 0).astype(float)
        return np.exp(0.5 * lags * np.log1p(-self.eps))

    def condition(self, X_new: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None,
                  times: float | np.ndarray | None = None) -> None:
        """Append (x, y) observed at ``times`` (scalar or (m,); default :attr:`time`) to each selected run: the
        Gram row is k(x, x_i)(1−ε)^{|s − s_i|/2}, a rank-one growth of the Cholesky factor as in the parent."""
        X_new = np.asarray(X_new, dtype=np.float64).reshape(self.m, self.d)
        y = np.asarray(y, dtype=np.float64).reshape(self.m)
        s_new = np.broadcast_to(np.asarray(self.time if times is None else times, dtype=np.float64), (self.m,))
        rows = self._rows(runs)
        if not (np.all(np.isfinite(X_new[rows])) and np.all(np.isfinite(y[rows]))):
            raise BoundcheckError("condition: points and observations must be finite")
        if rows.size and self._n[rows].max() >= self.T:
            raise BoundcheckError(f"a run already holds its capacity of {self.T} observations")
        for r in rows:
            t = self._n[r]
            if t:
                b = self._k(self._sq(X_new[r : r + 1, None, :], self.X[r : r + 1, :t])[0, 0])
                b = b * self._decay(np.abs(s_new[r] - self.S[r, :t]))
                ell = solve_triangular(self.L[r, :t, :t], b, lower=True, check_finite=False)
                piv = self._s2 + self.noise_var - ell @ ell
                self.L[r, t, :t] = ell
                zt = y[r] - ell @ self.z[r, :t]
            else:
                piv, zt = self._s2 + self.noise_var, y[r]
            if not piv > 0.0:
                raise BoundcheckError(f"run {r}: K̃ + λI lost positive definiteness at observation {t + 1}")
            self.L[r, t, t] = np.sqrt(piv)
            self.z[r, t] = zt / self.L[r, t, t]
            self.X[r, t], self.y[r, t], self.S[r, t] = X_new[r], y[r], s_new[r]
            self._n[r] = t + 1
            self._alpha[r] = None

    def reset(self, runs: np.ndarray | None = None) -> None:
        for r in self._rows(runs):
            self.S[r, : self._n[r]] = 0.0
        super().reset(runs)

    def keep_runs(self, keep: np.ndarray) -> None:
        self.S = self.S[np.asarray(keep, dtype=bool)]
        super().keep_runs(keep)

    def mean_lipschitz(self) -> np.ndarray:
        """(m,) L_μ: the decay weights are ≤ 1, so ‖∇μ̃_t‖ ≤ Σ|α_i| w_i sup‖∇k‖ ≤ ‖α‖₁ sup‖∇k‖ as in the parent."""
        return super().mean_lipschitz()

    def _query(self, X: np.ndarray, rows, grad: bool):
        # the parent's data-space formulas with k(x, x_i) → k(x, x_i) w_i: scale the kernel (and its q, whose
        # gradient −q(x − x_i) scales the same way) by the decay of each datum at the query time
        rows_ = self._rows(rows)
        tmax = int(self._n[rows_].max(initial=0))
        lags = np.maximum(self.time - self.S[rows_, :tmax], 0.0)
        self._w = self._decay(lags)  # (k, tmax), read by _k/_kq through _scale below during this query
        try:
            return super()._query(X, rows, grad)
        finally:
            self._w = None

    _w: np.ndarray | None = None

    def _k(self, d2: np.ndarray) -> np.ndarray:
        k = super()._k(d2)
        return k if self._w is None else k * self._w[:, None, :]

    def _kq(self, d2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k, q = super()._kq(d2)
        if self._w is None:
            return k, q
        return k * self._w[:, None, :], q * self._w[:, None, :]
