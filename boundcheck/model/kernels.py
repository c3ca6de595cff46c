"""Covariance functions on finite sets of points, vectorised, float64.

Every kernel is a callable ``k(X, Y) -> (len(X), len(Y))`` array. Parameterisations follow the papers
and are spelled out in each docstring, because two conventions for the RBF lengthscale are in use:

* the usual form  ``exp(-||x - x'||^2 / (2 l^2))``  (``RBF(l)``), and
* paper 000's form ``exp(-||x - x'||^2 / (2 l))``  (``RBF.paper(l)``: there ``l`` is a *squared* lengthscale).

The spatio-temporal kernels of the time-varying papers are products ``k_X(x, x') (1-eps)^{|t-t'|/2}``;
:func:`time_factor` gives the temporal part.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import BoundcheckError
from ..utils.validation import check_positive, check_square_matrix, check_unit_interval

__all__ = [
    "Kernel",
    "RBF",
    "Matern",
    "Linear",
    "EmpiricalCovariance",
    "time_factor",
    "spatio_temporal_gram",
    "make_kernel",
    "check_psd",
    "KernelSpec",
    "kernel_spec",
    "SPEC_TOLERANCE",
]


def _as2d(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    return X[:, None] if X.ndim == 1 else X


def sq_distances(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """||x − y||² for every row x of X (n, d) and y of Y (m, d): (n, m), summed over the coordinates in order —
    the arithmetic of ``scipy.spatial.distance.cdist(X, Y, "sqeuclidean")``, bit for bit
    (tests/model/test_posterior_engine.py), without importing scipy.spatial (≈ 0.06 s of every command, spent
    parsing the docstrings of its rotation classes)."""
    d2 = np.zeros((X.shape[0], Y.shape[0]))
    for k in range(X.shape[1]):
        diff = X[:, k, None] - Y[None, :, k]
        d2 += diff * diff
    return d2


class Kernel:
    """Base class. Subclasses implement ``__call__(X, Y)`` and ``variance`` (sup of k(x, x))."""

    variance: float = 1.0

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def gram(self, X: np.ndarray) -> np.ndarray:
        """Symmetric Gram matrix on the points ``X``, checked to be PSD."""
        K = self(X, X)
        K = 0.5 * (K + K.T)
        check_psd(K, name=repr(self))
        return K


@dataclass(frozen=True)
class RBF(Kernel):
    """Squared-exponential kernel ``s^2 exp(-||x-x'||^2 / (2 l^2))`` (usual parameterisation).

    Use :meth:`paper` for paper 000's ``exp(-||x-x'||^2/(2 l))``, i.e. ``lengthscale = sqrt(l)``.
    """

    lengthscale: float = 1.0
    variance: float = 1.0

    def __post_init__(self) -> None:
        check_lengthscale(self.lengthscale)
        check_positive("variance", self.variance)

    @classmethod
    def paper(cls, l: float, variance: float = 1.0) -> RBF:
        """Paper 000's form ``exp(-||x-x'||^2/(2l))``: ``l`` is a squared lengthscale."""
        return cls(lengthscale=float(np.sqrt(check_positive("l", l))), variance=variance)

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        X = _as2d(X)
        Y = X if Y is None else _as2d(Y)
        d2 = sq_distances(X, Y)
        return self.variance * np.exp(-0.5 * d2 / self.lengthscale**2)


#: the smallest lengthscale a kernel takes: below it ℓ² underflows to 0 (or d²/ℓ² overflows on any domain), the
#: Gram matrix is 0/0 on its diagonal, and numpy would print warnings before the non-finite matrix is refused
MIN_LENGTHSCALE = 1e-100
#: the largest: far above it ℓ² overflows (≈ 1e154; an OverflowError, an internal error, where ℓ is squared as a
#: Python float), and the kernel is constant on any domain long before
MAX_LENGTHSCALE = 1e100


def check_lengthscale(value, name: str = "lengthscale") -> float:
    """A kernel lengthscale: a finite number in [:data:`MIN_LENGTHSCALE`, :data:`MAX_LENGTHSCALE`] (one line
    otherwise, no numpy warnings)."""
    v = check_positive(name, value)
    if v < MIN_LENGTHSCALE:
        raise BoundcheckError(f"{name} {value!r} is too small: at least {MIN_LENGTHSCALE:g} (below it ℓ² "
                              f"underflows and the kernel matrix is not finite)")
    if v > MAX_LENGTHSCALE:
        raise BoundcheckError(f"{name} {value!r} is too large: at most {MAX_LENGTHSCALE:g} (far above it ℓ² "
                              f"overflows; the kernel is constant long before)")
    return v


@dataclass(frozen=True)
class Matern(Kernel):
    """Matérn kernel with ``nu`` in {1/2, 3/2, 5/2}: ``s^2 f_nu(sqrt(2 nu) r / l)``."""

    nu: float = 2.5
    lengthscale: float = 1.0
    variance: float = 1.0

    def __post_init__(self) -> None:
        if self.nu not in (0.5, 1.5, 2.5):
            raise BoundcheckError(f"Matern nu must be one of 0.5, 1.5, 2.5, got {self.nu!r}")
        check_lengthscale(self.lengthscale)
        check_positive("variance", self.variance)

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        X = _as2d(X)
        Y = X if Y is None else _as2d(Y)
        r = np.sqrt(sq_distances(X, Y)) / self.lengthscale  # cdist's "euclidean", bit for bit
        if self.nu == 0.5:
            k = np.exp(-r)
        elif self.nu == 1.5:
            s = np.sqrt(3.0) * r
            k = (1.0 + s) * np.exp(-s)
        else:
            s = np.sqrt(5.0) * r
            k = (1.0 + s + s * s / 3.0) * np.exp(-s)
        return self.variance * k


@dataclass(frozen=True)
class Linear(Kernel):
    """Linear kernel ``s^2 <x, x'>``. ``variance`` is the scale s^2; sup k(x,x) depends on the domain."""

    variance: float = 1.0

    def __post_init__(self) -> None:
        check_positive("variance", self.variance)

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        X = _as2d(X)
        Y = X if Y is None else _as2d(Y)
        return self.variance * (X @ Y.T)


class EmpiricalCovariance(Kernel):
    """A given PSD matrix on a finite index set; points are integer indices into it (column 0)."""

    def __init__(self, matrix: np.ndarray) -> None:
        M = check_square_matrix("empirical covariance", matrix)
        M = 0.5 * (M + M.T)
        check_psd(M, name="empirical covariance")
        self.matrix = M
        self.variance = float(np.max(np.diag(M)))

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        i = _as2d(X)[:, 0].astype(np.int64)
        j = i if Y is None else _as2d(Y)[:, 0].astype(np.int64)
        return self.matrix[np.ix_(i, j)]

    def __repr__(self) -> str:
        return f"EmpiricalCovariance(n={self.matrix.shape[0]})"


def time_factor(eps: float, t: np.ndarray, s: np.ndarray | None = None) -> np.ndarray:
    """Temporal factor ``(1-eps)^{|t-s|/2}`` of Bogunovic et al.'s time-varying kernel (matrix over t, s)."""
    eps = check_unit_interval("eps", eps)
    t = np.asarray(t, dtype=np.float64)
    s = t if s is None else np.asarray(s, dtype=np.float64)
    dt = np.abs(t[:, None] - s[None, :])
    if eps == 1.0:  # 0**0 = 1 on the diagonal, independent draws elsewhere
        return (dt == 0).astype(np.float64)
    return np.exp(0.5 * dt * np.log1p(-eps))


def spatio_temporal_gram(
    K_X: np.ndarray, idx: np.ndarray, times: np.ndarray, eps: float,
    idx2: np.ndarray | None = None, times2: np.ndarray | None = None,
) -> np.ndarray:
    """Explicit matrix ``k_X(x_i, x_j) (1-eps)^{|t_i-t_j|/2}`` for points given as domain indices."""
    idx2 = idx if idx2 is None else idx2
    times2 = times if times2 is None else times2
    return K_X[np.ix_(idx, idx2)] * time_factor(eps, times, times2)


def check_psd(K: np.ndarray, *, name: str = "kernel matrix", tol: float = 1e-8) -> None:
    """Raise :class:`BoundcheckError` unless ``K`` is symmetric PSD up to ``tol * max|K|``."""
    K = check_square_matrix(name, K)
    scale = max(float(np.max(np.abs(K))), 1e-300)
    if np.max(np.abs(K - K.T)) > tol * scale:
        raise BoundcheckError(f"{name} is not symmetric")
    lam_min = float(np.linalg.eigvalsh(0.5 * (K + K.T))[0])
    if lam_min < -tol * scale * K.shape[0]:
        raise BoundcheckError(f"{name} is not positive semi-definite (smallest eigenvalue {lam_min:.3g})")


KERNEL_NAMES = ("rbf", "rbf_paper", "matern12", "matern32", "matern52", "linear")


def make_kernel(name: str, lengthscale: float = 1.0, variance: float = 1.0) -> Kernel:
    """Kernel by name: rbf (usual), rbf_paper (paper 000's l), matern12/32/52, linear."""
    name = name.lower()
    if name == "rbf":
        return RBF(lengthscale, variance)
    if name == "rbf_paper":
        return RBF.paper(lengthscale, variance)
    if name in ("matern12", "matern32", "matern52"):
        return Matern({"matern12": 0.5, "matern32": 1.5, "matern52": 2.5}[name], lengthscale, variance)
    if name == "linear":
        return Linear(variance)
    raise BoundcheckError(f"unknown kernel {name!r}; choose one of {', '.join(KERNEL_NAMES)}")


#: how close (relative to the kernel's largest entry) a kernel rebuilt from its parameters must be to the prior's
#: matrix to stand for it: a few ulps of the O(1) entries, far below anything a claim resolves (an equivalent
#: kernel whose hyperparameters went through float32 is off by ≈ 1e-8 and fails it)
SPEC_TOLERANCE = 1e-12


@dataclass(frozen=True, eq=False)
class KernelSpec:
    """The prior's covariance as a modelling stack sees it: a family with its parameters on the domain's points,
    or, where the matrix is no family's (an empirical covariance, a graph kernel, a sum), the matrix by index.

    Attributes
    ----------
    family : str
        ``"rbf"`` (``s² exp(−r²/2ℓ²)``), ``"matern"`` (``nu``), or ``"matrix"`` (only the Gram matrix is known).
    points : (n, d) array
        The domain's points (a family's inputs).
    matrix : (n, n) array
        The prior's Gram matrix k_X, which the parameters reproduce to :data:`SPEC_TOLERANCE` (checked).
    lengthscale, variance, nu : float or None
        ℓ (isotropic), s² and ν of a family; None for ``"matrix"``.
    """

    family: str
    points: np.ndarray
    matrix: np.ndarray
    lengthscale: float | None = None
    variance: float | None = None
    nu: float | None = None

    @property
    def inputs(self) -> np.ndarray:
        """(n, d) float64: what a model of the stack takes as x for each point: the points for a family, the
        index (one column 0..n−1) for ``"matrix"``, whose kernel looks the matrix up by index."""
        if self.family == "matrix":
            return np.arange(self.matrix.shape[0], dtype=np.float64)[:, None]
        return np.asarray(self.points, dtype=np.float64)

    def kernel(self) -> Kernel:
        """The equivalent :class:`Kernel` (an :class:`EmpiricalCovariance` on indices for ``"matrix"``)."""
        if self.family == "rbf":
            return RBF(self.lengthscale, self.variance)
        if self.family == "matern":
            return Matern(self.nu, self.lengthscale, self.variance)
        return EmpiricalCovariance(self.matrix)

    def describe(self) -> str:
        if self.family == "rbf":
            return f"RBF, ℓ = {self.lengthscale:.17g}, s² = {self.variance:.17g}"
        if self.family == "matern":
            return f"Matérn ν = {self.nu:g}, ℓ = {self.lengthscale:.17g}, s² = {self.variance:.17g}"
        return f"a {self.matrix.shape[0]}×{self.matrix.shape[0]} matrix by index (no kernel family reproduces it)"


def mismatch(K: np.ndarray, M: np.ndarray) -> float:
    """max |K − M| relative to max |M|: how far a rebuilt kernel matrix ``K`` is from the prior's ``M``."""
    return float(np.max(np.abs(np.asarray(K, dtype=np.float64) - M)) / max(float(np.max(np.abs(M))), 1e-300))


def kernel_spec(points: np.ndarray | None, K: np.ndarray) -> KernelSpec:
    """The :class:`KernelSpec` of a prior's Gram matrix ``K`` on ``points``: the isotropic RBF or Matérn
    (ν ∈ {½, 3/2, 5/2}) that reproduces ``K`` to :data:`SPEC_TOLERANCE`, else ``"matrix"``.

    The scenario keeps only the matrix, so the parameters are solved from it — s² from the diagonal, ℓ from the
    pair whose correlation is closest to e^{−1} (best conditioned) — and then *checked*: the family's matrix
    on every pair of points must equal ``K`` to round-off, so a spec never stands for a different kernel."""
    M = np.asarray(K, dtype=np.float64)
    n = M.shape[0]
    if points is None or np.ndim(points) != 2 or np.shape(points)[0] != n or n < 2:
        return KernelSpec("matrix", np.arange(n, dtype=np.float64)[:, None], M)
    X = np.asarray(points, dtype=np.float64)
    diag = np.diag(M)
    v = float(diag[0])
    if not (v > 0 and np.all(diag == v)):  # a stationary family has a constant diagonal
        return KernelSpec("matrix", X, M)
    r = np.sqrt(sq_distances(X, X))
    c = M / v
    ok = (r > 0) & (c > 1e-3) & (c < 1 - 1e-3)
    if not np.any(ok):
        return KernelSpec("matrix", X, M)
    i, j = np.unravel_index(np.argmin(np.where(ok, np.abs(c - np.exp(-1.0)), np.inf)), c.shape)
    rij, cij = float(r[i, j]), float(c[i, j])
    candidates = [("rbf", None, rij / np.sqrt(-2.0 * np.log(cij)))]
    for nu, f in ((0.5, lambda s: np.exp(-s)), (1.5, lambda s: (1 + s) * np.exp(-s)),
                  (2.5, lambda s: (1 + s + s * s / 3) * np.exp(-s))):
        # solve f(√(2ν) r/ℓ) = c for s = √(2ν) r/ℓ by bisection (f decreases on s > 0), then polish by Newton
        lo, hi = 0.0, 1.0
        while f(hi) > cij:
            hi *= 2.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if f(mid) > cij else (lo, mid)
        candidates.append(("matern", nu, np.sqrt(2 * nu) * rij / (0.5 * (lo + hi))))
    for family, nu, ell in candidates:
        if not MIN_LENGTHSCALE <= ell <= MAX_LENGTHSCALE:
            continue
        spec = KernelSpec(family, X, M, lengthscale=float(ell), variance=v, nu=nu)
        if mismatch(spec.kernel()(X, X), M) <= SPEC_TOLERANCE:
            return spec
    return KernelSpec("matrix", X, M)
