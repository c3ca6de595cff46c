"""GP-TS on a compact box, Algorithm 2 of Chowdhury & Gopalan (2017) with Theorem 4's decision sets D_t: the
cell-centred grid of ``grid_n_t`` points per side (ledger CGT1), enumerated exactly (CGT4), each step's draw joint
on D_t by pathwise conditioning of an exact GP(0, k̂) feature path (CGT3). See :class:`GPTSBox`."""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve

from boundcheck.errors import BoundcheckError
from boundcheck.model.continuum.box import Box
from boundcheck.model.continuum.features import QuadratureFeatures
from boundcheck.model.continuum.posterior import ContinuousPosterior
from boundcheck.model.kernels import RBF
from boundcheck.policies.box import BoxContext, BoxPolicy

__all__ = ["GPTSBox", "MAX_GRID", "grid_points", "law_error"]

#: the largest |D_t| = n_t^d GP-TS enumerates (a (|D_t|, F) feature matrix per step; beyond it: refused)
MAX_GRID = 2**18
#: sup|k̂ − k| of the prior paths' quadrature features (certified by QuadratureFeatures.se)
FEATURE_TOL = 1e-12


def grid_points(bounds: np.ndarray, n: int) -> np.ndarray:
    """(n^d, d) the cell centres of the grid of ``n`` points per side of the box ``bounds`` (d, 2), row-major:
    the theorem's D_t (the points :func:`boundcheck.study.continuum.discretise` rounds to)."""
    lo, hi = bounds[:, 0], bounds[:, 1]
    h = (hi - lo) / n
    axes = [lo[j] + (np.arange(n) + 0.5) * h[j] for j in range(bounds.shape[0])]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, bounds.shape[0])


def law_error(v: np.ndarray, steps: np.ndarray, eps: float, noise_var: float) -> np.ndarray:
    """An entrywise bound on |Cov(f_t) − v_t² k_{t−1}| for the pathwise draw of :class:`GPTSBox` with n = t − 1
    observations: v_t² ε (1 + n/λ)².

    Why: h = g − a(·)ᵀ(g(X) + e), a(x) = (K + λI)⁻¹k(X, x), g ~ GP(0, k̂), e ~ N(0, λI), has covariance
    k̂ − aᵀk̂_X − k̂_Xᵀa + aᵀ(k̂_XX + λI)a; with k̂ = k + E this is k_{t−1} + E − aᵀE_X − E_Xᵀa + aᵀE_XXa, and
    ‖a(x)‖₁ ≤ √n ‖a(x)‖₂ ≤ √n ‖k(X, x)‖₂/λ ≤ n/λ (|k| ≤ 1), |E| ≤ ε entrywise."""
    n = np.maximum(np.asarray(steps, dtype=float) - 1.0, 0.0)
    return np.asarray(v, dtype=float) ** 2 * eps * (1.0 + n / noise_var) ** 2


class GPTSBox(BoxPolicy):
    """GP-TS on the box with Theorem 4's grids (Chowdhury & Gopalan 2017, Algorithm 2)::

        for t = 1, 2, ..., T:
            v_t = B + R√(2(γ_{t−1} + 1 + ln(2/δ)))                   # the study's width schedule for this policy
            D_t = cell centres of the grid with n_t = ⌈BLrdt²/2⌉ points per side      # ``grid_n_t`` (CGT1)
            f_t = μ_{t−1} + v_t (g − k(·, X)(K + λI)⁻¹(g(X) + e))   # g = φᵀW, W ~ N(0, I_F); e ~ N(0, λI)
            x_t = argmax_{x ∈ D_t} f_t(x)                            # enumerated, ties to the lowest index
            y_t = f(x_t) + ε_t;  μ, k ← the exact posterior (likelihood variance λ)

    g is an exact path of GP(0, k̂), k̂ the quadrature-feature kernel of the SE prior with sup|k̂ − k| ≤ 1e−12
    certified, so f_t has mean μ_{t−1} and covariance within :func:`law_error` of v_t² k_{t−1} (recorded per step
    as ``law_error``). Each run draws W then e from its own stream (one Generator per run: a run's draws never
    depend on its batch), and the same draw is evaluated at D_t, at x° (the box centre, fixed in advance) and at
    x_{t−1}: ``draw_fixed``/``mu_fixed``/``sigma_fixed`` and ``draw_prev``/… are what the sample-calibration claim
    standardises with the theorem's v_t. The posterior (``posterior``) is what the engine's monitors read."""

    name = "gp_ts_box"
    label = "GP-TS"
    provides_posterior = True
    randomised = True
    description = "GP Thompson sampling on Theorem 4's grids D_t (exact argmax over the grid, pathwise draws)"
    records = frozenset({"width", "grid_size", "law_error", "draw_fixed", "mu_fixed", "sigma_fixed", "draw_prev",
                         "mu_prev", "sigma_prev"})

    def __init__(self, name: str = "gp_ts_box", label: str = "GP-TS", grid_factor: float = 1.0) -> None:
        self.name, self.label = name, label
        self.grid_factor = float(grid_factor)  # 1: the theorem's grid (a planted defect coarsens it)

    def start(self, ctx: BoxContext) -> None:
        super().start(ctx)
        if "grid_n_t" not in ctx.schedules:
            raise BoundcheckError(f"{self.name} draws on Theorem 4's grids D_t: it needs the schedule grid_n_t (run "
                                  "it under gp_ts_compact)")
        k = ctx.kernel
        if not isinstance(k, RBF) or k.variance != 1.0:
            raise BoundcheckError(f"{self.name} draws its paths from the SE kernel's quadrature features: needs an "
                                  f"RBF kernel with variance 1, got {k!r}")
        lo, hi = ctx.bounds[:, 0], ctx.bounds[:, 1]
        if not (np.all(lo == lo[0]) and np.all(hi == hi[0])):
            raise BoundcheckError(f"{self.name} needs a cube [low, high]^d, got bounds {ctx.bounds.tolist()}")
        T, d = ctx.horizon, ctx.dim
        n = np.maximum(np.floor(np.asarray(ctx.schedules["grid_n_t"], dtype=float) * self.grid_factor), 1.0)
        self.grid_n = n.astype(np.int64)
        size = float(self.grid_n[T]) ** d
        if size > MAX_GRID:
            raise BoundcheckError(f"{self.name}: |D_T| = {int(self.grid_n[T])}^{d} = {size:.3g} grid points at T = {T} "
                                  f"exceed {MAX_GRID} (|D_t| grows like t^(2d)): use a shorter horizon or d = 1")
        self.features = QuadratureFeatures.se(k.lengthscale, Box(d, float(lo[0]), float(hi[0])), tol=FEATURE_TOL)
        self.posterior = ContinuousPosterior(k, ctx.noise_var, ctx.runs, d, T)
        self.v = ctx.schedule(self.name)
        steps = np.arange(T + 1, dtype=float)
        self.law = law_error(self.v, steps, self.features.error, ctx.noise_var)
        self.x_fixed = 0.5 * (lo + hi)
        self._prev = np.full((ctx.runs, d), np.nan)
        self._grid: tuple[int, np.ndarray, np.ndarray] | None = None

    def _grid_at(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """D_t and its features φ(D_t) (shared by the runs; kept while n_t does not change)."""
        n = int(self.grid_n[t])
        if self._grid is None or self._grid[0] != n:
            D = grid_points(self.ctx.bounds, n)
            self._grid = (n, D, self.features.phi(D))
        return self._grid[1], self._grid[2]

    def select(self, t: int) -> np.ndarray:
        ctx, post = self.ctx, self.posterior
        D, phi_D = self._grid_at(t)
        v, lam, m, d = float(self.v[t]), float(ctx.noise_var), ctx.runs, ctx.dim
        first = np.isnan(self._prev[:, 0])
        extra = np.stack([np.broadcast_to(self.x_fixed, (m, d)), np.where(first[:, None], self.x_fixed, self._prev)],
                         axis=1)  # (m, 2, d): x° and x_{t−1}
        mu_e, sd_e = post.mean_sd(extra)
        X = np.empty((m, d))
        draws = np.empty((m, 2))
        for r, g in enumerate(ctx.rngs):
            W = g.standard_normal(self.features.n_features)
            n_obs = int(post.n_obs[r])
            gD = phi_D @ W
            gE = self.features.phi(extra[r]) @ W
            if n_obs:
                Xr = post.X[r, :n_obs]
                e = g.normal(0.0, np.sqrt(lam), n_obs)
                u = self.features.phi(Xr) @ W + e
                beta = cho_solve((post.L[r, :n_obs, :n_obs], True), u, check_finite=False)  # (K + λI)⁻¹(g(X) + e)
                w = post.alpha(r) - v * beta  # f_t = k(·, X)(α − vβ) + v g
                fD = ctx.kernel(D, Xr) @ w + v * gD
                fE = ctx.kernel(extra[r], Xr) @ w + v * gE
            else:
                fD, fE = v * gD, v * gE
            X[r] = D[int(np.argmax(fD))]
            draws[r] = fE
        self.record = {"width": np.full(m, v), "grid_size": np.full(m, float(len(D))),
                       "law_error": np.full(m, float(self.law[t])),
                       "draw_fixed": draws[:, 0], "mu_fixed": mu_e[:, 0], "sigma_fixed": sd_e[:, 0],
                       "draw_prev": np.where(first, np.nan, draws[:, 1]),
                       "mu_prev": np.where(first, np.nan, mu_e[:, 1]),
                       "sigma_prev": np.where(first, np.nan, sd_e[:, 1])}
        self._prev = X.copy()
        return X

    def update(self, t: int, X: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition(X, y)
