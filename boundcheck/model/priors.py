"""GP priors on a finite domain: a mean vector, a spatial Gram matrix k_X, and the drift ε; and RKHS function
families (fixed functions with an exact RKHS norm) for the frequentist theorems.

The spatio-temporal kernel is ``k((x,t),(x',t')) = k_X(x,x') (1-ε)^{|t-t'|/2}`` (Bogunovic et al. 2016);
``ε = 0`` is a time-invariant f. Priors that share ``(K, ε)`` share one posterior covariance in
:mod:`boundcheck.posterior`, so they are grouped by :attr:`GPPrior.kernel_key`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from ..errors import BoundcheckError
from ..utils.validation import check_unit_interval
from .kernels import check_psd

__all__ = ["GPPrior", "RKHSFamily", "clipped_root"]


class _OnDomain:
    """Size of the domain and sup_x k(x, x), for objects holding a Gram matrix ``K``."""

    K: np.ndarray

    @property
    def n(self) -> int:
        return int(self.K.shape[0])

    @property
    def kappa(self) -> float:
        """sup_x k(x, x) on the domain."""
        return float(np.max(np.diag(self.K)))


@dataclass(frozen=True, eq=False)
class GPPrior(_OnDomain):
    """A GP prior over the points of a finite domain.

    Parameters
    ----------
    name : str
        Label used in tables and reports.
    mean : (n,) array
        Prior mean μ^p(x) (time-invariant).
    K : (n, n) array
        Spatial Gram matrix k_X on the domain; must be symmetric PSD.
    eps : float
        Drift parameter ε ∈ [0, 1] of the Markov chain f_{t+1} = √(1-ε) f_t + √ε g_{t+1}.
    """

    name: str
    mean: np.ndarray
    K: np.ndarray = field(repr=False)
    eps: float = 0.0

    def __post_init__(self) -> None:
        K = np.ascontiguousarray(self.K, dtype=np.float64)
        mean = np.ascontiguousarray(np.broadcast_to(np.asarray(self.mean, dtype=np.float64), (K.shape[0],)))
        check_unit_interval(f"prior {self.name!r}: eps", self.eps)
        check_psd(K, name=f"kernel of prior {self.name!r}")
        object.__setattr__(self, "K", 0.5 * (K + K.T))
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "eps", float(self.eps))

    @property
    def kernel_key(self) -> str:
        """Identity of (K, ε): priors with equal keys share a posterior covariance."""
        h = hashlib.sha1(self.K.tobytes())
        h.update(np.float64(self.eps).tobytes())
        return h.hexdigest()


def clipped_root(K: np.ndarray) -> np.ndarray:
    """A factor ``A`` (n, r) with ``A Aᵀ = K`` exactly up to round-off: eigendecomposition of the symmetric
    ``K`` with negative round-off eigenvalues clipped to 0 and null directions dropped (no jitter, so the
    law of ``A z`` is exactly N(0, K))."""
    lam, U = np.linalg.eigh(0.5 * (K + K.T))
    keep = lam > lam.max() * 1e-14 if lam.max() > 0 else np.zeros_like(lam, dtype=bool)
    return U[:, keep] * np.sqrt(lam[keep])[None, :]


@dataclass(frozen=True, eq=False)
class RKHSFamily(_OnDomain):
    """A family of *fixed* functions in the RKHS of a kernel on a finite domain, with an exact norm.

    Every member is ``f = Σ_i α_i k(z_i, ·)`` with centres ``z_i`` in the domain, so ``f|_D = K α`` and
    ``‖f‖²_k = αᵀ K α`` exactly (no interpolation, no pseudo-inverse). Each Monte Carlo run draws one member
    (from the run's own f stream) and keeps it for the whole horizon: the frequentist theorems hold for every
    fixed f in the ball, so a run-to-run mixture over members satisfies them as well.

    Generators
    ----------
    ``posterior_mean``
        Paper 004 §6.1: y ~ N(0, K) on the domain, f the posterior mean with noise ``gen_noise_var``:
        α = (K + λ_gen I)⁻¹ y.
    ``fixed``
        The rows of ``alpha`` (k, n) are the members (projections of benchmark functions, sensor snapshots);
        run r uses a uniformly drawn row.
    ``values``
        The rows of ``values`` (k, n) are functions given only by their values on D, with **no** certified
        norm (``norm`` is NaN): out of theory by construction (a benchmark function itself, not its projection).

    ``scale_to``: if set, every member is rescaled to have exactly this RKHS norm (``values`` members cannot be).
    """

    name: str
    K: np.ndarray = field(repr=False)
    generator: str = "posterior_mean"
    scale_to: float | None = None
    gen_noise_var: float = 0.01
    alpha: np.ndarray | None = field(default=None, repr=False)
    values: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        K = np.ascontiguousarray(self.K, dtype=np.float64)
        check_psd(K, name=f"kernel of RKHS family {self.name!r}")
        object.__setattr__(self, "K", 0.5 * (K + K.T))
        if self.generator not in ("posterior_mean", "fixed", "values"):
            raise BoundcheckError(f"RKHS family {self.name!r}: unknown generator {self.generator!r}")
        if self.generator == "fixed":
            a = np.atleast_2d(np.asarray(self.alpha, dtype=np.float64))
            if a.shape[1] != K.shape[0]:
                raise BoundcheckError(f"RKHS family {self.name!r}: alpha must have {K.shape[0]} columns")
            object.__setattr__(self, "alpha", a)
        if self.generator == "values":
            v = np.atleast_2d(np.asarray(self.values, dtype=np.float64))
            if v.shape[1] != K.shape[0]:
                raise BoundcheckError(f"RKHS family {self.name!r}: values must have {K.shape[0]} columns")
            if self.scale_to is not None:
                raise BoundcheckError("functions given by values have no certified norm to scale")
            object.__setattr__(self, "values", v)
        if self.scale_to is not None and not self.scale_to > 0:
            raise BoundcheckError(f"RKHS family {self.name!r}: scale_to must be positive")

    @property
    def eps(self) -> float:  # static functions (for code that treats every truth as a chain)
        return 0.0

    def norms_of(self, alpha: np.ndarray) -> np.ndarray:
        """Exact RKHS norms √(αᵀKα) of the rows of ``alpha``."""
        a = np.atleast_2d(alpha)
        return np.sqrt(np.maximum(np.einsum("ri,ij,rj->r", a, self.K, a), 0.0))

    @property
    def max_norm(self) -> float:
        """Largest RKHS norm a member can have: ``inf`` if unbounded (unscaled random draws), NaN if unknown."""
        if self.generator == "values":
            return float("nan")
        if self.scale_to is not None:
            return float(self.scale_to)
        if self.generator == "fixed":
            return float(self.norms_of(self.alpha).max())
        return float("inf")

    def describe_norm(self) -> str:
        if self.generator == "values":
            return "functions given by values: ‖f‖_k not certified"
        if self.scale_to is not None:
            return f"every member scaled to ‖f‖_k = {self.scale_to:g} exactly (αᵀKα)"
        if self.generator == "fixed":
            return f"max exact ‖f‖_k over {self.alpha.shape[0]} members = {self.max_norm:.4g}"
        return "unscaled random members: ‖f‖_k unbounded"
