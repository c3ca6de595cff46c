r"""Certified brackets on the maximum information gain γ_T of a finite domain.

Definitions: Ziomek et al. 2024 (γ_T of Theorem 4.1, Lemma 5.3); Brunzema et al. 2022, Sec. 3 (ledger E5);
Chowdhury & Gopalan 2017, §2 (γ with λ = 1 + η); Sandberg et al. 2025, eq. (4) (γ_{TK}, over multisets: ledger S3).
The domain has ``n`` points with the PSD Gram matrix ``K = k_X(x_i, x_j)``. The noise variance is ``s2``
(``R²``, or the regulariser ``λ = 1 + η``). For a multiset ``A`` of observations,
``I(y_A; f) = ½ log det(I + s2⁻¹ K̃_A)``.

* stationary ``γ_T``: the max over ``T`` points, repeats allowed (a multiset), of ``½ log det(I + s2⁻¹ K_A)``;
* time-varying ``γ̃_T`` (``eps > 0``): one point at each time ``1..T``, with the kernel
  ``K̃[(x,i),(x',j)] = K[x,x'] (1-eps)^{|i-j|/2}`` (Bogunovic et al. 2016);
* batch ``γ_{TK}``: ``T`` rounds of ``K`` points each (repeats allowed). With ``eps = 0`` it is the stationary
  ``γ`` of ``TK`` points. With ``eps > 0`` all ``K`` points of round ``t`` share the time ``t``.

:func:`gamma_bracket` returns, for every ``t ≤ T`` in one pass, a lower end (the greedy value, attained by an
actual point set) and an upper end: the pointwise minimum of the certified bounds below, then closed under
monotonicity (``γ_t ≤ γ_{t'}`` for ``t ≤ t'``) and subadditivity (``γ_{a+b} ≤ γ_a + γ_b``: Fischer's
inequality splits ``I + s2⁻¹ K̃_A`` into the first ``a`` rounds and the last ``b``, and the kernel is
translation invariant in time). Every bound is a theorem plus floating-point rounding. Nothing is estimated.

Notation. ``F(A) = I(y_A; f)`` on the ground set of labelled observations (point, time, copy).
``σ²_S(x, t)`` is the posterior variance of ``f(x, t)`` given the observations ``S``. ``m = tK`` is the
number of observations after ``t`` rounds.

Methods (keys of :attr:`GammaBracket.methods`; ``nan`` where a method does not apply):

``greedy`` (lower end)
    The greedy picks ``argmax_x σ²(x, t)`` (posterior variance at the current time), one observation after
    another. This is the sequential greedy when ``eps > 0``. The value is recomputed directly as
    ``½ log det(I + s2⁻¹ K̃_A)`` of the chosen multiset (Cholesky prefixes give every ``t`` at once). So
    ``lower ≤ γ_t`` holds by definition.

``greedy_submodular`` (``eps = 0`` only)
    ``F`` is monotone submodular (information gain with conditionally independent noise; Krause & Guestrin
    2005). A multiset of ``m`` points is a set of ``m`` labelled copies, so ``γ`` is a cardinality-constrained
    maximum. Nemhauser, Wolsey & Fisher (1978, Math. Prog. 14, Thm 4.2) give
    ``G_m ≥ (1 − 1/e) γ_m``, hence ``γ_m ≤ G_m / (1 − 1/e)``.

``seq_greedy_2x``
    One observation per time (``K`` per round: ``K`` labelled copies of ``X × {t}``) is a partition matroid on
    the ground set ``X × [T] × [K]``. The sequential greedy is the locally greedy heuristic, which processes
    the blocks in order and picks the best element of each. By Fisher, Nemhauser & Wolsey (1978, Math. Prog.
    Study 8, §4, locally greedy on a partition matroid) it is within ``1/2`` of the optimum, hence
    ``γ̃ ≤ 2 G_seq``. This also holds for ``eps = 0`` (blocks that are copies of ``X``), where it is weaker
    than ``greedy_submodular``.

``greedy_online`` (data-dependent submodular bound)
    For every reference set ``S``, monotonicity and submodularity give
    ``F(OPT) ≤ F(OPT ∪ S) ≤ F(S) + Σ_{o ∈ OPT} Δ(o | S)`` (Nemhauser, Wolsey & Fisher 1978, Prop. 2.1;
    the "online bound" of Leskovec et al. 2007, KDD, §3).

    * Stationary: ``S`` is the greedy prefix ``S_j``, for any ``j`` (also ``j > m``). Each of the ``m``
      gains is at most ``δ_{j+1} = max_x ½ log(1 + σ²_{S_j}(x)/s2)``, so
      ``γ_m ≤ min_j G_j + m δ_{j+1}``.
    * Time-varying: ``S`` is the sequential greedy set up to time ``t``. ``S_{≤τ} ⊆ S`` and submodularity
      give ``Δ((x,τ) | S) ≤ ½ log(1 + σ²_{τ|τ}(x)/s2)``, where ``σ²_{τ|τ}`` is the filtered variance after
      the greedy's picks at ``τ``. So ``γ̃_t ≤ G_seq(t) + K Σ_{τ≤t} max_x ½ log(1 + σ²_{τ|τ}(x)/s2)``. This
      is never above ``seq_greedy_2x``.

``relaxation`` (concave relaxation with a Frank–Wolfe duality certificate)
    A design ``w ≥ 0`` puts weight ``w_{x,τ}`` at ``(x, τ)``. Weight ``w`` is an observation with noise
    variance ``s2/w``, and integer designs are multisets. ``φ(w) = ½ log det(I + s2⁻¹ W^{1/2} K̃ W^{1/2})``
    is concave (log det of an affine PSD map). Its gradient is ``g_{x,τ} = σ²_w(x,τ) / (2 s2)``, with
    ``σ²_w`` the posterior variance under ``w``. Every admissible multiset is feasible for the relaxation
    {``w ≥ 0``, mass ``m`` (stationary) or mass ``K`` per time (time-varying)}. Concavity gives, for
    every ``w`` (feasible or not) and every feasible ``v``,
    ``φ(v) ≤ φ(w) + ⟨g(w), v − w⟩ ≤ φ(w) − ⟨g(w), w⟩ + (max over feasible v of ⟨g(w), v⟩)``.
    The right-hand side is the Frank–Wolfe gap bound (Jaggi 2013, ICML, §2). It is certified for any
    ``w``, however poorly optimised.

    * Stationary: the bound is the line ``φ(w) − ⟨g,w⟩ + m max_x g_x`` in ``m``. Every iterate of a
      multiplicative-update solver (Silvey, Titterington & Torsney 1978), run at a ladder of budgets, gives
      one line. So do the greedy count vectors. The curve is the lower envelope, valid for every ``m``.
    * Time-varying: time-invariant designs ``w_{x,τ} = ω w̄_x``. With features ``K_r = ΦΦᵀ`` the process is
      ``f(x,τ) = φ_xᵀ z_τ`` with ``z_{τ+1} = ρ z_τ + √(1−ρ²) ξ`` and ``ρ² = 1 − eps``. The information matrix
      ``ΦᵀWΦ/s2 = V diag(a) Vᵀ`` rotates the state into ``r`` independent scalar AR(1) modes, each observed
      with precision ``a_k``. Then ``φ = ½ Σ_k Σ_τ log(1 + a_k p_k(τ|τ−1))`` (scalar Kalman filters), and
      by the two-filter formula and time reversibility the smoothed variance is
      ``s_k(τ; t) = 1 / (1/p_k(τ|τ) + 1/p_k(t−τ+1|t−τ) − 1)``. This gives
      ``σ²_w(x,τ) = Σ_k (ΦV)_{xk}² s_k(τ; t)`` and ``⟨g_τ, w_τ⟩ = ½ Σ_k a_k s_k(τ; t)``. The smoothed
      variance decreases in both ``τ−1`` and ``t−τ``, so a coarse grid over these two distances gives upper
      bounds on the max terms (round down) and lower bounds on the subtracted term (round up). Every ``t``
      is covered at once.

``conditioning`` (any Gaussian reference design)
    For any reference observations ``y_S``, including fractional designs,
    ``I(y_A; f) ≤ I(y_A, y_S; f) = I(y_S; f) + Σ_i I(y_{a_i}; f | y_S, y_{a_{<i}})``. Since
    ``I(y_a; f | D) = ½ log(1 + σ²_D(a)/s2)`` decreases as ``D`` grows,
    ``γ ≤ φ(w) + Σ_{observations} max_x ½ log(1 + σ²_w(x,τ)/s2)`` for every ``w ≥ 0``. This is the
    online bound with a fractional reference set. With small total weight it is much tighter than the
    relaxation when the noise is small, where the relaxation is loose because fractional designs spread
    over many points. It is evaluated for scaled copies ``ω w`` of the relaxation's designs: lines in ``m``
    (stationary), or through the same scalar-mode smoother and grid (time-varying).

``kronecker`` (eigenvalue bound, derived here)
    ``K̃`` on ``X × [T]`` is ``K ⊗ D_T`` with ``(D_T)_{ij} = ρ^{|i−j|}``. An admissible multiset is
    ``P K̃ Pᵀ`` with ``PᵀP = diag(counts)``. Sylvester gives
    ``det(I + s2⁻¹ P K̃ Pᵀ) = det(I + s2⁻¹ K̃^{1/2} PᵀP K̃^{1/2})``, and ``PᵀP ≼ c I``. So
    ``γ ≤ ½ Σ_i log det(I + s2⁻¹ c λ_i(K) D_t)``, with ``c = m`` (stationary: ``D = J``, rank one) or
    ``c = K`` (time-varying: at most ``K`` copies per time). The determinants for every ``t`` come from
    scalar Kalman filters.

``block`` (``eps > 0``; an alternative to Bogunovic et al.'s form, proved here)
    ``γ̃_t ≤ ⌈t/N⌉ (γ^{up}_{NK} + ¼ κ s2⁻¹ K^{3/2} N^{5/2} eps)``, minimised over block lengths ``N``.
    Here ``κ = max_x k(x,x)`` (1 for kernels normalised to k(x,x) ≤ 1) and ``γ^{up}`` is the certified
    stationary upper curve of this module.

    Proof:
    1. Cut ``[t]`` into ``⌈t/N⌉`` blocks of at most ``N`` consecutive rounds. Fischer's inequality for the PD
       matrix ``I + s2⁻¹K̃_A`` gives ``log det ≤ Σ_b log det(blocks)``.
    2. In a block of ``m ≤ NK`` observations, ``K̃_b = K_b − E`` with ``E = K_b ∘ (J − D_b)``. Since
       ``|K_{ij}| ≤ κ``, ``|E_{ij}| ≤ κ δ_N`` with ``δ_N = 1 − (1−eps)^{(N−1)/2}``. For ``N ≥ 2``,
       ``δ_N ≤ max(1, (N−1)/2) eps ≤ N eps/2``. This uses Bernoulli for exponents ``≥ 1``, and
       ``1 − √(1−eps) ≤ eps`` for the exponent ``½``, which is where ``N ≥ 2`` is needed. For ``N = 1``,
       ``E = 0``.
    3. ``log det`` is concave, so ``log det(X − E/s2) ≤ log det X − s2⁻¹ tr(X⁻¹E)`` with
       ``X = I + s2⁻¹K_b``. Since ``‖X⁻¹‖ ≤ 1``, this is ``≤ log det X + s2⁻¹ ‖E‖_*``. Then
       ``‖E‖_* ≤ √m ‖E‖_F ≤ m^{3/2} κ δ_N``, and ``½ log det X ≤ γ_m ≤ γ^{up}_{NK}``.
    4. Hence the per-block term is ``½ s2⁻¹ (NK)^{3/2} κ N eps / 2``, the formula above. For ``K = κ = 1``
       it is ``¼ R⁻² N^{5/2} eps``. A shorter last block is covered because both terms grow
       with the block length.
    Bogunovic et al.'s form ``(T/N + 1)(γ_N + σ⁻² N³ ε)`` is not used (ledger TV2, theory/et_gp_ucb.py).

``block_hadamard`` (``eps > 0``)
    The same as ``block``, with the sharper ``‖E‖_* ≤ κ ‖J − D_b‖_*``. For PSD ``A``, Schur's theorem gives
    ``‖A ∘ C‖ ≤ max_i a_ii ‖C‖`` in operator norm (Horn & Johnson, Topics in Matrix Analysis, §5.5). By
    duality it holds in trace norm, because ``C ↦ A ∘ C`` is self-adjoint for the trace inner product
    (checked numerically in the tests). With
    ``K`` copies per round, ``J − D_b = (J_N − D_N) ⊗ J_K``, so ``‖E‖_* ≤ κ K ‖J_N − D_N‖_*``. The factor
    ``‖J_N − D_N‖_*`` is computed exactly (eigvalsh) for ``N ≤ 256`` and bounded by ``√N ‖J_N − D_N‖_F``
    above that. The per-block term is ``½ s2⁻¹ κ K ‖J_N − D_N‖_*``, never above ``block``'s. A shorter
    block gives a principal submatrix, and compressions do not increase the trace norm.

The upper bounds use ``K₊`` (negative rounding eigenvalues set to 0). ``K ≼ K₊``, and ``log det(I + ·)`` is
monotone, so ``γ(K) ≤ γ(K₊)``. The relaxation and conditioning bounds use the leading eigenpairs
``K_r``, keeping eigenvalues above ``1e-13 λ_max``. The dropped part ``K_⊥ ⪰ 0`` costs at most
``½ m s2⁻¹ tr K_⊥``, which is added: ``det(I+A+B) ≤ det(I+A) det(I+B)`` for PSD ``A, B``, and
``log(1+x) ≤ x``.

Cost: the greedy is ``O(TK n²)``. Each relaxation iterate is ``O(n r²)``. The time-varying certificates
are ``O(r³ + n r G²)`` per design (``G`` ≈ 60 grid distances), plus ``O(r T)`` filters. On the 400-point
2-D grid with ``T = 1000``, expect a few seconds. The computation runs with single-threaded OpenBLAS (see
:data:`LIMIT_BLAS_THREADS`).
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
from scipy.linalg import LinAlgError, solve_triangular
from threadpoolctl import threadpool_limits

from ..errors import BoundcheckError
from ..runtime.cache import cache
from ..utils.validation import check_int, check_positive, check_square_matrix, check_unit_interval
from .domains import grid
from .information import gain_increments
from .kernels import check_psd, make_kernel, spatio_temporal_gram

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
_EIG_REL = 1e-13  # eigenvalues below this fraction of λ_max go to the (bounded) tail
_MAX_GRID_POINTS = 6000  # gamma_for_grid: n×n matrices and O(n³) steps beyond this are impractical
_MAX_BRUTEFORCE = 300_000  # exact_gamma_bruteforce: candidate sets enumerated at most
_EXACT_PREFIX_MAX = 3000  # Cholesky recomputation of the greedy value up to this many observations
_SUBADD_MAX = 20_000  # subadditive closure (O(T²)) up to this horizon


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


# ------------------------------------------------------------------------------------------- spectrum
class _Spectrum:
    """Eigen-split of K₊: features Φ (n×r) of the leading part and the trace of the (tiny) tail."""

    def __init__(self, K: np.ndarray) -> None:
        lam, U = np.linalg.eigh(K)
        lam = np.clip(lam, 0.0, None)
        self.lam = lam[::-1].copy()  # descending, K₊ spectrum
        lam_max = float(self.lam[0])
        keep = self.lam > lam_max * _EIG_REL if lam_max > 0 else np.zeros_like(self.lam, dtype=bool)
        U = U[:, ::-1]
        self.Phi = U[:, keep] * np.sqrt(self.lam[keep])
        self.tail_trace = float(self.lam[~keep].sum())
        self.kappa = float(max(np.max(np.diag(K)), 0.0))

    @property
    def r(self) -> int:
        return int(self.Phi.shape[1])

    def tail(self, m: np.ndarray, s2: float) -> np.ndarray:
        """Bound ½ m s2⁻¹ tr K_⊥ on the information the dropped eigen-directions can add (m observations)."""
        return 0.5 * np.asarray(m, dtype=np.float64) * self.tail_trace / s2


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


# ------------------------------------------------------------------------------- stationary relaxation
def _relax_eval(Phi: np.ndarray, w: np.ndarray, s2: float):
    """φ(w) = ½ log det(I + ΦᵀWΦ/s2) and σ²_w(x) = φ_xᵀ(I + ΦᵀWΦ/s2)⁻¹φ_x (features Φ, r columns)."""
    r = Phi.shape[1]
    A = np.eye(r) + (Phi.T * (w / s2)) @ Phi
    L = np.linalg.cholesky(A)
    phi = float(np.log(np.diag(L)).sum())
    Vs = solve_triangular(L, Phi.T, lower=True)
    var = np.einsum("ij,ij->j", Vs, Vs)
    return phi, var


def _scaled_lines(Phi: np.ndarray, w: np.ndarray, s2: float, scales: np.ndarray):
    """Frank–Wolfe and conditioning lines (intercept, slope) of the designs ω·w for every ω in ``scales``."""
    A0 = (Phi.T * (w / s2)) @ Phi
    a0, V = np.linalg.eigh(0.5 * (A0 + A0.T))
    a0 = np.clip(a0, 0.0, None)
    Psi2 = (Phi @ V) ** 2
    a = scales[:, None] * a0[None, :]  # (S, r)
    phi = 0.5 * np.log1p(a).sum(1)
    wg = 0.5 * (a / (1.0 + a)).sum(1)  # ⟨g, ωw⟩
    var = (1.0 / (1.0 + a)) @ Psi2.T  # (S, n)
    vmax = var.max(1)
    fw = np.stack([phi - wg, vmax / (2.0 * s2)], axis=1)
    cond = np.stack([phi, 0.5 * np.log1p(vmax / s2)], axis=1)
    return fw, cond


def _relaxation_stationary(spec: _Spectrum, s2: float, m_max: int, *, max_iter: int = 25,
                           n_budgets: int = 10, tol: float = 1e-3):
    """Lines for the stationary relaxation (FW certificate) and conditioning bounds, valid for every m."""
    Phi = spec.Phi
    n, r = Phi.shape
    if r == 0:
        z = np.zeros((1, 2))
        return z, z
    # budgets below m_max/128 are left to the greedy-based bounds (the relaxation is loose there anyway)
    lo = max(1.0, m_max / 128.0)
    budgets = np.unique(np.round(np.geomspace(lo, m_max, min(n_budgets, m_max))).astype(int))
    budgets = budgets[budgets >= 1]
    fw_lines, cond_lines = [], []
    scales = np.geomspace(1e-3, 2.0, 16)
    w = np.full(n, 1.0 / n)
    for h in budgets:
        w = 0.9 * w * (h / w.sum()) + 0.1 * h / n
        power, prev_phi = 1.5, -np.inf
        for _ in range(max_iter):
            phi, var = _relax_eval(Phi, w, s2)
            g = var / (2.0 * s2)
            gw, gmax = float(g @ w), float(g.max())
            fw_lines.append((phi - gw, gmax))
            cond_lines.append((phi, 0.5 * math.log1p(var.max() / s2)))
            if gmax <= 0 or h * gmax - gw <= tol * max(phi, 1e-300):
                break
            if phi < prev_phi:  # over-relaxed step overshot: fall back to the monotone update
                power = 1.0
            prev_phi = phi
            w = w * (g / gmax) ** power
            w *= h / w.sum()
        fw, cond = _scaled_lines(Phi, w, s2, h * scales)
        fw_lines.extend(map(tuple, fw))
        cond_lines.extend(map(tuple, cond))
    return np.asarray(fw_lines), np.asarray(cond_lines)


def _envelope(lines: np.ndarray, m: np.ndarray) -> np.ndarray:
    """min over lines (a, b) of a + b·m, for every m (chunked to bound memory)."""
    out = np.full(len(m), np.inf)
    for s in range(0, len(lines), 512):
        L = lines[s:s + 512]
        out = np.minimum(out, (L[:, 0][:, None] + L[:, 1][:, None] * m[None, :]).min(0))
    return out


# ----------------------------------------------------------------------------- time-varying machinery
def _ar1_filter(a: np.ndarray, rho2: float, T: int, record: np.ndarray):
    """Scalar AR(1) Kalman filters (stationary variance 1, ρ² = 1−ε), one per entry of ``a`` (observation
    precision per step). Returns the per-step ½Σ log(1 + a p_pred) summed over entries (length T), and
    p_pred, p_filt at the steps in ``record`` (arrays (len(a), len(record)))."""
    a = np.asarray(a, dtype=np.float64)
    shape = a.shape
    a = a.ravel()
    p = np.ones_like(a)
    q = 1.0 - rho2
    info = np.empty((T,) + shape[:-1]) if len(shape) > 1 else np.empty(T)
    rec_pos = {int(v): i for i, v in enumerate(record)}
    pp_rec = np.empty((a.size, len(record)))
    pf_rec = np.empty((a.size, len(record)))
    for t in range(T):
        sv = 1.0 + a * p
        lg = np.log(sv)
        info[t] = 0.5 * (lg.reshape(shape).sum(-1))
        pf = p / sv
        i = rec_pos.get(t)
        if i is not None:
            pp_rec[:, i] = p
            pf_rec[:, i] = pf
        p = rho2 * pf + q
    return info, pp_rec.reshape(shape + (len(record),)), pf_rec.reshape(shape + (len(record),))


def _tv_grid(T: int, dense: int = 32, ratio: float = 1.15) -> np.ndarray:
    """Distances 0..T−1 at which smoothed variances are evaluated: all below ``dense``, geometric above,
    always including T−1."""
    vals = set(range(min(T, dense)))
    x = float(dense)
    while x < T - 1:
        vals.add(int(x))
        x *= ratio
    vals.add(T - 1)
    return np.array(sorted(vals), dtype=np.int64)


def _antidiag_sums(M: np.ndarray, idx: np.ndarray, T: int) -> np.ndarray:
    """out[t−1] = Σ_{i=0}^{t−1} M[idx[i], idx[t−1−i]] for t = 1..T, in O(G·T) (idx piecewise constant)."""
    out = np.zeros(T)
    s = np.arange(T)
    # runs of equal idx values: [start, end)
    change = np.flatnonzero(np.diff(idx)) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [T]])
    for a_p, b_p in zip(starts, ends, strict=True):
        h = M[idx[a_p], idx]  # h[j] = M[p, idx[j]]
        Hc = np.concatenate([[0.0], np.cumsum(h)])
        valid = s >= a_p
        sv = s[valid]
        hi = sv - a_p
        lo = np.maximum(sv - (b_p - 1), 0)
        out[valid] += Hc[hi + 1] - Hc[lo]
    return out


def _tv_design_certificates(spec: _Spectrum, s2: float, eps: float, T: int, Kb: int, jobs: list):
    """Relaxation (FW) and conditioning certificates of time-invariant designs, for all t ≤ T at once.

    ``jobs``: tuples ``(w̄, scales, want_fw, want_cond)``. The design ω·w̄ (mass ω per time) is evaluated for
    every ω in ``scales``.
    """
    Phi = spec.Phi
    rho2 = 1.0 - eps
    gv = _tv_grid(T)
    G = len(gv)
    pos = np.searchsorted(gv, np.arange(T), side="right") - 1  # round down: largest grid value ≤ i
    ceil = np.searchsorted(gv, np.arange(T), side="left")  # round up: smallest grid value ≥ i
    fw_best = np.full(T, np.inf)
    cond_best = np.full(T, np.inf)
    for w, scales, want_fw, want_cond in jobs:
        A0 = (Phi.T * (w / s2)) @ Phi
        a0, V = np.linalg.eigh(0.5 * (A0 + A0.T))
        a0 = np.clip(a0, 0.0, None)
        Psi2 = (Phi @ V) ** 2
        a = np.asarray(scales, dtype=np.float64)[:, None] * a0[None, :]  # (S, r)
        info, pp, pf = _ar1_filter(a, rho2, T, gv)  # info (T, S); pp, pf (S, r, G)
        phi_t = np.cumsum(info, axis=0)  # (T, S)
        for si in range(len(scales)):
            # smoothed variance of mode k at distances (i, j) from the two ends: 1/(F_k(i) + B_k(j))
            sm = 1.0 / ((1.0 / pf[si])[:, :, None] + (1.0 / pp[si] - 1.0)[:, None, :])  # (r, G, G)
            vmax = (Psi2 @ sm.reshape(len(a0), G * G)).max(0).reshape(G, G)
            if want_cond:
                c = phi_t[:, si] + Kb * _antidiag_sums(0.5 * np.log1p(vmax / s2), pos, T)
                cond_best = np.minimum(cond_best, c)
            if want_fw:
                wg = 0.5 * np.einsum("k,kij->ij", a[si], sm)  # ⟨g_τ, w_τ⟩ at grid distances
                f = (phi_t[:, si] - _antidiag_sums(wg, ceil, T)
                     + Kb * _antidiag_sums(vmax / (2.0 * s2), pos, T))
                fw_best = np.minimum(fw_best, f)
    tail = spec.tail(np.arange(1, T + 1) * Kb, s2)
    return fw_best + tail, cond_best + tail


def _tv_optimise_shape(spec: _Spectrum, s2: float, eps: float, h: int, mass: float, w0: np.ndarray,
                       iters: int) -> np.ndarray:
    """Multiplicative updates for the time-invariant design of mass ``mass`` per step maximising φ_h.

    This is only a heuristic for *where* to linearise: any design gives a valid certificate.
    """
    Phi = spec.Phi
    rho2 = 1.0 - eps
    w = w0 * (mass / w0.sum())
    rec = np.arange(h)
    for _ in range(iters):
        A0 = (Phi.T * (w / s2)) @ Phi
        a, V = np.linalg.eigh(0.5 * (A0 + A0.T))
        a = np.clip(a, 0.0, None)
        _, pp, pf = _ar1_filter(a, rho2, h, rec)
        sm = 1.0 / (1.0 / pf + 1.0 / pp[:, ::-1] - 1.0)  # (r, h): τ−1 = i, t−τ = h−1−i
        grad = ((Phi @ V) ** 2) @ sm.sum(1)
        gmax = grad.max()
        if not np.isfinite(gmax) or gmax <= 0:
            break
        w = w * (grad / gmax) ** 1.5
        w *= mass / w.sum()
    return w / w.sum()


def _relaxation_tv(spec: _Spectrum, s2: float, eps: float, T: int, Kb: int, want_fw: bool,
                   want_cond: bool):
    """Time-invariant designs: one optimised at full mass (the relaxation's linearisation point) and one at
    mass K/32 (small reference designs are what make the conditioning bound tight at small noise)."""
    n = spec.Phi.shape[0]
    if spec.r == 0:
        z = spec.tail(np.arange(1, T + 1) * Kb, s2)
        return z, z
    w_full = _tv_optimise_shape(spec, s2, eps, T, float(Kb), np.full(n, 1.0 / n), iters=12)
    w_small = _tv_optimise_shape(spec, s2, eps, T, Kb / 32.0, w_full, iters=8)
    jobs = []
    if want_fw:
        jobs.append((w_full, Kb * np.array([0.7, 1.0, 1.4]), True, want_cond))
    if want_cond:
        jobs.append((w_small, Kb * np.geomspace(1e-3, 0.5, 10), False, True))
    return _tv_design_certificates(spec, s2, eps, T, Kb, jobs)


def _kronecker_tv(lam: np.ndarray, s2: float, eps: float, T: int, Kb: int) -> np.ndarray:
    lam = lam[lam > 0]
    if lam.size == 0:
        return np.zeros(T)
    info, _, _ = _ar1_filter(Kb * lam / s2, 1.0 - eps, T, np.array([], dtype=np.int64))
    return np.cumsum(info)


def _nuclear_J_minus_D(eps: float, Ns: np.ndarray) -> np.ndarray:
    """Upper bounds on ‖J_N − D_N‖_* for the block lengths Ns: exact for N ≤ 256, else √N ‖·‖_F."""
    rho = math.sqrt(1.0 - eps)
    Nmax = int(Ns.max())
    d = np.arange(Nmax)
    c = (1.0 - rho**d) ** 2  # squared entries at offset d
    C1 = np.concatenate([[0.0], np.cumsum(c)])
    C2 = np.concatenate([[0.0], np.cumsum(d * c)])
    out = np.empty(len(Ns))
    for k, N in enumerate(Ns):
        N = int(N)
        frob = math.sqrt(max(2.0 * (N * C1[N] - C2[N]), 0.0))  # 2 Σ_{d=1}^{N−1} (N−d) c_d
        out[k] = math.sqrt(N) * frob
        if N <= 256:
            idx = np.arange(N)
            Dm = rho ** np.abs(idx[:, None] - idx[None, :])
            out[k] = min(out[k], float(np.abs(np.linalg.eigvalsh(1.0 - Dm)).sum()))
    return out


def _block_bounds(stat_upper: np.ndarray, kappa: float, s2: float, eps: float, T: int, Kb: int,
                  want: set[str]) -> dict[str, np.ndarray]:
    """⌈t/N⌉(γ^{up}_{NK} + correction(N)), minimised over N in a candidate set, for t = 1..T."""
    Ns = np.unique(np.concatenate([np.arange(1, min(T, 64) + 1),
                                   np.round(np.geomspace(64, T, 80)).astype(int) if T > 64 else []]))
    Ns = Ns[(Ns >= 1) & (Ns <= T)].astype(np.int64)
    g_up = stat_upper[Ns * Kb - 1]
    t = np.arange(1, T + 1)
    nblocks = -(-t[:, None] // Ns[None, :])  # ⌈t/N⌉
    out = {}
    if "block" in want:
        corr = 0.25 * kappa / s2 * Kb**1.5 * Ns.astype(float) ** 2.5 * eps
        out["block"] = (nblocks * (g_up + corr)[None, :]).min(1)
    if "block_hadamard" in want:
        corr = 0.5 * kappa / s2 * Kb * _nuclear_J_minus_D(eps, Ns)
        out["block_hadamard"] = (nblocks * (g_up + corr)[None, :]).min(1)
    return out


# ---------------------------------------------------------------------------------------------- closure
def _monotone(u: np.ndarray) -> np.ndarray:
    """γ is non-decreasing, so γ_t ≤ min_{t' ≥ t} U(t')."""
    return np.minimum.accumulate(u[::-1])[::-1]


def _subadditive(u: np.ndarray) -> np.ndarray:
    """γ_{a+b} ≤ γ_a + γ_b: U(t) ← min(U(t), min_a U(a) + U(t−a)) in increasing t."""
    u = u.copy()
    if len(u) > _SUBADD_MAX:
        return u
    for t in range(2, len(u) + 1):  # u[t-1] is U(t)
        a = np.arange(1, t // 2 + 1)
        u[t - 1] = min(u[t - 1], float((u[a - 1] + u[t - a - 1]).min()))
    return u


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
    compute (default: all). The lower end, ``"greedy"``, is always computed. See the module docstring for
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

    from . import domains, information, kernels

    h = hashlib.sha256(f"{np.__version__}|{scipy.__version__}|{LIMIT_BLAS_THREADS}".encode())
    for mod in (__file__, domains.__file__, information.__file__, kernels.__file__):
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

