"""Models for combinatorial semi-bandits (paper 002): K observations per round, joint posterior draws, continuous
contexts. Everything is exact and batched over runs (leading axis ``m``), float64.

* :class:`BlockPosterior` — the grid-state GP posterior on a finite set of base arms, conditioned on the K values
  of a round at once (Sandberg et al. 2025, eqs. (2)–(3));
* :class:`CountPathwiseSampler` — exact joint draws from N(0, Σ_t) on the base arms by Matheron's rule, with the
  observations merged per arm;
* :class:`RFFFeatures` and :class:`FeaturePosterior` — the infinite case (Thm 3.2, S4): random Fourier features
  and the posterior as Bayesian linear regression in their weights;
* :func:`lambda_star_bounds` — λ*_K of Theorem 3.1: max over feasible super arms of λ_max(k(a, a)), bracketed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from boundcheck.errors import BoundcheckError
from boundcheck.model.priors import GPPrior, clipped_root
from boundcheck.model.sampling import rows_matmul
from boundcheck.utils.validation import check_int, check_positive

__all__ = ["BlockPosterior", "CountPathwiseSampler", "RFFFeatures", "FeaturePosterior", "lambda_star_bounds",
           "block_whiten"]

_LOG2PI = float(np.log(2.0 * np.pi))


def _gather_block(S: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """S[:, :, B] (m, n, K) and S[B, B] (m, K, K) per run for index arrays B (m, K)."""
    cols = np.take_along_axis(S, B[:, None, :], axis=2)
    return cols, np.take_along_axis(cols, B[:, :, None], axis=1)


def block_whiten(cov_BB: np.ndarray, resid: np.ndarray, valid: np.ndarray, noise_var: float, eig: bool = False):
    """Per run, for the valid entries of a padded block: the Cholesky factor of Σ_BB + ς²I, the whitened
    residual L⁻¹(r − μ_B), ½ log det(I + ς⁻²Σ_BB) and (``eig``) λ_max(Σ_BB). Padded entries are decoupled."""
    k = cov_BB.shape[-1]
    vv = valid[:, :, None] & valid[:, None, :]
    eye = np.eye(k)[None]
    Sbb = np.where(vv, cov_BB, 0.0)
    lam = np.linalg.eigvalsh(Sbb)[:, -1] if eig and k else None
    M = Sbb + eye * np.where(valid, noise_var, 1.0)[:, None, :]
    Lc = np.linalg.cholesky(M)
    w = np.linalg.solve(Lc, np.where(valid, resid, 0.0)[..., None])[..., 0]
    logdet = np.log(np.diagonal(Lc, axis1=1, axis2=2)).sum(axis=1) - 0.5 * valid.sum(axis=1) * np.log(noise_var)
    return Lc, w, logdet, lam


class BlockPosterior:
    """Exact GP posterior on ``n`` base arms for ``m`` runs, one prior, rank-K block updates.

    The K values of a round at once (Sandberg et al. 2025, eqs. (2)–(3)): with B = a_t,
    G = Σ_{:,B}(Σ_{B,B} + ς²I)⁻¹, ``m ← m + G(r − m_B)`` and ``Σ ← Σ − G Σ_{B,:}``: O(K n²) per round and run, one
    pass over Σ (the K sequential rank-1 updates of
    :meth:`~boundcheck.model.posterior.BatchedPosterior.condition_batch` give the same numbers in K passes).

    Implements :class:`~boundcheck.model.posterior.Posterior` (P = G = 1, static prior: ``propagate`` is a no-op).
    ``condition_batch(idx, y)`` takes (m, K) arms and values; entries with ``idx < 0`` are padding (no
    observation), so super arms of different sizes share one call."""

    def __init__(self, prior: GPPrior, noise_var: float, runs: int) -> None:
        if prior.eps != 0.0:
            raise BoundcheckError("BlockPosterior is for static priors (ε = 0)")
        self.priors = (prior,)
        self.noise_var = check_positive("noise variance", noise_var)
        self.m, self.n, self.P, self.G = check_int("runs", runs), prior.n, 1, 1
        self.group_of = np.zeros(1, dtype=np.int64)
        self.K = prior.K[None]
        self.eps = np.zeros(1)
        self.prior_mean = prior.mean[None]
        self.reset()

    def reset(self, runs: np.ndarray | None = None) -> None:
        if runs is None:
            self.Sigma = np.broadcast_to(self.K[0], (self.m, self.n, self.n)).copy()
            self.dev = np.zeros((self.m, self.n))
            self.loglik = np.zeros((self.m, 1))
            self.n_obs = np.zeros(self.m, dtype=np.int64)
            return
        self.Sigma[runs] = self.K[0]
        self.dev[runs] = 0.0
        self.loglik[runs] = 0.0
        self.n_obs[runs] = 0

    # ------------------------------------------------------------------ queries (Posterior protocol)
    def mean(self) -> np.ndarray:
        return (self.prior_mean + self.dev)[:, None, :]

    def group_var(self) -> np.ndarray:
        return np.maximum(np.diagonal(self.Sigma, axis1=1, axis2=2), 0.0)[:, None, :]

    def var(self) -> np.ndarray:
        return self.group_var()

    def sd(self) -> np.ndarray:
        return np.sqrt(self.var())

    def cov(self, prior: int = 0) -> np.ndarray:
        return self.Sigma

    def cov_column(self, idx: np.ndarray, prior: int = 0) -> np.ndarray:
        return self.Sigma[np.arange(self.m), :, np.asarray(idx, dtype=np.int64)]

    def cov_block(self, idx: np.ndarray) -> np.ndarray:
        """Σ_{t−1}(a) for the super arms ``idx`` (m, K): (m, K, K); padded rows and columns are 0."""
        valid = idx >= 0
        _, bb = _gather_block(self.Sigma, np.where(valid, idx, 0))
        return np.where(valid[:, :, None] & valid[:, None, :], bb, 0.0)

    # ------------------------------------------------------------------ updates
    def condition(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        self.condition_batch(np.asarray(idx)[:, None], np.asarray(y)[:, None], runs)

    def condition_batch(self, idx: np.ndarray, y: np.ndarray, runs: np.ndarray | None = None) -> None:
        """Condition on the values ``y`` (m, K) at the arms ``idx`` (m, K) of a round (−1: padding)."""
        idx = np.asarray(idx, dtype=np.int64)
        y = np.asarray(y, dtype=np.float64)
        if idx.ndim == 1:
            idx, y = idx[:, None], y[:, None]
        valid = idx >= 0
        if runs is not None:
            valid &= np.asarray(runs, dtype=bool)[:, None] if np.asarray(runs).dtype == bool else \
                np.isin(np.arange(self.m), runs)[:, None]
        if not valid.any():
            return
        width = int(np.flatnonzero(valid.any(axis=0))[-1]) + 1  # drop all-padding slots at the end (paths)
        idx, y, valid = idx[:, :width], y[:, :width], valid[:, :width]
        B = np.where(valid, idx, 0)
        rows = np.where(valid[:, :, None], self.Sigma[np.arange(self.m)[:, None], B], 0.0)  # Σ_{B,:} (m, K, n)
        k = rows.shape[1]
        vv = valid[:, :, None] & valid[:, None, :]
        # Σ_BB + ς²I on the valid entries, the identity on the padding (decoupled: zero gain, zero residual)
        M = np.where(vv, np.take_along_axis(rows, B[:, None, :], axis=2), 0.0)
        M += np.eye(k)[None] * np.where(valid, self.noise_var, 1.0)[:, None, :]
        resid = np.where(valid, y - np.take_along_axis(self.prior_mean[0][None] + self.dev, B, axis=1), 0.0)
        X = np.linalg.solve(M, np.concatenate([rows, resid[:, :, None]], axis=2))  # M⁻¹[Σ_{B,:}, r − μ_B]
        self.Sigma -= np.swapaxes(rows, 1, 2) @ X[:, :, :-1]  # Σ − Σ_{:,B} M⁻¹ Σ_{B,:}
        self.dev += np.einsum("mkn,mk->mn", rows, X[:, :, -1])
        logdet_M = 2.0 * np.log(np.diagonal(np.linalg.cholesky(M), axis1=1, axis2=2)).sum(axis=1)
        k = valid.sum(axis=1)
        self.loglik[:, 0] += np.where(k > 0, -0.5 * (k * _LOG2PI + logdet_M + (resid * X[:, :, -1]).sum(axis=1)),
                                      0.0)
        self.n_obs += k

    def propagate(self) -> None:
        """Static prior: nothing to do."""


class CountPathwiseSampler:
    """Exact joint draws h ~ N(0, Σ_t) on the base arms by Matheron's rule, batched over runs.

    The observations are merged per arm: repeated observations of arm x are one observation with noise ς²/n_x, so
    with Λ = diag(ς²/n_x) over the observed arms X, W = K_{·X}(K_XX + Λ)⁻¹ = Σ_t[:, X] Λ⁻¹ and

        h = g − Σ_t Λ⁻¹(g_X + e),   g = A z ~ N(0, K),  e_x ~ N(0, ς²/n_x),   Cov(h) = Σ_t   (exactly).

    A draw costs one matrix–vector product with Σ_t, O(n²) per run, whatever t and K (the data-space sampler
    grows as O(n t K)).

    Call :meth:`observe` with each round's arms (−1: padding) when the posterior is conditioned on them.
    ``first_run``: the id of the batch's first run; the prior draw g = A z is a position-exact blocked product
    (:func:`~boundcheck.model.sampling.rows_matmul`), so a run's draws do not depend on its batch."""

    def __init__(self, posterior: BlockPosterior, first_run: int = 0) -> None:
        self.post, self.first_run = posterior, int(first_run)
        self.A = clipped_root(posterior.K[0])  # (n, r), A Aᵀ = K exactly up to round-off (no jitter)
        self.counts = np.zeros((posterior.m, posterior.n))

    def observe(self, idx: np.ndarray) -> None:
        idx = np.asarray(idx, dtype=np.int64)
        idx = idx[:, None] if idx.ndim == 1 else idx
        rows = np.broadcast_to(np.arange(idx.shape[0])[:, None], idx.shape)
        ok = idx >= 0
        np.add.at(self.counts, (rows[ok], idx[ok]), 1.0)

    def draw(self, rngs: list[np.random.Generator]) -> np.ndarray:
        """(m, n): one joint draw per run from its own stream."""
        n, r, s2 = self.post.n, self.A.shape[1], self.post.noise_var
        z = np.stack([g.standard_normal(r + n) for g in rngs])
        g = rows_matmul(z[:, :r], self.A.T, self.first_run)  # ~ N(0, K)
        # Λ⁻¹(g_X + e) = (n_x g_x + ξ_x)/ς², ξ_x ~ N(0, n_x ς²) (the sum of n_x pseudo-noises)
        v = (self.counts * g + np.sqrt(self.counts * s2) * z[:, r:]) / s2
        return g - np.einsum("mij,mj->mi", self.post.Sigma, v)

    def linear_map(self, run: int) -> np.ndarray:
        """The (n, r + n) matrix M with h = M z for run ``run`` (tests: M Mᵀ = Σ_t)."""
        c, s2, S = self.counts[run], self.post.noise_var, self.post.Sigma[run]
        return np.hstack([self.A - S @ (c[:, None] * self.A) / s2, -S * (np.sqrt(c * s2) / s2)[None, :]])


# ------------------------------------------------------------------------------------------ features
@dataclass(frozen=True, eq=False)
class RFFFeatures:
    """Random Fourier features with explicit regularity constants (Assumption 3.1; instance S4 [PROPOSED]).

    ``omega`` (M, d) are fixed frequencies (drawn once from N(0, ℓ⁻²I)); φ(a) ∈ R^{2M}, ‖φ(a)‖ = 1, so
    k(a, a) = 1. Constants of Assumption 3.2 on 𝒜 = [0, C₁]^d: L = M⁻¹Σ_m‖ω_m‖_∞ (ℓ₁-Lipschitz constant of k in
    each argument), C₂ = e^M and C₃ = 2 max_j ‖ω_{·j}‖₂/√M (sup_a|∂_j f| ≤ G_j‖w‖ with G_j = ‖ω_{·j}‖₂/√M and
    P(‖w‖ > r) ≤ 2^M e^{−r²/4} ≤ e^M e^{−r²/4})."""

    omega: np.ndarray = field(repr=False)
    lengthscale: float = 1.0
    C1: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "omega", np.ascontiguousarray(np.atleast_2d(self.omega), dtype=np.float64))

    @classmethod
    def draw(cls, M: int, d: int, lengthscale: float, seed: int) -> RFFFeatures:
        rng = np.random.default_rng(seed)
        return cls(rng.normal(0.0, 1.0 / lengthscale, size=(check_int("M", M), check_int("d", d))), lengthscale)

    @property
    def M(self) -> int:
        return int(self.omega.shape[0])

    @property
    def d(self) -> int:
        return int(self.omega.shape[1])

    @property
    def D(self) -> int:
        return 2 * self.M

    def __call__(self, X: np.ndarray) -> np.ndarray:
        """φ(X): (..., D) for points X (..., d)."""
        proj = np.asarray(X, dtype=np.float64) @ self.omega.T
        return np.concatenate([np.cos(proj), np.sin(proj)], axis=-1) / np.sqrt(self.M)

    def kernel(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        return self(X) @ self(Y).T

    @property
    def L(self) -> float:
        return float(np.mean(np.abs(self.omega).max(axis=1)))

    @property
    def log_C2(self) -> float:
        return float(self.M)

    @property
    def C3(self) -> float:
        return float(2.0 * np.linalg.norm(self.omega, axis=0).max() / np.sqrt(self.M))

    def gamma_upper(self, n_obs: np.ndarray, noise_var: float) -> np.ndarray:
        """Certified γ_N ≤ (D/2) log(1 + N/(D ς²)) for ‖φ‖² ≤ 1 (AM–GM on the eigenvalues of ΦᵀΦ; γ as in eq. (4))."""
        return 0.5 * self.D * np.log1p(np.asarray(n_obs, dtype=float) / (self.D * noise_var))


class FeaturePosterior:
    """Bayesian linear regression f(a) = c + φ(a)ᵀw, w ~ N(0, I_D), for ``m`` runs: mean (m, D), covariance
    (m, D, D); ``c`` is a known constant prior mean (``prior_mean``, 0 in the paper's S4).

    Exactly the GP posterior of the prior GP(c, φ(a)ᵀφ(a')) at any points (eqs. 2–3 in weight space)."""

    def __init__(self, features: RFFFeatures, noise_var: float, runs: int, prior_mean: float = 0.0) -> None:
        self.features = features
        self.noise_var = check_positive("noise variance", noise_var)
        self.prior_mean = float(prior_mean)  # a model of the mean (the planted wrong priors change it)
        self.m, self.D = check_int("runs", runs), features.D
        self.w_mean = np.zeros((self.m, self.D))
        self.w_cov = np.broadcast_to(np.eye(self.D), (self.m, self.D, self.D)).copy()
        self.info = np.broadcast_to(np.eye(self.D), (self.m, self.D, self.D)).copy()  # I + ς⁻²ΦᵀΦ (direct)
        self.n_obs = np.zeros(self.m, dtype=np.int64)
        self.resid_sq = np.zeros(self.m)  # ‖L⁻¹(y − μ)‖² of the data so far (sum of squared whitened innovations)

    def _mean(self, Phi: np.ndarray, w: np.ndarray) -> np.ndarray:
        mu = np.einsum("mpd,md->mp", Phi, w)
        return mu + self.prior_mean if self.prior_mean else mu  # c = 0: bit-identical to the plain regression

    def mean_var(self, Phi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """μ and σ² at the points with features ``Phi`` (m, p, D)."""
        mu = self._mean(Phi, self.w_mean)
        var = np.einsum("mpd,mde,mpe->mp", Phi, self.w_cov, Phi)
        return mu, np.maximum(var, 0.0)

    def cov_block(self, Phi_B: np.ndarray, valid: np.ndarray) -> np.ndarray:
        c = Phi_B @ self.w_cov @ np.swapaxes(Phi_B, 1, 2)
        return np.where(valid[:, :, None] & valid[:, None, :], c, 0.0)

    def condition_batch(self, Phi_B: np.ndarray, y: np.ndarray, valid: np.ndarray) -> None:
        Phi_B = np.where(valid[..., None], Phi_B, 0.0)
        cols = self.w_cov @ np.swapaxes(Phi_B, 1, 2)  # (m, D, K) = Σ_w Φ_Bᵀ
        mu_B = self._mean(Phi_B, self.w_mean)
        Lc, w, _, _ = block_whiten(Phi_B @ cols, y - mu_B, valid, self.noise_var)
        Linv_cols = np.linalg.solve(Lc, np.swapaxes(cols, 1, 2))  # (m, K, D)
        self.w_cov -= np.swapaxes(Linv_cols, 1, 2) @ Linv_cols
        self.w_mean += np.einsum("mkd,mk->md", Linv_cols, w)
        self.info += np.swapaxes(Phi_B, 1, 2) @ Phi_B / self.noise_var
        self.n_obs += valid.sum(axis=1)
        self.resid_sq += (w * w).sum(axis=1)

    def draw_weights(self, rngs: list[np.random.Generator]) -> np.ndarray:
        """w̃ ~ N(w_mean, w_cov) per run (exact: clipped eigen-root of the D × D covariance, no jitter)."""
        z = np.stack([g.standard_normal(self.D) for g in rngs])
        lam, U = np.linalg.eigh(0.5 * (self.w_cov + np.swapaxes(self.w_cov, 1, 2)))
        root = U * np.sqrt(np.maximum(lam, 0.0))[:, None, :]
        return self.w_mean + np.einsum("mde,me->md", root, z)

    def info_gain(self) -> np.ndarray:
        """½ log det(I + ς⁻² Φᵀ Φ) of the observed points, computed directly from their features."""
        return 0.5 * np.linalg.slogdet(self.info)[1]


# ------------------------------------------------------------------------------------------------ λ*_K
def lambda_star_bounds(K: np.ndarray, k: int, feasible: np.ndarray | None = None) -> tuple[float, float]:
    """(lower, upper) on λ*_K = max over feasible super arms a (|a| ≤ k) of λ_max(K_aa) (Theorem 3.1; ledger S4).

    Upper (certified for any super arm of at most k arms): max_i of the sum of the k largest |K_ij| in row i
    (Gershgorin: λ_max(K_aa) ≤ max_{i∈a} Σ_{j∈a}|K_ij|). Lower: the largest λ_max over the super arms in
    ``feasible`` (rows of base-arm indices, −1 padded), or, when every k-subset is feasible, over each row's k
    most correlated arms (attained, so a valid lower end)."""
    A = np.abs(np.asarray(K, dtype=np.float64))
    k = int(min(k, A.shape[0]))
    part = -np.partition(-A, k - 1, axis=1)[:, :k] if k < A.shape[0] else A
    upper = float(part.sum(axis=1).max())
    if feasible is None:
        sets = np.argsort(-A, axis=1, kind="stable")[:, :k]
    else:
        sets = np.asarray(feasible, dtype=np.int64)
    valid = sets >= 0
    S = np.where(valid, sets, 0)
    blocks = np.where(valid[:, :, None] & valid[:, None, :], np.asarray(K)[S[:, :, None], S[:, None, :]], 0.0)
    lower = float(np.linalg.eigvalsh(blocks)[:, -1].max()) if len(blocks) else 0.0
    return min(lower, upper), upper


# ------------------------------------------------------------------------------------ arm models
class GridArms:
    """The model of a policy on a finite set of base arms: :class:`BlockPosterior` and, for joint draws,
    :class:`CountPathwiseSampler`. The round's arms are the whole domain (availability is a mask)."""

    finite = True

    def __init__(self, prior: GPPrior, noise_var: float, runs: int, joint: bool = False, first_run: int = 0) -> None:
        self.post = BlockPosterior(prior, noise_var, runs)
        self.sampler = CountPathwiseSampler(self.post, first_run) if joint else None
        self.counts = np.zeros((runs, prior.n))
        self.noise_var, self.n = self.post.noise_var, prior.n

    def begin_round(self, available) -> None:
        """Nothing to do: the base arms do not change."""

    def mean_sd(self) -> tuple[np.ndarray, np.ndarray]:
        return self.post.mean()[:, 0], self.post.sd()[:, 0]

    def cov_block(self, action: np.ndarray) -> np.ndarray:
        return self.post.cov_block(action)

    def joint_draw(self, rngs: list[np.random.Generator]) -> np.ndarray:
        return self.sampler.draw(rngs)

    def update(self, action: np.ndarray, y: np.ndarray) -> None:
        rows = np.broadcast_to(np.arange(action.shape[0])[:, None], action.shape)
        ok = action >= 0
        np.add.at(self.counts, (rows[ok], action[ok]), 1.0)
        if self.sampler is not None:
            self.sampler.observe(action)
        self.post.condition_batch(action, y)

    def info_gain(self) -> np.ndarray:
        """½ log det(I_N + ς⁻² K_{N_T}) of the observed multiset, directly: = ½ log det(I_n + ς⁻² diag(n_x) K)
        (Sylvester), from the prior Gram and the counts only."""
        K = self.post.K[0]
        M = np.eye(self.n)[None] + self.counts[:, :, None] * K[None] / self.noise_var
        return 0.5 * np.linalg.slogdet(M)[1]


class FeatureArms:
    """The model of a policy on fresh contexts each round (infinite 𝒜): :class:`FeaturePosterior`."""

    finite = False

    def __init__(self, features: RFFFeatures, noise_var: float, runs: int) -> None:
        self.post = FeaturePosterior(features, noise_var, runs)
        self.features, self.noise_var = features, self.post.noise_var
        self.Phi: np.ndarray | None = None

    def begin_round(self, available) -> None:
        self.Phi = self.features(available)  # (m, slots, D)

    def mean_sd(self) -> tuple[np.ndarray, np.ndarray]:
        mu, var = self.post.mean_var(self.Phi)
        return mu, np.sqrt(var)

    def mean_sd_at(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mu, var = self.post.mean_var(self.features(X))
        return mu, np.sqrt(var)

    def _phi_b(self, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        valid = action >= 0
        return np.take_along_axis(self.Phi, np.maximum(action, 0)[..., None], axis=1), valid

    def cov_block(self, action: np.ndarray) -> np.ndarray:
        Phi_B, valid = self._phi_b(action)
        return self.post.cov_block(Phi_B, valid)

    def joint_draw(self, rngs: list[np.random.Generator]) -> np.ndarray:
        w = self.post.draw_weights(rngs) - self.post.w_mean
        return np.einsum("msd,md->ms", self.Phi, w)

    def update(self, action: np.ndarray, y: np.ndarray) -> None:
        Phi_B, valid = self._phi_b(action)
        self.post.condition_batch(Phi_B, y, valid)

    def info_gain(self) -> np.ndarray:
        return self.post.info_gain()


__all__ += ["GridArms", "FeatureArms"]


def innovation_stats(cov_BB: np.ndarray, resid: np.ndarray, valid: np.ndarray, noise_var: float) -> dict:
    """The round's innovations from Σ_{t−1}(a_t) and e = r_t − μ_{t−1}(a_t) (padded): the total-reward innovation
    1ᵀe/√(1ᵀ(Σ+ς²I)1), the squared whitened norm eᵀ(Σ+ς²I)⁻¹e and its normal score (see the engine)."""
    from boundcheck.utils.laws import stats

    _, w, _, _ = block_whiten(cov_BB, resid, valid, noise_var)
    k = cov_BB.shape[-1]
    M = np.where(valid[:, :, None] & valid[:, None, :], cov_BB, 0.0) + np.eye(k)[None] * noise_var
    ones = valid.astype(float)
    e = np.where(valid, resid, 0.0)
    q = (w * w).sum(axis=1)
    return {"innov": (e * ones).sum(axis=1) / np.sqrt(np.einsum("mi,mij,mj->m", ones, M, ones)), "innov_sq": q,
            "innov_norm": stats.norm.ppf(np.clip(stats.chi2.cdf(q, valid.sum(axis=1)), 1e-300, 1 - 1e-16))}


__all__ += ["innovation_stats"]
